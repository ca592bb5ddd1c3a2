/* copy.c — host<->device copies through pinned staging buffers.
 *
 * DMA from pageable memory runs at a fraction of the pinned rate (about 6.5 vs 55 GB/s on the
 * H200), so copies go through RT_STAGE_SLOTS pinned buffers of RT_STAGE_CHUNK bytes, used round
 * robin. Each slot has an event recorded after the DMA that reads or writes it; the host touches
 * a slot only after that event, so the host memcpy of one chunk overlaps the DMA of the others.
 * rt_h2d returns once every byte is in staging (the caller may reuse its buffer at once);
 * rt_d2h returns once every byte is in the caller's buffer.
 *
 * A single host thread copies at about 7 GB/s, which bounds any staged copy. Memory from
 * rt_host_alloc is pinned already and skips staging (direct DMA, ~53 GB/s). Large downloads to
 * pageable memory use the driver's own path, measured faster than ours (7.8 vs 5.8 GB/s). */
#include <string.h>

#include "driver.h"

static loom_status_t stage_ready(rt_device_t *d) {
    rt_stage_t *s = &d->stage;
    if (s->host[RT_STAGE_SLOTS - 1]) return LOOM_STATUS_OK;
    for (int i = 0; i < RT_STAGE_SLOTS; i++) {
        CUresult r;
        if (!s->done[i] && (r = d->drv.EventCreate(&s->done[i], CU_EVENT_DISABLE_TIMING)))
            return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuEventCreate (staging)");
        if (!s->host[i] && (r = d->drv.MemHostAlloc(&s->host[i], RT_STAGE_CHUNK, 0))) {
            s->host[i] = NULL;
            return rt_cu_fail(d,
                              r == CUDA_ERROR_OUT_OF_MEMORY ? LOOM_STATUS_OUT_OF_MEMORY
                                                            : LOOM_STATUS_DEVICE_ERROR,
                              r, "cuMemHostAlloc of a pinned staging buffer");
        }
    }
    return LOOM_STATUS_OK;
}

/* Waits until no DMA uses slot i. */
static loom_status_t slot_wait(rt_device_t *d, uint32_t i) {
    rt_stage_t *s = &d->stage;
    if (!s->pending[i]) return LOOM_STATUS_OK;
    CUresult r = d->drv.EventSynchronize(s->done[i]);
    if (r) return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuEventSynchronize (staging)");
    s->pending[i] = false;
    return LOOM_STATUS_OK;
}

static loom_status_t slot_mark(rt_device_t *d, uint32_t i) {
    CUresult r = d->drv.EventRecord(d->stage.done[i], d->stream);
    if (r) return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuEventRecord (staging)");
    d->stage.pending[i] = true;
    return LOOM_STATUS_OK;
}

#define D2H_DIRECT_MIN ((size_t)8 << 20)

