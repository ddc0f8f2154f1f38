/* units_app: calls functions of libmany (tests/generator/test_build_units.py) that lie
 * in different units of a split wrapper: the first, one in the middle, the last. */
#include <stdio.h>

int f0(int x);
int f300(int x);
int f599(int x);

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += f0(i) + f300(i) + f599(i);
	printf("%d\n", s);
	return 0;
}
