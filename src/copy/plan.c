/*
 * plan.c - normalize a copy, pick its kernel, and run it over threads.
 *
 * Normalizing (numpy's PyArray_PrepareTwoRawArrayIter in spirit): axes of
 * size 1 are dropped, the rest are sorted by destination stride, largest
 * first (ties: by source stride), and an axis is merged into the next
 * inner one when it is contiguous with it in both source and destination.
 * The innermost axis then decides the kernel (copy.h lists them).  The
 * kernel's axes are a (and b for two-axis kernels); every other axis is an
 * outer loop.
 *
 * Running: the work is cut into units, each one outer position times one
 * slice of the kernel's longest axis, so that even a single large 2-D
 * transpose spreads over threads, or a run of whole outer positions when
 * there are many small ones.  A team (tl_team_run: the worker pool) takes
 * units from a shared counter; the calling thread works too and reports
 * progress.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy.h"
#include "kern_drivers.h"

/* About this much output a unit of work: small enough that the smallest
 * copy handed to two threads (512 KiB, thread_min_bytes) makes two units
 * a thread, so that neither waits long for the other at the end; large
 * enough that taking a unit (one atomic add on a shared counter) costs
 * nothing beside copying it (some 10 us at 25 GB/s). */
#define UNIT_BYTES (256u << 10)
/* Slices of a cut axis start on multiples of this many elements, so that
 * two threads' slices never share a cache line of the source or the
 * destination (64 elements are 64 bytes or more). */
#define SLICE_ALIGN 64
/* ... and of twice as many for a 4-bit side, whose 64 elements are half a
 * line: a slice's rows are then whole lines of the source */
static unsigned slice_align(const struct tl_copy_plan *p)
{
    return p->snib || p->dnib ? 2 * SLICE_ALIGN : SLICE_ALIGN;
}

const char *tl_copy_kind_name(enum tl_copy_kind kind)
{
    static const char *const names[] = { "contiguous", "fill", "interleave", "deinterleave",
                                         "transpose", "general" };
    return names[kind];
}

static unsigned log2u(unsigned v)
{
    unsigned l = 0;
    while (v > 1) {
        v >>= 1;
        l++;
    }
    return l;
}

/* The kind of copy a plan is, as a calibration counts them. */
static enum tl_cal_kind cal_kind(const struct tl_copy_plan *p)
{
    switch (p->kind) {
    case TL_COPY_TRANSPOSE:
        if (p->es <= 2 && p->des <= 2)
            return TL_CAL_TRANSPOSE_NARROW;
        /* source rows of two to four lines, unconverted: the ordinary
         * kernel goes across bands of rows (kern_drivers.h), which is a
         * race of its own against streaming */
        if (!p->convert && tl_transpose_in_bands(p->n[p->b] * p->es))
            return TL_CAL_BANDS;
        return TL_CAL_TRANSPOSE_WIDE;
    case TL_COPY_GENERAL: return TL_CAL_GENERAL;
    case TL_COPY_FILL:    return TL_CAL_FILL;
    default:              return p->kind == TL_COPY_CONTIG && p->ndim == 1 ? TL_CAL_FLAT
                                                                       : TL_CAL_ROWS;
    }
}

/* The store kinds and the thread floor, from the calibration (calib.c says
 * how each is measured): a copy streams once its source and destination
 * bytes exceed its kind's size for the thread count it runs on.  A 4-bit
 * transpose writes whole lines from an L1 buffer (nib_transpose), which
 * leave the cache sooner: it streams from half its kind's size (one thread,
 * [4096, 4096] INT4, 16 MB: 0.92 ms streamed against 1.27; [2048, 2048],
 * 4 MB: 0.21 against 0.195, on an AMD Zen 5 guest). */
static void choose_stores(struct tl_copy_plan *p, uint64_t bytes, const struct tl_calib *cal)
{
    enum tl_cal_kind k = cal_kind(p);
    if (p->kind == TL_COPY_TRANSPOSE && p->snib && p->dnib)
        bytes = bytes > UINT64_MAX / 2 ? UINT64_MAX : bytes * 2;
    p->stream = bytes > cal->stream_from[k][0];
    p->stream_threads = bytes > cal->stream_from[k][1];
    p->threads_from = cal->threads_from[k];
    memcpy(p->threads_at, cal->threads_at[k], sizeof p->threads_at);
}

struct tl_copy_plan *tl_copy_plan_new(const struct tl_desc *src, const struct tl_desc *dst,
                                      struct tl_error *err)
{
    struct tl_copy_plan *p = malloc(sizeof *p);
    if (!p) {
        tl_fail(err, TL_E_NOMEM, NULL, "out of memory");
        return NULL;
    }
    if (tl_copy_plan(p, src, dst, err)) {
        free(p);
        return NULL;
    }
    return p;
}

void tl_copy_plan_free(struct tl_copy_plan *plan)
{
    free(plan);
}

bool tl_copy_plan_is_run(const struct tl_copy_plan *p, uint64_t *src_at, uint64_t *dst_at,
                         uint64_t *len)
{
    /* src_bytes and dst_bytes are where each side's run ends */
    if (p->kind != TL_COPY_CONTIG || p->ndim != 1 || p->convert || p->snib || p->dnib ||
        p->ss[0] != p->es || p->ds[0] != p->es)
        return false;
    *src_at = p->src_offset;
    *dst_at = p->dst_offset;
    *len = p->src_bytes - p->src_offset;
    return true;
}

int tl_copy_convert(enum tl_dtype sdt, const void *src, enum tl_dtype ddt, void *dst, uint64_t n)
{
    struct tl_desc s, d;
    struct tl_copy_plan p;
    tl_desc_init(&s, sdt, 1, &n, NULL);
    tl_desc_init(&d, ddt, 1, &n, NULL);
    if (n == 0 || tl_copy_plan(&p, &s, &d, NULL))
        return 0;
    return tl_copy_run(&p, src, dst, 1, NULL, NULL);
}

int tl_copy_plan(struct tl_copy_plan *p, const struct tl_desc *src, const struct tl_desc *dst,
                 struct tl_error *err)
{
    return tl_copy_plan_for(p, src, dst, tl_calib_active(), err);
}

