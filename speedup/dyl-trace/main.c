/* main.c - dyl-trace: look at a trace: print it as CSV, summarise it per function,
 * or export it as Chrome/Perfetto trace events to see the run on a timeline.
 *
 * The trace is read through rows.h, which knows the forms the runtime keeps on disk;
 * `cat` and `chrome` print the rows in seq order (start order), which is not the order
 * the runtime writes them in (a call's row is written when it ends), without keeping
 * the rows: one pass finds each seq's place, a second formats the rows from there.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "callsite.h"
#include "cli.h"
#include "companion.h"
#include "chrome_limit.h"
#include "convert.h"
#include "diff.h"
#include "filter.h"
#include "func_names.h"
#include "gzout.h"
#include "input.h"
#include "outfile.h"
#include "rows.h"
#include "shown.h"
#include "summary.h"
#include "thread_events.h"

#define EXIT_BAD_INPUT 2

static const char usage[] =
"usage: dyl-trace [cat] TRACE\n"
"       dyl-trace summary TRACE... [--csv | --json] [FILTER]\n"
"       dyl-trace chrome TRACE... [-o trace.json[.gz]] [--max-events N] [FILTER]\n"
"       dyl-trace diff A B [--csv | --json] [FILTER]\n"
"       dyl-trace summary --by-callsite TRACE... [--csv | --json]\n"
"       dyl-trace folded TRACE... [--weight time|calls|bytes|work]\n"
"       dyl-trace convert TRACE... [-o FILE]\n"
"       dyl-trace --help\n"
"FILTER: [--func PATTERN]... [--time-range START,END]\n";

static const char help[] =
"\n"
"Reads the traces a dyliberator wrapper writes (LD_PRELOAD=./wrap.so; the file is\n"
"$DYL_TRACE, default ./trace.csv, one per process), in whatever form the runtime keeps\n"
"them on disk, also when the process was killed before it finished (SIGKILL, a crash):\n"
"its rows are read from the spool the runtime keeps beside it (DIR/.NAME.dylspool: every\n"
"call it completed), with a warning.  TRACE may also name a spool itself.\n"
"\n"
"Subcommands:\n"
"  cat TRACE        (the default) the trace as CSV: its '#' metadata lines, the header\n"
"                   seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work[,depth,args,...],\n"
"                   the rows in seq order (the order the calls started), then the footer\n"
"                   ('# total_ns=N').  Every row is checked on the way.\n"
"  summary TRACE... per process, per function: calls, total time (the sum of the calls'\n"
"                   t_ns), its share of the run (total_ns), self time (the total minus\n"
"                   the time of the recorded calls it made: a dgemm_ inside a dgetrf_ is\n"
"                   taken off the dgetrf_; nesting is found from the depth column and the\n"
"                   calls' time spans on each thread), and the mean, min, median and max\n"
"                   of one call's time; largest total first.  Shares of nested functions\n"
"                   add up to more than 100 %; the self shares do not.  The median is\n"
"                   exact up to 4096 calls of a function; past that it comes from a\n"
"                   log-bucketed sketch (as DDSketch), within 1 % (+0.5 ns) of the exact\n"
"                   one: memory grows with the functions and threads, not the rows.\n"
"      --csv        one CSV table (trace,pid,func,calls,total_ns,self_ns,mean_ns,min_ns,\n"
"                   median_ns,max_ns,share,self_share), times in ns\n"
"      --json       {\"version\", \"traces\": [{\"path\", \"pid\", \"cmdline\", \"total_ns\",\n"
"                   \"startup_ns\", \"cpu_ns\", \"overhead_ns\" (what tracing cost the\n"
"                   process, the wrapper's measure), \"truncated\", \"rows\", \"untimed_calls\",\n"
"                   \"threads\", \"nested_calls\", \"funcs\":\n"
"                   [{\"func\", \"calls\", \"total_ns\", \"self_ns\", \"mean_ns\", \"min_ns\",\n"
"                   \"median_ns\", \"max_ns\", \"share\", \"self_share\"}...]}...]}; a value the\n"
"                   trace cannot give (share without total_ns) is null\n"

"  summary --by-callsite TRACE...\n"
"                   per function and call site (where the program called it; the\n"
"                   wrapper built with -g std.callsite): calls, total, self and mean\n"
"                   time, the site named \"caller (file.c:12)\" from the program's debug\n"
"                   information, else \"caller+0x1c\", else \"module+0x1234\".\n"
"                   --csv: trace,pid,func,callsite,address,calls,total_ns,self_ns,mean_ns\n"
"  folded TRACE...  folded stacks for flame graphs (flamegraph.pl, inferno, speedscope):\n"
"                   one line per stack, \"main;solve;dgemm_ 12345\", from the frames\n"
"                   std.callsite recorded (its depth=N), outermost first.\n"
"      --weight W   what a stack weighs: time (the calls' t_ns, the default), calls,\n"
"                   bytes (in_bytes + out_bytes) or work\n"
"  chrome TRACE...  Chrome trace-event JSON: one complete event (\"ph\": \"X\") per call with\n"
"                   ts and dur in microseconds, pid, tid and args (seq, depth, in_bytes,\n"
"                   out_bytes, work), each process named by its command line and each\n"
"                   thread by its name (where the trace recorded it).  Open it\n"
"                   in https://ui.perfetto.dev or chrome://tracing.  Several traces of one\n"
"                   run are placed on one time axis by their processes' start times.\n"
"      --max-events N  at most N calls (\"X\" events): the N longest of all the traces\n"
"                   (what Perfetto shows zoomed out; 10^7 calls are 1.5 GB of JSON), and\n"
"                   an instant event at the start saying how many shorter ones were left\n"
"                   out (also in \"otherData\")\n"
DIFF_HELP
"  convert TRACE... the CSV of a run whose rows stayed in its spool (by default a run of\n"
"                   more than DYL_CONVERT_MAX=64M of spool, ~4 million calls; any run\n"
"                   with DYL_CONVERT=later; every subcommand and tool reads the rows there\n"
"                   meanwhile), written at TRACE as the runtime writes it at exit, byte\n"
"                   for byte; then the spool is removed.  With -o FILE: the CSV of the\n"
"                   one TRACE (or spool) goes to FILE, and both stay as they are.\n"
"\n"
"Options (before or after the files):\n"
"  --func PATTERN   summary, chrome, diff: only the calls of functions PATTERN matches\n"
"                   (shell wildcards, repeatable; '!PATTERN' leaves out, the last match\n"
"                   wins, as dyliberator -f): --func 'dgemm_' --func '!*_64_'\n"
"  --time-range START,END  only the calls that start in [START, END), times from the\n"
"                   process's start with a unit (ns, us, ms, s); either may be empty:\n"
"                   --time-range 10ms,2.5s, --time-range ,500ms.  The output says what\n"
"                   was left out (the table's head, JSON's \"filter\", a line on stderr\n"
"                   for CSV, chrome's \"otherData\")\n"
"  -o FILE          write to FILE instead of standard output: to a new file beside it,\n"
"                   which replaces FILE once all is written (a failed run leaves FILE as\n"
"                   it was); FILE may not be one of the traces.  A FILE ending in .gz is\n"
"                   gzipped (Perfetto opens .json.gz as it is)\n"
"  -h, --help       this text\n"
"      --version    the version\n"
"A TRACE of '-' is standard input.  To read a file named like a subcommand, write\n"
"./summary.\n"
"\n"
"Exit status: 0 done (warnings, e.g. a trace cut short, go to stderr); 2 bad usage or\n"
"bad input: a missing file, a malformed row, a negative or non-numeric field, a seq met\n"
"twice; the one-line message names FILE:LINE.\n"
"\n"
"Examples:\n"
"  dyliberator --lib libblas.so.3 -o wrap.so\n"
"  LD_PRELOAD=./wrap.so DYL_TRACE=run.csv ./app\n"
"  dyl-trace run.csv | head                   the first calls, in the order they started\n"
"  dyl-trace summary run.csv                  where the time goes, per function\n"
"  dyl-trace summary --json run.csv*          every process of the run, for a script\n"
"  dyl-trace chrome run.csv* -o run.json      then open run.json in ui.perfetto.dev\n"
"  dyl-trace chrome big.csv --max-events 1000000 -o big.json.gz\n"
"  dyl-trace summary run.csv --func 'dgemm*' --time-range 1s,2s\n"
"  dyl-trace diff small.csv big.csv           what changed, per function\n"
"  bin/dyliberator --lib libz.so.1 -g std.callsite:depth=4 -o cs.so\n"
"  LD_PRELOAD=./cs.so DYL_TRACE=z.csv pigz -k file\n"
"  dyl-trace summary --by-callsite z.csv      which line of the program called what\n"
"  dyl-trace folded z.csv | flamegraph.pl > z.svg\n";

/* --- output --- */

