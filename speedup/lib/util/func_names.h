/* func_names.h - traced function names, interned: each distinct name gets a small id, so that
 * the per-row work is one hash lookup and everything after it indexes arrays. */
#ifndef SPEEDUP_FUNCS_H
#define SPEEDUP_FUNCS_H

#include <stddef.h>

struct func {
	char *name;
	size_t len;
	const char *shown;	/* the name for people (shown.h): NAME unless it has control bytes */
	unsigned long hash;
	int model;	/* the model that matches the name: its index in the struct models
			 * it was matched against (model.h); -1 if none */
	/* a trace's '# handle_only=NAME PARAMS BYTES': its calls' only bytes were the
	 * struct behind PARAMS (the wrapper's note, runtime/handles.c); NULL if none */
	char *handle_only;
};

/* The id of NAME (LEN bytes, not NUL-terminated), added if new: then *ADDED is 1.
 * Returns -1 when out of memory. */
int funcs_intern(const char *name, size_t len, int *added);
struct func *funcs_get(int id);
int funcs_count(void);

#endif
