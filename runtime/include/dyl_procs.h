/* dyl_procs.h - fork, vfork, clone, posix_spawn, the waits, and reads and writes on pipes,
 * interposed from each wrapper to record process events (runtime/procs/; the trace's '#'
 * process lines, doc/jobs.md).  The exec family is in dyl_process.h.
 *
 * Why here and not in libdylrt.so: as for the exec trampolines (dyl_process.h), only a
 * definition in the preloaded object itself comes before the C library's.  Forwarding:
 * to the next definition that is no dyliberator wrapper's (DYL_PROC_NEXT below).
 *
 * What the program sees is what the C library gives: every result and errno are
 * forwarded as they are.  A read or write on a descriptor that is no pipe costs a cached
 * table lookup (dyl_pipe_of); close, dup, dup2, dup3, pipe, pipe2, fclose, close_range and
 * closefrom tell the cache which descriptors changed.  The C library's own reads and
 * writes (stdio's buffers, fread, printf) call its internal functions, which no
 * preloaded object sees: only the program's direct calls are recorded.
 *
 * vfork returns twice on one stack: its child runs on the parent's stack until it execs
 * or exits, and clobbers any frame of ours.  The x86-64 trampoline below has none: it
 * keeps the return address in a per-thread slot, calls the C library's vfork, and in the
 * parent records the vfork when it resumes.  The child records nothing.
 *
 * The definitions are weak and exported; the generator never wraps these names itself
 * (generator/select.py RUNTIME_OWNED).  DYL_NO_PROCESS_HOOKS turns them off with the exec
 * trampolines.  Only shared objects (-fPIC, not -fPIE) get them.
 */
#ifndef DYL_PROCS_H
#define DYL_PROCS_H

#if defined(DYL_PROCESS_H) && !defined(DYL_NO_PROCESS_HOOKS) && !defined(__cplusplus) && \
	defined(__PIC__) && !defined(__PIE__)

#include <dlfcn.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef RTLD_DEFAULT
#define RTLD_DEFAULT ((void *)0)
#endif

#define DYL_PROC_HOOK __attribute__((visibility("default"), weak))
/* NAME's next definition: past the other dyliberator wrappers too where the thread hooks
 * are compiled in (dyl_threads.h's lookup: with several wrappers preloaded, an event is
 * recorded once, by the first) */
