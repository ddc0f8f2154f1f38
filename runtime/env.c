/* env.c - every DYL_* variable the runtime reads, in one table, read once at start-up.
 *
 * A variable is copied when the image starts (the program may change its environment
 * later; what it ran with counts).  A DYL_* name not in the table, or a value not among
 * a variable's allowed values, gets one line on stderr and is otherwise ignored: a typo
 * must not go unnoticed, and the program must never stop for it.  The tools' own
 * variables (read by bin/dyliberator, never by the runtime) are listed too, so that a
 * shell that exports them for the whole session hears nothing.
 *
 * Every DYL_* read goes through here: the runtime's files call dyl_env(ID), a
 * micro-generator's template dyl_env_get(NAME) (dyl.h).
 *
 * In an AT_SECURE process (setuid, setgid, file capabilities) nothing is read: the
 * runtime forwards every call (runtime.c) and the environment belongs to whoever ran it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "internal.h"

struct var {
	const char *name;
	const char *dflt;	/* what holds when it is unset (NULL: see dyl_env_warn) */
	const char *values;	/* the allowed values, ", "-separated; NULL: any */
	const char *meaning;
	int runtime;		/* read by the runtime (else by a tool only) */
	int size;		/* a size in bytes (dyl_env_size): checked as one, not by VALUES */
};

static const struct var vars[DYL_ENV_COUNT] = {
	[DYL_ENV_TRACE] = { "DYL_TRACE", "./trace.csv", NULL,
			    "the trace file (%p: the pid, %r: the MPI rank, %h: the host)", 1 },
	[DYL_ENV_OFF] = { "DYL_OFF", "0", NULL,
			  "anything but empty or 0: forward every call without recording", 1 },
	[DYL_ENV_FILTER] = { "DYL_FILTER", "", NULL,
			     "record only these functions: comma-separated wildcards, !PAT excludes", 1 },
	[DYL_ENV_CLOCK] = { "DYL_CLOCK", NULL, "tsc, monotonic",
			    "the clock of t_ns: the TSC, or CLOCK_MONOTONIC", 1 },
	[DYL_ENV_DIFF_WATCH] = { "DYL_DIFF_WATCH", "1", "0, 1",
				 "0: std.diff compares whole buffers instead of watching pages", 1 },
	[DYL_ENV_DEBUG_DIR] = { "DYL_DEBUG_DIR", "/usr/lib/debug", NULL,
				"where separate debug files are found by build ID", 1 },
	[DYL_ENV_PAPI_EVENTS] = { "DYL_PAPI_EVENTS", "", NULL,
				  "std.papi's events (A+B), read by its template", 1 },
	[DYL_ENV_MICROGEN_PATH] = { "DYL_MICROGEN_PATH", "", NULL,
				    "bin/dyliberator's folders of micro-generators", 0 },
	[DYL_ENV_RUNTIME] = { "DYL_RUNTIME", "", NULL,
			      "a wrapper's Makefile: the folder of libdylrt.so", 0 },
	[DYL_ENV_CONVERT] = { "DYL_CONVERT", "auto", "auto, exit, later, keep",
			      "when the trace's CSV rows are written: auto (at exit, or later for a "
			      "spool over DYL_CONVERT_MAX); at exit; later (dyl-trace convert; the "
			      "tools read the spool); keep: at exit, the spool kept", 1 },
	[DYL_ENV_CONVERT_MAX] = { "DYL_CONVERT_MAX", "64M", NULL,
				  "DYL_CONVERT=auto: a spool larger than this (bytes; K, M, G) "
				  "keeps its rows", 1, 1 },
	[DYL_ENV_WAITS] = { "DYL_WAITS", "on", "on, off",
			    "record the threads' waits and wake-ups (condition variables, mutexes "
			    "that block, semaphores, barriers) for dyl-speedup's timelines", 1 },
	[DYL_ENV_EXEC_OF] = { "DYL_EXEC_OF", "", NULL,
			      "set by the exec hooks, never by hand: the pid whose earlier image "
			      "wrote a trace ('# exec_of=1' in the new image's)", 1 },
};

/* The launchers' variables that give an MPI rank, in the order they are asked (%r in
 * DYL_TRACE: trace.c) */
static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
					 "SLURM_PROCID" };
static char rank[24];	/* the first one's digits; empty: none */

#define VALUE_MAX 4096
static char values[DYL_ENV_COUNT][VALUE_MAX];
static unsigned char set[DYL_ENV_COUNT];	/* 1: set, 2: set with a bad value */
static char unknown[8][64];	/* DYL_* names not in the table (the first few) */
static unsigned nunknown;
static int ready;
static const char *defaults[DYL_ENV_COUNT];	/* dyl_env_default's, for a NULL dflt */

