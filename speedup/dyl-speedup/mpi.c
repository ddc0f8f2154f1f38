/* mpi.c - an MPI job across its ranks: dependencies from std.mpi's rows, the replay
 * with the kernels' savings, and the report's MPI section (mpi.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "func_names.h"
#include "grow.h"
#include "input.h"
#include "mpi.h"
#include "rows.h"
#include "xdeps.h"

/* The job: its ranks (by trace), their world ranks' index, the clocks' residual */
struct job {
	struct mj_rank *r;
	int n;
	int one_host;
	double residual_ns;	/* the synchronizing collectives' exits, the most apart */
	size_t matched_msgs, matched_colls;	/* receives matched with sends; collectives */
	size_t residual_of;	/* how many were compared */
};

static int add_dep(struct mj_event *e, int rank, size_t ev)
{
	if (grow(&e->deps, sizeof(*e->deps), e->ndeps, &e->deps_room, 4) != 0)
		return -1;
	e->deps[e->ndeps++] = (struct mj_dep){ rank, ev };
	return 0;
}

/* A receive waits for its matching send's start */
static int msg_dep(void *ctx, int recv, size_t recv_ev, int send, size_t send_ev, int64_t bytes)
{
	struct job *j = ctx;
	(void)bytes;
	return add_dep(&j->r[recv].ev[recv_ev], send, send_ev);
}

static int match_p2p(struct job *j)
{
	long n = mj_match_msgs(j->r, j->n, msg_dep, j);
	if (n < 0)
		return -1;
	j->matched_msgs = (size_t)n;
	return 0;
}

/* A collective's member: where it arrived (START) and where it completed (DONE) */
struct coll {
	int64_t comm, seq;
	int rank;
	size_t start, done;
};

static int cmp_coll(const void *a, const void *b)
{
	const struct coll *x = a, *y = b;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->rank - y->rank;
}

/* The Wait of rank R that completed the non-blocking collective of event I */
static size_t coll_done(const struct mj_rank *r, size_t i)
{
	for (size_t j = i + 1; j < r->nev; j++)
		for (size_t t = 0; t < r->ev[j].nitems; t++)
			if (r->ev[j].items[t].kind == 'c' && r->ev[j].items[t].req == r->ev[i].req)
				return j;
	return (size_t)-1;
}

/* Each member of a collective waits for every other member's arrival */
static int match_colls(struct job *j)
{
	struct coll *c = NULL;
	size_t n = 0, room = 0;
	int rc = 0;

	for (int k = 0; k < j->n && rc == 0; k++)
		for (size_t i = 0; i < j->r[k].nev && rc == 0; i++) {
			const struct mj_event *e = &j->r[k].ev[i];
			size_t done = e->kind == MJ_COLL ? i : e->kind == MJ_ICOLL ? coll_done(&j->r[k], i)
				: (size_t)-1;
			if (done == (size_t)-1 || e->seq < 0)
				continue;
			rc = grow(&c, sizeof(*c), n, &room, 64);
			if (rc == 0)
				c[n++] = (struct coll){ e->comm, e->seq, k, i, done };
		}
	qsort(c, n, sizeof(*c), cmp_coll);
	for (size_t a = 0; a < n && rc == 0;) {
		size_t b = a;
		while (b < n && c[b].comm == c[a].comm && c[b].seq == c[a].seq)
			b++;
		for (size_t x = a; x < b && rc == 0; x++)
			for (size_t y = a; y < b && rc == 0; y++)
				if (x != y)
					rc = add_dep(&j->r[c[x].rank].ev[c[x].done], c[y].rank, c[y].start);
		j->matched_colls += b - a > 1;
		a = b;
	}
	free(c);
	return rc;
}

/* The ranks on one axis: by their epoch start on one host, else by MPI_Init's exit */
static void align(struct job *j)
{
	int64_t first = INT64_MAX, latest = INT64_MIN;

	j->one_host = 1;
	for (int k = 0; k < j->n; k++) {
		if (strcmp(j->r[k].host, j->r[0].host) != 0)
			j->one_host = 0;
		if (j->r[k].start_ns < first)
			first = j->r[k].start_ns;
	}
	for (int k = 0; k < j->n && !j->one_host; k++) {
		const struct mj_rank *r = &j->r[k];
		for (size_t i = 0; i < r->nev; i++)
			if (r->ev[i].kind == MJ_INIT && r->ev[i].e > latest)
				latest = r->ev[i].e;
	}
	for (int k = 0; k < j->n; k++) {
		struct mj_rank *r = &j->r[k];
		r->offset = r->start_ns - first;
		for (size_t i = 0; i < r->nev && !j->one_host; i++)
			if (r->ev[i].kind == MJ_INIT) {
				r->offset = latest - r->ev[i].e;
				break;
			}
	}
}

