/* dyl_handles.h - buffers bound to a handle, for --defs code (runtime/handles.c).
 *
 * Some libraries keep a call's data behind a handle: FFTW's plan holds the arrays that
 * fftw_execute(p) transforms, and the call itself receives only the plan.  std.regions
 * then sees the plan's few bytes, not the arrays.  --defs code says where the data is:
 *
 *   in the function that makes the handle (its postfix, where dyl_result is the handle):
 *     dyl_bind(dyl_result, "in", in, bytes, DYL_READ);     a buffer the handle's calls read
 *     dyl_bind(dyl_result, "out", out, bytes, DYL_WRITE);  ... or write (or both)
 *     dyl_bind_work(dyl_result, flops);                    the work of one call through it
 *   in a function that uses it (its prefix):
 *     dyl_use(p);                          every buffer bound to p, where it was bound
 *     dyl_use_at(p, "in", new_in);         buffer "in" of p's size, at another address
 *   in the function that ends it (its prefix, before the memory is freed):
 *     dyl_unbind(p);
 *
 * A call that uses a handle counts its buffers as its input and output bytes (added to
 * input_size and output_size), takes the bound work as its work_size when the code set
 * none, and, under std.flow, reads and writes those buffers instead of std.regions'
 * extents (dyl_flow_own, dyl_flow_reads, dyl_flow_writes); under std.diff, the program's
 * writes to the buffers it reads are looked for first, as std.diff does for arguments.
 *
 * The table: bind and unbind take a lock; a lookup takes none (each handle's entry has a
 * sequence count that a reader checks, and retries on, as a seqlock).
 */
#ifndef DYL_HANDLES_H
#define DYL_HANDLES_H

#include <stdint.h>
#include "dyl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DYL_READ 1u	/* the handle's calls read the buffer */
#define DYL_WRITE 2u	/* they write it */

#define DYL_HANDLE_BUFFERS 8u	/* buffers one handle may hold */

/* Binds buffer NAME (a string that lives as long as the process: a literal) of HANDLE to
 * [P, P + BYTES), read and/or written (DIR) by the calls that use HANDLE.  A second
 * binding of the same name replaces the first.  0, or -1 when the table or the handle's
 * buffers are full (a warning says so once). */
DYL_API int dyl_bind(const void *handle, const char *name, const void *p, uint64_t bytes,
		     unsigned dir);
/* The work size of one call that uses HANDLE (FFTW: the plan's flops). */
DYL_API int dyl_bind_work(const void *handle, int64_t work);
/* Drops every binding of HANDLE. */
DYL_API void dyl_unbind(const void *handle);

/* One buffer a call uses: what dyl_use and dyl_use_at collect in the wrapper. */
struct dyl_use_buf {
	const void *p;
	uint64_t bytes;
	unsigned dir;
};
/* The buffers one call uses; a local of the wrapper (std.defs declares it as dyl_uses). */
struct dyl_uses {
	unsigned n;
	unsigned applied;	/* the postfix has counted them: a later dyl_use is too late */
	int64_t work;		/* the bound work, DYL_NONE if none */
	struct dyl_use_buf b[DYL_HANDLE_BUFFERS];
};

/* Adds HANDLE's buffers to U: all of them (NAME NULL), or buffer NAME moved to AT.  The
 * number of buffers added (0: HANDLE or NAME is not bound). */
DYL_API unsigned dyl_uses_add(struct dyl_uses *u, const void *handle, const char *name,
			      const void *at);

#define dyl_use(h) dyl_uses_add(&dyl_uses, (h), NULL, NULL)
#define dyl_use_at(h, name, p) dyl_uses_add(&dyl_uses, (h), (name), (p))

/* A call whose only traffic is a small struct passed by pointer (PARAMS: those
 * parameters' names): noted once per function in the trace ('# handle_only='), since the
 * buffers it works on may hang from that struct, unseen. */
DYL_API void dyl_handle_only(const struct dyl_call *c, const char *params);

#ifdef __cplusplus
}
#endif
#endif
