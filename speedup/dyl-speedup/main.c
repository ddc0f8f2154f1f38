/* main.c - dyl-speedup: predict the whole-application speedup from traces and models.
 *
 * The order of work: every file is opened and told apart by its header; the models are
 * read first, so that each traced function is matched to its model the moment it is
 * first seen and the calls of unmodelled functions need not be kept; then each trace is
 * read, predicted and released in turn; the run is the sum of the processes.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "chrome.h"
#include "cli.h"
#include "companion.h"
#include "device_models.h"
#include "dyl_flow.h"
#include "func_names.h"
#include "input.h"
#include "jobs.h"
#include "model.h"
#include "plan.h"
#include "mpi.h"
#include "predict.h"
#include "report.h"
#include "report_page.h"
#include "resid.h"
#include "transfers.h"
#include "shown.h"
#include "spool_rows.h"
#include "trace_read.h"

/* One device by default: a model gives one call's time on the accelerator to itself, and
 * a GPU runs one such kernel at a time (concurrent kernels share its units, each slower);
 * the default never promises more parallelism than the model was measured with. */
#define DEFAULT_DEVICES 1

#define EXIT_NO_MATCH 1
#define EXIT_BAD_INPUT 2
#define EXIT_NOTHING_PREDICTED 3

static const char usage[] =
"usage: dyl-speedup TRACE... MODEL... [--json | --csv] [--only-faster] [--keep-overhead]\n"
"                   [--cpu-time] [--faults-replaced] [--devices N|unlimited]\n"
"                   [--residency exact|optimistic|pessimistic] [--plan] [--chrome FILE]\n"
"       dyl-speedup --report [--html FILE] TRACE... [MODEL...|--device NAME] [--link L]\n"
"       dyl-speedup TRACE... --device NAME [MODEL...] [options]\n";

