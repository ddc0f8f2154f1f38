/* hostread.c - std.flow's host reads (-g std.flow:host_reads=on, issue 24): which
 * outputs of a call the program itself reads before its next call (doc/flow.md, the
 * HOST_READ record: doc/specs/flow.md).
 *
 * After each outermost call, the pages of the heap blocks it wrote (its output extents)
 * that hold nothing but that block are protected (PROT_NONE).  The program's first touch
 * of such a page is a SIGSEGV that this file's handler takes: it records a HOSTRD event
 * (the page, clipped to the block) and lifts that page's protection, so each page costs
 * one fault per call that wrote it.  A fault while the thread is inside a wrapped call
 * (depth > 0) is the library's, not the program's: nothing is recorded; and before
 * each call the protection of its arguments' blocks is lifted (one mprotect a block)
 * so that libraries do not fault page by page.  What a call opens is lent to it, not
 * read: its bytes are still those an earlier call wrote, unseen by the program.  The
 * ranges stay in the table, open; when the call returns, the open ranges of every
 * block it opened are protected again (with its own outputs), so that one buffer
 * several calls fill (deflate's output, Z_NO_FLUSH then Z_FINISH), or an output
 * another call only read, is seen when the program reads it at last.  (The program's
 * I/O on an open range is recorded; its plain reads of one, from another thread while
 * the call runs, are not seen.)  The kernel does not fault when it reads or writes a
 * protected page for a system call (read(2) fails with EFAULT): the wrapper interposes
 * the libc functions that hand user buffers to it (dyl_hostio.h), which call
 * dyl_hostread_io first.
 *
 * What cannot be protected is recorded as read right after the call (DYL_HR_ASSUMED):
 * bytes on pages shared with other objects (a small block, the edges of a block from
 * the brk heap; a block glibc mapped by itself owns its edge pages), stack and static
 * outputs, mappings (the program chose their protection), and anything past RANGES_MAX
 * protected ranges (each may split a mapping in three; the kernel allows 65,530 a
 * process).  A touch that writes counts as a read (a partial page still needs the
 * rest of it).
 *
 * The program's own SIGSEGV handler: sigaction and signal are interposed for SIGSEGV
 * (dyl_hostio.h): what the program sets is kept here, not given to the kernel, and a
 * fault that is not ours goes to it as the kernel would have delivered it (its mask,
 * SA_RESETHAND, SA_SIGINFO; but SIGSEGV is not blocked in it); with no handler the
 * default is put back and the fault happens again: the process dies of it as without
 * the wrapper.  A fault raised while SIGSEGV is blocked kills the process (the kernel
 * puts the default back), so SIGSEGV is never blocked: sigprocmask, pthread_sigmask
 * and the sa_mask of the program's handlers lose it (dyl_hostio.h).
 *
 * The program's own protections (mprotect, interposed: dyl_hostread_mprotect) of heap
 * pages are kept here, by block, and given back whenever a page is lifted: a
 * write-barrier's read-only pages stay read-only, a guard page stays PROT_NONE.  A
 * page the runtime protects keeps PROT_NONE while the program changes its protection;
 * a fault there that the program's own protection would have raised too (a write to a
 * page it made read-only, any touch of its guard) is its own: it goes to its handler,
 * nothing is recorded, the page stays watched.  (An mprotect made by a raw system call,
 * or pkey_mprotect, is not seen.)
 *
 * The table of protected ranges is one sorted array under a spin lock, taken with the
 * asynchronous signals blocked (a handler of the program's that touched a protected
 * page while its thread held the lock would wait for itself).  fork: the child's memory
 * and table are copies of each other: it goes on with them.  exec drops both: every
 * page is lifted first (dyl_hostread_lift_all, from the runtime's exec hook, whether
 * or not the image recorded anything: the kernel reads the exec's strings).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <ucontext.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "flow.h"
#include "buffers.h"
#include "hostread.h"
#include "../regions/regions.h"
#define DYL_HOSTIO_DECLS_ONLY
#include "dyl_hostio.h"

#define PAGE 4096ul
#define RANGES_MAX 8192	/* protected ranges at once: at most 2 more VMAs each */
#define OUTS_MAX 64	/* a call's outputs kept for after it (more: not watched) */
#define LENT_MAX 64	/* blocks one call may open (more: recorded as read) */
#define PROTS_MAX 16384	/* the program's own protections of heap pages kept */
#define RW (PROT_READ | PROT_WRITE)

/* glibc's own sigaction: ours is interposed over the program's */
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);

struct range {
	uintptr_t a, b;		/* the protected pages */
	struct dyl_region r;	/* the heap block they belong to */
	int open;		/* lent to a call: accessible until it returns (put_back) */
};

struct lent {			/* a block whose ranges the current call opened */
	uintptr_t start;
	uint64_t id;
};

/* the program's own protection PROT of [A, B), pages of heap block ID (mprotect) */
struct prot {
	uintptr_t a, b;
	uint64_t id;
	int prot;
};

struct hr_out {			/* an output of the current call */
	struct dyl_region r;
	uintptr_t lo, hi, ip, cfa;
};

int dyl_hostread_on;

