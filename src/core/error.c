/* error.c - filling struct tl_error, the one way core code fails. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tl.h"

/* Writes text into buf (n bytes) with each control character (below 0x20,
 * and 0x7f) as \xNN, cut short rather than split an escape: a message
 * holds one line however a file spells the names it quotes.  Every error's
 * key and message pass here (tl_fail, tl_error_key). */
static void escape_controls(char *buf, size_t n, const char *text)
{
    size_t o = 0;
    for (; *text && o + 1 < n; text++) {
        unsigned char c = (unsigned char)*text;
        if (c >= 0x20 && c != 0x7f) {
            buf[o++] = (char)c;
        } else if (o + 5 < n) {
            snprintf(buf + o, n - o, "\\x%02x", c);
            o += 4;
        } else {
            break;
        }
    }
    buf[o] = '\0';
}

int tl_fail(struct tl_error *err, int code, const char *key, const char *fmt, ...)
{
    if (!err)
        return code;
    char text[sizeof err->msg];
    err->code = code;
    err->line = 0;
    err->col = 0;
    escape_controls(err->key, sizeof err->key, key ? key : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    escape_controls(err->msg, sizeof err->msg, text);
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
    char text[sizeof err->key];
    snprintf(text, sizeof text, "%s", key);
    escape_controls(err->key, sizeof err->key, text);
}
