/* test_gemm_epilogue — en_matmul_epilogue on hand-built IR graphs (no device): which bias, scale,
 * relu and gelu chains a matmul step absorbs, where a chain stops (a node used elsewhere, a
 * bias that is not along the last axis, a dtype cuBLASLt's epilogues do not keep), and the
 * absorbed node lists the scheduler copies into the step graph. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../support/ir_build.h"

typedef struct mm_case {
    tb_t t;
    uint32_t mm;
    uint32_t nu[256];
} mm_case_t;

/* a (m x k) @ b (k x n) of dtype d. */
static void mm_init(mm_case_t *c, loom_dtype_t d, int64_t m, int64_t k, int64_t n) {
    tb_init(&c->t);
    int64_t as[2] = {m, k}, bs[2] = {k, n};
    c->mm = tb_matmul(&c->t, tb_input(&c->t, d, 2, as, NULL), tb_input(&c->t, d, 2, bs, NULL));
    assert_true(c->mm != UINT32_MAX);
}

/* en_matmul_epilogue with `out` the graph's only output. */
static uint32_t absorbed(mm_case_t *c, uint32_t out) {
    ir_add_output(&c->t.g, out);
    assert_true(c->t.g.n_nodes <= 256);
    tb_users(&c->t, c->nu);
    return en_matmul_epilogue(&c->t.g, c->mm, c->nu);
}

static uint32_t bias_of(mm_case_t *c, int nd) {
    int64_t shape[3] = {1, 1, 1};
    shape[nd - 1] = c->t.g.nodes[c->mm].shape[c->t.g.nodes[c->mm].ndim - 1];
    return tb_input(&c->t, (loom_dtype_t)c->t.g.nodes[c->mm].dtype, nd, shape, NULL);
}

static void test_gemm_epilogue_none(void **state) {
    (void)state;
    mm_case_t c;
    mm_init(&c, LOOM_DTYPE_F32, 4, 5, 6);
    assert_int_equal(absorbed(&c, c.mm), c.mm);
    uint32_t nodes[CG_GEMM_MAX_EPILOGUE];
    assert_int_equal(en_matmul_epilogue_nodes(&c.t.g, c.mm, c.nu, nodes), 0);
    tb_fini(&c.t);
}

static void test_gemm_epilogue_bias_relu(void **state) {
    (void)state;
    static const loom_dtype_t ds[] = {LOOM_DTYPE_F16, LOOM_DTYPE_BF16, LOOM_DTYPE_F32};
    for (int nd = 1; nd <= 2; nd++)
        for (int i = 0; i < 3; i++) {
            mm_case_t c;
            mm_init(&c, ds[i], 4, 5, 6);
            uint32_t add = tb_op(&c.t, IR_OP_ADD, c.mm, i == 1 ? bias_of(&c, nd) : c.mm,
                                 i == 1 ? c.mm : bias_of(&c, nd)); /* either operand order */
            uint32_t relu =
                tb_op(&c.t, IR_OP_MAXIMUM, c.mm, add, tb_const(&c.t, ds[i], 0.0));
            assert_int_equal(absorbed(&c, relu), relu);
            uint32_t nodes[CG_GEMM_MAX_EPILOGUE];
            assert_int_equal(en_matmul_epilogue_nodes(&c.t.g, c.mm, c.nu, nodes), 2);
            assert_int_equal(nodes[0], add);
            assert_int_equal(nodes[1], relu);
            tb_fini(&c.t);
        }
}

