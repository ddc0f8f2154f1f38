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
#include "cli.h"
#include "companion.h"
#include "filter.h"
#include "flowtool.h"
#include "outfile.h"

static const char usage[] =
"usage: dyl-flow TRACE... [--edges | --objects | --via-objects | --calls | --json |\n"
"                          --dot | --gprof2dot | --names | --messages [--dot]]\n"
"                          [--slices NS [--phases | --spans]]\n"
"                          [--threshold BYTES] [--svg FILE] [--plot FILE] [-o FILE]\n"
"                          [--func PATTERN]... [--time-range START,END]\n"
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
"  --messages       an MPI job's messages (traces of -g std.mpi, no .flow needed):\n"
"                   sender,receiver,messages,bytes, each 'rank N: MPI_call', a send\n"
"                   matched with its receive; with --dot, Graphviz, a cluster a rank:\n"
"                     dyl-flow --messages --dot out/trace.*.csv | dot -Tsvg > msgs.svg\n"
"\n"
"Pictures (beside any output):\n"
"  --svg FILE       the graph as SVG, drawn by Graphviz's dot (Debian: graphviz)\n"
"  --plot FILE      the bandwidth of each function over time (SVG), phases shaded; the\n"
"                   slices are --slices NS, or a 200th of the run\n"
"Options:\n"
"  --threshold BYTES  leave edges under BYTES out of --dot, --svg and --gprof2dot (K, M\n"
"                   and G suffixes: 1024s); functions and objects left without edges go\n"
"  --func PATTERN   only the calls of functions PATTERN matches (shell wildcards,\n"
"                   repeatable; '!PATTERN' leaves out, the last match wins)\n"
"  --time-range START,END  only the calls that start in [START, END), from the\n"
"                   process's start, with a unit (ns, us, ms, s): 10ms,2.5s; ,1s.\n"
"                   A call left out is as if not recorded: no node, no edge, and what\n"
"                   it wrote counts to the writer before it.  JSON says what was left\n"
"                   out (\"filter\"), the other outputs say it on stderr\n"
"  -o FILE          write to FILE: a new file beside it replaces FILE once all is\n"
"                   written (a failed run leaves FILE as it was)\n"
"  -h, --help       this text\n"
"      --version    the version\n"
"Several traces (the processes of one run) are read together, each its own graph: CSV\n"
"rows then start with trace,pid; DOT has one cluster per process.\n"
"\n"
"Exit status: 0 done; 2 bad usage or bad input (a missing TRACE.flow, a record that\n"
"does not fit or names an object or call that is not there): one line naming the file\n"
"and the record.\n"
"\n"
"Examples:\n"
"  dyliberator --lib libblas.so.3 -g std.flow -o wrap.so\n"
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

/* One run of the command: what it was asked for and where its output goes. */
struct cli {
	struct opts o;
	const char *outpath;	/* -o FILE; NULL: stdout */
	char **files;		/* the traces given */
	int nfiles;
	int nout;		/* outputs asked for: one at most */
	int sub;		/* --phases, --spans: OUT_PHASES, OUT_SPANS; 0: neither */
	struct outfile of;	/* -o FILE, while it is written */
	FILE *out;		/* of.f, or stdout */
	struct row_filter filter;	/* --func, --time-range */
	int messages;		/* --messages (messages.c) */
};

/* parse_args and the steps after it: go on (any other value is the exit status). */
#define GO_ON (-1)

/* The options that choose the output and take no value. */
static const struct {
	const char *name;
	enum output output;
} output_flags[] = {
	{ "--edges", OUT_EDGES }, { "--objects", OUT_OBJECTS }, { "--calls", OUT_CALLS },
	{ "--json", OUT_JSON }, { "--dot", OUT_DOT }, { "--gprof2dot", OUT_GPROF2DOT },
	{ "--names", OUT_NAMES },
};

/* The index in output_flags of option A, or -1. */
static int output_flag(const char *a)
{
	for (size_t k = 0; k < sizeof(output_flags) / sizeof(output_flags[0]); k++)
		if (!strcmp(a, output_flags[k].name))
			return (int)k;
	return -1;
}

/* --slices NS: GO_ON, or the exit status after a message. */
static int slices_arg(struct cli *c, const char *s)
{
	uint64_t v;

	if (parse_size(s, &v) != 0 || v == 0 || v > INT64_MAX / 4) {
		fprintf(stderr, "dyl-flow: --slices %s: a number of nanoseconds, "
			"above 0\n", s);
		return EXIT_BAD_INPUT;
	}
	c->o.slice_ns = (int64_t)v;
	return GO_ON;
}

