/* callsite.c - dyl-trace summary --by-callsite: per function and call site, the calls,
 * their total, self and mean time, the site named "caller (file.c:12)" offline.
 *
 * The rows are grouped by (function, return address) through summary.c, which finds
 * the nesting (self time) as for functions: each group is a func_names.h name of its
 * own, "FUNC\x1fADDRESS", so that the summary's arrays index it.  The addresses are
 * named once each, after the rows (the module table is in the trace's footer), with
 * flow_syms.h, which opens each module once: from DWARF where the program has it,
 * else its symbol and offset, else module+offset, else the raw address (a trace with
 * no module table: its process was killed).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "callsite.h"
#include "cli.h"
#include "flow_syms.h"
#include "func_names.h"
#include "input.h"
#include "shown.h"
#include "summary.h"
#include "dyl_keys.h"

#define BASE_COLUMNS 8	/* seq ... work: the extra fields come after them */
#define GROUP_SEP '\x1f'

int callsite_columns(const struct trace_src *src, struct callsite_cols *c)
{
	struct csv_field f[64];
	int n = csv_split(src->header, src->header_len, f, 64);

	memset(c, 0, sizeof(*c));
	for (int i = BASE_COLUMNS; i < n && i < 64; i++) {
		int k = -1;
		if (f[i].len == DYL_KEY_LEN(DYL_COL_CALLSITE) && !memcmp(f[i].s, DYL_COL_CALLSITE, f[i].len))
			k = 0;
		else if (f[i].len == DYL_KEY_LEN(DYL_COL_STACK) + 1 &&
			 !memcmp(f[i].s, DYL_COL_STACK, DYL_KEY_LEN(DYL_COL_STACK)) &&
			 f[i].s[f[i].len - 1] >= '1' && f[i].s[f[i].len - 1] < '0' + CALLSITE_MAX)
			k = f[i].s[f[i].len - 1] - '0';
		if (k >= 0)
			c->col[k] = i - BASE_COLUMNS + 1;	/* (+1: 0 is "none") */
	}
	if (!c->col[0]) {
		input_error(src->path, 0, "no callsite column: record with -g std.callsite "
			    "(bin/dyliberator ... -g std.callsite)");
		return -1;
	}
	while (c->n < CALLSITE_MAX && c->col[c->n])
		c->n++;
	for (int i = 0; i < c->n; i++)
		c->col[i]--;
	return 0;
}

int callsite_addrs(const struct callsite_cols *c, const struct trace_row *r, uint64_t *pc)
{
	struct csv_field f[64];
	int n = r->extra_len ? csv_split(r->extra, r->extra_len, f, 64) : 0, k = 0;

	for (; k < c->n; k++)
		if (c->col[k] >= n || c->col[k] >= 64 || parse_u64(&f[c->col[k]], &pc[k]) != NUM_OK || !pc[k])
			break;
	return k;
}

/* one '# module=LO-HI BIAS BUILD_ID PATH' line (after '# ') into S; bad lines are
 * skipped (the addresses they would name stay raw) */
static int add_module(struct flow_syms *s, const char *t, size_t len)
{
	char line[4200], *path;
	unsigned long long lo, hi, bias;
	unsigned char id[64];
	char bid[130];
	size_t n = 0;
	int at = 0;

	if (len >= sizeof(line))
		return 0;
	memcpy(line, t, len);
	line[len] = 0;
	if (sscanf(line, DYL_KEY_MODULE "=%llx-%llx %llx %129s %n", &lo, &hi, &bias, bid, &at) != 4 || !at)
		return 0;
	path = line + at;
	for (; bid[0] != '-' && bid[2 * n] && bid[2 * n + 1] && n < sizeof(id); n++)
		if (sscanf(bid + 2 * n, "%2hhx", &id[n]) != 1)
			return 0;
	return flow_syms_module(s, bias, lo, hi, path, strlen(path), id, n) == -1 ? -1 : 0;
}

struct flow_syms *callsite_syms(const struct trace_src *src)
{
	struct flow_syms *s = flow_syms_new();

