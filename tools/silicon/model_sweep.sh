#!/usr/bin/env bash
# The model's side of `kernels --sweep` (docs/fidelity.md, "Whole kernels"): stream_sum,
# stream_fill and stream_copy over 256 MiB at 1 to 64 warps per SM, each the shipped scenario
# with a bigger buffer and the sweep's launch, timing-only. One line per row: the run's time
# in us at the chip's SM clock and ns per iteration of a thread.
#   tools/silicon/model_sweep.sh [CHIP] [XPUSIM] [ROWS]
# CHIP: a chip name or file (default h100-sxm5-silicon); XPUSIM: the binary (default
# build/release/apps/xpusim/xpusim); ROWS: "kernel:grid:block ..." (default: all 18).
# Transaction-level timing on a second host thread; the 1-warp rows take a minute or two.
set -eu
cd "$(dirname "$0")/../.."
chip=${1:-h100-sxm5-silicon}
bin=${2:-build/release/apps/xpusim/xpusim}
rows=${3:-}
if [ -z "$rows" ]; then
  for k in sum fill copy; do
    for s in 132:32 132:128 132:256 264:256 528:256 528:512; do rows="$rows $k:$s"; done
  done
fi
case $chip in */* | *.yaml) chip=$(realpath "$chip") ;; esac
scenario=$(mktemp --suffix .yaml)
trap 'rm -f "$scenario"' EXIT
n=$((256 * 1024 * 1024 / 4))
printf '%-12s %6s %6s %8s %10s %12s\n' kernel grid block warps/SM span_us ns_per_iter
for row in $rows; do
  IFS=: read -r k grid block <<<"$row"
  launch="launch: {grid: [$grid, 1, 1], block: [$block, 1, 1], cluster: [1, 1, 1], dynamic_shared_bytes: 0, registers_per_thread: 32}"
  case $k in
    sum) body="kernel: stream_sum
$launch
buffers: {src: {bytes: 256MiB}, out: {bytes: $((grid * block * 4))}}
args: [{ptr: src}, {u64: $n}, {ptr: out}]" ;;
    fill) body="kernel: stream_fill
$launch
buffers: {dst: {bytes: 256MiB}}
args: [{ptr: dst}, {u64: $n}]" ;;
    copy) body="kernel: stream_copy
$launch
buffers: {src: {bytes: 256MiB}, dst: {bytes: 256MiB}}
args: [{ptr: src}, {ptr: dst}, {u64: $n}]" ;;
  esac
  printf 'chip: %s\nmode: timing-only\nmemory_timing: transactions\n%s\n' "$chip" "$body" >"$scenario"
  out=$("$bin" run "$scenario" --memory-thread)
  us=$(awk '/^  simulated/ {print $4}' <<<"$out" | tr -d ,)
  printf '%-12s %6s %6s %8s %10.1f %12.1f\n' "stream_$k" "$grid" "$block" $((grid * block / 32 / 132)) \
    "$us" "$(awk -v us="$us" -v t=$((grid * block)) -v n=$n 'BEGIN {print us * 1000 / (n / t)}')"
done
