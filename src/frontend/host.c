/* host.c — host memory for transfers (loom_host_alloc): page-locked (pinned) memory on a CUDA
 * ctx, which copies reach by direct DMA instead of through staging, and aligned memory from the
 * ctx allocator elsewhere. The ctx lists every block it handed out, so that loom_host_free
 * frees each with its own allocator and refuses foreign pointers, and loom_ctx_destroy frees
 * what is left. */
#include "fe.h"

#define HOST_ALIGN ((size_t)4096) /* non-pinned blocks: page-aligned, as pinned ones are */

static void block_free(loom_ctx_t *ctx, const fe_host_block_t *b) {
#if LOOM_HAVE_CUDA
    if (b->pinned) {
        rt_host_free(ctx->rt, b->p); /* waits for the stream: a DMA may still use it */
        return;
    }
#endif
    base_free(&ctx->al, b->p);
}

LOOM_API void *loom_host_alloc(loom_ctx_t *ctx, size_t bytes) {
    if (!ctx) return NULL;
    if (ctx->n_host_blocks == ctx->cap_host_blocks) {
        uint32_t cap = ctx->cap_host_blocks ? ctx->cap_host_blocks * 2 : 8;
        fe_host_block_t *l = base_realloc(&ctx->al, ctx->host_blocks, cap, sizeof *l);
        if (!l) {
            fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY,
                     "loom_host_alloc: out of memory for the block list (%zu bytes asked)", bytes);
            return NULL;
        }
        ctx->host_blocks = l;
        ctx->cap_host_blocks = cap;
    }
    fe_host_block_t b = {NULL, bytes, false};
#if LOOM_HAVE_CUDA
    if (ctx->rt && ctx->device == LOOM_DEVICE_CUDA) {
        b.pinned = true;
        if (rt_host_alloc(ctx->rt, bytes, &b.p) != LOOM_STATUS_OK) { /* message names bytes */
            base_log(&ctx->log, LOOM_LOG_ERROR, "loom_host_alloc: %s", ctx->err.message);
            return NULL;
        }
    }
#endif
    if (!b.pinned && !(b.p = base_memalign(&ctx->al, HOST_ALIGN, bytes))) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_host_alloc: cannot allocate %zu bytes",
                 bytes);
        return NULL;
    }
    ctx->host_blocks[ctx->n_host_blocks++] = b;
    return b.p;
}

LOOM_API void loom_host_free(loom_ctx_t *ctx, void *p) {
    if (!ctx || !p) return;
    for (uint32_t i = ctx->n_host_blocks; i-- > 0;) { /* the newest first: freed soonest */
        if (ctx->host_blocks[i].p != p) continue;
        fe_host_block_t b = ctx->host_blocks[i];
        ctx->host_blocks[i] = ctx->host_blocks[--ctx->n_host_blocks];
        block_free(ctx, &b);
        return;
    }
    fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
             "loom_host_free: %p was not returned by loom_host_alloc on this context, or was "
             "freed already",
             p);
}

void fe_host_free_all(loom_ctx_t *ctx) {
    for (uint32_t i = 0; i < ctx->n_host_blocks; i++) block_free(ctx, &ctx->host_blocks[i]);
    base_free(&ctx->al, ctx->host_blocks);
    ctx->host_blocks = NULL;
    ctx->n_host_blocks = ctx->cap_host_blocks = 0;
}
