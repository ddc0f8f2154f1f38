/* spool_rows.c - a trace whose process did not finish, read from the runtime's spool.
 *
 * While a program runs, its calls are in the spool beside the trace (DIR/.NAME.dylspool,
 * runtime/format/dyl_spool.h); the CSV is written from it when the program ends.  A
 * program killed before that (SIGKILL, a power cut of the terminal) leaves a trace
 * without its '# total_ns' footer, often empty, and the spool.  Every trace source
 * (rows.c) asks here first: a spool given by name, or a trace without footer that has its
 * spool beside it, is read by the runtime's own decoder (runtime/format/), and its rows
 * are served as they come out of it, with the checks and the names the CSV the runtime
 * would have written gives (without the footer: the run's length is not known).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dyl_csv.h"
#include "dyl_events.h"
#include "dyl_keys.h"
#include "func_names.h"
#include "input.h"
#include "rows.h"
#include "spool_rows.h"

static int is_spool(const char *data, size_t size)
{
	return size >= 8 && memcmp(data, DYL_SPOOL_MAGIC, 8) == 0;
}

/* Could DATA be a trace of ours: its first line's start, or as much of it as there is? */
static int is_trace(const char *data, size_t size)
{
	size_t n = DYL_KEY_LEN(DYL_TRACE_MAGIC);
	return memcmp(data, DYL_TRACE_MAGIC, size < n ? size : n) == 0;
}

/* Does the CSV trace in DATA end with its footer? */
static int finished(const char *data, size_t size)
{
	size_t tail = size < 4096 ? size : 4096;
	return memmem(data + size - tail, tail, DYL_KEY_LINE(DYL_KEY_TOTAL_NS),
		      DYL_KEY_LEN(DYL_KEY_LINE(DYL_KEY_TOTAL_NS))) != NULL;
}

/* Did its process leave its rows in the spool (DYL_CONVERT=later: the trace is its
 * header, '# rows_in_spool=NAME' and the footer)? */
static int rows_in_spool(const char *data, size_t size)
{
	size_t tail = size < 4096 ? size : 4096;
	return memmem(data + size - tail, tail, DYL_KEY_NL(DYL_KEY_ROWS_IN_SPOOL),
		      DYL_KEY_LEN(DYL_KEY_NL(DYL_KEY_ROWS_IN_SPOOL))) != NULL;
}

/* The value of '# pid=' in a trace's first lines, or -1.  Read within SIZE: a mapped
 * file has no NUL after its last byte (strtol could run past it). */
static long pid_of(const char *data, size_t size)
{
	const char *p = memmem(data, size < 4096 ? size : 4096, DYL_KEY_NL(DYL_KEY_PID),
			       DYL_KEY_LEN(DYL_KEY_NL(DYL_KEY_PID)));
	long pid = 0;

	if (!p)
		return -1;
	for (p += DYL_KEY_LEN(DYL_KEY_NL(DYL_KEY_PID)); p < data + size && *p >= '0' && *p <= '9' && pid < (1L << 40); p++)
		pid = pid * 10 + (*p - '0');
	return pid;
}

/* One row as the decoder gave it: what its CSV line would hold, checked when read. */
struct spool_row {
	uint64_t seq;
	uint64_t t_start, t_ns;
	int timed;
	int64_t in_bytes, out_bytes, work;	/* DYL_NONE: empty (work: as the CSV has it) */
	int64_t faults;				/* DYL_NONE: empty, or no faults column */
	uint64_t pos;				/* its place in the decoder's order */
	uint64_t extra;				/* its extra columns, in LATE_TEXT */
	uint32_t tid, name, depth, extra_len;
};

static int grow_to(void **p, size_t *room, size_t need, size_t elsize, size_t first)
{
	size_t r = *room ? *room : first;
	void *q;

	if (need <= *room)
		return 0;
	while (r < need)
		r *= 2;
	if (!(q = realloc(*p, r * elsize)))
		return -1;
	*p = q;
	*room = r;
	return 0;
}

void spool_rows_free(struct spool_rows *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; s->names && i <= s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->func_ids);
	free(s->header);
	free(s->tail);
	free(s->trace_foot);
	free(s->late);
	free(s->late_text);
	free(s->path);
	dyl_conv_close(s->conv);
	dyl_conv_close(s->again);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

