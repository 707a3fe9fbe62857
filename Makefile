# Orthos - one non-recursive Makefile.  `make help` lists the targets.
# Every invocation first runs tools/deps, which checks what the goals need
# (and on Debian/Ubuntu, as root, installs it; `make DEPS=0` skips it);
# then the tools are found (doc/decisions.md, "Building"). The compiler:
# CC from the command line (`make CC=clang`), else i686-elf-gcc, else
# i686-linux-gnu-gcc, else clang with ld.lld, else the host gcc with -m32.

# A bare `make` builds the kernel and the boot archive, whatever rule comes first.
.DEFAULT_GOAL := all
B       := build

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
DEPS_OK := $(shell $(if $(filter command line,$(origin CC)),CC='$(CC)') \
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
endif
HOSTCC  := cc
NASM    := nasm
PYTHON  := python3
MKE2FS  := $(or $(call which,mke2fs),mke2fs)
QEMU    := qemu-system-i386

COMMON_CFLAGS := $(TARGET_FLAGS) -m32 -march=i686 -ffreestanding -fno-pie -fno-stack-protector -nostdlib \
	-fno-omit-frame-pointer -fno-asynchronous-unwind-tables -mgeneral-regs-only \
	-O2 -g -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -MMD -MP
# Only the compiler's own freestanding headers (stdint.h, stdarg.h, ...):
# never the host C library's. (Before KCFLAGS/UCFLAGS: `:=` copies it now.)
COMMON_CFLAGS += -nostdinc -isystem $(shell $(CC) $(TARGET_FLAGS) -print-file-name=include)
KCFLAGS := $(COMMON_CFLAGS) -Ikernel
UCFLAGS := $(COMMON_CFLAGS) -Iuser/include -Ikernel/include -Ikernel -Iuser/tests
NASMFLAGS := -f elf32 -g -F dwarf

# ---------------------------------------------------------------- kernel
KSRC  := $(sort $(shell find kernel -name '*.c'))
KASM  := boot/entry.asm $(sort $(shell find kernel -name '*.asm'))
KOBJ  := $(KSRC:%.c=$(B)/%.o) $(KASM:%.asm=$(B)/%.o)

$(B)/kernel/%.o: kernel/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(KCFLAGS) -c $< -o $@

$(B)/%.o: %.asm
	@mkdir -p $(@D)
	@echo "  NASM    $<"
	@$(NASM) $(NASMFLAGS) $< -o $@

# Two links: the first gives the addresses, tools/ksyms.py turns its
# functions and DWARF line table into tables for panic backtraces (function
# and file:line of each frame), the second adds the tables.
$(B)/ksyms0.c: tools/ksyms.py
	@mkdir -p $(@D)
	@$(PYTHON) tools/ksyms.py > $@

$(B)/ksyms%.o: $(B)/ksyms%.c
	@echo "  CC      $<"
	@$(CC) $(KCFLAGS) -c $< -o $@

$(B)/orthos.pass1.elf: $(KOBJ) $(B)/ksyms0.o linker.ld
	@echo "  LD      $@"
	@$(LD) -T linker.ld -nostdlib -z noexecstack -o $@ $(KOBJ) $(B)/ksyms0.o

$(B)/ksyms1.c: $(B)/orthos.pass1.elf tools/ksyms.py
	@echo "  KSYMS   $@"
	@$(PYTHON) tools/ksyms.py $< > $@

$(B)/orthos.elf: $(KOBJ) $(B)/ksyms1.o linker.ld
	@echo "  LD      $@"
	@$(LD) -T linker.ld -nostdlib -z noexecstack -o $@ $(KOBJ) $(B)/ksyms1.o
	@$(PYTHON) tools/ksyms.py --check $(B)/ksyms1.c $@

# ---------------------------------------------------------------- user
# libc: user/lib/*.c and *.asm, plus the two files it shares with the kernel.
LIBC_SRC := $(sort $(wildcard user/lib/*.c)) kernel/lib/string.c kernel/lib/fmt.c
LIBC_ASM := $(sort $(wildcard user/lib/*.asm))
LIBC_OBJ := $(LIBC_SRC:%.c=$(B)/u/%.o) $(LIBC_ASM:%.asm=$(B)/%.o)
CRT0     := $(B)/user/lib/crt0.o
LIBC_OBJ := $(filter-out $(CRT0),$(LIBC_OBJ))
PROGS    := $(sort $(basename $(notdir $(wildcard user/bin/*.c))))
TESTPROGS := $(sort $(basename $(notdir $(wildcard user/tests/*.c))))
USERBINS := $(PROGS:%=$(B)/root/bin/%) $(TESTPROGS:%=$(B)/root/bin/%)

$(B)/u/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(UCFLAGS) -c $< -o $@

$(B)/libc.a: $(LIBC_OBJ)
	@rm -f $@
	@echo "  AR      $@"
	@$(AR) rcs $@ $^

$(B)/root/bin/%: $(B)/u/user/bin/%.o $(CRT0) $(B)/libc.a user/user.ld
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(LD) -T user/user.ld -nostdlib -o $@ $(CRT0) $< $(B)/libc.a

$(B)/root/bin/%: $(B)/u/user/tests/%.o $(CRT0) $(B)/libc.a user/user.ld
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(LD) -T user/user.ld -nostdlib -o $@ $(CRT0) $< $(B)/libc.a

# Each lab's graded tests: lab/NN-name/test.c becomes /bin/labNN.
LABDIRS  := $(sort $(wildcard lab/[0-9][0-9]-*))
LABBINS  := $(foreach d,$(LABDIRS),$(B)/root/bin/lab$(firstword $(subst -, ,$(notdir $(d)))))
USERBINS += $(LABBINS)
define LAB_RULE
$(B)/root/bin/lab$(firstword $(subst -, ,$(notdir $(1)))): $(B)/u/$(1)/test.o $(CRT0) $(B)/libc.a user/user.ld
	@mkdir -p $$(@D)
	@echo "  LD      $$@"
	@$(LD) -T user/user.ld -nostdlib -o $$@ $(CRT0) $$< $(B)/libc.a
endef
$(foreach d,$(LABDIRS),$(eval $(call LAB_RULE,$(d))))

# Hidden tests an instructor adds (make grade GRADE_EXTRA=dir): each dir/*.c
# becomes /bin/extra_NAME; tools/grade.py copies them to build/extra first.
EXTRASRC := $(wildcard $(B)/extra/*.c)
USERBINS += $(EXTRASRC:$(B)/extra/%.c=$(B)/root/bin/extra_%)
$(B)/root/bin/extra_%: $(B)/u/$(B)/extra/%.o $(CRT0) $(B)/libc.a user/user.ld
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(LD) -T user/user.ld -nostdlib -o $@ $(CRT0) $< $(B)/libc.a

ROOTFILES := $(shell find user/root -type f 2>/dev/null)
DISKFILES := $(shell find user/disk -type f 2>/dev/null)

# A small ext2 image in the boot archive, to show that any regular file
# holding an image can be a filesystem's source (fsopen("ext2", fd)).
$(B)/root/etc/sample.ext2: $(DISKFILES)
	@mkdir -p $(@D)
	@rm -f $@
	@$(MKE2FS) -q -t ext2 -b 1024 -L sample -d user/disk $@ 512K

# ---- ext2 fuzzer's base image (ext2 engineer's block)
# /etc/fuzz.ext2: 128 KiB with every kind of block, which /bin/fuzz_ext2
# damages and mounts; tools/e2craft.py makes the same bytes every time.
$(B)/root/etc/fuzz.ext2: tools/e2craft.py
	@mkdir -p $(@D)
	@$(PYTHON) tools/e2craft.py base $@
$(B)/initrd.tar: $(B)/root/etc/fuzz.ext2
# ---- end of the ext2 block

# The boot archive: /bin and the files under user/root, as ustar (the same
# bytes on every machine: tools/mkinitrd.py, not tar, whose options differ).
$(B)/initrd.tar: $(USERBINS) $(ROOTFILES) $(B)/root/etc/sample.ext2 tools/mkinitrd.py
	@mkdir -p $(B)/root
	@if [ -d user/root ]; then cp -R user/root/. $(B)/root/; fi
	@echo "  INITRD  $@"
	@$(PYTHON) tools/mkinitrd.py $(B)/root $@

# ---------------------------------------------------------------- images
$(B)/orthos.iso: $(B)/orthos.elf $(B)/initrd.tar boot/grub.cfg
	@mkdir -p $(B)/iso/boot/grub
	cp boot/grub.cfg $(B)/iso/boot/grub/grub.cfg
	cp $(B)/orthos.elf $(B)/iso/boot/orthos.elf
	cp $(B)/initrd.tar $(B)/iso/boot/initrd.tar
	grub-mkrescue -o $@ $(B)/iso 2> $(B)/grub-mkrescue.log || \
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
QEMUFLAGS := -m 128M -no-reboot -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-drive file=$(B)/disk.img,format=raw,if=ide,index=1

.PHONY: all iso qemu qemu-nox qemu-gdb gdb test bench grade handout clean help reset-disk \
	handin autograder course grade-batch
all: $(B)/orthos.elf $(B)/initrd.tar

iso: $(B)/orthos.iso

# A window when there is a display, otherwise the serial console right here.
qemu: $(B)/orthos.iso $(B)/disk.img
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
		$(QEMU) $(QEMUFLAGS) -cdrom $(B)/orthos.iso -serial mon:stdio; \
	else \
		echo "(no display: serial console here; quit with Ctrl-a x)"; \
		$(QEMU) $(QEMUFLAGS) -cdrom $(B)/orthos.iso -display none -serial mon:stdio; \
	fi

qemu-nox: $(B)/orthos.iso $(B)/disk.img
	@echo "(serial console; quit with Ctrl-a x)"
	$(QEMU) $(QEMUFLAGS) -cdrom $(B)/orthos.iso -display none -serial mon:stdio

qemu-gdb: $(B)/orthos.iso $(B)/disk.img
	@echo "(waiting for gdb: run 'make gdb' in this folder in another terminal)"
	$(QEMU) $(QEMUFLAGS) -cdrom $(B)/orthos.iso -display none -serial mon:stdio -s -S

gdb:
	gdb -q -x .gdbinit

test: all $(B)/orthos.iso $(HOSTTESTS:%=$(B)/hosttest/%)
	$(PYTHON) tools/test.py

# ---------------------------------------------------------------- grading
# The grading engineer's targets (tools/grade.py, handout.py, course.py,
# batch.py, handin.py, tools/autograder/); doc/instructors.md explains them.
# make grade [LAB=NN] [TEST=name...] [JSON=results.json] [GRADE_EXTRA=dir]
#            [SUBMISSION=path]   (a pristine tree; otherwise this tree as it is)
grade:
	@$(PYTHON) tools/grade.py $(LAB) $(if $(SUBMISSION),--submission $(SUBMISSION)) \
		$(if $(JSON),--json $(JSON)) $(foreach t,$(TEST),--test $(t)) \
		$(if $(GRADE_EXTRA),--extra $(GRADE_EXTRA))

# make handout LAB=NN: lab NN and later labs stubbed, in build/handout-NN
handout:
	@test -n "$(LAB)" || { echo "usage: make handout LAB=NN"; exit 2; }
	$(PYTHON) tools/handout.py $(LAB)

# make handin LAB=NN: the lab's files and answers.md in build/handin-NN.tar.gz
handin:
	@test -n "$(LAB)" || { echo "usage: make handin LAB=NN"; exit 2; }
	@$(PYTHON) tools/handin.py $(LAB)

# make autograder LAB=NN [GRADE_EXTRA=dir]: build/autograder-NN.zip (Gradescope)
autograder:
	@test -n "$(LAB)" || { echo "usage: make autograder LAB=NN [GRADE_EXTRA=dir]"; exit 2; }
	@$(PYTHON) tools/autograder/package.py $(LAB) $(if $(GRADE_EXTRA),--extra $(GRADE_EXTRA)) \
		$(if $(AUTOGRADER_ZIP),--out $(AUTOGRADER_ZIP))

# make course [COURSE=dir]: the course repository, a branch per lab (build/course)
course:
	@$(PYTHON) tools/course.py $(COURSE)

# make grade-batch LAB=NN SUBMISSIONS=dir [GRADE_EXTRA=dir] [OUT=dir]
grade-batch:
	@test -n "$(LAB)" -a -n "$(SUBMISSIONS)" || \
		{ echo "usage: make grade-batch LAB=NN SUBMISSIONS=dir"; exit 2; }
	@$(PYTHON) tools/batch.py $(LAB) $(SUBMISSIONS) $(if $(OUT),--out $(OUT)) \
		$(if $(GRADE_EXTRA),--extra $(GRADE_EXTRA))
# ---------------------------------------------------------------- end of grading

# ---------------------------------------------------------------- mutants
# (the labs engineer's block) make mutants [LAB=NN]: every lab's course tree
# passes its tests and every wrong solution in lab/NN-*/mutants/ loses points.
.PHONY: mutants
mutants: all
	$(PYTHON) tools/mutants.py $(LAB)

bench: all $(B)/orthos.iso
	$(PYTHON) tools/bench.py

help:
	@echo "make            kernel ELF and boot archive under build/"
	@echo "make iso        build/orthos.iso (GRUB)"
	@echo "make qemu       build and boot the ISO (window, or serial if no display)"
	@echo "make qemu-nox   boot the ISO with the serial console in this terminal"
	@echo "make qemu-gdb   like qemu-nox, stopped for gdb on :1234 (see .gdbinit)"
	@echo "make gdb        gdb with symbols, attached to make qemu-gdb, stopped in kmain"
	@echo "make test       host unit tests + QEMU boot tests; ends 'N passed, M failed'"
	@echo "make grade      grade this tree (LAB=NN, TEST=name, JSON=file, SUBMISSION=path)"
	@echo "make handout LAB=NN  the tree for lab NN (it and later labs stubbed)"
	@echo "make handin LAB=NN   pack your lab files and answers.md to hand in"
	@echo "make autograder LAB=NN  the Gradescope package build/autograder-NN.zip"
	@echo "make course     the course repository (a branch per lab) in build/course"
	@echo "make grade-batch LAB=NN SUBMISSIONS=dir  grade a folder of submissions (CSV)"
	@echo "make bench      boot timings and guest microbenchmarks (numbers, not tests)"
	@echo "make reset-disk a fresh data disk (build/disk.img, ext2, /mnt in the guest)"
	@echo "make clean      remove build/"

clean:
	rm -rf $(B)

# make print-VAR: a variable's value, as this Makefile chose it (print-CC).
print-%:
	@echo '$($*)'

# Keep objects make would otherwise delete as intermediates (crt0.o, ...),
# and never keep a half-made target after a failed command.
.SECONDARY:
.DELETE_ON_ERROR:

-include $(shell find $(B) -name '*.d' 2>/dev/null)
