; crt0.asm - where every user program starts. exec leaves esp pointing at
; [argc][argv][envp] (argv and envp are NULL-terminated arrays); _start
; hands them to libc_start (start.c), which sets environ, calls main and
; exits with its value. Linked first, before the program and libc.a.
; First it asks the CPU whether it has sysenter: system calls use it then
; (syscalls.c), and int $0x80 otherwise.

global _start
global __sysenter_ok
extern libc_start

section .text
_start:
    mov eax, 1
    cpuid                   ; CPUID.1:EDX bit 11 (SEP): sysenter/sysexit
    shr edx, 11
    and edx, 1
    mov [__sysenter_ok], edx
    xor ebp, ebp            ; the outermost frame: backtraces stop here
    mov eax, [esp]          ; argc
    mov ecx, [esp + 4]      ; argv
    mov edx, [esp + 8]      ; envp
    and esp, -16            ; the i386 ABI's call alignment
    sub esp, 4
    push edx
    push ecx
    push eax
    call libc_start         ; never returns
    ud2                     ; (if it did: fault rather than run off the end)

section .bss
align 4
__sysenter_ok: resd 1       ; 1: the kernel set sysenter up (it does whenever the CPU has it)

section .note.GNU-stack noalloc noexec nowrite progbits    ; no executable stack