static FILE *out;
static struct row_filter filter;	/* --func, --time-range */
static uint64_t max_events;		/* chrome --max-events N; 0: every call */
static int have_max_events;

static inline void put(const char *s, size_t n)
{
	fwrite_unlocked(s, 1, n, out);
}

static inline void puts_(const char *s)
{
	put(s, strlen(s));
}

static char *put_u64(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_opt(char *p, int64_t v)
{
	return v == ROWS_NONE ? p : put_u64(p, (uint64_t)v);
}

/* A CSV field, quoted when it must be. */
static void put_csv_field(const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		puts_(s);
		return;
	}
	put("\"", 1);
	for (; *s; s++) {
		if (*s == '"')
			put("\"", 1);
		put(s, 1);
	}
	put("\"", 1);
}

static void put_json_cstr(const char *s)
{
	json_str(out, s, strlen(s));
}

/* --- cat --- */

static void put_note(const struct trace_note *n)
{
	put("# ", 2);
	put(n->text, n->len);
	put("\n", 1);
}

static int cmd_cat(const char *path)
{
	struct trace_src src;
	struct trace_row r;
	uint64_t *order;
	size_t n;
	int rc = 0;

	if (rows_open(&src, path) != 0)
		return EXIT_BAD_INPUT;
	if (!(order = rows_by_seq(&src, &n))) {
		rows_close(&src);
		return EXIT_BAD_INPUT;
	}
	for (size_t i = 0; i < src.nnotes; i++)
		if (!src.notes[i].after)
			put_note(&src.notes[i]);
	put(src.header, src.header_len);
	put("\n", 1);
	for (size_t i = 0; i < n; i++) {
		char buf[256], *p = buf;
		if (rows_at(&src, order[i], &r) != 0) {
			rc = EXIT_BAD_INPUT;
			break;
		}
		p = put_u64(p, r.seq);
		*p++ = ',';
		p = put_u64(p, r.tid);
		*p++ = ',';
		put(buf, (size_t)(p - buf));
		put_csv_field(funcs_get((int)r.func)->name);
		p = buf;
		*p++ = ',';
		p = put_opt(p, r.t_start);
		*p++ = ',';
		p = put_opt(p, r.t_ns);
		*p++ = ',';
		p = put_opt(p, r.in_bytes);
		*p++ = ',';
		p = put_opt(p, r.out_bytes);
		*p++ = ',';
		p = put_opt(p, r.work);
		if (src.ncolumns > 8)
			*p++ = ',';
		put(buf, (size_t)(p - buf));
		put(r.extra, r.extra_len);
		put("\n", 1);
	}
	for (size_t i = 0; i < src.nnotes && rc == 0; i++)
		if (src.notes[i].after)
			put_note(&src.notes[i]);
	if (rc == 0 && src.truncated)
		rows_warn_truncated(&src);
	free(order);
	rows_close(&src);
	return rc;
}

