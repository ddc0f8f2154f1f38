/* plan.c - the offload plan (plan.h).
 *
 * A plan is a set S of modelled functions whose depth-0 calls go to the accelerator.
 * For each process, with its calls' measured times t and modelled times f (the kernel
 * models, compute only where the models have link rows):
 *   T'(S) = T - sum_{calls of S} (t - f) + setup(S) + h2d_ns(S) + d2h_ns(S)
 * where the transfers are the residency simulation's (resid_simulate, the top-level mode:
 * exact where host reads were recorded, else optimistic) with exactly those calls
 * accelerated; a run's T' is the sum over its processes.  Three plans are printed:
 *   all           every modelled function;
 *   call-by-call  each call whose f < t (what --only-faster replaces), transfers and all;
 *   best          the S of least T': every subset when there are at most
 *                 PLAN_EXHAUSTIVE_MAX functions, else greedy: from the better of all and
 *                 the functions call-by-call accelerates, flip the one function whose
 *                 flip lowers T' most, until no flip does.
 * Simplifications, said in the report's notes: the calls' t is the traced t_ns (not less
 * tracing's cost of nested rows); nested calls (depth > 0) stay with their outer call,
 * as in the simulation; a model keyed on bytes too (--device's) gives f of the call's
 * shape, as predict.c does; threads are summed, as Amdahl's law does.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "func_names.h"
#include "input.h"
#include "model.h"
#include "model2d.h"
#include "plan.h"
#include "report_fmt.h"
#include "resid.h"
#include "rows.h"
#include "transfers.h"

/* One process: its events, and its depth-0 calls' times by seq. */
struct plan_proc {
	struct resid_events ev;
	struct resid_result res;
	double *t, *f;		/* [nseq], by slot: measured and modelled; f NaN: not plannable */
	double *setup;		/* by cand: the setup of the candidate's model file */
	double total_ns;	/* T */
	int mode;		/* enum resid_mode: the top level's */
};

/* One plan's figures. */
struct plan_fig {
	const char *name;
	unsigned char *in;	/* by cand: accelerated (call-by-call: any call of it) */
	double total_ns;	/* T' */
	struct resid_dir h2d, d2h;
};

/* The planner's state. */
struct planner {
	const struct report *r;
	struct plan_proc *procs;
	int nprocs;
	int *cand;		/* funcs ids of the candidates (plannable modelled functions) */
	int ncand;
	int *cand_of;		/* by funcs id: index in cand, or -1 */
	int nfuncs;
	unsigned char *accel;	/* scratch, [nseq + 1] of the largest process */
	struct link_model link;
	double total_ns;	/* the run's T */
	uint64_t evaluated;	/* plans simulated */
	int exhaustive;
};

/* Reads PATH's depth-0 calls: t and f by slot (resid.h), the candidates met.  0, or -1. */
static int read_calls(struct planner *pl, struct plan_proc *p, const char *path)
{
	struct trace_src src;
	struct trace_row row;
	uint64_t n = p->ev.nseq;
	int rc;

	p->t = calloc(n + 1, sizeof(double));
	p->f = calloc(n + 1, sizeof(double));
	if (!p->t || !p->f)
		return -1;
	for (uint64_t i = 0; i <= n; i++)
		p->f[i] = NAN;
	if (rows_open(&src, path) != 0)
		return -1;
	while ((rc = rows_next(&src, &row)) == 1) {
		uint64_t k = resid_index(&p->ev, row.seq);	/* its slot */
		if (k >= n || row.depth != 0 || row.work < 0 || row.t_ns < 0)
			continue;
		const struct func *fn = funcs_get((int)row.func);
		if (fn->model < 0)
			continue;
		struct model *m = &pl->r->models->m[fn->model];
		int oor;
		if (m->b) {	/* keyed on bytes too (--device's): f of the call's shape */
			int64_t bytes = rows_call_bytes(&row), shape;
			if (bytes == ROWS_NONE)
				continue;	/* not replaced (predict.c) */
			if ((shape = model2d_shape(m, row.work, bytes)) < 0) {
				rc = -1;
				break;
			}
			p->t[k] = (double)row.t_ns;
			p->f[k] = model2d_f(m, shape, &oor);
			continue;
		}
		p->t[k] = (double)row.t_ns;
		p->f[k] = model_eval(m, (double)row.work, &oor);
	}
	rows_close(&src);
	return rc < 0 ? -1 : 0;
}