/* Each event's lag: what it took after the latest of its waits (measured, one axis) */
static void lags(struct job *j)
{
	for (int k = 0; k < j->n; k++) {
		struct mj_rank *r = &j->r[k];
		for (size_t i = 0; i < r->nev; i++) {
			struct mj_event *e = &r->ev[i];
			int64_t from = e->s + r->offset;
			for (size_t d = 0; d < e->ndeps; d++) {
				const struct mj_rank *b = &j->r[e->deps[d].rank];
				int64_t t = b->ev[e->deps[d].ev].s + b->offset;
				if (t > from)
					from = t;
			}
			e->lag = (double)(e->e + r->offset - from);
			if (e->lag < 0)
				e->lag = 0;
		}
	}
}

static int is_sync(const char *f)
{
	static const char *const sync[] = { "MPI_Barrier", "MPI_Allreduce", "MPI_Allgather",
		"MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Reduce_scatter",
		"MPI_Reduce_scatter_block", NULL };
	for (int i = 0; sync[i]; i++)
		if (!strcmp(f, sync[i]))
			return 1;
	return 0;
}

/* The clocks' residual: the exits of each synchronizing collective (every member
 * leaves once the last arrives), the most apart */
static void residual(struct job *j)
{
	for (int k = 0; k < j->n; k++) {
		const struct mj_rank *r = &j->r[k];
		for (size_t i = 0; i < r->nev; i++) {
			const struct mj_event *e = &r->ev[i];
			if (e->kind != MJ_COLL || !e->ndeps || !is_sync(funcs_get((int)e->func)->name))
				continue;
			for (size_t d = 0; d < e->ndeps; d++) {
				const struct mj_rank *b = &j->r[e->deps[d].rank];
				double gap = fabs((double)(b->ev[e->deps[d].ev].e + b->offset) -
						  (double)(e->e + r->offset));
				if (gap > j->residual_ns)
					j->residual_ns = gap;
			}
			j->residual_of++;
		}
	}
}

/* Advances rank R as far as its waits allow: 1 when it moved */
static int step(struct job *j, struct mj_rank *r)
{
	int moved = 0;

	while (r->k < r->nev) {
		struct mj_event *e = &r->ev[r->k];
		double t;
		if (!e->reached) {
			double gap = (double)(e->s - (r->k ? r->ev[r->k - 1].e : 0)) - e->save;
			e->parr = r->cur + (gap > 0 ? gap : 0);
			e->reached = moved = 1;
		}
		t = e->parr;
		e->bound = -1;
		for (size_t d = 0; d < e->ndeps; d++) {
			const struct mj_event *b = &j->r[e->deps[d].rank].ev[e->deps[d].ev];
			if (!b->reached)
				return moved;
			if (b->parr > t)
				t = b->parr, e->bound = (int)d;
		}
		e->pexit = e->ndeps ? t + e->lag : e->parr + (double)(e->e - e->s);
		r->cur = e->pexit;
		r->k++;
		moved = 1;
	}
	return moved;
}

/* The replay: every rank as far as it goes, until all end.  A rank that waits for an
 * event no rank reaches (traces that do not agree) has that wait dropped: its count. */
static int replay(struct job *j)
{
	int dropped = 0;

	for (int k = 0; k < j->n; k++)
		j->r[k].cur = (double)j->r[k].offset, j->r[k].k = 0;
	for (;;) {
		int moved = 0, stuck = -1;
		for (int k = 0; k < j->n; k++)
			moved |= step(j, &j->r[k]);
		for (int k = 0; k < j->n && stuck < 0; k++)
			if (j->r[k].k < j->r[k].nev)
				stuck = k;
		if (stuck < 0)
			break;
		if (!moved) {
			j->r[stuck].ev[j->r[stuck].k].ndeps = 0;
			dropped++;
		}
	}
	for (int k = 0; k < j->n; k++) {
		struct mj_rank *r = &j->r[k];
		double tail = (double)(r->total_ns - (r->nev ? r->ev[r->nev - 1].e : 0)) - r->tail_save;
		r->pend = r->cur + (tail > 0 ? tail : 0);
	}
	return dropped;
}

/* A rank's figures, measured and predicted: in MPI (every call but MPI_Init and
 * MPI_Finalize), outside MPI (compute: the time between its calls) */
struct figs {
	double mpi, mpi_p, comp, comp_p;
};