int tl_copy_plan_for(struct tl_copy_plan *p, const struct tl_desc *src, const struct tl_desc *dst,
                     const struct tl_calib *cal, struct tl_error *err)
{
    if (!cal)
        cal = tl_calib_builtin();
    memset(p, 0, sizeof *p);
    if (src->rank != dst->rank || memcmp(src->sizes, dst->sizes, src->rank * sizeof src->sizes[0]))
        return tl_fail(err, TL_E_MISMATCH, "sizes", "destination sizes differ from the source's");
    struct tl_info si, di;
    tl_desc_classify(src, &si);
    tl_desc_classify(dst, &di);
    if (di.broadcast)
        return tl_fail(err, TL_E_VALUE, "strides",
                       "the destination is broadcast (stride 0 on an axis of size > 1)");
    if (di.overlapping)
        return tl_fail(err, TL_E_VALUE, "strides",
                       "the destination is overlapping (two indices share an offset)");
    unsigned es = tl_dtype_size(src->dtype), des = tl_dtype_size(dst->dtype);
    p->es = es;
    p->shift = log2u(es);
    p->sdt = src->dtype;
    p->ddt = dst->dtype;
    p->des = des;
    p->convert = src->dtype != dst->dtype;
    p->count = si.element_count;
    /* a 4-bit side counts nibbles: its element size is one unit (es = 1) */
    p->snib = tl_dtype_bits(src->dtype) == 4;
    p->dnib = tl_dtype_bits(dst->dtype) == 4;
    p->src_offset = tl_desc_origin(src) * (p->snib ? 2 : 1);
    p->dst_offset = tl_desc_origin(dst) * (p->dnib ? 2 : 1);
    p->src_bytes = si.elements_bytes;
    p->dst_bytes = di.elements_bytes;
    p->isa = tl_isa_active();

    /* drop size-1 axes; insert by destination stride, largest first */
    unsigned n = 0;
    for (unsigned i = 0; i < src->rank; i++) {
        if (src->sizes[i] == 1)
            continue;
        uint64_t ss = src->strides[i] * es, ds = dst->strides[i] * des;
        unsigned j = n++;
        while (j > 0 && (p->ds[j - 1] < ds || (p->ds[j - 1] == ds && p->ss[j - 1] < ss))) {
            p->n[j] = p->n[j - 1];
            p->ss[j] = p->ss[j - 1];
            p->ds[j] = p->ds[j - 1];
            j--;
        }
        p->n[j] = src->sizes[i];
        p->ss[j] = ss;
        p->ds[j] = ds;
    }
    /* merge an axis into the next inner one when contiguous in both */
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++) {
        if (m > 0 && p->ss[m - 1] == p->ss[i] * p->n[i] && p->ds[m - 1] == p->ds[i] * p->n[i]) {
            p->n[m - 1] *= p->n[i];
            p->ss[m - 1] = p->ss[i];
            p->ds[m - 1] = p->ds[i];
        } else {
            p->n[m] = p->n[i];
            p->ss[m] = p->ss[i];
            p->ds[m] = p->ds[i];
            m++;
        }
    }
    if (m == 0) {                       /* a single element */
        p->n[0] = 1;
        p->ss[0] = es;
        p->ds[0] = des;
        m = 1;
    }
    p->ndim = m;

    /* the innermost axis decides */
    unsigned d = m - 1;
    p->a = d;
    p->kind = TL_COPY_GENERAL;
    if (p->ds[d] != des) {
        /* the general loop */
    } else if (p->ss[d] == es || p->n[d] == 1) {
        p->kind = TL_COPY_CONTIG;
    } else if (p->ss[d] == 0) {
        p->kind = TL_COPY_FILL;
    } else {
        for (unsigned j = 0; j < d; j++) {
            if (p->ss[j] != es)
                continue;
            p->b = j;
            if (p->n[d] >= 2 && p->n[d] <= 4 && p->ds[j] == p->n[d] * des) {
                p->kind = TL_COPY_INTERLEAVE;          /* a: channels, b: pixels */
                p->channels = (unsigned)p->n[d];
            } else if (p->n[j] >= 2 && p->n[j] <= 4 && p->ss[d] == p->n[j] * es) {
                p->kind = TL_COPY_DEINTERLEAVE;        /* a: pixels, b: channels */
                p->channels = (unsigned)p->n[j];
            } else {
                p->kind = TL_COPY_TRANSPOSE;           /* a: rows, b: columns */
            }
            break;
        }
    }
    choose_stores(p, si.elements_bytes + di.elements_bytes, cal);
    return 0;
}

void tl_copy_fill(void *dst, uint64_t n, const void *val, unsigned es)
{
    tl_kernels_for(tl_isa_active())->fill[log2u(es)](dst, val, n);
}

/* ---- running ------------------------------------------------------------ */

/* The kernels a plan's run calls, chosen once (choose_kernels) from the
 * active table and the store kind: run_slice() and run_slice_cvt() call
 * these and nothing else, and tl_copy_plan_same_kernels() compares them.
 * A NULL slot is not called by that plan. */
struct chosen {
    tl_unpack4_fn unpack;            /* a 4-bit source's, or NULL */
    tl_nibpair_fn nibpair;           /* a 4-bit transpose's, or NULL */
    tl_pack4_fn pack;                /* a 4-bit destination's, or NULL */
    tl_copy_fn copy;                 /* a row copy, or the staged output's streaming copy */
    tl_fence_fn fence;               /* after streaming stores, or NULL */
    tl_fill_fn fill;
    tl_transpose_fn transpose;
    tl_interleave_fn interleave;
    tl_deinterleave_fn deinterleave;
    tl_tcvt_fn tcvt;                 /* a converting transpose in registers */
    tl_cvt_fn cvt;                   /* the staged conversion (NULL: tl_cvt_scalar) */
};

