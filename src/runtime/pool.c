/* pool.c — the stream-ordered caching device allocator.
 *
 * Size classes: a request of n bytes (0 counts as 1) is rounded up to a multiple of 256 B when
 * n <= 1 MiB, else to a multiple of 2 MiB (the driver's page size, so large classes waste at
 * most one page). A freed block goes onto its class's free list and serves the next request of
 * the same class without calling the driver. All work runs on the device's one stream, so stream
 * order makes that reuse safe: whatever used the block before was queued before whatever uses it
 * next. Invariants: in_use = sum of live blocks' classes; held = in_use + cached blocks; every
 * record with ptr != 0 is either live (in the `live` map) or on exactly one free list.
 *
 * With $LOOM_POOL=0 (for compute-sanitizer's memcheck, which sees driver allocations only) the
 * pool caches nothing: each block has the exact size asked for (0 counts as 1) and goes back to
 * the driver when freed, after the stream has drained. */
#include <string.h>

#include "driver.h"

#define SMALL_MAX  ((size_t)1 << 20)
#define SMALL_STEP ((size_t)256)
#define LARGE_STEP ((size_t)2 << 20)

/* The class of a request; 0 if rounding overflows. */
static size_t size_class(size_t n) {
    size_t step = n <= SMALL_MAX ? SMALL_STEP : LARGE_STEP;
    if (n == 0) n = 1;
    if (n > SIZE_MAX - (step - 1)) return 0;
    return (n + step - 1) / step * step;
}

static uint32_t hash_ptr(uint64_t p) {
    return (uint32_t)(((p >> 8) * 0x9E3779B97F4A7C15ull) >> 32);
}
static uint32_t hash_size(size_t s) {
    return (uint32_t)(((uint64_t)s * 0xBF58476D1CE4E5B9ull) >> 32);
}

/* ---- live map: ptr -> block index; linear probing with backward-shift deletion ---- */

static bool live_grow(rt_device_t *d) {
    rt_pool_t *p = &d->pool;
    uint32_t cap = p->live_cap ? p->live_cap * 2 : 256;
    int32_t *slots = base_malloc(d->al, cap, sizeof *slots);
    if (!slots) return false;
    for (uint32_t i = 0; i < cap; i++) slots[i] = -1;
    for (uint32_t i = 0; i < p->live_cap; i++) {
        int32_t b = p->live[i];
        if (b < 0) continue;
        uint32_t j = hash_ptr(p->blocks[b].ptr) & (cap - 1);
        while (slots[j] >= 0) j = (j + 1) & (cap - 1);
        slots[j] = b;
    }
    base_free(d->al, p->live);
    p->live = slots;
    p->live_cap = cap;
    return true;
}

/* Room for one more live entry (so that inserting cannot fail). */
static bool live_reserve(rt_device_t *d) {
    rt_pool_t *p = &d->pool;
    return (p->n_live + 1) * 2 <= p->live_cap || live_grow(d);
}

static void live_insert(rt_pool_t *p, int32_t b) {
    uint32_t m = p->live_cap - 1, j = hash_ptr(p->blocks[b].ptr) & m;
    while (p->live[j] >= 0) j = (j + 1) & m;
    p->live[j] = b;
    p->n_live++;
}

/* Removes ptr from the live map; its block index, or -1 if it was not live. */
static int32_t live_remove(rt_pool_t *p, uint64_t ptr) {
    if (!p->live_cap) return -1;
    uint32_t m = p->live_cap - 1, j = hash_ptr(ptr) & m;
    for (; p->live[j] >= 0; j = (j + 1) & m) {
        if (p->blocks[p->live[j]].ptr != ptr) continue;
        int32_t b = p->live[j];
        /* Backward shift: move later entries of the cluster into the hole when their home
         * slot does not lie cyclically in (hole, k]. */
        uint32_t hole = j;
        for (uint32_t k = (j + 1) & m; p->live[k] >= 0; k = (k + 1) & m) {
            uint32_t home = hash_ptr(p->blocks[p->live[k]].ptr) & m;
            bool stays = hole < k ? (home > hole && home <= k) : (home > hole || home <= k);
            if (stays) continue;
            p->live[hole] = p->live[k];
            hole = k;
        }
        p->live[hole] = -1;
        p->n_live--;
        return b;
    }
    return -1;
}

