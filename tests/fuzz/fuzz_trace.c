/* fuzz_trace.c - the trace CSV reader (runtime/format/read/rows.c) and what dyl-speedup
 * makes of a trace (speedup/lib/trace/trace_read.c) on any bytes: rows in file order, then
 * in seq order (rows_at, as `dyl-trace cat` prints them), then trace_read. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "input.h"
#include "rows.h"
#include "model.h"
#include "trace_read.h"
#include "quiet.h"

/* Models for the traced functions, so that trace_read keeps their calls: tiny_* keyed on
 * work and bytes (model2d.c), every other name on work alone. */
static const char MODELS[] =
	"func,work,t_ns,bytes\n"
	"tiny_*,1,10,8\ntiny_*,100,50,800\ntiny_*,100,60,80\ntiny_*,1000,300,8000\n"
	"*,1,5,\n*,1000,200,\n";
/* loaded by the first input, kept for all: libFuzzer gives no other place */
static struct models models;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of its own: the reader may read up to SIZE and no further */
	char *copy = malloc(size ? size : 1);
	/* an empty file has no bytes at all, as input_open gives it (data NULL) */
	struct input_file f = { "fuzz.csv", size ? copy : NULL, size, 0 };
	struct trace_src src;
	struct trace_row r;
	size_t n;

	static int loaded;
	if (!loaded++) {
		struct input_file m = { "models.csv", MODELS, sizeof(MODELS) - 1, 0 };
		if (models_load(&models, &m) != 0)
			abort();
	}
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	input_prog = "fuzz";
	for (unsigned flags = 0; flags <= (ROWS_NEED_TIMES | ROWS_KEEP_PARTIAL); flags++) {
		if (rows_open_file(&src, &f, flags) != 0)
			continue;
		uint64_t *order = rows_by_seq(&src, &n);
		for (size_t i = 0; order && i < n; i++)
			if (rows_at(&src, order[i], &r) != 0 || r.extra_len > size)
				break;
		free(order);
		rows_close(&src);
	}
	struct trace tr;
	/* it starts from a zeroed TR, and frees nothing */
	trace_read(&tr, &f, &models, 0, 0);
	trace_free(&tr);
	trace_read(&tr, &f, &models, 1, 1);
	trace_free(&tr);
	free(copy);
	return 0;
}
