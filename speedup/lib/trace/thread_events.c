/* thread_events.c - the '# threads=recorded', '# thread', '# join', '# parallel', '# wait',
 * '# wake' and '# thread_name' notes of a trace, parsed.  Fields are KEY=VALUE separated by blanks; unknown keys are ignored (room
 * to grow), a known one that is not a number (or empty where it may not be) is an error. */
#include <stdlib.h>
#include <string.h>
#include "dyl_keys.h"
#include "grow.h"
#include "input.h"
#include "thread_events.h"

int tev_starts_with_word(const char *text, size_t len, const char *w)
{
	size_t n = strlen(w);

	return len >= n && memcmp(text, w, n) == 0 && (len == n || text[n] == ' ' || text[n] == '\t');
}

/* The value of KEY among the note's fields, as a number: 0 found (*OUT = it, or TEV_NONE
 * when empty), 1 absent, -1 not a number. */
static int field(const char *text, size_t len, const char *key, int64_t *out)
{
	size_t n = strlen(key);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *w = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		if ((size_t)(p - w) > n && memcmp(w, key, n) == 0 && w[n] == '=') {
			struct csv_field f = { w + n + 1, (uint32_t)(p - w - (ptrdiff_t)n - 1), 0 };
			uint64_t v;
			int why = parse_u64(&f, &v);
			if (why == NUM_EMPTY) {
				*out = TEV_NONE;
				return 0;
			}
			if (why != NUM_OK || v >= ROWS_MAX_VALUE)
				return -1;
			*out = (int64_t)v;
			return 0;
		}
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
	}
	return 1;
}

int tev_fields(const struct trace_note *nt, const char *path, const char *const *keys,
		  int64_t *vals, int n, unsigned required)
{
	for (int i = 0; i < n; i++) {
		int rc = field(nt->text, nt->len, keys[i], &vals[i]);
		if (rc == 1)
			vals[i] = TEV_NONE;
		if (rc < 0 || ((required >> i & 1) && vals[i] == TEV_NONE)) {
			input_error(path, 0, "'# %.*s': %s %s", (int)(nt->len < 200 ? nt->len : 200),
				    nt->text, keys[i], rc < 0 ? "is not a non-negative integer"
				    : "is missing or empty");
			return -1;
		}
	}
	return 0;
}

/* The fields KEYS (N, all required) of a note whose last two are call_ns and ret_ns, in
 * that order.  0, or -1 after a message. */
static int call_fields(const struct trace_note *nt, const char *path, const char *const *keys,
		       int64_t *vals, int n)
{
	if (tev_fields(nt, path, keys, vals, n, (1u << n) - 1) != 0)
		return -1;
	if (vals[n - 1] < vals[n - 2]) {
		input_error(path, 0, "'# %.*s': ret_ns is before call_ns",
			    (int)(nt->len < 200 ? nt->len : 200), nt->text);
		return -1;
	}
	return 0;
}

static int add_thread(struct thread_events *ev, const struct trace_note *nt, const char *path)
{
	static const char *const keys[] = { DYL_EVENT_TID, DYL_EVENT_PARENT, DYL_EVENT_CREATE_NS,
					    DYL_EVENT_START_NS, DYL_EVENT_END_NS };
	int64_t v[5];

	if (tev_fields(nt, path, keys, v, 5, 0xf) != 0)
		return -1;
	if (v[3] < v[2] || (v[4] != TEV_NONE && v[4] < v[3])) {
		input_error(path, 0, "'# %.*s': the times are out of order (create_ns <= start_ns "
			    "<= end_ns)", (int)(nt->len < 200 ? nt->len : 200), nt->text);
		return -1;
	}
	if (grow(&ev->threads, sizeof(*ev->threads), ev->nthreads, &ev->threads_room, 16))
		return -2;
	ev->threads[ev->nthreads++] = (struct tev_thread){ (uint64_t)v[0], (uint64_t)v[1],
							   v[2], v[3], v[4] };
	return 0;
}

static int add_join(struct thread_events *ev, const struct trace_note *nt, const char *path)
{
	static const char *const keys[] = {
		DYL_EVENT_TID, DYL_EVENT_TARGET, DYL_EVENT_CALL_NS, DYL_EVENT_RET_NS };
	int64_t v[4];

	if (call_fields(nt, path, keys, v, 4) != 0)
		return -1;
	if (grow(&ev->joins, sizeof(*ev->joins), ev->njoins, &ev->joins_room, 16))
		return -2;
	ev->joins[ev->njoins++] = (struct tev_join){ (uint64_t)v[0], (uint64_t)v[1], v[2], v[3] };
	return 0;
}

static int add_region(struct thread_events *ev, const struct trace_note *nt, const char *path)
{
	static const char *const keys[] = { DYL_EVENT_TID, DYL_EVENT_CALL_NS, DYL_EVENT_RET_NS };
	int64_t v[3];

	if (call_fields(nt, path, keys, v, 3) != 0)
		return -1;
	if (grow(&ev->regions, sizeof(*ev->regions), ev->nregions, &ev->regions_room, 16))
		return -2;
	ev->regions[ev->nregions++] = (struct tev_parallel){ (uint64_t)v[0], v[1], v[2] };
	return 0;
}

