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
#include "flow_syms.h"
#include "input.h"

#define NAME_ROOM 1024	/* a name made here: as long as the runtime's (runtime/format/flowconv.c) */

struct stack_name {		/* a stack object of the reader's, by extent and name */
	uint64_t addr, size, hash;
	char *name;		/* NULL: an empty slot */
	uint32_t id;
};

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
	[DYL_FR_MODULE] = 40,
};

void flow_file_error(const struct flow_file *ff, const char *what)
{
	input_error(ff->path, 0, "record %llu (offset %zu): %s", (unsigned long long)ff->records,
		    ff->rec_off, what);
}

/* The head: magic and version.  0, or -1 after a message. */
static int read_head(struct flow_file *ff)
{
	if (ff->size == 0) {	/* made at exit, written at the end of the conversion */
		input_error(ff->path, 0, "empty: the process ended before std.flow wrote it "
			    "(killed or crashed?)");
		return -1;
	}
	if (ff->size < sizeof(struct dyl_flow_head) || memcmp(ff->data, DYL_FLOW_MAGIC, 8) != 0) {
		input_error(ff->path, 0, "not a flow file (no %s at its start)", DYL_FLOW_MAGIC);
		return -1;
	}
	ff->version = rd32(ff->data + 8);
	if (ff->version < 1 || ff->version > DYL_FLOW_VERSION) {	/* (2 reads 1 too) */
		input_error(ff->path, 0, "flow format %u, this %s reads %u (%s)", rd32(ff->data + 8),
			    input_prog, DYL_FLOW_VERSION, rd32(ff->data + 8) > DYL_FLOW_VERSION ?
			    "upgrade dyliberator" : "made by an older dyliberator");
		return -1;
	}
	ff->flags = rd32(ff->data + 12);
	memcpy(&ff->pid, ff->data + 16, 4);
	ff->nseq = rd64(ff->data + 24);
	ff->off = sizeof(struct dyl_flow_head);
	if ((ff->flags & DYL_FLOW_F_MODULES) &&
	    (!(ff->syms = flow_syms_new()) || !(ff->name = malloc(NAME_ROOM)))) {
		input_error(ff->path, 0, "out of memory");
		return -1;
	}
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

	flow_syms_free(ff->syms);
	ff->syms = NULL;
	free(ff->name);
	ff->name = NULL;
	free(ff->idmap);
	ff->idmap = NULL;
	for (size_t i = 0; i < ff->stacks_room; i++)
		free(ff->stacks[i].name);
	free(ff->stacks);
	ff->stacks = NULL;
	if (ff->from_spool)
		free((char *)ff->data);
	else if (ff->data)
		input_close(&in);
	ff->data = NULL;
	ff->size = 0;
}

/* The stack object at ADDR, SIZE bytes, named NAME (LEN bytes): the reader's id of the
 * one named so before (1), or a new one's (0); -1 out of memory. */
static int join_stack(struct flow_file *ff, uint64_t addr, uint64_t size, const char *name, size_t len,
		      uint32_t *id)
{
	uint64_t h = 14695981039346656037ull ^ addr * 0x9E3779B97F4A7C15ull ^ size;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
	if ((ff->nstacks + 1) * 2 > ff->stacks_room) {
		size_t room = ff->stacks_room ? ff->stacks_room * 2 : 256;
		struct stack_name *t = calloc(room, sizeof(*t));
		if (!t)
			return -1;
		for (size_t i = 0; i < ff->stacks_room; i++) {
			if (!ff->stacks[i].name)
				continue;
			size_t j = (size_t)ff->stacks[i].hash & (room - 1);
			while (t[j].name)
				j = (j + 1) & (room - 1);
			t[j] = ff->stacks[i];
		}
		free(ff->stacks);
		ff->stacks = t;
		ff->stacks_room = room;
	}
	size_t j = (size_t)h & (ff->stacks_room - 1);
	for (; ff->stacks[j].name; j = (j + 1) & (ff->stacks_room - 1)) {
		struct stack_name *e = &ff->stacks[j];
		if (e->hash == h && e->addr == addr && e->size == size && strlen(e->name) == len &&
		    !memcmp(e->name, name, len)) {
			*id = e->id;
			return 1;
		}
	}
	char *dup = strndup(name, len);
	if (!dup)
		return -1;
	ff->stacks[j] = (struct stack_name){ addr, size, h, dup, (uint32_t)ff->nobjects };
	ff->nstacks++;
	*id = (uint32_t)ff->nobjects;
	return 0;
}

