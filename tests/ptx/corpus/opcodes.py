#!/usr/bin/env python3
"""Lists what the corpus's PTX uses, as Markdown on stdout (regen.sh writes INSTRUCTIONS.md).

  python3 tests/ptx/corpus/opcodes.py > tests/ptx/corpus/INSTRUCTIONS.md

For each NAME.ptx in this folder: the directives, the distinct instruction opcodes with their
full modifier strings (a guarded instruction is listed as "@%p OPCODE" or "@!%p OPCODE"), the
special registers read and some operand forms an interpreter has to accept; then the same
merged across the corpus, sorted, with counts. Text only, standard library only.
"""
import collections
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent

# The Hopper batch (cases.h: hopper_cases()); the merged tables also list what only it uses.
HOPPER = {"tma_tile_load", "tma_multicast", "dsmem_exchange", "tma_store_reduce",
          "cp_async_pipeline", "bulk_copy", "warp_intrinsics"}

# Register classes by nvcc's naming, for spotting a store/load whose register is wider than its type.
REG_BITS = {"%rd": 64, "%r": 32, "%rs": 16, "%fd": 64, "%f": 32, "%p": 1}
TYPE_BITS = {"8": 8, "16": 16, "32": 32, "64": 64}


def reg_bits(operand):
    m = re.match(r"(%[a-z]+)\d+$", operand.strip())
    return REG_BITS.get(m.group(1)) if m else None


def statements(text):
    """Yields ('dir', text) / ('ins', text) for each directive line and each instruction."""
    pending = None
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        while line[:1] in ("{", "}"):  # block open/close, inline-asm braces
            line = line[1:].strip()
        if line.endswith("}") and ";" in line:
            line = line[:-1].strip()
        if not line:
            continue
        if pending is not None:
            pending += " " + line
            if pending.endswith(";"):
                yield "ins", pending[:-1].strip()
                pending = None
            continue
        m = re.match(r"^([$\w]+):\s*(.*)$", line)  # label
        if m:
            line = m.group(2)
            if not line:
                continue
        if line.startswith("."):
            if line.startswith(".param") and line.endswith(";"):
                yield "dir", line.rstrip(";") + " ;"  # a declaration in a call sequence
            else:
                yield "dir", line.rstrip(";")
        elif line.endswith(";"):
            yield "ins", line[:-1].strip()
        elif line == ")":
            continue
        else:
            pending = line  # a multi-line instruction (call)


def directive_keys(line):
    """'.shared .align 4 .b8 name[1024]' -> ['.shared .align .b8']; '.func (.param .b64 r) f(' ->
    ['.func', '.param .b64 (return value)']."""
    keys = []
    head = re.split(r"[(]", line, 1)[0]
    words = [w for w in head.split() if w.startswith(".")]
    if words:
        keys.append(" ".join(words) + (" (call-site declaration)" if line.endswith(" ;") else ""))
    if line.startswith(".func") and "(.param" in line.replace("( .param", "(.param"):
        m = re.search(r"\(\s*(\.param(?:\s+\.\w+)+)", line)
        if m:
            keys.append(" ".join(m.group(1).split()) + " (return value)")
    return keys


