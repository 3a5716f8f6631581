/*
 * timing.h - what the speed harnesses share (bench.c, sweep.c): a clock,
 * medians, buffers allocated as numpy allocates large arrays, and a block
 * of timed runs after a warm-up.
 */
#ifndef TL_TIMING_H
#define TL_TIMING_H

#include <stdint.h>
#include <stddef.h>

#define MIN_RUNS 7
#define MIN_BLOCK 0.2          /* seconds */
#define MAX_RUNS 512

/* Seconds on the monotonic clock. */
double now(void);

/* The median of v[0 .. n) (v is sorted). */
double median(double *v, int n);

/* n bytes on a 2 MiB boundary, with transparent huge pages above 4 MiB (as
 * numpy's allocator asks for them), every page faulted in.  Free with
 * unbig().  Exits with status 2 when there is no memory. */
void *big(uint64_t n);
void unbig(void *p, uint64_t n);

/* The median time of fn(ctx) over a block of at least MIN_RUNS runs and
 * MIN_BLOCK seconds, after a warm-up run. */
typedef void (*timed_fn)(void *ctx);
double block(timed_fn fn, void *ctx);

#endif
