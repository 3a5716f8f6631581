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
#define _DEFAULT_SOURCE 1           /* syscall, DT_DIR */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ---- the registry of temporary paths --------------------------------------
 * Every temporary file and folder the tool makes is registered here from
 * the moment it exists until it is renamed into place or removed, so that
 * a signal that ends the program (SIGINT, SIGTERM, SIGHUP; SIGBUS from a
 * full disk) removes all of them, whichever thread made them.
 *
 * The registry is a list of nodes that only grows (its length is the most
 * paths ever pending at once); a node is reused once forgotten.  Threads
 * register concurrently without a lock: a node is claimed by a
 * compare-and-swap of its state, and new nodes are pushed on the list's
 * head the same way.  A signal handler cannot take a lock, so the window
 * between creating a path and registering it is closed another way: the
 * creating thread blocks the signals for that moment and counts itself in
 * `inflight`; the handler first sets `dying` (no path is created after
 * it), waits for `inflight` to drain (the creators run on other threads:
 * their own thread has the signals blocked), and only then walks the list. */
enum { NODE_FREE, NODE_CLAIMED, NODE_FILE, NODE_DIR };

struct cli_tmp {
    struct cli_tmp *next;               /* set before the node is published; never changes */
    atomic_int state;
    _Atomic(uint8_t *) lo, hi;          /* an output mapping in it, for SIGBUS */
    char path[PATH_MAX + 32];
    char name[256];                     /* OUT, for the message */
};

static _Atomic(struct cli_tmp *) registry;
static atomic_int inflight, dying;

static void say(const char *s)
{
    ssize_t r = write(2, s, strlen(s));
    (void)r;
}

/* Removes dir and everything below it, with async-signal-safe calls only
 * (no opendir: it allocates).  Deeper than the path buffer: left. */
static void remove_tree_raw(char *path, size_t len, size_t cap)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        char buf[4096];
        long n;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
            for (long at = 0; at < n;) {
                struct {
                    uint64_t ino;
                    int64_t off;
                    unsigned short reclen;
                    unsigned char type;
                } hdr;
                memcpy(&hdr, buf + at, sizeof hdr);
                const char *entry = buf + at + 19;      /* d_name's place in linux_dirent64 */
                at += hdr.reclen;
                if (strcmp(entry, ".") == 0 || strcmp(entry, "..") == 0)
                    continue;
                size_t el = strlen(entry);
                if (len + 1 + el + 1 > cap)
                    continue;
                path[len] = '/';
                memcpy(path + len + 1, entry, el + 1);
                if (hdr.type == DT_DIR)
                    remove_tree_raw(path, len + 1 + el, cap);
                else if (unlink(path) != 0 && errno == EISDIR)
                    remove_tree_raw(path, len + 1 + el, cap);
                path[len] = '\0';
            }
        }
        close(fd);
    }
    rmdir(path);
}

void cli_remove_tree(const char *dir)
{
    char path[PATH_MAX + 512];
    size_t len = strlen(dir);
    if (len >= sizeof path)
        return;
    memcpy(path, dir, len + 1);
    remove_tree_raw(path, len, sizeof path);
}

/* What a dying program does: no new path is made, the ones being made are
 * waited for (two seconds at most: a thread stopped by a debugger), then
 * every registered file is removed, and every folder with what it holds.
 * @return the node whose output mapping holds addr, or NULL. */
static struct cli_tmp *remove_all(const void *addr)
{
    atomic_store(&dying, 1);
    for (int i = 0; i < 2000 && atomic_load(&inflight) > 0; i++) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    struct cli_tmp *hit = NULL;
    for (struct cli_tmp *t = atomic_load(&registry); t; t = t->next) {
        int state = atomic_load(&t->state);
        if (state == NODE_FILE) {
            unlink(t->path);
            uint8_t *lo = atomic_load(&t->lo), *hi = atomic_load(&t->hi);
            if (addr && (const uint8_t *)addr >= lo && (const uint8_t *)addr < hi)
                hit = t;
        } else if (state == NODE_DIR) {
            cli_remove_tree(t->path);
        }
    }
    return hit;
}

static void on_bus(int sig, siginfo_t *info, void *uctx)
{
    (void)sig;
    (void)uctx;
    struct cli_tmp *output = remove_all(info->si_addr);
    if (output) {
        say("tensorlayout: ");
        say(output->name);
        say(": cannot write: no space left on the file system\n");
    } else {
        say("tensorlayout: a mapped input file could not be read (was it truncated?)\n");
    }
    _exit(CLI_IO);
}

static void on_signal(int sig)
{
    remove_all(NULL);
    signal(sig, SIG_DFL);
    raise(sig);
}

