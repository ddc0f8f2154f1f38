/* resolve.c - finding the original function a wrapper forwards to.
 *
 * The original is the definition the program would have called without the wrapper:
 *  1. the first definition after the wrapper in the global lookup order, that is the
 *     loaded objects in load order, skipping other dyliberator wrappers (each exports
 *     dyl_wrapper_next as a mark).  dlsym(RTLD_NEXT) is not that: from a preloaded
 *     object it searches the object's own dependency list.  Two wrappers of libraries
 *     that share a name (xerbla_ in LAPACK and BLAS) so forward to the one the program
 *     binds to, whatever their order in LD_PRELOAD;
 *  2. the library itself, loaded in a local scope only (a module loaded with
 *     dlopen(RTLD_LOCAL), as Python and ImageMagick do): dlopen(RTLD_NOLOAD) finds it;
 *  3. the library loaded now, privately (RTLD_LOCAL), as the last resort.
 * A versioned symbol is looked up with dlvsym so that the version the program was
 * linked against is the one called.
 *
 * dlopen and dlsym are not async-signal-safe (they take locks and malloc), so signals
 * are blocked while a function is resolved: a handler that calls a wrapped function
 * would otherwise resolve it inside our interrupted dlopen.  It happens once per
 * function.  A lookup that re-enters this one (a wrapper of sigfillset, say, whose
 * original is not known yet) skips that step: only the dl* functions are needed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"
#include "elfsym.h"

static void *lookup(void *handle, const char *name, const char *version)
{
	return version ? dlvsym(handle, name, version) : dlsym(handle, name);
}

static void *open_lib(const struct dyl_lib *lib, int flags)
{
	void *h = NULL;

	if (lib->soname)
		h = dlopen(lib->soname, flags);
	if (!h && lib->path)
		h = dlopen(lib->path, flags);
	return h;
}

#define MAX_OBJECTS 1024

struct objects {
	int n;
	const char *name[MAX_OBJECTS];
};

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
	struct objects *o = data;

	if (o->n < MAX_OBJECTS)
		o->name[o->n++] = info->dlpi_name;
	return 0;
}

/* strcmp, but not through the PLT: with libc wrapped, strcmp would be a wrapper whose
 * original is being looked up right now. */
static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* NAME's own definition in the object FILE (not one of its dependencies'), or NULL. */
static void *defined_in(const char *file, const char *name, const char *version)
{
	void *h = dlopen(file, RTLD_LAZY | RTLD_NOLOAD), *fn;
	Dl_info at;

	if (!h)
		return NULL;
	fn = lookup(h, name, version);
	if (!fn && version)
		fn = dlsym(h, name);
	dlclose(h);	/* NOLOAD took a reference; the object stays loaded */
	if (!fn || !dladdr(fn, &at) || !at.dli_fname || !same(at.dli_fname, file))
		return NULL;
	return fn;
}

/* Step 1: the first definition after the wrapper that holds SELF. */
static void *global_next(const char *name, const char *version, const void *self)
{
	struct objects o;	/* not "= { 0 }": that is a call to memset */
	Dl_info me;
	int after = 0;

	if (!dladdr(self, &me) || !me.dli_fname)
		return NULL;
	o.n = 0;
	dl_iterate_phdr(collect, &o);
	for (int i = 1; i < o.n; i++) {	/* 0 is the program: it comes before any wrapper */
		const char *file = o.name[i];
		if (!file || !*file)
			continue;	/* the vDSO */
		if (!after) {
			after = same(file, me.dli_fname);
			continue;
		}
		if (defined_in(file, "dyl_wrapper_next", NULL))
			continue;	/* another wrapper: look past it */
		void *fn = defined_in(file, name, version);
		if (fn)
			return fn;
	}
	return NULL;
}

static TLS int resolving;

/* The loaded objects, as dl_iterate_phdr lists them (load order). */
struct loaded {
	int n;
	struct dl_phdr_info info[MAX_OBJECTS];
};

