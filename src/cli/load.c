/*
 * load.c - reading descriptions (a file, '-' or inline JSON) and data files
 * (memory-mapped, or read whole when they are pipes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define DESC_MAX_BYTES (1u << 20)   /* a description larger than 1 MiB is refused */

/* Standard input can be read once: by one DESC or one DATA. */
static const char *stdin_taken;

/* Reads all of fd into a malloc'd buffer (at most max bytes when max > 0).
 * @return 0, -1 with errno set, or 1 when the input exceeds max. */
static int read_all(int fd, size_t max, unsigned char **out, size_t *len)
{
    size_t cap = 65536, n = 0;
    unsigned char *buf = malloc(cap);
    if (!buf)
        return -1;
    for (;;) {
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
        if (max && n > max) {
            free(buf);
            return 1;
        }
    }
    *out = buf;
    *len = n;
    return 0;
}

int cli_load_desc(const char *arg, struct cli_desc *out)
{
    const char *p = arg;
    unsigned char *text = NULL;
    size_t len = 0;
    struct tl_error err = { 0 };
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p == '{') {
        snprintf(out->name, sizeof out->name, "<inline>");
        len = strlen(arg);
        if (len > DESC_MAX_BYTES) {
            fprintf(stderr, "tensorlayout: <inline>: description is larger than 1 MiB\n");
            return CLI_INVALID;
        }
        if (tl_desc_parse_json(arg, len, &out->d, &err)) {
            cli_report(out->name, &err);
            return CLI_INVALID;
        }
    } else {
        int fd;
        if (strcmp(arg, "-") == 0) {
            snprintf(out->name, sizeof out->name, "<stdin>");
            if (stdin_taken) {
                fprintf(stderr, "tensorlayout: standard input is already read as %s\n", stdin_taken);
                return CLI_USAGE;
            }
            stdin_taken = "a description";
            fd = 0;
        } else {
            tl_quote(arg, out->name, sizeof out->name);
            fd = open(arg, O_RDONLY);
            if (fd < 0) {
                cli_report_errno(out->name, "cannot open");
                return CLI_IO;
            }
        }
        int rc = read_all(fd, DESC_MAX_BYTES, &text, &len);
        int e = errno;
        if (fd != 0)
            close(fd);
        if (rc < 0) {
            errno = e;
            cli_report_errno(out->name, "cannot read");
            return CLI_IO;
        }
        if (rc > 0) {
            fprintf(stderr, "tensorlayout: %s: description is larger than 1 MiB\n", out->name);
            return CLI_INVALID;
        }
        rc = tl_desc_parse_json((const char *)text, len, &out->d, &err);
        free(text);
        if (rc) {
            cli_report(out->name, &err);
            return CLI_INVALID;
        }
    }
    tl_desc_classify(&out->d, &out->info);
    return CLI_OK;
}

int cli_open_data(const char *path, struct cli_data *out)
{
    memset(out, 0, sizeof *out);
    int fd;
    if (strcmp(path, "-") == 0) {
        snprintf(out->name, sizeof out->name, "<stdin>");
        if (stdin_taken) {
            fprintf(stderr, "tensorlayout: standard input is already read as %s\n", stdin_taken);
            return CLI_USAGE;
        }
        stdin_taken = "the data";
        fd = 0;
    } else {
        tl_quote(path, out->name, sizeof out->name);
        fd = open(path, O_RDONLY);
        if (fd < 0) {
            cli_report_errno(out->name, "cannot open");
            return CLI_IO;
        }
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        cli_report_errno(out->name, "cannot read");
        if (fd != 0)
            close(fd);
        return CLI_IO;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "tensorlayout: %s: cannot read: Is a directory\n", out->name);
        if (fd != 0)
            close(fd);
        return CLI_IO;
    }
    if (S_ISREG(st.st_mode)) {
        out->size = (uint64_t)st.st_size;
        if (st.st_size > 0) {
            out->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (out->map == MAP_FAILED) {
                out->map = NULL;
                cli_report_errno(out->name, "cannot map");
                if (fd != 0)
                    close(fd);
                return CLI_IO;
            }
            out->bytes = out->map;
        }
    } else {
        size_t len;
        if (read_all(fd, 0, &out->heap, &len) != 0) {
            cli_report_errno(out->name, "cannot read");
            if (fd != 0)
                close(fd);
            return CLI_IO;
        }
        out->bytes = out->heap;
        out->size = len;
    }
    if (fd != 0)
        close(fd);
    return CLI_OK;
}

void cli_close_data(struct cli_data *data)
{
    if (data->map)
        munmap(data->map, (size_t)data->size);
    free(data->heap);
    memset(data, 0, sizeof *data);
}

int cli_require_elements(const struct cli_desc *desc, const struct cli_data *data)
{
    if (data->size >= desc->info.elements_bytes)
        return CLI_OK;
    fprintf(stderr, "tensorlayout: %s: file has %llu bytes but the tensor needs %llu "
            "(byteOffset %llu + span %llu x %u bytes)\n", data->name,
            (unsigned long long)data->size, (unsigned long long)desc->info.elements_bytes,
            (unsigned long long)desc->d.byte_offset, (unsigned long long)desc->info.span,
            tl_dtype_size(desc->d.dtype));
    return CLI_INVALID;
}
