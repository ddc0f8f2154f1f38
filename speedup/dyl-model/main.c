/* main.c - dyl-model: an accelerator model from traces of the alternative
 * implementation (a run redirected with std.redirect, say).
 *
 * Each trace is read through rows.h (the one trace reader, with its FILE:LINE messages);
 * every kept call's time goes to its (func, work) group (samples.h finds it; tally.h
 * keeps its times in a sketch: memory bounded by the groups, not the calls); the model
 * is one row per group, in the order of the function names, then the work sizes.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include "device_sweep.h"
#include <string.h>
#include "cli.h"
#include "companion.h"
#include "dyl_keys.h"
#include "func_names.h"
#include "grow.h"
#include "input.h"
#include "model.h"
#include "rows.h"
#include "samples.h"
#include "tally.h"

#define EXIT_NOTHING 1
#define EXIT_BAD_INPUT 2
#define LOAD_NS DYL_KEY_REDIRECT_LOAD_NS "="	/* std.redirect's note: loading the library */

static const char usage[] =
"usage: dyl-model TRACE... [-f PATTERN]... [--stat median|mean|clipped|min]\n"
"                 [--min-samples N] [--all-depths] [--bytes] [--keep-faults]\n"
"                 [--link h2d=FUNC] [--link d2h=FUNC] > model.csv\n"
"       dyl-model --device NAME -f FUNC... > model.csv\n";

