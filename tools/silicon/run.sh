#!/usr/bin/env bash
# The silicon checks in one go, for a lent GPU machine (tools/silicon/README.md):
#   run.sh [tma] [latency] [gemm] [kernels]     (default: all four)
# builds the CUDA programs, runs every TMA conformance case in 8 parallel shards (a case that
# faults the GPU context ends its process, which is started again at its next case), the
# latency microbenchmarks, a cuBLAS GEMM and whole scenario kernels (kernels.cu). Results land
# in $OUT (default ./out).
set -u
cd "$(dirname "$0")"
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
what=${*:-tma latency gemm kernels}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
flags="-O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a"
[[ $what == *tma* ]] && nvcc $flags -o /tmp/tma_check tma_check.cu 2>&1 | tee -a "$OUT/gpu.txt" &
[[ $what == *latency* ]] && nvcc $flags -o /tmp/latency latency.cu 2>&1 | tee -a "$OUT/gpu.txt" &
[[ $what == *kernels* ]] && nvcc $flags -o /tmp/kernels kernels.cu 2>&1 | tee -a "$OUT/gpu.txt" &
wait

if [[ $what == *tma* ]]; then
  shards=8
  work=$(mktemp -d)
  shard() {
    local k=$1 rc=3 runs=0
    while [ "$rc" -eq 3 ] && [ "$runs" -lt 400 ]; do
      timeout 120 /tmp/tma_check data/tma_cases.txt "$work/r$k.txt" "$work/b$k.bin" "$k" "$shards"
      rc=$?
      runs=$((runs + 1))
    done
    echo "shard $k: exit $rc after $runs run(s)"
  }
  for k in $(seq 0 $((shards - 1))); do shard "$k" & done
  wait
  { grep -h '^#' "$work"/r*.txt; grep -h '^id=' "$work"/r*.txt | sort -t= -k2 -n; } >"$OUT/tma_silicon.txt"
  cat "$work"/b*.bin >"$OUT/tma_bytes.bin"
  echo "tma_check: $(grep -c '^id=' "$OUT/tma_silicon.txt") results"
  grep -o 'copy=[a-z_]*' "$OUT/tma_silicon.txt" | sort | uniq -c
fi

[[ $what == *latency* ]] && timeout 150 /tmp/latency 2>&1 | tee "$OUT/latency.txt"
[[ $what == *kernels* ]] && timeout 150 /tmp/kernels --sweep --loaded 2>&1 | tee "$OUT/kernels.txt"

if [[ $what == *gemm* ]]; then
  # The flagship workload's real counterpart: an 8192^3 bf16 GEMM through cuBLAS (PyTorch),
  # median of 20 after warm-up, next to the simulator's gemm-8192 figure (docs/fidelity.md).
  timeout 90 python3 - <<'PY' 2>&1 | tee "$OUT/gemm.txt"
import torch, statistics
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
for _ in range(5): a @ b
ts = []
for _ in range(20):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); a @ b; e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
ms = statistics.median(ts)
print(f"gemm 8192^3 bf16 cuBLAS: median {ms:.3f} ms, {2*8192**3/ms/1e9:.0f} TFLOP/s, min {min(ts):.3f} ms")
PY
fi
nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv | tee -a "$OUT/gpu.txt"
