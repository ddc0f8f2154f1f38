/* csv.c - a decoded row as the trace's CSV line (dyl_csv.h).
 *
 * The runtime writes every row of its trace here at exit, so this is the cost of a
 * row: numbers are written with their length known first (no buffer copied after),
 * two digits a step; a name is scanned once for the characters that need quotes.
 * A conversion's writer (dyl_csv_row) keeps as text what repeats from row to row: seq,
 * counted up in place; ",TID,FUNC," of each thread and function; the digits of a start
 * above its last 8; the usual row's end (no sizes, arguments or counters).
 */
#include <stddef.h>
#include <string.h>
#include "dyl_csv.h"

static const char DIGITS2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static const uint64_t POW10[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

/* Digits of V: from its bit length (log10(2) ~ 1233 / 4096), one comparison. */
static inline unsigned ndigits(uint64_t v)
{
	unsigned t = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;
	unsigned n = t + (v >= POW10[t]);
	return n ? n : 1;
}

/* Exactly 8 digits of V (< 10^8) at Q: two halves, each two pairs, independent of each
 * other (the CPU works on them at once; a loop would wait on each division). */
static inline void put8(char *q, uint32_t v)
{
	/* the quotients as multiplications, exact for every V below 10^8 (all tried when
	 * written; format_test samples them): a compiler may otherwise choose a division
	 * where it thinks the code cold */
	uint32_t a = (uint32_t)(((uint64_t)v * 109951163) >> 40), b = v - a * 10000;
	uint32_t a1 = (a * 5243) >> 19, b1 = (b * 5243) >> 19;

	memcpy(q, DIGITS2 + a1 * 2, 2);
	memcpy(q + 2, DIGITS2 + (a - a1 * 100) * 2, 2);
	memcpy(q + 4, DIGITS2 + b1 * 2, 2);
	memcpy(q + 6, DIGITS2 + (b - b1 * 100) * 2, 2);
}

static inline char *put_u64(char *p, uint64_t v)
{
	char *e = p + ndigits(v), *q = e;

	while (v >= 100000000) {	/* the low 8 digits, then 32-bit arithmetic */
		uint64_t hi = v / 100000000;
		q -= 8;
		put8(q, (uint32_t)(v - hi * 100000000));
		v = hi;
	}
	uint32_t w = (uint32_t)v;
	while (w >= 100) {
		q -= 2;
		memcpy(q, DIGITS2 + (w % 100) * 2, 2);
		w /= 100;
	}
	if (w >= 10) {
		q -= 2;
		memcpy(q, DIGITS2 + w * 2, 2);
	} else {
		*--q = (char)('0' + w);
	}
	return e;
}

char *dyl_put_u64(char *p, uint64_t v)
{
	return put_u64(p, v);
}

char *dyl_put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* An optional value: nothing for DYL_NONE. */
static inline char *put_opt(char *p, int64_t v)
{
	return v == DYL_NONE ? p : dyl_put_i64(p, v);
}

/* A CSV field, quoted when it holds a comma, quote or newline: the N bytes of S, cut
 * short where they would pass END (the quotes included).  P may be past END already:
 * then nothing is written. */
static char *put_field(char *p, char *end, const char *s, size_t n)
{
	const char *e = s + n;
	int quote = 0;

	for (const char *q = s; q < e; q++)
		if (*q == ',' || *q == '"' || *q == '\n' || *q == '\r')
			quote = 1;
	if (!quote && end - p >= (ptrdiff_t)n + 2) {	/* the usual name: copied whole */
		memcpy(p, s, n);
		return p + n;
	}
	if (end - p < 2 * quote)
		return p;
	if (quote)
		*p++ = '"';
	/* room for a doubled quote and the closing one */
	for (; s < e && end - p >= 2 + quote; s++) {
		if (*s == '"')
			*p++ = '"';
		*p++ = (*s == '\n' || *s == '\r') ? ' ' : *s;
	}
	if (quote)
		*p++ = '"';
	return p;
}

/* Kept back from a row's ROOM: the numbers between func and args (7 fields, 117
 * characters at most) and 16 columns of 21 characters after args; func and args end
 * at the rest. */
#define ROW_RESERVE (24 * 24)

static char *put_extra(char *p, char *end, const struct dyl_row *r, unsigned ncolumns)
{
	if (ncolumns > DYL_CSV_MAX_COUNTERS)
		ncolumns = DYL_CSV_MAX_COUNTERS;
	p = put_u64(p, r->depth);
	*p++ = ',';
	if (r->args)
		p = put_field(p, end, r->args, r->args_len);
	if (!r->ncounters) {	/* the usual row: empty counter columns */
		memset(p, ',', ncolumns);
		return p + ncolumns;
	}
	for (unsigned i = 0; i < ncolumns; i++) {
		*p++ = ',';
		if (i >= r->counter_base && i < r->counter_base + r->ncounters)
			p = put_opt(p, r->counters[i - r->counter_base]);
	}
	return p;
}

/* From t_start_ns on (after ",TID,FUNC,"). */
static char *put_rest(char *p, char *end, const struct dyl_row *r, unsigned ncolumns)
{
	int64_t work = r->work;

	if (work == DYL_NONE && (r->in_bytes != DYL_NONE || r->out_bytes != DYL_NONE))
		work = (r->in_bytes == DYL_NONE ? 0 : r->in_bytes) +
		       (r->out_bytes == DYL_NONE ? 0 : r->out_bytes);
	if (r->timed) {
		p = put_u64(p, r->t_start_ns);
		*p++ = ',';
		p = put_u64(p, r->t_ns);
	} else {
		*p++ = ',';
	}
	if (work == DYL_NONE) {	/* the usual row: no sizes */
		memcpy(p, ",,,,", 4);
		p += 4;
	} else {
		*p++ = ',';
		p = put_opt(p, r->in_bytes);
		*p++ = ',';
		p = put_opt(p, r->out_bytes);
		*p++ = ',';
		p = put_opt(p, work);
		*p++ = ',';
	}
	p = put_extra(p, end, r, ncolumns);
	*p++ = '\n';
	return p;
}

size_t dyl_format_row(char *out, size_t room, const struct dyl_row *r, unsigned ncolumns)
{
	char *p = out, *end = out + room - ROW_RESERVE;

	p = put_u64(p, r->seq);
	*p++ = ',';
	p = put_u64(p, (uint64_t)(uint32_t)r->tid);
	*p++ = ',';
	p = put_field(p, end, r->func, r->func_len);
	*p++ = ',';
	return (size_t)(put_rest(p, end, r, ncolumns) - out);
}

/* The seq after W's, in W's text: the last digit up (kept apart: the text is not
 * stored into, so the next copy of it does not wait for the store), else carried. */
static int carry_seq(struct dyl_csv_writer *w)
{
	w->seq_last = 0;
	for (uint32_t i = w->seq_len - 1; i-- > 0;) {
		if (w->seq_txt[i] != '9') {
			w->seq_txt[i]++;
			return 1;
		}
		w->seq_txt[i] = '0';
	}
	return 0;	/* 99..9: one digit more */
}

static inline int next_seq(struct dyl_csv_writer *w)
{
	w->seq++;
	if (__builtin_expect(w->seq_last < 9, 1)) {
		w->seq_last++;
		return 1;
	}
	return carry_seq(w);
}

/* ",TID,FUNC," of R into M, when its name needs no quotes and fits. */
static void set_mid(struct dyl_csv_mid *m, const struct dyl_row *r)
{
	char *p = m->text;

	m->len = 0;
	if (r->func_len > sizeof(m->text) - 16)
		return;
	for (uint32_t i = 0; i < r->func_len; i++)
		if (r->func[i] == ',' || r->func[i] == '"' || r->func[i] == '\n' || r->func[i] == '\r')
			return;
	*p++ = ',';
	p = put_u64(p, (uint64_t)(uint32_t)r->tid);
	*p++ = ',';
	memcpy(p, r->func, r->func_len);
	p += r->func_len;
	*p++ = ',';
	m->tid = r->tid;
	m->func_id = r->func_id;
	m->func = r->func;
	m->len = (uint32_t)(p - m->text);
}

/* R's slot in W's MIDS: made when it holds another thread's or function's. */
static inline int mid_is(const struct dyl_csv_mid *m, const struct dyl_row *r)
{
	return m->len && r->tid == m->tid && r->func_id == m->func_id && r->func == m->func;
}

/* R's slot in W's MIDS (the last row's first: no hash for a run of one function);
 * made when it holds another thread's or function's. */
static const struct dyl_csv_mid *mid_of(struct dyl_csv_writer *w, const struct dyl_row *r)
{
	struct dyl_csv_mid *m = &w->mids[w->last_mid];

	if (mid_is(m, r))
		return m;
	uint32_t h = ((uint32_t)r->tid * 0x9E3779B1u) ^ (r->func_id * 0x85EBCA77u);
	w->last_mid = h >> 16 & (DYL_CSV_MIDS - 1);
	m = &w->mids[w->last_mid];
	if (!mid_is(m, r))
		set_mid(m, r);
	return m;
}

/* The 8 digits of V (< 10^8) in a word, the first in its lowest byte: the pairs, then
 * the digits of each, all at once in lanes of the word (no table, no division). */
static inline uint64_t digits8(uint32_t v)
{
	uint64_t hi = ((uint64_t)v * 109951163) >> 40, lo = v - hi * 10000;	/* (put8's) */
	uint64_t m = hi | lo << 32;	/* two lanes of 4 digits */
	uint64_t top = ((m * 10486) >> 20) & (0x7Full << 32 | 0x7F);	/* / 100 in each */
	uint64_t pairs = ((m - 100 * top) << 16) + top;	/* four lanes of 2 digits */
	uint64_t tens = ((pairs * 103) >> 10) & 0x000F000F000F000Full;	/* / 10 in each */
	return tens + ((pairs - 10 * tens) << 8) + 0x3030303030303030ull;
}

/* t_start_ns: a start in the same 0.1 s as the last one (the usual case: W's TS_BASE)
 * is W's text of its digits above the last 8, then those 8; below 10^8 (the first 0.1 s:
 * a zeroed W's range) the 8 less their leading zeros. */
static inline char *put_start(struct dyl_csv_writer *w, char *p, uint64_t v)
{
	uint64_t lo = v - w->ts_base;

	if (__builtin_expect(lo >= 100000000, 0)) {
		/* (so near 2^64 that a range from its base would wrap round) */
		if (v > UINT64_MAX - 100000000)
			return put_u64(p, v);
		uint64_t hi = v / 100000000;
		w->ts_base = hi * 100000000;
		w->ts_len = hi ? (uint32_t)(put_u64(w->ts_hi, hi) - w->ts_hi) : 0;
		lo = v - w->ts_base;
	}
	uint64_t d = digits8((uint32_t)lo);
	if (w->ts_len) {
		memcpy(p, w->ts_hi, sizeof(w->ts_hi));	/* (at most 12 digits: 2^64 / 10^8) */
		p += w->ts_len;
		memcpy(p, &d, 8);
		return p + 8;
	}
	unsigned zeros = lo ? (unsigned)__builtin_ctzll(d - 0x3030303030303030ull) / 8 : 7;
	d >>= 8 * zeros;
	memcpy(p, &d, 8);
	return p + 8 - zeros;
}

/* t_ns: mostly a few ns, one or two digits (the pair's second byte for one digit; the
 * byte after it is written over next) */
static inline char *put_small(char *p, uint64_t v)
{
	if (__builtin_expect(v >= 100, 0))
		return put_u64(p, v);
	memcpy(p, DIGITS2 + 2 * v + (v < 10), 2);
	return p + 1 + (v >= 10);
}

/* The usual row's text after t_ns (empty sizes and work, depth 0, NCOLUMNS empty
 * counters), made once for a count of columns. */
static void usual_tail(struct dyl_csv_writer *w, unsigned ncolumns)
{
	if (w->tail_ncol != ncolumns + 1) {
		unsigned n = ncolumns > DYL_CSV_MAX_COUNTERS ? DYL_CSV_MAX_COUNTERS : ncolumns;
		memcpy(w->tail, ",,,,0,", 6);
		memset(w->tail + 6, ',', n);
		w->tail[6 + n] = '\n';
		w->tail_len = 7 + n;
		w->tail_ncol = ncolumns + 1;
	}
}

/* From t_start_ns on, for the usual row (put_rest's bytes, W's text). */
static char *put_rest_usual(struct dyl_csv_writer *w, char *p, const struct dyl_row *r,
			    unsigned ncolumns)
{
	usual_tail(w, ncolumns);
	p = put_start(w, p, r->t_start_ns);
	*p++ = ',';
	p = put_small(p, r->t_ns);
	memcpy(p, w->tail, sizeof(w->tail));
	p[4] = (char)('0' + r->depth);
	return p + w->tail_len;
}

size_t dyl_csv_row(struct dyl_csv_writer *w, char *out, size_t room, const struct dyl_row *r,
		   unsigned ncolumns)
{
	char *p = out, *end = out + room - ROW_RESERVE;

	if (!(w->seq_len && r->seq == w->seq + 1 && r->seq && next_seq(w))) {
		w->seq = r->seq;
		w->seq_len = (uint32_t)(put_u64(w->seq_txt, r->seq) - w->seq_txt);
		w->seq_last = (uint32_t)(r->seq % 10);
	}
	memcpy(p, w->seq_txt, sizeof(w->seq_txt));	/* (ROOM holds it: DYL_ROW_MAX) */
	p += w->seq_len;
	p[-1] = (char)('0' + w->seq_last);
	const struct dyl_csv_mid *m = mid_of(w, r);
	if (m->len) {
		memcpy(p, m->text, sizeof(m->text));
		p += m->len;
	} else {
		*p++ = ',';
		p = put_u64(p, (uint64_t)(uint32_t)r->tid);
		*p++ = ',';
		p = put_field(p, end, r->func, r->func_len);
		*p++ = ',';
	}
	if (r->timed && r->depth < 10 && !r->args && !r->ncounters && r->work == DYL_NONE &&
	    r->in_bytes == DYL_NONE && r->out_bytes == DYL_NONE)
		return (size_t)(put_rest_usual(w, p, r, ncolumns) - out);
	return (size_t)(put_rest(p, end, r, ncolumns) - out);
}

/* ",TID,FUNC," of thread TID's function ID (C's name of it) in W's slot for them, made
 * when it holds another's (mid_of's slot: the rows of dyl_csv_row share them). */
static const struct dyl_csv_mid *mid_plain(struct dyl_csv_writer *w, const struct dyl_conv *c,
					   int32_t tid, uint32_t id)
{
	struct dyl_row r;

	r.tid = tid;
	r.func_id = id;
	r.func = dyl_conv_name(c, id, &r.func_len);
	uint32_t h = ((uint32_t)tid * 0x9E3779B1u) ^ (id * 0x85EBCA77u);
	w->last_mid = h >> 16 & (DYL_CSV_MIDS - 1);
	struct dyl_csv_mid *m = &w->mids[w->last_mid];
	if (!mid_is(m, &r))
		set_mid(m, &r);
	return m;
}

/* A plain row as dyl_csv_row would have it: for the rows the fast path leaves. */
static size_t plain_row(struct dyl_csv_writer *w, char *out, const struct dyl_conv *c,
			int32_t tid, uint64_t seq, const struct dyl_plain *x, unsigned ncolumns)
{
	struct dyl_row r;

	memset(&r, 0, offsetof(struct dyl_row, counter_buf));
	r.seq = seq;
	r.tid = tid;
	r.func_id = x->func_id;
	r.func = dyl_conv_name(c, x->func_id, &r.func_len);
	r.timed = 1;
	r.t_start_ns = x->t_start_ns;
	r.t_ns = x->t_ns;
	r.in_bytes = r.out_bytes = r.work = DYL_NONE;
	r.depth = x->depth;
	return dyl_csv_row(w, out, DYL_ROW_MAX, &r, ncolumns);
}

char *dyl_csv_plain(struct dyl_csv_writer *w, char *out, const char *end, const struct dyl_conv *c,
		    int32_t tid, uint64_t seq, const struct dyl_plain *rows, size_t n,
		    unsigned ncolumns, size_t *done)
{
	char *p = out;
	size_t i;

	usual_tail(w, ncolumns);
	/* what the rows reuse, in locals: stores into the text (char) may alias any field
	 * of W, which the compiler would then read again each row */
	const struct dyl_csv_mid *m = &w->mids[w->last_mid];
	uint32_t mid_func = m->len && m->tid == tid ? m->func_id : UINT32_MAX;
	uint32_t tail_len = w->tail_len;
	for (i = 0; i < n && end - p >= DYL_ROW_MAX; i++) {
		const struct dyl_plain *x = &rows[i];
		uint64_t sq = seq + i;
		if (x->func_id != mid_func) {
			m = mid_plain(w, c, tid, x->func_id);
			mid_func = m->len ? x->func_id : UINT32_MAX;
		}
		if (!m->len || x->depth >= 10) {	/* a name in quotes, a deep call */
			p += plain_row(w, p, c, tid, sq, x, ncolumns);
			m = &w->mids[w->last_mid];
			mid_func = m->len && m->tid == tid ? m->func_id : UINT32_MAX;
			continue;
		}
		if (!(w->seq_len && sq == w->seq + 1 && sq && next_seq(w))) {
			w->seq = sq;
			w->seq_len = (uint32_t)(put_u64(w->seq_txt, sq) - w->seq_txt);
			w->seq_last = (uint32_t)(sq % 10);
		}
		char seq_txt[24];
		memcpy(seq_txt, w->seq_txt, sizeof(seq_txt));
		uint32_t seq_len = w->seq_len;
		char seq_last = (char)('0' + w->seq_last);
		char mid[64];
		memcpy(mid, m->text, sizeof(mid));
		uint32_t mid_len = m->len;
		memcpy(p, seq_txt, sizeof(seq_txt));
		p += seq_len;
		p[-1] = seq_last;
		memcpy(p, mid, sizeof(mid));
		p += mid_len;
		p = put_start(w, p, x->t_start_ns);
		*p++ = ',';
		p = put_small(p, x->t_ns);
		memcpy(p, w->tail, sizeof(w->tail));
		p[4] = (char)('0' + x->depth);
		p += tail_len;
	}
	*done = i;
	return p;
}

size_t dyl_format_extra(char *out, size_t room, const struct dyl_row *r, unsigned ncolumns)
{
	return (size_t)(put_extra(out, out + room - ROW_RESERVE, r, ncolumns) - out);
}
