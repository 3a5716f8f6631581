/*
 * bench.c - `make bench`: the copy engine's speed as ratios to memcpy
 * measured in the same run.
 *
 * For each standard case and 1, 2, 4, ... threads up to the online CPUs
 * (BENCH_MAX_THREADS caps them): the case's own block of
 * timed runs, in which every SIMD ceiling the CPU supports takes its turn,
 * ROUNDS short blocks each, each after a warm-up run (so that drift on a
 * shared machine touches every variant alike), between two blocks of
 * memcpy of the same output bytes with the same number of threads (a
 * T-thread memcpy splits the bytes over T threads), each block at least
 * MIN_RUNS runs and MIN_BLOCK seconds (the case's: per variant), warm, on
 * buffers allocated
 * as numpy allocates large arrays (2 MiB aligned, transparent huge pages
 * above 4 MiB); the medians give
 *
 *   GB/s       = (bytes read + bytes written) / time
 *   memcpy GB/s = 2 x output bytes / memcpy time (both blocks' runs)
 *   ratio      = GB/s / memcpy GB/s
 *
 * and each case ends with a line giving the active ISA's ratio (the one
 * dispatch picks) beside the best ISA's, per thread count, with its
 * GB/s over the count before it's (2T/1T: ratios to memcpy cannot say
 * it, memcpy itself changes with threads), and a line saying up to how
 * many threads paid (each count's GB/s at least 5% above the one before
 * it; a count slower than fewer says so).  Where the
 * case streams its output (streaming stores, which skip the caches), a
 * `stream` line gives the ratio of a copy of the same output bytes with
 * streaming stores, in a block of its own after memcpy's: the most a case
 * that reads as many bytes as it writes can reach that way, where memcpy
 * of an output that fits the L3 cache keeps it there.  A broadcast fill
 * gets a `memset` line: memset of its output bytes on as many threads,
 * counted as the case counts its bytes, which the issue holds fills to.
 * An ISA whose
 * kernels for the case are a narrower ISA's (tl_copy_plan_same_kernels)
 * runs that code: it is timed once, with the narrower one, and its line
 * says so.
 *
 * where bytes read counts every logical element once and padding the copy
 * streams over (max(source span, element count) x element size), as the
 * issue that asked for this benchmark counts them.  Then the whole process:
 * `tensorlayout convert` of the nchw_nhwc_f32_l tensor as a file on
 * /dev/shm against `cat IN > OUT`, medians of RUNS, warm cache; and the
 * same conversion from a .npy file to a .npy file against the raw one.
 *
 * It starts by saying where it runs (CPU, cores, caches, ISAs, memcpy from
 * memory at each thread count), so that figures of different machines are
 * never compared by mistake, and by which calibration it chooses: this
 * machine's, measured first (BENCH_CALIBRATION=off: the built-in rules;
 * =FILE: a calibration file, as `tensorlayout calibrate` writes one).
 *
 * BENCH_JSON=FILE also writes one JSON object a line per measurement;
 * BENCH_CASE=TEXT runs only the cases whose names contain TEXT
 * (dequant_TYPE: the decoding of the types whose names contain TYPE);
 * BENCH_STREAM=0 or 1 overrides the planner's choice of streaming stores.
 * Usage: bench [path/to/tensorlayout]
 */
#define _DEFAULT_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "../../src/copy/copy.h"
#include "peer.h"
#include "timing.h"

#define RUNS 9
#define ROUNDS 3               /* blocks of each variant, taking turns */

struct bcase {
    const char *name;
    enum tl_dtype dt;
    unsigned rank;
    uint64_t sizes[5];
    const char *src_layout, *dst_layout;   /* index orders; NULL: see below */
    uint64_t src_strides[5];               /* used when src_layout is NULL */
    int to;                                /* the destination's type, converting; */
                                           /* 0: the same as dt */
    int vals;                              /* the source's values (below) */
};

/* A case's source: any bits (a pattern; for FLOAT32 about half of them
 * past FLOAT16's range and 1 in 256 a NaN or an infinity), or FLOAT32
 * values as a model holds them (finite, magnitudes 2^-24 to 2^8, either
 * sign), or those with every 97th a NaN (no step of the converting
 * kernels free of one: their slowest case, every step the exact way). */
enum { VALS_BITS, VALS_MODEL, VALS_NAN97 };
#define TO(t) ((int)(t) + 1)

static const struct bcase cases[] = {
    { "nchw_nhwc_f32_s", TL_DT_FLOAT32, 4, { 1, 64, 112, 112 }, "0,1,2,3", "0,2,3,1",
      { 0 }, 0, VALS_BITS },
    { "nchw_nhwc_f32_m", TL_DT_FLOAT32, 4, { 8, 64, 112, 112 }, "0,1,2,3", "0,2,3,1",
      { 0 }, 0, VALS_BITS },
    { "nchw_nhwc_f32_l", TL_DT_FLOAT32, 4, { 32, 256, 56, 56 }, "0,1,2,3", "0,2,3,1",
      { 0 }, 0, VALS_BITS },
    { "nhwc_nchw_f32_l", TL_DT_FLOAT32, 4, { 32, 256, 56, 56 }, "0,2,3,1", "0,1,2,3",
      { 0 }, 0, VALS_BITS },
    /* NHWC to NCHW with few channels: 3136 rows of 64 columns per image */
    { "nhwc_nchw_f32_c64", TL_DT_FLOAT32, 4, { 32, 64, 56, 56 }, "0,2,3,1", "0,1,2,3",
      { 0 }, 0, VALS_BITS },
    { "hwc_chw_u8", TL_DT_UINT8, 3, { 3, 1080, 1920 }, "1,2,0", "0,1,2", { 0 }, 0, VALS_BITS },
    { "chw_hwc_u8", TL_DT_UINT8, 3, { 3, 1080, 1920 }, "0,1,2", "1,2,0", { 0 }, 0, VALS_BITS },
    { "nchw_nhwc_f16_m", TL_DT_FLOAT16, 4, { 8, 64, 112, 112 }, "0,1,2,3", "0,2,3,1",
      { 0 }, 0, VALS_BITS },
    { "unpad_rows_f32", TL_DT_FLOAT32, 4, { 1, 1, 1080, 1918 }, NULL, "0,1,2,3",
      { 1080 * 1920, 1080 * 1920, 1920, 1 }, 0, VALS_BITS },
    { "broadcast_bias_f32", TL_DT_FLOAT32, 4, { 8, 64, 112, 112 }, NULL, "0,1,2,3",
      { 0, 1, 0, 0 }, 0, VALS_BITS },
    { "ncdhw_ndhwc_f32", TL_DT_FLOAT32, 5, { 2, 32, 16, 56, 56 }, "0,1,2,3,4", "0,2,3,4,1",
      { 0 }, 0, VALS_BITS },
    /* conversions fused with the layout change (SPEC section 7) */
    { "f32_f16_flat_l", TL_DT_FLOAT32, 4, { 32, 256, 56, 56 }, "0,1,2,3", "0,1,2,3", { 0 },
      TO(TL_DT_FLOAT16), VALS_MODEL },
    { "f16_f32_flat_l", TL_DT_FLOAT16, 4, { 32, 256, 56, 56 }, "0,1,2,3", "0,1,2,3", { 0 },
      TO(TL_DT_FLOAT32), VALS_BITS },
    /* 38.5 MB: between the row copies' one-thread and several-thread
     * streaming sizes (the built-in rules, calib.c) */
    { "f16_f32_flat_m", TL_DT_FLOAT16, 4, { 8, 64, 112, 112 }, "0,1,2,3", "0,1,2,3", { 0 },
      TO(TL_DT_FLOAT32), VALS_BITS },
    { "nchw_f32_nhwc_f16_m", TL_DT_FLOAT32, 4, { 8, 64, 112, 112 }, "0,1,2,3", "0,2,3,1", { 0 },
      TO(TL_DT_FLOAT16), VALS_MODEL },
    { "nchw_f32_nhwc_f16_nan", TL_DT_FLOAT32, 4, { 8, 64, 112, 112 }, "0,1,2,3", "0,2,3,1",
      { 0 }, TO(TL_DT_FLOAT16), VALS_NAN97 },
    { "hwc_u8_chw_f32", TL_DT_UINT8, 3, { 3, 1080, 1920 }, "1,2,0", "0,1,2", { 0 },
      TO(TL_DT_FLOAT32), VALS_BITS },
    /* the same bytes to FLOAT32 in their layout, and an image of 224 x 224
     * whose output stays in the caches */
    { "u8_f32_flat", TL_DT_UINT8, 3, { 3, 1080, 1920 }, "0,1,2", "0,1,2", { 0 },
      TO(TL_DT_FLOAT32), VALS_BITS },
    { "u8_f32_flat_s", TL_DT_UINT8, 3, { 3, 224, 224 }, "0,1,2", "0,1,2", { 0 },
      TO(TL_DT_FLOAT32), VALS_BITS },
    { "nchw_f32_nhwc_bf16_m", TL_DT_FLOAT32, 4, { 8, 64, 112, 112 }, "0,1,2,3", "0,2,3,1", { 0 },
      TO(TL_DT_BFLOAT16), VALS_MODEL },
    { "nchw_f32_nhwc_bf16_nan", TL_DT_FLOAT32, 4, { 8, 64, 112, 112 }, "0,1,2,3", "0,2,3,1",
      { 0 }, TO(TL_DT_BFLOAT16), VALS_NAN97 },
    /* 4-bit weights (SPEC 12): a [4096, 4096] INT4 matrix unpacked to
     * FLOAT16, transposed to column-major in 4 bits, and quantized from
     * FLOAT32 (its values out of range: clamped, as --saturate does) */
    { "i4_f16_flat", TL_DT_INT4, 2, { 4096, 4096 }, "0,1", "0,1",
      { 0 }, TO(TL_DT_FLOAT16), VALS_BITS },
    { "i4_transpose", TL_DT_INT4, 2, { 4096, 4096 }, "0,1", "1,0", { 0 }, 0, VALS_BITS },
    { "i4_i8_transpose", TL_DT_INT4, 2, { 4096, 4096 }, "0,1", "1,0",
      { 0 }, TO(TL_DT_INT8), VALS_BITS },
    { "f32_i4_flat", TL_DT_FLOAT32, 2, { 4096, 4096 }, "0,1", "0,1",
      { 0 }, TO(TL_DT_INT4), VALS_BITS },
    /* 8-bit floats (SPEC 18): a 1 GiB set of E4M3 weights to BFLOAT16 (its
     * target: 0.8 of memcpy on one thread), 256 MiB of E5M2 and E4M3 to
     * FLOAT32 */
    { "e4m3_bf16_flat", TL_DT_FLOAT8E4M3, 2, { 16384, 65536 }, "0,1", "0,1", { 0 },
      TO(TL_DT_BFLOAT16), VALS_BITS },
    { "e5m2_bf16_flat", TL_DT_FLOAT8E5M2, 2, { 4096, 65536 }, "0,1", "0,1", { 0 },
      TO(TL_DT_BFLOAT16), VALS_BITS },
    { "e4m3_f32_flat", TL_DT_FLOAT8E4M3, 2, { 4096, 65536 }, "0,1", "0,1", { 0 },
      TO(TL_DT_FLOAT32), VALS_BITS },
};

/* A peer's copy, for block(). */
static void run_peer(void *p)
{
    tl_peer_run(p);
}

/* A copy of plan's, for block(). */
struct run_ctx {
    const struct tl_copy_plan *plan;
    const uint8_t *src;
    uint8_t *dst;
    unsigned threads;
};

static void run_plan(void *p)
{
    struct run_ctx *r = p;
    tl_copy_run(r->plan, r->src, r->dst, r->threads, NULL, NULL);
}

/* memcpy (or memset, src NULL) on T threads, as make bench runs every case
 * at 1, 2, 4, ... threads up to the online CPUs (bench_threads): helpers
 * started once, each woken by a semaphore of its own for its part (the
 * caller does the first), so a copy on 2 threads wakes one helper however
 * many there are. */
#define SET_BYTE 0x3c
#define CREW_MAX 256

