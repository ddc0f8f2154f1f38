/* rows.c - trace sources: the file in memory, the formats, and the CSV form.
 *
 * The file is mapped whole (a pipe is read whole); the CSV reader then walks it line by
 * line with memchr and parses each row in one pass (plain digits and an unquoted name,
 * the rows the runtime writes); anything unusual goes to a slow path that splits the
 * line with csv_split and says exactly what is wrong.  A trace cut short by a killed
 * process ends in a partial line (and possibly zero bytes from a pre-extended file);
 * both are left out, and the source says it was truncated.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "columns.h"
#include "dyl_keys.h"
#include "func_names.h"
#include "grow.h"
#include "input.h"
#include "rows.h"
#include "spool_rows.h"


#define MAX_FIELDS 256

/* --- the file in memory: input.c's loader, with its FILE:LINE messages --- */

static int load(struct trace_src *src, const char *path)
{
	struct input_file f;

	input_what = "trace";
	if ((src->beside ? input_open_beside(&f, path) : input_open(&f, path)) != 0)
		return -1;
	src->data = f.data;
	src->size = f.size;
	src->mapped = f.mapped;
	src->release = f.mapped;
	return 0;
}

/* --- metadata --- */

static int add_note(struct trace_src *src, const char *text, size_t len, int after)
{
	if (grow(&src->notes, sizeof(*src->notes), src->nnotes, &src->notes_room, 16))
		return -1;
	src->notes[src->nnotes++] = (struct trace_note){ text, (uint32_t)len, (uint32_t)after };
	return 0;
}

/* If LINE is 'KEY=value' (blanks allowed around '='), the value, trimmed. */
static int note_value(const char *line, size_t len, const char *key, struct csv_field *v)
{
	const char *p = line, *end = line + len;
	size_t n = strlen(key);

	if (len < n || memcmp(p, key, n) != 0)
		return 0;
	p += n;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p != '=')
		return 0;
	p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*v = (struct csv_field){ p, (uint32_t)(end - p), 0 };
	return 1;
}

/* '# KEY=N', a time T is made of: *OUT = N, or -1 after an error naming the line. */
static int time_note(struct trace_src *src, struct csv_field *v, const char *key, int64_t *out)
{
	uint64_t n;
	int why;

	if ((why = parse_u64(v, &n)) == NUM_OK && n >= ROWS_MAX_VALUE)
		why = NUM_TOO_LARGE;
	if (why != NUM_OK) {
		input_number_error(src->path, src->lineno, key, v, why);
		return -1;
	}
	*out = (int64_t)n;
	return 0;
}

/* The first note, "dyliberator trace N" (LINE): a trace of a later format than this
 * reader's is refused, since its columns and notes may mean something else.  0, or -1
 * after one message. */
static int check_format(struct trace_src *src, const char *line, size_t len)
{
	const char *magic = &DYL_TRACE_MAGIC[2];	/* (without its "# ") */
	size_t n = strlen(magic);
	struct csv_field v = { line + n + 1, (uint32_t)(len - n - 1), 0 };
	uint64_t version;

	if (len <= n + 1 || memcmp(line, magic, n) != 0 || line[n] != ' ' ||
	    parse_u64(&v, &version) != NUM_OK || version <= strtoull(DYL_TRACE_VERSION, NULL, 10))
		return 0;
	input_error(src->path, 0, "trace format %.*s, this %s reads %s (upgrade dyliberator)",
		    (int)v.len, v.s, input_prog, DYL_TRACE_VERSION);
	return -1;
}

