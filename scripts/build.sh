#!/usr/bin/env bash
# Configures and builds into ./build (Release with debug info): everything,
# or with --demo only what scripts/demo.sh runs (tuner and tuner-shim, at
# -O1 without debug info; no tests, benchmarks or examples, so none of their
# packages are needed).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  --demo) extra=OFF; targets=(--target tuner tuner-shim)
    # Optimised without debug info: a fifth less to compile.
    type=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG") ;;
  "") extra=ON; targets=(); type=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  *) echo "usage: build.sh [--demo]" >&2; exit 2 ;;
esac
cmake -S . -B build "${type[@]}" \
  -DTUNER_BUILD_TESTS=$extra -DTUNER_BUILD_BENCH=$extra >/dev/null
cmake --build build -j"$(nproc)" "${targets[@]}"
