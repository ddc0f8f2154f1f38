/* trace.c - reading a trace.
 *
 * The hot loop runs once per row (10^7 rows and more), so it does only this: split the
 * line, parse the numeric fields by hand (each is checked: a bad trace must not give a
 * plausible number), intern the function name, add the call to its function's totals,
 * and keep it only if a model matches the function.  Row order is not relied upon here
 * (the runtime writes a call when it ends, so inner calls come before outer ones); the
 * prediction sorts each thread's calls by start time.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "funcs.h"
#include "model.h"
#include "trace.h"

#define MAX_FIELDS 64
#define MAX_TIME (UINT64_C(1) << 62)	/* start + duration must not overflow int64 */

enum { COL_SEQ, COL_TID, COL_FUNC, COL_START, COL_T, COL_IN, COL_OUT, COL_WORK };
static const char *const column_names[] = {
	"seq", "tid", "func", "t_start_ns", "t_ns", "in_bytes", "out_bytes", "work",
};

static int grow_funcs(struct trace *tr, size_t need)
{
	size_t room = tr->funcs_room ? tr->funcs_room : 64;
	struct func_total *bigger;

	while (room < need)
		room *= 2;
	bigger = realloc(tr->funcs, room * sizeof(*bigger));
	if (!bigger)
		return -1;
	memset(bigger + tr->funcs_room, 0, (room - tr->funcs_room) * sizeof(*bigger));
	tr->funcs = bigger;
	tr->funcs_room = room;
	return 0;
}

static size_t tid_hash(uint64_t tid, size_t nslots)
{
	return (size_t)((tid * 0x9e3779b97f4a7c15ull) >> 20) & (nslots - 1);
}

static int grow_tid_slots(struct trace *tr)
{
	size_t n = tr->nslots ? tr->nslots * 2 : 64;
	uint32_t *fresh = calloc(n, sizeof(*fresh));

	if (!fresh)
		return -1;
	for (size_t t = 0; t < tr->nthreads; t++) {
		size_t i = tid_hash(tr->threads[t].tid, n);
		while (fresh[i])
			i = (i + 1) & (n - 1);
		fresh[i] = (uint32_t)t + 1;
	}
	free(tr->tid_slots);
	tr->tid_slots = fresh;
	tr->nslots = n;
	return 0;
}

static struct thread *thread_of(struct trace *tr, uint64_t tid)
{
	size_t i;

	if (!tr->tid_slots && grow_tid_slots(tr) != 0)
		return NULL;
	for (i = tid_hash(tid, tr->nslots); tr->tid_slots[i]; i = (i + 1) & (tr->nslots - 1))
		if (tr->threads[tr->tid_slots[i] - 1].tid == tid)
			return &tr->threads[tr->tid_slots[i] - 1];
	if (tr->nthreads == tr->threads_room) {
		size_t room = tr->threads_room ? tr->threads_room * 2 : 16;
		struct thread *bigger = realloc(tr->threads, room * sizeof(*bigger));
		if (!bigger)
			return NULL;
		tr->threads = bigger;
		tr->threads_room = room;
	}
	struct thread *th = &tr->threads[tr->nthreads];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	tr->tid_slots[i] = (uint32_t)++tr->nthreads;
	if (tr->nthreads * 2 > tr->nslots && grow_tid_slots(tr) != 0)
		return NULL;
	return th;
}

static int keep_call(struct thread *th, const struct call *c)
{
	if (th->n == th->room) {
		size_t room = th->room ? th->room * 2 : 1024;
		struct call *bigger = realloc(th->calls, room * sizeof(*bigger));
		if (!bigger)
			return -1;
		th->calls = bigger;
		th->room = room;
	}
	th->calls[th->n++] = *c;
	return 0;
}

