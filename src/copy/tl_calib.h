/*
 * tl_calib.h - the copy core's own state, not part of the installed
 * interface: the calibration the planner follows (calib.c) and ggml's
 * block kernels (decode.c).  The command line and the tests include it
 * through tl.h.
 */
#ifndef TL_CALIB_H
#define TL_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl_copy.h"

/* ---- calibration (src/copy/calib.c) ------------------------------------ */

/* What the copy core chooses by, measured on the machine it runs on
 * (tl_calib_measure) or built in (tl_calib_default: rules from the L3 size
 * the system reports and figures measured on one machine).  Per kind of
 * copy, the sizes from which it streams its output past the caches and
 * from which a second thread pays; per contested kernel slot, the ISA whose
 * kernel ran fastest there. */
enum tl_cal_kind {
    TL_CAL_FLAT,              /* one contiguous run, converting or not */
    TL_CAL_ROWS,              /* rows of a padded layout, (de)interleaves */
    TL_CAL_TRANSPOSE_NARROW,  /* transposes of 1- and 2-byte elements */
    TL_CAL_TRANSPOSE_WIDE,    /* ... of 4- and 8-byte ones */
    TL_CAL_GENERAL,           /* the strided element loop */
    TL_CAL_FILL,              /* broadcast fills */
    TL_CAL_BANDS,             /* transposes of 4- and 8-byte elements from rows of
                                 two to four cache lines (NHWC of 32-64 FLOAT32
                                 channels into NCHW), whose ordinary stores go
                                 across bands of rows (kern_drivers.h) */
    TL_CAL_KINDS
};
enum tl_cal_slot {
    TL_CAL_TRANSPOSE4, TL_CAL_TRANSPOSE8,         /* transpose[w4], [w8] */
    TL_CAL_TRANSPOSE4_NT, TL_CAL_TRANSPOSE8_NT,   /* transpose_nt[w4], [w8] */
    TL_CAL_F32_F16,                               /* cvt[FLOAT32][FLOAT16] */
    TL_CAL_COPY,                                  /* copy: raced against memcpy */
    TL_CAL_SLOTS
};
#define TL_CAL_NEVER UINT64_MAX
/* Thread counts past two a calibration says a copy may use: 4, 8, ...,
 * 4 << (TL_CAL_LEVELS - 1) = 256 (TL_TEAM_MAX). */
#define TL_CAL_LEVELS 7

struct tl_calib {
    char cpu[128];                 /* the CPU it describes (tl_calib_cpu) */
    unsigned cpus;                 /* its online CPUs */
    bool measured;                 /* false: the built-in rules */
    double seconds;                /* how long measuring took */
    double memcpy_gbs[2];          /* memcpy from memory, read + write GB/s, 1 and 2 threads */
    double stream_gbs[2];          /* the same copy with streaming stores */
    double wake_us;                /* handing a job to the pool's sleeping thread */
    /* source + destination bytes above which a kind streams, on one thread
     * and on several (TL_CAL_NEVER: never) */
    uint64_t stream_from[TL_CAL_KINDS][2];
    /* output bytes from which a kind runs on several threads (two), and
     * from which on 4 << l (threads_at[k][l]: measured up to the online
     * CPUs, past them, and in the built-in rules, tl_calib_levels's rule) */
    uint64_t threads_from[TL_CAL_KINDS];
    uint64_t threads_at[TL_CAL_KINDS][TL_CAL_LEVELS];
    /* the ISA whose kernel fills the slot (TL_ISA_COUNT: the best one), and
     * the other candidate's time over its own (0: not raced) */
    enum tl_isa slot_isa[TL_CAL_SLOTS];
    double slot_ratio[TL_CAL_SLOTS];
};

const char *tl_cal_kind_name(enum tl_cal_kind kind);
const char *tl_cal_slot_name(enum tl_cal_slot slot);

/* The running CPU, as calibrations name it: vendor, family, model and
 * brand ("AuthenticAMD 26 2 AMD EPYC") from CPUID on x86-64; elsewhere the
 * name the caller handed in with tl_calib_cpu_set() before the first call
 * (the command line's is from /proc/cpuinfo: implementer, part, model
 * name), or "? ? ?". */
void tl_calib_cpu(char *out, size_t n);
void tl_calib_cpu_set(const char *name);

/* Fills threads_at[k][l] for every level l >= from of every kind by the
 * rule: each thread's share at least half the two-thread floor (4 << l
 * threads from (2 << l) x threads_from), and never below the level under
 * it.  The built-in rules take it for every level, a measured calibration
 * past the CPUs it measured. */
void tl_calib_levels(struct tl_calib *cal, unsigned from);

/* The built-in rules for this machine. */
void tl_calib_default(struct tl_calib *cal);

/* Whether a measured calibration looks taken while another program held a
 * CPU: memcpy from memory on two threads below 0.8 times its speed on one
 * (0.93-2.0 times on the idle guests recorded in tests/calib, AMD Zen 5
 * and Intel family 6 model 207; 0.51 in a make bench whose calibration
 * then kept six kinds of copy on one thread).  Its sizes from
 * which threads pay are then too high. */
bool tl_calib_disturbed(const struct tl_calib *cal);

/* Measures this machine (a few seconds; `quick`: smaller sizes and fewer
 * runs, a rough answer in a fraction of the time).  When memcpy's figures
 * say another program holds a CPU (tl_calib_disturbed), it waits a second
 * and takes them again, three times at most, before measuring the copies.
 * note(text, ctx), when not NULL, hears each step's name; debug(line, ctx),
 * when not NULL, each size's times.  Runs copies with every thread of the
 * pool: nothing else may copy meanwhile. */
void tl_calib_measure(struct tl_calib *cal, bool quick, void (*note)(const char *, void *),
                      void (*debug)(const char *, void *), void *ctx);

/* The text form (lines of "key value", a CRC-32 last): writes at most n
 * bytes, @return the length it needs, as snprintf. */
size_t tl_calib_format(const struct tl_calib *cal, char *buf, size_t n);

/* Reads the text form, checking every line and the CRC.  @return 0, or
 * TL_E_VALUE with err naming the line and what is wrong. */
int tl_calib_parse(const char *text, size_t len, struct tl_calib *cal, struct tl_error *err);

/* Whether a calibration describes this machine: the same CPU and CPU count. */
bool tl_calib_fits(const struct tl_calib *cal);

/* Makes cal (NULL: the built-in rules) the one later plans and kernel
 * tables use; call it before any copy runs (it is not thread-safe). */
void tl_calib_set(const struct tl_calib *cal);
const struct tl_calib *tl_calib_active(void);

/* Decodes nb blocks of ggml's type number `type` (a block type the tool
 * decodes: tl_ggml_type(type)->decodes) at x into FLOAT32 values at y,
 * bit for bit as ggml's dequantization, with the best kernels of the CPU
 * (decode.c).  @return 0, or TL_E_VALUE for a type it does not decode. */
int tl_dequant(uint32_t type, const uint8_t *x, float *y, size_t nb);

/* Quantizes nb blocks of 32 FLOAT32 values at x into ggml's type `type`
 * (Q8_0: 8, Q4_0: 2) at y, bit for bit as ggml's reference quantizer
 * (quantize_row_q8_0_ref, quantize_row_q4_0_ref).  @return 0, or
 * TL_E_VALUE for another type. */
int tl_quantize(uint32_t type, const float *x, uint8_t *y, size_t nb);

#endif
