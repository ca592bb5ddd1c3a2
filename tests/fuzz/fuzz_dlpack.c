/* fuzz_dlpack — libFuzzer target: loom_from_dlpack on a DLManagedTensor[Versioned] built from
 * the bytes (version, flags, device, dtype code/bits/lanes, ndim, shape, strides, byte offset) over
 * a real 4 KiB host buffer. An accepted import is read back (through an add, so strided) when its
 * elements lie inside the buffer; the deleter must run exactly once on success and never on
 * failure, and CUDA memory must be refused on the CPU device: anything else aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loom.h"

#include "../support/dlpack.h"


enum { BUF_BYTES = 4096, MAX_NDIM = 10 };

static loom_ctx_t *ctx;
static _Alignas(64) unsigned char buf[BUF_BYTES];
static int deleted;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void del_legacy(DLManagedTensor *m) { (void)m, deleted++; }
static void del_versioned(DLManagedTensorVersioned *m) { (void)m, deleted++; }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    loom_options_t o = {.device = LOOM_DEVICE_CPU, .disable_disk_cache = 1};
    if (loom_ctx_create(&o, &ctx) != LOOM_STATUS_OK) abort();
    for (size_t i = 0; i < BUF_BYTES; i++) buf[i] = (unsigned char)(i * 131u + 7u);
    return 0;
}

/* Byte reader that yields zeros past the end. */
typedef struct {
    const uint8_t *p;
    size_t n, at;
} reader;
static uint8_t byte(reader *r) { return r->at < r->n ? r->p[r->at++] : 0; }

/* A small extent or stride, now and then an extreme one. */
static int64_t number(reader *r, int is_stride) {
    uint8_t b = byte(r);
    switch (b >> 5) {
        case 7: {
            uint64_t v = 0;
            for (int i = 0; i < 8; i++) v = v << 8 | byte(r);
            return (int64_t)v;
        }
        case 6:
            return is_stride ? -(int64_t)(b & 31) : (int64_t)(b & 31) - 2; /* negatives */
        default:
            return b & 15;
    }
}

/* Whether every element lies inside buf (element size es; strides in elements). */
static int inside(int32_t ndim, const int64_t *shape, const int64_t *strides, uint64_t off,
                  size_t es) {
    if (off > BUF_BYTES || es == 0) return 0;
    int64_t lo = 0, hi = 0, n = 1;
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] < 0 || shape[i] > 4096) return 0;
        n *= shape[i];
        if (n > 4096) return 0;
    }
    if (n == 0) return 1;
    int64_t st = 1;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        int64_t s = strides ? strides[i] : st;
        if (s < -4096 || s > 4096) return 0;
        int64_t span = s * (shape[i] - 1);
        if (span < 0)
            lo += span;
        else
            hi += span;
        st *= shape[i];
    }
    return (int64_t)off + lo * (int64_t)es >= 0 &&
           (int64_t)off + (hi + 1) * (int64_t)es <= BUF_BYTES;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    uint8_t mode = byte(&r);
    int versioned = mode & 1;
    int32_t ndim = (int32_t)(byte(&r) % (MAX_NDIM + 2)) - 1; /* -1 .. MAX_NDIM */
    static const int32_t devs[4] = {1, 3, 2, 13};            /* CPU, CUDAHost, CUDA, other */
    DLTensor t = {0};
    t.device.device_type = devs[mode >> 1 & 3];
    t.device.device_id = (mode & 8) ? byte(&r) : 0;
    t.dtype.code = byte(&r) % 8;
    static const uint8_t bits[8] = {8, 16, 32, 64, 1, 0, 128, 24};
    t.dtype.bits = bits[byte(&r) % 8];
    t.dtype.lanes = (mode & 16) ? byte(&r) : 1;
    int64_t shape[MAX_NDIM], strides[MAX_NDIM];
    for (int32_t i = 0; i < MAX_NDIM; i++) shape[i] = number(&r, 0);
    for (int32_t i = 0; i < MAX_NDIM; i++) strides[i] = number(&r, 1);
    t.ndim = ndim;
    t.shape = shape;
    t.strides = (mode & 32) ? strides : NULL;
    t.byte_offset = (mode & 64) ? (uint64_t)number(&r, 0) * 8 : 0;
    t.data = (mode & 128) && ndim == 0 ? NULL : buf;

    DLManagedTensor legacy = {t, NULL, del_legacy};
    DLManagedTensorVersioned ver = {{1, (uint32_t)(byte(&r) % 3)}, NULL, del_versioned, byte(&r) & 1, t};
    if (byte(&r) & 1) ver.version.major = byte(&r);
    deleted = 0;
    loom_scope_begin(ctx);
    loom_array_t *a = loom_from_dlpack(ctx, versioned ? (void *)&ver : (void *)&legacy, versioned);
    int imported = !loom_array_is_nil(a);
    if (!imported) {
        if (deleted != 0) abort(); /* the caller still owns a refused tensor */
    } else {
        size_t es = loom_dtype_size(loom_array_dtype(a));
        if (t.device.device_type == 2) abort(); /* CUDA memory on a CPU ctx */
        if (inside(ndim, shape, t.strides, t.byte_offset, es)) {
            size_t bytes = loom_array_nbytes(a);
            void *out = malloc(bytes ? bytes : 1);
            if (out) loom_read(ctx, loom_add(ctx, a, a), out, bytes); /* strided reads */
            free(out);
        }
    }
    loom_scope_end(ctx);
    if (imported && deleted != 1) abort(); /* the deleter runs once */
    loom_ctx_clear_error(ctx);
    return 0;
}
