/* tinyrepro.c - tests/runtime/test_sanitizers.py's reproductions of two known races on
 * a process's first call: 'handler' (a signal handler makes it), or none (a second
 * thread, released by a flag the sanitizer cannot see, makes its first call). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "tiny.h"

static int go;

static void *second(void *p)
{
	while (!__atomic_load_n(&go, __ATOMIC_RELAXED))
		;
	return (void *)(long)tiny_add(1, 2);
}

static void on_usr1(int sig)
{
	tiny_add(sig, 1);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "handler")) {
		signal(SIGUSR1, on_usr1);
		raise(SIGUSR1);
		printf("after the handler: %d\n", tiny_add(2, 3));
		return 0;
	}
	pthread_t th;
	void *r;
	pthread_create(&th, NULL, second, NULL);
	printf("first: %d\n", tiny_add(0, 1));
	__atomic_store_n(&go, 1, __ATOMIC_RELAXED);
	pthread_join(th, &r);
	printf("second: %ld\n", (long)r);
	return 0;
}
