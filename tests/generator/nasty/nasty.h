/* nasty.h - a deliberately awkward header for the generator (tests/generator/test_nasty.py).
 *
 * Every declaration is one of the hard cases a wrapper generator meets in real
 * headers; the comment above it says which, and test_nasty.py asserts what
 * `dyliberator --list` says about it.  The library is tests/generator/nasty/nasty.c (plus
 * nasty_sib.c, a sibling library), exercised by tests/generator/nasty/app.c. */
#ifndef NASTY_H
#define NASTY_H

#include <stdarg.h>
#include <stddef.h>

/* --- plain functions and aliases ------------------------------------------------ */
int nasty_add(int a, int b);
int nasty_plus(int a, int b);		/* alias of nasty_add in the library: same address */
int nasty_inc(int x);
/* declared twice: the names come from the second declaration */
int nasty_redecl(int, int);
int nasty_redecl(int first, int second);
/* K&R "()" first, a prototype later: the prototype wins */
int nasty_late_proto();
int nasty_late_proto(int x);

/* --- variadic ------------------------------------------------------------------- */
int nasty_log(char *out, size_t n, const char *fmt, ...);	/* forwarded through nasty_vlog */
int nasty_vlog(char *out, size_t n, const char *fmt, va_list ap);
int nasty_err_data(int n, ...);			/* 'v' inside the name: nasty_err_vdata */
int nasty_err_vdata(int n, va_list ap);
int nasty_sum(int n, ...);			/* no va_list twin: left unwrapped */
int nasty_print(int level, const char *fmt, ...);	/* twin with other parameters */
int nasty_vprint(const char *fmt, va_list ap);

/* --- function pointers and callbacks -------------------------------------------- */
typedef int (*nasty_cb)(int value, void *ctx);
int nasty_apply(int (*fn)(int), int x);
int nasty_foreach(const int *v, int n, nasty_cb cb, void *ctx);
int (*nasty_get_op(int which))(int, int);	/* returns a function pointer */
nasty_cb nasty_get_cb(void);
int nasty_call_with(int (*outer)(int (*inner)(int), int), int x);	/* a callback taking a callback */
int nasty_fn_param(int g(int), int x);		/* a parameter of function type */

/* --- structs and unions by value ------------------------------------------------ */
struct nasty_pt { int x, y; };
struct nasty_pt nasty_pt_add(struct nasty_pt a, struct nasty_pt b);
struct nasty_big { double v[8]; char tag[5]; };
struct nasty_big nasty_big_scale(struct nasty_big b, double k);
union nasty_u { int i; float f; unsigned char bytes[4]; };
union nasty_u nasty_u_flip(union nasty_u u);
struct nasty_flags { unsigned a : 3; unsigned b : 5; int c : 4; unsigned : 0; unsigned d : 1; };
struct nasty_flags nasty_flags_flip(struct nasty_flags f);	/* bitfields by value */

/* --- anonymous and typedef'd types ---------------------------------------------- */
typedef struct { int lo, hi; } nasty_range_t;
nasty_range_t nasty_range(int a, int b);		/* typedef'd anonymous struct */
struct { int q, r; } nasty_divmod(int a, int b);	/* anonymous struct result */
enum { NASTY_LOW, NASTY_HIGH } nasty_level(int x);	/* anonymous enum result */
typedef const struct nasty_pt *nasty_pt_cref;
int nasty_pt_norm1(nasty_pt_cref p);			/* const pointee behind a typedef */

/* --- arrays --------------------------------------------------------------------- */
int nasty_sum4(const int v[4]);
double nasty_dot3(const double a[static 3], const double b[static 3]);
int nasty_trace3(int m[3][3]);
int nasty_rowsum(int (*p)[4], int rows);		/* pointer to array */
double nasty_vla_sum(int n, int m, const double a[n][m]);	/* variable length array */
double nasty_vla_cube(int n, double a[n][n][n]);	/* variably modified beyond the first level */
size_t nasty_argv_len(int argc, const char *const argv[argc]);	/* VLA of const pointers */

/* --- qualifiers and scalar types ------------------------------------------------ */
void nasty_copy(int *restrict dst, const int *restrict src, size_t n);
int nasty_peek(volatile int *p, volatile int bump);
_Bool nasty_is_even(_Bool invert, int x);
enum nasty_color { NASTY_RED, NASTY_GREEN = 5, NASTY_BLUE = -1 };
enum nasty_color nasty_next_color(enum nasty_color c);
long double nasty_ldmul(long double a, long double b);
double _Complex nasty_cmul(double _Complex a, double _Complex b);
float _Complex nasty_conjf(float _Complex z);
unsigned __int128 nasty_mul128(unsigned long a, unsigned long b);
int nasty_atomic_inc(_Atomic int *p);
const int nasty_const_result(void);			/* qualified result type */

/* --- names ---------------------------------------------------------------------- */
int nasty_unnamed(int, double, int a1);		/* unnamed parameters, and one named a1 */
int nasty_self(int nasty_self);			/* a parameter named like the function */
int nasty_scale(int value, int factor);		/* 'factor' becomes a macro below */
int nasty_clamp(int v, int min, int max);	/* 'min' and 'max' become function-like macros */
int nasty_twice(int x);				/* a function-like macro of the same name follows */
#define factor 1000
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define nasty_twice(x) ((x) + (x))

/* --- noreturn, four ways, and one false alarm ----------------------------------- */
#define NASTY_DEAD __attribute__((__noreturn__))
#define NASTY_C11_DEAD _Noreturn
_Noreturn void nasty_die(int code);
void nasty_abort(const char *why) __attribute__((__noreturn__));
NASTY_DEAD void nasty_fatal(int code);
NASTY_C11_DEAD void nasty_bail(void);
int nasty_set_noreturn_handler(void (*noreturn_handler)(int));	/* returns: must be wrapped */

/* --- K&R, inline, renamed, missing ---------------------------------------------- */
int nasty_knr();				/* defined K&R-style with two ints */
static inline int nasty_inline_sq(int x) { return x * x; }	/* the library exports one too */
#define nasty_open nasty_open_v2		/* the library keeps the old nasty_open too */
int nasty_open(int flags);
int nasty_asm(int x) __asm__("nasty_asm_v2");	/* the library keeps the old nasty_asm too */
int nasty_missing(int x);			/* declared, never defined */
int nasty_sib_mul(int a, int b);		/* lives in the sibling library libnastysib.so */
int nasty_ver(int x);				/* nasty_ver@@NASTY_2, and an old nasty_ver@NASTY_1 */
int nasty_ifunc_mul(int a, int b);		/* an IFUNC in the library */

/* --- data ----------------------------------------------------------------------- */
extern int nasty_counter;
extern const char nasty_version[];
extern __thread int nasty_tls;
extern int (*nasty_hook)(int);

#endif
