/* diff.c - dyl-trace diff A B: per function, the calls, time, bytes and work of two runs
 * and how they changed, as perf diff and uftrace's diff show them.
 *
 * Each side is read through summary.c (the same sums `summary` prints, filtered the same
 * way); its processes are matched by command line, or added up (diff.h).
 */
#define _GNU_SOURCE
#include <glob.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "diff.h"
#include "filter.h"
#include "func_names.h"
#include "input.h"
#include "rows.h"
#include "shown.h"
#include "summary.h"

/* One side's sums for one function. */
struct sums {
	uint64_t calls, bytes, with_bytes, work, with_work;
	int64_t total_ns;
};

/* One process of a side. */
struct proc {
	const char *path;
	char *cmdline;		/* "" when the trace does not say */
	int64_t total_ns;	/* -1: unknown */
	struct sums *by_func;	/* by func_names.h id, nfuncs of them */
	size_t nfuncs;
};

struct side {
	const char *arg;	/* as given */
	glob_t g;		/* a record folder's traces */
	int globbed;
	struct proc *procs;
	size_t n;
};

/* One row of the output. */
struct drow {
	uint32_t func;
	struct sums s[2];
};

/* The traces ARG stands for: itself, or a record folder's trace.*.csv.  0, or -1. */
static int side_paths(struct side *sd, char ***paths, size_t *n)
{
	struct stat st;
	char *pat;

	if (stat(sd->arg, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*paths = (char **)&sd->arg;
		*n = 1;
		return 0;
	}
	if (asprintf(&pat, "%s/trace.*.csv", sd->arg) < 0)
		return -1;
	int rc = glob(pat, 0, NULL, &sd->g);
	free(pat);
	if (rc != 0) {
		input_error(sd->arg, 0, "a folder without trace.*.csv (dyl record's traces)");
		return -1;
	}
	sd->globbed = 1;
	*paths = sd->g.gl_pathv;
	*n = sd->g.gl_pathc;
	return 0;
}

/* Reads one process's sums into P.  0, or -1 after one message. */
static int proc_read(struct proc *p, const char *path, struct row_filter *filter)
{
	struct trace_src src;
	struct trace_summary s;

	p->path = path;
	if (rows_open(&src, path) != 0)
		return -1;
	if (summary_read_filtered(&src, &s, filter) != 0) {
		rows_close(&src);
		return -1;
	}
	if (src.truncated)
		rows_warn_truncated(&src);
	p->total_ns = src.total_ns;
	p->cmdline = strdup(src.cmdline ? src.cmdline : "");
	p->nfuncs = (size_t)funcs_count();
	p->by_func = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*p->by_func));
	rows_close(&src);
	if (!p->cmdline || !p->by_func) {
		summary_free(&s);
		input_error(path, 0, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < s.nfuncs; i++) {
		const struct func_stats *f = &s.funcs[i];
		p->by_func[f->func] = (struct sums){ f->calls, f->bytes, f->with_bytes, f->work,
						     f->with_work, f->total_ns };
	}
	summary_free(&s);
	return 0;
}

static int side_read(struct side *sd, struct row_filter *filter)
{
	char **paths;
	size_t n;

	if (side_paths(sd, &paths, &n) != 0)
		return -1;
	if (!(sd->procs = calloc(n, sizeof(*sd->procs)))) {
		input_error(sd->arg, 0, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		sd->n++;
		if (proc_read(&sd->procs[i], paths[i], filter) != 0)
			return -1;
	}
	return 0;
}

static void side_free(struct side *sd)
{
	for (size_t i = 0; i < sd->n; i++) {
		free(sd->procs[i].cmdline);
		free(sd->procs[i].by_func);
	}
	free(sd->procs);
	if (sd->globbed)
		globfree(&sd->g);
}

/* The process of SD whose command line is CMD, when it is the one: else -1. */
static long only_match(const struct side *sd, const char *cmd)
{
	long found = -1;

	for (size_t i = 0; i < sd->n; i++)
		if (!strcmp(sd->procs[i].cmdline, cmd)) {
			if (found >= 0)
				return -1;
			found = (long)i;
		}
	return found;
}

/* PAIR[i]: the process of B matched to A's i-th, when every process of each side has
 * exactly one of the same command line on the other (and there are several); else 0:
 * all added up. */
static int match_procs(const struct side *a, const struct side *b, long *pair)
{
	if (a->n != b->n || a->n < 2)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const char *cmd = a->procs[i].cmdline;
		if (!*cmd || only_match(a, cmd) < 0 || (pair[i] = only_match(b, cmd)) < 0)
			return 0;
	}
	return 1;
}

