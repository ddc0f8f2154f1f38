/* tiny.h - a tiny library for the runtime's process tests (tests/runtime/test_process.py). */
#ifndef TINY_H
#define TINY_H

typedef int (*tiny_cb)(int);

int tiny_add(int a, int b);
void tiny_sleep_us(int us);
int tiny_fail_errno(void);
int tiny_inner(int x);
int tiny_outer(int x);
int tiny_apply(tiny_cb cb, int x);

#endif
