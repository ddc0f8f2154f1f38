/* flow_syms.h - names for a TRACE.flow's addresses, made offline (flow_syms.c): the
 * process wrote its module table (MODULE records: path, build ID, load bias, range)
 * and raw addresses; this names them from the files with libdw, as perf does.
 * Names are as the runtime made them before (doc/specs/flow.md): a site's frames
 * "func (file.c:12)", else func+0xoff, else object+0xoff; a static by its symbol; a
 * stack object "func:var", else "func frame". */
#ifndef SPEEDUP_FLOW_SYMS_H
#define SPEEDUP_FLOW_SYMS_H

#include <stddef.h>
#include <stdint.h>

struct flow_syms;

struct flow_syms *flow_syms_new(void);
void flow_syms_free(struct flow_syms *s);
/* Adds a module (PATH and BUILD_ID are copied).  0; -1 out of memory; -2 past
 * FLOW_SYMS_MAX modules (a process has hundreds: a damaged file, each address would be
 * looked for among all) */
#define FLOW_SYMS_MAX 65536
int flow_syms_module(struct flow_syms *s, uint64_t bias, uint64_t lo, uint64_t hi, const char *path,
		     size_t path_len, const unsigned char *build_id, size_t build_id_len);
/* Each writes a name of at most ROOM bytes (no NUL) into OUT and returns its length;
 * 0 when the address's file cannot be read (the caller keeps the raw name).
 * A site: NPC return addresses, innermost first (the frames above main dropped). */
size_t flow_syms_site(struct flow_syms *s, const uint64_t *pc, unsigned npc, char *out, size_t room);
/* The function around the return address PC alone (a flame graph's frame: no line,
 * no offset), else object+0xoff; *IS_MAIN: it is main.  (dyl-trace folded) */
size_t flow_syms_func(struct flow_syms *s, uint64_t pc, char *out, size_t room, int *is_main);
/* The path of the module that holds ADDR, as the process had it; NULL: none */
const char *flow_syms_path(struct flow_syms *s, uint64_t addr);
/* the static object at ADDR */
size_t flow_syms_static(struct flow_syms *s, uint64_t addr, char *out, size_t room);
/* the stack object at START in the frame of the function at IP (a return address)
 * whose CFA is CFA */
size_t flow_syms_stack(struct flow_syms *s, uint64_t ip, uint64_t cfa, uint64_t start, char *out,
		       size_t room);

#endif
