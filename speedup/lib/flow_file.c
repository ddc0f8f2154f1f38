/* flow_file.c - TRACE.flow, record by record (flow_file.h).  Every check that does not
 * need the engine's state is made here, so that each reader says the same about the
 * same bad file. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "flow_file.h"
#include "input.h"

int flow_file_spool(struct flow_file *ff, const char *trace);	/* flow_spool.c */

static uint64_t rd64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The bytes after a record's header that each type needs at least.  HOST_READ has a
 * fifth field (how) that a reader may go without: 0, seen. */
static const uint32_t min_len[] = {
	[DYL_FR_SITE] = 16, [DYL_FR_OBJECT] = 48, [DYL_FR_RESIZE] = 32, [DYL_FR_FREE] = 16,
	[DYL_FR_ACCESS] = 40, [DYL_FR_HOST_WRITE] = 32, [DYL_FR_HOST_READ] = 32,
};

void flow_file_error(const struct flow_file *ff, const char *what)
{
	input_error(ff->path, 0, "record %llu (offset %zu): %s", (unsigned long long)ff->records,
		    ff->rec_off, what);
}

/* The head: magic and version.  0, or -1 after a message. */
static int read_head(struct flow_file *ff)
{
	if (ff->size < sizeof(struct dyl_flow_head) || memcmp(ff->data, DYL_FLOW_MAGIC, 8) != 0) {
		input_error(ff->path, 0, "not a flow file (no %s at its start)", DYL_FLOW_MAGIC);
		return -1;
	}
	if (rd32(ff->data + 8) != DYL_FLOW_VERSION) {
		input_error(ff->path, 0, "version %u (this dyl-flow reads %u)",
			    rd32(ff->data + 8), DYL_FLOW_VERSION);
		return -1;
	}
	ff->flags = rd32(ff->data + 12);
	memcpy(&ff->pid, ff->data + 16, 4);
	ff->nseq = rd64(ff->data + 24);
	ff->off = sizeof(struct dyl_flow_head);
	return 0;
}

int flow_file_open(struct flow_file *ff, const char *flow_path, const char *trace)
{
	struct input_file in;

	memset(ff, 0, sizeof(*ff));
	ff->path = flow_path;
	if (access(flow_path, F_OK) != 0 && errno == ENOENT) {
		int rc = trace ? flow_file_spool(ff, trace) : 1;
		if (rc != 0)
			return rc;
	} else {
		if (input_open_beside(&in, flow_path) != 0)	/* (beside its trace) */
			return -1;
		ff->data = in.data;
		ff->size = in.size;
		ff->mapped = in.mapped;
	}
	if (read_head(ff) != 0) {
		flow_file_close(ff);
		return -1;
	}
	return 0;
}

void flow_file_close(struct flow_file *ff)
{
	struct input_file in = { ff->path, ff->data, ff->size, ff->mapped };

	if (ff->from_spool)
		free((char *)ff->data);
	else if (ff->data)
		input_close(&in);
	ff->data = NULL;
	ff->size = 0;
}

/* Decodes and checks the current record R (its type, len and body set).  0, or -1 with
 * WHY (ROOM bytes) saying what is wrong. */
