/* test_calib.c - the calibration's text form: what is written reads back,
 * and every kind of damage is refused with the line it is on. */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "../../src/core/tl.h"
#include "check.h"
#include "tests.h"

void calib_should_read_back_what_it_writes(void)
{
    struct tl_calib a, b;
    struct tl_error err;
    char text[4096];
    tl_calib_default(&a);
    a.measured = true;
    a.seconds = 2.25;
    a.memcpy_gbs[0] = 35.5;
    a.memcpy_gbs[1] = 71;
    a.wake_us = 40.5;
    a.stream_from[TL_CAL_FILL][1] = TL_CAL_NEVER;
    a.threads_from[TL_CAL_GENERAL] = 0;
    a.slot_isa[TL_CAL_F32_F16] = TL_ISA_AVX2;
    a.slot_ratio[TL_CAL_F32_F16] = 0.75;
    size_t n = tl_calib_format(&a, text, sizeof text);
    CHECK(n > 0 && n < sizeof text);
    CHECK(tl_calib_parse(text, n, &b, &err) == 0);
    CHECK_STR(b.cpu, a.cpu);
    CHECK(b.measured && b.cpus == a.cpus && b.seconds == 2.25 && b.memcpy_gbs[1] == 71);
    CHECK(memcmp(b.stream_from, a.stream_from, sizeof a.stream_from) == 0);
    CHECK(memcmp(b.threads_from, a.threads_from, sizeof a.threads_from) == 0);
    CHECK(memcmp(b.threads_at, a.threads_at, sizeof a.threads_at) == 0);
    CHECK(memcmp(b.slot_isa, a.slot_isa, sizeof a.slot_isa) == 0);
    CHECK(b.slot_ratio[TL_CAL_F32_F16] == 0.75);
    CHECK(tl_calib_fits(&b));
    strcpy(b.cpu, "GenuineIntel 6 143 elsewhere");
    CHECK(!tl_calib_fits(&b));
}

/* Damage: the text with one edit, and the error it must give. */
void calib_should_refuse_damage_by_line(void)
{
    struct tl_calib a, b;
    struct tl_error err;
    char text[4096], bad[4096];
    tl_calib_default(&a);
    size_t n = tl_calib_format(&a, text, sizeof text);
    /* cut short: every prefix that ends on a line fails, none crashes */
    for (size_t cut = 0; cut < n; cut++) {
        CHECK(tl_calib_parse(text, cut, &b, &err) == TL_E_VALUE);
        CHECK(strncmp(err.msg, "line ", 5) == 0);
    }
    static const struct { const char *from, *to, *msg; } edits[] = {
        { "cpus ", "cpus x", "line 4: a value that is not a number of the right kind" },
        { "kind rows", "kind rowz", "line 11: a kind of copy not known, or not 3 sizes (and 7 thread levels)" },
        { "slot transpose4 best", "slot transpose4 avx3", "line 17: a value that is not a number of the right kind" },
        { "wake_us", "wake_usx", "line 9: an unknown key" },
        { "tensorlayout-calibration 1", "tensorlayout-calibration 9", "line 1: a calibration of another version" },
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        const char *at = strstr(text, edits[i].from);
        CHECK(at != NULL);
        if (!at)
            continue;
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - text), text, edits[i].to,
                 at + strlen(edits[i].from));
        CHECK(tl_calib_parse(bad, strlen(bad), &b, &err) == TL_E_VALUE);
        CHECK_STR(err.msg, edits[i].msg);
    }
    /* a line given twice (the CRC made anew, so only the twin is wrong) */
    const char *crc = strstr(text, "crc32 ");
    snprintf(bad, sizeof bad, "%.*scpus 2\n", (int)(crc - text), text);
    char *end = bad + strlen(bad);
    snprintf(end, sizeof bad - (size_t)(end - bad), "crc32 %08lx\n", 0ul);
    CHECK(tl_calib_parse(bad, strlen(bad), &b, &err) == TL_E_VALUE);
    /* a changed value with the old CRC */
    snprintf(bad, sizeof bad, "%s", text);
    bad[strstr(bad, "wake_us ") - bad + 8] = '9';
    CHECK(tl_calib_parse(bad, strlen(bad), &b, &err) == TL_E_VALUE);
    CHECK(strstr(err.msg, "the CRC does not match") != NULL);
}

/* A calibration of before the thread levels (kind lines of three sizes)
 * reads, its levels by the rule; levels that fall are refused. */
void calib_should_read_files_of_before_the_levels(void)
{
    struct tl_calib a, b;
    struct tl_error err;
    char text[4096], old[4096];
    tl_calib_default(&a);
    a.threads_from[TL_CAL_FLAT] = 1000;
    tl_calib_levels(&a, 0);
    size_t n = tl_calib_format(&a, text, sizeof text), k = 0;
    /* each kind line cut after its third size, the CRC made anew */
    for (const char *p = text; *p && strncmp(p, "crc32 ", 6) != 0;) {
        const char *eol = strchr(p, '\n');
        size_t len = (size_t)(eol - p) + 1;
        if (strncmp(p, "kind ", 5) == 0) {
            int fields = 0;
            size_t i = 0;
            while (i < len - 1 && fields < 5)
                fields += p[i++] == ' ';
            k += (size_t)snprintf(old + k, sizeof old - k, "%.*s\n", (int)(i - 1), p);
        } else {
            k += (size_t)snprintf(old + k, sizeof old - k, "%.*s", (int)len, p);
        }
        p = eol + 1;
    }
    snprintf(old + k, sizeof old - k, "crc32 %08lx\n", (unsigned long)crc32(0, (const Bytef *)old,
                                                                          (uInt)k));
    CHECK(n > 0 && tl_calib_parse(old, strlen(old), &b, &err) == 0);
    CHECK(memcmp(b.threads_at, a.threads_at, sizeof a.threads_at) == 0);
    CHECK(b.threads_at[TL_CAL_FLAT][0] == 2000 && b.threads_at[TL_CAL_FLAT][2] == 8000);
    /* a level below the one under it */
    a.threads_at[TL_CAL_FLAT][3] = 10;
    n = tl_calib_format(&a, text, sizeof text);
    CHECK(tl_calib_parse(text, n, &b, &err) == TL_E_VALUE);
}

