/* timing.c - the speed harnesses' clock, medians, buffers and blocks. */
#define _DEFAULT_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

#define HUGE (2u << 20)

static size_t pages(uint64_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return ((size_t)n + pg - 1) / pg * pg;
}

void *big(uint64_t n)
{
    size_t len = (size_t)n + HUGE;
    uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    uint8_t *p = (uint8_t *)(((uintptr_t)m + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    size_t head = (size_t)(p - m), keep = pages(n);
    if (head)
        munmap(m, head);
    if (len - head > keep)
        munmap(p + keep, len - head - keep);
#ifdef MADV_HUGEPAGE
    if (n > (4u << 20))
        madvise(p, (size_t)n, MADV_HUGEPAGE);
#endif
    memset(p, 1, n);                   /* fault every page in before timing */
    return p;
}

void unbig(void *p, uint64_t n)
{
    munmap(p, pages(n));
}

double block(timed_fn fn, void *ctx)
{
    static double t[MAX_RUNS];
    int n = 0;
    fn(ctx);
    double start = now();
    while (n < MAX_RUNS && (n < MIN_RUNS || now() - start < MIN_BLOCK)) {
        double t0 = now();
        fn(ctx);
        t[n++] = now() - t0;
    }
    return median(t, n);
}

