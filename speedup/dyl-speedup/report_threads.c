/* report_threads.c - the threads of each process predicted by its timeline: what each
 * measured and is predicted to take, P and S per thread, the critical path (the chain of
 * starts and joins that decides the process's end) and what calls waited for a device.
 * A thread's measured time runs from its start to its end (the main thread's: T); its
 * predicted time likewise on the timeline. */
#include <math.h>
#include <string.h>
#include "report_fmt.h"
#include "report_threads.h"
#include "timeline.h"

/* Thread I of process P: measured and predicted time (NAN when not known). */
static void thread_times(const struct prediction *p, int i, double *measured, double *predicted)
{
	const struct tl_thread *t = &p->tl->th[i];
	if (i == 0) {
		*measured = (double)p->total_ns;
		*predicted = p->predicted_total_ns;
		return;
	}
	*measured = t->end_ns != TL_UNKNOWN ? (double)(t->end_ns - t->start_ns)
		    : (double)p->tl_clock_total_ns - (double)t->start_ns;
	*predicted = t->state == TL_DONE ? t->pend - t->pstart : NAN;
}

static void table_row(FILE *out, const struct prediction *p, int i)
{
	const struct tl_thread *t = &p->tl->th[i];
	char a[32], b[32], c[32], d[32], w[64] = "-", by[24] = "-";
	double m, pr;

	thread_times(p, i, &m, &pr);
	if (t->creator >= 0)
		snprintf(by, sizeof(by), "%llu", (unsigned long long)p->tl->th[t->creator].tid);
	if (t->waited_calls)
		snprintf(w, sizeof(w), "%s (%llu call%s)", fmt_ns(d, sizeof(d), t->queue_wait_ns),
			 (unsigned long long)t->waited_calls, t->waited_calls == 1 ? "" : "s");
	if (t->state == TL_ABSORBED)
		snprintf(w, sizeof(w), "part of a replaced call of its creator");
	fprintf(out, "  %-12llu%-5s %-12s %12s %12s %7.2f%% %7s %8zu  %s\n",
		(unsigned long long)t->tid, i == 0 ? " main" : "", by,
		fmt_ns(a, sizeof(a), m), isfinite(pr) ? fmt_ns(b, sizeof(b), pr) : "-",
		m > 0 ? 100.0 * (double)t->t_sum / m : 0.0, fmt_ratio(c, sizeof(c), m / pr), t->ncalls, w);
}

/* The stretches of the path shown: all when they are few; else the first and the last
 * PATH_SHOWN / 2, and how many are left out between (waits hand the path from thread
 * to thread at each wake-up: hundreds of stretches). */
#define PATH_SHOWN 8

static void path_line(FILE *out, const struct prediction *p)
{
	const struct timeline *tl = p->tl;
	char a[32], b[32], c[32];

	fprintf(out, "  critical path (from the wrapper's start):");
	for (int s = 0; s < tl->npath; s++) {
		const struct tl_step *st = &tl->path[s];
		if (tl->npath > PATH_SHOWN && s == PATH_SHOWN / 2) {
			fprintf(out, " -> ... (%d more)", tl->npath - PATH_SHOWN);
			s = tl->npath - PATH_SHOWN / 2 - 1;
			continue;
		}
		fprintf(out, "%s%llu %s..%s%s", s ? " -> " : " ",
			(unsigned long long)tl->th[st->th].tid, fmt_ns(a, sizeof(a), st->from),
			fmt_ns(b, sizeof(b), st->to),
			st->how == TL_HOW_JOIN ? " (after its join)" : st->how == TL_HOW_WAKE ?
			" (woken)" : s ? " (from its start)" : "");
	}
	fprintf(out, "\n");
	/* T' is on T's clock: the path's end, plus what T has before the wrapper's start
	 * (start-up) less what it took out (tracing's cost), plus the transfers at the end */
	double shift = p->predicted_total_ns - tl->end_ns;
	fprintf(out, "  T' = the path's end %s %s %s (start-up, less tracing's cost%s) = %s\n",
		fmt_ns(a, sizeof(a), tl->end_ns), shift < 0 ? "-" : "+",
		fmt_ns(b, sizeof(b), fabs(shift)),
		p->xfer_tail_ns > 0 ? ", plus the transfers after the last call" : "",
		fmt_ns(c, sizeof(c), p->predicted_total_ns));
}