static const char help[] =
"\n"
"Builds an accelerator model (func,work,t_ns: see dyl-speedup --help) from traces of the\n"
"accelerated implementation itself: a run of the program, or of a sweep over work sizes,\n"
"with its library calls redirected to that implementation (std.redirect) and traced.\n"
"\n"
"Reads:  TRACE  traces written by a dyliberator wrapper ('-': standard input); all of\n"
"               them are pooled (several runs, several processes).  A trace cut short\n"
"               by a killed process is read up to its last full row, with a warning.\n"
"Writes: on standard output, a '#' line saying how it was made, then\n"
"           func,work,t_ns,samples\n"
"         one row per (func, work) pair met: t_ns is the median time of those calls\n"
"         (of an even count: the mean of the two middle ones), samples how many there\n"
"         were.  The median (and clipped's cut) is exact up to 4096 calls of a pair;\n"
"         past that it comes from a log-bucketed sketch (as DDSketch), within 1 % of\n"
"         the exact one, so that 10^7 calls take a few MB.  Rows are in the order of the function names, then the work sizes.\n"
"         dyl-speedup reads the extra samples column and the '#' line as they are.\n"
"         With --bytes: func,work,t_ns,samples,bytes, one row per (func, work, bytes)\n"
"         met, bytes being the calls' in_bytes + out_bytes (an empty one counts 0).\n"
"         When the traces say what loading the alternative library took (std.redirect\n"
"         writes '# redirect_load_ns='), a line '# setup_ns=N' comes first: the least of\n"
"         them, the load with the library in the page cache (the rest is reading it from\n"
"         disk); dyl-speedup adds N once to each process that uses the model.\n"
"\n"
"Left out, and counted on stderr:\n"
"  - calls made from inside another traced call (depth >= 1): the model stands for the\n"
"    calls the program makes itself, with its data, where dyl-speedup replaces them; a\n"
"    redirected call's nested calls are the other implementation's own business\n"
"    (--all-depths keeps them);\n"
"  - calls with an empty work column (no work size to key the model on: give one with\n"
"    --defs when generating the wrapper);\n"
"  - with --bytes, calls with neither in_bytes nor out_bytes;\n"
"  - with --min-samples N, (func, work) pairs with fewer than N calls;\n"
"  - calls that took page faults (a faults column), where their (func, work) has\n"
"    fault-free calls: a sweep's first touches are not the accelerator's cost (kept\n"
"    where no call is fault-free; --keep-faults keeps all).\n"
"\n"
"Options:\n"
"  --device NAME     no trace: the model of device NAME's kernels named by -f FUNC\n"
"                    (models/devices/NAME.csv, doc/devices.md), func,work,t_ns along\n"
"                    each one's typical call (square matrices); unknown NAME: exit 2\n"
"  -f PATTERN        only functions matching PATTERN (a shell wildcard; repeatable;\n"
"                    '!PATTERN' excludes; the last match wins)\n"
"  --stat S          median (default: robust to the odd slow call), mean (what a sum of\n"
"                    calls costs: right where times are spread or bimodal), clipped (the\n"
"                    mean of the calls at most 10 x the median, and at most 3 x the\n"
"                    median or 1 ms above it, whichever is more: a kernel's own slow mode\n"
"                    counts, a call that was preempted for a time slice does not), or min\n"
"  --min-samples N   leave out pairs with fewer than N calls (default 1)\n"
"  --all-depths      keep nested calls too\n"
"  --keep-faults     keep the calls that took page faults too\n"
"  --bytes           key the model on the bytes each call moves as well as on its work:\n"
"                    for a function whose time depends on the shape of its data, not on\n"
"                    one number (dgemm_ of a matrix times 8 vectors is memory-bound: 4x\n"
"                    the time of a square product of the same flops).  dyl-speedup then\n"
"                    interpolates over the (work, bytes) plane (see models/README.md).\n"
"                    Sweep the family of shapes the program uses (for dgemm_: squares and\n"
"                    m = k with a few n), or the samples between them are guesses.\n"
"  --link h2d=FUNC   the calls of FUNC (a copy from host to accelerator: its work column\n"
"  --link d2h=FUNC   the bytes moved) become rows of the link model, func @h2d (or\n"
"                    @d2h), sampled as any model: what dyl-speedup adds for each transfer\n"
"                    its residency simulation finds (models/README.md, 'Link models').\n"
"                    Trace a copy benchmark (bench/residency/copybench.c) with a wrapper\n"
"                    whose work is the bytes copied (bench/residency/fakedev/fakedev.defs).\n"
"                    FUNC is a plain name; one function may give both directions.  The\n"
"                    link rows are keyed on work alone, --bytes or not.\n"
"  -h, --help        this text\n"
"      --version     the version\n"
"\n"
"Exit status: 0 done; 1 no call left to model; 2 bad usage or bad input (a missing file,\n"
"a malformed row, a negative or non-numeric field: the message names FILE:LINE).\n"
"\n"
"Example: what would OpenBLAS make of the dgemm_ calls of ./app (reference BLAS)?\n"
"  G='--lib /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 --header examples/blas.h\n"
"     --defs examples/blas.defs -f dgemm_'\n"
"  dyliberator $G -o base.so\n"
"  dyliberator $G -g std.redirect:lib=libopenblas.so.0 -o alt.so\n"
"  LD_PRELOAD=./alt.so DYL_TRACE=alt.csv ./sweep         # the model's own run\n"
"  dyl-model alt.csv > openblas.csv\n"
"  LD_PRELOAD=./base.so DYL_TRACE=base.csv ./app\n"
"  dyl-speedup base.csv openblas.csv\n"
"(Make the model from another run than the one it predicts: a sweep over the sizes.)\n";

/* What the command line asks for. */
struct model_opts {
	const char **paths;	/* the traces */
	int npaths;
	const char **patterns;	/* -f patterns, as dyliberator's -f */
	int npatterns;
	enum sample_stat stat;
	unsigned long min_samples;
	int all_depths, by_bytes, keep_faults;
	const char *link[2];	/* --link h2d=FUNC, d2h=FUNC: the copy functions, or NULL */
	const char *device;	/* --device NAME: the device's model, no trace read */
};

/* The link rows' names, by direction (--link h2d=, d2h=). */
static const char *const link_row[2] = { "@h2d", "@d2h" };

/* With only exclusions among the -f patterns, everything else is in. */
static int selected(const struct model_opts *o, const char *name)
{
	int verdict = -1, only_excl = 1;

	for (int i = 0; i < o->npatterns; i++) {
		int neg = o->patterns[i][0] == '!';
		only_excl &= neg;
		if (fnmatch(o->patterns[i] + neg, name, 0) == 0)
			verdict = !neg;
	}
	return verdict >= 0 ? verdict : only_excl;
}

