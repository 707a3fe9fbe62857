#!/usr/bin/env python3
"""tools/mkinitrd.py DIR OUT - the boot archive: DIR's tree as a ustar file.

The kernel unpacks it into / at boot (kernel/fs/initrd.c reads ustar, see
kernel/lib/ustar.c). Written here rather than by tar(1) because GNU tar and
macOS's bsdtar take different options for a reproducible archive; this one
is the same bytes on every machine: names sorted, parents before children,
owner 0:0, every time stamp SOURCE_DATE_EPOCH (default 0), modes 0755 for
directories and executables and 0644 for the rest."""
import os
import stat
import sys
import tarfile


def entries(top):
    """Every path under top (relative, '/'-separated), sorted."""
    out = []
    for dirpath, dirs, files in os.walk(top):
        rel = os.path.relpath(dirpath, top)
        for name in dirs + files:
            out.append(name if rel == "." else os.path.join(rel, name).replace(os.sep, "/"))
    return sorted(out)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: mkinitrd.py DIR OUT")
    top, out = sys.argv[1:]
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    tmp = out + ".tmp"
    with tarfile.open(tmp, "w", format=tarfile.USTAR_FORMAT) as tar:
        for rel in entries(top):
            path = os.path.join(top, rel)
            st = os.lstat(path)
            info = tarfile.TarInfo(rel)
            if stat.S_ISDIR(st.st_mode):
                info.type = tarfile.DIRTYPE
            elif stat.S_ISLNK(st.st_mode):
                info.type = tarfile.SYMTYPE
                info.linkname = os.readlink(path)
            elif stat.S_ISREG(st.st_mode):
                info.size = st.st_size
            else:
                continue                        # no devices or FIFOs at boot
            info.mtime = mtime
            info.mode = 0o755 if info.isdir() or st.st_mode & 0o100 else 0o644
            if info.isfile():
                with open(path, "rb") as f:
                    tar.addfile(info, f)
            else:
                tar.addfile(info)
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
