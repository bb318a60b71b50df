#!/usr/bin/env bash
# The main job: a real learning-rate sweep (32 trials of a numpy MLP on the
# handwritten digits, ASHA, 2 CPU slots), then the best config.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --demo  # only what the build and the sweep need
/usr/bin/python3 -c "import numpy" ||
  { echo "demo: /usr/bin/python3 lacks numpy" >&2; exit 1; }
scripts/build.sh --demo         # only tuner and tuner-shim
out=demo-out
rm -rf "$out" && mkdir -p "$out"
./build/tuner/tuner run configs/digits-lr-sweep.yaml --db "$out/tuner.db"
echo
echo "best config (tuner best digits-lr-sweep --db $out/tuner.db --top 3):"
./build/tuner/tuner best digits-lr-sweep --db "$out/tuner.db" --top 3
echo
echo "as flags:  $(./build/tuner/tuner best digits-lr-sweep --db "$out/tuner.db" --format args)"
./build/tuner/tuner status --db "$out/tuner.db"
