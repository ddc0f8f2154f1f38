/* chrome_app.c - threads that name themselves and sleep in libtiny (tests/apps/tiny.h),
 * for tests/tools/test_chrome_predicted.py: each call's time is its argument, so a model
 * of work = microseconds says what the predicted timeline must be.
 *
 *   chrome_app    main names itself "chrome-main", sleeps 1 ms twice; two threads,
 *                 "worker-1" and "worker 2" (a blank), sleep 2 ms three times each
 *                 (set one after another: the second starts when the first is joined)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "tiny.h"

static void *worker(void *arg)
{
	int n = (int)(intptr_t)arg;

	pthread_setname_np(pthread_self(), n == 1 ? "worker-1" : "worker 2");
	for (int i = 0; i < 3; i++)
		tiny_sleep_us(2000);
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_setname_np(pthread_self(), "chrome-main");
	tiny_sleep_us(1000);
	for (int n = 1; n <= 2; n++) {
		if (pthread_create(&t, NULL, worker, (void *)(intptr_t)n) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	tiny_sleep_us(1000);
	puts("done");
	return 0;
}