/* The name as a reader of the CSV row gets it back: line breaks became blanks in a
 * quoted field (dyl_csv.h); cut at DYL_NAME_MAX. */
static char *csv_name(const char *name, uint32_t len)
{
	char *out = malloc((size_t)len + 1);
	int quoted = 0;

	if (!out)
		return NULL;
	for (uint32_t i = 0; i < len; i++)
		quoted |= name[i] == ',' || name[i] == '"' || name[i] == '\n' || name[i] == '\r';
	for (uint32_t i = 0; i < len; i++)
		out[i] = quoted && (name[i] == '\n' || name[i] == '\r') ? ' ' : name[i];
	out[len] = '\0';
	return out;
}

/* The counter that the header's faults column holds (std.faults), or -1: the header's
 * last line is its columns; counters follow the DYL_CSV_COLUMNS. */
static int faults_counter(const char *header, size_t len)
{
	const char *end = header + len, *p;
	int col = 0, found = -1;

	if (len && end[-1] == '\n')
		end--;
	for (p = end; p > header && p[-1] != '\n'; p--)
		;
	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *e = c ? c : end;
		if (col >= 10 && found < 0 && e - p == DYL_KEY_LEN("faults") &&
		    !memcmp(p, "faults", DYL_KEY_LEN("faults")))
			found = col - 10;
		col++;
		p = c ? c + 1 : end;
	}
	return found;
}

/* R as X (the row POS), its extra columns in S's EXTRA. */
static void compact(struct spool_rows *s, const struct dyl_row *r, uint64_t pos,
		    struct spool_row *x)
{
	x->seq = r->seq;
	x->pos = pos;
	x->tid = (uint32_t)r->tid;
	x->name = r->func_id < s->nnames ? r->func_id : s->nnames;	/* nnames: "?" */
	x->timed = r->timed;
	x->t_start = r->t_start_ns;
	x->t_ns = r->t_ns;
	x->in_bytes = r->in_bytes;
	x->out_bytes = r->out_bytes;
	x->work = r->work;
	/* (the CSV's work column: the runtime's sum of the byte counts when it has none) */
	if (x->work == DYL_NONE && (x->in_bytes != DYL_NONE || x->out_bytes != DYL_NONE))
		x->work = (int64_t)((x->in_bytes == DYL_NONE ? 0 : (uint64_t)x->in_bytes) +
				    (x->out_bytes == DYL_NONE ? 0 : (uint64_t)x->out_bytes));
	x->faults = DYL_NONE;
	if (s->faults >= 0 && (uint32_t)s->faults >= r->counter_base &&
	    (uint32_t)s->faults < r->counter_base + r->ncounters)
		x->faults = r->counters[s->faults - (int)r->counter_base];
	x->depth = r->depth;
	x->extra = 0;
	x->extra_len = (uint32_t)dyl_format_extra(s->extra, sizeof(s->extra), r, s->ncolumns);
}

/* X, a row numbered below one before it (a call open when its block was written out),
 * kept: rows_at() takes it from here, not from the decoder's order. */
static int keep_late(struct spool_rows *s, struct spool_row *x)
{
	if (grow_to((void **)&s->late, &s->late_room, s->nlate + 1, sizeof(*s->late), 64) ||
	    grow_to((void **)&s->late_text, &s->late_text_room, s->late_text_len + x->extra_len,
		    1, 4096))
		return -1;
	x->extra = s->late_text_len;
	memcpy(s->late_text + s->late_text_len, s->extra, x->extra_len);
	s->late_text_len += x->extra_len;
	s->late[s->nlate++] = *x;
	return 0;
}

static int keep_names(struct spool_rows *s, const struct dyl_conv *c)
{
	s->nnames = dyl_conv_nnames(c);
	if (!(s->names = calloc((size_t)s->nnames + 1, sizeof(*s->names))) ||
	    !(s->func_ids = calloc((size_t)s->nnames + 1, sizeof(*s->func_ids))))
		return -1;
	for (uint32_t i = 0; i <= s->nnames; i++) {
		uint32_t len;
		const char *name = i < s->nnames ? dyl_conv_name(c, i, &len) : (len = 1, "?");
		if (!(s->names[i] = csv_name(name, len)))
			return -1;
	}
	return 0;
}

