/* resolve.c - finding the original function a wrapper forwards to.
 *
 * The original is the definition the program would have called without the wrapper:
 *  1. what the caller's lookup finds past the wrappers (scope.c): the global scope's
 *     first definition past them; else the one loaded object that defines the name;
 *     else, where several do, the caller's own scope's, per call site.  Wrappers
 *     (each exports dyl_wrapper_next as a mark) are looked past: two wrappers of
 *     libraries that share a name (xerbla_ in LAPACK and BLAS) so forward to the one
 *     the program binds to, whatever their order in LD_PRELOAD.  A wrapper built
 *     before scope.c (no dyl_wrapper_next2) gets the first definition in load order;
 *  2. the library itself, loaded in a local scope only (a module loaded with
 *     dlopen(RTLD_LOCAL), as Python and ImageMagick do): dlopen(RTLD_NOLOAD) finds it;
 *  3. the library loaded now, privately (RTLD_LOCAL), as the last resort.
 * A versioned symbol is looked up with dlvsym so that the version the program was
 * linked against is the one called.
 *
 * dlopen and dlsym are not async-signal-safe (they take locks and malloc), so signals
 * are blocked while a function is resolved: a handler that calls a wrapped function
 * would otherwise resolve it inside our interrupted dlopen.  It happens once per
 * function (per call site where the caller decides).  A lookup that re-enters this one (a wrapper of sigfillset, say, whose
 * original is not known yet) skips that step: only the dl* functions are needed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "elfsym.h"
#include "scope.h"

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

/* NAME's own definition in the object FILE (not one of its dependencies'), or NULL. */
static void *defined_in(const char *file, const char *name, const char *version)
{
	struct dl_phdr_info info = { .dlpi_name = file };

	return dyl_elf_defines(&info, NULL, name, version);
}

/* The first definition after the wrapper that holds SELF, in load order, past other
 * wrappers (through dlsym: an IFUNC's resolver chooses). */
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
			after = dyl_same(file, me.dli_fname);
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
	struct dyl_elf elf[MAX_OBJECTS];
	int use[MAX_OBJECTS], has_elf[MAX_OBJECTS];	/* not a wrapper; its table read */
};

static int collect_info(struct dl_phdr_info *info, size_t size, void *data)
{
	struct loaded *o = data;

	if (o->n < MAX_OBJECTS)
		o->info[o->n++] = *info;
	return 0;
}

/* Does an object of O after K define NAME too?  (Symbol tables only: an object
 * without one is not asked.) */
static int defined_after(const struct loaded *o, int k, const char *name, const char *version)
{
	for (int j = k + 1; j < o->n; j++)
		if (o->use[j] && o->has_elf[j] && (dyl_elf_find(&o->elf[j], name, version)
						   || (version && dyl_elf_find(&o->elf[j], name, NULL))))
			return 1;
	return 0;
}

/* Every original of a wrapper, at once, from its constructor: the first definition
 * after the wrapper in load order, past other wrappers, read from the objects' own
 * symbol tables (elfsym.c).  A name that several objects define is the global scope's
 * (scope.c), or else left to each caller at its first call.  What is not found (a
 * library not loaded yet) is left to dyl_resolve_at at the first call.  So a first
 * call made from a signal handler, which may have interrupted the dynamic linker or
 * malloc, finds its original already there. */
