/* model.c - loading models and evaluating f_k(w).
 *
 * A model file is a CSV table func,work,t_ns (more columns are allowed and ignored, but
 * one named bytes: then a function's samples are keyed on (work, bytes), see model2d.h;
 * a function whose bytes fields are all empty is keyed on work alone, as before).
 * Extension to the contract: lines starting with '#' and blank lines are comments, so a
 * model can say where its numbers come from.  Rows of one func may be spread over the
 * file and unsorted; they are sorted by work, and samples at the same work are averaged
 * (with a warning when their times differ).  The same func in a later file is a separate
 * model that loses to the earlier one (first match wins) and is reported as unused.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "dyl_keys.h"
#include "columns.h"
#include "grow.h"
#include "model.h"
#include "model2d.h"
#include "shown.h"

#define MAX_FIELDS 64

void models_free(struct models *ms)
{
	for (int i = 0; i < ms->n; i++) {
		struct model *m = &ms->m[i];
		if (m->shown != m->pattern)
			free((char *)m->shown);	/* shown_keep's escaped copy */
		free(m->pattern);
		free(m->w);
		free(m->t);
		free(m->b);
		free(m->lines);
		model2d_free(m);
	}
	free(ms->m);
	memset(ms, 0, sizeof(*ms));
}

static struct model *new_model(struct models *ms, char *pattern, const char *file,
			       unsigned long line)
{
	if (grow(&ms->m, sizeof(*ms->m), (size_t)ms->n, &ms->room, 16) != 0)
		return NULL;
	const char *show = shown_keep(pattern, strlen(pattern));
	if (!show)
		return NULL;
	struct model *m = &ms->m[ms->n++];
	memset(m, 0, sizeof(*m));
	m->pattern = pattern;
	m->shown = show;
	m->file = file;
	m->line = line;
	m->shadowed_by = -1;
	return m;
}

struct model *models_new(struct models *ms, const char *pattern, const char *file)
{
	char *copy = strdup(pattern);
	struct model *m = copy ? new_model(ms, copy, file, 0) : NULL;

	if (!m)
		free(copy);
	return m;
}

/* B: the sample's bytes, used when the model is keyed on them (M->keyed == 2). */
static int add_sample(struct model *m, double w, double b, double t, unsigned long line)
{
	if (m->n == m->room) {
		/* four arrays of one length: each grows from the same room */
		size_t room = m->room, rt = room, rb = room, rl = room;
		if (grow(&m->w, sizeof(*m->w), m->n, &room, 16) != 0 ||
		    grow(&m->t, sizeof(*m->t), m->n, &rt, 16) != 0 ||
		    (m->keyed == 2 && grow(&m->b, sizeof(*m->b), m->n, &rb, 16) != 0) ||
		    grow(&m->lines, sizeof(*m->lines), m->n, &rl, 16) != 0)
			return -1;
		m->room = room;
	}
	m->w[m->n] = w;
	m->t[m->n] = t;
	if (m->b)
		m->b[m->n] = b;
	m->lines[m->n] = line;
	m->n++;
	return 0;
}

struct sample {
	double w, b, t;
	unsigned long line;
};

