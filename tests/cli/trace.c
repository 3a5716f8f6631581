/*
 * trace.c - which functions a process ran, for the command-line suite's
 * choice of tests (tests/cli/trace.py): linked into the trace build (make
 * TRACE=1: every source file compiled with -finstrument-functions, the
 * binary not position-independent), it writes the address of each function
 * the first time it is entered, in hex, one a line, to TL_TRACE_FILE.PID
 * (nothing when TL_TRACE_FILE is unset), after a first line "@EXE" naming
 * the process's executable.  Safe under threads and signals: a lock-free
 * table of addresses seen, and one write(2) system call a new address (made
 * by syscall(), past the fault injector's write(), which may fail it).  A
 * process under a file-size limit (ulimit -f) is not traced, since its
 * writes would meet the limit: it writes a line "untraced" and no more, and
 * trace.py counts its test as reaching everything.
 */
#define _GNU_SOURCE    /* syscall() */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SLOTS (1u << 16)
#define NO_TRACE __attribute__((no_instrument_function))

void __cyg_profile_func_enter(void *fn, void *site) NO_TRACE;
void __cyg_profile_func_exit(void *fn, void *site) NO_TRACE;

static _Atomic uintptr_t seen[SLOTS];

/* write(2) itself, past the fault injector's (tests/fault/inject.c) */
static ssize_t NO_TRACE raw_write(int fd, const void *p, size_t n)
{
    return syscall(SYS_write, fd, p, n);
}
static atomic_int out = -2;    /* -2 not opened yet, -1 none */

static int NO_TRACE trace_fd(void)
{
    int fd = atomic_load(&out);
    if (fd != -2)
        return fd;
    const char *prefix = getenv("TL_TRACE_FILE");
    char path[4096], exe[4096];
    int mine = -1;
    if (prefix && *prefix) {
        snprintf(path, sizeof path, "%s.%ld", prefix, (long)getpid());
        mine = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        ssize_t n = readlink("/proc/self/exe", exe + 1, sizeof exe - 3);
        if (mine >= 0 && n > 0) {
            exe[0] = '@';
            exe[n + 1] = '\n';
            ssize_t w = raw_write(mine, exe, (size_t)n + 2);
            (void)w;
        }
    }
    struct rlimit lim;
    if (mine >= 0 && getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
        if (lim.rlim_cur >= 16) {
            ssize_t w = raw_write(mine, "untraced\n", 9);
            (void)w;
        }
        close(mine);
        mine = -1;
    }
    int expected = -2;
    if (!atomic_compare_exchange_strong(&out, &expected, mine)) {
        if (mine >= 0)
            close(mine);
        return expected;
    }
    return mine;
}

void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)site;
    uintptr_t a = (uintptr_t)fn;
    for (uint32_t i = (uint32_t)((a >> 4) * 2654435761u) % SLOTS, n = 0; n < SLOTS;
         i = (i + 1) % SLOTS, n++) {
        uintptr_t cur = atomic_load_explicit(&seen[i], memory_order_relaxed);
        if (cur == a)
            return;
        if (cur == 0) {
            if (!atomic_compare_exchange_strong(&seen[i], &cur, a)) {
                if (cur == a)
                    return;
                continue;
            }
            int fd = trace_fd();
            if (fd >= 0) {
                char line[20];
                int k = (int)sizeof line;
                line[--k] = '\n';
                do {
                    line[--k] = "0123456789abcdef"[a & 15];
                    a >>= 4;
                } while (a);
                ssize_t w = raw_write(fd, line + k, sizeof line - (size_t)k);
                (void)w;
            }
            return;
        }
    }
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    (void)site;
}
