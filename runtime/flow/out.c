/* out.c - TRACE.flow at exit: the converter (runtime/format/flow.c) reads the spool
 * once its rows are numbered, and the names of what the process had come from here,
 * while its objects are still loaded: allocation sites as "func (file.c:12)" (with
 * debug information), func+0xoff (a symbol) or object+0xoff; static objects by their
 * ELF symbol; stack variables as "func:var" from DWARF (else "func frame").
 *
 * libdw (libdwfl over this process's own maps) is loaded with dlopen here, as
 * stackvars.c does: a run without std.flow never loads it, and without libdw1 the names
 * are the hexadecimal ones.  The file is made as the trace is (doc/safety.md): never
 * through a symlink nor another name of a file, mode 0600; a failed write (a full disk)
 * removes it and warns once; the trace itself is not touched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dyl_flowconv.h"
#include "flow.h"
#include "hostread.h"
#include "../regions/regions.h"

/* libdw's functions, found with dlsym */
static struct dw {
	void *h;
	Dwfl *dwfl;
	Dwfl *(*begin)(const Dwfl_Callbacks *);
	int (*proc_report)(Dwfl *, pid_t);
	int (*report_end)(Dwfl *, int (*)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *), void *);
	Dwfl_Module *(*addrmodule)(Dwfl *, Dwarf_Addr);
	const char *(*addrinfo)(Dwfl_Module *, GElf_Addr, GElf_Off *, GElf_Sym *, GElf_Word *, Elf **, Dwarf_Addr *);
	Dwfl_Line *(*getsrc)(Dwfl_Module *, Dwarf_Addr);
	const char *(*lineinfo)(Dwfl_Line *, Dwarf_Addr *, int *, int *, Dwarf_Word *, Dwarf_Word *);
	const char *(*modinfo)(Dwfl_Module *, void ***, Dwarf_Addr *, Dwarf_Addr *, Dwarf_Addr *, Dwarf_Addr *, const char **, const char **);
	void (*end)(Dwfl *);
	Dwarf_Die *(*addrdie)(Dwfl_Module *, Dwarf_Addr, Dwarf_Addr *);
	int (*getscopes)(Dwarf_Die *, Dwarf_Addr, Dwarf_Die **);
	int (*child)(Dwarf_Die *, Dwarf_Die *);
	int (*siblingof)(Dwarf_Die *, Dwarf_Die *);
	int (*tag)(Dwarf_Die *);
	Dwarf_Attribute *(*attr)(Dwarf_Die *, unsigned, Dwarf_Attribute *);
	int (*getlocation_addr)(Dwarf_Attribute *, Dwarf_Addr, Dwarf_Op **, size_t *, size_t);
	const char *(*diename)(Dwarf_Die *);
	Dwfl_Callbacks cb;
	char *debuginfo_path;
} dw;

static int dw_load(void)
{
	if (dw.dwfl)
		return 1;
	if (!(dw.h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL)))
		return 0;
#define SYM(f, name) (*(void **)&dw.f = dlsym(dw.h, name))
	if (!SYM(begin, "dwfl_begin") || !SYM(proc_report, "dwfl_linux_proc_report") ||
	    !SYM(report_end, "dwfl_report_end") || !SYM(addrmodule, "dwfl_addrmodule") ||
	    !SYM(addrinfo, "dwfl_module_addrinfo") || !SYM(getsrc, "dwfl_module_getsrc") ||
	    !SYM(lineinfo, "dwfl_lineinfo") || !SYM(modinfo, "dwfl_module_info") ||
	    !SYM(end, "dwfl_end") || !SYM(addrdie, "dwfl_module_addrdie") ||
	    !SYM(getscopes, "dwarf_getscopes") || !SYM(child, "dwarf_child") ||
	    !SYM(siblingof, "dwarf_siblingof") || !SYM(tag, "dwarf_tag") || !SYM(attr, "dwarf_attr") ||
	    !SYM(getlocation_addr, "dwarf_getlocation_addr") || !SYM(diename, "dwarf_diename") ||
	    !SYM(cb.find_elf, "dwfl_linux_proc_find_elf") ||
	    !SYM(cb.find_debuginfo, "dwfl_standard_find_debuginfo"))
		return 0;
