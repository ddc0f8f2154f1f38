/* sources: runtime/flow/follow.c */
/* follow_test.c - runtime/flow/follow.c (std.flow's follow=) under ASan and UBSan, with
 * the region table, the event buffer and the notes stood in for here: a list of 3000
 * nodes (the set of blocks seen and the queue grow past their first size), every node
 * once and whole, the same again at the next call; a ring; blocks of odd sizes read only
 * within their bytes (ASan would stop an overread); the cap on blocks, with one
 * warning; a block removed from the table is not reached; a big block (>= 128 KiB) read
 * through process_vm_readv. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "check.h"
#include "../../runtime/flow/flow.h"
#include "../../runtime/regions/regions.h"

const int dyl_abi_6 = 6;
struct dyl_regions dyl_reg;	/* state 0: follow.c's set-up finds no table to map */

/* the table: blocks by start, found by a walk (the test's blocks are few) */
#define MAXB 5000
static struct { uintptr_t start, end; uint64_t id; } blocks[MAXB];
static int nblocks;

static uint64_t add_block(void *p, size_t n)
{
	blocks[nblocks] = (typeof(blocks[0])){ (uintptr_t)p, (uintptr_t)p + n, (uint64_t)nblocks + 1 };
	dyl_reg.hooks.added((uintptr_t)p, n, (uint64_t)nblocks + 1, DYL_REGION_HEAP);
	return blocks[nblocks++].id;
}

int dyl_table_find(uintptr_t p, struct dyl_region *r)
{
	for (int i = 0; i < nblocks; i++)
		if (blocks[i].start <= p && p < blocks[i].end) {
			*r = (struct dyl_region){ blocks[i].start, blocks[i].end, DYL_REGION_HEAP, blocks[i].id, 0 };
			return 1;
		}
	return 0;
}

void *dyl_raw_map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void dyl_raw_unmap(void *p, size_t n)
{
	munmap(p, n);
}

void dyl_spin_lock(int *l)
{
	(void)l;
}

void dyl_spin_unlock(int *l)
{
	(void)l;
}

void dyl_flow_setup(void)
{
}

void (*dyl_flow_follow_hook)(const struct dyl_groups *c);	/* (hooks.c's; the set-up fills it) */

void dyl_note(const char *key, const char *value)
{
	(void)key;
	(void)value;
}

static int warnings;

void dyl_warn_once(const char *key, const char *fmt, ...)
{
	(void)key;
	(void)fmt;
	warnings++;
}

/* the events: per block id, how many times a call read it, and the last range */
static int times[MAXB + 1];
static uint64_t lo_of[MAXB + 1], hi_of[MAXB + 1];
static int bad_events, nevents;

int dyl_flow_put(const uint64_t *ev, unsigned words)
{
	for (unsigned i = 0; i + 4 <= words; i += 4) {
		const uint64_t *e = ev + i;
		if (DYL_RE_TYPE(e[0]) != DYL_RE_ACC || DYL_RE_FLAGS(e[0]) != DYL_REF_FOLLOW ||
		    DYL_RE_SMALL(e[0]) != DYL_OBJ_HEAP || e[1] == 0 || e[1] > MAXB) {
			bad_events++;
			continue;
		}
		times[e[1]]++;
		nevents++;
		lo_of[e[1]] = e[2];
		hi_of[e[1]] = e[3];
	}
	return words % 4 ? -1 : 0;
}

static struct dyl_groups groups;

/* one call handed HEAD (a block of the table) as a const pointer: the events it made */
static void call(void *head, size_t n)
{
	struct dyl_region r;

	memset(times, 0, sizeof(times));
	nevents = 0;
	CHECK(dyl_table_find((uintptr_t)head, &r) == 1);
	groups.ngroups = 1;
	groups.used[0] = 0;
	groups.g[0] = (struct dyl_group){ r, (uintptr_t)head, UINTPTR_MAX, (uintptr_t)head + n, 0 };
	dyl_flow_follow(&groups);
}

struct node {
	struct node *next;
	long value;
};

/* What the steps share: the list's nodes and their block ids, and the blocks made on
 * the way (freed at the end). */
enum { N = 3000 };
static struct {
	struct node *nodes[N];
	uint64_t id[N];
	char *a, *b, *big;
} fx;

