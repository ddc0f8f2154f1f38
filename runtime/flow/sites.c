/* sites.c - allocation sites: the return addresses of the program's frames above the
 * allocator (DYL_FLOW_SITE_PCS of them), found at each malloc, interned to a small id.
 *
 * Cost is the point (the goal: 60 ns a malloc/free pair, everything included).
 * libunwind's unw_backtrace, fast path and all, costs 45-85 ns for 2-6 frames here
 * (bench/flow/, figures-flow-rt.md); the 6 frames needed (the hook, the region table,
 * the wrapper's malloc, three of the program's) would eat the whole budget.  So the walk
 * is done here, from a cache of each return address's frame size: a function's CFA
 * (where its caller's stack pointer was) is its stack pointer plus a constant at each
 * of its call sites in code without a frame pointer, and in code with one whose frame
 * does not grow (no alloca).  The cache is filled from libunwind's walks: on a miss the
 * whole walk is libunwind's, and every frame it stepped through gives its return
 * address's size (the difference of two stack pointers).  A cached walk reads only the
 * return-address slots of the thread's own stack, checked against its bounds, and
 * follows only return addresses the cache knows: a frame whose size was not constant
 * leads to an address it does not know, a miss, and libunwind's walk.
 *
 * Interning: an open-addressing table of (pc[3], id), filled under a spin lock, read
 * without one (id stored last).  A new site puts a SITE event before the ALLOC naming it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include "flow.h"
#include "../regions/regions.h"
#include "../regions/unwind.h"

#define CACHE 16384		/* return addresses with their frame sizes (a power of two) */
#define SITES 65536		/* distinct sites (a power of two); past 3/4 of it: no site */
#define WALK_MAX 32		/* frames libunwind walks at most */
#define NPC DYL_FLOW_SITE_PCS

struct site_ent {
	uint64_t pc[NPC];
	uint64_t id;		/* site id + 1; 0: empty */
};

static struct sites {
	uint64_t cache[CACHE];	/* pc << 16 | frame size; 0: empty */
	uintptr_t rt_lo, rt_hi;	/* libdylrt.so's code: its frames are not the program's */
	struct site_ent *tab;
	int lock;
	uint64_t n;
} st;

static TLS uintptr_t stack_lo, stack_hi;
static TLS uint64_t last_pc[NPC], last_id = UINT64_MAX;	/* the thread's last site */

static inline unsigned slot(uint64_t pc)
{
	return (unsigned)((pc * 0x9E3779B97F4A7C15ull) >> 40) & (CACHE - 1);
}

/* 1: PC is known, *OFF its frame's size (0: the outermost frame) */
static inline int frame_size(uintptr_t pc, unsigned *off)
{
	uint64_t e = __atomic_load_n(&st.cache[slot(pc)], __ATOMIC_RELAXED);
	*off = (unsigned)(e & 0xffff);
	return pc && (e >> 16) == pc;
}

/* The frames' return addresses into OUT: the frames of libdylrt.so first, then one
 * (the wrapper's malloc) are skipped.  PC, SP: a return address and the stack pointer
 * of its frame.  -1: a frame the cache does not know. */
static int walk_cached(uintptr_t pc, uintptr_t sp, uint64_t *out)
{
	int n = 0, phase = 0;

	if (!stack_hi)
		return -1;
	for (int i = 0; i < WALK_MAX && n < NPC; i++) {
		unsigned off;
		if (!frame_size(pc, &off))
			return -1;
		if (phase == 0 && !(pc >= st.rt_lo && pc < st.rt_hi))
			phase = 1;	/* the allocator's own frame */
		else if (phase == 1 && (out[n++] = pc, n == NPC))
			break;
		if (off == 0)
			break;	/* the outermost frame libunwind found */
		uintptr_t cfa = sp + off;
		if (cfa <= sp || cfa < stack_lo + 8 || cfa > stack_hi)
			return -1;
		pc = *(const uintptr_t *)(cfa - 8);
		sp = cfa;
	}
	return n;
}

