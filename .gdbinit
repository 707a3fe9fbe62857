# .gdbinit - for plain `gdb` in this folder: the same as `make gdb`.
# `make qemu-gdb` (terminal 1) writes build/gdbinit: the kernel's symbols,
# QEMU's gdb port (yours: `make print-GDBPORT`), a breakpoint in kmain();
# `make gdb` (terminal 2) runs the same script under its own name
# (build/gdbinit-PORT) and never asks about this file.
# Plain `gdb` reads this file only if you allow it once, in
# ~/.config/gdb/gdbinit (or ~/.gdbinit):
#    add-auto-load-safe-path /path/to/orthos/.gdbinit
source build/gdbinit