static void test_gemm_epilogue_scales(void **state) {
    (void)state;
    mm_case_t c;
    mm_init(&c, LOOM_DTYPE_F16, 8, 3, 5);
    uint32_t s1 = tb_op(&c.t, IR_OP_MULTIPLY, c.mm, tb_const(&c.t, LOOM_DTYPE_F16, 2.0), c.mm);
    uint32_t add = tb_op(&c.t, IR_OP_ADD, c.mm, s1, bias_of(&c, 2));
    uint32_t s2 = tb_op(&c.t, IR_OP_MULTIPLY, c.mm, add, tb_const(&c.t, LOOM_DTYPE_F16, 0.5));
    uint32_t relu = tb_op(&c.t, IR_OP_MAXIMUM, c.mm, s2, tb_const(&c.t, LOOM_DTYPE_F16, 0.0));
    assert_int_equal(absorbed(&c, relu), relu);
    uint32_t nodes[CG_GEMM_MAX_EPILOGUE];
    assert_int_equal(en_matmul_epilogue_nodes(&c.t.g, c.mm, c.nu, nodes), 4);
    tb_fini(&c.t);

    mm_init(&c, LOOM_DTYPE_F32, 8, 3, 5); /* a scale alone */
    s1 = tb_op(&c.t, IR_OP_MULTIPLY, c.mm, c.mm, tb_const(&c.t, LOOM_DTYPE_F32, 3.0));
    assert_int_equal(absorbed(&c, s1), s1);
    tb_fini(&c.t);

    mm_init(&c, LOOM_DTYPE_F32, 8, 3, 5); /* times an array is not a scale */
    int64_t full[2] = {8, 5};
    s1 = tb_op(&c.t, IR_OP_MULTIPLY, c.mm, c.mm, tb_input(&c.t, LOOM_DTYPE_F32, 2, full, NULL));
    assert_int_equal(absorbed(&c, s1), c.mm);
    tb_fini(&c.t);
}

static void test_gemm_epilogue_gelu(void **state) {
    (void)state;
    static const loom_dtype_t ds[] = {LOOM_DTYPE_F16, LOOM_DTYPE_BF16, LOOM_DTYPE_F32};
    for (int i = 0; i < 3; i++) {
        mm_case_t c;
        mm_init(&c, ds[i], 16, 7, 9);
        uint32_t add = tb_op(&c.t, IR_OP_ADD, c.mm, c.mm, bias_of(&c, 1));
        uint32_t g = tb_gelu(&c.t, add);
        assert_int_equal(absorbed(&c, g), g);
        uint32_t nodes[CG_GEMM_MAX_EPILOGUE];
        uint32_t n = en_matmul_epilogue_nodes(&c.t.g, c.mm, c.nu, nodes);
        assert_int_equal(n, 10); /* add, and gelu's 9 nodes */
        assert_int_equal(nodes[0], add);
        assert_int_equal(nodes[n - 1], g);
        for (uint32_t j = 1; j < n; j++) assert_true(nodes[j - 1] < nodes[j]);
        tb_fini(&c.t);
    }
    /* gelu straight after the product */
    mm_case_t c;
    mm_init(&c, LOOM_DTYPE_F32, 4, 4, 4);
    uint32_t g = tb_gelu(&c.t, c.mm);
    assert_int_equal(absorbed(&c, g), g);
    tb_fini(&c.t);
    /* x also used outside the pattern: gelu stays out, the bias is still absorbed */
    mm_init(&c, LOOM_DTYPE_F32, 4, 4, 4);
    uint32_t add = tb_op(&c.t, IR_OP_ADD, c.mm, c.mm, bias_of(&c, 1));
    g = tb_gelu(&c.t, add);
    ir_add_output(&c.t.g, add);
    assert_int_equal(absorbed(&c, g), add);
    tb_fini(&c.t);
    /* a wrong constant (0.04 instead of 0.044715) is not gelu */
    mm_init(&c, LOOM_DTYPE_F32, 4, 4, 4);
    uint32_t x = c.mm;
    uint32_t cube = tb_op(&c.t, IR_OP_MULTIPLY, x, tb_op(&c.t, IR_OP_MULTIPLY, x, x, x), x);
    uint32_t inner = tb_op(
        &c.t, IR_OP_MULTIPLY, x,
        tb_op(&c.t, IR_OP_ADD, x, x,
              tb_op(&c.t, IR_OP_MULTIPLY, x, cube, tb_const(&c.t, LOOM_DTYPE_F32, 0.04))),
        tb_const(&c.t, LOOM_DTYPE_F32, 0.7978845608));
    uint32_t half = tb_op(&c.t, IR_OP_MULTIPLY, x, x, tb_const(&c.t, LOOM_DTYPE_F32, 0.5));
    g = tb_op(&c.t, IR_OP_MULTIPLY, x, half,
              tb_op(&c.t, IR_OP_ADD, x, tb_op(&c.t, IR_OP_TANH, x, inner, 0),
                    tb_const(&c.t, LOOM_DTYPE_F32, 1.0)));
    assert_int_equal(absorbed(&c, g), c.mm);
    tb_fini(&c.t);
}

