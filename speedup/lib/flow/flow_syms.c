/* flow_syms.c - a TRACE.flow's addresses named offline (flow_syms.h).
 *
 * Each module is opened once, at the first address that falls in it, as a Dwfl of its
 * own placed at the process's load bias (so the process's addresses are looked up as
 * they were); a file whose build ID is not the one the process had (replaced since the
 * run), or that cannot be read, keeps the raw names (object+0xoff).  Separate debug
 * information is looked for by build ID only (/usr/lib/debug/.build-id/, where Debian's
 * -dbgsym packages put it): no debuginfod, no network while a tool reads a file.
 *
 * libdw looks a symbol up by reading the whole symbol table (dwfl_module_addrinfo scans
 * every symbol, ~100 us an address in libpython's), and a run's sites share most of their
 * frames (numpy: 3,492 return addresses, 1,165 distinct): each address's symbol is
 * looked up once and kept (struct memo_ent), so the names are libdw's, made once each.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "flow_syms.h"

struct module {
	uint64_t bias, lo, hi;
	char *path;
	unsigned char *build_id;
	size_t build_id_len;
	int state;		/* 0: not opened yet; 1: open; -1: cannot be read */
	Dwfl *dwfl;
	Dwfl_Module *mod;
};

/* an address's symbol, as dwfl_module_addrinfo gave it (FN NULL: none) */
struct memo_ent {
	uint64_t addr;		/* 0: empty */
	const char *fn;		/* libdw's string: alive while its module's Dwfl is */
	GElf_Off off;
};

struct flow_syms {
	struct module *m;
	size_t n, room;
	struct memo_ent *memo;	/* open addressing, a power of two; at most half full */
	size_t memo_n, memo_room;
	char *debuginfo_path;
	Dwfl_Callbacks cb;
};

/* separate debug information by build ID only (see the head) */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

struct flow_syms *flow_syms_new(void)
{
	struct flow_syms *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cb.find_elf = dwfl_build_id_find_elf;
	s->cb.find_debuginfo = find_debuginfo;
	s->cb.debuginfo_path = &s->debuginfo_path;
	return s;
}

void flow_syms_free(struct flow_syms *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		if (s->m[i].dwfl)
			dwfl_end(s->m[i].dwfl);
		free(s->m[i].path);
		free(s->m[i].build_id);
	}
	free(s->m);
	free(s->memo);
	free(s);
}

