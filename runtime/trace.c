/* trace.c - the trace file: its name, its header and footer, and row formatting.
 *
 * Each process writes its own file.  The first process to record a call takes
 * $DYL_TRACE (default ./trace.csv) then, and holds an flock on it for its whole life.
 * A program that loads a wrapped library at start takes it in the wrapper's constructor
 * instead (dyl_out_claim(1)), where its end would take it anyway: its first call
 * then costs what a later one does.
 * Any other process writes PATH.<pid>: a forked child always, and a process that finds
 * PATH locked (a live process owns it; a finished trace locked by another claimant is
 * waited for: wait_lock) or written by a process that had not ended when this one
 * started (an image of itself before an exec, a process running beside it in a
 * pipeline, a program it ran: overlapped); its header says why ('# declined=').  Only a
 * trace whose writer ended (its footer is there,
 * with '# end_ns=', or the file's mtime for a footer without it) before this process
 * started is replaced (by a new file renamed over it: replace_file); a trace without
 * footer (its writer was killed: the spool beside it holds its rows for dyl-trace) is
 * kept.  With %p in $DYL_TRACE the pid is in the name already.  In the rare case that the pid's own name was written by an earlier
 * image (a forked child that recorded calls, then exec'd), the new image adds .1, .2,
 * ...  A process that recorded no call writes its empty trace at exit to PATH if PATH
 * may be replaced and came from the same program (argv[0]: its previous run), else
 * nowhere: shells and /usr/bin/time in front of the program, and the other commands of
 * a pipeline, neither take PATH from it nor litter.
 *
 * Safety (the trace holds argument values; the runtime may run as root in a folder
 * others can write): a trace is never written through a symlink (O_NOFOLLOW), never
 * into a file another user owns or one with other links, nor into a FIFO, socket or
 * block device (the open never waits: O_NONBLOCK), and is created 0600.  Such a name
 * is refused with one line on stderr, and the process records nothing.  The
 * program may close the runtime's descriptor and open a file of its own under its
 * number: every write-out checks the descriptor first (dyl_fd_check) and opens the
 * trace again by its name.
 *
 * The header is written with the first rows (or the footer), so that wrappers'
 * constructors can still add columns and notes after the name is claimed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "dyl_csv.h"
#include "internal.h"

static const char HEADER[] = DYL_CSV_COLUMNS;

/* The host's name, with any '/' as '_' (it becomes part of a file name); "-" if unknown. */
static void host_name(char *out, size_t room)
{
	if (gethostname(out, room) != 0 || !out[0])
		snprintf(out, room, "-");
	out[room - 1] = '\0';
	for (char *p = out; *p; p++)
		if (*p == '/')
			*p = '_';
}

/* Expands %p to the pid, %r to the MPI rank (dyl_env_rank; '-' when none) and %h to the host name (doc/jobs.md);
 * returns 1 if PATH named the pid itself. */
