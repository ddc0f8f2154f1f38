/*
 * blas.h - C prototypes of the reference Fortran BLAS (Netlib BLAS 3.11: levels 1-3 in
 * s, d, c, z, the auxiliaries and the *sub_ forms CBLAS calls), for dyliberator:
 *
 *     dyliberator --lib /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 --header examples/blas.h
 *
 * One copy of them is kept: the blas profile's header, which says the calling convention
 * (every argument by reference; gfortran on x86-64) and is what the profile's blas.defs
 * reads the arguments by.
 */
#ifndef DYL_EXAMPLE_BLAS_H
#define DYL_EXAMPLE_BLAS_H
#include "../microgens/profiles/blas/blas.h"
#endif /* DYL_EXAMPLE_BLAS_H */
