/* args.c - argtable2 glue: help, usage errors and number lists; the
 * TENSORLAYOUT_SIMD environment variable. */
#include <argtable2.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

void cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char head[64], tail[96];
    va_list ap;
    snprintf(head, sizeof head, "tensorlayout: %s: ", cmd);
    snprintf(tail, sizeof tail, " (see 'tensorlayout %s --help')\n", cmd);
    va_start(ap, fmt);
    cli_emit(head, fmt, ap, tail);
    va_end(ap);
}

const char *cli_formats_text(const char *text, char *buf, size_t n)
{
    static const struct {
        const char *mark, *last;
        bool many, writes;
    } marks[] = {
        { "@FORMATS@", ", ", false, false }, { "@FORMATS_OR@", " or ", false, false },
        { "@MANY_OR@", " or ", true, false },   /* in the order of output formats */
        { "@WRITES@", " or ", false, true },    /* what convert writes, by name */
    };
    size_t len = 0;
    buf[0] = '\0';
    while (*text && len + 1 < n) {
        size_t k = 0, m = sizeof marks / sizeof marks[0];
        while (k < m && strncmp(text, marks[k].mark, strlen(marks[k].mark)) != 0)
            k++;
        if (k == m) {
            buf[len++] = *text++;
            buf[len] = '\0';
            continue;
        }
        char list[256];
        if (marks[k].many) {        /* the formats that hold many tensors, read and written */
            size_t count = 0, done = 0, at = 0;
            for (size_t i = 0; tl_format_at(i); i++)
                count += tl_format_at(i)->many && tl_format_at(i)->read && tl_format_at(i)->writes;
            list[0] = '\0';
            for (unsigned place = 1; place <= TL_FMT_COUNT && at < sizeof list; place++) {
                for (size_t i = 0; tl_format_at(i) && at < sizeof list; i++) {
                    const struct tl_format_entry *e = tl_format_at(i);
                    if (!(e->many && e->read && e->writes == place))
                        continue;
                    at += (size_t)snprintf(list + at, sizeof list - at, "%s%s",
                                           done == 0 ? "" : done + 1 == count ? " or " : ", ",
                                           e->label);
                    done++;
                }
            }
        } else if (marks[k].writes) {
            tl_format_write_list(list, sizeof list);
        } else {
            tl_format_list(list, sizeof list, marks[k].last);
        }
        len += (size_t)snprintf(buf + len, n - len, "%s", list);
        if (len >= n)
            len = n - 1;
        text += strlen(marks[k].mark);
    }
    return buf;
}

int cli_parse_args(int argc, char **argv, void **table, const char *about)
{
    return cli_parse_args_hint(argc, argv, table, about, NULL);
}

/* The table ends with ..., help (arg_lit), end (arg_end). */
int cli_parse_args_hint(int argc, char **argv, void **table, const char *about,
                        const char *excess)
{
    int n = 0;
    while (!(((struct arg_hdr *)table[n])->flag & ARG_TERMINATOR))
        n++;
    struct arg_lit *help = table[n - 1];
    struct arg_end *end = table[n];
    const char *cmd = argv[0];
    /* "-o=x" gives -o the value "=x" (a file named =x): that is never meant */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        if (a[0] == '-' && a[1] && a[1] != '-' && a[2] == '=') {
            char q[128];
            cli_usage_error(cmd, "'%s': a short option takes its value after a space or "
                            "joined (did you mean -%c %s?)", tl_quote(a, q, sizeof q), a[1],
                            a + 3);
            return CLI_USAGE;
        }
    }
    int errors = arg_parse(argc, argv, table);
    if (help->count > 0) {
        printf("Usage: tensorlayout %s", cmd);
        arg_print_syntax(stdout, table, "\n\n");
        char text[4096];
        printf("%s\n\n", cli_formats_text(about, text, sizeof text));
        arg_print_glossary(stdout, table, "  %-24s %s\n");
        printf("\nSee man tensorlayout for the description keys and exit statuses.\n");
        return CLI_OK;
    }
    if (errors > 0) {
        /* argtable prints every error; we keep the first, on one line */
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        if (mem) {
            arg_print_errors(mem, end, "");
            fclose(mem);
        }
        char *msg = text ? text : "invalid arguments";
        while (*msg == ':' || *msg == ' ')
            msg++;
        msg[strcspn(msg, "\n")] = '\0';
        int dashes = 0;                 /* after "--", every word is an argument */
        for (int i = 1; i < argc && !dashes; i++)
            if (strcmp(argv[i], "--") == 0)
                dashes = i;
        bool after = false;
        for (int i = dashes + 1; dashes && i < argc; i++)
            after |= strncmp(msg, "excess option ", 14) == 0 && strcmp(argv[i], msg + 14) == 0;
        if (after) {
            char q[64];
            cli_usage_error(cmd, "unexpected argument '%s': after '--' every word is an argument, "
                            "not an option (give the options before '--')",
                            tl_quote(msg + 14, q, sizeof q));
        } else if (strncmp(msg, "excess option ", 14) == 0 && msg[14] == '-') {
            char q[64];
            cli_usage_error(cmd, "'%s': that option was given more times than it can be",
                            tl_quote(msg + 14, q, sizeof q));
        } else if (strncmp(msg, "excess option ", 14) == 0) {
            char q[64];
            if (excess)
                cli_usage_error(cmd, "unexpected argument '%s': %s",
                                tl_quote(msg + 14, q, sizeof q), excess);
            else
                cli_usage_error(cmd, "unexpected argument '%s'", tl_quote(msg + 14, q, sizeof q));
        } else if (strncmp(msg, "missing option ", 15) == 0 && msg[15] != '-') {
            /* a positional argument is an argument, not an option */
            cli_usage_error(cmd, "missing argument %s", msg + 15);
        } else {
            cli_usage_error(cmd, "%s", msg);
        }
        free(text);
        return CLI_USAGE;
    }
    return CLI_CONTINUE;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    if (!isdigit((unsigned char)*s))
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool cli_parse_bytes(const char *s, uint64_t *out)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        if (!isxdigit((unsigned char)s[2]))
            return false;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s + 2, &end, 16);
        if (errno || *end)
            return false;
        *out = v;
        return true;
    }
    return cli_parse_u64(s, out);
}

