#!/usr/bin/env bash
# Builds the fuzz targets with clang, libFuzzer, ASan and UBSan in
# build-fuzz/ and runs each for a bounded number of executions.
#   scripts/fuzz.sh [RUNS]      (default 1000000 per target)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-1000000}"
command -v clang++ >/dev/null || { echo "fuzz.sh needs clang (apt install clang)" >&2; exit 1; }
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DTUNER_FUZZ=ON \
  -DTUNER_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets="${FUZZ_TARGETS:-metric_line_fuzzer config_fuzzer http_fuzzer}"
cmake --build build-fuzz -j"$(nproc)" --target $targets
for target in $targets; do
  work="build-fuzz/corpus-$target"
  mkdir -p "$work"
  echo "== $target: $runs runs" >&2
  "build-fuzz/fuzz/$target" -runs="$runs" -max_len=65536 -print_final_stats=1 \
    "$work" "fuzz/corpus/$target"
done
