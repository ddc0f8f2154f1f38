/* dyl_hostio.h - std.flow's host reads (-g std.flow:host_reads=on): the libc functions
 * interposed from the wrapper so that pages the runtime protected (runtime/flow/
 * hostread.c) are lifted before the kernel is handed them, and sigaction and signal for
 * SIGSEGV, which the runtime's handler takes first.
 *
 * Why: the kernel does not fault on a protected page it reads or writes for a system
 * call: read(2), write(2) and the rest fail with EFAULT and no signal.  So each function
 * that passes a user buffer to the kernel lifts the buffer's protected pages first
 * (recording them as read by the program when it is the program that calls: depth 0).
 * fread and fwrite too: glibc's stdio calls its internal write or read on a large
 * buffer directly, past any interposer; and the fortified forms (__read_chk...).  The
 * other calls that hand the kernel a user buffer a library's output could be in (a
 * large heap block): preadv2 and the 64 forms, vmsplice, getrandom, getdents64, msgsnd
 * and msgrcv, the mq_ send and receive, the aio_ requests (lifted when made: the bytes
 * move later); and the paths of open, openat, creat, fopen (the kernel reads a path:
 * the pages up to its NUL are lifted), and the commands of system and popen and the
 * strings of posix_spawn (a child that shares this memory execs with them).  exec: the
 * runtime lifts every page when the image ends (hostread.c).  What is left (stat and
 * the other path calls, ioctl, io_uring, process_vm_*, a vfork child's exec): doc/flow.md.
 *
 * Why here and not in libdylrt.so: as for the thread hooks (dyl_threads.h), only a
 * definition in the preloaded object itself comes before the C library's.  The
 * definitions are weak and exported; the next definition is found with
 * dlsym(RTLD_NEXT), past other dyliberator wrappers (each lifts; lifting twice is
 * harmless).  Only shared objects (-fPIC, not -fPIE) get them.
 *
 * The runtime side (DYL_API, libdylrt.so):
 *   dyl_hostread_setup(): from the wrapper's constructor, after dyl_flow_setup;
 *   dyl_hostread_after(call): after each outermost call, its outputs protected;
 *   dyl_hostread_io(p, n): [p, p + n) about to be handed to the kernel;
 *   dyl_hostread_path(s): the string at s (a path, a command) likewise;
 *   dyl_hostread_io_out(p, n): the same, for bytes that leave the process (write,
 *   send...): inside a wrapped call they are also recorded as read (the library's I/O);
 *   dyl_hostread_sigaction / dyl_hostread_signal: SIGSEGV's disposition as the program
 *   sees it (dyl_hostread_signal returns SIG_ERR for a signal it does not keep); a
 *   handler's sa_mask never holds SIGSEGV;
 *   dyl_hostread_keeps_segv(): SIGSEGV must never be blocked (sigprocmask,
 *   pthread_sigmask take it out of the masks the program sets);
 *   dyl_hostread_mprotect(p, n, prot): the program's mprotect, done; its protection of
 *   heap pages is kept, so that a page the runtime lifts gets it back (a read-only
 *   page stays read-only, a guard stays PROT_NONE), and a fault it would have raised
 *   anyway goes to the program's handler.
 */
#ifndef DYL_HOSTIO_H
#define DYL_HOSTIO_H

#include <signal.h>
#include <stddef.h>
#include "dyl.h"

#ifdef __cplusplus
extern "C" {
#endif
DYL_API void dyl_hostread_setup(void);
DYL_API void dyl_hostread_after(const struct dyl_call *c);
DYL_API void dyl_hostread_io(const void *p, size_t n);
DYL_API void dyl_hostread_path(const char *s);	/* a string the kernel reads, to its NUL */
DYL_API void dyl_hostread_io_out(const void *p, size_t n);
DYL_API int dyl_hostread_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
DYL_API void (*dyl_hostread_signal(int sig, void (*h)(int)))(int);
DYL_API int dyl_hostread_keeps_segv(void);	/* 1: the runtime handles SIGSEGV */
DYL_API int dyl_hostread_mprotect(void *p, size_t n, int prot);
#ifdef __cplusplus
}
#endif

#if !defined(DYL_HOSTIO_DECLS_ONLY) && !defined(__cplusplus) && defined(__PIC__) && \
	!defined(__PIE__)

#include <aio.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <mqueue.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#ifndef RTLD_NEXT
#define RTLD_NEXT ((void *)-1l)
#endif