/* Where the spool is damaged, said once as soon as the decoder meets it: 1 if it is. */
static int warn_damage(struct spool_rows *s)
{
	const char *lost;
	uint64_t at = dyl_conv_damage(s->conv, &lost);

	if (at && !s->warned)
		input_warning(s->path, 0, "damaged at byte %llu (sizes that do not add up): %s",
			      (unsigned long long)at, lost);
	s->warned |= at != 0;
	return at != 0;
}

/* The decoder's rows are all read: the '#' lines that follow them, and what the spool
 * says of its end (damage, a write cut short), as the runtime's CSV would.  0, or -1
 * after one message. */
static int ended(struct spool_rows *s)
{
	const struct dyl_conv *c = s->conv;
	char note[256];
	/* the thread events (runtime/format/events.c), as the runtime writes them after the
	 * rows at exit */
	size_t elen, flen;
	char *events = dyl_events_text(s->conv, s->fd, s->size, &elen);
	/* a finished process's footer (DYL_CONVERT=later): the CSV's own last lines */
	const char *foot = dyl_conv_footer(c, &flen);
	if (!foot && s->trace_foot) {	/* the spool could not take it: the trace did */
		foot = s->trace_foot;
		flen = s->trace_foot_len;
	}
	int n = foot ? snprintf(note, sizeof(note), "%s", "")
		     : snprintf(note, sizeof(note), DYL_KEY_LINE(DYL_KEY_RECOVERED_FROM) "%s\n"
				DYL_KEY_LINE(DYL_KEY_LAST_END_NS) "%llu\n",
				s->path, (unsigned long long)dyl_conv_last_end_ns(c));
	/* the runtime could not write the spool (a full disk): why its rows end there */
	uint32_t flags;
	int full = pread(s->fd, &flags, sizeof(flags), offsetof(struct dyl_spool_head, zero)) ==
		   sizeof(flags) && (flags & DYL_SPOOL_DISK_FULL);

	s->ended = 1;
	if (full && (size_t)n < sizeof(note))
		n += snprintf(note + n, sizeof(note) - (size_t)n, DYL_KEY_LINE(DYL_KEY_ERROR)
			      DYL_ERROR_DISK_FULL " (the spool could not be written further)\n");
	if ((size_t)n >= sizeof(note))
		n = (int)sizeof(note) - 1;
	if (!foot)
		flen = 0;
	s->tail = malloc(elen + flen + (size_t)n + 1);
	if (s->tail) {
		if (events)
			memcpy(s->tail, events, elen);
		if (flen)
			memcpy(s->tail + elen, foot, flen);
		memcpy(s->tail + elen + flen, note, (size_t)n + 1);
	}
	dyl_events_free(events);
	if (!s->tail) {
		input_error(s->path, 0, "out of memory");
		return -1;
	}
	s->tail_len = elen + flen + (size_t)n;
	if (warn_damage(s))
		;
	else if (dyl_conv_cut_short(c))
		input_warning(s->path, 0, "its last part was cut short (%s); the rows before it "
			      "are read", full ? "the disk was full" : "the process died while writing it");
	return 0;
}

/* Why the spool FD was refused (WHY, the decoder's words): a format other than this
 * reader's is named with its version, on the line the trace's reader uses (rows.c). */
static void refused(const char *spool, int fd, const char *why)
{
	struct dyl_spool_head h;

	if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	    memcmp(h.magic, DYL_SPOOL_MAGIC, 8) == 0 && h.version != DYL_SPOOL_VERSION)
		input_error(spool, 0, "spool format %u, this %s reads %u (%s)", h.version, input_prog,
			    DYL_SPOOL_VERSION, h.version > DYL_SPOOL_VERSION ? "upgrade dyliberator" :
			    "made by an older dyliberator");
	else
		input_error(spool, 0, "%s", why);
}

/* The spool FD (SIZE bytes) opened for its rows into *OUT (FD is its now); 0, 1 when
 * it is not the spool of WANT_PID's trace, or -1 after one message. */
static int convert(const char *spool, int fd, uint64_t size, long want_pid,
		   struct spool_rows **out)
{
	const char *why;
	struct dyl_conv *c = dyl_conv_open(fd, size, DYL_CONV_WINDOWS, &why);
	struct spool_rows *s;
	size_t hlen;