static struct hostread {
	int lock;
	size_t n;		/* ranges (read without the lock: 0 is the fast path) */
	struct range *v;	/* sorted by address, disjoint */
	size_t nprots;		/* the program's protections (read without the lock too) */
	struct prot *prots;	/* disjoint, in no order; never PROT_READ | PROT_WRITE */
	int prots_said;
	int prog_lock;
	struct sigaction prog;	/* the program's SIGSEGV disposition */
	int full_said;
} hr;

static TLS struct hr_out outs[OUTS_MAX];
static TLS unsigned nouts;
static TLS uintptr_t outs_call;	/* the call they are of (its struct dyl_call) */
static TLS uintptr_t retried;	/* a fault not in the table, let happen again once */
static TLS struct lent lent[LENT_MAX];	/* opened for this thread's current call */
static TLS unsigned nlent;
static TLS uint64_t *hr_data;	/* where the thread's last HOSTRD ended (it may grow) */
static TLS size_t hr_end;

static inline uintptr_t floor_page(uintptr_t a) { return a & ~(PAGE - 1); }
static inline uintptr_t ceil_page(uintptr_t a) { return (a + PAGE - 1) & ~(PAGE - 1); }

/* every signal but those a fault raises */
static void async_signals(sigset_t *s)
{
	sigfillset(s);
	sigdelset(s, SIGSEGV);
	sigdelset(s, SIGBUS);
	sigdelset(s, SIGFPE);
	sigdelset(s, SIGILL);
	sigdelset(s, SIGTRAP);
}

static void lock(sigset_t *old)
{
	sigset_t all;
	async_signals(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, old, _NSIG / 8);
	dyl_spin_lock(&hr.lock);
}

static void unlock(const sigset_t *old)
{
	dyl_spin_unlock(&hr.lock);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, _NSIG / 8);
}

static int protect(uintptr_t a, uintptr_t b, int prot)
{
	return (int)syscall(SYS_mprotect, a, b - a, prot);
}

/* --- the program's own protections (lock held) --- */

/* The program's protection of the page at A of block ID, and in *UNTIL where that
 * protection ends (at most B): read and write unless it said otherwise. */
static int prot_at(uintptr_t a, uintptr_t b, uint64_t id, uintptr_t *until)
{
	int p = RW;
	for (size_t i = 0; i < hr.nprots; i++) {
		const struct prot *q = &hr.prots[i];
		if (q->id != id || q->b <= a || q->a >= b)
			continue;
		if (q->a <= a) {	/* (disjoint: no other starts before its end) */
			p = q->prot;
			b = q->b < b ? q->b : b;
		} else {
			b = q->a;
		}
	}
	*until = b;
	return p;
}

/* [A, B) of block ID given back the protection the program gave it */
static void open_pages(uintptr_t a, uintptr_t b, uint64_t id)
{
	while (a < b) {
		uintptr_t y;
		int p = prot_at(a, b, id, &y);
		protect(a, y, p);
		a = y;
	}
}

/* [A, B) of block ID has the program's protection PROT from now on (the old ones of
 * those pages go, whatever block they were of: it was freed).  -1: no room. */
static int prot_set(uintptr_t a, uintptr_t b, uint64_t id, int prot)
{
	for (size_t i = 0; i < hr.nprots;) {
		struct prot *q = &hr.prots[i];
		if (q->b <= a || q->a >= b) {
			i++;
		} else if (q->a < a && q->b > b) {	/* a hole in it: two */
			if (hr.nprots >= PROTS_MAX)
				return -1;
			hr.prots[hr.nprots] = *q;
			hr.prots[hr.nprots++].a = b;
			q->b = a;
			i++;
		} else if (q->a < a) {
			q->b = a, i++;
		} else if (q->b > b) {
			q->a = b, i++;
		} else {
			*q = hr.prots[--hr.nprots];
		}
	}
	if (prot == RW)
		return 0;
	if (hr.nprots >= PROTS_MAX)
		return -1;
	hr.prots[hr.nprots++] = (struct prot){ a, b, id, prot };
	return 0;
}

/* every protection the program gave block ID's pages forgotten (it is freed) */
static void prots_drop(uint64_t id)
{
	for (size_t i = 0; i < hr.nprots;)
		if (hr.prots[i].id == id)
			hr.prots[i] = hr.prots[--hr.nprots];
		else
			i++;
}

/* would the touch of the page at A (block ID) that faulted have faulted without the
 * runtime too?  The fault's kind is in the context's error code (x86-64: bit 1 a
 * write, bit 4 an instruction fetch). */
