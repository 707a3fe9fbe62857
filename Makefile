# Orthos - one non-recursive Makefile.  `make help` lists the targets.
# Every invocation first runs tools/deps, which checks what the goals need
# (and on Debian/Ubuntu, as root, installs it; `make DEPS=0` skips it);
# then the tools are found (doc/decisions.md, "Building"). The compiler:
# CC from the command line (`make CC=clang`), else i686-elf-gcc, else
# i686-linux-gnu-gcc, else clang with ld.lld, else the host gcc with -m32.

# A bare `make` builds the kernel and the boot archive, whatever rule comes first.
.DEFAULT_GOAL := all
B       := build

# Parallel by default: a job per core unless -j says otherwise; not with
# clean among the goals (`make clean all` must not build while it
# deletes), nor print-% (`make print-A print-B` prints A, then B: the
# grader reads them in that order), help or format.
ifeq ($(filter -j% j%,$(MAKEFLAGS))$(filter clean help print-% format check-format,	$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(or $(shell nproc 2>/dev/null),2)
endif

# $(call which,NAME): NAME's path on $PATH, or nothing (no shell: cheap).
which = $(firstword $(wildcard $(addsuffix /$(1),$(subst :, ,$(PATH)))))

# e2fsprogs live in /sbin on Debian and in a keg off PATH with Homebrew:
# append what exists, for this Makefile and everything it runs.
SBIN_DIRS := $(wildcard $(patsubst %,%/opt/e2fsprogs/sbin,$(HOMEBREW_PREFIX) /opt/homebrew \
	/usr/local) /sbin /usr/sbin)
export PATH := $(PATH)$(subst $() ,,$(addprefix :,$(filter-out $(subst :, ,$(PATH)),$(SBIN_DIRS))))

# Goals that need no tools at all; everything else asks tools/deps first.
NODEPS_GOALS := clean help print-% format check-format compile_commands.json
DEPS ?= 1
ifneq ($(DEPS),0)
ifneq ($(filter-out $(NODEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
DEPS_OK := $(shell PATH='$(PATH)' $(if $(filter command line,$(origin CC)),CC='$(CC)') \
	tools/deps $(or $(MAKECMDGOALS),all) >&2 && echo ok)
ifneq ($(DEPS_OK),ok)
$(error tools/deps: missing build dependencies (see the message above; DEPS=0 skips the check))
endif
endif
endif

# The cross toolchain. TARGET_FLAGS tells clang what to build for.
ifeq ($(origin CC),command line)
else ifneq ($(call which,i686-elf-gcc),)
CC      := i686-elf-gcc
else ifneq ($(call which,i686-linux-gnu-gcc),)
CC      := i686-linux-gnu-gcc
else ifneq ($(and $(call which,clang),$(call which,ld.lld)),)
CC      := clang
else
CC      := gcc
endif
ifneq ($(findstring clang,$(notdir $(firstword $(CC)))),)
# clang is a cross compiler for every target it knows; lld links ELF.
TARGET_FLAGS := --target=i686-elf
LD      := ld.lld -m elf_i386
AR      := $(or $(call which,llvm-ar),$(wildcard $(dir $(firstword $(CC)))llvm-ar),ar)
else
# gcc: the binutils beside it share its prefix (i686-elf-gcc: i686-elf-ld).
CROSS   := $(patsubst %gcc,%,$(filter %gcc,$(firstword $(CC))))
LD      := $(CROSS)ld -m elf_i386
AR      := $(CROSS)ar
# a quarter of -O2 -g's compile time (clang has no such pass to turn off)
GCC_FLAGS := -fno-var-tracking-assignments
endif
HOSTCC  := cc
NASM    := nasm
PYTHON  := python3
# The build's own scripts (ksyms.py, mkinitrd.py, e2craft.py) run the
# interpreter itself, asked for once per make that needs it: python3 may be
# a wrapper (pyenv's shim starts bash and pyenv, 0.1 s a run), and -S skips
# site-packages, which the scripts (standard library only) never use.
PYBUILD = $(eval PYBUILD := $(shell $(PYTHON) -c 'import sys; print(sys.executable)') -S)$(PYBUILD)
MKE2FS  := $(or $(call which,mke2fs),mke2fs)
QEMU    := qemu-system-i386

COMMON_CFLAGS := $(TARGET_FLAGS) -m32 -march=i686 -ffreestanding -fno-pie -fno-stack-protector \
	-nostdlib -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -mgeneral-regs-only \
	-O2 -g -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -MMD -MP
# Only the compiler's own freestanding headers (stdint.h, stdarg.h, ...):
# never the host C library's. (Before KCFLAGS/UCFLAGS: `:=` copies it now.)
COMMON_CFLAGS += -nostdinc -isystem $(shell $(CC) $(TARGET_FLAGS) -print-file-name=include)
# gcc's -fno-var-tracking-assignments: a quarter of the compile time at
# -O2 -g; GDB still has every symbol, type and line, only fewer locations
# of optimised-out locals.
# -pipe: the compiler hands its assembly to the assembler through a pipe,
# not a file in /tmp (7 % less time for the kernel's files, one at a time).
COMMON_CFLAGS += $(GCC_FLAGS) -pipe
KCFLAGS := $(COMMON_CFLAGS) -Ikernel
# User programs: each function and object in a section of its own, so that
# the link keeps only what the program uses (--gc-sections: `true` gets no
# stdio); -n: no page of padding before the text in the file. exec reads
# segments at any file offset.
# -Og: user programs spend their time in the kernel, so they are compiled
# for debugging, which also takes half the time of -O2 (the string routines
# they share with the kernel are inline assembly either way).
UCFLAGS := $(COMMON_CFLAGS) -Iuser/include -Ikernel/include -Ikernel -Iuser/tests \
	-ffunction-sections -fdata-sections -Og
ULDFLAGS := -T user/user.ld -nostdlib --gc-sections -n
NASMFLAGS := -f elf32 -g -F dwarf

# ---------------------------------------------------------------- how steps run
# A clean build runs a few hundred programs, most of them small; the time
# goes to starting processes as much as to compiling (doc/decisions.md,
# "Building"). So each step prints its one line ("  CC      kernel/main.c")
# with make's own $(info), starting no shell to echo it (a recipe line
# that expands to nothing runs nothing), and each output folder is made
# once, by the rule at the end of this section, which every output names
# as an order-only prerequisite (`| $(DIRS)`: it must exist, its date does
# not matter), instead of a mkdir before every file.
EMPTY :=
say = $(info $(EMPTY)  $(1))

# ---------------------------------------------------------------- kernel
KSRC  := $(sort $(shell find kernel -name '*.c'))
KASM  := boot/entry.asm $(sort $(shell find kernel -name '*.asm'))
KOBJ  := $(KSRC:%.c=$(B)/%.o) $(KASM:%.asm=$(B)/%.o)

# libc: user/lib/*.c and *.asm, plus the two files it shares with the kernel.
LIBC_SRC := $(sort $(wildcard user/lib/*.c)) kernel/lib/string.c kernel/lib/fmt.c
LIBC_ASM := $(sort $(wildcard user/lib/*.asm))
LIBC_OBJ := $(LIBC_SRC:%.c=$(B)/u/%.o) $(LIBC_ASM:%.asm=$(B)/%.o)
CRT0     := $(B)/user/lib/crt0.o
LIBC_OBJ := $(filter-out $(CRT0),$(LIBC_OBJ))
PROGS    := $(sort $(basename $(notdir $(wildcard user/bin/*.c))))
TESTPROGS := $(sort $(basename $(notdir $(wildcard user/tests/*.c))))
LABDIRS  := $(sort $(wildcard lab/[0-9][0-9]-*))
# Hidden tests an instructor adds (make grade GRADE_EXTRA=dir): each dir/*.c
# becomes /bin/extra_NAME; tools/grade.py copies them to build/extra first.
EXTRASRC := $(wildcard $(B)/extra/*.c)
UOBJ     := $(PROGS:%=$(B)/u/user/bin/%.o) $(TESTPROGS:%=$(B)/u/user/tests/%.o) \
	$(LABDIRS:%=$(B)/u/%/test.o) $(EXTRASRC:%.c=$(B)/u/%.o)

# What the objects were made with: build/flags holds the compiler, the
# linker and their flags, rewritten only when they differ, and every
# object and link depends on it. So `make CC=clang` after a gcc build (or
# the other way round) rebuilds everything instead of mixing the two.
# (`make -n` leaves it as it is, so a dry run with another CC does not
# show that rebuild.)
BUILD_FLAGS := $(CC) | $(KCFLAGS) | $(UCFLAGS) | $(NASMFLAGS) | $(LD) | $(ULDFLAGS)
ifneq ($(filter-out $(NODEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
ifeq ($(findstring n,$(firstword -$(MAKEFLAGS))),)
$(shell mkdir -p $(B) && printf '%s\n' '$(BUILD_FLAGS)' | cmp -s - $(B)/flags || \
	printf '%s\n' '$(BUILD_FLAGS)' > $(B)/flags)
endif
endif

# Every folder an output goes in (without the trailing /).
DIRS := $(patsubst %/,%,$(sort $(dir $(KOBJ) $(LIBC_OBJ) $(CRT0) $(UOBJ)) $(B)/ $(B)/root/bin/ \
	$(B)/root/etc/))
$(DIRS):
	@mkdir -p $@

$(B)/kernel/%.o: kernel/%.c $(B)/flags | $(DIRS)
	$(call say,CC      $<)
	@$(CC) $(KCFLAGS) -c $< -o $@

$(B)/%.o: %.asm $(B)/flags | $(DIRS)
	$(call say,NASM    $<)
	@$(NASM) $(NASMFLAGS) $< -o $@

# Two links: the first gives the addresses, tools/ksyms.py turns its
# functions and DWARF line table into tables for panic backtraces (function
# and file:line of each frame), the second adds the tables. The first link
# has no tables of its own: kernel/lib/ksyms.c's empty ones are weak, and
# build/ksyms1.c's take their place in the second. The tables go after
# every function (linker.ld), so no function moves between the links
# (make test checks it: ksyms.py --check, in the panic suite).
# One recipe for the four steps, so make runs them as one job, beside the
# programs' links, rather than one step per pass over the whole build.
$(B)/orthos.elf: $(KOBJ) linker.ld tools/ksyms.py $(B)/flags
	$(call say,LD      $(B)/orthos.pass1.elf)
	@$(LD) -T linker.ld -nostdlib -z noexecstack -o $(B)/orthos.pass1.elf $(KOBJ)
	$(call say,KSYMS   $(B)/ksyms1.c)
	@$(PYBUILD) tools/ksyms.py $(B)/orthos.pass1.elf > $(B)/ksyms1.c
	$(call say,CC      $(B)/ksyms1.c)
	@$(CC) $(KCFLAGS) -c $(B)/ksyms1.c -o $(B)/ksyms1.o
	$(call say,LD      $@)
	@$(LD) -T linker.ld -nostdlib -z noexecstack -o $@ $(KOBJ) $(B)/ksyms1.o

# ---------------------------------------------------------------- user
USERBINS := $(PROGS:%=$(B)/root/bin/%) $(TESTPROGS:%=$(B)/root/bin/%)

$(B)/u/%.o: %.c $(B)/flags | $(DIRS)
	$(call say,CC      $<)
	@$(CC) $(UCFLAGS) $(UPROG_OPT) $(UPROG_DEBUG) -c $< -o $@

# The programs themselves (not libc, which they all share) at -O0: a
# third less compile time than -Og for 70-odd files that only call into
# libc and the kernel; GDB sees every local as written.
$(B)/u/user/bin/%.o $(B)/u/user/tests/%.o $(B)/u/lab/%.o $(B)/u/$(B)/extra/%.o: UPROG_OPT := -O0
# Debug information where GDB is used: all of it (-g) for the kernel, libc
# and the programs of user/bin (make gdb PROG=ls shows ls's arguments and
# locals); the test programs (user/tests, the labs' tests, an instructor's
# extras) get functions and source lines only (-g1): backtraces, breakpoints
# and stepping by line still work, and the compiler and assembler write
# half the bytes for the 50-odd largest files of the build.
$(B)/u/user/tests/%.o $(B)/u/lab/%.o $(B)/u/$(B)/extra/%.o: UPROG_DEBUG := -g1
# ...but not the guest benchmarks: their copy loops are the limits that
# make bench compares with, built as an older tree builds them (-O2).
$(B)/u/user/tests/bench.o $(B)/u/user/tests/bench_exec.o: UPROG_OPT := -O2

$(B)/libc.a: $(LIBC_OBJ)
	@rm -f $@
	$(call say,AR      $@)
	@$(AR) rcs $@ $^

# Every program: crt0, its object, libc (ld keeps only what it uses).
ULINK = $(call say,LD      $@)@$(LD) $(ULDFLAGS) -o $@ $(CRT0) $< $(B)/libc.a
$(B)/root/bin/%: $(B)/u/user/bin/%.o $(CRT0) $(B)/libc.a user/user.ld | $(DIRS)
	$(ULINK)

$(B)/root/bin/%: $(B)/u/user/tests/%.o $(CRT0) $(B)/libc.a user/user.ld | $(DIRS)
	$(ULINK)

# Each lab's graded tests: lab/NN-name/test.c becomes /bin/labNN.
LABBINS  := $(foreach d,$(LABDIRS),$(B)/root/bin/lab$(firstword $(subst -, ,$(notdir $(d)))))
USERBINS += $(LABBINS)
define LAB_RULE
$(B)/root/bin/lab$(firstword $(subst -, ,$(notdir $(1)))): $(B)/u/$(1)/test.o $(CRT0) $(B)/libc.a \
		user/user.ld | $(DIRS)
	$$(ULINK)
endef
$(foreach d,$(LABDIRS),$(eval $(call LAB_RULE,$(d))))

USERBINS += $(EXTRASRC:$(B)/extra/%.c=$(B)/root/bin/extra_%)
$(B)/root/bin/extra_%: $(B)/u/$(B)/extra/%.o $(CRT0) $(B)/libc.a user/user.ld | $(DIRS)
	$(ULINK)

ROOTFILES := $(shell find user/root -type f 2>/dev/null)
DISKFILES := $(shell find user/disk -type f 2>/dev/null)

# A small ext2 image in the boot archive, to show that any regular file
# holding an image can be a filesystem's source (fsopen("ext2", fd)).
$(B)/root/etc/sample.ext2: $(DISKFILES) | $(DIRS)
	@rm -f $@
	@$(MKE2FS) -q -t ext2 -b 1024 -L sample -d user/disk $@ 512K

# ---- ext2 fuzzer's base image (ext2 engineer's block)
# /etc/fuzz.ext2: 128 KiB with every kind of block, which /bin/fuzz_ext2
# damages and mounts; tools/e2craft.py makes the same bytes every time.
$(B)/root/etc/fuzz.ext2: tools/e2craft.py | $(DIRS)
	@$(PYBUILD) tools/e2craft.py base $@
$(B)/initrd.tar: $(B)/root/etc/fuzz.ext2
# ---- end of the ext2 block

# ---- manual pages in the guest (guestshell engineer's block)
# /usr/share/man: the pages of doc/man/ as they are; /bin/man renders them.
# (tools/mkinitrd.py reads them where they are: GUEST=HOST below.)
MANPAGES := $(filter-out doc/man/README.md,$(wildcard doc/man/*.md))
INITRD_MAP += $(foreach m,$(MANPAGES),usr/share/man/$(notdir $(m))=$(m))
$(B)/initrd.tar: $(MANPAGES)
# ---- end of the manual pages block

# The boot archive: build/root (the programs, with their symbols for GDB
# there; stripped in the archive), the files under user/root and the
# manual pages, as ustar (the same bytes on every machine: tools/mkinitrd.py,
# not tar, whose options differ). It reads each file where it is (GUEST=HOST):
# nothing is copied first.
$(B)/initrd.tar: $(USERBINS) $(ROOTFILES) $(B)/root/etc/sample.ext2 tools/mkinitrd.py
	$(call say,INITRD  $@)
	@$(PYBUILD) tools/mkinitrd.py $@ /=$(B)/root $(if $(ROOTFILES),/=user/root) $(INITRD_MAP)

# ---------------------------------------------------------------- images
# GRUB: Debian's grub-mkrescue (with the BIOS modules of grub-pc-bin) or
# Homebrew's i686-elf-grub-mkrescue, and xorriso. Without them the ISO
# cannot be made and `make qemu` boots the ELF with QEMU's -kernel.
GRUB_MKRESCUE := $(or $(call which,i686-elf-grub-mkrescue),$(call which,grub-mkrescue), \
	$(call which,grub2-mkrescue))
GRUB_OK := $(if $(and $(GRUB_MKRESCUE),$(call which,xorriso)),$(if \
	$(findstring i686-elf-,$(GRUB_MKRESCUE)),yes,$(and $(wildcard /usr/lib/grub/i386-pc), \
	$(if $(wildcard /usr/lib/grub/*-efi),$(call which,mformat),yes))))

# The archive goes on the ISO compressed (GRUB's module command inflates a
# gzip file as it loads it): GRUB reads the CD through the BIOS, a few MB/s
# under QEMU, so a fifth of the bytes is the faster load.
# For the same reason the ISO holds only the GRUB modules boot/grub.cfg
# needs (normal mode, serial, multiboot, gzio and what they load), no
# fonts, translations or themes; and the partition-table modules that
# grub-mkrescue's boot image loads before anything else (one `insmod` each)
# are built into that image instead of read one by one: each module was
# looked up in a folder of 287 through the BIOS. GRUB's start (to
# "Booting `Orthos'") went from about 0.46 s to 0.27 s (doc/decisions.md,
# "Fourth round: boot").
GRUB_MODULES := normal serial multiboot gzio
GRUB_PARTMAPS := part_acorn part_amiga part_apple part_bsd part_dfly part_dvh part_gpt \
	part_msdos part_plan part_sun part_sunpc
GRUB_ISO_FLAGS := --install-modules="$(GRUB_MODULES)" --modules="$(GRUB_PARTMAPS)" \
	--fonts= --locales= --themes=
$(B)/orthos.iso: $(B)/orthos.elf $(B)/initrd.tar boot/grub.cfg tools/mkinitrd.py Makefile
	@test -n "$(GRUB_OK)" || { echo "no usable GRUB (grub-mkrescue, its i386-pc modules," \
		"xorriso): see tools/deps; make qemu boots without it"; exit 1; }
	@mkdir -p $(B)/iso/boot/grub
	cp boot/grub.cfg $(B)/iso/boot/grub/grub.cfg
	$(PYBUILD) tools/mkinitrd.py --strip $(B)/orthos.elf $(B)/iso/boot/orthos.elf
	gzip -9 -n -c $(B)/initrd.tar > $(B)/iso/boot/initrd.tar.gz
	$(GRUB_MKRESCUE) -o $@ $(GRUB_ISO_FLAGS) $(B)/iso 2> $(B)/grub-mkrescue.log || \
		{ cat $(B)/grub-mkrescue.log; exit 1; }

# The data disk (/dev/hd1, ext2, attached at /mnt by init). Made once from
# user/disk/ and then kept: what you write in the guest survives reboots.
# `make reset-disk` starts it again.
$(B)/disk.img:
	@mkdir -p $(B)
	$(MKE2FS) -q -t ext2 -b 1024 -L orthos -d user/disk $@ 16M

reset-disk:
	rm -f $(B)/disk.img
	$(MAKE) $(B)/disk.img

# ---------------------------------------------------------------- host tests
HOSTTESTS := $(sort $(basename $(notdir $(wildcard tools/hosttest/*.c))))
$(B)/hosttest/%: tools/hosttest/%.c tools/hosttest/check.h $(KSRC)
	@mkdir -p $(@D)
	$(HOSTCC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
		-Wno-format -Wno-format-overflow -Ikernel -Itools/hosttest -o $@ $<

# ---------------------------------------------------------------- targets
# -nic none: Orthos has no network driver, and the PC's default card costs
# the BIOS its option ROM on every boot. Without a window there is no VGA
# card either (NODISPLAY): the serial line is the console.
QEMUFLAGS := -m 128M -no-reboot -nic none -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-drive file=$(B)/disk.img,format=raw,if=ide,index=1

# How make qemu boots: BOOT=iso (GRUB, the default when it is here) or
# BOOT=kernel (QEMU loads the ELF and the archive itself, as tests do).
BOOT ?= $(if $(GRUB_OK),iso,kernel)
ifeq ($(BOOT),iso)
BOOT_FILES := $(B)/orthos.iso
BOOT_ARGS := -cdrom $(B)/orthos.iso
else
BOOT_FILES := $(B)/orthos.elf $(B)/initrd.tar
BOOT_ARGS := -kernel $(B)/orthos.elf -initrd $(B)/initrd.tar
endif
# A window on macOS (QEMU's cocoa display needs no $$DISPLAY) and under X or
# Wayland; otherwise the serial console in this terminal only. Either way
# this terminal is the serial console (and QEMU's monitor: Ctrl-a c).
WINDOW = $(or $(DISPLAY),$(WAYLAND_DISPLAY),$(filter Darwin,$(shell uname -s)))
# QEMU runs under tools/runqemu.py: a guest poweroff is success, not Error 1.
RUNQEMU = $(PYTHON) tools/runqemu.py $(QEMU) $(QEMUFLAGS) $(BOOT_ARGS) -serial mon:stdio
QEMUEXTRA ?=
NODISPLAY := -display none -vga none
# make qemu-gdb waits for gdb on a port of this user's own (6.1810's scheme),
# so users sharing a machine do not collide; make gdb connects to it.
GDBPORT ?= $(shell expr `id -u` % 5000 + 25000)
GDB := $(or $(call which,i386-elf-gdb),$(call which,i686-elf-gdb),$(call which,gdb))

.PHONY: all iso qemu qemu-nox qemu-gdb gdb test bench grade handout clean help reset-disk \
	handin autograder course grade-batch format check-format compile_commands.json
all: $(B)/orthos.elf $(B)/initrd.tar

iso: $(B)/orthos.iso

qemu: $(BOOT_FILES) $(B)/disk.img
ifeq ($(BOOT),kernel)
	@echo "(booting with QEMU's -kernel$(if $(GRUB_OK),,: no GRUB found))"
endif
	@$(if $(WINDOW),echo "(QEMU window; this terminal is the serial console: quit with Ctrl-a x)", \
		echo "(no display: the serial console is here; quit with Ctrl-a x)")
	@$(RUNQEMU) $(if $(WINDOW),,$(NODISPLAY)) $(QEMUEXTRA)

qemu-nox: $(BOOT_FILES) $(B)/disk.img
	@echo "(serial console; quit with Ctrl-a x)"
	@$(RUNQEMU) $(NODISPLAY) $(QEMUEXTRA)

qemu-gdb: $(BOOT_FILES) $(B)/disk.img
	@$(PYTHON) tools/gdbinit.py $(B) $(GDBPORT) > $(B)/gdbinit
	@echo "(QEMU waits for gdb on port $(GDBPORT): run 'make gdb' in this folder in another terminal)"
	@$(RUNQEMU) $(NODISPLAY) -gdb tcp:127.0.0.1:$(GDBPORT) -S $(QEMUEXTRA)

# make gdb [PROG=name]: attach to make qemu-gdb, stop in kmain (or in
# PROG's main). -iex: do not offer to auto-load ./.gdbinit (see .gdbinit).
# Its script is its own (named for the port and PROG): a second make
# qemu-gdb in this tree rewrites build/gdbinit, the one plain gdb sources.
GDBSCRIPT = $(B)/gdbinit-$(GDBPORT)$(if $(PROG),-$(PROG))
gdb:
	@$(PYTHON) tools/gdbinit.py $(B) $(GDBPORT) $(PROG) > $(GDBSCRIPT)
	$(GDB) -q -iex 'set auto-load local-gdbinit off' -x $(GDBSCRIPT) $(GDBFLAGS)

# Without GRUB the ISO check is skipped (SKIP, not FAIL): doc/decisions.md.
test: all $(if $(GRUB_OK),$(B)/orthos.iso) $(HOSTTESTS:%=$(B)/hosttest/%)
	ORTHOS_GRUB=$(if $(GRUB_OK),yes,no) $(PYTHON) tools/test.py

# ---------------------------------------------------------------- grading
# The grading engineer's targets (tools/grade.py, handout.py, course.py,
# batch.py, handin.py, tools/autograder/); doc/instructors.md explains them.
# make grade [LAB=NN] [TEST=name...] [JSON=results.json] [GRADE_EXTRA=dir]
#            [SUBMISSION=path]   (a pristine tree; otherwise this tree as it is)
# $(call q,TEXT): TEXT as one shell word (a path may hold spaces or quotes).
q = '$(subst ','\'',$(1))'
grade:
	@$(PYTHON) tools/grade.py $(LAB) $(if $(SUBMISSION),--submission $(call q,$(SUBMISSION))) \
		$(if $(JSON),--json $(call q,$(JSON))) $(foreach t,$(TEST),--test $(t)) \
		$(if $(GRADE_EXTRA),--extra $(call q,$(GRADE_EXTRA)))

# make handout LAB=NN [HANDOUT=dir]: lab NN and later labs stubbed, in build/handout-NN
handout:
	@test -n "$(LAB)" || { echo "usage: make handout LAB=NN"; exit 2; }
	$(PYTHON) tools/handout.py $(LAB) $(if $(HANDOUT),$(call q,$(HANDOUT)))

# make handin LAB=NN [HANDIN=file]: the lab's files and answers.md in build/handin-NN.tar.gz
handin:
	@test -n "$(LAB)" || { echo "usage: make handin LAB=NN"; exit 2; }
	@$(PYTHON) tools/handin.py $(LAB) $(if $(HANDIN),$(call q,$(HANDIN)))

# make autograder LAB=NN [GRADE_EXTRA=dir]: build/autograder-NN.zip (Gradescope)
autograder:
	@test -n "$(LAB)" || { echo "usage: make autograder LAB=NN [GRADE_EXTRA=dir]"; exit 2; }
	@$(PYTHON) tools/autograder/package.py $(LAB) $(if $(GRADE_EXTRA),--extra $(call q,$(GRADE_EXTRA))) \
		$(if $(AUTOGRADER_ZIP),--out $(call q,$(AUTOGRADER_ZIP)))

# make course [COURSE=dir]: the course repository, a branch per lab (build/course)
course:
	@$(PYTHON) tools/course.py $(if $(COURSE),$(call q,$(COURSE)))

# make grade-batch LAB=NN SUBMISSIONS=dir [GRADE_EXTRA=dir] [OUT=dir]
grade-batch:
	@test -n "$(LAB)" -a -n "$(SUBMISSIONS)" || \
		{ echo "usage: make grade-batch LAB=NN SUBMISSIONS=dir"; exit 2; }
	@$(PYTHON) tools/batch.py $(LAB) $(call q,$(SUBMISSIONS)) $(if $(OUT),--out $(call q,$(OUT))) \
		$(if $(GRADE_EXTRA),--extra $(call q,$(GRADE_EXTRA)))
# ---------------------------------------------------------------- end of grading

# ---------------------------------------------------------------- mutants
# (the labs engineer's block) make mutants [LAB=NN]: every lab's course tree
# passes its tests and every wrong solution in lab/NN-*/mutants/ loses points.
.PHONY: mutants
mutants: all
	$(PYTHON) tools/mutants.py $(LAB)

# make kmutants: the kernel's own catalogue (tools/kmutants.txt): each wrong
# kernel (a permission check gone, a bound off by one) fails a guest test.
.PHONY: kmutants
kmutants: all
	$(PYTHON) tools/kmutants.py

# make bench [RUNS=n] [BASE=commit] [ICOUNT=1] [PIN=cpu] [ROWS=row,row]: tools/bench.py; BASE= also
# measures that commit (built in a temporary worktree), turn about with this tree; ROWS= only those rows.
bench: all $(B)/orthos.iso
	$(PYTHON) tools/bench.py $(if $(RUNS),--runs $(RUNS)) $(if $(BASE),--base $(BASE)) \
	    $(if $(ICOUNT),--icount) $(if $(PIN),--pin $(PIN)) $(if $(ROWS),--rows $(ROWS))

# ---------------------------------------------------------------- fuzzing
# make fuzz [FUZZ_S=seconds] [FUZZ=sys|elf|ext2|srv|race|perm|oom] [SEED=n]: every fuzzer (or
# one), a guest per core, heap checker on; doc/fuzzing.md. (The fuzz engineer's block.)
FUZZ_S ?= 60
.PHONY: fuzz
fuzz: all
	FUZZ_S=$(FUZZ_S) FUZZ=$(FUZZ) SEED=$(SEED) $(PYTHON) tools/fuzz.py

# make shake [SHAKE_N=n] [SHAKE_SEED=s] [SHAKE_S=seconds] [SHIFT="mem-520K,pad44K heap7 ..."]
# [SUITES="usertests t_dos"|all]: make test's booting suites at shifted memory layouts
# (-m a few KiB/MiB either side, a padded boot archive), heap layouts and timing
# (shake=heapN,tickN on the kernel's command line, QEMU's -icount): tools/shake.py.
.PHONY: shake
shake: all
	SHAKE_N=$(SHAKE_N) SHAKE_SEED=$(SHAKE_SEED) SHAKE_S=$(SHAKE_S) $(PYTHON) tools/shake.py \
		$(foreach s,$(SHIFT),--shift $(s)) $(SUITES)

# ---------------------------------------------------------------- coverage
# make coverage [COV=tests|fuzz|all] [COV_TESTS="t_fs shell"] [FUZZ_S=s]:
# which kernel code the tests (COV=tests, the default: the suites of make
# test that boot this tree's kernel, or those named) and the fuzzers
# (COV=fuzz, FUZZ_S seconds each) reach. The kernel is built again in
# build-cov/ with gcc's -fsanitize-coverage=trace-pc, every basic block
# calling the recorder kernel/lib/kcov.c (itself not instrumented);
# tools/coverage.py boots it and writes build-cov/coverage.txt
# (doc/coverage.md). The sub-make builds with KCOV=1, the block below
# (without this make's MAKEFLAGS: it picks its own -j, as a make run by hand).
# At -O0 (KCOV_OPT): at -O2 gcc gives an error return (`if (!t) return
# -ENODEV;`) no block of its own, only a constant on the edge into the
# shared return, so the report could not tell whether it ever ran.
COV_B ?= build-cov
COV ?= tests
KCOV_OPT ?= -O0
.PHONY: coverage
coverage:
	@MAKEFLAGS= $(MAKE) --no-print-directory $(if $(findstring n,$(firstword -$(MAKEFLAGS))),-n) \
		B=$(COV_B) KCOV=1 KCOV_OPT=$(KCOV_OPT) all
	$(PYTHON) tools/coverage.py --build $(COV_B) --mode $(COV) --fuzz-seconds $(FUZZ_S) \
		$(COV_TESTS)
ifeq ($(KCOV),1)
KCFLAGS += -DKCOV
$(B)/kernel/%.o: KCFLAGS += -fsanitize-coverage=trace-pc $(KCOV_OPT)
$(B)/kernel/lib/kcov.o: KCFLAGS += -fno-sanitize-coverage=trace-pc
endif

# ---------------------------------------------------------------- editors
# make compile_commands.json: every C file with its real flags, for clangd.
compile_commands.json:
	@$(PYTHON) tools/compdb.py $(B) "$(CC) $(TARGET_FLAGS) $(filter-out -MMD -MP,$(KCFLAGS))" \
		"$(CC) $(TARGET_FLAGS) $(filter-out -MMD -MP,$(UCFLAGS))" kernel $(KSRC) \
		user $(LIBC_SRC) $(sort $(wildcard user/bin/*.c user/tests/*.c)) \
		$(LABDIRS:%=%/test.c) > $@
	@echo "  GEN     $@"

# The style is .clang-format's, for clang-format 19 exactly (other versions
# format a little differently): clang-format-19 (Debian, Ubuntu), Homebrew's
# llvm@19, or a clang-format that is 19. make format rewrites the files;
# make check-format lists those that differ (make test runs it).
CLANG_FORMAT := $(or $(call which,clang-format-19),$(firstword $(wildcard \
	$(patsubst %,%/opt/llvm@19/bin/clang-format,$(HOMEBREW_PREFIX) /opt/homebrew /usr/local))), \
	$(call which,clang-format),clang-format)
FORMAT_FILES = $(shell find kernel user lab tools/hosttest -name '*.[ch]' | LC_ALL=C sort)
FORMAT_VERSION = $(CLANG_FORMAT) --version 2>/dev/null | grep -q ' version 19\.' || \
	{ echo "$@: needs clang-format 19 (found: $$($(CLANG_FORMAT) --version 2>&1 | head -1));" \
	"apt-get install clang-format-19, or brew install llvm@19"; exit 2; }

format:
	@$(FORMAT_VERSION)
	@$(CLANG_FORMAT) -i $(FORMAT_FILES)

check-format:
	@$(FORMAT_VERSION)
	@$(CLANG_FORMAT) --dry-run $(FORMAT_FILES) 2>&1 | \
		sed -n 's/^\(.*\):[0-9]*:[0-9]*: warning: code should be clang-formatted.*/\1/p' | \
		uniq | awk '{ print } END { exit NR > 0 }'

help:
	@echo "make            kernel ELF and boot archive under build/ (CC=clang: with clang)"
	@echo "make iso        build/orthos.iso (GRUB)"
	@echo "make qemu       build and boot (window, or serial if no display; the ISO if GRUB"
	@echo "                is here, else -kernel; BOOT=kernel|iso chooses, QEMUEXTRA=... adds)"
	@echo "make qemu-nox   boot with the serial console in this terminal"
	@echo "make qemu-gdb   like qemu-nox, stopped for gdb on your port (make print-GDBPORT)"
	@echo "make gdb        gdb with symbols, attached to make qemu-gdb, stopped in kmain"
	@echo "make gdb PROG=ls  the same, with ls's symbols, stopped in ls's main"
	@echo "make test       host unit tests + QEMU boot tests; ends 'N passed, M failed'"
	@echo "make grade      grade this tree (LAB=NN, TEST=name, JSON=file, SUBMISSION=path)"
	@echo "make handout LAB=NN  the tree for lab NN (it and later labs stubbed)"
	@echo "make handin LAB=NN   pack your lab files and answers.md to hand in"
	@echo "make autograder LAB=NN  the Gradescope package build/autograder-NN.zip"
	@echo "make course     the course repository (a branch per lab) in build/course"
	@echo "make grade-batch LAB=NN SUBMISSIONS=dir  grade a folder of submissions (CSV)"
	@echo "make bench      boot timings and guest benchmarks (RUNS=n, BASE=commit to compare)"
	@echo "make fuzz       every fuzzer, 60 s each (FUZZ=sys|elf|ext2|srv|race|perm|oom, FUZZ_S=s, SEED=n)"
	@echo "make shake      make test's boots at shifted memory, heap and timing (SHAKE_N=n, SHIFT=..., SUITES=...)"
	@echo "make coverage   kernel coverage of make test's boots (COV=fuzz|all, COV_TESTS=...)"
	@echo "make mutants    every lab's wrong solutions lose points (LAB=NN: one lab)"
	@echo "make kmutants   every wrong kernel of tools/kmutants.txt fails a test"
	@echo "make reset-disk a fresh data disk (build/disk.img, ext2, /mnt in the guest)"
	@echo "make compile_commands.json  for clangd and other editors"
	@echo "make format     reformat the C sources (.clang-format); check-format: list misfits"
	@echo "make print-VAR  a variable's value (CC, LD, GDBPORT, BOOT...)"
	@echo "make clean      remove build/ (and build-cov/, make coverage's)"
	@echo "DEPS=0 skips the tools check (tools/deps)"

clean:
	rm -rf $(B) $(COV_B)

# make print-VAR: a variable's value, as this Makefile chose it (print-CC).
print-%:
	@echo '$($*)'

# Keep objects make would otherwise delete as intermediates (crt0.o, ...),
# and never keep a half-made target after a failed command.
.SECONDARY:
.DELETE_ON_ERROR:

# The headers each object was made from (-MMD), for this build's own
# objects only: build/ also holds other trees' builds (make mutants'
# build/mutants-NN/), whose thousand-odd .d files made every make here
# read them first (0.45 s for a make with nothing to do, 0.06 s without).
-include $(wildcard $(patsubst %.o,%.d,$(KOBJ) $(LIBC_OBJ) $(CRT0) $(UOBJ) $(B)/ksyms1.o))