static void choose_kernels(const struct tl_copy_plan *p, const struct tl_kernels *k, bool stream,
                           struct chosen *c)
{
    unsigned w = p->shift, ch = p->channels ? p->channels - 2 : 0;
    memset(c, 0, sizeof *c);
    if (p->snib || p->dnib) {      /* unpacked, moved as bytes, converted, packed: run_nib */
        enum tl_dtype us = tl_dtype_unpacked(p->sdt), ud = tl_dtype_unpacked(p->ddt);
        c->unpack = p->snib ? k->unpack4[p->sdt == TL_DT_INT4] : NULL;
        c->pack = p->dnib ? k->pack4[p->ddt == TL_DT_INT4] : NULL;
        c->cvt = us != ud ? k->cvt[us][ud] : NULL;
        if (p->kind == TL_COPY_TRANSPOSE || p->kind == TL_COPY_INTERLEAVE ||
            p->kind == TL_COPY_DEINTERLEAVE) {
            c->transpose = k->transpose[w];
            if (p->snib && p->dnib && p->sdt == p->ddt)
                c->nibpair = k->nibpair;
        }
        if (p->kind == TL_COPY_FILL && !p->dnib)
            c->fill = k->fill[log2u(p->des)];
        if (stream && (!p->dnib || c->nibpair)) {   /* cvt_put's, or nib_transpose's rows */
            c->copy = k->copy_stream;
            c->fence = k->fence;
        }
        return;
    }
    switch (p->kind) {
    case TL_COPY_GENERAL:          /* an element loop of plan.c's own */
        return;
    case TL_COPY_FILL:             /* a converting fill converts the one value first */
        c->fill = p->convert ? k->fill[log2u(p->des)] : (stream ? k->fill_nt : k->fill)[w];
        return;
    case TL_COPY_TRANSPOSE:
        /* a converting transpose: in registers where the shape fills its
         * steps, else staged (run_slice_cvt chooses by the slice's shape) */
        if (p->convert)
            c->tcvt = (stream ? k->tcvt_nt : k->tcvt)[p->sdt][p->ddt];
        c->transpose = (stream && !p->convert ? k->transpose_nt : k->transpose)[w];
        break;
    case TL_COPY_INTERLEAVE:
        c->interleave = k->interleave[ch][w];
        break;
    case TL_COPY_DEINTERLEAVE:
        c->deinterleave = k->deinterleave[ch][w];
        break;
    case TL_COPY_CONTIG:
        if (!p->convert)
            c->copy = stream ? k->copy_stream : k->copy;
        break;
    }
    if (p->convert) {              /* staged in L1, converted out, streamed when it streams */
        c->cvt = k->cvt[p->sdt][p->ddt];
        if (stream)
            c->copy = k->copy_stream;
    }
    if (stream && c->copy)
        c->fence = k->fence;
}

struct job {
    const struct tl_copy_plan *p;
    struct chosen ch;                      /* the kernels it calls */
    const uint8_t *src;
    uint8_t *dst;
    unsigned outer[TL_MAX_RANK], nouter;   /* the outer axes, outermost first */
    unsigned split;                        /* the axis cut into slices */
    uint64_t outer_count;                  /* positions of the outer axes */
    uint64_t slices, group, units;         /* a unit: one slice, or group positions */
    atomic_uint_fast64_t next, done;
    bool stream;                           /* streaming stores (the plan's, for threads) */
    atomic_bool bad;                       /* a converted value did not fit */
    tl_progress_fn progress;
    void *ctx;
};

static bool is_kernel_axis(const struct tl_copy_plan *p, unsigned i)
{
    bool two = p->kind == TL_COPY_TRANSPOSE || p->kind == TL_COPY_INTERLEAVE ||
               p->kind == TL_COPY_DEINTERLEAVE;
    return i == p->a || (two && i == p->b);
}

/* The general kernel: one strided element at a time. */
static void general(const uint8_t *s, uint64_t ss, uint8_t *d, uint64_t ds, uint64_t n,
                    unsigned es)
{
    switch (es) {
    case 1: for (uint64_t i = 0; i < n; i++) d[i * ds] = s[i * ss]; break;
    case 2: for (uint64_t i = 0; i < n; i++) memcpy(d + i * ds, s + i * ss, 2); break;
    case 4: for (uint64_t i = 0; i < n; i++) memcpy(d + i * ds, s + i * ss, 4); break;
    default: for (uint64_t i = 0; i < n; i++) memcpy(d + i * ds, s + i * ss, 8); break;
    }
}

/* ---- converting copies --------------------------------------------------- */

/* A converting copy moves the elements with the same layout kernels, in the
 * source type, into a staging buffer that stays in the L1 cache, tile by
 * tile, and converts each contiguous run of it into place with the active
 * ISA's conversion kernel: one pass over memory, as the plain copy.
 *
 * STAGE_BYTES is half of a 32 KiB L1 data cache, the smallest among the
 * x86-64 and AArch64 cores this runs on, so that the staged tile, the
 * source lines being read and cvt_put's OUT_BYTES piece stay in L1
 * together.  A transpose's tile is STAGE_ROWS rows (destination elements
 * of one column: 512 bytes of FLOAT32, eight whole lines written at once)
 * by as many columns as the rest of the buffer holds. */
#define STAGE_BYTES 16384
#define STAGE_ROWS 128

static bool cvt_row(const struct job *j, const uint8_t *s, uint8_t *d, size_t n)
{
    const struct tl_copy_plan *p = j->p;
    return j->ch.cvt ? j->ch.cvt(s, d, n) : tl_cvt_scalar(p->sdt, p->ddt, s, d, n);
}

/* Converts n contiguous elements at s into place at d.  A streaming copy
 * (an output beyond the caches) converts them piece by piece into an L1
 * buffer of OUT_BYTES and streams each piece out with copy_stream, which
 * writes the destination's lines without reading them first; the caller
 * fences once when its slice is done.  Pieces after the first start on a
 * line where the element size allows, so that no line is split between
 * two.  (hwc_u8_chw_f32's copy forced to stream, one thread, as `make
 * sweep ARGS=stores` forces its "UINT8 HWC -> FLOAT32 CHW" row: a fence
 * after each piece took 2.19 ms against 0.94 ms; converting straight into
 * the destination with streaming stores, 1.24-1.27 ms.) */
