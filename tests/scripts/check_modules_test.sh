#!/usr/bin/env bash
# scripts/check-modules.sh is clean on this tree, and fails, naming the file
# and line, on a copy of it with one include that crosses the module map:
# a leaf including another leaf, then a wiring role including one above it.
set -uo pipefail
src="$1"
check="$src/scripts/check-modules.sh"
out=$("$check" "$src") || { echo "not clean on the tree:"; echo "$out"; exit 1; }

copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$src/core" "$src/schedulers" "$src/storage" "$src/trial_runner" \
  "$src/tuner" "$copy/"
line=$(($(wc -l < "$copy/storage/trial_store.cc") + 1))
echo '#include "trial_runner/spawn.h"' >> "$copy/storage/trial_store.cc"
out=$("$check" "$copy")
rc=$?
want="storage/trial_store.cc:$line: includes \"trial_runner/spawn.h\""
if [ $rc -ne 1 ] || [[ "$out" != "$want"* ]]; then
  echo "a storage -> trial_runner include was not caught (rc $rc):"
  echo "$out"
  exit 1
fi
first="$out"

# Undo it; plant the engine including the CLI above it.
sed -i '$d' "$copy/storage/trial_store.cc"
line=$(($(wc -l < "$copy/tuner/sweep/sweep.cc") + 1))
echo '#include "tuner/cli/cli.h"' >> "$copy/tuner/sweep/sweep.cc"
out=$("$check" "$copy")
rc=$?
want="tuner/sweep/sweep.cc:$line: includes \"tuner/cli/cli.h\""
if [ $rc -ne 1 ] || [[ "$out" != "$want"* ]] || [ "$(echo "$out" | wc -l)" != 1 ]; then
  echo "a tuner/sweep -> tuner/cli include was not caught alone (rc $rc):"
  echo "$out"
  exit 1
fi
second="$out"

# Undo it; plant the same crossing in angle brackets, and a loose file.
sed -i '$d' "$copy/tuner/sweep/sweep.cc"
line=$(($(wc -l < "$copy/tuner/sim/simulation.cc") + 1))
echo '#include <tuner/cli/cli.h>' >> "$copy/tuner/sim/simulation.cc"
echo 'int loose;' > "$copy/tuner/loose.cc"
out=$("$check" "$copy")
rc=$?
want="tuner/loose.cc: not in a role folder"
want2="tuner/sim/simulation.cc:$line: includes \"tuner/cli/cli.h\""
if [ $rc -ne 1 ] || [[ "$(echo "$out" | head -1)" != "$want"* ]] ||
  [[ "$(echo "$out" | sed -n 2p)" != "$want2"* ]]; then
  echo "an angle-bracket crossing or a file outside the roles was not caught (rc $rc):"
  echo "$out"
  exit 1
fi
echo "ok: clean tree passes; the planted includes are reported as:"
echo "$first"
echo "$second"
echo "$out"
