/* events.c - a spool's thread events as '#' lines (dyl_events.h).
 *
 * The runtime writes an event as it happens, from the thread it happens in
 * (runtime/threads/): a thread's start carries its creator and the time of the
 * pthread_create call; its end carries only its tid; a join names the joined thread by its
 * pthread_t, which the joiner has, not its tid.  The events of one process are appended in
 * one order that follows cause (a thread's start before its end, a joined thread's end
 * before the join's record), so in file order:
 *   - an end belongs to the last start of the same tid without an end;
 *   - a join belongs to the last start of the same pthread_t created before the join was
 *     called and not joined yet.  (glibc reuses a joined thread's pthread_t; a thread
 *     created with it while the join returns, started before the join is recorded,
 *     would be taken for the joined one: only if its pthread_create began before the join
 *     was called.)
 * A join whose thread started nowhere in the spool (created before the wrapper could see
 * it) has no line.  Waits and wake-ups need no matching here: each is a line of its own,
 * with the object's address (dyl-speedup pairs them), and so is each process event (a
 * fork, spawn, exec, wait for a child, pipe read or write: doc/jobs.md).
 *
 * Names come last, one line a thread, the last name its spool holds (a thread names
 * itself after it starts: the name at its end is the one it chose).  A name's bytes that
 * are not printable ASCII, a blank or a backslash are written as \xHH, so that the line
 * stays one line of blank-separated fields.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "dyl_csv.h"
#include "dyl_events.h"
#include "dyl_fmtmem.h"
#include "dyl_keys.h"

#define NO_END UINT64_MAX

struct thr {
	int32_t tid, parent;
	uint64_t handle;
	uint64_t create, start, end;	/* ticks; end NO_END: unknown */
	int joined;
};

/* one line to write: its time, and what it is (an index into threads or events) */
struct line {
	uint64_t at;	/* ns */
	uint32_t kind;	/* DYL_EV_START (a thread line), JOIN, PARALLEL, WAIT, WAKE */
	uint32_t index;
	int32_t target;	/* a join's thread */
};

/* a thread's name (DYL_EV_NAME) */
struct name {
	int32_t tid;
	char name[16];
};

struct evs {
	struct dyl_event *ev;
	size_t nev, ev_cap;
	struct name *names;
	size_t nnames, names_cap;
	int threads;	/* thread events other than names: '# threads=recorded' */
	int procs;	/* process events: '# procs=recorded' */
	struct thr *thr;
	size_t nthr, thr_cap;
	struct line *lines, *tmp;
	size_t nlines, lines_cap;
};

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	char *p = buf;
	while (n > 0) {
		ssize_t r = pread(fd, p, n, (off_t)off);
		if (r <= 0)
			return -1;	/* (EINTR: the event lines are lost, the rows are not) */
		p += r, off += (uint64_t)r, n -= (size_t)r;
	}
	return 0;
}

/* Every event of the spool, in file order; stops where the decoder stops (a chunk that
 * is not whole, or sizes that do not add up).  0, or -1 without memory. */
static int read_events(struct evs *e, int fd, uint64_t size)
{
	uint64_t off = sizeof(struct dyl_spool_head);

	while (off + sizeof(struct dyl_chunk) <= size) {
		struct dyl_chunk ch;
		uint64_t body = off + sizeof(ch);
		if (read_at(fd, &ch, sizeof(ch), off) != 0 || ch.len > size - body || (ch.len & 7) ||
		    (ch.kind == 0 && ch.len == 0))
			break;
		if (ch.kind == DYL_CH_EVENTS) {
			uint32_t n[2];
			if (ch.len < 8 || read_at(fd, n, 8, body) != 0 ||
			    n[0] > (ch.len - 8) / sizeof(struct dyl_event))
				break;
			if (!(e->ev = dyl_fmt_grow(e->ev, &e->ev_cap, e->nev + n[0], sizeof(*e->ev))))
				return -1;
			if (read_at(fd, e->ev + e->nev, n[0] * sizeof(*e->ev), body + 8) != 0)
				break;
			e->nev += n[0];
		}
		off = body + ch.len;
	}
	return 0;
}

