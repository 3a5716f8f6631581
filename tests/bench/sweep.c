/*
 * sweep.c - `make sweep`: tables of the measurements behind the copy
 * engine's built-in rules (calib.c, tl_calib_default), over more kinds of
 * copy and sizes than `tensorlayout calibrate` measures to choose, rerun on
 * the machine at hand.  Where a comment in src/copy cites a table of
 * figures, this is the program that made it:
 *
 *   sweep threads   a 2-thread copy's time over a 1-thread one's, per kind
 *                   of copy and output size (the thread floors)
 *   sweep stores    GB/s (read + write) with ordinary stores and with
 *                   streaming stores, per kind, size and thread count
 *                   (the store kinds)
 *   sweep kernels SLOT W|S,D ROWS COLS
 *                   one kernel slot of every ISA this CPU runs, kernel
 *                   against kernel on the same buffers (SLOT: transpose,
 *                   transpose_nt with W the element width in bytes; tcvt,
 *                   tcvt_nt with source and destination types, FLOAT32,FLOAT16)
 *
 * Each figure is the median of a block of warm runs (timing.c), and the
 * variants compared take turns, ROUNDS blocks each, so that a shared
 * machine's drift touches them alike.  Figures are the machine's, not the
 * code's: quote them with the machine they came from.
 */
#define _DEFAULT_SOURCE 1
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/copy/copy.h"
#include "timing.h"

#define ROUNDS 3

/* ---- copies ---------------------------------------------------------------- */

/* A kind of copy, as its source and destination descriptions for an
 * output of about `bytes` bytes. */
struct kind {
    const char *name;
    void (*make)(uint64_t bytes, struct tl_desc *s, struct tl_desc *d, enum tl_dtype dt);
    enum tl_dtype dt, to;
};

static void desc2(struct tl_desc *d, enum tl_dtype dt, uint64_t a, uint64_t b, uint64_t sa,
                  uint64_t sb)
{
    uint64_t sizes[2] = { a, b };
    tl_desc_init(d, dt, 2, sizes, NULL);
    d->strides[0] = sa;
    d->strides[1] = sb;
    d->strides_src = TL_STRIDES_GIVEN;
    tl_desc_validate(d, NULL);
}

/* 64 rows of columns into columns of 64 rows */
static void make_transpose(uint64_t bytes, struct tl_desc *s, struct tl_desc *d, enum tl_dtype dt)
{
    uint64_t cols = bytes / (64 * tl_dtype_size(dt));
    desc2(s, dt, 64, cols, cols, 1);
    desc2(d, dt, 64, cols, 1, 64);
}

/* every third element, into a row */
static void make_general(uint64_t bytes, struct tl_desc *s, struct tl_desc *d, enum tl_dtype dt)
{
    uint64_t n = bytes / tl_dtype_size(dt);
    desc2(s, dt, 1, n, n * 3, 3);
    desc2(d, dt, 1, n, n, 1);
}

/* a row, as it is (or converted) */
static void make_row(uint64_t bytes, struct tl_desc *s, struct tl_desc *d, enum tl_dtype dt)
{
    uint64_t n = bytes / tl_dtype_size(dt);
    desc2(s, dt, 1, n, n, 1);
    desc2(d, dt, 1, n, n, 1);
}

/* three planes into pixels (CHW to HWC) */
static void make_interleave(uint64_t bytes, struct tl_desc *s, struct tl_desc *d,
                            enum tl_dtype dt)
{
    uint64_t n = bytes / (3 * tl_dtype_size(dt));
    desc2(s, dt, 3, n, n, 1);
    desc2(d, dt, 3, n, 1, 3);
}

/* pixels into three planes (HWC to CHW) */
static void make_deinterleave(uint64_t bytes, struct tl_desc *s, struct tl_desc *d,
                              enum tl_dtype dt)
{
    uint64_t n = bytes / (3 * tl_dtype_size(dt));
    desc2(s, dt, 3, n, 1, 3);
    desc2(d, dt, 3, n, n, 1);
}

/* one value, broadcast over a row */
static void make_fill(uint64_t bytes, struct tl_desc *s, struct tl_desc *d, enum tl_dtype dt)
{
    uint64_t n = bytes / tl_dtype_size(dt);
    desc2(s, dt, 1, n, n, 0);
    desc2(d, dt, 1, n, n, 1);
}

struct job {
    struct tl_copy_plan plan;
    uint8_t *src, *dst;
    unsigned threads;
};

static void run(void *ctx)
{
    struct job *j = ctx;
    tl_copy_run(&j->plan, j->src, j->dst, j->threads, NULL, NULL);
}

/* Plans kind k for an output of about `bytes` bytes, into buffers of its
 * own.  The sizes given are the output's, in the destination type. */
