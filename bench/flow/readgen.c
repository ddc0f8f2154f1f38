/* readgen.c - a synthetic run for dyl-flow's reading speed (bench/flow/read.sh): N depth-0
 * calls of 8 functions, each reading two of 64 live 4 KiB heap blocks (one whole, one
 * half) and writing a third whole; every 50th call frees a block and allocates another
 * from one of 8 sites (random: the worst case for the engine's caches).  With
 * "pipeline": call i reads the block call i-1 wrote, and a 256 KiB table every call
 * reads (a power iteration's matrix), and writes the next block.  Writes TRACE (CSV)
 * and TRACE.flow.  usage: readgen N TRACE [pipeline] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dyl_flow.h"

static FILE *fl;

static void rec(uint32_t type, const void *body, uint32_t len)
{
	static const char zero[8];
	uint32_t pad = (8 - len % 8) % 8, h[2] = { type, len + pad };

	fwrite(h, 8, 1, fl);
	fwrite(body, len, 1, fl);
	fwrite(zero, pad, 1, fl);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 2 ? strtoull(argv[1], NULL, 10) : 0, live[64], nobj = 0;
	int pipeline = argc > 3 && !strcmp(argv[3], "pipeline");
	char path[4096];
	FILE *tr;
	struct dyl_flow_head h = { .version = DYL_FLOW_VERSION, .pid = 1 };

	if (!n)
		return fprintf(stderr, "usage: readgen N TRACE\n"), 2;
	snprintf(path, sizeof(path), "%s%s", argv[2], DYL_FLOW_SUFFIX);
	tr = fopen(argv[2], "w");
	fl = fopen(path, "w");
	if (!tr || !fl)
		return perror("gen"), 1;
	fprintf(tr, "# pid=1\nseq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args\n");
	for (uint64_t i = 0; i < n; i++)
		fprintf(tr, "%llu,1,f%llu,%llu,500,,,,0,\n", (unsigned long long)i,
			(unsigned long long)(i % 8), (unsigned long long)i * 1000);
	fprintf(tr, "# total_ns=%llu\n", (unsigned long long)n * 1000);
	memcpy(h.magic, DYL_FLOW_MAGIC, 8);
	h.nseq = n;
	fwrite(&h, sizeof(h), 1, fl);
	for (int s = 0; s < 8; s++) {
		char text[64];
		int len = snprintf(text, sizeof(text), "make%d (gen.c:%d) <- main (gen.c:99)", s, s + 10);
		struct { uint64_t id; uint32_t npc, tlen; char t[64]; } b = { (uint64_t)s, 0, (uint32_t)len };
		memcpy(b.t, text, (size_t)len);
		rec(DYL_FR_SITE, &b, 16 + (uint32_t)len);
	}
	for (int k = 0; k < 64; k++) {
		struct { uint64_t id; uint32_t kind, nlen; uint64_t size, site, birth, addr; } o =
			{ nobj, DYL_OBJ_HEAP, 0, 4096, (uint64_t)k % 8, 0, 0 };
		live[k] = nobj++;
		rec(DYL_FR_OBJECT, &o, sizeof(o));
	}
	for (uint64_t i = 0; i < n; i++) {
		struct { uint64_t seq, obj, lo, hi; uint32_t rw, zero; } a;
		if (i % 50 == 49) {
			int k = (int)(next() % 63) + 1;	/* (block 0 stays: the table) */
			struct { uint64_t obj, seq; } f = { live[k], i };
			struct { uint64_t id; uint32_t kind, nlen; uint64_t size, site, birth, addr; } o =
				{ nobj, DYL_OBJ_HEAP, 0, 4096, next() % 8, i, 0 };
			rec(DYL_FR_FREE, &f, sizeof(f));
			live[k] = nobj++;
			rec(DYL_FR_OBJECT, &o, sizeof(o));
		}
		if (pipeline) {
			a = (typeof(a)){ i, live[(i + 62) % 63 + 1], 0, 4096, DYL_ACC_R, 0 };
			rec(DYL_FR_ACCESS, &a, sizeof(a));
			a = (typeof(a)){ i, live[0], 0, 4096, DYL_ACC_R, 0 };	/* the table */
			rec(DYL_FR_ACCESS, &a, sizeof(a));
			a = (typeof(a)){ i, live[i % 63 + 1], 0, 4096, DYL_ACC_W, 0 };
			rec(DYL_FR_ACCESS, &a, sizeof(a));
			continue;
		}
		a = (typeof(a)){ i, live[next() % 64], 0, 4096, DYL_ACC_R, 0 };
		rec(DYL_FR_ACCESS, &a, sizeof(a));
		a = (typeof(a)){ i, live[next() % 64], 0, 2048, DYL_ACC_R, 0 };
		rec(DYL_FR_ACCESS, &a, sizeof(a));
		a = (typeof(a)){ i, live[next() % 64], 0, 4096, DYL_ACC_W, 0 };
		rec(DYL_FR_ACCESS, &a, sizeof(a));
	}
	return fclose(tr) | fclose(fl) ? 1 : 0;
}
