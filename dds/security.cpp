#include "dds/security.hpp"

namespace robot_edge::dds {

namespace {

// file:DIR/NAME of kSecurityFiles[i].
std::string FileUri(const std::string& dir, std::size_t i) {
  return "file:" + dir + "/" + kSecurityFiles[i].name;
}

}  // namespace

std::string SecurityXml(const std::string& dir) {
  return "<CycloneDDS><Domain><Security>"
         "<Authentication><IdentityCA>" +
         FileUri(dir, 0) + "</IdentityCA><IdentityCertificate>" + FileUri(dir, 1) +
         "</IdentityCertificate><PrivateKey>" + FileUri(dir, 2) +
         "</PrivateKey></Authentication>"
         "<AccessControl><PermissionsCA>" +
         FileUri(dir, 3) + "</PermissionsCA><Governance>" + FileUri(dir, 4) +
         "</Governance><Permissions>" + FileUri(dir, 5) +
         "</Permissions></AccessControl>"
         "</Security></Domain></CycloneDDS>";
}

std::string LoopbackXml() {
  return "<CycloneDDS><Domain><General><Interfaces><NetworkInterface address=\"127.0.0.1\"/>"
         "</Interfaces><AllowMulticast>false</AllowMulticast></General><Discovery><Peers>"
         "<Peer address=\"127.0.0.1\"/></Peers><ParticipantIndex>auto</ParticipantIndex>"
         "</Discovery></Domain></CycloneDDS>";
}

std::string WithSecurity(const std::string& env_uri, const std::string& dir) {
  return env_uri.empty() ? SecurityXml(dir) : env_uri + "," + SecurityXml(dir);
}

}  // namespace robot_edge::dds