/* --- summary --- */

enum { FMT_TABLE, FMT_CSV, FMT_JSON };

/* NS for people: 3 significant digits and a unit. */
static const char *human_ns(char *buf, size_t room, double ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	int u = 0;

	if (ns < 0)
		return "-";
	if (ns < 1000) {
		snprintf(buf, room, "%.0f ns", ns);
		return buf;
	}
	while (ns >= 999.5 && u < 3) {
		ns /= 1000;
		u++;
	}
	snprintf(buf, room, ns >= 99.95 ? "%.0f %s" : ns >= 9.995 ? "%.1f %s" : "%.2f %s", ns,
		 units[u]);
	return buf;
}

static void put_num(double v)
{
	char buf[64];

	if (v == (double)(int64_t)v)
		snprintf(buf, sizeof(buf), "%" PRId64, (int64_t)v);
	else
		snprintf(buf, sizeof(buf), "%.1f", v);
	puts_(buf);
}

static void put_share(int64_t part, int64_t total, const char *none)
{
	char buf[64];

	if (total <= 0) {
		puts_(none);
		return;
	}
	snprintf(buf, sizeof(buf), "%.6f", (double)part / (double)total);
	puts_(buf);
}

static void put_int(int64_t v, const char *none)
{
	char buf[24];

	if (v < 0) {
		puts_(none);
		return;
	}
	put(buf, (size_t)(put_u64(buf, (uint64_t)v) - buf));
}

