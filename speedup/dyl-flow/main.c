/* main.c - dyl-flow: who produces the bytes each library call consumes (issue 23).
 *
 * Reads, per process, the trace (its calls: function, thread, times, depth) and the
 * TRACE.flow beside it (std.flow's events: objects, their lives, the byte ranges each
 * outermost call read and wrote), runs them through the engine (speedup/lib/flow/flow_engine.h) and
 * prints one view: the producer -> consumer edges (default), the objects table, the
 * graph through objects, per-call accesses, time slices and phases, JSON, DOT,
 * gprof2dot's JSON; --svg and --plot draw the graph and the bandwidth over time.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "companion.h"
#include "flowtool.h"
#include "outfile.h"

static const char usage[] =
"usage: dyl-flow TRACE... [--edges | --objects | --via-objects | --calls | --json |\n"
"                          --dot | --gprof2dot | --names]\n"
"                          [--slices NS [--phases | --spans]]\n"
"                          [--threshold BYTES] [--svg FILE] [--plot FILE] [-o FILE]\n"
"       dyl-flow --help\n";

static const char help[] =
"\n"
"Where the bytes each library call reads come from, and where the bytes it writes go:\n"
"the data flow between the wrapped functions, the memory objects and the program, as\n"
"MCPROF, QUAD and tQUAD report it, at the granularity of library calls.  Build the\n"
"wrapper with -g std.flow (add -g std.diff to see what the program itself changed\n"
"between calls); each process then leaves TRACE and TRACE.flow.  TRACE may name either.\n"
"\n"
"Words: a node is a wrapped function (its outermost calls: what nested calls move\n"
"belongs to the outer call) or `host`, the program.  The last writer of a byte is the\n"
"last call that wrote it, or host (no call wrote it, or the program changed it since).\n"
"An object is a heap block's allocation site (its blocks together), a static symbol, a\n"
"stack variable or a mapping.\n"
"\n"
"Outputs (one; CSV unless said; largest first):\n"
"  --edges          (default) producer,consumer,bytes,unique_bytes,fresh_bytes:\n"
"                   bytes: what the consumer's calls read whose last writer is the\n"
"                   producer, once per call; unique_bytes: the distinct addresses among\n"
"                   them (the buffer the pair needs); fresh_bytes: those the producer\n"
"                   wrote since the consumer last read them (what must move again if the\n"
"                   consumer kept a copy, as on an accelerator)\n"
"  --objects        object,kind,size,site,blocks,max_block,call_read,call_written,\n"
"                   host_read,host_written,alloc_pct,prod_pct,moves: size is the sum of\n"
"                   its blocks' largest sizes; alloc_pct the share of it ever written;\n"
"                   prod_pct the share of what calls wrote that was read before it was\n"
"                   overwritten or freed (host reads are seen only where recorded).\n"
"                   Objects no call or host access touched are left out (a line on\n"
"                   stderr says how many)\n"
"    --all-objects  list them too\n"
"  --via-objects    from,to,bytes,access: function -> object (write), object ->\n"
"                   function (read); with --dot or --svg, the graph through objects\n"
"  --calls          seq,func,obj_id,object,read_bytes,written_bytes,read_ranges,\n"
"                   written_ranges: each call's accesses per object block (ranges\n"
"                   'lo-hi ...', offsets in the block); join with the trace by seq\n"
"  --slices NS      the run cut in slices of NS nanoseconds from the first call; each\n"
"                   call's bytes spread evenly over its interval: slice,start_ns,end_ns,\n"
"                   function,read_bytes,written_bytes,bytes_per_s (cells with bytes)\n"
"    --spans        function,first_ns,last_ns,read_bytes,written_bytes,\n"
"                   mean_bytes_per_s (over its span),peak_bytes_per_s (its busiest slice)\n"
"    --phases       phase,start_ns,end_ns,share,bytes,functions: found automatically: a\n"
"                   new phase where the functions that move a tenth of a slice's bytes\n"
"                   change, or its traffic moves 4x; short runs join their neighbours\n"
"  --json           everything above for each trace (slices with --slices)\n"
"  --dot            Graphviz DOT, MCPROF's way: functions as ovals (share of the run's\n"
"                   time, calls), objects as boxes (size), edges labelled with bytes and\n"
"                   coloured blue (few) to red (most) on a log scale\n"
"  --gprof2dot      gprof2dot's JSON (version 0): each edge an event whose callchain is\n"
"                   [consumer, producer] and cost its bytes: gprof2dot -f json FILE | dot\n"
"  --names          record,id,name: each allocation site and object of TRACE.flow by\n"
"                   the file's own ids, named as above (from the files the process had\n"
"                   loaded: the process writes addresses, the tool names them)\n"
"\n"
"Pictures (beside any output):\n"
"  --svg FILE       the graph as SVG, drawn by Graphviz's dot (Debian: graphviz)\n"
"  --plot FILE      the bandwidth of each function over time (SVG), phases shaded; the\n"
"                   slices are --slices NS, or a 200th of the run\n"
"Options:\n"
"  --threshold BYTES  leave edges under BYTES out of --dot, --svg and --gprof2dot (K, M\n"
"                   and G suffixes: 1024s); functions and objects left without edges go\n"
"  -o FILE          write to FILE: a new file beside it replaces FILE once all is\n"
"                   written (a failed run leaves FILE as it was)\n"
"  -h, --help       this text\n"
"Several traces (the processes of one run) are read together, each its own graph: CSV\n"
"rows then start with trace,pid; DOT has one cluster per process.\n"
"\n"
"Exit status: 0 done; 2 bad usage or bad input (a missing TRACE.flow, a record that\n"
"does not fit or names an object or call that is not there): one line naming the file\n"
"and the record.\n"
"\n"
"Examples:\n"
"  bin/dyliberator --lib libblas.so.3 -g std.flow -o wrap.so\n"
"  LD_PRELOAD=./wrap.so DYL_TRACE=run.csv ./app\n"
"  dyl-flow run.csv                        who feeds whom, in bytes\n"
"  dyl-flow run.csv --objects | head       the objects with the most traffic\n"
"  dyl-flow run.csv --svg flow.svg         the graph (--via-objects: through objects)\n"
"  dyl-flow run.csv --slices 1000000 --phases --plot bw.svg\n";

/* A size: digits and an optional K, M or G (1024s).  0, or -1. */
static int parse_size(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long n;

	if (*s < '0' || *s > '9')
		return -1;
	n = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		n <<= 10, end++;
	else if (*end == 'M')
		n <<= 20, end++;
	else if (*end == 'G')
		n <<= 30, end++;
	if (*end)
		return -1;
	*v = n;
	return 0;
}