static int by_work_bytes_line(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sorts M's samples by work (then bytes) and averages each group of equal work sizes
 * (and bytes); a model keyed on bytes is then triangulated. */
static int finish_model(struct model *m)
{
	struct sample *s = malloc(m->n * sizeof(*s));
	size_t out = 0;

	if (!s)
		return -1;
	for (size_t i = 0; i < m->n; i++)
		s[i] = (struct sample){ m->w[i], m->b ? m->b[i] : 0, m->t[i], m->lines[i] };
	qsort(s, m->n, sizeof(*s), by_work_bytes_line);
	for (size_t i = 0; i < m->n;) {
		size_t j = i + 1;
		double sum = s[i].t;
		int differ = 0;
		while (j < m->n && s[j].w == s[i].w && s[j].b == s[i].b) {
			differ |= s[j].t != s[i].t;
			sum += s[j].t;
			j++;
		}
		m->w[out] = s[i].w;
		if (m->b)
			m->b[out] = s[i].b;
		m->t[out] = sum / (double)(j - i);
		if (differ && m->b)
			input_warning(m->file, s[i + 1].line,
				      "model '%s' has %zu samples at work=%.17g bytes=%.17g (first at line "
				      "%lu) with different t_ns: their mean %.17g is used",
				      m->shown, j - i, s[i].w, s[i].b, s[i].line, m->t[out]);
		else if (differ)
			input_warning(m->file, s[i + 1].line,
				      "model '%s' has %zu samples at work=%.17g (first at line %lu) "
				      "with different t_ns: their mean %.17g is used",
				      m->shown, j - i, s[i].w, s[i].line, m->t[out]);
		out++;
		i = j;
	}
	m->n = out;
	free(s);
	free(m->lines);
	m->lines = NULL;
	return m->b ? model2d_build(m) : 0;
}

/* Which column, after t_ns, is named bytes; -1 if none. */
static int bytes_column(const struct csv_field *fld, int n)
{
	size_t len = strlen(MODEL_BYTES);

	for (int i = 3; i < n && i < MAX_FIELDS; i++)
		if (fld[i].len == len && !memcmp(fld[i].s, MODEL_BYTES, len))
			return i;
	return -1;
}

/* One model file as it is read. */
struct model_file {
	struct models *ms;	/* where its models go */
	const struct input_file *f;
	unsigned long line;	/* the line being read */
	int ncolumns;		/* of the header; 0 before it */
	int bcol;		/* the bytes column, or -1 */
	int first;		/* the first of the file's models */
	double setup;		/* '# setup_ns=' */
};

/* A '#' line: '# setup_ns=N' is the accelerator's once-per-process cost (loading it).
 * 0, or -1 after a message. */
static int read_comment(struct model_file *mf, const char *line, size_t len)
{
	static const char key[] = DYL_KEY_SETUP_NS "=";
	const size_t k = DYL_KEY_LEN(key);
	const char *p = line + 1, *end = line + len;
	int why;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) > k && !strncmp(p, key, k)) {
		struct csv_field v = { p + k, 0, 0 };
		while (p + k + v.len < end && p[k + v.len] != ' ' && p[k + v.len] != '\t')
			v.len++;
		if ((why = parse_double(&v, &mf->setup)) != NUM_OK) {
			input_number_error(mf->f->path, mf->line, DYL_KEY_SETUP_NS, &v, why);
			return -1;
		}
	}
	return 0;
}

static int read_header(struct model_file *mf, const char *line, size_t len,
		       struct csv_field *fld, int n)
{
	if (!input_header_is(line, len, MODEL_HEADER)) {
		input_error(mf->f->path, mf->line, "not a model: the header must start with %s",
			    MODEL_HEADER);
		return -1;
	}
	if (columns_check(mf->f->path, mf->line, fld, n < MAX_FIELDS ? n : MAX_FIELDS) != 0)
		return -1;
	mf->ncolumns = n;
	mf->bcol = bytes_column(fld, n);
	return 0;
}

/* A sample row's numbers: W, T, B and how it is KEYED (1: work, 2: work and bytes).
 * 0, or -1 after a message. */
static int parse_row(const struct model_file *mf, struct csv_field *fld, int n,
		     double *w, double *t, double *b, int *keyed)
{
	int why;

	if (n != mf->ncolumns) {
		input_error(mf->f->path, mf->line, "malformed row: %d fields, the header has %d",
			    n, mf->ncolumns);
		return -1;
	}
	if (fld[0].len == 0) {
		input_error(mf->f->path, mf->line, "func is empty");
		return -1;
	}
	if ((why = parse_double(&fld[1], w)) != NUM_OK) {
		input_number_error(mf->f->path, mf->line, "work", &fld[1], why);
		return -1;
	}
	if ((why = parse_double(&fld[2], t)) != NUM_OK) {
		input_number_error(mf->f->path, mf->line, "t_ns", &fld[2], why);
		return -1;
	}
	/* an empty bytes field: this sample is keyed on work alone */
	*keyed = mf->bcol >= 0 && fld[mf->bcol].len > 0 ? 2 : 1;
	if (*keyed == 2 && (why = parse_double(&fld[mf->bcol], b)) != NUM_OK) {
		input_number_error(mf->f->path, mf->line, MODEL_BYTES, &fld[mf->bcol], why);
		return -1;
	}
	return 0;
}

/* Adds the sample (W, B, T) to the file's model named FUNC, made if new.  0, or -1 after
 * a message. */
static int add_row(struct model_file *mf, const struct csv_field *func, double w, double b,
		   double t, int keyed)
{
	char *pattern = csv_strdup(func);
	struct model *m = NULL;

	if (!pattern)
		goto oom;
	for (int i = mf->first; i < mf->ms->n && !m; i++)
		if (strcmp(mf->ms->m[i].pattern, pattern) == 0)
			m = &mf->ms->m[i];
	if (m) {
		free(pattern);
	} else if (pattern[0] == MODEL_LINK_PREFIX) {
		int link = !strcmp(pattern, "@h2d") ? MODEL_H2D : !strcmp(pattern, "@d2h") ? MODEL_D2H : 0;
		if (!link || keyed == 2) {
			input_error(mf->f->path, mf->line, link ? "link row '%s': bytes must be empty "
				    "(work is the bytes of one transfer)" : "func '%s': the link's rows "
				    "are @h2d and @d2h; no other func may start with '@'", pattern);
			free(pattern);
			return -1;
		}
		if (!(m = new_model(mf->ms, pattern, mf->f->path, mf->line)))
			goto oom;
		m->link = link;
	} else if (!(m = new_model(mf->ms, pattern, mf->f->path, mf->line))) {
		goto oom;
	}
	if (!m->keyed) {
		m->keyed = keyed;
		m->keyed_line = mf->line;
	} else if (m->keyed != keyed) {
		/* half the samples on a plane, half on a line: no f would make sense */
		input_error(mf->f->path, mf->line, "model '%s': bytes is %s here but %s on line %lu "
			    "(a model is keyed on work alone or on work and bytes, in every sample)",
			    m->shown, keyed == 2 ? "given" : "empty", keyed == 2 ? "empty" : "given",
			    m->keyed_line);
		return -1;
	}
	if (add_sample(m, w, b, t, mf->line) != 0)
		goto oom;
	return 0;
oom:
	input_error(mf->f->path, mf->line, "out of memory");
	return -1;
}

