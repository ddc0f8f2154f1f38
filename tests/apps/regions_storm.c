/* regions_storm - the region table under threads, for the sanitizer runs: 8 threads add,
 * look up and delete their own blocks through the runtime's API (as the allocator
 * interposers do), charge pointer arguments (heap, stack: the unwinder, static: the
 * symbols, the main thread's stack while threads come and go; pointers bounded by a
 * length) as std.regions does, look at changed bytes as std.diff does (small blocks
 * compared, a 512 KiB one watched, and in two bounded pieces), and check every answer.
 * Prints "ok" and the number of checks.
 *   regions_storm [ROUNDS]       (linked against libdylrt.so) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dyl_regions.h"

#define BLOCKS 64
static char statics[4096];
static int rounds = 2000;
extern void *__libc_stack_end;	/* where the main thread's frames end */
static const char *main_arr;	/* an array on the main thread's stack */
static long main_to_end;

static void fail(const char *what, long a, long b)
{
	fprintf(stderr, "regions_storm: %s: %ld != %ld\n", what, a, b);
	exit(1);
}

__attribute__((noinline)) static long charge_stack(const char *heap, size_t n)
{
	char local[48];
	struct dyl_rarg args[3] = { { heap, DYL_RA_CONST }, { local, 0 }, { statics + 4000, DYL_RA_CONST } };
	int64_t in = -1, out = -1;

	local[0] = 1;
	dyl_regions_charge(args, 3, 4, &in, &out);
	if (in != (int64_t)(n + 96 + 4))	/* statics: to its end, by its symbol */
		fail("charged input", (long)in, (long)(n + 100));
	/* the frame also holds ARGS, IN, OUT and saved registers above LOCAL, not kilobytes */
	if (out < 48 || out > 256)
		fail("charged stack frame", (long)out, 48);
	__asm__ volatile("" : : "r"(local) : "memory");
	return in;
}

/* std.diff on P (a block of N bytes, one-byte blocks): K bytes changed before the call
 * are its input, the 3 bytes the "call" changes its output.  ZERO: then P is zeroed and
 * looked at again, so that what std.diff last saw there is zero (it keeps that after
 * the block is freed, by address: a later block made of this memory and zeroed by the
 * program is then new to it as fresh memory is) */
static void diff_check(unsigned char *p, size_t n, size_t k, int round, int zero)
{
	struct dyl_rarg arg = { p, 0 };
	int64_t in = -1, out = -1;

	for (size_t j = 0; j < k; j++)
		p[(j * 4099) % n] = (unsigned char)(round + 1 + j);	/* never the old value */
	size_t distinct = 0;	/* positions (j * 4099) % n may repeat */
	for (size_t j = 0; j < k; j++) {
		size_t at = (j * 4099) % n, dup = 0;
		for (size_t q = 0; q < j && !dup; q++)
			dup = (q * 4099) % n == at;
		distinct += !dup;
	}
	uint32_t mark = dyl_diff_before(&arg, 1, 0, 1, &in);
	if (mark == UINT32_MAX || in != (int64_t)distinct)
		fail("diff input", (long)in, (long)distinct);
	p[0] ^= 0x5a, p[n / 2] ^= 0x5a, p[n - 1] ^= 0x5a;
	dyl_diff_after(mark, 1, &out, NULL);
	if (out != 3)
		fail("diff output", (long)out, 3);
	if (!zero)
		return;
	size_t nonzero = 0;
	for (size_t j = 0; j < n; j++)
		nonzero += p[j] != 0;
	memset(p, 0, n);
	mark = dyl_diff_before(&arg, 1, 0, 1, &in);
	if (mark == UINT32_MAX || in != (int64_t)nonzero)
		fail("diff input, zeroed", (long)in, (long)nonzero);
	dyl_diff_after(mark, 1, &out, NULL);
	if (out != 0)
		fail("diff output, nothing changed", (long)out, 0);
}

/* two bounded pieces of BIG (its halves, as length arguments bound them): a byte changed
 * in the second half is no input of the first, and is the second's */
