/* device.h - a real accelerator described by its published figures (models/devices/NAME.csv,
 * doc/devices.md): peak rates per precision and unit, memory bandwidth, launch latency,
 * efficiency curves and its link to the host.  A kernel's time on it is
 *   launch + max(work / (peak x eff(work)), bytes / (bandwidth x mem_eff(bytes)))
 * with work the trace's work column (flops) and bytes the call's in_bytes + out_bytes. */
#ifndef SPEEDUP_DEVICE_H
#define SPEEDUP_DEVICE_H

#include <stddef.h>

#define DEVICE_HEADER "item,precision,unit,size,value,source"
#define DEVICE_MAX_POINTS 16

/* The precisions (s, d; c and z use s and d's units) and the units of a kernel. */
enum dev_prec { PREC_S, PREC_D, PREC_C, PREC_Z, PRECS };
enum dev_unit { UNIT_VECTOR, UNIT_MATRIX, UNITS };
/* What bounds a kernel's time: the larger of its parts. */
enum dev_bound { BOUND_COMPUTE, BOUND_MEMORY, BOUND_LAUNCH, BOUNDS };
extern const char *const dev_bound_name[BOUNDS];

/* An efficiency curve: fractions of peak at sizes, linear in ln(size) between points,
 * the end values beyond them. */
struct dev_curve {
	double size[DEVICE_MAX_POINTS], frac[DEVICE_MAX_POINTS];
	int n;
};

struct device {
	char name[64];		/* NAME, as in models/devices/NAME.csv */
	char title[128];	/* the 'name' row: what it is */
	char link[64];		/* the link model, models/LINK.csv; "": none (the host) */
	char path[4096];	/* the description file */
	double peak[2][UNITS];	/* flop/s by s/d and unit; 0: not given */
	double bandwidth;	/* memory, bytes/s */
	double capacity;	/* memory, bytes */
	double launch_ns;
	struct dev_curve eff[2][UNITS];	/* by s/d and unit */
	struct dev_curve mem_eff;
};

/* A function the device's libraries provide: its precision and unit; its shape (for
 * dyl-model: work and bytes along a typical call of size n). */
struct dev_kernel {
	enum dev_prec prec;
	enum dev_unit unit;
	int level;		/* 1, 2, 3 (BLAS; LAPACK counts 3), 4: FFT */
};

/* NAME's class, from the function's name (dgemm_, cblas_dgemm, dgetrf_, fftw_execute...).
 * 0 when the device libraries provide it, -1 when not. */
int dev_kernel_of(const char *name, struct dev_kernel *k);

/* Loads device NAME (a name in the devices folder, or a path to a .csv) into D.  0; -1
 * after a message; 1 when NAME is not a known device (nothing printed). */
int device_load(const char *name, struct device *d);
/* The folder of the shipped descriptions: ../models/devices beside the command, or
 * ../lib/dyliberator/models/devices (make install). */
const char *device_dir(void);
/* Prints one line on stderr: the unknown NAME and the known devices. */
void device_unknown(const char *name);
/* The link model's path (models/LINK.csv, beside the devices folder), in BUF. */
const char *device_link_path(const struct device *d, char *buf, size_t size);

/* K's time on D for WORK flops and BYTES moved, in ns; *BOUND says what bounds it. */
double device_time(const struct device *d, const struct dev_kernel *k, double work,
		   double bytes, enum dev_bound *bound);

#endif