#define DYL_HOSTIO_HOOK __attribute__((visibility("default"), weak))

/* read, write, readv, writev and the spawns are dyl_procs.h's when it came first in this
 * unit (it records process events): they lift as these would, when this is 1 */
#ifdef DYL_PROCS_IO
static int dyl_procs_hostio = 1;
#endif

static void *dyl_hostio_lookup(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);
	void *(*next)(const char *) = (void *(*)(const char *))dlsym(RTLD_NEXT, "dyl_hostio_next");
	Dl_info a, b;

	if (fn && next && dladdr(fn, &a) && dladdr((void *)next, &b) && a.dli_fbase == b.dli_fbase)
		fn = next(name);
	return fn;
}

DYL_HOSTIO_HOOK void *dyl_hostio_next(const char *name)
{
	return dyl_hostio_lookup(name);
}

/* Every function this file defines, in one list: the generator reads it too (a wrapper
 * of the C library built with host_reads=on leaves these out: its wrapper would shadow
 * the interposer; generator/hostio.py).  Every next definition is looked up in the
 * wrapper's constructor, before the program has threads: a first lookup later would
 * take the dynamic linker's lock from inside the runtime (which writes its spool with
 * write(2) holding its own lock) while another thread, inside dlsym, frees through the
 * runtime and waits for that lock. */
#define DYL_HOSTIO_NAMES(X)                                                           \
	X(read) X(write) X(pread) X(pwrite) X(pread64) X(pwrite64) X(recv) X(send)    \
	X(recvfrom) X(sendto) X(fread) X(fwrite) X(fread_unlocked) X(fwrite_unlocked) \
	X(__read_chk) X(__pread_chk) X(__pread64_chk) X(__recv_chk) X(__recvfrom_chk) \
	X(__fread_chk) X(__fread_unlocked_chk) X(readv) X(writev) X(preadv)           \
	X(pwritev) X(recvmsg) X(sendmsg) X(recvmmsg) X(sendmmsg) X(preadv64)          \
	X(pwritev64) X(preadv2) X(pwritev2) X(preadv64v2) X(pwritev64v2) X(vmsplice)  \
	X(getrandom) X(getdents64) X(msgsnd) X(msgrcv) X(mq_send) X(mq_receive)       \
	X(mq_timedsend) X(mq_timedreceive) X(aio_read) X(aio_write) X(aio_read64)     \
	X(aio_write64) X(lio_listio) X(lio_listio64) X(open) X(open64) X(openat)      \
	X(openat64) X(__open_2) X(__open64_2) X(__openat_2) X(__openat64_2) X(creat)  \
	X(creat64) X(fopen) X(fopen64) X(system) X(popen) X(posix_spawn)              \
	X(posix_spawnp) X(sigaction) X(sigprocmask) X(mprotect)                       \
	X(pthread_sigmask) X(signal) X(bsd_signal) X(ssignal) X(sysv_signal)          \
	X(__sysv_signal) X(sigset)
#define DYL_HOSTIO_ENUM(name) DYL_HOSTIO_I_##name,
enum { DYL_HOSTIO_NAMES(DYL_HOSTIO_ENUM) DYL_HOSTIO_N };
#undef DYL_HOSTIO_ENUM
#define DYL_HOSTIO_STR(name) #name,
static const char *const dyl_hostio_names[] = { DYL_HOSTIO_NAMES(DYL_HOSTIO_STR) };
#undef DYL_HOSTIO_STR
static void *dyl_hostio_fn[DYL_HOSTIO_N];

static void *dyl_hostio_find(unsigned i)
{
	void *f = __atomic_load_n(&dyl_hostio_fn[i], __ATOMIC_ACQUIRE);
	if (!f) {
		f = dyl_hostio_lookup(dyl_hostio_names[i]);
		__atomic_store_n(&dyl_hostio_fn[i], f, __ATOMIC_RELEASE);
	}
	return f;
}

static __attribute__((constructor)) void dyl_hostio_resolve(void)
{
	for (unsigned i = 0; i < DYL_HOSTIO_N; i++)
		dyl_hostio_find(i);
}

#define DYL_HOSTIO_NEXT(name, type) ((type)dyl_hostio_find(DYL_HOSTIO_I_##name))

/* an interposer: BEFORE (the pages lifted, or the bytes recorded), then the next
 * definition of NAME */
