/* elfsym.h - a loaded object's own dynamic symbols (elfsym.c). */
#ifndef DYL_ELFSYM_H
#define DYL_ELFSYM_H

#include <link.h>

struct dyl_elf {
	uintptr_t base;
	const uint32_t *gnu_hash;
	const ElfW(Sym) *symtab;
	const char *strtab;
	const ElfW(Half) *versym;
	const ElfW(Verdef) *verdef;
	const char *soname;	/* DT_SONAME, or NULL */
};

/* 0, or -1 when the object has no GNU hash table (then ask dlsym). */
HIDDEN int dyl_elf_open(struct dyl_elf *e, const struct dl_phdr_info *info);
/* The function NAME of VERSION (NULL: the default version) defined in the object, or NULL. */
HIDDEN const ElfW(Sym) *dyl_elf_find(const struct dyl_elf *e, const char *name, const char *version);

/* The loaded object INFO's GNU build ID (in its notes, mapped with its first segment)
 * and its length in *LEN; NULL (and 0) when it has none. */
HIDDEN const unsigned char *dyl_elf_build_id(const struct dl_phdr_info *info, size_t *len);
/* The pages INFO's loadable segments span: [*LO, *HI); 0 when it has none. */
HIDDEN int dyl_elf_span(const struct dl_phdr_info *info, uint64_t *lo, uint64_t *hi);
/* The file of the loaded object INFO, whose span starts at LO: the program's (FIRST: the
 * loader's first entry, whose name is empty) from /proc/self/exe, another's from the
 * mapping of its first segment (the name /proc/self/maps shows: a soname's link
 * resolved, a relative LD_PRELOAD made absolute), else its loader name.  Into OUT (ROOM
 * bytes) where read there; NULL: the program, not FIRST or unreadable.  The module
 * tables of std.flow (flow/finish.c) and std.callsite (callsite/modules.c). */
HIDDEN const char *dyl_elf_path(const struct dl_phdr_info *info, uint64_t lo, int first, char *out,
				size_t room);
/* strcmp, not through the PLT (libc may be the wrapped library). */
HIDDEN int dyl_same(const char *a, const char *b);
/* NAME's own definition in the loaded object INFO (not one of its dependencies'), or
 * NULL.  E: its symbol table (dyl_elf_open), or NULL to ask dlsym. */
HIDDEN void *dyl_elf_defines(const struct dl_phdr_info *info, const struct dyl_elf *e,
			     const char *name, const char *version);

#endif
