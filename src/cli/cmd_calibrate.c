/*
 * cmd_calibrate.c - `tensorlayout calibrate`: measures what the copy core
 * chooses by on this machine and caches it; and the choice, at start, of
 * the calibration every command's copies use (cli_calib_select).
 *
 * The cache is one file per CPU model and CPU count, under
 * $XDG_CACHE_HOME/tensorlayout/ ($HOME/.cache when XDG_CACHE_HOME is unset
 * or not absolute, as the XDG base directory rules say).  It is written
 * whole or not at all (atomic.c) and checked line by line and by CRC when
 * read: a corrupt one is named in a warning and ignored, one of another
 * machine is ignored quietly.  TENSORLAYOUT_CALIBRATION=off takes the
 * built-in rules; =FILE takes that file, whichever machine it describes.
 */
#include <argtable2.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char about[] =
    "Measures this machine for the copy core, in a few seconds, and caches the\n"
    "result: per kind of copy (flat, rows, transpose2, transpose4, general,\n"
    "fill, and bands4: rows of 32-64 FLOAT32 channels, NHWC into NCHW), the\n"
    "size from which its stores stream past the caches (on one thread and on\n"
    "more) and from which a second thread pays (and 4, 8, ... up to the online\n"
    "CPUs: more threads never slower); which ISA's kernel is fastest where two\n"
    "compete, and whether the C library's memcpy copies rows faster than the\n"
    "widest ISA's loop; and, for the record, memcpy and streaming-copy\n"
    "bandwidth on 1 and 2 threads and the worker pool's wake-up time.  Every\n"
    "later copy of this machine (convert, compare) then chooses by it; without\n"
    "one, built-in rules are used.  The cache is\n"
    "$XDG_CACHE_HOME/tensorlayout/CPU.txt (else ~/.cache/tensorlayout/), one\n"
    "file per CPU model; TENSORLAYOUT_CALIBRATION=off uses the built-in rules,\n"
    "=FILE a calibration file of your choice.  Run it on an idle machine: what\n"
    "else runs meanwhile is measured too (when memcpy on 2 threads runs below\n"
    "0.8x its speed on 1, it waits and measures again, three times at most, and\n"
    "then says `disturbed:`).";

/* Where the calibration every copy uses came from, for --show. */
static char source[4096 + 128] = "built-in rules";
static char source_path[4096];

/* The cache file of this machine in out; false when there is no home. */
static bool cache_path(char *out, size_t n, char *dir, size_t dn)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    const char *base = xdg && xdg[0] == '/' ? xdg : home && home[0] ? home : NULL;
    if (!base || strlen(base) > 3000)
        return false;
    char cpu[128], key[160];
    tl_calib_cpu(cpu, sizeof cpu);
    size_t k = 0;
    for (const char *s = cpu; *s && k + 1 < sizeof key; s++) {
        bool word = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                    (*s >= '0' && *s <= '9') || *s == '.' || *s == '_';
        if (word)
            key[k++] = *s;
        else if (k > 0 && key[k - 1] != '-')
            key[k++] = '-';
    }
    while (k > 0 && key[k - 1] == '-')
        k--;
    key[k] = 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(dir, dn, "%s%s/tensorlayout", base, base == xdg ? "" : "/.cache");
    int len = snprintf(out, n, "%s/%s-%ldcpu.txt", dir, k ? key : "cpu", cpus);
    return len > 0 && (size_t)len < n;
}

/* Reads a calibration file: CLI_OK, CLI_IO (cannot read; errno says why)
 * or CLI_INVALID (err says what is wrong). */
static int read_calib(const char *path, struct tl_calib *cal, struct tl_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return CLI_IO;
    char text[8192];
    size_t n = fread(text, 1, sizeof text, f);
    bool more = n == sizeof text && fgetc(f) != EOF;
    int bad = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (bad) {
        errno = bad;
        return CLI_IO;
    }
    if (more) {
        tl_fail(err, TL_E_VALUE, NULL, "larger than any calibration");
        return CLI_INVALID;
    }
    return tl_calib_parse(text, n, cal, err) ? CLI_INVALID : CLI_OK;
}

/* The CPU's name where there is no CPUID: implementer, part and model
 * name from /proc/cpuinfo, handed to the library (which opens no file). */