static int expand_path(char *out, size_t room, const char *tmpl, pid_t pid)
{
	size_t o = 0;
	int has_pid = 0;
	char word[256];

	for (const char *p = tmpl; *p && o + 24 < room; p++) {
		if (p[0] == '%' && (p[1] == 'p' || p[1] == 'r' || p[1] == 'h')) {
			if (p[1] == 'p')
				snprintf(word, sizeof(word), "%d", (int)pid), has_pid = 1;
			else if (p[1] == 'r')
				snprintf(word, sizeof(word), "%s", dyl_env_rank() ? dyl_env_rank() : "-");
			else
				host_name(word, sizeof(word));
			o += (size_t)snprintf(out + o, room - o, "%s", word);
			if (o >= room)
				o = room - 1;
			p++;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	return has_pid;
}

/* The process's start time in clock ticks since boot (field 22 of /proc/self/stat):
 * with the pid, it tells this process from an earlier one that had the same pid. */
static unsigned long long proc_start_ticks(void)
{
	char buf[1024];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');	/* the command name may hold spaces */
	if (!p)
		return 0;
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

int dyl_open_safe(const char *path, int flags)
{
	struct stat st;
	/* the system's own links to this process's descriptors (DYL_TRACE=/dev/stderr):
	 * nobody else can plant them */
	int own = !strncmp(path, "/dev/std", 8) || !strncmp(path, "/dev/fd/", 8) ||
		  !strncmp(path, "/proc/self/fd/", 14);
	/* O_NONBLOCK: a FIFO planted at PATH would hang the open until someone reads it
	 * (ENXIO now, when nobody does); cleared below once the file is known */
	int fd = open(path, flags | (own ? 0 : O_NOFOLLOW) | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
		      0600);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	/* a regular file with no name left: another file took its name between our open
	 * and this check (another claimant renamed its new trace over it): ESTALE, not a
	 * refusal, so that the caller looks again */
	if (S_ISREG(st.st_mode) && st.st_nlink == 0) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	/* a FIFO, socket or block device by a name in the file system: no trace file
	 * (another user's FIFO in /tmp, a disk as root); ENXIO, as a FIFO nobody reads.
	 * A pipe reached through our own descriptor (/dev/stdout) is the user's choice. */
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !(own && !S_ISBLK(st.st_mode))) {
		close(fd);
		errno = ENXIO;
		return -1;
	}
	/* a regular file: ours, and no other name for it (a hard link planted in /tmp to a
	 * file of ours elsewhere); a device such as /dev/null: the open's permission check
	 * is enough; our own pipe: ours */
	if (S_ISREG(st.st_mode) ? st.st_uid != geteuid() || st.st_nlink != 1
				: !S_ISCHR(st.st_mode) && st.st_uid != geteuid()) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	/* an existing file we write is made private, as a new one is (it may hold
	 * arguments): a spool or .flow left 0666 */
	if (S_ISREG(st.st_mode) && (flags & O_CREAT) && (st.st_mode & 077) &&
	    fchmod(fd, st.st_mode & 0700) != 0) {
		close(fd);
		return -1;
	}
	/* writes block as the program's would (a pipe that fills waits for its reader) */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

const char *dyl_refused(const char *path, int err)
{
	struct stat st;

	/* (ENXIO: dyl_open_safe's answer for what is no regular file, the kernel's for a
	 * FIFO nobody reads) */
	if (err == ENXIO)
		return "no regular file (a FIFO, a socket or a block device)";
	/* (the kernel's protected_symlinks gives EACCES for a planted link in a sticky
	 * folder before O_NOFOLLOW's ELOOP: the name itself says what it is) */
	const char *why = NULL;
	if (err == ELOOP || (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)))
		why = "a symbolic link";
	else if (err == EPERM || (err == EACCES && lstat(path, &st) == 0 && st.st_uid != geteuid()))
		why = "not a file of this user's alone (another owner, or another link)";
	/* the caller's message names the open's error, not lstat's (a folder this user may
	 * not write was said to be "No such file or directory") */
	errno = err;
	return why;
}

int dyl_fd_is(int fd, dev_t dev, ino_t ino)
{
	struct stat st;

	/* (the system call: a wrapper of libc's fstat must not see the runtime's checks; on
	 * x86-64 the kernel's struct stat is libc's) */
	return fd >= 0 && syscall(SYS_fstat, fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

int dyl_fd_check(int *fd, dev_t dev, ino_t ino, const char *path, int flags)
{
	struct stat st;
	int nfd;

	if (dyl_fd_is(__atomic_load_n(fd, __ATOMIC_ACQUIRE), dev, ino))
		return 0;
	if (!path) {
		errno = EBADF;
		return -1;
	}
	nfd = dyl_open_safe(path, flags);
	if (nfd < 0)
		return -1;
	if (fstat(nfd, &st) != 0 || st.st_dev != dev || st.st_ino != ino) {
		close(nfd);
		errno = ESTALE;	/* another file took the name: not ours to write */
		return -1;
	}
	/* the old number is the program's now: never closed by us */
	__atomic_store_n(fd, dyl_fd_high(nfd), __ATOMIC_RELEASE);
	return 0;
}

void dyl_fd_close(int *fd, dev_t dev, ino_t ino)
{
	if (dyl_fd_is(*fd, dev, ino))
		close(*fd);
	__atomic_store_n(fd, -1, __ATOMIC_RELEASE);
}

/* The trace's descriptor is ours (or ours again: opened by name, at its end, locked
 * again: the program's close gave the lock back).  0, or -1 with errno. */
static int trace_fd_ok(void)
{
	if (dyl_fd_is(dyl_out.fd, dyl_out.fd_dev, dyl_out.fd_ino))
		return 0;
	if (dyl_fd_check(&dyl_out.fd, dyl_out.fd_dev, dyl_out.fd_ino, dyl_out.path, O_WRONLY) != 0)
		return -1;
	lseek(dyl_out.fd, 0, SEEK_END);
	flock(dyl_out.fd, LOCK_EX | LOCK_NB);
	return 0;
}

/* When this process started, CLOCK_REALTIME ns, as a span [lo, hi): this image's start
 * (lo = hi), unless an earlier image ran a while (100 ms) before the exec (a subshell that
 * slept, then exec'd the program): then the process's start, known from its clock ticks
 * since boot (TICKS: 10 ms, CLOCK_BOOTTIME's count) only to the tick it fell in.
 * (Taking the process's start for every process would make `app; app` decide on a tick
 * where the image's own start is exact.  A fork and exec slower than 100 ms, under heavy
 * load, is decided by the tick: see overlapped.) */
struct span {
	uint64_t lo, hi;
};

static struct span process_start(unsigned long long ticks)
{
	struct timespec b;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t now = dyl_realtime_ns(), start = dyl_proc.start_ns;
	struct span s = { start, start };

	if (ticks && hz > 0 && clock_gettime(CLOCK_BOOTTIME, &b) == 0) {
		uint64_t boot = (uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec;
		uint64_t at = (uint64_t)ticks * (1000000000u / (uint64_t)hz);
		uint64_t tick = 1000000000u / (uint64_t)hz;
		if (at <= boot && now - (boot - at) + 10 * tick < start) {
			s.lo = now - (boot - at);
			s.hi = s.lo + tick;
		}
	}
	return s;
}

/* Did the writer of a finished trace, which started at OLD_START (0: not said) and ended
 * at END, run while this process did (F: its start)?  Then the trace is kept.  Sure when
 * it ended before F's tick (no) or after it (yes).  A writer that ended within that tick
 * overlapped if it started there too or later (a pipeline's other end, started with this
 * process, or a program this process ran), not if it started before (the previous run
 * of `app; app`, whose successor's exec was slow: it was declined, and the previous
 * run's trace stayed at PATH). */
static int overlapped(struct span f, uint64_t old_start, uint64_t end)
{
	if (end < f.lo)
		return 0;
	if (end >= f.hi)
		return 1;
	return !old_start || old_start >= f.lo;
}

/* The last occurrence of KEY ("\n# key=") in BUF, its value; 0 when none. */
static int last_value(const char *buf, const char *key, unsigned long long *v)
{
	const char *p = NULL;

	for (const char *q = buf; (q = strstr(q, key)); q++)
		p = q;
	if (!p)
		return 0;
	*v = strtoull(p + strlen(key), NULL, 10);
	return 1;
}

/* The program's arguments into BUF, NUL-separated as in /proc/self/cmdline and cut at
 * ROOM - 1 bytes, NUL-terminated; their length (0: unknown).  From the arguments glibc
 * gave the constructor (the same memory /proc reads), else from /proc. */
static size_t program_args(char *buf, size_t room)
{
	size_t n = 0;

	if (dyl_proc.argv) {
		for (int i = 0; i < dyl_proc.argc && dyl_proc.argv[i] && n < room - 1; i++) {
			size_t l = strnlen(dyl_proc.argv[i], room - 1 - n);
			memcpy(buf + n, dyl_proc.argv[i], l);
			n += l;
			if (n < room - 1)
				buf[n++] = '\0';
		}
	} else {
		int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
		ssize_t r = fd >= 0 ? read(fd, buf, room - 1) : -1;
		if (fd >= 0)
			close(fd);
		n = r > 0 ? (size_t)r : 0;
	}
	buf[n] = '\0';
	return n;
}

/* Did the trace whose first lines are HEAD come from the program this process runs
 * (the same argv[0])?  A process that recorded no call replaces only such a trace: the
 * previous run of the program, not the other end of its pipeline (a wrapped `sleep` or
 * `cat` that started after it ended). */
static int same_program(const char *head)
{
	char me[512];
	const char *p = strstr(head, DYL_KEY_NL(DYL_KEY_CMDLINE));

	if (!p || program_args(me, sizeof(me)) == 0)
		return 0;
	size_t len = strlen(me);	/* argv[0] ends at its NUL */
	p += DYL_KEY_LEN(DYL_KEY_NL(DYL_KEY_CMDLINE));
	return !strncmp(p, me, len) && (p[len] == ' ' || p[len] == '\n');
}

/* Does FD (SIZE bytes) end with a trace's footer?  Its last lines into TAIL (ROOM). */
static int finished(int fd, off_t size, char *tail, size_t room)
{
	unsigned long long v;
	off_t at = size > (off_t)room - 1 ? size - (off_t)room + 1 : 0;
	ssize_t n = pread(fd, tail, room - 1, at);

	if (n <= 0)
		return 0;
	tail[n] = '\0';
	return last_value(tail, DYL_KEY_NL(DYL_KEY_TOTAL_NS), &v);
}

/* May this process replace FD's trace (its lock is free)?  Only when its writer ended
 * before this process started: a writer that ended later overlapped it (a pipeline's
 * other end, the shell that ran it, an image of this process before its exec), and one
 * that left no footer was killed (dyl-trace reads its spool).  EMPTY: this process
 * recorded no call (see same_program).  Why not, in WHY (ROOM bytes). */
static int replaceable(int fd, int empty, char *why, size_t room)
{
	char head[512], tail[1024];
	unsigned long long v, end, old_start = 0;
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return 1;	/* a device, or nothing written */
	n = pread(fd, head, sizeof(head) - 1, 0);
	if (n <= 0)
		return 1;	/* write-only permission: no check possible */
	head[n] = '\0';
	if (strncmp(head, DYL_TRACE_MAGIC, DYL_KEY_LEN(DYL_TRACE_MAGIC)) != 0)
		return 1;	/* not a trace */
	/* this very process: same pid, same start (exec keeps both) */
	if (last_value(head, DYL_KEY_NL(DYL_KEY_PID), &v) && v == (unsigned long long)dyl_proc.pid &&
	    (!dyl_out.start_ticks ||
	     (last_value(head, DYL_KEY_NL(DYL_KEY_PID_START), &v) && v == dyl_out.start_ticks))) {
		snprintf(why, room, "this process's own, before its exec");
		return 0;
	}
	if (!finished(fd, st.st_size, tail, sizeof(tail))) {
		/* killed, or still running where flock is not kept */
		snprintf(why, room, "no footer: its writer was killed, or runs on");
		return 0;
	}
	if (empty && !same_program(head)) {
		snprintf(why, room, "another program's, and this process recorded no call");
		return 0;
	}
	if (!last_value(tail, DYL_KEY_NL(DYL_KEY_END_NS), &end))
		end = (unsigned long long)st.st_mtim.tv_sec * 1000000000ull +
		      (unsigned long long)st.st_mtim.tv_nsec;
	last_value(head, DYL_KEY_NL(DYL_KEY_START_NS), &old_start);
	struct span f = process_start(dyl_out.start_ticks);
	if (!overlapped(f, old_start, end))
		return 1;
	snprintf(why, room, "its writer ran from %llu to %llu ns, this process since %llu%s",
		 old_start, end, (unsigned long long)f.lo, f.hi > f.lo ? " (its fork's tick)" : "");
	return 0;
}

/* Is FD still the file named PATH?  (Another process may have replaced it since FD was
 * opened: see replace_file.) */
static int still_named(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* The old trace a new one was renamed over, still open: its last close frees its blocks
 * (0.1 to 8 ms here), which waits for the trace's end (dyl_out_end); an old trace
 * over REPLACED_KEPT_MAX bytes is closed at once. */
#define REPLACED_KEPT_MAX (64ll << 20)
static struct {
	int fd;
	dev_t dev;
	ino_t ino;
} replaced = { -1, 0, 0 };

/* FD, locked, is PATH's old trace, to be replaced: a new empty file, locked, is renamed
 * over it (a reader of the old trace still reads it whole), and FD kept in 'replaced'.
 * Emptying the old file in place (ftruncate) would wait for its pages' write-back, which
 * ext4 starts when a file emptied by truncation is closed, as the previous run's was:
 * milliseconds to tens of them, at the first recorded call.  Returns the new file's
 * descriptor, or -1 (a folder this user may not write: then the old file is emptied in
 * place). */
static int replace_file(int fd, const char *path)
{
	struct stat st;

	char tmp[sizeof(dyl_out.path) + 32];
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path) + 1 : 0;

	/* PATH is the file's own name, not the system's link to a descriptor (/dev/stdout,
	 * /proc/self/fd/N): a rename would replace the link */
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%.*s.%s.%d.dylnew", dir, path, path + dir,
			     (int)getpid()) >= sizeof(tmp))
		return -1;
	int nfd = dyl_open_safe(tmp, O_RDWR | O_CREAT | O_EXCL);
	if (nfd < 0)
		return -1;
	nfd = dyl_fd_high(nfd);
	/* locked before it takes the name: nobody else can claim it in between */
	if ((flock(nfd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) || rename(tmp, path) != 0) {
		unlink(tmp);
		close(nfd);
		return -1;
	}
	/* the old file, unnamed now, and its lock: closed at the end, unless it is big
	 * (its space is freed now then: a run must not fill the disk that the old trace's
	 * truncation used to free at this point) */
	if (replaced.fd < 0 && fstat(fd, &st) == 0 && st.st_size <= REPLACED_KEPT_MAX) {
		replaced.fd = fd;
		replaced.dev = st.st_dev;
		replaced.ino = st.st_ino;
	} else {
		close(fd);
	}
	return nfd;
}

/* FD's lock is held through another open of it.  A finished trace is held only for a
 * moment: by another claimant deciding on it (below), or by its writer as it exits.
 * Such a lock is waited for, up to CLAIM_WAIT_NS: giving up at once took PATH.<pid>
 * while the holder might decline the trace in its turn, and with every claimant gone
 * the previous run's trace stayed at PATH.  A trace without footer (a live writer's, or
 * a claimant's new empty file) is not waited for.  1: FD is locked now. */
#define CLAIM_WAIT_NS (500 * 1000000ull)
static int wait_lock(int fd)
{
	char tail[1024];
	struct stat st;
	uint64_t t0 = dyl_monotonic_ns();

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    !finished(fd, st.st_size, tail, sizeof(tail)))
		return 0;
	do {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 1;
	} while (errno == EWOULDBLOCK && dyl_monotonic_ns() - t0 < CLAIM_WAIT_NS);
	return 0;
}

/* Opens PATH for this process: -1 with errno EBUSY when another live process holds it
 * or its writer overlapped this process (or PATH changed hands three times while we
 * looked), and why in WHY (ROOM bytes); ELOOP, EPERM, ENXIO: refused (dyl_open_safe). */
static int open_claim(const char *path, int empty, char *why, size_t room)
{
	struct stat st;
	int fd = -1;

	/* (a few tries: a file replaced by another claimant between our open and our lock is
	 * that claimant's old trace, no longer PATH) */
	for (int tries = 0; fd < 0 && tries < 3; tries++) {
		/* read-write: replaceable() reads the trace back */
		fd = dyl_open_safe(path, O_RDWR | O_CREAT);
		if (fd < 0 && errno == EACCES)	/* write-only permission: no check possible */
			fd = dyl_open_safe(path, O_WRONLY | O_CREAT);
		if (fd < 0 && errno == ESTALE) {
			errno = EBUSY;	/* renamed over since our open: look again */
			continue;
		}
		if (fd < 0)
			return -1;
		fd = dyl_fd_high(fd);	/* (the lock below belongs to the open file, not the number) */
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			if (errno == EWOULDBLOCK && !wait_lock(fd)) {
				close(fd);
				snprintf(why, room, "held by a process that runs");
				errno = EBUSY;
				return -1;
			}
			/* (else a file system without flock: go on unlocked) */
		}
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !still_named(fd, path)) {
			close(fd);
			fd = -1;
			snprintf(why, room, "taken by another process as this one looked");
			errno = EBUSY;
		}
	}
	if (fd < 0)
		return -1;
	if (!replaceable(fd, empty, why, room)) {
		close(fd);
		errno = EBUSY;
		return -1;
	}
	/* a trace left by a finished process is replaced (not a device, e.g. /dev/null) */
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		int nfd = replace_file(fd, path);
		if (nfd >= 0)
			return nfd;
	}
	if (ftruncate(fd, 0) != 0 && errno != EINVAL) {
		close(fd);
		return -1;
	}
	return fd;
}

