#!/usr/bin/env bash
# The harness's choice of host CPU for user-mode-linux (tests/vcan/run, ROBOT_EDGE_UML_CPU):
# a bad setting is a usage error; two runs at once are pinned, each UML process to one CPU, and
# to different CPUs when the host has two. Forces the uml method: that is where pinning applies,
# and a machine that cannot run it fails here as it fails the other vcan suites.
#   harness_test.sh TESTS_VCAN_RUN
set -u
run=$1
export ROBOT_EDGE_VCAN_METHOD=uml
unset ROBOT_EDGE_UML_CPU  # the default, auto
fail() {
  echo "FAIL: $*"
  exit 1
}
work=$(mktemp -d)
# The runs' temporary directories (and CPU locks) go in $work: their kernels are told apart from
# any other UML on the machine by uml_dir=$work/...
export TMPDIR=$work
cleanup() {
  touch "$work/checked"  # lets the runs' commands end
  wait
  rm -rf "$work"
}
trap cleanup EXIT

# A setting that is neither auto, none nor a number: exit 2, named, before any kernel boots.
out=$(ROBOT_EDGE_UML_CPU=first "$run" --timeout 60 -- true 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "ROBOT_EDGE_UML_CPU=first: exit $rc, expected 2: $out"
grep -q "ROBOT_EDGE_UML_CPU must be auto, none or a CPU number, not 'first'" <<<"$out" ||
  fail "ROBOT_EDGE_UML_CPU=first: $out"
grep -q "booting" <<<"$out" && fail "ROBOT_EDGE_UML_CPU=first booted a kernel: $out"

# Two runs at once. Each command writes a file when it runs, then waits for the other's and for
# the affinity check below, so that both kernels are up together.
for run_name in a b; do
  "$run" --timeout 120 -- bash -c "touch '$work/$run_name.up'; \
    for _ in \$(seq 200); do [ -e '$work/checked' ] && exit 0; sleep 0.1; done; exit 1" \
    >"$work/$run_name.log" 2>&1 &
done
for _ in $(seq 600); do
  [ -e "$work/a.up" ] && [ -e "$work/b.up" ] && break
  sleep 0.1
done
[ -e "$work/a.up" ] && [ -e "$work/b.up" ] || fail "the two runs did not start: $(cat "$work"/*.log)"

# Every host process of the two UMLs (the kernels and their user processes) runs on one CPU.
pids=$(pgrep -f "uml_dir=$work/")
[ -n "$pids" ] || fail "no UML process found"
cpus_used=""
for pid in $pids; do
  # A process that ended since pgrep (a UML thread exits at any time) is skipped: taskset fails.
  affinity=$(taskset -pc "$pid" 2>/dev/null) || continue
  allowed=${affinity##*: }
  [[ $allowed =~ ^[0-9]+$ ]] || fail "UML process $pid may run on CPUs '$allowed', not one"
  cpus_used="$cpus_used $allowed"
done
touch "$work/checked"
wait
for run_name in a b; do
  grep -q "exit status 0" "$work/$run_name.log" || fail "run $run_name: $(cat "$work/$run_name.log")"
done

cpu_a=$(grep -o "pinned to host CPU [0-9]*" "$work/a.log" | grep -o "[0-9]*$")
cpu_b=$(grep -o "pinned to host CPU [0-9]*" "$work/b.log" | grep -o "[0-9]*$")
[ -n "$cpu_a" ] && [ -n "$cpu_b" ] || fail "a run did not say its CPU: $(cat "$work"/*.log)"
for cpu in $cpus_used; do
  [ "$cpu" = "$cpu_a" ] || [ "$cpu" = "$cpu_b" ] || fail "a UML process on CPU $cpu, not $cpu_a or $cpu_b"
done
if [ "$(nproc)" -ge 2 ]; then
  [ "$cpu_a" != "$cpu_b" ] || fail "both runs on CPU $cpu_a of $(nproc)"
fi
echo "ok: the two UMLs pinned to host CPUs $cpu_a and $cpu_b (processes on:$cpus_used)"