#define DYL_HOSTIO_WRAP(ret, name, params, args, before)                             \
	DYL_HOSTIO_HOOK ret(name) params                                             \
	{                                                                             \
		ret(*next_) params = DYL_HOSTIO_NEXT(name, ret(*) params);            \
		before;                                                               \
		return next_ args;                                                    \
	}

static void dyl_hostio_iov(const struct iovec *iov, int n)
{
	for (int i = 0; iov && i < n; i++)
		dyl_hostread_io(iov[i].iov_base, iov[i].iov_len);
}

/* (bytes that leave the process: dyl_hostread_io_out) */
static void dyl_hostio_iov_out(const struct iovec *iov, int n)
{
	for (int i = 0; iov && i < n; i++)
		dyl_hostread_io_out(iov[i].iov_base, iov[i].iov_len);
}

/* one buffer whose bytes leave the process */
#define DYL_HOSTIO_OUT(ret, name, params, args, buf, len) \
	DYL_HOSTIO_WRAP(ret, name, params, args, dyl_hostread_io_out(buf, len))
#define DYL_HOSTIO_IOV_OUT(ret, name, params, args, iov, n) \
	DYL_HOSTIO_WRAP(ret, name, params, args, dyl_hostio_iov_out(iov, n))

/* one buffer: lifted, then the next definition */
#define DYL_HOSTIO_BUF(ret, name, params, args, buf, len) \
	DYL_HOSTIO_WRAP(ret, name, params, args, dyl_hostread_io(buf, len))
#ifndef DYL_PROCS_IO	/* (else dyl_procs.h's, which lift too) */
DYL_HOSTIO_BUF(ssize_t, read, (int fd, void *p, size_t n), (fd, p, n), p, n)
DYL_HOSTIO_OUT(ssize_t, write, (int fd, const void *p, size_t n), (fd, p, n), p, n)
#endif
DYL_HOSTIO_BUF(ssize_t, pread, (int fd, void *p, size_t n, off_t o), (fd, p, n, o), p, n)
DYL_HOSTIO_OUT(ssize_t, pwrite, (int fd, const void *p, size_t n, off_t o), (fd, p, n, o), p, n)
DYL_HOSTIO_BUF(ssize_t, pread64, (int fd, void *p, size_t n, off_t o), (fd, p, n, o), p, n)
DYL_HOSTIO_OUT(ssize_t, pwrite64, (int fd, const void *p, size_t n, off_t o), (fd, p, n, o), p, n)
DYL_HOSTIO_BUF(ssize_t, recv, (int fd, void *p, size_t n, int f), (fd, p, n, f), p, n)
DYL_HOSTIO_OUT(ssize_t, send, (int fd, const void *p, size_t n, int f), (fd, p, n, f), p, n)
DYL_HOSTIO_BUF(ssize_t, recvfrom, (int fd, void *p, size_t n, int f, struct sockaddr *a, socklen_t *l),
	       (fd, p, n, f, a, l), p, n)
DYL_HOSTIO_OUT(ssize_t, sendto, (int fd, const void *p, size_t n, int f, const struct sockaddr *a, socklen_t l),
	       (fd, p, n, f, a, l), p, n)
DYL_HOSTIO_BUF(size_t, fread, (void *p, size_t size, size_t n, FILE *f), (p, size, n, f), p, size * n)
DYL_HOSTIO_OUT(size_t, fwrite, (const void *p, size_t size, size_t n, FILE *f), (p, size, n, f), p, size * n)
DYL_HOSTIO_BUF(size_t, fread_unlocked, (void *p, size_t size, size_t n, FILE *f), (p, size, n, f), p, size * n)
DYL_HOSTIO_OUT(size_t, fwrite_unlocked, (const void *p, size_t size, size_t n, FILE *f), (p, size, n, f), p,
	       size * n)
/* the fortified forms (-D_FORTIFY_SOURCE) call the C library's internal read, past
 * read's interposer */
DYL_HOSTIO_BUF(ssize_t, __read_chk, (int fd, void *p, size_t n, size_t room), (fd, p, n, room), p, n)
DYL_HOSTIO_BUF(ssize_t, __pread_chk, (int fd, void *p, size_t n, off_t o, size_t room), (fd, p, n, o, room), p, n)
DYL_HOSTIO_BUF(ssize_t, __pread64_chk, (int fd, void *p, size_t n, off_t o, size_t room), (fd, p, n, o, room),
	       p, n)
