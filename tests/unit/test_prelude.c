/* test_prelude - the prelude's (src/ir/prelude.h) conversions, random stream and tables, on
 * the host, against the IR's op table and reference kernels (reaches src/; no device).
 * The value-by-value comparison with NumPy is tests/unit/prelude_check.py. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "ir/prelude.h"
#include "ir/ir.h"

static uint32_t fbits(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}
static float ffrom(uint32_t u) {
    float x;
    memcpy(&x, &u, 4);
    return x;
}
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Nearest float16 to x by search over the ordered positive values, ties to even: a second
 * implementation that shares no code with the prelude's bit arithmetic. */
static uint16_t f16_reference(float x) {
    uint16_t sgn = (uint16_t)(signbit(x) ? 0x8000 : 0);
    double a = fabs((double)x);
    if (isnan(x)) return 0;
    if (a >= 65520.0) return sgn | 0x7c00;
    uint16_t lo = 0, hi = 0x7bff; /* largest h with value(h) <= a */
    while (lo < hi) {
        uint16_t mid = (uint16_t)((lo + hi + 1) / 2);
        if ((double)lm_f16_to_f32(mid) <= a)
            lo = mid;
        else
            hi = (uint16_t)(mid - 1);
    }
    double below = lm_f16_to_f32(lo), above = lm_f16_to_f32((uint16_t)(lo + 1));
    if (a == below) return sgn | lo;
    double dl = a - below, du = above - a; /* exact: both fit in a double */
    if (dl < du || (dl == du && !(lo & 1))) return sgn | lo;
    return sgn | (uint16_t)(lo + 1);
}

static void test_prelude_f16_round_trips_all_patterns(void **state) {
    (void)state;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = lm_f16_to_f32((lm_f16)h);
        assert_int_equal(lm_f32_to_f16(f), h);                 /* NaN payloads included */
        assert_int_equal(lm_f64_to_f16(lm__f32_to_f64(f)), h); /* (double)f would quiet sNaNs */
        if (!isnan(f)) assert_int_equal(f16_reference(f), h);
        uint32_t e = (h >> 10) & 0x1f;
        if (e != 0x1f && e != 0) /* normal: exact value check */
            assert_true(f == ldexpf((float)((h & 0x3ff) | 0x400), (int)e - 25) *
                                 ((h & 0x8000) ? -1.0f : 1.0f));
    }
}

static void test_prelude_f32_to_f16_matches_reference(void **state) {
    (void)state;
    for (int i = 0; i < 2000000; i++) {
        uint64_t r = next_u64();
        /* Mostly floats near float16's range, some anywhere. */
        uint32_t u = (i & 7) ? (uint32_t)((r & 0x80000000u) |
                                          ((0x30000000u + (r >> 33) % 0x18000000u) & 0x7fffffffu))
                             : (uint32_t)r;
        float x = ffrom(u);
        if (isnan(x)) continue;
        uint16_t want = f16_reference(x);
        assert_int_equal(lm_f32_to_f16(x), want);
        assert_int_equal(lm_f64_to_f16((double)x), want);
    }
    /* Ties and boundaries. */
    assert_int_equal(lm_f32_to_f16(65520.0f), 0x7c00);
    assert_int_equal(lm_f32_to_f16(65519.996f), 0x7bff);
    assert_int_equal(lm_f32_to_f16(ldexpf(1, -25)), 0x0000);        /* tie to even 0 */
    assert_int_equal(lm_f32_to_f16(ldexpf(3, -25)), 0x0002);        /* tie to even 2 */
    assert_int_equal(lm_f32_to_f16(1.0f + ldexpf(1, -11)), 0x3c00); /* tie to even */
    assert_int_equal(lm_f64_to_f16(1.0 + ldexp(1, -11) + ldexp(1, -40)), 0x3c01); /* once */
    assert_int_equal(lm_f32_to_f16(-INFINITY), 0xfc00);
    assert_int_equal(lm_f32_to_f16(ffrom(0x7fc00000u)), 0x7e00);
    assert_int_equal(lm_f32_to_f16(ffrom(0x7f800001u)), 0x7c01); /* NumPy keeps it a NaN */
}

