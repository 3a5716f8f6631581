/*
 * atomic.c - writing an output so that it appears whole or not at all, in
 * the way of git's lockfile: a temporary file in the output's directory,
 * renamed over the output only when everything succeeded, unlinked on
 * every failure and on SIGINT, SIGTERM and SIGHUP.
 *
 * Calling sequence:
 *     struct cli_out o;
 *     cli_out_open(&o, path, size)   -> a zeroed, mapped file of `size` bytes
 *     ... write o.bytes[0 .. size) ...
 *     cli_out_commit(&o) or cli_out_abort(&o)
 *
 * An output that is not a regular file (a device, a FIFO, "-") cannot be
 * renamed over: it is written directly, from a buffer, at commit.  A
 * symbolic link is followed (one level: a link to a link is followed by
 * the next open), so that its target gets the new content.
 *
 * cli_out_open_seq() opens the temporary file to be written in order
 * with cli_out_write() (convert's slabs: the fast way, see cmd_convert.c);
 * cli_out_open() sizes it with ftruncate() and maps it without reserving
 * its blocks first: on tmpfs, reserving (fallocate) and prefaulting
 * (MAP_POPULATE) each cost more than the whole copy.  A file system that
 * runs out of space then raises SIGBUS on the page that cannot be
 * allocated; the handler below removes every temporary file, says so, and
 * exits with status 3, so the contract holds: OUT is as it was and no
 * temporary file remains.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define MAX_PENDING 4

/* Temporary files to remove if a signal ends the program. */
static char pending[MAX_PENDING][PATH_MAX + 32];
static char pending_name[MAX_PENDING][256];     /* OUT, for the message */
static volatile sig_atomic_t npending_flags[MAX_PENDING];

/* The output mappings, for telling a full disk from other SIGBUS causes. */
static uint8_t *volatile map_lo[MAX_PENDING], *volatile map_hi[MAX_PENDING];

static void say(const char *s)
{
    ssize_t r = write(2, s, strlen(s));
    (void)r;
}

static void on_bus(int sig, siginfo_t *info, void *uctx)
{
    (void)sig;
    (void)uctx;
    int output = -1;
    for (int i = 0; i < MAX_PENDING; i++) {
        if (npending_flags[i]) {
            unlink(pending[i]);
            if ((uint8_t *)info->si_addr >= map_lo[i] && (uint8_t *)info->si_addr < map_hi[i])
                output = i;
        }
    }
    if (output >= 0) {
        say("tensorlayout: ");
        say(pending_name[output]);
        say(": cannot write: no space left on the file system\n");
    } else {
        say("tensorlayout: a mapped input file could not be read (was it truncated?)\n");
    }
    _exit(CLI_IO);
}

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_PENDING; i++) {
        if (npending_flags[i])
            unlink(pending[i]);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static int remember(const char *path, const char *name)
{
    static bool installed;
    if (!installed) {
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        signal(SIGHUP, on_signal);
        signal(SIGXFSZ, SIG_IGN);      /* a file-size limit is an EFBIG error */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_bus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGBUS, &sa, NULL);
        installed = true;
    }
    for (int i = 0; i < MAX_PENDING; i++) {
        if (!npending_flags[i]) {
            snprintf(pending[i], sizeof pending[i], "%s", path);
            snprintf(pending_name[i], sizeof pending_name[i], "%s", name);
            npending_flags[i] = 1;
            return i;
        }
    }
    return -1;
}

static void forget(int slot)
{
    if (slot >= 0) {
        npending_flags[slot] = 0;
        map_lo[slot] = map_hi[slot] = NULL;
    }
}

int cli_write_all(int fd, const void *bytes, uint64_t n)
{
    const unsigned char *p = bytes;
    while (n > 0) {
        size_t chunk = n > (1u << 30) ? (1u << 30) : (size_t)n;
        ssize_t w = write(fd, p, chunk);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (uint64_t)w;
    }
    return 0;
}

