/*
 * calib.c - what the copy core chooses by: the running CPU's name and
 * the built-in rules.  The active calibration is cpu.c's (the kernel
 * tables follow it), measuring the machine is calib_measure.c's, the text
 * form calib_text.c's.
 *
 * A copy chooses three things the machine decides: whether its stores
 * stream past the caches, whether a second thread pays, and, where two
 * ISAs' kernels race closely, whose kernel runs.  The answers differ by
 * machine: on the AMD guests this core was first tuned on, a second thread
 * adds 7-10% of memory bandwidth and streaming stores cap near 24 GB/s; on
 * an Intel guest a second core doubles it.  So the choices are numbers in
 * a struct tl_calib, which tl_calib_measure() finds by running the copies
 * themselves both ways, and plan.c and cpu.c read (tl_copy_plan_for,
 * tl_kernels_build), nothing else.
 *
 * Measuring, per kind of copy (a flat FLOAT32 copy, the rows of a padded
 * FLOAT32 layout (1918 elements of every 1920), FLOAT16 and FLOAT32
 * transposes of 64 rows, a stride-3 FLOAT32 gather, a FLOAT32 fill, NHWC
 * of 64 FLOAT32 channels into NCHW apart), at
 * 256 KiB to 128 MiB of source + destination, the copy with ordinary and
 * with streaming stores, on one thread and on two, taking turns
 * (measure_kind says how the sizes are read off the times); and per
 * contested slot, the kernels of the two widest ISAs on the same buffers
 * in turns.  Medians throughout: the machines are shared.
 */
#define _DEFAULT_SOURCE 1      /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "copy.h"

const char *const tl_cal_kind_names[TL_CAL_KINDS] = {
    "flat", "rows", "transpose2", "transpose4", "general", "fill", "bands4"
};
const char *const tl_cal_slot_names[TL_CAL_SLOTS] = {
    "transpose4", "transpose8", "transpose4_nt", "transpose8_nt", "float32_float16", "copy"
};

const char *tl_cal_kind_name(enum tl_cal_kind kind)
{
    return kind < TL_CAL_KINDS ? tl_cal_kind_names[kind] : "?";
}

const char *tl_cal_slot_name(enum tl_cal_slot slot)
{
    return slot < TL_CAL_SLOTS ? tl_cal_slot_names[slot] : "?";
}

/* ---- the machine ---------------------------------------------------------- */

static char cpu_handed[128];

void tl_calib_cpu_set(const char *name)
{
    snprintf(cpu_handed, sizeof cpu_handed, "%s", name);
}

static void read_cpu(char *out, size_t n)
{
#if defined(__x86_64__)
    unsigned r[12], a, b, c, d;
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
    char vendor[13];
    memcpy(vendor, &b, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &c, 4);
    vendor[12] = 0;
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
    unsigned family = (a >> 8 & 0xf) + ((a >> 8 & 0xf) == 0xf ? (a >> 20 & 0xff) : 0);
    unsigned model = (a >> 4 & 0xf) | ((a >> 8 & 0xf) >= 6 ? (a >> 12 & 0xf0) : 0);
    char brand[49] = "";
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000u), "c"(0));
    if (a >= 0x80000004u) {
        for (unsigned i = 0; i < 3; i++) {
            __asm__("cpuid" : "=a"(r[4 * i]), "=b"(r[4 * i + 1]), "=c"(r[4 * i + 2]),
                              "=d"(r[4 * i + 3]) : "a"(0x80000002u + i), "c"(0));
        }
        memcpy(brand, r, 48);
        brand[48] = 0;
    }
    /* the brand without its padding, and one space between words */
    char clean[49];
    size_t k = 0;
    for (const char *s = brand; *s; s++) {
        if (*s == ' ' && (k == 0 || clean[k - 1] == ' '))
            continue;
        if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
            clean[k++] = *s;
    }
    while (k > 0 && clean[k - 1] == ' ')
        k--;
    clean[k] = 0;
    snprintf(out, n, "%s %u %u %s", vendor, family, model, k ? clean : "?");
#else
    /* no CPUID: the name the caller read (the command line reads
     * /proc/cpuinfo: a library opens no file) */
    snprintf(out, n, "%s", cpu_handed[0] ? cpu_handed : "? ? ?");
#endif
}

/* Asked once: CPUID traps to the hypervisor in a virtual machine (3.5-3.7
 * us a call on a 2-vCPU guest), and every command asks (cache_path, fits). */
static char cpu_name[128];
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

