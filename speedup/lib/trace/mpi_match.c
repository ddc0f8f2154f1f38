/* mpi_match.c - an MPI job's messages: each receive matched with its send (mpi_ranks.h). */
#include <stdlib.h>
#include "grow.h"
#include "input.h"
#include "mpi_ranks.h"

/* A send or a receive, to match by (src, dst, comm, tag) and order */
struct msg {
	int64_t src, dst, comm, tag;
	int rank;		/* index in the job of the rank that made it */
	size_t ev, order;	/* its event (a receive: where it completes); its order */
	int64_t bytes;		/* a receive's: what it got */
};

static int cmp_msg(const void *a, const void *b)
{
	const struct msg *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The same (src, dst, comm, tag) */
static int cmp_key(const struct msg *x, const struct msg *y)
{
	return x->src != y->src || x->dst != y->dst || x->comm != y->comm || x->tag != y->tag;
}

/* The Irecv of rank R numbered REQ: its event (where it was posted), or I itself */
static size_t posted_at(const struct mj_rank *r, int64_t req, size_t i)
{
	for (size_t j = i; j-- > 0;)
		if (r->ev[j].kind == MJ_IRECV && r->ev[j].req == req)
			return j;
	return i;
}

/* The job's sends (S) and receives (V), each in its rank's order: sends by call,
 * receives by posting (MPI's non-overtaking rule).  0 or -1. */
static int collect_msgs(const struct mj_rank *rs, int nr, struct msg **s, size_t *ns, struct msg **v,
			size_t *nv)
{
	size_t sroom = 0, vroom = 0;

	for (int k = 0; k < nr; k++) {
		const struct mj_rank *r = &rs[k];
		for (size_t i = 0; i < r->nev; i++) {
			const struct mj_event *e = &r->ev[i];
			if (e->kind == MJ_SEND || e->kind == MJ_ISEND || e->kind == MJ_SENDRECV) {
				if (grow(s, sizeof(**s), *ns, &sroom, 64) != 0)
					return -1;
				(*s)[(*ns)++] = (struct msg){ r->rank, e->peer, e->comm, e->tag, k, i, i, 0 };
			}
			if (e->kind == MJ_RECV) {
				if (grow(v, sizeof(**v), *nv, &vroom, 64) != 0)
					return -1;
				(*v)[(*nv)++] = (struct msg){ e->peer, r->rank, e->comm, e->tag, k, i, i,
								     e->out_bytes };
			}
			for (size_t t = 0; t < e->nitems; t++) {
				const struct mj_item *it = &e->items[t];
				if (it->kind != 'r')
					continue;
				if (grow(v, sizeof(**v), *nv, &vroom, 64) != 0)
					return -1;
				(*v)[(*nv)++] = (struct msg){ it->peer, r->rank, it->comm, it->tag, k, i,
							     posted_at(r, it->req, i), it->bytes };
			}
		}
	}
	return 0;
}

long mj_match_msgs(const struct mj_rank *r, int n, mj_msg_fn fn, void *ctx)
{
	struct msg *s = NULL, *v = NULL;
	size_t ns = 0, nv = 0, a = 0, b = 0;
	long matched = 0;
	int rc = collect_msgs(r, n, &s, &ns, &v, &nv);

	if (rc != 0)
		input_error(NULL, 0, "out of memory");
	qsort(s, ns, sizeof(*s), cmp_msg);
	qsort(v, nv, sizeof(*v), cmp_msg);
	for (size_t i = 0; i < ns; i++)	/* order: the n-th of its key */
		s[i].order = i > 0 && !cmp_key(&s[i - 1], &s[i]) ? s[i - 1].order + 1 : 0;
	for (size_t i = 0; i < nv; i++)
		v[i].order = i > 0 && !cmp_key(&v[i - 1], &v[i]) ? v[i - 1].order + 1 : 0;
	while (rc == 0 && a < ns && b < nv) {
		int c = cmp_msg(&s[a], &v[b]);
		if (c < 0)
			a++;
		else if (c > 0)
			b++;
		else {
			rc = fn(ctx, v[b].rank, v[b].ev, s[a].rank, s[a].ev, v[b].bytes);
			matched++;
			a++, b++;
		}
	}
	free(s);
	free(v);
	return rc == 0 ? matched : -1;
}
