/* The benchmark's library: as little work per call as a call can be. */
int nop(int x);
