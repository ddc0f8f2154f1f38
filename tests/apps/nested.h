/* nested.h - a library whose outer function calls an inner one through the PLT, for
 * tests/tools/test_speedup.py's check that a prediction does not depend on whether the
 * nested calls were wrapped too. */
#ifndef NESTED_H
#define NESTED_H

long nested_inner(long x);
long nested_outer(long n);

#endif