/* Is the note's field on= (a word) WORD? */
static int on_is(const struct trace_note *nt, const char *word)
{
	const size_t on = DYL_KEY_LEN(DYL_EVENT_ON "="), n = strlen(word);

	for (size_t i = 0; i + on + n <= nt->len; i++)
		if ((i == 0 || nt->text[i - 1] == ' ' || nt->text[i - 1] == '\t') &&
		    memcmp(nt->text + i, DYL_EVENT_ON "=", on) == 0)
			return memcmp(nt->text + i + on, word, n) == 0 &&
			       (i + on + n == nt->len || nt->text[i + on + n] == ' ' ||
				nt->text[i + on + n] == '\t');
	return 0;
}

static int add_wait(struct thread_events *ev, const struct trace_note *nt, const char *path)
{
	static const char *const keys[] = {
		DYL_EVENT_TID, DYL_EVENT_OBJ, DYL_EVENT_CALL_NS, DYL_EVENT_RET_NS };
	int64_t v[4];

	if (call_fields(nt, path, keys, v, 4) != 0)
		return -1;
	if (grow(&ev->waits, sizeof(*ev->waits), ev->nwaits, &ev->waits_room, 16))
		return -2;
	ev->waits[ev->nwaits++] = (struct tev_wait){ (uint64_t)v[0], (uint64_t)v[1], v[2], v[3],
						     on_is(nt, "barrier") };
	return 0;
}

static int add_wake(struct thread_events *ev, const struct trace_note *nt, const char *path)
{
	static const char *const keys[] = { DYL_EVENT_TID, DYL_EVENT_OBJ, DYL_EVENT_AT_NS };
	int64_t v[3];

	if (tev_fields(nt, path, keys, v, 3, 0x7) != 0)
		return -1;
	if (grow(&ev->wakes, sizeof(*ev->wakes), ev->nwakes, &ev->wakes_room, 16))
		return -2;
	ev->wakes[ev->nwakes++] = (struct tev_wake){ (uint64_t)v[0], (uint64_t)v[1], v[2] };
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The name= field's value (to the next blank) into OUT (ROOM bytes, NUL-ended), its
 * \xHH decoded.  0, or 1 when the note has none. */
static int name_field(const struct trace_note *nt, char *out, size_t room)
{
	const size_t k = DYL_KEY_LEN(DYL_EVENT_NAME "=");
	const char *p = nt->text, *end = nt->text + nt->len;
	size_t o = 0;

	for (; p + k <= end; p++)
		if ((p == nt->text || p[-1] == ' ' || p[-1] == '\t') &&
		    memcmp(p, DYL_EVENT_NAME "=", k) == 0)
			break;
	if (p + k > end)
		return 1;
	for (p += k; p < end && *p != ' ' && *p != '\t' && o + 1 < room; p++) {
		int hi, lo;
		if (*p == '\\' && end - p >= 4 && p[1] == 'x' && (hi = hexval(p[2])) >= 0 &&
		    (lo = hexval(p[3])) >= 0) {
			out[o++] = (char)(hi * 16 + lo);
			p += 3;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	return 0;
}

static int add_name(struct thread_events *ev, const struct trace_note *nt, const char *path)
{
	static const char *const keys[] = { DYL_EVENT_TID };
	int64_t v[1];

	if (tev_fields(nt, path, keys, v, 1, 0x1) != 0)
		return -1;
	if (grow(&ev->names, sizeof(*ev->names), ev->nnames, &ev->names_room, 16))
		return -2;
	struct tev_name *n = &ev->names[ev->nnames];
	n->tid = (uint64_t)v[0];
	if (name_field(nt, n->name, sizeof(n->name)) == 0)
		ev->nnames++;
	return 0;
}

const char *thread_events_name(const struct thread_events *ev, uint64_t tid)
{
	for (size_t i = ev->nnames; i-- > 0;)
		if (ev->names[i].tid == tid)
			return ev->names[i].name;
	return NULL;
}

int thread_events_read(struct thread_events *ev, const struct trace_src *src, const char *path)
{
	memset(ev, 0, sizeof(*ev));
	for (size_t i = 0; i < src->nnotes; i++) {
		const struct trace_note *nt = &src->notes[i];
		int rc = 0;
		if (tev_starts_with_word(nt->text, nt->len, DYL_KEY_THREADS "=" DYL_THREADS_RECORDED))
			ev->recorded = 1;
		else if (tev_starts_with_word(nt->text, nt->len, DYL_KEY_THREAD))
			rc = add_thread(ev, nt, path);
		else if (tev_starts_with_word(nt->text, nt->len, DYL_KEY_JOIN))
			rc = add_join(ev, nt, path);
		else if (tev_starts_with_word(nt->text, nt->len, DYL_KEY_PARALLEL))
			rc = add_region(ev, nt, path);
		else if (tev_starts_with_word(nt->text, nt->len, DYL_KEY_WAIT))
			rc = add_wait(ev, nt, path);
		else if (tev_starts_with_word(nt->text, nt->len, DYL_KEY_WAKE))
			rc = add_wake(ev, nt, path);
		else if (tev_starts_with_word(nt->text, nt->len, DYL_KEY_THREAD_NAME))
			rc = add_name(ev, nt, path);
		if (rc == -2)
			input_error(path, 0, "out of memory");
		if (rc < 0) {
			thread_events_free(ev);
			return -1;
		}
	}
	return 0;
}

void thread_events_free(struct thread_events *ev)
{
	free(ev->threads);
	free(ev->joins);
	free(ev->regions);
	free(ev->waits);
	free(ev->wakes);
	free(ev->names);
	memset(ev, 0, sizeof(*ev));
}