static int collect_info(struct dl_phdr_info *info, size_t size, void *data)
{
	struct loaded *o = data;

	if (o->n < MAX_OBJECTS)
		o->info[o->n++] = *info;
	return 0;
}

/* NAME's address in object K of O (its own definition), or NULL; E: its symbol table,
 * or NULL to ask dlsym. */
static void *find_in(const struct dl_phdr_info *info, const struct dyl_elf *e, const char *name,
		     const char *version)
{
	if (!e)
		return defined_in(info->dlpi_name, name, version);
	const ElfW(Sym) *s = dyl_elf_find(e, name, version);
	if (!s && version)
		s = dyl_elf_find(e, name, NULL);
	if (!s)
		return NULL;
	if (ELF64_ST_TYPE(s->st_info) == STT_FUNC)
		return (void *)(e->base + s->st_value);
	/* an IFUNC: its resolver chooses, through dlsym on the object (itself first in its
	 * own scope) */
	void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD), *fn = NULL;
	if (h) {
		fn = lookup(h, name, version);
		if (!fn && version)
			fn = dlsym(h, name);
		dlclose(h);
	}
	return fn;
}

/* Every original of a wrapper, at once, from its constructor: the same first step as
 * dyl_resolve (the first definition after the wrapper in load order, past other
 * wrappers), read from the objects' own symbol tables (elfsym.c).  What is not found
 * (a library not loaded yet) is left to dyl_resolve at the first call.  So a first
 * call made from a signal handler, which may have interrupted the dynamic linker or
 * malloc, finds its original already there. */
void dyl_resolve_all(const struct dyl_sym *syms, unsigned n, const void *self)
{
	/* constructors run one at a time (under the loader's lock): static, not on a
	 * constructor's stack */
	static struct loaded o;
	static struct dyl_elf elf[MAX_OBJECTS];
	static int use[MAX_OBJECTS], has_elf[MAX_OBJECTS];
	sigset_t all, old;
	int masked = 0, after = 0;
	Dl_info me;
	/* a wrapper's constructor runs after the runtime's: its lookups are tracing's cost */
	int timed = __atomic_load_n(&dyl_rt.initialized, __ATOMIC_ACQUIRE) == 2;
	uint64_t t0 = timed ? dyl_now() : 0;

	dyl_busy++;
	if (resolving++ == 0) {
		sigfillset(&all);
		masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
	}
	o.n = 0;
	if (dladdr(self, &me) && me.dli_fname)
		dl_iterate_phdr(collect_info, &o);
	for (int k = 1; k < o.n; k++) {	/* 0 is the program: it comes before any wrapper */
		const char *file = o.info[k].dlpi_name;
		use[k] = 0;
		if (!file || !*file)
			continue;	/* the vDSO */
		if (!after) {
			after = same(file, me.dli_fname);
			continue;
		}
		has_elf[k] = dyl_elf_open(&elf[k], &o.info[k]) == 0;
		use[k] = !find_in(&o.info[k], has_elf[k] ? &elf[k] : NULL, "dyl_wrapper_next", NULL);
	}
	for (unsigned i = 0; i < n; i++) {
		if (__atomic_load_n(syms[i].slot, __ATOMIC_ACQUIRE))
			continue;
		for (int k = 1; k < o.n; k++) {
			if (!use[k])
				continue;
			void *fn = find_in(&o.info[k], has_elf[k] ? &elf[k] : NULL, syms[i].name,
					   syms[i].version);
			if (fn) {
				__atomic_store_n(syms[i].slot, fn, __ATOMIC_RELEASE);
				break;
			}
		}
	}
	if (masked)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	resolving--;
	dyl_busy--;
	if (timed)
		dyl_cost_add(dyl_now() - t0);
}

/* Which file serves a wrapped library.  A soname names no file: liblapack.so.3 is
 * reference LAPACK or OpenBLAS as update-alternatives or LD_LIBRARY_PATH choose, and a
 * wrapper generated from one measures the other without a word.  So the trace names
 * the file the originals were found in, and a file that is not the one the wrapper was
 * generated from (by path, or failing that by GNU build ID) is warned about once. */

