/* test_dlpack — embedding on the CPU reference device: DLPack export and import without a copy
 * (versioned and legacy structs, every dtype, strided and offset tensors, deleters called once),
 * loom_wrap_host with its release callback, raw pointers, and the errors for bad dtypes, lanes,
 * devices and versions. The DLPack structs are restated as dlpack.h v1.0 declares them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "../support/check.h"
#include "../support/dlpack.h"


/* ---- deleters that count ---- */

static int n_deleted, n_released;
static void (*loom_deleter_v)(DLManagedTensorVersioned *);
static void (*loom_deleter_l)(DLManagedTensor *);

static void count_v(DLManagedTensorVersioned *m) {
    n_deleted++;
    if (loom_deleter_v) loom_deleter_v(m);
}

static void count_l(DLManagedTensor *m) {
    n_deleted++;
    if (loom_deleter_l) loom_deleter_l(m);
}

static void count_release(void *user) {
    n_released++;
    assert_non_null(user);
}

/* A caller-owned legacy tensor over data (nothing to free: the deleter only counts). */
static DLManagedTensor caller_tensor(void *data, int32_t ndim, int64_t *shape, int64_t *strides,
                                     uint8_t code, uint8_t bits) {
    DLManagedTensor m = {0};
    m.dl_tensor.data = data;
    m.dl_tensor.device.device_type = 1;
    m.dl_tensor.ndim = ndim;
    m.dl_tensor.dtype = (DLDataType){code, bits, 1};
    m.dl_tensor.shape = shape;
    m.dl_tensor.strides = strides;
    m.deleter = count_l;
    return m;
}

static void expect_f64(loom_ctx_t *ctx, loom_array_t *a, const double *want, int64_t n) {
    double got[64];
    assert_true(n <= 64);
    assert_int_equal(loom_read(ctx, a, got, sizeof got), LOOM_STATUS_OK);
    for (int64_t i = 0; i < n; i++) assert_true(got[i] == want[i]);
}

/* ---- round trips ---- */

static void round_trip(int versioned) {
    loom_ctx_t *ctx = check_cpu_ctx();
    n_deleted = 0;
    float x[6] = {1, 2, 3, 4, 5, 6};
    int64_t shape[2] = {2, 3};
    loom_scope_begin(ctx);
    loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, x);
    void *out = NULL;
    assert_int_equal(loom_to_dlpack(ctx, a, versioned, &out), LOOM_STATUS_OK);
    const void *pa = loom_array_host_ptr(ctx, a);
    assert_non_null(pa);
    assert_ptr_not_equal(pa, x); /* loom_from_host copied */
    DLTensor *t;
    if (versioned) {
        DLManagedTensorVersioned *m = out;
        assert_int_equal(m->version.major, 1);
        assert_int_equal(m->version.minor, 0);
        assert_int_equal(m->flags & 1, 1); /* READ_ONLY: loom's buffers are immutable */
        loom_deleter_v = m->deleter;
        m->deleter = count_v;
        t = &m->dl_tensor;
    } else {
        DLManagedTensor *m = out;
        loom_deleter_l = m->deleter;
        m->deleter = count_l;
        t = &m->dl_tensor;
    }
    assert_ptr_equal(t->data, pa);
    assert_int_equal(t->device.device_type, 1);
    assert_int_equal(t->device.device_id, 0);
    assert_int_equal(t->ndim, 2);
    assert_int_equal(t->dtype.code, 2);
    assert_int_equal(t->dtype.bits, 32);
    assert_int_equal(t->dtype.lanes, 1);
    assert_int_equal(t->shape[0], 2);
    assert_int_equal(t->shape[1], 3);
    assert_int_equal(t->strides[0], 3);
    assert_int_equal(t->strides[1], 1);
    assert_int_equal(t->byte_offset, 0);

    loom_array_t *b = loom_from_dlpack(ctx, out, versioned);
    assert_false(loom_array_is_nil(b));
    assert_ptr_equal(loom_array_host_ptr(ctx, b), pa); /* no copy */
    float y[6];
    assert_int_equal(loom_read(ctx, b, y, sizeof y), LOOM_STATUS_OK);
    assert_memory_equal(x, y, sizeof x);
    assert_int_equal(loom_read(ctx, loom_add_f(ctx, b, 1.0), y, sizeof y), LOOM_STATUS_OK);
    for (int i = 0; i < 6; i++) assert_true(y[i] == x[i] + 1);
    loom_array_retain(b);
    loom_scope_end(ctx); /* a's own reference goes; the export still holds it */
    assert_int_equal(n_deleted, 0);
    assert_int_equal(loom_read(ctx, b, y, sizeof y), LOOM_STATUS_OK);
    assert_memory_equal(x, y, sizeof x);
    loom_array_release(b);
    assert_int_equal(n_deleted, 1);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
    assert_int_equal(n_deleted, 1);
    loom_deleter_v = NULL;
    loom_deleter_l = NULL;
}