/* The candidates: functions with a plannable call in some process. */
static int find_candidates(struct planner *pl)
{
	pl->nfuncs = funcs_count();
	pl->cand_of = malloc((size_t)pl->nfuncs * sizeof(int) + 1);
	pl->cand = malloc((size_t)pl->nfuncs * sizeof(int) + 1);
	if (!pl->cand_of || !pl->cand)
		return -1;
	for (int i = 0; i < pl->nfuncs; i++)
		pl->cand_of[i] = -1;
	for (int i = 0; i < pl->nprocs; i++) {
		const struct plan_proc *p = &pl->procs[i];
		for (uint64_t s = 0; s < p->ev.nseq; s++) {
			int fid = p->ev.func[s];
			if (fid < 0 || isnan(p->f[s]) || pl->cand_of[fid] >= 0)
				continue;
			pl->cand_of[fid] = pl->ncand;
			pl->cand[pl->ncand++] = fid;
		}
	}
	return 0;
}

/* The setup cost of plan IN in process P: each model file's '# setup_ns' once, when one
 * of its models is used. */
static double setup_of(const struct planner *pl, const unsigned char *in)
{
	uint64_t files = 0;
	double ns = 0;

	for (int c = 0; c < pl->ncand; c++) {
		const struct model *m = &pl->r->models->m[funcs_get(pl->cand[c])->model];
		if (!in[c] || m->setup_ns <= 0 || files & 1ull << (m->file_id & 63))
			continue;
		files |= 1ull << (m->file_id & 63);
		ns += m->setup_ns;
	}
	return ns;
}

/* Simulates plan FIG (its functions; with BY_CALL, the calls with f < t instead) in every
 * process and fills its T' and transfers.  0, or -1 out of memory. */
static int evaluate(struct planner *pl, struct plan_fig *fig, int by_call)
{
	fig->total_ns = 0;
	memset(&fig->h2d, 0, sizeof(fig->h2d));
	memset(&fig->d2h, 0, sizeof(fig->d2h));
	for (int i = 0; i < pl->nprocs; i++) {
		struct plan_proc *p = &pl->procs[i];
		double saved = 0;
		int any = 0;
		for (uint64_t s = 0; s < p->ev.nseq; s++) {
			int fid = p->ev.func[s], c = fid >= 0 ? pl->cand_of[fid] : -1;
			int on = c >= 0 && !isnan(p->f[s]) &&
				 (by_call ? p->f[s] < p->t[s] : fig->in[c]);
			pl->accel[s] = (unsigned char)on;
			if (on) {
				saved += p->t[s] - p->f[s];
				any = 1;
				if (by_call)
					fig->in[c] = 1;
			}
		}
		pl->accel[p->ev.nseq] = 0;
		if (resid_simulate(&p->ev, pl->accel, (enum resid_mode)p->mode, &pl->link,
				   &p->res) != 0)
			return -1;
		fig->total_ns += p->total_ns - saved + (any ? setup_of(pl, fig->in) : 0) +
				 p->res.h2d.ns + p->res.d2h.ns;
		fig->h2d.bytes += p->res.h2d.bytes;
		fig->h2d.transfers += p->res.h2d.transfers;
		fig->h2d.ns += p->res.h2d.ns;
		fig->d2h.bytes += p->res.d2h.bytes;
		fig->d2h.transfers += p->res.d2h.transfers;
		fig->d2h.ns += p->res.d2h.ns;
	}
	pl->evaluated++;
	return 0;
}

/* BEST: the least T' over every subset (exhaustive), or by greedy flips from START. */
static int search(struct planner *pl, struct plan_fig *best, const struct plan_fig *start)
{
	struct plan_fig cur = { .name = "best" };
	int n = pl->ncand;

	if (!(cur.in = calloc((size_t)n + 1, 1)))
		return -1;
	pl->exhaustive = n <= PLAN_EXHAUSTIVE_MAX;
	if (pl->exhaustive) {
		for (uint32_t mask = 0; mask < (1u << n); mask++) {
			for (int c = 0; c < n; c++)
				cur.in[c] = (unsigned char)(mask >> c & 1);
			if (evaluate(pl, &cur, 0) != 0)
				goto oom;
			if (mask == 0 || cur.total_ns < best->total_ns) {
				memcpy(best->in, cur.in, (size_t)n);
				best->total_ns = cur.total_ns;
				best->h2d = cur.h2d;
				best->d2h = cur.d2h;
			}
		}
		free(cur.in);
		return 0;
	}
	memcpy(best->in, start->in, (size_t)n);
	if (evaluate(pl, best, 0) != 0)
		goto oom;
	for (;;) {
		int flip = -1;
		double t = best->total_ns;
		for (int c = 0; c < n; c++) {
			memcpy(cur.in, best->in, (size_t)n);
			cur.in[c] ^= 1;
			if (evaluate(pl, &cur, 0) != 0)
				goto oom;
			if (cur.total_ns < t) {
				t = cur.total_ns;
				flip = c;
			}
		}
		if (flip < 0)
			break;
		best->in[flip] ^= 1;
		if (evaluate(pl, best, 0) != 0)
			goto oom;
	}
	free(cur.in);
	return 0;
oom:
	free(cur.in);
	return -1;
}

