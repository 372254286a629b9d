#!/usr/bin/env python3
"""Writes the seed corpus under fuzz/corpus/ (checked in; rerun only to change the seeds).

cp_packet/: streams of 64-byte AQL packets in the layout of src/cp/packets.h and
condensed.h. cp_condensed/: FuzzedDataProvider input, so any bytes do; a few fixed ones.
The reader targets' seeds are shipped files (configs/, tests/system/data/tma/), the tensor
maps also as JSON and as blobs; dict/NAME.dict are their libFuzzer dictionaries: the keys of
the shipped files, the tensor maps' value names, and YAML punctuation.
"""
import json
import pathlib
import random
import re
import struct
import zlib

import yaml

HERE = pathlib.Path(__file__).resolve().parent


def header(ptype, barrier=0, acquire=0, release=0):
    return ptype | barrier << 8 | acquire << 9 | release << 11


def dispatch(hdr=header(2, 1, 1, 2), setup=3, wg=(256, 1, 1), ref=None, grid=(4096, 1, 1),
             private=0, group=49152, kobj=0x7F0000001000, kernarg=0x7F0000200000,
             signal=0):
    reserved0 = 0 if ref is None else 0x8000 | ref
    b = struct.pack("<HHHHHH", hdr, setup, *wg, reserved0)
    b += struct.pack("<IIIII", *grid, private, group)
    b += struct.pack("<QQQQ", kobj, kernarg, 0, signal)
    assert len(b) == 64
    return b


def barrier(ptype, deps, signal):
    deps = list(deps) + [0] * (5 - len(deps))
    b = struct.pack("<HHI", header(ptype, 1, 0, 2), 0, 0) + struct.pack("<5Q", *deps)
    b += struct.pack("<QQ", 0, signal)
    assert len(b) == 64
    return b


def condensed(kernels):
    """kernels: (ref_num, diff_vector, [u16 values]) as in seed3 Table 5."""
    slots = []
    for ref, vector, values in kernels:
        slots.append(ref | vector << 3)
        slots.extend(values)
    assert len(slots) <= 31
    slots += [0] * (31 - len(slots))
    return bytes([6, len(kernels)]) + struct.pack("<31H", *slots)


def u64(v):
    return [(v >> (16 * i)) & 0xFFFF for i in range(4)]


TABLE6 = condensed([(4, 0x1000, u64(0x0BADFEEDBEEFDEAD)), (6, 0x0800, u64(0xFACEDEED56781234))])

# Every field diffed once (synch_scopes 0x13 = barrier | acquire agent | release system),
# then three zero diffs: exactly 31 slots.
ALL_FIELDS = condensed([(0, 0x1FFF, [0x13, 7, 64, 2, 1] + [8, 0, 2, 0, 1, 0, 16, 0, 0, 1]
                         + u64(0x7F0000002000) + u64(0x7F0000300000) + u64(0x7F0000400000)),
                        (0, 0, []), (1, 0, []), (0, 0, [])])

# Kripke (docs/command-processor.md): six references, then the loop as one condensed packet.
KRIPKE = b"".join(dispatch(ref=k, kobj=0x7F0000001000 + 0x100 * k,
                           signal=0x7F0000900000 if k == 5 else 0) for k in range(6))
KRIPKE += condensed([(k, 0, []) for k in range(6)])

BAD = (dispatch(ref=None)[:10] + b"\x01\x00" + dispatch()[12:]  # reserved0 neither 0 nor 0x8000|n
       + bytes([7]) + bytes(63)                                   # unknown type 7
       + condensed([(4, 0x1000, u64(1))])[:62] + b"\x01\x00")     # non-zero unused slot

# A synch_scopes slot with a non-zero high byte: accepted, and apply() drops the high byte
# (fuzz/README.md, "Known findings").
SYNCH_HIGH_BYTE = condensed([(0, 0x0001, [0x0113])])

SEEDS = {
    "cp_packet/dispatch": dispatch(),
    "cp_packet/barrier_and": barrier(3, [0x7F0000900000, 0x7F0000900040], 0x7F0000900080),
    "cp_packet/barrier_or": barrier(5, [0, 0x7F0000900040], 0),
    "cp_packet/table6": TABLE6,
    "cp_packet/table6_replay": dispatch(ref=4) + dispatch(ref=6, hdr=header(2)) + TABLE6,
    "cp_packet/all_fields": dispatch(ref=0) + dispatch(ref=1) + ALL_FIELDS,
    "cp_packet/kripke": KRIPKE,
    "cp_packet/bad": BAD,
    "cp_packet/synch_scopes_high_byte": SYNCH_HIGH_BYTE,
}
rng = random.Random(8)
for n in (64, 256, 1024):
    SEEDS[f"cp_condensed/random_{n}"] = bytes(rng.randrange(256) for _ in range(n))

