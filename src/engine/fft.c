/* fft.c — runs an FFT step: the node's unscaled transform over a run of adjacent axes of a
 * C-contiguous operand, as one cuFFT job (runtime/fft.c) writing the C-contiguous result. The
 * padding, cropping, Hermitian clean-up and the norms are loom nodes around it
 * (frontend/fft.c), fused into the kernels that produce the operand and read the result. */
#include "internal.h"

loom_status_t en_fft_run(en_engine_t *e, const en_step_t *st, const uint64_t *in, uint64_t out) {
    const ir_graph_t *sg = &st->sg;
    const ir_node_t *nd = &sg->nodes[sg->outputs[0]];
    rt_device_t *rt = e->rt;
    if (rt_device_compile_only(rt) || ir_node_size(nd) == 0) return LOOM_STATUS_OK;
    if (!e->fft && rt_fft_create(rt, &e->fft) != LOOM_STATUS_OK) return e->err->status;
    int first = ir_fft_first_axis(nd), last = (int)nd->p.axis;
    rt_fft_job_t j = {.dtype = ir_complex_dtype((loom_dtype_t)nd->dtype), .outer = 1, .inner = 1};
    j.kind = nd->p.k == IR_FFT_R2C ? RT_FFT_R2C : nd->p.k == IR_FFT_C2R ? RT_FFT_C2R : RT_FFT_C2C;
    j.rank = last - first + 1;
    const ir_node_t *o = &sg->nodes[nd->src[0]];
    for (int ax = 0; ax < nd->ndim; ax++) {
        if (ax < first) j.outer *= nd->shape[ax];
        if (ax > last) j.inner *= nd->shape[ax];
        if (ax >= first && ax <= last) /* the real side's points */
            j.n[ax - first] = j.kind == RT_FFT_R2C ? o->shape[ax] : nd->shape[ax];
    }
    j.inverse = nd->p.k == IR_FFT_INVERSE || nd->p.k == IR_FFT_C2R;
    j.in = en_operand(sg, nd, 0, in);
    j.out = out;
    return rt_fft_run(rt, e->fft, &j);
}
