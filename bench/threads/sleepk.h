/* sleepk.h - a "kernel" whose time is its work size and nothing else: sleepk(us) sleeps
 * us microseconds (libsleepk.c).  Sleeping, it takes no CPU: the validation of the
 * timeline prediction (run.py) is immune to the machine's CPU load. */
#ifndef SLEEPK_H
#define SLEEPK_H

void sleepk(long us);

#endif