#define MAX_LIBS 64

static struct lib_seen {
	struct dyl_lib *lib;
	const char *build_id;	/* at generation, hex; NULL: unknown */
	int done;		/* 1 once reported (or being reported) */
} seen_libs[MAX_LIBS];
static int nseen_libs;

/* The loaded object holding an address (dl_iterate_phdr). */
struct owner {
	uintptr_t addr;
	const char *name;
	const ElfW(Phdr) *phdr;
	ElfW(Half) phnum;
	ElfW(Addr) base;
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
			o->name = info->dlpi_name;
			o->phdr = info->dlpi_phdr;
			o->phnum = info->dlpi_phnum;
			o->base = info->dlpi_addr;
			o->found = 1;
			return 1;
		}
	}
	return 0;
}

/* The object's GNU build ID as hex into OUT (room >= 2 * 64 + 1); 0 if it has none. */
static int build_id_of(const struct owner *o, char *out, size_t room)
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *ph = &o->phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		size_t align = ph->p_align == 8 ? 8 : 4;
		const char *p = (const char *)(o->base + ph->p_vaddr), *end = p + ph->p_memsz;
		while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const char *nm = p + sizeof(*nh);
			const unsigned char *desc = (const unsigned char *)nm
				+ ((nh->n_namesz + align - 1) & ~(align - 1));
			const char *next = (const char *)desc + ((nh->n_descsz + align - 1) & ~(align - 1));
			if (next > end || next <= p)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && nm[0] == 'G'
			    && nm[1] == 'N' && nm[2] == 'U' && nm[3] == '\0'
			    && nh->n_descsz * 2 + 1 <= room) {
				for (unsigned k = 0; k < nh->n_descsz; k++) {
					out[2 * k] = hex[desc[k] >> 4];
					out[2 * k + 1] = hex[desc[k] & 15];
				}
				out[2 * nh->n_descsz] = '\0';
				return 1;
			}
			p = next;
		}
	}
	return 0;
}

/* Notes and checks the file that FN (an original of E's library) lies in. */
static void report_lib(const struct lib_seen *e, const void *fn)
{
	struct owner o = { .addr = (uintptr_t)fn };
	char real[PATH_MAX], id[2 * 64 + 1], note[PATH_MAX + 256];
	const char *soname = e->lib->soname ? e->lib->soname : "-";

	dl_iterate_phdr(find_owner, &o);
	if (!o.found)
		return;
	/* the program itself has the empty name */
	if (!realpath(o.name && *o.name ? o.name : "/proc/self/exe", real))
		snprintf(real, sizeof(real), "%s", o.name && *o.name ? o.name : "?");
	snprintf(note, sizeof(note), "%s %s", soname, real);
	dyl_note("library", note);
	if (!e->lib->path || same(real, e->lib->path))
		return;
	if (e->build_id && build_id_of(&o, id, sizeof(id)) && same(id, e->build_id))
		return;		/* the same file by another path (a copy, a bind mount) */
	snprintf(note, sizeof(note), "%s %s", soname, e->lib->path);
	dyl_note("library_generated_from", note);
	snprintf(note, sizeof(note), "library:%s", soname);
	dyl_warn_once(note, "%s is %s here, not %s that the wrapper was generated from: "
		      "the trace measures that file", soname, real, e->lib->path);
}

/* The original that most of SYMS' found ones lie in (a library may have a few names
 * served by another object: one preloaded before it, say); NULL if none is found.
 * About 64 of them, evenly spread, are asked: each is a dl_iterate_phdr, and a wrapper
 * of libc has thousands (all of them cost 1-2 ms a process start). */