static int at_line_start = 1;	/* the trace's last byte written is a newline */
/* Why this process did not take PATH itself ("NAME: why"), for its header; "": it did. */
static char declined[sizeof(dyl_out.path) + 160];

/* A write of the trace or the spool failed with ERR (a full disk: ENOSPC, or EFBIG past
 * RLIMIT_FSIZE): the trace says so in a '# error=' line where it still takes one (dyl-trace
 * then says why the rows end), after the one warning on stderr.  dyl_out.io held. */
void dyl_trace_error(int err, const char *what)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "%s" DYL_KEY_LINE(DYL_KEY_ERROR) "%s (%s)\n",
			 at_line_start ? "" : "\n",
			 err == ENOSPC || err == EFBIG || err == EDQUOT ? DYL_ERROR_DISK_FULL
									: "write failed",
			 what);

	if (dyl_out.fd < 0 || trace_fd_ok() != 0)
		return;
	/* (a line cut short by the failed write is ended first) */
	if (write(dyl_out.fd, line, (size_t)n) == n)
		at_line_start = 1;
}

static void write_all(int fd, const char *data, size_t len)
{
	if (trace_fd_ok() != 0) {
		dyl_warn_once("write", "cannot write the trace %s: the program closed its descriptor "
			      "and the file cannot be opened again (%s); the program goes on untraced",
			      dyl_out.path, strerror(errno));
		DYL_DISABLE();
		return;
	}
	fd = dyl_out.fd;
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : ENOSPC;
			if ((err == ENOSPC || err == EFBIG || err == EDQUOT) && dyl_spool.fd >= 0 &&
			    !dyl_spool.memfd)
				dyl_warn_once("write", "the disk is full: cannot write the trace %s (%s); "
					      "its rows stay in the spool %s, the program goes on untraced",
					      dyl_out.path, strerror(err), dyl_spool.path);
			else
				dyl_warn_once("write", "cannot write the trace %s (%s); the program goes "
					      "on untraced", dyl_out.path, strerror(err));
			DYL_DISABLE();
			dyl_trace_error(err, strerror(err));
			return;
		}
		at_line_start = data[n - 1] == '\n';
		data += n;
		len -= (size_t)n;
	}
}