static void summary_table(const struct trace_src *src, const struct trace_summary *s, int first)
{
	char b[9][32], fb[512];
	int w = 8;

	for (size_t i = 0; i < s->nfuncs; i++) {
		int l = (int)strlen(funcs_get((int)s->funcs[i].func)->shown);
		if (l > w)
			w = l > 40 ? 40 : l;
	}
	fprintf(out, "%s%s", first ? "" : "\n", src->path);
	if (src->pid >= 0)
		fprintf(out, ": pid %" PRId64, src->pid);
	if (src->cmdline) {
		const char *c = shown_keep(src->cmdline, strlen(src->cmdline));
		fprintf(out, ", %s", c ? c : "(out of memory)");
		if (c != src->cmdline)
			free((char *)c);
	}
	fprintf(out, "\n");
	if (filter_active(&filter))
		fprintf(out, "filtered: %s\n", filter_describe(&filter, fb, sizeof(fb)));
	if (src->total_ns >= 0)
		fprintf(out, "run %s (total_ns=%" PRId64 ")", human_ns(b[0], 32, (double)src->total_ns),
			src->total_ns);
	else
		fprintf(out, "run time unknown (no total_ns: the process did not finish)");
	fprintf(out, "; %" PRIu64 " calls of %zu function%s on %zu thread%s, %" PRIu64
		" of them made from inside another\n", s->rows, s->nfuncs, s->nfuncs == 1 ? "" : "s",
		s->nthreads, s->nthreads == 1 ? "" : "s", s->nested);
	if (s->untimed)
		fprintf(out, "%" PRIu64 " calls without a time (no std.time?)\n", s->untimed);
	/* dyl-speedup sets the same times against another T: say which base this is */
	if (src->total_ns > 0)
		fprintf(out, "share and self%%: of total_ns%s%s%s\n",
			src->overhead_ns > 0 ? ", tracing's own cost in it (overhead_ns=" : "",
			src->overhead_ns > 0 ? human_ns(b[7], 32, (double)src->overhead_ns) : "",
			src->overhead_ns > 0 || src->startup_ns > 0
			? src->overhead_ns > 0 ? "); dyl-speedup's P is of total_ns + startup_ns - overhead_ns"
						 : "; dyl-speedup's P is of total_ns + startup_ns"
			: "");
	if (src->total_ns > 0 && s->nthreads > 1)
		fprintf(out, "(the calls of %zu threads, added up: a share past 100 %% is threads that "
			"called at once, not more than the run)\n", s->nthreads);
	fprintf(out, "\n%-*s %10s %10s %7s %10s %7s %10s %10s %10s %10s\n", w, "function", "calls",
		"total", "share", "self", "self%", "mean", "min", "median", "max");
	for (size_t i = 0; i < s->nfuncs; i++) {
		const struct func_stats *f = &s->funcs[i];
		char share[16] = "-", self_share[16] = "-";
		if (src->total_ns > 0) {
			snprintf(share, sizeof(share), "%.1f%%", 100.0 * (double)f->total_ns / (double)src->total_ns);
			snprintf(self_share, sizeof(self_share), "%.1f%%",
				 100.0 * (double)f->self_ns / (double)src->total_ns);
		}
		fprintf(out, "%-*.*s %10" PRIu64 " %10s %7s %10s %7s %10s %10s %10s %10s\n", w, w,
			funcs_get((int)f->func)->shown, f->calls,
			human_ns(b[1], 32, f->timed ? (double)f->total_ns : -1), share,
			human_ns(b[2], 32, f->timed ? (double)f->self_ns : -1), self_share,
			human_ns(b[3], 32, f->mean_ns), human_ns(b[4], 32, (double)f->min_ns),
			human_ns(b[5], 32, f->median_ns), human_ns(b[6], 32, (double)f->max_ns));
	}
}

static void summary_csv(const struct trace_src *src, const struct trace_summary *s)
{
	for (size_t i = 0; i < s->nfuncs; i++) {
		const struct func_stats *f = &s->funcs[i];
		put_csv_field(src->path);
		put(",", 1);
		put_int(src->pid, "");
		put(",", 1);
		put_csv_field(funcs_get((int)f->func)->name);
		fprintf(out, ",%" PRIu64 ",", f->calls);
		put_int(f->timed ? f->total_ns : -1, "");
		put(",", 1);
		if (f->timed)
			fprintf(out, "%" PRId64, f->self_ns);
		put(",", 1);
		if (f->timed)
			put_num(f->mean_ns);
		put(",", 1);
		put_int(f->min_ns, "");
		put(",", 1);
		if (f->timed)
			put_num(f->median_ns);
		put(",", 1);
		put_int(f->max_ns, "");
		put(",", 1);
		put_share(f->total_ns, src->total_ns, "");
		put(",", 1);
		put_share(f->self_ns, src->total_ns, "");
		put("\n", 1);
	}
}

