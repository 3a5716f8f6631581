/*
 * main.c - runs every unit test; the last line is "N passed, N failed".
 * Before it, the three slowest tests and their seconds, so that the cost of
 * what is added shows.  TL_UNIT_FULL=1 runs every randomized check its full
 * count (make test-exhaustive): ten times what the suite runs by default.
 */
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "tests.h"

int check_failures;

long check_iterations(long full)
{
    const char *all = getenv("TL_UNIT_FULL");
    return all && strcmp(all, "1") == 0 ? full : full / 10;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
    static const struct test tests[] = {
#define X(name) { #name, name },
        TL_TEST_LIST(X)
#undef X
    };
    enum { NT = sizeof tests / sizeof tests[0] };
    double took[NT];
    int passed = 0, failed = 0;
    for (size_t i = 0; i < NT; i++) {
        int before = check_failures;
        double t0 = now();
        tests[i].fn();
        took[i] = now() - t0;
        if (check_failures == before) {
            passed++;
        } else {
            failed++;
            fprintf(stderr, "FAIL %s\n", tests[i].name);
        }
    }
    for (int k = 0; k < 3; k++) {
        size_t slow = 0;
        for (size_t i = 1; i < NT; i++) {
            if (took[i] > took[slow])
                slow = i;
        }
        printf("unit: slowest: %.2f s %s\n", took[slow], tests[slow].name);
        took[slow] = -1;
    }
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
