/*
 * input.c - the command line's input files: opened once, memory-mapped (or
 * read whole when they are pipes or standard input, which can be read
 * once), their format sniffed from the first bytes (the core's format
 * table), a FILE:NAME argument split; an .npz member inflated into an unlinked temporary file; a
 * tensor file's table judged sound; pages of a mapping handed back once
 * read.  Nothing here knows descriptions, shards or conversions.
 */
#define _DEFAULT_SOURCE 1           /* madvise */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Standard input can be read once: by one DESC or one DATA. */
static const char *stdin_taken;

/* Reads fd to its end into a malloc'd buffer that starts with the n bytes
 * of head; with max > 0, stops once it holds more than max bytes (the
 * caller then reports the input as too large).  @return 0, or -1 with
 * errno set. */
static int read_all(int fd, size_t max, const unsigned char *head, size_t n,
                    unsigned char **out, size_t *len)
{
    size_t cap = 65536;
    unsigned char *buf = malloc(cap);
    if (!buf)
        return -1;
    memcpy(buf, head, n);
    while (!(max && n > max)) {
        if (n == cap) {
            unsigned char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                errno = ENOMEM;
                return -1;
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            errno = e;
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    *out = buf;
    *len = n;
    return 0;
}

/* The path of a weight's external file (t->elsewhere, relative to the
 * folder of file) into path; CLI_OK, or a status after the message: a
 * file that is missing (CLI_IO), that resolves outside the model's folder
 * (through a symlink: CVE-2024-27318's way), that is no regular file, or
 * that ends before the weight's bytes (CLI_INVALID).  Nothing outside the
 * folder is opened. */
int cli_elsewhere_path(const char *file, const struct tl_file_tensor *t, char *path, size_t n)
{
    char dir[4096], real_dir[PATH_MAX], real[PATH_MAX], q[128], qf[128];
    const char *slash = strrchr(file, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - file) : 1, slash ? file : ".");
    if (slash == file)
        snprintf(dir, sizeof dir, "/");
    snprintf(path, n, "%s/%s", dir, t->elsewhere);
    tl_quote(t->name, q, sizeof q);
    tl_quote(t->elsewhere, qf, sizeof qf);
    if (!realpath(dir, real_dir) || !realpath(path, real)) {
        cli_error("%s: weight '%s': its external data file %s cannot be opened: %s", file, q,
                  path, strerror(errno));
        return CLI_IO;
    }
    size_t k = strlen(real_dir);
    if (strcmp(real_dir, "/") != 0 && (strncmp(real, real_dir, k) != 0 || real[k] != '/')) {
        cli_error("%s: weight '%s': external data location '%s' resolves (through a symlink) "
                  "outside the model's folder: refused, nothing outside it is read", file, q, qf);
        return CLI_INVALID;
    }
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        cli_error("%s: weight '%s': external data location '%s' is not a regular file", file, q,
                  qf);
        return CLI_INVALID;
    }
    if ((uint64_t)st.st_size < t->end) {
        cli_error("%s: weight '%s': external data offset %" PRIu64 " + length %" PRIu64 " run "
                  "past the end of %s (%" PRIu64 " bytes)", file, q, t->begin, t->end - t->begin,
                  qf, (uint64_t)st.st_size);
        return CLI_INVALID;
    }
    return CLI_OK;
}

int cli_elsewhere_open_one(const char *file, const struct tl_file_tensor *t,
                           struct cli_data *out)
{
    char path[4096];
    memset(out, 0, sizeof *out);
    int rc = cli_elsewhere_path(file, t, path, sizeof path);
    return rc ? rc : cli_open_data(path, out);
}

int cli_elsewhere_sound(struct tl_file *tf, const char *file)
{
    char path[4096];
    int qrc = cli_quant_for(file, tf);
    if (qrc)
        return qrc;
    for (size_t i = 0; i < tf->count; i++) {
        int rc = tf->tensors[i].elsewhere
                     ? cli_elsewhere_path(file, &tf->tensors[i], path, sizeof path)
                     : CLI_OK;
        if (rc)
            return rc;
    }
    return CLI_OK;
}

int cli_file_sound(struct tl_file *tf, const char *file)
{
    int rc = cli_elsewhere_sound(tf, file);
    if (rc)
        return rc;
    size_t problems = 0;
    for (size_t i = 0; i < tf->nproblems; i++)
        problems += tf->problems[i].kind == TL_FP_OVERLAP || !tf->gaps_ok;
    if (problems && tf->gaps_ok) {
        cli_error("%s: its tensors' buffers overlap; 'tensorlayout list "
                "%s' shows where", file, file);
        return CLI_INVALID;
    }
    if (problems) {
        cli_error("%s: its tensors overlap or leave bytes no tensor owns; "
                "'tensorlayout list %s' shows where", file, file);
        return CLI_INVALID;
    }
    return CLI_OK;
}