	if (!c) {
		refused(spool, fd, why);
		return -1;
	}
	const char *header = dyl_conv_header(c, &hlen);
	if (!header || !hlen) {
		input_error(spool, 0, "no header in it: the process died as the spool was made");
		dyl_conv_close(c);
		return -1;
	}
	if (want_pid >= 0 && pid_of(header, hlen) != want_pid) {
		/* the trace names another process than the spool: not its spool */
		dyl_conv_close(c);
		return 1;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		dyl_conv_close(c);
		input_error(spool, 0, "out of memory");
		return -1;
	}
	s->conv = c;
	s->fd = -1;
	if (!(s->header = malloc(hlen)) || !(s->path = strdup(spool)) || keep_names(s, c) != 0) {
		spool_rows_free(s);
		input_error(spool, 0, "out of memory");
		return -1;
	}
	s->fd = fd;
	s->size = size;
	memcpy(s->header, header, hlen);
	s->header_len = hlen;
	for (size_t i = 0; i < hlen; i++)
		s->header_lines += header[i] == '\n';
	s->ncolumns = dyl_conv_ncolumns(c);
	s->faults = faults_counter(header, hlen);
	warn_damage(s);	/* a chunk's damage is known already */
	*out = s;
	return 0;
}

/* SPOOL opened and converted for its rows.  BESIDE: found beside a trace, not named by
 * the user: never followed through a symbolic link (one planted to /etc/shadow would be
 * read with the user's rights).  Either way a FIFO or a device is refused, not waited
 * on.  0; 1 when there is no spool (or an empty one); -1 after one message. */
static int map_and_convert(const char *spool, int beside, long want_pid,
			   struct spool_rows **out)
{
	struct stat st;
	int fd = input_open_regular(spool, beside, &st);

	if (fd < 0 && fd != INPUT_NOT_REGULAR && errno == ENOENT)
		return 1;	/* no spool: the trace is what there is */
	if (fd < 0) {
		input_error(spool, 0, "%s", input_open_why(fd, errno, &st));
		return -1;
	}
	if (st.st_size == 0) {
		close(fd);
		return 1;
	}
	int rc = convert(spool, fd, (uint64_t)st.st_size, want_pid, out);
	if (rc != 0)
		close(fd);	/* (else the spool's rows read it) */
	return rc;
}

/* S's copy of the lines after '# rows_in_spool=' in the trace DATA (SIZE): the footer,
 * which a full disk kept out of the spool (struct spool_rows).  0, or -1. */
static int keep_trace_foot(struct spool_rows *s, const char *data, size_t size)
{
	size_t tail = size < 4096 ? size : 4096;
	const char *at = memmem(data + size - tail, tail, DYL_KEY_NL(DYL_KEY_ROWS_IN_SPOOL),
				DYL_KEY_LEN(DYL_KEY_NL(DYL_KEY_ROWS_IN_SPOOL)));
	const char *eol = at ? memchr(at + 1, '\n', (size_t)(data + size - at - 1)) : NULL;

	if (!eol || eol + 1 >= data + size)
		return 0;
	s->trace_foot_len = (size_t)(data + size - eol - 1);
	if (!(s->trace_foot = malloc(s->trace_foot_len)))
		return -1;
	memcpy(s->trace_foot, eol + 1, s->trace_foot_len);
	return 0;
}

int spool_recoverable(const char *path, const char *data, size_t size)
{
	char spool[4096 + 16];
	struct stat st;

	if (data && is_spool(data, size))
		return 1;
	if (data && rows_in_spool(data, size) && strcmp(path, "-"))
		return 1;
	if (!strcmp(path, "-") || (data && finished(data, size)) ||
	    (data && !is_trace(data, size)))
		return 0;
	/* a spool that is no regular file (a FIFO, a link) too: reading it says why not */
	return dyl_spool_name(spool, sizeof(spool), path) == 0 && lstat(spool, &st) == 0 &&
	       (!S_ISREG(st.st_mode) || st.st_size > 0);
}

