/* statics.c - static data: every loaded object's non-executable PT_LOAD segments (its
 * data and bss, its read-only data), found with dl_iterate_phdr, and inside them the
 * objects its symbol tables size.
 *
 * A pointer into static data is charged to the end of the object that holds it (an ELF
 * symbol of type STT_OBJECT or STT_COMMON, with its st_size: a static array, a string
 * constant with a name); in no object (a string literal, which has no symbol), to the
 * start of the next object above it or the end of its section, whichever comes first;
 * when the object's symbols cannot be read, to the end of the segment, as the paper did.
 * Symbols come from the object's .dynsym (in memory, through PT_DYNAMIC) and, when the
 * file on disk has one, its .symtab (executables and unstripped libraries: the static
 * ones are local and only there).  The file is the one dl_iterate_phdr names
 * (/proc/self/exe for the program), used only when its program headers and notes (the
 * build-id) are the ones loaded: a library replaced on disk since, or a relative name
 * that no longer leads to it, falls back to .dynsym alone.  Section boundaries (from the
 * file's section headers) end the gaps, so a literal in .rodata is not charged the
 * .eh_frame that follows in the same segment.
 *
 * Objects are parsed lazily, once, at the first lookup that falls into them: into one
 * sorted array of disjoint [start, end) ranges per object (offsets from its load
 * address, 8 bytes a range; overlapping symbols - aliases, a struct and a member with a
 * name - merge into one range; a section boundary is a range of size 0), searched in
 * O(log n).  Parsing runs in the lookup path, maybe from a signal handler or while the
 * program is in malloc: no malloc, no stdio, no lock of ours held (the loader's is: the
 * parse runs in a dl_iterate_phdr callback, so the object stays loaded meanwhile);
 * memory from dyl_raw_map, the file through the openat/pread system calls.  It costs
 * 15-70 us (libc, libcrypto; 0.7 ms for libLLVM's 45,000 dynamic symbols) and a page or
 * a few for the ranges.  A thread that finds another one parsing the object waits for
 * it; a signal handler that interrupts its own thread's parse gets the segment's bound.
 *
 * The list is rescanned when a lookup misses and the loader's counters of added and
 * removed objects (dlpi_adds, dlpi_subs) moved since the last scan: a dlopen'ed
 * module's data is found without interposing dlopen.  The scan runs without any of our
 * locks held (dl_iterate_phdr takes the loader's lock, and a thread holding that lock
 * may be in malloc, waiting for our table); the new list is built in fresh memory and
 * swapped in under seg_lock, keeping the symbols already parsed of the objects still
 * loaded (an object is known by its load address, program headers and data span).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "regions.h"

enum { SYMS_NEW, SYMS_PARSING, SYMS_READY, SYMS_NONE };

struct dyl_obj {		/* a loaded object with data segments */
	uintptr_t base;		/* dlpi_addr */
	const void *phdr;	/* dlpi_phdr */
	uintptr_t lo, hi;	/* its data segments' span */
	uint64_t *sym;		/* nsym ranges, start << 32 | end, offsets from base */
	uint32_t nsym;
	int state;		/* SYMS_* */
	size_t sym_bytes;	/* sym's mapping */
};

/* under dyl_reg.seg_lock, swapped with dyl_reg.segs (whose obj fields index them) */
static struct dyl_obj *objs;
static uint32_t nobjs, obj_cap;
static TLS int parsing;		/* this thread is parsing (a signal handler must not wait) */

/* statistics: objects parsed, ranges kept, bytes mapped for them (tests, benchmarks) */
static uint64_t parsed_objs, parsed_ranges, parsed_bytes;

struct scan {
	struct dyl_seg *segs;
	uint32_t n, cap;
	struct dyl_obj *objs;
	uint32_t nobj, obj_cap;
	unsigned long long adds, subs;
};

static int counters(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *s = data;

	s->adds = info->dlpi_adds;
	s->subs = info->dlpi_subs;
	return 1;	/* the counters are the same in every callback: one is enough */
}

void dyl_loader_counts(unsigned long long *adds, unsigned long long *subs)
{
	struct scan now = { 0 };

	dl_iterate_phdr(counters, &now);
	*adds = now.adds;
	*subs = now.subs;
}

