/* error.c - filling struct tl_error, the one way core code fails. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tl.h"

int tl_fail(struct tl_error *err, int code, const char *key, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    err->line = 0;
    err->col = 0;
    snprintf(err->key, sizeof err->key, "%s", key ? key : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

#include "internal.h"

const char *tl_quote(const char *s, char *buf, size_t n)
{
    size_t o = 0;
    for (; *s && o + 8 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c < 0x7f && c != '\\')
            buf[o++] = (char)c;
        else
            o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
    }
    if (*s && n >= 4)
        snprintf(buf + (o + 4 <= n ? o : n - 4), 4, "...");
    else
        buf[o] = '\0';
    return buf;
}

void tl_error_key(struct tl_error *err, const char *key)
{
    size_t n = strnlen(key, sizeof err->key - 1);
    memmove(err->key, key, n);
    err->key[n] = '\0';
}