static void add_sums(struct sums *to, const struct sums *s)
{
	to->calls += s->calls;
	to->bytes += s->bytes;
	to->with_bytes += s->with_bytes;
	to->work += s->work;
	to->with_work += s->with_work;
	to->total_ns += s->total_ns;
}

static uint64_t mag(int64_t v)
{
	return v < 0 ? (uint64_t)-v : (uint64_t)v;
}

/* Largest change of time first, then of calls, then by name. */
static int by_change(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	uint64_t ta = mag(a->s[1].total_ns - a->s[0].total_ns);
	uint64_t tb = mag(b->s[1].total_ns - b->s[0].total_ns);
	uint64_t ca = mag((int64_t)(a->s[1].calls - a->s[0].calls));
	uint64_t cb = mag((int64_t)(b->s[1].calls - b->s[0].calls));

	if (ta != tb)
		return ta > tb ? -1 : 1;
	if (ca != cb)
		return ca > cb ? -1 : 1;
	return strcmp(funcs_get((int)a->func)->name, funcs_get((int)b->func)->name);
}

/* The rows of the processes PA of A and PB of B (NA, NB of them), added up: those
 * functions with a call on either side, sorted.  NULL out of memory. */
static struct drow *rows_of(struct proc *const *pa, size_t na, struct proc *const *pb,
			    size_t nb, size_t *nrows)
{
	size_t nf = (size_t)funcs_count(), n = 0;
	struct drow *r = calloc(nf ? nf : 1, sizeof(*r));

	if (!r)
		return NULL;
	for (size_t f = 0; f < nf; f++) {
		struct drow d = { .func = (uint32_t)f };
		for (size_t i = 0; i < na; i++)
			if (f < pa[i]->nfuncs)
				add_sums(&d.s[0], &pa[i]->by_func[f]);
		for (size_t i = 0; i < nb; i++)
			if (f < pb[i]->nfuncs)
				add_sums(&d.s[1], &pb[i]->by_func[f]);
		if (d.s[0].calls || d.s[1].calls)
			r[n++] = d;
	}
	qsort(r, n, sizeof(*r), by_change);
	*nrows = n;
	return r;
}

/* --- output --- */

struct printer {
	FILE *out;
	int fmt;
	int first;		/* no group printed yet (JSON's commas) */
};

static const char *only_of(const struct drow *d)
{
	return !d->s[0].calls ? "b" : !d->s[1].calls ? "a" : NULL;
}

/* V for the table: 3 significant digits and an SI prefix (n, u, m; k, M, G, T, P:
 * 1000s), then UNIT; "-" when NONE. */
static const char *si(char *buf, size_t room, double v, const char *unit, int none)
{
	static const char *const pre[] = { "n", "u", "m", "", "k", "M", "G", "T", "P" };
	int u = 3, neg = v < 0;

	if (none)
		return "-";
	v = neg ? -v : v;
	while (v >= 999.5 && u < 8)
		v /= 1000, u++;
	while (v > 0 && v < 0.9995 && u > 0)
		v *= 1000, u--;
	if (v == 0)
		u = 3;
	snprintf(buf, room, u == 3 && v == (double)(int64_t)v ? "%s%.0f%s%s" : v >= 99.95
		 ? "%s%.0f%s%s" : v >= 9.995 ? "%s%.1f%s%s" : "%s%.2f%s%s", neg ? "-" : "", v,
		 pre[u], unit);
	return buf;
}

/* A change for the table: "+12", "-3.4M", "0"; "-" when neither side has the value. */
static const char *change(char *buf, size_t room, double v, const char *unit, int none)
{
	char tmp[32];

	if (none)
		return "-";
	snprintf(buf, room, "%s%s", v > 0 ? "+" : "", si(tmp, sizeof(tmp), v, unit, 0));
	return buf;
}

static void table_row(FILE *out, const struct drow *d, int w)
{
	char b[12][32], pct[16] = "-";
	const struct sums *a = &d->s[0], *z = &d->s[1];
	int nob = !a->with_bytes && !z->with_bytes, now = !a->with_work && !z->with_work;
	const char *only = only_of(d);
	double dt = (double)(z->total_ns - a->total_ns);

	if (!only && a->total_ns > 0)
		snprintf(pct, sizeof(pct), "%+.1f%%", 100.0 * dt / (double)a->total_ns);
	fprintf(out, "%-*.*s %8s %8s %8s %8s %8s %8s %8s %7s %7s %7s %7s %7s %7s%s\n",
		w, w, funcs_get((int)d->func)->shown, si(b[0], 32, (double)a->calls, "", 0),
		si(b[1], 32, (double)z->calls, "", 0),
		change(b[2], 32, (double)z->calls - (double)a->calls, "", 0),
		si(b[9], 32, (double)a->total_ns * 1e-9, "s", 0),
		si(b[10], 32, (double)z->total_ns * 1e-9, "s", 0), change(b[11], 32, dt * 1e-9, "s", 0),
		pct, si(b[3], 32, (double)a->bytes, "", nob), si(b[4], 32, (double)z->bytes, "", nob),
		change(b[5], 32, (double)z->bytes - (double)a->bytes, "", nob),
		si(b[6], 32, (double)a->work, "", now), si(b[7], 32, (double)z->work, "", now),
		change(b[8], 32, (double)z->work - (double)a->work, "", now),
		!only ? "" : *only == 'a' ? "  only in A" : "  only in B");
}