static const char help[] =
"\n"
"Predicts how much faster a program would run if the calls of some library functions\n"
"(the kernels) went to an accelerated implementation, from:\n"
"  TRACE  a trace of the program, written by a dyliberator wrapper (LD_PRELOAD=wrap.so);\n"
"         one per process of the run;\n"
"  MODEL  the accelerated implementation's time against the work size, as CSV\n"
"         func,work,t_ns[,bytes] (see models/README.md); func may be a shell wildcard\n"
"         ('dgemm*').  A models/... path not in the current folder is read from\n"
"         dyliberator's own copy (the checkout, or where make install put it).\n"
"Files are told apart by their header line; options may come before or after them;\n"
"'-' reads standard input.  Model files may hold '#' comment lines (an extension); one\n"
"'# setup_ns=N' line gives the accelerator's once-per-process cost (loading it: dyl-model\n"
"writes it from std.redirect's traces), added to each process that uses the file's models.\n"
"\n"
"Every call of a function that a model matches has its measured time t replaced by the\n"
"model's time f(work): linear between the model's samples, linear from the two nearest\n"
"samples outside them (never below 0; one sample: a constant).\n"
"\n"
"A model file may have a column named bytes after t_ns (func,work,t_ns,bytes, or\n"
"dyl-model --bytes's func,work,t_ns,samples,bytes): a function whose rows give bytes has\n"
"f(work, bytes), bytes being the call's in_bytes + out_bytes (an empty one counts 0), for\n"
"kernels whose time depends on the shape of the data, not on one number.  Over the\n"
"Delaunay triangulation of its samples in (ln(1 + work), ln(1 + bytes)), ln(1 + t) is\n"
"interpolated linearly in the triangle that holds the call (a power law between samples);\n"
"outside the triangles (by more than 1 %), along the nearest edge between two samples,\n"
"extrapolated along it beyond them, and reported as out of range.  Collinear samples are a\n"
"chain.  A call with neither in_bytes nor out_bytes keeps its measured time (said in the\n"
"notes).  Rows with bytes empty: that function is keyed on work alone, as without it.\n"
"\n"
"Then, as in Amdahl's law:\n"
"  T     the process's measured run time: '# total_ns=N' (from the wrapper's start to the\n"
"        exit) plus '# startup_ns=N' (the CPU time before: exec, the dynamic loader); when\n"
"        the calls were timed in thread CPU time (std.time clock=thread), the process's\n"
"        CPU time '# cpu_ns=N' instead, so that T and t share a clock; less what tracing\n"
"        itself cost the process, '# overhead_ns=N' (see --keep-overhead)\n"
"  P     = sum t / T                   the share of the run spent in the replaced calls\n"
"  S_P   = sum t / sum f(work)         how much faster the replaced calls themselves get\n"
"  S_G   = 1 / ((1 - P) + P / S_P)     how much faster the whole program gets\n"
"  T'    = T - sum t + sum f(work)     the predicted run time (S_G = T / T')\n"
"\n"
"Rules:\n"
"  - a function's model is the first model whose func matches it, in the order given\n"
"    (files as on the command line, then the order of first appearance in each file);\n"
"  - a modelled call that starts inside a replaced call of the same thread (dgemm_ called\n"
"    by a modelled dgetrf_) is not replaced separately: the outer call's f(work) already\n"
"    stands for all of its time;\n"
"  - a call with an empty work column is not replaced: its measured time is kept;\n"
"  - calls outside the model's samples are extrapolated and reported (how many, and their\n"
"    share of the kernel's time);\n"
"  - calls without bytes, when their model is keyed on bytes, are not replaced;\n"
"  - a call that took page faults (a faults column: std.faults) is replaced by f(work)\n"
"    + its time above the median of its process's fault-free calls at its work: the\n"
"    pages are the program's, and an accelerator writing them takes the same faults;\n"
"  - functions without a model are not accelerated and are listed as such, with what of\n"
"    them stays on the host: their calls nested in a replaced call run with it;\n"
"  - a replaced call's t is its t_ns less tracing's cost of the wrapped calls nested in\n"
"    it ((overhead_ns - overhead_outside_ns) / rows each) and less its own clock read\n"
"    (clock_cost_ns / 2), which T has lost already: the prediction is the same whether\n"
"    the inner functions were wrapped or not;\n"
"  - T' <= 0 (the replaced calls took longer than T) leaves S_G undefined, with a note:\n"
"    S_G is never negative or infinite;\n"
"  - several traces: each process is predicted on its own, and the run's T is the sum\n"
"    of their total_ns (processes that ran one after another), unless they are one run's\n"
"    (below).\n"
"\n"
"Jobs (doc/jobs-timeline.md): several traces of one run, each with its '# start_ns=' (the\n"
"wrappers write it), are placed on one timeline: T is the first start to the last end.\n"
"With the process lines ('# procs=recorded': fork, spawn, exec, waitpid, pipe_read,\n"
"pipe_write) a child starts at its parent's predicted fork, a waitpid returns at the\n"
"child's predicted end, a pipe read after the predicted write of its first byte, each plus\n"
"what it took after that; processes that ran at once still do.  T' is the run's predicted\n"
"end, S_G = T / T'.  The report adds a processes table (who started whom, the measured and\n"
"predicted time, what each waited for the others) and the run's critical path; --json a\n"
"\"job\" object and each process's placement in \"processes\".  For example:\n"
"    DYL_TRACE=run/trace.%p.csv LD_PRELOAD=./wrap.so make -j4\n"
"    dyl-speedup run/trace.*.csv models/fast.csv\n"
"\n"
"MPI jobs (doc/jobs-mpi.md): traces of an MPI job's ranks (-g std.mpi: '# mpi_rank=') add\n"
"an MPI section after the table: per rank T, T', the time in MPI and between its calls;\n"
"the job's T and T' (and between MPI_Init and MPI_Finalize), the imbalance and the\n"
"critical path across ranks.  A collective ends at its last member's predicted arrival\n"
"plus its own measured cost, a receive after its send's predicted start plus the\n"
"transfer.  For example:\n"
"    mpirun -np 4 -x LD_PRELOAD=$PWD/mpi.so -x DYL_TRACE=$PWD/out/trace.%p.csv ./app\n"
"    dyl-speedup out/trace.*.csv models/fast.csv\n"
"\n"
"Threads (doc/threads.md): a trace whose wrapper recorded the program's threads\n"
"('# threads=recorded', with '# thread' and '# join' lines) is predicted by their\n"
"timelines instead of Amdahl's sum.  Each thread runs from its start to its end, its\n"
"replaced calls and the gaps between them; a replaced call takes f(work) instead of t and\n"
"shifts the rest of its thread; a thread starts when its creator, on the prediction,\n"
"created it; pthread_join returns when the joined thread's predicted end is reached (plus\n"
"the join's own cost); an OpenMP region ('# parallel') returns when the work of every\n"
"thread in it is done; the process ends with its main thread, or a thread that outlives\n"
"it.  T' is that end (with T's start-up, less tracing's cost), S_G = T / T', never\n"
"negative or infinite.  One thread: Amdahl's T' to the nanosecond.  The report adds each\n"
"thread's measured and predicted time, P and S, the critical path, and the waiting for\n"
"devices.  A trace without the thread lines keeps Amdahl's answer, with a note.\n"
"\n"
"Options:\n"
"  --json         one JSON object: total_ns (T), overhead_ns (taken out of it), t_ns, P,\n"
"                 predicted_ns, S_P, S_G,\n"
"                 predicted_total_ns, measured_ns (sum t_ns as traced), inner_rows and\n"
"                 inner_tracing_ns (the rows nested in replaced calls, and tracing's cost\n"
"                 of them, out of measured_ns: t_ns), tracing_ns_per_row,\n"
"                 kernels[] (func, calls, t_ns, P, predicted_ns, S_P,\n"
"                 model_keys (work or work,bytes), bounded_by, work, bytes and shapes\n"
"                 ([work, bytes, predicted_ns] per call shape; --device only),\n"
"                 out_of_range_calls, no_work_calls,\n"
"                 no_bytes_calls, nested_calls, fault_calls (replaced calls that took page\n"
"                 faults), fault_kept_ns (what their faults took, kept in predicted_ns),\n"
"                 fault_unmatched (of them, without a fault-free call at their work),\n"
"                 ...), traces_with_faults (a faults column: measured), processes[] (the\n"
"                 same per trace),\n"
"                 timeline (true: T' from the threads' timelines), amdahl_predicted_total_ns,\n"
"                 queue_wait_ns, waited_calls, devices, threads[] (trace, tid, main,\n"
"                 parent, state, measured_ns, predicted_ns, P, S, calls, t_ns, f_ns,\n"
"                 predicted_start_ns, predicted_end_ns, queue_wait_ns, waited_calls),\n"
"                 critical_path[] (trace, tid, from_ns, to_ns, after: start or join),\n"
"                 not_accelerated[] (calls and t_ns that stay on the host; all_calls,\n"
"                 all_t_ns), unused_models[], notes[].  Times in ns; a ratio that is\n"
"                 undefined (nothing replaced, T' <= 0) or infinite is null\n""                 With link rows (--residency): h2d_bytes, d2h_bytes, h2d_transfers,\n"
"                 d2h_transfers, h2d_ns, d2h_ns, residency_mode, transfers_ns, bounds\n"
"                 {optimistic, pessimistic[, exact]} (each: those fields, S_G,\n"
"                 predicted_total_ns); each kernel: h2d_* and d2h_*\n"
"  --csv          the kernel table as CSV; the totals follow as '# key=value' lines\n"
"  --only-faster  replace only the calls the model makes faster (f(work) < t): the best\n"
"                 implementation for every call.  Decided from the outermost call in: a\n"
"                 call kept on the original implementation lets its inner calls be replaced\n"
"  --faults-replaced\n"
"                 replace a faulted call's whole time by f(work), as for any other call:\n"
"                 the accelerator does not take the program's page faults (its own memory)\n"
"  --cpu-time     T is the process's CPU time ('# cpu_ns=') where the calls were timed on\n"
"                 the wall clock, for a program of one thread that computes rather than\n"
"                 waits, on a loaded machine: the time other work held its core (here,\n"
"                 among others, the kernel writing the trace out: 14-20 ms of a 0.55 s\n"
"                 run) then leaves T, and T' with it.  A wait the program makes itself\n"
"                 (I/O, sleep) leaves too, so not for programs that wait.  A trace with\n"
"                 several threads, or whose calls took longer on the wall clock than the\n"
"                 process's CPU time, keeps its wall time (a note)\n"
"  --devices N    at most N replaced calls run at once ('unlimited': any number); a call\n"
"                 that arrives while N run waits its turn (first come, by predicted\n"
"                 arrival, first served), and the report shows the waiting.  Default 1:\n"
"                 a model gives one call's time on the accelerator to itself, and a GPU\n"
"                 runs one such kernel at a time; for a faster library on the CPU give\n"
"                 the number of cores, or unlimited\n"
"  --keep-overhead\n"
"                 leave tracing's own cost in T.  By default T loses the wrapper's own\n"
"                 measure of it, '# overhead_ns=N': one call in 32 (the first 64 of each\n"
"                 thread all) is timed from the wrapper's entry to its return, less its\n"
"                 t_ns, and scaled to all calls; write-outs and set-up are timed whole.\n"
"                 On short calls it is a real share of T (about 70 ns a call next to\n"
"                 1 us AES calls: 6 %), and left in, it would stay in T' as well.  The\n"
"                 measure is a sum over threads: where several threads recorded calls and\n"
"                 T is wall time, their costs overlap in time and it stays in T (a note)\n"
"  --residency exact|optimistic|pessimistic\n"
"                 with link rows (func @h2d and @d2h in a model file: work = the bytes of\n"
"                 one transfer, t_ns its time), the kernel models are the compute alone\n"
"                 and the transfers a port keeping data on the accelerator makes are\n"
"                 simulated over TRACE.flow (-g std.flow) and added to T'.  The three\n"
"                 figures are shown side by side; this picks the top-level one.  Default:\n"
"                 exact where host reads were recorded (-g std.flow:host_reads=on), else\n"
"                 optimistic.  See doc/residency.md\n"
"  --plan         the offload plan beside the report (plan.c): which functions to\n"
"                 accelerate so that T', the transfers included, is least (every subset\n"
"                 of up to 12 modelled functions; more: greedy flips), printed with the\n"
"                 all-in and call-by-call (--only-faster's) plans: T', S_G, the bytes\n"
"                 and transfers each way.  Needs link rows (@h2d, @d2h: models/link-*.csv)\n"
"                 and a TRACE.flow beside each trace (-g std.flow); --json adds \"plans\"\n"
"  --device NAME  predict with a real accelerator's published figures\n"
"                 (models/devices/NAME.csv, doc/devices.md; or a path to such a file): each\n"
"                 function its libraries provide (BLAS, the LAPACK factorizations and\n"
"                 solves, FFTW's executes) takes launch + max(work / (peak x efficiency),\n"
"                 bytes / (bandwidth x efficiency)), its link model adds the transfers\n"
"                 (--residency); no model file needed (one given first still wins).  The\n"
"                 kernel table gains a column 'bounded by' (compute, memory, launch, link);\n"
"                 the functions it does not provide stay on the host, named in a note.\n"
"                 An unknown NAME: the known devices, exit 2\n"
"  --link L       the link model L (a file, or a name: pcie4-x16 is models/link-pcie4-x16.csv),\n"
"                 read as a model file; it wins over --device's own link\n"
"  --report       the report people read (doc/report.md): the answer first (S_G, T -> T',\n"
"                 the transfers' three bounds), then the kernels, the transfers, the\n"
"                 offload plan (with link rows and flows), the threads and the notes,\n"
"                 wrapped to the terminal ($COLUMNS; 80 when not a terminal)\n"
"  --html FILE    the report as one self-contained HTML page (no network: opens from disk),\n"
"                 written besides the output asked for (--report, --json, the table):\n"
"                 a sortable kernel table, the measured and predicted timelines per\n"
"                 thread with the device and the link, the flow graph (Graphviz)\n"
"                   dyl-speedup --report --html report.html demo/trace.csv \\\n"
"                       models/example-pcie-gpu-dgemm.csv\n"
"  --chrome FILE  also write the run's timeline as Chrome trace-event JSON, to open in\n"
"                 https://ui.perfetto.dev or chrome://tracing: per thread its measured\n"
"                 calls beside its predicted ones, the device queue (\"device 0\"...) and\n"
"                 the link's h2d/d2h transfers.  See doc/threads.md\n"
"                   dyl-speedup run.csv model.csv --chrome run.json\n"
"  -h, --help     this text\n"
"      --version  the version\n"
"\n"
"Exit status: 0 done; 1 no model matches any traced function; 2 bad usage or bad input\n"
"(a missing file, a malformed row, a negative or non-numeric field: the message names\n"
"FILE:LINE); 3 nothing predicted: the modelled functions' calls had no work size (or no\n"
"bytes, for a model keyed on them), so none was replaced (the report says how to fix\n"
"it).  Warnings (a model that matches nothing, averaged duplicate samples) go to stderr.\n"
"\n"
"Example:\n"
"  LD_PRELOAD=./wrap.so DYL_TRACE=run.csv ./app\n"
"  dyl-speedup run.csv models/example-pcie-gpu-dgemm.csv\n"
"A worked case: T = 1000 ns; two dgemm_ calls of t = 100 and 300 ns at work 10 and 30;\n"
"a model with samples (0,0) (20,20) (40,40) gives f = 10 and 30 ns.  So P = 400/1000 =\n"
"0.4, S_P = 400/40 = 10, S_G = 1/((1 - 0.4) + 0.4/10) = 1.5625, T' = 1000 - 400 + 40 = 640 ns.\n";