static int programs_own_fault(uintptr_t a, uint64_t id, const void *uc)
{
	uintptr_t y;
	int p = prot_at(a, a + PAGE, id, &y), need = PROT_READ;
#ifdef REG_ERR
	if (uc) {
		greg_t err = ((const ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR];
		need = (err & 16) ? PROT_EXEC : (err & 2) ? PROT_WRITE : PROT_READ;
	}
#else
	(void)uc;
#endif
	return !(p & need);
}

/* lock held: the first range that ends after A */
static size_t first_after(uintptr_t a)
{
	size_t lo = 0, hi = hr.n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (hr.v[m].b <= a)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

static void remove_at(size_t i)
{
	memmove(&hr.v[i], &hr.v[i + 1], (hr.n - i - 1) * sizeof(*hr.v));
	__atomic_store_n(&hr.n, hr.n - 1, __ATOMIC_RELEASE);
}

static int insert_at(size_t i, const struct range *r)
{
	if (hr.n >= RANGES_MAX)
		return -1;
	memmove(&hr.v[i + 1], &hr.v[i], (hr.n - i) * sizeof(*hr.v));
	hr.v[i] = *r;
	__atomic_store_n(&hr.n, hr.n + 1, __ATOMIC_RELEASE);
	return 0;
}

/* lock held: [*X, *Y) (inside range I) made accessible and taken out of it; where that
 * would need one more range than the table holds, all of range I (*X, *Y widened).
 * Returns the index after what is left of range I. */
static size_t cut_keep(size_t i, uintptr_t *x, uintptr_t *y, int reopen);
static size_t cut(size_t i, uintptr_t *x, uintptr_t *y)
{
	return cut_keep(i, x, y, 1);
}

/* cut, and REOPEN 0: [*X, *Y) keep the protection they have (the program's, set) */
static size_t cut_keep(size_t i, uintptr_t *x, uintptr_t *y, int reopen)
{
	struct range *v = &hr.v[i];

	if (*x > v->a && *y < v->b) {	/* a hole in the middle: two ranges */
		struct range tail = *v;
		tail.a = *y;
		if (insert_at(i + 1, &tail) != 0) {
			/* (widened: what was not asked for is opened as any lift does) */
			if (!reopen) {
				open_pages(v->a, *x, v->r.id);
				open_pages(*y, v->b, v->r.id);
			}
			*x = v->a, *y = v->b;
		} else {
			if (reopen)
				open_pages(*x, *y, v->r.id);
			hr.v[i].b = *x;
			return i + 1;
		}
	}
	if (reopen)
		open_pages(*x, *y, v->r.id);
	if (*x == v->a && *y == v->b) {
		remove_at(i);
		return i;
	}
	if (*x == v->a)
		v->a = *y;
	else
		v->b = *x;
	return i + 1;
}

/* The program read [LO, HI) of region R (HOW: DYL_HR_*) at the trace clock's T: a
 * HOSTRD event (IP, CFA: a stack region's frame).  The converter places it before the
 * first outermost call of any thread that starts after T (a thread that never calls
 * again has its reads where they happened).  A read of the pages right after the
 * thread's last event, when that was a read of the same block, widens it (a loop reading
 * an array faults page after page: one event, not one per page, at its first page's
 * time). */
static void host_read(const struct dyl_region *r, uintptr_t ip, uintptr_t cfa, uintptr_t lo, uintptr_t hi,
		      unsigned how, uint64_t t)
{
	struct fbuf *b = dyl_flow_mine;

	if (!dyl_flow.on || dyl_flow_in || lo >= hi)
		return;
	dyl_flow_in++;
	struct fgroup g = { *r, UINTPTR_MAX, 0, ip, cfa };
	uint64_t w[ACC_MAX + 1];
	unsigned n = put_range(w, DYL_RE_HOSTRD, &g, lo, hi, how);
	w[0] = DYL_RE_WORD(DYL_RE_HOSTRD, n + 1, how, DYL_RE_SMALL(w[0]));	/* (the time after) */
	w[n++] = t;
	size_t len = b ? __atomic_load_n(&b->len, __ATOMIC_RELAXED) : 0;
	/* (heap: type, id, lo, hi, time) */
	if (n == 5 && b && b->data == hr_data && len == hr_end && len >= 5 && b->data[len - 5] == w[0] &&
	    b->data[len - 4] == w[1] && b->data[len - 2] == w[2]) {
		__atomic_store_n(&b->data[len - 2], w[3], __ATOMIC_RELEASE);
	} else if (dyl_flow_put(w, n) == 0 && (b = dyl_flow_mine)) {
		hr_data = b->data;
		hr_end = __atomic_load_n(&b->len, __ATOMIC_RELAXED);
	}
	dyl_flow_in--;
}

/* the program read [A, B) (page-aligned) of R at T (HOW: DYL_HR_*) */
static void record(const struct dyl_region *r, uintptr_t a, uintptr_t b, unsigned how, uint64_t t)
{
	uintptr_t lo = a > r->start ? a : r->start, hi = b < r->end ? b : r->end;
	if (lo < hi)
		host_read(r, 0, 0, lo, hi, how, t);
}

/* who touches: the program (recorded as read), a wrapped call or the runtime inside
 * one (lent to the call), or the runtime outside any call (lifted, nothing recorded) */
enum toucher { PROGRAM, CALL, RUNTIME };

static enum toucher toucher(void)
{
	struct dyl_thread *t = dyl_self;
	if (t && t->depth > 0)
		return CALL;
	return dyl_busy ? RUNTIME : PROGRAM;
}

/* The block of R is lent to this thread's current call (its open ranges protected
 * again when it returns: put_back).  -1: LENT_MAX blocks lent already.  Safe in the
 * signal handler: the list is the thread's own, and changed with the asynchronous
 * signals blocked (the lock held). */
static int lend(const struct range *r)
{
	for (unsigned i = nlent; i-- > 0;)
		if (lent[i].start == r->r.start && lent[i].id == r->r.id)
			return 0;
	if (nlent >= LENT_MAX)
		return -1;
	lent[nlent++] = (struct lent){ r->r.start, r->r.id };
	return 0;
}

/* lock held: range I opened for a call of this thread (-1: it cannot be lent).  (Open
 * already: opened again all the same; a fault there must not come back forever.) */
static int open_for_call(size_t i)
{
	struct range *v = &hr.v[i];
	if (lend(v) != 0)
		return -1;
	open_pages(v->a, v->b, v->r.id);
	v->open = 1;
	return 0;
}

/* what was lifted for WHO at T: recorded as read by the program, let go (the runtime),
 * or, for a call that could not be lent it, recorded as read (the bytes may come back
 * once too often; never too few) */
static void lifted(enum toucher who, const struct range *r, uint64_t t)
{
	if (who != RUNTIME)
		record(&r->r, r->a, r->b, who == PROGRAM ? DYL_HR_SEEN : DYL_HR_ASSUMED, t);
}

/* the protected pages in [A, B) lifted for WHO at T */
static void lift(uintptr_t a, uintptr_t b, enum toucher who, uint64_t t)
{
	enum { BATCH = 16 };
	struct range got[BATCH];
	sigset_t old;

	a = floor_page(a), b = ceil_page(b);
	for (;;) {
		unsigned k = 0;
		lock(&old);
		for (size_t i = first_after(a); i < hr.n && hr.v[i].a < b && k < BATCH;) {
			uintptr_t x = hr.v[i].a > a ? hr.v[i].a : a, y = hr.v[i].b < b ? hr.v[i].b : b;
			if (who == CALL && open_for_call(i) == 0) {
				i++;	/* (open, still in the table) */
				continue;
			}
			got[k] = hr.v[i];
			i = cut(i, &x, &y);
			got[k].a = x, got[k].b = y;
			k++;
		}
		unlock(&old);
		for (unsigned j = 0; j < k; j++)
			lifted(who, &got[j], t);
		if (k < BATCH)
			return;
	}
}

void dyl_hostread_io(const void *p, size_t n)
{
	if (!n || !__atomic_load_n(&hr.n, __ATOMIC_ACQUIRE))
		return;
	uintptr_t a = (uintptr_t)p, b = a + n < a ? UINTPTR_MAX : a + n;
	uint64_t t0 = dyl_now();
	lift(a, b, toucher(), t0);
	dyl_cost_add(dyl_now() - t0);	/* (the wrapper's overhead: # overhead_ns=) */
}

/* A path (or command) the kernel is about to read: the pages from S to its NUL that are
 * protected are lifted and recorded.  Nothing is read while nothing is protected (a bad
 * pointer fails in the kernel as without the wrapper); a page that is not protected is
 * read only when mincore says it is mapped (one the program made PROT_NONE itself is
 * read, and faults: a path there is the program's bug). */
void dyl_hostread_path(const char *s)
{
	uintptr_t a = (uintptr_t)s;

	if (!s || !__atomic_load_n(&hr.n, __ATOMIC_ACQUIRE))
		return;
	uint64_t t0 = dyl_now();
	for (;;) {
		uintptr_t end = floor_page(a) + PAGE;
		sigset_t old;
		unsigned char v;
		lock(&old);
		size_t i = first_after(floor_page(a));
		int ours = i < hr.n && hr.v[i].a <= floor_page(a);
		unlock(&old);
		if (ours)
			lift(a, end, toucher(), t0);
		else if (syscall(SYS_mincore, floor_page(a), PAGE, &v) != 0)
			break;	/* (not mapped: the kernel says EFAULT) */
		if (memchr((const void *)a, 0, end - a) || end == 0)
			break;
		a = end;
	}
	dyl_cost_add(dyl_now() - t0);
}

/* Bytes that leave the process (write, fwrite, send...: dyl_hostio.h) from inside a
 * wrapped call: the library's own I/O.  A device cannot do I/O, so on a port these bytes
 * are on the host when the I/O runs: a HOST_READ of exactly the range handed over
 * (DYL_HR_LIBIO), clipped to the heap blocks and mappings it lies in, whether or not its
 * pages are still protected (the library's own touches before it lift them without a
 * record: they are the device's).  Stacks and statics are not covered (no such buffer
 * is a call's output that the flow tracks across calls).  The program's own I/O (depth
 * 0) is a touch as any other: its protected pages, dyl_hostread_io. */
static void library_io(uintptr_t a, uintptr_t b)
{
	struct dyl_region r;
	uint64_t t0 = dyl_now();

	while (a < b && dyl_table_find(a, &r) == 1 && r.end > a) {
		uintptr_t hi = b < r.end ? b : r.end;
		if (r.kind == DYL_REGION_HEAP || r.kind == DYL_REGION_MMAP)
			host_read(&r, 0, 0, a, hi, DYL_HR_LIBIO, t0);
		a = hi;
	}
	dyl_cost_add(dyl_now() - t0);
}

void dyl_hostread_io_out(const void *p, size_t n)
{
	struct dyl_thread *t = dyl_self;

	if (n && dyl_hostread_active() && t && t->depth > 0 && !dyl_busy) {
		uintptr_t a = (uintptr_t)p;
		library_io(a, a + n < a ? UINTPTR_MAX : a + n);
	}
	dyl_hostread_io(p, n);
}

/* Every range of the block at START opened, in one mprotect (the pages between them are
 * the block's own, with the program's protection already): for a call, its argument
 * (the ranges stay in the table, open, lent to it; past LENT_MAX blocks they stay
 * protected: the call's own faults say what it touches), or a block being freed
 * (FREED: taken out, nothing recorded). */
static void lift_block(uintptr_t start, int freed)
{
	sigset_t old;

	lock(&old);
	size_t i = first_after(floor_page(start)), j = i;
	while (j < hr.n && hr.v[j].r.start == start)
		j++;
	if (j > i && (freed || lend(&hr.v[i]) == 0)) {
		open_pages(hr.v[i].a, hr.v[j - 1].b, hr.v[i].r.id);
		for (size_t m = i; m < j; m++)
			hr.v[m].open = 1;
		if (freed) {
			memmove(&hr.v[i], &hr.v[j], (hr.n - j) * sizeof(*hr.v));
			__atomic_store_n(&hr.n, hr.n - (j - i), __ATOMIC_RELEASE);
		}
	}
	unlock(&old);
}

/* The image ends (exit, exec: the spool's conversion; an exec from the runtime's hook
 * first): every range lifted, with the program's own protections, nothing recorded
 * (the trace is being written).  An exec's arguments and environment may lie in a
 * protected page: the kernel would fail it with EFAULT.  (An exec that fails goes on
 * with nothing protected: its later reads are not seen.) */
void dyl_hostread_lift_all(void)
{
	sigset_t old;

	nlent = 0;	/* (open already) */
	if (!__atomic_load_n(&hr.n, __ATOMIC_ACQUIRE))
		return;
	lock(&old);
	for (size_t i = 0; i < hr.n; i++)
		open_pages(hr.v[i].a, hr.v[i].b, hr.v[i].r.id);
	__atomic_store_n(&hr.n, 0, __ATOMIC_RELEASE);
	unlock(&old);
}

void dyl_hostread_freed(uintptr_t start, uint64_t id)
{
	if (__atomic_load_n(&hr.n, __ATOMIC_ACQUIRE))
		lift_block(start, 1);
	if (__atomic_load_n(&hr.nprots, __ATOMIC_RELAXED)) {
		sigset_t old;
		lock(&old);
		prots_drop(id);
		unlock(&old);
	}
}

/* lock held: the pages [R->a, R->b) of block R->r protected (PROT_NONE) and in the
 * table.  Ranges of the same block it overlaps or touches become one (another block's
 * range right after it stays apart; one it overlaps is stale: it goes), protected
 * whole when one of them was open.  -1: no room in the table, or mprotect failed. */
static int watch(const struct range *r)
{
	uintptr_t pa = r->a, pb = r->b;
	size_t i = first_after(pa), j = i;
	struct range m = *r;
	int open = 0;

	while (j < hr.n && (hr.v[j].a < pb || (hr.v[j].a == pb && hr.v[j].r.start == r->r.start))) {
		if (hr.v[j].a < m.a)
			m.a = hr.v[j].a;
		if (hr.v[j].b > m.b)
			m.b = hr.v[j].b;
		open |= hr.v[j].open;
		j++;
	}
	m.open = 0;
	if (open)
		pa = m.a, pb = m.b;
	if (hr.n - (j - i) >= RANGES_MAX || protect(pa, pb, PROT_NONE) != 0)
		return -1;
	memmove(&hr.v[i], &hr.v[j], (hr.n - j) * sizeof(*hr.v));
	__atomic_store_n(&hr.n, hr.n - (j - i), __ATOMIC_RELEASE);
	insert_at(i, &m);
	return 0;
}

/* The blocks lent to this thread's call: their open ranges watched again (it returned,
 * or the thread's next call starts): their bytes are still an earlier call's, unread
 * by the program.  (A block freed meanwhile has no range left; one made at its place
 * has another id.) */
static void put_back(void)
{
	unsigned n = nlent;
	sigset_t old;

	lock(&old);
	for (unsigned k = 0; k < n; k++)
		for (size_t i = first_after(floor_page(lent[k].start));
		     i < hr.n && hr.v[i].r.start == lent[k].start; i++)
			if (hr.v[i].open && hr.v[i].r.id == lent[k].id) {
				protect(hr.v[i].a, hr.v[i].b, PROT_NONE);
				hr.v[i].open = 0;
			}
	nlent = 0;
	unlock(&old);
}

void dyl_hostread_charged(const struct dyl_groups *c)
{
	int any = __atomic_load_n(&hr.n, __ATOMIC_ACQUIRE) != 0;

	if (nlent)	/* (an earlier call's: left by a longjmp, or lent after its end) */
		put_back();
	nouts = 0;
	outs_call = dyl_self ? dyl_self->frames[0] : 0;
	for (unsigned i = 0; i < c->ngroups; i++) {
		const struct dyl_group *g = &c->g[c->used[i]];
		if (any && g->r.kind == DYL_REGION_HEAP)
			lift_block(g->r.start, 0);
		if (g->min_out == UINTPTR_MAX || nouts >= OUTS_MAX)
			continue;
		struct hr_out *o = &outs[nouts++];
		*o = (struct hr_out){ g->r, g->min_out, g->end_out, 0, 0 };
		if (g->r.kind == DYL_REGION_STACK)
			dyl_flow_frame_of(c, &g->r, &o->ip, &o->cfa);
	}
}

/* lock held: is the page at P the block's alone?  A block glibc mapped by itself
 * (IS_MMAPPED, its header 16 bytes into a page) owns its first and last pages. */
static int owns_edges(uintptr_t s, uintptr_t e)
{
	size_t i = first_after(floor_page(s));
	if (i < hr.n && hr.v[i].a <= floor_page(s) && hr.v[i].r.start == s)
		return 1;	/* protected already: it was found so before */
	if ((s & (PAGE - 1)) != 16)
		return 0;
	uint64_t size = ((const uint64_t *)s)[-1];
	uint64_t chunk = size & ~7ull;
	return (size & 7) == 2 && chunk >= e - s + 16 && ((s - 16 + chunk) & (PAGE - 1)) == 0;
}

/* protects what the heap output O can have protected; the rest is recorded as read at T */
static void keep_heap(const struct hr_out *o, uint64_t t)
{
	uintptr_t s = o->r.start, e = o->r.end, pa, pb;
	sigset_t old;
	int done = 0;

	/* (most outputs are small blocks: no page of their own, and no lock taken) */
	if ((s & (PAGE - 1)) != 16 && ceil_page(s) >= floor_page(e)) {
		host_read(&o->r, 0, 0, o->lo, o->hi, DYL_HR_ASSUMED, t);
		return;
	}
	lock(&old);
	int whole = owns_edges(s, e);
	uintptr_t own_a = whole ? floor_page(s) : ceil_page(s), own_b = whole ? ceil_page(e) : floor_page(e);
	pa = floor_page(o->lo) > own_a ? floor_page(o->lo) : own_a;
	pb = ceil_page(o->hi) < own_b ? ceil_page(o->hi) : own_b;
	if (pa < pb) {
		struct range r = { pa, pb, o->r, 0 };
		done = watch(&r) == 0;
	}
	unlock(&old);
	if (!done) {
		if (pa < pb && !__atomic_exchange_n(&hr.full_said, 1, __ATOMIC_RELAXED))
			dyl_warn_once("host_reads", "%d ranges protected already (or mprotect failed): "
				      "outputs past that are recorded as read", RANGES_MAX);
		pa = pb = o->lo;
	}
	if (o->lo < pa)
		host_read(&o->r, 0, 0, o->lo, pa < o->hi ? pa : o->hi, DYL_HR_ASSUMED, t);
	if (pb < o->hi)
		host_read(&o->r, 0, 0, pb > o->lo ? pb : o->lo, o->hi, DYL_HR_ASSUMED, t);
}

void dyl_hostread_after(const struct dyl_call *c)
{
	if (c->depth != 0 || (!nouts && !nlent))
		return;
	uint64_t t = dyl_now();	/* (what cannot be watched is read from now on) */
	if (nlent)	/* (first: its outputs join what it was lent) */
		put_back();
	if (outs_call != (uintptr_t)c) {	/* (another call's: it left by a longjmp) */
		nouts = 0;
		return;
	}
	for (unsigned i = 0; i < nouts; i++) {
		const struct hr_out *o = &outs[i];
		struct dyl_region now;
		if (o->r.kind == DYL_REGION_HEAP) {
			/* (a call may free or reallocate its output: nothing of it is left) */
			if (dyl_table_find(o->r.start, &now) == 1 && now.id == o->r.id)
				keep_heap(o, t);
		} else {
			host_read(&o->r, o->ip, o->cfa, o->lo, o->hi, DYL_HR_ASSUMED, t);
		}
	}
	nouts = 0;
}

/* defs.c: a --defs postfix says the outermost call wrote [LO, HI) of R (dyl_flow_writes),
 * after dyl_hostread_after kept the charge's outputs: kept the same way now (a heap
 * block's own pages protected, the rest recorded as read), so that the program's own
 * later touch of them is seen.  (Called at depth 1: the wrapper's own touches after this
 * are a library's, lifted without a record.) */
void dyl_hostread_defs_out(const struct dyl_region *r, uintptr_t lo, uintptr_t hi)
{
	if (!dyl_hostread_active() || lo >= hi)
		return;
	struct hr_out o = { *r, lo, hi, 0, 0 };
	uint64_t t = dyl_now();
	if (r->kind == DYL_REGION_HEAP)
		keep_heap(&o, t);
	else
		host_read(r, 0, 0, lo, hi, DYL_HR_ASSUMED, t);
	dyl_cost_add(dyl_now() - t);
}

/* --- the signal --- */

/* a fault that is not ours: to the program's handler, or the default */
static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction p;

	dyl_spin_lock(&hr.prog_lock);
	p = hr.prog;
	if ((p.sa_flags & SA_RESETHAND) && p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN) {
		hr.prog.sa_handler = SIG_DFL;
		hr.prog.sa_flags &= ~SA_SIGINFO;
	}
	dyl_spin_unlock(&hr.prog_lock);
	if (!(p.sa_flags & SA_SIGINFO) && (p.sa_handler == SIG_DFL || p.sa_handler == SIG_IGN)) {
		if (p.sa_handler == SIG_IGN && si && si->si_code <= 0)
			return;	/* a SIGSEGV sent and ignored */
		/* the default back: the fault happens again (a sent signal is sent again) and
		 * the process dies of it, as it would have */
		struct sigaction d;
		memset(&d, 0, sizeof(d));
		d.sa_handler = SIG_DFL;
		__sigaction(sig, &d, NULL);
		if (si && si->si_code <= 0)
			raise(sig);
		return;
	}
	/* the mask the kernel would have given it: the interrupted code's, its sa_mask, the
	 * signal (ours runs with the asynchronous signals blocked) */
	sigset_t mask, old;
	if (uc)
		mask = ((const ucontext_t *)uc)->uc_sigmask;
	else
		sigemptyset(&mask);
	sigorset(&mask, &mask, &p.sa_mask);
	/* (not SIGSEGV itself, as the kernel would: a touch of a protected page in the
	 * program's handler would kill it) */
	sigdelset(&mask, sig);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, &old, _NSIG / 8);
	if (p.sa_flags & SA_SIGINFO)
		p.sa_sigaction(sig, si, uc);
	else
		p.sa_handler(sig);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	if (si && si->si_code == SEGV_ACCERR && __atomic_load_n(&hr.n, __ATOMIC_ACQUIRE)) {
		uint64_t t0 = dyl_now();
		uintptr_t a = floor_page((uintptr_t)si->si_addr);
		enum toucher who = toucher();
		struct range got = { 0 };
		int own = 0, opened = 0;
		dyl_spin_lock(&hr.lock);	/* (the asynchronous signals are blocked in here) */
		size_t i = first_after(a);
		if (i < hr.n && hr.v[i].a <= a) {
			if (hr.nprots && programs_own_fault(a, hr.v[i].r.id, uc)) {
				own = 1;	/* (the page stays watched) */
			} else if (who == CALL && open_for_call(i) == 0) {
				opened = 1;	/* a call: all of the range, lent */
			} else {
				/* the program: that page; the runtime, or a call that cannot be
				 * lent it: all of the range */
				uintptr_t x = who == PROGRAM ? a : hr.v[i].a;
				uintptr_t y = who == PROGRAM ? a + PAGE : hr.v[i].b;
				got = hr.v[i];
				cut(i, &x, &y);
				got.a = x, got.b = y;
			}
		}
		dyl_spin_unlock(&hr.lock);
		if (got.b || opened) {
			if (got.b)
				lifted(who, &got, t0);
			dyl_cost_add(dyl_now() - t0);	/* (the handler's part of the fault) */
			retried = 0;
			errno = saved;
			return;
		}
		if (own) {	/* its own protection would have faulted too: its handler's */
			retried = 0;
			chain(sig, si, uc);
			errno = saved;
			return;
		}
	}
	/* another thread may have lifted the page between the fault and the lock: let it
	 * happen once more before it goes to the program */
	if (si && si->si_code == SEGV_ACCERR && retried != (uintptr_t)si->si_addr) {
		retried = (uintptr_t)si->si_addr;
		errno = saved;
		return;
	}
	retried = 0;
	chain(sig, si, uc);
	errno = saved;
}