/* ---- classes: size -> free list head; entries are never removed ---- */

static struct rt_class *class_find(rt_pool_t *p, size_t size) {
    if (!p->class_cap) return NULL;
    uint32_t m = p->class_cap - 1;
    for (uint32_t j = hash_size(size) & m; p->classes[j].size; j = (j + 1) & m)
        if (p->classes[j].size == size) return &p->classes[j];
    return NULL;
}

static struct rt_class *class_get(rt_device_t *d, size_t size) {
    rt_pool_t *p = &d->pool;
    struct rt_class *c = class_find(p, size);
    if (c) return c;
    if ((p->n_classes + 1) * 2 > p->class_cap) {
        uint32_t cap = p->class_cap ? p->class_cap * 2 : 64;
        struct rt_class *cl = base_calloc(d->al, cap, sizeof *cl);
        if (!cl) return NULL;
        for (uint32_t i = 0; i < p->class_cap; i++) {
            if (!p->classes[i].size) continue;
            uint32_t j = hash_size(p->classes[i].size) & (cap - 1);
            while (cl[j].size) j = (j + 1) & (cap - 1);
            cl[j] = p->classes[i];
        }
        base_free(d->al, p->classes);
        p->classes = cl;
        p->class_cap = cap;
    }
    uint32_t m = p->class_cap - 1, j = hash_size(size) & m;
    while (p->classes[j].size) j = (j + 1) & m;
    p->classes[j] = (struct rt_class){size, -1};
    p->n_classes++;
    return &p->classes[j];
}

/* A free block record (from spare, or appended); -1 if out of host memory. */
static int32_t record_new(rt_device_t *d) {
    rt_pool_t *p = &d->pool;
    if (p->spare >= 0) {
        int32_t b = p->spare;
        p->spare = p->blocks[b].next;
        return b;
    }
    if (p->n_blocks == p->cap_blocks) {
        int32_t cap = p->cap_blocks ? p->cap_blocks * 2 : 64;
        rt_block_t *bl = base_realloc(d->al, p->blocks, (size_t)cap, sizeof *bl);
        if (!bl) return -1;
        p->blocks = bl;
        p->cap_blocks = cap;
    }
    return p->n_blocks++;
}

static void note_peak(rt_pool_t *p) {
    if (p->in_use > p->peak) p->peak = p->in_use;
}

/* Gives every cached block back to the driver. The stream is synchronised first so that no
 * queued work still touches them. */
static void release_cached(rt_device_t *d) {
    rt_pool_t *p = &d->pool;
    if (p->held == p->in_use) return;
    d->drv.StreamSynchronize(d->stream);
    for (uint32_t i = 0; i < p->class_cap; i++) {
        struct rt_class *c = &p->classes[i];
        if (!c->size) continue;
        while (c->head >= 0) {
            rt_block_t *b = &p->blocks[c->head];
            int32_t next = b->next;
            d->drv.MemFree((CUdeviceptr)b->ptr);
            p->held -= b->size;
            b->ptr = 0;
            b->next = p->spare;
            p->spare = c->head;
            c->head = next;
        }
    }
}

