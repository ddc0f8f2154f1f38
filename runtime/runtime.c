/* runtime.c - process state, the per-call path, threads, fork and exit.
 *
 * The per-call path is dyl_enter + dyl_leave: a thread-local lookup and one binary
 * record stored into the thread's own window of the spool (dyl_spool.h: a shared file
 * mapping, so a SIGKILL loses nothing already stored); no lock, no atomic
 * read-modify-write, no formatting, no system call.  Windows are written out (output.c)
 * when full, when their thread exits, and at exit; the spool becomes the CSV trace when
 * the image ends (runtime/format/).
 *
 * The process's state lives in state.c.  The core names no feature: a feature that
 * must run at one of its points installs a hook there (dyl_hooks, internal.h).
 *
 * Signal handlers may make wrapped calls on any thread at any moment: while dyl_busy is
 * set the runtime is between states and such a call is forwarded unrecorded; otherwise
 * it is recorded like any call (with the depth of the call it interrupted).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "internal.h"

const int dyl_abi_6 = 6;

/* A thread's cost sums have one writer, the thread, and are read from another thread
 * (dyl_cost_ns) while it runs: relaxed atomics, plain moves on x86. */
#define COST_BUMP(field, x) \
	__atomic_store_n(&(field), __atomic_load_n(&(field), __ATOMIC_RELAXED) + (x), __ATOMIC_RELAXED)

/* The structs of threads that ended, for the next threads (dyl_proc.lock). */
static struct {
	struct dyl_thread *t[16];
	unsigned n;
} spare;

static void thread_exit(void *arg)
{
	struct dyl_thread *t = arg, **p;

	DYL_BUSY_IN();
	/* flush_lock keeps a concurrent dyl_finish from writing these rows twice; taking T
	 * off the list under 'lock' (which dyl_finish holds while it walks the list) keeps
	 * it from touching T once unmapped. */
	uint64_t a = dyl_now();
	dyl_flush_thread(t, 0);
	a = dyl_now() - a;
	COST_BUMP(t->cost.whole, a);
	if (t->depth == 0)
		COST_BUMP(t->cost.outside, a);
	if (dyl_spool_window_is_shared(t)) {
		dyl_io_lock();
		dyl_spool_window_done(t->win);	/* empty now: the next thread's */
		dyl_io_unlock();
	}
	pthread_mutex_lock(&dyl_proc.lock);
	for (p = &dyl_proc.threads; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			break;
		}
	dyl_cost_sum(&dyl_costs.sum, &t->cost);
	/* kept for the next thread (its first call then needs no mmap and no page faults
	 * for it, and this one's exit no munmap, whose TLB flush interrupts every CPU) */
	int kept = spare.n < sizeof(spare.t) / sizeof(spare.t[0]);
	if (kept)
		spare.t[spare.n++] = t;
	pthread_mutex_unlock(&dyl_proc.lock);
	dyl_self = NULL;
	if (!kept)
		munmap(t, sizeof(*t));
	DYL_BUSY_OUT();
}

/* T's private window, empty, its header set; T appends to it from now on when USE.
 * (Set only where it is used: a thread whose first call gets a window of the spool
 * never touches its page.) */
static struct dyl_window *own_window(struct dyl_thread *t, int use)
{
	struct dyl_window *own = DYL_OWN_WINDOW(t);

	own->id = DYL_NO_WINDOW;
	own->size = (uint32_t)DYL_WINDOW_DATA;
	own->len = 0;
	own->tid = t->tid;
	if (use)
		t->win = own;
	return own;
}

static void init_own_window(struct dyl_thread *t)
{
	own_window(t, 1);
}

/* T has its private window (no spool had room, or T is a forked child's thread): a
 * window of the spool instead, with the records so far.  Only when none of them was
 * written out yet, so that a reader never counts them twice. */
static void use_spool_window(struct dyl_thread *t)
{
	pthread_mutex_lock(&t->flush_lock);
	if (!dyl_spool_window_is_shared(t) && t->flushed == 0) {
		dyl_io_lock();
		struct dyl_window *w = dyl_spool_window(t->tid);
		dyl_io_unlock();
		if (w) {
			uint32_t len = t->win->len;
			memcpy(w->data, t->win->data, len);
			__atomic_store_n(&w->len, len, __ATOMIC_RELEASE);
			t->win = w;
		}
	}
	pthread_mutex_unlock(&t->flush_lock);
}