struct crew;
struct crew_member {
    struct crew *c;
    unsigned i;                         /* its part: i + 1 of c->parts */
    pthread_t tid;
    sem_t go;
};

struct crew {
    unsigned n;                         /* helpers */
    struct crew_member m[CREW_MAX];
    sem_t done;
    uint8_t *dst;
    const uint8_t *src;
    size_t bytes;
    unsigned parts;
    bool quit;
};

/* Bytes [lo, hi) of a copy from src, or of a memset when src is NULL. */
static void part(uint8_t *dst, const uint8_t *src, size_t lo, size_t hi)
{
    if (src)
        memcpy(dst + lo, src + lo, hi - lo);
    else
        memset(dst + lo, SET_BYTE, hi - lo);
}

/* Part k of parts of n bytes, on 64-byte boundaries. */
static void part_of(size_t n, unsigned k, unsigned parts, size_t *lo, size_t *hi)
{
    *lo = (size_t)((unsigned __int128)n * k / parts) / 64 * 64;
    *hi = k + 1 == parts ? n : (size_t)((unsigned __int128)n * (k + 1) / parts) / 64 * 64;
}

static void *crew_worker(void *arg)
{
    struct crew_member *m = arg;
    struct crew *c = m->c;
    for (;;) {
        sem_wait(&m->go);
        if (c->quit)
            return NULL;
        size_t lo, hi;
        part_of(c->bytes, m->i + 1, c->parts, &lo, &hi);
        part(c->dst, c->src, lo, hi);
        sem_post(&c->done);
    }
}

/* Starts the helpers for copies on up to `threads` threads. */
static void crew_start(struct crew *c, unsigned threads)
{
    memset(c, 0, sizeof *c);
    sem_init(&c->done, 0, 0);
    for (unsigned i = 0; i + 1 < threads && i < CREW_MAX; i++) {
        c->m[i].c = c;
        c->m[i].i = i;
        sem_init(&c->m[i].go, 0, 0);
        if (pthread_create(&c->m[i].tid, NULL, crew_worker, &c->m[i]) != 0)
            break;
        c->n++;
    }
}

static void crew_stop(struct crew *c)
{
    c->quit = true;
    for (unsigned i = 0; i < c->n; i++)
        sem_post(&c->m[i].go);
    for (unsigned i = 0; i < c->n; i++) {
        pthread_join(c->m[i].tid, NULL);
        sem_destroy(&c->m[i].go);
    }
    sem_destroy(&c->done);
}

static void memcpy_threads(struct crew *c, uint8_t *dst, const uint8_t *src, size_t n,
                           unsigned threads)
{
    if (c && threads > c->n + 1)
        threads = c->n + 1;
    if (threads < 2 || !c) {
        part(dst, src, 0, n);
        return;
    }
    c->dst = dst;
    c->src = src;
    c->bytes = n;
    c->parts = threads;
    for (unsigned i = 0; i + 1 < threads; i++)
        sem_post(&c->m[i].go);
    size_t lo, hi;
    part_of(n, 0, threads, &lo, &hi);
    part(dst, src, lo, hi);
    for (unsigned i = 0; i + 1 < threads; i++)
        sem_wait(&c->done);
}

/* The thread counts every case runs at: 1, 2, 4, ... and the online CPUs
 * (BENCH_MAX_THREADS caps them). */
static unsigned tcounts[16], ntcounts;

static void thread_counts(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned most = cpus > 0 ? (unsigned)cpus : 1;
    const char *cap = getenv("BENCH_MAX_THREADS");
    if (cap && atoi(cap) > 0 && (unsigned)atoi(cap) < most)
        most = (unsigned)atoi(cap);
    if (most > CREW_MAX)
        most = CREW_MAX;
    most = most < 2 ? 2 : most;         /* 2 always: the cases' second column */
    ntcounts = 0;
    for (unsigned t = 1; t < most && ntcounts < 15; t *= 2)
        tcounts[ntcounts++] = t;
    tcounts[ntcounts++] = most;
}

/* memset of the output bytes on 1 or 2 threads, for block(): what a
 * broadcast fill is held to */
struct set_ctx {
    struct crew *h;
    uint8_t *dst;
    size_t n;
    unsigned threads;
};

static void run_memset(void *p)
{
    struct set_ctx *c = p;
    memcpy_threads(c->h, c->dst, NULL, c->n, c->threads);
}

static FILE *json;

/* ---- where it ran -------------------------------------------------------- */

/* The value of the first "key : value" line of /proc/cpuinfo, or "?". */
static void cpuinfo(const char *key, char *out, size_t n)
{
    char line[512];
    snprintf(out, n, "?");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    size_t k = strlen(key);
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, key, k) == 0 && colon && strspn(line + k, " \t") == (size_t)(colon - line - k)) {
            snprintf(out, n, "%s", colon + 1 + strspn(colon + 1, " "));
            out[strcspn(out, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
}

/* A cache's size as the kernel tells it for cpu0: index 0..3 of
 * /sys/devices/system/cpu/cpu0/cache ("32K"), or "?". */
static void cache_size(int level, const char *type, char *out, size_t n)
{
    snprintf(out, n, "?");
    for (int i = 0; i < 8; i++) {
        char path[128], v[32] = "", t[32] = "";
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f)
            return;
        bool ok = fgets(v, sizeof v, f) != NULL;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!ok || atoi(v) != level || !(f = fopen(path, "r")))
            continue;
        ok = fgets(t, sizeof t, f) != NULL;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!ok || strncmp(t, type, strlen(type)) != 0 || !(f = fopen(path, "r")))
            continue;
        if (fgets(out, (int)n, f))
            out[strcspn(out, "\n")] = '\0';
        fclose(f);
        return;
    }
}

struct mc_ctx {
    struct crew *h;
    uint8_t *dst, *src;
    size_t n;
    unsigned threads;
};

static void run_memcpy(void *p)
{
    struct mc_ctx *m = p;
    memcpy_threads(m->h, m->dst, m->src, m->n, m->threads);
}

/* Says where the figures below were measured, so that figures from
 * different machines are never compared by mistake: the CPU, its online
 * cores, caches and ISAs, and memcpy's speed from memory at 1 and 2
 * threads (256 MiB, warm, medians of a block each). */
static void bench_machine(void)
{
    char model[160], vendor[64], family[16], mod[16], l1[16], l2[16], l3[16];
    cpuinfo("model name", model, sizeof model);
    cpuinfo("vendor_id", vendor, sizeof vendor);
    cpuinfo("cpu family", family, sizeof family);
    cpuinfo("model", mod, sizeof mod);
    cache_size(1, "Data", l1, sizeof l1);
    cache_size(2, "Unified", l2, sizeof l2);
    cache_size(3, "Unified", l3, sizeof l3);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    char isas[64] = "";
    for (int i = 0; i < TL_ISA_COUNT; i++) {
        if (tl_isa_supported((enum tl_isa)i))
            snprintf(isas + strlen(isas), sizeof isas - strlen(isas), "%s%s", *isas ? " " : "",
                     tl_isa_name((enum tl_isa)i));
    }
    size_t n = (size_t)256 << 20;
    static struct crew h;
    crew_start(&h, tcounts[ntcounts - 1]);
    struct mc_ctx m = { &h, big(n), big(n), n, 1 };
    memset(m.src, 1, n);
    double gbps[16];
    for (unsigned i = 0; i < ntcounts; i++) {
        m.threads = tcounts[i];
        gbps[i] = 2.0 * (double)n / block(run_memcpy, &m) / 1e9;
    }
    crew_stop(&h);
    unbig(m.dst, n);
    unbig(m.src, n);
    printf("machine: %s (%s family %s model %s), %ld online CPUs, L1d %s, L2 %s, L3 %s\n",
           model, vendor, family, mod, cores, l1, l2, l3);
    printf("isa: %s active (supported: %s)\n", tl_isa_name(tl_isa_active()), isas);
    printf("memcpy from memory (256 MiB):");
    for (unsigned i = 0; i < ntcounts; i++)
        printf("%s %uT %.1f GB/s (x%.2f)", i ? "," : "", tcounts[i], gbps[i], gbps[i] / gbps[0]);
    printf("\n\n");
    if (json)
        fprintf(json, "{\"machine\": \"%s\", \"vendor\": \"%s\", \"family\": \"%s\", "
                "\"model\": \"%s\", \"cpus\": %ld, \"l1d\": \"%s\", \"l2\": \"%s\", "
                "\"l3\": \"%s\", \"isa\": \"%s\", \"memcpy_1t_gbps\": %.2f, "
                "\"memcpy_2t_gbps\": %.2f}\n", model, vendor, family, mod, cores, l1, l2, l3,
                tl_isa_name(tl_isa_active()), gbps[0], gbps[1]);
}

/* The copy core's choices for every case below: this machine measured
 * now (tl_calib_measure, as `tensorlayout calibrate` does), or the
 * built-in rules with BENCH_CALIBRATION=off; printed in the calibration
 * file's form, and handed to the tensorlayout processes timed below
 * through TENSORLAYOUT_CALIBRATION. */
static char calib_file[64];

static void drop_calib_file(void)
{
    unlink(calib_file);
}

static void bench_calibrate(void)
{
    const char *want = getenv("BENCH_CALIBRATION");
    struct tl_calib cal;
    if (want && strcmp(want, "off") == 0) {
        tl_calib_set(NULL);
        setenv("TENSORLAYOUT_CALIBRATION", "off", 1);
        tl_calib_default(&cal);
    } else if (want && *want) {                 /* a calibration file */
        char text[8192];
        struct tl_error err;
        FILE *f = fopen(want, "rb");
        size_t n = f ? fread(text, 1, sizeof text, f) : 0;
        if (!f || tl_calib_parse(text, n, &cal, &err)) {
            fprintf(stderr, "bench: BENCH_CALIBRATION=%s: %s\n", want,
                    f ? err.msg : strerror(errno));
            exit(2);
        }
        fclose(f);
        tl_calib_set(&cal);
        setenv("TENSORLAYOUT_CALIBRATION", want, 1);
    } else {
        tl_calib_measure(&cal, false, NULL, NULL, NULL);
        tl_calib_set(&cal);
        char text[4096];
        size_t n = tl_calib_format(&cal, text, sizeof text);
        snprintf(calib_file, sizeof calib_file, "/tmp/tl-bench-calib.%ld", (long)getpid());
        FILE *f = fopen(calib_file, "w");
        if (f && fwrite(text, 1, n, f) == n && fclose(f) == 0) {
            setenv("TENSORLAYOUT_CALIBRATION", calib_file, 1);
            atexit(drop_calib_file);
        } else {
            perror(calib_file);
        }
    }
    char text[4096];
    tl_calib_format(&cal, text, sizeof text);
    printf("calibration (%s):\n", want && *want && strcmp(want, "off") ? want
           : cal.measured ? "measured now; BENCH_CALIBRATION=off for the built-in rules, "
           "=FILE for a calibration file" : "the built-in rules, BENCH_CALIBRATION=off");
    if (tl_calib_disturbed(&cal))
        printf("  DISTURBED: memcpy on 2 threads at %.2fx its speed on 1 after three tries: "
               "another program held a CPU; the thread sizes below are suspect\n",
               cal.memcpy_gbs[1] / cal.memcpy_gbs[0]);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] != '#' && strncmp(line, "crc32", 5) != 0 && strncmp(line, "tensorlayout-", 13))
            printf("  %s\n", line);
    printf("\n");
    if (json)
        fprintf(json, "{\"calibration\": \"%s\", \"rows_stream_1t\": %llu, "
                "\"rows_stream_2t\": %llu, \"rows_threads_from\": %llu}\n",
                cal.measured ? "measured" : "off",
                (unsigned long long)cal.stream_from[TL_CAL_ROWS][0],
                (unsigned long long)cal.stream_from[TL_CAL_ROWS][1],
                (unsigned long long)cal.threads_from[TL_CAL_ROWS]);
}

