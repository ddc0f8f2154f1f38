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

static int add_line(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct footer_room *f = arg;
	uint64_t lo, hi;
	char path[1024], bid[2 * 64 + 1] = "-";
	size_t blen = 0;

	(void)size;
	const char *p = dyl_elf_span(info, &lo, &hi) ? dyl_elf_path(info, lo, f->seen++ == 0, path, sizeof(path))
						     : NULL;
	if (!p || p[0] != '/')
		return 0;	/* (the vDSO: no file to read) */
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