/* The header: '#' lines and the column line, '\n'-terminated.  dyl_meta.lock held. */
size_t dyl_trace_header_text(char *buf, size_t room)
{
	size_t o = 0;
	ssize_t n;

	o += (size_t)snprintf(buf + o, room - o, DYL_TRACE_MAGIC " " DYL_TRACE_VERSION "\n"
			      DYL_KEY_LINE(DYL_KEY_PID) "%d\n",
			      (int)dyl_proc.pid);
	if (dyl_out.start_ticks)
		o += (size_t)snprintf(buf + o, room - o, DYL_KEY_LINE(DYL_KEY_PID_START) "%llu\n",
				      dyl_out.start_ticks);
	o += (size_t)snprintf(buf + o, room - o, DYL_KEY_LINE(DYL_KEY_START_NS) "%llu\n"
			      DYL_KEY_LINE(DYL_KEY_PPID) "%d\n",
			      (unsigned long long)dyl_proc.start_ns, (int)dyl_proc.ppid);
	if (dyl_proc.exec_of)
		o += (size_t)snprintf(buf + o, room - o, DYL_KEY_LINE(DYL_KEY_EXEC_OF) "1\n");
	/* the command line (program_args): made once, the same line in the spool's copy of
	 * the header and the trace's */
	static char cmd[2048];
	static ssize_t cmd_len = -1;	/* -1: not read yet */
	if (cmd_len < 0) {
		n = (ssize_t)program_args(cmd, sizeof(cmd));
		for (ssize_t i = 0; i < n - 1; i++)
			if (cmd[i] == '\0' || cmd[i] == '\n')
				cmd[i] = ' ';
		cmd_len = n;
	}
	if (cmd_len > 0)
		o += (size_t)snprintf(buf + o, room - o, DYL_KEY_LINE(DYL_KEY_CMDLINE) "%s\n", cmd);
	if (declined[0] && o < room)
		o += (size_t)snprintf(buf + o, room - o, DYL_KEY_LINE(DYL_KEY_DECLINED) "%s\n",
				      declined);
	/* the clock's own cost is reported, never subtracted */
	if (o < room)
		o += (size_t)snprintf(buf + o, room - o, DYL_KEY_LINE(DYL_KEY_CLOCK) "%s\n"
				      DYL_KEY_LINE(DYL_KEY_CLOCK_COST_NS) "%llu\n%s",
				      dyl_clock_name(), (unsigned long long)dyl_clock_cost_ns(),
				      dyl_meta.notes);
	if (o >= room)
		o = room - 1;
	o += (size_t)snprintf(buf + o, room - o, "%s", HEADER);
	for (unsigned i = 0; i < dyl_meta.ncolumns && o < room; i++)
		o += (size_t)snprintf(buf + o, room - o, ",%s", dyl_meta.columns[i]);
	if (o >= room - 1)
		o = room - 2;
	buf[o++] = '\n';
	return o;
}