/* An OBJECT of a file with modules (its id the file's): its name made here, its id the
 * reader's.  0; 1 when it is a stack object named as one before (the reader gets no
 * second OBJECT: its records name the first); -1 with WHY set. */
static int name_object(struct flow_file *ff, struct flow_rec *r, char *why, size_t room)
{
	uint32_t id = (uint32_t)ff->nobjects;
	int joined = 0;

	if (r->id >= UINT32_MAX) {
		snprintf(why, room, "object id %llu too large", (unsigned long long)r->id);
		return -1;
	}
	if (r->id >= ff->idmap_room) {
		size_t n = ff->idmap_room ? ff->idmap_room * 2 : 1024;
		uint32_t *m = realloc(ff->idmap, n * sizeof(*m));
		if (!m) {
			snprintf(why, room, "out of memory");
			return -1;
		}
		ff->idmap = m;
		ff->idmap_room = n;
	}
	if (r->kind == DYL_OBJ_STATIC && ff->names) {
		r->text = ff->name;
		r->text_len = (uint32_t)flow_syms_static(ff->syms, r->addr, ff->name, NAME_ROOM);
	} else if (r->kind == DYL_OBJ_STACK) {
		size_t at = 48 + ((size_t)r->text_len + 7) / 8 * 8;
		if (r->len >= at + 16) {	/* the frame after the name */
			size_t n = flow_syms_stack(ff->syms, rd64(r->body + at), rd64(r->body + at + 8),
						   r->addr, ff->name, NAME_ROOM);
			if (!n)
				memcpy(ff->name, "frame", n = 5);
			r->text = ff->name;
			r->text_len = (uint32_t)n;
		}
		if (!ff->file_ids &&
		    (joined = join_stack(ff, r->addr, r->size, r->text, r->text_len, &id)) < 0) {
			snprintf(why, room, "out of memory");
			return -1;
		}
	}
	if (ff->file_ids)
		id = (uint32_t)r->id;
	ff->idmap[r->id] = id;
	r->id = id;
	if (!joined)
		ff->nobjects++;
	return joined;
}

/* SITE: its pcs and text fit, and it is the next site; its text made from the pcs when
 * the file has modules.  0, or -1 with WHY. */
static int decode_site(struct flow_file *ff, struct flow_rec *r, char *why, size_t room)
{
	const char *b = r->body;

	r->id = rd64(b);
	r->npc = rd32(b + 8);
	r->text_len = rd32(b + 12);
	if ((uint64_t)r->npc * 8 + r->text_len > r->len - 16) {
		snprintf(why, room, "SITE: %u pcs and %u bytes of text do not fit its %u "
			 "bytes", r->npc, r->text_len, r->len);
		return -1;
	}
	if (r->id != ff->nsites) {	/* the Nth SITE is site N (doc/specs/flow.md) */
		snprintf(why, room, "SITE %llu out of order (site %llu expected)",
			 (unsigned long long)r->id, (unsigned long long)ff->nsites);
		return -1;
	}
	ff->nsites++;
	r->text = b + 16 + (size_t)r->npc * 8;
	if (ff->syms && ff->names && r->npc) {	/* named from the pcs */
		const char *pc = b + 16;
		uint64_t v[64];
		unsigned n = r->npc < 64 ? r->npc : 64;
		for (unsigned i = 0; i < n; i++)
			v[i] = rd64(pc + 8 * i);
		r->text_len = (uint32_t)flow_syms_site(ff->syms, v, n, ff->name, NAME_ROOM);
		r->text = ff->name;
	}
	return 0;
}

/* OBJECT: its name fits, it is the next object and of a known kind; named here when the
 * file has modules (name_object).  0, 1 (name_object's) or -1 with WHY. */