/* the watched pages in [A, B) taken out of the table as they are (the program gave them
 * their protection), recorded as read at T */
static void unwatch(uintptr_t a, uintptr_t b, uint64_t t)
{
	enum { BATCH = 16 };
	struct range got[BATCH];
	sigset_t old;
	unsigned k;

	do {
		k = 0;
		lock(&old);
		for (size_t i = first_after(a); i < hr.n && hr.v[i].a < b && k < BATCH;) {
			uintptr_t x = hr.v[i].a > a ? hr.v[i].a : a, y = hr.v[i].b < b ? hr.v[i].b : b;
			got[k] = hr.v[i];
			i = cut_keep(i, &x, &y, 0);
			got[k].a = x, got[k].b = y;
			k++;
		}
		unlock(&old);
		for (unsigned j = 0; j < k; j++)
			record(&got[j].r, got[j].a, got[j].b, DYL_HR_ASSUMED, t);
	} while (k == BATCH);
}

/* The program's mprotect (dyl_hostio.h): done, and its protection of the pages of heap
 * blocks kept, block by block (a block freed and another made there starts over).
 * Pages the runtime watches stay PROT_NONE; they get the program's protection when they
 * are lifted.  Returns as mprotect. */
int dyl_hostread_mprotect(void *p, size_t n, int prot)
{
	enum { PIECES = 16, PROBES = 16 };
	struct prot piece[PIECES];
	uintptr_t a = (uintptr_t)p, b = ceil_page(a + n);
	unsigned k = 0, probes = 0;
	sigset_t old;

	if (!dyl_hostread_active() || (a & (PAGE - 1)) || b < a)
		return (int)syscall(SYS_mprotect, p, n, prot);
	/* the heap blocks the pages are of (the table's lookups, before the lock; a block
	 * glibc mapped by itself starts 16 bytes into its first page; a mapping of the
	 * program's is passed whole; past PROBES pages of nothing known, the rest is not a
	 * block's) */
	for (uintptr_t x = a; x < b && k < PIECES && probes < PROBES;) {
		struct dyl_region r;
		if (dyl_table_find(x, &r) == 1 || dyl_table_find(x + 16, &r) == 1) {
			uintptr_t pb = ceil_page(r.end) < b ? ceil_page(r.end) : b;
			if (r.kind == DYL_REGION_HEAP)
				piece[k++] = (struct prot){ x, pb, r.id, prot };
			x = pb > x ? pb : x + PAGE;
		} else {
			x += PAGE, probes++;
		}
	}
	lock(&old);
	int ret = (int)syscall(SYS_mprotect, p, n, prot);
	int e = errno, full = 0;
	if (ret == 0) {
		for (unsigned i = 0; i < k; i++)
			full |= prot_set(piece[i].a, piece[i].b, piece[i].id, prot) != 0;
		/* (the watched pages among them: PROT_NONE again) */
		for (size_t i = first_after(a); !full && i < hr.n && hr.v[i].a < b; i++)
			if (!hr.v[i].open)	/* (an open one has it until its call returns) */
				protect(hr.v[i].a > a ? hr.v[i].a : a, hr.v[i].b < b ? hr.v[i].b : b,
					PROT_NONE);
	}
	unlock(&old);
	if (full)	/* (no room to keep the program's protection: not watched any more) */
		unwatch(a, b, dyl_now());
	if (full && !__atomic_exchange_n(&hr.prots_said, 1, __ATOMIC_RELAXED))
		dyl_warn_once("host_reads", "the program's own protections of %d page ranges kept "
			      "already: pages it protects past that are recorded as read", PROTS_MAX);
	errno = e;
	return ret;
}