static int add_line(struct evs *e, uint64_t at, uint32_t kind, uint32_t index, int32_t target)
{
	if (!(e->lines = dyl_fmt_grow(e->lines, &e->lines_cap, e->nlines + 1, sizeof(*e->lines))))
		return -1;
	e->lines[e->nlines++] = (struct line){ at, kind, index, target };
	return 0;
}

/* Thread V->tid's name from V (a DYL_EV_NAME): the last one kept.  0, or -1. */
static int add_name(struct evs *e, const struct dyl_event *v)
{
	size_t k;

	for (k = 0; k < e->nnames && e->names[k].tid != v->tid; k++)
		;
	if (k == e->nnames) {
		if (!(e->names = dyl_fmt_grow(e->names, &e->names_cap, e->nnames + 1,
					      sizeof(*e->names))))
			return -1;
		e->nnames++;
	}
	e->names[k].tid = v->tid;
	memcpy(e->names[k].name, &v->handle, 8);
	memcpy(e->names[k].name + 8, &v->t1, 8);
	return 0;
}

/* The events matched into threads and lines (see the top).  0, or -1 without memory. */
static int match(struct evs *e, struct dyl_conv *c)
{
	for (size_t i = 0; i < e->nev; i++) {
		const struct dyl_event *v = &e->ev[i];
		size_t k;
		e->threads |= v->kind < DYL_EV_NAME;
		e->procs |= v->kind >= DYL_EV_PROCS_ON && v->kind <= DYL_EV_PIPE_READ;
		switch (v->kind) {
		case DYL_EV_NAME:
			if (add_name(e, v) != 0)
				return -1;
			break;
		case DYL_EV_START:
			if (!(e->thr = dyl_fmt_grow(e->thr, &e->thr_cap, e->nthr + 1, sizeof(*e->thr))))
				return -1;
			e->thr[e->nthr++] = (struct thr){ v->tid, v->parent, v->handle, v->t1, v->t2,
							  NO_END, 0 };
			break;
		case DYL_EV_END:
			for (k = e->nthr; k-- > 0;)
				if (e->thr[k].tid == v->tid && e->thr[k].end == NO_END) {
					e->thr[k].end = v->t1;
					break;
				}
			break;
		case DYL_EV_JOIN:
			for (k = e->nthr; k-- > 0;)
				if (e->thr[k].handle == v->handle && !e->thr[k].joined &&
				    e->thr[k].create <= v->t1)
					break;
			if (k == (size_t)-1)
				break;
			e->thr[k].joined = 1;
			if (add_line(e, dyl_conv_ns(c, v->t1), DYL_EV_JOIN, (uint32_t)i, e->thr[k].tid) != 0)
				return -1;
			break;
		case DYL_EV_PARALLEL:
		case DYL_EV_WAIT:
		case DYL_EV_WAKE:
		case DYL_EV_FORK:
		case DYL_EV_SPAWN:
		case DYL_EV_EXEC:
		case DYL_EV_WAITPID:
		case DYL_EV_PIPE_WRITE:
		case DYL_EV_PIPE_READ:
			if (add_line(e, dyl_conv_ns(c, v->t1), v->kind, (uint32_t)i, 0) != 0)
				return -1;
			break;
		}
	}
	for (size_t k = 0; k < e->nthr; k++)
		if (add_line(e, dyl_conv_ns(c, e->thr[k].create), DYL_EV_START, (uint32_t)k, 0) != 0)
			return -1;
	return 0;
}

/* Lines by time, stable (a bottom-up merge sort: there may be many). */
static int sort_lines(struct evs *e)
{
	size_t n = e->nlines, cap = 0;
	struct line *a = e->lines, *b;

	if (n < 2)
		return 0;
	if (!(b = e->tmp = dyl_fmt_grow(NULL, &cap, n, sizeof(*b))))
		return -1;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				b[o++] = a[j].at < a[i].at ? a[j++] : a[i++];
			while (i < mid)
				b[o++] = a[i++];
			while (j < hi)
				b[o++] = a[j++];
		}
		struct line *t = a;
		a = b, b = t;
	}
	if (a != e->lines)
		memcpy(e->lines, a, n * sizeof(*a));
	dyl_fmt_release(e->tmp, cap, sizeof(*b));
	e->tmp = NULL;
	return 0;
}