DYL_HOSTIO_BUF(ssize_t, __recv_chk, (int fd, void *p, size_t n, size_t room, int f), (fd, p, n, room, f), p, n)
DYL_HOSTIO_BUF(ssize_t, __recvfrom_chk,
	       (int fd, void *p, size_t n, size_t room, int f, struct sockaddr *a, socklen_t *l),
	       (fd, p, n, room, f, a, l), p, n)
DYL_HOSTIO_BUF(size_t, __fread_chk, (void *p, size_t room, size_t size, size_t n, FILE *f), (p, room, size, n, f),
	       p, size * n)
DYL_HOSTIO_BUF(size_t, __fread_unlocked_chk, (void *p, size_t room, size_t size, size_t n, FILE *f),
	       (p, room, size, n, f), p, size * n)

/* several buffers */
#define DYL_HOSTIO_IOV(ret, name, params, args, iov, n) \
	DYL_HOSTIO_WRAP(ret, name, params, args, dyl_hostio_iov(iov, n))
#ifndef DYL_PROCS_IO	/* (else dyl_procs.h's, which lift too) */
DYL_HOSTIO_IOV(ssize_t, readv, (int fd, const struct iovec *v, int n), (fd, v, n), v, n)
DYL_HOSTIO_IOV_OUT(ssize_t, writev, (int fd, const struct iovec *v, int n), (fd, v, n), v, n)
#endif
DYL_HOSTIO_IOV(ssize_t, preadv, (int fd, const struct iovec *v, int n, off_t o), (fd, v, n, o), v, n)
DYL_HOSTIO_IOV_OUT(ssize_t, pwritev, (int fd, const struct iovec *v, int n, off_t o), (fd, v, n, o), v, n)
DYL_HOSTIO_IOV(ssize_t, recvmsg, (int fd, struct msghdr *m, int f), (fd, m, f), m ? m->msg_iov : NULL,
	       m ? (int)m->msg_iovlen : 0)
DYL_HOSTIO_IOV_OUT(ssize_t, sendmsg, (int fd, const struct msghdr *m, int f), (fd, m, f), m ? m->msg_iov : NULL,
	       m ? (int)m->msg_iovlen : 0)
DYL_HOSTIO_IOV(ssize_t, preadv64, (int fd, const struct iovec *v, int n, off64_t o), (fd, v, n, o), v, n)
DYL_HOSTIO_IOV_OUT(ssize_t, pwritev64, (int fd, const struct iovec *v, int n, off64_t o), (fd, v, n, o), v, n)
DYL_HOSTIO_IOV(ssize_t, preadv2, (int fd, const struct iovec *v, int n, off_t o, int f), (fd, v, n, o, f), v, n)
DYL_HOSTIO_IOV_OUT(ssize_t, pwritev2, (int fd, const struct iovec *v, int n, off_t o, int f), (fd, v, n, o, f), v,
	       n)
DYL_HOSTIO_IOV(ssize_t, preadv64v2, (int fd, const struct iovec *v, int n, off64_t o, int f), (fd, v, n, o, f),
	       v, n)
DYL_HOSTIO_IOV_OUT(ssize_t, pwritev64v2, (int fd, const struct iovec *v, int n, off64_t o, int f),
	       (fd, v, n, o, f), v, n)
/* (the pipe may hold the pages themselves: they are lifted for good, not just now) */
DYL_HOSTIO_IOV(ssize_t, vmsplice, (int fd, const struct iovec *v, size_t n, unsigned int f), (fd, v, n, f), v,
	       (int)n)
#undef DYL_HOSTIO_IOV
#undef DYL_HOSTIO_IOV_OUT

/* one buffer more: the kernel fills or reads it */
DYL_HOSTIO_BUF(ssize_t, getrandom, (void *p, size_t n, unsigned int f), (p, n, f), p, n)
DYL_HOSTIO_BUF(ssize_t, getdents64, (int fd, void *p, size_t n), (fd, p, n), p, n)
/* (a message: its long type, then N bytes) */
DYL_HOSTIO_OUT(int, msgsnd, (int id, const void *p, size_t n, int f), (id, p, n, f), p, n + sizeof(long))
DYL_HOSTIO_BUF(ssize_t, msgrcv, (int id, void *p, size_t n, long t, int f), (id, p, n, t, f), p,
	       n + sizeof(long))
