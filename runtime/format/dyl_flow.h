/* dyl_flow.h - data flow between calls, objects and the program (std.flow): the one
 * definition of its two layouts (doc/specs/flow.md tells the model and the protocol).
 *
 * 1. TRACE.flow, the file the readers (bin/dyl-flow) read: written at exit beside the
 *    trace by the converter, when seq numbers are known.  A head (magic "DYLFLOW1"),
 *    then records in time order (by seq; at equal seq the runtime's own order, every
 *    SITE before the first record naming it, every OBJECT before its RESIZE, FREE and
 *    ACCESS records, life events of a seq before its ACCESS records).
 * 2. The spool's FLOW chunks (DYL_CH_FLOW, beside dyl_spool.h's): what the runtime keeps
 *    during the run, in raw form (clock ticks, addresses, region ids, each thread's own
 *    call count), so that a killed run keeps what was written out.  The converter
 *    (runtime/format/flowconv.c) turns them into (1).
 *
 * All numbers little-endian; every record a multiple of 8 bytes, starting with a
 * struct dyl_flow_rec header (type, length).  A reader skips types it does not know
 * (len says how far), and stops at a record whose length does not fit.
 */
#ifndef DYL_FLOW_H
#define DYL_FLOW_H

#include <stdint.h>

/* ------------------------------------------------------------------ TRACE.flow */

#define DYL_FLOW_MAGIC "DYLFLOW1"
/* 2: ACCESS records may come packed in ACCESSES records (version 1 had none: a reader
 * of 2 reads 1 too) */
#define DYL_FLOW_VERSION 2u
#define DYL_FLOW_SUFFIX ".flow"	/* TRACE.flow is the trace's path with this added */

struct dyl_flow_head {
	char magic[8];		/* DYL_FLOW_MAGIC */
	uint32_t version;	/* DYL_FLOW_VERSION */
	uint32_t flags;		/* DYL_FLOW_F_* */
	int32_t pid;		/* the process (as the trace's # pid= line) */
	uint32_t zero;
	uint64_t nseq;		/* the trace's rows: seq numbers are below this */
};
#define DYL_FLOW_F_DIFF 1u	/* std.diff ran: W ranges are changed bytes, HOST_WRITE exists */
#define DYL_FLOW_F_CUT 2u	/* from a spool cut short (a killed run): events may be missing */
#define DYL_FLOW_F_NOSITES 4u	/* allocation sites were not recorded (DYL_FLOW_SITES=0) */
#define DYL_FLOW_F_HOSTREAD 8u	/* host reads recorded (std.flow:host_reads=on): HOST_READ exists */
/* The names are the process's raw ones (object+0xoff): the readers name sites, statics and
 * stack objects from the MODULE records, which come right after the head, and from the
 * addresses (SITE's pcs, OBJECT's addr, a stack OBJECT's ip and cfa after its name). */
#define DYL_FLOW_F_MODULES 16u

/* Every record: TYPE (DYL_FR_*), LEN the bytes after this header (a multiple of 8). */
struct dyl_flow_rec {
	uint32_t type;
	uint32_t len;
};
enum {
	DYL_FR_SITE = 1,
	DYL_FR_OBJECT = 2,
	DYL_FR_RESIZE = 3,
	DYL_FR_FREE = 4,
	DYL_FR_ACCESS = 5,
	DYL_FR_HOST_WRITE = 6,
	DYL_FR_HOST_READ = 7,
	DYL_FR_MODULE = 8,
	DYL_FR_ACCESSES = 9,	/* version 2: ACCESS records, packed (below) */
};

/* ACCESSES: a u32 count, then COUNT entries of bytes (zeros pad the record), each one
 * ACCESS record in file order.  A reader keeps, over the whole file, the seq of the last
 * ACCESS (0 at first) and DYL_FLOW_ACC_SLOTS recent (obj_id, lo, hi, rw): an entry is a
 * tag byte, bits 5-6 the seq (0 the last's, 1 the last's + 1, 2 a varint adds to the
 * last's, 3 a varint is the seq); the varint (LEB128), if any, follows the tag.  Bit 7
 * clear: bits 0-4 name a slot, the access is the one stored there.  Bit 7 set: bit 0 rw,
 * then varints obj_id, lo, hi - lo; the access is stored in slot dyl_flow_acc_slot().
 * A call repeating a recent access so costs one byte. */
