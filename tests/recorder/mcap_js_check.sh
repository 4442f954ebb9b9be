#!/bin/sh
# mcap_js_check.sh MCAP_SAMPLE JS_DIR WORK_DIR: writes the sample files with MCAP_SAMPLE into
# WORK_DIR (the black-box dump too), then checks them with JS_DIR/mcap_check.mjs (@mcap/core's
# McapIndexedReader).
# Fails, never skips, when Node.js or JS_DIR/node_modules is missing.
set -eu
sample=$1 js=$2 work=$3
command -v node >/dev/null 2>&1 ||
  { echo "mcap_js_check: node not found: run scripts/bootstrap" >&2; exit 1; }
[ -f "$js/node_modules/@mcap/core/package.json" ] ||
  { echo "mcap_js_check: $js/node_modules is missing: run scripts/bootstrap" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
"$sample" "$work"
node "$js/mcap_check.mjs" "$work/sample_zstd.mcap" "$work/sample_lz4.mcap" "$work/sample_none.mcap" \
  "$work"/sample_blackbox_*.mcap