/* The header into the trace, and into BUF (ROOM bytes) for the spool's copy: its
 * length.  Called with dyl_out.io held, the file open. */
size_t dyl_trace_header(char *buf, size_t room)
{
	pthread_mutex_lock(&dyl_meta.lock);	/* notes and columns are fixed from now on */
	dyl_out.header_done = 1;
	size_t o = dyl_trace_header_text(buf, room);
	pthread_mutex_unlock(&dyl_meta.lock);
	write_all(dyl_out.fd, buf, o);
	return o;
}

/* FD is the trace: its file is remembered (dyl_fd_check) and created for its owner. */
static void set_fd(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0) {
		dyl_out.fd_dev = st.st_dev;
		dyl_out.fd_ino = st.st_ino;
		if (S_ISREG(st.st_mode) && (st.st_mode & 077))
			fchmod(fd, 0600);	/* an older trace replaced: it may hold arguments */
	}
	DYL_SET_FD(fd);
}

/* Chooses the name and claims it (see the top of the file).  Called with dyl_out.io
 * held; sets dyl_out.fd, or dyl_out.disabled with one warning.  ONLY_PATH: take PATH
 * itself or nothing, silently (a process that recorded no call, at its end).  The
 * caller opens the spool next (output.c). */
void dyl_trace_open(int only_path)
{
	char base[sizeof(dyl_out.path) - 32], busy[160] = "";
	int has_pid, fd = -1;

	if (!dyl_out.start_ticks)
		dyl_out.start_ticks = proc_start_ticks();
	declined[0] = '\0';
	has_pid = expand_path(base, sizeof(base), dyl_out.tmpl, dyl_proc.pid);
	if (!has_pid && !dyl_proc.forked) {
		snprintf(dyl_out.path, sizeof(dyl_out.path), "%s", base);
		fd = open_claim(dyl_out.path, only_path, busy, sizeof(busy));
		/* why this trace is not at PATH, in its header ('# declined=') */
		if (fd < 0 && errno == EBUSY && busy[0]) {
			const char *name = strrchr(base, '/');
			snprintf(declined, sizeof(declined), "%s: %s", name ? name + 1 : base, busy);
			errno = EBUSY;
		}
	} else {
		errno = EBUSY;
	}
	if (only_path) {
		if (fd >= 0)
			dyl_out.header_done = 0, set_fd(fd);
		return;
	}
	for (int k = 0; fd < 0 && errno == EBUSY && k < 100; k++) {
		size_t l = (size_t)snprintf(dyl_out.path, sizeof(dyl_out.path), "%s", base);
		if (!has_pid)
			l += (size_t)snprintf(dyl_out.path + l, sizeof(dyl_out.path) - l, ".%d",
					      (int)dyl_proc.pid);
		if (k > 0)
			snprintf(dyl_out.path + l, sizeof(dyl_out.path) - l, ".%d", k);
		fd = open_claim(dyl_out.path, 0, busy, sizeof(busy));
	}
	const char *why = fd < 0 ? dyl_refused(dyl_out.path, errno) : NULL;
	if (why) {
		dyl_warn_once("open", "refusing to write the trace %s: it is %s; nothing is recorded",
			      dyl_out.path, why);
		DYL_DISABLE();
		return;
	}
	if (fd < 0) {
		dyl_warn_once("open", "cannot write the trace %s (%s); the program goes on untraced",
			      dyl_out.path, strerror(errno));
		DYL_DISABLE();
		return;
	}
	dyl_out.header_done = 0;
	set_fd(fd);	/* a thread that sees the fd sees the rest */
}

