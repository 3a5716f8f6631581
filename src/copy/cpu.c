/*
 * cpu.c - which kernels run: CPU detection (once), the ceiling, and the
 * active kernel table, built by upgrading the scalar table slot by slot.
 * Compiled for the baseline: it only reads the ISA files' tables.
 *
 * On AArch64, NEON is part of the baseline and needs no probe.
 * On x86-64, __builtin_cpu_supports() reports AVX2 and AVX-512 only when
 * the operating system has enabled their register state (libgcc checks
 * XGETBV), which is what running the kernels needs.
 */
#include <pthread.h>
#include <string.h>
#include <strings.h>

#include "copy.h"
#include "dequant.h"

static const char *const names[TL_ISA_COUNT] = { "scalar", "sse2", "avx2", "avx512", "neon" };

const char *tl_isa_name(enum tl_isa isa)
{
    return isa < TL_ISA_COUNT ? names[isa] : "?";
}

int tl_isa_from_name(const char *name, enum tl_isa *out)
{
    for (int i = 0; i < TL_ISA_COUNT; i++) {
        if (strcasecmp(name, names[i]) == 0) {
            *out = (enum tl_isa)i;
            return 0;
        }
    }
    return TL_E_VALUE;
}

const struct tl_kernels *tl_kernels_own(enum tl_isa isa)
{
    switch (isa) {
    case TL_ISA_SCALAR: return &tl_kernels_scalar;
#if defined(__x86_64__)
    case TL_ISA_SSE2:   return &tl_kernels_sse2;
    case TL_ISA_AVX2:   return &tl_kernels_avx2;
    case TL_ISA_AVX512: return &tl_kernels_avx512;
#endif
#if defined(__aarch64__)
    case TL_ISA_NEON:   return &tl_kernels_neon;
#endif
    default:            return NULL;
    }
}

#if defined(__x86_64__)
/* F16C (the half-precision conversions the AVX2 kernels use): CPUID leaf 1,
 * ECX bit 29.  Every AVX2 CPU known has it; the probe makes sure. */
static bool has_f16c(void)
{
    unsigned a, b, c, d;
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
    return (c >> 29) & 1;
}
#endif

/* What the CPU and the build support, probed once: CPUID traps to the
 * hypervisor in a virtual machine (3.5-3.7 us a call measured on a 2-vCPU
 * VM, which every tl_copy_plan() paid through tl_isa_active()). */
static bool probe_isa(enum tl_isa isa)
{
    if (!tl_kernels_own(isa))
        return false;
#if defined(__x86_64__)
    switch (isa) {
    case TL_ISA_SSE2:   return true;                       /* baseline of x86-64 */
    case TL_ISA_AVX2:   return __builtin_cpu_supports("avx2") && has_f16c();
    case TL_ISA_AVX512: return __builtin_cpu_supports("avx512f") &&
                               __builtin_cpu_supports("avx512bw") &&
                               __builtin_cpu_supports("avx512vl");
    default:            return true;
    }
#else
    return true;                       /* NEON is the baseline of AArch64 */
#endif
}

static bool supported[TL_ISA_COUNT];
static pthread_once_t probed = PTHREAD_ONCE_INIT;

static void probe_all(void)
{
    for (int i = 0; i < TL_ISA_COUNT; i++)
        supported[i] = probe_isa((enum tl_isa)i);
}

bool tl_isa_supported(enum tl_isa isa)
{
    if ((unsigned)isa >= TL_ISA_COUNT)
        return false;
    pthread_once(&probed, probe_all);
    return supported[isa];
}

enum tl_isa tl_isa_best(enum tl_isa ceiling)
{
    enum tl_isa best = TL_ISA_SCALAR;
    for (int i = 0; i < TL_ISA_COUNT && i <= (int)ceiling; i++) {
        if (tl_isa_supported((enum tl_isa)i))
            best = (enum tl_isa)i;
    }
    return best;
}

static enum tl_isa active = TL_ISA_COUNT;     /* not chosen yet: the best there is */

enum tl_isa tl_isa_set_ceiling(enum tl_isa ceiling)
{
    active = tl_isa_best(ceiling);
    return active;
}

enum tl_isa tl_isa_active(void)
{
    return active == TL_ISA_COUNT ? tl_isa_best(TL_ISA_COUNT) : active;
}

/* Upgrades, in order: each ISA's non-NULL slots replace the ones below. */
static void upgrade(struct tl_kernels *k, const struct tl_kernels *by)
{
    /* each slot, an array of function pointers of one type, element by
     * element (through memcpy: a slot of several bounds is read as the
     * bytes it is) */
#define UPGRADE_SLOT(type, name, bounds)                                          \
    for (size_t i = 0; i < sizeof k->name / sizeof(type); i++) {                  \
        type f;                                                                   \
        memcpy(&f, (const char *)&by->name + i * sizeof f, sizeof f);             \
        if (f)                                                                    \
            memcpy((char *)&k->name + i * sizeof f, &f, sizeof f);                \
    }
    TL_KERNEL_SLOTS(UPGRADE_SLOT)
#undef UPGRADE_SLOT
}

/* The slot a calibration contests, in a table: a function pointer of one
 * of these types, all of one size. */
_Static_assert(sizeof(tl_copy_fn) == sizeof(tl_transpose_fn) &&
               sizeof(tl_cvt_fn) == sizeof(tl_transpose_fn), "kernel pointers of one size");
static void *slot_of(struct tl_kernels *k, enum tl_cal_slot s)
{
    switch (s) {
    case TL_CAL_TRANSPOSE4:    return &k->transpose[2];
    case TL_CAL_TRANSPOSE8:    return &k->transpose[3];
    case TL_CAL_TRANSPOSE4_NT: return &k->transpose_nt[2];
    case TL_CAL_TRANSPOSE8_NT: return &k->transpose_nt[3];
    case TL_CAL_COPY:          return &k->copy;
    default:                   return &k->cvt[TL_DT_FLOAT32][TL_DT_FLOAT16];
    }
}

void tl_kernels_build(enum tl_isa ceiling, const struct tl_calib *cal, struct tl_kernels *out)
{
    struct tl_kernels by[TL_ISA_COUNT];       /* by[i]: upgraded up to ISA i */
    by[0] = tl_kernels_scalar;
    for (int i = 1; i < TL_ISA_COUNT && i <= (int)ceiling; i++) {
        by[i] = by[i - 1];
        if (tl_isa_supported((enum tl_isa)i))
            upgrade(&by[i], tl_kernels_own((enum tl_isa)i));
#if defined(__x86_64__)
        /* the one kernel that needs more than AVX-512 F+BW+VL */
        if (i == TL_ISA_AVX512 && tl_isa_supported(TL_ISA_AVX512) &&
            __builtin_cpu_supports("avx512vbmi"))
            by[i].fp8s_lut = tl_fp8s_lut_vbmi;
#endif
    }
    *out = by[ceiling < TL_ISA_COUNT ? ceiling : TL_ISA_COUNT - 1];
    /* a slot the calibration found faster in a narrower ISA the CPU
     * supports takes that ISA's (whatever the ceiling, when below it) */
    for (int s = 0; cal && s < TL_CAL_SLOTS; s++) {
        enum tl_isa want = cal->slot_isa[s];
        if (want < ceiling && tl_isa_supported(want)) {
            void *slot = slot_of(out, (enum tl_cal_slot)s);
            memcpy(slot, slot_of(&by[want], (enum tl_cal_slot)s), sizeof(tl_transpose_fn));
        }
    }
}

static struct tl_kernels built[TL_ISA_COUNT];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build_all(void)
{
    for (int top = 0; top < TL_ISA_COUNT; top++)
        tl_kernels_build((enum tl_isa)top, tl_calib_active(), &built[top]);
}

void tl_kernels_rebuild(void)
{
    pthread_once(&once, build_all);
    build_all();
}

const struct tl_kernels *tl_kernels_for(enum tl_isa isa)
{
    pthread_once(&once, build_all);
    return &built[isa < TL_ISA_COUNT ? isa : TL_ISA_COUNT - 1];
}

/* ---- the active calibration: the kernel tables and the planner follow it - */

static struct tl_calib active_cal, builtin;
static bool active_set;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void make_builtin(void)
{
    tl_calib_default(&builtin);
}

void tl_calib_set(const struct tl_calib *cal)
{
    active_set = cal != NULL;
    if (cal)
        active_cal = *cal;
    tl_kernels_rebuild();
}

const struct tl_calib *tl_calib_builtin(void)
{
    pthread_once(&builtin_once, make_builtin);   /* CPUID traps: made once */
    return &builtin;
}

const struct tl_calib *tl_calib_active(void)
{
    return active_set ? &active_cal : tl_calib_builtin();
}
