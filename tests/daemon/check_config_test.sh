#!/usr/bin/env bash
# robot-edged --check-config: 0 and a summary for a valid file; 1 and every problem as
# file:line: key: message for a broken one (before anything opens); 2 for a usage error.
set -u
daemon=$1
config=$2
pki=$3  # tests/uplink/make_test_pki.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$("$daemon" --config "$config" --check-config 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "valid config: exit $rc: $out"
grep -q "valid (25 joints on 5 buses, 500 Hz)" <<<"$out" || fail "valid config: $out"

# A value out of range (validation), then a misspelt key (parsing).
sed -e '/name: L_Knee,/s/kp: 150/kp: 700/' "$config" > "$tmp/bad.yaml"
knee_line=$(grep -n "name: L_Knee," "$tmp/bad.yaml" | cut -d: -f1)
out=$("$daemon" --config "$tmp/bad.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "broken config: exit $rc, expected 1: $out"
grep -qF "$tmp/bad.yaml:$knee_line: joints[3].kp: 700 is outside 0..500" <<<"$out" || fail "kp: $out"
sed -e 's/^  stand_ramp_s:/  stand_ramps:/' "$config" > "$tmp/typo.yaml"
ramp_line=$(grep -n "stand_ramps:" "$tmp/typo.yaml" | cut -d: -f1)
out=$("$daemon" --config "$tmp/typo.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "misspelt key: exit $rc, expected 1: $out"
grep -qF "$tmp/typo.yaml:$ramp_line: control.stand_ramps: unknown key" <<<"$out" || fail "key: $out"

out=$("$daemon" --config "$tmp/missing.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "missing file: exit $rc"
grep -qF "$tmp/missing.yaml: cannot open the file" <<<"$out" || fail "missing file: $out"

# The YAML that once crashed it (an alias that contains itself): an error on its line, not SIGSEGV.
printf 'robot: &a\n  x: *a\n' > "$tmp/loop.yaml"
out=$("$daemon" --config "$tmp/loop.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "alias cycle: exit $rc, expected 1: $out"
grep -qF "$tmp/loop.yaml:2: robot.x: an alias refers to a mapping or list that contains it" \
  <<<"$out" || fail "alias cycle: $out"

# Token files: anyone but robot-edged's user able to read one is warned about, naming the fix.
sed -e 's/^  access: {}/  access: {cloud: {token_file: cloud.token}}/' "$config" > "$tmp/roles.yaml"
grep -q "token_file: cloud.token" "$tmp/roles.yaml" || fail "roles: the config has no 'access: {}'"
# A token shorter than 16 bytes is refused, as robot-edged refuses to start with it.
echo s3cret > "$tmp/cloud.token" && chmod 0600 "$tmp/cloud.token"
out=$("$daemon" --config "$tmp/roles.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "short token: exit $rc, expected 1: $out"
grep -qF "api.access.cloud.token_file: $tmp/cloud.token holds a token of 6 bytes; at least 16 are required" \
  <<<"$out" || fail "short token: $out"
! grep -q s3cret <<<"$out" || fail "short token: the token was printed"
echo s3cret-s3cret-s3cret > "$tmp/cloud.token"
for mode in 0644 0640; do
  chmod "$mode" "$tmp/cloud.token"
  out=$("$daemon" --config "$tmp/roles.yaml" --check-config 2>&1); rc=$?
  [ "$rc" -eq 0 ] || fail "token $mode: exit $rc: $out"
  grep -qF "warning: api.access.cloud.token_file: $tmp/cloud.token is mode $mode" <<<"$out" ||
    fail "token $mode: no warning: $out"
  grep -qF "chmod 0600 $tmp/cloud.token" <<<"$out" || fail "token $mode: no fix named: $out"
  ! grep -q s3cret <<<"$out" || fail "token $mode: the token was printed"
done
chmod 0600 "$tmp/cloud.token"
out=$("$daemon" --config "$tmp/roles.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "token 0600: exit $rc: $out"
! grep -q "token_file" <<<"$out" || fail "token 0600: warned: $out"
rm "$tmp/cloud.token"
out=$("$daemon" --config "$tmp/roles.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "missing token: exit $rc, expected 1 (the start refuses it): $out"
grep -qF "api.access.cloud.token_file: cannot read $tmp/cloud.token" <<<"$out" ||
  fail "missing token: $out"

# api.tls: TCP off loopback needs TLS or an explicit opt-out; the files are read as the daemon
# will (a key that does not match its certificate is refused); a key others can read is warned.
sed -e 's/^  tcp: ""/  tcp: "0.0.0.0:7000"/' "$config" > "$tmp/open.yaml"
out=$("$daemon" --config "$tmp/open.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "plaintext off loopback: exit $rc, expected 1: $out"
grep -qF "api.tcp: '0.0.0.0:7000' is not a loopback address and api.tls is not set" <<<"$out" ||
  fail "plaintext off loopback: $out"
sh "$pki" "$tmp/pki" || fail "make_test_pki.sh"
chmod 0600 "$tmp"/pki/*.key
tls() {  # CERT KEY: open.yaml with api.tls
  sed -e "s|^  tcp: \"0.0.0.0:7000\"|&\n  tls: {certificate: pki/$1, private_key: pki/$2}|" \
    "$tmp/open.yaml" > "$tmp/tls.yaml"
}
tls server.pem server.key
out=$("$daemon" --config "$tmp/tls.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "api.tls: exit $rc: $out"
! grep -q "warning: api.tls" <<<"$out" || fail "api.tls 0600: warned: $out"
chmod 0644 "$tmp/pki/server.key"
out=$("$daemon" --config "$tmp/tls.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "api.tls 0644: exit $rc: $out"
grep -qF "warning: api.tls.private_key: $tmp/pki/server.key is mode 0644" <<<"$out" ||
  fail "api.tls 0644: no warning: $out"
tls server.pem robot.key
out=$("$daemon" --config "$tmp/tls.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "mismatched key: exit $rc, expected 1: $out"
grep -qF "api.tls.private_key: $tmp/pki/robot.key does not match the certificate" <<<"$out" ||
  fail "mismatched key: $out"
tls missing.pem server.key
out=$("$daemon" --config "$tmp/tls.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "missing certificate: exit $rc, expected 1: $out"
grep -qF "api.tls.certificate: cannot read $tmp/pki/missing.pem" <<<"$out" || fail "missing: $out"
sed -e 's/^  allow_plaintext: false/  allow_plaintext: true/' "$tmp/open.yaml" > "$tmp/plain.yaml"
out=$("$daemon" --config "$tmp/plain.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "allow_plaintext: exit $rc: $out"

# live.tls: off loopback it replaces allow_plaintext; its files are read as robot-edge-live will
# (a key that does not match is refused, exit 1); a key others can read is warned about.
sed -e 's|^  address: 127.0.0.1:8765 |  address: 0.0.0.0:8765 |' \
    -e 's|^  token_file: ""  |  token_file: live.token|' "$config" > "$tmp/live.yaml"
echo viewer-secret > "$tmp/live.token" && chmod 0600 "$tmp/live.token"
out=$("$daemon" --config "$tmp/live.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "live off loopback without tls: exit $rc, expected 1: $out"
grep -qF "live.address: '0.0.0.0:8765' is not a loopback address and live.tls is not set" \
  <<<"$out" || fail "live plaintext: $out"
live_tls() {  # CERT KEY: live.yaml with live.tls
  sed -e "s|^  address: 0.0.0.0:8765 |  tls: {certificate: pki/$1, private_key: pki/$2}\n&|" \
    "$tmp/live.yaml" > "$tmp/live_tls.yaml"
}
chmod 0600 "$tmp"/pki/*.key
live_tls server.pem server.key
out=$("$daemon" --config "$tmp/live_tls.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "live.tls: exit $rc: $out"
! grep -q "warning: live" <<<"$out" || fail "live.tls 0600: warned: $out"
live_tls server.pem robot.key
out=$("$daemon" --config "$tmp/live_tls.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "live.tls mismatched key: exit $rc, expected 1: $out"
grep -qF "live.tls.private_key: $tmp/pki/robot.key does not match the certificate" <<<"$out" ||
  fail "live.tls mismatched key: $out"
chmod 0644 "$tmp/pki/server.key"
live_tls server.pem server.key
out=$("$daemon" --config "$tmp/live_tls.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "live.tls 0644: exit $rc: $out"
grep -qF "warning: live.tls.private_key: $tmp/pki/server.key is mode 0644" <<<"$out" ||
  fail "live.tls 0644: no warning: $out"

out=$("$daemon" --frobnicate 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "usage error: exit $rc"
grep -q "unknown argument '--frobnicate'" <<<"$out" || fail "usage: $out"
echo "check_config_test: ok"
