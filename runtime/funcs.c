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

#define CHUNK 4096	/* names per chunk of the table */
#define CHUNKS 1024
#define ARENA (256 * 1024)	/* bytes of name text per arena */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char **chunks[CHUNKS];
static uint32_t count;
static char *arena;
static size_t arena_used = ARENA;

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
	if (arena_used + n > ARENA) {
		char *a = get_pages(ARENA);
		if (!a)
			return name;
		arena = a;
		arena_used = 0;
	}
	char *s = arena + arena_used;
	memcpy(s, name, n);
	arena_used += n;
	return s;
}

/* Decides F's state and gives it an id, once; the caller holds dyl_busy. */
void dyl_func_decide(struct dyl_func *f, int record)
{
	pthread_mutex_lock(&lock);
	if (__atomic_load_n(&f->state, __ATOMIC_ACQUIRE) == 0) {
		uint32_t id = count, c = id / CHUNK;
		if (c < CHUNKS && !chunks[c])
			__atomic_store_n(&chunks[c], get_pages(CHUNK * sizeof(char *)),
					 __ATOMIC_RELEASE);
		if (c < CHUNKS && chunks[c]) {
			chunks[c][id % CHUNK] = copy_name(f->name);
			__atomic_store_n(&count, id + 1, __ATOMIC_RELEASE);	/* the name first */
			f->id = id;
		} else {
			record = 0;	/* 4 million functions, or no memory: forward only */
		}
		/* the id is published with the state: a thread that sees state 1 sees it */
		__atomic_store_n(&f->state, record ? 1 : 2, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
	/* in the spool before any record of it: a crash leaves no nameless rows */
	dyl_spool_names_now();
}

uint32_t dyl_func_count(void)
{
	return __atomic_load_n(&count, __ATOMIC_ACQUIRE);
}

const char *dyl_func_name(uint32_t id)
{
	const char **c = id / CHUNK < CHUNKS ? __atomic_load_n(&chunks[id / CHUNK], __ATOMIC_ACQUIRE)
					     : NULL;
	return c ? c[id % CHUNK] : "?";
}

/* A forked child has one thread: the lock may have been held by another at the fork. */
void dyl_funcs_after_fork(void)
{
	pthread_mutex_init(&lock, NULL);
}
