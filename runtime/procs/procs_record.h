/* procs_record.h - what runtime/procs/'s files share. */
#ifndef DYL_PROCS_RECORD_H
#define DYL_PROCS_RECORD_H

/* Does this process record process events now?  Never from the runtime's own calls
 * (dyl_busy), nor before the runtime is set up, nor where it records nothing. */
HIDDEN int dyl_procs_recording(void);

#endif
