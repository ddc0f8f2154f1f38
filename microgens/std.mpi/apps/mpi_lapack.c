/* mpi_lapack.c - a small real-ish MPI code: each rank solves ROUNDS systems of order N
 * (LAPACK's dgesv_, its own matrix), then the ranks sum their solutions' norms
 * (MPI_Allreduce).  Rank r's order is N + 64 r: an unbalanced load.
 *   mpi_lapack N ROUNDS
 *   mpi_lapack cost CALLS   CALLS x (MPI_Allreduce of one double, then MPI_Isend,
 *                           MPI_Irecv and MPI_Waitall of one int to itself): ns a round */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
	    const int *ldb, int *info);

static double solve(int n, int seed)
{
	double *a = malloc(sizeof(double) * (size_t)n * (size_t)n), *b = malloc(sizeof(double) * (size_t)n);
	int *ipiv = malloc(sizeof(int) * (size_t)n), one = 1, info = 0;
	double norm = 0;

	srand((unsigned)seed);
	for (long i = 0; i < (long)n * n; i++)
		a[i] = rand() / (double)RAND_MAX;
	for (int i = 0; i < n; i++)
		a[(long)i * n + i] += n, b[i] = 1;
	dgesv_(&n, &one, a, &n, ipiv, b, &n, &info);
	for (int i = 0; i < n; i++)
		norm += b[i] * b[i];
	free(a), free(b), free(ipiv);
	return info == 0 ? sqrt(norm) : -1;
}

static void cost(long calls, int rank)
{
	double x = 1, y, t0 = MPI_Wtime();
	int v = 1, w;
	MPI_Request q[2];

	for (long i = 0; i < calls; i++) {
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Irecv(&w, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &q[0]);
		MPI_Isend(&v, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &q[1]);
		MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
	}
	if (rank == 0)
		printf("%.1f ns a round of 4 calls\n", (MPI_Wtime() - t0) * 1e9 / (double)calls);
}

int main(int argc, char **argv)
{
	int rank, size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 2 && !strcmp(argv[1], "cost"))
		cost(atol(argv[2]), rank);
	else {
		int n = argc > 1 ? atoi(argv[1]) : 500, rounds = argc > 2 ? atoi(argv[2]) : 4;
		double mine = 0, all = 0;
		for (int r = 0; r < rounds; r++) {
			mine += solve(n + 64 * rank, rank * 100 + r);
			MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		}
		if (rank == 0)
			printf("sum of norms %.6f over %d ranks\n", all, size);
	}
	MPI_Finalize();
	return 0;
}