static int is_data(const ElfW(Phdr) *ph)
{
	/* code is no data; a callback's pointer into it counts nothing */
	return ph->p_type == PT_LOAD && !(ph->p_flags & PF_X) && ph->p_memsz;
}

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *s = data;
	uint32_t first = s->n;

	s->adds = info->dlpi_adds;
	s->subs = info->dlpi_subs;
	if (s->nobj == s->obj_cap)
		return 1;	/* bigger lists are tried again */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (!is_data(ph))
			continue;
		if (s->n == s->cap)
			return 1;
		s->segs[s->n++] = (struct dyl_seg){ info->dlpi_addr + ph->p_vaddr,
						    info->dlpi_addr + ph->p_vaddr + ph->p_memsz,
						    s->nobj, !(ph->p_flags & PF_W) };
	}
	if (s->n == first)
		return 0;
	struct dyl_obj *o = &s->objs[s->nobj++];
	*o = (struct dyl_obj){ info->dlpi_addr, info->dlpi_phdr, UINTPTR_MAX, 0, NULL, 0, SYMS_NEW, 0 };
	for (uint32_t i = first; i < s->n; i++) {
		if (s->segs[i].start < o->lo)
			o->lo = s->segs[i].start;
		if (s->segs[i].end > o->hi)
			o->hi = s->segs[i].end;
	}
	return 0;
}

