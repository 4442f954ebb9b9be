// How robot-edge-dds configures Cyclone DDS's domain: with DDS Security, or --insecure on
// loopback only (pure: builds the configuration text; dds_io.hpp applies it and checks that
// access control is in effect).
//
// Security comes from one of:
//   --security DIR  the bridge adds a <Security> element naming DIR's files (kSecurityFiles) to
//                   $CYCLONEDDS_URI (which keeps the network settings);
//   $CYCLONEDDS_URI a <Security> element of its own, exactly as an Adam program configures it.
// Either way robot-edge-dds starts only once Cyclone refuses it a writer of rt/lowcmd (dds_io:
// Participant::CheckAccessControl): DDS Security is in effect, the governance controls who may
// write rt/lowcmd, and the bridge's own permissions do not grant it.
// --insecure: no security; Cyclone on 127.0.0.1 only (no multicast, the one peer 127.0.0.1),
// $CYCLONEDDS_URI ignored. Every local user can then command the robot through the bridge.
#pragma once

#include <array>
#include <string>

namespace robot_edge::dds {

// The files of --security DIR, by role (PEM certificates and key; S/MIME-signed XML documents).
struct SecurityFile {
  const char* name;  // in DIR
  const char* what;  // for an error message
};
inline constexpr std::array<SecurityFile, 6> kSecurityFiles = {{
    {"identity_ca.pem", "the identity CA's certificate"},
    {"identity.pem", "robot-edge-dds's identity certificate"},
    {"identity_key.pem", "robot-edge-dds's private key"},
    {"permissions_ca.pem", "the permissions CA's certificate"},
    {"governance.p7s", "the signed governance document"},
    {"permissions.p7s", "robot-edge-dds's signed permissions document"},
}};

// The <CycloneDDS> fragment for DDS Security with DIR's files (absolute `dir`; Cyclone's
// builtin plugins, found by their default names).
std::string SecurityXml(const std::string& dir);

// The <CycloneDDS> fragment for --insecure: 127.0.0.1 only, no multicast.
std::string LoopbackXml();

// What dds_create_domain gets: `env_uri` ($CYCLONEDDS_URI, may be "") followed by the
// security fragment (Cyclone merges a comma-separated list in order).
std::string WithSecurity(const std::string& env_uri, const std::string& dir);

}  // namespace robot_edge::dds
