/* cs.h - the library test_std_callsite.py calls from known lines */
long cs_work(long n);
long cs_outer(long n);	/* calls cs_work, then adds 1 */
long cs_tail(long n);	/* calls cs_work last: a tail call (a jump) */
