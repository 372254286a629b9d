#!/bin/sh
# Regenerates every NAME.ptx in this folder from NAME.cu, then INSTRUCTIONS.md.
#   nvcc -ptx -arch=sm_90a -O3 -o NAME.ptx NAME.cu   (CUDA 13; precise div/sqrt defaults)
# Every *.cu here, the Hopper batch included (tma_tile_load, tma_multicast, dsmem_exchange,
# tma_store_reduce, cp_async_pipeline, bulk_copy, warp_intrinsics: they need sm_90a, take
# CUtensorMap from cuda.h and, bulk_copy, CCCL's <cuda/ptx>, all shipped with CUDA 13), and the
# tensor-core and half cases (mma_gemm, mma_shapes, wmma_gemm, half_arith: <mma.h>,
# <cuda_fp16.h>, <cuda_bf16.h>).
# Usage: tests/ptx/corpus/regen.sh   (NVCC=/path/to/nvcc to override; runs under nice)
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
for cu in *.cu; do
  name=${cu%.cu}
  echo "nvcc $cu -> $name.ptx"
  nice "$NVCC" -ptx -arch=sm_90a -O3 -o "$name.ptx" "$cu"
done
python3 opcodes.py > INSTRUCTIONS.md