#if defined(DYL_THREADS_H) && !defined(DYL_NO_THREAD_HOOKS)
#define DYL_PROC_NEXT(name, type) \
	({ static void *dyl_cache_; (type)dyl_threads_find(#name, &dyl_cache_); })
#else
#define DYL_PROC_NEXT(name, type) \
	({ static void *dyl_cache_; (type)dyl_hook_next(#name, &dyl_cache_); })
#endif

/* std.flow:host_reads=on: dyl_hostio.h, later in this unit, defines it to 1 (a tentative
 * definition here) and leaves read, write, readv, writev and the spawns to these hooks,
 * which then lift the buffers and strings first, as its own would. */
#define DYL_PROCS_IO 1
static int dyl_procs_hostio;
DYL_API void dyl_hostread_io(const void *p, size_t n);
DYL_API void dyl_hostread_io_out(const void *p, size_t n);
DYL_API void dyl_hostread_path(const char *s);

static void dyl_procs_lift(const struct iovec *v, int n, int out)
{
	for (int i = 0; v && i < n; i++)
		(out ? dyl_hostread_io_out : dyl_hostread_io)(v[i].iov_base, v[i].iov_len);
}

static void dyl_procs_lift_strings(char *const *v)
{
	for (size_t i = 0; v && v[i]; i++)
		dyl_hostread_path(v[i]);
}

/* '# procs=recorded' when the program's fork is this wrapper's (dyl_procs_start) */
static __attribute__((constructor)) void dyl_procs_check(void)
{
	void *fn = dlsym(RTLD_DEFAULT, "fork");
	Dl_info a, b;

	dyl_procs_start(fn && dladdr(fn, &a) && dladdr((void *)dyl_procs_check, &b) &&
			a.dli_fbase == b.dli_fbase);
}

DYL_PROC_HOOK pid_t fork(void)
{
	pid_t (*next)(void) = DYL_PROC_NEXT(fork, pid_t (*)(void));
	uint64_t t = dyl_proc_begin();
	pid_t r = next();

	if (r != 0)	/* (the parent; the child records nothing of it) */
		dyl_proc_forked(t, r, 0);
	return r;
}

#if defined(__x86_64__)
/* vfork's per-thread slot: the caller's return address, the call's time, the C
 * library's vfork */
struct dyl_vfork_slot {
	void *ret;
	uint64_t t;
	void *real;
};
static __thread struct dyl_vfork_slot dyl_vfork_slot;

static __attribute__((used, noipa)) struct dyl_vfork_slot *dyl_vfork_enter(void)
{
	dyl_vfork_slot.real = DYL_PROC_NEXT(vfork, void *);
	dyl_vfork_slot.t = dyl_proc_begin();
	return &dyl_vfork_slot;
}

/* After the C library's vfork returned PID: the caller's return address.  In the child
 * (PID 0) nothing else: it shares this memory. */
static __attribute__((used, noipa)) void *dyl_vfork_after(long pid)
{
	void *ret = dyl_vfork_slot.ret;

	if (pid != 0)
		dyl_proc_forked(dyl_vfork_slot.t, pid, 0);
	return ret;
}

/* The stack is 16-byte aligned at each call; the return address is popped into the slot
 * before the C library's vfork and pushed back after it. */
__asm__(".pushsection .text\n"
	".weak vfork\n"
	".type vfork, @function\n"
	"vfork:\n"
#ifdef __CET__
	"	endbr64\n"
#endif
	"	sub $8, %rsp\n"
	"	call dyl_vfork_enter\n"
	"	add $8, %rsp\n"
	"	pop (%rax)\n"
	"	call *16(%rax)\n"
	"	sub $16, %rsp\n"
	"	mov %rax, (%rsp)\n"
	"	mov %rax, %rdi\n"
	"	call dyl_vfork_after\n"
	"	mov %rax, 8(%rsp)\n"
	"	mov (%rsp), %rax\n"
	"	add $8, %rsp\n"
	"	ret\n"
	".size vfork, .-vfork\n"
	".popsection\n");
#endif

/* clone as fork: without CLONE_VM or CLONE_THREAD (a thread, or posix_spawn's own child,
 * is no new process of its own memory).  Its child starts in dyl_clone_child, which turns
 * the runtime off there (no fork handler ran in it) before the program's FN. */
struct dyl_clone_start {
	int (*fn)(void *);
	void *arg;
};

static int dyl_clone_child(void *p)
{
	struct dyl_clone_start *s = p;	/* (the child's copy of the parent's frame) */

	dyl_proc_cloned();
	return s->fn(s->arg);
}

DYL_PROC_HOOK int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	int (*next)(int (*)(void *), void *, int, void *, ...) =
		DYL_PROC_NEXT(clone, int (*)(int (*)(void *), void *, int, void *, ...));
	va_list ap;

	va_start(ap, arg);
	void *ptid = va_arg(ap, void *), *tls = va_arg(ap, void *), *ctid = va_arg(ap, void *);
	va_end(ap);
	if (flags & (0x100 | 0x10000))	/* CLONE_VM, CLONE_THREAD */
		return next(fn, stack, flags, arg, ptid, tls, ctid);
	struct dyl_clone_start s = { fn, arg };
	uint64_t t = dyl_proc_begin();
	int r = next(dyl_clone_child, stack, flags, &s, ptid, tls, ctid);
	dyl_proc_forked(t, r, 0);
	return r;
}

/* posix_spawn and posix_spawnp: NEXT with PID the caller's or one of ours (it may be NULL) */
typedef int (*dyl_spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			    const posix_spawnattr_t *, char *const[], char *const[]);

static int dyl_spawn(dyl_spawn_fn next, pid_t *pid, const char *path,
		     const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
		     char *const argv[], char *const envp[])
{
	pid_t own = -1, *p = pid ? pid : &own;

	if (dyl_procs_hostio) {
		dyl_hostread_path(path);
		dyl_procs_lift_strings(argv);
		dyl_procs_lift_strings(envp);
	}
	uint64_t t = dyl_proc_begin();
	int r = next(p, path, fa, attr, argv, envp);

	dyl_proc_forked(t, r == 0 ? *p : -1, 1);
	return r;
}

DYL_PROC_HOOK int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *attr, char *const argv[],
			      char *const envp[])
{
	return dyl_spawn(DYL_PROC_NEXT(posix_spawn, dyl_spawn_fn), pid, path, fa, attr, argv, envp);
}

DYL_PROC_HOOK int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			       const posix_spawnattr_t *attr, char *const argv[],
			       char *const envp[])
{
	return dyl_spawn(DYL_PROC_NEXT(posix_spawnp, dyl_spawn_fn), pid, file, fa, attr, argv, envp);
}

/* --- waits: only those that may block (no WNOHANG) and returned a child --- */

DYL_PROC_HOOK pid_t wait(int *status)
{
	pid_t (*next)(int *) = DYL_PROC_NEXT(wait, pid_t (*)(int *));
	uint64_t t = dyl_proc_begin();
	pid_t r = next(status);

	dyl_proc_waited(t, r);
	return r;
}

DYL_PROC_HOOK pid_t waitpid(pid_t pid, int *status, int options)
{
	pid_t (*next)(pid_t, int *, int) = DYL_PROC_NEXT(waitpid, pid_t (*)(pid_t, int *, int));
	uint64_t t = options & WNOHANG ? 0 : dyl_proc_begin();
	pid_t r = next(pid, status, options);

	dyl_proc_waited(t, r);
	return r;
}

DYL_PROC_HOOK pid_t wait3(int *status, int options, struct rusage *ru)
{
	pid_t (*next)(int *, int, struct rusage *) =
		DYL_PROC_NEXT(wait3, pid_t (*)(int *, int, struct rusage *));
	uint64_t t = options & WNOHANG ? 0 : dyl_proc_begin();
	pid_t r = next(status, options, ru);

	dyl_proc_waited(t, r);
	return r;
}

DYL_PROC_HOOK pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	pid_t (*next)(pid_t, int *, int, struct rusage *) =
		DYL_PROC_NEXT(wait4, pid_t (*)(pid_t, int *, int, struct rusage *));
	uint64_t t = options & WNOHANG ? 0 : dyl_proc_begin();
	pid_t r = next(pid, status, options, ru);

	dyl_proc_waited(t, r);
	return r;
}

DYL_PROC_HOOK int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	int (*next)(idtype_t, id_t, siginfo_t *, int) =
		DYL_PROC_NEXT(waitid, int (*)(idtype_t, id_t, siginfo_t *, int));
	uint64_t t = options & WNOHANG ? 0 : dyl_proc_begin();
	int r = next(idtype, id, info, options);

	dyl_proc_waited(t, r == 0 && info ? info->si_pid : -1);
	return r;
}

/* --- pipes: the descriptor's kind is cached (dyl_pipe_of) --- */

#define DYL_PIPE_CALL(name, w, ftype, ...)                                   \
	({                                                                   \
		uint64_t ino_ = dyl_pipe_of(fd), t_;                         \
		__typeof__((ftype)0) next_ = DYL_PROC_NEXT(name, ftype);     \
		ssize_t r_;                                                  \
		if (!ino_)                                                   \
			return next_(__VA_ARGS__);                           \
		t_ = dyl_proc_begin();                                       \
		r_ = next_(__VA_ARGS__);                                     \
		dyl_pipe_done(t_, w, ino_, r_);                              \
		r_;                                                          \
	})

DYL_PROC_HOOK ssize_t read(int fd, void *buf, size_t n)
{
	if (dyl_procs_hostio)
		dyl_hostread_io(buf, n);
	return DYL_PIPE_CALL(read, 0, ssize_t (*)(int, void *, size_t), fd, buf, n);
}

DYL_PROC_HOOK ssize_t write(int fd, const void *buf, size_t n)
{
	if (dyl_procs_hostio)
		dyl_hostread_io_out(buf, n);
	return DYL_PIPE_CALL(write, 1, ssize_t (*)(int, const void *, size_t), fd, buf, n);
}

DYL_PROC_HOOK ssize_t readv(int fd, const struct iovec *iov, int n)
{
	if (dyl_procs_hostio)
		dyl_procs_lift(iov, n, 0);
	return DYL_PIPE_CALL(readv, 0, ssize_t (*)(int, const struct iovec *, int), fd, iov, n);
}

DYL_PROC_HOOK ssize_t writev(int fd, const struct iovec *iov, int n)
{
	if (dyl_procs_hostio)
		dyl_procs_lift(iov, n, 1);
	return DYL_PIPE_CALL(writev, 1, ssize_t (*)(int, const struct iovec *, int), fd, iov, n);
}

#undef DYL_PIPE_CALL

/* what changes the descriptors: the cache forgets them after the call */
DYL_PROC_HOOK int close(int fd)
{
	int (*next)(int) = DYL_PROC_NEXT(close, int (*)(int));
	int r = next(fd);

	dyl_pipe_forget(fd, fd);
	return r;
}

DYL_PROC_HOOK int dup(int fd)
{
	int (*next)(int) = DYL_PROC_NEXT(dup, int (*)(int));
	int r = next(fd);

	dyl_pipe_forget(r, r);
	return r;
}

DYL_PROC_HOOK int dup2(int fd, int to)
{
	int (*next)(int, int) = DYL_PROC_NEXT(dup2, int (*)(int, int));
	int r = next(fd, to);

	dyl_pipe_forget(to, to);
	return r;
}

DYL_PROC_HOOK int dup3(int fd, int to, int flags)
{
	int (*next)(int, int, int) = DYL_PROC_NEXT(dup3, int (*)(int, int, int));
	int r = next(fd, to, flags);

	dyl_pipe_forget(to, to);
	return r;
}

DYL_PROC_HOOK int pipe(int fds[2])
{
	int (*next)(int *) = DYL_PROC_NEXT(pipe, int (*)(int *));
	int r = next(fds);

	if (r == 0)
		dyl_pipe_forget(fds[0], fds[0]), dyl_pipe_forget(fds[1], fds[1]);
	return r;
}

DYL_PROC_HOOK int pipe2(int fds[2], int flags)
{
	int (*next)(int *, int) = DYL_PROC_NEXT(pipe2, int (*)(int *, int));
	int r = next(fds, flags);

	if (r == 0)
		dyl_pipe_forget(fds[0], fds[0]), dyl_pipe_forget(fds[1], fds[1]);
	return r;
}

DYL_PROC_HOOK int fclose(FILE *f)
{
	int (*next)(FILE *) = DYL_PROC_NEXT(fclose, int (*)(FILE *));
	int fd = f ? fileno(f) : -1;
	int r = next(f);

	dyl_pipe_forget(fd, fd);
	return r;
}

DYL_PROC_HOOK int close_range(unsigned lo, unsigned hi, int flags)
{
	int (*next)(unsigned, unsigned, int) =
		DYL_PROC_NEXT(close_range, int (*)(unsigned, unsigned, int));
	int r = next(lo, hi, flags);

	dyl_pipe_forget(lo > 0x7fffffffu ? -1 : (int)lo, hi > 0x7fffffffu ? 0x7fffffff : (int)hi);
	return r;
}

DYL_PROC_HOOK void closefrom(int lo)
{
	void (*next)(int) = DYL_PROC_NEXT(closefrom, void (*)(int));

	next(lo);
	dyl_pipe_forget(lo, 0x7fffffff);
}

#undef DYL_PROC_NEXT
#undef DYL_PROC_HOOK

#endif
#endif
