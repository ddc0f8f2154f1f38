/* libtwo.c - f@V1 and f@@V2 differ; g has version V9 only; h is missing (two.map) */
int f_v1(int x) { return x + 100; }
int f_v2(int x) { return x + 200; }
int g(int x) { return x + 300; }
__asm__(".symver f_v1, f@V1");
__asm__(".symver f_v2, f@@V2");
