#!/usr/bin/env python3
"""tools/ksyms.py - the kernel's symbol and line tables, read from its ELF.

panic() prints a backtrace; for each frame it looks up the function (the
symbol table) and the source line (the line table) in two tables that this
script writes as C, from the first link's own ELF: its .symtab and the
DWARF line program (.debug_line) the compiler and nasm emit with -g. A
second link adds them (section .ksyms, after .text: no function moves).

  ksyms.py [KERNEL.elf]             C for both tables (empty without an ELF)
  ksyms.py --check TABLE.c FINAL.elf
                                    fail unless the final link kept every
                                    function where TABLE.c says it is

Only the Python standard library: no nm or addr2line, so any toolchain
(gcc, clang, Homebrew's i686-elf-*) gives the same tables."""
import os
import struct
import sys

SHF_EXECINSTR = 0x4
STT_SECTION, STT_FILE = 3, 4
STB_LOCAL, STB_GLOBAL = 0, 1


class Elf:
    """The sections of a little-endian ELF32 file, by name."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 1 or d[5] != 1:
            sys.exit("ksyms: %s is not a little-endian ELF32 file" % path)
        shoff, = struct.unpack_from("<I", d, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x2E)
        self.sections = [struct.unpack_from("<10I", d, shoff + i * shentsize)
                         for i in range(shnum)]
        names = self.sections[shstrndx]
        self.by_name = {}
        for s in self.sections:
            self.by_name[self.cstr(names[4] + s[0])] = s

    def cstr(self, off):
        return self.data[off:self.data.index(b"\0", off)].decode("utf-8", "replace")

    def body(self, name):
        s = self.by_name.get(name)
        return self.data[s[4]:s[4] + s[5]] if s else b""

    def functions(self):
        """(address, name) of every code symbol, as `nm` marks T/t."""
        symtab = self.by_name.get(".symtab")
        if not symtab:
            return []
        strtab = self.sections[symtab[6]]
        out = []
        for off in range(symtab[4], symtab[4] + symtab[5], 16):
            name, value, _, info, _, shndx = struct.unpack_from("<IIIBBH", self.data, off)
            if not 0 < shndx < len(self.sections) or \
                    not self.sections[shndx][2] & SHF_EXECINSTR:
                continue
            if info & 0xF in (STT_SECTION, STT_FILE) or info >> 4 not in (STB_LOCAL, STB_GLOBAL):
                continue
            name = self.cstr(strtab[4] + name)
            if name and not name.startswith("."):
                out.append((value, name))
        return sorted(out)


# ---------------------------------------------------------------- DWARF lines
class Reader:
    def __init__(self, data, pos=0):
        self.data, self.pos = data, pos

    def fmt(self, f):
        v = struct.unpack_from("<" + f, self.data, self.pos)
        self.pos += struct.calcsize("<" + f)
        return v[0]

    def leb(self):
        """One LEB128 number: its bits, their count and its last byte."""
        result = shift = 0
        while True:
            b = self.data[self.pos]
            self.pos += 1
            result |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return result, shift, b

    def uleb(self):
        return self.leb()[0]

    def sleb(self):
        result, shift, last = self.leb()
        return result - (1 << shift) if last & 0x40 else result

    def cstr(self):
        end = self.data.index(b"\0", self.pos)
        s = self.data[self.pos:end].decode("utf-8", "replace")
        self.pos = end + 1
        return s


def form_value(r, form, strs):
    """One attribute of a DWARF 5 directory or file entry."""
    if form == 0x08:                            # DW_FORM_string
        return r.cstr()
    if form in (0x1F, 0x0E):                    # DW_FORM_line_strp, DW_FORM_strp
        off = r.fmt("I")
        sect = strs[form]
        return sect[off:sect.index(b"\0", off)].decode("utf-8", "replace")
    sizes = {0x0B: "B", 0x05: "H", 0x06: "I", 0x07: "Q"}
    if form in sizes:
        return r.fmt(sizes[form])
    if form == 0x0F:                            # DW_FORM_udata
        return r.uleb()
    if form == 0x1E:                            # DW_FORM_data16 (an MD5)
        r.pos += 16
        return None
    if form == 0x09:                            # DW_FORM_block
        r.pos += r.uleb()
        return None
    raise ValueError("unknown DWARF form 0x%x" % form)


def entries5(r, strs):
    """A DWARF 5 directory or file table: a list of {content type: value}."""
    formats = [(r.uleb(), r.uleb()) for _ in range(r.fmt("B"))]
    return [{kind: form_value(r, form, strs) for kind, form in formats}
            for _ in range(r.uleb())]


def file_names(version, r, strs):
    """The unit's file table, indexed as its line program indexes it."""
    if version >= 5:
        dirs = [e.get(1, "") for e in entries5(r, strs)]
        files = [os.path.join(dirs[e.get(2, 0)] if e.get(2, 0) < len(dirs) else "", e.get(1, "?"))
                 for e in entries5(r, strs)]
        return files, dirs[0] if dirs else ""
    dirs = [""]
    while True:
        d = r.cstr()
        if not d:
            break
        dirs.append(d)
    files = ["?"]                               # file numbers start at 1 before DWARF 5
    while True:
        name = r.cstr()
        if not name:
            break
        d = r.uleb()
        r.uleb()
        r.uleb()
        files.append(os.path.join(dirs[d] if d < len(dirs) else "", name))
    return files, ""