#define DYL_FLOW_ACC_SLOTS 32u
static inline uint32_t dyl_flow_acc_slot(uint64_t obj, uint64_t lo, uint64_t hi, uint32_t rw)
{
	uint64_t h = obj * 0x9E3779B97F4A7C15ull ^ lo * 0xC2B2AE3D27D4EB4Full ^ hi * 0x165667B19E3779F9ull ^ rw;
	return (uint32_t)(h >> 59);
}
#define DYL_FLOW_NONE UINT64_MAX	/* no site, no seq */

/* SITE: an allocation site.  TEXT (TEXT_LEN bytes, no NUL, then zeros to 8 bytes):
 * "func (file.c:12) <- caller (file.c:40)", innermost first, the frames " <- "
 * separated; a frame without debug information is func+0xoff, without a symbol
 * object+0xoff (the object's file name).  PC: the NPC return addresses, innermost first,
 * as the process had them (informative: the text is what names the site). */
struct dyl_flow_site {
	struct dyl_flow_rec h;
	uint64_t site_id;	/* 0, 1, 2...: its place among the file's SITE records */
	uint32_t npc;
	uint32_t text_len;
	/* uint64_t pc[npc]; char text[text_len]; zeros to 8 bytes */
};

/* MODULE (head flag DYL_FLOW_F_MODULES): an object file the process had loaded at its
 * end, with what a reader needs to name its addresses offline (as perf does): PATH (the
 * program's: /proc/self/exe's target), its GNU build ID (BUILD_ID_LEN bytes; 0: none),
 * its load bias (an address minus the bias is the file's own address) and the range
 * [LO, HI) its segments took.  Then char path[path_len], the build ID, zeros to 8. */
struct dyl_flow_module {
	struct dyl_flow_rec h;
	uint64_t module_id;	/* 0, 1, 2...: its place among the MODULE records */
	uint64_t bias, lo, hi;
	uint32_t path_len;
	uint32_t build_id_len;
	/* char path[path_len]; uint8_t build_id[build_id_len]; zeros to 8 bytes */
};

/* OBJECT: a memory object, before its first use.  Heap: one per block (realloc keeps
 * it, RESIZE); the tool groups blocks by site_id.  NAME (NAME_LEN bytes, no NUL, zeros
 * to 8): static "symbol" (else "object+0xoff"); stack "func:var" (else "func frame");
 * mapping: the mmap site's text (site_id) or empty; heap: empty.  With DYL_FLOW_F_MODULES a
 * stack object has two more words after its padded name: IP (its frame's return address;
 * 0: not known) and CFA; its name is then per frame, and a reader joins the objects of one
 * extent that it names alike (a variable seen from two call sites). */
enum { DYL_OBJ_HEAP = 1, DYL_OBJ_STATIC = 2, DYL_OBJ_STACK = 3, DYL_OBJ_MAPPING = 4 };
struct dyl_flow_object {
	struct dyl_flow_rec h;
	uint64_t obj_id;	/* 0, 1, 2...: its place among the file's OBJECT records */
	uint32_t kind;		/* DYL_OBJ_* */
	uint32_t name_len;
	uint64_t size;		/* bytes at birth */
	uint64_t site_id;	/* heap and mapping: its SITE; DYL_FLOW_NONE: not known */
	uint64_t birth_seq;	/* it exists before call birth_seq (0: from the start) */
	uint64_t addr;		/* where it was (informative) */
	/* char name[name_len]; zeros to 8 bytes */
};

/* RESIZE: realloc (mremap) of OBJ_ID to NEW_SIZE before call SEQ; MOVED: at a new address
 * (its data copied: last writers carry over). */
struct dyl_flow_resize {
	struct dyl_flow_rec h;
	uint64_t obj_id, new_size, seq;
	uint32_t moved;
	uint32_t zero;
};

