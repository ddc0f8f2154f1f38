/* handles.c - buffers bound to a handle by --defs code (dyl_handles.h).
 *
 * A fixed table of handles, open addressing with linear probing, in the runtime's bss
 * (no allocation; untouched pages cost nothing).  Writers (dyl_bind, dyl_bind_work,
 * dyl_unbind) take one lock.  Readers (dyl_uses_add, on the per-call path of the calls
 * that use a handle) take none: each entry has a sequence count, odd while a writer
 * changes it, that a reader reads before and after copying and retries on.  A removed
 * handle leaves a tombstone, so that a probe goes on past it; bind reuses tombstones,
 * and unbind clears those that end a probe chain.
 * Calls that use no handle never come here.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include "dyl_handles.h"
#include "internal.h"

#define SLOTS 1024u		/* handles alive at once (a power of two) */
#define TOMB ((uintptr_t)1)	/* a removed handle: probes go on past it */

struct entry {
	uintptr_t key;		/* the handle; 0 never used, TOMB removed */
	uint32_t seq;		/* odd while a writer changes the entry */
	uint32_t n;		/* buffers bound */
	int64_t work;		/* DYL_NONE: none bound */
	const char *name[DYL_HANDLE_BUFFERS];
	struct dyl_use_buf b[DYL_HANDLE_BUFFERS];
};

static struct entry table[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t slot_of(uintptr_t h)
{
	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 40) & (SLOTS - 1);
}

/* The entry of H, or NULL.  Readers call it without the lock: keys are read atomically,
 * and a key is only ever set on an unused slot or a tombstone (never moved). */
static struct entry *find(uintptr_t h)
{
	for (uint32_t i = 0, s = slot_of(h); i < SLOTS; i++, s = (s + 1) & (SLOTS - 1)) {
		uintptr_t k = __atomic_load_n(&table[s].key, __ATOMIC_ACQUIRE);
		if (k == h)
			return &table[s];
		if (k == 0)
			return NULL;
	}
	return NULL;
}

