/* dgemm_threads.c - issue 22's program: `dgemm_threads THREADS CALLS N` starts THREADS
 * threads that each call dgemm_ CALLS times on N x N matrices of their own, at once, and
 * joins them.  Linked to libblas.so.3: LD_LIBRARY_PATH picks the implementation. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
	    const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
	    const double *beta, double *c, const int *ldc);

static int calls, n;

static void *work(void *arg)
{
	size_t nn = (size_t)n * (size_t)n;
	double *a = malloc(nn * sizeof(double)), *b = malloc(nn * sizeof(double));
	double *c = calloc(nn, sizeof(double));
	double one = 1, zero = 0;

	if (!a || !b || !c)
		exit(3);
	for (size_t i = 0; i < nn; i++)
		a[i] = (double)(i % 7) + (double)(long)arg, b[i] = (double)(i % 5);
	for (int i = 0; i < calls; i++)
		dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
	free(a);
	free(b);
	free(c);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int threads = argc == 4 ? atoi(argv[1]) : 0;

	calls = argc == 4 ? atoi(argv[2]) : 0;
	n = argc == 4 ? atoi(argv[3]) : 0;
	if (threads < 1 || threads > 64 || calls < 1 || n < 1) {
		fprintf(stderr, "usage: dgemm_threads THREADS CALLS N\n");
		return 2;
	}
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, work, (void *)i) != 0)
			return 3;
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
