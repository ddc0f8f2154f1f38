/* resid_seqs.c - the seqs a process's events name, as slots of its arrays by call
 * (resid.h: resid_run, resid_index).
 *
 * A trace numbers its calls from 0 without gaps, so slot = seq for a whole trace.  But
 * the seqs come from the files: a row with seq 4294967295, or a .flow head that says
 * 200,000,000 calls, must not size an array.  So the arrays have one slot per seq that
 * was read (a row, a record, the end), and one slot for each gap between them: two seqs
 * are neighbours as slots exactly when they are as seqs (resid.c asks "the next call?").
 * The seqs are kept as runs [lo, hi): a trace read in order is one run. */
#include <stdlib.h>
#include "grow.h"
#include "resid.h"
#include "resid_seqs.h"

int resid_seqs_add(struct resid_events *ev, uint64_t seq)
{
	struct resid_run *last = ev->nruns ? &ev->runs[ev->nruns - 1] : NULL;

	if (last && seq >= last->lo && seq <= last->hi) {
		if (seq == last->hi)
			last->hi++;
		return 0;
	}
	if (grow(&ev->runs, sizeof(*ev->runs), ev->nruns, &ev->runs_room, 16) != 0)
		return -1;
	ev->runs[ev->nruns++] = (struct resid_run){ seq, seq + 1, 0 };
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const struct resid_run *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

uint64_t resid_seqs_finish(struct resid_events *ev)
{
	size_t n = 0;
	uint64_t slots = 0;

	for (size_t i = 1; i < ev->nruns; i++)
		if (ev->runs[i].lo < ev->runs[i - 1].lo) {
			qsort(ev->runs, ev->nruns, sizeof(*ev->runs), by_lo);
			break;
		}
	/* merge the runs that overlap or touch */
	for (size_t i = 0; i < ev->nruns; i++) {
		struct resid_run r = ev->runs[i];
		if (n && r.lo <= ev->runs[n - 1].hi) {
			if (r.hi > ev->runs[n - 1].hi)
				ev->runs[n - 1].hi = r.hi;
			continue;
		}
		ev->runs[n++] = r;
	}
	ev->nruns = n;
	/* slots: each run's seqs, then one for the gap after it */
	for (size_t i = 0; i < n; i++) {
		ev->runs[i].base = slots;
		slots += ev->runs[i].hi - ev->runs[i].lo + 1;
	}
	return slots;
}

uint64_t resid_index(const struct resid_events *ev, uint64_t seq)
{
	size_t lo = 0, hi = ev->nruns;

	/* the last run that starts at or before SEQ */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ev->runs[mid].lo <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || seq >= ev->runs[lo - 1].hi)
		return UINT64_MAX;
	return ev->runs[lo - 1].base + (seq - ev->runs[lo - 1].lo);
}