int dyl_hostread_keeps_segv(void)
{
	return dyl_hostread_active();
}

int dyl_hostread_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (sig != SIGSEGV || !dyl_hostread_active()) {
		/* (a handler running with SIGSEGV blocked would die of a protected page) */
		if (act && dyl_hostread_active() && sigismember(&act->sa_mask, SIGSEGV)) {
			struct sigaction a = *act;
			sigdelset(&a.sa_mask, SIGSEGV);
			return __sigaction(sig, &a, old);
		}
		return __sigaction(sig, act, old);
	}
	dyl_spin_lock(&hr.prog_lock);
	if (old)
		*old = hr.prog;
	if (act)
		hr.prog = *act;
	dyl_spin_unlock(&hr.prog_lock);
	return 0;
}

sighandler_t dyl_hostread_signal(int sig, sighandler_t h)
{
	struct sigaction sa, old;

	if (sig != SIGSEGV || !dyl_hostread_active())
		return SIG_ERR;	/* (the interposer forwards) */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sa.sa_flags = SA_RESTART;
	dyl_hostread_sigaction(sig, &sa, &old);
	if (old.sa_flags & SA_SIGINFO) {	/* (the handler's address, as glibc's signal gives it) */
		sighandler_t h2;
		memcpy(&h2, &old.sa_sigaction, sizeof(h2));
		return h2;
	}
	return old.sa_handler;
}

