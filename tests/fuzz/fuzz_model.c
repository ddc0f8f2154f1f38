/* fuzz_model.c - the model CSV reader (speedup/lib/model/model.c) on any bytes, then each model
 * evaluated at a few sizes: f_k(w) through its samples, or f(w, bytes) over their
 * triangulation (model2d.c, tri.c), as dyl-speedup and dyl-model use them.
 * Each input starts afresh: its own models, freed after it. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "model2d.h"
#include "quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	/* an empty file has no bytes at all, as input_open gives it (data NULL) */
	struct input_file f = { "fuzz-model.csv", size ? copy : NULL, size, 0 };
	static const double at[] = { 0, 1, 3, 1000, 1e6, 1e300 };
	struct models ms = { 0 };
	int out;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	input_prog = "fuzz";
	if (models_load(&ms, &f) == 0) {
		for (int i = 0; i < ms.n; i++) {
			struct model *m = &ms.m[i];
			for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
				if (!m->b) {
					(void)model_eval(m, at[k], &out);
					continue;
				}
				(void)model2d_eval(m, at[k], at[(k + 2) % 6], &out);
				int64_t s = model2d_shape(m, (int64_t)k * 1000, (int64_t)k * 8);
				if (s >= 0)
					(void)model2d_f(m, s, &out);
			}
		}
		(void)models_match(&ms, "tiny_add");
	}
	models_free(&ms);
	free(copy);
	return 0;
}
