#!/usr/bin/env bash
# Installs what is missing from the distribution's packages (Debian 12 /
# Ubuntu 22.04): with --demo only what building tuner and running the demo
# sweep need (scripts/demo.sh); without, that and everything the tests need
# (scripts/test.sh). Idempotent; works as root or through sudo.
set -euo pipefail

# Building tuner and tuner-shim, and the demo's trainer.
packages=(
  build-essential cmake pkg-config
  libboost-dev libsqlite3-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
  nlohmann-json3-dev libcli11-dev
  libutfcpp-dev                           # invalid UTF-8 from trials replaced
  libre2-dev                              # metrics_regex in linear time
  libeigen3-dev                           # the gp searcher's linear algebra
  python3 python3-numpy                   # the demo's trainer
)
# The tests, the sanitizer and fuzz builds, and the package.
test_packages=(
  catch2
  python3-torch                           # the DDP example (torchrun, gloo)
  clang                                   # libFuzzer (scripts/fuzz.sh)
  chromium chromium-driver                # the dashboard's browser test
  strace                                  # scripts/deterministic.sh
  prometheus                              # promtool: /metrics' format test
                                          # (19 MB; it brings a Prometheus
                                          # server too, enabled where systemd
                                          # runs: systemctl disable --now prometheus)
  dpkg-dev file                           # cpack -G DEB: Depends by dpkg-shlibdeps
  groff-base                              # the man page's test renders it
  slurmctld slurmd slurm-client           # the local Slurm of the tests
                                          # (scripts/local-slurm.sh; they
                                          # bring munge, unused: auth/none)
)

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
updated=0
install() {
  if [ -n "$sudo" ] && ! command -v sudo >/dev/null; then
    echo "need root or sudo to install: $*" >&2
    exit 1
  fi
  echo "installing: $*" >&2
  [ "$updated" = 1 ] || { $sudo apt-get update -qq; updated=1; }
  $sudo apt-get install -y -qq --no-install-recommends "$@"
}

case "${1:-}" in
  --demo) ;;
  "") packages+=("${test_packages[@]}") ;;
  *) echo "usage: install-deps.sh [--demo]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] || install "${missing[@]}"

[ "${1:-}" = "--demo" ] && exit 0
# libFuzzer's runtime comes with libclang-common-14-dev on Ubuntu 22.04 and
# is its own package (only recommended by clang) on Debian 12.
fuzzer_runtime() {
  compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null
}
fuzzer_runtime || install libclang-rt-dev || true
