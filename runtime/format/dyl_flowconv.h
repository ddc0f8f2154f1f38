/* dyl_flowconv.h - the spool's FLOW chunks into TRACE.flow (dyl_flow.h), once seq
 * numbers are known: the runtime at exit, a reader after a crash.
 *
 * Like the decoder (dyl_decode.h) it may run inside the profiled process at its end:
 * no malloc (memory from mmap), no stdio, no lock, no state outside the call.
 */
#ifndef DYL_FLOWCONV_H
#define DYL_FLOWCONV_H

#include <stddef.h>
#include <stdint.h>
#include "dyl_flow.h"

/* A module as the runtime found it (the MODULE record's fields) */
struct dyl_flow_modinfo {
	uint64_t bias, lo, hi;
	const char *path;
	size_t path_len;
	const unsigned char *build_id;
	size_t build_id_len;
};

/* How raw addresses become names; any of them NULL: hexadecimal (a reader after a
 * crash, which has not the process's objects).  Each writes at most ROOM bytes of text
 * (no NUL needed) into OUT and returns their number. */
struct dyl_flow_names {
	void *ctx;
	/* an allocation site: NPC return addresses, innermost first */
	size_t (*site)(void *ctx, const uint64_t *pc, unsigned npc, char *out, size_t room);
	/* the static object [START, END) */
	size_t (*statics)(void *ctx, uint64_t start, uint64_t end, char *out, size_t room);
	/* the stack object [START, END) in the frame of the function at IP (a return
	 * address; 0: not known) whose CFA is CFA */
	size_t (*stack)(void *ctx, uint64_t ip, uint64_t cfa, uint64_t start, uint64_t end,
			char *out, size_t room);
	/* the mapping with region id ID at START, SIZE bytes: its file's path (0: none;
	 * the reader then names it by its mmap site) */
	size_t (*mapping)(void *ctx, uint64_t id, uint64_t start, uint64_t size, char *out, size_t room);
	/* the process's module I (from 0): 1 with *M set, 0 past the last.  Given, the
	 * names above are raw (object+0xoff) and the file gets the MODULE records and the
	 * head flag DYL_FLOW_F_MODULES: the readers name the addresses offline. */
	int (*module)(void *ctx, unsigned i, struct dyl_flow_modinfo *m);
};

/* Writes TRACE.flow into OUT_FD from the spool SPOOL_FD (its first SIZE bytes).  The
 * rows are numbered from SEQ, as the trace's were; CONV_FLAGS as dyl_conv_open's
 * (DYL_CONV_WINDOWS after a crash); HEAD_FLAGS go into the head (DYL_FLOW_F_*).
 * 0, or -1 with *WHY set (not a spool, no memory, a write failed: errno kept). */
int dyl_flow_convert(int spool_fd, uint64_t size, int conv_flags, uint64_t seq, int32_t pid,
		     uint32_t head_flags, const struct dyl_flow_names *names, int out_fd,
		     const char **why);

/* 1 when the spool holds FLOW chunks */
int dyl_flow_in_spool(int spool_fd, uint64_t size);

#endif