struct dyl_thread *dyl_thread_get(void)
{
	struct dyl_thread *t = dyl_self;

	if (dyl_likely(t != NULL))
		return t;
	pthread_mutex_lock(&dyl_proc.lock);
	t = spare.n ? spare.t[--spare.n] : NULL;
	pthread_mutex_unlock(&dyl_proc.lock);
	if (t) {
		/* (the state before args; args and its own window are written before read) */
		memset(t, 0, offsetof(struct dyl_thread, args));
	} else {
		t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t == MAP_FAILED)
			return NULL;
	}
	t->tid = (pid_t)syscall(SYS_gettid);
	t->cost_left = t->cost_period = 1;
	pthread_mutex_init(&t->flush_lock, NULL);
	dyl_io_lock();
	struct dyl_window *w = dyl_spool_window(t->tid);
	dyl_io_unlock();
	if (w)
		t->win = w;
	else
		init_own_window(t);
	pthread_mutex_lock(&dyl_proc.lock);
	t->next = dyl_proc.threads;
	dyl_proc.threads = t;
	pthread_mutex_unlock(&dyl_proc.lock);
	pthread_setspecific(dyl_proc.key, t);
	dyl_self = t;
	return t;
}

/* Fork: the child writes its own trace (PATH.<pid>), numbered from 0 and timed from
 * the fork, and drops the rows its parent will write.  Other threads do not exist in
 * the child; their buffers are their parent's. */
static void after_fork_child(void)
{
	struct dyl_thread *t = dyl_self, *o, *next;

	/* the runtime's own calls (pthread_mutex_init, close...) are not the program's,
	 * and must not reach the parent's spool through a wrapper of libc */
	DYL_BUSY_IN();
	dyl_spool_after_fork();

	/* the other threads are the parent's; so are the windows mapped from its spool */
	for (o = dyl_proc.threads; o; o = next) {
		next = o->next;
		if (o == t)
			continue;
		if (dyl_spool_window_is_shared(o))
			munmap(o->win, DYL_WINDOW_SIZE);
		munmap(o, sizeof(*o));
	}
	if (t && dyl_spool_window_is_shared(t)) {
		struct dyl_window *parents = t->win;
		t->win = DYL_OWN_WINDOW(t);	/* before any store: that page is the parent's */
		munmap(parents, DYL_WINDOW_SIZE);
	}

	dyl_proc.pid = getpid();
	dyl_proc.ppid = getppid();
	dyl_proc.exec_of = 0;	/* (a new process: no earlier image) */
	dyl_proc.t0 = dyl_now();
	dyl_proc.t0_ns = dyl_monotonic_ns();
	dyl_proc.start_ns = dyl_realtime_ns();
	dyl_proc.startup_ns = 0;	/* a child's run starts at the fork */
	dyl_proc.threads = NULL;
	dyl_spool.blocks = 0;
	dyl_spool.seq = 0;
	dyl_proc.forked = 1;
	memset(&dyl_costs.sum, 0, sizeof(dyl_costs.sum));	/* the child's run starts here */
	dyl_out.finished = 0;
	pthread_mutex_init(&dyl_proc.lock, NULL);
	pthread_mutex_init(&dyl_out.io, NULL);
	pthread_mutex_init(&dyl_meta.lock, NULL);
	dyl_funcs_after_fork();
	spare.n = 0;	/* (a thread may have been adding to it at the fork: left as they are) */
	if (t) {
		t->tid = (pid_t)syscall(SYS_gettid);
		init_own_window(t);	/* empty: the parent's rows are the parent's */
		t->flushed = 0;
		memset(t->reserved, 0, sizeof(t->reserved));	/* listed in the parent's blocks */
		memset(&t->cost, 0, sizeof(t->cost));
		pthread_mutex_init(&t->flush_lock, NULL);
		t->next = NULL;
		dyl_proc.threads = t;
		/* its next call claims the child's trace and moves to a window of its spool */
		__atomic_store_n(&dyl_proc.pending, 1, __ATOMIC_RELAXED);
	}
	dyl_trace_reset_after_fork();
	DYL_BUSY_OUT();
}