/* A '#' line (LINE without its '#'): kept as a note; the ones we know are read. */
static int read_note(struct trace_src *src, const char *line, size_t len, int after)
{
	struct csv_field v;
	uint64_t n;

	while (len > 0 && (*line == ' ' || *line == '\t'))
		line++, len--;
	if (!after && !src->nnotes && check_format(src, line, len) != 0)
		return -1;
	if (add_note(src, line, len, after) != 0) {
		input_error(src->path, src->lineno, "out of memory");
		return -1;
	}
	/* the times; one written twice (total_ns, after an exec that failed): the last wins */
	static const struct {
		const char *key;
		size_t at;
	} times[] = {
		{ DYL_KEY_TOTAL_NS, offsetof(struct trace_src, total_ns) },
		{ DYL_KEY_CPU_NS, offsetof(struct trace_src, cpu_ns) },
		{ DYL_KEY_OVERHEAD_NS, offsetof(struct trace_src, overhead_ns) },
		{ DYL_KEY_STARTUP_NS, offsetof(struct trace_src, startup_ns) },
		{ DYL_KEY_FAULT_NS, offsetof(struct trace_src, fault_ns) },
		{ DYL_KEY_CLOCK_COST_NS, offsetof(struct trace_src, clock_cost_ns) },
		{ DYL_KEY_OVERHEAD_OUTSIDE_NS, offsetof(struct trace_src, overhead_outside_ns) },
	};
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (note_value(line, len, times[i].key, &v))
			return time_note(src, &v, times[i].key, (int64_t *)((char *)src + times[i].at));
	if (note_value(line, len, DYL_KEY_TIME_CLOCK, &v)) {
		src->thread_clock = v.len == DYL_KEY_LEN(DYL_TIME_CLOCK_THREAD) &&
				    !memcmp(v.s, DYL_TIME_CLOCK_THREAD, v.len);
	} else if (note_value(line, len, DYL_KEY_PID, &v)) {
		if (parse_u64(&v, &n) == NUM_OK && n < ROWS_MAX_VALUE)
			src->pid = (int64_t)n;
	} else if (note_value(line, len, DYL_KEY_START_NS, &v)) {
		if (parse_u64(&v, &n) == NUM_OK && n < ROWS_MAX_VALUE)
			src->start_ns = (int64_t)n;
	} else if (note_value(line, len, DYL_KEY_CMDLINE, &v)) {
		char *s = strndup(v.s, v.len);
		if (!s) {
			input_error(src->path, src->lineno, "out of memory");
			return -1;
		}
		free(src->cmdline);
		src->cmdline = s;
	}
	return 0;
}

/* --- the CSV form --- */

/* The next line from src->p: 1 and the line (no '\n', no '\r'), *FULL: it ended in '\n'. */
static int csv_line(struct trace_src *src, const char **line, size_t *len, int *full)
{
	const char *nl;
	size_t n;

	if (src->p >= src->end)
		return 0;
	nl = memchr(src->p, '\n', (size_t)(src->end - src->p));
	n = nl ? (size_t)(nl - src->p) : (size_t)(src->end - src->p);
	*line = src->p;
	*full = nl != NULL;
	if (n > 0 && src->p[n - 1] == '\r')
		n--;
	*len = n;
	src->p = nl ? nl + 1 : src->end;
	src->lineno++;
	return 1;
}

static int csv_sniff(const char *data, size_t size)
{
	(void)data;
	(void)size;
	return 1;	/* text: the last resort */
}

static int csv_open(struct trace_src *src)
{
	const char *line;
	size_t len;
	int full;

	src->p = src->data;
	src->end = src->data ? src->data + src->size : NULL;	/* (NULL + 0 is undefined) */
	/* zero bytes at the end: a file extended ahead of its rows, then the process died */
	while (src->end > src->p && src->end[-1] == '\0')
		src->end--;
	if (src->end - src->p >= 3 && memcmp(src->p, "\xef\xbb\xbf", 3) == 0)
		src->p += 3;
	while (csv_line(src, &line, &len, &full)) {
		if (len == 0)
			continue;
		if (line[0] == '#') {
			if (read_note(src, line + 1, len - 1, 0) != 0)
				return -1;
			continue;
		}
		if (memchr(line, '\0', len)) {
			input_error(src->path, src->lineno, "not a trace: binary data");
			return -1;
		}
		if (!input_header_is(line, len, ROWS_HEADER)) {
			input_error(src->path, src->lineno, "not a trace: the header must start with %s",
				   ROWS_HEADER);
			return -1;
		}
		struct csv_field fld[MAX_FIELDS];
		src->header = line;
		src->header_len = (uint32_t)len;
		src->ncolumns = csv_split(line, len, fld, MAX_FIELDS);
		if (src->ncolumns > MAX_FIELDS) {
			input_error(src->path, src->lineno, "%d columns: at most %d are understood",
				   src->ncolumns, MAX_FIELDS);
			return -1;
		}
		if (columns_check(src->path, src->lineno, fld, src->ncolumns) != 0)
			return -1;
		/* the extra columns the readers use, by name */
		for (int i = src->ncolumns - 1; i >= 8; i--)
			if (fld[i].len == DYL_KEY_LEN("depth") &&
			    memcmp(fld[i].s, "depth", fld[i].len) == 0)
				src->depth_col = i;
			else if (fld[i].len == DYL_KEY_LEN("faults") &&
				 memcmp(fld[i].s, "faults", fld[i].len) == 0)
				src->faults_col = i;
		return 0;
	}
	input_error(src->path, 0, "no header line: %s", src->nnotes ? "the process wrote no row" :
		   "empty, not a trace");
	return -1;
}

