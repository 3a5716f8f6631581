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

#if defined(__x86_64__)
/* Whether the CPU runs each 512-bit operation as two 256-bit halves: AMD's
 * family 19h (Zen 3 has no AVX-512; Zen 4 does, at half width).  There
 * AVX2's transposes with ordinary stores run faster than AVX-512's
 * (measured kernel against kernel, alternating on the same buffers, 200
 * runs each: 4-byte 64 x 12544, AVX-512 1.17-1.22x AVX2's time; 8-byte,
 * 1.10x), while AVX-512's streaming transposes, whose blocks write whole
 * cache lines, match or beat AVX2's (1.00-1.01x; make bench
 * ncdhw_ndhwc_f32 0.75-0.85 vs 0.64-0.68) and its conversions in the L1
 * staging buffer are faster (UINT8 to FLOAT32 0.46-0.51x, to BFLOAT16
 * 0.96x).  FLOAT32 to FLOAT16 is AVX2's: a flat 103 MB conversion, streamed
 * out, took 4.0-4.2 ms with it against 5.4-5.6 ms with AVX-512's 512-bit
 * VCVTPS2PH, alternating, three runs each (make bench f32_f16_flat_l flagged
 * it: 0.79 against 0.97). */
static bool split_512(void)
{
    unsigned a, b, c, d;
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
    if (b != 0x68747541 || d != 0x69746e65 || c != 0x444d4163)      /* "AuthenticAMD" */
        return false;
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
    unsigned family = (a >> 8 & 0xf) + (a >> 20 & 0xff);
    return family == 0x19;
}

/* The 4-byte streaming transpose of a split-512 CPU, by shape.  Kernel
 * against kernel, alternating on 25 M elements of images of R rows by C
 * columns, AVX-512's time over AVX2's, two passes: AVX2's is faster only for
 * 96-512 rows of 784 or 3136 columns (1.04-1.21); it is even at 12544
 * columns (0.93-1.07) and at 64 rows (0.90-1.05), and slower everywhere else:
 * 16-32 rows 0.82-0.93, 1024 rows or more 0.82-1.03, 256 columns 0.79-0.90,
 * and 64 columns 0.36-0.54 (3136 rows of 64 columns, NHWC to NCHW with 64
 * channels: 7.8 ms against 17.7 ms). */
static void transpose_nt_w4_split(const uint8_t *src, size_t ss, uint8_t *dst, size_t ds,
                                  size_t rows, size_t cols)
{
    const bool avx2 = rows >= 96 && rows <= 512 && cols >= 512;
    const struct tl_kernels *k = avx2 ? &tl_kernels_avx2 : &tl_kernels_avx512;
    k->transpose_nt[2](src, ss, dst, ds, rows, cols);
}
#endif

/* The slots an ISA's table brings to this CPU: all of them, but for
 * AVX-512 on a CPU that splits its operations (see above). */
static struct tl_kernels own_slots(enum tl_isa isa)
{
    struct tl_kernels k = *tl_kernels_own(isa);
#if defined(__x86_64__)
    if (isa == TL_ISA_AVX512 && split_512()) {
        k.transpose[2] = NULL;
        k.transpose[3] = NULL;
        k.cvt[TL_DT_FLOAT32][TL_DT_FLOAT16] = NULL;
        if (tl_isa_supported(TL_ISA_AVX2))
            k.transpose_nt[2] = transpose_nt_w4_split;
    }
#endif
    return k;
}

static struct tl_kernels built[TL_ISA_COUNT];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build_all(void)
{
    for (int top = 0; top < TL_ISA_COUNT; top++) {
        built[top] = tl_kernels_scalar;
        for (int i = 1; i <= top; i++) {
            if (tl_isa_supported((enum tl_isa)i)) {
                struct tl_kernels k = own_slots((enum tl_isa)i);
                upgrade(&built[top], &k);
            }
        }
    }
}

const struct tl_kernels *tl_kernels_for(enum tl_isa isa)
{
    pthread_once(&once, build_all);
    return &built[isa < TL_ISA_COUNT ? isa : TL_ISA_COUNT - 1];
}
