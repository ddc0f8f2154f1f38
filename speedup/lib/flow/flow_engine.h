/* flow_engine.h - dyl-flow's engine: who produced the bytes each call consumes (issue 23).
 *
 * It is fed one process's events in time order (/work/wt/FLOW.md, doc/flow.md): the
 * calls of the trace (by seq), then the allocation sites, objects, their resizes and
 * frees, and the byte ranges each call read and wrote.  It keeps, per heap block, an
 * interval map of the last writer of each byte (a node and the clock of the write), and
 * per (block, consumer function) the clock of the last read of each byte.  A read of
 * byte b by a call of function C whose last writer is P adds to the edge P->C:
 *   bytes   once per call (MCPROF counts every read),
 *   unique  once per distinct (block, offset) over the run (QUAD's UnMA),
 *   fresh   when P wrote b after C last read it, or C never read it (QUAD's UnDV).
 * Blocks from one allocation site (or one name, for static, stack and mapped objects)
 * are one object, with MCPROF's object table: size, traffic, Alloc % and Prod %.
 *
 * A node is a depth-0 wrapped function, numbered func_names.h id + 1, or the program itself
 * (FLOW_HOST, 0): bytes no call wrote come from it.  Within one call, its reads come
 * before its writes (events of one seq may come in any order).  The file layout is the
 * loader's business (speedup/dyl-flow/load.c); nothing here reads a file. */
#ifndef SPEEDUP_FLOW_H
#define SPEEDUP_FLOW_H

#include <stddef.h>
#include <stdint.h>
#include "flow_hash.h"
#include "flow_ivmap.h"

#define FLOW_HOST 0u

enum flow_kind { FLOW_HEAP, FLOW_STATIC, FLOW_STACK, FLOW_MAPPING, FLOW_KINDS };
extern const char *const flow_kind_name[FLOW_KINDS];

/* One call of the trace, by seq. */
struct flow_call {	/* 40 bytes: a run has millions */
	int64_t t_start, t_ns;		/* ns; -1: the trace has no times */
	uint64_t read, written;		/* the bytes its ACCESS events name */
	uint32_t node;			/* its function's node; 0 with depth > 0 */
	uint16_t depth;			/* (at most 65535) */
	uint16_t known;			/* 1: the trace has a row of this seq */
};

/* A node: a function (or the program). */
struct flow_node {
	uint64_t calls;
	int64_t time_ns;		/* the sum of its calls' t_ns */
	uint64_t read, written;		/* by its calls (the program's: HOST_* events) */
};

/* An edge producer -> consumer. */
struct flow_edge {
	uint32_t from, to;
	uint64_t bytes, unique, fresh;
};

/* An object: the blocks of one allocation site, or a static, stack or mapped object. */
struct flow_object {
	char *name;			/* the site's text or the object's name */
	uint32_t kind;
	uint64_t blocks;		/* allocations (OBJECT events) */
	uint64_t size;			/* the sum of its blocks' largest sizes */
	uint64_t max_block;
	uint64_t moves;			/* reallocs that moved a block */
	uint64_t call_read, call_written;	/* bytes calls read and wrote */
	uint64_t host_read, host_written;	/* bytes the program read and wrote (std.diff) */
	uint64_t ever_written;		/* distinct bytes written by anyone, over its blocks */
	uint64_t produced, used;	/* bytes calls wrote; of those, read before being
					 * overwritten or freed */
};

/* Traffic between a node and an object (--via-objects). */
struct flow_link {
	uint32_t node, object;
	uint64_t read, written;
};

/* One heap block (or other object instance), by the id the events give it. */
struct flow_block {
	struct ivmap writers;		/* who: node (| IV_READ once read), when: clock */
	uint64_t size, peak;
	uint32_t object;
	uint32_t state;			/* 0 unknown, 1 live, 2 freed */
	uint32_t shrunk;		/* 1: it was cut shorter once (its gaps may have
					 * had writers: no shortcut over them) */
	struct subtab reads;		/* consumer -> the clock of its last read of each byte */
	struct subtab unique;		/* producer << 32 | consumer -> the bytes the pair moved */
};