/* --- object labels: the shortest run of a site's frames that names it alone --- */

static const struct proc *label_proc;

static int name_cmp(const void *a, const void *b)
{
	return strcmp(label_proc->f.object[*(const uint32_t *)a].name,
		      label_proc->f.object[*(const uint32_t *)b].name);
}

/* The frames " <- "-separated that S and T share from the start. */
static int common_frames(const char *s, const char *t)
{
	int n = 0;

	for (;;) {
		const char *a = strstr(s, " <- "), *b = strstr(t, " <- ");
		size_t la = a ? (size_t)(a - s) : strlen(s), lb = b ? (size_t)(b - t) : strlen(t);
		if (la != lb || memcmp(s, t, la) != 0)
			return n;
		n++;
		if (!a || !b)
			return n;
		s = a + 4;
		t = b + 4;
	}
}

static int make_labels(struct proc *p)
{
	size_t n = p->f.nobjects;
	uint32_t *v = malloc((n + 1) * sizeof(*v));

	if (!v || !(p->label = calloc(n + 1, sizeof(char *)))) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	label_proc = p;
	qsort(v, n, sizeof(*v), name_cmp);
	for (size_t i = 0; i < n; i++) {
		const char *s = p->f.object[v[i]].name, *e = s;
		int need = 1, k;
		if (i > 0 && (k = common_frames(s, p->f.object[v[i - 1]].name) + 1) > need)
			need = k;
		if (i + 1 < n && (k = common_frames(s, p->f.object[v[i + 1]].name) + 1) > need)
			need = k;
		/* the first NEED frames (all of them when there are fewer) */
		for (int f = 0; f < need && e; f++) {
			e = strstr(e, " <- ");
			if (e && f + 1 < need)
				e += 4;
		}
		if (!(p->label[v[i]] = e ? strndup(s, (size_t)(e - s)) : strdup(s))) {
			free(v);
			return -1;
		}
	}
	free(v);
	return 0;
}