/* Digits up to ',' or END (at most 18: no overflow, below ROWS_MAX_VALUE).  Returns the
 * comma (or END), NULL on anything else. */
static inline const char *digits(const char *p, const char *end, uint64_t *v, int *empty)
{
	const char *s = p;
	uint64_t x = 0;

	while (p < end && (unsigned)(*p - '0') <= 9)
		x = x * 10 + (unsigned)(*p++ - '0');
	if ((p < end && *p != ',') || p - s > 18)
		return NULL;
	*v = x;
	*empty = p == s;
	return p;
}

/* The rows the runtime writes, in one pass; 0 when anything is unusual.  The first
 * REQUIRED fields may not be empty (seq and tid; with ROWS_NEED_TIMES, up to t_ns). */
static int fast_row(const char *p, const char *end, const struct trace_src *src, int required,
		    struct trace_row *r, struct csv_field *func)
{
	int ncolumns = src->ncolumns, depth_col = src->depth_col, faults_col = src->faults_col;
	uint64_t v[8];
	int empty, n;

	for (int i = 0; i < 8; i++) {
		if (i == 2) {
			const char *s = p;
			while (p < end && *p != ',' && *p != '"')
				p++;
			if (p == s || p == end || *p != ',')
				return 0;
			*func = (struct csv_field){ s, (uint32_t)(p - s), 0 };
		} else {
			if (!(p = digits(p, end, &v[i], &empty)))
				return 0;
			if (empty) {
				if (i < required)
					return 0;
				v[i] = UINT64_MAX;
			}
		}
		if (i < 7) {
			if (p == end)
				return 0;
			p++;
		}
	}
	r->depth = 0;
	r->faults = ROWS_NONE;
	r->extra = p < end ? p + 1 : p;
	for (n = 8; p < end; n++) {
		p++;	/* the comma before field N */
		if (n == depth_col) {
			uint64_t d;
			if (!(p = digits(p, end, &d, &empty)) || d > UINT32_MAX)
				return 0;
			r->depth = (uint32_t)d;
		} else if (n == faults_col) {
			uint64_t f;
			/* a negative count or anything but digits: the slow path says so */
			if (!(p = digits(p, end, &f, &empty)))
				return 0;
			r->faults = empty ? ROWS_NONE : (int64_t)f;
		} else if (p < end && *p == '"') {
			for (p++; p < end; p++)
				if (*p == '"') {
					if (p + 1 < end && p[1] == '"')
						p++;
					else
						break;
				}
			if (p == end || (++p < end && *p != ','))
				return 0;
		} else {
			while (p < end && *p != ',')
				p++;
		}
	}
	if (n != ncolumns)
		return 0;
	if ((v[3] == UINT64_MAX) != (v[4] == UINT64_MAX))
		return 0;	/* a start without a duration: the slow path says so */
	r->extra_len = (uint32_t)(end - r->extra);
	r->seq = v[0];
	r->tid = v[1];
	r->t_start = v[3] == UINT64_MAX ? ROWS_NONE : (int64_t)v[3];
	r->t_ns = v[4] == UINT64_MAX ? ROWS_NONE : (int64_t)v[4];
	r->in_bytes = v[5] == UINT64_MAX ? ROWS_NONE : (int64_t)v[5];
	r->out_bytes = v[6] == UINT64_MAX ? ROWS_NONE : (int64_t)v[6];
	r->work = v[7] == UINT64_MAX ? ROWS_NONE : (int64_t)v[7];
	return 1;
}