static void make_desc(const struct bcase *c, enum tl_dtype dt, const char *layout,
                      const uint64_t *strides, struct tl_desc *d)
{
    struct tl_error err;
    if (tl_desc_init(d, dt, c->rank, c->sizes, &err)) {
        fprintf(stderr, "bench: %s: %s\n", c->name, err.msg);
        exit(2);
    }
    if (layout) {
        unsigned order[TL_MAX_RANK];
        tl_layout_parse(c->rank, layout, order, &err);
        tl_strides_for_order(c->rank, c->sizes, order, 0, d->strides, &err);
    } else {
        memcpy(d->strides, strides, c->rank * sizeof *strides);
    }
    d->strides_src = TL_STRIDES_GIVEN;
    d->total_given = false;
    tl_desc_validate(d, &err);
}

/* One variant's line; `same` names the narrower ISA whose kernels it runs
 * (and whose measurement it shares), or is NULL. */
static void report(const char *name, const char *isa, unsigned threads, double gbps, double mgbps,
                   const char *same)
{
    printf("%-20s %-7s %u  %8.2f  %8.2f  %6.2f", name, isa, threads, gbps, mgbps, gbps / mgbps);
    if (same)
        printf("   (%s's kernels: timed once)", same);
    printf("\n");
    if (json)
        fprintf(json, "{\"case\": \"%s\", \"isa\": \"%s\", \"threads\": %u, \"gbps\": %.3f, "
                "\"memcpy_gbps\": %.3f, \"ratio\": %.3f, \"same_as\": \"%s\"}\n", name, isa,
                threads, gbps, mgbps, gbps / mgbps, same ? same : "");
}

static void fill_values(int vals, uint8_t *src, uint64_t bytes)
{
    if (vals == VALS_BITS) {
        for (uint64_t i = 0; i < bytes; i++)
            src[i] = (uint8_t)(i * 2654435761u >> 13);
        return;
    }
    uint64_t x = 88172645463325252ull;
    for (uint64_t i = 0; i + 4 <= bytes; i += 4) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t v = (uint32_t)(x >> 32);
        uint32_t e = 103 + (uint32_t)(x % 33);     /* 2^-24 .. 2^8 */
        v = (v & 0x807fffffu) | e << 23;
        if (vals == VALS_NAN97 && i / 4 % 97 == 0)
            v = 0x7fc00000u;
        memcpy(src + i, &v, 4);
    }
}

static void bench_case(const struct bcase *c)
{
    struct tl_desc s, d;
    struct tl_info si;
    make_desc(c, c->dt, c->src_layout, c->src_strides, &s);
    make_desc(c, c->to ? (enum tl_dtype)(c->to - 1) : c->dt, c->dst_layout, NULL, &d);
    tl_desc_classify(&s, &si);
    struct tl_copy_plan plan;
    struct tl_error err;
    if (tl_copy_plan(&plan, &s, &d, &err)) {
        fprintf(stderr, "bench: %s: %s\n", c->name, err.msg);
        exit(2);
    }
    uint64_t out = plan.dst_bytes;
    uint64_t read = tl_dtype_bytes(c->dt, si.span > si.element_count ? si.span : si.element_count);
    const char *force = getenv("BENCH_STREAM");
    if (force && *force)
        plan.stream = plan.stream_threads = atoi(force) != 0;
    uint8_t *src = big(plan.src_bytes), *dst = big(out), *msrc = big(out), *mdst = big(out);
    fill_values(c->vals, src, plan.src_bytes);
    static struct crew h;
    crew_start(&h, tcounts[ntcounts - 1]);
    double best[16] = { 0 }, active[16] = { 0 }, streamed[16] = { 0 }, active_gbps[16] = { 0 };
    double set[16] = { 0 };
    double peer[16] = { 0 };
    char why[160] = "";
    bool peer_skipped = false;
    /* the output bytes as one flat run, copied with streaming stores */
    struct tl_desc fd;
    struct tl_copy_plan flat;
    tl_desc_init(&fd, TL_DT_UINT8, 1, &out, NULL);
    tl_copy_plan(&flat, &fd, &fd, NULL);
    flat.stream = flat.stream_threads = true;
    const char *best_isa[16] = { "" };
    enum tl_isa act = tl_isa_active(), isas[TL_ISA_COUNT];
    int ni = 0;
    for (int isa = 0; isa < TL_ISA_COUNT; isa++)
        if (tl_isa_supported((enum tl_isa)isa))
            isas[ni++] = (enum tl_isa)isa;
    /* an ISA whose kernels for this plan are a narrower one's runs the same
     * code: it is timed once, as that one (two timings of one kernel here
     * differed by up to 22%, which flagged dispatch for the machine's
     * noise) */
    int same[TL_ISA_COUNT];
    for (int k = 0; k < ni; k++) {
        same[k] = k;
        for (int q = 0; q < k && same[k] == k; q++)
            if (same[q] == q && tl_copy_plan_same_kernels(&plan, isas[q], isas[k]))
                same[k] = q;
    }
    for (unsigned li = 0; li < ntcounts; li++) {
        unsigned threads = tcounts[li];
        static double t[TL_ISA_COUNT][MAX_RUNS], m[2 * MAX_RUNS];
        int nm = 0, nt[TL_ISA_COUNT] = { 0 };
        /* memcpy, warm, in a block of its own before and after the case's
         * block, in which the variants take turns, ROUNDS short blocks
         * each, so that whatever drifts on a shared machine meanwhile
         * drifts for all of them alike (back-to-back runs of one variant:
         * a run after another variant's is slower, whatever the kernel) */
        for (int block = 0; block < 2; block++) {
            if (block == 1) {
                for (int round = 0; round < ROUNDS; round++) {
                    for (int q = 0; q < ni; q++) {
                        int k = (q + round) % ni;
                        if (same[k] != k)
                            continue;
                        plan.isa = isas[k];
                        tl_copy_run(&plan, src, dst, threads, NULL, NULL);      /* warm-up */
                        double start = now();
                        int n0 = nt[k];
                        while (nt[k] < MAX_RUNS && (nt[k] - n0 < RUNS / ROUNDS + 1 ||
                                                    now() - start < MIN_BLOCK / ROUNDS)) {
                            double t0 = now();
                            tl_copy_run(&plan, src, dst, threads, NULL, NULL);
                            t[k][nt[k]++] = now() - t0;
                        }
                    }
                }
            }
            memcpy_threads(&h, mdst, msrc, out, threads);              /* warm-up */
            double start = now();
            int first = nm;
            while (nm - first < MAX_RUNS && (nm - first < MIN_RUNS || now() - start < MIN_BLOCK)) {
                double t0 = now();
                memcpy_threads(&h, mdst, msrc, out, threads);
                m[nm++] = now() - t0;
            }
        }
        double mt = median(m, nm), mgbps = 2.0 * (double)out / mt / 1e9;
        /* a case whose output streams at this thread count is bounded by
         * what streaming stores can write: a copy of the same bytes with
         * them, in a block of its own after memcpy's */
        double sgbps = 0;
        if (tl_copy_streams(&plan, threads)) {
            struct run_ctx r = { &flat, msrc, mdst, threads };
            sgbps = 2.0 * (double)out / block(run_plan, &r) / 1e9;
        }
        for (int k = 0; k < ni; k++) {
            int g = same[k];
            double gbps = (double)(read + out) / median(t[g], nt[g]) / 1e9;
            report(c->name, tl_isa_name(isas[k]), threads, gbps, mgbps,
                   g != k ? tl_isa_name(isas[g]) : NULL);
            double ratio = gbps / mgbps;
            if (ratio > best[li]) {
                best[li] = ratio;
                best_isa[li] = tl_isa_name(isas[k]);
            }
            if (isas[k] == act) {
                active[li] = ratio;
                active_gbps[li] = gbps;
            }
        }
        /* the peer: the same copy, same buffers, warm, in a block of its
         * own after memcpy's */
        struct tl_peer *pe = tl_peer_open(&s, &d, src, dst, threads, why, sizeof why);
        peer_skipped |= !pe;
        if (pe) {
            double pgbps = (double)(read + out) / block(run_peer, pe) / 1e9;
            tl_peer_close(pe);
            peer[li] = pgbps / mgbps;
            printf("%-20s %-7s %u  %8.2f  %8.2f  %6.2f   (%s's reorder: the same copy)\n", c->name,
                   "peer", threads, pgbps, mgbps, pgbps / mgbps, tl_peer_name());
            if (json)
                fprintf(json, "{\"case\": \"%s\", \"isa\": \"%s\", \"threads\": %u, "
                        "\"gbps\": %.3f, \"memcpy_gbps\": %.3f, \"ratio\": %.3f}\n", c->name,
                        tl_peer_name(), threads, pgbps, mgbps, pgbps / mgbps);
        }
        if (plan.kind == TL_COPY_FILL) {
            /* a fill writes what memset writes: memset of the output bytes,
             * in a block of its own after memcpy's, counted as the case
             * counts its bytes (read + written, 2 x output) */
            struct set_ctx sc = { &h, mdst, out, threads };
            double setgbps = 2.0 * (double)out / block(run_memset, &sc) / 1e9;
            set[li] = setgbps / mgbps;
            printf("%-20s %-7s %u  %8.2f  %8.2f  %6.2f   (memset of the output bytes)\n", c->name,
                   "memset", threads, setgbps, mgbps, setgbps / mgbps);
            if (json)
                fprintf(json, "{\"case\": \"%s\", \"isa\": \"memset\", \"threads\": %u, "
                        "\"gbps\": %.3f, \"memcpy_gbps\": %.3f, \"ratio\": %.3f}\n", c->name,
                        threads, setgbps, mgbps, setgbps / mgbps);
        }
        if (sgbps > 0) {
            streamed[li] = sgbps / mgbps;
            printf("%-20s %-7s %u  %8.2f  %8.2f  %6.2f   (a copy of the output bytes with "
                   "streaming stores, as this case writes)\n", c->name, "stream", threads, sgbps,
                   mgbps, sgbps / mgbps);
            if (json)
                fprintf(json, "{\"case\": \"%s\", \"isa\": \"stream-copy\", \"threads\": %u, "
                        "\"gbps\": %.3f, \"memcpy_gbps\": %.3f, \"ratio\": %.3f}\n", c->name,
                        threads, sgbps, mgbps, sgbps / mgbps);
        }
    }
    for (unsigned li = 0; li < ntcounts; li++) {
        unsigned threads = tcounts[li];
        printf("%-20s active %-6s %u  %6.2f   best %-6s %6.2f", c->name, tl_isa_name(act),
               threads, active[li], best_isa[li], best[li]);
        if (streamed[li] > 0)
            printf("   streamed copy %.2f", streamed[li]);
        if (set[li] > 0)
            printf("   memset %.2f", set[li]);
        if (peer[li] > 0)
            printf("   %s %.2f%s", tl_peer_name(), peer[li],
                   active[li] < peer[li] ? " (ahead of tensorlayout)" : "");
        if (li)                         /* the same copy, absolute: more threads over fewer */
            printf("   %uT/%uT %.2f", threads, tcounts[li - 1],
                   active_gbps[li] / active_gbps[li - 1]);
        printf("%s%s\n",
               active[li] < 0.9 * best[li] ? "   (active more than 10% behind)" : "",
               li && active_gbps[li] < active_gbps[li - 1] * 0.95
               ? "   (slower than on fewer threads)" : "");
    }
    /* where more threads stop paying: the most whose GB/s still grew by
     * 5% over the best of fewer (issue 50) */
    unsigned pays = 0;
    for (unsigned li = 1; li < ntcounts; li++)
        if (active_gbps[li] >= active_gbps[pays] * 1.05)
            pays = li;
    printf("%-20s threads pay up to %u (of %u)\n", c->name, tcounts[pays], tcounts[ntcounts - 1]);
    if (peer_skipped)
        printf("skip: %s on %s: %s\n", tl_peer_name(), c->name, why);
    crew_stop(&h);
    unbig(src, plan.src_bytes);
    unbig(dst, out);
    unbig(msrc, out);
    unbig(mdst, out);
}

struct cmp_ctx {
    struct tl_desc a, b;
    const uint8_t *af, *bf;
    uint64_t bytes;
    unsigned threads;
    struct tl_copy_plan plan;
    uint8_t *out;
    int sink;
};

