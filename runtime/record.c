/* record.c - the extended records of calls that do not fit in 16 bytes.
 *
 * The record format is in runtime/format/dyl_spool.h; the per-call path (runtime.c) writes the plain
 * 16-byte record itself and calls here only for a call with byte counts, counters,
 * argument text, a place reserved in an earlier block, or a field too big.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include "internal.h"

/* Whether the sizes SZ (none, or 0 .. UINT32_MAX - 1) and C's NC counters fit 32 bits. */
static int narrow(const int64_t sz[3], const struct dyl_call *c, uint32_t nc)
{
	for (int i = 0; i < 3; i++)
		if (sz[i] != DYL_NONE && (uint64_t)sz[i] >= UINT32_MAX)
			return 0;
	for (uint32_t i = 0; i < nc; i++)
		if (c->counters[i] != (int32_t)c->counters[i])
			return 0;
	return 1;
}

/* Makes R an extended record with its payload from C (NUMBERED: its place is in an
 * earlier block; WIDE: DUR, ID and DEPTH do not fit R's own fields); returns the
 * payload bytes. */
uint32_t dyl_rec_put(struct dyl_rec *r, const struct dyl_call *c, int numbered, int wide,
		     uint64_t dur, uint32_t id, uint32_t depth)
{
	uint64_t *w = (uint64_t *)(r + 1);
	unsigned char *p = (unsigned char *)(w + 1);
	uint32_t x = numbered ? DYL_X_SEQ : 0;
	uint32_t nc = c->ncounters <= DYL_MAX_COUNTERS ? c->ncounters : DYL_MAX_COUNTERS;
	uint32_t al = c->args ? (uint32_t)strnlen(c->args, DYL_ARGS_MAX) : 0;

	r->meta |= DYL_REC_EXT << 28;
	if (wide) {
		x |= DYL_X_WIDE;
		w[1] = (c->flags & DYL_CALL_DUR_NS) ? dur : c->t_end;
		w[2] = id | (uint64_t)depth << 32;
		p += 16;
	}
	const int64_t sz[3] = { c->in_bytes, c->out_bytes, c->work };
	int sized = sz[0] != DYL_NONE || sz[1] != DYL_NONE || sz[2] != DYL_NONE;
	if (sized)
		x |= DYL_X_SIZES;
	if (narrow(sz, c, nc)) {
		x |= DYL_X_NARROW;
		if (sized) {
			uint32_t v[3];
			for (int i = 0; i < 3; i++)
				v[i] = sz[i] == DYL_NONE ? UINT32_MAX : (uint32_t)sz[i];
			memcpy(p, v, sizeof(v));
			p += sizeof(v);
		}
		for (uint32_t i = 0; i < nc; i++, p += 4) {
			int32_t v = (int32_t)c->counters[i];
			memcpy(p, &v, 4);
		}
	} else {
		if (sized) {
			memcpy(p, sz, sizeof(sz));
			p += sizeof(sz);
		}
		for (uint32_t i = 0; i < nc; i++, p += 8)
			memcpy(p, &c->counters[i], 8);
	}
	if (al) {	/* most calls have none: no call to memcpy */
		memcpy(p, c->args, al);
		p += al;
	}
	uint32_t bytes = (uint32_t)(p - (unsigned char *)w), words = (bytes + 7) / 8;
	/* the padding zeroed, the same bytes every run: one 8-byte store, which may reach
	 * past the record into room DYL_REC_MAX keeps free (the next record overwrites it) */
	const uint64_t zero = 0;
	memcpy(p, &zero, 8);
	w[0] = words | x << 8 | nc << 16 | (c->counter_base & 0xffu) << 24 | (uint64_t)al << 32;
	return words * 8;
}
