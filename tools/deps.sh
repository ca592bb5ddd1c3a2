#!/usr/bin/env bash
# Installs what building and testing loom needs on Debian 12 (the CUDA toolkit is assumed at
# /usr/local/cuda, or set CUDA_ROOT). Does nothing for packages already present.
set -euo pipefail
pkgs="meson ninja-build gcc pkg-config python3 libcmocka-dev libxxhash-dev liblapacke"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq $missing
fi
