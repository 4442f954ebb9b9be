// dds/security.hpp: the Cyclone DDS configuration robot-edge-dds makes for --security DIR and
// --insecure (the elements checked against Cyclone DDS 0.10's, which tests/dds/bridge_vcan_test
// runs for real).
#include "dds/security.hpp"

#include <gtest/gtest.h>

namespace robot_edge::dds {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(DdsSecurity, SecurityNamesEveryFileOfTheDirectory) {
  const std::string xml = SecurityXml("/etc/robot-edge/dds");
  EXPECT_TRUE(Has(xml, "<Security><Authentication>")) << xml;
  EXPECT_TRUE(Has(xml, "<IdentityCA>file:/etc/robot-edge/dds/identity_ca.pem</IdentityCA>"));
  EXPECT_TRUE(Has(xml, "<IdentityCertificate>file:/etc/robot-edge/dds/identity.pem<"));
  EXPECT_TRUE(Has(xml, "<PrivateKey>file:/etc/robot-edge/dds/identity_key.pem</PrivateKey>"));
  EXPECT_TRUE(Has(xml, "<PermissionsCA>file:/etc/robot-edge/dds/permissions_ca.pem<"));
  EXPECT_TRUE(Has(xml, "<Governance>file:/etc/robot-edge/dds/governance.p7s</Governance>"));
  EXPECT_TRUE(Has(xml, "<Permissions>file:/etc/robot-edge/dds/permissions.p7s</Permissions>"));
  for (const SecurityFile& file : kSecurityFiles) {
    EXPECT_TRUE(Has(xml, std::string("/etc/robot-edge/dds/") + file.name)) << file.name;
  }
}

// $CYCLONEDDS_URI keeps the network settings; the security fragment comes after it.
TEST(DdsSecurity, SecurityFollowsTheEnvironmentsConfiguration) {
  EXPECT_EQ(WithSecurity("", "/d"), SecurityXml("/d"));
  EXPECT_EQ(WithSecurity("file:///etc/cyclonedds.xml", "/d"),
            "file:///etc/cyclonedds.xml," + SecurityXml("/d"));
}

TEST(DdsSecurity, InsecureIsLoopbackOnly) {
  const std::string xml = LoopbackXml();
  EXPECT_TRUE(Has(xml, "<NetworkInterface address=\"127.0.0.1\"/>")) << xml;
  EXPECT_TRUE(Has(xml, "<AllowMulticast>false</AllowMulticast>"));
  EXPECT_TRUE(Has(xml, "<Peer address=\"127.0.0.1\"/>"));
  EXPECT_FALSE(Has(xml, "Security"));
}

}  // namespace
}  // namespace robot_edge::dds