/* The file's models, once all its rows are read. */
static int finish_file(struct model_file *mf)
{
	struct models *ms = mf->ms;

	if (!mf->ncolumns) {
		input_error(mf->f->path, 0, "empty: no header line");
		return -1;
	}
	if (ms->n == mf->first)
		input_warning(mf->f->path, 0, "a model with no samples (only the header)");
	ms->nfiles++;
	for (int i = mf->first; i < ms->n; i++) {
		ms->m[i].setup_ns = mf->setup;
		ms->m[i].file_id = ms->nfiles - 1;
		if (finish_model(&ms->m[i]) != 0) {
			input_error(mf->f->path, mf->line, "out of memory");
			return -1;
		}
	}
	return 0;
}

int models_load(struct models *ms, const struct input_file *f)
{
	struct model_file mf = { .ms = ms, .f = f, .bcol = -1, .first = ms->n };
	struct input_lines it;
	struct csv_field fld[MAX_FIELDS];
	const char *line;
	size_t len;

	input_lines_init(&it, f);
	while (input_next_line(&it, &line, &len)) {
		double w, t, b = 0;
		int n, keyed;

		mf.line = it.lineno;
		if (len > 0 && line[0] == '#') {
			if (read_comment(&mf, line, len) != 0)
				return -1;
			continue;
		}
		if (len == 0)
			continue;
		n = csv_split(line, len, fld, MAX_FIELDS);
		if (!mf.ncolumns) {
			if (read_header(&mf, line, len, fld, n) != 0)
				return -1;
			continue;
		}
		if (parse_row(&mf, fld, n, &w, &t, &b, &keyed) != 0 ||
		    add_row(&mf, &fld[0], w, b, t, keyed) != 0)
			return -1;
	}
	mf.line = it.lineno;
	return finish_file(&mf);
}

int models_match(struct models *ms, const char *name)
{
	int found = -1;

	for (int i = 0; i < ms->n; i++) {
		struct model *m = &ms->m[i];
		if (m->link || fnmatch(m->pattern, name, 0) != 0)
			continue;
		if (found < 0) {
			found = i;
			m->used = 1;
		} else if (m->shadowed_by < 0) {
			m->shadowed_by = found;
			m->shadowed_func = name;
		}
	}
	if (found < 0 && ms->provide && (found = ms->provide(ms, name)) >= 0)
		ms->m[found].used = 1;
	return found;
}

const struct model *models_link(struct models *ms, int dir)
{
	for (int i = 0; i < ms->n; i++)
		if (ms->m[i].link == dir) {
			ms->m[i].used = 1;
			return &ms->m[i];
		}
	return NULL;
}

/* The straight line through samples I and I+1, at W. */
static double line_at(const struct model *m, size_t i, double w)
{
	double dw = m->w[i + 1] - m->w[i];

	return m->t[i] + (m->t[i + 1] - m->t[i]) * ((w - m->w[i]) / dw);
}

double model_eval(const struct model *m, double w, int *out_of_range)
{
	size_t lo, hi;
	double t;

	*out_of_range = w < m->w[0] || w > m->w[m->n - 1];
	if (m->n == 1)
		return m->t[0];	/* one sample: a constant */
	if (w <= m->w[0]) {
		t = w == m->w[0] ? m->t[0] : line_at(m, 0, w);
		return t > 0 ? t : 0;	/* extrapolated downwards: never below zero */
	}
	if (w >= m->w[m->n - 1]) {
		t = w == m->w[m->n - 1] ? m->t[m->n - 1] : line_at(m, m->n - 2, w);
		return t > 0 ? t : 0;
	}
	/* w[lo] < w < w[hi]: bisect to neighbours */
	lo = 0;
	hi = m->n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->w[mid] <= w)
			lo = mid;
		else
			hi = mid;
	}
	return m->w[lo] == w ? m->t[lo] : line_at(m, lo, w);
}
