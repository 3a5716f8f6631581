/*
 * fuzz_dump.c - libFuzzer over `tensorlayout dump` (and `inspect` and
 * `offset --byte`) as the command runs them: the input is a description,
 * a NUL byte, and data bytes; both go to files, and the commands run on
 * them with their output sent to /dev/null.  Any crash, sanitizer report or
 * hang is a finding; exit statuses are not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char desc_path[64], data_path[64];

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
        snprintf(desc_path, sizeof desc_path, "/tmp/tl-fuzz-%d.json", (int)getpid());
        snprintf(data_path, sizeof data_path, "/tmp/tl-fuzz-%d.bin", (int)getpid());
        if (!freopen("/dev/null", "w", stdout))   /* run with -close_fd_mask=2 too */
            abort();
    }
    const uint8_t *nul = memchr(data, 0, size);
    size_t dlen = nul ? (size_t)(nul - data) : size;
    write_file(desc_path, data, dlen);
    write_file(data_path, nul ? nul + 1 : data, nul ? size - dlen - 1 : 0);
    char *dump[] = { "dump", desc_path, data_path, NULL };
    char *physical[] = { "dump", "--physical", desc_path, data_path, NULL };
    char *inspect[] = { "inspect", "--json", desc_path, data_path, NULL };
    char byte[24];
    snprintf(byte, sizeof byte, "%u", size ? data[size - 1] * 7u : 0u);
    char *offset[] = { "offset", desc_path, "--byte", byte, NULL };
    run(cmd_dump, dump);
    run(cmd_dump, physical);
    run(cmd_inspect, inspect);
    run(cmd_offset, offset);
    return 0;
}
