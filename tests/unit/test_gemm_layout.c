/* test_gemm_layout — en_matmul_layout without a device: the cuBLAS calls it describes (op flags,
 * leading dimensions, strided batches, loops over the other batch axes, gathered operands)
 * are run by a column-major emulation of cublasLtMatmul on float64 operands holding small
 * integers, and must give the CPU reference's result exactly: matmul with transposed and
 * broadcast operands, vectors, np.dot and tensordot of N-D operands (whose results interleave
 * b's batch axes between m and n), and a strided slice that must be gathered. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "engine/internal.h"

#define CAP 4096

typedef struct mm_case {
    int64_t mode;
    int an, bn;
    int64_t ash[4], bsh[4];
    int64_t ast[4], bst[4]; /* element strides; all zero: C order */
} mm_case_t;

static int64_t span(int nd, const int64_t *sh, const int64_t *st) {
    int64_t hi = 0;
    for (int i = 0; i < nd; i++) hi += (sh[i] - 1) * st[i];
    return hi + 1;
}

static void c_order(int nd, const int64_t *sh, int64_t *st) {
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) st[i] = s, s *= sh[i];
}

static ir_node_t node(int nd, const int64_t *sh) {
    ir_node_t n;
    memset(&n, 0, sizeof n);
    n.op = IR_OP_INPUT;
    n.dtype = LOOM_DTYPE_F64;
    n.ndim = (uint8_t)nd;
    memcpy(n.shape, sh, sizeof(int64_t) * (size_t)nd);
    return n;
}

/* Copies the view (nd, sh, st) of x into C order at y. */
static void gather(int nd, const int64_t *sh, const int64_t *st, const double *x, double *y) {
    int64_t size = 1;
    for (int i = 0; i < nd; i++) size *= sh[i];
    for (int64_t e = 0; e < size; e++) {
        int64_t r = e, off = 0;
        for (int i = nd - 1; i >= 0; i--) off += (r % sh[i]) * st[i], r /= sh[i];
        y[e] = x[off];
    }
}

/* What cublasLtMatmul computes for l (alpha 1, beta 0), with cuBLAS's A = b, B = a. */
static void emulate(const en_matmul_layout_t *l, const double *a, const double *b, double *c) {
    int64_t idx[2 * LOOM_MAX_DIMS] = {0};
    for (;;) {
        int64_t oa = 0, ob = 0, oc = 0;
        for (int i = 0; i < l->n_loop; i++)
            oa += idx[i] * l->loop[i].sa, ob += idx[i] * l->loop[i].sb, oc += idx[i] * l->loop[i].sc;
        for (int64_t t = 0; t < l->batch; t++) {
            const double *A = b + ob + t * l->stride_a, *B = a + oa + t * l->stride_b;
            double *D = c + oc + t * l->stride_d;
            for (int64_t i = 0; i < l->m; i++)
                for (int64_t j = 0; j < l->n; j++) {
                    double s = 0;
                    for (int64_t p = 0; p < l->k; p++)
                        s += (l->trans_a ? A[p + i * l->lda] : A[i + p * l->lda]) *
                             (l->trans_b ? B[j + p * l->ldb] : B[p + j * l->ldb]);
                    D[i + j * l->ldd] = s;
                }
        }
        int i = l->n_loop - 1;
        for (; i >= 0; i--) {
            if (++idx[i] < l->loop[i].n) break;
            idx[i] = 0;
        }
        if (i < 0) break;
    }
}

/* Plans c, maps it to cuBLAS calls (gathering as gemm.c does), emulates them and compares
 * with ir_ref_matmul. Returns the layout used. */
static en_matmul_layout_t run_case(const mm_case_t *c, bool *gathered) {
    static double a[CAP], b[CAP], ga[CAP], gb[CAP], want[CAP], got[CAP];
    int64_t ast[4], bst[4];
    bool ac = !c->ast[0] && !c->ast[c->an - 1], bc = !c->bst[0] && !c->bst[c->bn - 1];
    if (ac) c_order(c->an, c->ash, ast); else memcpy(ast, c->ast, sizeof ast);
    if (bc) c_order(c->bn, c->bsh, bst); else memcpy(bst, c->bst, sizeof bst);
    int64_t na = span(c->an, c->ash, ast), nb = span(c->bn, c->bsh, bst);
    assert_true(na <= CAP && nb <= CAP);
    for (int64_t i = 0; i < na; i++) a[i] = (double)((i * 7 + 3) % 11) - 5;
    for (int64_t i = 0; i < nb; i++) b[i] = (double)((i * 5 + 1) % 13) - 6;
    ir_node_t an = node(c->an, c->ash), bn = node(c->bn, c->bsh), out;
    int ond;
    int64_t osh[LOOM_MAX_DIMS];
    ir_matmul_why_t why;
    assert_true(ir_matmul_shape(c->mode, c->an, c->ash, c->bn, c->bsh, &ond, osh, &why));
    out = node(ond, osh);
    out.op = IR_OP_MATMUL;
    out.p.k = c->mode;
    int64_t size = ir_node_size(&out);
    assert_true(size <= CAP);
    base_alloc_t al = {.fail_after = -1};
    assert_true(ir_ref_matmul(&out, &an, a, ast, &bn, b, bst, want, &al));

    ir_matmul_plan_t p;
    en_matmul_layout_t l;
    const double *pa = a, *pb = b;
    assert_true(ir_matmul_plan(&out, &an, ast, &bn, bst, &p));
    *gathered = false;
    if (!en_matmul_layout(&p, &l)) {
        assert_true(l.gather_a || l.gather_b); /* results are always writable */
        *gathered = true;
        if (l.gather_a) {
            gather(c->an, c->ash, ast, a, ga);
            c_order(c->an, c->ash, ast);
            pa = ga;
        }
        if (l.gather_b) {
            gather(c->bn, c->bsh, bst, b, gb);
            c_order(c->bn, c->bsh, bst);
            pb = gb;
        }
        assert_true(ir_matmul_plan(&out, &an, ast, &bn, bst, &p));
        assert_true(en_matmul_layout(&p, &l));
    }
    assert_true(l.ldd >= l.m);
    for (int64_t i = 0; i < size; i++) got[i] = 1e300; /* unwritten elements show */
    emulate(&l, pa, pb, got);
    for (int64_t i = 0; i < size; i++) {
        if (got[i] != want[i]) print_error("element %lld: want %g got %g\n", (long long)i, want[i], got[i]);
        assert_true(got[i] == want[i]);
    }
    return l;
}

