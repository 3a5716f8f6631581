/*
 * fuzz_calib.c - libFuzzer over the calibration file's reader
 * (calib_text.c): arbitrary bytes as a calibration, and the same bytes
 * again with their last "crc32" line made right, so that the mutations
 * reach past the CRC check into what it guards.  Beyond "no crash, no
 * sanitizer report": a calibration that reads writes a text that reads back
 * to the same text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../src/core/tl.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s\n", #c); abort(); } } while (0)

static void round_trip(const struct tl_calib *c)
{
    static char a[8192], b[8192];
    struct tl_calib again;
    struct tl_error err;
    size_t n = tl_calib_format(c, a, sizeof a);
    CHECK(n < sizeof a);
    CHECK(tl_calib_parse(a, n, &again, &err) == 0);
    CHECK(tl_calib_format(&again, b, sizeof b) == n && memcmp(a, b, n) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tl_calib c;
    struct tl_error err;
    if (tl_calib_parse((const char *)data, size, &c, &err) == 0)
        round_trip(&c);
    /* the CRC made right: "crc32 " at the start of the last line */
    if (size < 16 || size > 8192 || data[size - 1] != '\n')
        return 0;
    size_t last = size - 1;
    while (last > 0 && data[last - 1] != '\n')
        last--;
    if (size - last < 7 || memcmp(data + last, "crc32 ", 6) != 0)
        return 0;
    char fixed[8192 + 32];
    memcpy(fixed, data, last);
    int k = snprintf(fixed + last, 32, "crc32 %08lx\n",
                     (unsigned long)crc32(0, (const Bytef *)data, (uInt)last));
    if (tl_calib_parse(fixed, last + (size_t)k, &c, &err) == 0)
        round_trip(&c);
    return 0;
}
