#!/usr/bin/env bash
# policy.unitree_h1_check_config: robot-edged --check-config accepts examples/unitree-h1/h1.yaml
# with its imported policy (whose ONNX metadata it compares with the policy section), and refuses
# the same config with the left knee's kp changed, naming policy.kp and the joint.
#   unitree_h1_check_config_test.sh ROBOT_EDGED EXAMPLE_DIR
set -euo pipefail
daemon=$1 example=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$daemon" --config "$example/h1.yaml" --check-config >"$work/ok.txt" 2>&1 || {
  cat "$work/ok.txt"; echo "FAILED: h1.yaml refused"; exit 1; }
cp "$example/h1-walk.onnx" "$work/"
sed -e 's/^  kp: \[150.0, 150.0, 150.0, 200.0,/  kp: [150.0, 150.0, 150.0, 180.0,/' \
    -e 's#^  model: scene.xml#  model: ""#' "$example/h1.yaml" >"$work/h1.yaml"
grep -q '^  kp: \[150.0, 150.0, 150.0, 180.0,' "$work/h1.yaml" || { echo "FAILED: the edit"; exit 1; }
if "$daemon" --config "$work/h1.yaml" --check-config >"$work/bad.txt" 2>&1; then
  cat "$work/bad.txt"; echo "FAILED: a kp the model's metadata contradicts was accepted"; exit 1
fi
grep -q "policy.kp: the model's metadata robot_edge.kp does not match: left_knee_joint: 200 in the model, 180 here" "$work/bad.txt" || {
  cat "$work/bad.txt"; echo "FAILED: the refusal does not name policy.kp and the joint"; exit 1; }
echo "ok: h1.yaml accepted; a contradicting kp refused: $(grep -o 'policy.kp: .*' "$work/bad.txt")"
