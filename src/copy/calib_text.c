/*
 * calib_text.c - a calibration's text form (calib.c says what it holds):
 * lines of "key value", a CRC-32 of the rest last, so that a file that was
 * cut, edited or damaged is refused, line by line, not half believed.
 * Apart from calib.c so that the copy core builds without zlib where it
 * is cross-built alone (make test-neon).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "copy.h"

#define CAL_VERSION 1

/* ---- the text form -------------------------------------------------------- */

static const char MAGIC[] = "tensorlayout-calibration";

static void put_size(char *out, size_t n, uint64_t v)
{
    if (v == TL_CAL_NEVER)
        snprintf(out, n, "never");
    else
        snprintf(out, n, "%llu", (unsigned long long)v);
}

size_t tl_calib_format(const struct tl_calib *cal, char *buf, size_t n)
{
    char text[4096];
    size_t len = 0;
#define PUT(...) (len += (size_t)snprintf(text + len, sizeof text - len, __VA_ARGS__))
    PUT("%s %d\n", MAGIC, CAL_VERSION);
    PUT("# %s: `tensorlayout calibrate --help` says what each line means\n",
        cal->measured ? "measured" : "the built-in rules");
    PUT("cpu %s\n", cal->cpu);
    PUT("cpus %u\n", cal->cpus);
    PUT("measured %s\n", cal->measured ? "yes" : "no");
    PUT("seconds %.2f\n", cal->seconds);
    PUT("memcpy %.2f %.2f\n", cal->memcpy_gbs[0], cal->memcpy_gbs[1]);
    PUT("stream %.2f %.2f\n", cal->stream_gbs[0], cal->stream_gbs[1]);
    PUT("wake_us %.1f\n", cal->wake_us);
    for (int k = 0; k < TL_CAL_KINDS; k++) {
        char a[24], b[24], c[24];
        put_size(a, sizeof a, cal->stream_from[k][0]);
        put_size(b, sizeof b, cal->stream_from[k][1]);
        put_size(c, sizeof c, cal->threads_from[k]);
        PUT("kind %s %s %s %s", tl_cal_kind_names[k], a, b, c);
        for (unsigned l = 0; l < TL_CAL_LEVELS; l++) {
            put_size(c, sizeof c, cal->threads_at[k][l]);
            PUT(" %s", c);
        }
        PUT("\n");
    }
    for (int s = 0; s < TL_CAL_SLOTS; s++)
        PUT("slot %s %s %.3f\n", tl_cal_slot_names[s],
            cal->slot_isa[s] == TL_ISA_COUNT ? "best" : tl_isa_name(cal->slot_isa[s]),
            cal->slot_ratio[s]);
    PUT("crc32 %08lx\n", (unsigned long)crc32(0, (const Bytef *)text, (uInt)len));
#undef PUT
    if (n > 0)
        snprintf(buf, n, "%s", text);
    return len;
}

static int bad_line(struct tl_error *err, unsigned line, const char *what)
{
    return tl_fail(err, TL_E_VALUE, NULL, "line %u: %s", line, what);
}

static bool read_size(const char *s, uint64_t *v)
{
    if (strcmp(s, "never") == 0) {
        *v = TL_CAL_NEVER;
        return true;
    }
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9')
        return false;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *v = x;
    return true;
}

static bool read_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return !errno && end != s && !*end && *v >= 0 && *v < 1e12;
}