static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;

static void install_handlers(void)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    signal(SIGXFSZ, SIG_IGN);          /* a file-size limit is an EFBIG error */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_bus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

/* A node in state CLAIMED: a forgotten one, or a new one on the list. */
static struct cli_tmp *claim(void)
{
    for (struct cli_tmp *t = atomic_load(&registry); t; t = t->next) {
        int expect = NODE_FREE;
        if (atomic_compare_exchange_strong(&t->state, &expect, NODE_CLAIMED))
            return t;
    }
    struct cli_tmp *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    atomic_init(&t->state, NODE_CLAIMED);
    struct cli_tmp *head = atomic_load(&registry);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak(&registry, &head, t));
    return t;
}

struct cli_tmp *cli_tmp_make(char *template, bool dir, const char *name, int *fd)
{
    pthread_once(&handlers_once, install_handlers);
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    atomic_fetch_add(&inflight, 1);
    struct cli_tmp *t = NULL;
    int made = -1, saved = EINTR;
    if (!atomic_load(&dying) && (t = claim())) {
        if (dir)
            made = mkdtemp(template) ? 0 : -1;
        else
            made = *fd = mkstemp(template);
        saved = errno;
        if (made >= 0) {
            snprintf(t->path, sizeof t->path, "%s", template);
            snprintf(t->name, sizeof t->name, "%s", name);
            atomic_store(&t->lo, NULL);
            atomic_store(&t->hi, NULL);
            atomic_store(&t->state, dir ? NODE_DIR : NODE_FILE);
        } else {
            atomic_store(&t->state, NODE_FREE);
            t = NULL;
        }
    } else if (!atomic_load(&dying)) {
        saved = ENOMEM;
    }
    atomic_fetch_sub(&inflight, 1);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    while (atomic_load(&dying))         /* another thread is ending the program */
        pause();
    if (!t)
        errno = saved;
    return t;
}

void cli_tmp_map(struct cli_tmp *t, void *lo, void *hi)
{
    if (t) {
        atomic_store(&t->lo, (uint8_t *)lo);
        atomic_store(&t->hi, (uint8_t *)hi);
    }
}

void cli_tmp_forget(struct cli_tmp *t)
{
    if (t) {
        atomic_store(&t->lo, NULL);
        atomic_store(&t->hi, NULL);
        atomic_store(&t->state, NODE_FREE);
    }
}

int cli_out_not_dir(const char *cmd, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        char q[128];
        cli_usage_error(cmd, "-o %s is a directory: give OUT a file name in it",
                        tl_quote(path, q, sizeof q));
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* n bytes to fd through short writes and EINTR: at the file offset, or
 * at position `at` when it is not negative.  @return 0, or -1 (errno). */
static int write_all_at(int fd, const void *bytes, uint64_t n, int64_t at)
{
    const unsigned char *p = bytes;
    while (n > 0) {
        size_t chunk = n > (1u << 30) ? (1u << 30) : (size_t)n;
        ssize_t w = at < 0 ? write(fd, p, chunk) : pwrite(fd, p, chunk, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (uint64_t)w;
        if (at >= 0)
            at += w;
    }
    return 0;
}

int cli_write_all(int fd, const void *bytes, uint64_t n)
{
    return write_all_at(fd, bytes, n, -1);
}

int cli_out_open(struct cli_out *o, const char *path, uint64_t size)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->reg = NULL;
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
    o->reg = cli_tmp_make(o->tmp, false, o->name, &o->fd);
    if (!o->reg) {
        o->fd = -1;
        cli_report_errno(o->name, "cannot create a temporary file beside it");
        return CLI_IO;
    }
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
        cli_tmp_map(o->reg, o->map, (uint8_t *)o->map + size);
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
    cli_tmp_forget(o->reg);
    o->reg = NULL;
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
    cli_tmp_forget(o->reg);
    o->reg = NULL;
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
    o->reg = NULL;
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

int cli_out_pwrite(struct cli_out *o, const void *p, uint64_t n, uint64_t at)
{
    return write_all_at(o->fd, p, n, (int64_t)at) == 0 ? CLI_OK : CLI_IO;
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
    /* grown to hold it, never cut: what lies after it may be written
     * (cli_writer_presize) */
    struct stat st;
    if (fstat(o->fd, &st) != 0 ||
        ((uint64_t)st.st_size < pos + n && ftruncate(o->fd, (off_t)(pos + n)) != 0)) {
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
    cli_tmp_map(o->reg, m, m + len);
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
        cli_tmp_map(o->reg, NULL, NULL);
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