static void summary_json(const struct trace_src *src, const struct trace_summary *s)
{
	puts_("{\"path\": ");
	put_json_cstr(src->path);
	puts_(", \"pid\": ");
	put_int(src->pid, "null");
	puts_(", \"cmdline\": ");
	if (src->cmdline)
		put_json_cstr(src->cmdline);
	else
		puts_("null");
	puts_(", \"total_ns\": ");
	put_int(src->total_ns, "null");
	puts_(", \"startup_ns\": ");
	put_int(src->startup_ns, "null");
	puts_(", \"cpu_ns\": ");
	put_int(src->cpu_ns, "null");
	puts_(", \"overhead_ns\": ");
	put_int(src->overhead_ns, "null");
	fprintf(out, ", \"truncated\": %s, \"rows\": %" PRIu64 ", \"untimed_calls\": %" PRIu64
		", \"threads\": %zu, \"nested_calls\": %" PRIu64 ", \"funcs\": [",
		src->truncated ? "true" : "false", s->rows, s->untimed, s->nthreads, s->nested);
	for (size_t i = 0; i < s->nfuncs; i++) {
		const struct func_stats *f = &s->funcs[i];
		puts_(i ? ",\n    {\"func\": " : "\n    {\"func\": ");
		put_json_cstr(funcs_get((int)f->func)->name);
		fprintf(out, ", \"calls\": %" PRIu64 ", \"total_ns\": ", f->calls);
		put_int(f->timed ? f->total_ns : -1, "null");
		puts_(", \"self_ns\": ");
		if (f->timed)
			fprintf(out, "%" PRId64, f->self_ns);
		else
			puts_("null");
		puts_(", \"mean_ns\": ");
		if (f->timed)
			put_num(f->mean_ns);
		else
			puts_("null");
		puts_(", \"min_ns\": ");
		put_int(f->min_ns, "null");
		puts_(", \"median_ns\": ");
		if (f->timed)
			put_num(f->median_ns);
		else
			puts_("null");
		puts_(", \"max_ns\": ");
		put_int(f->max_ns, "null");
		puts_(", \"share\": ");
		put_share(f->total_ns, src->total_ns, "null");
		puts_(", \"self_share\": ");
		put_share(f->self_ns, src->total_ns, "null");
		puts_("}");
	}
	puts_("]}");
}

/* What --func and --time-range left out: a line on stderr for CSV (CSV has no room
 * for it), or JSON's value (null: nothing). */
static void filter_note(int csv)
{
	char fb[512];

	if (csv && filter_active(&filter))
		fprintf(stderr, "dyl-trace: filtered: %s\n", filter_describe(&filter, fb, sizeof(fb)));
}

static void filter_json(void)
{
	char fb[512];

	if (filter_active(&filter))
		put_json_cstr(filter_describe(&filter, fb, sizeof(fb)));
	else
		puts_("null");
}

static int cmd_summary(char **paths, int n, int fmt)
{
	if (fmt == FMT_CSV)
		puts_("trace,pid,func,calls,total_ns,self_ns,mean_ns,min_ns,median_ns,max_ns,share,"
		      "self_share\n");
	if (fmt == FMT_JSON)
		puts_("{\"version\": \""), puts_(cli_version), puts_("\", \"traces\": [");
	filter_note(fmt == FMT_CSV);
	for (int i = 0; i < n; i++) {
		struct trace_src src;
		struct trace_summary s;
		if (rows_open(&src, paths[i]) != 0)
			return EXIT_BAD_INPUT;
		if (summary_read_filtered(&src, &s, &filter) != 0) {
			rows_close(&src);
			return EXIT_BAD_INPUT;
		}
		if (src.truncated)
			rows_warn_truncated(&src);
		if (fmt == FMT_TABLE)
			summary_table(&src, &s, i == 0);
		else if (fmt == FMT_CSV)
			summary_csv(&src, &s);
		else {
			puts_(i ? ",\n  " : "\n  ");
			summary_json(&src, &s);
		}
		summary_free(&s);
		rows_close(&src);
	}
	if (fmt == FMT_JSON) {
		puts_("\n], \"filter\": ");
		filter_json();
		puts_("}\n");
	}
	return 0;
}

/* --- chrome --- */

/* NS as microseconds, exactly: "12.345". */
static char *put_us(char *p, int64_t ns)
{
	uint64_t frac = (uint64_t)ns % 1000;

	p = put_u64(p, (uint64_t)ns / 1000);
	*p++ = '.';
	*p++ = (char)('0' + frac / 100);
	*p++ = (char)('0' + frac / 10 % 10);
	*p++ = (char)('0' + frac % 10);
	return p;
}

static char *put_json_opt(char *p, int64_t v)
{
	if (v == ROWS_NONE) {
		memcpy(p, "null", 4);
		return p + 4;
	}
	return put_u64(p, (uint64_t)v);
}