static void test_dlpack_round_trip_versioned(void **state) {
    (void)state;
    round_trip(1);
}

static void test_dlpack_round_trip_legacy(void **state) {
    (void)state;
    round_trip(0);
}

/* The consumer alone: export, then the deleter without an import. */
static void test_dlpack_export_deleter_alone(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 5;
    loom_array_t *a = loom_add_f(ctx, loom_arange(ctx, 0, 5, 1, LOOM_DTYPE_F64), 0.5);
    void *out;
    assert_int_equal(loom_to_dlpack(ctx, a, 1, &out), LOOM_STATUS_OK); /* evaluates a */
    DLManagedTensorVersioned *m = out;
    const double *d = m->dl_tensor.data;
    for (int64_t i = 0; i < n; i++) assert_true(d[i] == (double)i + 0.5);
    loom_array_release(a);
    assert_true(d[4] == 4.5); /* the export keeps it alive */
    m->deleter(m);
    loom_ctx_destroy(ctx);
}

/* ---- strided and offset imports ---- */

static void test_dlpack_strided_import(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    n_deleted = 0;
    loom_deleter_l = NULL;
    double c[12]; /* a 3x4 C buffer */
    for (int i = 0; i < 12; i++) c[i] = i;
    int64_t tshape[2] = {4, 3}, tstrides[2] = {1, 4}; /* its transpose */
    DLManagedTensor m = caller_tensor(c, 2, tshape, tstrides, 2, 64);
    loom_array_t *t = loom_from_dlpack(ctx, &m, 0);
    assert_false(loom_array_is_nil(t));
    assert_ptr_equal(loom_array_host_ptr(ctx, t), c);
    double want[12], want2[12];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) {
            want[i * 3 + j] = c[j * 4 + i];
            want2[i * 3 + j] = 2 * c[j * 4 + i] + c[i * 3 + j];
        }
    expect_f64(ctx, t, want, 12); /* loom_read gathers */
    int64_t shape[2] = {4, 3};
    loom_scope_begin(ctx); /* the unevaluated product holds t until the scope ends */
    loom_array_t *plain = loom_from_host(ctx, LOOM_DTYPE_F64, 2, shape, c);
    expect_f64(ctx, loom_add(ctx, loom_multiply_f(ctx, t, 2), plain), want2, 12);
    loom_scope_end(ctx);
    /* Back to DLPack: the strides travel. */
    void *out;
    assert_int_equal(loom_to_dlpack(ctx, t, 0, &out), LOOM_STATUS_OK);
    DLManagedTensor *e = out;
    assert_ptr_equal(e->dl_tensor.data, c);
    assert_int_equal(e->dl_tensor.strides[0], 1);
    assert_int_equal(e->dl_tensor.strides[1], 4);
    loom_array_release(t);
    assert_int_equal(n_deleted, 0); /* the export holds t */
    e->deleter(e);
    assert_int_equal(n_deleted, 1);

    /* byte_offset and a column: c[1::4] as shape (3,), stride 4. */
    int64_t cs = 3, cst = 4;
    m = caller_tensor(c, 1, &cs, &cst, 2, 64);
    m.dl_tensor.byte_offset = sizeof(double);
    loom_array_t *col = loom_from_dlpack(ctx, &m, 0);
    const double wcol[3] = {1, 5, 9};
    expect_f64(ctx, col, wcol, 3);
    assert_ptr_equal(loom_array_host_ptr(ctx, col), &c[1]);
    const double wcol1[3] = {2, 6, 10};
    expect_f64(ctx, loom_add_f(ctx, col, 1), wcol1, 3);
    loom_array_release(col);
    assert_int_equal(n_deleted, 2);

    /* Negative strides: c[11::-2] as shape (6,). */
    int64_t rs = 6, rst = -2;
    m = caller_tensor(&c[11], 1, &rs, &rst, 2, 64);
    loom_array_t *rev = loom_from_dlpack(ctx, &m, 0);
    const double wrev[6] = {11, 9, 7, 5, 3, 1}, wneg[6] = {-11, -9, -7, -5, -3, -1};
    expect_f64(ctx, rev, wrev, 6);
    expect_f64(ctx, loom_negative(ctx, rev), wneg, 6);
    assert_ptr_equal(loom_array_host_ptr(ctx, rev), &c[11]);
    loom_array_release(rev);
    assert_int_equal(n_deleted, 3);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
    assert_int_equal(n_deleted, 3);
}