enum kind { KIND_TRACE, KIND_MODEL };

/* Trace or model, from the first line that is not blank and not '#'. */
static int classify(const struct input_file *f, enum kind *kind)
{
	struct input_lines it;
	const char *line;
	size_t len;

	if (spool_recoverable(f->path, f->data, f->size)) {	/* read through rows.h */
		*kind = KIND_TRACE;
		return 0;
	}
	input_lines_init(&it, f);
	while (input_next_line(&it, &line, &len)) {
		if (len == 0 || line[0] == '#')
			continue;
		if (input_header_is(line, len, TRACE_HEADER)) {
			*kind = KIND_TRACE;
			return 0;
		}
		if (input_header_is(line, len, MODEL_HEADER)) {
			*kind = KIND_MODEL;
			return 0;
		}
		input_error(f->path, it.lineno, "neither a trace (header %s,...) nor a model (header %s)",
			    TRACE_HEADER, MODEL_HEADER);
		return -1;
	}
	input_error(f->path, 0, "empty: no header line (neither a trace nor a model)");
	return -1;
}

/* Models of MS that no traced function ended up using: a warning each. */
static int warn_unused_models(struct models *ms)
{
	int used = 0;

	for (int i = 0; i < ms->n; i++) {
		const struct model *m = &ms->m[i];
		if (m->link) {	/* the link's rows: no function to match */
			const struct model *l = models_link(ms, m->link);
			if (l != m)
				input_warning(m->file, m->line, "link model '%s' is not used: the "
					      "earlier one (%s:%lu) is", m->shown, l->file, l->line);
			continue;
		}
		if (m->used)
			used++;
		else if (m->shadowed_by >= 0) {
			const struct model *by = &ms->m[m->shadowed_by];
			char func[256];
			input_warning(m->file, m->line, "model '%s' is not used: %s takes the earlier model "
				      "'%s' (%s:%lu); the first match wins", m->shown,
				      shown(m->shadowed_func, strlen(m->shadowed_func), func, sizeof(func)),
				      by->shown, by->file, by->line);
		} else
			input_warning(m->file, m->line, "model '%s' matches no traced function", m->shown);
	}
	return used;
}

