#!/usr/bin/env bash
# robot-edge-replay's command line: a token never on it (--token is refused, exit 2, pointing to
# --token-file and $ROBOT_EDGE_TOKEN); --token-file must name a readable file holding a token.
set -u
replay=$1
recording=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$("$replay" drive "$recording" --tcp 127.0.0.1:9 --token s3cret 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "--token: exit $rc, expected 2: $out"
grep -qF -- "--token is refused: a command line is visible to every user" <<<"$out" || fail "$out"
grep -qF -- "--token-file FILE" <<<"$out" || fail "--token: no --token-file: $out"
grep -qF -- '$ROBOT_EDGE_TOKEN' <<<"$out" || fail "--token: no \$ROBOT_EDGE_TOKEN: $out"
! grep -q s3cret <<<"$out" || fail "--token: the token was printed: $out"

out=$("$replay" drive "$recording" --tcp 127.0.0.1:9 --token-file "$tmp/missing" 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "missing token file: exit $rc, expected 2: $out"
grep -qF -- "--token-file: cannot read $tmp/missing" <<<"$out" || fail "missing: $out"
: > "$tmp/empty"
out=$("$replay" drive "$recording" --tcp 127.0.0.1:9 --token-file "$tmp/empty" 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "empty token file: exit $rc, expected 2: $out"
grep -qF -- "--token-file: $tmp/empty holds no token" <<<"$out" || fail "empty: $out"
echo "command_line_test: ok"