def analyse(path):
    text = path.read_text()
    ops = collections.Counter()
    dirs = collections.Counter()
    sregs = collections.Counter()
    forms = collections.Counter()
    depth = 0
    for raw in text.splitlines():
        code = raw.split("//", 1)[0].strip()
        if code == "{" and "callseq" in raw:
            forms["{ } call-sequence block with its own .reg/.param declarations"] += 1
        elif code.startswith("{") and code.endswith("}") and ";" in code:
            forms["inline-asm block { instr; } on one line"] += 1
        elif code.startswith("{") and ".reg" in code:
            forms["{ .reg ...; instr; } scope block from nvcc (e.g. cvta.shared of a symbol)"] += 1
        # Inside a nested scope (depth >= 2: the entry body is depth 1), as inline asm makes.
        if depth >= 2 and re.match(r"^[A-Za-z_$][\w$]*:", code):
            forms["label inside a nested { } scope (inline asm; same name may recur)"] += 1
        if depth >= 2 and code.startswith(".reg"):
            forms[".reg declared inside a nested { } scope (inline asm, call sequence)"] += 1
        depth += code.count("{") - code.count("}")
    for kind, s in statements(text):
        if kind == "dir":
            for k in directive_keys(s):
                dirs[k] += 1
            continue
        guard = ""
        m = re.match(r"^@(!?)%?[\w$]+\s+(.*)$", s)  # @%p1, @!%p2, inline asm's @P1 / @%px
        if m:
            guard = "@" + m.group(1) + "%p "
            s = m.group(2)
        parts = s.split(None, 1)
        opcode = parts[0]
        operands = parts[1] if len(parts) > 1 else ""
        ops[guard + opcode] += 1
        for r in re.findall(r"%(?:tid|ntid|ctaid|nctaid|laneid|warpid|clock|clock64|smid|nsmid"
                            r"|lanemask_\w+|globaltimer|cluster_ctarank|cluster_nctarank"
                            r"|cluster_ctaid|cluster_nctaid|clusterid|nclusterid"
                            r"|is_explicit_cluster)(?:\.[xyz])?\b", operands):
            sregs[r] += 1
        # Operand forms.
        tensor = re.search(r"\[\s*%\w+\s*,\s*\{[^}]*\}\s*\]", operands)
        if tensor:
            forms["tensor operand [tensormap-address, {coordinates}] (" + opcode + ")"] += 1
            operands_wo_tensor = operands.replace(tensor.group(0), "")
        else:
            operands_wo_tensor = operands
        if "{" in operands_wo_tensor and not opcode.startswith("call"):
            forms["vector operand {a, b, c, d} (" + opcode + ")"] += 1
        if re.match(r"^_\s*,", operands) or re.search(r"\|\s*_\b", operands):
            forms["sink destination _ (" + opcode + ")"] += 1
        if "|" in operands:
            forms["predicate second destination d|p (" + opcode + ")"] += 1
        for addr in re.findall(r"\[([^\]]+)\]", operands_wo_tensor):
            a = addr.replace(" ", "")
            if opcode.startswith(("ld.param", "st.param")):
                continue
            if re.match(r"^%\w+$", a):
                forms["address [reg]"] += 1
            elif re.match(r"^%\w+\+-?\d+$", a):
                forms["address [reg+imm]"] += 1
            elif re.match(r"^[A-Za-z_$][\w$]*$", a):
                forms["address [symbol] (" + opcode + ")"] += 1
            elif re.match(r"^[A-Za-z_$][\w$]*\+-?\d+$", a):
                forms["address [symbol+imm] (" + opcode + ")"] += 1
            else:
                forms["address [" + a + "]"] += 1
        if opcode.startswith("mov") and re.search(r",\s*[A-Za-z_][\w$]*_param_\d+$", operands):
            forms["mov of a kernel .param symbol's address (" + opcode + "; then cvta.param)"] += 1
        elif opcode.startswith("mov") and re.search(r",\s*[A-Za-z_][\w$]*$", operands):
            forms["mov of a symbol's address (" + opcode + ")"] += 1
        if re.search(r"\b0f[0-9A-Fa-f]{8}\b", operands):
            forms["f32 immediate 0fXXXXXXXX"] += 1
        if re.search(r"\b0d[0-9A-Fa-f]{16}\b", operands):
            forms["f64 immediate 0dXXXXXXXXXXXXXXXX"] += 1
        if "%SPL" in operands or "%SP," in operands:
            forms["local stack pointer %SP/%SPL"] += 1
        # A register wider than the access type (st.global.u32 [a], %rd; ld.param.s32 %rd, [p]).
        mt = re.match(r"^(ld|st)\.[\w.]*?([us]|b|f)(8|16|32|64)$", opcode)
        if mt and ".v" not in opcode:
            regs = [o.strip() for o in re.sub(r"\[[^\]]*\]", "", operands).split(",") if o.strip()]
            for r in regs:
                bits = reg_bits(r)
                if bits and bits > TYPE_BITS[mt.group(3)] and bits != 1:
                    forms["%d-bit register with %s (%s)" % (bits, opcode, "truncating store"
                          if mt.group(1) == "st" else "extending load")] += 1
        if opcode.startswith("call"):
            forms["call with (retval), func, (params) over several lines"] += 1
    return ops, dirs, sregs, forms