/* --threshold BYTES: GO_ON, or the exit status after a message. */
static int threshold_arg(struct cli *c, const char *s)
{
	if (parse_size(s, &c->o.threshold) != 0) {
		fprintf(stderr, "dyl-flow: --threshold %s: a number of bytes (K, M, G "
			"suffixes)\n", s);
		return EXIT_BAD_INPUT;
	}
	return GO_ON;
}

/* ARGV[*I] (and its value, which moves *I on): GO_ON, or the exit status (0 after
 * --help). */
static int parse_option(struct cli *c, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	int has_arg = *i + 1 < argc;
	int k;

	if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
		fputs(usage, stdout);
		fputs(help, stdout);
		return 0;
	}
	if ((k = filter_option(&c->filter, argc, argv, i, "dyl-flow")) != 0)
		return k > 0 ? GO_ON : EXIT_BAD_INPUT;
	k = output_flag(a);
	if (k >= 0)
		c->o.output = output_flags[k].output, c->nout++;
	else if (!strcmp(a, "--via-objects"))
		c->o.via_objects = 1;
	else if (!strcmp(a, "--messages"))
		c->messages = 1;
	else if (!strcmp(a, "--all-objects"))
		c->o.all_objects = 1;
	else if (!strcmp(a, "--phases"))
		c->sub = OUT_PHASES;
	else if (!strcmp(a, "--spans"))
		c->sub = OUT_SPANS;
	else if (!strcmp(a, "--slices") && has_arg)
		return slices_arg(c, argv[++*i]);
	else if (!strcmp(a, "--threshold") && has_arg)
		return threshold_arg(c, argv[++*i]);
	else if (!strcmp(a, "--svg") && has_arg)
		c->o.svg = argv[++*i];
	else if (!strcmp(a, "--plot") && has_arg)
		c->o.plot = argv[++*i];
	else if (!strcmp(a, "-o") && has_arg)
		c->outpath = argv[++*i];
	else if (a[0] == '-' && a[1]) {
		return cli_bad_option(input_prog, a, "--slices --threshold --svg --plot -o");
	} else if (!companion_of_given(a, argc, argv))	/* read with its trace */
		c->files[c->nfiles++] = argv[*i];
	return GO_ON;
}

/* The command line into C, the output chosen: GO_ON, or the exit status. */
static int parse_args(struct cli *c, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int rc = parse_option(c, argc, argv, &i);
		if (rc != GO_ON)
			return rc;
	}
	/* --via-objects alone is its table; beside --dot/--json it changes the graph */
	if (c->o.via_objects && c->nout == 0)
		c->o.output = OUT_VIA, c->nout++;
	if (c->sub && !c->o.slice_ns) {
		fprintf(stderr, "dyl-flow: --phases and --spans need --slices NS\n%s", usage);
		return EXIT_BAD_INPUT;
	}
	if (c->o.slice_ns && c->nout == 0)
		c->o.output = c->sub ? (enum output)c->sub : OUT_SLICES, c->nout++;
	if (c->nfiles == 0 || c->nout > 1) {
		fprintf(stderr, "dyl-flow: %s\n%s", c->nfiles ? "one output at a time" : "no TRACE",
			usage);
		return EXIT_BAD_INPUT;
	}
	c->o.multi = c->nfiles > 1;
	c->o.filter = &c->filter;
	if (filter_active(&c->filter) && c->o.output != OUT_JSON) {
		char fb[512];
		fprintf(stderr, "dyl-flow: filtered: %s\n", filter_describe(&c->filter, fb, sizeof(fb)));
	}
	return GO_ON;
}

/* -o FILE opened, and --calls' header written (its rows come as the files are read):
 * GO_ON, or the exit status. */
static int open_output(struct cli *c)
{
	if (c->outpath) {
		if (outfile_open(&c->of, c->outpath, c->files, c->nfiles) != 0)
			return EXIT_BAD_INPUT;
		c->out = c->of.f;
	}
	if (c->o.output == OUT_CALLS) {
		c->o.calls_out = c->out;
		if (c->o.multi)
			fputs("trace,pid,", c->out);
		fputs("seq,func,obj_id,object,read_bytes,written_bytes,read_ranges,"
		      "written_ranges\n", c->out);
	}
	return GO_ON;
}

/* -o FILE kept only when all went well (RC 0), or stdout flushed: the exit status. */
static int close_output(struct cli *c, int rc)
{
	if (c->outpath && outfile_close(&c->of, rc == 0) != 0 && rc == 0)
		rc = 1;
	else if (!c->outpath && fflush(stdout) != 0 && rc == 0)
		rc = 1;
	return rc;
}

