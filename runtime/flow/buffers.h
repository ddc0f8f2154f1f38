/* buffers.h - std.flow's state and its per-thread event buffers (buffers.c): what the
 * files that record events (hooks.c's hooks, hostread.c's reads) append through.  The
 * owner's fast path (reserve, commit) is inline here: the hooks run at every malloc and
 * every outermost call.  Nothing here is exported. */
#ifndef DYL_FLOW_BUFFERS_H
#define DYL_FLOW_BUFFERS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "flow.h"
#include "encode.h"

/* every region the call's table holds (dyl_groups_collect takes at most 3/4 of
 * DYL_GROUPS: the regions past those are counted in hooks.c's capped) */
#define FGROUPS DYL_GROUPS
#define PREV_MAX 64	/* words of a call's events compared with the next call's */

struct fbuf {
	struct fbuf *next;	/* in dyl_flow.bufs, never removed (reused once dead) */
	int lock;
	int dead;		/* its thread ended: the next new thread takes it */
	pid_t tid;
	char *win;		/* the window (its chunk), or NULL */
	int nowin;		/* the spool gave no window (tried again only when full) */
	uint32_t win_id;
	uint64_t *data;		/* where events go: the window's, or priv */
	size_t cap;		/* words */
	size_t len;		/* words stored (release) */
	uint64_t *priv;		/* the private buffer (NULL until needed) */
	size_t priv_cap;
	/* the last two calls' events (words; 0: none, or too many): prev[pcur] the last
	 * one's, prev[pcur ^ 1] the one's before */
	unsigned nprev[2], pcur;
	uint64_t prev[2][PREV_MAX];
	unsigned ngroups;	/* the current call's regions (std.diff) */
	unsigned lastg;		/* the one std.diff's last piece was in (they come in order) */
	struct fgroup groups[FGROUPS];
};

/* std.flow's process-wide state */
struct dyl_flow_state {
	int on;
	int lock;		/* the list */
	struct fbuf *bufs;
	pthread_key_t key;
	uint32_t windows;	/* ids given */
	uint64_t lost;		/* events dropped */
};
HIDDEN extern struct dyl_flow_state dyl_flow;

HIDDEN extern TLS struct fbuf *dyl_flow_mine;	/* the thread's buffer (NULL: none yet) */
HIDDEN extern TLS int dyl_flow_in;	/* re-entered (a signal handler, or malloc from within) */
HIDDEN extern TLS int dyl_flow_diff_look;	/* in std.diff's look (it holds dyl_busy, not dyl_out.io) */

/* buffers.c: the calling thread's buffer, made or taken over (NULL: no memory) */
HIDDEN struct fbuf *dyl_flow_own_buffer(void);
/* buffers.c: the owner's buffer B is full: room made for WORDS more words.  0, or -1. */
HIDDEN int dyl_flow_make_room(struct fbuf *b, unsigned words);
/* buffers.c: every buffer's events into the spool (dyl_out.io held) */
HIDDEN void dyl_flow_copy_all(void);
/* buffers.c: a forked child's buffers: emptied, its parent's windows let go */
HIDDEN void dyl_flow_buffers_forked(void);
/* buffers.c: set-up, once (the key whose destructor copies out a thread's events) */
HIDDEN void dyl_flow_buffers_setup(void);

static inline struct dyl_flow_chunk *win_head(const struct fbuf *b)
{
	return (struct dyl_flow_chunk *)(b->win + sizeof(struct dyl_chunk));
}

/* room for WORDS words at the end of the calling thread's buffer (NULL: none, the
 * events dropped); commit(N) then stores that N of them were written */
static inline uint64_t *reserve(unsigned words)
{
	struct fbuf *b = dyl_flow_mine;

	if (dyl_unlikely(!b) && !(b = dyl_flow_own_buffer()))
		goto lost;
	/* (full; or private while the spool exists now: into it, and a window) */
	if (dyl_unlikely(b->len + words > b->cap || (!b->win && !b->nowin && dyl_spool.fd >= 0 && !dyl_busy)) &&
	    dyl_flow_make_room(b, words) != 0)
		goto lost;
	return b->data + b->len;
lost:
	__atomic_fetch_add(&dyl_flow.lost, 1, __ATOMIC_RELAXED);
	return NULL;
}

static inline void commit(unsigned words)
{
	struct fbuf *b = dyl_flow_mine;
	size_t len = b->len + words;
	__atomic_store_n(&b->len, len, __ATOMIC_RELEASE);
	if (b->win)	/* what a reader of the file sees */
		__atomic_store_n(&win_head(b)->words, (uint32_t)len, __ATOMIC_RELEASE);
}

#endif
