/* mpi.h - an MPI job's prediction across its ranks (doc/jobs-mpi.md, microgens/std.mpi).
 *
 * Each rank's trace (std.mpi: '# mpi_rank=', columns mpi_comm ... mpi_req) is read
 * into its MPI calls on the main thread (events) and its kernels.  The ranks are put on
 * one time axis: by '# start_ns=' when they ran on one host, else by MPI_Init's exit.
 * Each rank is then replayed: the time between two MPI calls loses what the model saves
 * on its kernels (the thread that saves most, when several call kernels); an MPI call
 * that waits for other ranks ends at the latest predicted instant it waits for plus
 * what it measured after it (a collective: every member's arrival; a receive, or the
 * Wait of an Irecv: its matching send's start).  Everything else keeps its time.
 * This is a simulation of its own over the ranks' rows (the engine of xdeps.h was not
 * on main when it was written): it predicts the main thread of each rank. */
#ifndef SPEEDUP_MPI_H
#define SPEEDUP_MPI_H

#include <stdio.h>
#include "mpi_ranks.h"

struct models;
struct trace_src;
struct xdeps;

/* The MPI section of dyl-speedup's report over the traces PATHS (N): when at least two
 * are ranks of one job, prints per rank T, T', the time in MPI, the job's T and T',
 * the imbalance and the critical path to OUT.  0 (printed or not an MPI job), -1 after
 * an error message. */
int mpi_job_report(FILE *out, const char *const *paths, int n, struct models *ms);

/* The MPI calls' waits as the run's dependencies (xdeps.h: jobs.c's source of MPI's
 * waits): each collective's member on every other member's arrival, each receive on its
 * send's start, with the lag measured after the latest of them; on several hosts, the
 * ranks' offsets aligned at MPI_Init's exit.  0, or -1 after a message. */
int mpi_xdeps(struct xdeps *x, const struct trace_src *const *src, int n);

#endif
