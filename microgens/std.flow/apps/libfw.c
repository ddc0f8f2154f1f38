/* libfw.c - fw.h: sums over a list, a ring and a tree; fw_take reads one word; a list
 * made by the library's constructor, before the wrapper's */
#include <stdlib.h>
#include "fw.h"

static struct fw_node *early;

__attribute__((constructor)) static void make_early(void)
{
	for (int i = 0; i < 3; i++) {
		struct fw_node *e = calloc(1, sizeof(*e));
		e->value = i + 1;
		e->next = early;
		early = e;
	}
}

struct fw_node *fw_early_list(void)
{
	return early;
}

long fw_list_sum(const struct fw_node *head)
{
	long s = 0;
	for (; head; head = head->next)
		s += head->value;
	return s;
}

long fw_ring_sum(const struct fw_node *start)
{
	long s = 0;
	const struct fw_node *n = start;
	do {
		s += n->value;
		n = n->next;
	} while (n && n != start);
	return s;
}

long fw_tree_sum(const struct fw_tree *root)
{
	return root ? root->value + fw_tree_sum(root->left) + fw_tree_sum(root->right) : 0;
}

long fw_take(const void *obj)
{
	return *(const long *)obj;
}