static int decode_object(struct flow_file *ff, struct flow_rec *r, char *why, size_t room)
{
	const char *b = r->body;

	r->id = rd64(b);
	r->kind = rd32(b + 8);
	r->text_len = rd32(b + 12);
	r->size = rd64(b + 16);
	r->site = rd64(b + 24);
	r->seq = rd64(b + 32);
	r->addr = rd64(b + 40);
	if (r->text_len > r->len - 48) {
		snprintf(why, room, "OBJECT: a name of %u bytes does not fit its %u bytes",
			 r->text_len, r->len);
		return -1;
	}
	if (r->id != ff->nfile_objects) {	/* the Nth OBJECT is object N */
		snprintf(why, room, "OBJECT %llu out of order (object %llu expected)",
			 (unsigned long long)r->id, (unsigned long long)ff->nfile_objects);
		return -1;
	}
	ff->nfile_objects++;
	if (r->kind < DYL_OBJ_HEAP || r->kind > DYL_OBJ_MAPPING) {
		snprintf(why, room, "OBJECT %llu: kind %u unknown", (unsigned long long)r->id,
			 r->kind);
		return -1;
	}
	r->text = b + 48;
	if (ff->syms)
		return name_object(ff, r, why, room);
	ff->nobjects++;
	return 0;
}

/* MODULE: its path and build ID fit; given to the names (flow_syms) when the reader makes
 * them.  0, or -1 with WHY. */
static int decode_module(struct flow_file *ff, struct flow_rec *r, char *why, size_t room)
{
	const char *b = r->body;
	uint32_t path_len = rd32(b + 32), id_len = rd32(b + 36);

	r->id = rd64(b);
	r->addr = rd64(b + 8);
	r->lo = rd64(b + 16);
	r->hi = rd64(b + 24);
	if ((uint64_t)path_len + id_len > r->len - 40) {
		snprintf(why, room, "MODULE: a path of %u bytes and a build ID of %u do not fit "
			 "its %u bytes", path_len, id_len, r->len);
		return -1;
	}
	r->text = b + 40;
	r->text_len = path_len;
	r->npc = id_len;
	int e = ff->syms ? flow_syms_module(ff->syms, r->addr, r->lo, r->hi, r->text, path_len,
					    (const unsigned char *)b + 40 + path_len, id_len) : 0;
	if (e == -2)
		snprintf(why, room, "more than %u MODULE records", FLOW_SYMS_MAX);
	else if (e != 0)
		snprintf(why, room, "out of memory");
	if (e != 0)
		return -1;
	return 0;
}

/* ACCESS, HOST_WRITE and HOST_READ: a byte range of an object; ACCESS's rw and
 * HOST_READ's how (when the record has it) checked.  0, or -1 with WHY. */
static int decode_access(struct flow_rec *r, char *why, size_t room)
{
	const char *b = r->body;

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
	} else if (r->type == DYL_FR_HOST_READ && r->len >= 40) {
		uint64_t how = rd64(b + 32);
		if (how > DYL_HR_LIBIO) {
			snprintf(why, room, "HOST_READ: how %llu is not 0, 1 or 2",
				 (unsigned long long)how);
			return -1;
		}
		r->rw = (uint32_t)how;
	}
	return 0;
}

static int object_id(struct flow_file *ff, struct flow_rec *r, char *why, size_t room);

/* Decodes and checks the current record R (its type, len and body set).  0, or -1 with
 * WHY (ROOM bytes) saying what is wrong. */
static int decode(struct flow_file *ff, struct flow_rec *r, char *why, size_t room)
{
	const char *b = r->body;

	if (r->type < sizeof(min_len) / sizeof(min_len[0]) && min_len[r->type] &&
	    r->len < min_len[r->type]) {
		snprintf(why, room, "type %u: %u bytes, needs %u", r->type, r->len,
			 min_len[r->type]);
		return -1;
	}
	switch (r->type) {
	case DYL_FR_SITE:
		return decode_site(ff, r, why, room);
	case DYL_FR_OBJECT:
		return decode_object(ff, r, why, room);
	case DYL_FR_MODULE:
		return decode_module(ff, r, why, room);
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
		if (decode_access(r, why, room) < 0)
			return -1;
		if (r->type == DYL_FR_ACCESS)
			ff->acc_seq = r->seq;
		break;
	case DYL_FR_ACCESSES:
		if (ff->version < 2)
			return 0;
		if (r->len < 4 || (uint64_t)rd32(b) > r->len - 4) {
			snprintf(why, room, "ACCESSES: %u bytes, too few for its count", r->len);
			return -1;
		}
		ff->acc_left = rd32(b);
		ff->acc = (const unsigned char *)b + 4;
		ff->acc_end = (const unsigned char *)b + r->len;
		return 1;	/* (its entries are the records: the caller reads on) */
	default:
		return 0;	/* a type from a later version: the caller skips it */
	}
	return object_id(ff, r, why, room);
}