def shorten(path, root):
    """A path as the student sees it: relative to the tree when inside it."""
    if root and os.path.isabs(path):
        rel = os.path.relpath(path, root)
        if not rel.startswith(".."):
            return rel
    return os.path.normpath(path)


def line_rows(elf):
    """(address, file, line) for every row of every line program, file None
    at the end of a sequence (the addresses after it have no line)."""
    data = elf.body(".debug_line")
    strs = {0x1F: elf.body(".debug_line_str"), 0x0E: elf.body(".debug_str")}
    rows, pos = [], 0
    while pos < len(data):
        r = Reader(data, pos)
        length = r.fmt("I")
        if length >= 0xFFFFFFF0:
            raise ValueError("64-bit DWARF is not expected in an i386 kernel")
        end = r.pos + length
        version = r.fmt("H")
        if version >= 5:
            r.pos += 2                          # address size, segment selector size
        header_len = r.fmt("I")
        program = r.pos + header_len
        min_inst = r.fmt("B")
        if version >= 4:
            r.fmt("B")                          # max ops per instruction: 1 on x86
        default_stmt = r.fmt("B")
        line_base = r.fmt("b")
        line_range = r.fmt("B")
        opcode_base = r.fmt("B")
        arg_counts = [r.fmt("B") for _ in range(opcode_base - 1)]
        files, root = file_names(version, r, strs)
        files = [shorten(f, root) for f in files]
        r.pos = program
        address, fileno, line = 0, 1, 1
        del default_stmt
        while r.pos < end:
            op = r.fmt("B")
            if op >= opcode_base:               # special: advance both, emit a row
                adj = op - opcode_base
                address += adj // line_range * min_inst
                line += line_base + adj % line_range
                rows.append((address, files[fileno] if fileno < len(files) else "?", line))
            elif op == 0:                       # extended
                size = r.uleb()
                start = r.pos
                sub = r.fmt("B")
                if sub == 1:                    # end_sequence
                    rows.append((address, None, 0))
                    address, fileno, line = 0, 1, 1
                elif sub == 2:                  # set_address
                    address = r.fmt("I")
                r.pos = start + size
            elif op == 1:                       # copy
                rows.append((address, files[fileno] if fileno < len(files) else "?", line))
            elif op == 2:
                address += r.uleb() * min_inst
            elif op == 3:
                line += r.sleb()
            elif op == 4:
                fileno = r.uleb()
            elif op == 8:                       # const_add_pc
                address += (255 - opcode_base) // line_range * min_inst
            elif op == 9:
                address += r.fmt("H")
            else:                               # column, stmt, block, isa...: skip args
                for _ in range(arg_counts[op - 1]):
                    r.uleb()
        pos = end
    return rows


