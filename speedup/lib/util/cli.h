/* cli.h - what every command's command line has in common: --version, and the one
 * wording of a refused option ("dyl-trace: unknown option '--foo' (see dyl-trace
 * --help)", exit 2).  The version is the file VERSION at the top of the checkout,
 * given by the Makefile as -DDYL_VERSION. */
#ifndef SPEEDUP_CLI_H
#define SPEEDUP_CLI_H

/* The exit status of bad usage, the same in every command. */
#define CLI_EXIT_USAGE 2

/* "0.9.0": what --version prints, and every JSON output's first key, "version". */
extern const char cli_version[];

/* When ARGV holds --version (before a "--"): "PROG (dyliberator) VERSION" on stdout, 1.
 * Else 0. */
int cli_want_version(int argc, char **argv, const char *prog);

/* ARG refused by PROG's parser, on one line of stderr: "a value must follow 'ARG'" when
 * ARG is one of TAKES_VALUE (options that take a value, blank-separated, or NULL), else
 * "unknown option 'ARG'"; both end "(see PROG --help)".  Returns CLI_EXIT_USAGE. */
int cli_bad_option(const char *prog, const char *arg, const char *takes_value);

#endif