static void test_prelude_bf16_conversions(void **state) {
    (void)state;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = lm_bf16_to_f32((lm_bf16)h);
        assert_int_equal(fbits(f), h << 16);
        if (isnan(f)) {
            assert_int_equal(lm_f32_to_bf16(f), (h & 0x8000) | 0x7fc0);
        } else {
            assert_int_equal(lm_f32_to_bf16(f), h);
            assert_int_equal(lm_f64_to_bf16((double)f), h);
        }
    }
    for (int i = 0; i < 2000000; i++) {
        float x = ffrom((uint32_t)next_u64());
        if (isnan(x)) continue;
        assert_int_equal(lm_f32_to_bf16(x), lm_f64_to_bf16((double)x)); /* two code paths */
    }
    assert_int_equal(lm_f64_to_bf16(1.0 + ldexp(1, -8) + ldexp(1, -30)), 0x3f81); /* once */
    assert_int_equal(lm_cast_i64_bf16((1ll << 40) + (1ll << 32) + 1), 0x5381);    /* once */
}

static void test_prelude_float_to_int_casts(void **state) {
    (void)state;
    /* What NumPy 2.4 gives on x86-64 (vectorised loops). */
    assert_int_equal(lm_cast_f64_i8(300.7), 44);
    assert_int_equal(lm_cast_f64_i8(NAN), 0);
    assert_int_equal(lm_cast_f64_i32(1e20), INT32_MIN);
    assert_int_equal(lm_cast_f64_u32(-3e9), 2147483648u);
    assert_int_equal(lm_cast_f64_u32(3e9), 3000000000u);
    assert_int_equal(lm_cast_f64_u32(-1.5), 4294967295u);
    assert_int_equal(lm_cast_f16_u32(lm_f32_to_f16(NAN)), 0);
    assert_true(lm_cast_f64_u64(NAN) == 0x8000000000000000ull);
    assert_true(lm_cast_f64_u64(1e20) == 0);
    assert_true(lm_cast_f64_i64(-INFINITY) == INT64_MIN);
    assert_int_equal(lm_cast_f64_b(NAN), 1);
    assert_true(lm_cast_i64_f32((1ll << 62) + (1ll << 38) + 1) == ldexpf(1, 62) + ldexpf(1, 39));
}

static void test_prelude_philox_known_answers(void **state) {
    (void)state;
    /* Random123's kat_vectors for philox4x32_10 with counter words 2 and 3 zero. */
    uint32_t r[4];
    lm_philox(0, 0, r);
    assert_int_equal(r[0], 0x6627e8d5u);
    assert_int_equal(r[1], 0xe169c58du);
    assert_int_equal(r[2], 0xbc57ac4cu);
    assert_int_equal(r[3], 0x9b00dbd8u);
}

static void test_prelude_random_ranges_and_moments(void **state) {
    (void)state;
    double sum = 0, sum2 = 0, usum = 0;
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        double u = lm_random_uniform_f64(42, i, 0.0, 1.0);
        assert_true(u >= 0.0 && u < 1.0);
        usum += u;
        float uf = lm_random_uniform_f32(42, i, 0.0, 1.0);
        assert_true(uf >= 0.0f && uf < 1.0f);
        float uh = lm_f16_to_f32(lm_random_uniform_f16(42, i, 0.0, 1.0));
        assert_true(uh >= 0.0f && uh < 1.0f);
        double z = lm_random_normal_f64(7, i, 0.0, 1.0);
        assert_true(isfinite(z));
        sum += z;
        sum2 += z * z;
    }
    assert_true(fabs(usum / n - 0.5) < 0.005);
    assert_true(fabs(sum / n) < 0.01);
    assert_true(fabs(sum2 / n - 1.0) < 0.01);
    /* The private log and cos agree with libm closely. */
    for (int i = 1; i <= 1000; i++) {
        double x = i / 1000.0;
        assert_true(fabs(lm__rng_log(x) - log(x)) <= 4e-16 * fabs(log(x)) + 1e-300);
        assert_true(fabs(lm__rng_cos2pi(x - 1e-3) - cos(2 * M_PI * (x - 1e-3))) < 1e-15);
    }
}

