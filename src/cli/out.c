/* out.c - messages and the printers shared by the commands. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_emit(const char *head, const char *fmt, va_list ap, const char *tail)
{
    /* one write(2) a message: stderr is unbuffered, and threads (a sharded
     * model's shards) may speak at once */
    char small[1024], *buf = small;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (buf = malloc((size_t)n + 1)))
        vsnprintf(buf, (size_t)n + 1, fmt, again);
    va_end(again);
    if (!buf)
        buf = small;                    /* cut short rather than lost */
    fprintf(stderr, "%s%s%s", head, buf, tail);
    if (buf != small)
        free(buf);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_emit("tensorlayout: ", fmt, ap, "\n");
    va_end(ap);
}

int cli_oom(void)
{
    cli_error("out of memory");
    return CLI_IO;
}

void cli_report(const char *file, const struct tl_error *err)
{
    char at[32] = "";
    if (err->line > 0)
        snprintf(at, sizeof at, "%d:%d:", err->line, err->col);
    cli_error("%s:%s%s%s%s %s", file, at, err->key[0] ? " " : "", err->key,
              err->key[0] ? ":" : "", err->msg);
}

void cli_report_errno(const char *file, const char *what)
{
    /* a full disk reads the same whichever way the output was written
     * (write(), or a page of a mapping: see atomic.c) */
    const char *why = errno == ENOSPC ? "no space left on the file system" : strerror(errno);
    cli_error("%s: %s: %s", file, what, why);
}

void cli_problem_text(const struct tl_problem *p, char *buf, size_t n)
{
    unsigned long long a = p->a, b = p->b;
    switch (p->code) {
    case TL_P_SIZE_UINT:
    case TL_P_STRIDE_UINT:
        if (p->derived)     /* a value nobody wrote: say what it is */
            snprintf(buf, n, "%s, %llu, is above DirectML's limit of %llu", p->key, a, b);
        else
            snprintf(buf, n, "%s: %llu is above DirectML's limit of %llu", p->key, a, b);
        break;
    case TL_P_TOO_MANY_ELEMS:
        snprintf(buf, n, "%s: the buffer holds %llu elements, above DirectML's limit of %llu",
                 p->key, a, b);
        break;
    case TL_P_TOTAL_SMALL:
        snprintf(buf, n, "%s: %llu is below the minimum implied size of %llu", p->key, a, b);
        break;
    case TL_P_TOTAL_ALIGN:
        snprintf(buf, n, "%s: %llu is not a multiple of %llu", p->key, a, b);
        break;
    case TL_P_ALIGNMENT:
        snprintf(buf, n, "%s: %llu is not a power of two >= the element size (%llu)",
                 p->key, a, b);
        break;
    case TL_P_OFFSET_ALIGN:
        snprintf(buf, n, "%s: %llu is not a multiple of %llu", p->key, a, b);
        break;
    case TL_P_DATA_SHORT:
        snprintf(buf, n, "%s: the file has %llu bytes but DirectML needs %llu "
                 "(totalTensorSizeInBytes)", p->key, a, b);
        break;
    case TL_P_DTYPE_NOT_DML:
        snprintf(buf, n, "%s: %s is not a DirectML data type", p->key,
                 tl_dtype_name((enum tl_dtype)p->a));
        break;
    default:
        snprintf(buf, n, "%s: unknown problem", p->key);
    }
}

void cli_print_u64_list(FILE *f, const uint64_t *v, unsigned n, const char *sep)
{
    for (unsigned i = 0; i < n; i++)
        fprintf(f, "%s%" PRIu64, i ? sep : "", v[i]);
}

const char *cli_u64_text(const uint64_t *v, unsigned n, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < n && at < len; i++) {
        int w = snprintf(buf + at, len - at, "%s%" PRIu64, i ? "," : "", v[i]);
        at += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

int cli_print_json(cJSON *doc)
{
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;   /* one line: SPEC 23 */
    cJSON_Delete(doc);
    if (!text) {
        cli_oom();
        return CLI_IO;
    }
    fputs(text, stdout);
    fputc('\n', stdout);
    free(text);
    return CLI_OK;
}

int cli_finish_output(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_report_errno("<stdout>", "cannot write");
        return CLI_IO;
    }
    return status;
}

const char *cli_value_json(enum tl_dtype dt, const void *p, char *buf, size_t n)
{
    /* a float exactly (SPEC 19): its value as a double, the shortest text
     * that reads back to that double, as numpy's tolist() gives it (a
     * FLOAT16 0.1 is 0.0999755859375), and -0.0 kept */
    if (tl_dtype_is_float(dt)) {
        double v;
        tl_convert_value(dt, p, TL_DT_FLOAT64, &v);
        if (isnan(v) || isinf(v)) {     /* into buf too: callers print buf */
            snprintf(buf, n, "%s", isnan(v) ? "\"NaN\"" : v < 0 ? "\"-Infinity\"" : "\"Infinity\"");
            return buf;
        }
        if (v == 0 && signbit(v)) {
            snprintf(buf, n, "-0.0");
            return buf;
        }
        tl_dtype_format(TL_DT_FLOAT64, &v, buf, n);
    } else {
        tl_dtype_format(dt, p, buf, n);
    }
    return buf;
}

int cli_count_one(const uint64_t *idx, void *count)
{
    (void)idx;
    ++*(uint64_t *)count;
    return 0;
}

/* The optimal string alignment distance of a and b (edits: insert, delete,
 * replace, swap two neighbours), or limit + 1 when more than limit. */
static size_t edits(const char *a, const char *b, size_t limit)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64 || (n > m ? n - m : m - n) > limit)
        return limit + 1;
    size_t d[65][65];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < c)
                c = d[i - 2][j - 2] + 1;
            d[i][j] = c;
        }
    }
    return d[n][m];
}

const char *cli_did_you_mean(const char *name, const char *const *names, size_t n,
                             size_t stride)
{
    const char *best = NULL;
    size_t len = strlen(name), limit = len < 4 ? 0 : len < 10 ? 1 : 2, top = limit + 1;
    for (size_t i = 0; i < n; i++) {
        const char *c = *(const char *const *)((const char *)names + i * stride);
        size_t e = c ? edits(name, c, limit) : top;
        if (e < top) {
            top = e;
            best = c;
        }
    }
    return best;
}