static void diff_pieces(unsigned char *big, size_t n)
{
	struct dyl_rarg half[2] = { { big, DYL_RA_CONST | DYL_RA_BOUNDED, n / 2 },
				    { big + n / 2, DYL_RA_CONST | DYL_RA_BOUNDED, n / 2 } };
	int64_t in = -1, out = -1;

	big[n / 2 + 5] ^= 0x5a;
	for (int h = 0; h < 2; h++) {
		uint32_t mark = dyl_diff_before(&half[h], 1, 0, 1, &in);
		if (mark == UINT32_MAX || in != h)
			fail("diff input of a piece", (long)in, h);
		dyl_diff_after(mark, 1, &out, NULL);
		if (out != 0)
			fail("diff output of a const piece", (long)out, 0);
	}
}

static void *worker(void *arg)
{
	long id = (long)arg, checks = 0;
	char *blocks[BLOCKS] = { 0 };
	size_t sizes[BLOCKS] = { 0 };
	struct dyl_region r;
	size_t bign = 512 << 10;
	unsigned char *big = calloc(1, bign);

	dyl_region_add(big, bign, DYL_REGION_HEAP);
	for (int round = 0; round < rounds; round++) {
		int i = (int)((round * 7 + id) % BLOCKS);
		if (blocks[i]) {
			if (dyl_region_del(blocks[i]) != (int64_t)sizes[i])
				fail("del", (long)dyl_region_del(blocks[i]), (long)sizes[i]);
			free(blocks[i]);
		}
		sizes[i] = 1 + (size_t)((round * 131 + id * 17) % 5000);
		blocks[i] = malloc(sizes[i]);
		dyl_region_add(blocks[i], sizes[i], DYL_REGION_HEAP);
		size_t off = sizes[i] / 2;
		if (!dyl_region_find(blocks[i] + off, &r) || r.start != (uintptr_t)blocks[i] ||
		    r.end != (uintptr_t)blocks[i] + sizes[i] || r.kind != DYL_REGION_HEAP)
			fail("find", (long)(r.end - r.start), (long)sizes[i]);
		if (round % 16 == 0)
			charge_stack(blocks[i], sizes[i]);
		if (round % 8 == 0 && sizes[i] >= 8) {
			memset(blocks[i], 0, sizes[i]);	/* as std.diff last saw this memory, if it did */
			diff_check((unsigned char *)blocks[i], sizes[i], 5, round, 1);
		}
		if (round % 32 == 0)
			diff_check(big, bign, 1 + round % 40, round, 0);
		if (round % 32 == 16)
			diff_pieces(big, bign);
		if (round % 16 == 4 && sizes[i] >= 8) {	/* a length bounds the charge */
			struct dyl_rarg a = { blocks[i] + 1, DYL_RA_CONST | DYL_RA_BOUNDED, sizes[i] / 3 };
			int64_t in = -1, out = -1;
			dyl_regions_charge(&a, 1, 0, &in, &out);
			if (in != (int64_t)(sizes[i] / 3) || out != 0)
				fail("charged a bounded pointer", (long)in, (long)(sizes[i] / 3));
		}
		if (round % 16 == 8) {	/* another thread's stack: up to its frames' top */
			struct dyl_rarg a = { main_arr, DYL_RA_CONST };
			int64_t in = -1, out = -1;
			dyl_regions_charge(&a, 1, 0, &in, &out);
			if (in != main_to_end || out != 0)
				fail("charged the main thread's stack", (long)in, main_to_end);
		}
		checks++;
	}
	for (int i = 0; i < BLOCKS; i++)
		if (blocks[i]) {
			dyl_region_del(blocks[i]);
			free(blocks[i]);
		}
	dyl_region_del(big);
	free(big);
	return (void *)checks;
}

int main(int argc, char **argv)
{
	pthread_t t[8];
	long checks = 0;
	char arr[256] = { 1 };

	dyl_regions_check_allocator();	/* as a wrapper's set-up: libunwind for the frames */
	main_arr = arr;
	main_to_end = (char *)__libc_stack_end - arr;
	if (argc > 1)
		rounds = atoi(argv[1]);
	for (long i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 8; i++) {
		void *n;
		pthread_join(t[i], &n);
		checks += (long)n;
	}
	struct dyl_regions_stats s;
	dyl_regions_stats(&s);
	__asm__ volatile("" : : "r"(arr) : "memory");
	struct dyl_diff_stats ds;
	dyl_diff_stats(&ds);
	printf("ok %ld %s %s\n", checks, s.unwinds > 0 ? "unwound" : "no-unwind",
	       ds.watching ? "watched" : "compared");
	return 0;
}