/* ---- every dtype ---- */

static void test_dlpack_every_dtype(void **state) {
    (void)state;
    static const uint8_t code[LOOM_DTYPE_COUNT] = {6, 0, 0, 0, 0, 1, 1, 1, 1, 2, 4, 2, 2, 5, 5};
    loom_ctx_t *ctx = check_cpu_ctx();
    for (int d = 0; d < LOOM_DTYPE_COUNT; d++) {
        for (int versioned = 0; versioned < 2; versioned++) {
            n_deleted = 0;
            uint64_t bits[5] = {0, 1, 0x3c, 0x7f, 0x41};
            if (d == LOOM_DTYPE_BOOL)
                for (int i = 0; i < 5; i++) bits[i] = i % 2 == 0 ? 1 : 0;
            loom_array_t *a = check_from_bits(ctx, (loom_dtype_t)d, 1, NULL, bits, 5);
            void *out;
            assert_int_equal(loom_to_dlpack(ctx, a, versioned, &out), LOOM_STATUS_OK);
            DLTensor *t = versioned ? &((DLManagedTensorVersioned *)out)->dl_tensor
                                    : &((DLManagedTensor *)out)->dl_tensor;
            assert_int_equal(t->dtype.code, code[d]);
            assert_int_equal(t->dtype.bits, 8 * loom_dtype_size((loom_dtype_t)d));
            assert_int_equal(t->dtype.lanes, 1);
            if (versioned) {
                loom_deleter_v = ((DLManagedTensorVersioned *)out)->deleter;
                ((DLManagedTensorVersioned *)out)->deleter = count_v;
            } else {
                loom_deleter_l = ((DLManagedTensor *)out)->deleter;
                ((DLManagedTensor *)out)->deleter = count_l;
            }
            loom_array_t *b = loom_from_dlpack(ctx, out, versioned);
            assert_int_equal(loom_array_dtype(b), d);
            uint64_t got[5];
            assert_int_equal(check_read_bits(ctx, b, got, 5), LOOM_STATUS_OK);
            assert_memory_equal(got, bits, sizeof got);
            loom_array_release(a);
            assert_int_equal(n_deleted, 0);
            loom_array_release(b);
            assert_int_equal(n_deleted, 1);
        }
    }
    loom_deleter_v = NULL;
    loom_deleter_l = NULL;
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
}

/* ---- errors: the caller keeps the tensor, the deleter is not called ---- */

static void expect_refused(loom_ctx_t *ctx, void *m, int versioned, loom_status_t st,
                           const char *text) {
    loom_array_t *a = loom_from_dlpack(ctx, m, versioned);
    assert_true(loom_array_is_nil(a));
    assert_int_equal(loom_ctx_status(ctx), st);
    if (!strstr(loom_ctx_message(ctx), text)) fail_msg("message: %s", loom_ctx_message(ctx));
    loom_ctx_clear_error(ctx);
}