/* --- output --- */

static double s_g(const struct planner *pl, const struct plan_fig *f)
{
	return f->total_ns > 0 ? pl->total_ns / f->total_ns : NAN;
}

static void put_funcs(FILE *out, const struct planner *pl, const struct plan_fig *f, int json)
{
	int first = 1;

	for (int c = 0; c < pl->ncand; c++) {
		if (!f->in[c])
			continue;
		const char *name = funcs_get(pl->cand[c])->name;
		if (json) {
			fputs(first ? "" : ", ", out);
			json_string(out, name);
		} else
			fprintf(out, "%s%s", first ? "" : ", ", funcs_get(pl->cand[c])->shown);
		first = 0;
	}
	if (first && !json)
		fputs("(none: all on the host)", out);
}

/* The processes' mode: "exact", "optimistic", "pessimistic", or "mixed". */
static const char *mode_text(const struct planner *pl)
{
	for (int i = 1; i < pl->nprocs; i++)
		if (pl->procs[i].mode != pl->procs[0].mode)
			return "mixed";
	return pl->nprocs ? resid_mode_name[pl->procs[0].mode] : "none";
}

/* The plan of least T' among FIGS (the first of equals).  "best" is the best set of whole
 * functions; call-by-call decides each call and can beat it (small calls left on the
 * host), so the answer is the least of the three, not always "best". */
static int least(const struct plan_fig *figs, int n)
{
	int k = 0;

	for (int i = 1; i < n; i++)
		if (figs[i].total_ns < figs[k].total_ns)
			k = i;
	return k;
}

static void print_table(FILE *out, const struct planner *pl, const struct plan_fig *figs, int n)
{
	char a[32], b[32];

	fprintf(out, "\nOffload plans (T' with the transfers, %s; %s over %d function%s, "
		"%llu plans simulated)\n", mode_text(pl),
		pl->exhaustive ? "every subset" : "greedy flips", pl->ncand, pl->ncand == 1 ? "" : "s",
		(unsigned long long)pl->evaluated);
	fprintf(out, "%-13s %12s %8s %14s %6s %14s %6s  %s\n", "plan", "T'", "S_G", "h2d bytes",
		"moves", "d2h bytes", "moves", "accelerated");
	for (int i = 0; i < n; i++) {
		const struct plan_fig *f = &figs[i];
		double g = s_g(pl, f);
		if (isnan(g))
			snprintf(b, sizeof(b), "-");
		else
			snprintf(b, sizeof(b), "%.3f", g);
		fprintf(out, "%-13s %12s %8s %14llu %6llu %14llu %6llu  ", f->name,
			fmt_ns(a, sizeof(a), f->total_ns), b,
			(unsigned long long)f->h2d.bytes, (unsigned long long)f->h2d.transfers,
			(unsigned long long)f->d2h.bytes, (unsigned long long)f->d2h.transfers);
		put_funcs(out, pl, f, 0);
		fputc('\n', out);
	}
	fprintf(out, "(T = %s; best: the best set of whole functions; call-by-call: the calls "
		"whose model is faster\nthan their measured time, as --only-faster)\n",
		fmt_ns(a, sizeof(a), pl->total_ns));
	int k = least(figs, n);
	if (strcmp(figs[k].name, "best") != 0)
		fprintf(out, "least T': %s, %s below the best set of whole functions (it decides each "
			"call,\nleaving the calls the model does not speed up on the host)\n", figs[k].name,
			fmt_ns(b, sizeof(b), figs[0].total_ns - figs[k].total_ns));
	else
		fprintf(out, "least T': best\n");
}