/* One side's processes, for the table's head: "a.csv (pid..., cmd), run 1.2 s". */
static void table_side(FILE *out, const char *name, struct proc *const *p, size_t n)
{
	int64_t t = 0;
	char buf[32];

	fprintf(out, "%s:", name);
	for (size_t i = 0; i < n; i++) {
		const char *c = shown_keep(p[i]->cmdline, strlen(p[i]->cmdline));
		fprintf(out, "%s %s%s%s%s", i ? "," : "", p[i]->path, c && *c ? " (" : "",
			c && *c ? c : "", c && *c ? ")" : "");
		if (c != p[i]->cmdline)
			free((char *)c);
		t = t < 0 || p[i]->total_ns < 0 ? -1 : t + p[i]->total_ns;
	}
	if (t >= 0)
		fprintf(out, "; run %s", si(buf, sizeof(buf), (double)t * 1e-9, "s", 0));
	fprintf(out, "\n");
}

static void put_table(struct printer *pr, struct proc *const *pa, size_t na,
		      struct proc *const *pb, size_t nb, const struct drow *r, size_t n)
{
	FILE *out = pr->out;
	int w = 8;

	for (size_t i = 0; i < n; i++) {
		int l = (int)strlen(funcs_get((int)r[i].func)->shown);
		w = l > w ? (l > 40 ? 40 : l) : w;
	}
	fprintf(out, "%s", pr->first ? "" : "\n");
	table_side(out, "A", pa, na);
	table_side(out, "B", pb, nb);
	if (na > 1 || nb > 1)
		fprintf(out, "(several processes on a side, not matched by command line: added up)\n");
	fprintf(out, "%-*s %8s %8s %8s %8s %8s %8s %8s %7s %7s %7s %7s %7s %7s\n", w, "function",
		"calls A", "calls B", "change", "time A", "time B", "change", "change%", "bytes A",
		"bytes B", "change", "work A", "work B", "change");
	for (size_t i = 0; i < n; i++)
		table_row(out, &r[i], w);
	if (!n)
		fprintf(out, "(no calls on either side)\n");
}

/* A sum for CSV or JSON: empty (null) when NONE. */
static void put_val(FILE *out, int json, int64_t v, int none)
{
	if (none)
		fputs(json ? "null" : "", out);
	else
		fprintf(out, "%" PRId64, v);
}

/* One row's numbers, CSV fields or JSON values after their keys. */
static void put_numbers(FILE *out, int json, const struct drow *d)
{
	static const char *const keys[] = { "calls", "total_ns", "bytes", "work" };
	const struct sums *a = &d->s[0], *z = &d->s[1];
	int64_t va[4] = { (int64_t)a->calls, a->total_ns, (int64_t)a->bytes, (int64_t)a->work };
	int64_t vz[4] = { (int64_t)z->calls, z->total_ns, (int64_t)z->bytes, (int64_t)z->work };
	int none[4] = { 0, 0, !a->with_bytes && !z->with_bytes, !a->with_work && !z->with_work };

	for (int k = 0; k < 4; k++) {
		fprintf(out, json ? ", \"%s_a\": " : ",", keys[k]);
		put_val(out, json, va[k], none[k]);
		fprintf(out, json ? ", \"%s_b\": " : ",", keys[k]);
		put_val(out, json, vz[k], none[k]);
		fprintf(out, json ? ", \"%s_delta\": " : ",", keys[k]);
		put_val(out, json, vz[k] - va[k], none[k]);
		if (k == 1) {
			fputs(json ? ", \"total_ns_pct\": " : ",", out);
			if (only_of(d) || a->total_ns <= 0)
				fputs(json ? "null" : "", out);
			else
				fprintf(out, "%.3f", 100.0 * (double)(vz[1] - va[1]) / (double)va[1]);
		}
	}
}

static void put_csv(struct printer *pr, const char *process, const struct drow *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *only = only_of(&r[i]);
		csv_str(pr->out, process);
		fputc(',', pr->out);
		csv_str(pr->out, funcs_get((int)r[i].func)->name);
		fprintf(pr->out, ",%s", only ? only : "");
		put_numbers(pr->out, 0, &r[i]);
		fputc('\n', pr->out);
	}
}

