/* twin.h - a library built twice, same soname, different code (libtwin.c with
 * TWIN_VARIANT 1 or 2): tests/generator/test_generator_safety.py switches between the two with
 * LD_LIBRARY_PATH to check that the trace names the file really called. */
#ifndef TWIN_H
#define TWIN_H

int twin_step(int x);

#endif