/* DEV: the device given (--device), whose libraries provide none of the traced
 * functions: said so, with what to do. */
static void no_match_error(const struct device_models *dev)
{
	char names[512] = "";
	size_t o = 0;

	for (int id = 0; id < funcs_count() && o < sizeof(names) - 1; id++)
		o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", id ? ", " : "",
				      funcs_get(id)->shown);
	if (o >= sizeof(names) - 1)
		strcpy(names + sizeof(names) - 5, "...");
	if (dev)
		input_error(NULL, 0, "%s's libraries provide none of the traced functions (%s): "
			    "they stay on the host; give a model of your own (--model FILE, "
			    "models/README.md)", dev->dev.title, names);
	else
		input_error(NULL, 0, "no model matches any traced function (traced: %s)", names);
}

/* What the command line asks for: the report's options, and the files, opened in the
 * order given (a file that cannot be opened stops the command there). */
struct speedup_opts {
	struct report r;	/* r.models: the models, loaded here */
	struct input_file *files;
	int nfiles;
	int plan;		/* --plan: the offload plans beside the report (plan.h) */
	const char *device;	/* --device NAME; NULL: none */
	const char *chrome;	/* --chrome FILE; NULL: none */
	struct device_models *dm;	/* its kernels, when given */
	int page;		/* --report: the text report (report_page.h) */
	const char *html;	/* --html FILE; NULL: none */
};

