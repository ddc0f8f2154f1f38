/* libc_some.h - the C library's declarations test_host_reads.py wraps it with (read,
 * write, sigaction, getrandom: interposed by host_reads; close, strlen: not) */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
