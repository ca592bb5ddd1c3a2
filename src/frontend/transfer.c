/* transfer.c — the host/device boundary of an eval on the CUDA device: where each input's
 * bytes are on the device, uploading host data where needed, and the transfer statistics.
 *
 * Rules (docs/transfers.md states them for users):
 *   - each host buffer is uploaded at most once per eval, however many inputs read it;
 *   - all small host inputs of an eval share one device block (pieces 256-byte aligned) filled
 *     by one staged copy: one DMA per staging buffer; large inputs get their own allocation and
 *     a chunked copy;
 *   - an upload is kept on the buffer for later evals: copied host arrays are immutable, and
 *     borrowed ones are trusted unchanged until loom_array_host_changed (debug builds check this
 *     with a hash of the contents);
 *   - results live on the device; reading one back (loom_read) leaves it there, so using it
 *     again uploads nothing. */
#include <string.h>

#include "fe.h"

#if LOOM_HAVE_CUDA
#define PACK_MAX   ((size_t)1 << 20) /* inputs up to this size share the eval's block */
#define PACK_ALIGN ((size_t)256)

/* A device block shared by the packed uploads of one eval; freed with its last piece. */
struct fe_devblock {
    int32_t refcount;
    uint64_t dev;
};

fe_devblock_t *fe_devblock_new(loom_ctx_t *ctx, uint64_t dev, int32_t refs) {
    fe_devblock_t *blk = base_calloc(&ctx->al, 1, sizeof *blk);
    if (!blk) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory");
        return NULL;
    }
    blk->refcount = refs;
    blk->dev = dev;
    return blk;
}

void fe_devblock_retain(fe_devblock_t *blk) { blk->refcount++; }

void fe_devblock_release(loom_ctx_t *ctx, fe_devblock_t *blk) {
    if (!blk || --blk->refcount > 0) return;
    if (ctx->rt) rt_free(ctx->rt, blk->dev);
    base_free(&ctx->al, blk);
}

#ifndef NDEBUG
/* A hash of the contents: all of them up to 1 MiB, else 256 evenly spaced 4 KiB samples (so
 * that debug builds stay usable on large arrays; a change between samples goes unseen). */
static uint64_t content_hash(const fe_buffer_t *b) {
    const size_t whole = (size_t)1 << 20, piece = 4096, n = 256;
    if (b->bytes <= whole) return b->bytes ? base_hash64(b->host, b->bytes, 0x686f7374) : 0;
    uint64_t h = b->bytes;
    for (size_t i = 0; i < n; i++)
        h = base_hash64((const char *)b->host + (b->bytes - piece) / (n - 1) * i, piece, h);
    return h;
}
#endif

/* Whether a borrowed buffer's upload is still good; debug builds check the contents. */
static bool upload_valid(loom_ctx_t *ctx, const fe_buffer_t *b) {
#ifndef NDEBUG
    if (b->borrowed && content_hash(b) != b->host_hash) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "eval: borrowed host memory at %p (%zu bytes) changed after it was uploaded, "
                 "without loom_array_host_changed",
                 b->host, b->bytes);
        return false;
    }
#else
    (void)ctx;
    (void)b;
#endif
    return true;
}

static void remember(fe_buffer_t *b) {
#ifndef NDEBUG
    if (b->borrowed) b->host_hash = content_hash(b);
#else
    (void)b;
#endif
}

/* Uploads the distinct host buffers of ups[0..n): small ones packed into one block. */
static bool upload(loom_ctx_t *ctx, base_arena_t *ar, fe_buffer_t **ups, uint32_t n) {
    size_t *off = base_arena_alloc(ar, n, sizeof *off);
    const void **src = base_arena_alloc(ar, n, sizeof *src);
    size_t *len = base_arena_alloc(ar, n, sizeof *len);
    uint64_t *dst = base_arena_alloc(ar, n, sizeof *dst);
    if (!off || !src || !len || !dst) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory placing %u inputs", n);
        return false;
    }
    uint32_t n_small = 0, n_big = 0;
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) /* small ones first, in order, at aligned offsets */
        if (ups[i]->bytes <= PACK_MAX) {
            off[n_small] = total;
            src[n_small] = ups[i]->host;
            len[n_small++] = ups[i]->bytes;
            total += (ups[i]->bytes + PACK_ALIGN - 1) / PACK_ALIGN * PACK_ALIGN;
        }
    if (n_small) {
        fe_devblock_t *blk = base_calloc(&ctx->al, 1, sizeof *blk);
        if (!blk) {
            fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory placing inputs");
            return false;
        }
        if (rt_alloc(ctx->rt, total ? total : 1, &blk->dev) != LOOM_STATUS_OK ||
            rt_h2d_packed(ctx->rt, blk->dev, n_small, off, src, len) != LOOM_STATUS_OK) {
            if (blk->dev) rt_free(ctx->rt, blk->dev);
            base_free(&ctx->al, blk);
            return false;
        }
        for (uint32_t i = 0, k = 0; i < n; i++)
            if (ups[i]->bytes <= PACK_MAX) {
                ups[i]->dev = blk->dev + off[k++];
                ups[i]->block = blk;
                blk->refcount++;
                remember(ups[i]);
            }
    }
    for (uint32_t i = 0; i < n; i++) /* each large one: an allocation of its own */
        if (ups[i]->bytes > PACK_MAX) {
            if (rt_alloc(ctx->rt, ups[i]->bytes, &dst[n_big]) != LOOM_STATUS_OK) return false;
            ups[i]->dev = dst[n_big];
            remember(ups[i]);
            src[n_big] = ups[i]->host;
            len[n_big++] = ups[i]->bytes;
        }
    return n_big == 0 || rt_h2d_batch(ctx->rt, n_big, dst, src, len) == LOOM_STATUS_OK;
}