static int decode(struct flow_file *ff, struct flow_rec *r, char *why, size_t room)
{
	const char *b = r->body;
	uint32_t len = r->len;

	if (r->type < sizeof(min_len) / sizeof(min_len[0]) && min_len[r->type] &&
	    len < min_len[r->type]) {
		snprintf(why, room, "type %u: %u bytes, needs %u", r->type, len, min_len[r->type]);
		return -1;
	}
	switch (r->type) {
	case DYL_FR_SITE:
		r->id = rd64(b);
		r->npc = rd32(b + 8);
		r->text_len = rd32(b + 12);
		if ((uint64_t)r->npc * 8 + r->text_len > len - 16) {
			snprintf(why, room, "SITE: %u pcs and %u bytes of text do not fit its %u "
				 "bytes", r->npc, r->text_len, len);
			return -1;
		}
		if (r->id != ff->nsites) {	/* the Nth SITE is site N (doc/specs/flow.md) */
			snprintf(why, room, "SITE %llu out of order (site %llu expected)",
				 (unsigned long long)r->id, (unsigned long long)ff->nsites);
			return -1;
		}
		ff->nsites++;
		r->text = b + 16 + (size_t)r->npc * 8;
		return 0;
	case DYL_FR_OBJECT:
		r->id = rd64(b);
		r->kind = rd32(b + 8);
		r->text_len = rd32(b + 12);
		r->size = rd64(b + 16);
		r->site = rd64(b + 24);
		r->seq = rd64(b + 32);
		r->addr = rd64(b + 40);
		if (r->text_len > len - 48) {
			snprintf(why, room, "OBJECT: a name of %u bytes does not fit its %u bytes",
				 r->text_len, len);
			return -1;
		}
		if (r->id != ff->nobjects) {	/* the Nth OBJECT is object N */
			snprintf(why, room, "OBJECT %llu out of order (object %llu expected)",
				 (unsigned long long)r->id, (unsigned long long)ff->nobjects);
			return -1;
		}
		ff->nobjects++;
		if (r->kind < DYL_OBJ_HEAP || r->kind > DYL_OBJ_MAPPING) {
			snprintf(why, room, "OBJECT %llu: kind %u unknown", (unsigned long long)r->id,
				 r->kind);
			return -1;
		}
		r->text = b + 48;
		return 0;
	case DYL_FR_RESIZE:
		r->id = rd64(b);
		r->size = rd64(b + 8);
		r->seq = rd64(b + 16);
		r->rw = rd32(b + 24) != 0;
		break;
	case DYL_FR_FREE:
		r->id = rd64(b);
		r->seq = rd64(b + 8);
		break;
	case DYL_FR_ACCESS:
	case DYL_FR_HOST_WRITE:
	case DYL_FR_HOST_READ:
		r->seq = rd64(b);
		r->id = rd64(b + 8);
		r->lo = rd64(b + 16);
		r->hi = rd64(b + 24);
		if (r->type == DYL_FR_ACCESS) {
			r->rw = rd32(b + 32);
			if (r->rw > DYL_ACC_W) {
				snprintf(why, room, "ACCESS: rw %u is neither 0 nor 1", r->rw);
				return -1;
			}
		} else if (r->type == DYL_FR_HOST_READ && len >= 40) {
			uint64_t how = rd64(b + 32);
			if (how > DYL_HR_LIBIO) {
				snprintf(why, room, "HOST_READ: how %llu is not 0, 1 or 2",
					 (unsigned long long)how);
				return -1;
			}
			r->rw = (uint32_t)how;
		}
		break;
	default:
		return 0;	/* a type from a later version: the caller skips it */
	}
	if (r->id >= UINT32_MAX) {
		snprintf(why, room, "object id %llu too large", (unsigned long long)r->id);
		return -1;
	}
	return 0;
}

int flow_file_next(struct flow_file *ff, struct flow_rec *r)
{
	char why[200];

	if (ff->off >= ff->size)
		return 0;
	ff->records++;
	ff->rec_off = ff->off;
	memset(r, 0, sizeof(*r));
	if (ff->size - ff->off < 8 || (r->len = rd32(ff->data + ff->off + 4)) % 8 ||
	    r->len > ff->size - ff->off - 8) {
		flow_file_error(ff, "cut short or its length does not fit");
		return -1;
	}
	r->type = rd32(ff->data + ff->off);
	r->body = ff->data + ff->off + 8;
	if (decode(ff, r, why, sizeof(why)) != 0) {
		flow_file_error(ff, why);
		return -1;
	}
	ff->off += 8 + (size_t)r->len;
	return 1;
}
