/* stackvars.c - the variable a stack pointer points into, from the program's DWARF.
 *
 * stackframe.c bounds a stack pointer by the data of the frame holding it, and a frame
 * holds many variables: Fortran BLAS's `&ldc`, one int, was charged the rest of its
 * caller's locals, all that changed among them.  Where the object holding the frame's
 * function has debug information (built with -g), the variable is known: its place
 * relative to the frame's canonical frame address (a DW_OP_fbreg location, the frame
 * base being DW_OP_call_frame_cfa, as gcc and optimising clang emit on x86-64, or rbp,
 * as clang -O0 does, 16 bytes below the CFA after the standard prologue) and its size,
 * its type's; and whether that type is double, or an array of doubles (std.diff's typed
 * look, diff.c).  A function's stack-passed parameters lie at its CFA and up, in its
 * caller's frame: the caller's frame is looked at with the callee's parameters too.
 *
 * libdw is loaded with dlopen at the first lookup: a process that never passes a stack
 * pointer pays nothing, and without libdw1 (or without -g) the frame bounds stay.  The
 * variables of each code address (a frame's return address) are read once and cached;
 * a later lookup is a hash probe under a lock.  Reading them calls dlopen,
 * dl_iterate_phdr, libdw and malloc, none async-signal-safe: signals are blocked
 * meanwhile, and a lookup that finds the lock held by its own thread (a wrapped call in
 * a handler) answers "not known", as does one that waited too long for another thread.
 * Each object's file is mapped once (libelf) and its descriptor closed at once.  An
 * object without debug information of its own may have it in a separate file (Debian's
 * -dbgsym packages, objcopy --only-keep-debug): looked for as gdb does, by build ID under
 * the debug directory (DYL_DEBUG_DIR, default /usr/lib/debug), then by its
 * .gnu_debuglink name next to the object, in its .debug/ folder and under the debug
 * directory; a file is taken only if its build ID (or, lacking one, the link's CRC)
 * matches, since another build's offsets would charge the wrong bytes.  After a
 * dlclose, the objects gone (another may be loaded at the same place) are dropped with
 * their sites at the next miss (drop_unloaded).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "regions.h"

#define MAX_OBJS 256
#define TABLE 4096		/* code addresses cached (a power of two) */
#define MAX_VARS 65536		/* their variables, in all */

struct var {
	int64_t off;		/* from the CFA */
	uint64_t size : 63;
	uint64_t f64 : 1;	/* a double, or an array of them (see f64_type) */
};

struct site {
	uintptr_t ip;		/* 0: empty */
	uint32_t first, n;	/* its variables: vars[first .. first + n) */
};

struct obj {
	uintptr_t lo, hi;	/* its loaded segments */
	uintptr_t bias;
	const void *phdr;	/* with bias and name: which object this is (another one */
	uint64_t name;		/* loaded at a closed one's place has its bias and phdr) */
	Dwarf *dw;		/* NULL: no debug information */
	int live;		/* still loaded (drop_unloaded's mark) */
};

/* libdw's functions, from dlopen */
static struct {
	unsigned (*elf_version)(unsigned);
	Elf *(*elf_begin)(int, Elf_Cmd, Elf *);
	int (*elf_cntl)(Elf *, Elf_Cmd);
	int (*elf_end)(Elf *);
	int (*end)(Dwarf *);
	Elf *(*getelf)(Dwarf *);
	ssize_t (*build_id)(Elf *, const void **);
	const char *(*debuglink)(Elf *, GElf_Word *);
	Dwarf *(*begin_elf)(Elf *, Dwarf_Cmd, Elf_Scn *);
	Dwarf_Die *(*addrdie)(Dwarf *, Dwarf_Addr, Dwarf_Die *);
	int (*nextcu)(Dwarf *, Dwarf_Off, Dwarf_Off *, size_t *, Dwarf_Off *, uint8_t *, uint8_t *);
	Dwarf_Die *(*offdie)(Dwarf *, Dwarf_Off, Dwarf_Die *);
	int (*haspc)(Dwarf_Die *, Dwarf_Addr);
	int (*getscopes)(Dwarf_Die *, Dwarf_Addr, Dwarf_Die **);
	int (*child)(Dwarf_Die *, Dwarf_Die *);
	int (*siblingof)(Dwarf_Die *, Dwarf_Die *);
	int (*tag)(Dwarf_Die *);
	Dwarf_Attribute *(*attr_integrate)(Dwarf_Die *, unsigned int, Dwarf_Attribute *);
	int (*getlocation_addr)(Dwarf_Attribute *, Dwarf_Addr, Dwarf_Op **, size_t *, size_t);
	ptrdiff_t (*getlocations)(Dwarf_Attribute *, ptrdiff_t, Dwarf_Addr *, Dwarf_Addr *, Dwarf_Addr *,
				  Dwarf_Op **, size_t *);
	Dwarf_Die *(*formref_die)(Dwarf_Attribute *, Dwarf_Die *);
	int (*aggregate_size)(Dwarf_Die *, Dwarf_Word *);
	int (*formudata)(Dwarf_Attribute *, Dwarf_Word *);
} dw;