#define OUT_BYTES 4096

static bool cvt_put(const struct job *j, const uint8_t *s, uint8_t *d, size_t n)
{
    const struct tl_copy_plan *p = j->p;
    if (!j->stream)
        return cvt_row(j, s, d, n);
    _Alignas(64) uint8_t out[OUT_BYTES];
    size_t chunk = OUT_BYTES / p->des, mis = (uintptr_t)d & 63, m = chunk;
    if (mis % p->des == 0)
        m -= mis / p->des;
    bool bad = false;
    for (size_t i = 0; i < n; i += m, m = chunk) {
        if (m > n - i)
            m = n - i;
        bad |= cvt_row(j, s + i * p->es, out, m);
        j->ch.copy(out, d + i * p->des, m * p->des);
    }
    return bad;
}

static bool run_slice_cvt(const struct job *j, const uint8_t *s, uint8_t *d, uint64_t len)
{
    const struct tl_copy_plan *p = j->p;
    const struct chosen *k = &j->ch;
    unsigned a = p->a, b = p->b, es = p->es, des = p->des;
    _Alignas(64) uint8_t tmp[STAGE_BYTES];
    bool bad = false;
    switch (p->kind) {
    case TL_COPY_CONTIG:
        bad = cvt_put(j, s, d, len);
        break;
    case TL_COPY_FILL: {
        uint8_t v[8];
        bad = tl_convert_value(p->sdt, s, p->ddt, v);
        k->fill(d, v, len);
        return bad;
    }
    case TL_COPY_GENERAL:
        for (uint64_t i = 0; i < len; i++)
            bad |= tl_convert_value(p->sdt, s + i * p->ss[a], p->ddt, d + i * p->ds[a]);
        return bad;
    case TL_COPY_TRANSPOSE: {
        uint64_t rows = j->split == b ? p->n[a] : len, cols = j->split == b ? len : p->n[b];
        /* a transpose that converts in its register blocks, when the
         * slice fills its steps (a source line of columns, 32 rows): a
         * thinner one would go to its element-by-element tail (OIHW to
         * OHWI weights, 3 x 3 columns: 10x slower than staged) */
        if (k->tcvt && cols >= 64 / es && rows >= 32)
            return k->tcvt(s, p->ss[a], d, p->ds[b], rows, cols);
        /* rows along a (contiguous in the destination), columns along b
         * (contiguous in the source): a tile of rows x columns is turned
         * into columns of rows in tmp, then each is converted into place.
         * The kernel prefetches within a tile; the next tile's first two
         * lines of each row are asked for here (make bench,
         * nchw_f32_nhwc_f16_m: 13 -> 18 GB/s) */
        uint64_t tr = rows < STAGE_ROWS ? rows : STAGE_ROWS, cb = STAGE_BYTES / (tr * es);
        for (uint64_t r0 = 0; r0 < rows; r0 += tr) {
            size_t rr = rows - r0 < tr ? (size_t)(rows - r0) : (size_t)tr;
            const uint8_t *sr = s + r0 * p->ss[a];
            for (uint64_t c0 = 0; c0 < cols; c0 += cb) {
                size_t cc = cols - c0 < cb ? (size_t)(cols - c0) : (size_t)cb;
                for (uint64_t q = (c0 + cc) * es; q < (c0 + cc) * es + 128 && q < cols * es; q += 64)
                    for (size_t r = 0; r < rr; r++)
                        __builtin_prefetch(sr + r * p->ss[a] + q, 0, 2);
                k->transpose(sr + c0 * es, p->ss[a], tmp, rr * es, rr, cc);
                if (p->ds[b] == rr * des)      /* the tile's rows are adjacent in dst too */
                    bad |= cvt_put(j, tmp, d + c0 * p->ds[b] + r0 * des, cc * rr);
                else
                    for (size_t c = 0; c < cc; c++)
                        bad |= cvt_put(j, tmp + c * rr * es, d + (c0 + c) * p->ds[b] + r0 * des, rr);
            }
        }
        break;
    }
    case TL_COPY_INTERLEAVE: {
        /* pixels by 64, so that each chunk's output starts on a line */
        unsigned c = p->channels;
        uint64_t chunk = STAGE_BYTES / (c * es) / 64 * 64;
        for (uint64_t p0 = 0; p0 < len; p0 += chunk) {
            size_t np = len - p0 < chunk ? (size_t)(len - p0) : (size_t)chunk;
            k->interleave(s + p0 * es, p->ss[a], tmp, np);
            bad |= cvt_put(j, tmp, d + p0 * c * des, np * c);
        }
        break;
    }
    case TL_COPY_DEINTERLEAVE: {
        unsigned c = p->channels;
        uint64_t chunk = STAGE_BYTES / (c * es) / 64 * 64;
        for (uint64_t p0 = 0; p0 < len; p0 += chunk) {
            size_t np = len - p0 < chunk ? (size_t)(len - p0) : (size_t)chunk;
            k->deinterleave(s + p0 * c * es, tmp, np * es, np);
            for (unsigned ch = 0; ch < c; ch++)
                bad |= cvt_put(j, tmp + ch * np * es, d + ch * p->ds[b] + p0 * des, np);
        }
        break;
    }
    }
    if (k->fence)       /* orders cvt_put's streaming stores */
        k->fence();
    return bad;
}

/* ---- 4-bit copies (SPEC 12) ---------------------------------------------
 * A 4-bit side's positions count nibbles (nibble k: byte k / 2, the high
 * one when k is odd), and its elements never enter a layout kernel.  A
 * 4-bit source is unpacked, run by run, to one byte a value in an L1
 * staging buffer (its unpacked type: UINT8 or INT8); the layout kernels
 * move those bytes; the conversion kernel takes them to the destination's
 * unpacked type; a 4-bit destination packs them (clamping, and reporting,
 * what its range does not hold).  A destination run that starts on a high
 * nibble, or ends on a low one, shares its edge byte: that nibble is read,
 * modified and written, and job_shape() runs such a copy on one thread
 * unless no two units can share a byte. */
#define NIB_RUN 4096                 /* values staged at a time (bytes each, or less) */

