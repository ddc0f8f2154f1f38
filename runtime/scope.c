/* scope.c - the definition a call would have reached without the wrappers.
 *
 * The dynamic linker binds a caller's reference to the first definition in the
 * caller's lookup scope: the global scope (the program, the preloaded objects, their
 * dependencies, what dlopen loaded RTLD_GLOBAL), then the caller's local scope (the
 * object dlopen loaded RTLD_LOCAL and its dependencies, in their order).  The wrappers
 * are in the global scope, so every caller reaches them; the original is what that
 * caller's lookup finds past them.  Under one Python, numpy's module sees OpenBLAS's
 * dgetrf_ and scipy's sees reference LAPACK's, both RTLD_LOCAL: the first definition
 * in load order is right for one of them only.
 *
 * So: the global scope past the wrappers first (dlsym(RTLD_NEXT) from the wrapper
 * searches it after the wrapper; from a later wrapper, its own dyl_wrapper_next2 goes
 * on; a wrapper without dyl_wrapper_next2, from before it, leaves the answer to load
 * order, as it was).  Found there, the answer is every caller's.  If not, and one loaded object
 * defines the name, it is that one.  If several do, each caller object gets the one
 * its own scope finds (dlsym on the object, which searches it and its dependencies in
 * their order), kept per (function, call site) in a table read without locks: such a
 * call pays a lookup in it, a few ns, and the common case (one definition) none.
 *
 * Limits: the choice between the two is made at a function's first call, so a second
 * definition loaded later, while the first was the only one, is not seen; and an entry
 * outlives its caller, so a module unloaded with dlclose and another loaded at its
 * address would inherit its call sites (Python never unloads its modules).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include "internal.h"
#include "elfsym.h"
#include "scope.h"

struct owner {
	uintptr_t addr;
	struct dl_phdr_info info;
	int found;
};

static int find_owner(struct dl_phdr_info *info, size_t size, void *data)
{
	struct owner *o = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && o->addr >= lo && o->addr - lo < ph->p_memsz) {
			o->info = *info;
			o->found = 1;
			return 1;
		}
	}
	return 0;
}

int dyl_scope_owner(const void *addr, struct dl_phdr_info *out)
{
	struct owner o = { .addr = (uintptr_t)addr };

	dl_iterate_phdr(find_owner, &o);
	if (o.found)
		*out = o.info;
	return o.found;
}

/* The object's SYM (dyl_wrapper_next: every dyliberator wrapper exports one), or NULL. */
static dyl_next_fn wrapper_fn(const struct dl_phdr_info *info, const char *sym)
{
	struct dyl_elf e;
	int has = dyl_elf_open(&e, info) == 0;

	return (dyl_next_fn)dyl_elf_defines(info, has ? &e : NULL, sym, NULL);
}

static int is_wrapper(const struct dl_phdr_info *info)
{
	return wrapper_fn(info, "dyl_wrapper_next") != NULL;
}

void *dyl_scope_global(const void *self, const char *name, const char *version, int *unknown)
{
	struct dl_phdr_info at;

	*unknown = 1;
	if (!dyl_scope_owner(self, &at))
		return NULL;
	for (int hop = 0; hop < 64; hop++) {	/* one hop per wrapper of the name */
		/* an older wrapper's dyl_wrapper_next may be a tail call to dlsym, which
		 * then looks after the runtime, not after the wrapper: not asked */
		dyl_next_fn next = wrapper_fn(&at, "dyl_wrapper_next2");
		if (!next)
			return NULL;
		void *fn = next(name, version);
		if (!fn && version)
			fn = next(name, NULL);
		if (!fn || !dyl_scope_owner(fn, &at) || !is_wrapper(&at)) {
			*unknown = 0;
			return fn;
		}
	}
	return NULL;
}

/* dyl_scope_defs' walk, in a dl_iterate_phdr callback: symbol tables only, no dl*
 * calls under the loader's lock. */
struct defs {
	const char *self, *name, *version;
	int after, count;
	void *first;
};