/* --devices' value V: a positive count, or 'unlimited' (0).  0, or -1 after a message. */
static int parse_devices(const char *v, int *devices)
{
	char *end;
	long n;

	if (v && strcmp(v, "unlimited") == 0) {
		*devices = 0;
		return 0;
	}
	n = v ? strtol(v, &end, 10) : 0;
	if (!v || !*v || *end || n < 1 || n > 1000000) {
		input_error(NULL, 0, "--devices takes a count of 1 or more, or 'unlimited' (got '%s')",
			    v ? v : "nothing");
		return -1;
	}
	*devices = (int)n;
	return 0;
}

/* --residency's value V: the mode of the top-level figures.  0, or -1 after a message. */
static int parse_residency(const char *v)
{
	for (int m = 0; v && m < RESID_MODES; m++)
		if (strcmp(v, resid_mode_name[m]) == 0) {
			transfers_mode = m;
			return 0;
		}
	input_error(NULL, 0, "--residency takes exact, optimistic or pessimistic (got '%s')",
		    v ? v : "nothing");
	return -1;
}

/* --report, --html FILE, --link L (report_page.h) at ARGV[*I]: 1 taken, 0 not one of
 * them, -1 after a message. */
static int page_option(int argc, char **argv, int *i, struct speedup_opts *o)
{
	const char *a = argv[*i];

	if (strcmp(a, "--report") == 0) {
		o->page = 1;
		if (o->r.format == REPORT_TABLE)
			return 1;
		input_error(NULL, 0, "--json, --csv and --report exclude each other");
	} else if (strncmp(a, "--html", 6) == 0 && (a[6] == '\0' || a[6] == '=')) {
		o->html = a[6] == '=' ? a + 7 : *i + 1 < argc ? argv[++*i] : NULL;
		if (o->html && *o->html)
			return 1;
		input_error(NULL, 0, "--html takes the file to write (see --help)");
	} else if (strncmp(a, "--link", 6) == 0 && (a[6] == '\0' || a[6] == '=')) {
		const char *v = a[6] == '=' ? a + 7 : *i + 1 < argc ? argv[++*i] : "";
		char *path = report_link_path(v);	/* kept: the file names it */
		if (!path) {
			input_error(NULL, 0, "--link: no link model '%s' (a file, or a name such as "
				    "pcie4-x16: models/link-NAME.csv)", v);
			return -1;
		}
		if (input_open(&o->files[o->nfiles], path) != 0)
			return -1;
		o->nfiles++;
		return 1;
	} else {
		return 0;
	}
	return -1;
}