/* n values of the source's unpacked type, from source position so on (a
 * contiguous run), at the returned pointer: the source itself, or buf
 * (NIB_RUN bytes at least) for a 4-bit source. */
static const uint8_t *nib_take(const struct job *j, uint64_t so, size_t n, uint8_t *buf)
{
    if (!j->p->snib)
        return j->src + so;
    const uint8_t *s = j->src + so / 2;
    uint8_t *out = buf;
    if (so & 1) {                               /* a high nibble first */
        tl_unpack4_scalar(s, out, 2, j->p->sdt == TL_DT_INT4);
        out[0] = out[1];
        out++;
        s++;
        n--;
    }
    j->ch.unpack(s, out, n);
    return buf;
}

/* Packs n unpacked values of the destination's type at v into the 4-bit
 * destination from nibble dof on. */
static bool nib_pack(const struct job *j, const uint8_t *v, uint64_t dof, size_t n)
{
    uint8_t *d = j->dst + dof / 2;
    bool bad = false;
    if (dof & 1) {                              /* a high nibble first: the low one kept */
        uint8_t two[2] = { (uint8_t)(*d & 15), v[0] };
        if (j->p->ddt == TL_DT_INT4)            /* the kept value, in range */
            two[0] = (uint8_t)tl_int4_value(two[0]);
        bad = tl_pack4_scalar(two, d, 2, j->p->ddt == TL_DT_INT4);
        v++;
        d++;
        n--;
    }
    return j->ch.pack(v, d, n) | bad;
}

/* Converts n unpacked source values at s to the destination's unpacked
 * type at out; @return the values at out (s itself when the types agree). */
static const uint8_t *nib_cvt(const struct job *j, const uint8_t *s, size_t n, uint8_t *out,
                              bool *bad)
{
    const struct tl_copy_plan *p = j->p;
    enum tl_dtype us = tl_dtype_unpacked(p->sdt), ud = tl_dtype_unpacked(p->ddt);
    if (us == ud)
        return s;
    *bad |= j->ch.cvt ? j->ch.cvt(s, out, n) : tl_cvt_scalar(us, ud, s, out, n);
    return out;
}

/* Writes n unpacked source values at s to the destination from position
 * dof on (a contiguous run). */
static bool nib_put(const struct job *j, const uint8_t *s, uint64_t dof, size_t n)
{
    const struct tl_copy_plan *p = j->p;
    bool bad = false;
    if (!p->dnib) {                             /* a 4-bit source into a wider type */
        if (p->convert && tl_dtype_unpacked(p->sdt) != p->ddt)
            return cvt_put(j, s, j->dst + dof, n);
        if (j->stream)
            j->ch.copy(s, j->dst + dof, n * p->des);
        else
            memcpy(j->dst + dof, s, n * p->des);
        return false;
    }
    _Alignas(64) uint8_t tmp[NIB_RUN];
    for (size_t i = 0; i < n; i += NIB_RUN) {
        size_t m = n - i < NIB_RUN ? n - i : NIB_RUN;
        const uint8_t *v = nib_cvt(j, s + i * p->es, m, tmp, &bad);
        bad |= nib_pack(j, v, dof + i, m);
    }
    return bad;
}

/* One element, at source position so, to destination position dof. */
static bool nib_one(const struct job *j, uint64_t so, uint64_t dof)
{
    uint8_t buf[8], v[8];
    bool bad = false;
    const uint8_t *s = nib_cvt(j, nib_take(j, so, 1, buf), 1, v, &bad);
    if (j->p->dnib)
        return nib_pack(j, s, dof, 1) | bad;
    memcpy(j->dst + dof, s, j->p->des);
    return bad;
}

#define NIB_STAGE 16384
#define NIB_ROWS 128

/* A tile of rr x cc nibbles (both even) of a 4-bit transpose, from source
 * nibble so (rows ss apart, every row on a byte) to destination nibble dof
 * (rows ds apart, on bytes): each pair of source rows becomes, byte by
 * byte, the pairs of its even columns (lo) and of its odd ones (hi)
 * (nibpair); a byte transpose of lo writes the destination's even rows,
 * and of hi its odd rows, each destination byte holding the two source
 * rows' nibbles.  Nothing is unpacked.  The byte transposes write into a
 * contiguous buffer, copied out a destination row at a time: destination
 * rows a power of two apart (a [4096, 4096] weight) fall in one set of
 * the L1 cache, which the transpose's partial writes of 64 rows thrash.
 * (make bench i4_transpose, one thread: unpacked, moved and packed 0.05 of
 * memcpy; bytewise, transposed in place 0.04; through the buffer 0.11;
 * its lines streamed out, 0.14.) */
static void nib_transpose(const struct job *j, uint64_t so, uint64_t dof, size_t rr, size_t cc,
                          uint8_t *pairs_buf, uint8_t *out)
{
    const struct tl_copy_plan *p = j->p;
    uint64_t ss = p->ss[p->a], ds = p->ds[p->b];
    size_t n = cc / 2, pairs = rr / 2;
    uint8_t *lo = pairs_buf, *hi = pairs_buf + NIB_STAGE / 2;
    for (size_t i = 0; i < pairs; i++) {
        const uint8_t *r0 = j->src + (so + 2 * i * ss) / 2;
        j->ch.nibpair(r0, r0 + ss / 2, lo + i * n, hi + i * n, n);
    }
    /* destination row c0 + 2k takes column k of lo, row c0 + 2k + 1 of hi:
     * rows 2 * ds nibbles (ds bytes) apart */
    uint8_t *d = j->dst + dof / 2;
    for (int h = 0; h < 2; h++) {
        j->ch.transpose(h ? hi : lo, n, out, pairs, pairs, n);
        if (pairs == 64 && j->stream)   /* whole lines, streamed */
            for (size_t k = 0; k < n; k++)
                j->ch.copy(out + k * 64, d + h * (ds / 2) + k * ds, 64);
        else if (pairs == 64)           /* a whole line, in wide moves */
            for (size_t k = 0; k < n; k++)
                memcpy(d + h * (ds / 2) + k * ds, out + k * 64, 64);
        else
            for (size_t k = 0; k < n; k++)
                memcpy(d + h * (ds / 2) + k * ds, out + k * pairs, pairs);
    }
}

