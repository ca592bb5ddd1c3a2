/* transfer.c — the host/device boundary of an eval on the CUDA device: where each input's
 * bytes are on the device, uploading host data where needed. */
#include "fe.h"

/* Device addresses of the inputs, uploading host data where needed. */
bool fe_place_inputs(loom_ctx_t *ctx, const ir_graph_t *g, uint64_t *addr, bool *temp) {
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        loom_array_t *a = g->inputs[i].owner;
        fe_buffer_t *b = a->buf;
        temp[i] = false;
        if (b->dev) {
            addr[i] = b->dev;
            continue;
        }
        if (ctx->device == LOOM_DEVICE_NVRTC) {
            addr[i] = 0;
            continue;
        }
        uint64_t d;
        if (rt_alloc(ctx->rt, b->bytes ? b->bytes : 1, &d) != LOOM_STATUS_OK) return false;
        if (b->bytes && rt_h2d(ctx->rt, d, b->host, b->bytes) != LOOM_STATUS_OK) {
            rt_free(ctx->rt, d);
            return false;
        }
        addr[i] = d;
        if (b->borrowed)
            temp[i] = true; /* the caller may change it before the next eval */
        else
            b->dev = d; /* copied host data is immutable: keep the upload */
    }
    return true;
}

