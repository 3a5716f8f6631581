/*
 * inject.c - a fault injector for the command-line tests, loaded with
 * LD_PRELOAD.  TL_INJECT chooses the fault:
 *
 *   rename        rename() fails with EIO
 *   mmap_shared   a shared writable mmap() (the output mapping) fails, ENOMEM
 *   write_after:N write() to standard output fails with EIO once N bytes
 *                 have been written (a write that fails half-way)
 *   write_file_after:N  the same for write(), pwrite() and
 *                 copy_file_range() to any file but the standard streams
 *                 (an output file, written in order or by several threads
 *                 at their places), counted together
 *   no_copy_file_range  copy_file_range() fails with EXDEV, as between two
 *                 file systems on an old kernel
 *   pread_fails   pread() fails with EIO (the input read into memory
 *                 before a window is built from it: the mapping is read)
 *   pread_short   pread() reads at most 1000 bytes, and every other call
 *                 fails with EINTR first
 *   stall         ftruncate() (which sizes the temporary output) sleeps 5 s
 *                 first, so that a signal can arrive while the temporary
 *                 file exists
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static const char *fault(void)
{
    const char *f = getenv("TL_INJECT");
    return f ? f : "";
}

int rename(const char *from, const char *to)
{
    static int (*real)(const char *, const char *);
    if (strcmp(fault(), "rename") == 0) {
        errno = EIO;
        return -1;
    }
    if (!real)
        real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    return real(from, to);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*real)(void *, size_t, int, int, int, off_t);
    if (strcmp(fault(), "mmap_shared") == 0 && (flags & MAP_SHARED) && (prot & PROT_WRITE)) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    if (!real)
        real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    return real(addr, len, prot, flags, fd, off);
}

/* Bytes written so far under write_after / write_file_after. */
static size_t written;

/* How many of n bytes to fd may be written under the fault chosen: n, or
 * fewer, or 0 once its limit is reached (the caller fails with EIO). */
static size_t allowed(int fd, size_t n)
{
    const char *f = fault();
    size_t skip = fd == 1 && strncmp(f, "write_after:", 12) == 0 ? 12
                  : fd > 2 && strncmp(f, "write_file_after:", 17) == 0 ? 17 : 0;
    if (!skip)
        return n;
    size_t limit = strtoul(f + skip, NULL, 10);
    size_t was = __atomic_load_n(&written, __ATOMIC_SEQ_CST), k;
    do                                  /* several threads may write */
        k = n > limit - was ? limit - was : n;
    while (!__atomic_compare_exchange_n(&written, &was, was + k, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST));
    return k;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    static ssize_t (*real)(int, const void *, size_t);
    if (!real)
        real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    size_t k = allowed(fd, n);
    if (k == 0 && n > 0) {
        errno = EIO;
        return -1;
    }
    return real(fd, buf, k);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t at)
{
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real)
        real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    size_t k = allowed(fd, n);
    if (k == 0 && n > 0) {
        errno = EIO;
        return -1;
    }
    return real(fd, buf, k, at);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t at)
{
    return pwrite(fd, buf, n, at);
}

ssize_t copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t n,
                        unsigned flags)
{
    static ssize_t (*real)(int, off_t *, int, off_t *, size_t, unsigned);
    if (!real)
        real = (ssize_t (*)(int, off_t *, int, off_t *, size_t, unsigned))
               dlsym(RTLD_NEXT, "copy_file_range");
    if (strcmp(fault(), "no_copy_file_range") == 0) {
        errno = EXDEV;
        return -1;
    }
    size_t k = allowed(out, n);
    if (k == 0 && n > 0) {
        errno = EIO;
        return -1;
    }
    return real(in, in_off, out, out_off, k, flags);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, void *, size_t, off_t);
    static bool interrupted;
    if (!real)
        real = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    if (strcmp(fault(), "pread_fails") == 0) {
        errno = EIO;
        return -1;
    }
    if (strcmp(fault(), "pread_short") == 0) {
        interrupted = !interrupted;
        if (interrupted) {
            errno = EINTR;
            return -1;
        }
        if (n > 1000)
            n = 1000;
    }
    return real(fd, buf, n, off);
}

int ftruncate(int fd, off_t len)
{
    static int (*real)(int, off_t);
    if (!real)
        real = (int (*)(int, off_t))dlsym(RTLD_NEXT, "ftruncate");
    if (strcmp(fault(), "stall") == 0) {
        struct timespec ts = { 5, 0 };
        nanosleep(&ts, NULL);
    }
    return real(fd, len);
}
