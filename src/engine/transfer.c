/* transfer.c — the host/device boundary of an eval on the CUDA device: where each input's
 * bytes are on the device, uploading host data where needed (runtime/copy.c moves the bytes).
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

#include "internal.h"

#define PACK_MAX   ((size_t)1 << 20) /* inputs up to this size share the eval's block */
#define PACK_ALIGN ((size_t)256)

/* A device block shared by the packed uploads of one eval; freed with its last piece. */
struct en_devblock {
    int32_t refcount;
    uint64_t dev;
};

en_devblock_t *en_devblock_new(en_engine_t *e, uint64_t dev, int32_t refs) {
    en_devblock_t *blk = base_calloc(e->al, 1, sizeof *blk);
    if (!blk) {
        en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory");
        return NULL;
    }
    blk->refcount = refs;
    blk->dev = dev;
    return blk;
}

void en_devblock_retain(en_devblock_t *blk) { blk->refcount++; }

static void devblock_release(en_engine_t *e, en_devblock_t *blk) {
    if (!blk || --blk->refcount > 0) return;
    rt_free(e->rt, blk->dev);
    base_free(e->al, blk);
}

void en_mem_drop(en_engine_t *e, en_mem_t *m) {
    if (!e || (m->borrowed && m->on_device)) return; /* the caller's device memory */
    if (m->block)
        devblock_release(e, m->block); /* a piece of a packed upload or of a batch */
    else if (m->dev)
        rt_free(e->rt, m->dev); /* a result, or a host buffer's own upload */
    m->block = NULL;
    m->dev = 0;
}

#ifndef NDEBUG
/* A hash of the contents: all of them up to 1 MiB, else 256 evenly spaced 4 KiB samples (so
 * that debug builds stay usable on large arrays; a change between samples goes unseen). */
static uint64_t content_hash(const en_mem_t *b) {
    const size_t whole = (size_t)1 << 20, piece = 4096, n = 256;
    if (b->bytes <= whole) return b->bytes ? base_hash64(b->host, b->bytes, 0x686f7374) : 0;
    uint64_t h = b->bytes;
    for (size_t i = 0; i < n; i++)
        h = base_hash64((const char *)b->host + (b->bytes - piece) / (n - 1) * i, piece, h);
    return h;
}
#endif

/* Whether a borrowed buffer's upload is still good; debug builds check the contents. */
static bool upload_valid(en_engine_t *e, const en_mem_t *b) {
#ifndef NDEBUG
    if (b->borrowed && content_hash(b) != b->host_hash) {
        en_error(e, LOOM_STATUS_INVALID_ARGUMENT,
                 "eval: borrowed host memory at %p (%zu bytes) changed after it was uploaded, "
                 "without loom_array_host_changed",
                 b->host, b->bytes);
        return false;
    }
#else
    (void)e;
    (void)b;
#endif
    return true;
}

static void remember(en_mem_t *b) {
#ifndef NDEBUG
    if (b->borrowed) b->host_hash = content_hash(b);
#else
    (void)b;
#endif
}

/* Uploads the distinct host buffers of ups[0..n): small ones packed into one block. */
static bool upload(en_engine_t *e, base_arena_t *ar, en_mem_t **ups, uint32_t n) {
    size_t *off = base_arena_alloc(ar, n, sizeof *off);
    const void **src = base_arena_alloc(ar, n, sizeof *src);
    size_t *len = base_arena_alloc(ar, n, sizeof *len);
    uint64_t *dst = base_arena_alloc(ar, n, sizeof *dst);
    if (!off || !src || !len || !dst) {
        en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory placing %u inputs", n);
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
        en_devblock_t *blk = base_calloc(e->al, 1, sizeof *blk);
        if (!blk) {
            en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory placing inputs");
            return false;
        }
        if (rt_alloc(e->rt, total ? total : 1, &blk->dev) != LOOM_STATUS_OK ||
            rt_h2d_packed(e->rt, blk->dev, n_small, off, src, len) != LOOM_STATUS_OK) {
            if (blk->dev) rt_free(e->rt, blk->dev);
            base_free(e->al, blk);
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
            if (rt_alloc(e->rt, ups[i]->bytes, &dst[n_big]) != LOOM_STATUS_OK) return false;
            ups[i]->dev = dst[n_big];
            remember(ups[i]);
            src[n_big] = ups[i]->host;
            len[n_big++] = ups[i]->bytes;
        }
    return n_big == 0 || rt_h2d_batch(e->rt, n_big, dst, src, len) == LOOM_STATUS_OK;
}

bool en_place_inputs(en_engine_t *e, const ir_graph_t *g, uint64_t *addr) {
    en_mem_t **ups = base_arena_alloc(g->arena, g->n_inputs + 1, sizeof *ups);
    if (!ups) {
        en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory placing inputs");
        return false;
    }
    uint32_t n_up = 0;
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        en_mem_t *b = g->inputs[i].owner; /* every upload is kept on its buffer */
        if (b->on_device || e->compile_only) continue;
        if (b->dev) {
            if (!upload_valid(e, b)) return false;
            continue;
        }
        if (b->queued) continue; /* the same buffer under two inputs: one upload */
        b->queued = true;
        ups[n_up++] = b;
    }
    for (uint32_t j = 0; j < n_up; j++) ups[j]->queued = false;
    if (n_up && !upload(e, g->arena, ups, n_up)) return false;
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        const en_mem_t *b = g->inputs[i].owner;
        addr[i] = e->compile_only && !b->on_device ? 0 : b->dev;
    }
    return true;
}
