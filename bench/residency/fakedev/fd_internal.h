/* fd_internal.h - what fakedev's files share and the program does not see. */
#ifndef FD_INTERNAL_H
#define FD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* fd_mem.c: 1 when [P, P + BYTES) lies inside one live device block */
int fd_is_device(const void *p, size_t bytes);

/* fd_link.c: the link model's time of one transfer (DIR 0 h2d, 1 d2h) of BYTES, 0
 * without FAKEDEV_LINK; the monotonic clock in ns; waiting until NS after T0 (nothing
 * under FAKEDEV_NOWAIT or without a model) */
double fd_link_ns(int dir, size_t bytes);
uint64_t fd_link_now(void);
void fd_link_wait(uint64_t t0, double ns);
/* 1 when fd_link_now reads the thread's CPU time (FAKEDEV_WAIT=cpu) */
int fd_link_cpu_clock(void);

#endif
