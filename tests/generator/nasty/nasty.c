/* nasty.c - the library behind nasty.h: every function deterministic.
 * Build (test_nasty.py does it):
 *   cc -O2 -std=gnu11 -fPIC -shared -Wl,-soname,libnasty.so \
 *      -Wl,--version-script=nasty.map -o libnasty.so nasty.c */
#include <complex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nasty.h"

/* plain functions and aliases */
int nasty_add(int a, int b)
{
	return a + b;
}
int nasty_plus(int a, int b) __attribute__((alias("nasty_add")));
int nasty_add_alias(int a, int b) __attribute__((alias("nasty_add")));	/* in no header */

int nasty_inc(int x)
{
	return x + 1;
}

int nasty_redecl(int first, int second)
{
	return first - second;
}

int nasty_late_proto(int x)
{
	return x + 7;
}

int nasty_undeclared(int x)	/* exported, in no header */
{
	return -x;
}

/* variadic */
int nasty_vlog(char *out, size_t n, const char *fmt, va_list ap)
{
	int k = vsnprintf(out, n, fmt, ap);
	return k;
}

int nasty_log(char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(out, n, fmt, ap);
	va_end(ap);
	return k;
}

int nasty_err_vdata(int n, va_list ap)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s = s * 10 + va_arg(ap, int);
	return s;
}

int nasty_err_data(int n, ...)
{
	va_list ap;
	va_start(ap, n);
	int s = 0;
	for (int i = 0; i < n; i++)
		s = s * 10 + va_arg(ap, int);
	va_end(ap);
	return s;
}

int nasty_sum(int n, ...)
{
	va_list ap;
	va_start(ap, n);
	int s = 0;
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

int nasty_vprint(const char *fmt, va_list ap)
{
	return vprintf(fmt, ap);
}

int nasty_print(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = printf("[%d] ", level);
	k += vprintf(fmt, ap);
	va_end(ap);
	return k;
}

/* function pointers and callbacks */
static int op_sub(int a, int b) { return a - b; }
static int op_mul(int a, int b) { return a * b; }
static int cb_square_plus_ctx(int v, void *ctx) { return v * v + *(int *)ctx; }
static int inner_double(int x) { return 2 * x; }

int nasty_apply(int (*fn)(int), int x)
{
	return fn(x);
}

int nasty_foreach(const int *v, int n, nasty_cb cb, void *ctx)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += cb(v[i], ctx);
	return s;
}

int (*nasty_get_op(int which))(int, int)
{
	return which ? op_mul : op_sub;
}

nasty_cb nasty_get_cb(void)
{
	return cb_square_plus_ctx;
}

int nasty_call_with(int (*outer)(int (*inner)(int), int), int x)
{
	return outer(inner_double, x);
}

int nasty_fn_param(int g(int), int x)
{
	return g(x) + 1;
}

/* structs and unions by value */
struct nasty_pt nasty_pt_add(struct nasty_pt a, struct nasty_pt b)
{
	struct nasty_pt r = { a.x + b.x, a.y + b.y };
	return r;
}

struct nasty_big nasty_big_scale(struct nasty_big b, double k)
{
	for (int i = 0; i < 8; i++)
		b.v[i] *= k;
	for (int i = 0; i < 4; i++)
		b.tag[i] = (char)(b.tag[i] - 'a' + 'A');
	return b;
}

union nasty_u nasty_u_flip(union nasty_u u)
{
	union nasty_u r;
	for (int i = 0; i < 4; i++)
		r.bytes[i] = u.bytes[3 - i];
	return r;
}

struct nasty_flags nasty_flags_flip(struct nasty_flags f)
{
	struct nasty_flags r = { 7 - f.a, 31 - f.b, -f.c, !f.d };
	return r;
}

/* anonymous and typedef'd types */
nasty_range_t nasty_range(int a, int b)
{
	nasty_range_t r = { a < b ? a : b, a < b ? b : a };
	return r;
}

__typeof__(nasty_divmod(0, 1)) nasty_divmod(int a, int b)
{
	__typeof__(nasty_divmod(0, 1)) r;
	r.q = a / b;
	r.r = a % b;
	return r;
}

__typeof__(nasty_level(0)) nasty_level(int x)
{
	return x > 10 ? NASTY_HIGH : NASTY_LOW;
}

int nasty_pt_norm1(nasty_pt_cref p)
{
	return abs(p->x) + abs(p->y);
}

/* arrays */
int nasty_sum4(const int v[4])
{
	return v[0] + v[1] + v[2] + v[3];
}