/* The names the trace recorded for its threads ('# thread_name'), as metadata events. */
static void chrome_thread_names(struct trace_src *src, int64_t pid)
{
	struct thread_events ev;

	if (thread_events_read(&ev, src, src->path) != 0)
		return;
	for (size_t i = 0; i < ev.nnames; i++) {
		if (thread_events_name(&ev, ev.names[i].tid) != ev.names[i].name)
			continue;	/* (a later line names it) */
		fprintf(out, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %" PRId64
			", \"tid\": %" PRIu64 ", \"args\": {\"name\": ", pid, ev.names[i].tid);
		put_json_cstr(ev.names[i].name);
		puts_("}}");
	}
	thread_events_free(&ev);
}

static int chrome_one(struct trace_src *src, int64_t offset, int64_t pid, int *first,
		      struct chrome_keep *keep)
{
	struct trace_row r;
	uint64_t *order;
	size_t n;
	uint64_t untimed = 0;

	if (keep) {	/* read by chrome_longest */
		order = keep->order;
		n = keep->norder;
		keep->order = NULL;
	} else if (!(order = rows_by_seq(src, &n)))
		return -1;
	if (src->truncated)
		rows_warn_truncated(src);
	fprintf(out, "%s\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %" PRId64
		", \"tid\": 0, \"args\": {\"name\": ", *first ? "" : ",", pid);
	*first = 0;
	if (src->cmdline)
		put_json_cstr(src->cmdline);
	else
		put_json_cstr(src->path);
	puts_("}}");
	for (size_t i = 0; i < n; i++) {
		char buf[512], *p = buf;
		if (rows_at(src, order[i], &r) != 0) {
			free(order);
			return -1;
		}
		if (r.t_start == ROWS_NONE) {
			untimed++;
			continue;
		}
		if (!filter_keep(&filter, r.func, r.t_start) || (keep && !chrome_kept(keep, i)))
			continue;
		puts_(",\n{\"name\":");
		put_json_cstr(funcs_get((int)r.func)->name);
#define LIT(s) (memcpy(p, s, sizeof(s) - 1), p += sizeof(s) - 1)
		LIT(",\"ph\":\"X\",\"ts\":");
		p = put_us(p, r.t_start + offset);
		LIT(",\"dur\":");
		p = put_us(p, r.t_ns);
		LIT(",\"pid\":");
		p = put_u64(p, (uint64_t)pid);
		LIT(",\"tid\":");
		p = put_u64(p, r.tid);
		LIT(",\"args\":{\"seq\":");
		p = put_u64(p, r.seq);
		LIT(",\"depth\":");
		p = put_u64(p, r.depth);
		LIT(",\"in_bytes\":");
		p = put_json_opt(p, r.in_bytes);
		LIT(",\"out_bytes\":");
		p = put_json_opt(p, r.out_bytes);
		LIT(",\"work\":");
		p = put_json_opt(p, r.work);
		LIT("}}");
#undef LIT
		put(buf, (size_t)(p - buf));
	}
	if (untimed)
		input_warning(src->path, 0, "%" PRIu64 " calls without a time left out", untimed);
	chrome_thread_names(src, pid);
	free(order);
	return 0;
}

/* What --max-events left out of TOTAL calls: in "otherData" (EVENT 0), or as an instant
 * event at the start of the time axis (EVENT 1), which Perfetto shows. */
static void chrome_max_note(uint64_t total, int event)
{
	uint64_t kept = total < max_events ? total : max_events;

	if (!event) {
		fprintf(out, ", \"max_events\": {\"max\": %" PRIu64 ", \"kept\": %" PRIu64
			", \"left_out\": %" PRIu64 ", \"kept_are\": \"the longest calls\"}",
			max_events, kept, total - kept);
		return;
	}
	fprintf(out, "\n{\"name\": \"dyl-trace --max-events %" PRIu64 ": %" PRIu64 " shorter calls "
		"left out, the %" PRIu64 " longest kept\", \"ph\": \"i\", \"s\": \"g\", \"ts\": 0, "
		"\"pid\": 0, \"tid\": 0}", max_events, total - kept, kept);
}

