/* fuzz_link.c - link models (@h2d, @d2h rows: doc/residency.md) as dyl-speedup reads and
 * uses them: the model CSV reader (speedup/lib/model/model.c) on any bytes, then each
 * direction's model at byte counts from 0 to 2^62, then the residency simulation
 * (resid.c) timed by it in every mode over a few fixed events.  Each input starts
 * afresh: its own models, freed after it. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "resid.h"
#include "quiet.h"

/* Four calls of one function over two blocks: call 0 writes block 0, call 1 reads it and
 * writes block 1, the program reads block 1 before call 3, which frees block 0. */
static struct resid_ev EVENTS[] = {
	{ .seq = 0, .lo = 0, .hi = 4096, .block = 0, .kind = RESID_WRITE },
	{ .seq = 1, .lo = 0, .hi = 4096, .block = 0, .kind = RESID_READ },
	{ .seq = 1, .lo = 0, .hi = 1 << 20, .block = 1, .kind = RESID_WRITE },
	{ .seq = 2, .lo = 100, .hi = 200, .block = 0, .kind = RESID_HOST_WRITE },
	{ .seq = 2, .lo = 0, .hi = 4096, .block = 0, .kind = RESID_READ },
	{ .seq = 3, .lo = 0, .hi = 1 << 20, .block = 1, .kind = RESID_HOST_READ },
	{ .seq = 3, .block = 0, .kind = RESID_FREE },
	{ .seq = 3, .lo = 0, .hi = 1 << 19, .block = 1, .kind = RESID_READ },
};
static int32_t FUNC[] = { 0, 0, 0, 0 };
static uint64_t TID[] = { 1, 1, 1, 1 };
static int64_t START[] = { 0, 10, 20, 30 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	struct input_file f = { "fuzz-link.csv", copy, size, 0 };
	struct resid_events ev = {
		.ev = EVENTS, .n = sizeof(EVENTS) / sizeof(EVENTS[0]), .nseq = 4,
		.func = FUNC, .tid = TID, .t_start = START, .nblocks = 2, .nfuncs = 1,
		.host_reads = 1,
	};
	static const unsigned char accel[][5] = { { 0 }, { 1, 1, 1, 1, 0 }, { 1, 0, 1, 0, 0 } };
	struct resid_result out;
	struct models ms = { 0 };
	int oor;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	input_prog = "fuzz";
	memset(&out, 0, sizeof(out));
	if (models_load(&ms, &f) == 0) {
		struct link_model link = { models_link(&ms, MODEL_H2D),
					   models_link(&ms, MODEL_D2H) };
		for (int d = 0; d < 2; d++) {
			const struct model *m = d ? link.d2h : link.h2d;
			for (int b = 0; m && !m->b && b < 63; b += 3)
				(void)model_eval(m, (double)(UINT64_C(1) << b), &oor);
		}
		for (size_t a = 0; a < sizeof(accel) / sizeof(accel[0]); a++)
			for (int mode = 0; mode < RESID_MODES; mode++)
				(void)resid_simulate(&ev, accel[a], (enum resid_mode)mode, &link, &out);
	}
	resid_result_free(&out);
	models_free(&ms);
	free(copy);
	return 0;
}
