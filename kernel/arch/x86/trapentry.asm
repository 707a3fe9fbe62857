; trapentry.asm - one tiny stub per vector pushes (error code, vector) so
; that every trap reaches trap_common with the same frame layout
; (struct trapframe in cpu.h), then trap() in trap.c decides what to do.

; sysenter_entry, after trapret, is the other way in for system calls.

extern trap
extern sysenter_trap
global trapret
global trap_vectors
global sysenter_entry
global sysenter_flags_clean
global sysenter_ret_load
global sysenter_ret_missing

%macro VEC_NOERR 1
vec%1:
    push dword 0
    push dword %1
    jmp trap_common
%endmacro

%macro VEC_ERR 1                ; the CPU already pushed an error code
vec%1:
    push dword %1
    jmp trap_common
%endmacro

section .text
%assign i 0
%rep 256
%if i == 8 || (i >= 10 && i <= 14) || i == 17
    VEC_ERR i
%else
    VEC_NOERR i
%endif
%assign i i+1
%endrep

section .text.hot progbits alloc exec nowrite align=16   ; SWITCH_PATH (x86.h)

; Load segment register %1 from the frame slot at [esp + %2], unless it
; already holds that selector (the way out of sysenter_entry).
%macro RESTORE_SEG 2
    mov ax, %1
    cmp ax, [esp + %2]
    je %%same
    mov %1, [esp + %2]
%%same:
%endmacro

; Nothing in the interrupted state is trusted: the CPU already cleared TF
; and NT (and IF, for an interrupt gate) and switched to the kernel stack;
; AC only matters in ring 3; the direction flag is ours to clear (C code
; and rep movs/stos assume it is clear), and the data segments are
; reloaded. iret gives the interrupted code back all of its own state.
trap_common:
    cld
    push ds
    push es
    push fs
    push gs
    pusha
    mov ax, 0x10                ; SEL_KDATA
    mov ds, ax
    mov es, ax
    mov fs, ax
    mov gs, ax
    push esp                    ; struct trapframe *
    call trap
    add esp, 4
trapret:
    popa
    pop gs
    pop fs
    pop es
    pop ds
    add esp, 8                  ; vector and error code
    iret

; sysenter: a system call without an interrupt (uapi/syscall.h has the
; ABI, doc/decisions.md why). The CPU only loads cs, ss (the kernel's),
; esp (this process's kernel stack top: MSR 0x175) and eip (here) and
; clears IF and VM; it saves nothing. So this builds by hand the frame
; int $0x80 would have built, at the same place, and everything after it
; (syscall_dispatch, fork, exec, the scheduler) cannot tell the two
; apart, except by err = SYSENTER_FRAME. The user's esp comes in ebp, its
; return address on top of that stack; sysenter_trap checks the rest and
; makes the call.
;
; Under QEMU every interrupt, iret, popf, sti and load of ds or es is
; slow, and this path counts them: eflags are cleaned only if they need
; it; ds and es get the user data segment, which is as flat as the
; kernel's (privilege is checked only when a selector is loaded), so the
; way out need not load them again. They are loaded even so: the user's
; may come from virtual-8086 mode (see trap()), whose ds is not flat.
; If the user set TF, the CPU single-steps us until the popf clears it:
; trap() lets those debug traps pass (up to sysenter_flags_clean).
TF_NT_AC_DF equ 0x44500

sysenter_entry:
    push dword 0x23             ; ss: SEL_UDATA
    push ebp                    ; esp, as the ABI passes it
    pushf                       ; eflags as the user left them (IF off: sysenter cleared it)
    test dword [esp], TF_NT_AC_DF
    jz sysenter_flags_clean
    push dword 0x2              ; none of TF, NT, AC, DF, IF from here on
    popf
sysenter_flags_clean:
    push dword 0x1B             ; cs: SEL_UCODE
    push dword 0                ; eip: sysenter_trap fills it in
    push dword 0x5e             ; err: SYSENTER_FRAME
    push dword 0x80             ; trapno: T_SYSCALL
    push ds
    push es
    push fs
    push gs
    pusha
    mov ax, 0x23                ; SEL_UDATA
    mov ds, ax
    mov es, ax
    ; The return address, from the top of the user's stack: the one place
    ; the kernel reads user memory without copyin (which costs more than
    ; all the rest of this path). An address at or above USER_TOP - 4 is
    ; not read; if the page is absent (or not yet made: a lazy page), the
    ; fault is sent on to sysenter_ret_missing (trap()), eip stays 0, and
    ; sysenter_trap tries copyin, which kills the process if it fails too.
    cmp ebp, 0xBFFFFFFC         ; USER_TOP - 4 (asserted in trap.c)
    ja sysenter_ret_missing
sysenter_ret_load:
    mov eax, [ebp]
    mov [esp + 56], eax         ; the frame's eip
sysenter_ret_missing:
    sti
    push esp                    ; struct trapframe *
    call sysenter_trap
    add esp, 4
    test eax, eax               ; may the frame go back by sysexit?
    jz trapret                  ; no: iret restores everything it says
    RESTORE_SEG ds, 44          ; each that another process's trap changed
    RESTORE_SEG es, 40
    RESTORE_SEG fs, 36
    RESTORE_SEG gs, 32
    popa
    mov edx, [esp + 24]         ; eip: sysexit jumps to edx...
    mov ecx, [esp + 36]         ; ...with esp = ecx
    add esp, 44                 ; the frame: the kernel stack is empty again
    sti                         ; (on already; its one-instruction delay covers sysexit)
    sysexit                     ; cs, ss: SEL_UCODE, SEL_UDATA

section .rodata
align 4
trap_vectors:
%assign i 0
%rep 256
    dd vec %+ i
%assign i i+1
%endrep