void dyl_trace_setup(void)
{
	const char *tmpl = dyl_env(DYL_ENV_TRACE);
	size_t l = 0;

	if (!tmpl || !*tmpl)
		tmpl = "trace.csv";
	if (tmpl[0] != '/' && getcwd(dyl_out.tmpl, sizeof(dyl_out.tmpl) - 2)) {
		l = strlen(dyl_out.tmpl);
		if (l > 1)
			dyl_out.tmpl[l++] = '/';
		else
			l = 1;	/* "/" */
	}
	snprintf(dyl_out.tmpl + l, sizeof(dyl_out.tmpl) - l, "%s", tmpl);
}

void dyl_trace_put(const char *data, size_t len)
{
	if (!DYL_DISABLED())
		write_all(dyl_out.fd, data, len);
}

/* The '# rows_in_spool=NAME' line into LINE (sizeof(dyl_spool.path) + 32 bytes), after
 * a line break when NEWLINE: where the tools find the rows left in the spool.  Its length. */
static int rows_in_spool_line(char *line, size_t room, int newline)
{
	const char *base = strrchr(dyl_spool.path, '/');

	return snprintf(line, room, "%s" DYL_KEY_LINE(DYL_KEY_ROWS_IN_SPOOL) "%s\n",
			newline ? "\n" : "", base ? base + 1 : dyl_spool.path);
}

