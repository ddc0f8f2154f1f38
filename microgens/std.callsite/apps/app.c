/* app.c - test_std_callsite.py's program: cs_work called from two functions at known
 * lines (the test reads the lines marked CALL_A and CALL_B), 3 and 5 times, once
 * through a chain three deep, and cs_outer and cs_tail once each (which call cs_work
 * inside the library).  noinline: each caller keeps its own frame. */
#include <stdio.h>
#include "cs.h"
#define NOINLINE __attribute__((noinline))
static long total;

NOINLINE void caller_a(void)
{
	total += cs_work(10);	/* CALL_A */
	__asm__ volatile("");	/* (no tail call) */
}

NOINLINE void caller_b(void)
{
	total += cs_work(20);	/* CALL_B */
	__asm__ volatile("");
}

NOINLINE void chain3(void)
{
	total += cs_work(30);	/* CALL_C */
	__asm__ volatile("");
}

NOINLINE void chain2(void)
{
	chain3();
	__asm__ volatile("");
}

NOINLINE void chain1(void)
{
	chain2();
	__asm__ volatile("");
}

NOINLINE void nested(void)
{
	total += cs_outer(40);	/* CALL_D */
	total += cs_tail(50);	/* CALL_E */
	__asm__ volatile("");
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		caller_a();
	for (int i = 0; i < 5; i++)
		caller_b();
	chain1();
	nested();
	printf("%ld\n", total);
	return 0;
}