/* Fills O from the command line.  0; 1 after --help; -1 after a message. */
static int parse_options(int argc, char **argv, struct speedup_opts *o)
{
	int options_done = 0, page;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (options_done || a[0] != '-' || a[1] == '\0') {
			if (companion_of_given(a, argc, argv))
				continue;	/* TRACE.flow beside TRACE: read with it */
			if (input_open(&o->files[o->nfiles], strcmp(a, "-") == 0 ? "/dev/stdin" : a) != 0)
				return -1;
			o->nfiles++;
		} else if (strcmp(a, "--") == 0) {
			options_done = 1;
		} else if (strcmp(a, "--json") == 0 || strcmp(a, "--csv") == 0) {
			enum report_format want = a[2] == 'j' ? REPORT_JSON : REPORT_CSV;
			if (o->page || (o->r.format != REPORT_TABLE && o->r.format != want)) {
				input_error(NULL, 0, "--json, --csv and --report exclude each other");
				return -1;
			}
			o->r.format = want;
		} else if (strcmp(a, "--only-faster") == 0) {
			o->r.only_faster = 1;
		} else if (strcmp(a, "--faults-replaced") == 0) {
			o->r.faults_replaced = 1;
		} else if (strcmp(a, "--keep-overhead") == 0) {
			o->r.keep_overhead = 1;
		} else if ((page = page_option(argc, argv, &i, o)) != 0) {
			if (page < 0)
				return -1;
		} else if (strcmp(a, "--plan") == 0) {
			o->plan = 1;
		} else if (strcmp(a, "--cpu-time") == 0) {
			o->r.cpu_time = 1;
		} else if (strncmp(a, "--devices", 9) == 0 && (a[9] == '\0' || a[9] == '=')) {
			const char *v = a[9] == '=' ? a + 10 : i + 1 < argc ? argv[++i] : NULL;
			if (parse_devices(v, &o->r.devices) != 0)
				return -1;
		} else if (strncmp(a, "--residency", 11) == 0 && (a[11] == '\0' || a[11] == '=')) {
			const char *v = a[11] == '=' ? a + 12 : i + 1 < argc ? argv[++i] : NULL;
			if (parse_residency(v) != 0)
				return -1;
		} else if (strncmp(a, "--device", 8) == 0 && (a[8] == '\0' || a[8] == '=')) {
			o->device = a[8] == '=' ? a + 9 : i + 1 < argc ? argv[++i] : NULL;
			if (!o->device) {
				input_error(NULL, 0, "--device takes a device's name (see --help)");
				return -1;
			}
		} else if (strncmp(a, "--chrome", 8) == 0 && (a[8] == '\0' || a[8] == '=')) {
			o->chrome = a[8] == '=' ? a + 9 : i + 1 < argc ? argv[++i] : NULL;
			if (!o->chrome || !*o->chrome) {
				input_error(NULL, 0, "--chrome takes the JSON file to write (see --help)");
				return -1;
			}
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			fputs(help, stdout);
			return 1;
		} else {
			cli_bad_option(input_prog, a, NULL);
			return -1;
		}
	}
	return 0;
}