static void cpu_from_proc(void)
{
#if !defined(__x86_64__)
    char line[256];
    const char *keys[] = { "model name", "CPU implementer", "CPU part" };
    char got[3][64] = { "", "", "" }, name[200];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        for (int i = 0; i < 3; i++) {
            size_t kl = strlen(keys[i]);
            const char *colon = strchr(line, ':');
            if (!got[i][0] && strncmp(line, keys[i], kl) == 0 && colon) {
                snprintf(got[i], sizeof got[i], "%s", colon + 1 + (colon[1] == ' '));
                got[i][strcspn(got[i], "\n")] = 0;
            }
        }
    }
    if (f)
        fclose(f);
    snprintf(name, sizeof name, "%s %s %s", got[1][0] ? got[1] : "?", got[2][0] ? got[2] : "?",
             got[0][0] ? got[0] : "?");
    tl_calib_cpu_set(name);
#endif
}

void cli_calib_select(void)
{
    cpu_from_proc();
    const char *want = getenv("TENSORLAYOUT_CALIBRATION");
    struct tl_calib cal;
    struct tl_error err;
    char path[4096], dir[4096];
    if (want && strcmp(want, "off") == 0) {
        snprintf(source, sizeof source, "built-in rules (TENSORLAYOUT_CALIBRATION=off)");
        return;
    }
    if (want && want[0]) {
        char q[256];
        tl_quote(want, q, sizeof q);
        int rc = read_calib(want, &cal, &err);
        if (rc == CLI_IO)
            cli_error("warning: TENSORLAYOUT_CALIBRATION=%s: cannot read "
                    "(%s); using the built-in rules (set it to 'off' or to a file that "
                    "'tensorlayout calibrate' wrote)", q, strerror(errno));
        else if (rc)
            cli_error("warning: TENSORLAYOUT_CALIBRATION=%s: %s; using the "
                    "built-in rules", q, err.msg);
        else {
            tl_calib_set(&cal);
            snprintf(source, sizeof source, "TENSORLAYOUT_CALIBRATION=%s", q);
            snprintf(source_path, sizeof source_path, "%s", want);
        }
        if (rc)
            snprintf(source, sizeof source, "built-in rules (TENSORLAYOUT_CALIBRATION=%s "
                     "unusable)", q);
        return;
    }
    if (!cache_path(path, sizeof path, dir, sizeof dir)) {
        snprintf(source, sizeof source, "built-in rules (no cache folder: neither "
                 "XDG_CACHE_HOME nor HOME is set)");
        return;
    }
    int rc = read_calib(path, &cal, &err);
    if (rc == CLI_IO) {
        snprintf(source, sizeof source, "built-in rules (%s: %s; 'tensorlayout calibrate' "
                 "measures this machine)", path, errno == ENOENT ? "none yet" : strerror(errno));
        return;
    }
    if (rc) {
        cli_error("warning: %s: %s; ignored (run 'tensorlayout calibrate' "
                "to measure anew)", path, err.msg);
        snprintf(source, sizeof source, "built-in rules (%s is corrupt)", path);
        return;
    }
    if (!tl_calib_fits(&cal)) {
        snprintf(source, sizeof source, "built-in rules (%s describes another machine)", path);
        return;
    }
    tl_calib_set(&cal);
    snprintf(source, sizeof source, "%s", path);
    snprintf(source_path, sizeof source_path, "%s", path);
}

static void size_text(char *out, size_t n, uint64_t v)
{
    if (v == TL_CAL_NEVER)
        snprintf(out, n, "never");
    else if (v == 0)
        snprintf(out, n, "always");
    else if (v >= (1u << 20) && v % (1u << 20) == 0)
        snprintf(out, n, "%llu MiB", (unsigned long long)(v >> 20));
    else if (v >= (1u << 20))
        snprintf(out, n, "%.1f MiB", v / 1048576.0);
    else
        snprintf(out, n, "%llu KiB", (unsigned long long)(v >> 10));
}

