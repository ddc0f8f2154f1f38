/* report_xfer.c - the transfers' part of dyl-speedup's report, with link rows
 * (doc/residency.md): per kernel what moves each way, and the three residency figures
 * side by side. */
#include <math.h>
#include <string.h>
#include "func_names.h"
#include "report_fmt.h"
#include "report_xfer.h"
#include "resid.h"

static const char *mode_name(int m)
{
	return m >= 0 && m < RESID_MODES ? resid_mode_name[m] : "mixed";
}

void xfer_table(FILE *out, const struct report *r, const int *kern, int nkern, int w)
{
	const struct prediction *run = r->run;
	char a[32], b[32], c[32];
	static const char *const what[RESID_MODES] = {
		"host reads recorded: data comes back when the program reads it",
		"data comes back only to calls left on the host",
		"every call moves all it reads and writes (as NVBLAS)",
	};

	if (!run->residency)
		return;
	fprintf(out, "\nTransfers (link rows: the kernel models are the compute alone; residency "
		"%s):\n", mode_name(run->xfer_top));
	fprintf(out, "%-*s %14s %9s %12s %14s %9s %12s\n", w, "kernel", "h2d bytes", "transfers",
		"h2d time", "d2h bytes", "transfers", "d2h time");
	for (int i = 0; i < nkern; i++) {
		const struct kernel *k = &run->k[kern[i]];
		fprintf(out, "%-*s %14llu %9llu %12s %14llu %9llu %12s\n", w, funcs_get(kern[i])->shown,
			(unsigned long long)k->h2d_bytes, (unsigned long long)k->h2d_transfers,
			fmt_ns(a, sizeof(a), k->h2d_ns), (unsigned long long)k->d2h_bytes,
			(unsigned long long)k->d2h_transfers, fmt_ns(b, sizeof(b), k->d2h_ns));
	}
	fprintf(out, "%-*s %14llu %9llu %12s %14llu %9llu %12s\n", w, "all",
		(unsigned long long)run->top.h2d_bytes, (unsigned long long)run->top.h2d_transfers,
		fmt_ns(a, sizeof(a), run->top.h2d_ns), (unsigned long long)run->top.d2h_bytes,
		(unsigned long long)run->top.d2h_transfers, fmt_ns(b, sizeof(b), run->top.d2h_ns));
	fprintf(out, "  h2d: what the replaced calls read that the accelerator did not hold; d2h: "
		"what they\n  wrote that came back (charged to the kernel that wrote it)\n");
	fprintf(out, "\n%-12s %14s %14s %10s %12s %12s %8s\n", "residency", "h2d bytes", "d2h bytes",
		"transfers", "link time", "T'", "S_G");
	for (int m = 0; m < RESID_MODES; m++) {
		const struct xfer_fig *f = &run->xfer[m];
		if (!f->known) {
			fprintf(out, "%-12s %s\n", resid_mode_name[m], "(not known: record host reads "
				"with -g std.flow:host_reads=on)");
			continue;
		}
		fprintf(out, "%-12s %14llu %14llu %10llu %12s %12s %8s  %s%s\n", resid_mode_name[m],
			(unsigned long long)f->h2d_bytes, (unsigned long long)f->d2h_bytes,
			(unsigned long long)(f->h2d_transfers + f->d2h_transfers),
			fmt_ns(a, sizeof(a), f->h2d_ns + f->d2h_ns),
			fmt_ns(b, sizeof(b), f->predicted_total_ns),
			fmt_ratio(c, sizeof(c), f->S_G), m == run->xfer_top ? "* " : "", what[m]);
	}
	fprintf(out, "  (*: the figure above)\n");
}

static void fig_fields(FILE *out, const struct xfer_fig *f)
{
	fprintf(out, "\"h2d_bytes\": %llu, \"d2h_bytes\": %llu, \"h2d_transfers\": %llu, "
		"\"d2h_transfers\": %llu, \"h2d_ns\": ", (unsigned long long)f->h2d_bytes,
		(unsigned long long)f->d2h_bytes, (unsigned long long)f->h2d_transfers,
		(unsigned long long)f->d2h_transfers);
	json_number(out, f->h2d_ns);
	fputs(", \"d2h_ns\": ", out);
	json_number(out, f->d2h_ns);
}

void xfer_json(FILE *out, const struct prediction *p)
{
	int first = 1;

	if (!p->residency)
		return;
	fputs(", ", out);
	fig_fields(out, &p->top);
	fprintf(out, ", \"residency_mode\": \"%s\", \"transfers_ns\": ", mode_name(p->xfer_top));
	json_number(out, p->xfer_ns);
	fprintf(out, ", \"host_read_records\": %llu, \"assumed_read_records\": %llu, "
		"\"bounds\": {", (unsigned long long)p->host_read_events,
		(unsigned long long)p->assumed_reads);
	/* optimistic, pessimistic, then exact when known */
	static const int order[] = { RESID_OPTIMISTIC, RESID_PESSIMISTIC, RESID_EXACT };
	for (int i = 0; i < RESID_MODES; i++) {
		const struct xfer_fig *f = &p->xfer[order[i]];
		if (!f->known)
			continue;
		fprintf(out, "%s\"%s\": {", first ? "" : ", ", resid_mode_name[order[i]]);
		first = 0;
		fig_fields(out, f);
		fputs(", \"S_G\": ", out);
		json_number(out, f->S_G);
		fputs(", \"predicted_total_ns\": ", out);
		json_number(out, f->predicted_total_ns);
		fputs("}", out);
	}
	fputs("}", out);
}

void xfer_json_kernel(FILE *out, const struct prediction *p, const struct kernel *k)
{
	if (!p->residency)
		return;
	fprintf(out, ", \"h2d_bytes\": %llu, \"d2h_bytes\": %llu, \"h2d_transfers\": %llu, "
		"\"d2h_transfers\": %llu, \"h2d_ns\": ", (unsigned long long)k->h2d_bytes,
		(unsigned long long)k->d2h_bytes, (unsigned long long)k->h2d_transfers,
		(unsigned long long)k->d2h_transfers);
	json_number(out, k->h2d_ns);
	fputs(", \"d2h_ns\": ", out);
	json_number(out, k->d2h_ns);
}

void xfer_csv(FILE *out, const struct prediction *p)
{
	const struct xfer_fig *f = &p->top;

	if (!p->residency)
		return;
	fprintf(out, "# residency_mode=%s\n# h2d_bytes=%llu\n# d2h_bytes=%llu\n"
		"# h2d_transfers=%llu\n# d2h_transfers=%llu\n# h2d_ns=", mode_name(p->xfer_top),
		(unsigned long long)f->h2d_bytes, (unsigned long long)f->d2h_bytes,
		(unsigned long long)f->h2d_transfers, (unsigned long long)f->d2h_transfers);
	csv_number(out, f->h2d_ns);
	fputs("\n# d2h_ns=", out);
	csv_number(out, f->d2h_ns);
	fputc('\n', out);
	for (int m = 0; m < RESID_MODES; m++) {
		if (!p->xfer[m].known)
			continue;
		fprintf(out, "# %s_S_G=", resid_mode_name[m]);
		csv_number(out, p->xfer[m].S_G);
		fprintf(out, "\n# %s_predicted_total_ns=", resid_mode_name[m]);
		csv_number(out, p->xfer[m].predicted_total_ns);
		fputc('\n', out);
	}
}
