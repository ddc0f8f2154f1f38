/* funcs.c - the table of recorded functions' names.
 *
 * A trace record names its function by a 32-bit id, given once per function (at its
 * first call, with its DYL_FILTER decision) under a lock, and its name goes into the
 * spool, where the converter turns ids back into names.  The names are copied: a wrapper's strings would go with it if it
 * were unloaded before the trace is written.  Memory comes from mmap, never malloc
 * (the runtime may run inside malloc's own wrapper).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include "internal.h"

#define CHUNK 4096	/* names per chunk of the table, after the first page's */
#define CHUNKS 1024
#define ARENA (256 * 1024)	/* bytes of name text per arena */
#define FIRST 128	/* ids whose names the first page holds */

/* The lock, the count, the first ids and their names' text on one page: a process's
 * first call touches one new page here, not three (a page's first touch costs 14 us
 * on a VM).  Later ids go into mmap'd chunks, later names into mmap'd arenas. */
struct funcs_head {
	pthread_mutex_t lock;
	uint32_t count;
	char *arena;		/* where names are copied now (NULL: page.text) */
	size_t arena_used, arena_size;
	const char *first[FIRST];
};
static struct {
	struct funcs_head h;
	char text[4096 - sizeof(struct funcs_head)];	/* the first arena */
} page __attribute__((aligned(4096))) = { .h = { .lock = PTHREAD_MUTEX_INITIALIZER } };
#define F (page.h)
static const char **chunks[CHUNKS];

static void *get_pages(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static const char *copy_name(const char *name)
{
	size_t n = strlen(name) + 1;

	if (n > ARENA)
		return name;
	if (!F.arena) {
		F.arena = page.text;
		F.arena_size = sizeof(page.text);
	}
	if (F.arena_used + n > F.arena_size) {
		char *a = get_pages(ARENA);
		if (!a)
			return name;
		F.arena = a;
		F.arena_used = 0;
		F.arena_size = ARENA;
	}
	char *s = F.arena + F.arena_used;
	memcpy(s, name, n);
	F.arena_used += n;
	return s;
}

/* Where id ID's name goes, or NULL (no memory, or 4 million functions). */
static const char **slot(uint32_t id)
{
	if (id < FIRST)
		return &F.first[id];
	uint32_t c = (id - FIRST) / CHUNK;
	if (c >= CHUNKS)
		return NULL;
	if (!chunks[c])
		__atomic_store_n(&chunks[c], get_pages(CHUNK * sizeof(char *)), __ATOMIC_RELEASE);
	return chunks[c] ? &chunks[c][(id - FIRST) % CHUNK] : NULL;
}

/* Decides F's state and gives it an id, once; the caller holds dyl_busy, and puts the
 * name into the spool next (dyl_spool_names_now). */
void dyl_func_decide(struct dyl_func *f, int record)
{
	pthread_mutex_lock(&F.lock);
	if (__atomic_load_n(&f->state, __ATOMIC_ACQUIRE) == 0) {
		uint32_t id = F.count;
		const char **s = slot(id);
		if (s) {
			*s = copy_name(f->name);
			__atomic_store_n(&F.count, id + 1, __ATOMIC_RELEASE);	/* the name first */
			f->id = id;
		} else {
			record = 0;	/* 4 million functions, or no memory: forward only */
		}
		/* the id is published with the state: a thread that sees state 1 sees it */
		__atomic_store_n(&f->state, record ? 1 : 2, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&F.lock);
}

uint32_t dyl_func_count(void)
{
	return __atomic_load_n(&F.count, __ATOMIC_ACQUIRE);
}

const char *dyl_func_name(uint32_t id)
{
	if (id < FIRST)
		return id < dyl_func_count() ? F.first[id] : "?";
	uint32_t c = (id - FIRST) / CHUNK;
	const char **chunk = c < CHUNKS ? __atomic_load_n(&chunks[c], __ATOMIC_ACQUIRE) : NULL;
	return chunk ? chunk[(id - FIRST) % CHUNK] : "?";
}

/* A forked child has one thread: the lock may have been held by another at the fork. */
void dyl_funcs_after_fork(void)
{
	pthread_mutex_init(&F.lock, NULL);
}