static int count_defs(struct dl_phdr_info *info, size_t size, void *data)
{
	struct defs *d = data;
	struct dyl_elf e;

	(void)size;
	if (!info->dlpi_name || !*info->dlpi_name)
		return 0;	/* the program (it comes before any wrapper), the vDSO */
	if (!d->after) {
		d->after = dyl_same(info->dlpi_name, d->self);
		return 0;
	}
	if (dyl_elf_open(&e, info) != 0 || dyl_elf_find(&e, "dyl_wrapper_next", NULL))
		return 0;	/* no hash table (not counted), or another wrapper */
	const ElfW(Sym) *s = dyl_elf_find(&e, d->name, d->version);
	if (!s && d->version)
		s = dyl_elf_find(&e, d->name, NULL);
	if (s && d->count++ == 0)
		d->first = ELF64_ST_TYPE(s->st_info) == STT_FUNC ? (void *)(e.base + s->st_value) : NULL;
	return 0;
}

int dyl_scope_defs(const void *self, const char *name, const char *version, void **first)
{
	struct dl_phdr_info me;
	struct defs d = { .name = name, .version = version };

	*first = NULL;
	if (!dyl_scope_owner(self, &me) || !me.dlpi_name || !*me.dlpi_name)
		return 0;
	d.self = me.dlpi_name;
	dl_iterate_phdr(count_defs, &d);
	*first = d.first;
	return d.count;
}

void *dyl_scope_caller(const void *caller, const char *name, const char *version)
{
	struct dl_phdr_info at;
	void *h, *fn;

	if (!caller || !dyl_scope_owner(caller, &at) || !at.dlpi_name || !*at.dlpi_name)
		return NULL;	/* the program's scope is the global one */
	/* the handle's lookup: the object, then its dependencies, breadth first */
	if (!(h = dlopen(at.dlpi_name, RTLD_LAZY | RTLD_NOLOAD)))
		return NULL;
	fn = version ? dlvsym(h, name, version) : dlsym(h, name);
	if (!fn && version)
		fn = dlsym(h, name);
	dlclose(h);	/* NOLOAD took a reference; the object stays loaded */
	if (!fn || !dyl_scope_owner(fn, &at) || is_wrapper(&at))
		return NULL;	/* not in its scope, or a wrapper there (the caller is one) */
	return fn;
}

/* The per-call-site originals: open addressing, entries written once and never
 * removed.  An entry is claimed by a compare-and-swap of its key from 0 and published
 * by storing the key last, so a reader (a signal handler too) sees a whole entry or
 * none. */
#define SITES 4096
#define PROBES 32
#define CLAIMED ((const void *)1)

static struct site {
	const void *slot;	/* the function (its wrapper's slot); 0: free */
	const void *caller;	/* the call's return address */
	void *fn;
} sites[SITES];

static unsigned site_hash(const void *slot, const void *caller)
{
	uint64_t k = (uint64_t)(uintptr_t)slot * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)caller;
	k *= 0xff51afd7ed558ccdull;
	return (unsigned)(k >> 40) & (SITES - 1);
}

void *dyl_scope_cached(const void *slot, const void *caller)
{
	unsigned h = site_hash(slot, caller);

	for (unsigned i = 0; i < PROBES; i++) {
		struct site *s = &sites[(h + i) & (SITES - 1)];
		const void *k = __atomic_load_n(&s->slot, __ATOMIC_ACQUIRE);
		if (!k)
			return NULL;
		if (k == slot && s->caller == caller)
			return s->fn;
	}
	return NULL;
}

void dyl_scope_keep(const void *slot, const void *caller, void *fn)
{
	unsigned h = site_hash(slot, caller);

	for (unsigned i = 0; i < PROBES; i++) {
		struct site *s = &sites[(h + i) & (SITES - 1)];
		const void *k = NULL;
		if (!__atomic_compare_exchange_n(&s->slot, &k, CLAIMED, 0, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED)) {
			if (k == slot && s->caller == caller)
				return;	/* another thread kept it */
			continue;
		}
		s->caller = caller;
		s->fn = fn;
		__atomic_store_n(&s->slot, slot, __ATOMIC_RELEASE);
		return;
	}
	/* full around here: this call site is looked up again at each call (slower, right) */
}
