/* report_graph.c - the flow graph, drawn by the dyl-flow beside this command
 * (report_graph.h).  It runs as a child with no shell (a trace's path is never parsed),
 * into a temporary file; its SVG is put inline without its XML prologue, its DOCTYPE
 * and its namespaces (HTML needs none, and the page must name no URL). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dyl_flow.h"
#include "report_graph.h"

/* bin/dyl-flow, beside this command, in BUF; NULL when not found. */
static const char *flow_command(char *buf, size_t room)
{
	ssize_t n = readlink("/proc/self/exe", buf, room - 16);
	char *slash;

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	if (!(slash = strrchr(buf, '/')))
		return NULL;
	strcpy(slash + 1, "dyl-flow");
	return access(buf, X_OK) == 0 ? buf : NULL;
}

/* Runs dyl-flow --svg TMP on R's traces.  0 when it drew. */
static int run_flow(const char *cmd, const char *tmp, const struct report *r)
{
	const char **argv = calloc((size_t)r->nprocs + 4, sizeof(*argv));
	int status = -1;
	pid_t pid;

	if (!argv)
		return -1;
	argv[0] = cmd;
	argv[1] = "--svg";
	argv[2] = tmp;
	for (int i = 0; i < r->nprocs; i++)
		argv[3 + i] = r->procs[i].path;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execv(cmd, (char *const *)argv);
		_exit(127);
	}
	free(argv);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* SVG TEXT from its <svg tag on, the namespace attributes of that tag left out. */
static void put_inline(FILE *out, const char *text)
{
	const char *s = strstr(text, "<svg"), *close;

	if (!s || !(close = strchr(s, '>')))
		return;
	for (const char *p = s; p < close;) {
		if (strncmp(p, " xmlns", 6) == 0) {	/* ' xmlns[:x]="..."' */
			const char *q = strchr(p, '"');
			q = q && q < close ? strchr(q + 1, '"') : NULL;
			if (q && q < close) {
				p = q + 1;
				continue;
			}
		}
		fputc(*p++, out);
	}
	fputs(close, out);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	if (!f)
		return NULL;
	if ((mem = open_memstream(&buf, &len))) {
		char chunk[65536];
		size_t n;
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fwrite(chunk, 1, n, mem);
		fclose(mem);
	}
	fclose(f);
	return buf;
}

int graph_svg(FILE *out, const struct report *r, const char **why)
{
	char cmd[4096], tmp[] = "/tmp/dyl-report-graph-XXXXXX";
	char path[4200];
	int fd;

	for (int i = 0; i < r->nprocs; i++) {
		snprintf(path, sizeof(path), "%s%s", r->procs[i].path, DYL_FLOW_SUFFIX);
		if (access(path, R_OK) != 0) {
			*why = "no TRACE.flow beside the trace (record with -g std.flow)";
			return -1;
		}
	}
	if (!flow_command(cmd, sizeof(cmd))) {
		*why = "no dyl-flow beside dyl-speedup";
		return -1;
	}
	if ((fd = mkstemp(tmp)) < 0) {
		*why = "no temporary file";
		return -1;
	}
	close(fd);
	char *svg = run_flow(cmd, tmp, r) == 0 ? slurp(tmp) : NULL;
	unlink(tmp);
	if (!svg || !strstr(svg, "<svg")) {
		free(svg);
		*why = "dyl-flow --svg drew nothing (Graphviz's dot missing? Debian: graphviz)";
		return -1;
	}
	put_inline(out, svg);
	free(svg);
	return 0;
}