/* a list of 3000 nodes: the head is the call's own, the 2999 others read once, whole */
static void list_read_once(void)
{
	struct node **nodes = fx.nodes;
	uint64_t *id = fx.id;

	for (int i = N - 1; i >= 0; i--) {
		nodes[i] = calloc(1, sizeof(struct node));
		nodes[i]->next = i + 1 < N ? nodes[i + 1] : NULL;
		id[i] = add_block(nodes[i], sizeof(struct node));
	}
	for (int round = 0; round < 2; round++) {	/* the next call sees them all again */
		call(nodes[0], sizeof(struct node));
		CHECK(times[id[0]] == 0);
		int once = 0;
		for (int i = 1; i < N; i++)
			once += times[id[i]] == 1 && lo_of[id[i]] == 0 && hi_of[id[i]] == sizeof(struct node);
		CHECK_MSG(once == N - 1, "%d of %d nodes read once, whole", once, N - 1);
	}
	CHECK(warnings == 0);
}

/* a ring: the last node back to the first */
static void ring_of_nodes(void)
{
	struct node **nodes = fx.nodes;

	nodes[N - 1]->next = nodes[0];
	call(nodes[5], sizeof(struct node));
	int ring = 0;
	for (int i = 0; i < N; i++)
		ring += times[fx.id[i]] == (i != 5);
	CHECK_MSG(ring == N, "%d of %d", ring, N);
	nodes[N - 1]->next = NULL;
}

/* blocks of 12 and 20 bytes: their words read only within them (ASan's redzone after
 * each: a word past the end would stop the test) */
static void odd_sizes(void)
{
	char *a = fx.a = malloc(20), *b = fx.b = malloc(12);

	memset(a, 0, 20);
	memset(b, 0, 12);
	memcpy(a + 8, &b, sizeof(b));	/* a's second word points to b */
	uint64_t ida = add_block(a, 20), idb = add_block(b, 12);
	call(a, 20);
	CHECK(times[ida] == 0 && times[idb] == 1 && hi_of[idb] == 12);
}

/* blocks the table no longer holds (freed) are not reached: the list's head alone */
static void freed_not_reached(void)
{
	nblocks = 0;
	add_block(fx.nodes[0], sizeof(struct node));
	call(fx.nodes[0], sizeof(struct node));
	CHECK(nevents == 0);
}

/* a big block, 256 KiB, whose last word points to a node */
static void big_block(void)
{
	struct node **nodes = fx.nodes;

	nblocks = 0;
	uint64_t idh = add_block(nodes[0], sizeof(struct node));
	size_t bign = 256 << 10;
	char *big = fx.big = calloc(1, bign);
	memcpy(big + bign - 8, &nodes[2], sizeof(void *));
	uint64_t idbig = add_block(big, bign);
	uint64_t id2 = add_block(nodes[2], sizeof(struct node));
	nodes[0]->next = (struct node *)big;
	call(nodes[0], sizeof(struct node));
	CHECK(times[idh] == 0 && times[idbig] == 1 && hi_of[idbig] == bign && times[id2] == 1);
}

/* the cap: 16 blocks, then one warning */
static void cap(void)
{
	struct node **nodes = fx.nodes;
	uint64_t *id = fx.id;

	nblocks = 0;
	nodes[0]->next = nodes[1];
	for (int i = 0; i < N; i++)
		id[i] = add_block(nodes[i], sizeof(struct node));
	dyl_flow_follow_cap = 16;
	call(nodes[0], sizeof(struct node));
	int reached = 0;
	for (int i = 0; i < N; i++)
		reached += times[id[i]];
	CHECK_MSG(reached == 16 && nevents == 16, "%d", reached);
	CHECK(times[id[16]] == 1 && times[id[17]] == 0);	/* the nearest */
	CHECK(warnings == 1);
	call(nodes[0], sizeof(struct node));
	CHECK(warnings == 1);	/* once */
}

int main(void)
{
	dyl_flow_follow_setup(4096);
	CHECK(dyl_flow_follow_cap == 4096);

	list_read_once();
	ring_of_nodes();
	odd_sizes();
	freed_not_reached();
	big_block();
	cap();

	CHECK(bad_events == 0);
	for (int i = 0; i < N; i++)
		free(fx.nodes[i]);
	free(fx.a);
	free(fx.b);
	free(fx.big);
	return check_failures != 0;
}
