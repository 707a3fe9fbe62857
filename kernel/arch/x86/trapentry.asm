; trapentry.asm - one tiny stub per vector pushes (error code, vector) so
; that every trap reaches trap_common with the same frame layout
; (struct trapframe in cpu.h), then trap() in trap.c decides what to do.

extern trap
global trapret
global trap_vectors

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

section .rodata
align 4
trap_vectors:
%assign i 0
%rep 256
    dd vec %+ i
%assign i i+1
%endrep
