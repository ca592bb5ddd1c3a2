/* dlpack.c — embedding: external host and device memory wrapped as realised arrays (borrowed,
 * strided, with a release callback on the buffer), raw pointers of realised arrays, and DLPack
 * import and export without a copy. The DLPack v1.0 ABI structs are restated here, laid out as
 * dlpack.h lays them out, so the public header needs neither dlpack.h nor CUDA types. */
#include <stddef.h>
#include <string.h>

#include "fe.h"

/* ---- DLPack v1.0 ABI (dlpack.h: DLDevice, DLDataType, DLTensor, DLManagedTensor[Versioned]) */

enum { DL_CPU = 1, DL_CUDA = 2, DL_CUDA_HOST = 3 };                         /* DLDeviceType */
enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_BFLOAT = 4, DL_COMPLEX = 5, DL_BOOL = 6 }; /* DLDataTypeCode */

typedef struct dl_device {
    int32_t device_type; /* an enum in dlpack.h: int-sized */
    int32_t device_id;
} dl_device_t;

typedef struct dl_data_type {
    uint8_t code, bits;
    uint16_t lanes;
} dl_data_type_t;

typedef struct dl_tensor {
    void *data;
    dl_device_t device;
    int32_t ndim;
    dl_data_type_t dtype;
    int64_t *shape;
    int64_t *strides; /* elements; NULL: C-contiguous */
    uint64_t byte_offset;
} dl_tensor_t;

typedef struct dl_managed {
    dl_tensor_t dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct dl_managed *self);
} dl_managed_t;

typedef struct dl_managed_versioned {
    struct {
        uint32_t major, minor;
    } version;
    void *manager_ctx;
    void (*deleter)(struct dl_managed_versioned *self);
    uint64_t flags; /* READ_ONLY (1) is fine: loom never writes its inputs */
    dl_tensor_t dl_tensor;
} dl_managed_versioned_t;

#if UINTPTR_MAX == UINT64_MAX /* dlpack.h's layout on LP64 */
_Static_assert(sizeof(dl_tensor_t) == 48, "DLTensor layout");
_Static_assert(offsetof(dl_managed_t, deleter) == 56, "DLManagedTensor layout");
_Static_assert(offsetof(dl_managed_versioned_t, dl_tensor) == 32, "DLManagedTensorVersioned");
#endif

/* What loom_to_dlpack hands out: the managed tensor first, its shape and strides after it. */
typedef struct dl_export {
    union {
        dl_managed_t legacy;
        dl_managed_versioned_t versioned;
    } m;
    int64_t shape[LOOM_MAX_DIMS], strides[LOOM_MAX_DIMS];
} dl_export_t;

static const dl_data_type_t dl_types[LOOM_DTYPE_COUNT] = {
    [LOOM_DTYPE_BOOL] = {DL_BOOL, 8, 1},    [LOOM_DTYPE_I8] = {DL_INT, 8, 1},
    [LOOM_DTYPE_I16] = {DL_INT, 16, 1},     [LOOM_DTYPE_I32] = {DL_INT, 32, 1},
    [LOOM_DTYPE_I64] = {DL_INT, 64, 1},     [LOOM_DTYPE_U8] = {DL_UINT, 8, 1},
    [LOOM_DTYPE_U16] = {DL_UINT, 16, 1},    [LOOM_DTYPE_U32] = {DL_UINT, 32, 1},
    [LOOM_DTYPE_U64] = {DL_UINT, 64, 1},    [LOOM_DTYPE_F16] = {DL_FLOAT, 16, 1},
    [LOOM_DTYPE_BF16] = {DL_BFLOAT, 16, 1}, [LOOM_DTYPE_F32] = {DL_FLOAT, 32, 1},
    [LOOM_DTYPE_F64] = {DL_FLOAT, 64, 1},   [LOOM_DTYPE_C64] = {DL_COMPLEX, 64, 1},
    [LOOM_DTYPE_C128] = {DL_COMPLEX, 128, 1},
};

