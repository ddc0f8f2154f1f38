/* cli.c - --version and the refused option's message, shared by the commands (cli.h). */
#include <stdio.h>
#include <string.h>
#include "cli.h"

#ifndef DYL_VERSION	/* (a build that bypasses the Makefile: the tests' own builds) */
#define DYL_VERSION "unknown"
#endif

const char cli_version[] = DYL_VERSION;

int cli_want_version(int argc, char **argv, const char *prog)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--version") == 0) {
			printf("%s (dyliberator) %s\n", prog, cli_version);
			return 1;
		}
	return 0;
}

/* Is ARG one of the blank-separated words of LIST? */
static int in_list(const char *list, const char *arg)
{
	size_t n = strlen(arg);

	for (const char *p = list; p && *p; p += strcspn(p, " "), p += strspn(p, " "))
		if (strncmp(p, arg, n) == 0 && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

int cli_bad_option(const char *prog, const char *arg, const char *takes_value)
{
	if (in_list(takes_value, arg))
		fprintf(stderr, "%s: a value must follow '%s' (see %s --help)\n", prog, arg, prog);
	else
		fprintf(stderr, "%s: unknown option '%s' (see %s --help)\n", prog, arg, prog);
	return CLI_EXIT_USAGE;
}
