/* app.c - calls every callable function of nasty.h and prints what came back.
 * test_nasty.py runs it plain and under the wrapper: the outputs must be identical,
 * and the trace must hold exactly the calls listed in test_nasty.py's EXPECTED_CALLS.
 * Build: cc -O2 -std=gnu11 -I. -o app app.c -L. -lnasty -lnastysib -Wl,-rpath,. */
#include <stdio.h>
#include <string.h>
#include "nasty.h"

static int triple(int x) { return 3 * x; }
static int outer_apply(int (*inner)(int), int x) { return inner(x) + 1; }
static void on_noreturn(int code) { (void)code; }

/* plain and variadic functions */
static void plain_calls(void)
{
	char buf[64];

	/* plain functions and aliases */
	printf("add %d plus %d\n", nasty_add(2, 3), nasty_plus(4, 5));
	printf("inc %d redecl %d late_proto %d\n", nasty_inc(9), nasty_redecl(10, 4), nasty_late_proto(1));

	/* variadic */
	int k = nasty_log(buf, sizeof(buf), "%s=%d %.2f", "pi", 3, 3.14159);
	printf("log %d [%s]\n", k, buf);
	printf("err_data %d\n", nasty_err_data(3, 1, 2, 3));
	printf("sum %d\n", nasty_sum(4, 1, 2, 3, 4));
	nasty_print(2, "%s %d\n", "print", 7);
	fflush(stdout);
}

/* function pointers and callbacks */
static void pointer_calls(const int *v)
{
	printf("apply %d %d\n", nasty_apply(triple, 5), nasty_apply(nasty_inc, 5));
	int ctx = 100;
	printf("foreach %d\n", nasty_foreach(v, 4, nasty_get_cb(), &ctx));
	printf("get_op %d %d\n", nasty_get_op(0)(7, 2), nasty_get_op(1)(7, 2));
	printf("call_with %d fn_param %d\n", nasty_call_with(outer_apply, 20), nasty_fn_param(triple, 4));
}

/* structs, unions and anonymous types, by value */
static void struct_calls(void)
{
	/* structs and unions by value */
	struct nasty_pt p = nasty_pt_add((struct nasty_pt){ 1, 2 }, (struct nasty_pt){ 10, 20 });
	printf("pt %d %d\n", p.x, p.y);
	struct nasty_big big = { { 1, 2, 3, 4, 5, 6, 7, 8 }, "abcd" };
	big = nasty_big_scale(big, 0.5);
	printf("big %g %g %s\n", big.v[0], big.v[7], big.tag);
	union nasty_u u = { .i = 0x01020304 };
	printf("u %08x\n", (unsigned)nasty_u_flip(u).i);
	struct nasty_flags fl = { .a = 1, .b = 2, .c = -3, .d = 1 };
	fl = nasty_flags_flip(fl);
	printf("flags %u %u %d %u\n", fl.a, fl.b, fl.c, fl.d);

	/* anonymous and typedef'd types */
	nasty_range_t r = nasty_range(9, -2);
	__typeof__(nasty_divmod(0, 1)) dm = nasty_divmod(17, 5);
	printf("range %d %d divmod %d %d level %d %d\n", r.lo, r.hi, dm.q, dm.r,
	       (int)nasty_level(3), (int)nasty_level(30));
	printf("norm1 %d\n", nasty_pt_norm1(&(struct nasty_pt){ -3, 4 }));
}

/* arrays */
static void array_calls(const int *v)
{
	double a3[3] = { 1, 2, 3 }, b3[3] = { 4, 5, 6 };
	int m3[3][3] = { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } };
	int rows[2][4] = { { 1, 1, 1, 1 }, { 2, 2, 2, 2 } };
	double vla[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
	double cube[2][2][2] = { { { 1, 0 }, { 0, 0 } }, { { 0, 0 }, { 0, 8 } } };
	printf("sum4 %d dot3 %g trace3 %d rowsum %d\n", nasty_sum4(v), nasty_dot3(a3, b3),
	       nasty_trace3(m3), nasty_rowsum(rows, 2));
	const char *words[3] = { "nasty", "little", "header" };
	printf("vla_sum %g vla_cube %g argv_len %zu\n", nasty_vla_sum(2, 3, vla), nasty_vla_cube(2, cube),
	       nasty_argv_len(3, words));
}

/* qualifiers and scalar types */
static void scalar_calls(const int *v)
{
	int dst[4];
	nasty_copy(dst, v, 4);
	volatile int vol = 5;
	printf("copy %d %d %d %d peek %d\n", dst[0], dst[1], dst[2], dst[3], nasty_peek(&vol, 3));
	printf("is_even %d %d color %d %d\n", nasty_is_even(0, 4), nasty_is_even(1, 4),
	       (int)nasty_next_color(NASTY_GREEN), (int)nasty_next_color(NASTY_BLUE));
	printf("ldmul %.3Lf\n", nasty_ldmul(1.5L, 2.25L));
	double _Complex c = nasty_cmul(1.0 + 2.0 * 1.0i, 3.0 - 1.0 * 1.0i);
	float _Complex cf = nasty_conjf(1.5f + 2.5f * 1.0if);
	printf("cmul %g%+gi conjf %g%+gi\n", __real__ c, __imag__ c, (double)__real__ cf, (double)__imag__ cf);
	unsigned __int128 big128 = nasty_mul128(0xffffffffffffffffUL, 3);
	printf("mul128 %lx %016lx\n", (unsigned long)(big128 >> 64), (unsigned long)big128);
	_Atomic int at = 10;
	printf("atomic_inc %d const_result %d\n", nasty_atomic_inc(&at), nasty_const_result());
}

/* names, linkage and data */
static void name_calls(void)
{
	/* names */
	printf("unnamed %d self %d scale %d clamp %d %d\n", nasty_unnamed(1, 2.0, 3), nasty_self(7),
	       nasty_scale(3, 4), nasty_clamp(50, 0, 10), nasty_clamp(-5, 0, 10));
	printf("twice %d %d\n", nasty_twice(21), (nasty_twice)(4));	/* the macro, then the function */

	/* K&R, inline, renamed, versioned, IFUNC, the sibling library */
	printf("knr %d inline_sq %d open %d asm %d ver %d\n", nasty_knr(4, 2), nasty_inline_sq(5),
	       nasty_open(1), nasty_asm(1), nasty_ver(1));
	printf("ifunc_mul %d %d sib_mul %d\n", nasty_ifunc_mul(6, 7), nasty_ifunc_mul(-3, 5), nasty_sib_mul(6, 9));
	printf("noreturn handler %d %d\n", nasty_set_noreturn_handler(on_noreturn),
	       nasty_set_noreturn_handler(on_noreturn));

	/* data */
	printf("counter %d version %s tls %d hook %d\n", nasty_counter, nasty_version, nasty_tls, nasty_hook(1));
}

int main(void)
{
	int v[4] = { 1, 2, 3, 4 };

	plain_calls();
	pointer_calls(v);
	struct_calls();
	array_calls(v);
	scalar_calls(v);
	name_calls();

	/* the end: a noreturn function exits with status 3 */
	nasty_die(3);
}
