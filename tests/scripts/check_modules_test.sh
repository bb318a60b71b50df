#!/usr/bin/env bash
# scripts/check-modules.sh is clean on this tree, and fails, naming the file
# and line, on a copy of it with one include that crosses the module map.
set -uo pipefail
src="$1"
check="$src/scripts/check-modules.sh"
out=$("$check" "$src") || { echo "not clean on the tree:"; echo "$out"; exit 1; }

copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$src/core" "$src/schedulers" "$src/storage" "$src/trial_runner" "$copy/"
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
echo "ok: clean tree passes; the planted include is reported as: $out"
