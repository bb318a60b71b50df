#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs ctest and
# the deterministic tier three more times in random order; then
# (unless --quick) the suite again under ASan/UBSan (built with clang, that
# build also holds the libFuzzer targets) and each fuzz target for FUZZ_RUNS
# runs (default 20000) or FUZZ_SECONDS seconds (default 60), whichever ends
# first. The Slurm tests run against a local Slurm (scripts/local-slurm.sh)
# started here and stopped on exit; the run fails if it cannot start.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/check-modules.sh  # the module map (docs/architecture.md)
scripts/build.sh
# its own dir and ports: a Slurm started by hand (default 17817) may run
export TUNER_SLURM_DIR="${TUNER_SLURM_DIR:-/tmp/tuner-test-slurm-$$}"
export TUNER_SLURM_PORT="${TUNER_SLURM_PORT:-17857}"
trap 'scripts/local-slurm.sh stop' EXIT
slurm_env=$(scripts/local-slurm.sh start)  # fails the run: set -e
eval "$slurm_env"
(cd build && ctest --output-on-failure -j"$(nproc)")
scripts/deterministic.sh 3  # the no-process tier: spawns nothing, any order
[ "${1:-}" = "--quick" ] && exit 0
scripts/sanitize.sh
FUZZ_BUILD=build-asan FUZZ_SECONDS="${FUZZ_SECONDS:-60}" \
  scripts/fuzz.sh "${FUZZ_RUNS:-20000}"