int spool_recover(const char *path, const char *data, size_t size, struct spool_rows **out)
{
	char spool[4096 + 16];

	*out = NULL;
	if (data && is_spool(data, size)) {
		/* the spool itself: read again from its file */
		int rc = strcmp(path, "-") ? map_and_convert(path, 0, -1, out) : 1;
		if (rc > 0)
			input_error(path, 0, "a spool is read from its file, not from a pipe");
		return rc != 0 ? -1 : 0;
	}
	if (data && !is_trace(data, size))
		return 1;	/* not a trace of ours (a model, say) */
	if (data && rows_in_spool(data, size)) {
		/* DYL_CONVERT=later: the rows are in the spool, complete */
		if (!strcmp(path, "-")) {
			input_error(path, 0, "its rows are in a spool beside the trace "
				    "(DYL_CONVERT): name the trace's file, not a pipe");
			return -1;
		}
		int rc = dyl_spool_name(spool, sizeof(spool), path) == 0
			 ? map_and_convert(spool, 1, pid_of(data, size), out) : 1;
		if (rc > 0)
			input_error(path, 0, "its rows are in the spool %s (DYL_CONVERT), "
				    "which is missing or another process's", spool);
		if (rc == 0 && keep_trace_foot(*out, data, size) != 0) {
			spool_rows_free(*out);
			*out = NULL;
			input_error(path, 0, "out of memory");
			return -1;
		}
		return rc != 0 ? -1 : 0;
	}
	if (!strcmp(path, "-") || (data && finished(data, size)))
		return 1;
	if (dyl_spool_name(spool, sizeof(spool), path) != 0)
		return 1;
	long pid = data ? pid_of(data, size) : -1;
	int rc = map_and_convert(spool, 1, pid, out);
	if (rc == 0 && !dyl_conv_footer((*out)->conv, &(size_t){ 0 }))
		input_warning(path, 0, "the process did not finish; its rows are read from "
			      "its spool %s", spool);
	return rc;
}

/* --- the rows, as a form of trace source (rows.h) --- */

/* A value of row LINE's column NAME as the CSV reader checks it (rows.c): 0, or -1
 * after its message. */
static int check(const struct trace_src *src, unsigned long line, const char *name, int64_t v)
{
	char text[24];
	int why = v < 0 ? NUM_NEGATIVE : (uint64_t)v >= ROWS_MAX_VALUE ? NUM_TOO_LARGE : NUM_OK;

	if (why == NUM_OK)
		return 0;
	struct csv_field f = { text, (uint32_t)(dyl_put_i64(text, v) - text), 0 };
	input_number_error(src->path, line, name, &f, why);
	return -1;
}

static int check_u64(const struct trace_src *src, unsigned long line, const char *name,
		     uint64_t v)
{
	char text[24];

	if (v < ROWS_MAX_VALUE)
		return 0;
	struct csv_field f = { text, (uint32_t)(dyl_put_u64(text, v) - text), 0 };
	input_number_error(src->path, line, name, &f, NUM_TOO_LARGE);
	return -1;
}

static int64_t opt(int64_t v)
{
	return v == DYL_NONE ? ROWS_NONE : v;
}

/* X as the CSV reader would give its line (the same checks, the same names). */
static int row_get(struct trace_src *src, const struct spool_row *x, const char *extra,
		   struct trace_row *r)
{
	struct spool_rows *s = src->priv;
	unsigned long line = s->header_lines + (unsigned long)x->pos + 1;

	if (check_u64(src, line, "seq", x->seq))
		return -1;
	if (!x->timed && (src->flags & ROWS_NEED_TIMES)) {
		input_error(src->path, line, "t_start_ns is empty");
		return -1;
	}
	if ((x->timed && (check_u64(src, line, "t_start_ns", x->t_start) ||
			  check_u64(src, line, "t_ns", x->t_ns))) ||
	    (x->in_bytes != DYL_NONE && check(src, line, "in_bytes", x->in_bytes)) ||
	    (x->out_bytes != DYL_NONE && check(src, line, "out_bytes", x->out_bytes)) ||
	    (x->work != DYL_NONE && check(src, line, "work", x->work)) ||
	    (x->faults != DYL_NONE && src->faults_col >= 0 && check(src, line, "faults", x->faults)))
		return -1;
	if (!s->names[x->name][0]) {
		input_error(src->path, line, "func is empty");
		return -1;
	}
	if (!s->func_ids[x->name]) {
		int added, id = funcs_intern(s->names[x->name], strlen(s->names[x->name]), &added);
		if (id < 0) {
			input_error(src->path, line, "out of memory");
			return -1;
		}
		s->func_ids[x->name] = id + 1;
	}
	r->seq = x->seq;
	r->tid = x->tid;
	r->func = (uint32_t)(s->func_ids[x->name] - 1);
	r->t_start = x->timed ? (int64_t)x->t_start : ROWS_NONE;
	r->t_ns = x->timed ? (int64_t)x->t_ns : ROWS_NONE;
	r->in_bytes = opt(x->in_bytes);
	r->out_bytes = opt(x->out_bytes);
	r->work = opt(x->work);
	r->depth = src->depth_col >= 0 ? x->depth : 0;
	r->faults = src->faults_col >= 0 ? opt(x->faults) : ROWS_NONE;
	r->pos = x->pos;
	r->extra = extra;
	r->extra_len = x->extra_len;
	return 0;
}