static void print_json(FILE *out, const struct planner *pl, const struct plan_fig *figs, int n)
{
	fprintf(out, ",\n  \"plan_search\": \"%s\", \"plan_mode\": \"%s\", \"plans\": [",
		pl->exhaustive ? "exhaustive" : "greedy", mode_text(pl));
	for (int i = 0; i < n; i++) {
		const struct plan_fig *f = &figs[i];
		fprintf(out, "%s\n    {\"name\": \"%s\", \"functions\": [", i ? "," : "", f->name);
		put_funcs(out, pl, f, 1);
		fputs("], \"predicted_total_ns\": ", out);
		json_number(out, f->total_ns);
		fputs(", \"S_G\": ", out);
		json_number(out, s_g(pl, f));
		fprintf(out, ", \"h2d_bytes\": %llu, \"d2h_bytes\": %llu, \"h2d_transfers\": %llu, "
			"\"d2h_transfers\": %llu, \"h2d_ns\": ", (unsigned long long)f->h2d.bytes,
			(unsigned long long)f->d2h.bytes, (unsigned long long)f->h2d.transfers,
			(unsigned long long)f->d2h.transfers);
		json_number(out, f->h2d.ns);
		fputs(", \"d2h_ns\": ", out);
		json_number(out, f->d2h.ns);
		fputs("}", out);
	}
	fprintf(out, "\n  ], \"least_plan\": \"%s\"", figs[least(figs, n)].name);
}

static void print_csv(FILE *out, const struct planner *pl, const struct plan_fig *figs, int n)
{
	for (int i = 0; i < n; i++) {
		const struct plan_fig *f = &figs[i];
		fprintf(out, "# plan=%s predicted_total_ns=%.0f S_G=%.6g h2d_bytes=%llu d2h_bytes=%llu "
			"functions=", f->name, f->total_ns, s_g(pl, f),
			(unsigned long long)f->h2d.bytes, (unsigned long long)f->d2h.bytes);
		for (int c = 0, first = 1; c < pl->ncand; c++)
			if (f->in[c]) {
				fprintf(out, "%s%s", first ? "" : ";", funcs_get(pl->cand[c])->shown);
				first = 0;
			}
		fputc('\n', out);
	}
}

/* The report as REPORT prints it, with the plans put in: into the JSON object before its
 * closing brace, after the table, or as '#' lines after the CSV. */
static int print_all(FILE *out, const struct report *r, const struct planner *pl,
		     const struct plan_fig *figs, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (r->format != REPORT_JSON) {
		if (report_print(out, r) != 0)
			return -1;
		if (r->format == REPORT_CSV)
			print_csv(out, pl, figs, n);
		else
			print_table(out, pl, figs, n);
		return 0;
	}
	if (!(mem = open_memstream(&buf, &len)))
		return -1;
	int rc = report_print(mem, r);
	fclose(mem);
	if (rc != 0 || !buf) {
		free(buf);
		return -1;
	}
	/* the object ends "}\n": the plans go before that brace */
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '}'))
		if (buf[--len] == '}')
			break;
	while (len > 0 && buf[len - 1] == '\n')
		len--;
	fwrite(buf, 1, len, out);
	print_json(out, pl, figs, n);
	fputs("\n}\n", out);
	free(buf);
	return 0;
}

/* Loads each process of R: events, calls, T.  0; -1 after a message. */
static int load(struct planner *pl)
{
	const struct report *r = pl->r;
	uint64_t most = 0;

	if (!(pl->procs = calloc((size_t)r->nprocs + 1, sizeof(*pl->procs))))
		return -2;
	for (int i = 0; i < r->nprocs; i++) {
		struct plan_proc *p = &pl->procs[i];
		const char *path = r->procs[i].path;
		int rc = resid_load(&p->ev, path);
		pl->nprocs = i + 1;
		if (rc == 1) {
			input_error(path, 0, "has no TRACE.flow: record it with -g std.flow "
				    "(--plan simulates the transfers)");
			return -1;
		}
		if (rc != 0)
			return -1;
		/* the top-level mode, as transfers.c takes it (--residency, which refused
		 * exact without host reads already) */
		p->mode = transfers_mode >= 0 ? transfers_mode
			  : p->ev.host_reads ? RESID_EXACT : RESID_OPTIMISTIC;
		p->total_ns = (double)r->procs[i].total_ns;
		pl->total_ns += p->total_ns;
		if (read_calls(pl, p, path) != 0)
			return -2;
		most = p->ev.nseq > most ? p->ev.nseq : most;
	}
	if (!(pl->accel = calloc(most + 1, 1)))
		return -2;
	return find_candidates(pl) != 0 ? -2 : 0;
}