DYL_HOSTIO_OUT(int, mq_send, (mqd_t q, const char *p, size_t n, unsigned int pr), (q, p, n, pr), p, n)
DYL_HOSTIO_BUF(ssize_t, mq_receive, (mqd_t q, char *p, size_t n, unsigned int *pr), (q, p, n, pr), p, n)
DYL_HOSTIO_OUT(int, mq_timedsend, (mqd_t q, const char *p, size_t n, unsigned int pr, const struct timespec *t),
	       (q, p, n, pr, t), p, n)
DYL_HOSTIO_BUF(ssize_t, mq_timedreceive,
	       (mqd_t q, char *__restrict p, size_t n, unsigned int *__restrict pr,
		const struct timespec *__restrict t),
	       (q, p, n, pr, t), p, n)
/* an asynchronous request's buffer, lifted when it is made (the program's: it hands it
 * over; the library's output it may hold was read, or is overwritten) */
DYL_HOSTIO_BUF(int, aio_read, (struct aiocb *a), (a), a ? (const void *)a->aio_buf : NULL, a ? a->aio_nbytes : 0)
DYL_HOSTIO_OUT(int, aio_write, (struct aiocb *a), (a), a ? (const void *)a->aio_buf : NULL, a ? a->aio_nbytes : 0)
DYL_HOSTIO_BUF(int, aio_read64, (struct aiocb64 *a), (a), a ? (const void *)a->aio_buf : NULL,
	       a ? a->aio_nbytes : 0)
DYL_HOSTIO_OUT(int, aio_write64, (struct aiocb64 *a), (a), a ? (const void *)a->aio_buf : NULL,
	       a ? a->aio_nbytes : 0)
#undef DYL_HOSTIO_BUF
#undef DYL_HOSTIO_OUT

#define DYL_HOSTIO_LIO(name, cb)                                                      \
	DYL_HOSTIO_HOOK int(name)(int mode, cb *const list[], int n, struct sigevent *sig) \
	{                                                                             \
		int (*next_)(int, cb *const[], int, struct sigevent *) =              \
			DYL_HOSTIO_NEXT(name, int (*)(int, cb *const[], int, struct sigevent *)); \
		for (int i = 0; list && i < n; i++)                                   \
			if (list[i])                                                  \
				dyl_hostread_io((const void *)list[i]->aio_buf, list[i]->aio_nbytes); \
		return next_(mode, list, n, sig);                                     \
	}
DYL_HOSTIO_LIO(lio_listio, struct aiocb)
DYL_HOSTIO_LIO(lio_listio64, struct aiocb64)
#undef DYL_HOSTIO_LIO

/* open's mode: there only when it creates a file */
#define DYL_HOSTIO_MODE(flags, last)                                                  \
	mode_t mode_ = 0;                                                             \
	if ((flags) & (O_CREAT | O_TMPFILE)) {                                        \
		va_list ap_;                                                          \
		va_start(ap_, last);                                                  \
		mode_ = (mode_t)va_arg(ap_, int);                                     \
		va_end(ap_);                                                          \
	}
#define DYL_HOSTIO_OPEN(name)                                                         \
	DYL_HOSTIO_HOOK int(name)(const char *path, int flags, ...)                   \
	{                                                                             \
		int (*next_)(const char *, int, ...) = DYL_HOSTIO_NEXT(name, int (*)(const char *, int, ...)); \
		DYL_HOSTIO_MODE(flags, flags)                                         \
		dyl_hostread_path(path);                                                \
		return next_(path, flags, mode_);                                     \
	}
#define DYL_HOSTIO_OPENAT(name)                                                       \
	DYL_HOSTIO_HOOK int(name)(int dir, const char *path, int flags, ...)          \
	{                                                                             \
		int (*next_)(int, const char *, int, ...) =                           \
			DYL_HOSTIO_NEXT(name, int (*)(int, const char *, int, ...));  \
		DYL_HOSTIO_MODE(flags, flags)                                         \
		dyl_hostread_path(path);                                                \
		return next_(dir, path, flags, mode_);                                \
	}
DYL_HOSTIO_OPEN(open)
DYL_HOSTIO_OPEN(open64)
DYL_HOSTIO_OPENAT(openat)
DYL_HOSTIO_OPENAT(openat64)
#undef DYL_HOSTIO_OPEN
#undef DYL_HOSTIO_OPENAT
#undef DYL_HOSTIO_MODE