static void run_memcmp(void *p)
{
    struct cmp_ctx *c = p;
    c->sink += memcmp(c->af, c->bf, c->bytes) != 0;
}

static void run_compare(void *p)
{
    struct cmp_ctx *c = p;
    struct tl_compare_opts o = { .show = 10, .threads = c->threads };
    struct tl_compare_result r;
    if (tl_compare(&c->a, c->af, &c->b, c->bf, &o, &r, NULL) == 0) {
        c->sink += r.mismatches != 0;
        tl_compare_free(&r);
    }
}

static void run_convert(void *p)
{
    struct cmp_ctx *c = p;
    tl_copy_run(&c->plan, c->af, c->out, c->threads, NULL, NULL);
}

/* compare_same_f32_l: two equal 103 MB FLOAT32 NCHW tensors, against memcmp
 * of the same bytes (blocks before and after); compare_nchw_nhwc_f32_l:
 * NCHW against NHWC, equal, against the nchw_nhwc_f32_l conversion. */
static void bench_compare(void)
{
    uint64_t sizes[4] = { 32, 256, 56, 56 };
    unsigned nhwc[4] = { 0, 2, 3, 1 };
    struct cmp_ctx c = { .bytes = 32ull * 256 * 56 * 56 * 4 };
    tl_desc_init(&c.a, TL_DT_FLOAT32, 4, sizes, NULL);
    c.b = c.a;
    uint8_t *a = big(c.bytes), *b = big(c.bytes), *t = big(c.bytes);
    for (uint64_t i = 0; i < c.bytes / 4; i++) {
        float v = (float)(i % 1000) * 0.5f;
        memcpy(a + 4 * i, &v, 4);
    }
    memcpy(b, a, c.bytes);
    c.af = a;
    c.bf = b;
    for (unsigned li = 0; li < ntcounts; li++) {
        unsigned threads = tcounts[li];
        c.threads = threads;
        double m1 = block(run_memcmp, &c), ct = block(run_compare, &c), m2 = block(run_memcmp, &c);
        double mt = (m1 + m2) / 2;
        printf("%-24s %u  compare %.1f ms, memcmp %.1f ms (%.1f, %.1f): speed ratio %.2f "
               "(target >= 0.80)\n", "compare_same_f32_l", threads, ct * 1e3, mt * 1e3,
               m1 * 1e3, m2 * 1e3, mt / ct);
        if (json)
            fprintf(json, "{\"case\": \"compare_same_f32_l\", \"threads\": %u, \"compare_ms\": "
                    "%.2f, \"memcmp_ms\": %.2f, \"ratio\": %.3f}\n", threads, ct * 1e3, mt * 1e3,
                    mt / ct);
    }
    /* B: the same tensor stored NHWC */
    struct tl_desc nchw = c.a, bn = c.a;
    tl_strides_for_order(4, sizes, nhwc, 0, bn.strides, NULL);
    bn.strides_src = TL_STRIDES_GIVEN;
    tl_copy_plan(&c.plan, &nchw, &bn, NULL);
    tl_copy_run(&c.plan, a, b, 1, NULL, NULL);
    c.b = bn;
    c.out = t;
    for (unsigned li = 0; li < ntcounts; li++) {
        unsigned threads = tcounts[li];
        c.threads = threads;
        double v1 = block(run_convert, &c), ct = block(run_compare, &c), v2 = block(run_convert, &c);
        double vt = (v1 + v2) / 2;
        printf("%-24s %u  compare %.1f ms, convert nchw_nhwc_f32_l %.1f ms: time ratio %.2f "
               "(target <= 1.50)\n", "compare_nchw_nhwc_f32_l", threads, ct * 1e3, vt * 1e3,
               ct / vt);
        if (json)
            fprintf(json, "{\"case\": \"compare_nchw_nhwc_f32_l\", \"threads\": %u, "
                    "\"compare_ms\": %.2f, \"convert_ms\": %.2f, \"ratio\": %.3f}\n", threads,
                    ct * 1e3, vt * 1e3, ct / vt);
    }
    if (c.sink)
        printf("(compare found a difference: the benchmark is wrong)\n");
    unbig(a, c.bytes);
    unbig(b, c.bytes);
    unbig(t, c.bytes);
}

/* One run of a shell command: wall time, and the CPU time (user + system)
 * and (when rss_mib is not NULL) the peak resident memory of it and its
 * children, from wait4(). */
static int run_command(const char *cmd, double *wall, double *cpu, double *rss_mib)
{
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    struct rusage ru;
    int status;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -1;
    *wall = now() - t0;
    *cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    if (rss_mib)
        *rss_mib = ru.ru_maxrss / 1024.0;
    return 0;
}

/* Wall time of a shell command, median of RUNS after a warm-up; the median
 * CPU time in *cpu (when not NULL). */
static double time_command_cpu(const char *cmd, double *cpu)
{
    double t[RUNS], c[RUNS], w, u;
    if (run_command(cmd, &w, &u, NULL) != 0) {
        fprintf(stderr, "bench: failed: %s\n", cmd);
        return -1;
    }
    for (int r = 0; r < RUNS; r++) {
        if (run_command(cmd, &t[r], &c[r], NULL) != 0)
            return -1;
    }
    if (cpu)
        *cpu = median(c, RUNS);
    return median(t, RUNS);
}

static double time_command(const char *cmd)
{
    return time_command_cpu(cmd, NULL);
}

/* A process that keeps one core busy, as another job would. */
static pid_t start_busy(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        volatile unsigned long x = 0;
        for (;;)
            x++;
    }
    return pid;
}

/* The .npy file at npy (len bytes) as the one stored member of an .npz,
 * as np.savez writes it: reading a stored member in place must cost no
 * more than reading the .npy itself.  The .npy conversion is timed in its
 * own block before and after the .npz one, and their mean is the baseline. */
static void bench_npz_member(const char *tool, const char *dir, const char *npy, const char *out,
                             uint64_t len)
{
    char npz[256], cmd[2048];
    snprintf(npz, sizeof npz, "%s/tl-bench-%d.npz", dir, (int)getpid());
    FILE *in = fopen(npy, "rb"), *f = fopen(npz, "wb");
    uint8_t *buf = big(len), local[TL_ZIP_LOCAL_MAX], desc[TL_ZIP_DESCRIPTOR], *cd = NULL;
    size_t cdlen = 0;
    bool ok = in && f && fread(buf, 1, len, in) == len;
    struct tl_zip_entry e = { "t.npy", len, 0, (uint32_t)crc32_z(0, buf, (size_t)len) };
    size_t ll = tl_zip_local(e.name, local);
    ok = ok && fwrite(local, 1, ll, f) == ll && fwrite(buf, 1, len, f) == len &&
         fwrite(desc, 1, tl_zip_descriptor(e.crc, len, desc), f) == TL_ZIP_DESCRIPTOR &&
         tl_zip_directory(&e, 1, ll + len + TL_ZIP_DESCRIPTOR, &cd, &cdlen, NULL) == 0 &&
         fwrite(cd, 1, cdlen, f) == cdlen;
    free(cd);
    unbig(buf, len);
    if (in)
        fclose(in);
    if (f)
        fclose(f);
    if (ok) {
        snprintf(cmd, sizeof cmd, "'%s' convert '%s' -o '%s' --to NHWC --quiet", tool, npy, out);
        double a = time_command(cmd);
        snprintf(cmd, sizeof cmd, "'%s' convert '%s':t -o '%s' --to NHWC --quiet", tool, npz, out);
        double z = time_command(cmd);
        snprintf(cmd, sizeof cmd, "'%s' convert '%s' -o '%s' --to NHWC --quiet", tool, npy, out);
        double b = time_command(cmd);
        if (a > 0 && z > 0 && b > 0)
            printf("process: convert of the same tensor as a stored .npz member to .npy: %.1f ms, "
                   ".npy: %.1f ms (mean of %.1f and %.1f), ratio %.2f (target <= 1.00 + noise)\n",
                   z * 1e3, (a + b) / 2 * 1e3, a * 1e3, b * 1e3, z / ((a + b) / 2));
        if (json && a > 0 && z > 0 && b > 0)
            fprintf(json, "{\"case\": \"process_convert_npz_vs_npy\", \"npz_ms\": %.1f, "
                    "\"npy_ms\": %.1f, \"ratio\": %.3f}\n", z * 1e3, (a + b) / 2 * 1e3,
                    z / ((a + b) / 2));
    }
    unlink(npz);
}

static void bench_process(const char *tool)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    char in[256], outp[256], desc[512], cmd[2048];
    snprintf(in, sizeof in, "%s/tl-bench-%d.bin", dir, (int)getpid());
    snprintf(outp, sizeof outp, "%s/tl-bench-%d.out", dir, (int)getpid());
    uint64_t n = 32ull * 256 * 56 * 56 * 4;
    FILE *f = fopen(in, "wb");
    if (!f) {
        perror(in);
        return;
    }
    uint8_t *buf = big(n);
    fwrite(buf, 1, n, f);
    fclose(f);
    unbig(buf, n);
    snprintf(desc, sizeof desc, "{\"dataType\": \"FLOAT32\", \"sizes\": [32, 256, 56, 56]}");
    snprintf(cmd, sizeof cmd, "cat '%s' > '%s'", in, outp);
    char cat_cmd[2048];
    snprintf(cat_cmd, sizeof cat_cmd, "%s", cmd);
    double cc = 0, ct = 0;
    double tc = time_command_cpu(cat_cmd, &cc);
    snprintf(cmd, sizeof cmd, "'%s' convert '%s' '%s' -o '%s' --to NHWC --quiet", tool, desc, in, outp);
    double tt = time_command_cpu(cmd, &ct);
    if (tc > 0 && tt > 0) {
        printf("\nprocess: convert nchw_nhwc_f32_l (%.0f MB file on %s): %.1f ms, cat: %.1f ms, "
               "wall ratio %.2f (target <= 1.10)\n", n / 1e6, dir, tt * 1e3, tc * 1e3, tt / tc);
        printf("process: CPU time (user + system) convert %.1f ms, cat %.1f ms, ratio %.2f "
               "(target <= 1.30)\n", ct * 1e3, cc * 1e3, ct / cc);
    }
    /* the same with one core busy with another job */
    pid_t busy = start_busy();
    if (busy > 0) {
        double bc = time_command(cat_cmd), bt = time_command(cmd);
        kill(busy, SIGKILL);
        waitpid(busy, NULL, 0);
        if (bc > 0 && bt > 0)
            printf("process: with one core busy: convert %.1f ms, cat %.1f ms, wall ratio %.2f "
                   "(target <= 1.30)\n", bt * 1e3, bc * 1e3, bt / bc);
    }
    /* the same tensor as a .npy file: reading a tensor file must add no
     * pass over the data.  The raw conversion is timed in its own block
     * before and after the .npy one, and their mean is the baseline. */
    char npy_in[256], npy_out[256];
    snprintf(npy_in, sizeof npy_in, "%s/tl-bench-%d.npy", dir, (int)getpid());
    snprintf(npy_out, sizeof npy_out, "%s/tl-bench-%d.out.npy", dir, (int)getpid());
    struct tl_desc nd;
    uint64_t nsizes[4] = { 32, 256, 56, 56 };
    uint8_t hdr[4096];
    size_t hlen = 0;
    FILE *nf = fopen(npy_in, "wb");
    if (nf && tl_desc_init(&nd, TL_DT_FLOAT32, 4, nsizes, NULL) == 0 &&
        tl_npy_header(&nd, hdr, sizeof hdr, &hlen, NULL) == 0) {
        fwrite(hdr, 1, hlen, nf);
        buf = big(n);
        fwrite(buf, 1, n, nf);
        unbig(buf, n);
        fclose(nf);
        snprintf(cmd, sizeof cmd, "'%s' convert '%s' -o '%s' --to NHWC --quiet", tool, npy_in,
                 npy_out);
        double tn = time_command(cmd);
        snprintf(cmd, sizeof cmd, "'%s' convert '%s' '%s' -o '%s' --to NHWC --quiet", tool, desc,
                 in, outp);
        double tt2 = time_command(cmd);
        if (tt > 0 && tn > 0 && tt2 > 0)
            printf("process: convert of the same tensor as .npy to .npy: %.1f ms, raw: %.1f ms "
                   "(mean of %.1f and %.1f), ratio %.2f (target <= 1.10)\n", tn * 1e3,
                   (tt + tt2) / 2 * 1e3, tt * 1e3, tt2 * 1e3, tn / ((tt + tt2) / 2));
        if (json && tt > 0 && tn > 0 && tt2 > 0)
            fprintf(json, "{\"case\": \"process_convert_npy_vs_raw\", \"npy_ms\": %.1f, "
                    "\"raw_ms\": %.1f, \"ratio\": %.3f}\n", tn * 1e3, (tt + tt2) / 2 * 1e3,
                    tn / ((tt + tt2) / 2));
        bench_npz_member(tool, dir, npy_in, npy_out, hlen + n);
    } else if (nf) {
        fclose(nf);
    }
    unlink(npy_in);
    unlink(npy_out);
    /* peak memory of the converter alone, from wait4().  fork(), not
     * posix_spawn(): a child that shares this process's memory until exec
     * (CLONE_VM) inherits its high-water mark; a forked copy starts from
     * the current, small, resident size. */
    char *args[] = { (char *)tool, "convert", desc, in, "-o", outp, "--to", "NHWC", "--quiet", NULL };
    struct rusage ru;
    int status;
    pid_t pid = fork();
    if (pid == 0) {
        execv(tool, args);
        _exit(127);
    }
    if (pid > 0 && wait4(pid, &status, 0, &ru) == pid && WIFEXITED(status) &&
        WEXITSTATUS(status) == 0)
        printf("process: peak resident memory of convert %.1f MiB (bound: input + output + 64 MiB "
               "= %.1f MiB)\n", ru.ru_maxrss / 1024.0, (2.0 * n + (64 << 20)) / 1048576.0);
    if (json && tc > 0 && tt > 0)
        fprintf(json, "{\"case\": \"process_convert_vs_cat\", \"convert_ms\": %.1f, \"cat_ms\": %.1f, "
                "\"ratio\": %.3f}\n", tt * 1e3, tc * 1e3, tt / tc);
    unlink(in);
    unlink(outp);
}

