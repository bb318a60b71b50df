#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs ctest; then
# (unless --quick) the suite again under ASan/UBSan and each fuzz target for
# a bounded number of runs (FUZZ_RUNS, default 20000) under libFuzzer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/check-modules.sh  # the module map (docs/architecture.md)
scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)")
[ "${1:-}" = "--quick" ] && exit 0
scripts/sanitize.sh
scripts/fuzz.sh "${FUZZ_RUNS:-20000}"