/* everything here: one per process */
static struct {
	pid_t owner;		/* the thread holding the lock, 0: free */
	int state;		/* 0: libdw not loaded yet, 1: loaded, 2: not available */
	struct site *sites;	/* TABLE of them, mapped at the first lookup */
	struct var *vars;	/* MAX_VARS */
	uint32_t nsites, nvars;
	struct obj objs[MAX_OBJS];
	uint32_t nobjs;
	unsigned long long subs;	/* the loader's count of objects removed, at the last miss */
} sv;

static TLS pid_t tid;		/* this thread's id, once known (a forked child's is reset) */

static pid_t self_tid(void)
{
	if (!tid)
		tid = (pid_t)syscall(SYS_gettid);
	return tid;
}

static int load_libdw(void)
{
	void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return 2;
#define GET(field, name) (*(void **)&dw.field = dlsym(h, name))
	/* libelf's functions come through libdw's handle: dlsym searches its dependencies */
	if (!GET(elf_version, "elf_version") || !GET(elf_begin, "elf_begin") || !GET(elf_cntl, "elf_cntl") ||
	    !GET(elf_end, "elf_end") || !GET(end, "dwarf_end") || !GET(getelf, "dwarf_getelf") ||
	    !GET(build_id, "dwelf_elf_gnu_build_id") ||
	    !GET(debuglink, "dwelf_elf_gnu_debuglink") ||
	    !GET(begin_elf, "dwarf_begin_elf") || !GET(addrdie, "dwarf_addrdie") ||
	    !GET(nextcu, "dwarf_nextcu") || !GET(offdie, "dwarf_offdie") || !GET(haspc, "dwarf_haspc") ||
	    !GET(getscopes, "dwarf_getscopes") || !GET(child, "dwarf_child") ||
	    !GET(siblingof, "dwarf_siblingof") || !GET(tag, "dwarf_tag") ||
	    !GET(attr_integrate, "dwarf_attr_integrate") ||
	    !GET(getlocation_addr, "dwarf_getlocation_addr") || !GET(getlocations, "dwarf_getlocations") ||
	    !GET(formref_die, "dwarf_formref_die") || !GET(aggregate_size, "dwarf_aggregate_size") ||
	    !GET(formudata, "dwarf_formudata"))
		return 2;
#undef GET
	dw.elf_version(EV_CURRENT);
	sv.sites = dyl_raw_map(TABLE * sizeof(*sv.sites));
	sv.vars = dyl_raw_map(MAX_VARS * sizeof(*sv.vars));
	return sv.sites && sv.vars ? 1 : 2;
}

struct find_obj {
	uintptr_t ip;
	struct obj *o;
};

/* the CRC-32 of .gnu_debuglink (zlib's) of the file open at FD */
static int file_crc(int fd, GElf_Word *crc)
{
	static uint32_t table[256];
	unsigned char buf[1024];
	uint32_t c = 0xffffffffu;
	ssize_t n;

	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t x = i;
			for (int k = 0; k < 8; k++)
				x = x & 1 ? 0xedb88320u ^ (x >> 1) : x >> 1;
			table[i] = x;
		}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			c = table[(c ^ buf[i]) & 0xff] ^ (c >> 8);
	*crc = c ^ 0xffffffffu;
	return n == 0;
}

