/* flow_file.h - the one reader of TRACE.flow (doc/specs/flow.md, runtime/format/dyl_flow.h):
 * the file mapped, its head checked, its records one by one, each decoded and checked
 * (lengths, the order of SITE and OBJECT ids, kinds, rw).  A bad file is one message
 * "PROG: FILE: record N (offset X): what" (input.h), and the iterator returns -1.
 * dyl-flow (speedup/dyl-flow/load.c) and dyl-speedup's residency (resid.c) read it so.
 *
 * A killed run leaves no TRACE.flow: flow_file_open then converts its spool's FLOW chunks
 * (runtime/format/flowconv.c) into memory, and reads that as the file (flag CUT set). */
#ifndef SPEEDUP_FLOW_FILE_H
#define SPEEDUP_FLOW_FILE_H

#include <stddef.h>
#include <stdint.h>
#include "dyl_flow.h"

/* Head flag 8 (issue 24): the program's reads were recorded (std.flow:host_reads=on)
 * for the whole run: HOST_READ records are complete. */
#ifndef DYL_FLOW_F_HOST_READS
#define DYL_FLOW_F_HOST_READS 8u
#endif

struct flow_file {
	const char *path;	/* what messages name */
	const char *data;
	size_t size;
	int mapped;		/* data is an mmap of the file (else malloc'd: a conversion) */
	uint32_t flags;		/* the head's DYL_FLOW_F_* */
	int32_t pid;
	uint64_t nseq;
	int from_spool;		/* converted from the trace's spool (a killed run) */
	/* the iterator */
	size_t off;		/* the next record's */
	uint64_t records;	/* records read so far (the current one's number, from 1) */
	size_t rec_off;		/* the current record's offset */
	uint64_t nsites, nobjects;	/* SITE and OBJECT records so far (objects: as the
					 * reader sees them, stack objects joined) */
	/* head flag DYL_FLOW_F_MODULES: names made here from the MODULE records
	 * (flow_syms.h); stack objects of one extent named alike are one object, the
	 * file's object ids renumbered (idmap) */
	struct flow_syms *syms;
	char *name;		/* the current record's new name */
	uint64_t nfile_objects;	/* OBJECT records so far */
	int file_ids;		/* set by the caller: the file's ids, no stack object joined */
	int names;		/* set by the caller: sites and statics named too (stack
				 * objects always are: they are joined by name) */
	uint32_t *idmap;	/* the file's object id -> the reader's */
	size_t idmap_room;
	struct stack_name *stacks;	/* a hash table: stack objects by extent and name */
	size_t nstacks, stacks_room;
	/* version 2's ACCESSES records (dyl_flow.h): the current one's entries not yet
	 * read, the last ACCESS's seq, the recent accesses its entries name */
	uint32_t version;
	const unsigned char *acc, *acc_end;
	uint32_t acc_left;
	uint64_t acc_seq;
	struct { uint64_t obj, lo, hi; uint32_t rw, used; } acc_slots[DYL_FLOW_ACC_SLOTS];
};

/* One record, decoded.  The fields a type has are set; the rest are 0. */
struct flow_rec {
	uint32_t type, len;	/* DYL_FR_*; the body's bytes */
	const char *body;
	uint64_t seq;		/* ACCESS, HOST_*, RESIZE, FREE; OBJECT: birth_seq */
	uint64_t id;		/* SITE: site_id; else obj_id */
	uint64_t lo, hi;	/* ACCESS, HOST_* */
	uint64_t size;		/* OBJECT: size at birth; RESIZE: the new size */
	uint64_t site, addr;	/* OBJECT */
	uint32_t kind;		/* OBJECT: DYL_OBJ_* */
	uint32_t rw;		/* ACCESS: DYL_ACC_*; HOST_READ: how (0 seen, 1 assumed);
				 * RESIZE: moved */
	uint32_t npc;		/* SITE; MODULE: the build ID's bytes */
	const char *text;	/* SITE: its text; OBJECT: its name (named from the modules
				 * where the file has them); MODULE: its path */
	uint32_t text_len;
};

/* Opens FLOW_PATH (TRACE.flow); when it does not exist and TRACE (may be NULL) is a
 * spool holding FLOW chunks, converts them.  0; 1 when there is no flow at all (nothing
 * printed); -1 after one message naming the file. */
int flow_file_open(struct flow_file *ff, const char *flow_path, const char *trace);
/* The next record into R: 1; 0 at the end; -1 after one message naming the record.
 * Types not known are returned too (a caller skips them). */
int flow_file_next(struct flow_file *ff, struct flow_rec *r);
/* "FILE: record N (offset X): WHAT" about the current record. */
void flow_file_error(const struct flow_file *ff, const char *what);
void flow_file_close(struct flow_file *ff);

#endif