/* dump's text: 4 Mi random FLOAT32 values as a .npy file, printed with
 * --all and with --json, against numpy's savetxt('%.9g') of the same
 * array when a python3 with numpy is there. */
static void bench_text(const char *tool)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    char path[256], cmd[1024];
    snprintf(path, sizeof path, "%s/tl-bench-text-%d.npy", dir, (int)getpid());
    uint64_t sizes[2] = { 1024, 4096 }, n = sizes[0] * sizes[1];
    struct tl_desc d;
    uint8_t hdr[4096];
    size_t hlen;
    FILE *f = fopen(path, "wb");
    if (!f || tl_desc_init(&d, TL_DT_FLOAT32, 2, sizes, NULL) ||
        tl_npy_header(&d, hdr, sizeof hdr, &hlen, NULL)) {
        if (f)
            fclose(f);
        return;
    }
    fwrite(hdr, 1, hlen, f);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        float v = (float)((double)(x >> 11) / 9007199254740992.0 * 200.0 - 100.0);
        fwrite(&v, 4, 1, f);
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' dump --all '%s' > /dev/null", tool, path);
    double tt = time_command(cmd);
    snprintf(cmd, sizeof cmd, "'%s' dump --json '%s' > /dev/null", tool, path);
    double tj = time_command(cmd);
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c \"import numpy as np; "
             "np.savetxt('/dev/null', np.load('%s'), fmt='%%.9g')\" 2>/dev/null", path);
    double tn = system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") == 0 ? time_command(cmd) : -1;
    if (tt > 0 && tj > 0) {
        printf("\ntext: dump --all %.2f M values/s, --json %.2f M values/s (target >= 5)",
               n / tt / 1e6, n / tj / 1e6);
        if (tn > 0)
            printf("; numpy savetxt %.2f M values/s: dump --all %.2fx its speed", n / tn / 1e6,
                   tn / tt);
        printf("\n");
    }
    unlink(path);
}

/* The numpy script a user writes today for a whole model: read the file,
 * each FLOAT32 tensor to BFLOAT16 by the round-to-nearest-even bit rule
 * (numpy has no bfloat16), OIHW weights to OHWI with numpy's transpose
 * when asked, the rest as it is; write a safetensors file. */
static const char numpy_script[] =
    "import json, sys\n"
    "import numpy as np\n"
    "src, dst, ohwi = sys.argv[1], sys.argv[2], sys.argv[3] == '1'\n"
    "with open(src, 'rb') as f:\n"
    "    data = f.read()\n"
    "n = int.from_bytes(data[:8], 'little')\n"
    "head = json.loads(data[8:8 + n])\n"
    "body = memoryview(data)[8 + n:]\n"
    "out = {}\n"
    "for name, t in head.items():\n"
    "    if name == '__metadata__':\n"
    "        continue\n"
    "    b, e = t['data_offsets']\n"
    "    if t['dtype'] == 'F32':\n"
    "        a = np.frombuffer(body[b:e], np.float32).reshape(t['shape'])\n"
    "        if ohwi and a.ndim == 4:\n"
    "            a = a.transpose(0, 2, 3, 1)\n"
    "        u = np.ascontiguousarray(a).view(np.uint32)\n"
    "        bf = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)\n"
    "        out[name] = ('BF16', list(bf.shape), bf.tobytes())\n"
    "    else:\n"
    "        out[name] = (t['dtype'], t['shape'], bytes(body[b:e]))\n"
    "hdr, off = {}, 0\n"
    "for name, (dt, shape, raw) in out.items():\n"
    "    hdr[name] = {'dtype': dt, 'shape': shape, 'data_offsets': [off, off + len(raw)]}\n"
    "    off += len(raw)\n"
    "h = json.dumps(hdr).encode()\n"
    "h += b' ' * (-len(h) % 8)\n"
    "with open(dst, 'wb') as f:\n"
    "    f.write(len(h).to_bytes(8, 'little'))\n"
    "    f.write(h)\n"
    "    for dt, shape, raw in out.values():\n"
    "        f.write(raw)\n";

/* Median wall time of MODEL_RUNS runs after a warm-up, and the largest
 * peak resident memory among them (wait4), of a shell command. */
#define MODEL_RUNS 3
static double time_model(const char *cmd, double *rss_mib)
{
    double t[MODEL_RUNS], w, c;
    if (run_command(cmd, &w, &c, NULL) != 0) {
        fprintf(stderr, "bench: failed: %s\n", cmd);
        return -1;
    }
    *rss_mib = 0;
    for (int r = 0; r < MODEL_RUNS; r++) {
        double rss;
        if (run_command(cmd, &t[r], &c, &rss) != 0)
            return -1;
        if (rss > *rss_mib)
            *rss_mib = rss;
    }
    return median(t, MODEL_RUNS);
}

/* The model at `in` (its n tensors e[], in that order after a header of
 * hlen bytes) as four shards and their index: converting the sharded model
 * into a folder must cost no more than converting the one file (SPEC
 * section 10).  The one file is timed before and after, and their mean is
 * the baseline; each run starts by removing the last run's output. */
static void bench_sharded(const char *tool, const char *dir, const char *in,
                          const struct tl_st_entry *e, size_t n, size_t hlen)
{
    enum { SHARDS = 4 };
    char model[256], path[512], cmd[2048], out[256], outdir[256];
    snprintf(model, sizeof model, "%s/tl-sharded-%d", dir, (int)getpid());
    snprintf(out, sizeof out, "%s/tl-sharded-%d.out.safetensors", dir, (int)getpid());
    snprintf(outdir, sizeof outdir, "%s/tl-sharded-%d.out", dir, (int)getpid());
    FILE *src = fopen(in, "rb");
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", model);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", model);
    if (!src || system(cmd) != 0) {
        if (src)
            fclose(src);
        return;
    }
    FILE *idx = fopen(path, "w");
    bool ok = idx != NULL;
    uint64_t total = 0;
    if (ok)
        fprintf(idx, "{\"metadata\": {\"format\": \"pt\"}, \"weight_map\": {");
    fseek(src, (long)hlen, SEEK_SET);
    uint8_t *buf = big(64u << 20);
    for (size_t k = 0; ok && k < SHARDS; k++) {
        size_t lo = n * k / SHARDS, hi = n * (k + 1) / SHARDS;
        uint8_t *hdr = NULL;
        size_t len = 0;
        snprintf(path, sizeof path, "%s/model-%05zu-of-%05d.safetensors", model, k + 1, SHARDS);
        FILE *f = fopen(path, "wb");
        ok = f && tl_safetensors_header(e + lo, hi - lo, NULL, 0, &hdr, &len, NULL) == 0 &&
             fwrite(hdr, 1, len, f) == len;
        free(hdr);
        for (size_t i = lo; ok && i < hi; i++) {
            fprintf(idx, "%s\"%s\": \"model-%05zu-of-%05d.safetensors\"", i ? ", " : "",
                    e[i].name, k + 1, SHARDS);
            total += e[i].bytes;
            for (uint64_t at = 0; ok && at < e[i].bytes; at += 64u << 20) {
                size_t m = (size_t)(e[i].bytes - at < (64u << 20) ? e[i].bytes - at : 64u << 20);
                ok = fread(buf, 1, m, src) == m && fwrite(buf, 1, m, f) == m;
            }
        }
        if (f)
            fclose(f);
    }
    unbig(buf, 64u << 20);
    fclose(src);
    if (idx) {
        fprintf(idx, "}}\n");
        fclose(idx);
    }
    if (ok) {
        double rss1, rss2, rss3;
        snprintf(cmd, sizeof cmd, "rm -f '%s'; '%s' convert '%s' --to-type BFLOAT16 -o '%s' --quiet",
                 out, tool, in, out);
        double a = time_model(cmd, &rss1);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'; '%s' convert '%s/model.safetensors.index.json' "
                 "--to-type BFLOAT16 -o '%s/' --quiet", outdir, tool, model, outdir);
        double z = time_model(cmd, &rss2);
        snprintf(cmd, sizeof cmd, "rm -f '%s'; '%s' convert '%s' --to-type BFLOAT16 -o '%s' --quiet",
                 out, tool, in, out);
        double b = time_model(cmd, &rss3);
        if (a > 0 && z > 0 && b > 0)
            printf("model: the same FLOAT32 -> BFLOAT16 as %d shards and an index, into a folder: "
                   "%.0f ms, peak RSS %.0f MiB; as one file %.0f ms (mean of %.0f and %.0f): "
                   "ratio %.2f (target <= 1.00 + noise)\n", SHARDS, z * 1e3, rss2,
                   (a + b) / 2 * 1e3, a * 1e3, b * 1e3, z / ((a + b) / 2));
        if (json && a > 0 && z > 0 && b > 0)
            fprintf(json, "{\"case\": \"model_sharded\", \"sharded_ms\": %.1f, "
                    "\"one_file_ms\": %.1f, \"ratio\": %.3f}\n", z * 1e3, (a + b) / 2 * 1e3,
                    z / ((a + b) / 2));
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'", model, outdir, out);
    if (system(cmd) != 0)
        fprintf(stderr, "bench: cannot remove %s\n", model);
}

/* Whole-model conversion (SPEC section 9): a 1.1 GB safetensors file of
 * FLOAT32 OIHW conv weights, biases and INT64 counters, to BFLOAT16, and
 * to OHWI + BFLOAT16, against cat of the same file (target: no slower,
 * the output being half the bytes) and against the numpy script above
 * (target: 4x faster), with peak resident memory (target: under 256 MiB). */