def line_table(rows):
    """Sorted (address, file, line) ranges: each holds until the next one.
    Rows at one address keep the last; neighbours on the same line merge."""
    at = {}
    for addr, name, line in rows:
        if addr == 0:                           # code the linker dropped
            continue
        if name is None and addr in at:         # a sequence's end never hides a row
            continue
        at[addr] = (name, line)
    out = []
    for addr in sorted(at):
        if out and out[-1][1:] == at[addr]:
            continue
        out.append((addr,) + at[addr])
    return out


# ---------------------------------------------------------------- C output
def c_string(names):
    """names as the text of one C string literal, each ended by a NUL.
    A name is DWARF's, and a file name in it may hold anything (a
    `#line 1 "x\\n#include ..."` of lab code in a grading): every byte
    but printable ASCII, the quote and the backslash is written as a
    three-digit octal escape, so no name can end the literal or the line
    (and the NUL after a name is \\000: a \\0 before a name beginning with a
    digit would take that digit into its escape)."""
    def byte(b):
        c = chr(b)
        return c if 32 <= b < 127 and c not in '"\\' else "\\%03o" % b
    return "".join("".join(byte(b) for b in n.encode()) + "\\000" for n in names)


def emit(syms, lines):
    sect = '__attribute__((section(".ksyms")))'
    out = ["/* generated by tools/ksyms.py from the first link; do not edit */",
           "#include <stdint.h>",
           "struct ksym { uint32_t addr; uint32_t name; };",
           "struct kline { uint32_t addr; uint16_t line; uint16_t file; };"]
    names, off = [], 0
    out.append("const struct ksym ksyms[%d] %s = {" % (max(len(syms), 1), sect))
    for addr, name in syms:
        out.append("    { 0x%08x, %d }, /* %s */" % (addr, off, name))
        names.append(name)
        off += len(name) + 1
    if not syms:
        out.append("    { 0, 0 },")
    out.append("};")
    out.append("const uint32_t nksyms %s = %d;" % (sect, len(syms)))
    out.append('const char ksym_names[] %s = "%s";' % (sect, c_string(names)))

    files, offsets, off = [], {}, 0
    out.append("const struct kline klines[%d] %s = {" % (max(len(lines), 1), sect))
    for addr, name, line in lines:
        if name is None:
            name, line = "", 0                  # no line here (between sequences)
        if name not in offsets:
            offsets[name] = off
            files.append(name)
            off += len(name) + 1
        if off > 0xFFFF or line > 0xFFFF:
            sys.exit("ksyms: line table overflows its 16-bit fields")
        out.append("    { 0x%08x, %d, %d }," % (addr, line, offsets[name]))
    if not lines:
        out.append("    { 0, 0, 0 },")
    out.append("};")
    out.append("const uint32_t nklines %s = %d;" % (sect, len(lines)))
    out.append('const char kline_files[] %s = "%s";' % (sect, c_string(files)))
    return "\n".join(out) + "\n"


def table_functions(path):
    """(address, name) pairs recorded in a generated table."""
    table = []
    for line in open(path):
        if line.startswith("    { 0x") and "/* " in line:
            addr = int(line.split()[1].rstrip(","), 16)
            table.append((addr, line.split("/* ")[1].split(" */")[0]))
    return sorted(table)


def main():
    args = sys.argv[1:]
    if args and args[0] == "--check":
        final = Elf(args[2]).functions()
        table = table_functions(args[1])
        # Static functions may share a name (two free_tree's): compare the
        # whole sorted (address, name) lists, not a name -> address map.
        if table != final:
            moved = sorted(set(final) ^ set(table))
            sys.exit("ksyms: functions moved between links: %s"
                     % ", ".join("%s@%x" % (n, a) for a, n in moved[:5]))
        return
    if not args:
        sys.stdout.write(emit([], []))
        return
    elf = Elf(args[0])
    sys.stdout.write(emit(elf.functions(), line_table(line_rows(elf))))


if __name__ == "__main__":
    main()