/* Every extent, offset and stride reach is kept below this, so byte sums cannot overflow. */
#define MAX_REACH (INT64_C(1) << 55)

/* ---- wrapping external memory ---- */

/* A realised array over external memory at host (or dev when on_device) + offset elements, read
 * through strides (NULL: C-contiguous). Negative strides move the base to the lowest address
 * reached, so offset + every reach stays in [0, bytes). On failure release is not called. */
static loom_array_t *wrap(loom_ctx_t *ctx, const char *fn, loom_dtype_t dtype, int32_t ndim,
                          const int64_t *shape, const int64_t *strides, bool on_device,
                          uintptr_t base, int64_t offset, void (*release)(void *), void *user) {
    int64_t n;
    if ((unsigned)dtype >= LOOM_DTYPE_COUNT) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: invalid dtype %d", fn, (int)dtype);
        return &ctx->nil;
    }
    if (!fe_check_shape(ctx, fn, ndim, shape, &n)) return &ctx->nil;
    int64_t sz = (int64_t)ir_dtypes[dtype].size, st[LOOM_MAX_DIMS], lo = 0, hi = 0;
    /* a misaligned element faults on the GPU, and is UB here; complex numbers need only their
     * parts' alignment, as NumPy's */
    int64_t align = ir_is_complex(dtype) ? sz / 2 : sz;
    if (base % (uintptr_t)align) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: address 0x%llx is not aligned to the %lld bytes %s elements need", fn,
                 (unsigned long long)base, (long long)align, ir_dtypes[dtype].name);
        return &ctx->nil;
    }
    for (int64_t ax = ndim - 1, s = 1; ax >= 0; ax--) {
        st[ax] = strides ? strides[ax] : s;
        s *= shape[ax] ? shape[ax] : 1;
    }
    for (int ax = 0; ax < ndim && n > 0; ax++) {
        int64_t r;
        if (st[ax] <= -MAX_REACH || st[ax] >= MAX_REACH ||
            __builtin_mul_overflow(shape[ax] - 1, st[ax], &r) || r <= -MAX_REACH ||
            r >= MAX_REACH) {
            fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: stride %lld on axis %d reaches too far", fn,
                     (long long)st[ax], ax);
            return &ctx->nil;
        }
        if (r < 0)
            lo += r;
        else
            hi += r;
    }
    if (offset < 0 || offset >= MAX_REACH) {
        fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: offset %lld elements is out of range", fn,
                 (long long)offset);
        return &ctx->nil;
    }
    if (n > 0 && !base) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: data is NULL for %lld elements", fn,
                 (long long)n);
        return &ctx->nil;
    }
    if (offset + lo < 0) { /* negative strides below the first element */
        base -= (uintptr_t)(-(offset + lo) * sz);
        offset = -lo;
    }
    fe_buffer_t *b = fe_buffer_new(ctx);
    if (!b) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
        return &ctx->nil;
    }
    b->refcount = 1;
    b->m.borrowed = true;
    b->m.on_device = on_device;
    if (on_device)
        b->m.dev = (uint64_t)base;
    else
        b->m.host = (void *)base;
    b->m.bytes = n > 0 ? (size_t)((offset + hi + 1) * sz) : 0; /* what a CUDA eval uploads */
    loom_array_t *a = fe_shaped(ctx, IR_OP_INPUT, dtype, ndim, shape, 0, NULL, NULL);
    if (a->flags & FE_NIL) {
        fe_buffer_release(ctx, b); /* release is not set yet: the caller keeps the memory */
        return a;
    }
    b->release = release;
    b->release_user = user;
    fe_realise(ctx, a, b);
    memcpy(a->strides, st, sizeof(int64_t) * (size_t)ndim);
    a->offset = offset;
    return a;
}

LOOM_API loom_array_t *loom_wrap_host(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                      const int64_t *shape, const int64_t *strides, void *data,
                                      void (*release)(void *user), void *user) {
    if (!ctx) return NULL;
    return wrap(ctx, "loom_wrap_host", dtype, ndim, shape, strides, false, (uintptr_t)data, 0,
                release, user);
}

