; boot/entry.asm - the first instructions Orthos runs.
; GRUB and QEMU -kernel both read the multiboot v1 header below, load the ELF
; at its physical addresses and jump to _start with paging off. We switch on
; a throw-away page directory that maps the first 16 MiB both at 0 and at
; KERNBASE, jump to the high-half kmain(), and never come back here.

MB_MAGIC    equ 0x1BADB002
MB_FLAGS    equ 0x00000003          ; align modules to pages, give a memory map
KERNBASE    equ 0xC0000000
PDE_BIG     equ 0x83                ; present | writable | 4 MiB page
STACK_SIZE  equ 16384
EFLAGS_ID   equ 0x200000
CPU_NEEDS   equ (1 << 3) | (1 << 15) | (1 << 24)   ; CPUID.1:EDX: PSE, CMOV, FXSR
COM1        equ 0x3F8

section .multiboot
align 4
    dd MB_MAGIC
    dd MB_FLAGS
    dd -(MB_MAGIC + MB_FLAGS)

; The entry code runs with paging off, so it lives in .boot, linked at its
; physical address (see linker.ld): GRUB and QEMU agree on where it is.
section .boot
global _start
extern kmain
_start:
    ; First, can this CPU run Orthos at all? The compiler writes i686 code
    ; (cmov), the FPU is saved by fxsave, and the boot page directory uses
    ; 4 MiB pages (PSE): an older CPU would fault on one of them before any
    ; message could be printed. eax and ebx (multiboot's) are kept; the
    ; loader gives no stack, so the boot stack is used at its physical address.
    mov esp, boot_stack_top - KERNBASE
    mov esi, eax
    mov edi, ebx
    pushfd                          ; CPUID exists if EFLAGS.ID can be flipped
    pop ecx
    mov edx, ecx
    xor ecx, EFLAGS_ID
    push ecx
    popfd
    pushfd
    pop ecx
    cmp ecx, edx
    je old_cpu
    mov eax, 1
    cpuid
    and edx, CPU_NEEDS
    cmp edx, CPU_NEEDS
    jne old_cpu
    mov eax, esi
    mov ebx, edi

    mov ecx, cr4
    or ecx, 0x10                    ; CR4.PSE: allow 4 MiB pages
    mov cr4, ecx
    mov ecx, (boot_pgdir - KERNBASE)
    mov cr3, ecx
    mov ecx, cr0
    or ecx, 0x80010000              ; CR0.PG | CR0.WP
    mov cr0, ecx
    lea ecx, [high]                 ; absolute (high) address
    jmp ecx

; Too old a CPU: say so on the serial line and the screen, and stop.
old_cpu:
    mov esi, old_cpu_msg
    mov edi, 0xB8000                ; the VGA text screen, top left
.next:
    mov al, [esi]
    test al, al
    jz .stop
    mov [edi], al
    mov byte [edi + 1], 0x4F        ; white on red
    add edi, 2
    mov bl, al
    mov dx, COM1 + 5                ; line status: wait until it can send
.wait:
    in al, dx
    test al, 0x20
    jz .wait
    mov al, bl
    mov dx, COM1
    out dx, al
    inc esi
    jmp .next
.stop:
    cli
    hlt
    jmp .stop

old_cpu_msg:
    db "Orthos needs a Pentium II or later (CPUID with PSE, CMOV and FXSR): halted", 13, 10, 0

section .text
high:
    mov esp, boot_stack_top
    xor ebp, ebp                    ; ends the backtrace chain
    push ebx                        ; multiboot info (physical)
    push eax                        ; multiboot magic
    call kmain
.hang:
    cli
    hlt
    jmp .hang

section .data
align 4096
global boot_pgdir
boot_pgdir:
    dd 0x00000000 + PDE_BIG
    dd 0x00400000 + PDE_BIG
    dd 0x00800000 + PDE_BIG
    dd 0x00C00000 + PDE_BIG
    times (KERNBASE >> 22) - 4 dd 0
    dd 0x00000000 + PDE_BIG
    dd 0x00400000 + PDE_BIG
    dd 0x00800000 + PDE_BIG
    dd 0x00C00000 + PDE_BIG
    times 1024 - (KERNBASE >> 22) - 4 dd 0

section .bss
align 16
global boot_stack
boot_stack:
    resb STACK_SIZE
boot_stack_top:
