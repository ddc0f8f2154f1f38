/* fl.h - a tiny library whose calls move data through buffers (std.flow's tests) */
#ifndef FL_H
#define FL_H
void produce(double *out, int count);
void transform(const double *in, double *out, int count);
double consume(const double *in, int count);
void tick(int k);
#endif