static int number(const struct trace_src *src, unsigned long lineno, const struct csv_field *f,
		  const char *name, int empty_ok, int64_t *out)
{
	uint64_t v;
	int why = parse_u64(f, &v);

	if (why == NUM_EMPTY && empty_ok) {
		*out = ROWS_NONE;
		return 0;
	}
	if (why == NUM_OK && v >= ROWS_MAX_VALUE)
		why = NUM_TOO_LARGE;
	if (why != NUM_OK) {
		input_number_error(src->path, lineno, name, f, why);
		return -1;
	}
	*out = (int64_t)v;
	return 0;
}

/* Any row, field by field, saying what is wrong. */
static int slow_row(const struct trace_src *src, const char *line, size_t len,
		    unsigned long lineno, struct trace_row *r, struct csv_field *func)
{
	struct csv_field fld[MAX_FIELDS];
	int64_t seq, tid, depth = 0;
	int n = csv_split(line, len, fld, MAX_FIELDS);
	int untimed_ok = !(src->flags & ROWS_NEED_TIMES);

	if (n != src->ncolumns) {
		input_error(src->path, lineno, "malformed row: %d fields, the header has %d", n,
			   src->ncolumns);
		return -1;
	}
	if (number(src, lineno, &fld[0], "seq", 0, &seq) ||
	    number(src, lineno, &fld[1], "tid", 0, &tid) ||
	    number(src, lineno, &fld[3], "t_start_ns", untimed_ok, &r->t_start) ||
	    number(src, lineno, &fld[4], "t_ns", untimed_ok, &r->t_ns) ||
	    number(src, lineno, &fld[5], "in_bytes", 1, &r->in_bytes) ||
	    number(src, lineno, &fld[6], "out_bytes", 1, &r->out_bytes) ||
	    number(src, lineno, &fld[7], "work", 1, &r->work))
		return -1;
	if (src->depth_col >= 0 && number(src, lineno, &fld[src->depth_col], "depth", 1, &depth))
		return -1;
	r->faults = ROWS_NONE;
	if (src->faults_col >= 0 &&
	    number(src, lineno, &fld[src->faults_col], "faults", 1, &r->faults))
		return -1;
	if (depth > UINT32_MAX) {
		input_error(src->path, lineno, "depth is too large (%lld)", (long long)depth);
		return -1;
	}
	if ((r->t_start == ROWS_NONE) != (r->t_ns == ROWS_NONE)) {
		input_error(src->path, lineno, "%s is empty but %s is not",
			   r->t_start == ROWS_NONE ? "t_start_ns" : "t_ns",
			   r->t_start == ROWS_NONE ? "t_ns" : "t_start_ns");
		return -1;
	}
	if (fld[2].len == 0) {
		input_error(src->path, lineno, "func is empty");
		return -1;
	}
	r->seq = (uint64_t)seq;
	r->tid = (uint64_t)tid;
	r->depth = depth > 0 ? (uint32_t)depth : 0;
	*func = fld[2];
	/* the columns after work: from the comma that ends field 7 */
	r->extra = line + len;
	if (n > 8) {
		const char *e = fld[8].s - (fld[8].quoted ? 1 : 0);
		r->extra = e;
	}
	r->extra_len = (uint32_t)(line + len - r->extra);
	return 0;
}

/* LINENO 0: find it only if there is something to say (rows_at) */
static int csv_parse(struct trace_src *src, const char *line, size_t len, unsigned long lineno,
		     struct trace_row *r)
{
	struct csv_field func;
	int id, added;

	if (!fast_row(line, line + len, src, src->flags & ROWS_NEED_TIMES ? 5 : 2, r, &func) &&
	    slow_row(src, line, len, lineno ? lineno : rows_line_of(src, (uint64_t)(line - src->data)),
		     r, &func) != 0)
		return -1;
	if (!func.quoted) {
		/* a trace has few names: a small cache in front of the hash table */
		/* (the middle letter too: dgemm_ and daxpy_ share a length and their ends) */
		unsigned slot = (func.len ^ (unsigned char)func.s[0] ^
				 ((unsigned char)func.s[func.len / 2] << 1) ^
				 ((unsigned char)func.s[func.len - 1] << 2)) & (NAME_CACHE - 1);
		struct func *f;
		id = src->name_cache[slot] - 1;
		if (id < 0 || (f = funcs_get(id))->len != func.len ||
		    memcmp(f->name, func.s, func.len) != 0) {
			id = funcs_intern(func.s, func.len, &added);
			src->name_cache[slot] = id + 1;
		}
	} else {
		char *name = csv_strdup(&func);
		id = name ? funcs_intern(name, strlen(name), &added) : -1;
		free(name);
	}
	if (id < 0) {
		input_error(src->path, lineno, "out of memory");
		return -1;
	}
	r->func = (uint32_t)id;
	r->pos = (uint64_t)(line - src->data);
	return 0;
}

