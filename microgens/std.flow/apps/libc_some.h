/* libc_some.h - the C library's declarations test_host_reads.py wraps it with (read,
 * write, close: the runtime's own; sigaction, getrandom: interposed by host_reads; strlen:
 * neither) */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