int cli_out_open(struct cli_out *o, const char *path, uint64_t size)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->slot = -1;
    o->size = size;
    o->path = path;
    tl_quote(strcmp(path, "-") == 0 ? "<stdout>" : path, o->name, sizeof o->name);
    struct stat st;
    /* a symbolic link is written through: the temporary file goes beside
     * its target, which is renamed over (the link stays a link) */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char link[4096];
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n > 0) {
            link[n] = '\0';
            const char *slash = strrchr(path, '/');
            int len = link[0] == '/' || !slash
                ? snprintf(o->target, sizeof o->target, "%s", link)
                : snprintf(o->target, sizeof o->target, "%.*s%s", (int)(slash - path) + 1, path,
                           link);
            if (len > 0 && (size_t)len < sizeof o->target)
                o->path = path = o->target;
        }
    }
    bool direct = strcmp(path, "-") == 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode));
    if (size > SIZE_MAX / 2) {
        errno = EFBIG;
        cli_report_errno(o->name, "cannot write");
        return CLI_IO;
    }
    if (direct) {
        o->direct = true;
        o->heap = calloc(1, size ? (size_t)size : 1);
        if (!o->heap) {
            cli_report_errno(o->name, "cannot write");
            return CLI_IO;
        }
        o->bytes = o->heap;
        return CLI_OK;
    }
    /* the temporary file lives beside the output, so rename() stays atomic */
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) + 1 : 0;
    if (snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.tl-XXXXXX", dirlen, path,
                 slash ? slash + 1 : path) >= (int)sizeof o->tmp) {
        errno = ENAMETOOLONG;
        cli_report_errno(o->name, "cannot write");
        return CLI_IO;
    }
    o->fd = mkstemp(o->tmp);
    if (o->fd < 0) {
        cli_report_errno(o->name, "cannot create a temporary file beside it");
        return CLI_IO;
    }
    o->slot = remember(o->tmp, o->name);
    if (ftruncate(o->fd, (off_t)size) != 0) {
        cli_report_errno(o->name, "cannot write");
        cli_out_abort(o);
        return CLI_IO;
    }
    if (size) {
        o->map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, o->fd, 0);
        if (o->map == MAP_FAILED) {
            o->map = NULL;
            cli_report_errno(o->name, "cannot map");
            cli_out_abort(o);
            return CLI_IO;
        }
        o->bytes = o->map;
        if (o->slot >= 0) {
            map_lo[o->slot] = o->map;
            map_hi[o->slot] = (uint8_t *)o->map + size;
        }
    }
    return CLI_OK;
}

int cli_out_commit(struct cli_out *o)
{
    int rc = CLI_OK;
    if (o->direct) {
        int fd = strcmp(o->path, "-") == 0 ? 1 : open(o->path, O_WRONLY | O_TRUNC);
        if (fd < 0 || cli_write_all(fd, o->heap, o->size) != 0) {
            cli_report_errno(o->name, "cannot write");
            rc = CLI_IO;
        }
        if (fd > 1)
            close(fd);
        free(o->heap);
        o->heap = NULL;
        return rc;
    }
    if (o->map && munmap(o->map, (size_t)o->size) != 0)
        rc = CLI_IO;
    o->map = NULL;
    if (rc == CLI_OK) {
        /* keep the mode an existing output had; a new one gets 0666 less umask */
        struct stat st;
        mode_t mode;
        if (stat(o->path, &st) == 0) {
            mode = st.st_mode & 07777;
        } else {
            mode_t mask = umask(0);
            umask(mask);
            mode = 0666 & ~mask;
        }
        if (fchmod(o->fd, mode) != 0)
            rc = CLI_IO;
    }
    if (rc == CLI_OK && close(o->fd) != 0)
        rc = CLI_IO;
    else if (rc != CLI_OK)
        close(o->fd);
    o->fd = -1;
    if (rc == CLI_OK && rename(o->tmp, o->path) != 0)
        rc = CLI_IO;
    if (rc != CLI_OK) {
        cli_report_errno(o->name, "cannot write");
        unlink(o->tmp);
    }
    forget(o->slot);
    return rc;
}