/* FREE: OBJ_ID freed (unmapped) before call SEQ. */
struct dyl_flow_free {
	struct dyl_flow_rec h;
	uint64_t obj_id, seq;
};

/* ACCESS: depth-0 call SEQ read (DYL_ACC_R) or wrote (DYL_ACC_W) bytes [LO, HI) of
 * OBJ_ID (offsets in the object).  Reads: what its const pointers reach (with std.diff,
 * also its other buffers' bytes that changed since the last look); writes: what its
 * non-const pointers reach (with std.diff: the bytes that changed during the call).
 * One call has any number of them, in no particular order. */
#define DYL_ACC_R 0u
#define DYL_ACC_W 1u
struct dyl_flow_access {
	struct dyl_flow_rec h;
	uint64_t seq, obj_id, lo, hi;
	uint32_t rw;		/* DYL_ACC_* */
	uint32_t zero;
};

/* HOST_WRITE (std.diff): the program changed [LO, HI) of OBJ_ID before call SEQ (seen
 * when call SEQ looked at the object). */
struct dyl_flow_host {
	struct dyl_flow_rec h;
	uint64_t seq, obj_id, lo, hi;
};

/* HOST_READ (std.flow:host_reads=on, head flag DYL_FLOW_F_HOSTREAD): the program (not a
 * wrapped call) touched [LO, HI) of OBJ_ID after earlier calls wrote it, before call SEQ
 * (the first depth-0 call of any thread to start after the touch, at the latest the
 * touching thread's next call; nseq: none came).  HOW: DYL_HR_SEEN, the touched
 * pages clipped to the object (a fault on a protected page, or an I/O function about to
 * hand the range to the kernel); DYL_HR_ASSUMED, bytes a call wrote that could not be
 * watched (pages shared with other objects, stack, statics, mappings, the protection
 * limit), written once right after that call.  A touch that writes counts as a read.
 * DYL_HR_LIBIO: bytes a wrapped call's library handed to an I/O function that sends them
 * out of the process (write, fwrite, send...) inside the call, the exact range clipped
 * to the object: a device cannot do I/O, they are on the host then (SEQ: as for a touch,
 * the first call after the I/O; the bytes were written by that call's predecessor, or by
 * it before the I/O). */
#define DYL_HR_SEEN 0u
#define DYL_HR_ASSUMED 1u
#define DYL_HR_LIBIO 2u
struct dyl_flow_host_read {
	struct dyl_flow_rec h;
	uint64_t seq, obj_id, lo, hi, how;
};

/* ------------------------------------------------------------ the spool's chunks */

/* A FLOW chunk: a thread's raw events, in the order it made them.  Three forms:
 *   - a window (WINDOW has DYL_FLOW_LIVE): the runtime maps it shared while the thread
 *     writes into it; WORDS is stored after the events it covers (the rest is room);
 *     when full it is copied out and emptied, and GEN goes up;
 *   - a window's copy (WINDOW: the window's id, GEN: the generation copied);
 *   - a private buffer's events (WINDOW UINT32_MAX), from before the spool existed.
 * A reader takes a thread's chunks in file order, then its live window's events, unless
 * a copy of the window's current generation exists (the copy was made, the window not
 * emptied yet: the process was killed between). */
#define DYL_CH_FLOW 0x574f4c46u	/* "FLOW" */
#define DYL_FLOW_LIVE 0x80000000u
struct dyl_flow_chunk {
	/* struct dyl_chunk ch (dyl_spool.h) comes before */
	int32_t tid;
	uint32_t window;
	uint32_t gen;
	uint32_t words;		/* the events' 8-byte words (at most the chunk's room) */
};

/* Raw events: a u64 header word, then fields.  Header: bits 0-7 DYL_RE_*, 8-15 the
 * event's length in 8-byte words (the header included), 16-31 flags, 32-63 a small
 * field (below).  No clock is read: a thread's events are in its own order, and a life
 * event (ALLOC, FREE) belongs before the thread's next call (the converter says which
 * seq that is, and moves a birth before the first access of any thread). */
