/* fuzz_flow.c - TRACE.flow's reader (speedup/lib/flow/flow_file.c) and both its readers on
 * any bytes: dyl-speedup's residency (resid_load, then resid_simulate in every mode, with
 * none, all and every other call accelerated) and dyl-flow's (proc_read through the flow
 * engine, its slices and its outputs, written to /dev/null).
 *
 * The input's first byte picks the trace beside the .flow (TRACES: seqs 0-5 in order,
 * nested calls, or seqs with a gap and one near 2^32); the rest is the .flow.  Both are
 * files in a folder of our own (the readers take paths), rewritten for every input. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "flowtool.h"
#include "model.h"
#include "resid.h"
#include "quiet.h"

#define HEAD "# dyliberator trace 1\n# pid=100\n" \
	     "seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args\n"
static const char *const TRACES[] = {
	HEAD "0,1,a,0,10,,,8,0,\n1,1,b,20,10,,,8,0,\n2,2,a,40,10,,,8,0,\n3,1,b,60,10,,,8,0,\n"
	"4,2,a,80,10,,,8,0,\n5,1,b,100,10,,,8,0,\n# total_ns=200\n",
	HEAD "0,1,a,0,50,,,8,0,\n1,1,b,5,10,,,8,1,\n2,1,b,20,10,,,8,1,\n3,1,a,60,10,,,8,0,\n"
	"# total_ns=100\n",
	HEAD "0,1,a,0,10,,,8,0,\n1,1,b,20,10,,,8,0,\n7,1,a,40,10,,,8,0,\n"
	"4294967290,1,b,60,10,,,8,0,\n# total_ns=100\n",
};
#define NTRACES (sizeof(TRACES) / sizeof(TRACES[0]))

/* a kernel model and a link (doc/residency.md) */
static const char MODELS[] = "func,work,t_ns\na,1,1\na,100,10\nb,1,1\nb,100,10\n"
			     "@h2d,0,1000\n@h2d,1000000,1001000\n@d2h,0,2000\n@d2h,1000000,2002000\n";

static char dir[64], trace[NTRACES][96], flow[NTRACES][104];
static FILE *devnull;
static struct models models;	/* loaded once, by setup */

static int put(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "w");
	int ok = f && fwrite(data, 1, size, f) == size;

	return (f && fclose(f) == 0 && ok) ? 0 : -1;
}

/* the folder goes when the fuzzer ends (libFuzzer exits through exit()) */
static void cleanup(void)
{
	for (size_t i = 0; i < NTRACES; i++) {
		unlink(flow[i]);
		unlink(trace[i]);
	}
	rmdir(dir);
}

static void setup(void)
{
	struct input_file m = { "models.csv", MODELS, sizeof(MODELS) - 1, 0 };

	snprintf(dir, sizeof(dir), "/tmp/fuzz-flow-XXXXXX");
	if (!mkdtemp(dir) || models_load(&models, &m) != 0 || !(devnull = fopen("/dev/null", "w")))
		abort();
	for (size_t i = 0; i < NTRACES; i++) {
		snprintf(trace[i], sizeof(trace[i]), "%s/t%zu.csv", dir, i);
		snprintf(flow[i], sizeof(flow[i]), "%s.flow", trace[i]);
		if (put(trace[i], TRACES[i], strlen(TRACES[i])) != 0)
			abort();
	}
	atexit(cleanup);
}

static void residency(const char *path)
{
	struct resid_events ev;
	struct resid_result out;
	struct link_model link = { models_link(&models, MODEL_H2D),
				   models_link(&models, MODEL_D2H) };

	if (resid_load(&ev, path) != 0)
		return;
	unsigned char *accel = calloc(ev.nseq + 1, 1);
	memset(&out, 0, sizeof(out));
	for (int how = 0; accel && how < 3; how++) {
		for (uint64_t s = 0; s < ev.nseq; s++)
			accel[s] = how == 1 || (how == 2 && s % 2);
		for (int mode = 0; mode < RESID_MODES; mode++)
			if (resid_simulate(&ev, accel, (enum resid_mode)mode, &link, &out) != 0)
				break;
	}
	resid_result_free(&out);
	free(accel);
	resid_events_free(&ev);
}

static void flow_tool(const char *path)
{
	struct opts o = { 0 };
	struct proc p;

	if (proc_read(&p, path, &o) == 0 && (p.label = calloc(p.f.nobjects + 1, sizeof(char *)))) {
		char err[256];
		for (size_t i = 0; i < p.f.nobjects; i++)
			p.label[i] = strdup(p.f.object[i].name ? p.f.object[i].name : "");
		if (flow_slices_make(&p.slices, &p.f, 10, err, sizeof(err)) == 0)
			p.have_slices = 1;
		else
			flow_slices_free(&p.slices);
		(void)put_edges(devnull, &p, 1);
		(void)put_objects(devnull, &p, 1, 1);
		(void)put_via(devnull, &p, 1);
		(void)put_json(devnull, &p, 1, &o);
		(void)put_dot(devnull, &p, 1, &o);
		if (p.have_slices)
			(void)put_slices(devnull, &p, 1, OUT_SLICES);
	}
	proc_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0])
		setup();
	if (size < 1)
		return 0;
	size_t t = data[0] % NTRACES;
	if (put(flow[t], data + 1, size - 1) != 0)
		abort();
	input_prog = "fuzz";
	residency(trace[t]);
	flow_tool(trace[t]);
	unlink(flow[t]);
	return 0;
}