/* FD's file mapped by libelf and FD closed at once, so that the program keeps the
 * descriptor numbers it would have had; NULL if libelf cannot read it */
static Elf *map_elf(int fd)
{
	Elf *e = dw.elf_begin(fd, ELF_C_READ_MMAP, NULL);

	if (e && dw.elf_cntl(e, ELF_C_FDDONE) != 0) {
		dw.elf_end(e);
		e = NULL;
	}
	close(fd);
	return e;
}

/* PATH's DWARF if it is the debug file wanted: build ID ID (LEN bytes), or with LEN 0
 * the CRC; NULL otherwise */
static Dwarf *debug_file(const char *path, const void *id, ssize_t len, GElf_Word crc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	GElf_Word got;
	const void *its;

	if (fd < 0)
		return NULL;
	if (len <= 0 && (!file_crc(fd, &got) || got != crc)) {
		close(fd);
		return NULL;
	}
	Elf *e = map_elf(fd);
	if (!e)
		return NULL;
	Dwarf *d = len <= 0 || (dw.build_id(e, &its) == len && memcmp(its, id, (size_t)len) == 0)
			   ? dw.begin_elf(e, DWARF_C_READ, NULL) : NULL;
	if (!d)
		dw.elf_end(e);
	return d;
}

/* the separate debug information of E, the object at PATH, or NULL */
static Dwarf *separate_debug(Elf *e, const char *path)
{
	const char *root = dyl_env(DYL_ENV_DEBUG_DIR);
	/* (static: lookups hold the lock, and a thread's stack may be small) */
	static char file[PATH_MAX], dir[PATH_MAX];
	const unsigned char *id = NULL;
	ssize_t len = dw.build_id(e, (const void **)&id);
	Dwarf *d = NULL;

	if (!root || !*root)
		root = "/usr/lib/debug";
	if (len > 1 && len <= 64) {
		int at = snprintf(file, sizeof(file), "%s/.build-id/%02x/", root, id[0]);
		for (ssize_t i = 1; i < len && at > 0 && at < (int)sizeof(file) - 8; i++)
			at += snprintf(file + at, sizeof(file) - (size_t)at, "%02x", id[i]);
		if (at > 0 && at < (int)sizeof(file) - 8) {
			memcpy(file + at, ".debug", 7);
			d = debug_file(file, id, len, 0);
		}
	}
	GElf_Word crc;
	const char *link = dw.debuglink(e, &crc);
	if (d || !link || strchr(link, '/'))
		return d;
	/* the object's directory, links resolved (/proc/self/exe is one to the program) */
	if (!realpath(path, dir))
		return NULL;
	char *slash = strrchr(dir, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	for (int i = 0; i < 3 && !d; i++) {
		int w = i == 0 ? snprintf(file, sizeof(file), "%s/%s", dir, link)
		      : i == 1 ? snprintf(file, sizeof(file), "%s/.debug/%s", dir, link)
			       : snprintf(file, sizeof(file), "%s%s/%s", root, dir, link);
		if (w > 0 && w < (int)sizeof(file))
			d = debug_file(file, id, len > 0 ? len : 0, crc);
	}
	return d;
}

/* FNV-1a of an object's path */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (s && *s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static int find_obj_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find_obj *f = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (!(lo <= f->ip && f->ip < hi) || sv.nobjs >= MAX_OBJS)
		return 0;
	struct obj *o = &sv.objs[sv.nobjs];
	*o = (struct obj){ lo, hi, info->dlpi_addr, info->dlpi_phdr, name_hash(info->dlpi_name), NULL, 1 };
	const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e = fd >= 0 ? map_elf(fd) : NULL;
	if (e && !(o->dw = dw.begin_elf(e, DWARF_C_READ, NULL))) {
		o->dw = separate_debug(e, path);
		dw.elf_end(e);	/* (unmapped: its DWARF, if any, is another file's) */
	}
	sv.nobjs++;
	f->o = o;
	return 1;
}

static int mark_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	for (uint32_t i = 0; i < sv.nobjs; i++)
		if (sv.objs[i].bias == info->dlpi_addr && sv.objs[i].phdr == info->dlpi_phdr &&
		    sv.objs[i].name == name_hash(info->dlpi_name))
			sv.objs[i].live = 1;
	*(unsigned long long *)arg = info->dlpi_subs;
	return 0;
}