/* A stream (a pipe, a device, standard input) read into memory: its first
 * bytes, then as much as they allow (a JSON description up to
 * CLI_DESC_MAX_BYTES; else limit, when not 0, with at_least set when there
 * is more).  @return CLI_OK, or CLI_IO after the message. */
static int read_stream(int fd, uint64_t limit, bool sniffed, struct cli_data *out)
{
    unsigned char head[TL_SNIFF_BYTES];
    size_t n = 0;
    int rc = CLI_OK;
    while (n < sizeof head) {
        ssize_t r = read(fd, head + n, sizeof head - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r < 0)
                rc = CLI_IO;
            break;
        }
        n += (size_t)r;
    }
    size_t max = limit ? (size_t)limit : 0;
    if (sniffed && tl_file_sniff(head, n) == TL_FMT_JSON)
        max = CLI_DESC_MAX_BYTES;
    size_t len = 0;
    if (rc == CLI_OK && read_all(fd, max, head, n, &out->heap, &len) < 0)
        rc = CLI_IO;
    if (limit && len >= limit) {        /* there is more: what it is, is not needed */
        len = (size_t)limit;
        out->at_least = true;
    }
    if (rc != CLI_OK)
        cli_report_errno(out->name, "cannot read");
    out->bytes = out->heap;
    out->size = len;
    return rc;
}

/* Opens path ('-': standard input) into out: a regular file is mapped
 * whole; a stream is read whole, or when sniff is set only as far as its
 * first bytes allow: CLI_DESC_MAX_BYTES + 1 of a JSON description.  *format is
 * what the first bytes say (when format is not NULL). */
int cli_open_input(const char *path, const char *role, struct cli_data *out,
                      enum tl_format *format, uint64_t limit)
{
    memset(out, 0, sizeof *out);
    int fd;
    if (strcmp(path, "-") == 0) {
        snprintf(out->name, sizeof out->name, "<stdin>");
        if (stdin_taken) {
            cli_error("standard input is already read as %s", stdin_taken);
            return CLI_USAGE;
        }
        stdin_taken = role;
        fd = 0;
    } else {
        tl_quote(path, out->name, sizeof out->name);
        fd = open(path, O_RDONLY);
        if (fd < 0) {
            cli_report_errno(out->name, "cannot open");
            return CLI_IO;
        }
    }
    int rc = CLI_OK;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        cli_report_errno(out->name, "cannot read");
        rc = CLI_IO;
    } else if (S_ISDIR(st.st_mode)) {
        cli_error("%s: cannot read: Is a directory", out->name);
        rc = CLI_IO;
    } else if (S_ISREG(st.st_mode)) {
        out->size = (uint64_t)st.st_size;
        if (st.st_size > 0) {
            out->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (out->map == MAP_FAILED) {
                out->map = NULL;
                cli_report_errno(out->name, "cannot map");
                rc = CLI_IO;
            }
            out->bytes = out->map;
            out->has_fd = out->map != NULL && fd != 0;
            out->fd = fd;
        }
    } else {
        rc = read_stream(fd, limit, format != NULL, out);
    }
    if (fd != 0 && !out->has_fd)
        close(fd);
    if (rc != CLI_OK) {
        cli_close_data(out);
        return rc;
    }
    if (format)
        *format = tl_file_sniff(out->bytes, out->size < TL_SNIFF_BYTES ? (size_t)out->size
                                                                       : TL_SNIFF_BYTES);
    return CLI_OK;
}

int cli_open_data(const char *path, struct cli_data *out)
{
    return cli_open_input(path, "the data", out, NULL, 0);
}

int cli_open_data_upto(const char *path, uint64_t need, struct cli_data *out)
{
    return cli_open_input(path, "the data", out, NULL, need + 1);
}

int cli_open_file(const char *path, struct cli_data *out, enum tl_format *format)
{
    return cli_open_input(path, "a file", out, format, 0);
}

