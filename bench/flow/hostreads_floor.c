/* hostreads_floor.c - what the kernel alone charges for the way host reads are watched,
 * without dyliberator: a 64 MiB block protected (PROT_NONE), then read all of it under a
 * SIGSEGV handler that opens each page it faults on (one mprotect a page): CPU ms, and
 * us a page.  bench/flow/hostreads.sh runs it beside the wrapper's figures. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <stdint.h>
static double cpu(){struct rusage u;getrusage(RUSAGE_SELF,&u);return (u.ru_utime.tv_sec+u.ru_stime.tv_sec)*1e3+(u.ru_utime.tv_usec+u.ru_stime.tv_usec)/1e3;}
static void h(int s, siginfo_t *si, void *uc){ mprotect((void*)((uintptr_t)si->si_addr & ~4095ul), 4096, PROT_READ|PROT_WRITE); }
int main(){ size_t n=64<<20; double *a=malloc(n); memset(a,1,n); struct sigaction sa={0}; sa.sa_sigaction=h; sa.sa_flags=SA_SIGINFO; sigaction(SIGSEGV,&sa,0);
 char *pa=(char*)(((uintptr_t)a+4095)&~4095ul); size_t len=(n-8192)&~4095ul; double s=0;
 for(int k=0;k<4;k++){ for(size_t i=0;i<n/8;i++) a[i]=k+i; double t0=cpu(); mprotect(pa,len,PROT_NONE); double t1=cpu(); for(size_t i=0;i<n/8;i++) s+=a[i]; double t2=cpu(); for(size_t i=0;i<n/8;i++) a[i]=k; double t3=cpu();
 printf("protect %.1f ms, read with faults %.1f ms (%.2f us/page), refill %.1f ms\n", t1-t0, t2-t1, (t2-t1)*1e3/(len/4096), t3-t2);} printf("%g\n",s);}
