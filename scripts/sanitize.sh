#!/usr/bin/env bash
# The whole test suite again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer, in build-asan/. With clang (install-deps.sh
# installs it) the same build carries libFuzzer's coverage instrumentation
# and the fuzz targets, so that scripts/fuzz.sh reuses it
# (FUZZ_BUILD=build-asan): one sanitized build of everything, not two.
set -euo pipefail
cd "$(dirname "$0")/.."
# -O0 (Debug): at -O1 clang's ASan build takes twice as long (15 min, not
# 7.5, on 2 cores), more than the faster runs save. No benchmarks.
options=(-DCMAKE_BUILD_TYPE=Debug -DTUNER_SANITIZE=ON -DTUNER_BUILD_BENCH=OFF)
if command -v clang++ >/dev/null; then
  export CC=clang CXX=clang++
  options+=(-DTUNER_FUZZ=ON)
fi
cmake -S . -B build-asan "${options[@]}" >/dev/null
cmake --build build-asan -j"$(nproc)"
cd build-asan
TUNER_SANITIZED=1 \
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}" \
UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
  ctest --output-on-failure -j"$(nproc)" --timeout 600