static void put_json(struct printer *pr, const char *process, const struct drow *r, size_t n)
{
	FILE *out = pr->out;
	const char *only;

	fputs(pr->first ? "\n  {\"process\": " : ",\n  {\"process\": ", out);
	if (process)
		json_str(out, process, strlen(process));
	else
		fputs("null", out);
	fputs(", \"funcs\": [", out);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n    {\"func\": " : "\n    {\"func\": ", out);
		json_str(out, funcs_get((int)r[i].func)->name, strlen(funcs_get((int)r[i].func)->name));
		fputs(", \"only\": ", out);
		if ((only = only_of(&r[i])))
			fprintf(out, "\"%s\"", only);
		else
			fputs("null", out);
		put_numbers(out, 1, &r[i]);
		fputc('}', out);
	}
	fputs("]}", out);
}

/* One group: processes PA of A against PB of B; PROCESS their command line, or NULL
 * when all were added up.  0, or -1 out of memory. */
static int put_group(struct printer *pr, const char *process, struct proc *const *pa,
		     size_t na, struct proc *const *pb, size_t nb)
{
	size_t n;
	struct drow *r = rows_of(pa, na, pb, nb, &n);

	if (!r)
		return -1;
	if (pr->fmt == DIFF_TABLE)
		put_table(pr, pa, na, pb, nb, r, n);
	else if (pr->fmt == DIFF_CSV)
		put_csv(pr, process ? process : "*", r, n);
	else
		put_json(pr, process, r, n);
	pr->first = 0;
	free(r);
	return 0;
}

/* The groups: matched pairs, or all added up.  0, or -1 out of memory. */
static int put_groups(struct printer *pr, struct side *a, struct side *b)
{
	long *pair = calloc(a->n, sizeof(*pair));
	struct proc **pa = calloc(a->n, sizeof(*pa)), **pb = calloc(b->n, sizeof(*pb));
	int rc = -1;

	if (!pair || !pa || !pb)
		goto out;
	if (match_procs(a, b, pair)) {
		rc = 0;
		for (size_t i = 0; i < a->n && rc == 0; i++) {
			struct proc *x = &a->procs[i], *y = &b->procs[pair[i]];
			rc = put_group(pr, x->cmdline, &x, 1, &y, 1);
		}
		goto out;
	}
	for (size_t i = 0; i < a->n; i++)
		pa[i] = &a->procs[i];
	for (size_t i = 0; i < b->n; i++)
		pb[i] = &b->procs[i];
	rc = put_group(pr, NULL, pa, a->n, pb, b->n);
out:
	free(pair);
	free(pa);
	free(pb);
	return rc;
}

/* The head of the output: what was compared and filtered. */
static void put_head(struct printer *pr, const struct side *a, const struct side *b,
		     const struct row_filter *filter)
{
	char fb[512];
	const char *fd = filter_active(filter) ? filter_describe(filter, fb, sizeof(fb)) : NULL;

	if (pr->fmt == DIFF_CSV) {
		if (fd)
			fprintf(stderr, "dyl-trace: filtered: %s\n", fd);
		fputs("process,func,only,calls_a,calls_b,calls_delta,total_ns_a,total_ns_b,"
		      "total_ns_delta,total_ns_pct,bytes_a,bytes_b,bytes_delta,work_a,work_b,"
		      "work_delta\n", pr->out);
	} else if (pr->fmt == DIFF_JSON) {
		fprintf(pr->out, "{\"version\": \"%s\", \"a\": ", cli_version);
		json_str(pr->out, a->arg, strlen(a->arg));
		fputs(", \"b\": ", pr->out);
		json_str(pr->out, b->arg, strlen(b->arg));
		fputs(", \"filter\": ", pr->out);
		if (fd)
			json_str(pr->out, fd, strlen(fd));
		else
			fputs("null", pr->out);
		fputs(", \"processes\": [", pr->out);
	} else if (fd) {
		fprintf(pr->out, "filtered: %s\n", fd);
	}
}

int cmd_diff(FILE *out, const char *a, const char *b, int fmt, struct row_filter *filter)
{
	struct side sa = { .arg = a }, sb = { .arg = b };
	struct printer pr = { out, fmt, 1 };
	int rc = 2;

	if (side_read(&sa, filter) != 0 || side_read(&sb, filter) != 0)
		goto done;
	put_head(&pr, &sa, &sb, filter);
	if (put_groups(&pr, &sa, &sb) != 0) {
		input_error(a, 0, "out of memory");
		goto done;
	}
	if (fmt == DIFF_JSON)
		fputs("\n]}\n", out);
	rc = 0;
done:
	side_free(&sa);
	side_free(&sb);
	return rc;
}