/* Gives back the pages of a mapped trace read so far, every RELEASE_STEP bytes: they are
 * the file's, clean, so the kernel drops them, and rows_at (or anything else) that reads
 * them again has them read in again from the file.  Without this a 10^7-row trace (550 MB)
 * stays resident as it is read. */
#define RELEASE_STEP (8u << 20)
static void release_read(struct trace_src *src)
{
	if (!src->released)
		src->released = src->data;
	if ((size_t)(src->p - src->released) < RELEASE_STEP)
		return;
	uintptr_t page = 4096, from = ((uintptr_t)src->released + page - 1) & ~(page - 1),
		  to = (uintptr_t)src->p & ~(page - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
	src->released = src->p;
}

static int csv_next(struct trace_src *src, struct trace_row *r)
{
	const char *line;
	size_t len;
	int full;

	if (src->release && src->p)
		release_read(src);
	while (csv_line(src, &line, &len, &full)) {
		if (len == 0)
			continue;
		if (line[0] == '#') {
			if (read_note(src, line + 1, len - 1, 1) != 0)
				return -1;
			continue;
		}
		if (!full && !(src->flags & ROWS_KEEP_PARTIAL)) {
			/* the last line, without its newline: the process died writing it */
			src->partial_line = src->lineno;
			src->truncated = 1;
			return 0;
		}
		if (csv_parse(src, line, len, src->lineno, r) != 0)
			return -1;
		src->rows++;
		return 1;
	}
	if (src->total_ns < 0)
		src->truncated = 1;
	return 0;
}

static int csv_at(struct trace_src *src, uint64_t pos, struct trace_row *r)
{
	const char *line = src->data + pos, *nl;
	size_t len;

	nl = memchr(line, '\n', (size_t)(src->end - line));
	len = nl ? (size_t)(nl - line) : (size_t)(src->end - line);
	if (len > 0 && line[len - 1] == '\r')
		len--;
	return csv_parse(src, line, len, 0, r);
}

static unsigned long csv_line_of(const struct trace_src *src, uint64_t pos)
{
	unsigned long n = 1;
	const char *p = src->data, *end = src->data + pos;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p)))) {
		n++;
		p++;
	}
	return n;
}

static const struct rows_format csv_format = {
	"csv", csv_sniff, csv_open, csv_next, csv_at, csv_line_of, NULL,
};

/* In the order they are tried: the binary form(s) before CSV, which takes anything. */
static const struct rows_format *const formats[] = {
	&csv_format,
};

/* --- the source --- */

static void init(struct trace_src *src, const char *path)
{
	memset(src, 0, sizeof(*src));
	src->path = path;
	src->pid = src->total_ns = src->cpu_ns = src->startup_ns = src->start_ns = -1;
	src->fault_ns = -1;
	src->overhead_ns = src->clock_cost_ns = src->overhead_outside_ns = -1;
	src->depth_col = src->faults_col = -1;
}

/* A recovered spool (spool_rows.h): its header and '#' lines are the CSV text it holds,
 * read as the CSV form reads them; its rows come from the spool form. */
static int open_spool(struct trace_src *src, struct spool_rows *sp)
{
	const char *data = src->data;
	size_t size = src->size;
	int rc;

	src->format = &spool_rows_format;
	src->priv = sp;
	src->data = sp->header;
	src->size = sp->header_len;
	rc = csv_open(src);
	src->data = data;
	src->size = size;
	src->p = src->end = NULL;
	if (rc != 0) {
		rows_close(src);
		return -1;
	}
	return 0;
}

/* The bytes are in: the format, and up to the first row. */
static int open_format(struct trace_src *src)
{
	struct spool_rows *sp;
	int rc = spool_recover(src->path, src->data, src->size, &sp);

	if (rc < 0) {
		rows_close(src);
		return -1;
	}
	if (rc == 0)
		return open_spool(src, sp);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i]->sniff(src->data, src->size)) {
			src->format = formats[i];
			break;
		}
	if (src->format->open(src) != 0) {
		rows_close(src);
		return -1;
	}
	return 0;
}

