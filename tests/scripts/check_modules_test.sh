#!/usr/bin/env bash
# scripts/check-modules.sh is clean on this tree, and fails, naming the file
# and line, on a copy of it with includes that cross the module map: a leaf
# including another leaf, a runner sub-module including one it may not,
# util including a layer above it, a wiring role including one above it
# (quoted, then in angle brackets), and a source file outside the role
# folders.
set -uo pipefail
src="$1"
check="$src/scripts/check-modules.sh"
out=$("$check" "$src") || { echo "not clean on the tree:"; echo "$out"; exit 1; }

copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$src/core" "$src/util" "$src/schedulers" "$src/storage" \
  "$src/trial_runner" "$src/tuner" "$copy/"
reports=()

# plant FILE TEXT: appends the line TEXT to FILE in the copy and sets
# `line` to its number.
plant() {
  line=$(($(wc -l < "$copy/$1") + 1))
  echo "$2" >> "$copy/$1"
}
# unplant FILE: removes the line planted last in FILE.
unplant() { sed -i '$d' "$copy/$1"; }
# expect WHAT WANT...: the check fails and its output's line i starts with
# the i-th WANT; with only=1 there is no other line.
expect() {
  local what="$1" out rc i=1
  shift
  out=$("$check" "$copy")
  rc=$?
  local bad=$((rc != 1))
  for want in "$@"; do
    [[ "$(echo "$out" | sed -n "${i}p")" == "$want"* ]] || bad=1
    i=$((i + 1))
  done
  if [ "${only:-0}" = 1 ] && [ "$(echo "$out" | wc -l)" != $# ]; then bad=1; fi
  if [ $bad = 1 ]; then
    echo "$what was not caught (rc $rc):"
    echo "$out"
    exit 1
  fi
  reports+=("$out")
}

plant storage/trial_store.cc '#include "trial_runner/processes/spawn.h"'
expect "a storage -> trial_runner include" \
  "storage/trial_store.cc:$line: includes \"trial_runner/processes/spawn.h\""
unplant storage/trial_store.cc

plant trial_runner/output/metric_parser.cc \
  '#include "trial_runner/processes/spawn.h"'
expect "a runner output -> processes include" \
  "trial_runner/output/metric_parser.cc:$line: includes \"trial_runner/processes/spawn.h\""
unplant trial_runner/output/metric_parser.cc

plant util/utf8_text.cc '#include "storage/sqlite.h"'
expect "a util -> storage include" \
  "util/utf8_text.cc:$line: includes \"storage/sqlite.h\""
unplant util/utf8_text.cc

plant tuner/sweep/sweep.cc '#include "tuner/cli/cli.h"'
only=1 expect "a tuner/sweep -> tuner/cli include, alone" \
  "tuner/sweep/sweep.cc:$line: includes \"tuner/cli/cli.h\""
unplant tuner/sweep/sweep.cc

plant tuner/sim/simulation.cc '#include <tuner/cli/cli.h>'
echo 'int loose;' > "$copy/tuner/loose.cc"
expect "an angle-bracket crossing or a file outside the roles" \
  "tuner/loose.cc: not in a role folder" \
  "tuner/sim/simulation.cc:$line: includes \"tuner/cli/cli.h\""

echo "ok: clean tree passes; the planted includes are reported as:"
printf '%s\n' "${reports[@]}"
