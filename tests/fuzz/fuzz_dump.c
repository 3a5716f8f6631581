/*
 * fuzz_dump.c - libFuzzer over `tensorlayout dump`, `inspect`, `offset
 * --byte` and `draw` (text and SVG) as the command runs them: the input is
 * a description, a NUL byte, and data bytes; both go to files, and dump
 * and one other command (chosen by the input's length) run on them, their
 * output sent to /dev/null.  Any crash, sanitizer report or hang is a
 * finding; exit statuses are not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/cli/cli.h"
#include "../../src/core/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char desc_path[64], data_path[64];

/* The two files every input reuses, removed when the fuzzer ends. */
static void remove_files(void)
{
    unlink(desc_path);
    unlink(data_path);
}

#define STEPS "4096"

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (n && fwrite(p, 1, n, f) != n)
        abort();
    fclose(f);
}

static void run(int (*cmd)(int, char **), char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    cmd(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!desc_path[0]) {
        /* in memory when the system has a tmpfs there: no disk per input */
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(desc_path, sizeof desc_path, "%s/tl-fuzz-%d.json", dir, (int)getpid());
        snprintf(data_path, sizeof data_path, "%s/tl-fuzz-%d.bin", dir, (int)getpid());
        atexit(remove_files);
        if (!freopen("/dev/null", "w", stdout))   /* run with -close_fd_mask=2 too */
            abort();
        /* the owner finder's tables of a size the fuzzer can afford (its
         * own: 4096 runs, 2^20 bits; fuzz_desc checks them full size) */
        tl_find_limits.runs_max = 1024;
        tl_find_limits.bits_max = UINT64_C(1) << 16;
        tl_find_limits.runs_work = 8192;
    }
    const uint8_t *nul = memchr(data, 0, size);
    size_t dlen = nul ? (size_t)(nul - data) : size;
    write_file(desc_path, data, dlen);
    write_file(data_path, nul ? nul + 1 : data, nul ? size - dlen - 1 : 0);
    char *dump[] = { "dump", desc_path, data_path, NULL };
    /* the owner searches stop early (--search-steps, as a user may ask):
     * the default bound, a second each optimized, is minutes here */
    char *physical[] = { "dump", "--physical", "--search-steps", STEPS, desc_path, data_path,
                         NULL };
    char *inspect[] = { "inspect", "--json", desc_path, data_path, NULL };
    char byte[24];
    snprintf(byte, sizeof byte, "%u", size ? data[size - 1] * 7u : 0u);
    char *offset[] = { "offset", "--search-steps", STEPS, desc_path, "--byte", byte, NULL };
    char *draw[] = { "draw", "--color", "always", "--values", desc_path, data_path, NULL };
    char *draw_svg[] = { "draw", "--format", "svg", "--at", "0,0", desc_path, NULL };
    /* every input is dumped, then goes through one other command, chosen by
     * its length (which mutations change): five commands an input kept the
     * fuzzer near 1,600 inputs a second */
    run(cmd_dump, dump);
    switch (size % 5) {
    case 0: run(cmd_dump, physical); break;
    case 1: run(cmd_inspect, inspect); break;
    case 2: run(cmd_offset, offset); break;
    case 3: run(cmd_draw, draw); break;
    default: run(cmd_draw, draw_svg); break;
    }
    return 0;
}
