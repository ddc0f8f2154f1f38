/* follow.c - std.flow's follow= scenarios (test_follow.py): data structures built of
 * pointers handed to fw.h's calls.  Usage: follow SCENARIO [N].  The program marks its
 * allocation sites with "SITE name" comments. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fw.h"

/* a list of N nodes, values 1..N */
static struct fw_node *list(int n)
{
	struct fw_node *head = NULL;
	for (int i = n; i > 0; i--) {
		struct fw_node *e = calloc(1, sizeof(*e));	/* SITE node */
		e->value = i;
		e->next = head;
		head = e;
	}
	return head;
}

/* a complete binary tree of DEPTH levels */
static struct fw_tree *tree(int depth)
{
	if (depth == 0)
		return NULL;
	struct fw_tree *t = calloc(1, sizeof(*t));	/* SITE tree */
	t->value = 1;
	t->left = tree(depth - 1);
	t->right = tree(depth - 1);
	return t;
}

/* N blocks of 64 bytes, each one's first word pointing into the middle (byte 40) of
 * the next */
static void *middles(int n)
{
	char *next = NULL;
	for (int i = 0; i < n; i++) {
		char *b = calloc(1, 64);	/* SITE middle */
		memcpy(b, &next, sizeof(next));
		next = b + 40;
	}
	return next - 40;
}

/* a thread's call on the list the main thread made */
static void *summer(void *head)
{
	return (void *)fw_list_sum(head);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "list";
	int n = argc > 2 ? atoi(argv[2]) : 10;
	long r = 0;

	if (!strcmp(what, "list")) {
		r = fw_list_sum(list(n));
	} else if (!strcmp(what, "early")) {
		r = fw_list_sum(fw_early_list());
	} else if (!strcmp(what, "threads")) {
		/* 4 threads in turn, each summing the list once (each its own walk state,
		 * given back when it ends) */
		struct fw_node *head = list(n);
		for (int i = 0; i < 4; i++) {
			pthread_t t;
			void *got;
			pthread_create(&t, NULL, summer, head);
			pthread_join(t, &got);
			r += (long)got;
		}
	} else if (!strcmp(what, "twice")) {
		struct fw_node *head = list(n);
		r = fw_list_sum(head);
		r += fw_list_sum(head);	/* the same pointer: the same accesses again */
	} else if (!strcmp(what, "ring")) {
		struct fw_node *head = list(n), *e = head;
		while (e->next)
			e = e->next;
		e->next = head;	/* the last node points back to the first */
		r = fw_ring_sum(head) + fw_ring_sum(head->next);
	} else if (!strcmp(what, "tree")) {
		r = fw_tree_sum(tree(n));
	} else if (!strcmp(what, "middle")) {
		r = fw_take(middles(n)) != 0;
	} else if (!strcmp(what, "freed")) {
		/* call 1 reaches X; X is freed; call 2 sees X's address again, now no block's,
		 * and C, a live block */
		long *a = calloc(4, sizeof(long));	/* SITE holder */
		long *x = calloc(6, sizeof(long));	/* SITE gone */
		long *c = calloc(5, sizeof(long));	/* SITE live */
		a[0] = (long)(uintptr_t)x;
		r = fw_take(a) != 0;
		free(x);
		a[1] = (long)(uintptr_t)c;
		r += fw_take(a) != 0;
		free(c);
	} else if (!strcmp(what, "big")) {
		/* N blocks of 256 KiB (glibc maps each apart), each one's last word pointing to
		 * the next */
		char *next = NULL;
		for (int i = 0; i < n; i++) {
			char *b = calloc(1, 256 << 10);	/* SITE bigs */
			memcpy(b + (256 << 10) - 8, &next, sizeof(next));
			next = b;
		}
		r = fw_take(next) == 0;
	} else if (!strcmp(what, "budget")) {
		/* a node's address in the last word of a 128 KiB buffer of zeros */
		long *big = calloc(16384, sizeof(long));	/* SITE big */
		big[16383] = (long)(uintptr_t)list(1);
		r = fw_take(big);
	} else {
		fprintf(stderr, "follow: unknown scenario %s\n", what);
		return 2;
	}
	printf("%ld\n", r);
	return 0;
}
