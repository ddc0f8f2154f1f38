/* maps.c - the names of mapping objects: a file mapping by its file's path.
 *
 * An mmap'ed file's path is read when the mapping is added (hooks.c's added hook calls
 * dyl_flow_map_added), from /proc/self/map_files/START-END: one readlink, no parsing of
 * /proc/self/maps, and only for mappings (rare next to malloc).  An anonymous mapping
 * has no entry there: it keeps its mmap call site as its name (the reader names it so).
 * At exit finish.c asks dyl_flow_map_name for an object's name by its region id; a mapping
 * whose path was not kept (the table full, or made before std.flow began) is looked up
 * again there if it is still mapped.
 *
 * The table is fixed (MAPS entries, filled under a spin lock, never freed): the
 * runtime allocates nothing here, since this runs inside the program's mmap.  Past it,
 * file mappings are named by their site, as anonymous ones are.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "flow.h"
#include "../regions/regions.h"

#define MAPS 128
#define PATH_ROOM 240

static struct maps {
	int lock;
	unsigned n;
	struct map_name {
		uint64_t id;
		char path[PATH_ROOM];
	} e[MAPS];
} maps;

/* the file mapped at [START, START + N): its path's length (0: none, anonymous) */
static size_t mapped_file(uintptr_t start, uint64_t n, char *out, size_t room)
{
	char link[64];

	snprintf(link, sizeof(link), "/proc/self/map_files/%lx-%lx", (unsigned long)start,
		 (unsigned long)(start + n));
	ssize_t len = readlink(link, out, room - 1);
	if (len <= 0 || out[0] != '/')
		return 0;
	out[len] = 0;
	return (size_t)len;
}

void dyl_flow_map_added(uintptr_t start, uint64_t n, uint64_t id)
{
	char path[PATH_ROOM];

	if (!mapped_file(start, (n + 4095) & ~(uint64_t)4095, path, sizeof(path)))
		return;
	dyl_spin_lock(&maps.lock);
	if (maps.n < MAPS) {
		maps.e[maps.n].id = id;
		memcpy(maps.e[maps.n].path, path, sizeof(path));
		maps.n++;
	}
	dyl_spin_unlock(&maps.lock);
}

size_t dyl_flow_map_name(uint64_t id, uint64_t start, uint64_t size, char *out, size_t room)
{
	size_t len = 0;

	dyl_spin_lock(&maps.lock);
	for (unsigned i = 0; i < maps.n; i++)
		if (maps.e[i].id == id) {
			len = strnlen(maps.e[i].path, sizeof(maps.e[i].path));
			if (len >= room)
				len = room - 1;
			memcpy(out, maps.e[i].path, len);
			break;
		}
	dyl_spin_unlock(&maps.lock);
	if (!len && room > 1) {	/* still mapped at exit? */
		char path[PATH_ROOM];
		len = mapped_file((uintptr_t)start, (size + 4095) & ~(uint64_t)4095, path, sizeof(path));
		if (len >= room)
			len = room - 1;
		memcpy(out, path, len);
	}
	return len;
}
