#!/usr/bin/env bash
# The suite's deterministic tier: every test not tagged [process] (no
# process spawned, no wall clock waited on: fakes, scripted trials and a
# manual clock), run RUNS times in random order, each time with another
# seed (printed, to replay one); and, where strace can trace, proof that
# the tier starts no process: no exec, no fork, no clone but threads'.
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

# New processes: every exec after the test binary's own, every fork or
# vfork, every clone without CLONE_THREAD (a thread is not a process).
syscalls=execve,execveat,fork,vfork,clone,clone3
if strace -f -qq -e trace=$syscalls -o /dev/null true 2>/dev/null; then
  for bin in "${binaries[@]}"; do
    trace=$(mktemp)
    strace -f -qq -e trace=$syscalls -o "$trace" "$build/tests/$bin" "$tier" \
      >/dev/null 2>&1
    rc=$?
    starts=$(grep -E ' (execve|execveat)\(' "$trace" | tail -n +2)
    forks=$(grep -E ' (fork|vfork)\(| clone3?\(' "$trace" |
              grep -v 'CLONE_THREAD' | grep -v 'resumed>')
    if [ $rc -ne 0 ] || [ -n "$starts$forks" ]; then
      echo "$bin '$tier' under strace: exit $rc; tag tests that start" \
           "processes [process]:"
      printf '%s\n%s\n' "$starts" "$forks" | grep . | cut -c1-160 | head -5
      rm -f "$trace"
      exit 1
    fi
    rm -f "$trace"
  done
  echo "the tier starts no process (strace: no exec, fork or non-thread" \
       "clone in ${#binaries[@]} binaries)"
else
  echo "strace cannot trace here: the no-process check is SKIPPED"
fi

base=$((RANDOM * 32768 + RANDOM))  # another order on every call
for ((run = 1; run <= runs; ++run)); do
  seed=$((base + run))
  for bin in "${binaries[@]}"; do
    out=$("$build/tests/$bin" "$tier" --order rand --rng-seed "$seed" 2>&1)
    if [ $? -ne 0 ]; then
      echo "run $run of $runs: $bin failed (--order rand --rng-seed $seed):"
      echo "$out" | tail -40
      exit 1
    fi
  done
done
echo "the tier passed $runs runs in random order (seeds $((base + 1))..$seed)"