double nasty_dot3(const double a[static 3], const double b[static 3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

int nasty_trace3(int m[3][3])
{
	return m[0][0] + m[1][1] + m[2][2];
}

int nasty_rowsum(int (*p)[4], int rows)
{
	int s = 0;
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < 4; c++)
			s += p[r][c] * (r + 1);
	return s;
}

double nasty_vla_sum(int n, int m, const double a[n][m])
{
	double s = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < m; j++)
			s += a[i][j] * (i + 1);
	return s;
}

double nasty_vla_cube(int n, double a[n][n][n])
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += a[i][i][i];
	return s;
}

size_t nasty_argv_len(int argc, const char *const argv[argc])
{
	size_t n = 0;
	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]);
	return n;
}

/* qualifiers and scalar types */
void nasty_copy(int *restrict dst, const int *restrict src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = src[n - 1 - i];
}

int nasty_peek(volatile int *p, volatile int bump)
{
	*p += bump;
	return *p;
}

_Bool nasty_is_even(_Bool invert, int x)
{
	return (x % 2 == 0) != invert;
}

enum nasty_color nasty_next_color(enum nasty_color c)
{
	return c == NASTY_RED ? NASTY_GREEN : c == NASTY_GREEN ? NASTY_BLUE : NASTY_RED;
}

long double nasty_ldmul(long double a, long double b)
{
	return a * b;
}

double _Complex nasty_cmul(double _Complex a, double _Complex b)
{
	return a * b;
}

float _Complex nasty_conjf(float _Complex z)
{
	return conjf(z);
}

unsigned __int128 nasty_mul128(unsigned long a, unsigned long b)
{
	return (unsigned __int128)a * b;
}

int nasty_atomic_inc(_Atomic int *p)
{
	return atomic_fetch_add(p, 1) + 1;
}

const int nasty_const_result(void)
{
	return 42;
}

/* names */
int nasty_unnamed(int a, double b, int c)
{
	return a + (int)b * 10 + c * 100;
}

int nasty_self(int nasty_self)
{
	return nasty_self * 3;
}

int nasty_scale(int value, int k)	/* 'factor' is a macro by now */
{
	return value * k;
}

int nasty_clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int (nasty_twice)(int x)
{
	return 2 * x;
}

/* noreturn */
static void (*noreturn_handler_now)(int);

_Noreturn void nasty_die(int code)
{
	fflush(stdout);
	exit(code);
}

void nasty_abort(const char *why)
{
	fprintf(stderr, "nasty_abort: %s\n", why);
	abort();
}

void nasty_fatal(int code)
{
	exit(code);
}

void nasty_bail(void)
{
	exit(9);
}

int nasty_set_noreturn_handler(void (*noreturn_handler)(int))
{
	int had = noreturn_handler_now != NULL;
	noreturn_handler_now = noreturn_handler;
	return had;
}

/* K&R, inline, renamed, versioned, IFUNC */
int nasty_knr(a, b)
	int a;
	int b;
{
	return a * 10 + b;
}

int nasty_inline_sq_export(int x) __asm__("nasty_inline_sq");
int nasty_inline_sq_export(int x)	/* the header's static inline shadows it */
{
	return x * x + 1;
}

int nasty_open(int flags)	/* nasty_open_v2, through the header's macro */
{
	return flags + 100;
}
#undef nasty_open
int nasty_open(int flags)	/* the old ABI */
{
	return flags;
}

int nasty_asm(int x)		/* nasty_asm_v2, through the header's __asm__ label */
{
	return x + 2;
}
int nasty_asm_old(int x) __asm__("nasty_asm");
int nasty_asm_old(int x)
{
	return x + 1;
}

int nasty_ver_1(int x) { return x + 1; }
int nasty_ver_2(int x) { return x + 2; }
__asm__(".symver nasty_ver_1, nasty_ver@NASTY_1");
__asm__(".symver nasty_ver_2, nasty_ver@@NASTY_2");

static int mul_plain(int a, int b) { return a * b; }
static int mul_loop(int a, int b)
{
	int s = 0;
	for (int i = 0; i < (b < 0 ? -b : b); i++)
		s += a;
	return b < 0 ? -s : s;
}
static int (*nasty_ifunc_resolver(void))(int, int)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse2") ? mul_plain : mul_loop;
}
int nasty_ifunc_mul(int a, int b) __attribute__((ifunc("nasty_ifunc_resolver")));

/* data */
int nasty_counter = 41;
const char nasty_version[] = "nasty 1.0";
__thread int nasty_tls = 7;
int (*nasty_hook)(int) = nasty_inc;	/* relocated to whichever nasty_inc comes first */