bool fe_place_inputs(loom_ctx_t *ctx, const ir_graph_t *g, uint64_t *addr, bool *temp) {
    fe_buffer_t **ups = base_arena_alloc(g->arena, g->n_inputs + 1, sizeof *ups);
    if (!ups) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory placing inputs");
        return false;
    }
    uint32_t n_up = 0;
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        fe_buffer_t *b = ((loom_array_t *)g->inputs[i].owner)->buf;
        temp[i] = false; /* every upload is kept on its buffer */
        if (b->on_device || ctx->device == LOOM_DEVICE_NVRTC) continue;
        if (b->dev) {
            if (!upload_valid(ctx, b)) return false;
            continue;
        }
        if (b->queued) continue; /* the same buffer under two inputs: one upload */
        b->queued = true;
        ups[n_up++] = b;
    }
    for (uint32_t j = 0; j < n_up; j++) ups[j]->queued = false;
    if (n_up && !upload(ctx, g->arena, ups, n_up)) return false;
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        fe_buffer_t *b = ((loom_array_t *)g->inputs[i].owner)->buf;
        addr[i] = ctx->device == LOOM_DEVICE_NVRTC && !b->on_device ? 0 : b->dev;
    }
    return true;
}

/* Drops a host buffer's upload, so that the next eval uploads it again. */
static void forget_upload(loom_ctx_t *ctx, fe_buffer_t *b) {
    if (b->block)
        fe_devblock_release(ctx, b->block);
    else if (b->dev && ctx->rt)
        rt_free(ctx->rt, b->dev);
    b->block = NULL;
    b->dev = 0;
}

#endif

LOOM_API loom_status_t loom_array_host_changed(loom_ctx_t *ctx, loom_array_t *a) {
    static const char fn[] = "loom_array_host_changed";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (ctx->err.status) return ctx->err.status;
    if (!fe_check_arg(ctx, fn, a)) {
        if (!ctx->err.status) fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: array is nil", fn);
        return ctx->err.status;
    }
    fe_buffer_t *b = a->flags & FE_REALISED ? a->buf : NULL;
    if (!b || !b->borrowed || b->on_device)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: the array is not borrowed host memory (only arrays from "
                        "loom_borrow_host, loom_wrap_host or a host DLPack import can change; "
                        "loom_from_host copies are immutable)",
                        fn);
#if LOOM_HAVE_CUDA
    forget_upload(ctx, b);
#endif
    return LOOM_STATUS_OK;
}

/* ---- statistics ---- */

void fe_transfer_begin(loom_ctx_t *ctx, fe_transfer_mark_t *m) {
    memset(m, 0, sizeof *m);
#if LOOM_HAVE_CUDA
    if (!ctx->rt || ctx->device != LOOM_DEVICE_CUDA) return;
    rt_stats_t r;
    rt_device_stats(ctx->rt, &r);
    *m = (fe_transfer_mark_t){r.h2d_copies, r.h2d_bytes, r.d2h_copies, r.d2h_bytes};
#else
    (void)ctx;
#endif
}

void fe_transfer_end(loom_ctx_t *ctx, const fe_transfer_mark_t *m, const char *what) {
    fe_transfer_mark_t now;
    fe_transfer_begin(ctx, &now);
    loom_stats_t *s = &ctx->stats;
    s->last_eval_h2d_copies = now.h2d_copies - m->h2d_copies;
    s->last_eval_h2d_bytes = now.h2d_bytes - m->h2d_bytes;
    s->last_eval_d2h_copies = now.d2h_copies - m->d2h_copies;
    s->last_eval_d2h_bytes = now.d2h_bytes - m->d2h_bytes;
    base_log(&ctx->log, LOOM_LOG_INFO,
             "%s: h2d %llu copies %llu bytes, d2h %llu copies %llu bytes (total h2d %llu / %llu, "
             "d2h %llu / %llu)",
             what, (unsigned long long)s->last_eval_h2d_copies,
             (unsigned long long)s->last_eval_h2d_bytes,
             (unsigned long long)s->last_eval_d2h_copies,
             (unsigned long long)s->last_eval_d2h_bytes, (unsigned long long)now.h2d_copies,
             (unsigned long long)now.h2d_bytes, (unsigned long long)now.d2h_copies,
             (unsigned long long)now.d2h_bytes);
}