/* '# total_ns=N' (spaces allowed around '='); other '#' lines are not ours. */
static int read_metadata(struct trace *tr, const char *line, size_t len, unsigned long lineno)
{
	static const char key[] = "total_ns";
	const char *p = line + 1, *end = line + len;
	struct csv_field v;
	uint64_t n;
	int why;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < sizeof(key) - 1 || memcmp(p, key, sizeof(key) - 1) != 0)
		return 0;
	p += sizeof(key) - 1;
	while (p < end && *p == ' ')
		p++;
	if (p == end || *p != '=')
		return 0;
	p++;
	while (p < end && *p == ' ')
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	v = (struct csv_field){ p, (uint32_t)(end - p), 0 };
	if ((why = parse_u64(&v, &n)) != NUM_OK) {
		input_number_error(tr->path, lineno, "total_ns", &v, why);
		return -1;
	}
	tr->total_ns = n;	/* several: the last one wins (a footer written twice) */
	tr->has_total = 1;
	return 0;
}

/* Parses field F (the column NAME) into *OUT; EMPTY_OK: an empty field gives -1. */
static int number(const struct trace *tr, unsigned long lineno, const struct csv_field *f,
		  const char *name, int empty_ok, int64_t *out)
{
	uint64_t v;
	int why = parse_u64(f, &v);

	if (why == NUM_EMPTY && empty_ok) {
		*out = -1;
		return 0;
	}
	if (why == NUM_OK && v >= MAX_TIME)
		why = NUM_TOO_LARGE;
	if (why != NUM_OK) {
		input_number_error(tr->path, lineno, name, f, why);
		return -1;
	}
	*out = (int64_t)v;
	return 0;
}

/* The id of the function named by field F, matching it against the models if new. */
static int func_id(const struct csv_field *f)
{
	int added, id;

	if (!f->quoted) {
		id = funcs_intern(f->s, f->len, &added);
	} else {
		char *name = csv_strdup(f);
		if (!name)
			return -1;
		id = funcs_intern(name, strlen(name), &added);
		free(name);
	}
	if (id >= 0 && added)
		funcs_get(id)->model = models_match(funcs_get(id)->name);
	return id;
}

/* One row's fields that matter.  FUNC points into the line. */
struct row {
	uint64_t tid;
	struct call c;
	struct csv_field func;
};

/* A run of digits ending at ',' or at END; at most 18 digits, so no overflow check and
 * the value stays below MAX_TIME.  Returns the comma (or END), NULL if anything else. */
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

/* The common row, parsed in one pass: plain numbers, an unquoted name.  Returns 0 when
 * anything is unusual (a sign, a quote in the first fields, a wrong field count): the
 * slow path then parses the row again and says what is wrong. */
