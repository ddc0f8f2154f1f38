/* thread_record.h - what runtime/threads/'s files share. */
#ifndef DYL_THREAD_RECORD_H
#define DYL_THREAD_RECORD_H

#include <stdint.h>
#include <sys/types.h>
#include "internal.h"

/* One thread event of this thread (struct dyl_event's fields) into the spool, with
 * dyl_busy up, errno kept and cancellation held off. */
HIDDEN void dyl_threads_record(uint32_t kind, pid_t parent, uint32_t on, uint64_t handle,
			       uint64_t t1, uint64_t t2);

#endif
