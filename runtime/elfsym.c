/* elfsym.c - is NAME defined in this loaded object?  Its own dynamic symbol table,
 * read in memory through DT_GNU_HASH.
 *
 * dyl_resolve_all looks up a wrapper's every original in its constructor: thousands of
 * names (libcrypto: 5335) in each object after the wrapper.  dlsym answers for a whole
 * dependency scope and needs a dladdr to tell whose definition it found: ~20 us a
 * name.  The hash table answers for the object alone in ~0.1 us.  Objects without a
 * GNU hash table (DT_HASH only, rare since 2006) answer "unknown" and the caller asks
 * dlsym.
 *
 * Also what the module tables (std.flow's, std.callsite's) say of a loaded object: its
 * build ID, the pages it spans and its file.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "elfsym.h"

const unsigned char *dyl_elf_build_id(const struct dl_phdr_info *info, size_t *len)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		size_t align = ph->p_align == 8 ? 8 : 4;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *nh = (const void *)p;
			size_t name = (nh->n_namesz + align - 1) & ~(align - 1);
			size_t desc = (nh->n_descsz + align - 1) & ~(align - 1);
			if (name > (size_t)(end - p) - sizeof(*nh))
				break;
			const char *d = p + sizeof(*nh) + name;
			if (desc > (size_t)(end - d))
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + sizeof(*nh), "GNU", 4)) {
				*len = nh->n_descsz;
				return (const unsigned char *)d;
			}
			p = d + desc;
		}
	}
	*len = 0;
	return NULL;
}

/* The dynamic section's addresses: relocated in place by the loader on most systems,
 * not in the vDSO and on some others. */
static uintptr_t addr(const struct dyl_elf *e, ElfW(Addr) p)
{
	return p < e->base ? e->base + p : p;
}

int dyl_elf_open(struct dyl_elf *e, const struct dl_phdr_info *info)
{
	const ElfW(Dyn) *dyn = NULL;
	ElfW(Xword) soname = 0;
	int has_soname = 0;

	memset(e, 0, sizeof(*e));
	e->base = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return -1;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_GNU_HASH:
			e->gnu_hash = (const uint32_t *)addr(e, dyn->d_un.d_ptr);
			break;
		case DT_SYMTAB:
			e->symtab = (const ElfW(Sym) *)addr(e, dyn->d_un.d_ptr);
			break;
		case DT_STRTAB:
			e->strtab = (const char *)addr(e, dyn->d_un.d_ptr);
			break;
		case DT_VERSYM:
			e->versym = (const ElfW(Half) *)addr(e, dyn->d_un.d_ptr);
			break;
		case DT_VERDEF:
			e->verdef = (const ElfW(Verdef) *)addr(e, dyn->d_un.d_ptr);
			break;
		case DT_SONAME:
			soname = dyn->d_un.d_val, has_soname = 1;
			break;
		}
	}
	if (has_soname && e->strtab)
		e->soname = e->strtab + soname;
	return e->gnu_hash && e->symtab && e->strtab ? 0 : -1;
}

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = h * 33 + *p;
	return h;
}

int dyl_same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* Does symbol I carry VERSION (NULL: is it the default version)? */
static int version_ok(const struct dyl_elf *e, uint32_t i, const char *version)
{
	if (!e->versym)
		return 1;	/* an unversioned object: any request */
	ElfW(Half) v = e->versym[i];
	if (!version)
		return !(v & 0x8000);	/* not hidden: the default */
	if (!e->verdef)
		return 0;
	const ElfW(Verdef) *d = e->verdef;
	for (;;) {
		if (d->vd_ndx == (v & 0x7fff)) {
			const ElfW(Verdaux) *a = (const ElfW(Verdaux) *)((const char *)d + d->vd_aux);
			return dyl_same(e->strtab + a->vda_name, version);
		}
		if (!d->vd_next)
			return 0;
		d = (const ElfW(Verdef) *)((const char *)d + d->vd_next);
	}
}