static const void *majority(const struct dyl_sym *syms, unsigned n)
{
	enum { K = 8 };
	uintptr_t base[K];
	const void *any[K];
	unsigned count[K], used = 0, best = 0, step = n / 64 + 1;

	for (unsigned i = 0; i < n; i += (used ? step : 1)) {
		void *fn = __atomic_load_n(syms[i].slot, __ATOMIC_ACQUIRE);
		struct owner o = { .addr = (uintptr_t)fn };
		unsigned k;

		if (!fn)
			continue;
		dl_iterate_phdr(find_owner, &o);
		if (!o.found)
			continue;
		for (k = 0; k < used && base[k] != o.base; k++)
			;
		if (k == used) {
			if (used == K)
				continue;
			base[k] = o.base, any[k] = fn, count[k] = 0, used++;
		}
		count[k]++;
	}
	for (unsigned k = 1; k < used; k++)
		if (count[k] > count[best])
			best = k;
	return used ? any[best] : NULL;
}

void dyl_lib_check(struct dyl_lib *lib, const char *build_id, const struct dyl_sym *syms,
		   unsigned n)
{
	struct lib_seen *e;
	const void *fn;

	/* constructors run one at a time: the table grows here only */
	if (nseen_libs == MAX_LIBS)
		return;
	dyl_busy++;	/* what this calls (realpath, snprintf) is not the program's call */
	e = &seen_libs[nseen_libs];
	e->lib = lib;
	e->build_id = build_id;
	fn = majority(syms, n);
	if (fn) {
		e->done = 1;
		report_lib(e, fn);
	}
	__atomic_store_n(&nseen_libs, nseen_libs + 1, __ATOMIC_RELEASE);
	dyl_busy--;
	if (fn)
		dyl_prepare();	/* the library is loaded: its first call is near */
}

/* dyl_resolve found FN for LIB: report LIB if its constructor could not. */
static void lib_found(struct dyl_lib *lib, const void *fn)
{
	int n = __atomic_load_n(&nseen_libs, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++) {
		struct lib_seen *e = &seen_libs[i];
		if (e->lib != lib)
			continue;
		if (!__atomic_load_n(&e->done, __ATOMIC_ACQUIRE)
		    && !__atomic_exchange_n(&e->done, 1, __ATOMIC_ACQ_REL)) {
			dyl_busy++;
			report_lib(e, fn);
			dyl_busy--;
		}
		return;
	}
}

void *dyl_resolve(struct dyl_lib *lib, const char *name, const char *version,
		  dyl_next_fn next, const void *self)
{
	void *h, *fn = NULL;
	sigset_t all, old;
	int masked = 0;

	dyl_busy++;	/* first: what this lookup calls is not the program's call */
	if (resolving++ == 0) {
		sigfillset(&all);
		masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
	}
	fn = global_next(name, version, self);
	if ((!fn || fn == self) && next) {	/* the wrapper is not in the load list? */
		fn = next(name, version);
		if (!fn && version)
			fn = next(name, NULL);
	}
	h = __atomic_load_n(&lib->handle, __ATOMIC_ACQUIRE);
	if ((!fn || fn == self) && !h) {
		h = open_lib(lib, RTLD_LAZY | RTLD_NOLOAD);
		if (h)
			__atomic_store_n(&lib->handle, h, __ATOMIC_RELEASE);
	}
	if ((!fn || fn == self) && h)
		fn = lookup(h, name, version);
	if ((!fn || fn == self) && !h) {
		h = open_lib(lib, RTLD_LAZY | RTLD_LOCAL);
		if (h) {
			__atomic_store_n(&lib->handle, h, __ATOMIC_RELEASE);
			fn = lookup(h, name, version);
		}
	}
	if (masked)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	resolving--;
	dyl_busy--;
	if (fn && fn != self) {
		lib_found(lib, fn);
		return fn;
	}
	/* No call can be made; returning would run garbage.  Say exactly why. */
	char msg[1024];
	int n = snprintf(msg, sizeof(msg),
			 "dyliberator: cannot find the original %s%s%s in %s (%s): %s\n", name,
			 version ? "@" : "", version ? version : "",
			 lib->soname ? lib->soname : "?", lib->path ? lib->path : "?",
			 dlerror() ? "not exported" : "library not loadable");
	if (n > 0 && write(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1) < 0)
		_exit(127);
	abort();
}