static void write_begin(struct entry *e)
{
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void write_end(struct entry *e)
{
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
}

/* With the lock held: H's entry, made if it has none (NULL: the table is full). */
static struct entry *find_or_add(uintptr_t h)
{
	struct entry *e = find(h), *tomb = NULL;

	if (e)
		return e;
	for (uint32_t i = 0, s = slot_of(h); i < SLOTS; i++, s = (s + 1) & (SLOTS - 1)) {
		uintptr_t k = table[s].key;
		if (k == TOMB && !tomb)
			tomb = &table[s];
		if (k == 0) {
			e = tomb ? tomb : &table[s];
			break;
		}
	}
	if (!e)
		e = tomb;
	if (!e)
		return NULL;
	write_begin(e);	/* (a reader of the tombstone's old handle may be copying it) */
	e->n = 0;
	e->work = DYL_NONE;
	__atomic_store_n(&e->key, h, __ATOMIC_RELEASE);
	write_end(e);
	return e;
}

static void full(const char *what)
{
	dyl_warn_once("handles_full", "--defs bindings: %s; the buffers of the calls that "
		      "use the handles left out are not counted", what);
}

int dyl_bind(const void *handle, const char *name, const void *p, uint64_t bytes, unsigned dir)
{
	int rc = -1;

	if (!handle || (uintptr_t)handle == TOMB || !name)
		return -1;
	DYL_BUSY_IN();
	pthread_mutex_lock(&lock);
	struct entry *e = find_or_add((uintptr_t)handle);
	if (!e) {
		full("more than 1024 handles bound at once (is dyl_unbind called where they end?)");
		goto out;
	}
	uint32_t i = 0;
	while (i < e->n && strcmp(e->name[i], name))
		i++;
	if (i == DYL_HANDLE_BUFFERS) {
		full("more than 8 buffers bound to one handle");
		goto out;
	}
	write_begin(e);
	e->name[i] = name;
	e->b[i] = (struct dyl_use_buf){ p, bytes, dir & (DYL_READ | DYL_WRITE) };
	if (i == e->n)
		e->n++;
	write_end(e);
	rc = 0;
out:
	pthread_mutex_unlock(&lock);
	DYL_BUSY_OUT();
	return rc;
}

int dyl_bind_work(const void *handle, int64_t work)
{
	int rc = -1;

	if (!handle || (uintptr_t)handle == TOMB)
		return -1;
	DYL_BUSY_IN();
	pthread_mutex_lock(&lock);
	struct entry *e = find_or_add((uintptr_t)handle);
	if (e) {
		write_begin(e);
		e->work = work;
		write_end(e);
		rc = 0;
	} else {
		full("more than 1024 handles bound at once (is dyl_unbind called where they end?)");
	}
	pthread_mutex_unlock(&lock);
	DYL_BUSY_OUT();
	return rc;
}

void dyl_unbind(const void *handle)
{
	if (!handle || (uintptr_t)handle == TOMB)
		return;
	DYL_BUSY_IN();
	pthread_mutex_lock(&lock);
	struct entry *e = find((uintptr_t)handle);
	if (e) {
		write_begin(e);
		e->n = 0;
		e->work = DYL_NONE;
		__atomic_store_n(&e->key, TOMB, __ATOMIC_RELEASE);
		write_end(e);
		/* tombstones right before an unused slot end no probe that this one would not:
		 * they become unused, or a table that saw many handles come and go would be
		 * searched whole at every lookup */
		uint32_t s = (uint32_t)(e - table);
		while (table[(s + 1) & (SLOTS - 1)].key == 0 && table[s].key == TOMB) {
			__atomic_store_n(&table[s].key, 0, __ATOMIC_RELEASE);
			s = (s - 1) & (SLOTS - 1);
		}
	}
	pthread_mutex_unlock(&lock);
	DYL_BUSY_OUT();
}

unsigned dyl_uses_add(struct dyl_uses *u, const void *handle, const char *name, const void *at)
{
	struct dyl_use_buf b[DYL_HANDLE_BUFFERS];
	const char *names[DYL_HANDLE_BUFFERS];
	struct entry *e;
	uint32_t seq, n;
	int64_t work;

	if (u->applied) {
		dyl_warn_once("handles_late", "--defs: dyl_use in a postfix comes too late (its "
			      "buffers are counted after the prefix): call it in the prefix");
		return 0;
	}
	if (!handle || (uintptr_t)handle == TOMB || !(e = find((uintptr_t)handle)))
		return 0;
	for (;;) {	/* a copy no writer changed while it was taken */
		seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
		if (seq & 1)
			continue;	/* (a writer holds it for a few stores) */
		n = __atomic_load_n(&e->n, __ATOMIC_RELAXED);
		if (n > DYL_HANDLE_BUFFERS)
			n = DYL_HANDLE_BUFFERS;
		for (uint32_t i = 0; i < n; i++) {
			b[i] = e->b[i];
			names[i] = e->name[i];
		}
		work = e->work;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (seq == __atomic_load_n(&e->seq, __ATOMIC_RELAXED))
			break;
	}
	if (__atomic_load_n(&e->key, __ATOMIC_ACQUIRE) != (uintptr_t)handle)
		return 0;	/* unbound meanwhile (its slot may hold another handle now) */
	unsigned added = 0;
	for (uint32_t i = 0; i < n && u->n < DYL_HANDLE_BUFFERS; i++) {
		if (name && strcmp(names[i], name))
			continue;
		u->b[u->n] = b[i];
		if (name)
			u->b[u->n].p = at;
		u->n++;
		added++;
	}
	if (work != DYL_NONE)
		u->work = work;
	return added;
}

void dyl_handle_only(const struct dyl_call *c, const char *params)
{
	static unsigned noted;
	char v[160];
	const char *name = c->func ? c->func->name : "?";
	int64_t bytes = (c->in_bytes > 0 ? c->in_bytes : 0) + (c->out_bytes > 0 ? c->out_bytes : 0);

	/* A note in the header, which the first write-out of rows fixes (a window of some
	 * thousands of calls): a call seen later is not noted.  Not on stderr: the program's
	 * output stays its own. */
	if (__atomic_load_n(&dyl_out.header_done, __ATOMIC_ACQUIRE) ||
	    __atomic_fetch_add(&noted, 1, __ATOMIC_RELAXED) >= 16)
		return;	/* (16 at most: the notes' room is shared) */
	snprintf(v, sizeof(v), "%s %s %lld", name, params, (long long)bytes);
	dyl_note(DYL_KEY_HANDLE_ONLY, v);
}