LOOM_API loom_array_t *loom_wrap_device(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                        const int64_t *shape, const int64_t *strides,
                                        uint64_t device_ptr, void (*release)(void *user),
                                        void *user) {
    if (!ctx) return NULL;
    if (ctx->device != LOOM_DEVICE_CUDA) {
        fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE,
                 "loom_wrap_device: device memory needs a CUDA context (this one is %s)",
                 ctx->device_name);
        return &ctx->nil;
    }
    return wrap(ctx, "loom_wrap_device", dtype, ndim, shape, strides, true, (uintptr_t)device_ptr,
                0, release, user);
}

/* Evaluates a if needed and checks it has values; false with the error recorded. */
static bool realised(loom_ctx_t *ctx, const char *fn, loom_array_t *a) {
    if (!fe_check_arg(ctx, fn, a)) {
        if (!ctx->err.status) fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: array is nil", fn);
        return false;
    }
    if (loom_eval(ctx, 1, &a) != LOOM_STATUS_OK) return false;
    if (!(a->flags & FE_REALISED) || !a->buf ||
        (ctx->device == LOOM_DEVICE_NVRTC && a->buf->m.on_device)) {
        fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE,
                 "%s: the compile-only device (nvrtc) computes no values", fn);
        return false;
    }
    /* A pointer handed out must not race the kernels still writing it (no stream in the API) */
    if (a->buf->m.on_device && loom_sync(ctx) != LOOM_STATUS_OK) return false;
#if LOOM_HAVE_CUDA
    if (a->buf->m.on_device && en_mem_check(ctx->engine, &a->buf->m)) return false;
#endif
    return true;
}

LOOM_API uint64_t loom_array_device_ptr(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx || !realised(ctx, "loom_array_device_ptr", a)) return 0;
    if (!a->buf->m.on_device) {
        fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE,
                 "loom_array_device_ptr: the array lives in host memory (device %s)",
                 ctx->device_name);
        return 0;
    }
    return a->buf->m.dev + (uint64_t)(a->offset * (int64_t)ir_dtypes[a->dtype].size);
}

LOOM_API const void *loom_array_host_ptr(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx || !realised(ctx, "loom_array_host_ptr", a)) return NULL;
    if (a->buf->m.on_device) {
        fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE,
                 "loom_array_host_ptr: the array lives in device memory; use loom_read");
        return NULL;
    }
    if (fe_size(a) == 0) return NULL; /* empty, whatever block (if any) its buffer holds */
    return (const char *)a->buf->m.host + a->offset * (int64_t)ir_dtypes[a->dtype].size;
}

/* ---- DLPack import ---- */

static void release_versioned(void *m) {
    dl_managed_versioned_t *t = m;
    if (t->deleter) t->deleter(t);
}

static void release_legacy(void *m) {
    dl_managed_t *t = m;
    if (t->deleter) t->deleter(t);
}

LOOM_API loom_array_t *loom_from_dlpack(loom_ctx_t *ctx, void *managed, int versioned) {
    static const char fn[] = "loom_from_dlpack";
    if (!ctx) return NULL;
    if (!managed) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: managed tensor is NULL", fn);
        return &ctx->nil;
    }
    const dl_tensor_t *t;
    if (versioned) {
        const dl_managed_versioned_t *mv = managed;
        if (mv->version.major != 1) {
            fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE,
                     "%s: DLPack version %u.%u is not supported (loom reads 1.x)", fn,
                     mv->version.major, mv->version.minor);
            return &ctx->nil;
        }
        t = &mv->dl_tensor;
    } else {
        t = &((const dl_managed_t *)managed)->dl_tensor;
    }
    dl_data_type_t dt = t->dtype;
    int dtype = -1;
    for (int d = 0; d < LOOM_DTYPE_COUNT && dt.lanes == 1; d++)
        if (dl_types[d].code == dt.code && dl_types[d].bits == dt.bits) dtype = d;
    if (dtype < 0) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "%s: DLPack dtype code %u, bits %u, lanes %u has no loom dtype (lanes must be 1)",
                 fn, dt.code, dt.bits, dt.lanes);
        return &ctx->nil;
    }
    bool on_device = t->device.device_type == DL_CUDA;
    if (t->device.device_type != DL_CPU && t->device.device_type != DL_CUDA_HOST && !on_device) {
        fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE,
                 "%s: DLPack device type %d (id %d) is not supported (kDLCPU, kDLCUDA, "
                 "kDLCUDAHost are)",
                 fn, t->device.device_type, t->device.device_id);
        return &ctx->nil;
    }
    bool same_gpu = false;
