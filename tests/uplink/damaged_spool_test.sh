#!/bin/sh
# uplink.damaged_spool_starts (unit): the real robot-edge-uplink on a spool directory left
# damaged (an empty cursor, as a rename without fsync leaves after a power cut; a stray seg-*
# name) starts, logs what it found, and stops cleanly on SIGTERM. It exited 1 ("cursor is
# corrupt") or aborted (std::stoull) at every start before, and stayed down under
# Restart=on-failure. It also runs under a file size limit of 0 (a unit's LimitFSIZE): writing
# the cursor fails with EFBIG, which is reported; SIGXFSZ ended the uplink before (R9, issue 38).
# Its stderr goes through a FIFO, which the limit does not cover. No broker and no robot-edged are
# needed: both are retried.
#   damaged_spool_test.sh UPLINK MAKE_TEST_PKI
set -u
uplink=$1 make_pki=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/uplink-damaged.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
"$make_pki" "$dir/pki" > /dev/null 2>&1 || { echo "make_test_pki.sh failed"; exit 1; }
mkdir -p "$dir/spool"
: > "$dir/spool/cursor"
echo stray > "$dir/spool/seg-x.log"
cat > "$dir/uplink.yaml" <<YAML
robot_id: r1
broker:
  host: 127.0.0.1
  port: 1
  ca: $dir/pki/ca.pem
  cert: $dir/pki/robot.pem
  key: $dir/pki/robot.key
spool:
  dir: $dir/spool
robot_edged:
  socket: $dir/no-robot-edged.sock
YAML
mkfifo "$dir/fifo"
cat "$dir/fifo" > "$dir/log" &
(ulimit -f 0 && exec "$uplink" --config "$dir/uplink.yaml") 2> "$dir/fifo" &
pid=$!
# Its start-up logs the spool's notes (polled for, up to 20 s).
i=0
while [ $i -lt 200 ] && kill -0 "$pid" 2>/dev/null; do
  grep -q "spool: left alone" "$dir/log" && break
  sleep 0.1
  i=$((i + 1))
done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
status=$?
pid=
wait  # the FIFO's reader: it ends when the uplink's stderr closed
cat "$dir/log"
grep -q "cursor is empty" "$dir/log" || { echo "FAIL: the empty cursor was not reported"; exit 1; }
grep -q "spool: left alone: .*seg-x.log" "$dir/log" || { echo "FAIL: seg-x.log not reported"; exit 1; }
grep -q "cannot write .*cursor (File too large)" "$dir/log" ||
  { echo "FAIL: the file size limit (EFBIG) was not reported"; exit 1; }
[ "$status" -eq 0 ] || { echo "FAIL: exit status $status, not 0 after SIGTERM (153: SIGXFSZ)"; exit 1; }
echo "ok: started on the damaged spool, stopped cleanly"