#define DYL_RE_WORD(type, words, flags, small) \
	((uint64_t)(type) | (uint64_t)(words) << 8 | (uint64_t)(flags) << 16 | (uint64_t)(small) << 32)
#define DYL_RE_TYPE(w) ((uint32_t)((w) & 0xff))
#define DYL_RE_WORDS(w) ((uint32_t)((w) >> 8 & 0xff))
#define DYL_RE_FLAGS(w) ((uint32_t)((w) >> 16 & 0xffff))
#define DYL_RE_SMALL(w) ((uint32_t)((w) >> 32))
enum {
	/* CALL: the thread's next depth-0 call, when it accessed nothing (else its first
	 * ACC has DYL_REF_NEWCALL), or (flag DYL_REF_REPEAT) when it made the same ACC
	 * events as the thread's last call with accesses (a loop passing the same buffers;
	 * DYL_REF_FOLLOW events are not among them: each call's come after its own).
	 * A thread's Nth call is its Nth depth-0 row: the converter joins them so.  1 word. */
	DYL_RE_CALL = 1,
	/* ACC: an access of the thread's current call (DYL_REF_NEWCALL: of its next one).
	 * small: the object's kind (DYL_OBJ_*); flags DYL_REF_W, _DIFF, _NEWCALL, _FOLLOW.  Then
	 *   heap, mapping: region id, lo, hi (offsets in the region).  4 words;
	 *   static: region start, end, lo, hi.  5 words;
	 *   stack: region start, end, lo, hi, ip (the frame's function: a return address;
	 *   0 not known), cfa.  7 words. */
	DYL_RE_ACC = 2,
	/* ALLOC: a heap block or mapping born.  small: its site (a SITE event's id,
	 * UINT32_MAX: none); flags: bits 0-7 DYL_REF_REALLOC (it replaces the block this
	 * thread's last FREE removed: a realloc), bits 8-15 the kind (DYL_OBJ_HEAP,
	 * _MAPPING); then region id, start, size.  4 words. */
	DYL_RE_ALLOC = 3,
	/* FREE: region id.  2 words. */
	DYL_RE_FREE = 4,
	/* SITE: a new allocation site, before the first ALLOC naming it.  small: npc;
	 * then site id (per process), pc[npc] (return addresses, innermost first). */
	DYL_RE_SITE = 5,
	/* HOST: (std.diff) the program changed [lo, hi) of a region before the thread's
	 * current call looked.  As ACC (no flags). */
	DYL_RE_HOST = 6,
	/* HOSTRD: (host_reads=on) the program read [lo, hi) of a region; it belongs before
	 * the first call of any thread to start after it (as a life event).  As ACC, then
	 * one more word: the trace clock's ticks at the read; flags: the how (DYL_HR_*). */
	DYL_RE_HOSTRD = 7,
};
#define DYL_REF_W 1u		/* ACC: a write */
#define DYL_REF_REALLOC 2u	/* ALLOC: a realloc's new block */
#define DYL_REF_DIFF 4u		/* ACC: changed bytes (std.diff) */
#define DYL_REF_NEWCALL 8u	/* ACC: the first of a new call */
#define DYL_REF_REPEAT 16u	/* CALL: the same accesses as the thread's last call's */
/* ACC, HOST of a heap block or mapping whose id, lo and hi are below 2^32 (most): 2
 * words.  small: the region id; flags bits 8-15: the kind; then lo | hi << 32. */
#define DYL_REF_PACKED 32u
/* CALL with DYL_REF_REPEAT: the same accesses as the call before the thread's last one
 * with accesses, which becomes the last (two sets of buffers in turn: double buffering) */
#define DYL_REF_BEFORE 64u
#define DYL_REF_FOLLOW 128u	/* ACC: a heap block reached through pointers (follow=), whole */
/* HOST: found before the thread's current call put its mark (a --defs look in a prefix):
 * the program's write before the thread's next call, not the last one's (the same bit as
 * ALLOC's DYL_REF_REALLOC) */
#define DYL_REF_AHEAD 2u
#define DYL_FLOW_SITE_PCS 3	/* return addresses kept per site */

#endif
