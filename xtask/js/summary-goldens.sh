#!/bin/sh
# Regenerates the Summary goldens listed in fixtures/expected/summary/index.txt
# with the DevTools oracle (summary.mjs), from the workspace root: sh
# xtask/js/summary-goldens.sh [NAME-SUBSTRING]. Only lines whose trace contains
# the substring are run. A trace DevTools fails on (its error is printed)
# keeps no golden.
set -u
index=fixtures/expected/summary/index.txt
grep -v '^#' "$index" | while read -r trace golden options; do
  case "$trace" in *"${1:-}"*) ;; *) continue ;; esac
  out="fixtures/expected/summary/$golden"
  mkdir -p "$(dirname "$out")"
  # shellcheck disable=SC2086
  if node xtask/js/summary.mjs $options "fixtures/$trace" > "$out.tmp"; then
    mv "$out.tmp" "$out"
  else
    rm -f "$out.tmp" "$out"
    echo "no golden for $trace $options" >&2
  fi
done
