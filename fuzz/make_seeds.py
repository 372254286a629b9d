#!/usr/bin/env python3
"""Writes the seed corpus under fuzz/corpus/ (checked in; rerun only to change the seeds).

cp_packet/: streams of 64-byte AQL packets in the layout of src/cp/packets.h and
condensed.h. cp_condensed/: FuzzedDataProvider input, so any bytes do; a few fixed ones.
"""
import pathlib
import random
import struct

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

for name, data in SEEDS.items():
    path = HERE / "corpus" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    print(f"{path.relative_to(HERE.parent)}: {len(data)} bytes")