ROOT = HERE.parent
READER_SEEDS = {
    "chip_config": ["configs/chips/tiny.yaml", "configs/chips/h100-sxm5.yaml",
                    "configs/chips/h100-pcie.yaml"],
    "scenario": ["configs/scenarios/stream-copy.yaml", "configs/scenarios/kernel-graph.yaml",
                 "configs/scenarios/graph-workloads.yaml", "configs/scenarios/memory-timing.yaml",
                 "configs/scenarios/gemm-h100.yaml", "configs/scenarios/ubench-l2-latency.yaml"],
    "pod_config": ["configs/pods/ring-8.yaml", "configs/pods/mesh-4x4.yaml",
                   "configs/pods/explicit-example.yaml", "configs/pods/slice-4x4-failed-link.yaml",
                   "configs/pods/tpuv4-4x4x4.yaml", "configs/pods/torus-4x4-v5e.yaml"],
    "tma_yaml": [f"tests/system/data/tma/{n}.yaml" for n in
                 ("gemm_tile", "bad_tile", "narrow_row", "short_rows_overlap",
                  "swizzle128_f16_8x64", "typo")],
}
for target, files in READER_SEEDS.items():
    for f in files:
        SEEDS[f"{target}/{pathlib.Path(f).name}"] = (ROOT / f).read_bytes()

# Every topology key at its maximum, 10 GHz and 2^20 FMA/cycle: the peak figures overflowed
# 64 bits (fuzz/README.md, "Findings"); now a cross-field error.
TINY = (ROOT / "configs/chips/tiny.yaml").read_text()
SEEDS["chip_config/peak_overflow.yaml"] = (
    TINY.replace("  sm: 1GHz", "  sm: 10GHz")
    .replace("  gpcs: 2\n  tpcs_per_gpc: [2, 2]\n  sms_per_tpc: 2",
             "  gpcs: 64\n  tpcs_per_gpc: [" + ", ".join(["64"] * 64) + "]\n  sms_per_tpc: 8")
    .replace("bf16_fma_per_cycle: 2048", "bf16_fma_per_cycle: 1048576")).encode()

# The report's input: a run's stats file as `report::essentials` keeps it, small (two SMs).
REPORT_STATS = {
    "header": {"command": "run", "chip": "tiny", "sim_ticks": 8192, "seed": 1,
               "chip_config": {"clocks": {"sm": 1000000000},
                               "topology": {"gpcs": 2, "tpcs_per_gpc": [1, 1], "sms_per_tpc": 1}}},
    "host": {"command_line": ["xpusim", "run", "gemm.yaml"], "host_seconds": 0.1},
    "figures": {
        "headline": [{"name": "time", "value": 8.192e-3, "unit": "us", "text": "0.008 us"},
                     {"name": "throughput", "value": 1.5, "unit": "TFLOP/s", "text": "1.5"},
                     {"name": "L2 hit rate", "value": 40.0, "unit": "%", "text": "40.0%"}],
        "roofline": {"work": 1e6, "work_unit": "FLOP", "work_per_s": 1.5e12,
                     "peak_work_per_s": 3.2e13, "hbm_bytes": 65536,
                     "peak_hbm_bytes_per_s": 2e11, "seconds": 8.192e-9},
        "stall_cycles": {"issue": 1, "dependency": 20, "memory": 70, "barrier": 9},
        "sms": 2, "used_sms": 2, "sub_partitions": 4, "instructions": 100},
    "chip0.sm0": {"issue_series": {"value": [4, 8, 2, 0], "interval_ps": 2048, "series": "sum"}},
    "chip0.sm1": {"issue_series": {"value": [1, 0, 6], "interval_ps": 1024, "series": "sum"}},
    "chip0.mem.hbm": {"read_bytes_series": {"value": [512, 1024], "interval_ps": 4096,
                                            "series": "sum"}},
    "chip0.mem.xbar": {"response_bytes_series": {"value": [256, 0, 64], "interval_ps": 2048,
                                                 "series": "sum"}},
    "chip0.cwd": {"running_ctas_series": {"value": [2, 1.5], "interval_ps": 4096,
                                          "series": "average"},
                  "sampling.waves_skipped": {"value": 0}},
}
SEEDS["report/run.json"] = (json.dumps(REPORT_STATS, indent=1) + "\n").encode()
SEEDS["report/launch.json"] = b'{"header": {"command": "launch"}}\n'

TMA = ROOT / "tests/system/data/tma"
SEEDS["tma_json/conv_im2col.json"] = (TMA / "conv_im2col.json").read_bytes()
for n in ("gemm_tile", "bad_tile", "swizzle128_f16_8x64"):
    doc = yaml.safe_load((TMA / f"{n}.yaml").read_text())
    SEEDS[f"tma_json/{n}.json"] = (json.dumps(doc, indent=2) + "\n").encode()