/* Scratch room for the library: an unlinked temporary file, mapped. */
static int scratch(void *ctx, uint64_t n, struct tl_scratch *s)
{
    const char *dir = getenv("TMPDIR"), *name = ctx;
    char path[4096];
    snprintf(path, sizeof path, "%s/tensorlayout-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd;
    struct cli_tmp *reg = cli_tmp_make(path, false, name, &fd);
    if (!reg) {
        cli_report_errno(path, "cannot make a file to inflate into (set TMPDIR)");
        return -1;
    }
    unlink(path);                   /* it lives as long as the mapping */
    cli_tmp_forget(reg);
    void *m = MAP_FAILED;
    if (n > SIZE_MAX || ftruncate(fd, (off_t)n) != 0 ||
        (n && (m = mmap(NULL, (size_t)n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
                  MAP_FAILED)) {
        cli_report_errno(path, "cannot write what it inflates (set TMPDIR)");
        close(fd);
        return -1;
    }
    close(fd);
    static uint8_t none[1];
    s->bytes = n ? m : none;
    s->size = n;
    return 0;
}

static void scratch_free(void *ctx, struct tl_scratch *s)
{
    (void)ctx;
    if (s->size)
        munmap(s->bytes, (size_t)s->size);
}

struct tl_input cli_input(const struct cli_data *data, const char *name)
{
    return (struct tl_input){
        .name = name ? name : data->name, .bytes = data->bytes, .size = data->size,
        .fd = data->has_fd ? data->fd : -1, .mapped = data->map != NULL,
        .scratch = scratch, .scratch_free = scratch_free, .ctx = (void *)data->name,
    };
}

int cli_elsewhere_open(const char *file, struct tl_whole_item *it, size_t n,
                       struct cli_elsewhere *e)
{
    memset(e, 0, sizeof *e);
    for (size_t i = 0; i < n; i++) {
        const struct tl_file_tensor *t = it[i].t;
        if (!t->elsewhere)
            continue;
        size_t k = 0;
        while (k < e->n && strcmp(e->name[k], t->elsewhere) != 0)
            k++;
        if (k == e->n) {                /* a file not opened yet */
            if (!e->data && (!(e->data = calloc(n, sizeof *e->data)) ||
                             !(e->in = calloc(n, sizeof *e->in)) ||
                             !(e->name = calloc(n, sizeof *e->name)))) {
                cli_elsewhere_close(e);
                return cli_oom();
            }
            char path[4096];
            int rc = cli_elsewhere_path(file, t, path, sizeof path);
            if (!rc)
                rc = cli_open_data(path, &e->data[k]);
            if (rc) {
                cli_elsewhere_close(e);
                return rc;
            }
            e->name[k] = t->elsewhere;
            e->in[k] = cli_input(&e->data[k], NULL);
            e->n++;
        }
        it[i].in = &e->in[k];
    }
    return CLI_OK;
}

void cli_elsewhere_close(struct cli_elsewhere *e)
{
    for (size_t k = 0; k < e->n; k++)
        cli_close_data(&e->data[k]);
    free(e->data);
    free(e->in);
    free(e->name);
    memset(e, 0, sizeof *e);
}

int cli_decode_tensor(const struct cli_data *zip, const struct tl_file_tensor *t,
                       struct cli_data *out)
{
    struct tl_input in = cli_input(zip, NULL);
    struct tl_scratch s;
    struct tl_error err = { 0 };
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", zip->name);
    int rc = tl_input_inflate(&in, t, &s, &err);
    if (rc == TL_E_IO)
        return CLI_IO;
    if (rc == TL_E_NOMEM)
        return cli_oom();
    if (rc) {
        cli_report(zip->name, &err);
        return CLI_INVALID;
    }
    out->size = s.size;
    if (s.size) {
        out->map = s.bytes;             /* cli_close_data unmaps it */
        out->bytes = s.bytes;
    }
    return CLI_OK;
}

void cli_split_name(const char *arg, char *path, size_t n, const char **name)
{
    struct stat st;
    *name = NULL;
    snprintf(path, n, "%s", arg);
    if (stat(arg, &st) == 0 || strlen(arg) >= n)
        return;
    for (size_t i = strlen(arg); i-- > 0;) {
        if (arg[i] != ':')
            continue;
        path[i] = '\0';
        if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
            *name = arg + i + 1;
            return;
        }
    }
    snprintf(path, n, "%s", arg);
}

enum tl_format cli_sniff_arg(const char *arg)
{
    char path[4096];
    const char *name;
    struct stat st;
    uint8_t head[TL_SNIFF_BYTES];
    if (strcmp(arg, "-") == 0 || cli_desc_opts_is(arg))
        return TL_FMT_JSON;
    cli_split_name(arg, path, sizeof path, &name);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return TL_FMT_JSON;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return TL_FMT_JSON;
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n > 0 ? tl_file_sniff(head, (size_t)n) : TL_FMT_JSON;
}

bool cli_is_tensor_file(const char *arg)
{
    if (cli_sniff_arg(arg) != TL_FMT_JSON)
        return true;
    /* a sharded model's index too: its tensors' data is in its shards */
    char path[4096];
    const char *tname;
    struct stat st;
    struct cli_data d;
    enum tl_format f;
    if (strcmp(arg, "-") == 0)
        return false;
    cli_split_name(arg, path, sizeof path, &tname);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || cli_open_file(path, &d, &f) != CLI_OK)
        return false;
    bool index = f == TL_FMT_JSON && tl_shard_index_looks((const char *)d.bytes, (size_t)d.size);
    cli_close_data(&d);
    return index;
}

void cli_close_data(struct cli_data *data)
{
    if (data->map)
        munmap(data->map, (size_t)data->size);
    if (data->has_fd)
        close(data->fd);
    free(data->heap);
    memset(data, 0, sizeof *data);
}

/* A model's folder (SPEC 19: list DIR): its model.safetensors.index.json,
 * else its one *.index.json, else its one tensor file, into found.
 * @return false with a message when there is none or several. */
static bool model_in(const char *dir, char *found, size_t n)
{
    DIR *d = opendir(dir);
    if (!d) {
        cli_report_errno(dir, "cannot read the folder");
        return false;
    }
    char index[1024] = "", file[1024] = "";
    int nindex = 0, nfile = 0;
    bool preferred = false;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        char path[4096 + 1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (len > 11 && strcmp(e->d_name + len - 11, ".index.json") == 0) {
            if (strcmp(e->d_name, "model.safetensors.index.json") == 0)
                preferred = true;
            if (!preferred || strcmp(e->d_name, "model.safetensors.index.json") == 0)
                snprintf(index, sizeof index, "%s", e->d_name);
            nindex++;
        } else if (cli_is_tensor_file(path)) {
            snprintf(file, sizeof file, "%s", e->d_name);
            nfile++;
        }
    }
    closedir(d);
    const char *pick = preferred || nindex == 1 ? index : nindex == 0 && nfile == 1 ? file : NULL;
    if (!pick) {
        char q[128];
        cli_error("%s: a folder of %s: name the file",
                tl_quote(dir, q, sizeof q), nindex ? "several indexes"
                : nfile ? "several tensor files, and no index" : "no index and no tensor file");
        return false;
    }
    snprintf(found, n, "%s/%s", dir, pick);
    return true;
}

int cli_model_path(const char *path, char *found, size_t n, const char **out)
{
    struct stat st;
    *out = path;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return CLI_OK;
    size_t len = strlen(path);
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)(len > 1 && path[len - 1] == '/' ? len - 1 : len),
             path);
    if (!model_in(dir, found, n))
        return CLI_INVALID;
    *out = found;
    return CLI_OK;
}

