/* format_roundtrip.c - the two ends of the trace format, for test_format_roundtrip.py.
 *
 *   format_roundtrip write SPOOL OUT   the spool's CSV as the runtime writes it at exit,
 *                                      through runtime/format/ alone: the header, the
 *                                      rows numbered from 0, the thread events' lines,
 *                                      the footer (when the spool has one)
 *   format_roundtrip read TRACE        what the tools' reader (runtime/format/read/)
 *                                      makes of a trace or a spool, one line each:
 *     key KEY=VALUE    a value the reader parses, KEY spelled by dyl_keys.h (an empty
 *                      VALUE: not found)
 *     note AFTER TEXT  a '#' line it kept (AFTER: 1 once the column line is read)
 *     row FIELDS       a row: seq,tid,func,t_start,t_ns,in,out,work,depth,faults|extra
 *     proc WORD tid=T call_ns=C ret_ns=R pid=P pipe=I bytes=N
 *                      a process event (speedup/lib/trace/proc_events.c), every field
 *     end ROWS TRUNCATED
 *
 * Exit 0, or 2 with the reader's message on stderr.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dyl_csv.h"
#include "dyl_events.h"
#include "dyl_keys.h"
#include "func_names.h"
#include "input.h"
#include "proc_events.h"
#include "rows.h"

static char block[DYL_CONVERT_BLOCK];

static int put_block(void *f, const char *data, size_t len)
{
	return fwrite(data, 1, len, f) != len;
}

static int write_csv(const char *spool, const char *out)
{
	struct stat st;
	const char *why, *text;
	size_t len;
	int fd = open(spool, O_RDONLY);
	FILE *f = fopen(out, "w");

	if (fd < 0 || !f || fstat(fd, &st) != 0)
		return 2;
	struct dyl_conv *c = dyl_conv_open(fd, (uint64_t)st.st_size, DYL_CONV_WINDOWS, &why);
	if (!c) {
		fprintf(stderr, "%s: %s\n", spool, why);
		return 2;
	}
	if ((text = dyl_conv_header(c, &len)))
		fwrite(text, 1, len, f);
	dyl_conv_set_seq(c, 0);
	dyl_csv_convert(c, block, sizeof(block), put_block, f);
	char *events = dyl_events_text(c, fd, (uint64_t)st.st_size, &len);
	if (events)
		fwrite(events, 1, len, f);
	dyl_events_free(events);
	if ((text = dyl_conv_footer(c, &len)))
		fwrite(text, 1, len, f);
	dyl_conv_close(c);
	close(fd);
	return fclose(f) == 0 ? 0 : 2;
}

/* (-1: not found, an empty value) */
static void key(const char *name, int64_t v)
{
	if (v >= 0)
		printf("key %s=%" PRId64 "\n", name, v);
	else
		printf("key %s=\n", name);
}

/* The values the reader parsed out of the '#' lines, each under its dyl_keys.h name;
 * every one, found or not. */
static void keys(const struct trace_src *src)
{
	key(DYL_KEY_PID, src->pid);
	key(DYL_KEY_START_NS, src->start_ns);
	printf("key %s=%s\n", DYL_KEY_CMDLINE, src->cmdline ? src->cmdline : "");
	printf("key %s=%s\n", DYL_KEY_TIME_CLOCK, src->thread_clock ? DYL_TIME_CLOCK_THREAD : "");
	key(DYL_KEY_TOTAL_NS, src->total_ns);
	key(DYL_KEY_CPU_NS, src->cpu_ns);
	key(DYL_KEY_STARTUP_NS, src->startup_ns);
	key(DYL_KEY_FAULT_NS, src->fault_ns);
	key(DYL_KEY_OVERHEAD_NS, src->overhead_ns);
	key(DYL_KEY_OVERHEAD_OUTSIDE_NS, src->overhead_outside_ns);
	key(DYL_KEY_CLOCK_COST_NS, src->clock_cost_ns);
}

/* The process events the tools' reader finds (proc_events.h): the header's two keys, then
 * one line an event.  0, or 2 after the reader's message. */
static int procs(const struct trace_src *src)
{
	static const char *const words[] = { DYL_KEY_FORK, DYL_KEY_SPAWN, DYL_KEY_EXEC,
					     DYL_KEY_WAITPID, DYL_KEY_PIPE_WRITE,
					     DYL_KEY_PIPE_READ };
	struct proc_events ev;

	if (proc_events_read(&ev, src, src->path) != 0)
		return 2;
	key(DYL_KEY_PPID, ev.ppid);
	key(DYL_KEY_EXEC_OF, ev.exec_of ? 1 : -1);
	for (size_t i = 0; i < ev.nev; i++) {
		const struct pev *e = &ev.ev[i];
		printf("proc %s tid=%" PRIu64 " call_ns=%" PRId64 " ret_ns=%" PRId64 " pid=%" PRId64
		       " pipe=%" PRIu64 " bytes=%" PRIu64 "\n", words[e->kind], e->tid, e->call_ns,
		       e->ret_ns, e->pid, e->pipe, e->bytes);
	}
	proc_events_free(&ev);
	return 0;
}

static int read_trace(const char *path)
{
	struct trace_src src;
	struct trace_row r;
	int rc;

	if (rows_open(&src, path) != 0)
		return 2;
	while ((rc = rows_next(&src, &r)) > 0) {
		const struct func *f = funcs_get((int)r.func);
		printf("row %" PRIu64 ",%" PRIu64 ",%.*s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
		       ",%" PRId64 ",%u,%" PRId64 "|%.*s\n", r.seq, r.tid, (int)f->len, f->name,
		       r.t_start, r.t_ns, r.in_bytes, r.out_bytes, r.work, r.depth, r.faults,
		       (int)r.extra_len, r.extra);
	}
	if (rc == 0 && procs(&src) != 0)
		rc = -1;
	if (rc == 0) {
		keys(&src);
		for (size_t i = 0; i < src.nnotes; i++)
			printf("note %u %.*s\n", src.notes[i].after, (int)src.notes[i].len,
			       src.notes[i].text);
		printf("end %lu %d\n", src.rows, src.truncated);
	}
	rows_close(&src);
	return rc == 0 ? 0 : 2;
}

int main(int argc, char **argv)
{
	input_prog = "format_roundtrip";
	if (argc == 4 && !strcmp(argv[1], "write"))
		return write_csv(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "read"))
		return read_trace(argv[2]);
	fprintf(stderr, "usage: format_roundtrip write SPOOL OUT | read TRACE\n");
	return 2;
}
