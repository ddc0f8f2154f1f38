/* spoolmk.h - a spool made in memory for the decoder's unit tests (merge_test.c,
 * convert_test.c): chunks, and blocks of a thread's records as the runtime writes them.
 * Include it after dyl_decode.h (or a header that includes it). */
#ifndef SPOOLMK_H
#define SPOOLMK_H

#include <stdint.h>
#include <string.h>

static char spool[1 << 22];
static size_t len;

static void put(const void *p, size_t n)
{
	memcpy(spool + len, p, n);
	len += n;
}

static void chunk(uint32_t kind, uint32_t n)
{
	struct dyl_chunk ch = { kind, n };
	put(&ch, sizeof(ch));
}

/* Appends record X at RECS + *RL: plain, or extended with three sizes when SIZES is
 * given (the payload the runtime writes for std.regions' bytes). */
static void rec_put(char *recs, size_t *rl, struct dyl_rec x, const uint64_t *sizes)
{
	if (sizes) {
		uint64_t h = 4 | (uint64_t)DYL_X_SIZES << 8;
		x.meta |= (uint32_t)DYL_REC_EXT << 28;
		memcpy(recs + *rl, &x, sizeof(x));
		memcpy(recs + *rl + sizeof(x), &h, 8);
		memcpy(recs + *rl + sizeof(x) + 8, sizes, 24);
		*rl += sizeof(x) + 32;
	} else {
		memcpy(recs + *rl, &x, sizeof(x));
		*rl += sizeof(x);
	}
}

/* A block chunk of thread TID holding RECS[0 .. RL - 1], whose least start is MIN. */
static void block_put(int32_t tid, const char *recs, size_t rl, uint64_t min)
{
	struct dyl_block b = { { DYL_CH_BLOCK, 0 }, tid, DYL_NO_WINDOW, 0, 0, (uint32_t)rl, 0, min };
	chunk(DYL_CH_BLOCK, (uint32_t)(sizeof(b) - sizeof(b.ch) + rl));
	put((char *)&b + sizeof(b.ch), sizeof(b) - sizeof(b.ch));
	put(recs, rl);
}

#endif