/* insertion sort: the loader's order is nearly sorted already, and qsort may allocate */
static void sort(struct dyl_seg *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		struct dyl_seg x = v[i];
		uint32_t j = i;
		for (; j > 0 && v[j - 1].start > x.start; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static int same_obj(const struct dyl_obj *a, const struct dyl_obj *b)
{
	return a->base == b->base && a->phdr == b->phdr && a->lo == b->lo && a->hi == b->hi;
}

static void unmap_syms(uint64_t *sym, size_t bytes)
{
	if (sym)
		dyl_raw_unmap(sym, bytes);
}

static void rescan(void)
{
	struct scan s = { 0 };
	/* (a hint read without the lock: another thread's rescan may store it meanwhile) */
	uint32_t cap = __atomic_load_n(&dyl_reg.seg_cap, __ATOMIC_RELAXED);

	if (!cap)
		cap = 256;

	for (;;) {
		s.segs = dyl_raw_map(cap * sizeof(*s.segs));
		s.objs = dyl_raw_map(cap * sizeof(*s.objs));
		if (!s.segs || !s.objs) {
			if (s.segs)
				dyl_raw_unmap(s.segs, cap * sizeof(*s.segs));
			if (s.objs)
				dyl_raw_unmap(s.objs, cap * sizeof(*s.objs));
			return;
		}
		s.n = s.nobj = 0;
		s.cap = s.obj_cap = cap;
		dl_iterate_phdr(collect, &s);
		if (s.n < cap && s.nobj < cap)
			break;
		dyl_raw_unmap(s.segs, cap * sizeof(*s.segs));
		dyl_raw_unmap(s.objs, cap * sizeof(*s.objs));
		cap *= 2;
	}
	sort(s.segs, s.n);
	dyl_spin_lock(&dyl_reg.seg_lock);
	/* the objects still loaded keep their symbols (and a parse under way its claim) */
	for (uint32_t i = 0; i < s.nobj; i++)
		for (uint32_t j = 0; j < nobjs; j++)
			if (objs[j].state != SYMS_NEW && same_obj(&s.objs[i], &objs[j])) {
				s.objs[i].sym = objs[j].sym;
				s.objs[i].nsym = objs[j].nsym;
				s.objs[i].sym_bytes = objs[j].sym_bytes;
				s.objs[i].state = objs[j].state;
				objs[j].sym = NULL;
				objs[j].state = SYMS_NEW;
				break;
			}
	struct dyl_seg *old = dyl_reg.segs;
	struct dyl_obj *oldobjs = objs;
	uint32_t oldcap = dyl_reg.seg_cap, oldobjcap = obj_cap, oldn = nobjs;
	dyl_reg.segs = s.segs;
	dyl_reg.nsegs = s.n;
	__atomic_store_n(&dyl_reg.seg_cap, cap, __ATOMIC_RELAXED);
	objs = s.objs;
	nobjs = s.nobj;
	obj_cap = cap;
	dyl_reg.seg_adds = s.adds;
	dyl_reg.seg_subs = s.subs;
	dyl_spin_unlock(&dyl_reg.seg_lock);
	if (old)
		dyl_raw_unmap(old, oldcap * sizeof(*old));
	if (oldobjs) {
		for (uint32_t j = 0; j < oldn; j++)	/* the objects unloaded since */
			unmap_syms(oldobjs[j].sym, oldobjs[j].sym_bytes);
		dyl_raw_unmap(oldobjs, oldobjcap * sizeof(*oldobjs));
	}
}

/* --- parsing an object's symbols ---------------------------------------------------- */

#define MAX_SEGS 16
#define BUF (32 * 1024)		/* for the file: its headers, then symbols a chunk at a time */

struct parse {
	uintptr_t base;
	const void *phdr;
	uintptr_t lo, hi;
	int found;		/* the object is still loaded */
	int state;		/* SYMS_READY or SYMS_NONE */
	uint64_t *v;		/* the ranges */
	uint32_t n, cap;
	size_t bytes;
	uint32_t nseg;
	ElfW(Addr) seg_lo[MAX_SEGS], seg_hi[MAX_SEGS];	/* data segments, vaddrs */
	const ElfW(Sym) *dynsym;	/* in memory */
	size_t ndynsym;
	int fd;			/* the file, when it is the object loaded; else -1 */
	ElfW(Shdr) *sh;		/* its section headers, in buf */
	uint32_t shnum;
	char *buf;		/* BUF bytes */
};

/* a range of vaddrs [S, E) (E == S: a boundary) that lies in one data segment */
static void add_range(struct parse *p, ElfW(Addr) s, ElfW(Addr) e)
{
	if (e < s || p->n == p->cap)
		return;
	for (uint32_t i = 0; i < p->nseg; i++)
		if (s >= p->seg_lo[i] && e <= p->seg_hi[i]) {
			p->v[p->n++] = (uint64_t)s << 32 | e;
			return;
		}
}

static void add_syms(struct parse *p, const ElfW(Sym) *sym, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned type = ELF64_ST_TYPE(sym[i].st_info);
		unsigned shndx = sym[i].st_shndx;
		if ((type != STT_OBJECT && type != STT_COMMON) || shndx == SHN_UNDEF ||
		    (shndx >= SHN_LORESERVE && shndx != SHN_XINDEX))
			continue;	/* undefined, absolute, common in an object file */
		add_range(p, sym[i].st_value, sym[i].st_value + sym[i].st_size);
	}
}

/* the dynamic section's addresses: relocated in place by the loader on most systems, not
 * in the vDSO and on some others (as elfsym.c) */
static uintptr_t dyn_addr(uintptr_t base, ElfW(Addr) a)
{
	return a < base ? base + a : a;
}

/* .dynsym in memory: its size is in no dynamic tag; the hash tables give its count */
static void find_dynsym(struct parse *p, const struct dl_phdr_info *info)
{
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *sym = NULL;
	const uint32_t *hash = NULL, *gnu = NULL;

	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			sym = (const ElfW(Sym) *)dyn_addr(info->dlpi_addr, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = (const uint32_t *)dyn_addr(info->dlpi_addr, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_GNU_HASH)
			gnu = (const uint32_t *)dyn_addr(info->dlpi_addr, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_SYMENT && dyn->d_un.d_val != sizeof(ElfW(Sym)))
			return;
	}
	if (!sym)
		return;
	size_t n = 0;
	if (hash) {
		n = hash[1];	/* nchain: one per symbol */
	} else if (gnu) {
		/* past the highest bucket's chain end */
		uint32_t nbuckets = gnu[0], symoffset = gnu[1], bloom = gnu[2];
		const uint32_t *buckets = gnu + 4 + bloom * (sizeof(ElfW(Addr)) / 4);
		const uint32_t *chain = buckets + nbuckets;
		uint32_t top = 0;
		for (uint32_t b = 0; b < nbuckets; b++)
			if (buckets[b] > top)
				top = buckets[b];
		if (top < symoffset) {
			n = symoffset;
		} else {
			while (!(chain[top - symoffset] & 1))
				top++;
			n = (size_t)top + 1;
		}
	}
	p->dynsym = sym;
	p->ndynsym = n;
}

static long sys_pread(int fd, void *buf, size_t n, uint64_t off)
{
	long r;

	do
		r = syscall(SYS_pread64, fd, buf, n, (long)off);
	while (r == -1 && errno == EINTR);
	return r;
}

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	return sys_pread(fd, buf, n, off) == (long)n;
}