int rows_open(struct trace_src *src, const char *path)
{
	init(src, path);
	if (load(src, path) != 0)
		return -1;
	return open_format(src);
}

int rows_open_beside(struct trace_src *src, const char *path)
{
	init(src, path);
	src->beside = 1;
	if (load(src, path) != 0)
		return -1;
	return open_format(src);
}

int rows_open_file(struct trace_src *src, const struct input_file *f, unsigned flags)
{
	init(src, f->path);
	src->data = f->data;
	src->size = f->size;
	src->borrowed = 1;
	src->release = f->mapped;
	src->flags = flags;
	return open_format(src);
}

/* The '#' lines after a recovered spool's rows, once they are read (spool_rows.h). */
static int spool_tail(struct trace_src *src)
{
	struct spool_rows *sp = src->priv;
	const char *line;
	size_t len;
	int full, rc = 0;

	src->lineno = sp->header_lines + src->rows;
	src->p = sp->tail;
	src->end = sp->tail + sp->tail_len;
	while (rc == 0 && csv_line(src, &line, &len, &full))
		if (len > 0 && line[0] == '#')
			rc = read_note(src, line + 1, len - 1, 1);
	src->p = src->end = NULL;
	sp->tail_len = 0;	/* read once */
	return rc;
}

int rows_next(struct trace_src *src, struct trace_row *row)
{
	int rc = src->format->next(src, row);

	if (rc == 0 && src->format == &spool_rows_format) {
		if (spool_tail(src) != 0)
			return -1;
		if (src->total_ns < 0)	/* a finished process's spool has its footer */
			src->truncated = 1;
	}
	return rc;
}

int rows_at(struct trace_src *src, uint64_t pos, struct trace_row *row)
{
	return src->format->at(src, pos, row);
}

unsigned long rows_line_of(const struct trace_src *src, uint64_t pos)
{
	return src->format->line_of ? src->format->line_of(src, pos) : 0;
}

void rows_close(struct trace_src *src)
{
	if (src->format && src->format->close)
		src->format->close(src);
	if (src->borrowed)
		src->data = NULL;	/* the caller's bytes */
	if (src->mapped && src->data)
		munmap((void *)src->data, src->size);
	else
		free((void *)src->data);
	free(src->cmdline);
	free(src->notes);
	free(src->buf);
	memset(src, 0, sizeof(*src));
}

void rows_warn_truncated(const struct trace_src *src)
{
	if (src->partial_line)
		input_warning(src->path, src->partial_line,
			     "the last row is cut short (the process was killed while writing it?); "
			     "left out");
	/* the runtime's '# error=' line: a write failed (a full disk), it was not killed */
	const struct trace_note *err = NULL;
	for (size_t i = 0; i < src->nnotes; i++)
		if (memmem(src->notes[i].text, src->notes[i].len, DYL_KEY_ERROR "=",
			   DYL_KEY_LEN(DYL_KEY_ERROR "=")))
			err = &src->notes[i];
	if (src->total_ns < 0 && err)
		input_warning(src->path, 0,
			     "no '# total_ns=N' line: the trace could not be written to its end (%s "
			     "'# %.*s'); its %lu full rows are read",
			     memmem(err->text, err->len, DYL_ERROR_DISK_FULL,
				    DYL_KEY_LEN(DYL_ERROR_DISK_FULL)) ? DYL_ERROR_DISK_FULL ":" : "the trace says",
			     (int)err->len, err->text, src->rows);
	else if (src->total_ns < 0)
		input_warning(src->path, 0,
			     "no '# total_ns=N' line: the process did not finish (killed?); "
			     "its %lu full rows are read", src->rows);
}

/* --- seq order --- */

struct seq_pos {
	uint64_t seq, pos;
};

