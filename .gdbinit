# .gdbinit - `make qemu-gdb` in one terminal, then `make gdb` (or plain `gdb`)
# in this folder in another. It loads the kernel's symbols, connects to
# QEMU and runs to kmain(), the first C function.
# Plain `gdb` reads this file only if you allow it once, in ~/.gdbinit:
#    add-auto-load-safe-path /path/to/orthos/.gdbinit
set confirm off
set pagination off
set architecture i386
file build/orthos.elf
target remote localhost:1234
hbreak kmain
continue