static bool run_nib(const struct job *j, uint64_t so, uint64_t dof, uint64_t len)
{
    const struct tl_copy_plan *p = j->p;
    const struct chosen *k = &j->ch;
    unsigned a = p->a, b = p->b, es = p->es, des = p->des;
    _Alignas(64) uint8_t buf[NIB_STAGE], tile[NIB_STAGE];
    bool bad = false;
    switch (p->kind) {
    case TL_COPY_CONTIG:
        for (uint64_t i = 0; i < len; i += NIB_RUN / es) {
            size_t n = len - i < NIB_RUN / es ? (size_t)(len - i) : NIB_RUN / es;
            bad |= nib_put(j, nib_take(j, so + i * es, n, buf), dof + i * des, n);
        }
        break;
    case TL_COPY_FILL: {
        uint8_t v[8];
        const uint8_t *s = nib_take(j, so, 1, buf);
        bad = tl_convert_value(p->sdt, s, p->ddt, v);
        if (!p->dnib) {
            k->fill(j->dst + dof, v, len);
            break;
        }
        for (uint64_t i = 0; i < len; i += NIB_RUN) {   /* the value, repeated, packed */
            size_t n = len - i < NIB_RUN ? (size_t)(len - i) : NIB_RUN;
            memset(tile, v[0], n);
            nib_pack(j, tile, dof + i, n);
        }
        break;
    }
    case TL_COPY_GENERAL:
        for (uint64_t i = 0; i < len; i++)
            bad |= nib_one(j, so + i * p->ss[a], dof + i * p->ds[a]);
        break;
    default: {
        /* every two-axis kind is a transpose here: rows along a (contiguous
         * in the destination), columns along b (contiguous in the source).
         * A tile of rows x columns is unpacked row by row (or read in
         * place), transposed into columns of rows, and each column put. */
        uint64_t rows = j->split == b ? p->n[a] : len, cols = j->split == b ? len : p->n[b];
        uint64_t tr = rows < NIB_ROWS ? rows : NIB_ROWS, cb = NIB_STAGE / (tr * es);
        /* a 4-bit transpose between layouts whose rows all start on a
         * byte: in bytes, without unpacking (nib_transpose) */
        bool bytewise = k->nibpair && so % 2 == 0 && p->ss[a] % 2 == 0 && dof % 2 == 0 &&
                        p->ds[b] % 2 == 0;
        for (uint64_t r0 = 0; r0 < rows; r0 += tr) {
            size_t rr = rows - r0 < tr ? (size_t)(rows - r0) : (size_t)tr;
            for (uint64_t c0 = 0; c0 < cols; c0 += cb) {
                size_t cc = cols - c0 < cb ? (size_t)(cols - c0) : (size_t)cb;
                const uint8_t *t = j->src + so + r0 * p->ss[a] + c0 * es;
                size_t ts = p->ss[a];
                /* the next tile's first lines of each row, asked for now
                 * (as run_slice_cvt does): 128 units, two lines of a byte
                 * source, one of a 4-bit one (two made i4_transpose slower:
                 * 1.1-1.2 ms against 0.8, one thread); i4_transpose waited
                 * on its rows' lines 64% of its time without */
                unsigned per = p->snib ? 2 : 1;          /* units a byte */
                uint64_t next = (c0 + cc) * es, reach = cols * es;
                for (uint64_t q = next; q < next + 128 && q < reach; q += 64 * per)
                    for (size_t r = 0; r < rr; r++)
                        __builtin_prefetch(j->src + (so + (r0 + r) * p->ss[a] + q) / per, 0, 2);
                if (bytewise && rr % 2 == 0 && cc % 2 == 0) {
                    nib_transpose(j, so + r0 * p->ss[a] + c0, dof + c0 * p->ds[b] + r0, rr, cc,
                                  buf, tile);
                    continue;
                }
                if (p->snib) {
                    for (size_t r = 0; r < rr; r++)
                        nib_take(j, so + (r0 + r) * p->ss[a] + c0, cc, buf + r * cc);
                    t = buf;
                    ts = cc;
                }
                k->transpose(t, ts, tile, rr * es, rr, cc);
                for (size_t c = 0; c < cc; c++)
                    bad |= nib_put(j, tile + c * rr * es, dof + (c0 + c) * p->ds[b] + r0 * des, rr);
            }
        }
        break;
    }
    }
    if (k->fence)       /* orders cvt_put's streaming stores */
        k->fence();
    return bad;
}

/* Runs the kernel over slice [lo, hi) of the split axis at one outer place,
 * whose first element is at position so of the source and dof of the
 * destination (bytes, or nibbles of a 4-bit side); true when a converted
 * value did not fit. */
static bool run_slice(const struct job *j, uint64_t so, uint64_t dof, uint64_t lo, uint64_t hi)
{
    const struct tl_copy_plan *p = j->p;
    const struct chosen *k = &j->ch;
    unsigned a = p->a, b = p->b, es = p->es;
    so += lo * p->ss[j->split];
    dof += lo * p->ds[j->split];
    uint64_t len = hi - lo;
    if (p->snib || p->dnib)
        return run_nib(j, so, dof, len);
    const uint8_t *s = j->src + so;
    uint8_t *d = j->dst + dof;
    if (p->convert)
        return run_slice_cvt(j, s, d, len);
    switch (p->kind) {
    case TL_COPY_CONTIG:
        k->copy(s, d, len * es);
        if (k->fence)
            k->fence();
        break;
    case TL_COPY_FILL:
        k->fill(d, s, len);
        break;
    case TL_COPY_GENERAL:
        general(s, p->ss[a], d, p->ds[a], len, es);
        break;
    case TL_COPY_TRANSPOSE:
        if (j->split == b)
            k->transpose(s, p->ss[a], d, p->ds[b], p->n[a], len);
        else
            k->transpose(s, p->ss[a], d, p->ds[b], len, p->n[b]);
        break;
    case TL_COPY_INTERLEAVE:
        k->interleave(s, p->ss[a], d, len);
        break;
    case TL_COPY_DEINTERLEAVE:
        k->deinterleave(s, d, p->ds[b], len);
        break;
    }
    return false;
}

