/* mpi_jobs.c - MPI programs of known shape for std.mpi's tests and dyl-speedup's job
 * prediction (tests/tools/test_mpi_job.py).  Kernels are sleepk(us) (bench/threads):
 *   mpi_jobs barrier US   5 rounds: rank r sleeps (r + 1) * US, then MPI_Barrier
 *   mpi_jobs ring US      a token (4 ints) goes round the ring 3 times; each rank sleeps
 *                         US before passing it on (MPI_Send, MPI_Recv)
 *   mpi_jobs threads US   3 rounds: two threads sleep US and (r + 1) * US / 2 each, joined,
 *                         then MPI_Allreduce of one double
 *   mpi_jobs calls        one of each call std.mpi knows the shape of (exact columns) */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sleepk.h"

static int rank, size;

static void barrier(long us)
{
	for (int i = 0; i < 5; i++) {
		sleepk((rank + 1) * us);
		MPI_Barrier(MPI_COMM_WORLD);
	}
}

static void ring(long us)
{
	int token[4] = { 0 };
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;

	for (int lap = 0; lap < 3; lap++) {
		if (rank != 0 || lap > 0)
			MPI_Recv(token, 4, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		token[0]++;
		sleepk(us);
		MPI_Send(token, 4, MPI_INT, next, 7, MPI_COMM_WORLD);
	}
	if (rank == 0)
		MPI_Recv(token, 4, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void *worker(void *arg)
{
	sleepk((long)arg);
	return NULL;
}

static void threads(long us)
{
	for (int i = 0; i < 3; i++) {
		pthread_t t[2];
		double x = rank, sum;
		pthread_create(&t[0], NULL, worker, (void *)us);
		pthread_create(&t[1], NULL, worker, (void *)((rank + 1) * us / 2));
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
}

/* Each call's bytes are set apart by its counts (tests/tools/test_mpi_job.py) */
static void calls(void)
{
	double d[64] = { 0 }, r[256];
	int counts[4] = { 1, 2, 3, 4 }, displs[4] = { 0, 1, 3, 6 };
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	MPI_Request q[2];
	MPI_Comm half;

	MPI_Bcast(d, 3, MPI_DOUBLE, 1, MPI_COMM_WORLD);			/* 24 B */
	MPI_Reduce(d, r, 5, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);	/* 40 B */
	MPI_Allgather(d, 2, MPI_DOUBLE, r, 2, MPI_DOUBLE, MPI_COMM_WORLD);	/* 16, 16 n */
	MPI_Allgatherv(d, rank + 1, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE,
		       MPI_COMM_WORLD);						/* 80 out */
	MPI_Alltoall(d, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD);	/* 4 n */
	MPI_Irecv(r, 64, MPI_DOUBLE, prev, 3, MPI_COMM_WORLD, &q[0]);
	MPI_Isend(d, 6, MPI_DOUBLE, next, 3, MPI_COMM_WORLD, &q[1]);	/* 48 B */
	MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
	MPI_Sendrecv(d, 7, MPI_CHAR, next, 4, r, 7, MPI_CHAR, prev, 4, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);					/* 7 B */
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	MPI_Allreduce(d, r, 9, MPI_FLOAT, MPI_SUM, half);		/* 36 B */
	MPI_Ibarrier(half, &q[0]);
	MPI_Wait(&q[0], MPI_STATUS_IGNORE);
	MPI_Comm_free(&half);
	MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	long us = argc > 2 ? atol(argv[2]) : 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1 && !strcmp(argv[1], "barrier"))
		barrier(us);
	else if (argc > 1 && !strcmp(argv[1], "ring"))
		ring(us);
	else if (argc > 1 && !strcmp(argv[1], "threads"))
		threads(us);
	else
		calls();
	MPI_Finalize();
	return 0;
}
