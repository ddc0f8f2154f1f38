/* device_sweep.h - dyl-model --device NAME -f FUNC: a device's kernel as a model CSV. */
#ifndef DYL_MODEL_DEVICE_SWEEP_H
#define DYL_MODEL_DEVICE_SWEEP_H

#include <stdio.h>

/* Writes on OUT the model of each of the NFUNCS functions FUNCS on device NAME (doc/devices.md):
 * func,work,t_ns along each function's typical call (square matrices, equal lengths).
 * 0; 2 after a message (an unknown device or a function it does not provide). */
int device_sweep(FILE *out, const char *name, const char *const *funcs, int nfuncs);

#endif
