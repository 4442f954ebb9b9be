#!/bin/sh
# tests/dds/make_test_pki.sh DIR: the DDS Security material of tests/dds/bridge_vcan_test.cpp,
# made with openssl at test time (docs/api.md, "DDS bridge", does the same step by step). Each
# participant gets a directory in robot-edge-dds's --security layout (dds/security.hpp):
#   bridge/   robot-edge-dds: subscribes rt/lowcmd, publishes rt/lowstate
#   adam/     the permitted Adam client: publishes rt/lowcmd, subscribes rt/lowstate
#   viewer/   a valid identity whose permissions grant only subscribing rt/lowstate; its
#             governance leaves writing unchecked (as a DDS stack that skips its own check would)
#   forged/   a valid identity, with permissions granting rt/lowcmd signed by another CA
#   rogue/    an identity from another CA, everything signed by that CA
# Keys are EC P-256 (quick to make under user-mode Linux).
set -eu
dir=$1
mkdir -p "$dir"
cd "$dir"

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

ca() {  # NAME: NAME_ca.key, NAME_ca.pem
  key "$1_ca.key"
  openssl req -x509 -new -key "$1_ca.key" -out "$1_ca.pem" -days 3650 \
    -subj "/O=robot-edge test/CN=$1 CA"
}

identity() {  # CA NAME CN: NAME.key, NAME.pem signed by CA
  key "$2.key"
  openssl req -new -key "$2.key" -out "$2.csr" -subj "/O=robot-edge test/CN=$3"
  openssl x509 -req -in "$2.csr" -CA "$1_ca.pem" -CAkey "$1_ca.key" -CAcreateserial \
    -out "$2.pem" -days 3650 2>/dev/null
}

sign() {  # CA IN OUT: S/MIME, as DDS Security reads governance and permissions
  openssl smime -sign -text -in "$2" -out "$3" -signer "$1_ca.pem" -inkey "$1_ca.key"
}

governance() {  # FILE WRITE_ACCESS_CONTROL
  cat > "$1" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<dds xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
     xsi:noNamespaceSchemaLocation="http://www.omg.org/spec/DDS-Security/20170801/omg_shared_ca_governance.xsd">
  <domain_access_rules>
    <domain_rule>
      <domains><id_range><min>0</min><max>230</max></id_range></domains>
      <allow_unauthenticated_participants>false</allow_unauthenticated_participants>
      <enable_join_access_control>true</enable_join_access_control>
      <discovery_protection_kind>ENCRYPT</discovery_protection_kind>
      <liveliness_protection_kind>ENCRYPT</liveliness_protection_kind>
      <rtps_protection_kind>SIGN</rtps_protection_kind>
      <topic_access_rules>
        <topic_rule>
          <topic_expression>*</topic_expression>
          <enable_discovery_protection>true</enable_discovery_protection>
          <enable_liveliness_protection>true</enable_liveliness_protection>
          <enable_read_access_control>$2</enable_read_access_control>
          <enable_write_access_control>$2</enable_write_access_control>
          <metadata_protection_kind>SIGN</metadata_protection_kind>
          <data_protection_kind>ENCRYPT</data_protection_kind>
        </topic_rule>
      </topic_access_rules>
    </domain_rule>
  </domain_access_rules>
</dds>
XML
}

permissions() {  # FILE CN PUBLISH SUBSCRIBE
  cat > "$1" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<dds xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
     xsi:noNamespaceSchemaLocation="http://www.omg.org/spec/DDS-Security/20170801/omg_shared_ca_permissions.xsd">
  <permissions>
    <grant name="$2">
      <subject_name>CN=$2,O=robot-edge test</subject_name>
      <validity><not_before>2020-01-01T00:00:00</not_before><not_after>2100-01-01T00:00:00</not_after></validity>
      <allow_rule>
        <domains><id_range><min>0</min><max>230</max></id_range></domains>
        <publish><topics><topic>$3</topic></topics></publish>
        <subscribe><topics><topic>$4</topic></topics></subscribe>
      </allow_rule>
      <default>DENY</default>
    </grant>
  </permissions>
</dds>
XML
}

# participant DIR IDENTITY_CA ID PERMISSIONS_CA GOVERNANCE.p7s PERMISSIONS.xml
participant() {
  mkdir -p "$1"
  cp "$2_ca.pem" "$1/identity_ca.pem"
  cp "$3.pem" "$1/identity.pem"
  cp "$3.key" "$1/identity_key.pem"
  cp "$4_ca.pem" "$1/permissions_ca.pem"
  cp "$5" "$1/governance.p7s"
  sign "$4" "$6" "$1/permissions.p7s"
}

ca test
ca rogue
governance governance.xml true
governance unchecked.xml false
sign test governance.xml governance.p7s
sign test unchecked.xml unchecked.p7s
sign rogue governance.xml rogue_governance.p7s
identity test bridge robot-edge-dds
identity test adam adam-client
identity test viewer viewer
identity rogue rogue adam-client
permissions bridge.xml robot-edge-dds rt/lowstate rt/lowcmd
permissions adam.xml adam-client rt/lowcmd rt/lowstate
permissions viewer.xml viewer none rt/lowstate
permissions forged.xml viewer rt/lowcmd rt/lowstate

participant bridge test bridge test governance.p7s bridge.xml
participant adam test adam test governance.p7s adam.xml
participant viewer test viewer test unchecked.p7s viewer.xml
participant forged test viewer rogue rogue_governance.p7s forged.xml
participant rogue rogue rogue rogue rogue_governance.p7s adam.xml
