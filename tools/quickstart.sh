#!/usr/bin/env bash
# Quick start: install what is missing, build loom, run the flagship example (hypot of 20M
# float32 on the GPU and on the CPU reference device; the CPU alone, with a notice, if there
# is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
cuda_root=${CUDA_ROOT:-/usr/local/cuda}
[ -d build ] || meson setup build -Dbuildtype=release -Dcudatoolkit="$cuda_root" >/dev/null
meson compile -C build >/dev/null
build/examples/hypot "$@"