def blob(mode, dtype, rank, addr, dims, strides, box=(), estrides=None, swizzle=0, l2=0,
         lower=(), upper=(), cpp=0, ppc=0):
    """A tensor-map blob in the layout of src/tma/tensor_map_blob.cc."""
    estrides = estrides or [1] * rank
    b = bytearray(128)
    b[0:4] = b"XTM\x01"
    b[4:11] = bytes([mode, dtype, rank, 0, swizzle, l2, 0])
    struct.pack_into("<HHQ", b, 12, cpp, ppc, addr)
    struct.pack_into(f"<{len(dims)}Q", b, 24, *dims)
    struct.pack_into(f"<{len(strides)}Q", b, 64, *strides)
    struct.pack_into(f"<{len(box)}H", b, 96, *box)
    b[106:106 + rank] = bytes(estrides)
    struct.pack_into(f"<{len(lower)}h", b, 112, *lower)
    struct.pack_into(f"<{len(upper)}h", b, 118, *upper)
    struct.pack_into("<I", b, 124, zlib.crc32(bytes(b[:124])))
    return bytes(b)


# tma_blob input: a control byte (bit 0: recompute the CRC; bit 1: pass the length as is).
GEMM_BLOB = blob(0, 6, 2, 0x7F0000000000, [4096, 4096], [8192], box=[64, 128], swizzle=3, l2=2)
CONV_BLOB = blob(1, 9, 4, 1 << 20, [64, 14, 14, 8], [128, 1792, 25088], swizzle=3,
                 lower=[-1, -1], upper=[-1, -1], cpp=64, ppc=128)
SEEDS["tma_blob/gemm_tile"] = b"\x00" + GEMM_BLOB
SEEDS["tma_blob/conv_im2col"] = b"\x00" + CONV_BLOB
SEEDS["tma_blob/gemm_tile_bad_crc"] = b"\x00" + GEMM_BLOB[:124] + b"\0\0\0\0"
SEEDS["tma_blob/conv_im2col_crc_fixed_rank_5"] = b"\x01" + CONV_BLOB[:6] + b"\x05" + CONV_BLOB[7:]
SEEDS["tma_blob/short"] = b"\x02" + GEMM_BLOB[:100]

YAML_TOKENS = [": ", "\n", "- ", "[", "]", "{", "}", ", ", "#", "\"", "'", "|", ">", "&a", "*a",
               "!!str", "---", "...", "~", "null", "true", "0x", "-1", "18446744073709551616",
               "4294967296", "KiB", "MiB", "GiB", "TiB", "GHz", "MHz", "ns", "ps", "us", "TB/s",
               "GB/s", "1e300", ".nan", ".inf", "<<: "]
DICT_SOURCES = {name: files for name, files in READER_SEEDS.items()}
DICT_SOURCES["tma_json"] = DICT_SOURCES["tma_yaml"]
TMA_VALUES = re.findall(r'"([A-Z0-9_]+)"', (ROOT / "src/tma/tensor_map.cc").read_text())


def dict_entry(text):
    """One libFuzzer dictionary line, quoted; backslash, quote and non-printables escaped."""
    out = ""
    for c in text:
        if c in '\\"':
            out += "\\" + c
        elif " " <= c <= "~":
            out += c
        else:
            out += f"\\x{ord(c):02X}"
    return f'"{out}"'


def dictionary(files, extra):
    words = set()
    for f in files:
        words.update(re.findall(r"^\s*-?\s*([A-Za-z_][A-Za-z0-9_.]*):", (ROOT / f).read_text(),
                                re.M))
    entries = [w + ":" for w in sorted(words)] + sorted(set(extra))
    return "".join(f"{dict_entry(e)}\n" for e in entries).encode()


# The PTX parser's seeds: the corpus's nvcc output (the short files); its dictionary: the directives, opcodes,
# modifiers and special registers found there.
PTX_FILES = sorted((ROOT / "tests/ptx/corpus").glob("*.ptx"))
PTX_WORDS = set()
for f in PTX_FILES:
    # Seeds up to 6 KB: the longest seed sets libFuzzer's input length, and short inputs run
    # faster; the longer modules still give the dictionary their words.
    if f.stat().st_size <= 6000:
        SEEDS[f"ptx_parser/{f.name}"] = f.read_bytes()
    text = f.read_text()
    PTX_WORDS.update(re.findall(r"(?<![\w%$])(\.[a-z_][a-z0-9_:]*)", text))
    for op in re.findall(r"^\s*(?:@!?%\w+\s+)?([a-z][\w.:]*)", text, re.M):
        head, *mods = op.split(".")
        PTX_WORDS.update([head] + ["." + m for m in mods if m])
    PTX_WORDS.update(re.findall(r"(%[a-z_]+(?:\.[xyz])?)\b", text))
SEEDS["../dict/ptx_parser.dict"] = "".join(
    f"{dict_entry(w)}\n" for w in sorted(PTX_WORDS | {"[", "]", "{", "}", "(", ")", ";", ",", "|"})).encode()

for name, files in DICT_SOURCES.items():
    extra = YAML_TOKENS + (TMA_VALUES + ["tiled", "im2col"] if name.startswith("tma") else [])
    SEEDS[f"../dict/{name}.dict"] = dictionary(files, extra)

for name, data in SEEDS.items():
    path = (HERE / "corpus" / name).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    print(f"{path.relative_to(HERE.parent)}: {len(data)} bytes")