static void child_after_fork(void)
{
	hr.lock = 0;
	hr.prog_lock = 0;
}

void dyl_hostread_setup(void)
{
	static int once;
	struct sigaction sa;

	if (__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
		return;	/* (another wrapper's constructor did) */
	if (!(hr.v = dyl_raw_map(RANGES_MAX * sizeof(*hr.v))) ||
	    !(hr.prots = dyl_raw_map(PROTS_MAX * sizeof(*hr.prots))) ||
	    __sigaction(SIGSEGV, NULL, &hr.prog) != 0) {
		dyl_note(DYL_KEY_HOST_READS, "off (no memory, or no signal)");
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESTART;
	async_signals(&sa.sa_mask);	/* (the table's lock is taken in the handler) */
	pthread_atfork(NULL, NULL, child_after_fork);
	/* (an exec: every page lifted, whether or not the image recorded anything) */
	__atomic_store_n(&dyl_hooks.before_exec, dyl_hostread_lift_all, __ATOMIC_RELEASE);
	if (__sigaction(SIGSEGV, &sa, NULL) != 0) {
		dyl_note(DYL_KEY_HOST_READS, "off (no signal)");
		return;
	}
	dyl_note(DYL_KEY_HOST_READS, "on");
	__atomic_store_n(&dyl_hostread_on, 1, __ATOMIC_RELEASE);
}

int dyl_hostread_recorded(void)
{
	return dyl_hostread_active();
}