int flow_syms_module(struct flow_syms *s, uint64_t bias, uint64_t lo, uint64_t hi, const char *path,
		     size_t path_len, const unsigned char *build_id, size_t build_id_len)
{
	if (s->n >= FLOW_SYMS_MAX)
		return -2;
	if (s->n == s->room) {
		size_t room = s->room ? s->room * 2 : 64;
		struct module *m = realloc(s->m, room * sizeof(*m));
		if (!m)
			return -1;
		s->m = m;
		s->room = room;
	}
	struct module *m = &s->m[s->n];
	*m = (struct module){ .bias = bias, .lo = lo, .hi = hi };
	if (!(m->path = strndup(path, path_len)) ||
	    (build_id_len && !(m->build_id = malloc(build_id_len)))) {
		free(m->path);
		return -1;
	}
	if (build_id_len)
		memcpy(m->build_id, build_id, build_id_len);
	m->build_id_len = build_id_len;
	s->n++;
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* the module holding ADDR, opened at first use; NULL: none holds it */
static struct module *module_at(struct flow_syms *s, uint64_t addr)
{
	struct module *m = NULL;

	for (size_t i = 0; i < s->n && !m; i++)
		if (addr >= s->m[i].lo && addr < s->m[i].hi)
			m = &s->m[i];
	if (!m || m->state)
		return m;
	m->state = -1;
	/* a regular file only: the path comes from the file read (a FIFO would hang the
	 * tool, a device feed it forever); the vDSO has none */
	struct stat st;
	int fd = m->path[0] == '/' ? open(m->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(m->dwfl = dwfl_begin(&s->cb))) {
		if (fd >= 0)
			close(fd);
		return m;
	}
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_elf(m->dwfl, base_name(m->path), m->path, fd, m->bias, true);
	if (!m->mod)
		close(fd);	/* (consumed only on success) */
	dwfl_report_end(m->dwfl, NULL, NULL);
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int n = m->mod ? dwfl_module_build_id(m->mod, &bits, &vaddr) : -1;
	/* the same file as the process's, or none of its names */
	if (!m->mod || (m->build_id_len && (n != (int)m->build_id_len ||
					    memcmp(bits, m->build_id, m->build_id_len) != 0))) {
		dwfl_end(m->dwfl);
		m->dwfl = NULL;
		m->mod = NULL;
		return m;
	}
	m->state = 1;
	return m;
}

/* T (LEN bytes) after the N bytes of OUT, as much as fits in ROOM: the new length */
static size_t put(char *out, size_t room, size_t n, const char *t, int len)
{
	size_t l = n >= room || len < 0 ? 0 : (size_t)len < room - n ? (size_t)len : room - n;
	memcpy(out + n, t, l);
	return n + l;
}

/* ADDR as object+0xoff (M NULL: 0xaddr) */
static int raw(char *t, size_t room, const struct module *m, uint64_t addr)
{
	if (!m)
		return snprintf(t, room, "0x%llx", (unsigned long long)addr);
	return snprintf(t, room, "%s+0x%llx", base_name(m->path), (unsigned long long)(addr - m->lo));
}

static int clip(int n, size_t room)
{
	return n < 0 ? 0 : (size_t)n < room ? n : (int)room - 1;
}

static size_t memo_slot(const struct memo_ent *t, size_t room, uint64_t addr)
{
	size_t i = (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 20) & (room - 1);

	while (t[i].addr && t[i].addr != addr)
		i = (i + 1) & (room - 1);
	return i;
}

/* doubles the table; -1: out of memory (the caller looks up without keeping) */
static int memo_grow(struct flow_syms *s)
{
	size_t room = s->memo_room ? s->memo_room * 2 : 1024;
	struct memo_ent *t = calloc(room, sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; i < s->memo_room; i++)
		if (s->memo[i].addr)
			t[memo_slot(t, room, s->memo[i].addr)] = s->memo[i];
	free(s->memo);
	s->memo = t;
	s->memo_room = room;
	return 0;
}

/* dwfl_module_addrinfo's symbol at ADDR in M (open), looked up once an address */
static const char *symbol(struct flow_syms *s, struct module *m, uint64_t addr, GElf_Off *off)
{
	GElf_Sym sym;

	if (addr && (2 * (s->memo_n + 1) <= s->memo_room || memo_grow(s) == 0)) {
		struct memo_ent *e = &s->memo[memo_slot(s->memo, s->memo_room, addr)];
		if (!e->addr) {
			*e = (struct memo_ent){ addr, NULL, 0 };
			e->fn = dwfl_module_addrinfo(m->mod, addr, &e->off, &sym, NULL, NULL, NULL);
			s->memo_n++;
		}
		*off = e->off;
		return e->fn;
	}
	return dwfl_module_addrinfo(m->mod, addr, off, &sym, NULL, NULL, NULL);
}

/* one frame at PC (a return address: the call is the byte before); *IS_MAIN: the
 * function is main (the frames above it are the C library's start) */
static size_t frame(struct flow_syms *s, uint64_t pc, char *out, size_t room, size_t n, int *is_main)
{
	char t[512];
	struct module *m = module_at(s, pc - 1);
	int len;

	*is_main = 0;
	if (m && m->state == 1) {
		GElf_Off off = 0;
		const char *fn = symbol(s, m, pc - 1, &off);
		Dwfl_Line *l = dwfl_module_getsrc(m->mod, pc - 1);
		int line = 0;
		const char *src = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
		if (fn && src)
			len = snprintf(t, sizeof(t), "%s (%s:%d)", fn, base_name(src), line);
		else if (fn)
			len = snprintf(t, sizeof(t), "%s+0x%llx", fn, (unsigned long long)(off + 1));
		else
			len = raw(t, sizeof(t), m, pc);
		*is_main = fn && !strcmp(fn, "main");
	} else {
		len = raw(t, sizeof(t), m, pc);
	}
	return put(out, room, n, t, clip(len, sizeof(t)));
}

size_t flow_syms_site(struct flow_syms *s, const uint64_t *pc, unsigned npc, char *out, size_t room)
{
	size_t n = 0;

	for (unsigned i = 0; i < npc; i++) {
		int is_main;
		if (i)
			n = put(out, room, n, " <- ", 4);
		n = frame(s, pc[i], out, room, n, &is_main);
		if (is_main)
			break;	/* what is above main is the C library's start */
	}
	return n;
}

size_t flow_syms_func(struct flow_syms *s, uint64_t pc, char *out, size_t room, int *is_main)
{
	char t[512];
	struct module *m = module_at(s, pc - 1);
	GElf_Off off = 0;
	const char *fn = m && m->state == 1 ? symbol(s, m, pc - 1, &off) : NULL;
	int len = fn ? snprintf(t, sizeof(t), "%s", fn) : raw(t, sizeof(t), m, pc);

	*is_main = fn && !strcmp(fn, "main");
	return put(out, room, 0, t, clip(len, sizeof(t)));
}

const char *flow_syms_path(struct flow_syms *s, uint64_t addr)
{
	for (size_t i = 0; i < s->n; i++)
		if (addr >= s->m[i].lo && addr < s->m[i].hi)
			return s->m[i].path;
	return NULL;
}

size_t flow_syms_static(struct flow_syms *s, uint64_t addr, char *out, size_t room)
{
	char t[512];
	struct module *m = module_at(s, addr);
	const char *sym = NULL;
	GElf_Off off = 0;
	int len;

	if (!m)
		return 0;
	if (m->state == 1)
		sym = symbol(s, m, addr, &off);
	if (sym && off == 0)
		len = snprintf(t, sizeof(t), "%s", sym);
	else if (sym)
		len = snprintf(t, sizeof(t), "%s+0x%llx", sym, (unsigned long long)off);
	else
		len = raw(t, sizeof(t), m, addr);
	return put(out, room, 0, t, clip(len, sizeof(t)));
}

/* the variable of the function at IP whose place (DW_OP_fbreg from the CFA, as gcc
 * emits on x86-64) is START */
static const char *var_at(Dwfl_Module *m, uint64_t ip, uint64_t cfa, uint64_t start)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(m, ip - 1, &bias);
	Dwarf_Die *scopes = NULL;
	const char *found = NULL;
	int n = cu ? dwarf_getscopes(cu, ip - 1 - bias, &scopes) : 0;

	for (int i = 0; i < n && !found; i++) {
		Dwarf_Die d;
		if (dwarf_child(&scopes[i], &d) != 0)
			continue;
		do {
			int tag = dwarf_tag(&d);
			Dwarf_Attribute a;
			Dwarf_Op *op;
			size_t len;
			if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) ||
			    !dwarf_attr(&d, DW_AT_location, &a) ||
			    dwarf_getlocation_addr(&a, ip - 1 - bias, &op, &len, 1) != 1 || len != 1 ||
			    op[0].atom != DW_OP_fbreg)
				continue;
			if (cfa + (uint64_t)(int64_t)op[0].number == start) {
				found = dwarf_diename(&d);
				break;
			}
		} while (dwarf_siblingof(&d, &d) == 0);
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	}
	free(scopes);
	return found;
}

size_t flow_syms_stack(struct flow_syms *s, uint64_t ip, uint64_t cfa, uint64_t start, char *out,
		       size_t room)
{
	char t[512];
	struct module *m = ip ? module_at(s, ip - 1) : NULL;
	GElf_Off off = 0;
	int len;

	if (!m)
		return 0;
	if (m->state != 1) {	/* as the process named it */
		len = raw(t, sizeof(t), m, ip);
		len = clip(len, sizeof(t) - 6);
		memcpy(t + len, " frame", 6);
		return put(out, room, 0, t, len + 6);
	}
	const char *fn = symbol(s, m, ip - 1, &off);
	if (!fn)
		return 0;
	const char *var = var_at(m->mod, ip, cfa, start);
	len = var ? snprintf(t, sizeof(t), "%s:%s", fn, var) : snprintf(t, sizeof(t), "%s frame", fn);
	return put(out, room, 0, t, clip(len, sizeof(t)));
}