static char *put_s(char *p, const char *s)
{
	size_t n = strlen(s);
	memcpy(p, s, n);
	return p + n;
}

static char *put_tid(char *p, const char *key, int32_t v)
{
	return dyl_put_i64(put_s(p, key), v);
}

static char *put_ns(char *p, const char *key, struct dyl_conv *c, uint64_t ticks)
{
	p = put_s(p, key);
	return ticks == NO_END ? p : dyl_put_u64(p, dyl_conv_ns(c, ticks));
}

/* A process event's line (doc/jobs.md; at most 200 bytes) */
static char *put_proc(char *p, const struct dyl_event *v, struct dyl_conv *c)
{
	static const char *const word[] = {
		DYL_EVENT_LINE(DYL_KEY_FORK), DYL_EVENT_LINE(DYL_KEY_SPAWN),
		DYL_EVENT_LINE(DYL_KEY_EXEC), DYL_EVENT_LINE(DYL_KEY_WAITPID),
		DYL_EVENT_LINE(DYL_KEY_PIPE_WRITE), DYL_EVENT_LINE(DYL_KEY_PIPE_READ) };
	int pipe = v->kind == DYL_EV_PIPE_WRITE || v->kind == DYL_EV_PIPE_READ;

	p = put_tid(p, word[v->kind - DYL_EV_FORK], v->tid);
	p = put_ns(p, DYL_EVENT_FIELD(DYL_EVENT_CALL_NS), c, v->t1);
	if (v->kind == DYL_EV_WAITPID || pipe)
		p = put_ns(p, DYL_EVENT_FIELD(DYL_EVENT_RET_NS), c, v->t2);
	if (v->kind == DYL_EV_FORK || v->kind == DYL_EV_SPAWN)
		p = dyl_put_u64(put_s(p, DYL_EVENT_FIELD(DYL_EVENT_CHILD)), v->handle);
	else if (v->kind == DYL_EV_WAITPID)
		p = dyl_put_u64(put_s(p, DYL_EVENT_FIELD(DYL_EVENT_PID)), v->handle);
	if (pipe) {
		uint64_t bytes = (uint64_t)(uint32_t)v->parent << 32 | v->on;
		p = dyl_put_u64(put_s(p, DYL_EVENT_FIELD(DYL_EVENT_PIPE)), v->handle);
		p = dyl_put_u64(put_s(p, DYL_EVENT_FIELD(DYL_EVENT_BYTES)), bytes);
	}
	return p;
}

