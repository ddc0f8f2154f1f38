/* modules.c - the module table in the trace's footer, for std.callsite's addresses.
 *
 * std.callsite records raw return addresses (the per-call path does no lookup).  The
 * tools name them offline (speedup/lib/flow/flow_syms.c, libdw), which needs to know
 * which file was loaded where: one '# module=' line per loaded object, in the footer,
 * from dl_iterate_phdr (the loader's own list) at the process's end, as std.flow's
 * TRACE.flow has its MODULE records (runtime/flow/finish.c).  An object unloaded
 * before the end (dlclose) is missing: its addresses stay raw.  Nothing is looked up
 * here and no library is loaded (issue 33).
 *
 * A line: "# module=LO-HI BIAS BUILD_ID PATH", numbers in hex, BUILD_ID '-' when the
 * object has none; PATH last (it may hold blanks).  LO-HI spans the object's segments.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "elfsym.h"
#include "../regions/unwind.h"
#include "callsite.h"

struct footer_room {
	char *buf;
	size_t room, n;
	int seen;	/* objects met: the first one is the program */
};

/* the object's file: the program's from /proc/self/exe, a library's from the mapping
 * of its first segment (a soname's link resolved, a relative LD_PRELOAD made absolute) */
static const char *path_of(const struct dl_phdr_info *info, uint64_t lo, int first, char *out,
			   size_t room)
{
	char link[64];
	ssize_t n = -1;

	if (!info->dlpi_name[0]) {
		if (first)
			n = readlink("/proc/self/exe", out, room - 1);
	} else {
		uint64_t end = lo;
		for (int i = 0; i < info->dlpi_phnum; i++)
			if (info->dlpi_phdr[i].p_type == PT_LOAD) {
				const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
				end = (info->dlpi_addr + ph->p_vaddr + ph->p_filesz + 4095) & ~(uint64_t)4095;
				break;
			}
		snprintf(link, sizeof(link), "/proc/self/map_files/%llx-%llx", (unsigned long long)lo,
			 (unsigned long long)end);
		n = readlink(link, out, room - 1);
		if (n <= 0 || out[0] != '/')
			return info->dlpi_name[0] == '/' ? info->dlpi_name : NULL;
	}
	if (n <= 0)
		return NULL;	/* (the vDSO: no file to read) */
	out[n] = 0;
	return out;
}

static int add_line(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct footer_room *f = arg;
	uint64_t lo = UINT64_MAX, hi = 0;
	char path[1024], bid[2 * 64 + 1] = "-";
	size_t blen = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t a = info->dlpi_addr + (ph->p_vaddr & ~(uint64_t)0xfff);
		uint64_t b = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	const char *p = lo < hi ? path_of(info, lo, f->seen++ == 0, path, sizeof(path)) : NULL;
	if (!p)
		return 0;
	const unsigned char *id = dyl_elf_build_id(info, &blen);
	for (size_t i = 0; id && i < blen && i < 64; i++)
		snprintf(bid + 2 * i, 3, "%02x", id[i]);
	int len = snprintf(f->buf + f->n, f->room - f->n, DYL_KEY_LINE(DYL_KEY_MODULE) "%llx-%llx %llx %s %s\n",
			   (unsigned long long)lo, (unsigned long long)hi,
			   (unsigned long long)info->dlpi_addr, bid, p);
	if (len < 0 || (size_t)len >= f->room - f->n)
		return 1;	/* full: the objects after it keep raw addresses */
	f->n += (size_t)len;
	return 0;
}

/* dyl_hooks.footer_lines */
static int module_lines(char *buf, size_t room)
{
	struct footer_room f = { buf, room, 0, 0 };

	if (room)
		dl_iterate_phdr(add_line, &f);
	return (int)f.n;
}

void dyl_callsite_setup(int depth)
{
	if (depth > 0) {
		dyl_unwind_on();
		dyl_callsite_stack_on();
	}
	__atomic_store_n(&dyl_hooks.footer_lines, module_lines, __ATOMIC_RELAXED);
}