const ElfW(Sym) *dyl_elf_find(const struct dyl_elf *e, const char *name, const char *version)
{
	const uint32_t *h = e->gnu_hash;
	uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2], shift = h[3];
	const ElfW(Addr) *bloom = (const ElfW(Addr) *)(h + 4);
	const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
	const uint32_t *chain = buckets + nbuckets;
	const unsigned bits = sizeof(ElfW(Addr)) * 8;
	uint32_t hash = gnu_hash(name);

	if (!nbuckets || !bloom_size)
		return NULL;
	ElfW(Addr) word = bloom[(hash / bits) % bloom_size];
	ElfW(Addr) mask = ((ElfW(Addr))1 << (hash % bits)) | ((ElfW(Addr))1 << ((hash >> shift) % bits));
	if ((word & mask) != mask)
		return NULL;
	uint32_t i = buckets[hash % nbuckets];
	if (i < symoffset)
		return NULL;
	for (;; i++) {
		uint32_t h2 = chain[i - symoffset];
		const ElfW(Sym) *s = &e->symtab[i];
		if ((hash | 1) == (h2 | 1) && s->st_shndx != SHN_UNDEF &&
		    (ELF64_ST_TYPE(s->st_info) == STT_FUNC || ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC) &&
		    dyl_same(e->strtab + s->st_name, name) && version_ok(e, i, version))
			return s;
		if (h2 & 1)
			return NULL;
	}
}

static void *lookup(void *handle, const char *name, const char *version)
{
	void *fn = version ? dlvsym(handle, name, version) : dlsym(handle, name);

	return fn || !version ? fn : dlsym(handle, name);
}

void *dyl_elf_defines(const struct dl_phdr_info *info, const struct dyl_elf *e,
		      const char *name, const char *version)
{
	void *h, *fn;
	Dl_info at;

	if (e) {
		const ElfW(Sym) *s = dyl_elf_find(e, name, version);
		if (!s && version)
			s = dyl_elf_find(e, name, NULL);
		if (!s)
			return NULL;
		if (ELF64_ST_TYPE(s->st_info) == STT_FUNC)
			return (void *)(e->base + s->st_value);
	}
	/* no hash table, or an IFUNC (its resolver chooses): dlsym on the object, itself
	 * first in its own scope.  The NOLOAD reference is dropped at once; the object
	 * stays loaded. */
	if (!(h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD)))
		return NULL;
	fn = lookup(h, name, version);
	dlclose(h);
	if (!fn || (!e && (!dladdr(fn, &at) || !at.dli_fname || !dyl_same(at.dli_fname, info->dlpi_name))))
		return NULL;
	return fn;
}

int dyl_elf_span(const struct dl_phdr_info *info, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t a = info->dlpi_addr + (ph->p_vaddr & ~(uint64_t)0xfff);
		uint64_t b = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		*lo = a < *lo ? a : *lo;
		*hi = b > *hi ? b : *hi;
	}
	return *lo < *hi;
}

/* where the mapping of the first segment ends (a page boundary) */
static uint64_t first_end(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD)
			return (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + 0xfff) & ~(uint64_t)0xfff;
	}
	return 0;
}

const char *dyl_elf_path(const struct dl_phdr_info *info, uint64_t lo, int first, char *out,
			 size_t room)
{
	char link[64];
	ssize_t n;

	if (!info->dlpi_name || !*info->dlpi_name) {	/* the program (the first entry) */
		n = first ? readlink("/proc/self/exe", out, room - 1) : -1;
		if (n <= 0)
			return NULL;
		out[n] = 0;
		return out;
	}
	snprintf(link, sizeof(link), "/proc/self/map_files/%llx-%llx", (unsigned long long)lo,
		 (unsigned long long)first_end(info));
	n = readlink(link, out, room - 1);
	if (n > 0 && out[0] == '/') {
		out[n] = 0;
		return out;
	}
	return info->dlpi_name;
}