/* --names: the files' names alone, no engine.  The exit status. */
static int run_names(struct cli *c)
{
	int rc = 0;

	fputs("record,id,name\n", c->out);
	for (int k = 0; k < c->nfiles && rc == 0; k++)
		if (put_names(c->out, c->files[k]) != 0)
			rc = EXIT_BAD_INPUT;
	return close_output(c, rc);
}

/* Each trace and its TRACE.flow through the engine, its objects labelled: 0, or the
 * exit status. */
static int read_procs(struct cli *c, struct proc *ps)
{
	int rc = 0;

	for (int k = 0; k < c->nfiles && rc == 0; k++) {
		if (proc_read(&ps[k], c->files[k], &c->o) != 0)
			rc = EXIT_BAD_INPUT;
		else if (make_labels(&ps[k]) != 0)
			rc = 1;
	}
	return rc;
}

/* The time slices of each process, NS long (0: auto_slice's): 0, or the exit status. */
static int make_slices(struct proc *ps, int n, int64_t slice_ns)
{
	int64_t ns = slice_ns ? slice_ns : auto_slice(ps, n);

	for (int k = 0; k < n; k++) {
		char err[256];
		if (flow_slices_make(&ps[k].slices, &ps[k].f, ns, err, sizeof(err)) != 0) {
			flow_slices_free(&ps[k].slices);
			input_error(ps[k].trace, 0, "%s", err);
			return EXIT_BAD_INPUT;
		}
		ps[k].have_slices = 1;
	}
	return 0;
}

/* The one output asked for: 0, or 1 (out of memory). */
static int put_output(struct cli *c, struct proc *ps)
{
	FILE *out = c->out;
	int n = c->nfiles, r = 0;

	switch (c->o.output) {
	case OUT_EDGES: r = put_edges(out, ps, n); break;
	case OUT_OBJECTS: r = put_objects(out, ps, n, c->o.all_objects); break;
	case OUT_VIA: r = put_via(out, ps, n); break;
	case OUT_CALLS: break;	/* written as the files were read */
	case OUT_SLICES: case OUT_PHASES: case OUT_SPANS:
		r = put_slices(out, ps, n, c->o.output);
		break;
	case OUT_JSON: r = put_json(out, ps, n, &c->o); break;
	case OUT_DOT: r = put_dot(out, ps, n, &c->o); break;
	case OUT_GPROF2DOT: r = put_gprof2dot(out, ps, n); break;
	case OUT_NAMES: break;	/* (run_names) */
	}
	return r != 0 ? 1 : 0;
}

/* --svg FILE and --plot FILE: 0, or the exit status. */
static int put_pictures(struct cli *c, struct proc *ps)
{
	struct outfile pf;

	if (c->o.svg && write_svg(c->o.svg, ps, c->nfiles, &c->o, c->files, c->nfiles) != 0)
		return EXIT_BAD_INPUT;
	if (!c->o.plot)
		return 0;
	if (outfile_open(&pf, c->o.plot, c->files, c->nfiles) != 0)
		return EXIT_BAD_INPUT;
	if (outfile_close(&pf, put_plot(pf.f, ps, c->nfiles) == 0) != 0)
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = { .o = { .output = OUT_EDGES }, .out = stdout };
	struct proc *ps;
	int rc;

	input_prog = "dyl-flow";
	if (cli_want_version(argc, argv, input_prog))
		return 0;
	input_what = "trace";
	if (!(c.files = calloc((size_t)argc + 1, sizeof(char *))))
		return 1;
	rc = parse_args(&c, argc, argv);
	if (rc == GO_ON)
		rc = open_output(&c);
	if (rc == GO_ON && c.o.output == OUT_NAMES)
		rc = run_names(&c);
	if (rc == GO_ON && c.messages)
		rc = close_output(&c, put_messages(c.out, c.files, c.nfiles, c.o.output == OUT_DOT));
	if (rc == GO_ON && !(ps = calloc((size_t)c.nfiles, sizeof(*ps))))
		rc = 1;
	if (rc != GO_ON) {
		free(c.files);
		return rc;
	}
	rc = read_procs(&c, ps);
	if (rc == 0 && (c.o.slice_ns || c.o.plot))
		rc = make_slices(ps, c.nfiles, c.o.slice_ns);
	if (rc == 0)
		rc = put_output(&c, ps);
	if (rc == 0)
		rc = put_pictures(&c, ps);
	rc = close_output(&c, rc);
	for (int k = 0; k < c.nfiles; k++)
		proc_free(&ps[k]);
	free(ps);
	free(c.files);
	filter_free(&c.filter);
	return rc;
}
