#!/usr/bin/env bash
# Builds the fuzz targets with clang, libFuzzer, ASan and UBSan (in
# $FUZZ_BUILD, default build-fuzz/) and runs each for a bounded number of
# executions, or FUZZ_SECONDS seconds (each) if that comes first.
# FUZZ_BUILD=build-asan reuses scripts/sanitize.sh's build.
#   scripts/fuzz.sh [RUNS]      (default 1000000 per target)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-1000000}"
build="${FUZZ_BUILD:-build-fuzz}"
command -v clang++ >/dev/null || { echo "fuzz.sh needs clang (apt install clang)" >&2; exit 1; }
if ! grep -q "^TUNER_FUZZ:BOOL=ON" "$build/CMakeCache.txt" 2>/dev/null; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -DTUNER_FUZZ=ON \
    -DTUNER_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
targets="${FUZZ_TARGETS:-metric_line_fuzzer config_fuzzer http_fuzzer}"
cmake --build "$build" -j"$(nproc)" --target $targets
for target in $targets; do
  work="$build/corpus-$target"
  mkdir -p "$work"
  echo "== $target: $runs runs" >&2
  "$build/fuzz/$target" -runs="$runs" -max_total_time="${FUZZ_SECONDS:-0}" \
    -max_len=65536 -print_final_stats=1 \
    "$work" "fuzz/corpus/$target"
done