static int fast_row(const char *p, const char *end, int ncolumns, int depth_col, struct row *r)
{
	uint64_t v[8];
	int empty, n;

	for (int i = 0; i < 8; i++) {
		if (i == COL_FUNC) {
			const char *s = p;
			while (p < end && *p != ',' && *p != '"')
				p++;
			if (p == s || p == end || *p != ',')
				return 0;
			r->func = (struct csv_field){ s, (uint32_t)(p - s), 0 };
		} else {
			if (!(p = digits(p, end, &v[i], &empty)))
				return 0;
			if (empty) {
				if (i < COL_IN)
					return 0;	/* required */
				v[i] = UINT64_MAX;
			}
		}
		if (i < COL_WORK) {
			if (p == end)
				return 0;	/* too few fields */
			p++;
		}
	}
	r->c.depth = 0;
	for (n = 8; p < end; n++) {
		p++;	/* the comma before field N */
		if (n == depth_col) {
			uint64_t d;
			if (!(p = digits(p, end, &d, &empty)) || d > UINT32_MAX)
				return 0;
			r->c.depth = empty ? 0 : (uint32_t)d;
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
	r->tid = v[COL_TID];
	r->c.t_start = (int64_t)v[COL_START];
	r->c.t_ns = (int64_t)v[COL_T];
	r->c.work = v[COL_WORK] == UINT64_MAX ? -1 : (int64_t)v[COL_WORK];
	return 1;
}

/* Any row, field by field, with a message naming what is wrong. */
static int slow_row(const struct trace *tr, const char *line, size_t len, unsigned long lineno,
		    int ncolumns, int depth_col, struct row *r)
{
	struct csv_field fld[MAX_FIELDS];
	int64_t seq, tid, in, out, depth = 0;
	int n = csv_split(line, len, fld, MAX_FIELDS);

	if (n != ncolumns) {
		input_error(tr->path, lineno, "malformed row: %d fields, the header has %d", n, ncolumns);
		return -1;
	}
	if (number(tr, lineno, &fld[COL_SEQ], column_names[COL_SEQ], 0, &seq) ||
	    number(tr, lineno, &fld[COL_TID], column_names[COL_TID], 0, &tid) ||
	    number(tr, lineno, &fld[COL_START], column_names[COL_START], 0, &r->c.t_start) ||
	    number(tr, lineno, &fld[COL_T], column_names[COL_T], 0, &r->c.t_ns) ||
	    number(tr, lineno, &fld[COL_IN], column_names[COL_IN], 1, &in) ||
	    number(tr, lineno, &fld[COL_OUT], column_names[COL_OUT], 1, &out) ||
	    number(tr, lineno, &fld[COL_WORK], column_names[COL_WORK], 1, &r->c.work))
		return -1;
	if (depth_col >= 0 && number(tr, lineno, &fld[depth_col], "depth", 1, &depth))
		return -1;
	r->c.depth = depth > 0 ? (uint32_t)(depth > UINT32_MAX ? UINT32_MAX : depth) : 0;
	if (fld[COL_FUNC].len == 0) {
		input_error(tr->path, lineno, "func is empty");
		return -1;
	}
	r->tid = (uint64_t)tid;
	r->func = fld[COL_FUNC];
	return 0;
}

int trace_read(struct trace *tr, const struct input_file *f)
{
	struct input_lines it;
	const char *line;
	size_t len;
	int ncolumns = 0, depth_col = -1;
	struct thread *th = NULL;

	memset(tr, 0, sizeof(*tr));
	tr->path = f->path;
	input_lines_init(&it, f);
	while (input_next_line(&it, &line, &len)) {
		struct row r;
		int id;

		if (len == 0)
			continue;
		if (line[0] == '#') {
			if (read_metadata(tr, line, len, it.lineno) != 0)
				return -1;
			continue;
		}
		if (!ncolumns) {
			struct csv_field fld[MAX_FIELDS];
			ncolumns = csv_split(line, len, fld, MAX_FIELDS);
			if (!input_header_is(line, len, TRACE_HEADER)) {
				input_error(f->path, it.lineno, "not a trace: the header must start with %s",
					    TRACE_HEADER);
				return -1;
			}
			for (int i = 8; i < ncolumns && i < MAX_FIELDS; i++)
				if (fld[i].len == 5 && memcmp(fld[i].s, "depth", 5) == 0)
					depth_col = i;
			tr->has_depth = depth_col >= 0;
			continue;
		}
		if (!fast_row(line, line + len, ncolumns, depth_col, &r) &&
		    slow_row(tr, line, len, it.lineno, ncolumns, depth_col, &r) != 0)
			return -1;
		if ((id = func_id(&r.func)) < 0)
			goto oom;
		r.c.func = (uint32_t)id;
		if ((size_t)id >= tr->funcs_room && grow_funcs(tr, (size_t)id + 1) != 0)
			goto oom;
		tr->funcs[id].calls++;
		tr->funcs[id].t_ns += (uint64_t)r.c.t_ns;
		tr->rows++;
		if (funcs_get(id)->model < 0)
			continue;	/* never replaced, never the outer call of a replaced one */
		if ((!th || th->tid != r.tid) && !(th = thread_of(tr, r.tid)))
			goto oom;
		if (keep_call(th, &r.c) != 0)
			goto oom;
	}
	if (!ncolumns) {
		input_error(f->path, 0, "empty: no header line");
		return -1;
	}
	if (!tr->has_total) {
		input_error(f->path, 0, "no '# total_ns=N' line: the process's run time T is unknown "
			    "(did it end before the wrapper could write it?)");
		return -1;
	}
	if (grow_funcs(tr, (size_t)funcs_count()) != 0)
		goto oom;
	return 0;
oom:
	input_error(f->path, it.lineno, "out of memory");
	return -1;
}

void trace_free(struct trace *tr)
{
	for (size_t t = 0; t < tr->nthreads; t++)
		free(tr->threads[t].calls);
	free(tr->threads);
	free(tr->funcs);
	free(tr->tid_slots);
	memset(tr, 0, sizeof(*tr));
}
