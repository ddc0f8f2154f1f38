/* trace.c - the trace file: its name, its header and footer, and row formatting.
 *
 * Each process writes its own file.  The first process takes $DYL_TRACE (default
 * ./trace.csv) and holds an flock on it for its whole life; a process that finds the
 * file locked (a live process owns it) or written by its own pid before an exec
 * writes PATH.<pid> instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "internal.h"

static const char HEADER[] = "seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args";

/* Expands %p to the pid; returns 1 if PATH named the pid itself. */
static int expand_path(char *out, size_t room, const char *tmpl, pid_t pid)
{
	size_t o = 0;
	int has_pid = 0;

	for (const char *p = tmpl; *p && o + 24 < room; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			o += (size_t)snprintf(out + o, room - o, "%d", (int)pid);
			has_pid = 1;
			p++;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	return has_pid;
}

/* Was FD's trace written by this very pid (the image before an exec)? */
static int written_by_us(int fd)
{
	char head[512], want[32];
	ssize_t n = pread(fd, head, sizeof(head) - 1, 0);

	if (n <= 0)
		return 0;
	head[n] = '\0';
	snprintf(want, sizeof(want), "\n# pid=%d\n", (int)dyl_rt.pid);
	return strstr(head, want) != NULL;
}

static int open_locked(const char *path, int exclusive_name)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	if (!exclusive_name && (flock(fd, LOCK_EX | LOCK_NB) != 0 || written_by_us(fd))) {
		close(fd);
		errno = EBUSY;
		return -1;
	}
	if (exclusive_name)
		flock(fd, LOCK_EX | LOCK_NB);
	if (ftruncate(fd, 0) != 0 && errno != EINVAL) {
		close(fd);
		return -1;
	}
	return fd;
}

static void write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			dyl_warn_once("write", "cannot write the trace %s (%s); the program goes on untraced",
				      dyl_rt.path, n < 0 ? strerror(errno) : "short write");
			dyl_rt.disabled = 1;
			return;
		}
		data += n;
		len -= (size_t)n;
	}
}

static void write_header(void)
{
	char buf[8192];
	size_t o = 0;
	int fd;
	ssize_t n;

	o += (size_t)snprintf(buf + o, sizeof(buf) - o, "# dyliberator trace 1\n# pid=%d\n",
			      (int)dyl_rt.pid);
	/* the command line, NUL-separated in /proc */
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char cmd[2048];
		n = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
		if (n > 0) {
			for (ssize_t i = 0; i < n - 1; i++)
				if (cmd[i] == '\0' || cmd[i] == '\n')
					cmd[i] = ' ';
			cmd[n] = '\0';
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "# cmdline=%s\n", cmd);
		}
	}
	o += (size_t)snprintf(buf + o, sizeof(buf) - o, "# clock=monotonic\n%s", dyl_rt.notes);
	o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s", HEADER);
	for (unsigned i = 0; i < dyl_rt.ncolumns && o < sizeof(buf); i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, ",%s", dyl_rt.columns[i]);
	if (o < sizeof(buf) - 1)
		buf[o++] = '\n';
	write_all(dyl_rt.fd, buf, o);
}

/* Called with dyl_rt.io held. */
static void open_trace(void)
{
	const char *tmpl = getenv("DYL_TRACE");
	int has_pid;

	if (!tmpl || !*tmpl)
		tmpl = "trace.csv";
	has_pid = expand_path(dyl_rt.path, sizeof(dyl_rt.path), tmpl, dyl_rt.pid);
	dyl_rt.fd = open_locked(dyl_rt.path, has_pid);
	if (dyl_rt.fd < 0 && !has_pid && errno == EBUSY) {
		size_t l = strlen(dyl_rt.path);
		snprintf(dyl_rt.path + l, sizeof(dyl_rt.path) - l, ".%d", (int)dyl_rt.pid);
		dyl_rt.fd = open_locked(dyl_rt.path, 1);
	}
	if (dyl_rt.fd < 0) {
		dyl_warn_once("open", "cannot write the trace %s (%s); the program goes on untraced",
			      dyl_rt.path, strerror(errno));
		dyl_rt.disabled = 1;
		return;
	}
	dyl_rt.header_done = 1;
	write_header();
}

