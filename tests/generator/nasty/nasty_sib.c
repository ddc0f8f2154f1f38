/* nasty_sib.c - libnastysib.so, the sibling library: a function nasty.h declares,
 * and a second nasty_add that libnasty.so's shadows. */
int nasty_sib_mul(int a, int b)
{
	return a * b;
}

int nasty_add(int a, int b)
{
	return a + b + 1000;
}