static void bench_model(const char *tool)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    char in[256], outp[256], script[256], cmd[2048];
    snprintf(in, sizeof in, "%s/tl-model-%d.safetensors", dir, (int)getpid());
    snprintf(outp, sizeof outp, "%s/tl-model-%d.out.safetensors", dir, (int)getpid());
    snprintf(script, sizeof script, "%s/tl-model-%d.py", dir, (int)getpid());
    enum { LAYERS = 120 };
    static struct tl_st_entry e[3 * LAYERS];
    static char names[3 * LAYERS][48];
    size_t n = 0;
    uint64_t data = 0;
    for (int l = 0; l < LAYERS; l++) {
        snprintf(names[n], sizeof names[n], "layer%03d.conv.weight", l);
        e[n] = (struct tl_st_entry){ names[n], TL_DT_FLOAT32, NULL, 4, { 512, 512, 3, 3 },
                                     512ull * 512 * 9 * 4 };
        data += e[n++].bytes;
        snprintf(names[n], sizeof names[n], "layer%03d.conv.bias", l);
        e[n] = (struct tl_st_entry){ names[n], TL_DT_FLOAT32, NULL, 1, { 512 }, 512 * 4 };
        data += e[n++].bytes;
    }
    for (int l = 0; l < LAYERS; l++) {
        snprintf(names[n], sizeof names[n], "layer%03d.bn.num_batches_tracked", l);
        e[n] = (struct tl_st_entry){ names[n], TL_DT_INT64, NULL, 0, { 0 }, 8 };
        data += e[n++].bytes;
    }
    uint8_t *hdr = NULL;
    size_t hlen = 0;
    FILE *f = fopen(in, "wb");
    if (!f || tl_safetensors_header(e, n, NULL, 0, &hdr, &hlen, NULL)) {
        if (f)
            fclose(f);
        return;
    }
    fwrite(hdr, 1, hlen, f);
    free(hdr);
    uint64_t chunk = 64u << 20;
    float *buf = big(chunk);
    for (uint64_t i = 0; i < chunk / 4; i++)
        buf[i] = (float)((i * 2654435761u) % 20011) * 0.001f - 10.0f;
    for (uint64_t at = 0; at < data; at += chunk)
        fwrite(buf, 1, data - at < chunk ? data - at : chunk, f);
    unbig(buf, chunk);
    fclose(f);
    FILE *py = fopen(script, "w");
    if (py) {
        fputs(numpy_script, py);
        fclose(py);
    }
    const char *python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    bool numpy = snprintf(cmd, sizeof cmd, "%s -c 'import numpy' 2>/dev/null", python) > 0 &&
                 system(cmd) == 0;
    double rss, cat_rss;
    snprintf(cmd, sizeof cmd, "cat '%s' > '%s'", in, outp);
    double tc = time_model(cmd, &cat_rss);
    printf("\nmodel: a %.2f GB safetensors file (%zu tensors: FLOAT32 OIHW weights and biases, "
           "INT64 counters) on %s; cat %.0f ms\n", (hlen + data) / 1e9, n, dir, tc * 1e3);
    static const struct { const char *label, *args; int ohwi; } jobs[] = {
        { "FLOAT32 -> BFLOAT16", "--to-type BFLOAT16", 0 },
        { "OIHW -> OHWI + BFLOAT16", "--to OHWI --to-type BFLOAT16", 1 },
    };
    double first = -1;                  /* the FLOAT32 -> BFLOAT16 conversion's time */
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
        snprintf(cmd, sizeof cmd, "'%s' convert '%s' %s -o '%s' --quiet", tool, in, jobs[j].args,
                 outp);
        double tt = time_model(cmd, &rss);
        if (j == 0)
            first = tt;
        double tn = -1, nrss = 0;
        if (numpy) {
            snprintf(cmd, sizeof cmd, "%s '%s' '%s' '%s' %d", python, script, in, outp,
                     jobs[j].ohwi);
            tn = time_model(cmd, &nrss);
        }
        if (tt <= 0 || tc <= 0)
            continue;
        printf("model: %-24s convert %.0f ms, %.2f x cat's time (target <= 1.00), peak RSS "
               "%.0f MiB (target < 256)", jobs[j].label, tt * 1e3, tt / tc, rss);
        if (tn > 0)
            printf("; numpy script %.0f ms, peak RSS %.0f MiB: convert %.1f x faster (target "
                   ">= 4)", tn * 1e3, nrss, tn / tt);
        printf("\n");
        if (json)
            fprintf(json, "{\"case\": \"model_%zu\", \"convert_ms\": %.1f, \"cat_ms\": %.1f, "
                    "\"numpy_ms\": %.1f, \"rss_mib\": %.1f}\n", j, tt * 1e3, tc * 1e3,
                    tn * 1e3, rss);
    }
    /* whole-file compare (SPEC 19): the model against a copy of itself,
     * every tensor element by element, against one whole-file conversion
     * of it (target: within 1.5 x) */
    snprintf(cmd, sizeof cmd, "cat '%s' > '%s'", in, outp);
    if (system(cmd) == 0) {
        double cr;
        snprintf(cmd, sizeof cmd, "'%s' compare '%s' '%s' > /dev/null", tool, in, outp);
        double tcmp = time_model(cmd, &cr);
        if (tcmp > 0 && first > 0) {
            printf("model: whole-file compare of the model and its copy (%zu tensors): %.0f ms, "
                   "%.2f x one whole-file conversion to BFLOAT16 (target <= 1.50), peak RSS "
                   "%.0f MiB\n", n, tcmp * 1e3, tcmp / first, cr);
            if (json)
                fprintf(json, "{\"case\": \"model_compare\", \"compare_ms\": %.1f, "
                        "\"convert_ms\": %.1f, \"rss_mib\": %.1f}\n", tcmp * 1e3, first * 1e3,
                        cr);
        }
    }
    bench_sharded(tool, dir, in, e, n, hlen);
    unlink(in);
    unlink(outp);
    unlink(script);
}

/* ---- ggml's block types decoded (SPEC 16) ---------------------------------
 *
 * dequant_TYPE: 64 MiB of FLOAT32 decoded from blocks of TYPE (random
 * bytes, every FP16 scale set to a finite value), by tl_dequant on 1 and
 * 2 threads (two halves of the blocks), beside memcpy of the output bytes
 * on as many threads and, where its library is installed
 * (build/ggml/lib/libggml-base.so, or BENCH_GGML), ggml's own to_float
 * called row by row (4096 values) on one thread: a fair C baseline, warm,
 * in its own block.  GB/s counts the bytes read and written. */
struct dq_ctx {
    uint32_t type;
    const uint8_t *src;
    float *dst;
    size_t nb, block, bytes;
    unsigned threads;
    struct crew *h;
    void (*to_float)(const void *x, float *y, int64_t k);
};

struct dq_half {
    struct dq_ctx *c;
    size_t lo, hi;
};

static void *dq_worker(void *arg)
{
    struct dq_half *w = arg;
    tl_dequant(w->c->type, w->c->src + w->lo * w->c->bytes, w->c->dst + w->lo * w->c->block,
               w->hi - w->lo);
    return NULL;
}

static void run_dequant(void *p)
{
    struct dq_ctx *c = p;
    if (c->threads < 2) {
        tl_dequant(c->type, c->src, c->dst, c->nb);
        return;
    }
    struct dq_half other = { c, c->nb / 2, c->nb };
    pthread_t t;
    if (pthread_create(&t, NULL, dq_worker, &other) != 0) {
        tl_dequant(c->type, c->src, c->dst, c->nb);
        return;
    }
    tl_dequant(c->type, c->src, c->dst, c->nb / 2);
    pthread_join(t, NULL);
}

static void run_to_float(void *p)
{
    struct dq_ctx *c = p;
    size_t row = 4096 / c->block;                   /* blocks a row */
    for (size_t b = 0; b < c->nb; b += row)
        c->to_float(c->src + b * c->bytes, c->dst + b * c->block,
                    (int64_t)((c->nb - b < row ? c->nb - b : row) * c->block));
}

struct dq_copy {
    struct crew *h;
    uint8_t *dst;
    const uint8_t *src;
    size_t n;
    unsigned threads;
};

static void run_dq_memcpy(void *p)
{
    struct dq_copy *c = p;
    memcpy_threads(c->h, c->dst, c->src, c->n, c->threads);
}

static void bench_dequant(const char *type_only)
{
    static const char *const names[] = { "Q4_0", "Q4_1", "Q5_0", "Q8_0", "Q2_K", "Q3_K", "Q4_K",
                                         "Q5_K", "Q6_K", "IQ4_NL", "IQ4_XS", "MXFP4", "TQ2_0" };
    const char *lib = getenv("BENCH_GGML");
    void *dl = dlopen(lib ? lib : "build/ggml/lib/libggml-base.so", RTLD_NOW | RTLD_LOCAL);
    typedef const struct {
        const char *name;
        int64_t blck, interleave;
        size_t size;
        bool quantized;
        void (*to_float)(const void *, float *, int64_t);
    } *traits_fn(int);
    traits_fn *traits = dl ? (traits_fn *)dlsym(dl, "ggml_get_type_traits") : NULL;
    if (!traits)
        printf("dequant: ggml's library not loaded (%s): its to_float is not timed\n",
               dl ? "no ggml_get_type_traits" : dlerror());
    size_t out = 64u << 20;
    float *dst = big(out);
    uint8_t *cpy = big(out);
    static struct crew h;
    crew_start(&h, tcounts[ntcounts - 1]);
    printf("%-20s %s  %8s  %8s  %6s  %8s  %6s\n", "dequant", "T", "GB/s", "memcpy", "ratio",
           "ggml", "x ggml");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        uint32_t type;
        if (type_only && !strstr(names[i], type_only))
            continue;
        const struct tl_ggml_type *gt = tl_ggml_type_named(names[i], &type);
        size_t nb = out / 4 / gt->block, in = nb * gt->bytes;
        uint8_t *src = big(in);
        uint64_t r = 88172645463325252ull;
        for (size_t k = 0; k < in; k++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            src[k] = (uint8_t)r;
        }
        /* every FP16 field of each block (its parts, ggml.c) a finite scale */
        for (const char *p = gt->parts; p && *p;) {
            char field[16];
            unsigned at, len;
            int used = 0;
            if (sscanf(p, "%15[^:]:%u:%u:f16%n", field, &at, &len, &used) == 3 && used)
                for (size_t b = 0; b < nb; b++)
                    for (unsigned k = 0; k < len; k += 2) {
                        src[b * gt->bytes + at + k] = (uint8_t)(b * 7);
                        src[b * gt->bytes + at + k + 1] = 0x2c;   /* about 1/16 */
                    }
            p = strchr(p, ' ');
            p = p ? p + 1 : NULL;
        }
        if (type == 39)                     /* MXFP4: a moderate exponent */
            for (size_t b = 0; b < nb; b++)
                src[b * gt->bytes] = 120 + (uint8_t)(b % 8);
        struct dq_ctx c = { type, src, dst, nb, gt->block, gt->bytes, 1, &h, NULL };
        double gg = 0;
        if (traits && traits((int)type) && traits((int)type)->to_float) {
            c.to_float = traits((int)type)->to_float;
            gg = block(run_to_float, &c);
        }
        for (unsigned li = 0; li < ntcounts; li++) {
            unsigned threads = tcounts[li];
            struct dq_copy m = { &h, cpy, (const uint8_t *)dst, out, threads };
            c.threads = threads;
            double m1 = block(run_dq_memcpy, &m), t = block(run_dequant, &c),
                   m2 = block(run_dq_memcpy, &m);
            double gbps = (double)(in + out) / t / 1e9, mgbps = 2.0 * out / ((m1 + m2) / 2) / 1e9;
            char gtext[32] = "-", xtext[32] = "-";
            if (gg > 0 && threads == 1) {
                snprintf(gtext, sizeof gtext, "%.2f", (double)(in + out) / gg / 1e9);
                snprintf(xtext, sizeof xtext, "%.2f", gg / t);
            }
            printf("dequant_%-12s %u  %8.2f  %8.2f  %6.2f  %8s  %6s\n", names[i], threads, gbps,
                   mgbps, gbps / mgbps, gtext, xtext);
            if (json)
                fprintf(json, "{\"case\": \"dequant_%s\", \"threads\": %u, \"gbps\": %.3f, "
                        "\"memcpy_gbps\": %.3f, \"ratio\": %.3f, \"ggml_gbps\": %.3f}\n",
                        names[i], threads, gbps, mgbps, gbps / mgbps,
                        gg > 0 ? (double)(in + out) / gg / 1e9 : 0.0);
        }
        unbig(src, in);
    }
    crew_stop(&h);
    unbig(dst, out);
    unbig(cpy, out);
    if (dl)
        dlclose(dl);
}

