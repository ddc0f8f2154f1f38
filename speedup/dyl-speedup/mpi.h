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

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct models;

enum mj_kind { MJ_OTHER, MJ_COLL, MJ_ICOLL, MJ_SEND, MJ_ISEND, MJ_RECV, MJ_IRECV,
	       MJ_SENDRECV, MJ_WAIT, MJ_INIT };

/* A request a Wait completed ('KIND:REQ:COMM:PEER:TAG:BYTES:SEQ' in its args) */
struct mj_item {
	char kind;		/* 's', 'r' or 'c' */
	int64_t req, comm, peer, tag, bytes, seq;
	size_t posted;		/* 'r': the event that posted it (its Irecv, or itself) */
};

/* An event another one waits for: rank RANK's arrival at its event EV */
struct mj_dep {
	int rank;
	size_t ev;
};

/* One MPI call of a rank's main thread.  Times: ns of its trace's clock. */
struct mj_event {
	int64_t s, e;
	uint32_t func;
	enum mj_kind kind;
	int64_t comm, peer, tag, seq, req, in_bytes, out_bytes;
	struct mj_item *items;
	size_t nitems;
	double save;		/* what the kernels before it (since the last call) save */
	struct mj_dep *deps;
	size_t ndeps, deps_room;
	/* the replay's */
	double lag;		/* measured: its end after the latest of its waits */
	double parr, pexit;	/* predicted arrival and exit, on the job's axis */
	int reached;
	int bound;		/* index into deps of what decided its exit; -1 its own arrival */
};

struct mj_rank {
	const char *path;
	int rank, size;
	char host[64];
	int64_t pid, start_ns, total_ns, offset;	/* offset: its clock's 0 on the job's axis */
	struct mj_event *ev;
	size_t nev, room;
	double tail_save;	/* the kernels' saving after its last MPI call */
	uint64_t kernels;	/* kernel calls replaced */
	size_t k;		/* the replay's: its next event */
	double cur, pend;	/* ... its time now; its predicted end */
};

/* Reads the trace PATH into R (zeroed by the caller): 1 a rank's trace, 0 a trace
 * without '# mpi_rank=' (R empty), -1 after an error message. */
int mj_read(struct mj_rank *r, const char *path, struct models *ms);
void mj_rank_free(struct mj_rank *r);

/* The MPI section of dyl-speedup's report over the traces PATHS (N): when at least two
 * are ranks of one job, prints per rank T, T', the time in MPI, the job's T and T',
 * the imbalance and the critical path to OUT.  0 (printed or not an MPI job), -1 after
 * an error message. */
int mpi_job_report(FILE *out, const char *const *paths, int n, struct models *ms);

#endif