/* An exec failed after the trace was written out: the image goes on, with a new
 * spool.  The threads' windows belong to the old one (converted, removed): each thread
 * goes back to its private window, and to a window of the new spool at its next call
 * (the calling thread) or write-out (the others). */
void dyl_resume(void)
{
	DYL_BUSY_IN();
	pthread_mutex_lock(&dyl_proc.lock);
	for (struct dyl_thread *t = dyl_proc.threads; t; t = t->next) {
		pthread_mutex_lock(&t->flush_lock);
		if (dyl_spool_window_is_shared(t)) {
			struct dyl_window *w = t->win, *own = own_window(t, 0);
			uint32_t len = __atomic_load_n(&w->len, __ATOMIC_ACQUIRE);
			memcpy(own->data, w->data, len);
			own->len = len;
			t->win = own;	/* T's owner may be storing into W: its next record is lost */
			munmap(w, DYL_WINDOW_SIZE);
		}
		pthread_mutex_unlock(&t->flush_lock);
	}
	pthread_mutex_unlock(&dyl_proc.lock);
	dyl_io_lock();
	if (dyl_out.fd >= 0)
		dyl_spool_open();
	dyl_io_unlock();
	__atomic_store_n(&dyl_proc.pending, 1, __ATOMIC_RELAXED);
	DYL_BUSY_OUT();
}

/* A wrapped library was loaded with the program (a wrapper's constructor found its
 * originals): its first call is near.  So the trace's name, the spool and this thread's
 * window are made now, in the constructor, not inside that call: a first call then costs
 * what a later one does (bench/firstcall/).  Only on the main thread, and only where the
 * name is taken as the process's end would take it anyway (dyl_out_claim(1)): a
 * process that never calls leaves what it left before.  Shells and launchers, which do
 * not load the library, pay nothing. */
void dyl_prepare(void)
{
	if (dyl_proc.initialized != 2 || dyl_proc.off || DYL_DISABLED() || dyl_self ||
	    dyl_proc.forked || (pid_t)syscall(SYS_gettid) != dyl_proc.pid)
		return;
	uint64_t a = dyl_now();
	dyl_busy++;
	dyl_out_claim(1);
	if (__atomic_load_n(&dyl_out.fd, __ATOMIC_ACQUIRE) >= 0) {
		dyl_io_lock();
		dyl_spool_names_ahead();
		dyl_io_unlock();
		dyl_thread_get();	/* with a window of the spool */
	}
	dyl_busy--;
	dyl_cost_add(dyl_now() - a);
}

/* Every thread's rows recorded so far, including those of threads still running. */
static void flush_all(void)
{
	struct dyl_thread *t;

	DYL_BUSY_IN();
	uint64_t a = dyl_now();
	pthread_mutex_lock(&dyl_proc.lock);
	for (t = dyl_proc.threads; t; t = t->next)
		dyl_flush_thread(t, 0);
	pthread_mutex_unlock(&dyl_proc.lock);
	dyl_cost_add(dyl_now() - a);
	DYL_BUSY_OUT();
}

/* Has this image recorded a call: numbered rows, rows still in a buffer, or a call in
 * flight? */
int dyl_recorded_any(void)
{
	int any = __atomic_load_n(&dyl_spool.blocks, __ATOMIC_RELAXED) != 0;

	DYL_BUSY_IN();
	pthread_mutex_lock(&dyl_proc.lock);
	for (struct dyl_thread *t = dyl_proc.threads; t && !any; t = t->next)
		any = __atomic_load_n(&t->win->len, __ATOMIC_ACQUIRE) != 0 || t->depth != 0;
	pthread_mutex_unlock(&dyl_proc.lock);
	DYL_BUSY_OUT();
	return any;
}

/* exit(): rows recorded so far.  Destructors that run later may still make wrapped
 * calls, so the footer waits for our own destructor. */
static void at_exit(void)
{
	flush_all();
}

/* quick_exit() runs these handlers only, then _exit. */
static void at_quick(void)
{
	dyl_finish();
}