/* Is V one of the ", "-separated words of LIST? */
static int allowed(const char *v, const char *list)
{
	size_t n = strlen(v);

	for (const char *p = list; *p;) {
		size_t w = strcspn(p, ",");
		if (w == n && !strncmp(p, v, n))
			return 1;
		p += w;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return 0;
}

/* V as a size: an integer, then nothing or K, M or G (powers of 1024).  0 with *OUT
 * set, or -1: not a size (empty, another character, or past 2^64). */
static int size_of(const char *v, uint64_t *out)
{
	uint64_t n = 0;
	const char *p = v;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (p == v)
		return -1;
	const char *units = "KMG";
	const char *u = *p ? strchr(units, *p & ~0x20) : NULL;	/* (k, m, g too) */
	if (*p && (!u || p[1]))
		return -1;
	for (int shift = u ? 10 * (int)(u - units + 1) : 0; shift; shift -= 10) {
		if (n > UINT64_MAX >> 10)
			return -1;
		n <<= 10;
	}
	*out = n;
	return 0;
}

/* (from dyl_init, or the first dyl_env: a micro-generator's constructor may run first) */
void dyl_env_setup(void)
{
	if (__atomic_exchange_n(&ready, 1, __ATOMIC_ACQ_REL))
		return;
	if (getauxval(AT_SECURE))
		return;
	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]) && !rank[0]; i++) {
		const char *v = getenv(rank_vars[i]);
		size_t n = v ? strspn(v, "0123456789") : 0;
		if (n && !v[n] && n < sizeof(rank))
			memcpy(rank, v, n + 1);
	}
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, "DYL_", 4) != 0)
			continue;
		size_t n = strcspn(*e, "=");
		int id = -1;
		for (int i = 0; i < DYL_ENV_COUNT; i++)
			if (strlen(vars[i].name) == n && !strncmp(*e, vars[i].name, n))
				id = i;
		if (id < 0) {
			if (nunknown < sizeof(unknown) / sizeof(unknown[0]))
				snprintf(unknown[nunknown++], sizeof(unknown[0]), "%.*s", (int)n, *e);
			continue;
		}
		const char *v = (*e)[n] == '=' ? *e + n + 1 : "";
		snprintf(values[id], VALUE_MAX, "%s", v);
		uint64_t bytes;
		int bad = (vars[id].values && !allowed(v, vars[id].values)) ||
			  (vars[id].size && size_of(v, &bytes) != 0);
		set[id] = bad ? 2 : 1;
	}
}

const char *dyl_env(enum dyl_env_id id)
{
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		dyl_env_setup();
	return set[id] == 1 ? values[id] : NULL;
}

const char *dyl_env_rank(void)
{
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		dyl_env_setup();
	return rank[0] ? rank : NULL;
}

void dyl_env_drop(enum dyl_env_id id)
{
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		dyl_env_setup();
	unsetenv(vars[id].name);
}

char **dyl_env_list(void)
{
	return environ;
}

/* Exported for the micro-generators' templates (std.papi: DYL_PAPI_EVENTS), so that no
 * code reads a DYL_* variable but through this table. */
const char *dyl_env_get(const char *name)
{
	for (int i = 0; i < DYL_ENV_COUNT; i++)
		if (!strcmp(vars[i].name, name))
			return dyl_env((enum dyl_env_id)i);
	return NULL;
}

uint64_t dyl_env_size(enum dyl_env_id id)
{
	uint64_t n = 0;
	const char *v = dyl_env(id);

	if (!v || size_of(v, &n) != 0)
		size_of(vars[id].dflt, &n);
	return n;
}

void dyl_env_default(enum dyl_env_id id, const char *value)
{
	defaults[id] = value;
}

void dyl_env_warn(void)
{
	char key[80];

	for (int i = 0; i < DYL_ENV_COUNT; i++) {
		if (set[i] != 2)
			continue;
		const char *d = vars[i].dflt ? vars[i].dflt : defaults[i] ? defaults[i] : "";
		snprintf(key, sizeof(key), "env %s", vars[i].name);
		if (vars[i].size)
			dyl_warn_once(key, "%s=%.200s: not a size; using %s (bytes: an integer, "
				      "K, M or G after it for KiB, MiB, GiB)", vars[i].name, values[i], d);
		else
			dyl_warn_once(key, "%s=%.200s: unknown value; using %s (one of: %s)",
				      vars[i].name, values[i], *d ? d : "none", vars[i].values);
	}
	char known[512];
	size_t o = 0;
	for (int i = 0; i < DYL_ENV_COUNT && o < sizeof(known); i++)
		if (vars[i].runtime)
			o += (size_t)snprintf(known + o, sizeof(known) - o, "%s%s", o ? ", " : "",
					      vars[i].name);
	for (unsigned i = 0; i < nunknown; i++) {
		snprintf(key, sizeof(key), "env %s", unknown[i]);
		dyl_warn_once(key, "%s: unknown variable, ignored (the runtime reads: %s)", unknown[i],
			      known);
	}
}
