/* sources: runtime/handles.c */
/* handles_test.c - runtime/handles.c: buffers bound to a handle (dyl_bind) are what a
 * call that uses it gets (dyl_uses_add): all of them, or one by name at another address;
 * a second binding of a name replaces the first; the bound work comes along; dyl_unbind
 * drops them, and a handle bound after it at the same address starts empty; a full table
 * or a full handle says so and binds nothing; a dyl_use after the postfix counted the
 * buffers is refused.  The runtime's state, warning and note are stand-ins here. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "dyl_handles.h"
#include "internal.h"

struct dyl_out dyl_out;
TLS int dyl_busy;

static int warnings;
static char noted[256];

void dyl_warn_once(const char *key, const char *fmt, ...)
{
	(void)key;
	(void)fmt;
	warnings++;
}

void dyl_note(const char *key, const char *value)
{
	snprintf(noted, sizeof(noted), "%s=%s", key, value);
}

static void fresh(struct dyl_uses *u)
{
	memset(u, 0, sizeof(*u));
	u->work = DYL_NONE;
}

int main(void)
{
	static char plan[24], in[4096], out[4096], other[4096];
	struct dyl_uses u;

	/* nothing bound: nothing used */
	fresh(&u);
	CHECK(dyl_uses_add(&u, plan, NULL, NULL) == 0 && u.n == 0 && u.work == DYL_NONE);

	CHECK(dyl_bind(plan, "in", in, sizeof(in), DYL_READ) == 0);
	CHECK(dyl_bind(plan, "out", out, 100, DYL_WRITE) == 0);
	CHECK(dyl_bind(plan, "out", out, sizeof(out), DYL_WRITE) == 0);	/* replaces */
	CHECK(dyl_bind_work(plan, 1120256) == 0);
	fresh(&u);
	CHECK(dyl_uses_add(&u, plan, NULL, NULL) == 2 && u.n == 2);
	CHECK(u.b[0].p == in && u.b[0].bytes == sizeof(in) && u.b[0].dir == DYL_READ);
	CHECK(u.b[1].p == out && u.b[1].bytes == sizeof(out) && u.b[1].dir == DYL_WRITE);
	CHECK(u.work == 1120256);

	/* one buffer by name, at another address (a new-array execute) */
	fresh(&u);
	CHECK(dyl_uses_add(&u, plan, "out", other) == 1 && u.n == 1);
	CHECK(u.b[0].p == other && u.b[0].bytes == sizeof(out) && u.b[0].dir == DYL_WRITE);
	CHECK(dyl_uses_add(&u, plan, "nothing", other) == 0 && u.n == 1);

	/* too late: the postfix has counted them */
	u.applied = 1;
	CHECK(dyl_uses_add(&u, plan, NULL, NULL) == 0 && warnings == 1);

	/* unbound: nothing; the same address bound again starts empty */
	dyl_unbind(plan);
	fresh(&u);
	CHECK(dyl_uses_add(&u, plan, NULL, NULL) == 0 && u.work == DYL_NONE);
	CHECK(dyl_bind(plan, "x", in, 8, DYL_READ | DYL_WRITE) == 0);
	fresh(&u);
	CHECK(dyl_uses_add(&u, plan, NULL, NULL) == 1 && u.b[0].bytes == 8 &&
	      u.b[0].dir == (DYL_READ | DYL_WRITE) && u.work == DYL_NONE);
	dyl_unbind(plan);

	/* 8 buffers a handle; a 9th is refused and warned of */
	static const char *names[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i" };
	for (int i = 0; i < 8; i++)
		CHECK(dyl_bind(plan, names[i], in + i, 1, DYL_READ) == 0);
	CHECK(dyl_bind(plan, names[8], in, 1, DYL_READ) == -1 && warnings == 2);
	dyl_unbind(plan);

	/* 1024 handles at once (tombstones of the ones above reused); the next is refused */
	static char many[1025];
	int ok = 0;
	for (int i = 0; i < 1025; i++)
		ok += dyl_bind(many + i, "in", in, 1, DYL_READ) == 0;
	CHECK(ok == 1024 && warnings == 3);
	int found = 0;
	for (int i = 0; i < 1024; i++) {
		fresh(&u);
		found += dyl_uses_add(&u, many + i, NULL, NULL) == 1;
	}
	CHECK(found == 1024);
	for (int i = 0; i < 1025; i++)
		dyl_unbind(many + i);
	fresh(&u);
	CHECK(dyl_bind(plan, "in", in, 1, DYL_READ) == 0 && dyl_uses_add(&u, plan, NULL, NULL) == 1);

	/* all unbound: none is found */
	CHECK(dyl_uses_add(&u, many, NULL, NULL) == 0);

	/* a null handle binds nothing */
	CHECK(dyl_bind(NULL, "in", in, 1, DYL_READ) == -1);

	/* a call of a small struct only: a note while the header is to be written */
	static const struct dyl_func fn = { "fftw_execute", 1, 0 };
	struct dyl_call c = { .func = &fn, .in_bytes = 0, .out_bytes = 24 };
	dyl_handle_only(&c, "p");
	CHECK_STR(noted, "handle_only=fftw_execute p 24");
	return CHECK_DONE();
}
