/* report_page.c - what --report and --html show, gathered once (report_page.h): the
 * kernels and notes as report.c has them, the plans as plan.c finds them, and the
 * headline's words. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "device.h"
#include "func_names.h"
#include "input.h"
#include "report_fmt.h"
#include "report_page.h"
#include "resid.h"
#include "wrap.h"

/* The headline's third line: which calls were replaced, by what. */
static void what_line(struct page *pg)
{
	const struct report *r = pg->r;
	const struct prediction *run = r->run;
	char names[300] = "";
	size_t o = 0;
	int shown = 0;

	for (int i = 0; i < pg->nkern && o < sizeof(names) - 1; i++) {
		if (!run->k[pg->kern[i]].calls)
			continue;
		if (shown == 3) {
			o += (size_t)snprintf(names + o, sizeof(names) - o, ", ...");
			break;
		}
		o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", shown ? ", " : "",
				      funcs_get(pg->kern[i])->shown);
		shown++;
	}
	if (o >= sizeof(names) - 1)
		strcpy(names + sizeof(names) - 5, "...");
	char by[400] = "";
	if (r->device)
		snprintf(by, sizeof(by), "--device %s (%s)", r->device->dev.name, r->device->dev.title);
	else
		for (int i = 0, o = 0; i < r->nmodel_files && i < 3 && o < (int)sizeof(by); i++)
			o += snprintf(by + o, sizeof(by) - (size_t)o, "%s%s%s", i ? ", " : "",
				      r->model_files[i], i == 2 && r->nmodel_files > 3 ? ", ..." : "");
	snprintf(pg->what, sizeof(pg->what), "%llu call%s of %s (P = %.1f%% of T) replaced by %s",
		 (unsigned long long)run->calls, run->calls == 1 ? "" : "s", shown ? names : "nothing",
		 100 * (isfinite(run->P) ? run->P : 0), by);
}

const char *page_bounds(const struct page *pg, char *buf, size_t room)
{
	const struct prediction *run = pg->r->run;
	size_t o = 0;
	char a[32], b[32];

	if (!run->residency) {
		snprintf(buf, room, "no transfers counted (for them: a link model and -g std.flow)");
		return buf;
	}
	o += (size_t)snprintf(buf + o, room - o, "S_G with the transfers:");
	for (int m = 0; m < RESID_MODES && o < room; m++) {
		const struct xfer_fig *x = &run->xfer[m];
		if (!x->known)
			continue;
		o += (size_t)snprintf(buf + o, room - o, " %s %s%s (T' %s)%s",
				      resid_mode_name[m], fmt_ratio(a, sizeof(a), x->S_G),
				      m == run->xfer_top ? " *" : "",
				      fmt_ns(b, sizeof(b), x->predicted_total_ns),
				      m + 1 < RESID_MODES ? "," : "");
	}
	while (o > 0 && o < room && buf[o - 1] == ',')
		buf[--o] = '\0';
	return buf;
}

/* Plans where they can be found: link rows among the models and every process's flow
 * (the residency simulation ran).  0, or -1 after a message. */
static int load_plans(struct page *pg)
{
	const struct report *r = pg->r;

	if (!r->run->residency || r->run->residency < r->nprocs ||
	    !models_link(r->models, MODEL_H2D) || !models_link(r->models, MODEL_D2H))
		return 0;
	if (plan_rows(r, &pg->plan) != 0)
		return -1;
	pg->has_plan = 1;
	if (pg->plan.ncand == 0) {	/* no modelled call the plans can move */
		plan_rows_free(&pg->plan);
		pg->has_plan = 0;
		pg->no_plan = "no offload plan: no modelled call at depth 0 with a work size";
	}
	return 0;
}

int page_load(struct page *pg, const struct report *r)
{
	const struct prediction *run = r->run;

	memset(pg, 0, sizeof(*pg));
	pg->r = r;
	pg->kern = report_kernels(run, 1, &pg->nkern);
	pg->other = report_kernels(run, 0, &pg->nother);
	if (!pg->kern || !pg->other || report_notes(r, &pg->notes, &pg->nnotes) != 0) {
		input_error(NULL, 0, "out of memory");
		return -1;
	}
	if (load_plans(pg) != 0)
		return -1;
	fmt_ratio(pg->sg, sizeof(pg->sg), run->S_G);
	fmt_ns(pg->t, sizeof(pg->t), (double)run->total_ns);
	fmt_ns(pg->tp, sizeof(pg->tp), run->predicted_total_ns);
	what_line(pg);
	return 0;
}

void page_free(struct page *pg)
{
	free(pg->kern);
	free(pg->other);
	report_notes_free(pg->notes, pg->nnotes);
	if (pg->has_plan)
		plan_rows_free(&pg->plan);
	memset(pg, 0, sizeof(*pg));
}

char *report_link_path(const char *link)
{
	static const char *const forms[] = { "%s/link-%s.csv", "%s/%s.csv" };
	char dir[4096], path[8300], *slash;
	struct stat st;

	if (stat(link, &st) == 0 && S_ISREG(st.st_mode))
		return strdup(link);
	/* the models' folder: the devices' parent */
	snprintf(dir, sizeof(dir), "%s", device_dir());
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	for (size_t i = 0; !strchr(link, '/') && i < sizeof(forms) / sizeof(forms[0]); i++) {
		snprintf(path, sizeof(path), forms[i], dir, link);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			return strdup(path);
	}
	return NULL;
}

int report_page(FILE *out, const struct report *r, int text, const char *html)
{
	struct page pg;
	int rc = page_load(&pg, r);

	if (rc == 0 && text)
		rc = report_text(out, &pg, wrap_width(STDOUT_FILENO));
	if (rc == 0 && html)
		rc = report_html(html, &pg);
	page_free(&pg);
	return rc;
}
