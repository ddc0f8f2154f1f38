/* fault_ref.c - the fault-free reference times of faulted calls (fault_ref.h).
 *
 * Only when the trace has a faulted call: one pass over the kept calls groups the
 * fault-free calls' times by (func, work, shape: trace.h), and each group that has a
 * faulted call has its median selected once (linear).  Reading the trace does nothing more per row than
 * note the call's faults in struct call and count the faulted ones.
 */
#include <math.h>
#include <stdlib.h>
#include "fault_ref.h"
#include "func_names.h"
#include "input.h"

/* The group of C, through a cache of each function's last group: a thread's calls of one
 * function often repeat a work size.  NULL when out of memory. */
static struct sample_group *group_of(struct samples *s, size_t *last, const struct call *c)
{
	struct sample_group *g;

	if (last[c->func] && (g = &s->groups[last[c->func] - 1])->work == c->work &&
	    g->bytes == c->shape)
		return g;
	/* the shape in the bytes' place: one shape is one (work, bytes) of the model */
	if (!(g = samples_find(s, c->func, c->work, c->shape, 1)))
		return NULL;
	last[c->func] = (size_t)(g - s->groups) + 1;
	return g;
}

int fault_refs_build(struct fault_refs *fr, const struct trace *tr)
{
	size_t *last = NULL;	/* by func id: index + 1 of its last group */

	fr->s = (struct samples){ 0 };
	fr->fault_ns = tr->fault_ns;
	fr->median = NULL;
	if (tr->faulted == 0)
		return 0;
	if (!(last = calloc((size_t)funcs_count() + 1, sizeof(*last))))
		goto oom;
	/* every (func, work) met, its fault-free times, and in fn how many of its calls
	 * faulted (their times are not needed) */
	for (size_t t = 0; t < tr->tids.n; t++) {
		const struct thread *th = tids_item(&tr->tids, t);
		for (size_t i = 0; i < th->n; i++) {
			const struct call *c = &th->calls[i];
			struct sample_group *g;
			if (c->faults == CALL_FAULTS_UNKNOWN || c->work < 0 ||
			    c->shape == CALL_NO_BYTES)
				continue;
			if (!(g = group_of(&fr->s, last, c)))
				goto oom;
			if (CALL_FAULTED(c))
				g->fn++;
			else if (samples_push(g, c->t_ns) != 0)
				goto oom;
		}
	}
	free(last);
	last = NULL;
	fr->median = malloc((fr->s.n ? fr->s.n : 1) * sizeof(*fr->median));
	if (!fr->median)
		goto oom;
	for (size_t i = 0; i < fr->s.n; i++) {
		struct sample_group *g = &fr->s.groups[i];
		/* only the pairs with a faulted call are ever looked up */
		fr->median[i] = g->n && g->fn ? samples_stat(g, STAT_MEDIAN) : NAN;
		free(g->t);
		g->t = NULL;
		g->n = g->room = 0;
	}
	return 0;
oom:
	input_error(tr->path, 0, "out of memory");
	free(last);
	fault_refs_free(fr);
	return -1;
}

int fault_refs_excess(struct fault_refs *fr, const struct call *c, double *excess)
{
	const struct sample_group *g;
	double med;

	*excess = 0;
	if (!fr->median)
		return 0;
	g = samples_find(&fr->s, c->func, c->work, c->shape, 0);
	if (!g || isnan(med = fr->median[g - fr->s.groups]))
		return 0;
	if ((double)c->t_ns > med)
		*excess = (double)c->t_ns - med;
	if (fr->fault_ns > 0 && *excess > (double)CALL_FAULT_COUNT(c) * (double)fr->fault_ns)
		*excess = (double)CALL_FAULT_COUNT(c) * (double)fr->fault_ns;
	return 1;
}

void fault_refs_free(struct fault_refs *fr)
{
	samples_free(&fr->s);
	free(fr->median);
	fr->median = NULL;
}