static int in_gone(uintptr_t ip, const struct obj *gone, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (gone[i].lo <= ip && ip < gone[i].hi)
			return 1;
	return 0;
}

static struct site *probe(uintptr_t ip);

/* After a dlclose, a cached object may be gone and another one mapped at its place:
 * its DWARF and the variables read of its code addresses are dropped, and the others
 * kept.  Checked at each miss (one callback of dl_iterate_phdr); a hit is not checked:
 * a new object's code address equal to a cached one of the gone object, between a
 * dlclose and the next miss, would still get the gone one's variables. */
static void drop_unloaded(void)
{
	unsigned long long adds, subs;
	struct obj gone[16];
	uint32_t ngone = 0, k = 0;

	dyl_loader_counts(&adds, &subs);
	if (subs == sv.subs)
		return;
	for (uint32_t i = 0; i < sv.nobjs; i++)
		sv.objs[i].live = 0;
	dl_iterate_phdr(mark_cb, &sv.subs);
	for (uint32_t i = 0; i < sv.nobjs; i++) {
		struct obj *o = &sv.objs[i];
		if (o->live) {
			sv.objs[k++] = *o;
			continue;
		}
		if (o->dw) {
			Elf *e = dw.getelf(o->dw);
			dw.end(o->dw);
			dw.elf_end(e);
		}
		if (ngone < 16)
			gone[ngone++] = *o;
		else
			ngone = UINT32_MAX;	/* too many: every site goes */
	}
	sv.nobjs = k;
	if (!ngone)
		return;
	/* the table rebuilt without the gone objects' sites (open addressing: a hole would
	 * cut a probe sequence); their variables stay unused in vars[] */
	struct site *old = dyl_raw_map(TABLE * sizeof(*old));
	if (old)
		memcpy(old, sv.sites, TABLE * sizeof(*old));
	memset(sv.sites, 0, TABLE * sizeof(*sv.sites));
	sv.nsites = 0;
	for (uint32_t h = 0; old && ngone != UINT32_MAX && h < TABLE; h++)
		if (old[h].ip && !in_gone(old[h].ip, gone, ngone)) {
			*probe(old[h].ip) = old[h];
			sv.nsites++;
		}
	if (old)
		dyl_raw_unmap(old, TABLE * sizeof(*old));
}

static struct obj *object_of(uintptr_t ip)
{
	for (uint32_t i = 0; i < sv.nobjs; i++)
		if (sv.objs[i].lo <= ip && ip < sv.objs[i].hi)
			return &sv.objs[i];
	struct find_obj f = { ip, NULL };
	dl_iterate_phdr(find_obj_cb, &f);
	return f.o;
}

/* A location that is the frame base plus a constant: that constant, the one at PC
 * if the location list has one there, else the list's first.  Optimised code lists a
 * variable's memory only where it holds its value (gcc -O2: a stack-passed int whose
 * address the function hands on is listed up to its last read, not at the call that
 * uses the address), but an address-taken variable keeps its slot in the frame. */
static int fbreg_of(Dwarf_Die *die, Dwarf_Addr pc, int64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Addr base, start, end;
	Dwarf_Op *ops;
	size_t n;
	ptrdiff_t at = 0;
	int found = 0;

	if (!dw.attr_integrate(die, DW_AT_location, &a))
		return 0;
	while ((at = dw.getlocations(&a, at, &base, &start, &end, &ops, &n)) > 0) {
		if (n != 1 || ops[0].atom != DW_OP_fbreg)
			continue;
		if (!found || (start <= pc && pc < end))
			*off = (int64_t)ops[0].number;
		found = 1;
		if (start <= pc && pc < end)
			break;
	}
	return found;
}

/* Where the function's frame base lies from the CFA (*ADJ): the CFA itself (gcc), or on
 * x86-64 the frame pointer rbp (clang -O0: DW_OP_reg6, or DW_OP_breg6 N), which the
 * standard prologue (push %rbp; mov %rsp,%rbp) sets 16 bytes below the CFA for the whole
 * body, where calls are made.  0: another frame base, not read. */
