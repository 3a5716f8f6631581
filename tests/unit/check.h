/* check.h - the unit tests' assertions: print file:line, count, go on. */
#ifndef TL_CHECK_H
#define TL_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

extern int check_failures;

#define CHECK(c) do { if (!(c)) { check_failures++; \
    fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); } } while (0)

#define CHECK_EQ_U64(a, b) do { uint64_t a_ = (a), b_ = (b); if (a_ != b_) { check_failures++; \
    fprintf(stderr, "%s:%d: %s is %" PRIu64 ", expected %" PRIu64 "\n", __FILE__, __LINE__, \
            #a, a_, b_); } } while (0)

#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); if (strcmp(a_, b_) != 0) { \
    check_failures++; fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", \
                              __FILE__, __LINE__, #a, a_, b_); } } while (0)

/* The iterations of a randomized check: its full count under
 * TL_UNIT_FULL=1 (make test-exhaustive), a tenth of it otherwise (main.c). */
long check_iterations(long full);

/* A test is a void function; tests.h lists them. */
typedef void (*test_fn)(void);
struct test { const char *name; test_fn fn; };

#endif