static void test_dlpack_bad_tensors(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    n_deleted = 0;
    loom_deleter_v = NULL;
    loom_deleter_l = NULL;
    float x[4] = {0};
    int64_t n = 4;
    DLManagedTensor m = caller_tensor(x, 1, &n, NULL, 2, 32);
    m.dl_tensor.dtype.lanes = 4;
    expect_refused(ctx, &m, 0, LOOM_STATUS_DTYPE_ERROR, "code 2, bits 32, lanes 4");
    m.dl_tensor.dtype = (DLDataType){5, 32, 1}; /* complex32 */
    expect_refused(ctx, &m, 0, LOOM_STATUS_DTYPE_ERROR, "code 5, bits 32, lanes 1");
    m.dl_tensor.dtype = (DLDataType){2, 8, 1}; /* float8 */
    expect_refused(ctx, &m, 0, LOOM_STATUS_DTYPE_ERROR, "code 2, bits 8");
    m.dl_tensor.dtype = (DLDataType){6, 1, 1}; /* bit-packed bool */
    expect_refused(ctx, &m, 0, LOOM_STATUS_DTYPE_ERROR, "code 6, bits 1");
    m.dl_tensor.dtype = (DLDataType){2, 32, 1};
    m.dl_tensor.device = (DLDevice){2, 0}; /* kDLCUDA on a CPU context */
    expect_refused(ctx, &m, 0, LOOM_STATUS_NOT_AVAILABLE, "CUDA device 0");
    m.dl_tensor.device = (DLDevice){4, 1}; /* kDLOpenCL */
    expect_refused(ctx, &m, 0, LOOM_STATUS_NOT_AVAILABLE, "device type 4 (id 1)");
    m.dl_tensor.device = (DLDevice){1, 0};
    m.dl_tensor.ndim = 9;
    expect_refused(ctx, &m, 0, LOOM_STATUS_INVALID_ARGUMENT, "ndim 9");
    m.dl_tensor.ndim = 1;
    m.dl_tensor.byte_offset = 2; /* a float32 at a 2-byte boundary (found by review) */
    expect_refused(ctx, &m, 0, LOOM_STATUS_INVALID_ARGUMENT, "not aligned");
    m.dl_tensor.byte_offset = 0;
    {   /* complex numbers need their parts' alignment only, as NumPy's (found by review) */
        _Alignas(16) double z[6] = {1, 2, 3, 4, 5, 6};
        int64_t two = 2;
        DLManagedTensor c = caller_tensor(z + 1, 1, &two, NULL, 5, 128);
        c.deleter = NULL; /* the caller's: loom must not call it on this stack array */
        loom_array_t *a = loom_from_dlpack(ctx, &c, 0);
        assert_false(loom_array_is_nil(a));
        double got[4];
        assert_int_equal(loom_read(ctx, a, got, sizeof got), LOOM_STATUS_OK);
        assert_true(got[0] == 2 && got[3] == 5);
        loom_array_release(a);
        c.dl_tensor.data = (char *)(z + 1) + 4; /* 4-byte aligned: too little for float64 parts */
        expect_refused(ctx, &c, 0, LOOM_STATUS_INVALID_ARGUMENT, "not aligned");
        /* NULL data and an offset that is no whole element: refused, never read (found by
         * fuzz_dlpack once 8-byte complex128 starts were allowed) */
        c.dl_tensor.data = NULL;
        c.dl_tensor.byte_offset = 104;
        expect_refused(ctx, &c, 0, LOOM_STATUS_INVALID_ARGUMENT, "data is NULL");
    }
    m.dl_tensor.data = NULL;
    expect_refused(ctx, &m, 0, LOOM_STATUS_INVALID_ARGUMENT, "data is NULL");

    DLManagedTensorVersioned v = {0};
    v.version.major = 2;
    v.dl_tensor = caller_tensor(x, 1, &n, NULL, 2, 32).dl_tensor;
    v.deleter = count_v;
    expect_refused(ctx, &v, 1, LOOM_STATUS_NOT_AVAILABLE, "version 2.0");
    expect_refused(ctx, NULL, 1, LOOM_STATUS_INVALID_ARGUMENT, "NULL");
    assert_int_equal(n_deleted, 0);

    /* READ_ONLY (flags bit 0) is accepted: loom never writes its inputs. */
    v.version.major = 1;
    v.flags = 1;
    loom_array_t *a = loom_from_dlpack(ctx, &v, 1);
    assert_false(loom_array_is_nil(a));
    loom_array_release(a);
    assert_int_equal(n_deleted, 1);
    loom_ctx_destroy(ctx);
}

/* ---- loom_wrap_host and raw pointers ---- */

