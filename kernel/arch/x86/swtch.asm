; swtch.asm - switch kernel stacks: save the callee-saved registers of the
; current thread as a struct context on its stack, store that stack pointer
; in *old, load `new` and pop its registers. Returns into the new thread.
;   void swtch(struct context **old, struct context *new);
global swtch
section .text.hot progbits alloc exec nowrite align=16   ; SWITCH_PATH (x86.h)
swtch:
    mov eax, [esp + 4]
    mov edx, [esp + 8]
    push ebp
    push ebx
    push esi
    push edi
    mov [eax], esp
    mov esp, edx
    pop edi
    pop esi
    pop ebx
    pop ebp
    ret
