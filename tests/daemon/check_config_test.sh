#!/usr/bin/env bash
# robot-edged --check-config: 0 and a summary for a valid file; 1 and every problem as
# file:line: key: message for a broken one (before anything opens); 2 for a usage error.
set -u
daemon=$1
config=$2
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

out=$("$daemon" --frobnicate 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "usage error: exit $rc"
grep -q "unknown argument '--frobnicate'" <<<"$out" || fail "usage: $out"
echo "check_config_test: ok"