	for (size_t i = 0; s && i < src->nnotes; i++) {
		const struct trace_note *t = &src->notes[i];
		if (t->len > DYL_KEY_LEN(DYL_KEY_MODULE "=") &&
		    !memcmp(t->text, DYL_KEY_MODULE "=", DYL_KEY_LEN(DYL_KEY_MODULE "=")) &&
		    add_module(s, t->text, t->len) != 0) {
			flow_syms_free(s);
			s = NULL;
		}
	}
	return s;
}

int callsite_ours(const struct trace_src *src, struct flow_syms *syms, uint64_t pc)
{
	const char *p = syms ? flow_syms_path(syms, pc - 1) : NULL;
	const char *b = p ? strrchr(p, '/') : NULL;
	size_t key = DYL_KEY_LEN(DYL_KEY_WRAPPER "=");

	if (!p)
		return 0;
	b = b ? b + 1 : p;
	if (!strcmp(b, "libdylrt.so"))
		return 1;
	for (size_t i = 0; i < src->nnotes; i++) {
		const struct trace_note *t = &src->notes[i];
		const char *colon = t->len > key ? memchr(t->text, ':', t->len) : NULL;
		if (colon && !memcmp(t->text, DYL_KEY_WRAPPER "=", key) &&
		    (size_t)(colon - t->text) - key == strlen(b) && !memcmp(t->text + key, b, strlen(b)))
			return 2;
	}
	return 0;
}

/* summary_group_fn: the row's (function, call site) */
static int group_of(void *ctx, const struct trace_src *src, const struct trace_row *r)
{
	const struct callsite_cols *c = ctx;
	const struct func *f = funcs_get((int)r->func);
	uint64_t pc[CALLSITE_MAX] = { 0 };
	char key[4096];

	(void)src;
	callsite_addrs(c, r, pc);
	int n = snprintf(key, sizeof(key), "%.*s%c%" PRIx64, (int)(f->len < 4000 ? f->len : 4000), f->name,
			 GROUP_SEP, pc[0]);
	int added;
	return funcs_intern(key, (size_t)n, &added);
}

/* the group's function and address, from its name */
static void group_parts(uint32_t id, char *func, size_t room, uint64_t *pc)
{
	const struct func *f = funcs_get((int)id);
	const char *sep = memrchr(f->name, GROUP_SEP, f->len);
	size_t n = sep ? (size_t)(sep - f->name) : f->len;

	snprintf(func, room, "%.*s", (int)n, f->name);
	*pc = sep ? strtoull(sep + 1, NULL, 16) : 0;
}

/* the site's name: "(unknown)" for a row without an address; "inside FUNC" for a
 * call the library made inside FUNC and that returns into FUNC's wrapper */
static void site_name(const struct trace_src *src, struct flow_syms *syms, uint64_t pc, char *out,
		      size_t room)
{
	size_t n = pc && syms ? flow_syms_site(syms, &pc, 1, out, room - 1) : 0;
	int is_main;

	if (pc && callsite_ours(src, syms, pc)) {
		memcpy(out, "inside ", 7);
		n = 7 + flow_syms_func(syms, pc, out + 7, room - 8, &is_main);
	} else if (!pc)
		n = (size_t)snprintf(out, room, "(unknown)");
	else if (!n)
		n = (size_t)snprintf(out, room, "0x%" PRIx64, pc);
	out[n < room ? n : room - 1] = 0;
}

/* NS for the table: an integer and a unit, 3 to 4 digits */
static const char *short_ns(char *buf, size_t room, double ns)
{
	const char *unit = "ns";

	if (ns < 0)
		return "-";
	if (ns >= 1e9)
		ns /= 1e9, unit = "s";
	else if (ns >= 1e6)
		ns /= 1e6, unit = "ms";
	else if (ns >= 1e4)
		ns /= 1e3, unit = "us";
	snprintf(buf, room, ns < 10 && unit[0] != 'n' ? "%.2f %s" : ns < 100 && unit[0] != 'n' ?
		 "%.1f %s" : "%.0f %s", ns, unit);
	return buf;
}

