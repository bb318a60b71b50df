#!/usr/bin/env bash
# Configures and builds into ./build (Release with debug info): everything,
# or with --demo only what scripts/demo.sh runs (tuner and tuner-shim; no
# tests, benchmarks or examples, so none of their packages are needed).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  --demo) extra=OFF; targets=(--target tuner tuner-shim) ;;
  "") extra=ON; targets=() ;;
  *) echo "usage: build.sh [--demo]" >&2; exit 2 ;;
esac
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTUNER_BUILD_TESTS=$extra -DTUNER_BUILD_BENCH=$extra >/dev/null
cmake --build build -j"$(nproc)" "${targets[@]}"
