/*
 * shards.c - sharded safetensors models (SPEC section 10): the index
 * (model.safetensors.index.json) as a tensor file whose tensors are its
 * shards'.  Every shard is opened and checked against the index before
 * anything is done: each tensor the index names lies in its shard, and
 * each shard holds only the tensors the index gives it.  Converting a
 * sharded model is shards_convert.c's.
 */
#define _DEFAULT_SOURCE 1           /* mkdtemp */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

void cli_shards_close(struct cli_shards *s)
{
    for (size_t i = 0; s->files && i < s->x.nshards; i++)
        tl_file_free(&s->files[i]);
    for (size_t i = 0; s->data && i < s->x.nshards; i++)
        cli_close_data(&s->data[i]);
    free(s->files);
    free(s->data);
    tl_shard_index_free(&s->x);
    cli_close_data(&s->index);
    memset(s, 0, sizeof *s);
}

/* The path of shard k: beside the index. */
static void shard_path(const struct cli_shards *s, size_t k, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", s->dir, s->x.shards[k]);
}

/* Shard k opened and parsed (s->data[k], s->files[k]). */
static int open_shard(struct cli_shards *s, size_t k)
{
    char path[4096 + 256];
    enum tl_format format;
    struct tl_error err = { 0 };
    shard_path(s, k, path, sizeof path);
    if (s->converted && s->renamed) {   /* --index-only: the shards as converted */
        char out[256];
        cli_shard_written(s, k, out, sizeof out);
        snprintf(path, sizeof path, "%s/%s", s->dir, out);
    }
    struct stat st;
    if (stat(path, &st) != 0 && s->converted) {
        char q[128];
        cli_error("%s: converted shard '%s' is not there (%s): run every "
                "--shard job into it before --index-only", tl_quote(s->dir, q, sizeof q),
                s->x.shards[k], strerror(errno));
        return CLI_INVALID;
    }
    if (stat(path, &st) != 0) {
        cli_error("%s: shard '%s' is missing (%s)", s->name,
                s->x.shards[k], strerror(errno));
        return CLI_INVALID;
    }
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {   /* nothing outside the folder */
        cli_error("%s: shard '%s' is a symbolic link or no regular file: "
                "a model's shards are read only as the regular files of its folder", s->name,
                s->x.shards[k]);
        return CLI_INVALID;
    }
    int rc = cli_open_file(path, &s->data[k], &format);
    if (rc)
        return rc;
    if (format != TL_FMT_SAFETENSORS && format != TL_FMT_PYTORCH) {
        cli_error("%s: shard '%s' is neither a safetensors file nor a "
                "PyTorch checkpoint", s->name, s->x.shards[k]);
        return CLI_INVALID;
    }
    if (tl_file_parse(s->data[k].bytes, s->data[k].size, &s->files[k], &err)) {
        cli_report(s->data[k].name, &err);
        return CLI_INVALID;
    }
    return cli_file_sound(&s->files[k], s->data[k].name);
}

void cli_shard_written(const struct cli_shards *s, size_t k, char *out, size_t n)
{
    if (s->renamed)
        tl_shard_safetensors_name(s->x.shards[k], out, n);
    else
        snprintf(out, n, "%s", s->x.shards[k]);
}

bool cli_index_of_pytorch(const char *path)
{
    struct cli_shards s;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || cli_sniff_arg(path) != TL_FMT_JSON)
        return false;
    struct cli_data d;
    enum tl_format f;
    if (cli_open_file(path, &d, &f))
        return false;
    bool index = tl_shard_index_looks((const char *)d.bytes, (size_t)d.size);
    cli_close_data(&d);
    if (!index)
        return false;
    struct tl_error err = { 0 };
    memset(&s, 0, sizeof s);
    if (cli_open_file(path, &s.index, &f))
        return false;
    bool torch = false;
    if (tl_shard_index_parse((const char *)s.index.bytes, (size_t)s.index.size, &s.x, &err) == 0 &&
        s.x.nshards) {
        char copy[4096], shard[4096 + 256];
        snprintf(copy, sizeof copy, "%s", path);
        snprintf(shard, sizeof shard, "%s/%s", dirname(copy), s.x.shards[0]);
        torch = stat(shard, &st) == 0 && cli_sniff_arg(shard) == TL_FMT_PYTORCH;
    }
    tl_shard_index_free(&s.x);
    cli_close_data(&s.index);
    return torch;
}

/* Every shard holds what the index gives it, and nothing else
 * (tl_shards_check). */
static int check_shards(const struct cli_shards *s)
{
    struct tl_error err = { 0 };
    if (tl_shards_check(&s->x, s->files, s->converted, s->left_out, s->left_ctx, &err) == 0)
        return CLI_OK;
    if (err.code == TL_E_NOMEM)
        return cli_oom();
    cli_report(s->name, &err);
    return CLI_INVALID;
}

int cli_shards_open(const char *path, bool all, struct cli_shards *s)
{
    enum tl_format format;
    struct tl_error err = { 0 };
    memset(s, 0, sizeof *s);
    int rc = cli_open_file(path, &s->index, &format);
    if (rc)
        return rc;
    snprintf(s->name, sizeof s->name, "%s", s->index.name);
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(s->dir, sizeof s->dir, "%s", dirname(copy));
    if (tl_shard_index_parse((const char *)s->index.bytes, (size_t)s->index.size, &s->x, &err)) {
        cli_report(s->name, &err);
        cli_shards_close(s);
        return CLI_INVALID;
    }
    size_t n = s->x.nshards ? s->x.nshards : 1;
    s->data = calloc(n, sizeof *s->data);
    s->files = calloc(n, sizeof *s->files);
    if (!s->data || !s->files) {
        cli_oom();
        cli_shards_close(s);
        return CLI_IO;
    }
    if (all && (rc = cli_shards_load(s)))
        cli_shards_close(s);
    return rc;
}

int cli_shards_load(struct cli_shards *s)
{
    int rc = CLI_OK;
    for (size_t k = 0; rc == CLI_OK && k < s->x.nshards; k++)
        rc = open_shard(s, k);
    return rc ? rc : check_shards(s);
}

int cli_shards_pick(struct cli_shards *s, const char *name, size_t *shard)
{
    char q[64];
    size_t i = 0;
    while (i < s->x.count && strcmp(s->x.names[i], name) != 0)
        i++;
    if (i == s->x.count) {
        const char *near = cli_did_you_mean(name, (const char *const *)s->x.names, s->x.count,
                                            sizeof s->x.names[0]);
        char q2[128];
        cli_error("%s: holds no tensor named '%s' (%s%s%s'tensorlayout list %s' lists them)",
                  s->name, tl_quote(name, q, sizeof q), near ? "did you mean '" : "",
                  near ? tl_quote(near, q2, sizeof q2) : "", near ? "'? " : "", s->name);
        return CLI_INVALID;
    }
    *shard = s->x.shard[i];
    shard_path(s, *shard, s->picked, sizeof s->picked);
    int rc = open_shard(s, *shard);
    if (rc == CLI_OK && !tl_file_find(&s->files[*shard], name)) {
        cli_error("%s: tensor '%s' is in shard '%s' by the index, but that "
                "shard does not hold it", s->name, tl_quote(name, q, sizeof q),
                s->x.shards[*shard]);
        rc = CLI_INVALID;
    }
    return rc;
}
