/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * void *sp_call_outermost(void *(*fn)(void *), void *arg): calls
 * fn(arg) as a thread's outermost frame, with the frame pointer zero, as
 * the kernel's clone leaves it for libc's start_thread.
 *
 * Why: threads.c's wrapper runs every thread's start routine, and a
 * caller chain walked up from it (docs/callers.md) would otherwise meet
 * the wrapper's return address, in code the session does not know, with
 * the wrapper's own frame beyond it: counted as truncated, although
 * nothing of the program lies beyond.  With the frame pointer zero, the
 * start routine's frame record says it is the outermost, and its chain is
 * complete.  The CFI keeps the frame unwindable for pthread_exit() and
 * cancellation.
 */
#ifdef __x86_64__

#ifdef __CET__
#include <cet.h>
#endif

	.text
	.globl	sp_call_outermost
	.hidden	sp_call_outermost
	.type	sp_call_outermost, @function
sp_call_outermost:
	.cfi_startproc
#ifdef __CET__
	endbr64
#endif
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	xorl	%ebp, %ebp
	movq	%rdi, %rax
	movq	%rsi, %rdi
	call	*%rax
	popq	%rbp
	.cfi_def_cfa_offset 8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	sp_call_outermost, .-sp_call_outermost

#endif /* __x86_64__ */

	.section .note.GNU-stack, "", @progbits