static void planner_free(struct planner *pl)
{
	for (int i = 0; i < pl->nprocs; i++) {
		resid_events_free(&pl->procs[i].ev);
		resid_result_free(&pl->procs[i].res);
		free(pl->procs[i].t);
		free(pl->procs[i].f);
	}
	free(pl->procs);
	free(pl->cand);
	free(pl->cand_of);
	free(pl->accel);
}

/* What a finished search is handed: the planner and its three plans. */
typedef int (*plan_use)(void *ctx, const struct planner *pl, const struct plan_fig *figs, int n);

/* Finds R's three plans and hands them to USE.  0; -1 after a message. */
static int plan_run(const struct report *r, plan_use use, void *ctx)
{
	struct planner pl = { .r = r };
	struct plan_fig figs[3] = { { .name = "best" }, { .name = "all" },
				    { .name = "call-by-call" } };
	int rc;

	pl.link.h2d = models_link(r->models, MODEL_H2D);
	pl.link.d2h = models_link(r->models, MODEL_D2H);
	if (!pl.link.h2d || !pl.link.d2h) {
		input_error(NULL, 0, "--plan needs a link model: rows @h2d and @d2h among the "
			    "models (models/link-*.csv, or dyl-model --link)");
		return -1;
	}
	rc = load(&pl);
	for (int i = 0; rc == 0 && i < 3; i++)
		if (!(figs[i].in = calloc((size_t)pl.ncand + 1, 1)))
			rc = -2;
	if (rc == 0) {
		memset(figs[1].in, 1, (size_t)pl.ncand);
		rc = evaluate(&pl, &figs[1], 0) || evaluate(&pl, &figs[2], 1) ? -2 : 0;
	}
	if (rc == 0)
		rc = search(&pl, &figs[0], figs[2].total_ns < figs[1].total_ns ? &figs[2]
									       : &figs[1]) ? -2 : 0;
	if (rc == 0)
		rc = use(ctx, &pl, figs, 3) ? -2 : 0;
	if (rc == -2)
		input_error(NULL, 0, "out of memory");
	for (int i = 0; i < 3; i++)
		free(figs[i].in);
	planner_free(&pl);
	return rc ? -1 : 0;
}

static int print_use(void *out, const struct planner *pl, const struct plan_fig *figs, int n)
{
	return print_all(out, pl->r, pl, figs, n);
}

int plan_report(FILE *out, const struct report *r)
{
	return plan_run(r, print_use, out);
}

/* The plans as rows (plan.h): the functions' names joined by ", ". */
static int rows_use(void *ctx, const struct planner *pl, const struct plan_fig *figs, int n)
{
	struct plan_rows *pr = ctx;
	size_t len;
	FILE *mem;

	pr->mode = mode_text(pl);
	pr->exhaustive = pl->exhaustive;
	pr->ncand = pl->ncand;
	pr->evaluated = pl->evaluated;
	pr->total_ns = pl->total_ns;
	pr->least = least(figs, n);
	for (int i = 0; i < n && i < 3; i++) {
		struct plan_row *w = &pr->row[i];
		*w = (struct plan_row){ .name = figs[i].name, .total_ns = figs[i].total_ns,
					.S_G = s_g(pl, &figs[i]), .h2d_bytes = figs[i].h2d.bytes,
					.d2h_bytes = figs[i].d2h.bytes,
					.h2d_transfers = figs[i].h2d.transfers,
					.d2h_transfers = figs[i].d2h.transfers };
		if (!(mem = open_memstream(&w->functions, &len)))
			return -1;
		put_funcs(mem, pl, &figs[i], 0);
		if (fclose(mem) != 0)
			return -1;
	}
	pr->n = n < 3 ? n : 3;
	return 0;
}

int plan_rows(const struct report *r, struct plan_rows *pr)
{
	memset(pr, 0, sizeof(*pr));
	return plan_run(r, rows_use, pr);
}

void plan_rows_free(struct plan_rows *pr)
{
	for (int i = 0; i < 3; i++)
		free(pr->row[i].functions);
	memset(pr, 0, sizeof(*pr));
}