struct counts {
	uint64_t rows, nested, no_work, no_bytes, filtered, kept;
	int has_faults;		/* a trace had a faults column */
	uint64_t faulted;	/* kept calls that took page faults */
	/* '# redirect_load_ns=' of the traces that have one: loading the alternative
	 * library, a cost paid once per process (std.redirect); the least and the most */
	double load_lo, load_hi;
	int nload;
	/* samples_settle_faults: faulted calls left out, kept, and at how many sizes */
	uint64_t fault_out, fault_kept, fault_sizes;
	unsigned long dropped;	/* groups under --min-samples */
	uint64_t links;		/* calls of --link's copy functions */
};

/* What is decided of each function once, for all the traces (they share the names). */
struct selection {
	/* by func_names.h id: 0 not decided, 1 selected, 2 not; bit 4: a copy of --link h2d,
	 * bit 8: of --link d2h */
	unsigned char *decided;
	size_t room;
	int link_id[2];		/* func_names.h ids of @h2d and @d2h; -1 until needed */
};

static int is_selected(const struct model_opts *o, struct selection *sl, uint32_t func)
{
	if (grow_to(&sl->decided, 1, (size_t)func + 1, &sl->room, 256) != 0)
		return -1;
	unsigned char *decided = sl->decided;
	if (!decided[func]) {
		const char *name = funcs_get((int)func)->name;
		decided[func] = selected(o, name) ? 1 : 2;
		for (int d = 0; d < 2; d++)
			if (o->link[d] && !strcmp(o->link[d], name))
				decided[func] = (unsigned char)(decided[func] | 4 << d);
	}
	return decided[func] & 12 ? decided[func] : decided[func] == 1;
}

/* One call's time to the group of (FUNC, WORK, BYTES).  0, or -1 out of memory. */
static int add_sample(struct samples *s, struct tallies *ts, uint32_t func, int64_t work,
		      int64_t bytes, int64_t t_ns, enum sample_faults faults)
{
	struct sample_group *g = samples_find(s, func, work, bytes, 1);

	return g ? tally_add(ts, (size_t)(g - s->groups), t_ns, faults) : -1;
}

/* A copy call of --link: its time is a sample of the link row of each direction it was
 * named for (work = the bytes moved).  0, or -1 when out of memory. */
static int add_link_samples(struct selection *sl, int which, int64_t work, int64_t t_ns,
			    enum sample_faults faults, struct samples *s, struct tallies *ts)
{
	int *link_id = sl->link_id;

	for (int d = 0; d < 2; d++) {
		if (!(which & 4 << d))
			continue;
		int added;
		if (link_id[d] < 0 && (link_id[d] = funcs_intern(link_row[d], 4, &added)) < 0)
			return -1;
		if (add_sample(s, ts, (uint32_t)link_id[d], work, -1, t_ns, faults) != 0)
			return -1;
	}
	return 0;
}

/* std.redirect's '# redirect_load_ns=' notes of SRC: the range of the loading times. */
static void count_load(struct counts *c, const struct trace_src *src)
{
	for (size_t i = 0; i < src->nnotes; i++) {
		const struct trace_note *n = &src->notes[i];
		if (n->len > DYL_KEY_LEN(LOAD_NS) &&
		    !strncmp(n->text, LOAD_NS, DYL_KEY_LEN(LOAD_NS))) {
			double v = strtod(n->text + DYL_KEY_LEN(LOAD_NS), NULL);
			c->load_lo = !c->nload || v < c->load_lo ? v : c->load_lo;
			c->load_hi = !c->nload || v > c->load_hi ? v : c->load_hi;
			c->nload++;
		}
	}
}

/* --bytes: group by (func, work, in_bytes + out_bytes) rather than (func, work).
 * --keep-faults: calls that took page faults are samples like the others. */
static int read_trace(const struct model_opts *o, struct selection *sl, const char *path,
		      struct samples *s, struct tallies *ts, struct counts *c)
{
	struct input_file f;
	struct trace_src src;
	struct trace_row r;
	int rc, sel;