/* 1 when every trace of O has its TRACE.flow beside it (the link's transfers need it). */
static int flows_beside(const struct speedup_opts *o, const enum kind *kinds)
{
	char path[4200];

	for (int i = 0; i < o->nfiles; i++) {
		snprintf(path, sizeof(path), "%s%s", o->files[i].path, DYL_FLOW_SUFFIX);
		if (kinds[i] == KIND_TRACE && access(path, R_OK) != 0)
			return 0;
	}
	return 1;
}

/* Tells O's files apart (KINDS), lists the models' paths (MODEL_FILES) and loads them.
 * Returns the number of traces, or -1 after a message. */
static int load_models(struct speedup_opts *o, enum kind *kinds, const char **model_files)
{
	int ntraces = 0, nmodels = 0;

	for (int i = 0; i < o->nfiles; i++) {
		if (classify(&o->files[i], &kinds[i]) != 0)
			return -1;
		if (kinds[i] == KIND_TRACE)
			ntraces++;
		else
			model_files[nmodels++] = o->files[i].path;
	}
	if (!ntraces || (!nmodels && !o->device)) {
		input_error(NULL, 0, "%s (see --help)", !o->nfiles ? "no files: give traces and models"
					: !ntraces ? "no trace among the files" : "no model among the files");
		fputs(usage, stderr);
		return -1;
	}
	for (int i = 0; i < o->nfiles; i++) {
		if (kinds[i] != KIND_MODEL)
			continue;
		if (models_load(o->r.models, &o->files[i]) != 0)
			return -1;
		input_close(&o->files[i]);
	}
	if (o->device && device_models_attach(o->dm, o->r.models, o->device,
					      !flows_beside(o, kinds)) != 0)
		return -1;
	o->r.device = o->device ? o->dm : NULL;
	o->r.model_files = model_files;
	o->r.nmodel_files = nmodels;
	return ntraces;
}

/* Predicts each trace of O (PROCS, one per trace) and the run (RUN).  0 or -1. */
static int predict_traces(struct speedup_opts *o, const enum kind *kinds,
			  struct prediction *procs, struct prediction *run)
{
	int ntraces = 0;

	for (int i = 0; i < o->nfiles; i++) {
		struct trace tr;
		if (kinds[i] != KIND_TRACE)
			continue;
		if (trace_read(&tr, &o->files[i], o->r.models, o->r.keep_overhead,
			       o->r.cpu_time) != 0)
			return -1;
		input_close(&o->files[i]);
		if (predict_trace(&tr, o->r.models, o->r.only_faster, o->r.faults_replaced,
				  o->r.devices, &procs[ntraces]) != 0 ||
		    predict_add(run, &procs[ntraces]) != 0)
			return -1;
		trace_free(&tr);
		ntraces++;
	}
	o->r.procs = procs;
	o->r.nprocs = ntraces;
	o->r.run = run;
	/* several processes of one run: on one timeline (jobs.h) */
	return jobs_predict(&o->r.job, &o->r.job_why, procs, ntraces, run);
}

