#!/usr/bin/env bash
# Installs what the build, the tests and the demo need from the distribution's
# packages (Debian 12 / Ubuntu 22.04). Idempotent: installs only what is
# missing; works as root or through sudo.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libboost-dev libsqlite3-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
  catch2 nlohmann-json3-dev libcli11-dev
  python3 python3-numpy python3-sklearn   # the demo's trainer
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
