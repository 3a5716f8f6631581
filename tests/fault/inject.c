/*
 * inject.c - a fault injector for the command-line tests, loaded with
 * LD_PRELOAD.  TL_INJECT chooses the fault:
 *
 *   rename        rename() fails with EIO
 *   mmap_shared   a shared writable mmap() (the output mapping) fails, ENOMEM
 *   write_after:N write() to standard output fails with EIO once N bytes
 *                 have been written (a write that fails half-way)
 *   write_file_after:N  the same for write() to any file but the standard
 *                 streams (an output file written in order)
 *   stall         ftruncate() (which sizes the temporary output) sleeps 5 s
 *                 first, so that a signal can arrive while the temporary
 *                 file exists
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
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

ssize_t write(int fd, const void *buf, size_t n)
{
    static ssize_t (*real)(int, const void *, size_t);
    static size_t written;
    if (!real)
        real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    const char *f = fault();
    size_t skip = fd == 1 && strncmp(f, "write_after:", 12) == 0 ? 12
                  : fd > 2 && strncmp(f, "write_file_after:", 17) == 0 ? 17 : 0;
    if (skip) {
        size_t limit = strtoul(f + skip, NULL, 10);
        if (written >= limit) {
            errno = EIO;
            return -1;
        }
        if (n > limit - written)
            n = limit - written;
        written += n;
    }
    return real(fd, buf, n);
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
