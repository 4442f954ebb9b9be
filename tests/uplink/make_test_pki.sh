#!/bin/sh
# tests/uplink/make_test_pki.sh DIR [NAME...]: the mutual-TLS material of the uplink's broker
# test, made with openssl at test time: ca.pem (the CA), server.pem/.key (mosquitto, for localhost
# and 127.0.0.1), robot.pem/.key (robot-edge-uplink, CN r1), r2.pem/.key (another robot of the
# same CA, CN r2: the ACL test's attacker), fleet.pem/.key (the test's fleet client, CN fleet),
# NAME.pem/.key for each NAME (CN NAME: scripts/demo-fleet's robot `demo`), rogue.pem/.key
# from another CA (refused by the broker), and the fleet backend's own CA of the shipped
# two-listener layout (uplink/mosquitto.acl's header): fleetca.pem, which signs only
# fleet-backend.pem/.key (CN fleet). EC P-256 keys. With uplink/mosquitto.acl a client's
# CN is its identity: a robot's CN must be its robot_id.
set -eu
dir=$1
mkdir -p "$dir"
cd "$dir"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
ca() {  # NAME: NAME.key, NAME.pem
  key "$1.key"
  openssl req -x509 -new -key "$1.key" -out "$1.pem" -days 3650 -subj "/O=robot-edge test/CN=$1"
}
cert() {  # CA NAME CN [SAN]
  key "$2.key"
  openssl req -new -key "$2.key" -out "$2.csr" -subj "/O=robot-edge test/CN=$3"
  if [ $# -ge 4 ]; then
    printf 'subjectAltName=%s\n' "$4" > "$2.ext"
    openssl x509 -req -in "$2.csr" -CA "$1.pem" -CAkey "$1.key" -CAcreateserial -out "$2.pem" \
      -days 3650 -extfile "$2.ext" 2>/dev/null
  else
    openssl x509 -req -in "$2.csr" -CA "$1.pem" -CAkey "$1.key" -CAcreateserial -out "$2.pem" \
      -days 3650 2>/dev/null
  fi
}
ca ca
cert ca server localhost "DNS:localhost,IP:127.0.0.1"
cert ca robot r1
cert ca r2 r2
cert ca fleet fleet
shift
for name in "$@"; do cert ca "$name" "$name"; done
ca other
cert other rogue rogue
ca fleetca
cert fleetca fleet-backend fleet
chmod 0644 ./*.key  # mosquitto may drop privileges