static void test_gemm_epilogue_stops(void **state) {
    (void)state;
    mm_case_t c;
    /* the bias sum is also an output: it ends the chain, relu stays out */
    mm_init(&c, LOOM_DTYPE_F32, 4, 5, 6);
    uint32_t add = tb_op(&c.t, IR_OP_ADD, c.mm, c.mm, bias_of(&c, 1));
    uint32_t relu = tb_op(&c.t, IR_OP_MAXIMUM, c.mm, add, tb_const(&c.t, LOOM_DTYPE_F32, 0.0));
    ir_add_output(&c.t.g, add);
    assert_int_equal(absorbed(&c, relu), add);
    tb_fini(&c.t);
    /* the product itself is an output: nothing absorbed */
    mm_init(&c, LOOM_DTYPE_F32, 4, 5, 6);
    add = tb_op(&c.t, IR_OP_ADD, c.mm, c.mm, bias_of(&c, 1));
    ir_add_output(&c.t.g, c.mm);
    assert_int_equal(absorbed(&c, add), c.mm);
    tb_fini(&c.t);
    /* a full (m, n) addend is not a bias; a column (m, 1) neither */
    int64_t full[2] = {4, 6}, col[2] = {4, 1};
    for (int i = 0; i < 2; i++) {
        mm_init(&c, LOOM_DTYPE_F32, 4, 5, 6);
        uint32_t other = tb_input(&c.t, LOOM_DTYPE_F32, 2, i ? col : full, NULL);
        add = tb_op(&c.t, IR_OP_ADD, c.mm, c.mm, other);
        assert_int_equal(absorbed(&c, add), c.mm);
        tb_fini(&c.t);
    }
    /* maximum with 1 is not relu */
    mm_init(&c, LOOM_DTYPE_F32, 4, 5, 6);
    relu = tb_op(&c.t, IR_OP_MAXIMUM, c.mm, c.mm, tb_const(&c.t, LOOM_DTYPE_F32, 1.0));
    assert_int_equal(absorbed(&c, relu), c.mm);
    tb_fini(&c.t);
}

static void test_gemm_epilogue_dtypes_and_shapes(void **state) {
    (void)state;
    static const loom_dtype_t no[] = {LOOM_DTYPE_F64, LOOM_DTYPE_I32, LOOM_DTYPE_BOOL};
    for (int i = 0; i < 3; i++) {
        mm_case_t c;
        mm_init(&c, no[i], 4, 5, 6);
        uint32_t add = tb_op(&c.t, IR_OP_ADD, c.mm, c.mm, bias_of(&c, 1));
        assert_int_equal(absorbed(&c, add), c.mm);
        tb_fini(&c.t);
    }
    /* batched (2, 4, 5) @ (5, 6): the bias (6,) broadcasts over batch and rows */
    mm_case_t c;
    tb_init(&c.t);
    int64_t as[3] = {2, 4, 5}, bs[2] = {5, 6}, vs[1] = {5};
    c.mm = tb_matmul(&c.t, tb_input(&c.t, LOOM_DTYPE_F32, 3, as, NULL),
                     tb_input(&c.t, LOOM_DTYPE_F32, 2, bs, NULL));
    uint32_t add = tb_op(&c.t, IR_OP_ADD, c.mm, c.mm, bias_of(&c, 3));
    assert_int_equal(absorbed(&c, add), add);
    tb_fini(&c.t);
    /* matrix @ vector: a 1-D result absorbs nothing */
    tb_init(&c.t);
    c.mm = tb_matmul(&c.t, tb_input(&c.t, LOOM_DTYPE_F32, 3, as, NULL),
                     tb_input(&c.t, LOOM_DTYPE_F32, 1, vs, NULL));
    uint32_t s = tb_op(&c.t, IR_OP_MULTIPLY, c.mm, c.mm, tb_const(&c.t, LOOM_DTYPE_F32, 2.0));
    assert_int_equal(absorbed(&c, s), c.mm);
    tb_fini(&c.t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_epilogue_none),
        cmocka_unit_test(test_gemm_epilogue_bias_relu),
        cmocka_unit_test(test_gemm_epilogue_scales),
        cmocka_unit_test(test_gemm_epilogue_gelu),
        cmocka_unit_test(test_gemm_epilogue_stops),
        cmocka_unit_test(test_gemm_epilogue_dtypes_and_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
