/* dyl_threads.h - pthread_create, the joins and GOMP_parallel, interposed from each
 * wrapper to record thread events (runtime/threads/threads.c; the trace's '#' thread
 * lines, doc/trace-format.md).
 *
 * Why here and not in libdylrt.so: as for the exec trampolines (dyl_process.h), only a
 * definition in the preloaded object itself comes before the C library's.
 *
 * Forwarding: to the next definition (dlsym(RTLD_NEXT)); if that is another dyliberator
 * wrapper's (its object defines the next dyl_threads_next), to the one after it, which
 * that wrapper finds past itself: with several wrappers preloaded an event is recorded
 * once, by the first.  dlsym gives the default version: pthread_create@@GLIBC_2.34 and
 * pthread_join@@GLIBC_2.34 on x86-64, where the older GLIBC_2.2.5 versions are the same
 * functions (the versions were added when libpthread moved into libc), and
 * GOMP_parallel@@GOMP_4.0, its only version.
 *
 * The definitions are weak (a wrapper made of several files links) and exported; the
 * generator never wraps these names itself (generator/select.py RUNTIME_OWNED).
 * DYL_NO_THREAD_HOOKS turns them off.  Only shared objects (-fPIC, not -fPIE) get them.
 */
#ifndef DYL_THREADS_H
#define DYL_THREADS_H

#if !defined(DYL_NO_THREAD_HOOKS) && !defined(__cplusplus) && defined(__PIC__) && \
	!defined(__PIE__)

#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

#ifndef RTLD_NEXT	/* <dlfcn.h> without _GNU_SOURCE */
#define RTLD_NEXT ((void *)-1l)
#endif
#ifndef RTLD_DEFAULT
#define RTLD_DEFAULT ((void *)0)
#endif

#define DYL_THREAD_HOOK __attribute__((visibility("default"), weak))

/* NAME's next definition past this wrapper and the dyliberator wrappers after it */
static void *dyl_threads_lookup(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);
	void *(*next)(const char *) = (void *(*)(const char *))dlsym(RTLD_NEXT, "dyl_threads_next");
	Dl_info a, b;

	if (fn && next && dladdr(fn, &a) && dladdr((void *)next, &b) && a.dli_fbase == b.dli_fbase)
		fn = next(name);
	return fn;
}

DYL_THREAD_HOOK void *dyl_threads_next(const char *name)
{
	return dyl_threads_lookup(name);
}

static void *dyl_threads_find(const char *name, void **cache)
{
	void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = dyl_threads_lookup(name);
		__atomic_store_n(cache, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

#define DYL_THREAD_NEXT(name, type) \
	({ static void *dyl_cache_; (type)dyl_threads_find(#name, &dyl_cache_); })

/* Is the program's pthread_create a dyliberator wrapper's (this one or another's)?  Not
 * when an object before the wrappers defines its own: a sanitizer (ASan, TSan) preloaded
 * first, whose interceptor calls ours.  Then the interposers only forward: TSan's
 * interceptor hands over a start routine that sets up its thread, and the runtime's code
 * (instrumented in a sanitized build) must not run in the thread before it. */
static int dyl_threads_ours(void)
{
	static int state;	/* 0: not known yet, 1: ours, 2: not */
	int s = __atomic_load_n(&state, __ATOMIC_RELAXED);

	if (!s) {
		void *fn = dlsym(RTLD_DEFAULT, "pthread_create");
		void *ours = dlsym(RTLD_DEFAULT, "dyl_threads_next");
		Dl_info a, b;
		s = fn && ours && dladdr(fn, &a) && dladdr(ours, &b) && a.dli_fbase == b.dli_fbase
			    ? 1 : 2;
		__atomic_store_n(&state, s, __ATOMIC_RELAXED);
	}
	return s == 1;
}

/* '# threads=recorded' when the interposers record */
static __attribute__((constructor)) void dyl_threads_check(void)
{
	if (dyl_threads_ours())
		dyl_threads_on();
}

DYL_THREAD_HOOK int pthread_create(pthread_t *th, const pthread_attr_t *attr,
				   void *(*fn)(void *), void *arg)
{
	int (*next)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
		DYL_THREAD_NEXT(pthread_create, int (*)(pthread_t *, const pthread_attr_t *,
							void *(*)(void *), void *));
	void *s = dyl_threads_ours() ? dyl_thread_wrap(fn, arg) : NULL;

	if (!s)
		return next(th, attr, fn, arg);
	int r = next(th, attr, dyl_thread_run, s);
	dyl_thread_created(s, r);
	return r;
}

DYL_THREAD_HOOK int pthread_join(pthread_t th, void **ret)
{
	int (*next)(pthread_t, void **) = DYL_THREAD_NEXT(pthread_join, int (*)(pthread_t, void **));
	uint64_t t = dyl_threads_ours() ? dyl_thread_join_begin() : 0;
	int r = next(th, ret);

	dyl_thread_join_end(t, (unsigned long)th, r == 0);
	return r;
}

DYL_THREAD_HOOK int pthread_tryjoin_np(pthread_t th, void **ret)
{
	int (*next)(pthread_t, void **) =
		DYL_THREAD_NEXT(pthread_tryjoin_np, int (*)(pthread_t, void **));
	uint64_t t = dyl_threads_ours() ? dyl_thread_join_begin() : 0;
	int r = next(th, ret);

	dyl_thread_join_end(t, (unsigned long)th, r == 0);
	return r;
}

DYL_THREAD_HOOK int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *abstime)
{
	int (*next)(pthread_t, void **, const struct timespec *) =
		DYL_THREAD_NEXT(pthread_timedjoin_np,
				int (*)(pthread_t, void **, const struct timespec *));
	uint64_t t = dyl_threads_ours() ? dyl_thread_join_begin() : 0;
	int r = next(th, ret, abstime);

	dyl_thread_join_end(t, (unsigned long)th, r == 0);
	return r;
}

DYL_THREAD_HOOK int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clockid,
					 const struct timespec *abstime)
{
	int (*next)(pthread_t, void **, clockid_t, const struct timespec *) =
		DYL_THREAD_NEXT(pthread_clockjoin_np,
				int (*)(pthread_t, void **, clockid_t, const struct timespec *));
	uint64_t t = dyl_threads_ours() ? dyl_thread_join_begin() : 0;
	int r = next(th, ret, clockid, abstime);

	dyl_thread_join_end(t, (unsigned long)th, r == 0);
	return r;
}

/* An OpenMP parallel region (gcc -fopenmp): FN runs on every thread of the team, the
 * caller's included; the region ends with the team's barrier. */
DYL_THREAD_HOOK void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
				   unsigned flags)
{
	void (*next)(void (*)(void *), void *, unsigned, unsigned) =
		DYL_THREAD_NEXT(GOMP_parallel, void (*)(void (*)(void *), void *, unsigned, unsigned));
	uint64_t t = dyl_threads_ours() ? dyl_parallel_begin() : 0;

	next(fn, data, num_threads, flags);
	dyl_parallel_end(t);
}

#undef DYL_THREAD_NEXT
#undef DYL_THREAD_HOOK

#endif
#endif
