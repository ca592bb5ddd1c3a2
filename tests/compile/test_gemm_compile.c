/* test_gemm_compile — en_matmul_run on the compile-only NVRTC device (no GPU): the generated
 * matmul kernel compiles for every dtype (ints, bool, and the float k == 0 path) with and
 * without epilogues (bias, scales, relu, gelu), and the gather kernel that makes operands
 * cuBLAS cannot take contiguous compiles; nothing is launched. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "../support/ir_build.h"

static loom_ctx_t *nvrtc_ctx(void) {
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_NVRTC;
    o.arch = "sm_90";
    o.disable_disk_cache = 1;
    loom_ctx_t *ctx = NULL;
    loom_status_t st = loom_ctx_create(&o, &ctx);
    if (st != LOOM_STATUS_OK) print_error("nvrtc ctx: %s\n", loom_last_create_message());
    assert_int_equal(st, LOOM_STATUS_OK);
    return ctx;
}

static uint64_t compiles(loom_ctx_t *ctx) {
    loom_stats_t s;
    loom_ctx_stats(ctx, &s);
    return s.kernel_compiles;
}

/* Runs the step (a (4 x k) @ b (k x 6), a with strides sa or C order) ending at epi(mm). */
static void run_step(loom_ctx_t *ctx, loom_dtype_t d, int64_t k, const int64_t *sa, int epi) {
    tb_t t;
    tb_init(&t);
    int64_t as[2] = {4, k}, bs[2] = {k, 6}, vs[1] = {6};
    uint32_t mm = tb_matmul(&t, tb_input(&t, d, 2, as, sa), tb_input(&t, d, 2, bs, NULL));
    uint32_t out = mm;
    if (epi >= 1) out = tb_op(&t, IR_OP_ADD, mm, out, tb_input(&t, d, 1, vs, NULL));
    if (epi == 2) out = tb_op(&t, IR_OP_MAXIMUM, mm, out, tb_const(&t, d, 0.0));
    if (epi == 3) out = tb_gelu(&t, tb_op(&t, IR_OP_MULTIPLY, mm, out, tb_const(&t, d, 0.5)));
    ir_add_output(&t.g, out);
    uint64_t addr[4] = {0x10000, 0x20000, 0x30000, 0x40000};
    loom_status_t st = en_matmul_run(ctx->engine, &t.g, addr, 0x50000);
    if (st) print_error("%s k=%lld epi %d: %s\n", loom_dtype_name(d), (long long)k, epi,
                        loom_ctx_message(ctx));
    assert_int_equal(st, LOOM_STATUS_OK);
    tb_fini(&t);
}

static void test_gemm_generated_kernels_compile(void **state) {
    (void)state;
    loom_ctx_t *ctx = nvrtc_ctx();
    for (int d = 0; d < LOOM_DTYPE_COUNT; d++) {
        if (ir_is_complex((loom_dtype_t)d)) continue; /* the frontend refuses complex products */
        uint64_t c0 = compiles(ctx);
        run_step(ctx, (loom_dtype_t)d, ir_is_float((loom_dtype_t)d) ? 0 : 5, NULL, 0);
        assert_int_equal(compiles(ctx) - c0, 1); /* one generated matmul kernel */
        run_step(ctx, (loom_dtype_t)d, ir_is_float((loom_dtype_t)d) ? 0 : 5, NULL, 0);
        assert_int_equal(compiles(ctx) - c0, 1); /* the same structure again: a cache hit */
    }
    static const loom_dtype_t fl[] = {LOOM_DTYPE_F16, LOOM_DTYPE_BF16, LOOM_DTYPE_F32};
    for (int i = 0; i < 3; i++)
        for (int epi = 1; epi <= 3; epi++) {
            uint64_t c0 = compiles(ctx);
            run_step(ctx, fl[i], 0, NULL, epi); /* k == 0: the epilogue on zeros */
            assert_int_equal(compiles(ctx) - c0, 1);
        }
    loom_ctx_destroy(ctx);
}

static void test_gemm_gather_compiles(void **state) {
    (void)state;
    loom_ctx_t *ctx = nvrtc_ctx();
    static const loom_dtype_t fl[] = {LOOM_DTYPE_F16, LOOM_DTYPE_BF16, LOOM_DTYPE_F32,
                                      LOOM_DTYPE_F64};
    int64_t strided[2] = {20, 2}; /* neither axis unit-stride: gathered first */
    for (int i = 0; i < 4; i++) {
        uint64_t c0 = compiles(ctx);
        run_step(ctx, fl[i], 5, strided, 0);
        assert_int_equal(compiles(ctx) - c0, 1);
        run_step(ctx, fl[i], 5, NULL, 0); /* cuBLAS takes it as it is: nothing to compile */
        assert_int_equal(compiles(ctx) - c0, 1);
    }
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_generated_kernels_compile),
        cmocka_unit_test(test_gemm_gather_compiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
