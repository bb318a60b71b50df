#!/usr/bin/env bash
# The suite's deterministic tier: every test not tagged [process] (no
# process spawned, no wall clock waited on: fakes, scripted trials and a
# manual clock), run RUNS times in random order, each time with another
# seed; and, where strace can trace, proof that the tier spawns nothing.
#   scripts/deterministic.sh [RUNS] [BUILD]   (default 20, build)
# Exits 1 on the first failing run, or if a test of the tier ran a program.
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20}"
build="${2:-build}"
binaries=(schedulers_test storage_test trial_runner_test tuner_test
          server_test)
tier='~[process]'

for bin in "${binaries[@]}"; do
  [ -x "$build/tests/$bin" ] || { echo "no $build/tests/$bin: build first"; exit 2; }
done

# Spawns: every execve after the test binary's own.
if strace -f -qq -e trace=execve -o /dev/null true 2>/dev/null; then
  for bin in "${binaries[@]}"; do
    trace=$(mktemp)
    strace -f -qq -e trace=execve -o "$trace" "$build/tests/$bin" "$tier" \
      >/dev/null 2>&1
    spawned=$(($(grep -c 'execve(' "$trace") - 1))
    if [ "$spawned" -ne 0 ]; then
      echo "$bin '$tier' ran $spawned programs; tag those tests [process]:"
      grep 'execve(' "$trace" | tail -n +2 | cut -c1-160 | head -5
      rm -f "$trace"
      exit 1
    fi
    rm -f "$trace"
  done
  echo "the tier spawns no process (strace: 0 execve in ${#binaries[@]} binaries)"
else
  echo "strace cannot trace here: the no-process check is skipped"
fi

for ((run = 1; run <= runs; ++run)); do
  for bin in "${binaries[@]}"; do
    out=$("$build/tests/$bin" "$tier" --order rand --rng-seed "$run" 2>&1)
    if [ $? -ne 0 ]; then
      echo "run $run of $runs: $bin failed (--order rand --rng-seed $run):"
      echo "$out" | tail -40
      exit 1
    fi
  done
done
echo "the tier passed $runs runs in random order (seeds 1..$runs)"