static struct figs rank_figs(const struct mj_rank *r)
{
	struct figs f = { 0 };
	double all = 0, all_p = 0;

	for (size_t i = 0; i < r->nev; i++) {
		const struct mj_event *e = &r->ev[i];
		const char *name = funcs_get((int)e->func)->name;
		double t = (double)(e->e - e->s), tp = e->pexit - e->parr;
		all += t, all_p += tp;
		if (e->kind != MJ_INIT && strcmp(name, "MPI_Finalize") != 0)
			f.mpi += t, f.mpi_p += tp;
	}
	f.comp = (double)r->total_ns - all;
	f.comp_p = r->pend - (double)r->offset - all_p;
	return f;
}

/* The window from the last MPI_Init exit to the last MPI_Finalize entry: measured
 * (*T) and predicted (*TP); 0 when a rank lacks either */
static int window(const struct job *j, double *t, double *tp)
{
	double a = -INFINITY, ap = -INFINITY, b = -INFINITY, bp = -INFINITY;

	for (int k = 0; k < j->n; k++) {
		const struct mj_rank *r = &j->r[k];
		int got = 0;
		for (size_t i = 0; i < r->nev; i++) {
			const struct mj_event *e = &r->ev[i];
			if (e->kind == MJ_INIT) {
				a = fmax(a, (double)(e->e + r->offset)), ap = fmax(ap, e->pexit);
				got |= 1;
			}
			else if (!strcmp(funcs_get((int)e->func)->name, "MPI_Finalize")) {
				b = fmax(b, (double)(e->s + r->offset)), bp = fmax(bp, e->parr);
				got |= 2;
			}
		}
		if (got != 3)
			return 0;
	}
	*t = b - a, *tp = bp - ap;
	return 1;
}

/* The critical path, from the job's end back to its start: on rank K until the
 * arrival of another that released it */
static void print_path(FILE *out, const struct job *j, int k)
{
	double to = j->r[k].pend;
	size_t i = j->r[k].nev;

	fprintf(out, "critical path (predicted, ms from the job's start; latest first):\n");
	for (int steps = 0; steps < 64; steps++) {
		const struct mj_rank *r = &j->r[k];
		size_t b = i;
		while (b-- > 0 && r->ev[b].bound < 0)
			;
		if (b == (size_t)-1) {
			fprintf(out, "  rank %-4d %10.3f -> %10.3f   from its start\n", r->rank,
				(double)r->offset / 1e6, to / 1e6);
			return;
		}
		const struct mj_event *e = &r->ev[b];
		const struct mj_dep *d = &e->deps[e->bound];
		double from = j->r[d->rank].ev[d->ev].parr;
		fprintf(out, "  rank %-4d %10.3f -> %10.3f   released in %s by rank %d's arrival\n",
			r->rank, from / 1e6, to / 1e6, funcs_get((int)e->func)->name,
			j->r[d->rank].rank);
		k = d->rank, i = d->ev, to = from;
	}
	fprintf(out, "  ... (64 steps shown)\n");
}

static void print_ranks(FILE *out, const struct job *j, double *imb, double *imb_p)
{
	double cmax = 0, csum = 0, pmax = 0, psum = 0;

	fprintf(out, "rank  host              T (ms)    T' (ms)   in MPI   in MPI'  compute  compute'  kernels\n");
	for (int k = 0; k < j->n; k++) {
		const struct mj_rank *r = &j->r[k];
		struct figs f = rank_figs(r);
		fprintf(out, "%-5d %-14.14s %9.3f %10.3f %8.3f %9.3f %8.3f %9.3f %8llu\n", r->rank,
			r->host, (double)r->total_ns / 1e6, (r->pend - (double)r->offset) / 1e6,
			f.mpi / 1e6, f.mpi_p / 1e6, f.comp / 1e6, f.comp_p / 1e6,
			(unsigned long long)r->kernels);
		cmax = fmax(cmax, f.comp), csum += f.comp;
		pmax = fmax(pmax, f.comp_p), psum += f.comp_p;
	}
	*imb = csum > 0 ? cmax / (csum / j->n) : 1;
	*imb_p = psum > 0 ? pmax / (psum / j->n) : 1;
}

