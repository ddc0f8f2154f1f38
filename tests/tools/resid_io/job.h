/* job.h - a call whose output std.regions cannot see: it goes through a pointer in the
 * struct the call takes (job.defs says what the call writes).  test_resid_io.py. */
#ifndef JOB_H
#define JOB_H
struct job {
	double *out;
	long n;
};
/* j->out[i] = v + i for i < j->n */
void job_run(struct job *j, double v);
/* the sum of j->out[0, j->n) */
double job_sum(const struct job *j);
#endif
