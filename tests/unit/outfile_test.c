/* sources: speedup/lib/util/outfile.c */
/* outfile_test.c - outfile.c: '-o FILE' replaces FILE only once all is written;
 * a failed output leaves FILE as it was and no new file behind; FILE that is an input,
 * or a folder, is refused; /dev/null is written directly; a symlink named FILE is
 * replaced, never the file it points to.  Runs in the current folder (a fresh one). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "input_stub.h"
#include "outfile.h"

/* FILE's text (at most 255 bytes); "" when it cannot be read */
static const char *text(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

static void put(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	fputs(s, f);
	fclose(f);
}

/* files in the current folder whose name starts with '.' (the new files), less . and .. */
static int hidden(void)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

int main(void)
{
	struct outfile o;
	struct stat st;
	char *inputs[] = { "in.csv", "-" };
	mode_t mask = umask(022);

	/* a new file: written whole, private as the runtime's traces are (0600 less the umask) */
	CHECK(outfile_open(&o, "new.csv", inputs, 0) == 0);
	CHECK(o.tmp != NULL);
	fputs("a,b\n", o.f);
	CHECK(access("new.csv", F_OK) != 0);	/* not there until closed */
	CHECK(outfile_close(&o, 1) == 0);
	CHECK_STR(text("new.csv"), "a,b\n");
	CHECK(stat("new.csv", &st) == 0 && (st.st_mode & 0777) == 0600);
	CHECK(hidden() == 0);

	/* an output that fails leaves FILE as it was */
	put("old.csv", "old\n");
	CHECK(outfile_open(&o, "old.csv", inputs, 0) == 0);
	fputs("half", o.f);
	CHECK(outfile_close(&o, 0) == 0);
	CHECK_STR(text("old.csv"), "old\n");
	CHECK(hidden() == 0);

	/* ... and one that succeeds replaces it */
	CHECK(outfile_open(&o, "./old.csv", inputs, 0) == 0);
	fputs("new\n", o.f);
	CHECK(outfile_close(&o, 1) == 0);
	CHECK_STR(text("old.csv"), "new\n");

	/* FILE is an input, under another name: refused, untouched */
	put("in.csv", "input\n");
	CHECK(symlink("in.csv", "link.csv") == 0);
	unit_msgs = 0;
	CHECK(outfile_open(&o, "link.csv", inputs, 2) == -1);
	CHECK(unit_msgs == 1 && strstr(unit_msg, "link.csv:0: is also an input (in.csv)") == unit_msg);
	CHECK_STR(text("in.csv"), "input\n");

	/* a symlink that is no input is replaced by the output, its target left alone */
	CHECK(outfile_open(&o, "link.csv", inputs, 0) == 0);
	fputs("out\n", o.f);
	CHECK(outfile_close(&o, 1) == 0);
	CHECK(lstat("link.csv", &st) == 0 && S_ISREG(st.st_mode));
	CHECK_STR(text("link.csv"), "out\n");
	CHECK_STR(text("in.csv"), "input\n");

	/* a folder */
	CHECK(mkdir("dir", 0755) == 0);
	unit_msgs = 0;
	CHECK(outfile_open(&o, "dir", inputs, 0) == -1);
	CHECK(unit_msgs == 1);
	CHECK_STR(unit_msg, "dir:0: is a folder");

	/* a folder that does not exist: no new file can be made beside FILE */
	unit_msgs = 0;
	CHECK(outfile_open(&o, "nowhere/x.csv", inputs, 0) == -1);
	CHECK(unit_msgs == 1 && strstr(unit_msg, "cannot create a file beside it") != NULL);

	/* /dev/null: written directly, no new file */
	CHECK(outfile_open(&o, "/dev/null", inputs, 0) == 0);
	CHECK(o.tmp == NULL && o.f != NULL);
	fputs("x", o.f);
	CHECK(outfile_close(&o, 1) == 0);
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));

	CHECK(hidden() == 0);
	umask(mask);
	return CHECK_DONE();
}