	if (input_open(&f, strcmp(path, "-") == 0 ? "/dev/stdin" : path) != 0)
		return -1;
	/* a model needs times; a cut-short trace is fine (its full rows are samples) */
	if (rows_open_file(&src, &f, ROWS_NEED_TIMES) != 0) {
		input_close(&f);
		return -1;
	}
	c->has_faults |= src.faults_col >= 0;
	count_load(c, &src);
	while ((rc = rows_next(&src, &r)) > 0) {
		c->rows++;
		if (r.depth > 0 && !o->all_depths) {
			c->nested++;
			continue;
		}
		if (r.work == ROWS_NONE) {
			c->no_work++;
			continue;
		}
		if ((sel = is_selected(o, sl, r.func)) <= 0) {
			if (sel < 0)
				goto oom;
			c->filtered++;
			continue;
		}
		if (sel & 12) {	/* a copy of --link: a sample of the link, keyed on bytes */
			enum sample_faults lf = r.faults == ROWS_NONE || o->keep_faults ?
						SAMPLE_FAULTS_UNKNOWN : r.faults == 0 ?
						SAMPLE_NO_FAULTS : SAMPLE_FAULTED;
			if (add_link_samples(sl, sel, r.work, r.t_ns, lf, s, ts) != 0)
				goto oom;
			c->links++;
			c->kept++;
			continue;
		}
		int64_t bytes = -1;
		if (o->by_bytes) {
			if ((bytes = rows_call_bytes(&r)) == ROWS_NONE) {
				c->no_bytes++;
				continue;
			}
		}
		enum sample_faults faults = r.faults == ROWS_NONE ? SAMPLE_FAULTS_UNKNOWN
					    : r.faults == 0 ? SAMPLE_NO_FAULTS : SAMPLE_FAULTED;
		c->faulted += faults == SAMPLE_FAULTED;
		if (o->keep_faults && faults == SAMPLE_FAULTED)
			faults = SAMPLE_FAULTS_UNKNOWN;
		if (add_sample(s, ts, r.func, r.work, bytes, r.t_ns, faults) != 0)
			goto oom;
		c->kept++;
	}
	if (rc == 0)
		rows_warn_truncated(&src);
	rows_close(&src);
	input_close(&f);
	return rc < 0 ? -1 : 0;
oom:
	input_error(path, src.lineno, "out of memory");
	rows_close(&src);
	input_close(&f);
	return -1;
}

/* A func name as a CSV field (quoted when it must be). */
static void put_name(const char *name)
{
	if (!strpbrk(name, ",\"\n\r")) {
		fputs(name, stdout);
		return;
	}
	putchar('"');
	for (; *name; name++) {
		if (*name == '"')
			putchar('"');
		putchar(*name);
	}
	putchar('"');
}

static const char *stat_names[] = { "median", "mean", "min", "clipped" };

/* Fills O from the command line.  0; 1 after --help; -1 after a message. */
static int parse_options(int argc, char **argv, struct model_opts *o)
{
	int options_done = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (options_done || a[0] != '-' || a[1] == '\0') {
			if (!companion_of_given(a, argc, argv))	/* read with its trace */
				o->paths[o->npaths++] = a;
		} else if (!strcmp(a, "--")) {
			options_done = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			fputs(help, stdout);
			return 1;
		} else if (!strcmp(a, "-f") && v) {
			o->patterns[o->npatterns++] = v;
			i++;
		} else if (!strcmp(a, "--device") && v) {
			o->device = v;
			i++;
		} else if (!strcmp(a, "--all-depths")) {
			o->all_depths = 1;
		} else if (!strcmp(a, "--keep-faults")) {
			o->keep_faults = 1;
		} else if (!strcmp(a, "--bytes")) {
			o->by_bytes = 1;
		} else if (!strcmp(a, "--link") && v) {
			int d = !strncmp(v, "h2d=", 4) ? 0 : !strncmp(v, "d2h=", 4) ? 1 : -1;
			if (d < 0 || !v[4]) {
				input_error(NULL, 0, "--link %s: give h2d=FUNC or d2h=FUNC", v);
				return -1;
			}
			o->link[d] = v + 4;
			i++;
		} else if (!strcmp(a, "--stat") && v) {
			int k = 0;
			while (k < 4 && strcmp(v, stat_names[k]) != 0)
				k++;
			if (k == 4) {
				input_error(NULL, 0, "--stat %s: choose median, mean, clipped or min", v);
				return -1;
			}
			o->stat = (enum sample_stat)k;
			i++;
		} else if (!strcmp(a, "--min-samples") && v) {
			char *end;
			o->min_samples = strtoul(v, &end, 10);
			if (*v < '0' || *v > '9' || *end || o->min_samples < 1) {
				input_error(NULL, 0, "--min-samples %s: give a whole number >= 1", v);
				return -1;
			}
			i++;
		} else {
			cli_bad_option(input_prog, a, "-f --link --stat --device --min-samples");
			return -1;
		}
	}
	if (!o->npaths && !o->device) {
		input_error(NULL, 0, "no trace given (see --help)");
		fputs(usage, stderr);
		return -1;
	}
	return 0;
}