static void read_cpu_once(void)
{
    read_cpu(cpu_name, sizeof cpu_name);
}

void tl_calib_cpu(char *out, size_t n)
{
    pthread_once(&cpu_once, read_cpu_once);
    snprintf(out, n, "%s", cpu_name);
}

static unsigned online_cpus(void)
{
    long v = sysconf(_SC_NPROCESSORS_ONLN);
    return v > 0 ? (unsigned)v : 1;
}

/* ---- the built-in rules --------------------------------------------------- */

/* The last-level cache the system reports, clamped to 8..32 MiB: some
 * systems report the whole package's L3 where a core sees only its
 * complex's share (384 MiB for 32 MiB on one AMD guest). */
static uint64_t reported_l3(void)
{
    uint64_t l3 = 32u << 20;
#ifdef _SC_LEVEL3_CACHE_SIZE
    long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v > 0 && (uint64_t)v < l3)
        l3 = (uint64_t)v;
#endif
    return l3 < (8u << 20) ? 8u << 20 : l3;
}

/* The rules measured on AMD Zen 4 and Zen 5 guests (2 vCPUs, 32 MiB L3)
 * before calibration existed, scaled by the reported L3:
 *  - copies stream once source and destination exceed the L3; flat and row copies
 *    sooner on one thread (7/8 of it: one thread cannot hide the line
 *    reads that ordinary stores add) and later on several (1.5x: ordinary
 *    stores there still grow with threads while streaming ones do not);
 *    transposes from half of it (their output lines stay partly written a
 *    while, so they leave the cache sooner);
 *  - a second thread pays from 512 KiB of output for narrow transposes,
 *    1.5 MiB for wide ones and the element loop, 3 MiB for flat and row
 *    copies and 6 MiB for fills (handing a job to a sleeping pool thread
 *    costs 30-40 us);
 *  - every slot takes the widest ISA's kernel. */
void tl_calib_levels(struct tl_calib *cal, unsigned from)
{
    for (int k = 0; k < TL_CAL_KINDS; k++) {
        for (unsigned l = from; l < TL_CAL_LEVELS; l++) {
            uint64_t f = cal->threads_from[k], v;
            if (f == TL_CAL_NEVER || f > (TL_CAL_NEVER >> (l + 2)))
                v = TL_CAL_NEVER;
            else
                v = f << (l + 1);
            uint64_t under = l ? cal->threads_at[k][l - 1] : f;
            cal->threads_at[k][l] = v > under ? v : under;
        }
    }
}

void tl_calib_default(struct tl_calib *cal)
{
    memset(cal, 0, sizeof *cal);
    tl_calib_cpu(cal->cpu, sizeof cal->cpu);
    cal->cpus = online_cpus();
    uint64_t l3 = reported_l3();
    static const uint64_t threads_from[TL_CAL_KINDS] = {
        3u << 20, 3u << 20, 512u << 10, 1536u << 10, 1536u << 10, 6u << 20, 1536u << 10
    };
    for (int k = 0; k < TL_CAL_KINDS; k++) {
        cal->stream_from[k][0] = cal->stream_from[k][1] = l3;
        cal->threads_from[k] = threads_from[k];
    }
    for (int k = TL_CAL_FLAT; k <= TL_CAL_ROWS; k++) {
        cal->stream_from[k][0] = l3 / 8 * 7;
        cal->stream_from[k][1] = l3 / 2 * 3;
    }
    for (int k = TL_CAL_TRANSPOSE_NARROW; k <= TL_CAL_TRANSPOSE_WIDE; k++)
        cal->stream_from[k][0] = cal->stream_from[k][1] = l3 / 2;
    cal->stream_from[TL_CAL_BANDS][0] = cal->stream_from[TL_CAL_BANDS][1] = l3 / 2;
    for (int s = 0; s < TL_CAL_SLOTS; s++)
        cal->slot_isa[s] = TL_ISA_COUNT;
    tl_calib_levels(cal, 0);
}

bool tl_calib_disturbed(const struct tl_calib *cal)
{
    return cal->measured && cal->cpus >= 2 && cal->memcpy_gbs[0] > 0 &&
           cal->memcpy_gbs[1] < cal->memcpy_gbs[0] * 0.8;
}

bool tl_calib_fits(const struct tl_calib *cal)
{
    char cpu[sizeof cal->cpu];
    tl_calib_cpu(cpu, sizeof cpu);
    return strcmp(cpu, cal->cpu) == 0 && cal->cpus == online_cpus();
}