/* The file, if it is the object loaded (the same program headers, the same notes: the
 * build-id), with its section headers in p->buf; 0 if not. */
static int open_file(struct parse *p, const struct dl_phdr_info *info)
{
	const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
	ElfW(Ehdr) eh;
	char *buf = p->buf;

	p->fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0)
		return 0;
	size_t phbytes = info->dlpi_phnum * sizeof(ElfW(Phdr));
	if (!read_at(p->fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum != info->dlpi_phnum ||
	    phbytes > BUF || eh.e_shentsize != sizeof(ElfW(Shdr)))
		goto no;
	if (!read_at(p->fd, buf, phbytes, eh.e_phoff) || memcmp(buf, info->dlpi_phdr, phbytes) != 0)
		goto no;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE || ph->p_filesz > BUF)
			continue;
		if (!read_at(p->fd, buf, ph->p_filesz, ph->p_offset) ||
		    memcmp(buf, (const void *)(info->dlpi_addr + ph->p_vaddr), ph->p_filesz) != 0)
			goto no;
	}
	/* at most half the buffer: the other half reads the symbols */
	p->shnum = eh.e_shnum;
	if (!eh.e_shoff || !p->shnum || p->shnum > BUF / 2 / sizeof(ElfW(Shdr)))
		goto no;
	p->sh = (ElfW(Shdr) *)buf;
	if (!read_at(p->fd, p->sh, p->shnum * sizeof(ElfW(Shdr)), eh.e_shoff))
		goto no;
	return 1;
no:
	syscall(SYS_close, p->fd);
	p->fd = -1;
	p->shnum = 0;
	return 0;
}

static int is_symtab(const ElfW(Shdr) *sh)
{
	return sh->sh_type == SHT_SYMTAB && sh->sh_entsize == sizeof(ElfW(Sym));
}

/* the file's section boundaries and .symtab (a chunk at a time, after the headers) */
static void file_syms(struct parse *p)
{
	ElfW(Shdr) *sh = p->sh;
	char *chunk = p->buf + BUF / 2;
	const size_t room = BUF / 2 / sizeof(ElfW(Sym)) * sizeof(ElfW(Sym));

	for (uint32_t i = 0; i < p->shnum; i++)
		if ((sh[i].sh_flags & SHF_ALLOC) && !(sh[i].sh_flags & (SHF_EXECINSTR | SHF_TLS)) &&
		    sh[i].sh_size) {
			add_range(p, sh[i].sh_addr, sh[i].sh_addr);
			add_range(p, sh[i].sh_addr + sh[i].sh_size, sh[i].sh_addr + sh[i].sh_size);
		}
	for (uint32_t i = 0; i < p->shnum; i++) {
		if (!is_symtab(&sh[i]))
			continue;
		for (uint64_t off = 0; off + sizeof(ElfW(Sym)) <= sh[i].sh_size; off += room) {
			size_t n = sh[i].sh_size - off < room ? sh[i].sh_size - off : room;
			long got = sys_pread(p->fd, chunk, n, sh[i].sh_offset + off);
			if (got <= 0)
				break;
			add_syms(p, (const ElfW(Sym) *)chunk, (size_t)got / sizeof(ElfW(Sym)));
			if ((size_t)got < n)
				break;
		}
	}
}

/* heapsort: in place, no allocation, O(n log n) */
static void sift(uint64_t *v, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && v[c + 1] > v[c])
			c++;
		if (v[i] >= v[c])
			return;
		uint64_t t = v[i];
		v[i] = v[c];
		v[c] = t;
		i = c;
	}
}

static void heapsort(uint64_t *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(v, i, n);
	for (size_t k = n; k-- > 1;) {
		uint64_t t = v[0];
		v[0] = v[k];
		v[k] = t;
		sift(v, 0, k);
	}
}

/* sorted by start: overlapping ranges merge, duplicates go */
static uint32_t merge(uint64_t *v, uint32_t n)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = (uint32_t)(v[i] >> 32), e = (uint32_t)v[i];
		if (m > 0) {
			uint32_t ps = (uint32_t)(v[m - 1] >> 32), pe = (uint32_t)v[m - 1];
			if (s < pe || (s == ps && e == pe)) {
				if (e > pe)
					v[m - 1] = (uint64_t)ps << 32 | e;
				continue;
			}
		}
		v[m++] = v[i];
	}
	return m;
}