void dyl_init(void)
{
	const char *e;

	/* The first caller initializes; a concurrent first call from another thread
	 * forwards unrecorded rather than waiting. */
	if (__atomic_load_n(&dyl_proc.initialized, __ATOMIC_ACQUIRE) == 2)
		return;
	int expected = 0;
	if (!__atomic_compare_exchange_n(&dyl_proc.initialized, &expected, 1, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	DYL_BUSY_IN();
	int saved = errno;
	dyl_proc.pid = getpid();
	/* setuid, setgid or file capabilities: the dynamic linker's rules for such a process
	 * hold here too.  Whoever ran it chose the environment (DYL_TRACE could name a file
	 * only the program's owner may write): forward every call, write nothing. */
	dyl_proc.secure = getauxval(AT_SECURE) != 0;
	dyl_env_setup();	/* (reads nothing then) */
	dyl_clock_setup();
	/* the trace's clock zero and start_ns, read together: processes are placed on one
	 * time axis by start_ns (doc/jobs.md); a system call between them (the CPU time)
	 * lets the scheduler in, by milliseconds on a busy machine */
	dyl_proc.t0 = dyl_now();
	dyl_proc.t0_ns = dyl_monotonic_ns();
	dyl_proc.start_ns = dyl_realtime_ns();
	dyl_proc.startup_ns = dyl_cpu_ns();
	dyl_proc.ppid = getppid();
	/* the exec hooks name the pid whose image wrote a trace, then exec'd this one */
	e = dyl_env(DYL_ENV_EXEC_OF);
	dyl_proc.exec_of = e && *e && strtol(e, NULL, 10) == (long)dyl_proc.pid;
	e = dyl_env(DYL_ENV_OFF);
	dyl_proc.off = dyl_proc.secure || (e && *e && strcmp(e, "0") != 0);
	e = dyl_env(DYL_ENV_FILTER);
	dyl_proc.filter = e && *e ? e : NULL;
	dyl_env_warn();
	pthread_key_create(&dyl_proc.key, thread_exit);
	pthread_atfork(NULL, NULL, after_fork_child);
	atexit(at_exit);
	at_quick_exit(at_quick);
	if (!dyl_proc.off)
		dyl_fatal_setup(dyl_finish);
	/* A relative $DYL_TRACE means the directory the program started in.  The name
	 * itself is taken at the first recorded call (before the program can fork or exec
	 * after it); a process that records nothing (a shell, /usr/bin/time in front of
	 * the program) leaves no trace and does not take PATH from the one that does. */
	dyl_trace_setup();
	dyl_cost_add(dyl_now() - dyl_proc.t0);
	errno = saved;
	DYL_BUSY_OUT();
	__atomic_store_n(&dyl_proc.initialized, 2, __ATOMIC_RELEASE);
}

/* The core at start-up (start.c): the program's arguments, as glibc gives constructors,
 * kept for the trace's '# cmdline=', which then needs no read of /proc at the first
 * call. */
void dyl_core_start(int argc, char **argv)
{
	if (argc > 0 && argv && argv[0]) {
		dyl_proc.argc = argc;
		dyl_proc.argv = argv;
	}
	dyl_init();
}

/* DYL_FILTER: comma-separated shell wildcards; "!PAT" excludes; the last match wins,
 * and a filter of only exclusions records everything else. */
static int filter_allows(const char *name)
{
	const char *p = dyl_proc.filter;
	int verdict = -1, any_include = 0;
	char pat[256];

	while (*p) {
		size_t n = strcspn(p, ",");
		int neg = (*p == '!');
		size_t off = neg ? 1 : 0;
		if (n - off < sizeof(pat)) {
			memcpy(pat, p + off, n - off);
			pat[n - off] = '\0';
			if (!neg)
				any_include = 1;
			if (fnmatch(pat, name, 0) == 0)
				verdict = !neg;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return verdict >= 0 ? verdict : !any_include;
}

/* Opens call C on thread T: its depth, its place on the stack, its fields. */
static inline __attribute__((always_inline)) int open_call(struct dyl_call *c,
							   struct dyl_func *f,
							   struct dyl_thread *t)
{
	c->func = f;
	/* A longjmp (or an exception) out of a wrapped call abandons it without a leave:
	 * an open call whose frame lies at or above this one on the stack is over (and
	 * the number a write-out reserved for it stays unused). */
	uint32_t d = t->depth;
	while (dyl_unlikely(d > 0 && d <= DYL_MAX_FRAMES && t->frames[d - 1] <= (uintptr_t)c))
		t->reserved[--d] = 0;
	if (d < DYL_MAX_FRAMES)
		t->frames[d] = (uintptr_t)c;
	c->depth = d;
	t->depth = d + 1;
	c->in_bytes = c->out_bytes = c->work = DYL_NONE;
	c->ncounters = 0;
	c->flags = 0;
	c->args = NULL;
	c->t_start = c->t_end = 0;
	return 1;
}

/* Everything but the common case: start-up, a function's first call, the thread's
 * first call, recording off, the runtime itself calling. */
static __attribute__((noinline)) int enter_slow(struct dyl_call *c, struct dyl_func *f)
{
	struct dyl_thread *t;

	if (dyl_busy)
		return 0;
	if (dyl_proc.initialized != 2) {
		dyl_init();
		if (dyl_proc.initialized != 2)
			return 0;
	}
	/* acquire: a thread that sees state 1 sees the id given with it */
	int state = __atomic_load_n(&f->state, __ATOMIC_ACQUIRE);
	if (state == 0) {
		dyl_busy++;
		dyl_func_decide(f, !dyl_proc.filter || filter_allows(f->name));
		/* in the spool before any record of it: a crash leaves no nameless rows */
		dyl_spool_names_now();
		dyl_busy--;
		state = __atomic_load_n(&f->state, __ATOMIC_ACQUIRE);
	}
	if (state != 1 || dyl_proc.off || DYL_DISABLED())
		return 0;
	t = dyl_self;
	if (t == NULL || __atomic_load_n(&dyl_proc.pending, __ATOMIC_RELAXED)) {
		uint64_t a = dyl_now();
		dyl_busy++;
		dyl_out_claim(0);	/* the process's first recorded call takes the name */
		if (t == NULL)
			t = dyl_thread_get();	/* with a window of the spool */
		else
			use_spool_window(t);	/* a forked child's thread */
		__atomic_store_n(&dyl_proc.pending, 0, __ATOMIC_RELAXED);
		dyl_busy--;
		dyl_cost_add(dyl_now() - a);
		if (t == NULL)
			return 0;
	}
	return open_call(c, f, t);
}

/* A call timed whole (struct dyl_cost), out of line: the clock read and its call keep
 * dyl_enter's common path free of a stack frame. */
static __attribute__((noinline)) int open_timed(struct dyl_call *c, struct dyl_func *f,
						struct dyl_thread *t)
{
	uint64_t t_enter = __atomic_load_n(&dyl_costs.cpu, __ATOMIC_RELAXED) ? dyl_thread_cpu_ns()
										: dyl_now();
	uint32_t weight = t->cost_period;

	/* the next period is set now: calls nested in this one count down too */
	t->cost_period = ++t->cost_taken < DYL_COST_FIRST ? 1 : DYL_COST_EVERY;
	t->cost_left = t->cost_period;
	open_call(c, f, t);
	c->t_enter = t_enter;
	c->cost_weight = weight;
	c->flags = DYL_CALL_COST;
	return 1;
}

int dyl_enter(struct dyl_call *c, struct dyl_func *f)
{
	struct dyl_thread *t = dyl_self;

	/* A thread exists only once the runtime is initialized. */
	if (dyl_likely(!dyl_busy && t != NULL &&
		       __atomic_load_n(&f->state, __ATOMIC_ACQUIRE) == 1 &&
		       !(dyl_proc.off | DYL_DISABLED() |
			 __atomic_load_n(&dyl_proc.pending, __ATOMIC_RELAXED)))) {
		if (dyl_unlikely(--t->cost_left == 0))
			return open_timed(c, f, t);
		return open_call(c, f, t);
	}
	return enter_slow(c, f);
}

/* The buffer is full: write it out (from dyl_leave, with the levels still open). */
static __attribute__((noinline)) void buffer_full(struct dyl_thread *t, uint32_t open)
{
	uint64_t a = dyl_now();

	dyl_flush_thread(t, open);
	a = dyl_now() - a;
	COST_BUMP(t->cost.whole, a);
	if (open == 0)	/* the call left was the outermost: inside no call's t_ns */
		COST_BUMP(t->cost.outside, a);
}

/* The end of a call timed whole: what it cost beyond its own t_ns.  The two extra
 * clock reads are not free either, but the part of each that falls inside the
 * measure (about one read) stands for the part of the t_start and t_end reads that
 * falls inside t_ns, which is tracing's cost too. */
static __attribute__((noinline)) void cost_sample(struct dyl_thread *t, const struct dyl_call *c,
						  uint64_t dur)
{
	int cpu = __atomic_load_n(&dyl_costs.cpu, __ATOMIC_RELAXED);
	uint64_t w = c->cost_weight, end = cpu ? dyl_thread_cpu_ns() : dyl_now();

	if (c->t_end == 0)
		return;		/* not timed (no std.time): nothing to take apart */
	if (cpu)
		COST_BUMP(t->cost.outer_ns, (end - c->t_enter) * w);
	else
		COST_BUMP(t->cost.outer, (end - c->t_enter) * w);
	if (c->flags & DYL_CALL_DUR_NS)
		COST_BUMP(t->cost.inner_ns, dur * w);
	else
		COST_BUMP(t->cost.inner, dur * w);
	COST_BUMP(t->cost.samples, 1);
}

void dyl_leave(struct dyl_call *c)
{
	struct dyl_thread *t = dyl_self;
	uint32_t d = c->depth;

	t->depth = d;	/* not --: a call longjmp'ed out of left no leave */
	DYL_BUSY_IN();
	struct dyl_window *w = t->win;
	uint32_t len = w->len;
	struct dyl_rec *r = (struct dyl_rec *)(w->data + len);
	uint32_t id = c->func->id, dur_ns = c->flags & DYL_CALL_DUR_NS;
	uint64_t dur = dur_ns ? c->t_end : c->t_end - c->t_start;
	r->t_start = c->t_start;
	r->dur = (uint32_t)dur;
	r->meta = id | d << 20 | dur_ns << 28;
	len += (uint32_t)sizeof(*r);
	uint64_t seq1 = d < DYL_MAX_FRAMES ? t->reserved[d] : 0;
	/* one test for "16 bytes say it all": no earlier place, no args, no counters,
	 * no sizes, and duration, id and depth fit their fields */
	uint64_t sizes = ((uint64_t)c->in_bytes ^ (uint64_t)DYL_NONE) |
			 ((uint64_t)c->out_bytes ^ (uint64_t)DYL_NONE) |
			 ((uint64_t)c->work ^ (uint64_t)DYL_NONE);
	uint64_t big = (dur >> 32) | (id >> DYL_REC_FUNC_BITS) | (d >= DYL_REC_DEPTH_MAX);
	if (dyl_unlikely(seq1 | (uintptr_t)c->args | c->ncounters | sizes | big)) {
		if (seq1)
			t->reserved[d] = 0;
		if (big)	/* the payload holds them: R's fields are not read */
			r->meta = (id & ((1u << DYL_REC_FUNC_BITS) - 1)) | dur_ns << 28;
		len += dyl_rec_put(r, c, seq1 != 0, big != 0, dur, id, d);
	}
	/* after the record: a reader of the spool (another thread, or dyl-trace after a
	 * SIGKILL) sees whole records only */
	DYL_ASSERT(len <= DYL_WINDOW_DATA);	/* buffer_full leaves room for the longest */
	__atomic_store_n(&w->len, len, __ATOMIC_RELEASE);
	if (dyl_unlikely(c->flags & DYL_CALL_COST))
		cost_sample(t, c, dur);
	if (dyl_unlikely(len > DYL_WINDOW_DATA - DYL_REC_MAX))
		buffer_full(t, d);
	DYL_BUSY_OUT();
	/* a feature's after the record (diff.c: the stack below the caller is dead) */
	if (dyl_unlikely(dyl_leave_pending))
		__atomic_load_n(&dyl_hooks.after_leave, __ATOMIC_RELAXED)();
}

/* Writes T's records not written yet.  Only T's own thread appends to its window and
 * only it empties it; any other thread (dyl_finish while T still runs) writes what is
 * complete and remembers how far it got, so that no row is written twice or lost. */
void dyl_flush_thread(struct dyl_thread *t, uint32_t open)
{
	int own = (t == dyl_self);

	pthread_mutex_lock(&t->flush_lock);
	struct dyl_window *w = t->win;
	uint32_t len = __atomic_load_n(&w->len, __ATOMIC_ACQUIRE);
	DYL_ASSERT(len >= t->flushed);	/* only the owner empties its window */
	if (len > t->flushed || (own && open))
		dyl_out_block(t, t->flushed, len, own ? open : 0);
	if (own) {
		t->flushed = 0;
		/* empty, then a new generation: a crash between the two leaves an empty
		 * window, never one whose records a block already holds (dyl_spool.h) */
		__atomic_store_n(&w->len, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&w->gen, w->gen + 1, __ATOMIC_RELEASE);
	} else {
		t->flushed = len;
	}
	pthread_mutex_unlock(&t->flush_lock);
	if (own && !dyl_spool_window_is_shared(t) && dyl_spool.fd >= 0)
		use_spool_window(t);	/* the spool had no room for one before */
}

/* The image ends (exit, _exit, exec): every row, then the footer (once). */
void dyl_finish(void)
{
	if (dyl_proc.initialized != 2)
		return;
	flush_all();
	void (*threads_end)(void) = __atomic_load_n(&dyl_hooks.threads_end, __ATOMIC_ACQUIRE);
	if (threads_end)
		threads_end();
	DYL_BUSY_IN();
	dyl_out_end();
	DYL_BUSY_OUT();
}

char *dyl_args_buffer(unsigned *size)
{
	struct dyl_thread *t = dyl_self;

	if (!t)
		return NULL;
	/* One buffer per nesting level: an outer call's args must survive the wrapped calls
	 * made inside it (dgemm_ -> lsame_) until its own row is written.  Called after
	 * dyl_enter, so the call's own depth is t->depth - 1; deeper levels share the last. */
	uint32_t level = t->depth ? t->depth - 1 : 0;
	if (level >= DYL_ARGS_LEVELS)
		level = DYL_ARGS_LEVELS - 1;
	*size = sizeof(t->args[0]);
	return t->args[level];
}

/* Copies up to N bytes at S into TO through process_vm_readv, which fails where a plain
 * read would fault (S may be any value the program passed).  The bytes copied: a
 * string that ends on its last readable page comes back shorter; -1 when none could
 * be read (or the call is refused: a seccomp filter).  errno stays as it was. */
static long args_copy(char *to, const char *s, size_t n)
{
	int saved = errno;
	struct iovec local = { to, n }, remote = { (void *)s, n };
	/* the pid the runtime keeps (set again in a forked child): one system call, not two.
	 * A child of a raw fork would name its parent, whose copy holds the same bytes. */
	pid_t self = dyl_proc.pid > 0 ? dyl_proc.pid : (pid_t)syscall(SYS_getpid);
	long got = syscall(SYS_process_vm_readv, (long)self, &local, 1UL, &remote, 1UL, 0UL);

	errno = saved;
	return got;
}

const char *dyl_args_string(const char *s, char *buf, unsigned room)
{
	static const char hex[] = "0123456789abcdef";
	char str[33];
	long got;
	unsigned n = 0, i;

	if (room < DYL_ARGS_STRING)
		return room ? (buf[0] = 0, buf) : buf;
	if (!s)
		return strcpy(buf, "(nil)");
	/* the 32 characters shown and one more, to know if the string goes on */
	if ((got = args_copy(str, s, sizeof(str))) <= 0) {
		snprintf(buf, room, "%p(unreadable)", (const void *)s);
		return buf;
	}
	buf[n++] = '"';
	for (i = 0; i < 32 && i < (unsigned long)got && str[i]; i++) {
		unsigned char c = (unsigned char)str[i];
		if (c == '"' || c == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)c;
		} else if (c < 32 || c >= 127) {
			buf[n++] = '\\';
			buf[n++] = 'x';
			buf[n++] = hex[c >> 4];
			buf[n++] = hex[c & 15];
		} else {
			buf[n++] = (char)c;
		}
	}
	buf[n++] = '"';
	/* cut at 32 characters, or at the end of what could be read: more may follow */
	if (i < (unsigned long)got ? i == 32 && str[i] : i == (unsigned long)got) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = 0;
	return buf;
}
