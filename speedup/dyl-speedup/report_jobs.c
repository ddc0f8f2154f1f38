/* report_jobs.c - the processes of a run on one timeline (jobs.h), in the table and in
 * JSON.  Times are on the run's axis: ns after the first process's start. */
#include <math.h>
#include "jobs.h"
#include "report_fmt.h"
#include "report_jobs.h"

static const char *const kind_names[XDEP_KINDS] = { "waitpid", "pipe", "mpi", "other" };

/* The process whose threads hold thread index TI (-1 none). */
static int proc_of(const struct job *job, int ti)
{
	for (int i = 0; i < job->n; i++)
		if (ti >= job->p[i].base && ti < job->p[i].base + job->p[i].nth)
			return i;
	return -1;
}

/* The run's critical path: the processes it goes through, and where. */
static void path_line(FILE *out, const struct job *job)
{
	const struct timeline *tl = &job->tl;
	char a[32], b[32];
	int shown = 0;

	fprintf(out, "  critical path (from the first start):");
	for (int s = 0; s < tl->npath; s++) {
		const struct tl_step *st = &tl->path[s];
		int p = proc_of(job, st->th);
		if (shown == 8) {
			fprintf(out, " -> ... (%d more)", tl->npath - s);
			break;
		}
		fprintf(out, "%spid %lld tid %llu %s..%s", shown++ ? " -> " : " ",
			(long long)(p >= 0 ? job->p[p].pid : -1), (unsigned long long)tl->th[st->th].tid,
			fmt_ns(a, sizeof(a), st->from), fmt_ns(b, sizeof(b), st->to));
	}
	fprintf(out, "\n");
}

static void table_row(FILE *out, const struct report *r, int i)
{
	const struct job_proc *p = &r->job->p[i];
	char a[32], b[32], c[32], d[32], e[32], par[24] = "-";

	if (p->parent >= 0)
		snprintf(par, sizeof(par), "%lld%s", (long long)r->job->p[p->parent].pid,
			 p->exec_of ? " exec" : "");
	fprintf(out, "  %-8lld %-12s %12s %12s %12s %12s %12s %6zu  %s\n", (long long)p->pid, par,
		fmt_ns(a, sizeof(a), (double)p->offset_ns),
		fmt_ns(b, sizeof(b), (double)(p->end_ns - p->offset_ns)),
		isfinite(p->pend) ? fmt_ns(c, sizeof(c), p->pend - p->pstart) : "-",
		fmt_ns(d, sizeof(d), p->waited_ns), fmt_ns(e, sizeof(e), p->pwaited_ns), p->deps,
		r->procs[i].path);
}

void jobs_table(FILE *out, const struct report *r)
{
	const struct job *job = r->job;
	char a[32], b[32];

	if (!job)
		return;
	fprintf(out, "\nprocesses on one timeline (doc/jobs-timeline.md; placed by '# start_ns=', from the "
		"first start):\n");
	fprintf(out, "  %-8s %-12s %12s %12s %12s %12s %12s %6s  %s\n", "pid", "started by",
		"start", "measured", "predicted", "waited", "waited'", "waits", "trace");
	for (int i = 0; i < job->n; i++)
		table_row(out, r, job->order[i]);
	fprintf(out, "  run: T = %s (first start to last end), T' = %s\n",
		fmt_ns(a, sizeof(a), (double)job->total_ns), fmt_ns(b, sizeof(b), job->predicted_ns));
	path_line(out, job);
	fprintf(out, "  waits on other processes: %zu waitpid, %zu pipe, %zu MPI, %zu other",
		job->by_kind[XDEP_WAITPID], job->by_kind[XDEP_PIPE], job->by_kind[XDEP_MPI],
		job->by_kind[XDEP_OTHER]);
	if (job->x.dropped)
		fprintf(out, "; %zu not placed (a thread not on the timeline): measured time kept",
			job->x.dropped);
	fprintf(out, "\n");
}

void jobs_json(FILE *out, const struct report *r)
{
	const struct job *job = r->job;

	if (!job)
		return;
	fprintf(out, ",\n  \"job\": {\"total_ns\": %lld, \"predicted_total_ns\": ",
		(long long)job->total_ns);
	json_number(out, job->predicted_ns);
	fputs(", \"waits\": {", out);
	for (int k = 0; k < XDEP_KINDS; k++)
		fprintf(out, "%s\"%s\": %zu", k ? ", " : "", kind_names[k], job->by_kind[k]);
	fprintf(out, "}, \"waits_not_placed\": %zu, \"critical_path\": [", job->x.dropped);
	for (int s = 0; s < job->tl.npath; s++) {
		const struct tl_step *st = &job->tl.path[s];
		int p = proc_of(job, st->th);
		fprintf(out, "%s{\"pid\": %lld, \"tid\": %llu, \"from_ns\": ", s ? ", " : "",
			(long long)(p >= 0 ? job->p[p].pid : -1), (unsigned long long)job->tl.th[st->th].tid);
		json_number(out, st->from);
		fputs(", \"to_ns\": ", out);
		json_number(out, st->to);
		fputs("}", out);
	}
	fputs("]}", out);
}

void jobs_json_proc(FILE *out, const struct report *r, int i)
{
	const struct job_proc *p;

	if (!r->job)
		return;
	p = &r->job->p[i];
	fprintf(out, ", \"pid\": %lld, \"ppid\": ", (long long)p->pid);
	if (p->ppid >= 0)
		fprintf(out, "%lld", (long long)p->ppid);
	else
		fputs("null", out);
	fputs(", \"started_by\": ", out);
	if (p->parent >= 0)
		fprintf(out, "%lld", (long long)r->job->p[p->parent].pid);
	else
		fputs("null", out);
	fprintf(out, ", \"exec_of\": %s, \"start_ns\": %lld, \"end_ns\": %lld, \"predicted_start_ns\": ",
		p->exec_of ? "true" : "false", (long long)p->offset_ns, (long long)p->end_ns);
	json_number(out, p->pstart);
	fputs(", \"predicted_end_ns\": ", out);
	json_number(out, p->pend);
	fputs(", \"waited_ns\": ", out);
	json_number(out, p->waited_ns);
	fputs(", \"predicted_waited_ns\": ", out);
	json_number(out, p->pwaited_ns);
	fprintf(out, ", \"waits\": %zu", p->deps);
}