static void print_text(const struct tl_calib *c, const char *from)
{
    printf("calibration: %s\n", from);
    printf("cpu: %s, %u online CPUs\n", c->cpu, c->cpus);
    if (c->measured) {
        printf("measured in %.1f s\n", c->seconds);
        printf("memcpy: %.1f GB/s on 1 thread, %.1f on 2 (x%.2f); streaming stores %.1f and "
               "%.1f\n", c->memcpy_gbs[0], c->memcpy_gbs[1],
               c->memcpy_gbs[0] > 0 ? c->memcpy_gbs[1] / c->memcpy_gbs[0] : 0,
               c->stream_gbs[0], c->stream_gbs[1]);
        if (tl_calib_disturbed(c))
            printf("disturbed: 2 threads slower than 0.8x one, so another program held a "
                   "CPU while it measured: run calibrate again when the machine is idle\n");
        printf("pool wake-up: %.0f us\n", c->wake_us);
    }
    /* the thread counts up to the online CPUs (and one more level) */
    unsigned levels = 0;
    while (levels < TL_CAL_LEVELS && (2u << levels) < c->cpus)
        levels++;
    char line[256];
    for (int k = -1; k < TL_CAL_KINDS; k++) {
        char a[32], b[32], t[32];
        int n;
        if (k < 0) {
            n = snprintf(line, sizeof line, "%-11s %-14s %-14s %-15s", "kind", "streams above",
                         "on 2+ threads", "2 threads from");
        } else {
            size_text(a, sizeof a, c->stream_from[k][0]);
            size_text(b, sizeof b, c->stream_from[k][1]);
            size_text(t, sizeof t, c->threads_from[k]);
            n = snprintf(line, sizeof line, "%-11s %-14s %-14s %-15s",
                         tl_cal_kind_name((enum tl_cal_kind)k), a, b, t);
        }
        for (unsigned l = 0; l < levels && n < (int)sizeof line; l++) {
            if (k < 0)
                snprintf(t, sizeof t, "%u from", 4u << l);
            else
                size_text(t, sizeof t, c->threads_at[k][l]);
            n += snprintf(line + n, sizeof line - (size_t)n, " %-10s", t);
        }
        while (n > 0 && line[n - 1] == ' ')
            line[--n] = '\0';
        printf("%s\n", line);
    }
    /* the copy slot is raced against the C library's memcpy (the scalar
     * table's), the others against the next ISA down */
    for (int s = 0; s < TL_CAL_SLOTS; s++) {
        bool copy = s == TL_CAL_COPY;
        printf("kernel %-16s %s", tl_cal_slot_name((enum tl_cal_slot)s),
               c->slot_isa[s] == TL_ISA_COUNT ? "widest ISA"
               : copy && c->slot_isa[s] == TL_ISA_SCALAR ? "memcpy"
                                                        : tl_isa_name(c->slot_isa[s]));
        if (c->slot_ratio[s] > 0)
            printf(copy ? " (memcpy takes %.2fx the widest ISA's time)"
                        : " (the next ISA down takes %.2fx its time)", c->slot_ratio[s]);
        printf("\n");
    }
}

static cJSON *size_json(uint64_t v)
{
    return v == TL_CAL_NEVER ? cJSON_CreateNull() : cJSON_CreateNumber((double)v);
}

static int print_json(const struct tl_calib *c, const char *from, const char *path)
{
    cJSON *doc = cJSON_CreateObject(), *kinds = cJSON_CreateObject(), *slots = cJSON_CreateObject();
    cJSON *mc = cJSON_CreateDoubleArray(c->memcpy_gbs, 2);
    cJSON *sc = cJSON_CreateDoubleArray(c->stream_gbs, 2);
    if (!doc || !kinds || !slots || !mc || !sc) {
        cJSON_Delete(doc);
        cJSON_Delete(kinds);
        cJSON_Delete(slots);
        cJSON_Delete(mc);
        cJSON_Delete(sc);
        return cli_print_json(NULL);
    }
    cJSON_AddStringToObject(doc, "source", from);
    if (path && path[0])
        cJSON_AddStringToObject(doc, "path", path);
    else
        cJSON_AddNullToObject(doc, "path");
    cJSON_AddStringToObject(doc, "cpu", c->cpu);
    cJSON_AddNumberToObject(doc, "cpus", c->cpus);
    cJSON_AddBoolToObject(doc, "measured", c->measured);
    cJSON_AddNumberToObject(doc, "seconds", c->seconds);
    cJSON_AddItemToObject(doc, "memcpyGBps", mc);
    cJSON_AddItemToObject(doc, "streamGBps", sc);
    cJSON_AddNumberToObject(doc, "wakeMicroseconds", c->wake_us);
    for (int k = 0; k < TL_CAL_KINDS; k++) {
        cJSON *o = cJSON_CreateObject(), *st = cJSON_CreateArray();
        if (o && st) {
            cJSON_AddItemToArray(st, size_json(c->stream_from[k][0]));
            cJSON_AddItemToArray(st, size_json(c->stream_from[k][1]));
            cJSON_AddItemToObject(o, "streamAbove", st);
            cJSON_AddItemToObject(o, "threadsFrom", size_json(c->threads_from[k]));
            cJSON *at = cJSON_CreateArray();    /* 4, 8, ... threads */
            for (int l = 0; at && l < TL_CAL_LEVELS; l++)
                cJSON_AddItemToArray(at, size_json(c->threads_at[k][l]));
            cJSON_AddItemToObject(o, "threadsAt", at);
        } else {
            cJSON_Delete(st);
        }
        cJSON_AddItemToObject(kinds, tl_cal_kind_name((enum tl_cal_kind)k), o);
    }
    for (int s = 0; s < TL_CAL_SLOTS; s++) {
        cJSON *o = cJSON_CreateObject();
        if (o) {
            if (c->slot_isa[s] == TL_ISA_COUNT)
                cJSON_AddNullToObject(o, "isa");
            else
                cJSON_AddStringToObject(o, "isa", tl_isa_name(c->slot_isa[s]));
            cJSON_AddNumberToObject(o, "ratio", c->slot_ratio[s]);
        }
        cJSON_AddItemToObject(slots, tl_cal_slot_name((enum tl_cal_slot)s), o);
    }
    cJSON_AddItemToObject(doc, "kinds", kinds);
    cJSON_AddItemToObject(doc, "kernels", slots);
    return cli_print_json(doc);
}

