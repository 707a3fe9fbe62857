#!/usr/bin/env python3
"""tools/mkinitrd.py OUT GUEST=HOST... - the boot archive, as a ustar file.
Each GUEST=HOST puts the host's file or folder HOST at GUEST in the guest
(a folder: everything under it, merged with what is there already; a later
argument wins for the same name): `/=build/root /=user/root
usr/share/man/ls.1.md=doc/man/ls.1.md`. Every file is read where it is,
so the Makefile copies nothing into a staging folder first.
tools/mkinitrd.py --strip ELF OUT - ELF stripped the same way (the kernel
that goes on the GRUB ISO; build/orthos.elf keeps its symbols).

The kernel unpacks it into / at boot (kernel/fs/initrd.c reads ustar, see
kernel/lib/ustar.c). Written here rather than by tar(1) because GNU tar and
macOS's bsdtar take different options for a reproducible archive; this one
is the same bytes on every machine: names sorted, parents before children,
owner 0:0, every time stamp SOURCE_DATE_EPOCH (default 0), modes 0755 for
directories and executables and 0644 for the rest.

ELF files go in stripped: only the ELF header, the program headers and the
segments' bytes (exec reads nothing else), no section headers, symbols or
debug information. The files under build/root keep theirs, for GDB (make gdb
PROG=...) on the host. /bin/true is then a few hundred bytes, the archive
a fraction of its size, and GRUB, which reads it through the BIOS and
inflates it, has that much less to move."""
import io
import os
import stat
import struct
import sys
import tarfile


def stripped(data):
    """data without what lies past its last segment, if it is a 32-bit
    little-endian ELF file whose program headers say where that is;
    otherwise data as it is."""
    if len(data) < 52 or data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        return data
    phoff, = struct.unpack_from("<I", data, 28)
    phentsize, phnum = struct.unpack_from("<HH", data, 42)
    end = phoff + phentsize * phnum
    if phentsize < 32 or end > len(data):
        return data
    for i in range(phnum):
        offset, filesz = struct.unpack_from("<I8xI", data, phoff + i * phentsize + 4)
        if filesz and offset + filesz > end:
            end = offset + filesz
    if end > len(data):
        return data
    out = bytearray(data[:end])
    struct.pack_into("<I", out, 32, 0)                  # e_shoff: no section headers
    struct.pack_into("<HH", out, 48, 0, 0)              # e_shnum, e_shstrndx
    return bytes(out)


def gather(pairs):
    """{guest path: host path} for every GUEST=HOST argument: the guest
    paths relative ('/'-separated, no leading '/'), folders included."""
    out = {}
    for pair in pairs:
        guest, sep, host = pair.partition("=")
        if not sep:
            sys.exit("mkinitrd.py: %r is not GUEST=HOST" % pair)
        guest = guest.strip("/")
        if not os.path.isdir(host):
            out[guest] = host
            continue
        if guest:
            out[guest] = host
        for dirpath, dirs, files in os.walk(host):
            rel = os.path.relpath(dirpath, host)
            for name in dirs + files:
                sub = name if rel == "." else os.path.join(rel, name).replace(os.sep, "/")
                out[guest + "/" + sub if guest else sub] = os.path.join(dirpath, name)
    # the folders above each file, as tar lists parents before children
    for name in list(out):
        parts = name.split("/")
        for i in range(1, len(parts)):
            out.setdefault("/".join(parts[:i]), None)
    return out


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--strip":
        with open(sys.argv[2], "rb") as f:
            data = stripped(f.read())
        with open(sys.argv[3], "wb") as f:
            f.write(data)
        return
    if len(sys.argv) < 3:
        sys.exit("usage: mkinitrd.py OUT GUEST=HOST... | mkinitrd.py --strip ELF OUT")
    out = sys.argv[1]
    files = gather(sys.argv[2:])
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    tmp = out + ".tmp"
    with tarfile.open(tmp, "w", format=tarfile.USTAR_FORMAT) as tar:
        for rel in sorted(files):
            path = files[rel]
            info = tarfile.TarInfo(rel)
            st = os.lstat(path) if path else None
            if st is None or stat.S_ISDIR(st.st_mode):
                info.type = tarfile.DIRTYPE
            elif stat.S_ISLNK(st.st_mode):
                info.type = tarfile.SYMTYPE
                info.linkname = os.readlink(path)
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    data = stripped(f.read())
                info.size = len(data)
            else:
                continue                        # no devices or FIFOs at boot
            info.mtime = mtime
            info.mode = 0o755 if info.isdir() or st.st_mode & 0o100 else 0o644
            if info.isfile():
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