#undef SYM
	dw.cb.debuginfo_path = &dw.debuginfo_path;
	if (!(dw.dwfl = dw.begin(&dw.cb)))
		return 0;
	if (dw.proc_report(dw.dwfl, getpid()) != 0 || dw.report_end(dw.dwfl, NULL, NULL) != 0) {
		dw.end(dw.dwfl);
		dw.dwfl = NULL;
		return 0;
	}
	return 1;
}

static size_t add(char *out, size_t room, size_t n, const char *s, size_t len)
{
	if (n >= room)
		return n;
	if (len > room - n)
		len = room - n;
	memcpy(out + n, s, len);
	return n + len;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* one frame's text at PC (a return address: the call is the byte before); 1 when the
 * function is main (the frames above it are the C library's start) */
static size_t frame_text(uint64_t pc, char *out, size_t room, int *is_main)
{
	char t[512];
	int n = 0;
	Dwfl_Module *m = dw.dwfl ? dw.addrmodule(dw.dwfl, pc - 1) : NULL;

	*is_main = 0;
	if (m) {
		GElf_Off off = 0;
		GElf_Sym sym;
		const char *fn = dw.addrinfo(m, pc - 1, &off, &sym, NULL, NULL, NULL);
		Dwfl_Line *l = dw.getsrc(m, pc - 1);
		int line = 0;
		const char *src = l ? dw.lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
		if (fn && src)
			n = snprintf(t, sizeof(t), "%s (%s:%d)", fn, base_name(src), line);
		else if (fn)
			n = snprintf(t, sizeof(t), "%s+0x%llx", fn, (unsigned long long)(off + 1));
		else {
			Dwarf_Addr lo = 0;
			const char *obj = dw.modinfo(m, NULL, &lo, NULL, NULL, NULL, NULL, NULL);
			n = snprintf(t, sizeof(t), "%s+0x%llx", obj ? base_name(obj) : "?",
				     (unsigned long long)(pc - lo));
		}
		*is_main = fn && !strcmp(fn, "main");
	} else {
		n = snprintf(t, sizeof(t), "0x%llx", (unsigned long long)pc);
	}
	return add(out, room, 0, t, n < 0 ? 0 : (size_t)n < sizeof(t) ? (size_t)n : sizeof(t) - 1);
}

static size_t site_name(void *ctx, const uint64_t *pc, unsigned npc, char *out, size_t room)
{
	size_t n = 0;
	(void)ctx;
	for (unsigned i = 0; i < npc; i++) {
		int is_main;
		if (i)
			n = add(out, room, n, " <- ", 4);
		n += frame_text(pc[i], out + n, room - n, &is_main);
		if (is_main)
			break;	/* what is above main is the C library's start */
	}
	return n;
}

static size_t static_name(void *ctx, uint64_t start, uint64_t end, char *out, size_t room)
{
	char t[512];
	int n;
	Dwfl_Module *m = dw.dwfl ? dw.addrmodule(dw.dwfl, start) : NULL;
	(void)ctx, (void)end;
	if (!m)
		return 0;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *s = dw.addrinfo(m, start, &off, &sym, NULL, NULL, NULL);
	if (s && off == 0)
		n = snprintf(t, sizeof(t), "%s", s);
	else if (s)
		n = snprintf(t, sizeof(t), "%s+0x%llx", s, (unsigned long long)off);
	else {
		Dwarf_Addr lo = 0;
		const char *obj = dw.modinfo(m, NULL, &lo, NULL, NULL, NULL, NULL, NULL);
		n = snprintf(t, sizeof(t), "%s+0x%llx", obj ? base_name(obj) : "?", (unsigned long long)(start - lo));
	}
	return add(out, room, 0, t, n < 0 ? 0 : (size_t)n < sizeof(t) ? (size_t)n : sizeof(t) - 1);
}

/* the variable of the function at IP whose place (DW_OP_fbreg from the CFA, as gcc
 * emits on x86-64: stackvars.c) is START */
static const char *var_at(Dwfl_Module *m, uint64_t ip, uint64_t cfa, uint64_t start)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dw.addrdie(m, ip - 1, &bias);
	Dwarf_Die *scopes = NULL;
	const char *found = NULL;
	int n = cu ? dw.getscopes(cu, ip - 1 - bias, &scopes) : 0;

	for (int i = 0; i < n && !found; i++) {
		Dwarf_Die d;
		if (dw.child(&scopes[i], &d) != 0)
			continue;
		do {
			int tag = dw.tag(&d);
			Dwarf_Attribute a;
			Dwarf_Op *op;
			size_t len;
			if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) ||
			    !dw.attr(&d, DW_AT_location, &a) ||
			    dw.getlocation_addr(&a, ip - 1 - bias, &op, &len, 1) != 1 || len != 1 ||
			    op[0].atom != DW_OP_fbreg)
				continue;
			if (cfa + (uint64_t)(int64_t)op[0].number == start) {
				found = dw.diename(&d);
				break;
			}
		} while (dw.siblingof(&d, &d) == 0);
		if (dw.tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	}
	free(scopes);
	return found;
}

