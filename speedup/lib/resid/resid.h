/* resid.h - the residency simulation (issue 24; doc/residency.md): where the valid copy
 * of each byte of each block is (host, accelerator or both) as the calls run, and the
 * transfers a port that keeps data on the accelerator would make.
 *
 * The events of one process are loaded once (resid_load: its trace's calls and its
 * TRACE.flow, through flow_file.h) into a compact array; resid_simulate then runs over
 * them for any choice of accelerated calls, as often as wanted (the offload plan calls it
 * per candidate).  Rules (per byte; start: host):
 *   accelerated call reads        host bytes move h2d, become both
 *   accelerated call writes       become dev (nothing moves)
 *   other call reads              dev bytes move d2h, become both
 *   other call writes             become host
 *   HOST_WRITE (std.diff)         become host (nothing moves)
 *   HOST_READ (exact mode only)   dev bytes move d2h, become both
 *   RESIZE that moved the block   a host access of the kept bytes: dev bytes move d2h
 *   FREE                          the block's state is dropped
 *   the end                       nothing moves
 * At one seq: life and host events, then the call's reads, then its writes.  A transfer
 * is a maximal contiguous range of one block that moves in one direction within one
 * group (one call's reads, or the host events before one call); its time is the link
 * model at its byte count.  Pessimistic mode keeps no state: every accelerated call
 * moves what it reads h2d and what it writes d2h, one transfer per block and direction
 * from the first byte it touched to the last, as NVBLAS moves each operand whole. */
#ifndef SPEEDUP_RESID_H
#define SPEEDUP_RESID_H

#include <stddef.h>
#include <stdint.h>

struct model;

enum resid_mode { RESID_EXACT, RESID_OPTIMISTIC, RESID_PESSIMISTIC, RESID_MODES };
extern const char *const resid_mode_name[RESID_MODES];	/* "exact", ... */

/* One event, 32 bytes.  KIND RESID_READ/WRITE: call SEQ's access of [LO, HI);
 * HOST_WRITE/HOST_READ: the program's, before call SEQ; FREE: before call SEQ;
 * RESIZE: before call SEQ, LO the new size, HI 1 when the block moved. */
enum resid_kind { RESID_READ, RESID_WRITE, RESID_HOST_WRITE, RESID_HOST_READ, RESID_FREE,
		  RESID_RESIZE };
struct resid_ev {
	uint64_t seq, lo, hi;
	uint32_t block;
	uint8_t kind;
	uint8_t how;		/* HOST_READ: 0 seen, 1 assumed, 2 a library's I/O (DYL_HR_*) */
	uint16_t zero;
};

/* Seqs [LO, HI) of the files are slots BASE... of the arrays by call (resid_seqs.c). */
struct resid_run {
	uint64_t lo, hi, base;
};

/* A process's events, in simulation order (by seq; at one seq, life and host events,
 * reads, writes).  Calls are numbered by slot, not by seq: one slot per seq read (a row,
 * a record), one per gap between them, so that no number in a file sizes an array; for
 * a whole trace, slot = seq.  An event's SEQ is its slot.  FUNC[slot]: the func_names.h id of
 * depth-0 call SLOT; -1: nested (depth > 0), a gap, or no row of the trace. */
struct resid_events {
	struct resid_ev *ev;
	size_t n, room;
	uint64_t nseq;		/* slots are below it; nseq itself: after the last call */
	int32_t *func;		/* [nseq] */
	uint64_t *tid;		/* [nseq]: the call's thread (0: no row) */
	int64_t *t_start;	/* [nseq]: its start (ns; -1: no row, or no times) */
	struct resid_run *runs;	/* sorted: the seqs read */
	size_t nruns, runs_room;
	uint32_t nblocks;	/* block ids are below it */
	int nfuncs;		/* funcs ids are below it (funcs_count() when loaded) */
	int host_reads;		/* TRACE.flow's flag 8: host reads recorded (exact mode) */
	uint32_t flow_flags;	/* its head's flags (DYL_FLOW_F_*: 1 std.diff ran, 2 cut) */
	uint64_t host_read_events, assumed_reads;	/* HOST_READ records, how 1 of them */
	uint64_t libio_reads;	/* how 2 of them: a library's I/O inside a call */
};

/* How a transfer's time is found: the link rows' models (model.h; func @h2d, @d2h; work
 * = bytes of one transfer).  A NULL model: that direction costs 0 ns. */
struct link_model {
	const struct model *h2d, *d2h;
};

/* Bytes, transfers and their time in one direction. */
struct resid_dir {
	uint64_t bytes, transfers;
	double ns;
};

/* Per function: h2d of its accelerated calls (what they read), d2h of what it produced
 * (a transfer is charged to the function that wrote its first byte; pessimistic: to the
 * call that wrote it). */
struct resid_func {
	struct resid_dir h2d, d2h;
};

struct resid_result {
	enum resid_mode mode;
	struct resid_dir h2d, d2h;	/* totals */
	struct resid_func *func;	/* [nfuncs], by funcs id */
	int nfuncs;
	/* transfer time charged to each call, by slot ([nseq]: after the last call): h2d of
	 * an accelerated call's reads (pessimistic: and d2h of its writes); d2h caused by a
	 * call's reads, or by the host events before it */
	double *charge_ns;	/* [nseq + 1] */
	uint64_t nseq;
	/* the caller's, kept by resid_simulate: called for each transfer as it is charged
	 * (H2D 1 or 0, its bytes and time, the slot charged), in charge order (NULL: none) */
	void (*each)(void *arg, uint64_t slot, int h2d, uint64_t bytes, double ns);
	void *each_arg;
};

void resid_events_init(struct resid_events *ev);
void resid_events_free(struct resid_events *ev);

/* Loads the process of TRACE: its rows (rows.h) and TRACE.flow (or, when that is missing,
 * its spool's FLOW chunks: flow_file.h).  Functions are func_names.h ids (interned here as the
 * rows are read).  0; 1 when there is no flow at all (nothing printed: the caller says
 * what it needs); -1 after one message naming the file. */
int resid_load(struct resid_events *ev, const char *trace);
/* The slot of seq SEQ of the files (a trace row's); UINT64_MAX when no row or record
 * named it. */
uint64_t resid_index(const struct resid_events *ev, uint64_t seq);

/* The simulation over EV with the calls ACCEL[slot] != 0 accelerated (depth-0 calls;
 * [nseq] entries), in MODE, timed by LINK (NULL: 0 ns).  OUT is filled (its arrays
 * allocated, or reused when OUT came from an earlier call on the same EV: zero OUT before
 * the first).  0, or -1 out of memory. */
int resid_simulate(const struct resid_events *ev, const unsigned char *accel,
		   enum resid_mode mode, const struct link_model *link, struct resid_result *out);
void resid_result_free(struct resid_result *out);

#endif
