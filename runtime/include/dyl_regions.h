/* dyl_regions.h - the process's memory regions, as wrappers see them (std.regions).
 *
 * A region is a range [start, end) the application owns as one piece: a heap block (as
 * malloc and friends returned it), an mmap'ed range, a loaded object's data segment, or a
 * stack frame.  The table lives in libdylrt.so, one per process however many wrappers are
 * preloaded; the allocator interposers that fill it are in dyl_alloc.h, compiled into the
 * preloaded wrapper itself (see there why).  Every region gets an id, unique in the
 * process, so that a later method (std.diff) can keep one snapshot per region.
 */
#ifndef DYL_REGIONS_H
#define DYL_REGIONS_H

#include <stddef.h>
#include <stdint.h>
#include "dyl.h"

#ifdef __cplusplus
extern "C" {
#endif

enum dyl_region_kind {
	DYL_REGION_NONE = 0,	/* in no known region */
	DYL_REGION_HEAP,	/* malloc, calloc, realloc, posix_memalign, ... */
	DYL_REGION_MMAP,	/* mmap, mremap */
	DYL_REGION_STATIC,	/* a static object (an ELF symbol's extent), else the gap between
				 * two in a loaded object's non-executable PT_LOAD segment */
	DYL_REGION_STACK,	/* a stack frame (or the thread's stack when unwinding fails), or
				 * another thread's stack up to the top of its frames */
};

struct dyl_region {
	uintptr_t start, end;
	uint32_t kind;		/* enum dyl_region_kind */
	uint64_t id;		/* unique per heap block and mapping; 0 for statics and stacks */
	uint32_t flags;		/* DYL_REGION_UNNAMED, DYL_REGION_F64 */
};
/* a static gap (no symbol covers it) in a read-only segment: string literals live there */
#define DYL_REGION_UNNAMED 1u
/* a stack variable that the program's debug information declares as a double or an array
 * of doubles (stackvars.c): std.diff's typed look (DYL_DIFF_TYPED) */
#define DYL_REGION_F64 2u

/* with DYL_REGION_HEAP in dyl_region_add's KIND: the block's content is indeterminate
 * (malloc, memalign, ...; not calloc's zeros nor realloc's moved data): what it holds
 * is no data of the program's (std.diff takes a copy of it, see diff.c) */
#define DYL_REGION_UNINIT 0x100u
/* with DYL_REGION_HEAP or _MMAP in dyl_region_add's KIND: a realloc (mremap) made it,
 * of the block this thread removed just before: one object for std.flow */
#define DYL_REGION_REALLOC 0x200u

/* The allocator interposers (dyl_alloc.h) report here.  DEL returns the size the
 * region had, or -1 when P was not tracked; UNMAP removes (or trims) the mapping that
 * holds [P, P+N). */
DYL_API void dyl_region_add(const void *p, size_t n, unsigned kind);
DYL_API int64_t dyl_region_del(const void *p);
DYL_API void dyl_region_unmap(const void *p, size_t n);

/* The heap or mmap region holding P, else the static object (or gap), else the calling
 * thread's whole stack (no frames: see dyl_regions_charge), else another thread's stack.
 * 0 when P lies in none of them. */
DYL_API int dyl_region_find(const void *p, struct dyl_region *r);

/* One argument as std.regions passes it. */
struct dyl_rarg {
	const void *p;
	unsigned flags;		/* DYL_RA_* */
	uint64_t bound;		/* with DYL_RA_BOUNDED: the bytes from p the call uses (its length
				 * argument's); else the region's end bounds it */
};
#define DYL_RA_CONST 1u		/* the pointee is const: input (else output) */
#define DYL_RA_FOLLOW 2u	/* the pointee is a pointer: follow the array's elements (with
				 * a bound: only the elements it covers) */
#define DYL_RA_INNER_CONST 4u	/* what those elements point to is const */
#define DYL_RA_CHAR 8u		/* the pointee is a char: into unnamed read-only data, a string
				 * literal, charged up to its NUL */