/* Pending writes of the current call, applied after its reads. */
struct flow_pending {
	uint32_t block;
	uint64_t lo, hi;
};

struct flow {
	struct flow_call *call;		/* by seq */
	size_t ncall_room;
	size_t call_mapped;		/* its bytes when mapped (flow_reserve), else 0 */
	uint64_t max_seq;		/* the largest seq seen + 1 */
	uint64_t ncalls;		/* flow_call's so far */
	struct flow_node *node;		/* by node */
	size_t nnodes, node_room;
	char **site;			/* site text by site id (NULL: not defined) */
	size_t site_room;
	struct flow_object *object;
	size_t nobjects, object_room;
	struct flow_hash object_by_name;	/* (hash of name, kind) -> object */
	struct flow_block *block;	/* by object id of the events */
	size_t block_room;
	struct flow_edge *edge;
	size_t nedges, edge_room;
	struct flow_hash edge_by_pair;	/* (producer, consumer) -> edge */
	int32_t *edge_direct;		/* [from * EDGE_DIRECT + to]: edge + 1, for small nodes */
#define FLOW_EDGE_DIRECT 64
	struct flow_link *link;
	size_t nlinks, link_room;
	struct flow_hash link_by_pair;	/* (node, object) -> link */
	int32_t *link_direct;		/* [object * LINK_NODES + node]: link + 1, for small ids */
#define FLOW_LINK_NODES 64
#define FLOW_LINK_OBJECTS 1024
	/* the current call's group of events */
	uint64_t cur_seq;
	int in_call;
	struct flow_pending *pend;
	size_t npend, pend_room;
	uint64_t clock;			/* ticks at each call's reads, its writes, a host event */
	/* what did not fit the model */
	uint64_t nested_events;		/* ACCESS of a call with depth > 0: skipped */
	uint64_t clipped_bytes;		/* ranges beyond their block's size: cut there */
	char err[200];			/* why the last call returned -1 */
};

void flow_init(struct flow *f);
/* Room for the calls of seqs below NSEQ at once (TRACE.flow's head says how many). */
int flow_reserve(struct flow *f, uint64_t nseq);
void flow_free_all(struct flow *f);

/* The trace's calls (any order).  NODE: func_names.h id + 1.  0, or -1 (f->err). */
int flow_call(struct flow *f, uint64_t seq, uint32_t node, uint32_t depth, uint64_t tid,
	      int64_t t_start, int64_t t_ns);

/* The events, in time order.  Each returns 0, or -1 with f->err saying why (an object
 * or site not defined, a seq that is no call of the trace, hi < lo, out of memory). */
int flow_site(struct flow *f, uint32_t site, const char *text, size_t len);
/* A block, named NAME (LEN bytes); a heap block with NAME NULL is named by its SITE. */
int flow_object(struct flow *f, uint32_t id, uint32_t kind, uint64_t size, uint32_t site,
		const char *name, size_t len);
int flow_resize(struct flow *f, uint32_t id, uint64_t size, int moved);
int flow_release(struct flow *f, uint32_t id);
/* Call SEQ read (WRITE 0) or wrote (1) bytes [LO, HI) of block ID. */
int flow_access(struct flow *f, uint64_t seq, uint32_t id, int write, uint64_t lo, uint64_t hi);
/* The program read or wrote [LO, HI) of block ID (before call SEQ). */
int flow_host(struct flow *f, uint32_t id, int write, uint64_t lo, uint64_t hi);
/* After the last event: the blocks still live are counted.  0, or -1. */
int flow_finish(struct flow *f);

/* For callers: object I's traffic (call and program reads and writes). */
static inline uint64_t flow_traffic(const struct flow_object *o)
{
	return o->call_read + o->call_written + o->host_read + o->host_written;
}

#endif