/* (at most 200 bytes a line) */
static char *put_line(char *p, const struct evs *e, const struct line *l, struct dyl_conv *c)
{
	if (l->kind == DYL_EV_START) {
		const struct thr *t = &e->thr[l->index];
		p = put_tid(p, DYL_EVENT_LINE(DYL_KEY_THREAD), t->tid);
		p = put_tid(p, DYL_EVENT_FIELD(DYL_EVENT_PARENT), t->parent);
		p = put_ns(p, DYL_EVENT_FIELD(DYL_EVENT_CREATE_NS), c, t->create);
		p = put_ns(p, DYL_EVENT_FIELD(DYL_EVENT_START_NS), c, t->start);
		p = put_ns(p, DYL_EVENT_FIELD(DYL_EVENT_END_NS), c, t->end);
	} else if (l->kind == DYL_EV_WAIT || l->kind == DYL_EV_WAKE) {
		static const char *const on[] = { "?", "cond", "mutex", "sem", "barrier" };
		const struct dyl_event *v = &e->ev[l->index];
		p = put_tid(p, l->kind == DYL_EV_WAIT ? DYL_EVENT_LINE(DYL_KEY_WAIT)
						       : DYL_EVENT_LINE(DYL_KEY_WAKE), v->tid);
		p = put_s(put_s(p, DYL_EVENT_FIELD(DYL_EVENT_ON)),
			  on[v->on <= DYL_ON_BARRIER ? v->on : 0]);
		p = dyl_put_u64(put_s(p, DYL_EVENT_FIELD(DYL_EVENT_OBJ)), v->handle);
		if (l->kind == DYL_EV_WAIT) {
			p = put_ns(p, DYL_EVENT_FIELD(DYL_EVENT_CALL_NS), c, v->t1);
			p = put_ns(p, DYL_EVENT_FIELD(DYL_EVENT_RET_NS), c, v->t2);
		} else {
			p = put_ns(p, DYL_EVENT_FIELD(DYL_EVENT_AT_NS), c, v->t1);
		}
	} else if (l->kind >= DYL_EV_FORK) {
		p = put_proc(p, &e->ev[l->index], c);
	} else {
		const struct dyl_event *v = &e->ev[l->index];
		p = put_tid(p, l->kind == DYL_EV_JOIN ? DYL_EVENT_LINE(DYL_KEY_JOIN)
						       : DYL_EVENT_LINE(DYL_KEY_PARALLEL), v->tid);
		if (l->kind == DYL_EV_JOIN)
			p = put_tid(p, DYL_EVENT_FIELD(DYL_EVENT_TARGET), l->target);
		p = put_ns(p, DYL_EVENT_FIELD(DYL_EVENT_CALL_NS), c, v->t1);
		p = put_ns(p, DYL_EVENT_FIELD(DYL_EVENT_RET_NS), c, v->t2);
	}
	*p++ = '\n';
	return p;
}

/* Thread N's name line (at most 100 bytes) */
static char *put_name(char *p, const struct name *n)
{
	static const char hex[] = "0123456789abcdef";

	p = put_tid(p, DYL_EVENT_LINE(DYL_KEY_THREAD_NAME), n->tid);
	p = put_s(p, DYL_EVENT_FIELD(DYL_EVENT_NAME));
	for (size_t i = 0; i < sizeof(n->name) && n->name[i]; i++) {
		unsigned char b = (unsigned char)n->name[i];
		if (b > ' ' && b < 0x7f && b != '\\') {
			*p++ = (char)b;
		} else {
			*p++ = '\\', *p++ = 'x';
			*p++ = hex[b >> 4], *p++ = hex[b & 15];
		}
	}
	*p++ = '\n';
	return p;
}

/* The text's mapping starts with its size (16 bytes: dyl_events_free unmaps it whole). */
char *dyl_events_text(struct dyl_conv *c, int fd, uint64_t size, size_t *len)
{
	struct evs e = { 0 };
	char *map = NULL, *text = NULL;
	size_t cap = 0;

	*len = 0;
	if (read_events(&e, fd, size) == 0 && e.nev > 0 && match(&e, c) == 0 && sort_lines(&e) == 0 &&
	    (map = dyl_fmt_grow(NULL, &cap, 16 + 64 + 200 * e.nlines + 100 * e.nnames, 1))) {
		memcpy(map, &cap, sizeof(cap));
		text = map + 16;
		char *p = text;
		if (e.threads)
			p = put_s(p, DYL_KEY_LINE(DYL_KEY_THREADS) DYL_THREADS_RECORDED "\n");
		if (e.procs)
			p = put_s(p, DYL_KEY_LINE(DYL_KEY_PROCS) DYL_THREADS_RECORDED "\n");
		for (size_t i = 0; i < e.nlines; i++)
			p = put_line(p, &e, &e.lines[i], c);
		for (size_t i = 0; i < e.nnames; i++)
			p = put_name(p, &e.names[i]);
		*len = (size_t)(p - text);
	}
	dyl_fmt_release(e.ev, e.ev_cap, sizeof(*e.ev));
	dyl_fmt_release(e.thr, e.thr_cap, sizeof(*e.thr));
	dyl_fmt_release(e.lines, e.lines_cap, sizeof(*e.lines));
	dyl_fmt_release(e.names, e.names_cap, sizeof(*e.names));
	return text;
}

void dyl_events_free(char *text)
{
	size_t cap;

	if (!text)
		return;
	memcpy(&cap, text - 16, sizeof(cap));
	dyl_fmt_release(text - 16, cap, 1);
}