static void process_table(FILE *out, const struct report *r, const struct prediction *p)
{
	char a[32];

	if (p->devices)
		fprintf(out, "\nthreads of %s (timelines; --devices %d: at most %d replaced call%s "
			"at once):\n", p->path, p->devices, p->devices, p->devices == 1 ? "" : "s");
	else
		fprintf(out, "\nthreads of %s (timelines; --devices unlimited):\n", p->path);
	fprintf(out, "  %-17s %-12s %12s %12s %8s %7s %8s  %s\n", "thread", "created by", "measured",
		"predicted", "P", "S", "calls", "waited for a device");
	for (int i = 0; i < p->tl->n; i++)
		table_row(out, p, i);
	path_line(out, p);
	if (p->tl->waits)
		fprintf(out, "  waits: %zu of %zu end at the predicted time of the wake-up that ended "
			"them (another thread's signal, unlock, post or arrival); the others keep their "
			"measured time\n", p->tl->waits_followed, p->tl->waits);
	fprintf(out, "  queueing: %llu of %llu replaced calls waited for a device, %s in all\n",
		(unsigned long long)p->waited_calls, (unsigned long long)p->calls,
		fmt_ns(a, sizeof(a), p->queue_wait_ns));
	(void)r;
}

void threads_table(FILE *out, const struct report *r)
{
	for (int i = 0; i < r->nprocs; i++)
		if (r->procs[i].tl)
			process_table(out, r, &r->procs[i]);
}

static void json_thread(FILE *out, const struct prediction *p, int i, int first)
{
	const struct tl_thread *t = &p->tl->th[i];
	double m, pr;

	thread_times(p, i, &m, &pr);
	fputs(first ? "\n    {\"trace\": " : ",\n    {\"trace\": ", out);
	json_string(out, p->path);
	fprintf(out, ", \"tid\": %llu, \"main\": %s, \"parent\": ", (unsigned long long)t->tid,
		i == 0 ? "true" : "false");
	if (t->creator >= 0)
		fprintf(out, "%llu", (unsigned long long)p->tl->th[t->creator].tid);
	else
		fputs("null", out);
	fprintf(out, ", \"state\": \"%s\", \"measured_ns\": ",
		t->state == TL_ABSORBED ? "part of a replaced call" : "ran");
	json_number(out, m);
	fputs(", \"predicted_ns\": ", out);
	json_number(out, pr);
	fputs(", \"P\": ", out);
	json_number(out, m > 0 ? (double)t->t_sum / m : NAN);
	fputs(", \"S\": ", out);
	json_number(out, m / pr);
	fprintf(out, ", \"calls\": %zu, \"t_ns\": %lld, \"f_ns\": ", t->ncalls,
		(long long)t->t_sum);
	json_number(out, t->f_sum);
	fputs(", \"predicted_start_ns\": ", out);
	json_number(out, t->pstart);
	fputs(", \"predicted_end_ns\": ", out);
	json_number(out, t->pend);
	fputs(", \"queue_wait_ns\": ", out);
	json_number(out, t->queue_wait_ns);
	fprintf(out, ", \"waited_calls\": %llu}", (unsigned long long)t->waited_calls);
}

static int json_path(FILE *out, const struct prediction *p, int first)
{
	for (int s = 0; s < p->tl->npath; s++, first = 0) {
		const struct tl_step *st = &p->tl->path[s];
		fputs(first ? "\n    {\"trace\": " : ",\n    {\"trace\": ", out);
		json_string(out, p->path);
		fprintf(out, ", \"tid\": %llu, \"from_ns\": ", (unsigned long long)p->tl->th[st->th].tid);
		json_number(out, st->from);
		fputs(", \"to_ns\": ", out);
		json_number(out, st->to);
		fprintf(out, ", \"after\": \"%s\"}", st->how == TL_HOW_JOIN ? "join" :
			st->how == TL_HOW_WAKE ? "wake" : "start");
	}
	return first;
}

void threads_json(FILE *out, const struct report *r)
{
	int first = 1;

	fputs(",\n  \"devices\": ", out);
	if (r->devices)
		fprintf(out, "%d", r->devices);
	else
		fputs("\"unlimited\"", out);
	fputs(",\n  \"threads\": [", out);
	for (int i = 0; i < r->nprocs; i++)
		for (int t = 0; r->procs[i].tl && t < r->procs[i].tl->n; t++, first = 0)
			json_thread(out, &r->procs[i], t, first);
	fputs(first ? "]" : "\n  ]", out);
	fputs(",\n  \"critical_path\": [", out);
	first = 1;
	for (int i = 0; i < r->nprocs; i++)
		if (r->procs[i].tl)
			first = json_path(out, &r->procs[i], first);
	fputs(first ? "]" : "\n  ]", out);
}