void dyl_trace_write(const char *data, size_t len)
{
	int saved = errno;

	pthread_mutex_lock(&dyl_rt.io);
	if (dyl_rt.fd < 0 && !dyl_rt.disabled)
		open_trace();
	if (!dyl_rt.disabled)
		write_all(dyl_rt.fd, data, len);
	pthread_mutex_unlock(&dyl_rt.io);
	errno = saved;
}

void dyl_trace_footer(void)
{
	char buf[64];
	int n;

	/* a process that made no recorded call still leaves a trace: its run time is data */
	if (dyl_rt.fd < 0 && !dyl_rt.disabled && !dyl_rt.off) {
		pthread_mutex_lock(&dyl_rt.io);
		if (dyl_rt.fd < 0 && !dyl_rt.disabled)
			open_trace();
		pthread_mutex_unlock(&dyl_rt.io);
	}
	if (dyl_rt.fd < 0 || dyl_rt.disabled)
		return;
	n = snprintf(buf, sizeof(buf), "# total_ns=%llu\n",
		     (unsigned long long)(dyl_now() - dyl_rt.t0));
	dyl_trace_write(buf, (size_t)n);
}

void dyl_trace_reset_after_fork(void)
{
	if (dyl_rt.fd >= 0)
		close(dyl_rt.fd);
	dyl_rt.fd = -1;
	dyl_rt.header_done = 0;
}

/* --- row formatting: no stdio on this path --- */

static char *put_u64(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_i64_opt(char *p, int64_t v)
{
	if (v == DYL_NONE)
		return p;
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* A CSV field, quoted when it holds a comma, quote or newline. */
static char *put_field(char *p, char *end, const char *s)
{
	int quote = strpbrk(s, ",\"\n\r") != NULL;

	if (quote)
		*p++ = '"';
	for (; *s && p < end - 3; s++) {
		if (*s == '"')
			*p++ = '"';
		*p++ = (*s == '\n' || *s == '\r') ? ' ' : *s;
	}
	if (quote)
		*p++ = '"';
	return p;
}

size_t dyl_format_row(char *out, size_t room, const struct dyl_call *c, uint64_t seq, pid_t tid)
{
	char *p = out, *end = out + room - 32 * (DYL_MAX_COUNTERS + DYL_MAX_COLUMNS);
	int64_t work = c->work;

	if (work == DYL_NONE && (c->in_bytes != DYL_NONE || c->out_bytes != DYL_NONE))
		work = (c->in_bytes == DYL_NONE ? 0 : c->in_bytes) +
		       (c->out_bytes == DYL_NONE ? 0 : c->out_bytes);
	p = put_u64(p, seq);
	*p++ = ',';
	p = put_u64(p, (uint64_t)tid);
	*p++ = ',';
	p = put_field(p, end, c->func->name);
	*p++ = ',';
	if (c->t_start) {
		p = put_u64(p, c->t_start > dyl_rt.t0 ? c->t_start - dyl_rt.t0 : 0);
		*p++ = ',';
		p = put_u64(p, c->t_end > c->t_start ? c->t_end - c->t_start : 0);
	} else {
		*p++ = ',';
	}
	*p++ = ',';
	p = put_i64_opt(p, c->in_bytes);
	*p++ = ',';
	p = put_i64_opt(p, c->out_bytes);
	*p++ = ',';
	p = put_i64_opt(p, work);
	*p++ = ',';
	p = put_u64(p, c->depth);
	*p++ = ',';
	if (c->args)
		p = put_field(p, end, c->args);
	for (unsigned i = 0; i < dyl_rt.ncolumns; i++) {
		*p++ = ',';
		if (i >= c->counter_base && i < c->counter_base + c->ncounters)
			p = put_i64_opt(p, c->counters[i - c->counter_base]);
	}
	*p++ = '\n';
	return (size_t)(p - out);
}
