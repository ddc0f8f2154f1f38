/* scope.h - the definition a call would have reached without the wrappers (scope.c). */
#ifndef DYL_SCOPE_H
#define DYL_SCOPE_H

#include <link.h>

/* The loaded object holding ADDR into OUT; 0 if none does. */
HIDDEN int dyl_scope_owner(const void *addr, struct dl_phdr_info *out);
/* NAME's first definition in the global scope past the wrapper holding SELF and any
 * wrapper after it; NULL when the global scope has none past them, or when it cannot
 * be asked (*UNKNOWN: 1; a wrapper from before dyl_wrapper_next2 is on the way). */
HIDDEN void *dyl_scope_global(const void *self, const char *name, const char *version,
			      int *unknown);
/* How many loaded objects after the wrapper holding SELF (other wrappers not counted)
 * define NAME; FIRST: the first one's definition (NULL for an IFUNC). */
HIDDEN int dyl_scope_defs(const void *self, const char *name, const char *version, void **first);
/* NAME as the local scope of the object holding CALLER finds it; NULL when it has none
 * (or finds a wrapper). */
HIDDEN void *dyl_scope_caller(const void *caller, const char *name, const char *version);
/* The original kept for the call site CALLER of the function whose slot is SLOT, or NULL. */
HIDDEN void *dyl_scope_cached(const void *slot, const void *caller);
HIDDEN void dyl_scope_keep(const void *slot, const void *caller, void *fn);

#endif
