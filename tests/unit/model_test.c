/* sources: speedup/lib/model/model.c speedup/lib/model/model2d.c speedup/lib/model/tri.c runtime/format/read/columns.c speedup/lib/util/shown.c runtime/format/read/input.c speedup/lib/util/grow.c speedup/lib/util/slots.c */
/* model_test.c - model.c and model2d.c: a model file read from memory; f_k(w)
 * at its rows, between them (the straight line through the neighbours), outside them
 * (the first or last segment continued, never below zero, reported as out of range);
 * samples at the same work averaged; the first model that matches a name wins; a model
 * keyed on work and bytes interpolates ln(1 + t) over ln(1 + work), ln(1 + bytes). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "model.h"
#include "model2d.h"

/* input.c opens files through spool recovery (a trace whose process did not finish);
 * models here are given in memory, never a spool */
int spool_recover(struct input_file *f)
{
	(void)f;
	return 0;
}

static int load(struct models *ms, const char *path, const char *text)
{
	struct input_file f = { path, text, strlen(text), 0 };

	return models_load(ms, &f);
}

static void check_work(struct models *ms)
{
	int oor;

	CHECK(load(ms, "m.csv", "func,work,t_ns,note\n"
			    "# setup_ns=250\n"
			    "dgemm_,100,1000,a\n"
			    "dgemm_,300,2000,b\n"
			    "\n"
			    "dgemm_,200,1400,c\n"
			    "dtrsm_,10,50,\n"
			    "dgemm_,200,1600,d\n"
			    "dtrsm_,20,150,\n"
			    "d*,1,7,\n"
			    "dscal_,5,9,\n") == 0);
	CHECK(ms->n == 4);
	int g = models_match(ms, "dgemm_"), t = models_match(ms, "dtrsm_");
	CHECK(g >= 0 && t >= 0 && g != t);
	struct model *m = &ms->m[g];
	CHECK_STR(m->pattern, "dgemm_");
	CHECK(m->n == 3 && m->b == NULL);
	CHECK(m->setup_ns == 250);
	CHECK(m->line == 3);
	/* at the rows; two samples at 200: their mean */
	CHECK_NEAR(model_eval(m, 100, &oor), 1000, 0);
	CHECK(!oor);
	CHECK_NEAR(model_eval(m, 200, &oor), 1500, 0);
	CHECK_NEAR(model_eval(m, 300, &oor), 2000, 0);
	CHECK(!oor);
	/* between: the line through the neighbours */
	CHECK_NEAR(model_eval(m, 150, &oor), 1250, 1e-9);
	CHECK(!oor);
	CHECK_NEAR(model_eval(m, 275, &oor), 1875, 1e-9);
	/* outside: the end segments continued */
	CHECK_NEAR(model_eval(m, 400, &oor), 2500, 1e-9);
	CHECK(oor);
	CHECK_NEAR(model_eval(m, 50, &oor), 750, 1e-9);
	CHECK(oor);
	/* never below zero */
	struct model *s = &ms->m[t];
	CHECK_NEAR(model_eval(s, 1, &oor), 0, 0);
	CHECK(oor);
	CHECK_NEAR(model_eval(s, 15, &oor), 100, 1e-9);
	/* one sample: a constant */
	int d = models_match(ms, "dlaswp_");
	CHECK(d >= 0);
	CHECK_STR(ms->m[d].pattern, "d*");
	CHECK_NEAR(model_eval(&ms->m[d], 1000, &oor), 7, 0);
	CHECK(oor);
	/* the wildcard comes first: dscal_'s own model is shadowed */
	CHECK(models_match(ms, "dscal_") == d);
	CHECK(models_match(ms, "zgemm_") == -1);
}

/* 1 + t = (1 + w) sqrt(1 + b): a plane in logarithms, which model2d reproduces */
static double power(double w, double b)
{
	return (1 + w) * sqrt(1 + b) - 1;
}

static void check_work_and_bytes(struct models *ms)
{
	char text[4096];
	int o = snprintf(text, sizeof(text), "func,work,t_ns,bytes\n");
	double ws[] = { 99, 999, 9999 }, bs[] = { 99, 9999 };
	int oor;

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++)
			o += snprintf(text + o, sizeof(text) - (size_t)o, "axpy,%g,%.17g,%g\n", ws[i],
				      power(ws[i], bs[j]), bs[j]);
	/* a function whose bytes are all empty is keyed on work alone */
	o += snprintf(text + o, sizeof(text) - (size_t)o, "copy,10,5,\ncopy,20,9,\n");
	CHECK(load(ms, "m2.csv", text) == 0);
	int a = models_match(ms, "axpy"), c = models_match(ms, "copy");
	CHECK(a >= 0 && c >= 0);
	struct model *m = &ms->m[a];
	CHECK(m->b != NULL && m->n == 6);
	CHECK(ms->m[c].b == NULL);
	CHECK_NEAR(model_eval(&ms->m[c], 15, &oor), 7, 1e-12);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++) {
			double want = power(ws[i], bs[j]);
			CHECK_NEAR(model2d_eval(m, ws[i], bs[j], &oor), want, want * 1e-9);
			CHECK(!oor);
		}
	/* between the samples */
	double want = power(499, 999);
	CHECK_NEAR(model2d_eval(m, 499, 999, &oor), want, want * 1e-9);
	CHECK(!oor);
	/* outside: the value at the nearest point of the nearest edge (w = 9999, the same
	 * bytes), out of range */
	want = power(9999, 999);
	CHECK_NEAR(model2d_eval(m, 99999, 999, &oor), want, want * 1e-6);
	CHECK(oor);
	/* a call shape is computed once and kept */
	int64_t k = model2d_shape(m, 499, 999);
	CHECK(k >= 0 && model2d_shape(m, 499, 999) == k);
	CHECK_NEAR(model2d_f(m, k, &oor), power(499, 999), power(499, 999) * 1e-9);
}

int main(void)
{
	struct models ms = { 0 };

	check_work(&ms);
	check_work_and_bytes(&ms);
	models_free(&ms);
	return CHECK_DONE();
}
