/* libfw.c - fw.h: sums over a list, a ring and a tree; fw_take reads one word */
#include "fw.h"

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