/* the rest that take a path: no variadic mode */
#define DYL_HOSTIO_PATH(ret, name, params, args, path) \
	DYL_HOSTIO_WRAP(ret, name, params, args, dyl_hostread_path(path))
/* (the fortified opens: -D_FORTIFY_SOURCE, when the flags need no mode) */
DYL_HOSTIO_PATH(int, __open_2, (const char *p, int f), (p, f), p)
DYL_HOSTIO_PATH(int, __open64_2, (const char *p, int f), (p, f), p)
DYL_HOSTIO_PATH(int, __openat_2, (int d, const char *p, int f), (d, p, f), p)
DYL_HOSTIO_PATH(int, __openat64_2, (int d, const char *p, int f), (d, p, f), p)
DYL_HOSTIO_PATH(int, creat, (const char *p, mode_t m), (p, m), p)
DYL_HOSTIO_PATH(int, creat64, (const char *p, mode_t m), (p, m), p)
DYL_HOSTIO_PATH(FILE *, fopen, (const char *__restrict p, const char *__restrict m), (p, m), p)
DYL_HOSTIO_PATH(FILE *, fopen64, (const char *__restrict p, const char *__restrict m), (p, m), p)
/* a command for the shell: its child execs with it, sharing this memory */
DYL_HOSTIO_PATH(int, system, (const char *c), (c), c)
DYL_HOSTIO_PATH(FILE *, popen, (const char *c, const char *m), (c, m), c)
#undef DYL_HOSTIO_PATH

/* posix_spawn's child shares this memory until it execs (the kernel reads the path,
 * the arguments and the environment from it): their pages lifted first */
static void dyl_hostio_strings(char *const *v)
{
	for (size_t i = 0; v && v[i]; i++)	/* (a touch of the array itself faults: the
						 * runtime's handler lifts its page) */
		dyl_hostread_path(v[i]);
}

#define DYL_HOSTIO_SPAWN(name)                                                        \
	DYL_HOSTIO_HOOK int(name)(pid_t *__restrict pid, const char *__restrict path,  \
				  const posix_spawn_file_actions_t *fa,                 \
				  const posix_spawnattr_t *__restrict at, char *const argv[], \
				  char *const envp[])                                   \
	{                                                                             \
		int (*next_)(pid_t *, const char *, const posix_spawn_file_actions_t *, \
			     const posix_spawnattr_t *, char *const[], char *const[]) = \
			DYL_HOSTIO_NEXT(name, int (*)(pid_t *, const char *,          \
						      const posix_spawn_file_actions_t *, \
						      const posix_spawnattr_t *, char *const[], \
						      char *const[]));                  \
		dyl_hostread_path(path);                                                \
		dyl_hostio_strings(argv);                                             \
		dyl_hostio_strings(envp);                                             \
		return next_(pid, path, fa, at, argv, envp);                          \
	}
#ifndef DYL_PROCS_IO	/* (else dyl_procs.h's, which lift too) */
DYL_HOSTIO_SPAWN(posix_spawn)
DYL_HOSTIO_SPAWN(posix_spawnp)
#endif
#undef DYL_HOSTIO_SPAWN

static void dyl_hostio_mmsg(struct mmsghdr *v, unsigned n)
{
	for (unsigned i = 0; v && i < n; i++)
		dyl_hostio_iov(v[i].msg_hdr.msg_iov, (int)v[i].msg_hdr.msg_iovlen);
}

DYL_HOSTIO_HOOK int(recvmmsg)(int fd, struct mmsghdr *v, unsigned n, int f, struct timespec *t)
{
	int (*next)(int, struct mmsghdr *, unsigned, int, struct timespec *) =
		DYL_HOSTIO_NEXT(recvmmsg, int (*)(int, struct mmsghdr *, unsigned, int, struct timespec *));
	dyl_hostio_mmsg(v, n);
	return next(fd, v, n, f, t);
}

DYL_HOSTIO_HOOK int(sendmmsg)(int fd, struct mmsghdr *v, unsigned n, int f)
{
	int (*next)(int, struct mmsghdr *, unsigned, int) =
		DYL_HOSTIO_NEXT(sendmmsg, int (*)(int, struct mmsghdr *, unsigned, int));
	dyl_hostio_mmsg(v, n);
	return next(fd, v, n, f);
}

/* the program's own protections: the runtime keeps them (dyl_hostread_mprotect) */
DYL_HOSTIO_HOOK int mprotect(void *p, size_t n, int prot)
{
	return dyl_hostread_mprotect(p, n, prot);
}

