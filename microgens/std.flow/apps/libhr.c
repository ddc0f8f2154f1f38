/* libhr.c - hr.h */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>
#include "hr.h"

void hr_fill(double *out, long n, double v)
{
	for (long i = 0; i < n; i++)
		out[i] = v + (double)i;
}

double hr_sum(const double *in, long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += in[i];
	return s;
}

void hr_tick(int k)
{
	(void)k;
}

double hr_sum_vec(const struct hr_vec *v)
{
	double s = 0;
	for (long i = 0; i < v->n; i++)
		s += v->p[i];
	return s;
}

long hr_load(double *out, long n, int fd)
{
	return syscall(SYS_read, fd, out, n);
}

void hr_append(struct hr_buf *b, long n, double v)
{
	for (long i = 0; i < n; i++)
		b->p[b->len + i] = v + (double)i;
	b->len += n;
}