/* Recording stopped on a failed write (a full disk), the spool kept: the trace, where
 * it still takes them, names it and ends with FOOT (as with DYL_CONVERT=later), after
 * its '# error=' line.  No warning: the failure gave it.  dyl_out.io held. */
void dyl_trace_footer_after_failure(const char *foot, size_t flen)
{
	char line[sizeof(dyl_spool.path) + 32];

	if (dyl_out.fd >= 0 && trace_fd_ok() == 0) {
		int l = rows_in_spool_line(line, sizeof(line), !at_line_start);
		if (write(dyl_out.fd, line, (size_t)l) == l)
			at_line_start = 1, (void)!write(dyl_out.fd, foot, flen);
	}
}

/* The footer's lines into BUF: the process's times, and what tracing cost it. */
int dyl_trace_footer_text(char *buf, size_t room)
{
	/* cpu_ns: the process's CPU time, start-up before our constructor included; the T
	 * of a trace whose t_ns are thread CPU times (std.time clock=thread), for which the
	 * wall-clock total_ns would count time the process spent waiting. */
	/* end_ns: when this process stopped writing (CLOCK_REALTIME, as start_ns): a later
	 * process replaces the trace only if it started after that (open_claim) */
	int n = snprintf(buf, room, DYL_KEY_LINE(DYL_KEY_END_NS) "%llu\n"
			 DYL_KEY_LINE(DYL_KEY_TOTAL_NS) "%llu\n"
			 DYL_KEY_LINE(DYL_KEY_STARTUP_NS) "%llu\n"
			 DYL_KEY_LINE(DYL_KEY_CPU_NS) "%llu\n",
			 (unsigned long long)dyl_realtime_ns(),
			 (unsigned long long)(dyl_monotonic_ns() - dyl_proc.t0_ns),
			 (unsigned long long)dyl_proc.startup_ns, (unsigned long long)dyl_cpu_ns());
	/* overhead_ns: what tracing cost the process up to total_ns (dyl_cost_ns), which
	 * dyl-speedup takes out of T; the conversion that follows comes after total_ns */
	uint64_t timed, outside, cost = dyl_cost_ns(&timed, &outside);
	if (timed || cost)
		n += snprintf(buf + n, room - (size_t)n,
			      DYL_KEY_LINE(DYL_KEY_OVERHEAD_NS) "%llu\n"
			      DYL_KEY_LINE(DYL_KEY_OVERHEAD_CALLS_TIMED) "%llu\n"
			      DYL_KEY_LINE(DYL_KEY_OVERHEAD_OUTSIDE_NS) "%llu\n",
			      (unsigned long long)cost, (unsigned long long)timed,
			      (unsigned long long)outside);
	if (dyl_hooks.footer_lines && (size_t)n < room)
		n += dyl_hooks.footer_lines(buf + n, room - (size_t)n);
	return n;
}

