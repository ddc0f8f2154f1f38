/* fw.h - a tiny library handed data structures built of pointers (std.flow's follow=
 * tests): each function gets one pointer and walks what hangs from it */
#ifndef FW_H
#define FW_H
struct fw_node {		/* 32 bytes */
	struct fw_node *next;
	long value;
	long pad[2];
};
struct fw_tree {		/* 24 bytes */
	struct fw_tree *left, *right;
	long value;
};
long fw_list_sum(const struct fw_node *head);
long fw_ring_sum(const struct fw_node *start);
long fw_tree_sum(const struct fw_tree *root);
long fw_take(const void *obj);
struct fw_node *fw_early_list(void);	/* 3 nodes made by its constructor */
#endif