/* ---- scaled weight sets decoded (SPEC 18) --------------------------------
 *
 * scaled_fp8_bf16: a 1 GiB DeepSeek-style FP8 E4M3 weight (65536 x 16384,
 * a FLOAT32 scale per 128 x 128 block) to BFLOAT16; scaled_mxfp4_bf16: a
 * 1 GiB gpt-oss-style MXFP4 weight (2^26 blocks of 32 codes, an E8M0
 * exponent each) to BFLOAT16.  Both decoded by one tl_scaled_decode_as()
 * call on one thread (a few thousand values at a time through the first
 * level cache, the output streamed), as a whole file's conversion decodes
 * each piece of its output.  Against memcpy of the output bytes on one thread, in
 * blocks of its own before and after, from the decoded output itself into
 * a buffer allocated the same way.  GB/s counts the weight's and scales'
 * bytes read and the output written. */
struct scaled_ctx {
    const uint8_t *file;
    struct tl_file f;
    struct tl_scaled p;
    uint64_t count;
    uint8_t *out;
    const struct tl_scaled *many;       /* group-quantized: GQ_WEIGHTS weights, each
                                         * count / GQ_WEIGHTS values */
};

#define GQ_WEIGHTS 128

static void run_scaled(void *arg)
{
    struct scaled_ctx *c = arg;
    if (!c->many) {
        tl_scaled_decode_as(c->file, &c->f, &c->p, 0, c->count, TL_DT_BFLOAT16, c->out, NULL);
        return;
    }
    uint64_t each = c->count / GQ_WEIGHTS;
    for (int k = 0; k < GQ_WEIGHTS; k++)
        tl_scaled_decode_as(c->file, &c->f, &c->many[k], 0, each, TL_DT_BFLOAT16,
                            c->out + 2 * each * (uint64_t)k, NULL);
}

/* Group-quantized weights (SPEC 21) as a model holds them: GQ_WEIGHTS
 * weights of [4096, 4096], 1 GiB of 4-bit codes in all, groups of 128,
 * FLOAT16 scales (BFLOAT16 for compressed-tensors, which has no zero
 * points), in kind's layout (2 GPTQ, 3 AWQ, 4 compressed-tensors): weight k
 * is rows 3k .. 3k + 2 of t and p[k], its parts one after the other from
 * t's offset 0.  @return the bytes of them all. */
static uint64_t grouped_parts(int kind, struct tl_file_tensor *t, struct tl_scaled *p)
{
    uint64_t in = 4096, out = 4096, groups = in / 128, at = 0;
    for (int k = 0; k < GQ_WEIGHTS; k++, t += 3, p++) {
        memset(p, 0, sizeof *p);
        memset(p->extra, 0xff, sizeof p->extra);
        p->kind = kind == 2 ? TL_SCALED_GPTQ : kind == 3 ? TL_SCALED_AWQ : TL_SCALED_PACKED;
        p->weight = 3 * (size_t)k, p->scale = p->weight + 1, p->bits = 4;
        p->out = out, p->in = in, p->group = 128, p->plus1 = kind == 2, p->zero = 8;
        for (int j = 0; j < 3; j++)
            t[j].ndim = 2;
        t[0].shape[0] = kind == 2 ? in / 8 : kind == 3 ? in : out;
        t[0].shape[1] = kind == 2 ? out : kind == 3 ? out / 8 : in / 8;
        t[0].desc.dtype = TL_DT_INT32;
        t[1].shape[0] = kind == 4 ? out : groups;
        t[1].shape[1] = kind == 4 ? groups : out;
        t[1].desc.dtype = kind == 4 ? TL_DT_BFLOAT16 : TL_DT_FLOAT16;
        t[2].shape[0] = groups, t[2].shape[1] = out / 8;
        t[2].desc.dtype = TL_DT_INT32;
        uint64_t bytes[3] = { in * out / 2, groups * out * 2, kind == 4 ? 0 : groups * out / 2 };
        for (int j = 0; j < 3; j++) {
            t[j].begin = at;
            t[j].end = at += bytes[j];
        }
        if (kind != 4)
            p->extra[TL_PART_ZEROS] = p->weight + 2;
    }
    return at;
}

static void bench_scaled(const char *only)
{
    static const char *const names[] = { "scaled_fp8_bf16", "scaled_mxfp4_bf16",
                                         "grouped_gptq_bf16", "grouped_awq_bf16",
                                         "grouped_ct_bf16" };
    for (int kind = 0; kind < 5; kind++) {
        if (only && !strstr(names[kind], only))
            continue;
        struct tl_file_tensor *t = calloc(3 * GQ_WEIGHTS, sizeof *t);
        struct tl_scaled *gp = calloc(GQ_WEIGHTS, sizeof *gp);
        if (!t || !gp)
            exit(1);
        uint64_t wbytes = 1ull << 30, sbytes = 0, count, total;
        t[0].ndim = t[1].ndim = 2;
        if (kind == 0) {
            t[0].shape[0] = 65536, t[0].shape[1] = 16384;
            t[1].shape[0] = 512, t[1].shape[1] = 128;
            sbytes = 512 * 128 * 4;
            count = wbytes;
        } else if (kind == 1) {
            t[0].shape[0] = wbytes / 16, t[0].shape[1] = 16;
            t[1].ndim = 1, t[1].shape[0] = wbytes / 16;
            sbytes = wbytes / 16;
            count = wbytes * 2;
        } else {
            count = wbytes * 2;
        }
        if (kind < 2) {
            t[0].begin = 0, t[0].end = wbytes;
            t[1].begin = wbytes, t[1].end = wbytes + sbytes;
            total = wbytes + sbytes;
        } else {
            total = grouped_parts(kind, t, gp);
            sbytes = total - wbytes;
        }
        uint8_t *file = big(total);
        uint64_t r = 88172645463325252ull;
        for (uint64_t k = 0; k + 8 <= total; k += 8) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            memcpy(file + k, &r, 8);
        }
        for (uint64_t k = 0; kind < 2 && k < sbytes; k++) {
            if (kind == 0 && k % 4 == 0) {
                float s = 1.0f / (float)(100 + k % 400);
                memcpy(file + wbytes + k, &s, 4);
            } else if (kind == 1) {
                file[wbytes + k] = (uint8_t)(120 + k % 8);
            }
        }
        for (int w = 0; kind >= 2 && w < GQ_WEIGHTS; w++) {     /* scales about 2^-6 */
            const struct tl_file_tensor *sc = &t[3 * w + 1];
            for (uint64_t k = sc->begin + 1; k < sc->end; k += 2)
                file[k] = kind == 4 ? 0x3c : 0x24;
        }
        uint64_t out = 2 * count;
        struct scaled_ctx c = { file, { 0 }, { 0 }, count, big(out), NULL };
        c.f.count = kind >= 2 ? 3 * GQ_WEIGHTS : 2;
        c.f.tensors = t;
        c.p.kind = kind == 0 ? TL_SCALED_FP8_BLOCK : TL_SCALED_MXFP4;
        c.p.weight = 0, c.p.scale = 1;
        c.many = kind >= 2 ? gp : NULL;
        uint8_t *copy = big(out);
        run_scaled(&c);                     /* touches the output: warm */
        struct mc_ctx m = { NULL, copy, c.out, out, 1 };   /* one thread: no helper */
        /* the machine's best ISA, and AVX2's kernels too where it has
         * AVX-512 (what an AVX2-only machine runs) */
        enum tl_isa best = tl_isa_active(), isas[2] = { best, best };
        if (best == TL_ISA_AVX512 && tl_isa_supported(TL_ISA_AVX2))
            isas[0] = TL_ISA_AVX2;
        for (int v = isas[0] == best; v < 2; v++) {
            tl_isa_set_ceiling(isas[v]);
            run_scaled(&c);
            double m1 = block(run_memcpy, &m), t1 = block(run_scaled, &c),
                   m2 = block(run_memcpy, &m);
            double gbps = (double)(wbytes + sbytes + out) / t1 / 1e9;
            double mgbps = 2.0 * out / ((m1 + m2) / 2) / 1e9;
            printf("%-20s %-7s %u  %8.2f  %8.2f  %6.2f\n", names[kind],
                   tl_isa_name(isas[v]), 1u, gbps, mgbps, gbps / mgbps);
            if (json)
                fprintf(json, "{\"case\": \"%s\", \"isa\": \"%s\", \"threads\": 1, "
                        "\"gbps\": %.3f, \"memcpy_gbps\": %.3f, \"ratio\": %.3f}\n",
                        names[kind], tl_isa_name(isas[v]), gbps, mgbps, gbps / mgbps);
        }
        tl_isa_set_ceiling(best);
        unbig(c.out, out);
        unbig(copy, out);
        unbig(file, total);
        free(t);
        free(gp);
    }
}

/* A model file that a script writes (python3 SCRIPT IN ARGS), converted
 * whole into BFLOAT16 safetensors, against cat of the output written as
 * convert writes its output (cat OUT > COPY.new, then renamed over COPY:
 * a new file beside the old one, as every output of the tool is, SPEC
 * 11), medians of MODEL_RUNS, peak RSS; what says what it is, case names
 * its JSON row.  Skipped where the writer fails.  (`cat OUT > COPY`
 * writes into the pages its truncation just freed, where a new file
 * beside the old takes pages the system may have to find: on the 2-vCPU
 * guests here 2 GB of them took from 1.2 to 6 s.) */
/* What convert_vs_cat converts to: the type, OUT's ending and its words,
 * the JSON case's suffix, and the target line's text. */
struct converted {
    const char *to_type, *ending, *words, *suffix, *target;
};
static const struct converted to_bf16 = { "BFLOAT16", ".out.safetensors",
                                          "BFLOAT16 safetensors", "_bf16", " (target <= 1.00)" };

static void convert_vs_cat(const char *tool, const char *label, const char *what,
                           const char *script, const char *args, const char *ending,
                           const char *missing, const struct converted *to)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    const char *python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    char in[256], outp[256], copy[256], cmd[2048];
    snprintf(in, sizeof in, "%s/tl-%s-%d%s", dir, label, (int)getpid(), ending);
    snprintf(outp, sizeof outp, "%s/tl-%s-%d%s", dir, label, (int)getpid(), to->ending);
    snprintf(copy, sizeof copy, "%s/tl-%s-%d.copy", dir, label, (int)getpid());
    snprintf(cmd, sizeof cmd, "%s %s '%s' %s 2>&1", python, script, in, args);
    if (system(cmd) != 0) {
        printf("\n%s model: skipped (%s)\n", label, missing);
        unlink(in);
        return;
    }
    double rss, cat_rss;
    snprintf(cmd, sizeof cmd, "'%s' convert '%s' --to-type %s -o '%s' --quiet", tool, in,
             to->to_type, outp);
    double tt = time_model(cmd, &rss);
    snprintf(cmd, sizeof cmd, "cat '%s' > '%s.new' && mv '%s.new' '%s'", outp, copy, copy, copy);
    double tc = time_model(cmd, &cat_rss);
    struct stat a, b;
    if (tt > 0 && tc > 0 && stat(in, &a) == 0 && stat(outp, &b) == 0) {
        printf("\n%s model: %.2f GB of %s -> %.2f GB %s on %s\n", label, a.st_size / 1e9, what,
               b.st_size / 1e9, to->words, dir);
        printf("%s model: convert %.0f ms, cat of the output %.0f ms: %.2f x cat's time%s, "
               "peak RSS %.0f MiB (target < 256)\n", label, tt * 1e3, tc * 1e3, tt / tc,
               to->target, rss);
        if (json)
            fprintf(json, "{\"case\": \"%s_model%s\", \"convert_ms\": %.1f, "
                    "\"cat_ms\": %.1f, \"ratio\": %.3f, \"rss_mib\": %.1f}\n", label,
                    to->suffix, tt * 1e3, tc * 1e3, tt / tc, rss);
    }
    unlink(in);
    unlink(outp);
    unlink(copy);
}