#define DYL_RA_BOUNDED 16u	/* bound holds the buffer's extent */
#define DYL_RA_SCALAR 32u	/* a number of a Fortran-style function (all by reference): maybe
				 * a scalar; bound holds its size (the generator's fortran_style) */

/* The bytes of N elements of ELEM bytes each, a length argument's bound: 0 for N <= 0,
 * UINT64_MAX (the region's end) when the product overflows. */
static inline uint64_t dyl_ra_bytes(uint64_t n, uint64_t elem)
{
	uint64_t b;
	return __builtin_mul_overflow(n, elem, &b) ? UINT64_MAX : b;
}
#define DYL_RA_BYTES(n, elem) dyl_ra_bytes((n) > 0 ? (uint64_t)(n) : 0, (elem))

/* The fast method (paper, IV.C): each pointer is charged from itself to the end of its
 * region, or to its bound where it has one (where every pointer of its class into that
 * region has one: the highest bounded end); pointers into one region count once (from
 * the lowest one), const pointers as input, the others as output.  SCALAR_BYTES (arguments passed by value) is added to the
 * input.  Sets *IN and *OUT; leaves them alone when it cannot run (called from a signal
 * handler that interrupted the same thread inside it). */
DYL_API void dyl_regions_charge(const struct dyl_rarg *args, unsigned n, int64_t scalar_bytes,
				int64_t *in, int64_t *out);

/* The full method (paper, IV.C.2; diff.c): the bytes of the same buffers that changed.
 * BEFORE, called before the call: *IN = SCALAR_BYTES + the bytes changed since the last
 * look; returns a mark for AFTER (UINT32_MAX: nothing to do after, *IN left alone).
 * AFTER, called after the call with that mark: *OUT = the bytes of the non-const
 * buffers that the call changed; FRAME: the wrapper's __builtin_frame_address(0) (its
 * caller's stack pointer is 16 bytes above: the stack below is dead after the call; NULL:
 * not known).  BLOCK (a power of two): changes are judged in aligned
 * blocks of that many bytes, clipped to the buffer; BEFORE's may carry DYL_DIFF_TYPED.
 * SETUP, once: notes in the trace how changes are found (# diff=). */
/* In a stack variable declared double (DYL_REGION_F64), an 8-byte element that changed
 * to a value no floating-point computation leaves there (a subnormal, or a NaN other than
 * the default one: what integers below 2^52 and addresses, negative integers, look like;
 * or the stack protector's canary) is taken for what a dead frame left (a printf's words
 * in an array the program did not fill), not as input (diff.c, odd_words) */
#define DYL_DIFF_TYPED 0x10000u
DYL_API void dyl_diff_setup(void);
DYL_API uint32_t dyl_diff_before(const struct dyl_rarg *args, unsigned n, int64_t scalar_bytes,
				 unsigned block, int64_t *in);
DYL_API void dyl_diff_after(uint32_t mark, unsigned block, int64_t *out, const void *frame);
/* the same stack bookkeeping as AFTER's, for a call with no pointer argument */
DYL_API void dyl_diff_dead(const void *frame);

struct dyl_diff_stats {
	uint64_t calls, looks;
	uint64_t bytes_tracked;		/* buffer bytes the looks covered */
	uint64_t bytes_compared;	/* of which compared (the rest: pages not written) */
	uint64_t watched_bytes_compared;	/* compared because their page was written */
	uint64_t snapshot_bytes, snapshot_bytes_max;
	uint64_t sweeps;
	int watching;
	uint64_t births, birth_bytes;	/* new heap blocks copied at malloc (diff.c: born, the table hook) */
	uint64_t births_skipped;	/* not copied: std.diff was busy, or UNSEEN_MAX */
};
DYL_API void dyl_diff_stats(struct dyl_diff_stats *s);

/* std.flow (runtime/flow/): per outermost call and object, the extents its pointers
 * reach (from the charge above), and heap blocks' births with their allocation sites,
 * reallocs and frees, kept in the spool; TRACE.flow at exit (doc/specs/flow.md).
 * SETUP, once (the wrapper's constructor); CALL, at each outermost call's start, after
 * the charge: the thread's depth-0 calls are counted so. */
DYL_API void dyl_flow_setup(void);
DYL_API void dyl_flow_call(const struct dyl_call *c);
/* --defs code (runtime/flow/defs.c): OWN in a prefix drops the outermost call's
 * std.regions extents; READS and WRITES in its postfix give the bytes it read and wrote
 * (zlib's next_in/next_out, libjpeg's rows). */
DYL_API void dyl_flow_own(void);
DYL_API void dyl_flow_reads(const void *p, uint64_t n);
DYL_API void dyl_flow_writes(const void *p, uint64_t n);
/* follow= (runtime/flow/follow.c): each outermost call also reads the heap blocks that
 * pointers stored in its buffers reach, transitively, at most CAP per call
 * (DYL_FLOW_FOLLOW_ON for follow=on).  It sets std.flow up too. */
#define DYL_FLOW_FOLLOW_ON 4096u
DYL_API void dyl_flow_follow_setup(unsigned cap);

/* Which malloc the process uses: 1 if a dyliberator wrapper's (the heap is tracked), 0
 * if another one comes first (a sanitizer or an allocator preloaded before the wrapper);
 * notes it in the trace (# regions_heap=...).  It also loads libunwind, which stack
 * frames need: whatever charges regions calls it first, from a constructor (the set-up
 * of std.regions and std.diff does; dyl_diff_setup and dyl_flow_setup load it too). */
DYL_API int dyl_regions_check_allocator(void);

/* Counters for tests and benchmarks: regions in the table, pointers charged, pointers
 * found in no region, stack unwinds done. */
struct dyl_regions_stats {
	uint64_t regions, pointers, unknown, unwinds;
};
DYL_API void dyl_regions_stats(struct dyl_regions_stats *s);

/* The loaded objects whose symbols were read so far (at the first pointer into each),
 * the ranges kept for them (static objects and section boundaries) and the bytes those
 * take. */
struct dyl_statics_stats {
	uint64_t objects, ranges, bytes;
};
DYL_API void dyl_statics_stats(struct dyl_statics_stats *s);

#ifdef __cplusplus
}
#endif
#endif