/* On stderr, what was left out of the model and why. */
static void report_left_out(const struct model_opts *o, const struct counts *c)
{
	const char *sizes = o->by_bytes ? "shapes" : "work sizes";

	if (c->dropped)
		fprintf(stderr, "dyl-model: left out %lu (func, work%s) %s with fewer than %lu samples "
			"(--min-samples)\n", c->dropped, o->by_bytes ? ", bytes" : "",
			o->by_bytes ? "triples" : "pairs", o->min_samples);
	if (c->nested)
		fprintf(stderr, "dyl-model: left out %llu nested calls (depth >= 1; --all-depths keeps them)\n",
			(unsigned long long)c->nested);
	if (c->no_work)
		fprintf(stderr, "dyl-model: left out %llu calls without a work size (empty work column: "
			"give the wrapper one, --defs with 'work_size = ...;' in a postfix block, "
			"or -g std.regions, whose bytes in + out are the work)\n", (unsigned long long)c->no_work);
	if (c->no_bytes)
		fprintf(stderr, "dyl-model: left out %llu calls without bytes (in_bytes and out_bytes "
			"empty; --bytes)\n", (unsigned long long)c->no_bytes);
	if (c->fault_out)
		fprintf(stderr, "dyl-model: left out %llu calls that took page faults (their %s have "
			"fault-free calls; --keep-faults keeps them)%s", (unsigned long long)c->fault_out,
			sizes, c->fault_kept ? "; " : "\n");
	if (c->fault_kept)
		fprintf(stderr, "%s%llu calls at %llu %s without a fault-free call are kept\n",
			c->fault_out ? "" : "dyl-model: ", (unsigned long long)c->fault_kept,
			(unsigned long long)c->fault_sizes, sizes);
	if (o->keep_faults && c->faulted)
		fprintf(stderr, "dyl-model: kept %llu calls that took page faults (--keep-faults)\n",
			(unsigned long long)c->faulted);
}

/* The model's '#' lines: how it was made. */
static void write_comments(const struct model_opts *o, const struct counts *c)
{
	printf("# dyl-model: %s t_ns per (func, work%s) of %s calls, from", stat_names[o->stat],
	       o->by_bytes ? ", bytes" : "", o->all_depths ? "all" : "depth-0");
	for (int i = 0; i < o->npaths; i++)
		printf(" %s", o->paths[i]);
	printf("\n");
	if (c->has_faults && o->keep_faults)
		printf("# page faults: calls that took them are samples like the others (--keep-faults; "
		       "%llu of them)\n", (unsigned long long)c->faulted);
	else if (c->has_faults) {
		printf("# page faults: calls that took them are left out where their %s has fault-free "
		       "calls (%llu left out)", o->by_bytes ? "shape" : "work size",
		       (unsigned long long)c->fault_out);
		if (c->fault_kept)
			printf("; %llu kept at %llu %s without a fault-free call",
			       (unsigned long long)c->fault_kept, (unsigned long long)c->fault_sizes,
			       o->by_bytes ? "shapes" : "work sizes");
		printf("\n");
	}
	for (int d = 0; d < 2; d++)
		if (o->link[d])
			printf("# link: %s rows from the calls of %s (work = bytes of one transfer)\n",
			       link_row[d], o->link[d]);
	if (c->nload) {
		/* the least over the traces: what varies is the page cache (OpenBLAS's 35 MB
		 * loads in 2.2 ms when cached, 28 ms read from disk, and anything between when
		 * part of it was evicted), not the library; a program run again, as the
		 * accelerated one is, finds it cached */
		printf(DYL_KEY_LINE(DYL_KEY_SETUP_NS) "%.0f  (loading the alternative library, least of %d traces, "
		       "most %.0f: dyl-speedup adds it once per process that uses this model)\n",
		       c->load_lo, c->nload, c->load_hi);
	}
}