def table(counter, files=None):
    lines = []
    for key in sorted(counter):
        extra = "" if files is None else " | " + ", ".join(sorted(files[key]))
        lines.append("| `%s` | %d%s |" % (key, counter[key], extra))
    return lines


def main():
    ptx_files = sorted(HERE.glob("*.ptx"))
    if not ptx_files:
        sys.exit("no .ptx files in " + str(HERE))
    out = []
    out.append("# PTX used by the corpus")
    out.append("")
    out.append("Generated by `opcodes.py` from the checked-in `.ptx` files (nvcc 13, `-arch=sm_90a "
               "-O3`); regenerate with `./regen.sh` (or `python3 opcodes.py > INSTRUCTIONS.md`). "
               "Opcodes are listed with their full modifier strings; `@%p OP` / `@!%p OP` is OP "
               "under a guard predicate. Counts are static occurrences in the text.")
    out.append("")
    all_ops, all_dirs, all_sregs, all_forms = (collections.Counter() for _ in range(4))
    op_files, dir_files, sreg_files, form_files = (collections.defaultdict(set) for _ in range(4))
    per_file = []
    for p in ptx_files:
        ops, dirs, sregs, forms = analyse(p)
        per_file.append((p.name, ops, dirs, sregs, forms))
        for c, allc, files in ((ops, all_ops, op_files), (dirs, all_dirs, dir_files),
                               (sregs, all_sregs, sreg_files), (forms, all_forms, form_files)):
            allc.update(c)
            for k in c:
                files[k].add(p.stem)

    out.append("## Merged across the corpus (%d files, %d distinct opcodes)" %
               (len(ptx_files), len(all_ops)))
    out.append("")
    out.append("### Opcodes")
    out.append("")
    out.append("| opcode | count | files |")
    out.append("|---|---|---|")
    out += table(all_ops, op_files)
    out.append("")
    out.append("### Directives")
    out.append("")
    out.append("| directive | count | files |")
    out.append("|---|---|---|")
    out += table(all_dirs, dir_files)
    out.append("")
    out.append("### Special registers")
    out.append("")
    out.append("| register | count | files |")
    out.append("|---|---|---|")
    out += table(all_sregs, sreg_files)
    out.append("")
    out.append("### Operand forms")
    out.append("")
    out.append("| form | count | files |")
    out.append("|---|---|---|")
    out += table(all_forms, form_files)
    out.append("")
    out.append("### Short list (opcodes only)")
    out.append("")
    out.append("```")
    out.append(" ".join(sorted(all_ops)))
    out.append("```")
    out.append("")
    out.append("### Only in the Hopper batch (%s)" % ", ".join(sorted(HOPPER)))
    out.append("")
    out.append("What the first batch does not use; an interpreter that runs it needs these on top.")
    out.append("")
    for title, counter, files in (("Opcodes", all_ops, op_files),
                                  ("Directives", all_dirs, dir_files),
                                  ("Special registers", all_sregs, sreg_files),
                                  ("Operand forms", all_forms, form_files)):
        only = {k: counter[k] for k in counter if files[k] <= HOPPER}
        out.append("%s (%d): " % (title, len(only)) +
                   (", ".join("`%s`" % k for k in sorted(only)) or "none"))
        out.append("")
    out.append("## Per file")
    for name, ops, dirs, sregs, forms in per_file:
        out.append("")
        out.append("### " + name)
        out.append("")
        out.append("Opcodes (%d distinct): " % len(ops) +
                   ", ".join("`%s`" % k + (" ×%d" % ops[k] if ops[k] > 1 else "")
                             for k in sorted(ops)))
        out.append("")
        out.append("Directives: " + ", ".join("`%s`" % k for k in sorted(dirs)))
        out.append("")
        out.append("Special registers: " + (", ".join("`%s`" % k for k in sorted(sregs)) or "none"))
        if forms:
            out.append("")
            out.append("Operand forms: " + "; ".join(sorted(forms)))
    print("\n".join(out))


if __name__ == "__main__":
    main()