/* A GGUF model (SPEC 16): about BENCH_GGUF_MB (2048) megabytes of Q4_K and
 * Q8_0 matrices that ggml quantized (gguf_model.py). */
static void bench_gguf_model(const char *tool)
{
    const char *mb = getenv("BENCH_GGUF_MB");
    convert_vs_cat(tool, "gguf", "Q4_K and Q8_0 (ggml's)", "tests/bench/gguf_model.py",
                   mb ? mb : "2048", ".gguf", "ggml's library or numpy missing: .ci/install-deps",
                   &to_bf16);
}

/* Scaled-weight models (SPEC 18): a DeepSeek-style FP8 model and a
 * gpt-oss-style MXFP4 one (scaled_model.py, numpy), dequantized whole.
 * The FP8 model is SPEC 18's 2 GB of weights (4 GB out) where /dev/shm
 * holds it with its output and cat's copy (10 GB: a machine of 24 GB or
 * more), else 1 GB, and the line says which. */
static const char *fp8_model_mb(void)
{
    struct statvfs v;
    if (statvfs("/dev/shm", &v) == 0 && (double)v.f_bavail * v.f_frsize > 10.5e9)
        return "2048";
    printf("\nfp8 model: /dev/shm has no room for 2 GB of weights, their 4 GB of output and "
           "cat's copy: 1 GB instead\n");
    return "1024";
}

static void bench_scaled_model(const char *tool, const char *kind, const char *mb)
{
    char args[64];
    snprintf(args, sizeof args, "%s %s", kind, mb);
    const char *what = strcmp(kind, "fp8") == 0 ? "DeepSeek-style block FP8"
                     : strcmp(kind, "mxfp4") == 0 ? "gpt-oss-style MXFP4"
                     : strcmp(kind, "gptq") == 0 ? "GPTQ 4-bit (groups of 128)"
                     : strcmp(kind, "awq") == 0 ? "AWQ 4-bit (groups of 128)"
                     : "compressed-tensors 4-bit (groups of 128)";
    convert_vs_cat(tool, kind, what, "tests/bench/scaled_model.py", args, ".safetensors",
                   "numpy missing", &to_bf16);
}

/* Group-quantized weights repacked into GGUF (SPEC 21): the GPTQ model of
 * bench_scaled_model (symmetric 4-bit groups of 128) to Q4_0 blocks
 * without requantizing, against cat of the output. */
static void bench_grouped_gguf(const char *tool)
{
    static const struct converted to_q4_0 = { "Q4_0", ".gguf", "Q4_0 GGUF (repacked)",
                                              "_gguf_q4_0", "" };
    convert_vs_cat(tool, "gptq", "GPTQ 4-bit (groups of 128)", "tests/bench/scaled_model.py",
                   "gptq 1024", ".safetensors", "numpy missing", &to_q4_0);
}

/* A PyTorch checkpoint (SPEC 17): torch.save of about 1 GB of FLOAT32
 * matrices (torch_model.py), converted to safetensors, against cat of the
 * output (cat OUT > COPY), and against the Python way (torch.load, then
 * the tensors written as safetensors), medians of MODEL_RUNS, peak RSS.
 * Skipped where torch is missing. */
static void bench_torch_model(const char *tool)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    const char *python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    char in[256], outp[256], copy[256], cmd[2048];
    snprintf(in, sizeof in, "%s/tl-torch-%d.pt", dir, (int)getpid());
    snprintf(outp, sizeof outp, "%s/tl-torch-%d.safetensors", dir, (int)getpid());
    snprintf(copy, sizeof copy, "%s/tl-torch-%d.copy", dir, (int)getpid());
    snprintf(cmd, sizeof cmd, "%s tests/bench/torch_model.py write '%s' 1024 2>&1", python, in);
    if (system(cmd) != 0) {
        printf("\ntorch model: skipped (python3-torch missing: .ci/install-deps)\n");
        unlink(in);
        return;
    }
    double rss, cat_rss, py_rss;
    snprintf(cmd, sizeof cmd, "'%s' convert '%s' -o '%s' --quiet", tool, in, outp);
    double tt = time_model(cmd, &rss);
    snprintf(cmd, sizeof cmd, "cat '%s' > '%s.new' && mv '%s.new' '%s'", outp, copy, copy, copy);
    double tc = time_model(cmd, &cat_rss);
    snprintf(cmd, sizeof cmd, "%s tests/bench/torch_model.py convert '%s' '%s'", python, in, copy);
    double tp = time_model(cmd, &py_rss);
    struct stat a;
    if (tt > 0 && tc > 0 && stat(in, &a) == 0) {
        printf("\ntorch model: a %.2f GB torch.save checkpoint (FLOAT32) -> safetensors on %s\n",
               a.st_size / 1e9, dir);
        printf("torch model: convert %.0f ms, cat of the output %.0f ms: %.2f x cat's time "
               "(target <= 1.10), peak RSS %.0f MiB (target < 256)\n", tt * 1e3, tc * 1e3,
               tt / tc, rss);
        if (tp > 0)
            printf("torch model: torch.load + writing safetensors in Python %.0f ms, peak RSS "
                   "%.0f MiB: convert %.1f x faster\n", tp * 1e3, py_rss, tp / tt);
        if (json)
            fprintf(json, "{\"case\": \"torch_model\", \"convert_ms\": %.1f, \"cat_ms\": "
                    "%.1f, \"ratio\": %.3f, \"rss_mib\": %.1f, \"python_ms\": %.1f, "
                    "\"python_rss_mib\": %.1f}\n", tt * 1e3, tc * 1e3, tt / tc, rss, tp * 1e3,
                    py_rss);
    }
    unlink(in);
    unlink(outp);
    unlink(copy);
}

/* An ONNX model (SPEC 20): about 1 GB of FLOAT weights in one external
 * data file (onnx_model.py, written by onnx), converted whole into
 * BFLOAT16 safetensors and rewritten with --external-data, each against
 * cat of its output and against the onnx package doing the same job,
 * medians of MODEL_RUNS, peak RSS.  Skipped where onnx is missing. */
static void bench_onnx_model(const char *tool)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    const char *python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    char in[256], outp[256], copy[256], cmd[2048];
    int pid = (int)getpid();
    snprintf(in, sizeof in, "%s/tl-onnx-%d.onnx", dir, pid);
    snprintf(cmd, sizeof cmd, "%s tests/bench/onnx_model.py write '%s' 1024 2>&1", python, in);
    if (system(cmd) != 0) {
        printf("\nonnx model: skipped (python3-onnx missing: .ci/install-deps)\n");
        snprintf(cmd, sizeof cmd, "rm -f '%s' '%s.data'", in, in);
        (void)!system(cmd);
        return;
    }
    static const struct { const char *job, *args, *py, *ending, *measured; } jobs[] = {
        { "bf16", "--to-type BFLOAT16", "bf16", ".safetensors", "" },
        { "external", "--external-data", "external", ".onnx", ".data" },
    };
    for (size_t k = 0; k < 2; k++) {
        double rss, cat_rss, py_rss;
        snprintf(outp, sizeof outp, "%s/tl-onnx-%d.out%s", dir, pid, jobs[k].ending);
        snprintf(copy, sizeof copy, "%s/tl-onnx-%d.copy", dir, pid);
        snprintf(cmd, sizeof cmd, "'%s' convert '%s' %s -o '%s' --quiet", tool, in, jobs[k].args,
                 outp);
        double tt = time_model(cmd, &rss);
        snprintf(cmd, sizeof cmd, "cat '%s%s' > '%s'", outp, jobs[k].measured, copy);
        double tc = time_model(cmd, &cat_rss);
        snprintf(cmd, sizeof cmd, "%s tests/bench/onnx_model.py %s '%s' '%s.py%s'", python,
                 jobs[k].py, in, outp, jobs[k].ending);
        double tp = time_model(cmd, &py_rss);
        if (tt > 0 && tc > 0) {
            printf("\nonnx model (%s): about 1 GB of FLOAT weights in external data on %s\n",
                   jobs[k].job, dir);
            printf("onnx model (%s): convert %.0f ms, cat of the output %.0f ms: %.2f x cat's "
                   "time (target <= 1.00), peak RSS %.0f MiB\n", jobs[k].job, tt * 1e3,
                   tc * 1e3, tt / tc, rss);
            if (tp > 0)
                printf("onnx model (%s): the onnx package %.0f ms, peak RSS %.0f MiB: convert "
                       "%.1f x faster (target >= 5)\n", jobs[k].job, tp * 1e3, py_rss, tp / tt);
            if (json)
                fprintf(json, "{\"case\": \"onnx_model_%s\", \"convert_ms\": %.1f, "
                        "\"cat_ms\": %.1f, \"ratio\": %.3f, \"rss_mib\": %.1f, "
                        "\"python_ms\": %.1f, \"python_rss_mib\": %.1f}\n", jobs[k].job,
                        tt * 1e3, tc * 1e3, tt / tc, rss, tp * 1e3, py_rss);
        }
        snprintf(cmd, sizeof cmd, "rm -f '%s' '%s.data' '%s.py%s' '%s.py%s.data' '%s'", outp,
                 outp, outp, jobs[k].ending, outp, jobs[k].ending, copy);
        (void)!system(cmd);
    }
    snprintf(cmd, sizeof cmd, "rm -f '%s' '%s.data'", in, in);
    (void)!system(cmd);
}

int main(int argc, char **argv)
{
    const char *path = getenv("BENCH_JSON");
    const char *only = getenv("BENCH_CASE");
    /* oneDNN's OpenMP threads sleep when idle, not spin on the core that
     * the next variant's block needs (peer.c) */
    setenv("OMP_WAIT_POLICY", "passive", 0);
    if (path && !(json = fopen(path, "w"))) {
        perror(path);
        return 2;
    }
    thread_counts();
    bench_machine();
    bench_calibrate();
    printf("%-20s %-7s %s  %8s  %8s  %6s\n", "case", "isa", "T", "GB/s", "memcpy", "ratio");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!only || strstr(cases[i].name, only))
            bench_case(&cases[i]);
    }
    if (!only || strstr("compare", only))
        bench_compare();
    if (!only || strstr("dequant", only) || strncmp(only, "dequant_", 8) == 0)
        bench_dequant(only && strncmp(only, "dequant_", 8) == 0 ? only + 8 : NULL);
    if (!only || strstr("scaled", only) || strncmp(only, "scaled_", 7) == 0 ||
        strncmp(only, "grouped_", 8) == 0)
        bench_scaled(only && (strncmp(only, "scaled_", 7) == 0 ||
                              strncmp(only, "grouped_", 8) == 0) ? only : NULL);
    if (argc > 1 && (!only || strstr("text", only)))
        bench_text(argv[1]);
    if (argc > 1 && (!only || strstr("process", only)))
        bench_process(argv[1]);
    if (argc > 1 && (!only || strstr("model", only)))
        bench_model(argv[1]);
    if (argc > 1 && (!only || strstr("gguf_model", only)))
        bench_gguf_model(argv[1]);
    if (argc > 1 && (!only || strstr("torch_model", only)))
        bench_torch_model(argv[1]);
    if (argc > 1 && (!only || strstr("onnx_model", only)))
        bench_onnx_model(argv[1]);
    if (argc > 1 && (!only || strstr("fp8_model", only)))
        bench_scaled_model(argv[1], "fp8", fp8_model_mb());
    if (argc > 1 && (!only || strstr("mxfp4_model", only)))
        bench_scaled_model(argv[1], "mxfp4", "256");
    static const char *const grouped[] = { "gptq", "awq", "ct" };
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "%s_model", grouped[k]);
        if (argc > 1 && (!only || strstr(name, only) || strstr("grouped_model", only)))
            bench_scaled_model(argv[1], grouped[k], "1024");
    }
    if (argc > 1 && (!only || strstr("grouped_gguf", only)))
        bench_grouped_gguf(argv[1]);
    if (json)
        fclose(json);
    return 0;
}