static void test_gemm_layout_matmul(void **state) {
    (void)state;
    static const mm_case_t cases[] = {
        {IR_MATMUL_MATMUL, 2, 2, {4, 5}, {5, 6}, {0}, {0}},
        {IR_MATMUL_MATMUL, 2, 2, {4, 5}, {5, 6}, {1, 4}, {0}},     /* a transposed */
        {IR_MATMUL_MATMUL, 2, 2, {4, 5}, {5, 6}, {0}, {1, 5}},     /* b transposed */
        {IR_MATMUL_MATMUL, 2, 2, {4, 5}, {5, 6}, {1, 4}, {1, 5}},
        {IR_MATMUL_MATMUL, 1, 2, {5}, {5, 3}, {0}, {0}},
        {IR_MATMUL_MATMUL, 2, 1, {4, 5}, {5}, {0}, {0}},
        {IR_MATMUL_MATMUL, 1, 1, {7}, {7}, {0}, {0}},
        {IR_MATMUL_MATMUL, 4, 3, {2, 1, 4, 5}, {3, 5, 6}, {0}, {0}}, /* broadcast batch */
        {IR_MATMUL_MATMUL, 3, 2, {3, 4, 5}, {5, 6}, {0}, {0}},
        {IR_MATMUL_MATMUL, 2, 3, {4, 5}, {3, 5, 6}, {0}, {0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool g;
        en_matmul_layout_t l = run_case(&cases[i], &g);
        assert_false(g);
        if (i == 7) assert_int_equal(l.batch * (l.n_loop ? l.loop[0].n : 1), 6);
    }
}

/* The regression: np.dot of N-D operands puts b's batch axes between m and n, so the result's
 * rows are not n apart (test_matmul's "dot N-D" on the H200 had 108 of 144 elements wrong). */
static void test_gemm_layout_dot_nd(void **state) {
    (void)state;
    mm_case_t c = {IR_MATMUL_DOT, 3, 3, {3, 4, 5}, {2, 5, 6}, {0}, {0}};
    bool g;
    en_matmul_layout_t l = run_case(&c, &g);
    assert_false(g);
    assert_int_equal(l.ldd, 2 * 6); /* result (3, 4, 2, 6): rows of m are 12 apart */
    mm_case_t c2 = {IR_MATMUL_DOT, 2, 3, {2, 3}, {4, 3, 5}, {0}, {0}};
    run_case(&c2, &g);
    mm_case_t c3 = {IR_MATMUL_DOT, 2, 2, {4, 5}, {5, 6}, {0}, {0}};
    run_case(&c3, &g);
}

static void test_gemm_layout_tensordot(void **state) {
    (void)state;
    mm_case_t c = {IR_MATMUL_TENSORDOT + 2, 3, 3, {3, 4, 5}, {4, 5, 7}, {0}, {0}};
    bool g;
    run_case(&c, &g);
    mm_case_t c1 = {IR_MATMUL_TENSORDOT + 1, 3, 3, {3, 4, 5}, {5, 2, 3}, {0}, {0}};
    run_case(&c1, &g);
    mm_case_t c2 = {IR_MATMUL_TENSORDOT + 2, 3, 3, {3, 4, 5}, {4, 5, 7}, {1, 3, 12}, {0}};
    run_case(&c2, &g); /* outer contracted axis that does not fold: gathered */
}

/* test_matmul's strided slice: a (16, 20) with strides (40, 2) is gathered, b is not. */
static void test_gemm_layout_strided_slice(void **state) {
    (void)state;
    mm_case_t c = {IR_MATMUL_MATMUL, 2, 2, {16, 20}, {20, 12}, {40, 2}, {0}};
    bool g;
    en_matmul_layout_t l = run_case(&c, &g);
    assert_true(g);
    assert_int_equal(l.ldb, 20);
    assert_int_equal(l.lda, 12);
    assert_int_equal(l.ldd, 12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_layout_matmul),
        cmocka_unit_test(test_gemm_layout_dot_nd),
        cmocka_unit_test(test_gemm_layout_tensordot),
        cmocka_unit_test(test_gemm_layout_strided_slice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