static void print_job(FILE *out, const struct job *j, int dropped)
{
	double end = 0, pend = 0, imb, imb_p, w, wp;
	int last = 0;

	fprintf(out, "\nMPI job: %d ranks, %s; clocks aligned %s; residual %.3f ms (the exits of "
		"%zu synchronizing collectives, the most apart)\n", j->n,
		j->one_host ? "one host" : "several hosts",
		j->one_host ? "by their start (one clock)" : "at MPI_Init's exit",
		j->residual_ns / 1e6, j->residual_of);
	fprintf(out, "matched: %zu receives with their sends, %zu collectives across ranks\n",
		j->matched_msgs, j->matched_colls);
	print_ranks(out, j, &imb, &imb_p);
	for (int k = 0; k < j->n; k++) {
		end = fmax(end, (double)(j->r[k].offset + j->r[k].total_ns));
		if (j->r[k].pend > pend)
			pend = j->r[k].pend, last = k;
	}
	fprintf(out, "job: T = %.3f ms, predicted T' = %.3f ms, S = %.4g   (first start to last end)\n",
		end / 1e6, pend / 1e6, pend > 0 ? end / pend : 0);
	if (window(j, &w, &wp))
		fprintf(out, "job between MPI_Init and MPI_Finalize: T = %.3f ms, predicted T' = %.3f ms, S = %.4g\n",
			w / 1e6, wp / 1e6, wp > 0 ? w / wp : 0);
	fprintf(out, "imbalance (max/mean of compute): %.3f, predicted %.3f\n", imb, imb_p);
	if (dropped)
		fprintf(out, "%d waits had no match in the other traces: kept as measured\n", dropped);
	print_path(out, j, last);
}

/* Reads the ranks among PATHS into J: 0 (J->n may be 0) or -1 */
static int load(struct job *j, const char *const *paths, int n, struct models *ms)
{
	j->r = calloc((size_t)n + 1, sizeof(*j->r));
	if (!j->r) {
		input_error(NULL, 0, "out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		int got = mj_read(&j->r[j->n], paths[i], ms);
		if (got < 0)
			return -1;
		if (got > 0)
			j->n++;
	}
	return 0;
}

int mpi_job_report(FILE *out, const char *const *paths, int n, struct models *ms)
{
	struct job j = { 0 };
	int rc = load(&j, paths, n, ms);

	if (rc == 0 && j.n > 0) {
		align(&j);
		rc = match_p2p(&j) != 0 || match_colls(&j) != 0 ? -1 : 0;
		if (rc != 0)
			input_error(NULL, 0, "out of memory");
		else {
			lags(&j);
			residual(&j);
			print_job(out, &j, replay(&j));
		}
	}
	for (int k = 0; k < j.n; k++)
		mj_rank_free(&j.r[k]);
	free(j.r);
	return rc;
}

/* The dependencies of J's MPI calls as the run's (xdeps.h); PROC[k]: rank k's process */
static int put_xdeps(struct xdeps *x, const struct job *j, const int *proc)
{
	for (int k = 0; k < j->n; k++) {
		const struct mj_rank *r = &j->r[k];
		for (size_t i = 0; i < r->nev; i++) {
			const struct mj_event *e = &r->ev[i];
			for (size_t d = 0; d < e->ndeps; d++) {
				const struct mj_rank *b = &j->r[e->deps[d].rank];
				struct xdep xd = { proc[k], (uint64_t)r->pid, e->s, e->e, proc[e->deps[d].rank],
						   (uint64_t)b->pid, b->ev[e->deps[d].ev].s,
						   (int64_t)e->lag, XDEP_MPI };
				if (xdep_add(x, &xd) != 0)
					return -1;
			}
		}
	}
	return 0;
}

int mpi_xdeps(struct xdeps *x, const struct trace_src *const *src, int n)
{
	struct job j = { 0 };
	int *proc = calloc((size_t)n + 1, sizeof(*proc));
	int rc = proc && (j.r = calloc((size_t)n + 1, sizeof(*j.r))) ? 0 : -1;

	for (int i = 0; i < n && rc == 0; i++) {
		int got = mj_read(&j.r[j.n], src[i]->path, NULL);
		rc = got < 0 ? -1 : 0;
		if (got > 0)
			proc[j.n++] = i;
	}
	if (rc == 0 && j.n > 0) {
		align(&j);
		rc = match_p2p(&j) != 0 || match_colls(&j) != 0 ? -1 : 0;
		if (rc == 0)
			lags(&j);
		for (int k = 0; k < j.n && rc == 0 && !j.one_host && x->offset_ns; k++)
			x->offset_ns[proc[k]] = j.r[k].offset;	/* (the clocks, at MPI_Init) */
		if (rc == 0)
			rc = put_xdeps(x, &j, proc);
	}
	for (int k = 0; k < j.n; k++)
		mj_rank_free(&j.r[k]);
	free(j.r);
	free(proc);
	return rc;
}