static int frame_base(Dwarf_Die *fn, Dwarf_Addr pc, int64_t *adj)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (!dw.attr_integrate(fn, DW_AT_frame_base, &a) || dw.getlocation_addr(&a, pc, &ops, &n, 1) != 1 ||
	    n != 1)
		return 0;
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		*adj = 0;
		return 1;
	}
#if defined(__x86_64__)
	if (ops[0].atom == DW_OP_reg6 || ops[0].atom == DW_OP_breg6) {
		*adj = -16 + (ops[0].atom == DW_OP_breg6 ? (int64_t)ops[0].number : 0);
		return 1;
	}
#endif
	return 0;
}

static int udata(Dwarf_Die *die, unsigned name, Dwarf_Word *w)
{
	Dwarf_Attribute a;
	return dw.attr_integrate(die, name, &a) && dw.formudata(&a, w) == 0;
}

/* 1 when TYPE is an 8-byte floating-point type (double, or a complex double's pair), or
 * an array of those, through typedefs and qualifiers: std.diff's typed look (diff.c) */
static int f64_type(Dwarf_Die *type)
{
	Dwarf_Die t = *type;
	Dwarf_Attribute a;
	Dwarf_Word enc, size;

	for (int depth = 0; depth < 16; depth++)
		switch (dw.tag(&t)) {
		case DW_TAG_base_type:
			return udata(&t, DW_AT_encoding, &enc) && udata(&t, DW_AT_byte_size, &size) &&
			       ((enc == DW_ATE_float && size == 8) || (enc == DW_ATE_complex_float && size == 16));
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
		case DW_TAG_array_type:
			if (!dw.attr_integrate(&t, DW_AT_type, &a) || !dw.formref_die(&a, &t))
				return 0;
			break;
		default:
			return 0;
		}
	return 0;
}

static void add_var(Dwarf_Die *v, Dwarf_Addr pc, int64_t adj)
{
	Dwarf_Attribute a;
	Dwarf_Die type;
	Dwarf_Word size;
	int64_t off;

	if (sv.nvars >= MAX_VARS || !fbreg_of(v, pc, &off))
		return;
	if (!dw.attr_integrate(v, DW_AT_type, &a) || !dw.formref_die(&a, &type) ||
	    dw.aggregate_size(&type, &size) != 0 || size == 0)
		return;
	sv.vars[sv.nvars++] = (struct var){ off + adj, size, (uint64_t)f64_type(&type) };
}

/* the compile unit holding PC, by looking at each: dwarf_addrdie reads .debug_aranges,
 * which clang does not emit */
static int cu_scan(Dwarf *d, Dwarf_Addr pc, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dw.nextcu(d, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dw.offdie(d, off + hsize, cu) && dw.haspc(cu, pc) > 0)
			return 1;
		off = next;
	}
	return 0;
}

/* the variables and parameters of the scopes holding PC, in memory at CFA + constant
 * (frame base + constant, the frame base at a known place from the CFA) */
static void read_site(struct site *s, uintptr_t ip)
{
	struct obj *o = object_of(ip);
	Dwarf_Die cu, *scopes = NULL, c;

	s->first = sv.nvars;
	s->n = 0;
	if (!o || !o->dw)
		return;
	Dwarf_Addr pc = ip - 1 - o->bias;	/* a return address: the call is just before */
	if (!dw.addrdie(o->dw, pc, &cu) && !cu_scan(o->dw, pc, &cu))
		return;
	int n = dw.getscopes(&cu, pc, &scopes);
	int fn = -1;
	for (int i = 0; i < n && fn < 0; i++)
		if (dw.tag(&scopes[i]) == DW_TAG_subprogram)
			fn = i;
	int64_t adj;
	if (fn >= 0 && frame_base(&scopes[fn], pc, &adj))
		for (int i = 0; i <= fn; i++) {	/* blocks, inlined calls, the function */
			if (dw.child(&scopes[i], &c) != 0)
				continue;
			do {
				int t = dw.tag(&c);
				if (t == DW_TAG_variable || t == DW_TAG_formal_parameter)
					add_var(&c, pc, adj);
			} while (dw.siblingof(&c, &c) == 0);
		}
	free(scopes);
	s->n = sv.nvars - s->first;
}