bool tl_copy_plan_same_kernels(const struct tl_copy_plan *p, enum tl_isa a, enum tl_isa b)
{
    for (int t = 0; t < 2; t++) {        /* the store kind of one thread, of several */
        bool stream = t ? p->stream_threads : p->stream;
        struct chosen ca, cb;
        choose_kernels(p, tl_kernels_for(a), stream, &ca);
        choose_kernels(p, tl_kernels_for(b), stream, &cb);
        if (memcmp(&ca, &cb, sizeof ca) != 0)
            return false;
    }
    return true;
}

/* Runs unit u: `group` whole outer positions, or one slice of one. */
static void run_unit(struct job *j, uint64_t u)
{
    const struct tl_copy_plan *p = j->p;
    uint64_t first = j->slices > 1 ? u / j->slices : u * j->group, slice = u % j->slices;
    uint64_t last = j->slices > 1 ? first + 1 : first + j->group;
    if (last > j->outer_count)
        last = j->outer_count;
    uint64_t len = p->n[j->split];
    uint64_t lo = len * slice / j->slices, hi = len * (slice + 1) / j->slices;
    if (j->slices > 1) {                          /* slice edges on aligned columns */
        uint64_t al = slice_align(p);
        lo = slice == 0 ? 0 : lo / al * al;
        hi = slice + 1 == j->slices ? len : hi / al * al;
    }
    bool bad = false;
    for (uint64_t o = first; o < last && lo < hi; o++) {
        uint64_t s = p->src_offset, d = p->dst_offset;
        uint64_t outer = o;
        for (unsigned i = j->nouter; i-- > 0;) { /* innermost outer axis varies fastest */
            unsigned ax = j->outer[i];
            uint64_t x = outer % p->n[ax];
            outer /= p->n[ax];
            s += x * p->ss[ax];
            d += x * p->ds[ax];
        }
        bad |= run_slice(j, s, d, lo, hi);
    }
    if (bad)
        atomic_store(&j->bad, true);
}

/* A team member of a split copy: takes units from the shared counter
 * until none is left; member 0, on the caller's thread, reports progress. */
static void worker(void *arg, unsigned who)
{
    struct job *j = arg;
    uint64_t step = j->units / 100 + 1, next_report = 0;
    for (;;) {
        uint64_t u = atomic_fetch_add(&j->next, 1);
        if (u >= j->units)
            return;
        run_unit(j, u);
        uint64_t done = atomic_fetch_add(&j->done, 1) + 1;
        if (who == 0 && j->progress && done >= next_report) {
            j->progress(j->p->count / j->units * done, j->p->count, j->ctx);
            next_report = done + step;
        }
    }
}

/* Copies of fewer output bytes (count x the wider element) than the
 * plan's threads_from, its calibration's for its kind, run on one thread:
 * handing a copy to a pool thread costs 30-40 us on the machines measured
 * so far, mostly waking its sleeping CPU, which a second thread repays only
 * once the copy is long enough, and how long that is depends on the kind
 * and on how much bandwidth the second core brings (calib.c). */
uint64_t tl_copy_thread_floor;

static uint64_t thread_min_bytes(const struct tl_copy_plan *p)
{
    return tl_copy_thread_floor ? tl_copy_thread_floor : p->threads_from;
}

unsigned tl_copy_threads(unsigned threads)
{
    if (threads > 0)
        return threads;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (unsigned)online : 1;
}

/* Whether no two units of a 4-bit destination's copy can write the two
 * nibbles of one byte (each a read-modify-write of the byte): its runs lie
 * along a (contiguous) and every other axis moves by whole bytes, so every
 * run, and every slice of one (cut on multiples of SLICE_ALIGN), starts on
 * a low nibble; a run of odd length ends on a low nibble that no other run
 * can reach without overlapping it. */
static bool nib_whole_bytes(const struct tl_copy_plan *p)
{
    if (p->kind == TL_COPY_GENERAL)
        return false;
    for (unsigned i = 0; i < p->ndim; i++)
        if (i != p->a && p->ds[i] % 2)
            return false;
    return true;
}

/* Cuts j's copy (j->p) into units and fills in j's split and its store
 * kind; @return the threads it runs on, for a request of `threads`. */
static unsigned job_shape(struct job *j, unsigned threads)
{
    const struct tl_copy_plan *p = j->p;
    uint64_t outer_count = 1;
    for (unsigned i = 0; i < p->ndim; i++) {
        if (!is_kernel_axis(p, i)) {
            j->outer[j->nouter++] = i;
            outer_count *= p->n[i];
        }
    }
    /* slice the longer kernel axis of a transpose, else the one kernel axis
     * that can be cut (the pixels of an interleave) */
    switch (p->kind) {
    case TL_COPY_TRANSPOSE:   j->split = p->n[p->b] >= p->n[p->a] ? p->b : p->a; break;
    case TL_COPY_INTERLEAVE:  j->split = p->b; break;
    default:                  j->split = p->a; break;
    }
    uint64_t bytes = p->count * (p->es > p->des ? p->es : p->des);
    uint64_t want = bytes / UNIT_BYTES + 1;
    uint64_t max_slices = p->n[j->split] / slice_align(p);
    j->slices = 1;
    if (want > outer_count && max_slices > 1) {
        j->slices = (want + outer_count - 1) / outer_count;
        if (j->slices > max_slices)
            j->slices = max_slices;
    }
    /* many small outer positions: a unit takes several, so that threads
     * do not meet at the shared counter for every row (unpad_rows_f32:
     * 1080 rows of 7.5 KB) */
    j->outer_count = outer_count;
    j->group = j->slices > 1 || want >= outer_count ? 1 : outer_count / want;
    j->units = j->slices > 1 ? outer_count * j->slices
                             : (outer_count + j->group - 1) / j->group;
    threads = tl_copy_threads(threads);
    if (bytes < thread_min_bytes(p) || (p->dnib && !nib_whole_bytes(p)))
        threads = 1;
    /* no more threads than the size pays for (issue 50: 16 threads at a
     * 3 MB copy lost most of them to waking and splitting) */
    for (unsigned l = 0; !tl_copy_thread_floor && threads > (2u << l); l++) {
        if (l == TL_CAL_LEVELS || bytes < p->threads_at[l]) {
            threads = 2u << l;
            break;
        }
    }
    if (threads > j->units)
        threads = (unsigned)j->units;
    if (threads > TL_TEAM_MAX)
        threads = TL_TEAM_MAX;
    j->stream = threads > 1 ? p->stream_threads : p->stream;
    choose_kernels(p, tl_kernels_for(p->isa), j->stream, &j->ch);
    return threads;
}

