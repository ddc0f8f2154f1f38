/* fd_mem.c - fakedev's device memory and its copies: each block a mapping of its own (so
 * no host pointer is ever device memory by chance), each copy counted, and timed by the
 * link model when there is one (fd_link.c). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "fakedev.h"
#include "fd_internal.h"

/* The device: its live blocks and what crossed the link. */
static struct {
	pthread_mutex_t lock;
	struct block { char *p; size_t n; } *blocks;
	size_t nblocks, room;
	struct fd_counts counts;
	double wall_ns[2];	/* each direction's copies as they took, waits included */
} dev = { .lock = PTHREAD_MUTEX_INITIALIZER };

void *fd_malloc(size_t bytes)
{
	size_t n = bytes ? bytes : 1;
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	pthread_mutex_lock(&dev.lock);
	if (dev.nblocks == dev.room) {
		size_t room = dev.room ? 2 * dev.room : 64;
		struct block *b = realloc(dev.blocks, room * sizeof(*b));
		if (!b) {
			pthread_mutex_unlock(&dev.lock);
			munmap(p, n);
			return NULL;
		}
		dev.blocks = b;
		dev.room = room;
	}
	dev.blocks[dev.nblocks++] = (struct block){ p, n };
	pthread_mutex_unlock(&dev.lock);
	return p;
}

void fd_free(void *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&dev.lock);
	for (size_t i = 0; i < dev.nblocks; i++) {
		if (dev.blocks[i].p == p) {
			munmap(p, dev.blocks[i].n);
			dev.blocks[i] = dev.blocks[--dev.nblocks];
			break;
		}
	}
	pthread_mutex_unlock(&dev.lock);
}

int fd_is_device(const void *p, size_t bytes)
{
	const char *c = p;
	int found = 0;

	pthread_mutex_lock(&dev.lock);
	for (size_t i = 0; i < dev.nblocks && !found; i++)
		found = c >= dev.blocks[i].p && bytes <= dev.blocks[i].n &&
			(size_t)(c - dev.blocks[i].p) <= dev.blocks[i].n - bytes;
	pthread_mutex_unlock(&dev.lock);
	return found;
}

/* One transfer: DIR 0 h2d, 1 d2h. */
static int copy(int dir, void *to, const void *from, size_t bytes)
{
	const void *d = dir == 0 ? to : from;

	if (!fd_is_device(d, bytes)) {
		fprintf(stderr, "fakedev: fd_%s of %zu bytes: %p is not inside a device block\n",
			dir == 0 ? "h2d" : "d2h", bytes, d);
		return -1;
	}
	double ns = fd_link_ns(dir, bytes);
	uint64_t t0 = fd_link_now();
	memcpy(to, from, bytes);
	/* on the wall clock the copy lasts its modelled time, the memcpy inside it (a DMA
	 * is the link's time); on the CPU clock (FAKEDEV_WAIT=cpu, for timing ports) the
	 * link's time comes after the memcpy, whose CPU time (and the first touch of fresh
	 * device pages) is this fake device's own cost, not the link's */
	uint64_t tc = fd_link_cpu_clock() ? fd_link_now() : t0;
	pthread_mutex_lock(&dev.lock);
	if (dir == 0) {
		dev.counts.h2d_bytes += bytes;
		dev.counts.h2d_transfers++;
		dev.counts.h2d_ns += ns;
	} else {
		dev.counts.d2h_bytes += bytes;
		dev.counts.d2h_transfers++;
		dev.counts.d2h_ns += ns;
	}
	pthread_mutex_unlock(&dev.lock);
	fd_link_wait(tc, ns);
	uint64_t t1 = fd_link_now();
	pthread_mutex_lock(&dev.lock);
	dev.wall_ns[dir] += (double)(t1 - t0);
	pthread_mutex_unlock(&dev.lock);
	return 0;
}

int fd_h2d(void *d, const void *host, size_t bytes)
{
	return copy(0, d, host, bytes);
}

int fd_d2h(void *host, const void *d, size_t bytes)
{
	return copy(1, host, d, bytes);
}

void fd_get_counts(struct fd_counts *out)
{
	pthread_mutex_lock(&dev.lock);
	*out = dev.counts;
	pthread_mutex_unlock(&dev.lock);
}

/* FAKEDEV_REPORT: the counts at exit, for the tests and bench/residency/port_time.py. */
__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("FAKEDEV_REPORT");
	struct fd_counts c;
	FILE *f;

	if (!path || !*path)
		return;
	fd_get_counts(&c);
	if (!(f = fopen(path, "w"))) {
		fprintf(stderr, "fakedev: cannot write %s\n", path);
		return;
	}
	fprintf(f, "h2d_bytes=%llu\nh2d_transfers=%llu\nh2d_ns=%.0f\nh2d_wall_ns=%.0f\n"
		"d2h_bytes=%llu\nd2h_transfers=%llu\nd2h_ns=%.0f\nd2h_wall_ns=%.0f\n",
		(unsigned long long)c.h2d_bytes, (unsigned long long)c.h2d_transfers, c.h2d_ns,
		dev.wall_ns[0], (unsigned long long)c.d2h_bytes,
		(unsigned long long)c.d2h_transfers, c.d2h_ns, dev.wall_ns[1]);
	fclose(f);
}
