/*
 * batch.c - runs many tensorlayout command lines in one process, for tests
 * that run thousands of them (the bad-input sweep): each line of standard
 * input is one command line, its words separated by blanks (so no word holds
 * a blank), run by cli_main() as the tool runs it.  For each, one line goes
 * to standard output:
 *
 *     STATUS BYTES [NEW...] : COMMAND
 *
 * STATUS its exit status, BYTES what it wrote on its standard output (sent to
 * a file, batch.out, in the current folder), NEW each file it left in the
 * current folder (removed after).  Its standard error is discarded.  The
 * driver exits 0 when every line ran, 3 on an error of its own; under ASan,
 * a leak in any command fails it at exit.
 *
 * Usage: tl_batch < COMMANDS  (in a folder of the caller's own)
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/cli/cli.h"

#define MAX_WORDS 64
#define MAX_FILES 256

/* The names in the current folder, sorted; returns their count. */
static int names(char (*list)[256])
{
    DIR *d = opendir(".");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d)) && n < MAX_FILES;) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "batch.out"))
            snprintf(list[n++], 256, "%s", e->d_name);
    }
    closedir(d);
    return n;
}

static int known(char (*list)[256], int n, const char *name)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(list[i], name) == 0)
            return 1;
    }
    return 0;
}

static int fail(const char *what)
{
    perror(what);
    return 3;
}

int main(void)
{
    static char before[MAX_FILES][256], after[MAX_FILES][256];
    char line[4096];
    int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY);
    FILE *report = out >= 0 ? fdopen(out, "w") : NULL;
    if (!report || err < 0 || null < 0)
        return fail("tl_batch: setting up");
    while (fgets(line, sizeof line, stdin)) {
        char copy[sizeof line], *argv[MAX_WORDS + 2];
        int argc = 0;
        line[strcspn(line, "\n")] = '\0';
        snprintf(copy, sizeof copy, "%s", line);
        argv[argc++] = "tensorlayout";
        for (char *w = strtok(copy, " \t"); w && argc <= MAX_WORDS; w = strtok(NULL, " \t"))
            argv[argc++] = w;
        argv[argc] = NULL;
        if (argc == 1)
            continue;
        int nb = names(before);
        int fd = open("batch.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (nb < 0 || fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0)
            return fail("tl_batch: redirecting");
        close(fd);
        int status = cli_main(argc, argv);
        fflush(stdout);
        fflush(stderr);
        clearerr(stdout);
        if (dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
            return fail("tl_batch: restoring");
        struct stat st;
        if (stat("batch.out", &st) != 0)
            return fail("tl_batch: batch.out");
        fprintf(report, "%d %lld", status, (long long)st.st_size);
        int na = names(after);
        for (int i = 0; i < na; i++) {
            if (!known(before, nb, after[i])) {
                fprintf(report, " %s", after[i]);
                remove(after[i]);
            }
        }
        fprintf(report, " : %s\n", line);
        fflush(report);
    }
    unlink("batch.out");
    return ferror(report) ? 3 : 0;
}
