#!/usr/bin/env python3
"""Where each 16 B of a silicon box came from: reads tma_check's BYTES dump and, for each
case, maps every 16 B chunk of shared memory back to the global pattern (splitmix64 words,
tma_case.h) it was copied from. Prints runs: `SMEM+LEN<-gGLOBAL` for copied bytes, `SMEM+LEN
zero|poison|other` otherwise (global offsets relative to the case's globalAddress).
  provenance.py CASES BYTES [ID ...]
Used to work out layouts the model does not match yet (interleaved boxes: docs/tma.md)."""
import struct
import sys

M = (1 << 64) - 1


def splitmix64(i):
    z = (i * 0x9E3779B97F4A7C15 + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def main():
    cases = {}
    for line in open(sys.argv[1]):
        if line.startswith("id="):
            kv = dict(w.split("=", 1) for w in line.split("#")[0].split())
            cases[int(kv["id"])] = kv
    dumps, data, i = {}, open(sys.argv[2], "rb").read(), 0
    while i < len(data):
        cid, n = struct.unpack("<ii", data[i:i + 8])
        dumps[cid] = data[i + 8:i + 8 + n]
        i += 8 + n
    want = [int(a) for a in sys.argv[3:]] or sorted(dumps)
    words = (max(int(cases[c]["offset"]) for c in want) + (4 << 20)) // 8
    pattern = b"".join(struct.pack("<Q", splitmix64(w)) for w in range(words))
    index = {pattern[w * 8:w * 8 + 8]: w * 8 for w in range(words)}
    for cid in want:
        c, s = cases[cid], dumps.get(cid)
        if s is None:
            continue
        base = int(c["offset"])
        chunks = []
        for o in range(0, len(s) - 15, 16):
            src = None
            for sh in range(9):
                if s[o + sh:o + sh + 8] in index:
                    src = index[s[o + sh:o + sh + 8]] - sh - base
                    break
            kind = "g" if src is not None else ("poison" if s[o] == 0xA5 else
                                                 "zero" if s[o] == 0 else "other")
            chunks.append((o, kind, src))
        runs = []
        for o, kind, src in chunks:
            if runs and runs[-1][1] == kind and (kind != "g" or runs[-1][2] + runs[-1][3] == src):
                runs[-1][3] += 16
            else:
                runs.append([o, kind, src, 16])
        text = " ".join(f"{o}+{n}<-g{src}" if k == "g" else f"{o}+{n} {k}" for o, k, src, n in runs)
        params = " ".join(f"{k}={v}" for k, v in c.items() if k not in ("l2", "copy", "pat"))
        print(f"{params}\n  {text}")


if __name__ == "__main__":
    main()
