/* dyl_alloc.h - malloc and friends, mmap, munmap and mremap, interposed from the wrapper
 * so that every heap block and mapping the program makes becomes a region
 * (dyl_regions.h).  The generated wrap.c includes it when std.regions is used.
 *
 * Why in the wrapper and not in libdylrt.so: the dynamic linker looks a symbol up in the
 * main program, then the preloaded objects, then the dependencies breadth-first, so the
 * C library (the program's dependency) comes before the runtime (the wrapper's); only a
 * definition in the preloaded object itself comes first.  The region table is in the
 * runtime, one per process; with several wrappers preloaded the first one's malloc is the
 * one called, and it forwards past the others (see dyl_alloc_lookup): a block is
 * recorded once.
 *
 * Forwarding: to the next definition (dlsym(RTLD_NEXT)), not to glibc's __libc_malloc,
 * because a program may bring its own allocator (jemalloc, tcmalloc linked in or
 * preloaded after the wrapper): its blocks must go back to it, and its own calls
 * (malloc_usable_size, mallocx) must see its blocks.  The bootstrap problem (dlsym
 * allocates before the next malloc is known) is solved by a static arena: while a thread
 * resolves, its allocations come from there; they are never freed (free ignores them)
 * and realloc copies them out.  A malloc preloaded *before* the wrapper (a sanitizer,
 * LD_PRELOAD="libjemalloc.so wrap.so") is called instead of this one: then the heap is
 * not tracked, and the trace says so (# regions_heap=).
 *
 * Free removes the block before the memory goes back (after, another thread could get
 * the same address and insert it first); realloc and mremap remove the old block first
 * and put it back if the call fails.
 */
#ifndef DYL_ALLOC_H
#define DYL_ALLOC_H

#if !defined(DYL_NO_ALLOC_HOOKS) && !defined(__cplusplus) && defined(__PIC__) && \
	!defined(__PIE__)

#include <dlfcn.h>
#include <malloc.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include "dyl_regions.h"

#define DYL_ALLOC_HOOK __attribute__((visibility("default"), weak))
#define DYL_ARENA_SIZE (256 * 1024)

/* The allocator this wrapper forwards to, and the bootstrap arena: the wrapper's one
 * piece of allocation state. */
static struct dyl_allocator {
	int ready;
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*reallocarray)(void *, size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int (*munmap)(void *, size_t);
	void *(*mremap)(void *, size_t, size_t, int, ...);
	size_t arena_used;
	char arena[DYL_ARENA_SIZE] __attribute__((aligned(64)));
} dyl_alloc;

static __thread int dyl_alloc_resolving __attribute__((tls_model("initial-exec")));