#if LOOM_HAVE_CUDA
    same_gpu = ctx->device == LOOM_DEVICE_CUDA && t->device.device_id == ctx->cuda_ordinal;
#endif
    if (on_device && !same_gpu) {
        fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE,
                 "%s: the tensor lives on CUDA device %d, which this context (%s) does not use", fn,
                 t->device.device_id, ctx->device_name);
        return &ctx->nil;
    }
    size_t sz = ir_dtypes[dtype].size;
    uintptr_t base = (uintptr_t)t->data;
    int64_t offset = 0;
    if (t->byte_offset % sz == 0 && t->byte_offset / sz < (uint64_t)MAX_REACH)
        offset = (int64_t)(t->byte_offset / sz);
    else if (t->data) /* an unaligned start: fold it into the base (never into NULL's, which
                         wrap refuses for a non-empty tensor) */
        base += (uintptr_t)t->byte_offset;
    return wrap(ctx, fn, (loom_dtype_t)dtype, t->ndim, t->shape, t->strides, on_device, base,
                offset, versioned ? release_versioned : release_legacy, managed);
}

/* ---- DLPack export ---- */

static void export_release(dl_export_t *e, loom_array_t *a) {
    loom_ctx_t *ctx = a->ctx;
    loom_array_release(a);
    base_free(&ctx->al, e);
}

static void delete_versioned(dl_managed_versioned_t *self) {
    export_release((dl_export_t *)self, self->manager_ctx);
}

static void delete_legacy(dl_managed_t *self) {
    export_release((dl_export_t *)self, self->manager_ctx);
}

LOOM_API loom_status_t loom_to_dlpack(loom_ctx_t *ctx, loom_array_t *a, int versioned, void **out) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!out) return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "loom_to_dlpack: out is NULL");
    *out = NULL;
    if (ctx->err.status) return ctx->err.status;
    if (!realised(ctx, "loom_to_dlpack", a)) return ctx->err.status;
    dl_export_t *e = base_calloc(&ctx->al, 1, sizeof *e);
    if (!e) return fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_to_dlpack: out of memory");
    dl_tensor_t t = {0};
    fe_buffer_t *b = a->buf;
    t.data = b->m.on_device ? (void *)(uintptr_t)b->m.dev : b->m.host;
    t.device.device_type = b->m.on_device ? DL_CUDA : DL_CPU;
#if LOOM_HAVE_CUDA
    if (b->m.on_device) t.device.device_id = ctx->cuda_ordinal;
#endif
    t.ndim = a->ndim;
    t.dtype = dl_types[a->dtype];
    memcpy(e->shape, a->shape, sizeof e->shape);
    memcpy(e->strides, a->strides, sizeof e->strides);
    t.shape = e->shape;
    t.strides = e->strides;
    t.byte_offset = (uint64_t)(a->offset * (int64_t)ir_dtypes[a->dtype].size);
    if (versioned) {
        e->m.versioned.version.major = 1;
        e->m.versioned.version.minor = 0;
        e->m.versioned.flags = 1; /* DLPACK_FLAG_BITMASK_READ_ONLY: loom's buffers are immutable */
        e->m.versioned.manager_ctx = loom_array_retain(a);
        e->m.versioned.deleter = delete_versioned;
        e->m.versioned.dl_tensor = t;
    } else {
        e->m.legacy.dl_tensor = t;
        e->m.legacy.manager_ctx = loom_array_retain(a);
        e->m.legacy.deleter = delete_legacy;
    }
    *out = e;
    return LOOM_STATUS_OK;
}
