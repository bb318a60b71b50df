#!/usr/bin/env bash
# The whole test suite again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer (GCC), in build-asan/.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTUNER_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$(nproc)"
cd build-asan
TUNER_SANITIZED=1 \
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}" \
UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
  ctest --output-on-failure -j"$(nproc)" --timeout 600
