/* flowtool.h - dyl-flow's parts: one process read (struct proc: its trace's calls and its
 * TRACE.flow through the engine, speedup/lib/flow/flow_engine.h), and the outputs over them. */
#ifndef DYL_FLOWTOOL_H
#define DYL_FLOWTOOL_H

#include <stdint.h>
#include <stdio.h>
#include "flow_engine.h"
#include "flow_slices.h"
#include "input.h"

struct row_filter;

#define EXIT_BAD_INPUT 2

/* What the command line asked for. */
enum output { OUT_EDGES, OUT_OBJECTS, OUT_VIA, OUT_CALLS, OUT_SLICES, OUT_PHASES, OUT_SPANS,
	      OUT_JSON, OUT_DOT, OUT_GPROF2DOT, OUT_NAMES };

struct opts {
	enum output output;
	int via_objects;	/* --via-objects with --dot, --svg: objects as nodes */
	int64_t slice_ns;	/* --slices NS; 0: not asked */
	uint64_t threshold;	/* --threshold BYTES: smaller edges are not drawn */
	const char *svg, *plot;	/* --svg FILE, --plot FILE */
	FILE *calls_out;	/* --calls: rows go here as the file is read */
	int multi;		/* several traces: CSV rows start with trace,pid */
	int all_objects;	/* --all-objects: also those no access touched */
	struct row_filter *filter;	/* --func, --time-range (filter.h) */
};

struct proc {
	const char *trace;	/* the path given */
	char *flow_path;	/* TRACE.flow */
	char *own_trace;	/* trace, when made here (TRACE.flow was named) */
	int64_t pid, total_ns;
	char *cmdline;
	uint32_t flags;		/* DYL_FLOW_F_* */
	uint64_t records;
	uint64_t nsites, nobjects;	/* SITE and OBJECT records so far */
	struct flow f;
	struct flow_slices slices;
	int have_slices;
	char **label;		/* a short unique name per object (its site's first frames) */
	uint8_t *dropped;	/* by seq: 1, a call the filter left out */
	size_t dropped_room;
};

/* Reads the trace's calls and TRACE.flow into P (calls_out: --calls rows).  0, or -1
 * after one message naming the file (and record). */
int proc_read(struct proc *p, const char *trace, const struct opts *o);
void proc_free(struct proc *p);
/* --names: record,id,name for each SITE and OBJECT of TRACE's TRACE.flow, by the file's
 * ids, named as the tool names them.  0, or -1 after one message. */
int put_names(FILE *out, const char *trace);

/* A node's name: "host" or the function's. */
const char *node_name(uint32_t node);

/* The outputs (tables.c, graph.c, plot.c).  Each writes to OUT; -1: out of memory. */
int put_edges(FILE *out, struct proc *ps, int n);
/* ALL: also the objects no call or host access touched (a Python run has a thousand). */
int put_objects(FILE *out, struct proc *ps, int n, int all);
int put_via(FILE *out, struct proc *ps, int n);
int put_slices(FILE *out, struct proc *ps, int n, enum output which);
int put_json(FILE *out, struct proc *ps, int n, const struct opts *o);
int put_dot(FILE *out, struct proc *ps, int n, const struct opts *o);
/* --messages (messages.c): an MPI job's messages between ranks from the traces FILES (N),
 * CSV or (DOT) Graphviz.  0, 1 out of memory, or EXIT_BAD_INPUT after a message. */
int put_messages(FILE *out, char *const *files, int n, int dot);
int put_gprof2dot(FILE *out, struct proc *ps, int n);
int put_plot(FILE *out, struct proc *ps, int n);
/* The graph as SVG through Graphviz's dot, into PATH.  0, or -1 after a message. */
int write_svg(const char *path, struct proc *ps, int n, const struct opts *o,
	      char *const *inputs, int ninputs);

/* Objects of P in the order of their traffic, largest first (a new array of N). */
uint32_t *objects_by_traffic(const struct proc *p);
/* The CSV field S (quoted when it must be) to OUT. */

#endif
