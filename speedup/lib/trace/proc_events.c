/* proc_events.c - the process events of a trace (proc_events.h, doc/jobs.md), parsed: the
 * header's '# ppid=' and '# exec_of=', '# procs=recorded', and the '# fork', '# spawn',
 * '# exec', '# waitpid', '# pipe_write' and '# pipe_read' lines.  Fields as in
 * thread_events.c: KEY=VALUE separated by blanks, unknown keys ignored. */
#include <stdlib.h>
#include <string.h>
#include "dyl_keys.h"
#include "grow.h"
#include "input.h"
#include "proc_events.h"
#include "thread_events.h"

/* each kind's line: its word, its keys after tid and call_ns (ret_ns first where it has
 * one), in struct pev's order */
static const struct {
	const char *word;
	const char *keys[4];
	int nkeys;
} kinds[] = {
	[PEV_FORK] = { DYL_KEY_FORK, { DYL_EVENT_CHILD }, 1 },
	[PEV_SPAWN] = { DYL_KEY_SPAWN, { DYL_EVENT_CHILD }, 1 },
	[PEV_EXEC] = { DYL_KEY_EXEC, { 0 }, 0 },
	[PEV_WAITPID] = { DYL_KEY_WAITPID, { DYL_EVENT_RET_NS, DYL_EVENT_PID }, 2 },
	[PEV_PIPE_WRITE] = { DYL_KEY_PIPE_WRITE, { DYL_EVENT_RET_NS, DYL_EVENT_PIPE,
						    DYL_EVENT_BYTES }, 3 },
	[PEV_PIPE_READ] = { DYL_KEY_PIPE_READ, { DYL_EVENT_RET_NS, DYL_EVENT_PIPE,
						  DYL_EVENT_BYTES }, 3 },
};

/* The note NT, a line of KIND, into EV.  0; -1 after a message; -2 out of memory. */
static int add_event(struct proc_events *ev, const struct trace_note *nt, const char *path,
		     enum pev_kind kind)
{
	const char *keys[6] = { DYL_EVENT_TID, DYL_EVENT_CALL_NS };
	int64_t v[6];
	int n = 2 + kinds[kind].nkeys;

	for (int i = 0; i < kinds[kind].nkeys; i++)
		keys[2 + i] = kinds[kind].keys[i];
	if (tev_fields(nt, path, keys, v, n, (1u << n) - 1) != 0)
		return -1;
	int has_ret = kinds[kind].nkeys >= 2;
	if (has_ret && v[2] < v[1]) {
		input_error(path, 0, "'# %.*s': ret_ns is before call_ns",
			    (int)(nt->len < 200 ? nt->len : 200), nt->text);
		return -1;
	}
	if (grow(&ev->ev, sizeof(*ev->ev), ev->nev, &ev->ev_room, 16))
		return -2;
	struct pev *e = &ev->ev[ev->nev++];
	*e = (struct pev){ kind, (uint64_t)v[0], v[1], has_ret ? v[2] : v[1], 0, 0, 0 };
	if (kind == PEV_FORK || kind == PEV_SPAWN)
		e->pid = v[2];
	else if (kind == PEV_WAITPID)
		e->pid = v[3];
	else if (kind == PEV_PIPE_WRITE || kind == PEV_PIPE_READ)
		e->pipe = (uint64_t)v[3], e->bytes = (uint64_t)v[4];
	return 0;
}

/* A header line "KEY=N" (N a number): 0 with *OUT, 1 not this key, -1 after a message. */
static int header_value(const struct trace_note *nt, const char *path, const char *key,
			int64_t *out)
{
	const char *keys[1] = { key };
	size_t k = strlen(key);

	if (nt->len <= k || memcmp(nt->text, key, k) != 0 || nt->text[k] != '=')
		return 1;
	return tev_fields(nt, path, keys, out, 1, 1) == 0 ? 0 : -1;
}

/* One note into EV: 0, -1 after a message, -2 out of memory. */
static int read_note(struct proc_events *ev, const struct trace_note *nt, const char *path)
{
	int64_t v;
	int rc;

	if (tev_starts_with_word(nt->text, nt->len, DYL_KEY_PROCS "=" DYL_THREADS_RECORDED)) {
		ev->recorded = 1;
		return 0;
	}
	if ((rc = header_value(nt, path, DYL_KEY_PPID, &v)) <= 0) {
		ev->ppid = rc == 0 ? v : ev->ppid;
		return rc;
	}
	if ((rc = header_value(nt, path, DYL_KEY_EXEC_OF, &v)) <= 0) {
		ev->exec_of = rc == 0 && v == 1;
		return rc;
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (tev_starts_with_word(nt->text, nt->len, kinds[k].word))
			return add_event(ev, nt, path, (enum pev_kind)k);
	return 0;
}

int proc_events_read(struct proc_events *ev, const struct trace_src *src, const char *path)
{
	memset(ev, 0, sizeof(*ev));
	ev->ppid = -1;
	for (size_t i = 0; i < src->nnotes; i++) {
		int rc = read_note(ev, &src->notes[i], path);
		if (rc == -2)
			input_error(path, 0, "out of memory");
		if (rc < 0) {
			proc_events_free(ev);
			return -1;
		}
	}
	return 0;
}

void proc_events_free(struct proc_events *ev)
{
	free(ev->ev);
	memset(ev, 0, sizeof(*ev));
	ev->ppid = -1;
}
