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
 *
 * Waits and wake-ups (doc/threads.md): condition variables (wait, timedwait, clockwait;
 * signal, broadcast), mutexes (lock, unlock), semaphores (wait, timedwait, clockwait;
 * post) and barriers.  Only a wait that blocks and a wake-up that finds waiters are
 * recorded: a lock tries trylock first, a semaphore trywait; a signal, unlock or post
 * looks at the waiters glibc counts in the object (as glibc's own signal does), and
 * forwards at once when there are none.  A lock that did not block costs one trylock.
 */
#ifndef DYL_THREADS_H
#define DYL_THREADS_H

#if !defined(DYL_NO_THREAD_HOOKS) && !defined(__cplusplus) && defined(__PIC__) && \
	!defined(__PIE__)

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
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

/* --- waits and wake-ups --- */

/* Is PC this wrapper's own code (a micro-generator's lock)?  Not recorded: the runtime
 * takes its own locks to record, maybe inside it. */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char _etext[] __attribute__((visibility("hidden")));

static uint64_t dyl_wait_start(const void *pc)
{
	if ((const char *)pc >= __ehdr_start && (const char *)pc < _etext)
		return 0;
	return dyl_threads_ours() ? dyl_wait_begin(pc) : 0;
}

#define DYL_CALLER __builtin_return_address(0)

/* glibc's count of a condition variable's waiters (__wrefs >> 3; its signal returns at
 * once when it is 0) */
static int dyl_cond_waiters(pthread_cond_t *c)
{
	return __atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED) >> 3 != 0;
}

DYL_THREAD_HOOK int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	int (*next)(pthread_cond_t *, pthread_mutex_t *) =
		DYL_THREAD_NEXT(pthread_cond_wait, int (*)(pthread_cond_t *, pthread_mutex_t *));
	uint64_t t = dyl_wait_start(DYL_CALLER);
	int r = next(c, m);

	if (t && r == 0)
		dyl_wait_end(t, DYL_WAIT_COND, c);
	return r;
}

/* (a wait that timed out ended by itself: not recorded, its time stays as measured) */
DYL_THREAD_HOOK int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
					   const struct timespec *abstime)
{
	int (*next)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *) =
		DYL_THREAD_NEXT(pthread_cond_timedwait,
				int (*)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *));
	uint64_t t = dyl_wait_start(DYL_CALLER);
	int r = next(c, m, abstime);

	if (t && r == 0)
		dyl_wait_end(t, DYL_WAIT_COND, c);
	return r;
}

DYL_THREAD_HOOK int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
					   const struct timespec *abstime)
{
	int (*next)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *) =
		DYL_THREAD_NEXT(pthread_cond_clockwait, int (*)(pthread_cond_t *, pthread_mutex_t *,
								clockid_t, const struct timespec *));
	uint64_t t = dyl_wait_start(DYL_CALLER);
	int r = next(c, m, clk, abstime);

	if (t && r == 0)
		dyl_wait_end(t, DYL_WAIT_COND, c);
	return r;
}

DYL_THREAD_HOOK int pthread_cond_signal(pthread_cond_t *c)
{
	int (*next)(pthread_cond_t *) = DYL_THREAD_NEXT(pthread_cond_signal, int (*)(pthread_cond_t *));
	uint64_t t = dyl_cond_waiters(c) ? dyl_wait_start(DYL_CALLER) : 0;
	int r = next(c);

	if (t && r == 0)
		dyl_wake(t, DYL_WAIT_COND, c);
	return r;
}

DYL_THREAD_HOOK int pthread_cond_broadcast(pthread_cond_t *c)
{
	int (*next)(pthread_cond_t *) =
		DYL_THREAD_NEXT(pthread_cond_broadcast, int (*)(pthread_cond_t *));
	uint64_t t = dyl_cond_waiters(c) ? dyl_wait_start(DYL_CALLER) : 0;
	int r = next(c);

	if (t && r == 0)
		dyl_wake(t, DYL_WAIT_COND, c);
	return r;
}

/* A lock that blocks: trylock first (what it returns, other than EBUSY, lock would have:
 * the mutex is taken, or the same error). */