static void put_group(FILE *out, const struct trace_src *src, struct flow_syms *syms,
		      const struct func_stats *fs, int fmt, int first, int width)
{
	char func[4096], site[1024], t1[32], t2[32], t3[32], sh[4200], sh2[1100];
	uint64_t pc;

	group_parts(fs->func, func, sizeof(func), &pc);
	site_name(src, syms, pc, site, sizeof(site));
	if (fmt == 0) {
		fprintf(out, "%-*s %8" PRIu64 " %10s %10s %10s  %s\n", width,
			shown(func, strlen(func), sh, sizeof(sh)), fs->calls,
			short_ns(t1, sizeof(t1), fs->timed ? (double)fs->total_ns : -1),
			short_ns(t2, sizeof(t2), fs->timed ? (double)fs->self_ns : -1),
			short_ns(t3, sizeof(t3), fs->mean_ns), shown(site, strlen(site), sh2, sizeof(sh2)));
	} else if (fmt == 1) {
		csv_str(out, src->path);
		fprintf(out, ",%" PRId64 ",", src->pid);
		csv_str(out, func);
		fputc(',', out);
		csv_str(out, site);
		fprintf(out, ",0x%" PRIx64 ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%.1f\n", pc, fs->calls,
			fs->total_ns, fs->self_ns, fs->mean_ns < 0 ? 0 : fs->mean_ns);
	} else {
		fputs(first ? "\n    {\"func\": " : ",\n    {\"func\": ", out);
		json_str(out, func, strlen(func));
		fputs(", \"callsite\": ", out);
		json_str(out, site, strlen(site));
		fprintf(out, ", \"address\": \"0x%" PRIx64 "\", \"calls\": %" PRIu64 ", \"total_ns\": %" PRId64
			", \"self_ns\": %" PRId64 ", \"mean_ns\": %.1f}", pc, fs->calls, fs->total_ns,
			fs->self_ns, fs->mean_ns < 0 ? 0 : fs->mean_ns);
	}
}

/* one trace's table */
static int one_summary(FILE *out, const char *path, int fmt, int first)
{
	struct trace_src src;
	struct trace_summary s;
	struct callsite_cols c;

	if (rows_open(&src, path) != 0)
		return 2;
	if (callsite_columns(&src, &c) != 0 || summary_read_grouped(&src, &s, group_of, &c) != 0) {
		rows_close(&src);
		return 2;
	}
	if (src.truncated)
		rows_warn_truncated(&src);
	struct flow_syms *syms = callsite_syms(&src);
	int width = 8;	/* the longest function name's (within reason) */
	for (size_t i = 0; i < s.nfuncs; i++) {
		const char *sep = memchr(funcs_get((int)s.funcs[i].func)->name, GROUP_SEP,
					 funcs_get((int)s.funcs[i].func)->len);
		int len = sep ? (int)(sep - funcs_get((int)s.funcs[i].func)->name) : 0;
		width = len > width ? (len < 40 ? len : 40) : width;
	}
	if (fmt == 0)
		fprintf(out, "%s%s: pid %" PRId64 "\n%-*s %8s %10s %10s %10s  %s\n", first ? "" : "\n",
			src.path, src.pid, width, "function", "calls", "total", "self", "mean", "call site");
	else if (fmt == 2) {
		fputs(first ? "\n  {\"path\": " : ",\n  {\"path\": ", out);
		json_str(out, src.path, strlen(src.path));
		fprintf(out, ", \"pid\": %" PRId64 ", \"callsites\": [", src.pid);
	}
	for (size_t i = 0; i < s.nfuncs; i++)
		put_group(out, &src, syms, &s.funcs[i], fmt, i == 0, width);
	if (fmt == 2)
		fputs("]}", out);
	flow_syms_free(syms);
	summary_free(&s);
	rows_close(&src);
	return 0;
}

int callsite_summary(char **paths, int n, int fmt, FILE *out)
{
	if (fmt == 1)
		fputs("trace,pid,func,callsite,address,calls,total_ns,self_ns,mean_ns\n", out);
	if (fmt == 2)
		fprintf(out, "{\"version\": \"%s\", \"traces\": [", cli_version);
	for (int i = 0; i < n; i++)
		if (one_summary(out, paths[i], fmt, i == 0) != 0)
			return 2;
	if (fmt == 2)
		fputs("\n]}\n", out);
	return 0;
}