static int setup(const struct kind *k, uint64_t bytes, struct job *j)
{
    struct tl_desc s, d;
    struct tl_info si, di;
    uint64_t out_elems = bytes / tl_dtype_size(k->to);
    k->make(out_elems * tl_dtype_size(k->dt), &s, &d, k->dt);
    d.dtype = k->to;
    tl_desc_validate(&d, NULL);
    tl_desc_classify(&s, &si);
    tl_desc_classify(&d, &di);
    if (tl_copy_plan(&j->plan, &s, &d, NULL))
        return -1;
    j->src = big(si.elements_bytes);
    j->dst = big(di.elements_bytes);
    return 0;
}

static void teardown(struct job *j)
{
    unbig(j->src, j->plan.src_bytes);
    unbig(j->dst, j->plan.dst_bytes);
}

static const uint64_t KB = 1024, MB = 1024 * 1024;

static void sweep_threads(void)
{
    static const struct kind kinds[] = {
        { "transpose, 64 rows, UINT8", make_transpose, TL_DT_UINT8, TL_DT_UINT8 },
        { "... FLOAT16", make_transpose, TL_DT_FLOAT16, TL_DT_FLOAT16 },
        { "... FLOAT32", make_transpose, TL_DT_FLOAT32, TL_DT_FLOAT32 },
        { "... FLOAT64", make_transpose, TL_DT_FLOAT64, TL_DT_FLOAT64 },
        { "general, FLOAT32 stride 3", make_general, TL_DT_FLOAT32, TL_DT_FLOAT32 },
        { "row copy FLOAT32", make_row, TL_DT_FLOAT32, TL_DT_FLOAT32 },
        { "interleave 3 x UINT8", make_interleave, TL_DT_UINT8, TL_DT_UINT8 },
        { "FLOAT16 -> FLOAT32", make_row, TL_DT_FLOAT16, TL_DT_FLOAT32 },
        { "fill FLOAT32", make_fill, TL_DT_FLOAT32, TL_DT_FLOAT32 },
    };
    static const uint64_t sizes[] = { 256 * KB, 512 * KB, 1 * MB, 3 * MB / 2, 2 * MB, 3 * MB,
                                      4 * MB, 6 * MB, 8 * MB };
    tl_copy_thread_floor = 1;            /* every size may take two threads */
    printf("a 2-thread copy's time over a 1-thread one's, by output size (%s)\n",
           tl_isa_name(tl_isa_active()));
    printf("%-28s", "");
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        printf(" %5" PRIu64 "K", sizes[z] / KB);
    printf("\n");
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        printf("%-28s", kinds[i].name);
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            struct job j;
            if (setup(&kinds[i], sizes[z], &j)) {
                printf(" %6s", "-");
                continue;
            }
            j.plan.stream = j.plan.stream_threads = false;   /* as in the cache */
            double t[2][ROUNDS];
            for (int r = 0; r < ROUNDS; r++) {
                for (unsigned th = 1; th <= 2; th++) {
                    j.threads = th;
                    t[th - 1][r] = block(run, &j);
                }
            }
            printf(" %6.2f", median(t[1], ROUNDS) / median(t[0], ROUNDS));
            fflush(stdout);
            teardown(&j);
        }
        printf("\n");
    }
}

static void sweep_stores(void)
{
    static const struct kind kinds[] = {
        { "FLOAT32 row copy", make_row, TL_DT_FLOAT32, TL_DT_FLOAT32 },
        { "FLOAT16 -> FLOAT32", make_row, TL_DT_FLOAT16, TL_DT_FLOAT32 },
        { "UINT8 HWC -> FLOAT32 CHW", make_deinterleave, TL_DT_UINT8, TL_DT_FLOAT32 },
        { "FLOAT32 -> FLOAT16", make_row, TL_DT_FLOAT32, TL_DT_FLOAT16 },
        { "FLOAT32 transpose", make_transpose, TL_DT_FLOAT32, TL_DT_FLOAT32 },
    };
    static const uint64_t sizes[] = { 6 * MB, 12 * MB, 20 * MB, 24 * MB, 28 * MB, 32 * MB,
                                      48 * MB, 64 * MB, 100 * MB };
    printf("read + write GB/s, ordinary / streaming stores, by source + destination size (%s)\n",
           tl_isa_name(tl_isa_active()));
    for (unsigned th = 1; th <= 2; th++) {
        printf("%u thread%s%-*s", th, th > 1 ? "s" : "", th > 1 ? 20 : 21, "");
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            printf(" %8" PRIu64 "M", sizes[z] / MB);
        printf("\n");
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
            printf("  %-26s", kinds[i].name);
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
                /* the output's share of source + destination */
                unsigned ses = tl_dtype_size(kinds[i].dt), des = tl_dtype_size(kinds[i].to);
                struct job j;
                if (setup(&kinds[i], sizes[z] / (ses + des) * des, &j)) {
                    printf(" %9s", "-");
                    continue;
                }
                j.threads = th;
                double t[2][ROUNDS];
                for (int r = 0; r < ROUNDS; r++) {
                    for (int nt = 0; nt < 2; nt++) {
                        j.plan.stream = j.plan.stream_threads = nt;
                        t[nt][r] = block(run, &j);
                    }
                }
                double bytes = (double)(j.plan.src_bytes + j.plan.dst_bytes) / 1e9;
                printf(" %4.0f/%-4.0f", bytes / median(t[0], ROUNDS), bytes / median(t[1], ROUNDS));
                fflush(stdout);
                teardown(&j);
            }
            printf("\n");
        }
    }
}

