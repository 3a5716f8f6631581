/*
 * shards_convert.c - a sharded safetensors model's whole-model conversion
 * into a folder (SPEC section 10), over the opened model (shards.c) and the
 * whole-file conversion of each shard (convert_all.c).
 *
 *     convert INDEX -o OUTDIR/ [rules]           every shard, then the index
 *     convert INDEX -o OUTDIR/ --shard FILE      one shard (a job of many)
 *     convert INDEX -o OUTDIR/ --index-only      the index of converted shards
 *     convert INDEX -o OUTDIR/ --max-shard-size S    re-sharded: merged or split
 *
 * The rules (--to, --to-type, --select, --exclude) are checked over the
 * whole model, so each shard's job can change nothing without being an
 * error.  A whole conversion writes into a temporary folder beside OUTDIR
 * (registered: a signal removes it with what it holds), shards in
 * parallel, and renames it into place only when every shard and the index
 * are written.
 */
#define _DEFAULT_SOURCE 1           /* mkdtemp */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* ---- whole-model conversion ---------------------------------------------- */

/* Makes the folders of a shard's path (sub/x.safetensors) under dir. */
static int make_parents(const char *dir, const char *shard)
{
    char path[4096 + 256];
    int n = snprintf(path, sizeof path, "%s/", dir);
    for (const char *p = shard; *p; p++) {
        if (*p == '/' && mkdir(path, 0777) != 0 && errno != EEXIST) {
            cli_report_errno(path, "cannot make the folder");
            return CLI_IO;
        }
        if (n + 1 < (int)sizeof path) {
            path[n++] = *p;
            path[n] = '\0';
        }
    }
    return CLI_OK;
}

/* The views of s's shards that pair scaled weights across them
 * (tl_scaled_views).  @return CLI_OK, or a status after a message (a
 * companion of the wrong type or shape). */
static int pair_views(const struct cli_shards *s, struct tl_scaled_views *v)
{
    const uint8_t **bytes = malloc((s->x.nshards ? s->x.nshards : 1) * sizeof *bytes);
    struct tl_error err = { 0 };
    if (!bytes)
        return cli_oom();
    for (size_t k = 0; k < s->x.nshards; k++)
        bytes[k] = s->data[k].bytes;
    int rc = tl_scaled_views(s->files, bytes, s->x.nshards, v, &err);
    free(bytes);
    if (rc)
        cli_report(s->name, &err);
    return rc == TL_E_NOMEM ? CLI_IO : rc ? CLI_INVALID : CLI_OK;
}

struct shard_jobs {
    const struct cli_shards *s;
    const struct tl_scaled_views *views;   /* the shards' views, or NULL: the shards */
    struct cli_whole w;
    const char *dir, *outdir;           /* where shards are written; where they will be */
    size_t only;                        /* one shard, or SIZE_MAX for all */
    atomic_bool failed;
    atomic_int rc;
    uint64_t *bytes;                    /* each shard's tensors' bytes */
};

/* Shard number k converted (a job of the library's pool, tl_jobs_run). */
static void shard_job(void *arg, unsigned who, size_t k)
{
    struct shard_jobs *j = arg;
    (void)who;
    if (atomic_load(&j->failed) || (j->only != SIZE_MAX && k != j->only))
        return;
    char out[4096 + 256], shown[4096 + 256], name[256];
    cli_shard_written(j->s, k, name, sizeof name);
    snprintf(out, sizeof out, "%s/%s", j->dir, name);
    snprintf(shown, sizeof shown, "%s/%s", j->outdir, name);
    struct cli_whole w = j->w;
    w.out = out;
    w.shown = shown;
    w.name = j->s->data[k].name;
    int rc = make_parents(j->dir, name);
    if (j->views)
        w.row_file = (const uint8_t *const *)j->views->row_file[k];
    if (rc == CLI_OK)
        rc = cli_convert_whole(&w, j->views ? &j->views->f[k] : &j->s->files[k],
                               &j->s->data[k], &j->bytes[k]);
    if (rc) {
        int zero = 0;
        atomic_compare_exchange_strong(&j->rc, &zero, rc);
        atomic_store(&j->failed, true);
    }
}

/* Converts the shards (all, or only one) into dir, in parallel up to the
 * threads the conversion may use. */