loom_status_t rt_alloc(rt_device_t *d, size_t bytes, uint64_t *out) {
    rt_pool_t *p = &d->pool;
    *out = 0;
    if (d->compile_only) return rt_not_available(d, "rt_alloc");
    size_t size = d->pool_off ? (bytes ? bytes : 1) : size_class(bytes);
    if (!size)
        return base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY,
                              "device allocation of %zu bytes is too large", bytes);
    struct rt_class *c = d->pool_off ? NULL : class_get(d, size); /* off: nothing is cached */
    if ((!c && !d->pool_off) || !live_reserve(d))
        return base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY,
                              "out of host memory for the device pool's tables");
    if (c && c->head >= 0) { /* hit: no driver call */
        int32_t b = c->head;
        c->head = p->blocks[b].next;
        live_insert(p, b);
        p->in_use += size;
        p->reuses++;
        note_peak(p);
        *out = p->blocks[b].ptr;
        return LOOM_STATUS_OK;
    }
    int32_t b = record_new(d);
    if (b < 0)
        return base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY,
                              "out of host memory for the device pool's tables");
    loom_status_t st = rt_bind(d);
    if (st) goto fail;
    CUdeviceptr ptr = 0;
    CUresult r = d->drv.MemAlloc(&ptr, size);
    if (r == CUDA_ERROR_OUT_OF_MEMORY && p->held > p->in_use) {
        release_cached(d); /* cached blocks may be what stands in the way: retry once */
        r = d->drv.MemAlloc(&ptr, size);
    }
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        size_t free_b = 0, total_b = 0;
        d->drv.MemGetInfo(&free_b, &total_b);
        st = base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY,
                            "out of device memory allocating %zu bytes (class %zu): %zu bytes "
                            "in use, %zu held by the pool; the device has %zu of %zu bytes free",
                            bytes, size, p->in_use, p->held, free_b, total_b);
        goto fail;
    }
    if (r) {
        st = rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuMemAlloc");
        goto fail;
    }
    p->blocks[b] = (rt_block_t){(uint64_t)ptr, size, -1};
    live_insert(p, b);
    p->held += size;
    p->in_use += size;
    p->driver_allocs++;
    note_peak(p);
    *out = (uint64_t)ptr;
    return LOOM_STATUS_OK;
fail:
    p->blocks[b] = (rt_block_t){0, 0, p->spare};
    p->spare = b;
    return st;
}

void rt_free(rt_device_t *d, uint64_t ptr) {
    rt_pool_t *p = &d->pool;
    if (!ptr || d->compile_only) return;
    int32_t b = live_remove(p, ptr);
    if (b < 0) {
        base_error_set(d->err, LOOM_STATUS_INVALID_ARGUMENT,
                       "rt_free of 0x%llx, which the pool did not allocate or already freed",
                       (unsigned long long)ptr);
        return;
    }
    p->in_use -= p->blocks[b].size;
    if (d->pool_off) {
        d->drv.StreamSynchronize(d->stream);
        d->drv.MemFree((CUdeviceptr)p->blocks[b].ptr);
        p->held -= p->blocks[b].size;
        p->blocks[b] = (rt_block_t){0, 0, p->spare};
        p->spare = b;
        return;
    }
    struct rt_class *c = class_find(p, p->blocks[b].size); /* made by rt_alloc */
    p->blocks[b].next = c->head;
    c->head = b;
}

uint64_t rt_pool_block_end(const rt_device_t *d, uint64_t addr) {
    const rt_pool_t *p = &d->pool;
    for (int32_t i = 0; i < p->n_blocks; i++) {
        const rt_block_t *b = &p->blocks[i];
        if (b->ptr && addr >= b->ptr && addr - b->ptr < b->size) return b->ptr + b->size;
    }
    return 0;
}

void rt_trim(rt_device_t *d) {
    if (d->compile_only) return;
    if (rt_bind(d) == LOOM_STATUS_OK) release_cached(d);
}

void rt_pool_fini(rt_device_t *d) {
    rt_pool_t *p = &d->pool;
    for (int32_t i = 0; i < p->n_blocks; i++)
        if (p->blocks[i].ptr) d->drv.MemFree((CUdeviceptr)p->blocks[i].ptr);
    base_free(d->al, p->blocks);
    base_free(d->al, p->live);
    base_free(d->al, p->classes);
    memset(p, 0, sizeof *p);
    p->spare = -1;
}