/* After the table: the MPI section (mpi.h), when O's traces are an MPI job's ranks.
 * 0 or -1. */
static int mpi_section(const struct speedup_opts *o, const enum kind *kinds)
{
	const char **paths = calloc((size_t)o->nfiles + 1, sizeof(*paths));
	int n = 0, rc;

	if (!paths) {
		input_error(NULL, 0, "out of memory");
		return -1;
	}
	for (int i = 0; i < o->nfiles; i++)
		if (kinds[i] == KIND_TRACE && strcmp(o->files[i].path, "-") != 0)
			paths[n++] = o->files[i].path;
	rc = mpi_job_report(stdout, paths, n, o->r.models);
	free(paths);
	return rc;
}

/* The command: predicts from O's traces and models, prints the report.  Its exit status. */
static int dyl_speedup(struct speedup_opts *o)
{
	enum kind *kinds = calloc((size_t)o->nfiles + 1, sizeof(*kinds));
	const char **model_files = calloc((size_t)o->nfiles + 1, sizeof(*model_files));
	struct prediction *procs = calloc((size_t)o->nfiles + 1, sizeof(*procs));
	/* on the heap, as procs: O (the caller's) keeps a pointer to it */
	struct prediction *run = calloc(1, sizeof(*run));
	int rc = 0;

	if (!kinds || !model_files || !procs || !run) {
		input_error(NULL, 0, "out of memory");
		return EXIT_BAD_INPUT;
	}
	if (load_models(o, kinds, model_files) < 0 || predict_traces(o, kinds, procs, run) != 0)
		return EXIT_BAD_INPUT;
	if (run->rows > 0 && warn_unused_models(o->r.models) == 0) {
		no_match_error(o->r.device);
		return EXIT_NO_MATCH;
	}
	/* --report: the text; else the table, JSON or CSV; --html: the page besides */
	if (o->page ? report_page(stdout, &o->r, 1, o->html) != 0
	    : (o->plan ? plan_report(stdout, &o->r) : report_print(stdout, &o->r)) != 0 ||
	      (o->html && report_page(stdout, &o->r, 0, o->html) != 0))
		rc = EXIT_BAD_INPUT;
	if (rc == 0 && !o->page && !o->plan && o->r.format == REPORT_TABLE && mpi_section(o, kinds) != 0)
		rc = EXIT_BAD_INPUT;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		input_error(NULL, 0, "cannot write the output");
		rc = EXIT_BAD_INPUT;
	}
	if (rc == 0 && o->chrome && chrome_write(o->chrome, procs, o->r.nprocs) != 0)
		rc = EXIT_BAD_INPUT;
	if (rc == 0 && predict_nothing(run))
		rc = EXIT_NOTHING_PREDICTED;
	jobs_free(o->r.job);
	for (int i = 0; i < o->r.nprocs; i++)
		predict_free(&procs[i]);
	predict_free(run);
	free(run);
	o->r.run = NULL;
	free(procs);
	free(model_files);
	free(kinds);
	return rc;
}

int main(int argc, char **argv)
{
	struct models models = { 0 };
	static struct device_models dm;	/* large: not on the stack */
	struct speedup_opts o = { .r = { .format = REPORT_TABLE, .devices = DEFAULT_DEVICES,
					 .models = &models }, .dm = &dm };
	int rc;

	if (cli_want_version(argc, argv, input_prog))
		return 0;
	o.files = calloc((size_t)argc, sizeof(*o.files));
	if (!o.files) {
		input_error(NULL, 0, "out of memory");
		return EXIT_BAD_INPUT;
	}
	rc = parse_options(argc, argv, &o);
	if (rc != 0)
		return rc > 0 ? 0 : EXIT_BAD_INPUT;
	rc = dyl_speedup(&o);
	models_free(&models);
	device_models_free(&dm);
	free(o.files);
	return rc;
}