static void test_prelude_op_names_match_ir(void **state) {
    (void)state;
#define CHECK_NAME(E, nm, ar, loops, o) assert_string_equal(ir_ops[IR_OP_##E].name, #nm);
    LM_ELEM_OPS(CHECK_NAME)
#undef CHECK_NAME
    for (int op = 0; op < IR_OP_COUNT; op++)
        for (int d = 0; d < LOOM_DTYPE_COUNT; d++) {
            bool elem = ir_ops[op].kind == IR_KIND_ELEM && op != IR_OP_CAST;
            bool has = elem && ir_op_has_loop((ir_op_t)op, (loom_dtype_t)d);
            assert_int_equal(ir_ref_elem[op][d] != NULL, has);
        }
    for (int a = 0; a < LOOM_DTYPE_COUNT; a++)
        for (int b = 0; b < LOOM_DTYPE_COUNT; b++) assert_non_null(ir_ref_cast[a][b]);
}

static void test_prelude_loop_dtypes(void **state) {
    (void)state;
    assert_int_equal(ir_op_loop_dtype(IR_OP_SQRT, LOOM_DTYPE_I8), LOOM_DTYPE_F16);
    assert_int_equal(ir_op_loop_dtype(IR_OP_SQRT, LOOM_DTYPE_I16), LOOM_DTYPE_F32);
    assert_int_equal(ir_op_loop_dtype(IR_OP_SQRT, LOOM_DTYPE_BF16), LOOM_DTYPE_BF16);
    assert_int_equal(ir_op_loop_dtype(IR_OP_FLOOR, LOOM_DTYPE_I8), LOOM_DTYPE_I8);
    assert_int_equal(ir_op_loop_dtype(IR_OP_SIGN, LOOM_DTYPE_BOOL), -1); /* NumPy 2.4 raises */
    assert_int_equal(ir_op_loop_dtype(IR_OP_TRUE_DIVIDE, LOOM_DTYPE_I8), LOOM_DTYPE_F64);
    assert_int_equal(ir_op_loop_dtype(IR_OP_LEFT_SHIFT, LOOM_DTYPE_BOOL), LOOM_DTYPE_I8);
    assert_int_equal(ir_promote(LOOM_DTYPE_BF16, LOOM_DTYPE_F16), LOOM_DTYPE_F32);
    assert_int_equal(ir_promote(LOOM_DTYPE_U64, LOOM_DTYPE_I8), LOOM_DTYPE_F64);
    assert_int_equal(ir_promote(LOOM_DTYPE_U8, LOOM_DTYPE_BF16), LOOM_DTYPE_BF16);
}

static void test_prelude_leaves(void **state) {
    (void)state;
    ir_node_t n;
    memset(&n, 0, sizeof n);
    n.op = IR_OP_ARANGE;
    n.dtype = LOOM_DTYPE_I8;
    n.ndim = 1;
    n.shape[0] = 4;
    /* np.arange(-3, 3, 1.5, dtype=np.int8) == [-3, -1, 1, 3]: the frontend stores int8(-3) and
     * int8(-3 + 1.5) - int8(-3) as the integer parameters. */
    n.p.i0 = -3;
    n.p.di = 2;
    int8_t v[4];
    ir_ref_leaf(&n, v);
    assert_int_equal(v[0], -3);
    assert_int_equal(v[1], -1);
    assert_int_equal(v[3], 3);
    n.op = IR_OP_EYE;
    n.dtype = LOOM_DTYPE_F32;
    n.ndim = 2;
    n.shape[0] = 2;
    n.shape[1] = 3;
    n.p.k = 1;
    float e[6];
    ir_ref_leaf(&n, e);
    assert_true(e[1] == 1 && e[5] == 1 && e[0] == 0 && e[4] == 0);
    /* np.linspace(0, 1, 7, dtype=np.int32) == [0, 0, 0, 0, 0, 0, 1] */
    assert_int_equal(lm_linspace_i32(0, 1.0 / 6, 1.0, 6, 5), 0);
    assert_int_equal(lm_linspace_i32(0, 1.0 / 6, 1.0, 6, 6), 1);
    assert_true(lm_linspace_f64(0, 1.0 / 6, 1.0, 6, 2) == 0.3333333333333333);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prelude_f16_round_trips_all_patterns),
        cmocka_unit_test(test_prelude_f32_to_f16_matches_reference),
        cmocka_unit_test(test_prelude_bf16_conversions),
        cmocka_unit_test(test_prelude_float_to_int_casts),
        cmocka_unit_test(test_prelude_philox_known_answers),
        cmocka_unit_test(test_prelude_random_ranges_and_moments),
        cmocka_unit_test(test_prelude_op_names_match_ir),
        cmocka_unit_test(test_prelude_loop_dtypes),
        cmocka_unit_test(test_prelude_leaves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