static size_t stack_name(void *ctx, uint64_t ip, uint64_t cfa, uint64_t start, uint64_t end, char *out,
			 size_t room)
{
	char t[512];
	int n;
	(void)ctx, (void)end;
	Dwfl_Module *m = ip && dw.dwfl ? dw.addrmodule(dw.dwfl, ip - 1) : NULL;
	if (!m)
		return 0;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *fn = dw.addrinfo(m, ip - 1, &off, &sym, NULL, NULL, NULL);
	const char *var = var_at(m, ip, cfa, start);
	if (!fn)
		return 0;
	n = var ? snprintf(t, sizeof(t), "%s:%s", fn, var) : snprintf(t, sizeof(t), "%s frame", fn);
	return add(out, room, 0, t, n < 0 ? 0 : (size_t)n < sizeof(t) ? (size_t)n : sizeof(t) - 1);
}

static size_t map_name(void *ctx, uint64_t id, uint64_t start, uint64_t size, char *out, size_t room)
{
	(void)ctx;
	return dyl_flow_map_name(id, start, size, out, room);
}

void dyl_flow_write(int fd, uint64_t size, uint64_t seq)
{
	char path[sizeof(dyl_rt.path) + sizeof(DYL_FLOW_SUFFIX)];
	struct dyl_flow_names names = { NULL, site_name, static_name, stack_name, map_name };
	const char *why;
	struct stat st;

	dyl_flow_notes();	/* (flow-speed: the calls past the region cap) */
	if (dyl_rt.spool_memfd)	/* the trace is no regular file: nowhere beside it */
		return;
	snprintf(path, sizeof(path), "%s%s", dyl_rt.path, DYL_FLOW_SUFFIX);
	int out = dyl_open_safe(path, O_WRONLY | O_CREAT);
	if (out < 0 || ftruncate(out, 0) != 0) {
		dyl_warn_once("flow", "cannot write %s: %s", path, strerror(errno));
		if (out >= 0)
			close(out);
		return;
	}
	dw_load();
	uint32_t flags = (dyl_flow_lost() ? DYL_FLOW_F_CUT : 0) |
			 (__atomic_load_n(&dyl_reg.diff_on, __ATOMIC_RELAXED) ? DYL_FLOW_F_DIFF : 0) |
			 (dyl_hostread_recorded() ? DYL_FLOW_F_HOSTREAD : 0);
	if (dyl_flow_convert(fd, size, 0, seq, (int32_t)getpid(), flags, &names, out, &why) != 0) {
		int err = errno;
		dyl_warn_once("flow", "cannot write %s: %s (%s)", path, why, strerror(err));
		/* the name is removed only while it is still our file's */
		struct stat o;
		if (fstat(out, &o) == 0 && lstat(path, &st) == 0 && st.st_ino == o.st_ino && st.st_dev == o.st_dev)
			unlink(path);
	}
	close(out);
}
