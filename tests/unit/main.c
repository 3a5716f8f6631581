/* main.c - runs every unit test; the last line is "N passed, N failed". */
#include "check.h"
#include "tests.h"

int check_failures;

int main(void)
{
    static const struct test tests[] = {
#define X(name) { #name, name },
        TL_TEST_LIST(X)
#undef X
    };
    int passed = 0, failed = 0;
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        int before = check_failures;
        tests[i].fn();
        if (check_failures == before) {
            passed++;
        } else {
            failed++;
            fprintf(stderr, "FAIL %s\n", tests[i].name);
        }
    }
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