/* The model's header and one row per group with enough samples. */
static void write_rows(const struct model_opts *o, struct samples *s, struct tallies *ts,
		       const size_t *order)
{
	/* bytes last: new columns go at the end, so samples stays the fourth either way */
	printf(o->by_bytes ? "%s,samples," MODEL_BYTES "\n" : "%s,samples\n", MODEL_HEADER);
	for (size_t k = 0; k < s->n; k++) {
		size_t i = order[k];
		struct sample_group *g = &s->groups[i];
		size_t n = (size_t)ts->v[i].t.n;
		if (n < o->min_samples)
			continue;
		double t = tally_stat(ts, i, o->stat);
		put_name(funcs_get((int)g->func)->name);
		/* medians of even counts end in .5; means are rounded to 0.1 ns */
		printf(t == (double)(int64_t)t ? ",%lld,%.0f,%zu" : ",%lld,%.1f,%zu",
		       (long long)g->work, t, n);
		if (o->by_bytes && g->bytes >= 0)
			printf(",%lld", (long long)g->bytes);
		else if (o->by_bytes)
			putchar(',');	/* a link row: keyed on work alone */
		putchar('\n');
	}
}

static int model_out(const struct model_opts *o, struct samples *s, struct tallies *ts,
		     const size_t *order, struct counts *c);

/* The command: reads O's traces, writes the model.  Its exit status. */
static int dyl_model(const struct model_opts *o, struct selection *sl)
{
	struct samples s = { 0 };
	struct tallies ts = { 0 };
	struct counts c = { 0 };
	size_t *order = NULL;
	int rc = 0;

	for (int i = 0; i < o->npaths && rc == 0; i++)
		if (read_trace(o, sl, o->paths[i], &s, &ts, &c) != 0)
			rc = EXIT_BAD_INPUT;
	/* before --min-samples: a pair's samples are what is left of it */
	if (rc == 0 && (tallies_settle_faults(&ts, s.n, &c.fault_out, &c.fault_kept,
					     &c.fault_sizes) != 0 || !(order = samples_sorted(&s)))) {
		input_error(NULL, 0, "out of memory");
		rc = EXIT_BAD_INPUT;
	}
	if (rc == 0)
		rc = model_out(o, &s, &ts, order, &c);
	free(order);
	tallies_free(&ts, s.n);
	samples_free(&s);
	return rc;
}

/* The model of S and TS (in ORDER), with C's counts on stderr.  Its exit status. */
static int model_out(const struct model_opts *o, struct samples *s, struct tallies *ts,
		     const size_t *order, struct counts *c)
{
	for (size_t i = 0; i < s->n; i++)
		c->dropped += ts->v[i].t.n < o->min_samples;
	report_left_out(o, c);
	if (c->dropped == s->n) {
		input_error(NULL, 0, "nothing to model: of %llu calls read, none is kept%s",
			    (unsigned long long)c->rows,
			    c->filtered ? " (not selected by -f, or left out above)" :
			    c->rows ? " (see above)" : "");
		return EXIT_NOTHING;
	}
	write_comments(o, c);
	write_rows(o, s, ts, order);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		input_error(NULL, 0, "cannot write the output");
		return EXIT_BAD_INPUT;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct model_opts o = { .stat = STAT_MEDIAN, .min_samples = 1 };
	struct selection sl = { .link_id = { -1, -1 } };
	int rc;

	input_prog = "dyl-model";
	if (cli_want_version(argc, argv, input_prog))
		return 0;
	input_what = "trace";
	o.paths = calloc((size_t)argc + 1, sizeof(*o.paths));
	o.patterns = calloc((size_t)argc + 1, sizeof(*o.patterns));
	if (!o.paths || !o.patterns) {
		input_error(NULL, 0, "out of memory");
		return EXIT_BAD_INPUT;
	}
	rc = parse_options(argc, argv, &o);
	if (rc != 0)
		return rc > 0 ? 0 : EXIT_BAD_INPUT;
	rc = o.device ? device_sweep(stdout, o.device, o.patterns, o.npatterns) : dyl_model(&o, &sl);
	free(sl.decided);
	free(o.patterns);
	free(o.paths);
	return rc;
}