static int parse_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct parse *p = data;

	if (info->dlpi_addr != p->base || info->dlpi_phdr != p->phdr)
		return 0;
	p->found = 1;
	for (int i = 0; i < info->dlpi_phnum && p->nseg < MAX_SEGS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (!is_data(ph))
			continue;
		if (ph->p_vaddr + ph->p_memsz > UINT32_MAX)
			return 1;	/* offsets must fit in 32 bits: not sized */
		p->seg_lo[p->nseg] = ph->p_vaddr;
		p->seg_hi[p->nseg++] = ph->p_vaddr + ph->p_memsz;
	}
	p->buf = dyl_raw_map(BUF);
	if (!p->buf)
		return 1;
	find_dynsym(p, info);
	int file = open_file(p, info);
	/* room for every candidate: the symbols, two boundaries per section */
	uint64_t cap = p->ndynsym + 2ull * p->shnum;
	for (uint32_t i = 0; i < p->shnum; i++)
		if (is_symtab(&p->sh[i]))
			cap += p->sh[i].sh_size / sizeof(ElfW(Sym));
	if (cap > (1u << 26))
		cap = 1u << 26;	/* 512 MiB of ranges: what is past it is not sized */
	p->cap = cap ? (uint32_t)cap : 1;
	p->bytes = ((size_t)p->cap * sizeof(uint64_t) + 4095) & ~(size_t)4095;
	p->v = dyl_raw_map(p->bytes);
	if (p->v) {
		add_syms(p, p->dynsym, p->ndynsym);
		if (file)
			file_syms(p);
	}
	if (file)
		syscall(SYS_close, p->fd);
	dyl_raw_unmap(p->buf, BUF);
	if (!p->v)
		return 1;
	heapsort(p->v, p->n);
	p->n = merge(p->v, p->n);
	/* give back the pages past the ranges kept (aliases, .symtab repeating .dynsym) */
	size_t keep = ((size_t)p->n * sizeof(uint64_t) + 4095) & ~(size_t)4095;
	if (keep == 0)
		keep = 4096;
	if (keep < p->bytes) {
		dyl_raw_unmap((char *)p->v + keep, p->bytes - keep);
		p->bytes = keep;
	}
	p->state = SYMS_READY;
	return 1;
}

/* Parses the object known by (BASE, PHDR, LO, HI) and installs its ranges in the record
 * that stands for it now (a rescan may have replaced the list meanwhile). */
