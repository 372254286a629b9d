#!/usr/bin/env bash
# The simulator's own speed on a lent GPU machine's CPU (docs/performance.md, "How to
# measure"). That machine has no yaml-cpp, fmt or Google Benchmark, so the release build's
# benchmark programs travel with every library they load, the C library and loader included,
# and run through that loader:
#   here:  tools/silicon/host_speed.sh pack .devrun     (after make build; add /.devrun/ to
#                                                         .git/info/exclude and carry it)
#   there: tools/silicon/host_speed.sh run .devrun      (results under $OUT)
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:?pack or run}
dir=${2:?a folder}
case $mode in
  pack)
    rm -rf "$dir" && mkdir -p "$dir/lib"
    bins=(build/release/bench/sm_bench build/release/bench/gemm_bench build/release/apps/xpusim/xpusim)
    cp "${bins[@]}" "$dir/"
    for l in $(ldd "${bins[@]}" | awk '/=>/ {print $3} /ld-linux/ {print $1}' | sort -u); do
      cp -L "$l" "$dir/lib/"
    done
    du -sh "$dir"
    ;;
  run)
    OUT=${OUT:-/tmp/host_speed}
    mkdir -p "$OUT"
    d=$(cd "$dir" && pwd)
    # The benchmarks read configs/ at the path compiled in (XPUSIM_CONFIG_DIR).
    [ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
    # With the tunable already set, a program does not re-execute itself for huge pages.
    run() { GLIBC_TUNABLES=glibc.malloc.hugetlb=1 "$d/lib/ld-linux-x86-64.so.2" --library-path "$d/lib" "$@"; }
    lscpu > "$OUT/cpu.txt"
    run "$d/sm_bench" --benchmark_filter=BM_StreamTimingOnlyTransactions --benchmark_repetitions=5 |
      tee "$OUT/sm_bench.txt"
    run "$d/gemm_bench" '--benchmark_filter=Transactions/2048|WaveSampled' --benchmark_repetitions=3 |
      tee "$OUT/gemm_bench.txt"
    ;;
  *)
    echo "host_speed.sh: the mode is pack or run, not '$mode'" >&2
    exit 2
    ;;
esac
