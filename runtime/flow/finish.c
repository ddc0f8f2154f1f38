/* finish.c - TRACE.flow at exit: the converter (runtime/format/flowconv.c) reads the spool
 * once its rows are numbered, and the names of what the process had come from here.
 *
 * No name is looked up here (issue 33): naming through libdw at exit started its
 * debuginfod client, which loaded libcurl and libssh2 into the program, and libssh2
 * called into libcrypto after OpenSSL's cleanup (openssl crashed, its output lost).
 * Nothing here loads a library or calls into the program's.  The file gets the
 * module table instead (each loaded object's path, build ID, load bias and range,
 * from dl_iterate_phdr: the loader's own list) and the raw names, object+0xoff; the
 * tools name the addresses offline from the files (speedup/lib/flow/flow_syms.c), as perf
 * and heaptrack do.  The file is made as the trace is (doc/safety.md): never through a
 * symlink nor another name of a file, mode 0600; a failed write (a full disk) removes it
 * and warns once; the trace itself is not touched.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dyl_flowconv.h"
#include "flow.h"
#include "hostread.h"
#include "../regions/regions.h"
#include "elfsym.h"

/* The module table: entries, then their paths and build IDs, in one mapping (no malloc:
 * this may run inside a wrapped malloc's process at its end). */
#define MODS_MAX 4096
#define ARENA (1u << 20)
struct mod {
	uint64_t bias, lo, hi;
	size_t path_at, path_len, bid_at, bid_len;
};
static struct mods {
	struct mod *e;
	char *text;		/* the paths and build IDs */
	unsigned n;
	size_t used, room;
} mods;

static size_t keep(const void *p, size_t n)
{
	size_t at = mods.used;
	if (n > mods.room - mods.used)
		return SIZE_MAX;
	memcpy(mods.text + at, p, n);
	mods.used += n;
	return at;
}

static int add_mod(struct dl_phdr_info *info, size_t size, void *arg)
{
	char exe[4096];
	const char *path;
	uint64_t lo, hi;
	size_t blen;
	(void)size, (void)arg;

	if (mods.n >= MODS_MAX)
		return 1;
	if (!dyl_elf_span(info, &lo, &hi))
		return 0;
	/* the program's from /proc/self/exe; another's by the name /proc/self/maps shows
	 * (a soname's link resolved: libgfortran.so.5.0.0, not libgfortran.so.5; a relative
	 * LD_PRELOAD=./w.so made absolute) */
	if (!(path = dyl_elf_path(info, lo, mods.n == 0, exe, sizeof(exe))))
		return 0;
	const unsigned char *bid = dyl_elf_build_id(info, &blen);
	struct mod m = { info->dlpi_addr, lo, hi, keep(path, strlen(path)), strlen(path), 0, 0 };
	size_t at = bid ? keep(bid, blen) : SIZE_MAX;
	if (at != SIZE_MAX)
		m.bid_at = at, m.bid_len = blen;
	if (m.path_at == SIZE_MAX)
		return 1;	/* the arena is full */
	mods.e[mods.n++] = m;
	return 0;
}

static void mods_load(void)
{
	size_t len = MODS_MAX * sizeof(struct mod) + ARENA;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	mods.n = 0;
	if (p == MAP_FAILED) {
		mods.e = NULL;
		return;
	}
	mods.e = p;
	mods.text = (char *)p + MODS_MAX * sizeof(struct mod);
	mods.used = 0;
	mods.room = ARENA;
	dl_iterate_phdr(add_mod, NULL);
}

static void mods_release(void)
{
	if (mods.e)
		munmap(mods.e, MODS_MAX * sizeof(struct mod) + ARENA);
	mods.e = NULL;
	mods.n = 0;
}

static int module(void *ctx, unsigned i, struct dyl_flow_modinfo *m)
{
	(void)ctx;
	if (i >= mods.n)
		return 0;
	const struct mod *e = &mods.e[i];
	*m = (struct dyl_flow_modinfo){ e->bias, e->lo, e->hi, mods.text + e->path_at, e->path_len,
					(const unsigned char *)mods.text + e->bid_at, e->bid_len };
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

/* ADDR's raw name into OUT: object+0xoff (the object's file name), else 0xaddr */
static size_t raw_name(uint64_t addr, const char *suffix, char *out, size_t room)
{
	char t[320];
	int n = -1;

	for (unsigned i = 0; i < mods.n && n < 0; i++)
		if (addr >= mods.e[i].lo && addr < mods.e[i].hi) {
			const char *p = mods.text + mods.e[i].path_at;
			const char *b = memrchr(p, '/', mods.e[i].path_len);
			b = b ? b + 1 : p;
			n = snprintf(t, sizeof(t), "%.*s+0x%llx%s", (int)(mods.e[i].path_len - (size_t)(b - p)),
				     b, (unsigned long long)(addr - mods.e[i].lo), suffix);
		}
	if (n < 0)
		n = snprintf(t, sizeof(t), "0x%llx%s", (unsigned long long)addr, suffix);
	return add(out, room, 0, t, n < 0 ? 0 : (size_t)n < sizeof(t) ? (size_t)n : sizeof(t) - 1);
}

static size_t site_name(void *ctx, const uint64_t *pc, unsigned npc, char *out, size_t room)
{
	size_t n = 0;
	(void)ctx;
	for (unsigned i = 0; i < npc; i++) {
		if (i)
			n = add(out, room, n, " <- ", 4);
		if (n < room)
			n += raw_name(pc[i], "", out + n, room - n);
	}
	return n;
}

static size_t static_name(void *ctx, uint64_t start, uint64_t end, char *out, size_t room)
{
	(void)ctx, (void)end;
	return raw_name(start, "", out, room);
}

/* per frame (the function's return address): the readers join a variable's frames */
static size_t stack_name(void *ctx, uint64_t ip, uint64_t cfa, uint64_t start, uint64_t end, char *out,
			 size_t room)
{
	(void)ctx, (void)cfa, (void)start, (void)end;
	return ip ? raw_name(ip, " frame", out, room) : 0;
}

static size_t map_name(void *ctx, uint64_t id, uint64_t start, uint64_t size, char *out, size_t room)
{
	(void)ctx;
	return dyl_flow_map_name(id, start, size, out, room);
}

void dyl_flow_write(int fd, uint64_t size, uint64_t seq)
{
	char path[sizeof(dyl_out.path) + sizeof(DYL_FLOW_SUFFIX)];
	struct dyl_flow_names names = { NULL, site_name, static_name, stack_name, map_name, module };
	const char *why;
	struct stat st;

	if (dyl_spool.memfd)	/* the trace is no regular file: nowhere beside it */
		return;
	snprintf(path, sizeof(path), "%s%s", dyl_out.path, DYL_FLOW_SUFFIX);
	int out = dyl_open_safe(path, O_WRONLY | O_CREAT);
	if (out < 0 || ftruncate(out, 0) != 0) {
		/* (a FIFO planted there: "no regular file", not ENXIO's "No such device") */
		int err = errno;
		const char *why = out < 0 ? dyl_refused(path, err) : NULL;
		dyl_warn_once("flow", "cannot write %s: %s", path, why ? why : strerror(err));
		if (out >= 0)
			close(out);
		return;
	}
	mods_load();
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
	mods_release();
	close(out);
}