/* The rows stream out of the decoder: nothing is kept but the few numbered below an
 * earlier row (keep_late), which rows_at() needs. */
static int spool_next(struct trace_src *src, struct trace_row *r)
{
	struct spool_rows *s = src->priv;
	struct dyl_row d;
	struct spool_row x;

	int more = !s->ended && dyl_conv_next(s->conv, &d);

	if (!s->warned && !s->ended)
		warn_damage(s);
	if (!more) {
		/* (truncated: once the '#' lines after the rows are read, rows.c) */
		if (!s->ended && ended(s) != 0)
			return -1;
		return 0;
	}
	/* the rows have the runtime's columns (dyl_csv.h): a header that gives them
	 * another number, or puts depth or faults elsewhere, is not this spool's */
	unsigned ncol = s->ncolumns < DYL_CSV_MAX_COUNTERS ? s->ncolumns : DYL_CSV_MAX_COUNTERS;
	if (!s->next && (src->ncolumns != (int)(10 + ncol) ||
			 (src->depth_col >= 0 && src->depth_col != 8) ||
			 (src->faults_col >= 0 && src->faults_col < 10))) {
		input_error(src->path, 0, "the spool's header does not match its rows");
		return -1;
	}
	compact(s, &d, s->next++, &x);
	if (s->next > 1 && x.seq < s->max_seq) {
		if (keep_late(s, &x) != 0) {
			input_error(src->path, 0, "out of memory");
			return -1;
		}
	} else {
		s->max_seq = x.seq;
	}
	if (row_get(src, &x, s->extra, r) != 0)
		return -1;
	src->rows++;
	return 1;
}

/* The row at POS: a late one from where it is kept, the others from a second pass of
 * the decoder, which seq order (rows_by_seq) reads forward: the late rows aside, the
 * decoder gives rows in seq order.  Another order costs a pass from the start. */
static int spool_at(struct trace_src *src, uint64_t pos, struct trace_row *r)
{
	struct spool_rows *s = src->priv;
	size_t lo = 0, hi = s->nlate;
	const char *why;
	struct dyl_row d;
	struct spool_row x;

	while (lo < hi) {	/* kept in pos order */
		size_t mid = (lo + hi) / 2;
		if (s->late[mid].pos < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nlate && s->late[lo].pos == pos)
		return row_get(src, &s->late[lo], s->late_text + s->late[lo].extra, r);
	if (!s->again || pos < s->again_pos) {
		dyl_conv_close(s->again);
		s->again_pos = 0;
		if (!(s->again = dyl_conv_open(s->fd, s->size, DYL_CONV_WINDOWS, &why))) {
			input_error(s->path, 0, "%s", why);
			return -1;
		}
	}
	for (;;) {
		if (!dyl_conv_next(s->again, &d)) {
			input_error(s->path, 0, "the spool changed while it was read");
			return -1;
		}
		if (s->again_pos++ == pos)
			break;
	}
	compact(s, &d, pos, &x);
	return row_get(src, &x, s->extra, r);
}

static unsigned long spool_line_of(const struct trace_src *src, uint64_t pos)
{
	const struct spool_rows *s = src->priv;
	return s->header_lines + (unsigned long)pos + 1;
}

static void spool_close(struct trace_src *src)
{
	spool_rows_free(src->priv);
	src->priv = NULL;
}

const struct rows_format spool_rows_format = {
	"spool", NULL, NULL, spool_next, spool_at, spool_line_of, spool_close,
};
