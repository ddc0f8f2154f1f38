/* io.h - a tiny "device" library whose calls hand their own output to I/O from inside
 * the call (issue 24: a library's I/O inside a wrapped call is a host read: a device
 * cannot do I/O, so on a port those bytes come back first).  test_resid_io.py. */
#ifndef IO_H
#define IO_H
/* buf[i] = (i + seed) % 255 + 1 for i < n (never what the seed before left) */
void fill(unsigned char *buf, long n, int seed);
/* fill, then write(2) all of buf to FD: what write returned */
long fill_send(unsigned char *buf, long n, int seed, int fd);
/* write(2) buf[0, n) to FD */
long send_buf(const unsigned char *buf, long n, int fd);
/* fwrite buf[0, n) to stdout, then fflush it */
long send_file(const unsigned char *buf, long n);
#endif
