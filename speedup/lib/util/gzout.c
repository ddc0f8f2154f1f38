/* gzout.c - see gzout.h: a fopencookie stream over zlib's deflate. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "gzout.h"

struct gz {
	z_stream z;
	FILE *dest;
	int failed;
	unsigned char buf[1 << 16];
};

int gzout_wanted(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n > 3 && !strcmp(path + n - 3, ".gz");
}

/* Deflates what is in G's input with FLUSH, writing all that comes out to G's DEST. */
static int pump(struct gz *g, int flush)
{
	do {
		g->z.next_out = g->buf;
		g->z.avail_out = sizeof(g->buf);
		int rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR)
			return -1;
		size_t have = sizeof(g->buf) - g->z.avail_out;
		if (have && fwrite(g->buf, 1, have, g->dest) != have)
			return -1;
	} while (g->z.avail_out == 0);
	return 0;
}

static ssize_t gz_write(void *cookie, const char *data, size_t n)
{
	struct gz *g = cookie;

	g->z.next_in = (unsigned char *)data;
	g->z.avail_in = (uInt)n;
	if (g->failed || pump(g, Z_NO_FLUSH) != 0) {
		g->failed = 1;
		return -1;
	}
	return (ssize_t)n;
}

static int gz_close(void *cookie)
{
	struct gz *g = cookie;
	int rc = g->failed ? -1 : 0;

	g->z.next_in = NULL;
	g->z.avail_in = 0;
	if (rc == 0 && pump(g, Z_FINISH) != 0)
		rc = -1;
	deflateEnd(&g->z);
	if (fflush(g->dest) != 0)
		rc = -1;
	free(g);
	return rc;
}

FILE *gzout_open(FILE *dest)
{
	struct gz *g = calloc(1, sizeof(*g));
	cookie_io_functions_t io = { .write = gz_write, .close = gz_close };
	FILE *f;

	if (!g)
		return NULL;
	g->dest = dest;
	/* 15 + 16: the gzip wrapper, not zlib's; level 6, zlib's default */
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return NULL;
	}
	if (!(f = fopencookie(g, "w", io))) {
		deflateEnd(&g->z);
		free(g);
	}
	return f;
}