/* The footer FOOT (LEN bytes) after the rows, the output locked.  IN_SPOOL: the rows
 * were left in the spool (DYL_CONVERT=later): the trace says where they are, and the
 * tools read them there. */
void dyl_trace_footer(const char *buf, int n, int in_spool)
{
	if (in_spool) {
		char line[sizeof(dyl_spool.path) + 32];
		dyl_trace_put(line, (size_t)rows_in_spool_line(line, sizeof(line), 0));
	}
	dyl_trace_put(buf, (size_t)n);
}

/* The image's end: the descriptor of a trace it replaced goes (if still ours). */
void dyl_trace_end(void)
{
	dyl_fd_close(&replaced.fd, replaced.dev, replaced.ino);
}

/* A claimed trace that got no header (nothing recorded) is given back: its name goes,
 * while it is still our file's, and so does its lock.  dyl_out.io held. */
void dyl_trace_drop(void)
{
	if (dyl_fd_is(dyl_out.fd, dyl_out.fd_dev, dyl_out.fd_ino))
		unlink(dyl_out.path);	/* (still ours: the name was not taken over) */
	dyl_fd_close(&dyl_out.fd, dyl_out.fd_dev, dyl_out.fd_ino);	/* and the lock */
}

void dyl_trace_reset_after_fork(void)
{
	/* the parent's lock stays with the parent's descriptor */
	dyl_fd_close(&dyl_out.fd, dyl_out.fd_dev, dyl_out.fd_ino);
	dyl_fd_close(&replaced.fd, replaced.dev, replaced.ino);	/* (the parent's to free) */
	dyl_out.header_done = 0;	/* the child's own header; notes and columns stay */
	dyl_out.start_ticks = 0;
}
