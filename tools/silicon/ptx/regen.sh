#!/bin/sh
# Recompiles kernels.ptx and latency.ptx from tools/silicon/kernels.cu and latency.cu (CUDA 13;
# latency.cu takes CUtensorMap from cuda.h). compare.sh and tests/system/ptx_run_test.cc run them.
# Usage: tools/silicon/ptx/regen.sh   (NVCC=/path/to/nvcc to override)
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
for name in kernels latency; do
  echo "nvcc ../$name.cu -> $name.ptx"
  nice "$NVCC" -ptx -arch=sm_90a -O3 -o "$name.ptx" "../$name.cu"
done