static void parse(uintptr_t base, const void *phdr, uintptr_t lo, uintptr_t hi)
{
	struct parse p = { .base = base, .phdr = phdr, .lo = lo, .hi = hi, .state = SYMS_NONE };
	struct dyl_obj key = { .base = base, .phdr = phdr, .lo = lo, .hi = hi };
	int e = errno;

	dyl_busy++;	/* the file's system calls, a wrapped libc's, are not the program's */
	parsing = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	dl_iterate_phdr(parse_cb, &p);
	if (p.state != SYMS_READY && p.v) {
		dyl_raw_unmap(p.v, p.bytes);
		p.v = NULL;
	}
	int installed = 0;
	dyl_spin_lock(&dyl_reg.seg_lock);
	for (uint32_t j = 0; j < nobjs; j++)
		if (objs[j].state == SYMS_PARSING && same_obj(&objs[j], &key)) {
			objs[j].sym = p.v;
			objs[j].nsym = p.n;
			objs[j].sym_bytes = p.bytes;
			objs[j].state = p.state;
			installed = 1;
			break;
		}
	dyl_spin_unlock(&dyl_reg.seg_lock);
	if (!installed)
		unmap_syms(p.v, p.bytes);	/* unloaded meanwhile */
	else if (p.state == SYMS_READY) {
		__atomic_fetch_add(&parsed_objs, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&parsed_ranges, p.n, __ATOMIC_RELAXED);
		__atomic_fetch_add(&parsed_bytes, p.bytes, __ATOMIC_RELAXED);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	parsing = 0;
	dyl_busy--;
	errno = e;
}

/* --- lookups -------------------------------------------------------------------------- */

/* The region of P in segment SEG of object O (READY): the object holding it, else the gap
 * between the objects (or section boundaries) around it, within the segment. */
static void in_object(const struct dyl_obj *o, const struct dyl_seg *seg, uintptr_t p,
		      struct dyl_region *r)
{
	uint64_t off = p - o->base;
	uint32_t lo = 0, hi = o->nsym;
	uintptr_t start = seg->start, end = seg->end;
	uint32_t flags = 0;

	while (lo < hi) {	/* the first range starting above p */
		uint32_t mid = lo + (hi - lo) / 2;
		if ((o->sym[mid] >> 32) <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && off < (uint32_t)o->sym[lo - 1]) {	/* in the object lo - 1 */
		start = o->base + (o->sym[lo - 1] >> 32);
		end = o->base + (uint32_t)o->sym[lo - 1];
	} else {		/* between the objects lo - 1 and lo */
		if (lo > 0)
			start = o->base + (uint32_t)o->sym[lo - 1];
		if (lo < o->nsym)
			end = o->base + (o->sym[lo] >> 32);
		flags = seg->ro ? DYL_REGION_UNNAMED : 0;
	}
	if (start < seg->start)
		start = seg->start;
	if (end > seg->end)
		end = seg->end;
	*r = (struct dyl_region){ start, end, DYL_REGION_STATIC, 0, flags };
}

enum { MISS, FOUND, PARSE, BUSY };

/* also gives the loader's counters at the last scan (0, 0 before the first); PARSE: this
 * thread took the object's parse (*JOB: which); BUSY: another thread parses it */
static int search(uintptr_t p, struct dyl_region *r, unsigned long long *adds,
		  unsigned long long *subs, struct dyl_obj *job, int nowait)
{
	int res = MISS;

	dyl_spin_lock(&dyl_reg.seg_lock);
	*adds = dyl_reg.seg_adds;
	*subs = dyl_reg.seg_subs;
	uint32_t lo = 0, hi = dyl_reg.nsegs;
	while (lo < hi) {	/* the last segment starting at or below p */
		uint32_t mid = lo + (hi - lo) / 2;
		if (dyl_reg.segs[mid].start <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && p < dyl_reg.segs[lo - 1].end) {
		const struct dyl_seg *seg = &dyl_reg.segs[lo - 1];
		struct dyl_obj *o = &objs[seg->obj];
		res = FOUND;
		if (o->state == SYMS_READY) {
			in_object(o, seg, p, r);
		} else if (o->state == SYMS_NEW && !parsing) {
			o->state = SYMS_PARSING;
			*job = *o;
			res = PARSE;
		} else if (o->state == SYMS_PARSING && !parsing && !nowait) {
			res = BUSY;
		} else {	/* no symbols, or this thread's parse interrupted: the segment */
			*r = (struct dyl_region){ seg->start, seg->end, DYL_REGION_STATIC, 0, 0 };
		}
	}
	dyl_spin_unlock(&dyl_reg.seg_lock);
	return res;
}

int dyl_static_find(uintptr_t p, struct dyl_region *r)
{
	unsigned long long adds, subs;
	struct dyl_obj job;
	int rescanned = 0;

	/* waits for another thread's parse, but not forever (a thread left a parse by a
	 * longjmp out of a signal handler, say): the segment after ~100000 yields */
	for (unsigned tries = 0;; tries++) {
		int res = search(p, r, &adds, &subs, &job, tries > 100000);
		if (res == FOUND)
			return 1;
		if (res == PARSE) {
			parse(job.base, job.phdr, job.lo, job.hi);
			continue;
		}
		if (res == BUSY) {
			sched_yield();
			continue;
		}
		if (rescanned)
			return 0;
		unsigned long long now_adds, now_subs;
		dyl_loader_counts(&now_adds, &now_subs);
		if (now_adds == adds && now_subs == subs)
			return 0;
		rescan();
		rescanned = 1;
	}
}

void dyl_statics_stats(struct dyl_statics_stats *s)
{
	s->objects = __atomic_load_n(&parsed_objs, __ATOMIC_RELAXED);
	s->ranges = __atomic_load_n(&parsed_ranges, __ATOMIC_RELAXED);
	s->bytes = __atomic_load_n(&parsed_bytes, __ATOMIC_RELAXED);
}

/* fork: a parse under way in another thread never ends in the child */
static void child_after_fork(void)
{
	for (uint32_t j = 0; j < nobjs; j++)
		if (objs[j].state == SYMS_PARSING && !parsing)
			objs[j].state = SYMS_NEW;
}

/* at start-up, in the order start.c gives */
void dyl_statics_start(void)
{
	pthread_atfork(NULL, NULL, child_after_fork);
}