/* a varint of the current ACCESSES record into *V: 0, or -1 past its end */
static int acc_varint(struct flow_file *ff, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; ff->acc < ff->acc_end && shift < 64; shift += 7) {
		unsigned char b = *ff->acc++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* The next entry of the current ACCESSES record into R, an ACCESS.  0, or -1 with WHY. */
static int decode_packed(struct flow_file *ff, struct flow_rec *r, char *why, size_t room)
{
	uint64_t v = 0;

	ff->acc_left--;
	if (ff->acc >= ff->acc_end)
		goto cut;
	unsigned tag = *ff->acc++, s = tag >> 5 & 3;
	if (s >= 2 && acc_varint(ff, &v) != 0)
		goto cut;
	r->type = DYL_FR_ACCESS;
	r->seq = s == 0 ? ff->acc_seq : s == 1 ? ff->acc_seq + 1 : s == 2 ? ff->acc_seq + v : v;
	ff->acc_seq = r->seq;
	if (!(tag & 0x80)) {
		unsigned k = tag & 31;
		if (!ff->acc_slots[k].used) {
			snprintf(why, room, "ACCESSES: entry names slot %u, empty", k);
			return -1;
		}
		r->id = ff->acc_slots[k].obj, r->lo = ff->acc_slots[k].lo, r->hi = ff->acc_slots[k].hi;
		r->rw = ff->acc_slots[k].rw;
		return object_id(ff, r, why, room);
	}
	r->rw = tag & 1;
	if (acc_varint(ff, &r->id) != 0 || acc_varint(ff, &r->lo) != 0 || acc_varint(ff, &v) != 0)
		goto cut;
	r->hi = r->lo + v;
	unsigned k = dyl_flow_acc_slot(r->id, r->lo, r->hi, r->rw);
	ff->acc_slots[k].obj = r->id, ff->acc_slots[k].lo = r->lo, ff->acc_slots[k].hi = r->hi;
	ff->acc_slots[k].rw = r->rw, ff->acc_slots[k].used = 1;
	return object_id(ff, r, why, room);
cut:
	snprintf(why, room, "ACCESSES: an entry cut short");
	return -1;
}

/* R's object id checked, and made the reader's.  0, or -1 with WHY. */
static int object_id(struct flow_file *ff, struct flow_rec *r, char *why, size_t room)
{
	/* the events past here name an object */
	if (r->id >= UINT32_MAX) {
		snprintf(why, room, "object id %llu too large", (unsigned long long)r->id);
		return -1;
	}
	if (ff->syms)	/* the reader's id (one not defined stays one not defined) */
		r->id = r->id < ff->nfile_objects ? ff->idmap[r->id] :
			r->id - ff->nfile_objects + ff->nobjects;
	return 0;
}

/* One record of the file into R: 1, 2 (one the reader does not see), 0 or -1. */
static int next_record(struct flow_file *ff, struct flow_rec *r)
{
	char why[200];

	if (ff->acc_left) {	/* an entry of an ACCESSES record (it is the current record) */
		memset(r, 0, sizeof(*r));
		if (decode_packed(ff, r, why, sizeof(why)) != 0) {
			flow_file_error(ff, why);
			return -1;
		}
		return 1;
	}
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
	int d = decode(ff, r, why, sizeof(why));
	if (d < 0) {
		flow_file_error(ff, why);
		return -1;
	}
	ff->off += 8 + (size_t)r->len;
	return d == 1 ? 2 : 1;	/* 2: joined to an object before: the caller reads on */
}

int flow_file_next(struct flow_file *ff, struct flow_rec *r)
{
	int rc;

	while ((rc = next_record(ff, r)) == 2)
		;
	return rc;
}