static int cmd_chrome(char **paths, int n)
{
	struct trace_src *srcs = calloc((size_t)n, sizeof(*srcs));
	int64_t t0 = -1;
	int first = 1, all_start = 1, rc = 0, opened = 0;
	struct chrome_keep *keep = have_max_events ? calloc((size_t)n, sizeof(*keep)) : NULL;
	uint64_t total = 0;

	if (!srcs || (have_max_events && !keep))
		return EXIT_BAD_INPUT;
	for (int i = 0; i < n; i++) {
		if (rows_open(&srcs[i], paths[i]) != 0) {
			rc = EXIT_BAD_INPUT;
			break;
		}
		opened++;
		if (srcs[i].start_ns < 0)
			all_start = 0;
		else if (t0 < 0 || srcs[i].start_ns < t0)
			t0 = srcs[i].start_ns;
	}
	if (rc == 0 && keep && chrome_longest(srcs, n, max_events, &filter, keep, &total) != 0)
		rc = EXIT_BAD_INPUT;
	if (rc == 0) {
		puts_("{\"displayTimeUnit\": \"ns\", \"otherData\": {\"version\": \""), puts_(cli_version),
			puts_("\"");
		if (keep)
			chrome_max_note(total, 0);
		if (filter_active(&filter)) {
			puts_(", \"filter\": ");
			filter_json();
		}
		puts_("}, \"traceEvents\": [");
		if (keep && total > max_events) {
			chrome_max_note(total, 1);
			first = 0;
		}
		for (int i = 0; i < n && rc == 0; i++) {
			/* one time axis: each process's times are ns since its own start */
			int64_t offset = all_start && n > 1 ? srcs[i].start_ns - t0 : 0;
			int64_t pid = srcs[i].pid >= 0 ? srcs[i].pid : i + 1;
			if (chrome_one(&srcs[i], offset, pid, &first, keep ? &keep[i] : NULL) != 0)
				rc = EXIT_BAD_INPUT;
		}
		puts_("\n]}\n");
	}
	for (int i = 0; i < opened; i++)
		rows_close(&srcs[i]);
	free(srcs);
	chrome_keep_free(keep, n);
	return rc;
}

/* --- main --- */

/* What the command line asks for. */
struct trace_opts {
	const char *cmd;	/* cat, summary, chrome or convert */
	char **files;		/* argv's file arguments */
	int nfiles;
	int fmt;		/* summary's FMT_* */
	const char *outpath;	/* -o, or NULL: standard output */
	int by_callsite;	/* summary --by-callsite (callsite.c) */
	const char *weight;	/* folded --weight (folded.c) */
};

/* Checks what O asks for once all is parsed.  0, or -1 after a message. */
static int check_options(struct trace_opts *o)
{
	if (!o->cmd) {
		o->cmd = "cat";
		/* 'dyl-trace sumary x.csv': a misspelt subcommand, not a trace */
		if (o->nfiles > 1 && !strpbrk(o->files[0], "./") && access(o->files[0], F_OK) != 0) {
			fprintf(stderr, "dyl-trace: no subcommand '%s' (cat, summary, chrome, diff, convert)\n%s",
				o->files[0], usage);
			return -1;
		}
	}
	if (o->nfiles == 0) {
		fprintf(stderr, "dyl-trace: no trace given\n%s", usage);
		return -1;
	}
	if (o->fmt != FMT_TABLE && strcmp(o->cmd, "summary") != 0 && strcmp(o->cmd, "diff") != 0) {
		fprintf(stderr, "dyl-trace: --csv and --json go with summary and diff\n%s", usage);
		return -1;
	}
	if (filter_active(&filter) && (!strcmp(o->cmd, "cat") || !strcmp(o->cmd, "convert") ||
					 !strcmp(o->cmd, "folded") || o->by_callsite)) {
		fprintf(stderr, "dyl-trace: --func and --time-range go with summary (by function), chrome and diff\n%s",
			usage);
		return -1;
	}
	if (!strcmp(o->cmd, "diff") && o->nfiles != 2) {
		fprintf(stderr, "dyl-trace: diff compares two traces or record folders (%d given)\n%s",
			o->nfiles, usage);
		return -1;
	}
	if ((o->by_callsite && strcmp(o->cmd, "summary")) || (o->weight && strcmp(o->cmd, "folded"))) {
		fprintf(stderr, "dyl-trace: %s goes with %s\n%s", o->weight ? "--weight" : "--by-callsite",
			o->weight ? "folded" : "summary", usage);
		return -1;
	}
	if (have_max_events && strcmp(o->cmd, "chrome")) {
		fprintf(stderr, "dyl-trace: --max-events goes with chrome\n%s", usage);
		return -1;
	}
	if (!strcmp(o->cmd, "cat") && o->nfiles > 1) {
		fprintf(stderr, "dyl-trace: cat prints one trace (%d given)\n%s", o->nfiles, usage);
		return -1;
	}
	return 0;
}

