/* record.c - the extended records of calls that do not fit in 16 bytes.
 *
 * The record format is in dyl_spool.h; the per-call path (runtime.c) writes the plain
 * 16-byte record itself and calls here only for a call with byte counts, counters,
 * argument text, a place reserved in an earlier block, or a field too big.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include "internal.h"

/* Makes R an extended record with its payload from C (NUMBERED: its place is in an
 * earlier block; DUR: the duration or end, ID and DEPTH at full width); returns the
 * payload bytes. */
uint32_t dyl_rec_put(struct dyl_rec *r, const struct dyl_call *c, int numbered,
		     uint64_t dur, uint32_t id, uint32_t depth)
{
	uint64_t *w = (uint64_t *)(r + 1);
	uint32_t n = 3, x = 0;

	r->meta |= DYL_REC_EXT << 28;
	w[1] = (c->flags & DYL_CALL_DUR_NS) ? dur : c->t_end;
	w[2] = id;
	if (numbered)
		x |= DYL_X_SEQ;
	if (c->in_bytes != DYL_NONE || c->out_bytes != DYL_NONE || c->work != DYL_NONE) {
		x |= DYL_X_SIZES;
		w[n++] = (uint64_t)c->in_bytes;
		w[n++] = (uint64_t)c->out_bytes;
		w[n++] = (uint64_t)c->work;
	}
	if (c->args || c->ncounters) {
		uint32_t nc = c->ncounters <= DYL_MAX_COUNTERS ? c->ncounters : DYL_MAX_COUNTERS;
		size_t al = c->args ? strnlen(c->args, DYL_ARGS_MAX) : 0;
		x |= DYL_X_EXTRA;
		w[n++] = (uint64_t)al | (uint64_t)nc << 16 | (uint64_t)(c->counter_base & 0xff) << 24;
		memcpy(&w[n], c->counters, nc * sizeof(int64_t));
		n += nc;
		memcpy(&w[n], c->args, al);
		n += (uint32_t)(al + 7) / 8;
	}
	w[0] = (uint64_t)n | (uint64_t)x << 8 | (uint64_t)depth << 32;
	return n * 8;
}