bool cli_parse_size(const char *s, uint64_t *out)
{
    static const struct { const char *unit; uint64_t times; } units[] = {
        { "", 1 }, { "B", 1 },
        { "K", 1000 }, { "KB", 1000 }, { "KIB", 1ull << 10 },
        { "M", 1000000 }, { "MB", 1000000 }, { "MIB", 1ull << 20 },
        { "G", 1000000000 }, { "GB", 1000000000 }, { "GIB", 1ull << 30 },
        { "T", 1000000000000 }, { "TB", 1000000000000 }, { "TIB", 1ull << 40 },
    };
    if (!isdigit((unsigned char)s[0]))
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return false;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcasecmp(end, units[i].unit) == 0) {
            if (v > UINT64_MAX / units[i].times)
                return false;
            *out = v * units[i].times;
            return true;
        }
    }
    return false;
}

int cli_parse_u64_list(const char *s, uint64_t *out, int max)
{
    int n = 0;
    for (;;) {
        if (*s == '-' && isdigit((unsigned char)s[1]))
            return -2;                  /* a negative number: said so */
        if (n == max || !isdigit((unsigned char)*s))
            return -1;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno)
            return -1;
        out[n++] = v;
        if (*end == '\0')
            return n;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
}

int cli_search_steps(const char *cmd, const struct arg_str *a, uint64_t *steps)
{
    char q[64];
    *steps = TL_FIND_WORK;
    if (a->count == 0)
        return CLI_OK;
    if (!cli_parse_u64(a->sval[0], steps) || *steps == 0) {
        cli_usage_error(cmd, "--search-steps: '%s' is not a positive count",
                        tl_quote(a->sval[0], q, sizeof q));
        return CLI_USAGE;
    }
    return CLI_OK;
}

bool cli_notes_on(void)
{
    const char *v = getenv("TENSORLAYOUT_NOTES");
    return !v || strcmp(v, "off") != 0;
}

void cli_note(const char *fmt, ...)
{
    if (!cli_notes_on())
        return;
    va_list ap;
    va_start(ap, fmt);
    cli_emit("tensorlayout: note: ", fmt, ap, "");
    va_end(ap);
}

/* The TENSORLAYOUT_SIMD value that set the ceiling, for cli_simd_note(). */
static const char *simd_wanted;
static enum tl_isa simd_isa;

void cli_simd_select(void)
{
    const char *want = getenv("TENSORLAYOUT_SIMD");
    enum tl_isa isa;
    if (!want || !*want)
        return;
    if (tl_isa_from_name(want, &isa) != 0) {
        char q[40];
        cli_note("TENSORLAYOUT_SIMD='%s' is not one of scalar, sse2, "
                "avx2, avx512, neon; ignored\n", tl_quote(want, q, sizeof q));
        return;
    }
    tl_isa_set_ceiling(isa);
    simd_wanted = want;
    simd_isa = isa;
}

void cli_simd_note(void)
{
    if (simd_wanted && tl_isa_active() != simd_isa)
        cli_note("TENSORLAYOUT_SIMD=%s is not supported here; using %s\n",
                simd_wanted, tl_isa_name(tl_isa_active()));
}

int cli_type_arg(const char *cmd, const char *opt, const char *name, enum tl_dtype *dt)
{
    char q[64], list[160];
    if (tl_dtype_from_any(name, dt) == 0)
        return CLI_OK;
    if (strcasecmp(name, "float") == 0)
        cli_usage_error(cmd, "%s: 'float' is FLOAT64 to numpy and FLOAT32 to C and PyTorch: "
                        "write float32 or float64", opt);
    else
        cli_usage_error(cmd, "%s: '%s' is not a data type (%s; numpy's and safetensors' "
                        "names too: float16, half, F16, bfloat16, BF16, int8, u1...)", opt,
                        tl_quote(name, q, sizeof q), tl_dtype_list(TL_SPELL_NAME, list, sizeof list));
    return CLI_USAGE;
}
