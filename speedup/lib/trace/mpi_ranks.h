/* mpi_ranks.h - an MPI job's ranks as std.mpi traced them (microgens/std.mpi/README.md):
 * each rank's MPI calls on its main thread (events), what its kernels save between them
 * (with a model), and the messages between ranks, sends matched with receives.
 * dyl-speedup predicts the job from them (speedup/dyl-speedup/mpi.h), dyl-flow draws
 * the messages (--messages). */
#ifndef SPEEDUP_MPI_RANKS_H
#define SPEEDUP_MPI_RANKS_H

#include <stddef.h>
#include <stdint.h>

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
 * without '# mpi_rank=' (R empty), -1 after an error message.  MS: the models the
 * kernels' savings come from; NULL: none (the events alone). */
int mj_read(struct mj_rank *r, const char *path, struct models *ms);
void mj_rank_free(struct mj_rank *r);

/* A receive matched with its send: rank RECV's event RECV_EV (where the receive
 * completed: a Recv, a Sendrecv, a Wait) got BYTES from rank SEND's event SEND_EV
 * (indices into the ranks).  0, or -1 to stop. */
typedef int (*mj_msg_fn)(void *ctx, int recv, size_t recv_ev, int send, size_t send_ev,
			 int64_t bytes);
/* Matches the N ranks R's receives with their sends: the n-th receive of a source,
 * destination, communicator and tag (by posting: MPI's non-overtaking rule) with the
 * n-th send of the same; FN for each pair.  The pairs matched, or -1 (out of memory,
 * message printed, or FN's -1). */
long mj_match_msgs(const struct mj_rank *r, int n, mj_msg_fn fn, void *ctx);

#endif