/* A calibration of before the copy slot (no `slot copy` line) reads, that
 * slot at the widest ISA, not raced; one that names it reads it back. */
/* text less its line that starts with `key`, the CRC made anew, into out;
 * false when there is no such line. */
static bool drop_line(const char *text, const char *key, char *out, size_t n)
{
    const char *at = strstr(text, key), *crc = strstr(text, "crc32 ");
    if (!at || !crc || at > crc)
        return false;
    const char *eol = strchr(at, '\n');
    size_t k = (size_t)snprintf(out, n, "%.*s%.*s", (int)(at - text), text,
                                (int)(crc - eol - 1), eol + 1);
    snprintf(out + k, n - k, "crc32 %08lx\n", (unsigned long)crc32(0, (const Bytef *)out, (uInt)k));
    return true;
}

void calib_should_read_files_of_before_the_copy_slot(void)
{
    struct tl_calib a, b;
    struct tl_error err;
    char text[4096], old[4096];
    tl_calib_default(&a);
    a.slot_isa[TL_CAL_COPY] = TL_ISA_SCALAR;
    a.slot_ratio[TL_CAL_COPY] = 0.87;
    size_t n = tl_calib_format(&a, text, sizeof text);
    CHECK(n > 0 && tl_calib_parse(text, n, &b, &err) == 0);
    CHECK(b.slot_isa[TL_CAL_COPY] == TL_ISA_SCALAR && b.slot_ratio[TL_CAL_COPY] == 0.87);
    CHECK(drop_line(text, "slot copy ", old, sizeof old));
    CHECK(strstr(old, "slot copy") == NULL);
    CHECK(tl_calib_parse(old, strlen(old), &b, &err) == 0);
    CHECK(b.slot_isa[TL_CAL_COPY] == TL_ISA_COUNT && b.slot_ratio[TL_CAL_COPY] == 0);
    /* the other slots stay required */
    CHECK(drop_line(old, "slot transpose8 ", text, sizeof text));
    CHECK(tl_calib_parse(text, strlen(text), &b, &err) == TL_E_VALUE);
    CHECK(strstr(err.msg, "a key is missing") != NULL);
}

/* A calibration of before the bands4 kind reads, that kind with
 * transpose4's sizes and thread levels; the other kinds stay required. */
void calib_should_give_files_of_before_the_bands_kind_transpose4s_sizes(void)
{
    struct tl_calib a, b;
    struct tl_error err;
    char text[4096], old[4096];
    tl_calib_default(&a);
    a.stream_from[TL_CAL_TRANSPOSE_WIDE][0] = 5u << 20;
    a.stream_from[TL_CAL_TRANSPOSE_WIDE][1] = 3u << 20;
    a.threads_from[TL_CAL_TRANSPOSE_WIDE] = 1u << 20;
    a.stream_from[TL_CAL_BANDS][0] = 60u << 20;
    a.threads_from[TL_CAL_BANDS] = 2u << 20;
    tl_calib_levels(&a, 0);
    size_t n = tl_calib_format(&a, text, sizeof text);
    CHECK(n > 0 && tl_calib_parse(text, n, &b, &err) == 0);
    CHECK(b.stream_from[TL_CAL_BANDS][0] == 60u << 20 && b.threads_from[TL_CAL_BANDS] == 2u << 20);
    CHECK(drop_line(text, "kind bands4 ", old, sizeof old));
    CHECK(tl_calib_parse(old, strlen(old), &b, &err) == 0);
    CHECK(b.stream_from[TL_CAL_BANDS][0] == 5u << 20 && b.stream_from[TL_CAL_BANDS][1] == 3u << 20);
    CHECK(b.threads_from[TL_CAL_BANDS] == 1u << 20);
    CHECK(memcmp(b.threads_at[TL_CAL_BANDS], a.threads_at[TL_CAL_TRANSPOSE_WIDE],
                 sizeof b.threads_at[0]) == 0);
    /* the other kinds stay required */
    CHECK(drop_line(old, "kind transpose4 ", text, sizeof text));
    CHECK(tl_calib_parse(text, strlen(text), &b, &err) == TL_E_VALUE);
    CHECK(strstr(err.msg, "a key is missing") != NULL);
}

/* A measurement whose two-thread memcpy ran below 0.8 of its one-thread
 * speed was disturbed; the built-in rules and one CPU never are. */
void calib_should_call_two_slow_threads_disturbed(void)
{
    struct tl_calib c;
    tl_calib_default(&c);
    c.cpus = 2;
    c.memcpy_gbs[0] = 19.37;
    c.memcpy_gbs[1] = 9.91;                /* make bench's, Intel family 6 model 207 */
    CHECK(!tl_calib_disturbed(&c));        /* not measured: the rules */
    c.measured = true;
    CHECK(tl_calib_disturbed(&c));
    c.memcpy_gbs[1] = 17.54;               /* tests/calib/intel-xeon-emr-2x.txt: 0.93x */
    CHECK(!tl_calib_disturbed(&c));
    c.memcpy_gbs[1] = 15.4;
    CHECK(tl_calib_disturbed(&c));
    c.cpus = 1;
    CHECK(!tl_calib_disturbed(&c));
}