/* ---- group-quantized weights' config (SPEC 21) ----------------------------- */

const char *cli_quant_scheme;

int cli_quant_option(const char *cmd, const char *scheme)
{
    char q[64];
    if (tl_quant_named(scheme) != TL_QUANT_AUTO || strcmp(scheme, "gptq-v2") == 0) {
        cli_quant_scheme = scheme;
        return CLI_CONTINUE;
    }
    cli_usage_error(cmd, "--quant: '%s' is not gptq, gptq-v2, awq, compressed-tensors or none",
                    tl_quote(scheme, q, sizeof q));
    return CLI_USAGE;
}

/* The configs read, one a folder, kept for the process's life (a
 * table's quant points into one). */
struct quant_seen {
    struct quant_seen *next;
    char dir[4096];
    struct tl_quant q;
    bool has;
};
static struct quant_seen *seen;
static struct tl_quant named_quant;

int cli_quant_for(const char *path, struct tl_file *tf)
{
    tf->quant = NULL;
    if (!tl_grouped_candidates(tf))
        return CLI_OK;
    if (cli_quant_scheme) {             /* checked by the command's options */
        named_quant.method = tl_quant_named(cli_quant_scheme);
        named_quant.v2 = strcmp(cli_quant_scheme, "gptq-v2") == 0;
        if (named_quant.v2)
            named_quant.method = TL_QUANT_GPTQ;
        tf->quant = &named_quant;
        return CLI_OK;
    }
    char dir[4096], cfg[4200];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    for (const struct quant_seen *x = seen; x; x = x->next)
        if (strcmp(x->dir, dir) == 0) {
            tf->quant = x->has ? &x->q : NULL;
            return CLI_OK;
        }
    snprintf(cfg, sizeof cfg, "%s/config.json", dir);
    struct cli_data d;
    struct tl_error err = { 0 };
    struct quant_seen *x = calloc(1, sizeof *x);
    if (!x)
        return cli_oom();
    snprintf(x->dir, sizeof x->dir, "%s", dir);
    int rc = CLI_OK;
    if (access(cfg, F_OK) == 0 && (rc = cli_open_data(cfg, &d)) == CLI_OK) {
        if (tl_quant_parse((const char *)d.bytes, (size_t)d.size, &x->q, &err)) {
            cli_report(cfg, &err);
            rc = CLI_INVALID;
        }
        cli_close_data(&d);
    }                                   /* none: the names and shapes tell */
    if (rc) {
        free(x);
        return rc;
    }
    x->has = x->q.method != TL_QUANT_AUTO;
    x->next = seen;
    seen = x;
    tf->quant = x->has ? &x->q : NULL;
    return CLI_OK;
}