/* libunwind's walk, which fills the cache */
static __attribute__((noinline)) int walk_unwind(uint64_t *out)
{
	unw_context_t uc;
	unw_cursor_t cur;
	uintptr_t ip[WALK_MAX], sp[WALK_MAX];
	int n = 0, k = 0, phase = 0;

	if (!stack_hi && !dyl_stack_bounds(&stack_lo, &stack_hi))
		stack_lo = stack_hi = 0;
	if (DYL_UNW_START(&uc, &cur) != 0)
		return 0;
	do {
		unw_word_t a, b;
		if (dyl_unw.get_reg(&cur, UNW_REG_IP, &a) != 0 || dyl_unw.get_reg(&cur, UNW_REG_SP, &b) != 0)
			break;
		ip[n] = a;
		sp[n] = b;
		n++;
	} while (n < WALK_MAX && dyl_unw.step(&cur) > 0);
	/* frame 0 is this function (its IP is no return address); the outermost frame
	 * has size 0: known, but the walk ends there (unless the walk stopped at WALK_MAX) */
	for (int i = 1; i < n; i++) {
		uint64_t off = i + 1 < n ? sp[i + 1] - sp[i] : 0;
		if (i + 1 == n && n == WALK_MAX)
			break;
		if ((i + 1 == n || (sp[i + 1] > sp[i] && off < 0x10000)) && ip[i] < (1ull << 48))
			__atomic_store_n(&st.cache[slot(ip[i])], (uint64_t)ip[i] << 16 | off, __ATOMIC_RELAXED);
	}
	for (int i = 1; i < n && k < NPC; i++) {
		if (phase == 0 && !(ip[i] >= st.rt_lo && ip[i] < st.rt_hi))
			phase = 1;
		else if (phase == 1)
			out[k++] = ip[i];
	}
	return k;
}

static uint64_t intern(const uint64_t *pc)
{
	uint64_t h = (pc[0] * 0x9E3779B97F4A7C15ull) ^ (pc[1] * 0xC2B2AE3D27D4EB4Full) ^ (pc[2] * 0x165667B19E3779F9ull);
	unsigned i = (unsigned)(h >> 32) & (SITES - 1);

	if (!st.tab)
		return UINT64_MAX;
	for (unsigned probes = 0; probes < SITES; probes++, i = (i + 1) & (SITES - 1)) {
		struct site_ent *e = &st.tab[i];
		uint64_t id = __atomic_load_n(&e->id, __ATOMIC_ACQUIRE);
		if (id == 0) {
			dyl_spin_lock(&st.lock);
			id = __atomic_load_n(&e->id, __ATOMIC_ACQUIRE);
			if (id == 0) {
				if (st.n >= SITES / 4 * 3) {
					dyl_spin_unlock(&st.lock);
					return UINT64_MAX;
				}
				memcpy(e->pc, pc, sizeof(e->pc));
				id = ++st.n;
				/* the SITE before the ALLOC naming it (in this thread's order) */
				uint64_t ev[2 + NPC] = { DYL_RE_WORD(DYL_RE_SITE, 2 + NPC, 0, NPC), id - 1 };
				memcpy(ev + 2, pc, sizeof(e->pc));
				dyl_flow_put(ev, 2 + NPC);
				__atomic_store_n(&e->id, id, __ATOMIC_RELEASE);
				dyl_spin_unlock(&st.lock);
				return id - 1;
			}
			dyl_spin_unlock(&st.lock);
		}
		if (!memcmp(e->pc, pc, sizeof(e->pc)))
			return id - 1;
	}
	return UINT64_MAX;
}

uint64_t dyl_flow_site(void)
{
	uint64_t pc[NPC] = { 0 };
	int n = walk_cached((uintptr_t)__builtin_return_address(0), (uintptr_t)__builtin_dwarf_cfa(), pc);

	if (n < 0) {
		memset(pc, 0, sizeof(pc));
		n = walk_unwind(pc);
	}
	if (n <= 0)
		return UINT64_MAX;
	/* a loop's allocations: the thread's last site again, no table probe */
	if (last_id != UINT64_MAX && !memcmp(pc, last_pc, sizeof(pc)))
		return last_id;
	memcpy(last_pc, pc, sizeof(pc));
	return last_id = intern(pc);
}

unsigned dyl_flow_site_pcs(uint64_t site, uint64_t *pc)
{
	for (unsigned i = 0; st.tab && i < SITES; i++)
		if (st.tab[i].id == site + 1) {
			unsigned n = 0;
			while (n < NPC && st.tab[i].pc[n])
				pc[n] = st.tab[i].pc[n], n++;
			return n;
		}
	return 0;
}

static int find_rt(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if (info->dlpi_addr != (uintptr_t)arg)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			st.rt_lo = info->dlpi_addr + ph->p_vaddr;
			st.rt_hi = st.rt_lo + ph->p_memsz;
		}
	}
	return 1;
}

/* a forked child numbers its own sites: its trace has none of its parent's */
static void child_after_fork(void)
{
	st.lock = 0;
	last_id = UINT64_MAX;
	if (st.tab)
		memset(st.tab, 0, SITES * sizeof(*st.tab));
	st.n = 0;
}

void dyl_flow_sites_setup(void)
{
	Dl_info di;
	void *p = mmap(NULL, SITES * sizeof(*st.tab), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	st.tab = p == MAP_FAILED ? NULL : p;
	if (dladdr((void *)dyl_flow_sites_setup, &di) && di.dli_fbase)
		dl_iterate_phdr(find_rt, di.dli_fbase);
	pthread_atfork(NULL, NULL, child_after_fork);
}