/* SIGSEGV as the program sees it: kept by the runtime, whose handler passes it the
 * faults that are not the runtime's */
DYL_HOSTIO_HOOK int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return dyl_hostread_sigaction(sig, act, old);
}

/* A fault raised while SIGSEGV is blocked kills the process (the kernel puts the
 * default back): the program blocking every signal in a thread must not block it, or
 * its first touch of a protected page would be its last.  SIGSEGV is taken out of the
 * masks it sets (the old mask it is told is the kernel's). */
static const sigset_t *dyl_hostio_unblocked(int how, const sigset_t *set, sigset_t *copy)
{
	if (!set || how == SIG_UNBLOCK || !sigismember(set, SIGSEGV) || !dyl_hostread_keeps_segv())
		return set;
	*copy = *set;
	sigdelset(copy, SIGSEGV);
	return copy;
}

DYL_HOSTIO_HOOK int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int (*next)(int, const sigset_t *, sigset_t *) =
		DYL_HOSTIO_NEXT(sigprocmask, int (*)(int, const sigset_t *, sigset_t *));
	sigset_t copy;
	return next(how, dyl_hostio_unblocked(how, set, &copy), old);
}

DYL_HOSTIO_HOOK int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	int (*next)(int, const sigset_t *, sigset_t *) =
		DYL_HOSTIO_NEXT(pthread_sigmask, int (*)(int, const sigset_t *, sigset_t *));
	sigset_t copy;
	return next(how, dyl_hostio_unblocked(how, set, &copy), old);
}

/* signal, and its other names in the C library (each reached by its own name) */
#define DYL_HOSTIO_SIGNAL(name)                                                       \
	DYL_HOSTIO_HOOK void (*name(int sig, void (*h)(int)))(int)                    \
	{                                                                             \
		void (*(*next_)(int, void (*)(int)))(int) =                           \
			DYL_HOSTIO_NEXT(name, void (*(*)(int, void (*)(int)))(int));  \
		void (*r)(int) = dyl_hostread_signal(sig, h);                         \
		return r == SIG_ERR ? next_(sig, h) : r;                              \
	}
DYL_HOSTIO_SIGNAL(signal)
DYL_HOSTIO_SIGNAL(bsd_signal)
DYL_HOSTIO_SIGNAL(ssignal)
#undef DYL_HOSTIO_SIGNAL

/* SysV's signal: the handler is reset after one signal, not blocked while it runs, and
 * system calls it interrupts are not restarted */
#define DYL_HOSTIO_SYSV(name)                                                         \
	DYL_HOSTIO_HOOK void (*name(int sig, void (*h)(int)))(int)                    \
	{                                                                             \
		void (*(*next_)(int, void (*)(int)))(int) =                           \
			DYL_HOSTIO_NEXT(name, void (*(*)(int, void (*)(int)))(int));  \
		struct sigaction sa_, old_;                                           \
		if (sig != SIGSEGV || !dyl_hostread_keeps_segv())                     \
			return next_(sig, h);                                         \
		memset(&sa_, 0, sizeof(sa_));                                         \
		sa_.sa_handler = h;                                                   \
		sa_.sa_flags = SA_RESETHAND | SA_NODEFER;                             \
		return dyl_hostread_sigaction(sig, &sa_, &old_) ? SIG_ERR : old_.sa_handler; \
	}
DYL_HOSTIO_SYSV(sysv_signal)
DYL_HOSTIO_SYSV(__sysv_signal)
#undef DYL_HOSTIO_SYSV

/* SysV's sigset: SIG_HOLD would block SIGSEGV, which is never blocked: the disposition
 * is only told */
DYL_HOSTIO_HOOK void (*sigset(int sig, void (*h)(int)))(int)
{
	void (*(*next)(int, void (*)(int)))(int) =
		DYL_HOSTIO_NEXT(sigset, void (*(*)(int, void (*)(int)))(int));
	struct sigaction sa, old;
	if (sig != SIGSEGV || !dyl_hostread_keeps_segv())
		return next(sig, h);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	if (dyl_hostread_sigaction(sig, h == SIG_HOLD ? NULL : &sa, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

#undef DYL_HOSTIO_WRAP
#undef DYL_HOSTIO_NEXT
#undef DYL_HOSTIO_HOOK

#endif
#endif