static int convert_shards(const struct cli_shards *s, const struct tl_scaled_views *views,
                          const struct cli_whole *w, const char *dir, const char *outdir,
                          size_t only, uint64_t *total)
{
    struct shard_jobs j = { .s = s, .views = views, .w = *w, .dir = dir, .outdir = outdir,
                            .only = only };
    atomic_init(&j.failed, false);
    atomic_init(&j.rc, 0);
    j.bytes = calloc(s->x.nshards ? s->x.nshards : 1, sizeof *j.bytes);
    if (!j.bytes) {
        cli_oom();
        return CLI_IO;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned want = w->threads ? w->threads : cpus > 0 ? (unsigned)cpus : 1;
    size_t jobs = only != SIZE_MAX ? 1 : s->x.nshards;
    unsigned par = jobs < want ? (unsigned)jobs : want;
    if (par == 0)
        par = 1;
    j.w.threads = want / par ? want / par : 1;
    j.w.part = true;
    j.w.json = false;
    j.w.quiet = w->quiet || par > 1;    /* one bar per shard would tangle */
    tl_jobs_run(par, s->x.nshards, shard_job, &j);
    *total = 0;
    for (size_t k = 0; k < s->x.nshards; k++)
        *total += j.bytes[k];
    free(j.bytes);
    return atomic_load(&j.rc);
}

/* Writes an index's text (from cJSON_Print: room for one byte more) into
 * dir/name, with a newline, and frees it. */
static int put_index(char *text, const char *dir, const char *name)
{
    char path[4096 + 512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len = strlen(text);
    text[len] = '\n';
    struct cli_out o;
    int rc = cli_out_open(&o, path, len + 1);
    if (rc == CLI_OK) {
        memcpy(o.bytes, text, len + 1);
        rc = cli_out_commit(&o);
    }
    free(text);
    return rc;
}

/* Writes the index into dir: the source's text with total_size and the
 * weight map of the shards as written (c's files, read from where they
 * were written): each name of the index whose shard still holds it, in
 * the index's order, then the names a conversion made there (MXFP4's W
 * for W_blocks).  The scales decoded into their weights are in no shard,
 * so in no map (SPEC 23). */
static int write_index(const struct cli_shards *c, const char *dir, const char *name,
                       uint64_t total)
{
    size_t n = 0, m = 0, nsh = c->x.nshards;
    for (size_t k = 0; k < nsh; k++)
        n += c->files[k].count;
    const char **names = malloc((n ? n : 1) * sizeof *names);
    const char **files = malloc((n ? n : 1) * sizeof *files);
    char (*on)[256] = calloc(nsh ? nsh : 1, sizeof *on);
    size_t *first = calloc(nsh + 1, sizeof *first);
    bool *used = calloc(n ? n : 1, sizeof *used);
    if (!names || !files || !on || !first || !used) {
        free(names);
        free(files);
        free(on);
        free(first);
        free(used);
        cli_oom();
        return CLI_IO;
    }
    for (size_t k = 0; k < nsh; k++) {
        cli_shard_written(c, k, on[k], sizeof on[k]);
        first[k + 1] = first[k] + c->files[k].count;
    }
    for (size_t i = 0; i < c->x.count; i++) {
        size_t k = c->x.shard[i];
        const struct tl_file_tensor *t = tl_file_find(&c->files[k], c->x.names[i]);
        if (!t)
            continue;
        used[first[k] + (size_t)(t - c->files[k].tensors)] = true;
        names[m] = c->x.names[i];
        files[m++] = on[k];
    }
    for (size_t k = 0; k < nsh; k++) {
        for (size_t r = 0; r < c->files[k].count; r++) {
            if (!used[first[k] + r]) {
                names[m] = c->files[k].tensors[r].name;
                files[m++] = on[k];
            }
        }
    }
    char *text = NULL;
    struct tl_error err = { 0 };
    int rc = CLI_OK;
    if (tl_shard_index_write_map((const char *)c->index.bytes, (size_t)c->index.size, total,
                                 names, files, m, &text, &err)) {
        cli_report(c->name, &err);
        rc = err.code == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    free(names);
    free(files);
    free(on);
    free(first);
    free(used);
    return rc ? rc : put_index(text, dir, name);
}

/* The model of index_path as its shards were converted into dir: c, to
 * close with cli_shards_close.  @return a CLI_* status. */
static int open_converted(const struct cli_shards *s, const char *index_path, const char *dir,
                          struct cli_shards *c)
{
    int rc = cli_shards_open(index_path, false, c);
    if (rc)
        return rc;
    c->renamed = s->renamed;
    c->converted = true;
    c->left_out = s->left_out;
    c->left_ctx = s->left_ctx;
    size_t len = strlen(dir);
    if (len >= sizeof c->dir)
        len = sizeof c->dir - 1;
    memcpy(c->dir, dir, len);
    c->dir[len] = '\0';
    if ((rc = cli_shards_load(c)))
        cli_shards_close(c);
    return rc;
}

/* The index's own file name. */
static const char *index_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The converted index's name: a PyTorch model's (pytorch_model.bin.index.json)
 * becomes model.safetensors.index.json, any other keeps its own. */
static const char *out_index_name(const struct cli_shards *s, const char *path, char *buf,
                                  size_t n)
{
    return s->renamed ? tl_index_safetensors_name(index_name(path), buf, n) : index_name(path);
}

/* Names added to a note's list: the first few, then how many more. */
struct named {
    char text[512];
    size_t n;
};

static void name_add(struct named *l, const char *name)
{
    char q[96];
    size_t len = strlen(l->text);
    if (l->n++ < 6)
        snprintf(l->text + len, sizeof l->text - len, "%s%s", len ? ", " : "",
                 tl_quote(name, q, sizeof q));
}

static const char *name_list(struct named *l)
{
    size_t len = strlen(l->text);
    if (l->n > 6)
        snprintf(l->text + len, sizeof l->text - len, " and %zu more", l->n - 6);
    return l->text;
}

/* Copies file name of folder `from` into dir.  @return CLI_OK or CLI_IO. */
static int copy_one(const char *from, const char *name, const char *dir)
{
    char src[4096 + 256], dst[4096 + 256];
    snprintf(src, sizeof src, "%s/%s", from, name);
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    int rc = CLI_OK, in = open(src, O_RDONLY | O_NOFOLLOW),
        out = in < 0 ? -1 : open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    char buf[1 << 16];
    ssize_t n = 0;
    while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (cli_write_all(out, buf, (uint64_t)n) != 0)
            n = -1;
    if (in < 0 || out < 0 || n < 0) {
        cli_report_errno(in < 0 ? src : dst, "cannot copy the model's file");
        rc = CLI_IO;
    }
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0 && rc == CLI_OK) {
        cli_report_errno(dst, "cannot copy the model's file");
        rc = CLI_IO;
    }
    return rc;
}

/* config.json of folder `from` into dir without its quantization_config
 * (tl_config_unquantized).  @return CLI_OK, CLI_INVALID (no JSON object) or
 * CLI_IO after a message. */
static int config_unquantized(const char *from, const char *dir)
{
    char src[4096 + 32], dst[4096 + 32];
    snprintf(src, sizeof src, "%s/config.json", from);
    snprintf(dst, sizeof dst, "%s/config.json", dir);
    struct cli_data d;
    int rc = cli_open_data(src, &d);
    if (rc)
        return rc;
    char *text = NULL;
    struct tl_error err = { 0 };
    rc = tl_config_unquantized((const char *)d.bytes, (size_t)d.size, &text, &err);
    cli_close_data(&d);
    if (rc) {
        cli_report(src, &err);
        return rc == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    int fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0 || cli_write_all(fd, text, strlen(text)) != 0)
        rc = (cli_report_errno(dst, "cannot write"), CLI_IO);
    if (fd >= 0 && close(fd) != 0 && rc == CLI_OK)
        rc = (cli_report_errno(dst, "cannot write"), CLI_IO);
    free(text);
    return rc;
}

/* Copies the files of the model's folder that a loader reads (config.json,
 * the tokenizer's files: what makes it a loadable folder, SPEC 19 and 23)
 * into dir, and says which were copied and which were not: the other
 * regular files but the index, the shards, weights and hidden files. */
static int copy_others(const struct cli_shards *s, const char *index_path, const char *dir,
                       bool quiet, bool unquantized)
{
    char from[4096], src[4096 + 256], q[128];
    snprintf(from, sizeof from, "%s", index_path);
    char *slash = strrchr(from, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(from, sizeof from, ".");
    struct dirent **list;
    int count = scandir(from, &list, NULL, alphasort);     /* named in order */
    if (count < 0) {
        cli_report_errno(from, "cannot read the folder");
        return CLI_IO;
    }
    int rc = CLI_OK;
    struct named copied = { "", 0 }, left = { "", 0 };
    for (int k = 0; rc == CLI_OK && k < count; k++) {
        const struct dirent *e = list[k];
        struct stat st;
        bool shard = false;
        for (size_t i = 0; i < s->x.nshards; i++)
            shard |= strcmp(e->d_name, s->x.shards[i]) == 0;
        snprintf(src, sizeof src, "%s/%s", from, e->d_name);
        if (e->d_name[0] == '.' || shard || strcmp(e->d_name, index_name(index_path)) == 0 ||
            tl_folder_file(e->d_name) == TL_FOLDER_WEIGHTS || lstat(src, &st) != 0)
            continue;
        bool loader = tl_folder_file(e->d_name) == TL_FOLDER_LOADER;
        if (S_ISLNK(st.st_mode) && loader)    /* a link may lead anywhere */
            cli_note("%s: is a symbolic link: not copied (only the regular files of the "
                     "model's folder are)\n", tl_quote(src, q, sizeof q));
        if (!S_ISREG(st.st_mode))
            continue;
        if (!loader) {
            name_add(&left, e->d_name);
            continue;
        }
        name_add(&copied, e->d_name);
        rc = unquantized && strcmp(e->d_name, "config.json") == 0
           ? config_unquantized(from, dir) : copy_one(from, e->d_name, dir);
    }
    for (int k = 0; k < count; k++)
        free(list[k]);
    free(list);
    if (rc == CLI_OK && !quiet && (copied.n || left.n))
        cli_note("%s: copied %s%s%s\n", tl_quote(from, q, sizeof q),
                 copied.n ? name_list(&copied) : "no file a loader reads",
                 left.n ? "; not copied (no loader reads them): " : "",
                 left.n ? name_list(&left) : "");
    return rc;
}

/* ---- re-sharding ------------------------------------------------------------
 * The converted shards (or, with no rule, the input's own safetensors
 * shards) are laid out again: their tensors in shard and file order, into
 * shards of at most max bytes of tensors each (a tensor larger than max
 * alone in one), named as Hugging Face's save_pretrained names them
 * (PREFIX-00001-of-00003.safetensors; PREFIX.safetensors alone, and no
 * index, when one shard holds them all), each tensor's bytes carried as
 * they are. */

/* Writes out shard j of r: its header, then its tensors' bytes. */
static int write_out_shard(const struct cli_shards *from, const struct tl_reshard *r, size_t j,
                           const char *path, unsigned threads)
{
    uint8_t *header = NULL;
    size_t hlen = 0;
    uint64_t bytes = 0;
    struct tl_error err = { 0 };
    /* the rules the shards were converted with are the jobs' record, which
     * a re-sharded model needs not */
    int rc = tl_reshard_header(r, from->files, j, CLI_RULES_KEY, &header, &hlen, &bytes, &err);
    if (rc) {
        cli_report(path, &err);
        return rc == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    }
    struct cli_writer wr;
    if ((rc = cli_writer_open(&wr, path, hlen + bytes, threads, false, NULL)) == CLI_OK) {
        rc = tl_writer_put(&wr.w, header, hlen, &err);
        for (size_t i = 0; rc == 0 && i < r->n; i++) {
            if (r->at[i].out != j)
                continue;
            const struct tl_file_tensor *t = &from->files[r->at[i].file].tensors[r->at[i].tensor];
            struct tl_input in = cli_input(&from->data[r->at[i].file], NULL);
            rc = tl_writer_carry(&wr.w, &in, t->begin, t->end - t->begin, &err);
        }
        if ((rc = cli_writer_status(&wr, rc, &err)) == CLI_OK)
            rc = cli_writer_commit(&wr);
        else
            cli_writer_abort(&wr);
    }
    free(header);
    return rc;
}

/* The index of r's shards written into dir (when there are several). */
static int write_reshard_index(const struct cli_shards *from, const struct tl_reshard *r,
                               char (*on)[256], const char *dir)
{
    const char **tn = calloc(r->n ? r->n : 1, sizeof *tn), **tf = calloc(r->n ? r->n : 1, sizeof *tf);
    if (!tn || !tf) {
        free(tn);
        free(tf);
        return cli_oom();
    }
    for (size_t i = 0; i < r->n; i++) {
        tn[i] = from->files[r->at[i].file].tensors[r->at[i].tensor].name;
        tf[i] = on[r->at[i].out];
    }
    char *text = NULL, name[300];
    struct tl_error err = { 0 };
    int rc = CLI_OK;
    if (tl_shard_index_write_map((const char *)from->index.bytes, (size_t)from->index.size,
                                 r->total, tn, tf, r->n, &text, &err)) {
        cli_report(from->name, &err);
        rc = err.code == TL_E_NOMEM ? CLI_IO : CLI_INVALID;
    } else {
        tl_reshard_index_name(r, name, sizeof name);
        rc = put_index(text, dir, name);
    }
    free(tn);
    free(tf);
    return rc;
}

/* Re-shards the shards of from into dir (see above), with the index
 * (index_text, its metadata kept) named after index_name; *count is the
 * number of shards written, and names[0 .. *count) (when not NULL, room
 * for every tensor) their names. */
static int reshard(const struct cli_shards *from, const char *dir, const char *index_name,
                   uint64_t max, unsigned threads, uint64_t *total, size_t *count,
                   char (*names)[256])
{
    struct tl_reshard r;
    if (tl_reshard_plan(from->files, from->x.nshards, max, index_name, &r))
        return cli_oom();
    char (*on)[256] = calloc(r.nout, sizeof *on), path[4096 + 512];
    if (!on) {
        tl_reshard_free(&r);
        return cli_oom();
    }
    int rc = CLI_OK;
    for (size_t j = 0; rc == CLI_OK && j < r.nout; j++) {
        tl_reshard_name(&r, j, on[j], sizeof on[j]);
        snprintf(path, sizeof path, "%s/%s", dir, on[j]);
        rc = write_out_shard(from, &r, j, path, threads);
    }
    if (rc == CLI_OK && r.nout > 1)
        rc = write_reshard_index(from, &r, on, dir);
    *total = r.total;
    *count = r.nout;
    for (size_t j = 0; names && j < r.nout; j++)
        memcpy(names[j], on[j], sizeof on[j]);
    free(on);
    tl_reshard_free(&r);
    return rc;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether dir is missing, or an empty folder. */
static bool dir_free(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT;
    struct dirent *e;
    bool empty = true;
    while ((e = readdir(d)))
        empty &= strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    return empty;
}

/* OUT as a folder's path, without the slashes it ends with. */
static void outdir_of(const char *out, char *outdir, size_t cap)
{
    snprintf(outdir, cap, "%s", out);
    for (size_t n = strlen(outdir); n > 1 && outdir[n - 1] == '/';)
        outdir[--n] = '\0';
}

/* Whether a model may be written as outdir: it is missing or an empty
 * folder, or a folder force replaces.  @return CLI_OK, or CLI_USAGE after
 * the message. */
static int outdir_usable(const char *outdir, bool force)
{
    char q[128];
    if (dir_free(outdir) || (force && is_dir(outdir)))
        return CLI_OK;
    cli_error("%s: exists and is not an empty folder: a model is written into a new or empty "
              "one, whole, then put in place (--force replaces it)",
              tl_quote(outdir, q, sizeof q));
    return CLI_USAGE;
}


/* The rules converted shard k records (CLI_RULES_KEY), or NULL. */
static const char *shard_rules(const struct cli_shards *s, size_t k)
{
    for (size_t i = 0; i < s->files[k].nmeta; i++)
        if (strcmp(s->files[k].meta[i].key, CLI_RULES_KEY) == 0)
            return s->files[k].meta[i].value;
    return NULL;
}

/* --index-only's check (SPEC 19): every converted shard records the rules
 * it was converted with, the same for all, and the same as those given to
 * --index-only when it is given some. */
static int shards_agree(const struct cli_shards *s, const char *given)
{
    char qa[128], qb[128];
    const char *first = s->x.nshards ? shard_rules(s, 0) : "";
    for (size_t k = 0; k < s->x.nshards; k++) {
        const char *r = shard_rules(s, k);
        char name[256];
        cli_shard_written(s, k, name, sizeof name);
        if (!r) {
            cli_error("%s: converted shard '%s' holds no record of the rules "
                    "it was converted with (its __metadata__ has no %s): convert it with "
                    "'tensorlayout convert INDEX --shard %s' and the other shards' rules",
                    s->name, tl_quote(name, qa, sizeof qa), CLI_RULES_KEY, s->x.shards[k]);
            return CLI_INVALID;
        }
        if (strcmp(r, first) != 0) {
            char first_name[256];
            cli_shard_written(s, 0, first_name, sizeof first_name);
            cli_error("%s: the converted shards disagree: '%s' was converted "
                    "with '%s', '%s' with '%s': convert them again with the same rules",
                    s->name, tl_quote(first_name, qa, sizeof qa), first[0] ? first : "no rule",
                    tl_quote(name, qb, sizeof qb), r[0] ? r : "no rule");
            return CLI_INVALID;
        }
    }
    if (given[0] && first && strcmp(given, first) != 0) {
        cli_error("%s: the shards were converted with '%s', not with the "
                "rules given here, '%s': give --index-only the jobs' rules, or none", s->name,
                first[0] ? first : "no rule", given);
        return CLI_INVALID;
    }
    return CLI_OK;
}

/* A temporary folder beside outdir, registered (a signal removes it):
 * @return it, or NULL after a message. */
static struct cli_tmp *tmp_beside(const char *outdir, char *tmp, size_t n)
{
    char copy[4096], copy2[4096];
    snprintf(copy, sizeof copy, "%s", outdir);
    snprintf(copy2, sizeof copy2, "%s", outdir);
    snprintf(tmp, n, "%s/.%s.tmp-XXXXXX", dirname(copy2), basename(copy));
    struct cli_tmp *reg = cli_tmp_make(tmp, true, outdir, NULL);
    if (!reg)
        cli_report_errno(outdir, "cannot make a temporary folder beside it");
    return reg;
}

/* Renames folder tmp to outdir; an outdir that holds files (--force) is
 * moved aside first, and removed once tmp is in its place (put back when
 * tmp cannot be).  @return CLI_OK or CLI_IO after a message. */
static int put_in_place(const char *tmp, const char *outdir)
{
    char old[4096 + 64];
    if (rename(tmp, outdir) == 0)
        return CLI_OK;
    if ((errno != ENOTEMPTY && errno != EEXIST) || !is_dir(outdir)) {
        cli_report_errno(outdir, "cannot put the converted model in place");
        return CLI_IO;
    }
    struct cli_tmp *reg = tmp_beside(outdir, old, sizeof old);
    if (!reg)
        return CLI_IO;
    /* a name of our own beside outdir, never removed by an interrupt: the
     * model replaced lies there until the new one is in place */
    cli_tmp_forget(reg);
    rmdir(old);
    int rc = CLI_OK;
    if (rename(outdir, old) != 0 || rename(tmp, outdir) != 0) {
        cli_report_errno(outdir, "cannot put the converted model in place");
        rename(old, outdir);            /* as it was, when it had moved */
        rc = CLI_IO;
    } else {
        cli_remove_tree(old);           /* the model replaced */
    }
    return rc;
}

/* After rc == CLI_OK, puts the folder tmp (registered as reg) in place as
 * outdir, with a new folder's mode (mkdtemp made it 0700); else, or when
 * that fails, removes it.  @return the status. */
static int folder_in_place(int rc, const char *tmp, struct cli_tmp *reg, const char *outdir)
{
    if (rc == CLI_OK)
        rc = put_in_place(tmp, outdir);
    if (rc && reg)
        cli_remove_tree(tmp);
    if (reg)
        cli_tmp_forget(reg);
    if (rc == CLI_OK) {
        mode_t mask = umask(0);
        umask(mask);
        chmod(outdir, 0777 & ~mask);
    }
    return rc;
}

/* Re-shards the model s into stage (see reshard): from its own shards when
 * no rule changes them (safetensors already), else from those converted
 * into tmp. */
static int reshard_model(struct cli_shards *s, const struct cli_whole *w, const char *index_path,
                         bool converted, const char *tmp, const char *stage, uint64_t max,
                         uint64_t *total, size_t *count, char (*names)[256])
{
    struct cli_shards c;
    struct cli_shards *from = s;
    char oname[256];
    int rc = CLI_OK;
    if (converted) {
        if ((rc = open_converted(s, index_path, tmp, &c)))
            return rc;
        from = &c;
    }
    rc = reshard(from, stage, out_index_name(s, index_path, oname, sizeof oname), max,
                 w->threads ? w->threads : 1, total, count, names);
    if (converted)
        cli_shards_close(&c);
    return rc;
}

/* The model of index_path opened and its shards read: from OUTDIR as
 * converted (--index-only), else beside the index; PyTorch shards are
 * renamed into safetensors ones (SPEC 17).  @return a CLI_* status
 * (then nothing to close). */
static int open_model(const struct cli_whole *w, const char *index_path, bool index_only,
                      const char *outdir, struct cli_shards *s)
{
    char oname[256];
    int rc = cli_shards_open(index_path, false, s);
    if (rc)
        return rc;
    for (size_t k = 0; k < s->x.nshards; k++)
        s->renamed |= w->format->id == TL_FMT_SAFETENSORS &&
                      tl_shard_safetensors_name(s->x.shards[k], oname, sizeof oname);
    if (w->nonly || w->ndrop) {         /* the tensors the rules leave out */
        s->left_out = cli_whole_leaves_out;
        s->left_ctx = w;
    }
    if (index_only) {
        snprintf(s->dir, sizeof s->dir, "%s", outdir);
        s->converted = true;
    }
    if ((rc = cli_shards_load(s)))
        cli_shards_close(s);
    return rc;
}

/* The place of --shard FILE among s's shards (*only), or SIZE_MAX when
 * none is asked for.  @return CLI_OK, or CLI_INVALID after a message. */
static int shard_asked(const struct cli_shards *s, const char *shard, size_t *only)
{
    char q[128];
    *only = SIZE_MAX;
    if (!shard)
        return CLI_OK;
    for (size_t k = 0; k < s->x.nshards && *only == SIZE_MAX; k++)
        *only = strcmp(s->x.shards[k], shard) == 0 ? k : SIZE_MAX;
    if (*only != SIZE_MAX)
        return CLI_OK;
    cli_error("%s: --shard '%s' is not one of its shards ('%s' to '%s')", s->name,
              tl_quote(shard, q, sizeof q), s->x.nshards ? s->x.shards[0] : "",
              s->x.nshards ? s->x.shards[s->x.nshards - 1] : "");
    return CLI_INVALID;
}

/* --index-only: OUTDIR's index of the shards the jobs converted there,
 * which must agree on their rules, and the model's other files. */
static int index_of_jobs(const struct cli_shards *s, const char *index_path, const char *outdir,
                         const char *rules, bool quiet)
{
    char oname[256];
    uint64_t total = 0;
    int rc = shards_agree(s, rules);
    if (rc)
        return rc;
    for (size_t k = 0; k < s->x.nshards; k++)
        for (size_t i = 0; i < s->files[k].count; i++)
            total += s->files[k].tensors[i].end - s->files[k].tensors[i].begin;
    rc = write_index(s, outdir, out_index_name(s, index_path, oname, sizeof oname), total);
    return rc ? rc : copy_others(s, index_path, outdir, quiet, false);
}

/* The model's scaled weights, paired over its shards (decoded by
 * --dequantize and by a floating --to-type): *views, none when nothing
 * pairs.  @return CLI_OK, or a status after a message (--dequantize of a
 * model without pairs is one). */
static int model_pairs(const struct cli_shards *s, const struct cli_whole *w,
                       struct tl_scaled_views *views)
{
    memset(views, 0, sizeof *views);
    int rc = w->dequantize || w->to_type ? pair_views(s, views) : CLI_OK;
    if (rc == CLI_OK && w->dequantize && !views->npairs) {
        cli_error("%s: --dequantize: no scaled weights in any shard (a FLOAT8E4M3 W beside "
                  "FLOAT32 W_scale_inv, or UINT8 W_blocks beside W_scales)", s->name);
        tl_scaled_views_free(views);
        rc = CLI_INVALID;
    }
    return rc;
}

/* The index of the shards converted into tmp, written there; a shard
 * left with nothing (it held only scales, decoded elsewhere) removed. */
static int index_of_converted(const struct cli_shards *s, const char *index_path,
                              const char *tmp, uint64_t total)
{
    struct cli_shards c;
    char oname[256];
    int rc = open_converted(s, index_path, tmp, &c);
    if (rc)
        return rc;
    rc = write_index(&c, tmp, out_index_name(s, index_path, oname, sizeof oname), total);
    for (size_t k = 0; rc == CLI_OK && k < s->x.nshards; k++) {
        char path[4096 + 512], on[256];
        cli_shard_written(s, k, on, sizeof on);
        snprintf(path, sizeof path, "%s/%s", tmp, on);
        if (c.files[k].count == 0 && s->files[k].count > 0)
            unlink(path);
    }
    cli_shards_close(&c);
    return rc;
}

/* What a whole model's conversion wrote: its shards' names (names, when
 * re-sharded, else s's as written), for --json. */
struct model_out {
    uint64_t total;
    size_t nout;
    char (*names)[256];
};

/* The whole model converted (and re-sharded at max_shard bytes, when not
 * 0) into a temporary folder beside outdir, its index and other files
 * written there, then put in place as outdir.  @return a CLI_* status. */
static int whole_model(struct cli_shards *s, const struct tl_scaled_views *vs,
                       const struct cli_whole *w, const char *index_path, const char *outdir,
                       uint64_t max_shard, struct model_out *o)
{
    char tmp[4096 + 64], stage[4096 + 64];
    struct cli_tmp *reg = tmp_beside(outdir, tmp, sizeof tmp), *reg2 = NULL;
    if (!reg)
        return CLI_IO;
    /* re-sharding a model no rule changes reads its own shards */
    bool convert = !max_shard || w->nto || w->to_type || w->dequantize || s->renamed;
    int rc = convert ? convert_shards(s, vs, w, tmp, outdir, SIZE_MAX, &o->total) : CLI_OK;
    o->nout = s->x.nshards;
    if (rc == CLI_OK && max_shard) {
        size_t all = 1;
        for (size_t k = 0; k < s->x.nshards; k++)
            all += s->files[k].count;
        if (!(o->names = calloc(all, sizeof *o->names)) ||
            !(reg2 = tmp_beside(outdir, stage, sizeof stage)))
            rc = CLI_IO;
        if (rc == CLI_OK)
            rc = reshard_model(s, w, index_path, convert, tmp, stage, max_shard, &o->total,
                               &o->nout, o->names);
        cli_remove_tree(tmp);            /* the shards read, converted */
        cli_tmp_forget(reg);
        reg = reg2;
        if (reg)
            snprintf(tmp, sizeof tmp, "%s", stage);
    } else if (rc == CLI_OK) {
        rc = index_of_converted(s, index_path, tmp, o->total);
    }
    if (rc == CLI_OK)
        rc = copy_others(s, index_path, tmp, w->quiet, vs && tl_scaled_views_grouped(vs));
    return folder_in_place(rc, tmp, reg, outdir);
}

/* --json of a whole model's conversion: its format, shards, total size. */
static int print_model(const struct cli_shards *s, const struct model_out *o)
{
    cJSON *doc = cJSON_CreateObject(), *arr = NULL;
    bool one = o->names && o->nout == 1;        /* merged into one file: no index */
    bool ok = doc && cJSON_AddStringToObject(doc, "format", one ? "safetensors"
                                                                : "safetensors index") &&
              (arr = cJSON_AddArrayToObject(doc, "shards")) &&
              tl_json_add_u64(doc, "totalSize", o->total);
    for (size_t k = 0; ok && k < o->nout; k++) {
        char on[256];
        if (!o->names)
            cli_shard_written(s, k, on, sizeof on);
        ok = cJSON_AddItemToArray(arr, cJSON_CreateString(o->names ? o->names[k] : on));
    }
    if (!ok) {
        cJSON_Delete(doc);
        doc = NULL;
    }
    return cli_print_json(doc);
}

int cli_convert_shards(const struct cli_whole *w, const char *index_path, const char *shard,
                       bool index_only, uint64_t max_shard)
{
    struct cli_shards s;
    char outdir[4096], rules[1024];
    outdir_of(w->out, outdir, sizeof outdir);
    struct cli_whole wr = *w;           /* each shard records its rules */
    cli_whole_rules(w, rules, sizeof rules);
    wr.rules = rules;
    w = &wr;
    size_t only;
    int rc = open_model(w, index_path, index_only, outdir, &s);
    if (rc)
        return rc;
    if ((rc = shard_asked(&s, shard, &only)) || index_only) {
        rc = rc ? rc : index_of_jobs(&s, index_path, outdir, rules, w->quiet);
        cli_shards_close(&s);
        return rc;
    }
    struct tl_scaled_views views;
    if ((rc = cli_whole_check(w, s.files, s.x.nshards)) || (rc = model_pairs(&s, w, &views))) {
        cli_shards_close(&s);
        return rc;
    }
    const struct tl_scaled_views *vs = views.npairs ? &views : NULL;
    struct model_out o = { 0 };
    if (shard) {                        /* one job of many: straight into OUTDIR */
        if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
            cli_report_errno(outdir, "cannot make the folder");
            rc = CLI_IO;
        } else {
            rc = convert_shards(&s, vs, w, outdir, outdir, only, &o.total);
        }
    } else if ((rc = outdir_usable(outdir, w->force)) == CLI_OK) {
        rc = whole_model(&s, vs, w, index_path, outdir, max_shard, &o);
        if (rc == CLI_OK && w->json)
            rc = print_model(&s, &o);
    }
    tl_scaled_views_free(&views);
    free(o.names);
    cli_shards_close(&s);
    return rc;
}

/* ---- one file into shards (SPEC 23) ---------------------------------------- */

/* The safetensors file at path opened as a model of one shard, with an
 * index of no metadata: what reshard() reads.  @return a CLI_* status
 * (then nothing to close). */
static int open_as_model(const char *path, const char *name, struct cli_shards *s)
{
    static const char index[] = "{\"metadata\": {}, \"weight_map\": {}}";
    struct tl_error err = { 0 };
    enum tl_format format;
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->files = calloc(1, sizeof *s->files);
    s->data = calloc(1, sizeof *s->data);
    s->x.shards = calloc(1, sizeof *s->x.shards);
    s->index.heap = (unsigned char *)strdup(index);
    if (!s->files || !s->data || !s->x.shards || !s->index.heap ||
        !(s->x.shards[0] = strdup(path))) {
        cli_shards_close(s);
        return cli_oom();
    }
    s->x.nshards = 1;
    s->index.bytes = s->index.heap;
    s->index.size = sizeof index - 1;
    int rc = cli_open_file(path, &s->data[0], &format);
    if (rc == CLI_OK && tl_file_parse(s->data[0].bytes, s->data[0].size, &s->files[0], &err)) {
        cli_report(s->data[0].name, &err);
        rc = CLI_INVALID;
    }
    if (rc)
        cli_shards_close(s);
    return rc;
}

int cli_reshard_file(const struct cli_whole *w, const struct tl_file *f, const struct cli_data *in,
                     const char *path, uint64_t max_shard)
{
    char outdir[4096], tmp[4096 + 64], stage[4096 + 64], conv[4096 + 128];
    outdir_of(w->out, outdir, sizeof outdir);
    int rc = outdir_usable(outdir, w->force);
    if (rc)
        return rc;
    /* safetensors already, and no rule: its own bytes are laid out again */
    bool convert = f->format != TL_FMT_SAFETENSORS || w->nto || w->to_type || w->dequantize ||
                   w->nonly || w->ndrop;
    struct cli_tmp *reg = convert ? tmp_beside(outdir, tmp, sizeof tmp) : NULL, *reg2 = NULL;
    if (convert && !reg)
        return CLI_IO;
    struct model_out o = { 0 };
    if (convert) {
        struct cli_whole wc = *w;
        snprintf(conv, sizeof conv, "%s/model.safetensors", tmp);
        wc.out = conv;
        wc.shown = w->out;
        wc.json = false;
        wc.format = tl_format_entry(TL_FMT_SAFETENSORS);
        rc = cli_convert_whole(&wc, f, in, NULL);
    }
    struct cli_shards one;
    if (rc == CLI_OK && (rc = open_as_model(convert ? conv : path, w->name, &one)) == CLI_OK) {
        size_t all = one.files[0].count + 1;
        if (!(o.names = calloc(all, sizeof *o.names)))
            rc = cli_oom();
        else if (!(reg2 = tmp_beside(outdir, stage, sizeof stage)))
            rc = CLI_IO;
        if (rc == CLI_OK)
            rc = reshard(&one, stage, "model.safetensors.index.json", max_shard,
                         w->threads ? w->threads : 1, &o.total, &o.nout, o.names);
        cli_shards_close(&one);
    }
    if (reg) {
        cli_remove_tree(tmp);
        cli_tmp_forget(reg);
    }
    rc = folder_in_place(rc, stage, reg2, outdir);
    if (rc == CLI_OK && w->json)
        rc = print_model(NULL, &o);
    free(o.names);
    return rc;
}
