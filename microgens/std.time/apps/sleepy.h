/* sleepy.h - the library of test_std_time.py */
void sleepy(int us);
long spin(long n);
