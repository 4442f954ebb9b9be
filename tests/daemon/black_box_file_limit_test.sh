#!/usr/bin/env bash
# daemon.black_box_file_limit: black boxes cut short by a write fault never push a whole one out
# (red team round five, F2), against robot-edged's wiring (live_daemon_on_sim) and robot-edgectl.
#   black_box_file_limit_test.sh LIVE_DAEMON_ON_SIM ROBOT_EDGECTL CONFIG WEB_ROOT
# black_box_files 3. One dump saved whole; then robot-edged's file size limit lowered to 300 kB
# from outside (prlimit, as a unit's LimitFSIZE or a full quota would), three dumps fail; the
# limit lifted, one more is saved whole. The old robot-edged listed the three cut-short files as
# good and its retention deleted the first whole one. Now: both whole ones stay, the newest cut
# short one stays named "….mcap.partial" and listed as not whole, and robot-edged kept running.
set -euo pipefail
daemon=$1 edgectl=$2 config=$3 web_root=$4
work=$(mktemp -d /tmp/black-box-limit.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- robot-edged's log (tail)"; tail -n 30 "$work/daemon.log"
  exit 1
}
sed -e 's/^  black_box_files: .*/  black_box_files: 3/' \
    -e 's/^  black_box_seconds: .*/  black_box_seconds: 2/' \
    -e 's/^  black_box_after_seconds: .*/  black_box_after_seconds: 1/' \
    -e 's/^  compression: .*/  compression: none/' "$config" > "$work/edge.yaml"
grep -q '^  black_box_files: 3' "$work/edge.yaml" || fail "the config's recorder keys moved"
mkdir "$work/run"
# stdin a FIFO this script holds open (fd 3): its end is robot-edged's clean shutdown.
mkfifo "$work/stdin"
"$daemon" --config "$work/edge.yaml" --dir "$work/run" --web-root "$web_root" --live no \
  < "$work/stdin" > "$work/daemon.log" 2>&1 &
pid=$!
exec 3> "$work/stdin"
ctl() { "$edgectl" --socket "$work/run/api.sock" "$@"; }
# wait_for DESCRIPTION COMMAND...: up to 60 s (a loaded machine) for COMMAND to succeed.
wait_for() {
  local what=$1
  shift
  for _ in $(seq 600); do
    "$@" > /dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || fail "robot-edged exited while waiting for $what"
    sleep 0.1
  done
  fail "no $what within 60 s"
}
listed_whole() { ctl blackbox list | grep "manual-$1 " | grep -qv "not whole"; }
failures_logged() { [ "$(grep -c 'black box not written' "$work/daemon.log")" -ge "$1" ]; }

wait_for "API socket" ctl status
sleep 3  # the black box holds its 2 s before the trigger
ctl blackbox save --reason good1 > /dev/null
wait_for "whole manual-good1" listed_whole good1
prlimit --pid "$pid" --fsize=300000:unlimited
for i in 1 2 3; do
  ctl blackbox save --reason "failed$i" > /dev/null
  wait_for "failure $i logged" failures_logged "$i"
done
grep -m1 'black box not written' "$work/daemon.log" | grep -q "File too large" ||
  fail "the failure does not say why: $(grep -m1 'black box not written' "$work/daemon.log")"
prlimit --pid "$pid" --fsize=unlimited:unlimited
ctl blackbox save --reason good2 > /dev/null
wait_for "whole manual-good2" listed_whole good2

listing=$(ctl blackbox list)
echo "$listing"
names=$(for f in "$work/run/recordings"/blackbox_*; do basename "$f"; done |
         sed 's/^blackbox_[0-9.-]*_//')
echo "files: $(echo "$names" | tr '\n' ' ')"
[ "$names" = "$(printf '%s\n' manual-good1.mcap manual-failed3.mcap.partial manual-good2.mcap)" ] ||
  fail "want good1, failed3 (partial) and good2 kept"
[ "$(echo "$listing" | grep -c 'not whole')" -eq 1 ] || fail "the cut short one is not marked"
echo "$listing" | grep 'manual-failed3' | grep -q 'not whole' || fail "failed3 not marked"
kill -0 "$pid" 2>/dev/null || fail "robot-edged died"
ctl status > /dev/null || fail "robot-edged stopped answering"
echo "PASS: whole black boxes kept through 3 dumps cut short by a 300 kB file size limit"
