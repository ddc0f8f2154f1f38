/* hr.h - a tiny library for std.flow's host-read tests: a call writes a buffer, another
 * reads it */
#ifndef HR_H
#define HR_H
void hr_fill(double *out, long n, double v);
double hr_sum(const double *in, long n);
void hr_tick(int k);
/* a buffer the call reaches through a struct: not an argument's region (never lifted
 * before the call: the library's own fault) */
struct hr_vec {
	const double *p;
	long n;
};
double hr_sum_vec(const struct hr_vec *v);
/* reads N bytes of FD into OUT with a raw system call (no interposer can lift it): what
 * the kernel wrote, or -1 (EFAULT on a protected page) */
long hr_load(double *out, long n, int fd);
/* appends N doubles V, V + 1... at B->p + B->len and advances B->len: the output is
 * reached through the struct only (hr.defs names it, as zlib.defs does deflate's) */
struct hr_buf {
	double *p;
	long len;
};
void hr_append(struct hr_buf *b, long n, double v);
#endif