void cli_out_abort(struct cli_out *o)
{
    if (o->map)
        munmap(o->map, (size_t)o->size);
    o->map = NULL;
    if (o->fd >= 0) {
        close(o->fd);
        unlink(o->tmp);
        o->fd = -1;
    }
    forget(o->slot);
    free(o->heap);
    o->heap = NULL;
}

int cli_out_open_seq(struct cli_out *o, const char *path)
{
    if (cli_out_is_stream(path))
        return cli_out_open_stream(o, path);
    return cli_out_open(o, path, 0);       /* an empty temporary file, not mapped */
}

bool cli_out_is_stream(const char *path)
{
    struct stat st;
    return strcmp(path, "-") == 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode));
}

int cli_out_open_stream(struct cli_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    o->slot = -1;
    o->direct = true;
    tl_quote(strcmp(path, "-") == 0 ? "<stdout>" : path, o->name, sizeof o->name);
    o->fd = strcmp(path, "-") == 0 ? 1 : open(path, O_WRONLY | O_TRUNC);
    if (o->fd < 0) {
        cli_report_errno(o->name, "cannot open");
        return CLI_IO;
    }
    return CLI_OK;
}

int cli_out_write(struct cli_out *o, const void *p, uint64_t n)
{
    if (cli_write_all(o->fd, p, n) != 0) {
        cli_report_errno(o->name, "cannot write");
        return CLI_IO;
    }
    return CLI_OK;
}

int cli_out_close_stream(struct cli_out *o)
{
    int rc = CLI_OK;
    if (o->fd > 1 && close(o->fd) != 0) {
        cli_report_errno(o->name, "cannot write");
        rc = CLI_IO;
    }
    o->fd = -1;
    return rc;
}

int cli_out_region(struct cli_out *o, uint64_t pos, uint64_t n, uint8_t **p)
{
    *p = NULL;
    if (n > SIZE_MAX / 2) {
        errno = EFBIG;
        cli_report_errno(o->name, "cannot write");
        return CLI_IO;
    }
    if (o->direct) {                /* a stream: a buffer, written out when done */
        if (!(*p = calloc(1, n ? (size_t)n : 1))) {
            cli_report_errno(o->name, "cannot write");
            return CLI_IO;
        }
        return CLI_OK;
    }
    if (ftruncate(o->fd, (off_t)(pos + n)) != 0) {
        cli_report_errno(o->name, "cannot write");
        return CLI_IO;
    }
    if (n == 0)
        return CLI_OK;
    /* a mapping starts on a page: the part of the page before pos is
     * already written, and stays as it is */
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), from = pos / page * page;
    size_t len = (size_t)(pos + n - from);
    uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, o->fd, (off_t)from);
    if (m == MAP_FAILED) {
        cli_report_errno(o->name, "cannot map");
        return CLI_IO;
    }
    o->map = m;
    o->size = len;
    if (o->slot >= 0) {
        map_lo[o->slot] = m;
        map_hi[o->slot] = m + len;
    }
    *p = m + (pos - from);
    return CLI_OK;
}

int cli_out_region_done(struct cli_out *o, uint64_t pos, uint64_t n, uint8_t *p, bool keep)
{
    int rc = CLI_OK;
    if (o->direct) {
        if (keep)
            rc = cli_out_write(o, p, n);
        free(p);
        return rc;
    }
    if (o->map) {
        if (o->slot >= 0)
            map_lo[o->slot] = map_hi[o->slot] = NULL;
        munmap(o->map, (size_t)o->size);
        o->map = NULL;
        o->size = 0;
    }
    if (keep && lseek(o->fd, (off_t)(pos + n), SEEK_SET) < 0) {
        cli_report_errno(o->name, "cannot write");
        rc = CLI_IO;
    }
    return rc;
}