/* --- the bootstrap arena: 16-byte header holding the size --- */
static void *dyl_arena_get(size_t n, size_t align)
{
	if (align < 16)
		align = 16;
	size_t used = __atomic_load_n(&dyl_alloc.arena_used, __ATOMIC_RELAXED), at, end;
	do {
		at = (used + 16 + align - 1) & ~(align - 1);
		end = at + n;
		if (end > DYL_ARENA_SIZE || end < at)
			return NULL;
	} while (!__atomic_compare_exchange_n(&dyl_alloc.arena_used, &used, end, 1,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*(size_t *)(dyl_alloc.arena + at - 16) = n;
	return dyl_alloc.arena + at;	/* static storage: already zero */
}

static int dyl_in_arena(const void *p)
{
	return (const char *)p >= dyl_alloc.arena && (const char *)p < dyl_alloc.arena + DYL_ARENA_SIZE;
}

/* --- resolving the next allocator --- */

/* NAME's next definition after this wrapper; if that is another dyliberator wrapper's
 * interposer (the object that defines the next dyl_alloc_next), the one after it: that
 * wrapper looks past itself.  No dlopen here: a sanitizer intercepts it, and its
 * start-up may call these functions. */
static void *dyl_alloc_lookup(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);
	void *(*next)(const char *) = (void *(*)(const char *))dlsym(RTLD_NEXT, "dyl_alloc_next");
	Dl_info a, b;

	if (fn && next && dladdr(fn, &a) && dladdr((void *)next, &b) && a.dli_fbase == b.dli_fbase)
		fn = next(name);
	return fn;
}

__attribute__((visibility("default"))) void *dyl_alloc_next(const char *name)
{
	return dyl_alloc_lookup(name);
}

static __attribute__((noinline)) void dyl_alloc_resolve(void)
{
	struct dyl_allocator *a = &dyl_alloc;

	dyl_alloc_resolving = 1;
#define DYL_ALLOC_FIND(f) __atomic_store_n((void **)&a->f, dyl_alloc_lookup(#f), __ATOMIC_RELAXED)
	DYL_ALLOC_FIND(malloc);
	DYL_ALLOC_FIND(free);
	DYL_ALLOC_FIND(calloc);
	DYL_ALLOC_FIND(realloc);
	DYL_ALLOC_FIND(reallocarray);
	DYL_ALLOC_FIND(posix_memalign);
	DYL_ALLOC_FIND(aligned_alloc);
	DYL_ALLOC_FIND(memalign);
	DYL_ALLOC_FIND(valloc);
	DYL_ALLOC_FIND(pvalloc);
#undef DYL_ALLOC_FIND
	__atomic_store_n(&a->ready, 1, __ATOMIC_RELEASE);
	dyl_alloc_resolving = 0;
}

/* 1: forward to dyl_alloc; 0: this thread is resolving, use the arena */
static inline int dyl_alloc_on(void)
{
	if (dyl_likely(__atomic_load_n(&dyl_alloc.ready, __ATOMIC_ACQUIRE)))
		return 1;
	if (dyl_alloc_resolving)
		return 0;
	dyl_alloc_resolve();
	return 1;
}

#define DYL_NEXT(f) (__atomic_load_n(&dyl_alloc.f, __ATOMIC_RELAXED))

/* mmap, munmap and mremap go to the next definition, looked up alone: they are called
 * by sanitizers' and allocators' start-up code, before anything else is ready; a second
 * wrapper recording a mapping again only replaces it. */
#define DYL_MAP_NEXT(f)                                                              \
	({                                                                            \
		void *fn_ = __atomic_load_n((void **)&dyl_alloc.f, __ATOMIC_ACQUIRE);       \
		if (dyl_unlikely(!fn_)) {                                             \
			fn_ = dlsym(RTLD_NEXT, #f);                                   \
			__atomic_store_n((void **)&dyl_alloc.f, fn_, __ATOMIC_RELEASE);     \
		}                                                                     \
		(__typeof__(dyl_alloc.f))fn_;                                         \
	})

/* --- the interposers --- */

DYL_ALLOC_HOOK void *malloc(size_t n)
{
	if (dyl_unlikely(!dyl_alloc_on()))
		return dyl_arena_get(n, 16);
	void *p = DYL_NEXT(malloc)(n);
	if (p)
		dyl_region_add(p, n, DYL_REGION_HEAP | DYL_REGION_UNINIT);
	return p;
}

DYL_ALLOC_HOOK void free(void *p)
{
	if (!p || dyl_unlikely(dyl_in_arena(p)))
		return;
	if (dyl_unlikely(!dyl_alloc_on()))
		return;	/* a block from before the resolution cannot be this allocator's */
	dyl_region_del(p);
	DYL_NEXT(free)(p);
}

DYL_ALLOC_HOOK void *calloc(size_t n, size_t size)
{
	size_t total;
	int overflow = __builtin_mul_overflow(n, size, &total);

	if (dyl_unlikely(!dyl_alloc_on()))
		return overflow ? NULL : dyl_arena_get(total, 16);
	void *p = DYL_NEXT(calloc)(n, size);
	if (p && !overflow)
		dyl_region_add(p, total, DYL_REGION_HEAP);
	return p;
}

static void *dyl_arena_realloc(void *p, size_t n)
{
	size_t old = *(size_t *)((char *)p - 16);
	void *q = malloc(n);

	if (q)
		memcpy(q, p, old < n ? old : n);
	return q;
}

DYL_ALLOC_HOOK void *realloc(void *p, size_t n)
{
	if (p && dyl_unlikely(dyl_in_arena(p)))
		return dyl_arena_realloc(p, n);
	if (dyl_unlikely(!dyl_alloc_on()))
		return dyl_arena_get(n, 16);
	int64_t old = p ? dyl_region_del(p) : -1;
	void *q = DYL_NEXT(realloc)(p, n);
	if (q)
		dyl_region_add(q, n, DYL_REGION_HEAP | (old >= 0 ? DYL_REGION_REALLOC : 0));
	else if (old >= 0 && n)	/* failed: P is still the caller's */
		dyl_region_add(p, (size_t)old, DYL_REGION_HEAP);
	return q;
}

DYL_ALLOC_HOOK void *reallocarray(void *p, size_t n, size_t size)
{
	size_t total;
	int overflow = __builtin_mul_overflow(n, size, &total);

	if (p && dyl_unlikely(dyl_in_arena(p)))
		return overflow ? NULL : dyl_arena_realloc(p, total);
	if (dyl_unlikely(!dyl_alloc_on()))
		return overflow ? NULL : dyl_arena_get(total, 16);
	int64_t old = p ? dyl_region_del(p) : -1;
	void *q = DYL_NEXT(reallocarray)(p, n, size);
	if (q && !overflow)
		dyl_region_add(q, total, DYL_REGION_HEAP | (old >= 0 ? DYL_REGION_REALLOC : 0));
	else if (!q && old >= 0)
		dyl_region_add(p, (size_t)old, DYL_REGION_HEAP);
	return q;
}

DYL_ALLOC_HOOK int posix_memalign(void **out, size_t align, size_t n)
{
	if (dyl_unlikely(!dyl_alloc_on())) {
		*out = dyl_arena_get(n, align);
		return *out ? 0 : 12;	/* ENOMEM */
	}
	int r = DYL_NEXT(posix_memalign)(out, align, n);
	if (r == 0)
		dyl_region_add(*out, n, DYL_REGION_HEAP | DYL_REGION_UNINIT);
	return r;
}

/* the aligned forms that return the block */
#define DYL_ALLOC_ALIGNED(name, params, args, n, align)                 \
	DYL_ALLOC_HOOK void *name params                                 \
	{                                                                \
		if (dyl_unlikely(!dyl_alloc_on()))                       \
			return dyl_arena_get(n, align);                  \
		void *p = DYL_NEXT(name) args;                           \
		if (p)                                                   \
			dyl_region_add(p, n, DYL_REGION_HEAP | DYL_REGION_UNINIT); \
		return p;                                                \
	}
DYL_ALLOC_ALIGNED(aligned_alloc, (size_t align, size_t n), (align, n), n, align)
DYL_ALLOC_ALIGNED(memalign, (size_t align, size_t n), (align, n), n, align)
DYL_ALLOC_ALIGNED(valloc, (size_t n), (n), n, 4096)
DYL_ALLOC_ALIGNED(pvalloc, (size_t n), (n), n, 4096)
#undef DYL_ALLOC_ALIGNED

DYL_ALLOC_HOOK void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = DYL_MAP_NEXT(mmap)(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED)
		dyl_region_add(p, len, DYL_REGION_MMAP);
	return p;
}

DYL_ALLOC_HOOK int munmap(void *addr, size_t len)
{
	int (*next)(void *, size_t) = DYL_MAP_NEXT(munmap);
	dyl_region_unmap(addr, len);
	return next(addr, len);
}

DYL_ALLOC_HOOK void *mremap(void *old, size_t old_len, size_t len, int flags, ...)
{
	va_list ap;
	void *to;

	va_start(ap, flags);
	to = (flags & MREMAP_FIXED) ? va_arg(ap, void *) : NULL;
	va_end(ap);
	void *(*next)(void *, size_t, size_t, int, ...) = DYL_MAP_NEXT(mremap);
	int64_t was = dyl_region_del(old);
	void *p = next(old, old_len, len, flags, to);
	if (p != MAP_FAILED)
		dyl_region_add(p, len, DYL_REGION_MMAP | (was >= 0 ? DYL_REGION_REALLOC : 0));
	else if (was >= 0)
		dyl_region_add(old, (size_t)was, DYL_REGION_MMAP);
	return p;
}

#undef DYL_NEXT
#undef DYL_MAP_NEXT
#undef DYL_ARENA_SIZE
#undef DYL_ALLOC_HOOK

#endif
#endif