static void say_step(const char *step, void *ctx)
{
    (void)ctx;
    cli_error("calibrate: measuring %s", step);
}

/* TL_CALIBRATE_DEBUG: each size's times, for a developer. */
static void say_debug(const char *line, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "calibrate: %s\n", line);
}

/* Makes the cache folder (and the one it is in) when missing. */
static int make_dir(const char *dir)
{
    char parent[4096];
    if (snprintf(parent, sizeof parent, "%s", dir) >= (int)sizeof parent)
        return CLI_IO;
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = 0;
        if (mkdir(parent, 0755) != 0 && errno != EEXIST) {
            cli_report_errno(parent, "cannot make the folder");
            return CLI_IO;
        }
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        cli_report_errno(dir, "cannot make the folder");
        return CLI_IO;
    }
    return CLI_OK;
}

/* Writes the calibration into the cache, whole or not at all. */
static int save(const struct tl_calib *cal, const char *path)
{
    char text[4096];
    size_t n = tl_calib_format(cal, text, sizeof text);
    struct cli_out o;
    int rc = cli_out_open_seq(&o, path);
    if (rc)
        return rc;
    rc = cli_out_write(&o, text, n);
    if (rc) {
        cli_out_abort(&o);
        return rc;
    }
    return cli_out_commit(&o);
}

int cmd_calibrate(int argc, char **argv)
{
    struct arg_lit *show = arg_lit0(NULL, "show", "print the calibration in use and where it came from; measure nothing");
    struct arg_lit *quick = arg_lit0(NULL, "quick", "smaller sizes and fewer runs: a rough calibration in a fraction of the time");
    struct arg_lit *json = arg_lit0(NULL, "json", "print it as one JSON object");
    struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
    struct arg_end *end = arg_end(5);
    void *table[] = { show, quick, json, help, end };
    int rc = CLI_IO;
    if (arg_nullcheck(table) == 0)
        rc = cli_parse_args(argc, argv, table, about);
    if (rc == CLI_CONTINUE && show->count && quick->count) {
        cli_usage_error("calibrate", "--show measures nothing, so --quick means nothing with it");
        rc = CLI_USAGE;
    }
    if (rc == CLI_CONTINUE && show->count) {
        const struct tl_calib *c = tl_calib_active();
        rc = json->count ? print_json(c, source, source_path) : (print_text(c, source), CLI_OK);
    } else if (rc == CLI_CONTINUE) {
        char path[4096], dir[4096];
        if (!cache_path(path, sizeof path, dir, sizeof dir)) {
            cli_error("calibrate: no cache folder: set XDG_CACHE_HOME or "
                    "HOME");
            rc = CLI_IO;
        } else if ((rc = make_dir(dir)) == CLI_OK) {
            struct tl_calib cal;
            tl_calib_measure(&cal, quick->count > 0, json->count ? NULL : say_step,
                             getenv("TL_CALIBRATE_DEBUG") ? say_debug : NULL, NULL);
            if (!cal.measured) {
                cli_error("calibrate: not enough memory for the "
                        "measuring buffers (384 MiB)");
                rc = CLI_IO;
            } else {
                rc = save(&cal, path);
            }
            if (rc == CLI_OK && json->count && tl_calib_disturbed(&cal))   /* text: a line */
                cli_note("calibrate: memcpy on 2 threads ran at %.2fx its speed on 1: another "
                         "program was using a CPU, so the sizes from which threads pay may be "
                         "too high; run calibrate again when the machine is idle\n",
                         cal.memcpy_gbs[1] / cal.memcpy_gbs[0]);
            if (rc == CLI_OK) {
                char from[4096 + 32];
                snprintf(from, sizeof from, "measured now, written to %s", path);
                rc = json->count ? print_json(&cal, "measured now", path)
                                 : (print_text(&cal, from), CLI_OK);
            }
        }
    }
    arg_freetable(table, sizeof table / sizeof table[0]);
    return rc;
}