static uint32_t slot_of(uintptr_t ip)
{
	return (uint32_t)((ip * 0x9E3779B97F4A7C15ull) >> 52) & (TABLE - 1);
}

/* IP's slot in the table: its own, or the empty one where it would go; NULL when the
 * table is full */
static struct site *probe(uintptr_t ip)
{
	for (uint32_t i = 0, h = slot_of(ip); i < TABLE; i++, h = (h + 1) & (TABLE - 1))
		if (sv.sites[h].ip == ip || sv.sites[h].ip == 0)
			return &sv.sites[h];
	return NULL;
}

/* the cached variables of IP, or NULL */
static struct site *cached(uintptr_t ip)
{
	struct site *s = probe(ip);
	return s && s->ip == ip ? s : NULL;
}

/* the cached variables of IP, read now if they are not: signals blocked, as read_site
 * calls the loader, libdw and malloc */
static struct site *site_of(uintptr_t ip)
{
	struct site *s = probe(ip);

	if (!s || s->ip == ip)
		return s;
	drop_unloaded();
	s = probe(ip);	/* (the table may have been rebuilt) */
	if (!s || sv.nsites >= TABLE / 2)
		return NULL;	/* full enough: no more code addresses */
	read_site(s, ip);
	s->ip = ip;
	sv.nsites++;
	return s;
}

int dyl_stack_var(uintptr_t ip, uintptr_t cfa, uintptr_t p, uintptr_t *lo, uintptr_t *hi, int *f64)
{
	pid_t me = self_tid(), free_ = 0;
	int found = 0;
	uintptr_t below = 0, above = UINTPTR_MAX;	/* the known variables next to P */

	if (!ip || __atomic_load_n(&sv.state, __ATOMIC_ACQUIRE) == 2 ||
	    __atomic_load_n(&sv.owner, __ATOMIC_RELAXED) == me)
		return 0;	/* no libdw, or a handler interrupted this thread's lookup */
	/* Another thread may be reading an object's DWARF (milliseconds), and may wait for
	 * the loader's lock that this thread holds (a wrapped call from a constructor during
	 * dlopen): waiting is bounded, then the frame bounds do */
	for (unsigned spins = 0;
	     !__atomic_compare_exchange_n(&sv.owner, &free_, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	     spins++) {
		free_ = 0;
		if (spins >= 64) {
			if (spins >= 64 + 10000)
				return 0;
			sched_yield();
		}
	}
	struct site *s = sv.state == 1 ? cached(ip) : NULL;
	if (!s && sv.state != 2) {
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		dyl_busy++;	/* libdw's, libelf's and the loader's calls are not the program's */
		if (sv.state == 0)	/* (read without the lock above: stored atomically) */
			__atomic_store_n(&sv.state, load_libdw(), __ATOMIC_RELEASE);
		s = sv.state == 1 ? site_of(ip) : NULL;
		dyl_busy--;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	for (uint32_t i = 0; s && i < s->n && !found; i++) {
		const struct var *v = &sv.vars[s->first + i];
		uintptr_t a = cfa + (uintptr_t)v->off;
		if (a <= p && p - a < v->size) {
			*lo = a;
			*hi = a + v->size;
			*f64 = v->f64;
			found = 1;
		} else if (a > p && a < above) {
			above = a;
		} else if (a < p && a + v->size <= p && a + v->size > below) {
			below = a + v->size;
		}
	}
	if (!found && s && s->n > 0) {
		/* a slot the debug information does not name (a spilled parameter): up to the
		 * next variable it names */
		*lo = below;
		*hi = above;
		found = 2;
	}
	__atomic_store_n(&sv.owner, 0, __ATOMIC_RELEASE);
	return found;
}

/* fork: the child's one thread has a new id, and the lock may be held by a thread the
 * child does not have */
static void child_after_fork(void)
{
	sv.owner = 0;
	tid = 0;
}

/* at start-up, in the order start.c gives */
void dyl_stackvars_start(void)
{
	pthread_atfork(NULL, NULL, child_after_fork);
}
