/* firstcall: the first and the second call of 10 libcrypto functions, each timed with
 * clock_gettime(CLOCK_MONOTONIC), or with "cpu" the thread's CPU time (what a preemption
 * on a busy machine does not inflate; a system call itself, ~1 us here); prints
 * "NAME first_ns second_ns" a line.  Run plain and
 * with a wrapper preloaded (bench/firstcall/run.sh): what a wrapper adds to a first call
 * beyond what it adds to a later one. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/bn.h>
#include <openssl/objects.h>

static clockid_t clock_id = CLOCK_MONOTONIC;

static int64_t now(void)
{
	struct timespec t;
	clock_gettime(clock_id, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static volatile uintptr_t sink;

/* Runs CALL twice, timing each. */
#define TWICE(name, call) do {						\
		int64_t t[3];						\
		t[0] = now(); sink += (uintptr_t)(call);		\
		t[1] = now(); sink += (uintptr_t)(call);		\
		t[2] = now();						\
		printf("%s %lld %lld\n", name, (long long)(t[1] - t[0]),	\
		       (long long)(t[2] - t[1]));			\
	} while (0)

int main(int argc, char **argv)
{
	unsigned char buf[64];
	memset(buf, 1, sizeof(buf));
	if (argc > 1 && !strcmp(argv[1], "cpu"))
		clock_id = CLOCK_THREAD_CPUTIME_ID;
	now();	/* clock_gettime's own first call (the vDSO) is not counted */
	TWICE("OpenSSL_version_num", OpenSSL_version_num());
	TWICE("OPENSSL_version_major", OPENSSL_version_major());
	TWICE("ERR_peek_error", ERR_peek_error());
	TWICE("ERR_get_error", ERR_get_error());
	TWICE("OPENSSL_cleanse", (OPENSSL_cleanse(buf, sizeof(buf)), 0));
	TWICE("CRYPTO_memcmp", CRYPTO_memcmp(buf, buf + 32, 32));
	TWICE("OBJ_nid2sn", OBJ_nid2sn(NID_sha256));
	TWICE("EVP_sha256", EVP_sha256());
	TWICE("BN_value_one", BN_value_one());
	TWICE("OPENSSL_strnlen", OPENSSL_strnlen("abcdef", 6));
	return 0;
}