/* Index of the first pinned block whose base is > p. */
static uint32_t pinned_upper(const rt_stage_t *s, uintptr_t p) {
    uint32_t lo = 0, hi = s->n_pinned;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->pinned[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether [p, p + n) lies inside one block from rt_host_alloc. */
static bool is_pinned(const rt_stage_t *s, const void *p, size_t n) {
    uintptr_t a = (uintptr_t)p;
    uint32_t i = pinned_upper(s, a);
    return i > 0 && a - s->pinned[i - 1].base <= s->pinned[i - 1].size &&
           n <= s->pinned[i - 1].size - (a - s->pinned[i - 1].base);
}

static loom_status_t copy_begin(rt_device_t *d, const char *what) {
    if (d->compile_only) return rt_not_available(d, what);
    return rt_bind(d);
}

static loom_status_t staged_h2d(rt_device_t *d, uint64_t dst, const void *src, size_t bytes) {
    rt_stage_t *s = &d->stage;
    loom_status_t st;
    for (size_t off = 0; off < bytes; off += RT_STAGE_CHUNK) {
        size_t len = bytes - off < RT_STAGE_CHUNK ? bytes - off : RT_STAGE_CHUNK;
        uint32_t i = s->next;
        s->next = (i + 1) % RT_STAGE_SLOTS;
        if ((st = slot_wait(d, i))) return st;
        memcpy(s->host[i], (const char *)src + off, len);
        CUresult r = d->drv.MemcpyHtoDAsync((CUdeviceptr)(dst + off), s->host[i], len, d->stream);
        if (r) return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuMemcpyHtoDAsync");
        if ((st = slot_mark(d, i))) return st;
    }
    return LOOM_STATUS_OK;
}

/* A download straight into dst (pinned, or pageable through the driver's staging). */
static loom_status_t direct_d2h(rt_device_t *d, void *dst, uint64_t src, size_t bytes) {
    CUresult r = d->drv.MemcpyDtoHAsync(dst, (CUdeviceptr)src, bytes, d->stream);
    if (r) return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuMemcpyDtoHAsync");
    r = d->drv.StreamSynchronize(d->stream);
    return r ? rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuStreamSynchronize (d2h)")
             : LOOM_STATUS_OK;
}

loom_status_t rt_h2d(rt_device_t *d, uint64_t dst, const void *src, size_t bytes) {
    rt_stage_t *s = &d->stage;
    if (bytes == 0) return LOOM_STATUS_OK;
    loom_status_t st = copy_begin(d, "rt_h2d");
    if (st) return st;
    if (is_pinned(s, src, bytes)) {
        CUresult r = d->drv.MemcpyHtoDAsync((CUdeviceptr)dst, src, bytes, d->stream);
        if (r) return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuMemcpyHtoDAsync (pinned)");
    } else if ((st = stage_ready(d)) == LOOM_STATUS_OK) {
        st = staged_h2d(d, dst, src, bytes);
    }
    if (st) return st;
    d->stats.h2d_copies++;
    d->stats.h2d_bytes += bytes;
    return LOOM_STATUS_OK;
}

static loom_status_t staged_d2h(rt_device_t *d, void *dst, uint64_t src, size_t bytes) {
    rt_stage_t *s = &d->stage;
    loom_status_t st;
    size_t n = (bytes + RT_STAGE_CHUNK - 1) / RT_STAGE_CHUNK, issued = 0;
    uint32_t first = s->next;
    s->next = (uint32_t)((first + n) % RT_STAGE_SLOTS);
    /* Keep up to RT_STAGE_SLOTS chunks in flight; copy chunk c out while later ones transfer.
     * A slot's earlier DMAs are on the same stream, so queueing into it needs no wait. */
    for (size_t c = 0; c < n; c++) {
        for (; issued < n && issued < c + RT_STAGE_SLOTS; issued++) {
            uint32_t i = (uint32_t)((first + issued) % RT_STAGE_SLOTS);
            size_t off = issued * RT_STAGE_CHUNK;
            size_t len = bytes - off < RT_STAGE_CHUNK ? bytes - off : RT_STAGE_CHUNK;
            CUresult r =
                d->drv.MemcpyDtoHAsync(s->host[i], (CUdeviceptr)(src + off), len, d->stream);
            if (r) return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuMemcpyDtoHAsync");
            if ((st = slot_mark(d, i))) return st;
        }
        uint32_t i = (uint32_t)((first + c) % RT_STAGE_SLOTS);
        size_t off = c * RT_STAGE_CHUNK;
        size_t len = bytes - off < RT_STAGE_CHUNK ? bytes - off : RT_STAGE_CHUNK;
        if ((st = slot_wait(d, i))) return st;
        memcpy((char *)dst + off, s->host[i], len);
    }
    return LOOM_STATUS_OK;
}

loom_status_t rt_d2h(rt_device_t *d, void *dst, uint64_t src, size_t bytes) {
    rt_stage_t *s = &d->stage;
    if (bytes == 0) return LOOM_STATUS_OK;
    loom_status_t st = copy_begin(d, "rt_d2h");
    if (st) return st;
    if (is_pinned(s, dst, bytes) || bytes >= D2H_DIRECT_MIN)
        st = direct_d2h(d, dst, src, bytes);
    else if ((st = stage_ready(d)) == LOOM_STATUS_OK)
        st = staged_d2h(d, dst, src, bytes);
    if (st) return st;
    d->stats.d2h_copies++;
    d->stats.d2h_bytes += bytes;
    return LOOM_STATUS_OK;
}

loom_status_t rt_d2d(rt_device_t *d, uint64_t dst, uint64_t src, size_t bytes) {
    if (d->compile_only) return rt_not_available(d, "rt_d2d");
    if (bytes == 0) return LOOM_STATUS_OK;
    loom_status_t st = rt_bind(d);
    if (st) return st;
    CUresult r = d->drv.MemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src, bytes, d->stream);
    return r ? rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuMemcpyDtoDAsync") : LOOM_STATUS_OK;
}

loom_status_t rt_memset(rt_device_t *d, uint64_t dst, uint8_t value, size_t bytes) {
    if (d->compile_only) return rt_not_available(d, "rt_memset");
    if (bytes == 0) return LOOM_STATUS_OK;
    loom_status_t st = rt_bind(d);
    if (st) return st;
    CUresult r = d->drv.MemsetD8Async((CUdeviceptr)dst, value, bytes, d->stream);
    return r ? rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuMemsetD8Async") : LOOM_STATUS_OK;
}

loom_status_t rt_host_alloc(rt_device_t *d, size_t bytes, void **out) {
    rt_stage_t *s = &d->stage;
    *out = NULL;
    if (d->compile_only) return rt_not_available(d, "rt_host_alloc");
    loom_status_t st = rt_bind(d);
    if (st) return st;
    if (s->n_pinned == s->cap_pinned) {
        uint32_t cap = s->cap_pinned ? s->cap_pinned * 2 : 16;
        struct rt_pinned *p = base_realloc(d->al, s->pinned, cap, sizeof *p);
        if (!p)
            return base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY,
                                  "out of host memory for the pinned-block table");
        s->pinned = p;
        s->cap_pinned = cap;
    }
    void *p = NULL;
    CUresult r = d->drv.MemHostAlloc(&p, bytes ? bytes : 1, 0);
    if (r) {
        base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY,
                       "cannot allocate %zu bytes of pinned host memory (cuMemHostAlloc: %d)",
                       bytes, (int)r);
        return d->err->status;
    }
    uint32_t i = pinned_upper(s, (uintptr_t)p);
    memmove(&s->pinned[i + 1], &s->pinned[i], (s->n_pinned - i) * sizeof *s->pinned);
    s->pinned[i] = (struct rt_pinned){(uintptr_t)p, bytes ? bytes : 1};
    s->n_pinned++;
    *out = p;
    return LOOM_STATUS_OK;
}

