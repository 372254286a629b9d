#!/usr/bin/env bash
# The model's side of `kernels --loaded` (docs/fidelity.md, "HBM under load"): the same rows
# through the ubench.hbm_loaded workload, one table line each, as kernels.cu prints them.
#   [ROWS="B:C:T ..."] tools/silicon/model_loaded.sh [CHIP] [HOPS] [XPUSIM]
# CHIP: a chip name or file (default h100-sxm5-silicon); HOPS: timed loads per row (default
# 256; the GPU takes 4096); XPUSIM: the binary (default build/release/apps/xpusim/xpusim).
# ROWS: only these rows (background 1 sum, 2 fill, 3 copy, 4 add : CTAs per SM : threads).
# Transaction-level timing on a second host thread; a row takes 2 to 60 s.
set -eu
cd "$(dirname "$0")/../.."
chip=${1:-h100-sxm5-silicon}
hops=${2:-256}
bin=${3:-build/release/apps/xpusim/xpusim}
scenario=$(mktemp --suffix .yaml)
trap 'rm -f "$scenario"' EXIT
case $chip in */* | *.yaml) chip=$(realpath "$chip") ;; esac
printf 'chip: %s\nmode: functional\nmemory_timing: transactions\nworkload: ubench.hbm_loaded\n' \
  "$chip" >"$scenario"
printf '%-10s %8s %10s %8s %8s %8s %8s %8s %8s %10s\n' background warps/SM bg_GB/s mean_ns p10 \
  p50 p90 p99 max hbm_GB/s
row() {  # name background ctas_per_sm threads
  # The GPU's probe runs for milliseconds, in the steady state of an L2 full of the
  # background's dirty lines; here the background first writes twice the L2 (at the rate the
  # H100 wrote, up to 400 us) before the first timed load.
  local warps=$(($3 * $4 / 32)) delay=2000 out
  case $2 in
    2) delay=$(awk -v w="$warps" 'BEGIN {r = w * 300; if (r > 2900) r = 2900; d = 100e6 / r; print int(d < 400000 ? d : 400000)}') ;;
    3) delay=$(awk -v w="$warps" 'BEGIN {r = w * 40; if (r > 1150) r = 1150; d = 100e6 / r; print int(d < 400000 ? d : 400000)}') ;;
    4) delay=$(awk -v w="$warps" 'BEGIN {r = w * 21; if (r > 745) r = 745; d = 100e6 / r; print int(d < 400000 ? d : 400000)}') ;;
  esac
  out=$("$bin" run "$scenario" --memory-thread \
    --param "background=$2,ctas_per_sm=$3,threads=$4,hops=$hops,delay_ns=$delay")
  local v
  v=$(awk '/probe latency (mean|p10|p50|p90|p99|max)/ {printf "%s ", $4} /background bandwidth/ {bg=$3}
           /^  HBM +read/ {r=$3; w=$6} END {printf "%s %.0f", bg, r + w}' <<<"$out")
  set -- "$1" "$(($3 * $4 / 32))" $v
  printf '%-10s %8s %10.0f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %10s\n' "$1" "$2" "$9" "$3" "$4" \
    "$5" "$6" "$7" "$8" "${10}"
}
if [ -n "${ROWS:-}" ]; then
  names=(none stream_sum stream_fill stream_copy stream_add)
  for r in $ROWS; do
    IFS=: read -r b c t <<<"$r"
    row "${names[$b]}" "$b" "$c" "$t"
  done
  exit 0
fi
for kind in 1:stream_sum 2:stream_fill 3:stream_copy 4:stream_add; do
  for shape in "1 32" "1 64" "1 128" "1 256" "2 256" "4 256" "4 512"; do
    row "${kind#*:}" "${kind%%:*}" $shape
  done
done
row none 0 1 32