static void test_dlpack_wrap_host_release_once(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    n_released = 0;
    double c[6] = {0, 1, 2, 3, 4, 5};
    int64_t shape[2] = {3, 2}, strides[2] = {1, 3}; /* the transpose of a 2x3 buffer */
    loom_scope_begin(ctx);
    loom_array_t *a = loom_wrap_host(ctx, LOOM_DTYPE_F64, 2, shape, strides, c, count_release, c);
    assert_false(loom_array_is_nil(a));
    assert_ptr_equal(loom_array_host_ptr(ctx, a), c);
    const double want[6] = {0, 3, 1, 4, 2, 5}, sq[6] = {0, 9, 1, 16, 4, 25};
    expect_f64(ctx, a, want, 6);
    loom_array_t *s = loom_square(ctx, a);
    expect_f64(ctx, s, sq, 6);
    loom_scope_end(ctx);
    assert_int_equal(n_released, 1);

    /* No strides: C order; a NULL release is fine. */
    loom_array_t *b = loom_wrap_host(ctx, LOOM_DTYPE_F64, 2, shape, NULL, c, NULL, NULL);
    expect_f64(ctx, b, c, 6);
    loom_array_release(b);

    /* Empty, with NULL data. */
    int64_t zero = 0;
    loom_array_t *e = loom_wrap_host(ctx, LOOM_DTYPE_F32, 1, &zero, NULL, NULL, count_release, c);
    assert_int_equal(loom_read(ctx, e, NULL, 0), LOOM_STATUS_OK);
    loom_array_release(e);
    assert_int_equal(n_released, 2);

    /* On failure release is not called. */
    int64_t bad = -1;
    assert_true(
        loom_array_is_nil(loom_wrap_host(ctx, LOOM_DTYPE_F64, 1, &bad, NULL, c, count_release, c)));
    loom_ctx_clear_error(ctx);
    int64_t huge = INT64_C(1) << 58, three = 3;
    assert_true(loom_array_is_nil(
        loom_wrap_host(ctx, LOOM_DTYPE_F64, 1, &three, &huge, c, count_release, c)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
    loom_ctx_clear_error(ctx);
    assert_true(loom_array_is_nil(
        loom_wrap_device(ctx, LOOM_DTYPE_F64, 1, &three, NULL, 0x1000, count_release, c)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_NOT_AVAILABLE);
    loom_ctx_clear_error(ctx);
    assert_int_equal(n_released, 2);

    /* Released by loom_ctx_destroy when the caller never releases it. */
    loom_array_retain(loom_wrap_host(ctx, LOOM_DTYPE_F64, 1, &three, NULL, c, count_release, c));
    loom_ctx_destroy(ctx);
    assert_int_equal(n_released, 3);
}

static void test_dlpack_device_ptr_on_cpu(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 3;
    loom_array_t *a = loom_ones(ctx, LOOM_DTYPE_F32, 1, &n);
    assert_int_equal(loom_array_device_ptr(ctx, a), 0);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_NOT_AVAILABLE);
    assert_non_null(strstr(loom_ctx_message(ctx), "host memory"));
    loom_ctx_clear_error(ctx);
    const float *p = loom_array_host_ptr(ctx, a); /* evaluated by the call above */
    assert_non_null(p);
    assert_true(p[0] == 1 && p[2] == 1);
    loom_ctx_destroy(ctx);
}

/* An empty array has no element [0,...,0]: NULL without an error, whether it was copied from
 * the host, wrapped or computed (its buffer may still hold a block). */
static void test_dlpack_host_ptr_empty(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t shape[2] = {2, 0};
    float x[1] = {1};
    loom_array_t *empties[3] = {
        loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, x),
        loom_arange_int(ctx, 2, 2, 1, LOOM_DTYPE_I8),
        loom_add_f(ctx, loom_zeros(ctx, LOOM_DTYPE_F32, 2, shape), 1.0),
    };
    for (int i = 0; i < 3; i++) {
        assert_false(loom_array_is_nil(empties[i]));
        assert_null(loom_array_host_ptr(ctx, empties[i]));
        assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    }
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dlpack_round_trip_versioned),
        cmocka_unit_test(test_dlpack_round_trip_legacy),
        cmocka_unit_test(test_dlpack_export_deleter_alone),
        cmocka_unit_test(test_dlpack_strided_import),
        cmocka_unit_test(test_dlpack_every_dtype),
        cmocka_unit_test(test_dlpack_bad_tensors),
        cmocka_unit_test(test_dlpack_wrap_host_release_once),
        cmocka_unit_test(test_dlpack_device_ptr_on_cpu),
        cmocka_unit_test(test_dlpack_host_ptr_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