void dyl_resolve_all(const struct dyl_sym *syms, unsigned n, const void *self)
{
	/* constructors run one at a time (under the loader's lock): static, not on a
	 * constructor's stack */
	static struct loaded o;
	struct dyl_elf *elf = o.elf;
	int *use = o.use, *has_elf = o.has_elf;
	sigset_t all, old;
	int masked = 0, after = 0, unknown;
	Dl_info me;
	/* a wrapper's constructor runs after the runtime's: its lookups are tracing's cost */
	int timed = __atomic_load_n(&dyl_proc.initialized, __ATOMIC_ACQUIRE) == 2;
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
			after = dyl_same(file, me.dli_fname);
			continue;
		}
		has_elf[k] = dyl_elf_open(&elf[k], &o.info[k]) == 0;
		use[k] = !dyl_elf_defines(&o.info[k], has_elf[k] ? &elf[k] : NULL, "dyl_wrapper_next", NULL);
	}
	for (unsigned i = 0; i < n; i++) {
		if (__atomic_load_n(syms[i].slot, __ATOMIC_ACQUIRE))
			continue;
		for (int k = 1; k < o.n; k++) {
			if (!use[k])
				continue;
			void *fn = dyl_elf_defines(&o.info[k], has_elf[k] ? &elf[k] : NULL,
						   syms[i].name, syms[i].version);
			if (!fn)
				continue;
			/* defined again further on: the global scope's answer, or each
			 * caller's at its call (dyl_resolve_at) */
			if (defined_after(&o, k, syms[i].name, syms[i].version)) {
				void *global = dyl_scope_global(self, syms[i].name,
								syms[i].version, &unknown);
				if (!unknown)
					fn = global;
			}
			if (fn)
				__atomic_store_n(syms[i].slot, fn, __ATOMIC_RELEASE);
			break;
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
 * generated from (by path, by device and inode, or failing that by GNU build ID) is
 * warned about once.  Calls from different objects may reach different files (each
 * caller's scope, scope.c): those that reach another file than the one named are
 * noted too, once per caller object and file. */

#define MAX_LIBS 64

static struct lib_seen {
	struct dyl_lib *lib;
	const char *build_id;	/* at generation, hex; NULL: unknown */
	int done;		/* 1 once reported (or being reported) */
	uintptr_t base;		/* the reported file's load address, once reported */
} seen_libs[MAX_LIBS];
static int nseen_libs;

/* The object's GNU build ID as hex into OUT (room >= 2 * 64 + 1); 0 if it has none. */
static int build_id_of(const struct dl_phdr_info *o, char *out, size_t room)
{
	static const char hex[] = "0123456789abcdef";
	size_t n;
	const unsigned char *id = dyl_elf_build_id(o, &n);

	if (!id || n * 2 + 1 > room)
		return 0;
	for (size_t k = 0; k < n; k++) {
		out[2 * k] = hex[id[k] >> 4];
		out[2 * k + 1] = hex[id[k] & 15];
	}
	out[2 * n] = '\0';
	return 1;
}

/* PATH's real name into REAL ("?" if none); the program itself has the empty name. */
static void real_name(const char *path, char *real)
{
	if (!realpath(path && *path ? path : "/proc/self/exe", real))
		snprintf(real, PATH_MAX, "%s", path && *path ? path : "?");
}

/* Are A and B one file: the same name, or the same device and inode (a hard link, a
 * bind mount)? */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (dyl_same(a, b))
		return 1;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev
		&& sa.st_ino == sb.st_ino;
}

/* The DT_SONAME of the object O, or NULL. */
static const char *soname_of(const struct dl_phdr_info *o)
{
	struct dyl_elf e;

	dyl_elf_open(&e, o);
	return e.soname;
}

/* Notes and checks the file that FN (an original of E's library) lies in. */
static void report_lib(struct lib_seen *e, const void *fn)
{
	struct dl_phdr_info o;
	char real[PATH_MAX], id[2 * 64 + 1], note[PATH_MAX + 256];
	const char *soname = e->lib->soname ? e->lib->soname : "-", *other;

	if (!dyl_scope_owner(fn, &o))
		return;
	__atomic_store_n(&e->base, o.dlpi_addr, __ATOMIC_RELEASE);
	real_name(o.dlpi_name, real);
	snprintf(note, sizeof(note), "%s %s", soname, real);
	dyl_note(DYL_KEY_LIBRARY, note);
	if (!e->lib->path || same_file(real, e->lib->path))
		return;
	if (e->build_id && build_id_of(&o, id, sizeof(id)) && dyl_same(id, e->build_id))
		return;		/* the same file by another path (a copy) */
	snprintf(note, sizeof(note), "%s %s", soname, e->lib->path);
	dyl_note(DYL_KEY_LIBRARY_GENERATED_FROM, note);
	snprintf(note, sizeof(note), "library:%s", soname);
	other = soname_of(&o);
	if (other && e->lib->soname && !dyl_same(other, e->lib->soname))
		/* not this library's file: another library that defines the same names and
		 * comes first for the program (OpenBLAS's libblas.so.3 before
		 * libopenblas.so.0) */
		dyl_warn_once(note, "the program's calls to %s's functions reach %s (%s) here, "
			      "which defines them too, not %s that the wrapper was generated from: "
			      "the trace measures that file", soname, other, real, e->lib->path);
	else
		dyl_warn_once(note, "%s is %s here, not %s that the wrapper was generated from: "
			      "the trace measures that file", soname, real, e->lib->path);
}

/* FN, the original of a call from CALLER, is not in the file '# library=' names for
 * LIB: '# library_for=SONAME PATH (called from CALLER)', once per such pair (the
 * first few). */
static void note_caller(struct dyl_lib *lib, const void *fn, const void *caller)
{
	enum { MAX_NOTED = 16 };
	static struct { uintptr_t lib, def, from; } noted[MAX_NOTED];
	static int nnoted, noted_lock;
	struct dl_phdr_info def, from;
	char real[PATH_MAX], by[PATH_MAX], note[2 * PATH_MAX + 64];
	int n = __atomic_load_n(&nseen_libs, __ATOMIC_ACQUIRE), i;

	for (i = 0; i < n && seen_libs[i].lib != lib; i++)
		;
	if (i == n || !__atomic_load_n(&seen_libs[i].base, __ATOMIC_ACQUIRE))
		return;
	if (!dyl_scope_owner(fn, &def) || !dyl_scope_owner(caller, &from)
	    || def.dlpi_addr == seen_libs[i].base)
		return;
	/* a spin lock: signals are blocked, and no dl* call is made under it */
	while (__atomic_exchange_n(&noted_lock, 1, __ATOMIC_ACQUIRE))
		;
	int k;
	for (k = 0; k < nnoted; k++)
		if (noted[k].lib == (uintptr_t)lib && noted[k].def == def.dlpi_addr && noted[k].from == from.dlpi_addr)
			break;
	int fresh = k == nnoted && nnoted < MAX_NOTED;
	if (fresh) {
		noted[nnoted].lib = (uintptr_t)lib, noted[nnoted].def = def.dlpi_addr;
		noted[nnoted++].from = from.dlpi_addr;
	}
	__atomic_store_n(&noted_lock, 0, __ATOMIC_RELEASE);
	if (!fresh)
		return;
	real_name(def.dlpi_name, real);
	real_name(from.dlpi_name, by);
	snprintf(note, sizeof(note), "%s %s (called from %s)", lib->soname ? lib->soname : "-",
		 real, by);
	dyl_note(DYL_KEY_LIBRARY_FOR, note);
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
		struct dl_phdr_info o;
		unsigned k;

		if (!fn || !dyl_scope_owner(fn, &o))
			continue;
		for (k = 0; k < used && base[k] != o.dlpi_addr; k++)
			;
		if (k == used) {
			if (used == K)
				continue;
			base[k] = o.dlpi_addr, any[k] = fn, count[k] = 0, used++;
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

/* dyl_resolve_at found FN for LIB: report LIB if its constructor could not. */
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

/* The original of NAME for a call from CALLER (NULL: any caller); *SHARED: whether it
 * is every caller's (else it is CALLER's call site's). */
static void *find_original(struct dyl_lib *lib, const char *name, const char *version,
			   dyl_next_fn next, const void *self, const void *caller, int *shared)
{
	void *h, *fn, *first;
	int defs, unknown;

	*shared = 1;
	fn = dyl_scope_global(self, name, version, &unknown);
	if (unknown)		/* an older wrapper: load order, as it was */
		fn = global_next(name, version, self);
	else if (!fn && (defs = dyl_scope_defs(self, name, version, &first)) > 0) {
		if (defs > 1 && caller) {
			*shared = 0;
			fn = dyl_scope_caller(caller, name, version);
		}
		if (!fn)	/* one definition (an IFUNC: through dlsym), or none in the
				 * caller's scope (a pointer it got elsewhere): load order */
			fn = first ? first : global_next(name, version, self);
	}
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
	return fn == self ? NULL : fn;
}

static void *resolve(struct dyl_lib *lib, const char *name, const char *version,
		     dyl_next_fn next, const void *self, void **slot, const void *caller)
{
	void *fn;
	sigset_t all, old;
	int masked = 0, shared;

	dyl_busy++;	/* first: what this lookup calls is not the program's call */
	if (resolving++ == 0) {
		sigfillset(&all);
		masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
	}
	fn = find_original(lib, name, version, next, self, caller, &shared);
	if (fn) {
		lib_found(lib, fn);
		if (!shared) {
			note_caller(lib, fn, caller);
			dyl_scope_keep(slot, caller, fn);
		} else if (slot) {
			__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
		}
	}
	if (masked)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	resolving--;
	dyl_busy--;
	if (fn)
		return fn;
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

void *dyl_resolve(struct dyl_lib *lib, const char *name, const char *version,
		  dyl_next_fn next, const void *self)
{
	return resolve(lib, name, version, next, self, NULL, NULL);
}

void *dyl_resolve_at(struct dyl_lib *lib, const char *name, const char *version,
		     dyl_next_fn next, const void *self, void **slot, const void *caller)
{
	/* a call site of a function that several loaded objects define: known already? */
	void *fn = dyl_scope_cached(slot, caller);

	return fn ? fn : resolve(lib, name, version, next, self, slot, caller);
}
