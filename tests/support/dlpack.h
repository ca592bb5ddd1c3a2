/* dlpack.h — the DLPack v1.0 structures as a consumer lays them out (the names of dlpack.h),
 * for the tests that build tensors for loom_from_dlpack and read loom_to_dlpack's exports.
 * loom.h takes and returns them as void pointers. Header-only. */
#ifndef LOOM_TEST_DLPACK_H
#define LOOM_TEST_DLPACK_H

#include <stdint.h>

typedef struct {
    int32_t device_type;
    int32_t device_id;
} DLDevice;
typedef struct {
    uint8_t code, bits;
    uint16_t lanes;
} DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
typedef struct DLManagedTensorVersioned {
    struct {
        uint32_t major, minor;
    } version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#endif