int tl_calib_parse(const char *text, size_t len, struct tl_calib *cal, struct tl_error *err)
{
    tl_calib_default(cal);
    enum { K_CPU, K_CPUS, K_MEASURED, K_SECONDS, K_MEMCPY, K_STREAM, K_WAKE, K_CRC,
           K_KIND0, K_SLOT0 = K_KIND0 + TL_CAL_KINDS, K_ALL = K_SLOT0 + TL_CAL_SLOTS };
    bool seen[K_ALL] = { false }, levels[TL_CAL_KINDS] = { false };
    unsigned line = 0;
    size_t pos = 0;
    while (pos < len) {
        size_t start = pos, end = pos;
        while (end < len && text[end] != '\n')
            end++;
        pos = end + 1;
        line++;
        char buf[512];
        if (end == len)
            return bad_line(err, line, "the file ends in the middle of a line");
        if (end - start >= sizeof buf)
            return bad_line(err, line, "a line too long");
        memcpy(buf, text + start, end - start);
        buf[end - start] = 0;
        if (memchr(buf, 0, end - start))
            return bad_line(err, line, "a NUL byte");
        if (line == 1) {
            char want[64];
            snprintf(want, sizeof want, "%s %d", MAGIC, CAL_VERSION);
            if (strncmp(buf, MAGIC, sizeof MAGIC - 1) != 0)
                return bad_line(err, line, "not a tensorlayout calibration");
            if (strcmp(buf, want) != 0)
                return bad_line(err, line, "a calibration of another version");
            continue;
        }
        if (buf[0] == '#')
            continue;
        char *sp = strchr(buf, ' ');
        if (!sp)
            return bad_line(err, line, "a key with no value");
        *sp = 0;
        const char *key = buf, *val = sp + 1;
        char f[4 + TL_CAL_LEVELS][64];
        int nf = 0;
        if (strcmp(key, "cpu") != 0) {
            char tmp[512];
            snprintf(tmp, sizeof tmp, "%s", val);
            for (char *tok = strtok(tmp, " "); tok; tok = strtok(NULL, " ")) {
                if (nf == 4 + TL_CAL_LEVELS || strlen(tok) >= sizeof f[0])
                    return bad_line(err, line, "too many values, or one too long");
                snprintf(f[nf++], sizeof f[0], "%s", tok);
            }
        }
        int which = -1;
        bool ok = true;
        if (strcmp(key, "cpu") == 0) {
            which = K_CPU;
            ok = *val && strlen(val) < sizeof cal->cpu;
            if (ok)
                snprintf(cal->cpu, sizeof cal->cpu, "%s", val);
        } else if (strcmp(key, "cpus") == 0) {
            uint64_t v = 0;
            which = K_CPUS;
            ok = nf == 1 && read_size(f[0], &v) && v >= 1 && v <= 65536;
            cal->cpus = (unsigned)v;
        } else if (strcmp(key, "measured") == 0) {
            which = K_MEASURED;
            ok = nf == 1 && (strcmp(f[0], "yes") == 0 || strcmp(f[0], "no") == 0);
            cal->measured = ok && f[0][0] == 'y';
        } else if (strcmp(key, "seconds") == 0) {
            which = K_SECONDS;
            ok = nf == 1 && read_double(f[0], &cal->seconds);
        } else if (strcmp(key, "memcpy") == 0 || strcmp(key, "stream") == 0) {
            double *v = key[0] == 'm' ? cal->memcpy_gbs : cal->stream_gbs;
            which = key[0] == 'm' ? K_MEMCPY : K_STREAM;
            ok = nf == 2 && read_double(f[0], &v[0]) && read_double(f[1], &v[1]);
        } else if (strcmp(key, "wake_us") == 0) {
            which = K_WAKE;
            ok = nf == 1 && read_double(f[0], &cal->wake_us);
        } else if (strcmp(key, "kind") == 0) {
            /* three sizes, then the thread levels' (a file that has none
             * gets the rule's, tl_calib_levels) */
            for (int k = 0; (nf == 4 || nf == 4 + TL_CAL_LEVELS) && k < TL_CAL_KINDS; k++) {
                if (strcmp(f[0], tl_cal_kind_names[k]) == 0) {
                    which = K_KIND0 + k;
                    ok = read_size(f[1], &cal->stream_from[k][0]) &&
                         read_size(f[2], &cal->stream_from[k][1]) &&
                         read_size(f[3], &cal->threads_from[k]);
                    uint64_t under = cal->threads_from[k];
                    for (int l = 0; ok && nf > 4 && l < TL_CAL_LEVELS; l++) {
                        ok = read_size(f[4 + l], &cal->threads_at[k][l]) &&
                             cal->threads_at[k][l] >= under;
                        under = cal->threads_at[k][l];
                    }
                    levels[k] = nf > 4;
                }
            }
            if (which < 0)
                return bad_line(err, line, "a kind of copy not known, or not 3 sizes (and 7 "
                                "thread levels)");
        } else if (strcmp(key, "slot") == 0) {
            for (int s = 0; nf == 3 && s < TL_CAL_SLOTS; s++) {
                if (strcmp(f[0], tl_cal_slot_names[s]) == 0) {
                    enum tl_isa isa = TL_ISA_COUNT;
                    which = K_SLOT0 + s;
                    ok = (strcmp(f[1], "best") == 0 || tl_isa_from_name(f[1], &isa) == 0) &&
                         read_double(f[2], &cal->slot_ratio[s]);
                    cal->slot_isa[s] = isa;
                }
            }
            if (which < 0)
                return bad_line(err, line, "a kernel slot not known, or not ISA and ratio");
        } else if (strcmp(key, "crc32") == 0) {
            char want[16];
            snprintf(want, sizeof want, "%08lx",
                     (unsigned long)crc32(0, (const Bytef *)text, (uInt)start));
            if (nf != 1 || strcmp(f[0], want) != 0)
                return bad_line(err, line, "the CRC does not match: the file was changed");
            which = K_CRC;
            if (pos < len)
                return bad_line(err, line + 1, "lines after the CRC");
        } else {
            return bad_line(err, line, "an unknown key");
        }
        if (!ok)
            return bad_line(err, line, "a value that is not a number of the right kind");
        if (seen[which])
            return bad_line(err, line, "a key given twice");
        seen[which] = true;
    }
    if (line == 0)
        return bad_line(err, 1, "an empty file");
    for (int i = 0; i < K_ALL; i++)
        if (!seen[i] && i != K_SLOT0 + TL_CAL_COPY &&   /* a file of before that slot: best */
            i != K_KIND0 + TL_CAL_BANDS)
            return bad_line(err, line, i == K_CRC ? "no CRC line: the file is cut short"
                                                  : "a key is missing");
    if (!seen[K_KIND0 + TL_CAL_BANDS]) {    /* a file of before that kind: transpose4's */
        enum tl_cal_kind w = TL_CAL_TRANSPOSE_WIDE;
        memcpy(cal->stream_from[TL_CAL_BANDS], cal->stream_from[w], sizeof cal->stream_from[w]);
        cal->threads_from[TL_CAL_BANDS] = cal->threads_from[w];
        levels[TL_CAL_BANDS] = levels[w];
        memcpy(cal->threads_at[TL_CAL_BANDS], cal->threads_at[w], sizeof cal->threads_at[w]);
    }
    for (int k = 0; k < TL_CAL_KINDS; k++) {        /* a file of before the levels */
        if (!levels[k]) {
            struct tl_calib one = *cal;
            tl_calib_levels(&one, 0);
            memcpy(cal->threads_at[k], one.threads_at[k], sizeof one.threads_at[k]);
        }
    }
    return 0;
}