/* ---- kernels ---------------------------------------------------------------- */

struct kjob {
    tl_transpose_fn t;
    tl_tcvt_fn c;
    const uint8_t *src;
    uint8_t *dst;
    size_t ss, ds, rows, cols;
};

static void run_kernel(void *ctx)
{
    struct kjob *k = ctx;
    if (k->t)
        k->t(k->src, k->ss, k->dst, k->ds, k->rows, k->cols);
    else
        k->c(k->src, k->ss, k->dst, k->ds, k->rows, k->cols);
}

static int sweep_kernels(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: sweep kernels SLOT W|S,D ROWS COLS\n");
        return 2;
    }
    const char *slot = argv[0];
    bool cvt = strncmp(slot, "tcvt", 4) == 0;
    enum tl_dtype sdt = TL_DT_UINT8, ddt = TL_DT_UINT8;
    unsigned w = 0;
    if (cvt) {
        char s[32], *comma;
        snprintf(s, sizeof s, "%s", argv[1]);
        if (!(comma = strchr(s, ',')) || (*comma = '\0', tl_dtype_from_name(s, &sdt)) ||
            tl_dtype_from_name(comma + 1, &ddt)) {
            fprintf(stderr, "sweep: '%s' is not two types, as FLOAT32,FLOAT16\n", argv[1]);
            return 2;
        }
    } else {
        unsigned es = (unsigned)atoi(argv[1]);
        while ((1u << w) < es)
            w++;
        if (w >= TL_NW || (1u << w) != es || (strcmp(slot, "transpose") != 0 &&
                                               strcmp(slot, "transpose_nt") != 0)) {
            fprintf(stderr, "sweep: SLOT is transpose, transpose_nt, tcvt or tcvt_nt, and W "
                    "1, 2, 4 or 8\n");
            return 2;
        }
        sdt = ddt = w == 0 ? TL_DT_UINT8 : w == 1 ? TL_DT_UINT16 : w == 2 ? TL_DT_UINT32
                                                                           : TL_DT_UINT64;
    }
    struct kjob k = { .rows = (size_t)atol(argv[2]), .cols = (size_t)atol(argv[3]) };
    unsigned es = tl_dtype_size(sdt), des = tl_dtype_size(ddt);
    k.ss = k.cols * es;
    k.ds = k.rows * des;
    k.src = big(k.rows * k.ss);
    k.dst = big(k.cols * k.ds);
    struct { enum tl_isa isa; tl_transpose_fn t; tl_tcvt_fn c; double ms[ROUNDS]; } v[TL_ISA_COUNT];
    int n = 0;
    for (int i = 0; i < TL_ISA_COUNT; i++) {
        const struct tl_kernels *t = tl_kernels_own((enum tl_isa)i);
        if (!t || !tl_isa_supported((enum tl_isa)i))
            continue;
        v[n].isa = (enum tl_isa)i;
        v[n].t = !cvt ? (strcmp(slot, "transpose") == 0 ? t->transpose : t->transpose_nt)[w]
                      : NULL;
        v[n].c = cvt ? (strcmp(slot, "tcvt") == 0 ? t->tcvt : t->tcvt_nt)[sdt][ddt] : NULL;
        if (v[n].t || v[n].c)
            n++;
    }
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < n; i++) {
            k.t = v[i].t;
            k.c = v[i].c;
            v[i].ms[r] = block(run_kernel, &k) * 1e3;
        }
    }
    printf("%s %s, %zu rows x %zu columns, kernel against kernel, %d blocks each\n", slot,
           argv[1], k.rows, k.cols, ROUNDS);
    for (int i = 0; i < n; i++) {
        double lo = v[i].ms[0], hi = v[i].ms[0];
        for (int r = 1; r < ROUNDS; r++) {
            lo = v[i].ms[r] < lo ? v[i].ms[r] : lo;
            hi = v[i].ms[r] > hi ? v[i].ms[r] : hi;
        }
        printf("  %-7s %.3f-%.3f ms\n", tl_isa_name(v[i].isa), lo, hi);
    }
    if (n == 0)
        printf("  no ISA here has that slot\n");
    unbig((void *)k.src, k.rows * k.ss);
    unbig(k.dst, k.cols * k.ds);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "threads") == 0)
        sweep_threads();
    else if (argc >= 2 && strcmp(argv[1], "stores") == 0)
        sweep_stores();
    else if (argc >= 2 && strcmp(argv[1], "kernels") == 0)
        return sweep_kernels(argc - 2, argv + 2);
    else {
        fprintf(stderr, "usage: sweep threads | stores | kernels SLOT W|S,D ROWS COLS\n");
        return 2;
    }
    return 0;
}