bool tl_copy_streams(const struct tl_copy_plan *p, unsigned threads)
{
    struct job j = { .p = p };
    job_shape(&j, threads);
    return j.stream;
}

unsigned tl_copy_threads_used(const struct tl_copy_plan *p, unsigned threads)
{
    struct job j = { .p = p };
    return job_shape(&j, threads);
}

int tl_copy_run(const struct tl_copy_plan *p, const uint8_t *src_file, uint8_t *dst_file,
                unsigned threads, tl_progress_fn progress, void *ctx)
{
    struct job j = { .p = p, .src = src_file, .dst = dst_file,
                     .progress = progress, .ctx = ctx };
    threads = job_shape(&j, threads);
    uint64_t outer_count = j.outer_count;

    if (threads == 1 && j.slices == 1) {
        /* one thread, whole kernel axes: walk the outer axes with an
         * odometer, with no shared counter and no division per unit */
        uint64_t idx[TL_MAX_RANK] = { 0 }, step = outer_count / 100 + 1;
        uint64_t s = p->src_offset, d = p->dst_offset;
        bool bad = false;
        for (uint64_t u = 0; u < outer_count; u++) {
            bad |= run_slice(&j, s, d, 0, p->n[j.split]);
            if (progress && u % step == step - 1)
                progress(p->count / outer_count * (u + 1), p->count, ctx);
            for (unsigned i = j.nouter; i-- > 0;) {
                unsigned ax = j.outer[i];
                s += p->ss[ax];
                d += p->ds[ax];
                if (++idx[i] < p->n[ax])
                    break;
                s -= p->ss[ax] * p->n[ax];
                d -= p->ds[ax] * p->n[ax];
                idx[i] = 0;
            }
        }
        if (progress)
            progress(p->count, p->count, ctx);
        return bad ? 1 : 0;
    }

    tl_team_run_shared(threads, worker, &j);
    if (progress)
        progress(p->count, p->count, ctx);
    return atomic_load(&j.bad) ? 1 : 0;
}

/* ---- slabs of the destination ------------------------------------------- */

int tl_copy_slab_axis(const struct tl_desc *dst, unsigned *axis)
{
    struct tl_info info;
    tl_desc_classify(dst, &info);
    unsigned ax = info.axis_order[0];
    for (unsigned k = 0; k < dst->rank; k++) {       /* the outermost axis that varies */
        if (dst->sizes[info.axis_order[k]] > 1) {
            ax = info.axis_order[k];
            break;
        }
    }
    uint64_t inner = 0;                  /* the reach of the other axes */
    for (unsigned i = 0; i < dst->rank; i++) {
        if (i != ax)
            inner += (dst->sizes[i] - 1) * dst->strides[i];
    }
    *axis = ax;
    return inner < dst->strides[ax] || dst->sizes[ax] == 1 ? 0 : TL_E_VALUE;
}

uint64_t tl_copy_slab_reach(const struct tl_desc *src, unsigned axis, uint64_t i0, uint64_t i1,
                            uint64_t *lo, uint64_t *hi)
{
    uint64_t span = 1, used = 1;                   /* in elements */
    *lo = *hi = tl_desc_origin(src) + i0 * src->strides[axis] * tl_dtype_size(src->dtype);
    for (unsigned k = 0; k < src->rank; k++) {
        uint64_t n = k == axis ? i1 - i0 : src->sizes[k];
        if (n == 0)
            return 0;
        span += (n - 1) * src->strides[k];
        used *= src->strides[k] ? n : 1;           /* a broadcast axis reads one */
    }
    *hi = *lo + tl_dtype_bytes(src->dtype, span);
    return tl_dtype_bytes(src->dtype, used);
}

int tl_copy_slab(const struct tl_desc *src, const uint8_t *src_file, uint64_t src_lo,
                 const struct tl_desc *dst, unsigned axis, uint64_t i0, uint64_t i1,
                 uint8_t *win, uint64_t win_lo, unsigned threads, struct tl_error *err)
{
    struct tl_desc s = *src, d = *dst;
    unsigned ses = tl_dtype_size(src->dtype), des = tl_dtype_size(dst->dtype);
    if (tl_dtype_bits(src->dtype) == 4 || tl_dtype_bits(dst->dtype) == 4)
        return tl_fail(err, TL_E_VALUE, NULL, "4-bit tensors are not cut into slabs");
    s.sizes[axis] = d.sizes[axis] = i1 - i0;
    s.byte_offset = tl_desc_origin(src) + i0 * src->strides[axis] * ses;
    d.byte_offset = tl_desc_origin(dst) + i0 * dst->strides[axis] * des;
    s.file_offset = d.file_offset = 0;
    if (s.byte_offset < src_lo)
        return tl_fail(err, TL_E_VALUE, NULL, "the slab starts before the source bytes given");
    s.byte_offset -= src_lo;
    if (d.byte_offset < win_lo)
        return tl_fail(err, TL_E_VALUE, NULL, "the slab starts before its window");
    d.byte_offset -= win_lo;
    s.total_given = d.total_given = false;
    struct tl_copy_plan plan;
    int rc = tl_copy_plan(&plan, &s, &d, err);
    if (rc)
        return rc;
    plan.stream = plan.stream_threads = false;    /* a window is small and written out at once */
    return tl_copy_run(&plan, src_file, win, threads, NULL, NULL) ? TL_E_RANGE : 0;
}