void rt_host_free(rt_device_t *d, void *p) {
    rt_stage_t *s = &d->stage;
    if (!p || d->compile_only) return;
    uint32_t i = pinned_upper(s, (uintptr_t)p);
    if (i == 0 || s->pinned[i - 1].base != (uintptr_t)p) {
        base_error_set(d->err, LOOM_STATUS_INVALID_ARGUMENT,
                       "rt_host_free of %p, which rt_host_alloc did not return", p);
        return;
    }
    i--;
    rt_bind(d);
    d->drv.StreamSynchronize(d->stream); /* a DMA may still read or write it */
    d->drv.MemFreeHost(p);
    memmove(&s->pinned[i], &s->pinned[i + 1], (s->n_pinned - i - 1) * sizeof *s->pinned);
    s->n_pinned--;
}

void rt_stage_fini(rt_device_t *d) {
    rt_stage_t *s = &d->stage;
    for (uint32_t i = 0; i < s->n_pinned; i++) d->drv.MemFreeHost((void *)s->pinned[i].base);
    base_free(d->al, s->pinned);
    for (uint32_t i = 0; i < RT_STAGE_SLOTS; i++) {
        if (s->pending[i]) d->drv.EventSynchronize(s->done[i]);
        if (s->done[i]) d->drv.EventDestroy(s->done[i]);
        if (s->host[i]) d->drv.MemFreeHost(s->host[i]);
    }
    memset(s, 0, sizeof *s);
}