DYL_THREAD_HOOK int pthread_mutex_lock(pthread_mutex_t *m)
{
	int (*lock)(pthread_mutex_t *) = DYL_THREAD_NEXT(pthread_mutex_lock, int (*)(pthread_mutex_t *));
	int (*trylock)(pthread_mutex_t *) =
		DYL_THREAD_NEXT(pthread_mutex_trylock, int (*)(pthread_mutex_t *));
	int r = trylock(m);

	if (r != EBUSY)
		return r;
	uint64_t t = dyl_wait_start(DYL_CALLER);
	if ((r = lock(m)) == 0 && t)
		dyl_wait_end(t, DYL_WAIT_MUTEX, m);
	return r;
}

/* glibc's lock word: 2 when a thread may wait (a plain mutex), the FUTEX_WAITERS bit (a
 * robust or priority-inheriting one) */
DYL_THREAD_HOOK int pthread_mutex_unlock(pthread_mutex_t *m)
{
	int (*next)(pthread_mutex_t *) =
		DYL_THREAD_NEXT(pthread_mutex_unlock, int (*)(pthread_mutex_t *));
	unsigned v = (unsigned)__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED);
	uint64_t t = v == 2 || (v & 0x80000000u) ? dyl_wait_start(DYL_CALLER) : 0;
	int r = next(m);

	if (t && r == 0)
		dyl_wake(t, DYL_WAIT_MUTEX, m);
	return r;
}

/* A semaphore wait that blocks: trywait first (errno kept when it gives nothing). */
static int dyl_sem_free(sem_t *s)
{
	int (*trywait)(sem_t *) = DYL_THREAD_NEXT(sem_trywait, int (*)(sem_t *));
	int saved = errno;

	if (trywait(s) == 0)
		return 1;
	errno = saved;
	return 0;
}

DYL_THREAD_HOOK int sem_wait(sem_t *s)
{
	int (*next)(sem_t *) = DYL_THREAD_NEXT(sem_wait, int (*)(sem_t *));

	if (dyl_sem_free(s))
		return 0;
	uint64_t t = dyl_wait_start(DYL_CALLER);
	int r = next(s);
	if (t && r == 0)
		dyl_wait_end(t, DYL_WAIT_SEM, s);
	return r;
}

DYL_THREAD_HOOK int sem_timedwait(sem_t *s, const struct timespec *abstime)
{
	int (*next)(sem_t *, const struct timespec *) =
		DYL_THREAD_NEXT(sem_timedwait, int (*)(sem_t *, const struct timespec *));

	if (dyl_sem_free(s))
		return 0;
	uint64_t t = dyl_wait_start(DYL_CALLER);
	int r = next(s, abstime);
	if (t && r == 0)
		dyl_wait_end(t, DYL_WAIT_SEM, s);
	return r;
}

DYL_THREAD_HOOK int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *abstime)
{
	int (*next)(sem_t *, clockid_t, const struct timespec *) =
		DYL_THREAD_NEXT(sem_clockwait, int (*)(sem_t *, clockid_t, const struct timespec *));

	if (dyl_sem_free(s))
		return 0;
	uint64_t t = dyl_wait_start(DYL_CALLER);
	int r = next(s, clk, abstime);
	if (t && r == 0)
		dyl_wait_end(t, DYL_WAIT_SEM, s);
	return r;
}

/* glibc's semaphore on x86-64: a 64-bit word, the value below and the waiters above */
DYL_THREAD_HOOK int sem_post(sem_t *s)
{
	int (*next)(sem_t *) = DYL_THREAD_NEXT(sem_post, int (*)(sem_t *));
	uint64_t w = __atomic_load_n((uint64_t *)(void *)s, __ATOMIC_RELAXED);
	uint64_t t = sizeof(void *) == 8 && w >> 32 ? dyl_wait_start(DYL_CALLER) : 0;
	int r = next(s);

	if (t && r == 0)
		dyl_wake(t, DYL_WAIT_SEM, s);
	return r;
}

/* Every barrier wait is recorded, blocked or not: the last thread's arrival ends the
 * others' waits (dyl-speedup takes each arrival as a wake-up). */
DYL_THREAD_HOOK int pthread_barrier_wait(pthread_barrier_t *b)
{
	int (*next)(pthread_barrier_t *) =
		DYL_THREAD_NEXT(pthread_barrier_wait, int (*)(pthread_barrier_t *));
	uint64_t t = dyl_wait_start(DYL_CALLER);
	int r = next(b);

	if (t && (r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD))
		dyl_wait_end(t, DYL_WAIT_BARRIER, b);
	return r;
}

#undef DYL_CALLER

#undef DYL_THREAD_NEXT
#undef DYL_THREAD_HOOK

#endif
#endif
