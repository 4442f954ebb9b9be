#!/usr/bin/env bash
# scripts/demo installs and builds only what the demo needs, and that is enough for it:
# - `scripts/bootstrap --list --demo` is a subset of the full list, without the test-only
#   packages, and both have ccache;
# - scripts/demo builds every program scripts/demo-session runs, configures without the tests
#   and benchmarks (whose packages the demo does not install) and without DDS.
#   tests/scripts/demo_scripts_test.sh SOURCE_DIR
set -uo pipefail
cd "${1:?usage: $0 SOURCE_DIR}" || exit 2
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

full=$(scripts/bootstrap --list) || fail "scripts/bootstrap --list exits 0"
demo=$(scripts/bootstrap --list --demo) || fail "scripts/bootstrap --list --demo exits 0"
[[ $(wc -l <<<"$demo") -ge 10 ]] || fail "the demo's list has at least 10 packages: $demo"
while read -r p; do
  grep -qx -- "$p" <<<"$full" || fail "the demo's package $p is in the full list"
done <<<"$demo"
for p in ccache build-essential cmake libmujoco-dev user-mode-linux socat; do
  grep -qx -- "$p" <<<"$demo" || fail "the demo's list has $p"
done
for p in chromium python3-torch nodejs npm libgtest-dev libbenchmark-dev clang cyclonedds-dev \
         lintian curl; do
  ! grep -qx -- "$p" <<<"$demo" || fail "the demo's list leaves out $p (tests, CI, fetch-uml)"
done
grep -qx ccache <<<"$full" || fail "the full list has ccache"
scripts/bootstrap --no-such-option >/dev/null 2>&1
[[ $? == 2 ]] || fail "scripts/bootstrap --no-such-option exits 2"

# The programs demo-session and its last act, demo-walk, run ("$build/daemon/robot-edged" ...) are scripts/demo's targets.
targets=$(sed -n 's/^targets=(\(.*\))$/\1/p' scripts/demo)
[[ -n $targets ]] || fail "scripts/demo has a targets=(...) line"
# shellcheck disable=SC2016  # the literal text $build
programs=$(grep -ho '\$build/[a-z/]*/robot-edge[a-z-]*' scripts/demo-session scripts/demo-walk |
  sed 's#.*/##' | sort -u)
[[ -n $programs ]] || fail "scripts/demo-session runs programs from \$build"
for p in $programs; do
  [[ " $targets " == *" $p "* ]] || fail "scripts/demo builds $p, which scripts/demo-session runs"
done
for option in -DBUILD_TESTING=OFF -DBUILD_BENCHMARKS=OFF -DROBOT_EDGE_DDS=OFF; do
  grep -q -- "$option" scripts/demo || fail "scripts/demo configures with $option"
done
# shellcheck disable=SC2016
grep -q -- '--target "${targets\[@\]}"' scripts/demo || fail "scripts/demo builds only its targets"

if ((failures)); then
  echo "$failures failed"
  exit 1
fi
echo "scripts/bootstrap --demo: $(wc -l <<<"$demo") of $(wc -l <<<"$full") packages; scripts/demo builds $(tr "\n" " " <<<"$programs")"
