/* messages.c - dyl-flow --messages: an MPI job's messages between ranks (std.mpi's
 * rows, matched as speedup/lib/trace/mpi_ranks.h matches them): each edge the sender's
 * call on one rank to the receiver's call on another, with the messages and bytes, as
 * MCPROF shows the communication between threads. */
#include <stdlib.h>
#include <string.h>
#include "func_names.h"
#include "grow.h"
#include "input.h"
#include "mpi_ranks.h"
#include "flowtool.h"

/* One edge: (rank, call) -> (rank, call), its messages and bytes */
struct medge {
	int src, dst;		/* world ranks */
	uint32_t sfunc, dfunc;
	uint64_t messages, bytes;
};

struct medges {
	const struct mj_rank *r;
	struct medge *e;
	size_t n, room;
};

static int add_msg(void *ctx, int recv, size_t recv_ev, int send, size_t send_ev, int64_t bytes)
{
	struct medges *m = ctx;
	int src = m->r[send].rank, dst = m->r[recv].rank;
	uint32_t sf = m->r[send].ev[send_ev].func, df = m->r[recv].ev[recv_ev].func;

	for (size_t i = 0; i < m->n; i++)
		if (m->e[i].src == src && m->e[i].dst == dst && m->e[i].sfunc == sf && m->e[i].dfunc == df) {
			m->e[i].messages++;
			m->e[i].bytes += bytes > 0 ? (uint64_t)bytes : 0;
			return 0;
		}
	if (grow(&m->e, sizeof(*m->e), m->n, &m->room, 16) != 0)
		return -1;
	m->e[m->n++] = (struct medge){ src, dst, sf, df, 1, bytes > 0 ? (uint64_t)bytes : 0 };
	return 0;
}

static int by_bytes(const void *a, const void *b)
{
	const struct medge *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->src != y->src)
		return x->src - y->src;
	return x->dst - y->dst;
}

static const char *fname(uint32_t f)
{
	return funcs_get((int)f)->name;
}

/* DOT: a cluster a rank, its MPI calls that sent or received as boxes */
static void put_dot_msgs(FILE *out, const struct medges *m)
{
	fprintf(out, "digraph messages {\n  rankdir=LR;\n  node [shape=box];\n");
	for (size_t i = 0; i < m->n; i++) {
		const struct medge *e = &m->e[i];
		fprintf(out, "  subgraph cluster_rank%d { label=\"rank %d\"; \"rank %d: %s\"; }\n",
			e->src, e->src, e->src, fname(e->sfunc));
		fprintf(out, "  subgraph cluster_rank%d { label=\"rank %d\"; \"rank %d: %s\"; }\n",
			e->dst, e->dst, e->dst, fname(e->dfunc));
		fprintf(out, "  \"rank %d: %s\" -> \"rank %d: %s\" [label=\"%llu B, %llu message%s\"];\n",
			e->src, fname(e->sfunc), e->dst, fname(e->dfunc),
			(unsigned long long)e->bytes, (unsigned long long)e->messages,
			e->messages == 1 ? "" : "s");
	}
	fprintf(out, "}\n");
}

int put_messages(FILE *out, char *const *files, int n, int dot)
{
	struct mj_rank *r = calloc((size_t)n + 1, sizeof(*r));
	struct medges m = { .r = r };
	int nr = 0, rc = 0;

	if (!r)
		return 1;
	for (int i = 0; i < n && rc == 0; i++) {
		int got = mj_read(&r[nr], files[i], NULL);
		rc = got < 0 ? EXIT_BAD_INPUT : 0;
		nr += got > 0;
	}
	if (rc == 0 && nr == 0) {
		input_error(NULL, 0, "--messages: no trace is an MPI rank's (std.mpi: '# mpi_rank=')");
		rc = EXIT_BAD_INPUT;
	}
	if (rc == 0 && mj_match_msgs(r, nr, add_msg, &m) < 0)
		rc = 1;
	if (rc == 0) {
		qsort(m.e, m.n, sizeof(*m.e), by_bytes);
		if (dot)
			put_dot_msgs(out, &m);
		else {
			fprintf(out, "sender,receiver,messages,bytes\n");
			for (size_t i = 0; i < m.n; i++)
				fprintf(out, "rank %d: %s,rank %d: %s,%llu,%llu\n", m.e[i].src,
					fname(m.e[i].sfunc), m.e[i].dst, fname(m.e[i].dfunc),
					(unsigned long long)m.e[i].messages,
					(unsigned long long)m.e[i].bytes);
		}
	}
	for (int i = 0; i < nr; i++)
		mj_rank_free(&r[i]);
	free(r);
	free(m.e);
	return rc;
}
