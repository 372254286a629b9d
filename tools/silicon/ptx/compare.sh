#!/usr/bin/env bash
# The same kernels through both front ends (docs/fidelity.md, "The same kernel, two front
# ends"): tools/silicon/kernels.cu's stream kernels and latency.cu's microbenchmarks as nvcc
# compiles them (kernels.ptx, latency.ptx here; ./regen.sh remakes them), run with `ptx:` beside
# the C++ kernels and ubench workloads of configs/scenarios, on h100-sxm5 and
# h100-sxm5-silicon. Prints one markdown row per quantity and chip: C++, PTX, PTX / C++.
# Usage: tools/silicon/ptx/compare.sh [XPUSIM]   (default: build/release/apps/xpusim/xpusim)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
xpusim=$(realpath "${1:-$root/build/release/apps/xpusim/xpusim}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/*.ptx "$here"/*.yaml "$work"/

on_chip() {  # SCENARIO CHIP -> a copy of SCENARIO in $work on CHIP
  local out="$work/$2.$(basename "$1")"
  sed "s/^chip: .*/chip: $2/" "$1" >"$out"
  echo "$out"
}
ran() {  # SCENARIO CHIP -> the launch's "ran N cycles"
  (cd "$work" && "$xpusim" run "$(on_chip "$1" "$2")") | sed -n 's/.* ran \([0-9]*\) cycles.*/\1/p'
}
measured() {  # SCENARIO CHIP NAME -> the workload's measurement NAME
  (cd "$work" && "$xpusim" run "$(on_chip "$1" "$2")") |
    awk -v n="$3" 'index($0, "  " n " ") == 1 { $0 = substr($0, length(n) + 3); print $1; exit }'
}
word() {  # SCENARIO CHIP INDEX DIVISOR -> out[INDEX] / DIVISOR of the PTX run's output file
  local s
  s=$(on_chip "$1" "$2")
  (cd "$work" && "$xpusim" run "$s" >/dev/null)
  python3 - "$work" "$(sed -n 's/^outputs: {out: \(.*\)}$/\1/p' "$s")" "$3" "$4" <<'PY'
import struct, sys
b = open(sys.argv[1] + "/" + sys.argv[2], "rb").read()
print("%.1f" % (struct.unpack_from("<Q", b, 8 * int(sys.argv[3]))[0] / float(sys.argv[4])))
PY
}
chase() {  # NAME FOOTPRINT WARM HOPS KIND -> chase_global<KIND> over a chain of 128 B steps
  # Element k holds element k + 1's address (the last wraps): the ubench workloads' chain, at
  # the first buffer's place (0x10000000: buffers are placed from there, in order). Only the
  # visited elements are written (the rest of the file is zeros, which use no host memory).
  python3 - "$work/$1.bin" "$2" "$(($3 + $4 + 1))" <<'PY'
import struct, sys
size, n, visited = int(sys.argv[2]), int(sys.argv[2]) // 128, int(sys.argv[3])
with open(sys.argv[1], "wb") as f:
    f.truncate(size)
    for k in range(min(n, visited)):
        f.seek(128 * k)
        f.write(struct.pack("<Q", 0x10000000 + 128 * ((k + 1) % n)))
PY
  cat >"$work/$1.yaml" <<YAML
chip: h100-sxm5
mode: functional
ptx: latency.ptx
kernel: _Z12chase_globalILb$5EEvyjjPy
launch: {grid: 1, block: 32}
buffers:
  chain: {file: $1.bin}
  out: {bytes: 16}
args: [{ptr: chain}, {u32: $3}, {u32: $4}, {ptr: out}]
outputs: {out: $1.out.bin}
YAML
}
chase l1-chase 16384 128 2048 0    # ubench-l1-latency.yaml: one warm pass, ld.ca
chase l2-chase 4194304 32768 4096 1  # ubench-l2-latency.yaml: one warm pass, ld.cg
chase hbm-chase 67108864 0 2048 1  # ubench-hbm-latency.yaml: cold

row() {  # LABEL UNIT CHIP CPP PTX
  python3 -c "import sys; c, p = float(sys.argv[4]), float(sys.argv[5]); \
print('| %s | %s | %s | %s | %s | %+.1f %% |' % (sys.argv[1], sys.argv[3], sys.argv[2], \
sys.argv[4], sys.argv[5], 100 * (p / c - 1)))" "$@"
}

echo "| quantity | chip | unit | C++ | PTX | PTX vs C++ |"
echo "|---|---|---|---|---|---|"
for chip in h100-sxm5 h100-sxm5-silicon; do
  for k in copy sum fill; do
    row "stream_$k, 16 MiB" "cycles run" "$chip" \
      "$(ran "$root/configs/scenarios/stream-$k.yaml" "$chip")" "$(ran "$work/stream-$k.yaml" "$chip")"
  done
  for level in "l1:L1 hit:2048" "l2:L2 hit:4096" "hbm:HBM (L2 miss):2048"; do
    IFS=: read -r file name hops <<<"$level"
    row "$name load chase" "cycles a hop" "$chip" \
      "$(measured "$root/configs/scenarios/ubench-$file-latency.yaml" "$chip" "$name load latency")" \
      "$(word "$work/$file-chase.yaml" "$chip" 0 "$hops")"
  done
  row "shared load chase" "cycles a hop" "$chip" \
    "$(measured "$root/configs/scenarios/ubench-shared-latency.yaml" "$chip" "shared load latency")" \
    "$(word "$work/shared-chase.yaml" "$chip" 0 2048)"
  row "DSMEM load chase" "cycles a hop" "$chip" \
    "$(measured "$root/configs/scenarios/ubench-dsmem-latency.yaml" "$chip" "DSMEM load latency")" \
    "$(word "$work/dsmem-chase.yaml" "$chip" 0 512)"
  row "mbarrier round trip" "cycles" "$chip" \
    "$(measured "$root/configs/scenarios/ubench-mbarrier-round-trip.yaml" "$chip" "mbarrier round trip")" \
    "$(word "$work/mbar-ping-pong.yaml" "$chip" 0 1024)"
done