static int by_seq(const void *a, const void *b)
{
	const struct seq_pos *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void duplicate(struct trace_src *src, uint64_t seq, uint64_t p1, uint64_t p2)
{
	if (p1 > p2) {
		uint64_t t = p1;
		p1 = p2;
		p2 = t;
	}
	input_error(src->path, rows_line_of(src, p2), "seq %llu again (first on line %lu)",
		   (unsigned long long)seq, rows_line_of(src, p1));
}

/* The line of the first row numbered SEQ, from a second reading (0: not found). */
static unsigned long first_line_of_seq(const struct trace_src *src, uint64_t seq)
{
	struct trace_src again;
	struct trace_row r;
	unsigned long line = 0;

	if (strcmp(src->path, "-") == 0 ||
	    (src->beside ? rows_open_beside : rows_open)(&again, src->path) != 0)
		return 0;
	while (rows_next(&again, &r) > 0)
		if (r.seq == seq) {
			line = rows_line_of(&again, r.pos);
			break;
		}
	rows_close(&again);
	return line;
}

int rows_seq_check(struct trace_src *src, struct seq_seen *seen, const struct trace_row *r)
{
	size_t w = (size_t)(r->seq >> 6);
	uint64_t bit = UINT64_C(1) << (r->seq & 63);

	/* (a seq kept as far stays there when the bits grow past it later) */
	if (seen->far.used && fh_get(&seen->far, r->seq, 0) >= 0)
		goto again;
	if (r->seq / 2 > seen->rows++ + (UINT64_C(1) << 19)) {
		if (fh_put(&seen->far, r->seq, 0, 1) != 0) {
			input_error(src->path, 0, "out of memory");
			return -1;
		}
		return 0;
	}
	if (w >= seen->words) {
		size_t words = seen->words ? seen->words : 1024;
		while (words <= w)
			words *= 2;
		uint64_t *bigger = realloc(seen->bits, words * sizeof(*bigger));
		if (!bigger) {
			input_error(src->path, 0, "out of memory");
			return -1;
		}
		memset(bigger + seen->words, 0, (words - seen->words) * sizeof(*bigger));
		seen->bits = bigger;
		seen->words = words;
	}
	if (!(seen->bits[w] & bit)) {
		seen->bits[w] |= bit;
		return 0;
	}
again:;
	unsigned long first = first_line_of_seq(src, r->seq);
	if (first)
		input_error(src->path, rows_line_of(src, r->pos), "seq %llu again (first on line %lu)",
			   (unsigned long long)r->seq, first);
	else
		input_error(src->path, rows_line_of(src, r->pos), "seq %llu again",
			   (unsigned long long)r->seq);
	return -1;
}

void rows_seq_free(struct seq_seen *seen)
{
	free(seen->bits);
	fh_free(&seen->far);
	memset(seen, 0, sizeof(*seen));
}

uint64_t *rows_by_seq(struct trace_src *src, size_t *count)
{
	struct seq_pos *all = NULL;
	size_t n = 0, room = 0;
	uint64_t max_seq = 0, *out = NULL;
	struct trace_row r;
	int rc;

	while ((rc = rows_next(src, &r)) > 0) {
		if (grow(&all, sizeof(*all), n, &room, 4096))
			goto oom;
		all[n++] = (struct seq_pos){ r.seq, r.pos };
		if (r.seq > max_seq)
			max_seq = r.seq;
	}
	if (rc < 0)
		goto fail;
	out = malloc((n ? n : 1) * sizeof(*out));
	if (!out)
		goto oom;
	if (n && max_seq < 2 * (uint64_t)n + 4096) {
		/* dense (the runtime numbers calls from 0; a truncated trace has gaps):
		 * each row straight to its place */
		uint64_t *slot = calloc(max_seq + 1, sizeof(*slot));	/* pos + 1 */
		size_t o = 0;
		if (!slot)
			goto oom;
		for (size_t i = 0; i < n; i++) {
			if (slot[all[i].seq]) {
				duplicate(src, all[i].seq, slot[all[i].seq] - 1, all[i].pos);
				free(slot);
				goto fail;
			}
			slot[all[i].seq] = all[i].pos + 1;
		}
		for (uint64_t s = 0; s <= max_seq; s++)
			if (slot[s])
				out[o++] = slot[s] - 1;
		free(slot);
	} else {
		if (n > 1)	/* a trace without rows: ALL is NULL, which qsort may not get */
			qsort(all, n, sizeof(*all), by_seq);
		for (size_t i = 0; i < n; i++) {
			if (i > 0 && all[i].seq == all[i - 1].seq) {
				duplicate(src, all[i].seq, all[i - 1].pos, all[i].pos);
				goto fail;
			}
			out[i] = all[i].pos;
		}
	}
	free(all);
	*count = n;
	return out;
oom:
	input_error(src->path, 0, "out of memory");
fail:
	free(all);
	free(out);
	return NULL;
}
