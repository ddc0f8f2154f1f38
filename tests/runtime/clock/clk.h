/* clk.h - the library of test_clock.py */
void sleepy(int us);
int tick(int x);
