/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The entry points gcc -pg calls on x86-64: mcount (and its alias
 * _mcount) after the prologue, __fentry__ (-pg -mfentry) before it.
 *
 * They are called where the compiler assumes no call happens, so every
 * register that can carry an argument into the profiled function (and
 * rax, the vector-register count of a variadic call, and r10, the static
 * chain of a nested function) is saved around the call into C; the C
 * side, sp_mcount(), touches general-purpose registers only (it is built
 * with -mgeneral-regs-only), so xmm0-7 survive untouched.  The stack is
 * 16-byte aligned at that call, as the ABI requires.
 */
#ifdef __x86_64__

#ifdef __CET__
#include <cet.h>	/* marks the object IBT/SHSTK compatible */
#endif

	.text

/* Saves rax rcx rdx rsi rdi r8 r9 r10 at 0..56(%rsp). */
.macro	SAVE_ARGS
	movq	%rax, 0(%rsp)
	movq	%rcx, 8(%rsp)
	movq	%rdx, 16(%rsp)
	movq	%rsi, 24(%rsp)
	movq	%rdi, 32(%rsp)
	movq	%r8, 40(%rsp)
	movq	%r9, 48(%rsp)
	movq	%r10, 56(%rsp)
.endm

.macro	RESTORE_ARGS
	movq	0(%rsp), %rax
	movq	8(%rsp), %rcx
	movq	16(%rsp), %rdx
	movq	24(%rsp), %rsi
	movq	32(%rsp), %rdi
	movq	40(%rsp), %r8
	movq	48(%rsp), %r9
	movq	56(%rsp), %r10
.endm

/*
 * Called after "push %rbp; mov %rsp, %rbp": the return address on our
 * stack points into the callee (selfpc), and the callee's own return
 * address, into its caller, is at 8(%rbp) (frompc).  A frame pointer is
 * therefore required, which -pg implies.  On entry %rsp is 8 mod 16, so
 * 72 bytes (8 saves and a pad) realign it.
 */
	.globl	mcount
	.type	mcount, @function
	.globl	_mcount
	.type	_mcount, @function
	.p2align 4
mcount:
_mcount:
	.cfi_startproc
	endbr64
	subq	$72, %rsp
	.cfi_adjust_cfa_offset 72
	SAVE_ARGS
	movq	72(%rsp), %rsi		/* selfpc */
	movq	8(%rbp), %rdi		/* frompc */
	call	sp_mcount
	RESTORE_ARGS
	addq	$72, %rsp
	.cfi_adjust_cfa_offset -72
	ret
	.cfi_endproc
	.size	mcount, .-mcount
	.size	_mcount, .-_mcount

/*
 * Called as the first instruction of the callee, before its prologue:
 * (%rsp) is the return address into the callee (selfpc) and 8(%rsp) the
 * callee's return address into its caller (frompc); no frame pointer is
 * needed.  On entry %rsp is 0 mod 16, so 64 bytes keep it aligned.
 */
	.globl	__fentry__
	.type	__fentry__, @function
	.p2align 4
__fentry__:
	.cfi_startproc
	endbr64
	subq	$64, %rsp
	.cfi_adjust_cfa_offset 64
	SAVE_ARGS
	movq	64(%rsp), %rsi		/* selfpc */
	movq	72(%rsp), %rdi		/* frompc */
	call	sp_mcount
	RESTORE_ARGS
	addq	$64, %rsp
	.cfi_adjust_cfa_offset -64
	ret
	.cfi_endproc
	.size	__fentry__, .-__fentry__

#endif /* __x86_64__ */

	.section .note.GNU-stack, "", @progbits
