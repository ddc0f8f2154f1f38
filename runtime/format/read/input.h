/* input.h - reading the CSV files dyl-speedup is given: whole files in memory, line by
 * line, split into fields, numbers parsed by hand; and the one-line messages that name
 * FILE:LINE.  Shared by the trace and the model readers. */
#ifndef DYL_READ_INPUT_H
#define DYL_READ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* The command named at the start of every message ("dyl-speedup", "dyl-trace"). */
extern const char *input_prog;
/* What a directory given as input is not ("trace or a model", "trace"). */
extern const char *input_what;

/* A file's bytes: mapped when it is a regular file, else read (a pipe, /dev/stdin). */
struct input_file {
	const char *path;
	const char *data;
	size_t size;
	int mapped;
};

/* PATH's bytes in F: "-" (or /dev/stdin) is stdin, read to its end; any other path must
 * be a regular file (a FIFO or a device would hang or never end).  input_open is for
 * what the user names, which may be a symbolic link; input_open_beside for a file found
 * beside another (a trace's .flow), never followed through a symbolic link.  0, or -1
 * after one message naming PATH. */
int input_open(struct input_file *f, const char *path);
/* PATH itself, or, for a relative models/... or examples/... path that is not here, the
 * shipped file: beside the command (bin/../PATH in the checkout) or where make install
 * put it (bin/../lib/dyliberator/PATH).  So --help's examples work from any folder. */
const char *input_shipped(const char *path);
int input_open_beside(struct input_file *f, const char *path);

/* PATH opened for reading without waiting, when it is a regular file (BESIDE: not a
 * symbolic link, O_NOFOLLOW): the fd, its stat in *ST.  -1 with errno set (ENOENT: no
 * such file; ELOOP: a symbolic link), or INPUT_NOT_REGULAR (*ST says what it is). */
#define INPUT_NOT_REGULAR (-2)
struct stat;
int input_open_regular(const char *path, int beside, struct stat *st);
/* Why input_open_regular failed (its RC, errno ERR), as the end of a message. */
const char *input_open_why(int rc, int err, const struct stat *st);
void input_close(struct input_file *f);

/* Line by line over a file; LINENO counts from 1.  Lines keep no '\n' and no '\r'. */
struct input_lines {
	const char *p, *end;
	unsigned long lineno;
};

void input_lines_init(struct input_lines *it, const struct input_file *f);
int input_next_line(struct input_lines *it, const char **line, size_t *len);

/* A field of a CSV line: a view into the line.  QUOTED fields are the text between
 * the quotes, still with "" for each quote (csv_unquote turns them into one). */
struct csv_field {
	const char *s;
	uint32_t len;
	uint32_t quoted;
};

/* Splits LINE into at most MAX fields; returns the number of fields the line has
 * (which may be more than MAX: then only MAX are filled in). */
int csv_split(const char *line, size_t len, struct csv_field *fields, int max);
/* The field's text in a new NUL-terminated string, or NULL when out of memory. */
char *csv_strdup(const struct csv_field *f);

/* Non-negative integer parsing.  Returns one of: */
enum {
	NUM_OK = 0,
	NUM_EMPTY,
	NUM_NEGATIVE,
	NUM_NOT_A_NUMBER,
	NUM_TOO_LARGE,
};
int parse_u64(const struct csv_field *f, uint64_t *out);
/* A non-negative finite decimal number (models may say 1.5e3). */
int parse_double(const struct csv_field *f, double *out);
/* Why parse_* refused FIELD (named NAME), as a message for input_error. */
void input_number_error(const char *path, unsigned long lineno, const char *name,
			const struct csv_field *f, int why);

/* "dyl-speedup: FILE:LINE: message" on stderr (LINE 0: no line). */
void input_error(const char *path, unsigned long lineno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void input_warning(const char *path, unsigned long lineno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Does LINE (LEN bytes) begin with the columns in PREFIX, followed by ',' or nothing? */
int input_header_is(const char *line, size_t len, const char *prefix);

#endif
