#!/usr/bin/env bash
# robot-edged --check-config with a policy: 0 and the network's summary for the example; 1 and
# "file:line: policy.model: …" for a missing model, an unsupported operator, a wrong size.
set -u
daemon=$1
config=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$("$daemon" --config "$config" --check-config 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "example: exit $rc: $out"
grep -q "valid (25 joints on 5 buses, 500 Hz)" <<<"$out" || fail "example: $out"
grep -q "demo-walk.onnx: 45 -> 12" <<<"$out" || fail "example summary: $out"

# The model path is relative to the config file: a copy elsewhere does not find it.
cp "$config" "$tmp/moved.yaml"
line=$(grep -n "^  model:" "$tmp/moved.yaml" | cut -d: -f1)
out=$("$daemon" --config "$tmp/moved.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "missing model: exit $rc, expected 1: $out"
grep -qF "$tmp/moved.yaml:$line: policy.model: $(dirname "$tmp")/policies/demo-walk.onnx: cannot open the file" <<<"$out" \
  || fail "missing model: $out"

# A model whose input does not match the observation (the demo expects 45).
sed -e 's/- {term: last_action}/- {term: last_action, scale: 1.0}\n    - {term: command}/' "$config" \
  | sed -e "s|model: ../policies/demo-walk.onnx|model: $(cd "$(dirname "$config")/../policies" && pwd)/demo-walk.onnx|" \
  > "$tmp/bigger.yaml"
out=$("$daemon" --config "$tmp/bigger.yaml" --check-config 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "input size: exit $rc, expected 1: $out"
grep -qF "policy.model: the network takes 45 inputs; the observation has" <<<"$out" || fail "input size: $out"
grep -qF "= 48" <<<"$out" || fail "input size total: $out"
echo "check_config_policy_test: ok"
