/* fft.c — runs an FFT step: the node's unscaled complex transform along one axis of a
 * C-contiguous operand, as one cuFFT job (runtime/fft.c) writing the C-contiguous result. The
 * padding, cropping, real-input and Hermitian forms and the norms are loom nodes around it
 * (frontend/fft.c), fused into the kernels that produce the operand and read the result. */
#include "internal.h"

loom_status_t en_fft_run(en_engine_t *e, const en_step_t *st, const uint64_t *in, uint64_t out) {
    const ir_graph_t *sg = &st->sg;
    const ir_node_t *nd = &sg->nodes[sg->outputs[0]];
    rt_device_t *rt = e->rt;
    if (rt_device_compile_only(rt) || ir_node_size(nd) == 0) return LOOM_STATUS_OK;
    if (!e->fft && rt_fft_create(rt, &e->fft) != LOOM_STATUS_OK) return e->err->status;
    rt_fft_job_t j = {.dtype = (loom_dtype_t)nd->dtype, .outer = 1, .inner = 1};
    for (int ax = 0; ax < nd->ndim; ax++) {
        if (ax < nd->p.axis) j.outer *= nd->shape[ax];
        if (ax > nd->p.axis) j.inner *= nd->shape[ax];
    }
    j.n = nd->shape[nd->p.axis];
    j.inverse = nd->p.k != 0;
    j.in = en_operand(sg, nd, 0, in);
    j.out = out;
    return rt_fft_run(rt, e->fft, &j);
}
