/*
 * peer.c - oneDNN's reorder as a peer in make bench: the same copy (sizes,
 * strides, types) on the same buffers, timed the way the case is.
 *
 * Built only where Debian's libdnnl-dev is installed (the Makefile passes
 * -DTL_PEER_DNNL and links -ldnnl); elsewhere every call says why it is
 * skipped.  oneDNN's CPU engine runs on OpenMP here: its thread count is set
 * with omp_set_num_threads, and OMP_WAIT_POLICY=passive (set by bench.c
 * before oneDNN starts) keeps its idle threads from spinning on the core
 * the next variant's block runs on.
 */
#include <stdio.h>
#include <string.h>

#include "peer.h"

#ifdef TL_PEER_DNNL
#include <oneapi/dnnl/dnnl.h>

void omp_set_num_threads(int n);       /* libgomp, which libdnnl links */

struct tl_peer {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    dnnl_primitive_t prim;
    dnnl_memory_t src, dst;
};

static bool dnnl_type(enum tl_dtype dt, dnnl_data_type_t *out)
{
    switch (dt) {
    case TL_DT_FLOAT32:  *out = dnnl_f32; return true;
    case TL_DT_FLOAT16:  *out = dnnl_f16; return true;
    case TL_DT_BFLOAT16: *out = dnnl_bf16; return true;
    case TL_DT_INT32:    *out = dnnl_s32; return true;
    case TL_DT_INT8:     *out = dnnl_s8; return true;
    case TL_DT_UINT8:    *out = dnnl_u8; return true;
    default:             return false;
    }
}

static bool describe(const struct tl_desc *d, dnnl_memory_desc_t *md)
{
    dnnl_dims_t dims, strides;
    dnnl_data_type_t dt;
    if (!dnnl_type(d->dtype, &dt))
        return false;
    for (unsigned i = 0; i < d->rank; i++) {
        dims[i] = (dnnl_dim_t)d->sizes[i];
        strides[i] = (dnnl_dim_t)d->strides[i];
    }
    return dnnl_memory_desc_init_by_strides(md, (int)d->rank, dims, dt, strides) ==
           dnnl_success;
}

const char *tl_peer_name(void) { return "oneDNN"; }

struct tl_peer *tl_peer_open(const struct tl_desc *s, const struct tl_desc *d, const uint8_t *src,
                             uint8_t *dst, unsigned threads, char *why, size_t n)
{
    static struct tl_peer p;
    /* read when the primitive is made, not when it runs: a reorder made
     * for 2 threads ran on 2 after omp_set_num_threads(1) */
    omp_set_num_threads((int)threads);
    dnnl_memory_desc_t smd, dmd;
    dnnl_primitive_desc_t pd = NULL;
    memset(&p, 0, sizeof p);
    if (!describe(s, &smd) || !describe(d, &dmd)) {
        snprintf(why, n, "oneDNN has no %s type",
                 tl_dtype_name(describe(s, &smd) ? d->dtype : s->dtype));
        return NULL;
    }
    if (dnnl_engine_create(&p.engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&p.stream, p.engine, dnnl_stream_default_flags) != dnnl_success) {
        snprintf(why, n, "oneDNN's CPU engine did not start");
        tl_peer_close(&p);
        return NULL;
    }
    if (dnnl_reorder_primitive_desc_create(&pd, &smd, p.engine, &dmd, p.engine, NULL) !=
            dnnl_success ||
        dnnl_primitive_create(&p.prim, pd) != dnnl_success ||
        dnnl_memory_create(&p.src, &smd, p.engine, (void *)src) != dnnl_success ||
        dnnl_memory_create(&p.dst, &dmd, p.engine, dst) != dnnl_success) {
        snprintf(why, n, "oneDNN has no reorder for these layouts");
        if (pd)
            dnnl_primitive_desc_destroy(pd);
        tl_peer_close(&p);
        return NULL;
    }
    dnnl_primitive_desc_destroy(pd);
    return &p;
}

void tl_peer_run(struct tl_peer *p)
{
    dnnl_exec_arg_t args[2] = { { DNNL_ARG_FROM, p->src }, { DNNL_ARG_TO, p->dst } };
    dnnl_primitive_execute(p->prim, p->stream, 2, args);
    dnnl_stream_wait(p->stream);
}

void tl_peer_close(struct tl_peer *p)
{
    if (!p)
        return;
    if (p->prim)
        dnnl_primitive_destroy(p->prim);
    if (p->src)
        dnnl_memory_destroy(p->src);
    if (p->dst)
        dnnl_memory_destroy(p->dst);
    if (p->stream)
        dnnl_stream_destroy(p->stream);
    if (p->engine)
        dnnl_engine_destroy(p->engine);
    memset(p, 0, sizeof *p);
}

#else

const char *tl_peer_name(void) { return "oneDNN"; }

struct tl_peer *tl_peer_open(const struct tl_desc *s, const struct tl_desc *d, const uint8_t *src,
                             uint8_t *dst, unsigned threads, char *why, size_t n)
{
    (void)threads;
    (void)s;
    (void)d;
    (void)src;
    (void)dst;
    snprintf(why, n, "libdnnl-dev is not installed (.ci/install-deps installs it)");
    return NULL;
}

void tl_peer_run(struct tl_peer *p)
{
    (void)p;
}

void tl_peer_close(struct tl_peer *p)
{
    (void)p;
}

#endif