/* Fills O from the command line.  0; 1 after --help; -1 after a message. */
static int parse_options(int argc, char **argv, struct trace_opts *o)
{
	int only_files = 0, taken;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
			if (!o->cmd && !o->nfiles && !only_files &&
			    (!strcmp(a, "cat") || !strcmp(a, "summary") || !strcmp(a, "chrome") ||
			     !strcmp(a, "convert") || !strcmp(a, "folded") || !strcmp(a, "diff")))
				o->cmd = a;
			else if (!companion_of_given(a, argc, argv))	/* read with its trace */
				o->files[o->nfiles++] = argv[i];
		} else if (!strcmp(a, "--")) {
			only_files = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			fputs(help, stdout);
			return 1;
		} else if ((taken = filter_option(&filter, argc, argv, &i, "dyl-trace")) != 0) {
			if (taken < 0)
				return -1;
		} else if (!strcmp(a, "--csv")) {
			o->fmt = FMT_CSV;
		} else if (!strcmp(a, "--json")) {
			o->fmt = FMT_JSON;
		} else if (!strcmp(a, "--max-events") && i + 1 < argc) {
			char *e;
			max_events = strtoull(argv[++i], &e, 10);
			have_max_events = 1;
			if (!*argv[i] || *e || argv[i][0] == '-') {
				fprintf(stderr, "dyl-trace: --max-events takes a number of calls, not '%s'\n",
					argv[i]);
				return -1;
			}
		} else if (!strcmp(a, "--by-callsite")) {
			o->by_callsite = 1;
		} else if (!strcmp(a, "--weight") && i + 1 < argc) {
			o->weight = argv[++i];
		} else if (!strcmp(a, "-o") && i + 1 < argc) {
			o->outpath = argv[++i];
		} else if (!strncmp(a, "--output=", 9)) {
			o->outpath = a + 9;
		} else {
			cli_bad_option(input_prog, a, "-o --weight --max-events");
			return -1;
		}
	}
	return check_options(o);
}

/* The command: runs O's subcommand, writing to standard output or -o.  Its exit status. */
static int dyl_trace(const struct trace_opts *o)
{
	struct outfile of;
	int rc;

	if (!strcmp(o->cmd, "convert"))	/* (it writes files, not standard output) */
		return cmd_convert(o->files, o->nfiles, o->outpath);
	out = stdout;
	/* -o: a new file that replaces OUTPATH only when all went well (outfile.h) */
	if (o->outpath) {
		if (outfile_open(&of, o->outpath, o->files, o->nfiles) != 0)
			return EXIT_BAD_INPUT;
		out = of.f;
		if (gzout_wanted(o->outpath) && !(out = gzout_open(of.f))) {
			fprintf(stderr, "dyl-trace: %s: out of memory\n", o->outpath);
			outfile_close(&of, 0);
			return EXIT_BAD_INPUT;
		}
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	if (!strcmp(o->cmd, "cat"))
		rc = cmd_cat(o->files[0]);
	else if (!strcmp(o->cmd, "summary") && o->by_callsite)
		rc = callsite_summary(o->files, o->nfiles, o->fmt, out);
	else if (!strcmp(o->cmd, "summary"))
		rc = cmd_summary(o->files, o->nfiles, o->fmt);
	else if (!strcmp(o->cmd, "folded"))
		rc = callsite_folded(o->files, o->nfiles, o->weight ? o->weight : "time", out);
	else if (!strcmp(o->cmd, "diff"))
		rc = cmd_diff(out, o->files[0], o->files[1], o->fmt == FMT_CSV ? DIFF_CSV
			      : o->fmt == FMT_JSON ? DIFF_JSON : DIFF_TABLE, &filter);
	else
		rc = cmd_chrome(o->files, o->nfiles);
	if (o->outpath) {
		if (out != of.f && fclose(out) != 0) {	/* the end of the gzip data */
			fprintf(stderr, "dyl-trace: %s: write error\n", o->outpath);
			rc = rc ? rc : EXIT_BAD_INPUT;
		}
		if (outfile_close(&of, rc == 0) != 0)
			rc = rc ? rc : EXIT_BAD_INPUT;
	} else if (fflush(out) != 0 || ferror(out)) {
		fprintf(stderr, "dyl-trace: standard output: write error\n");
		rc = rc ? rc : EXIT_BAD_INPUT;
	}
	return rc;
}

int main(int argc, char **argv)
{
	char *files[argc > 0 ? argc : 1];
	struct trace_opts o = { .files = files, .fmt = FMT_TABLE };
	int rc;

	input_prog = "dyl-trace";
	if (cli_want_version(argc, argv, input_prog))
		return 0;
	rc = parse_options(argc, argv, &o);
	if (rc != 0)
		return rc > 0 ? 0 : EXIT_BAD_INPUT;
	return dyl_trace(&o);
}