/* NS for --plot without --slices: a 200th of the run's calls' span. */
static int64_t auto_slice(const struct proc *ps, int n)
{
	int64_t span = 0;

	for (int k = 0; k < n; k++) {
		int64_t lo = INT64_MAX, hi = 0;
		for (uint64_t q = 0; q < ps[k].f.max_seq; q++) {
			const struct flow_call *c = &ps[k].f.call[q];
			if (!c->known || c->depth || c->t_start < 0 || c->t_ns < 0)
				continue;
			if (c->t_start < lo)
				lo = c->t_start;
			if (c->t_start + c->t_ns > hi)
				hi = c->t_start + c->t_ns;
		}
		if (lo != INT64_MAX && hi - lo > span)
			span = hi - lo;
	}
	return span / 200 > 0 ? span / 200 : 1;
}

int main(int argc, char **argv)
{
	struct opts o = { .output = OUT_EDGES };
	const char *outpath = NULL;
	char **files = calloc((size_t)argc + 1, sizeof(char *));
	int nfiles = 0, nout = 0, sub = 0, rc = 0;
	struct proc *ps;
	struct outfile of;
	FILE *out = stdout;

	input_prog = "dyl-flow";
	input_what = "trace";
	if (!files)
		return 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has_arg = i + 1 < argc;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			fputs(help, stdout);
			free(files);
			return 0;
		}
		if (!strcmp(a, "--edges"))
			o.output = OUT_EDGES, nout++;
		else if (!strcmp(a, "--objects"))
			o.output = OUT_OBJECTS, nout++;
		else if (!strcmp(a, "--via-objects"))
			o.via_objects = 1;
		else if (!strcmp(a, "--all-objects"))
			o.all_objects = 1;
		else if (!strcmp(a, "--calls"))
			o.output = OUT_CALLS, nout++;
		else if (!strcmp(a, "--json"))
			o.output = OUT_JSON, nout++;
		else if (!strcmp(a, "--dot"))
			o.output = OUT_DOT, nout++;
		else if (!strcmp(a, "--gprof2dot"))
			o.output = OUT_GPROF2DOT, nout++;
		else if (!strcmp(a, "--names"))
			o.output = OUT_NAMES, nout++;
		else if (!strcmp(a, "--phases"))
			sub = OUT_PHASES;
		else if (!strcmp(a, "--spans"))
			sub = OUT_SPANS;
		else if (!strcmp(a, "--slices") && has_arg) {
			uint64_t v;
			if (parse_size(argv[++i], &v) != 0 || v == 0 || v > INT64_MAX / 4) {
				fprintf(stderr, "dyl-flow: --slices %s: a number of nanoseconds, "
					"above 0\n", argv[i]);
				free(files);
				return EXIT_BAD_INPUT;
			}
			o.slice_ns = (int64_t)v;
		} else if (!strcmp(a, "--threshold") && has_arg) {
			if (parse_size(argv[++i], &o.threshold) != 0) {
				fprintf(stderr, "dyl-flow: --threshold %s: a number of bytes (K, M, G "
					"suffixes)\n", argv[i]);
				free(files);
				return EXIT_BAD_INPUT;
			}
		} else if (!strcmp(a, "--svg") && has_arg)
			o.svg = argv[++i];
		else if (!strcmp(a, "--plot") && has_arg)
			o.plot = argv[++i];
		else if (!strcmp(a, "-o") && has_arg)
			outpath = argv[++i];
		else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "dyl-flow: %s: unknown option%s\n%s", a,
				has_arg ? "" : " (or its value is missing)", usage);
			free(files);
			return EXIT_BAD_INPUT;
		} else if (!companion_of_given(a, argc, argv))	/* read with its trace */
			files[nfiles++] = argv[i];
	}
	/* --via-objects alone is its table; beside --dot/--json it changes the graph */
	if (o.via_objects && nout == 0)
		o.output = OUT_VIA, nout++;
	if (sub && !o.slice_ns) {
		fprintf(stderr, "dyl-flow: --phases and --spans need --slices NS\n%s", usage);
		free(files);
		return EXIT_BAD_INPUT;
	}
	if (o.slice_ns && nout == 0)
		o.output = sub ? (enum output)sub : OUT_SLICES, nout++;
	if (nfiles == 0 || nout > 1) {
		fprintf(stderr, "dyl-flow: %s\n%s", nfiles ? "one output at a time" : "no TRACE",
			usage);
		free(files);
		return EXIT_BAD_INPUT;
	}
	o.multi = nfiles > 1;
	if (outpath) {
		if (outfile_open(&of, outpath, files, nfiles) != 0) {
			free(files);
			return EXIT_BAD_INPUT;
		}
		out = of.f;
	}
	if (o.output == OUT_CALLS) {
		o.calls_out = out;
		if (o.multi)
			fputs("trace,pid,", out);
		fputs("seq,func,obj_id,object,read_bytes,written_bytes,read_ranges,"
		      "written_ranges\n", out);
	}
	if (o.output == OUT_NAMES) {	/* the file's names alone: no engine */
		fputs("record,id,name\n", out);
		for (int k = 0; k < nfiles && rc == 0; k++)
			if (put_names(out, files[k]) != 0)
				rc = EXIT_BAD_INPUT;
		if (outpath && outfile_close(&of, rc == 0) != 0 && rc == 0)
			rc = 1;
		else if (!outpath && fflush(stdout) != 0 && rc == 0)
			rc = 1;
		free(files);
		return rc;
	}
	if (!(ps = calloc((size_t)nfiles, sizeof(*ps)))) {
		free(files);
		return 1;
	}
	for (int k = 0; k < nfiles && rc == 0; k++) {
		if (proc_read(&ps[k], files[k], &o) != 0)
			rc = EXIT_BAD_INPUT;
		else if (make_labels(&ps[k]) != 0)
			rc = 1;
	}
	if (rc == 0 && (o.slice_ns || o.plot)) {
		int64_t ns = o.slice_ns ? o.slice_ns : auto_slice(ps, nfiles);
		for (int k = 0; k < nfiles && rc == 0; k++) {
			char err[256];
			if (flow_slices_make(&ps[k].slices, &ps[k].f, ns, err, sizeof(err)) != 0) {
				flow_slices_free(&ps[k].slices);
				input_error(ps[k].trace, 0, "%s", err);
				rc = EXIT_BAD_INPUT;
			} else {
				ps[k].have_slices = 1;
			}
		}
	}
	if (rc == 0) {
		int r = 0;
		switch (o.output) {
		case OUT_EDGES: r = put_edges(out, ps, nfiles); break;
		case OUT_OBJECTS: r = put_objects(out, ps, nfiles, o.all_objects); break;
		case OUT_VIA: r = put_via(out, ps, nfiles); break;
		case OUT_CALLS: break;	/* written as the files were read */
		case OUT_SLICES: case OUT_PHASES: case OUT_SPANS:
			r = put_slices(out, ps, nfiles, o.output);
			break;
		case OUT_JSON: r = put_json(out, ps, nfiles, &o); break;
		case OUT_DOT: r = put_dot(out, ps, nfiles, &o); break;
		case OUT_GPROF2DOT: r = put_gprof2dot(out, ps, nfiles); break;
		case OUT_NAMES: break;	/* (above) */
		}
		if (r != 0)
			rc = 1;
	}
	if (rc == 0 && o.svg && write_svg(o.svg, ps, nfiles, &o, files, nfiles) != 0)
		rc = EXIT_BAD_INPUT;
	if (rc == 0 && o.plot) {
		struct outfile pf;
		if (outfile_open(&pf, o.plot, files, nfiles) != 0)
			rc = EXIT_BAD_INPUT;
		else if (outfile_close(&pf, put_plot(pf.f, ps, nfiles) == 0) != 0)
			rc = 1;
	}
	if (outpath && outfile_close(&of, rc == 0) != 0 && rc == 0)
		rc = 1;
	else if (!outpath && fflush(stdout) != 0 && rc == 0)
		rc = 1;
	for (int k = 0; k < nfiles; k++)
		proc_free(&ps[k]);
	free(ps);
	free(files);
	return rc;
}
