/* test_elementwise — the CUDA device against the CPU reference device: every op × every dtype,
 * broadcasting and strided operands, sizes around powers of two (k up to 31, plus an array over
 * 2^31 elements), multi-output kernels, 0-size and 0-d arrays, random streams bit for bit,
 * kernel-cache hits for loops with changing scalars, and pool reuse. Exit 77 without a GPU. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/check.h"
#include "../support/gpu_ref.h"

static gpu_ref_t ref;         /* LOOM_TEST_SELF_CHECK=1: ref.gpu is a second CPU context */
static loom_ctx_t *gpu, *cpu; /* ref.gpu and ref.cpu */

static const loom_dtype_t all_dtypes[] = {
    LOOM_DTYPE_BOOL, LOOM_DTYPE_I8,  LOOM_DTYPE_I16, LOOM_DTYPE_I32, LOOM_DTYPE_I64,
    LOOM_DTYPE_U8,   LOOM_DTYPE_U16, LOOM_DTYPE_U32, LOOM_DTYPE_U64, LOOM_DTYPE_F16,
    LOOM_DTYPE_BF16, LOOM_DTYPE_F32, LOOM_DTYPE_F64};
#define N_DTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

/* Deterministic test values of dtype d: edge values first, then a spread. */
static void fill(loom_dtype_t d, uint64_t *bits, int64_t n, uint32_t seed) {
    static const double edges[] = {0.0,   -0.0, 1.0,      -1.0,      0.5, -2.5,    3.0,  1e-5,
                                   100.0, -7.0, INFINITY, -INFINITY, NAN, 65504.0, 1e30, -1e-30};
    uint32_t s = seed * 2654435761u + 1;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        if (check_is_float(d)) {
            double v = i < 16 ? edges[i] : ((double)(s >> 8) / 16777216.0 - 0.5) * 20.0;
            bits[i] = check_float_bits(d, v);
        } else if (d == LOOM_DTYPE_BOOL) {
            bits[i] = (s >> 16) & 1;
        } else {
            size_t sz = loom_dtype_size(d);
            uint64_t v = ((uint64_t)s << 32) ^ (s * 2246822519u);
            if (i < 4)
                v = (uint64_t[]){0, 1, UINT64_MAX, (uint64_t)1 << (sz * 8 - 1)}[i];
            else if (i % 3 == 0)
                v = (uint64_t)((int64_t)(s % 17) - 8);
            bits[i] = sz == 8 ? v : v & ((UINT64_C(1) << (sz * 8)) - 1);
        }
    }
}

/* Math functions within the dtype's tolerance (arithmetic is exact on both devices). */
static void compare(loom_array_t *g, loom_array_t *c, const char *what) {
    gpu_ref_compare(&ref, g, c, gpu_ref_math_ulps(), what);
}

/* The random streams are specified bit for bit (docs/random.md): no tolerance. */
static void test_random_bit_identical(void **state) {
    (void)state;
    static const loom_dtype_t fl[] = {LOOM_DTYPE_F16, LOOM_DTYPE_BF16, LOOM_DTYPE_F32,
                                      LOOM_DTYPE_F64};
    int64_t shape[2] = {1000, 37};
    for (size_t t = 0; t < 4; t++) {
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        gpu_ref_compare(&ref, loom_random_uniform(gpu, 1234, fl[t], 2, shape, -2, 5),
                        loom_random_uniform(cpu, 1234, fl[t], 2, shape, -2, 5), gpu_ref_ulps(0),
                        "uniform");
        gpu_ref_compare(&ref, loom_random_normal(gpu, 99, fl[t], 2, shape, 1, 3),
                        loom_random_normal(cpu, 99, fl[t], 2, shape, 1, 3), gpu_ref_ulps(0),
                        "normal");
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
}

/* Adds a pair of op results to a batch (gpu_ref_batch_t: one eval per side, so each dtype's
 * ops compile once, not once per op), compared with the math-function tolerance. */
static void pairs_add(gpu_ref_batch_t *p, loom_array_t *g, loom_array_t *c, const char *what) {
    gpu_ref_batch_add(&ref, p, g, c, gpu_ref_math_ulps(), "%s", what);
}

static void pairs_check(gpu_ref_batch_t *p) { gpu_ref_batch_check(&ref, p); }

static void test_unary_all_dtypes(void **state) {
    (void)state;
    const int64_t n = 1027;
    uint64_t *bits = calloc(n, 8);
    static gpu_ref_batch_t p;
    for (int t = 0; t < N_DTYPES; t++) {
        loom_dtype_t d = all_dtypes[t];
        fill(d, bits, n, (uint32_t)t);
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *xg = check_from_bits(gpu, d, 1, &n, bits, n);
        loom_array_t *xc = check_from_bits(cpu, d, 1, &n, bits, n);
        for (int op = 0; op < check_n_unary; op++) {
            const char *nm = check_unary_names[op];
            /* lgamma and digamma lose relative accuracy near their roots, on either device
             * (CUDA's float64 lgamma documents it on [-11, -2.26]): an absolute bound there */
            bool near_roots = !strcmp(nm, "lgamma") || !strcmp(nm, "digamma");
            gpu_ref_batch_add(&ref, &p, check_unary_fns[op](gpu, xg), check_unary_fns[op](cpu, xc),
                              near_roots ? gpu_ref_scaled(1.0) : gpu_ref_math_ulps(), "%s", nm);
        }
        pairs_check(&p);
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
    free(bits);
}

static void test_binary_all_dtypes(void **state) {
    (void)state;
    const int64_t n = 515;
    uint64_t *a = calloc(n, 8), *b = calloc(n, 8), *bp = calloc(n, 8);
    static gpu_ref_batch_t p;
    for (int t = 0; t < N_DTYPES; t++) {
        loom_dtype_t d = all_dtypes[t];
        fill(d, a, n, (uint32_t)t);
        fill(d, b, n, (uint32_t)t + 7);
        for (int64_t i = 0; i < n; i++)
            bp[i] = check_is_float(d) ? b[i] : b[i] & 7; /* power: no negative int exponents */
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *ag = check_from_bits(gpu, d, 1, &n, a, n),
                     *ac = check_from_bits(cpu, d, 1, &n, a, n);
        loom_array_t *bg = check_from_bits(gpu, d, 1, &n, b, n),
                     *bc = check_from_bits(cpu, d, 1, &n, b, n);
        loom_array_t *pg = check_from_bits(gpu, d, 1, &n, bp, n),
                     *pc = check_from_bits(cpu, d, 1, &n, bp, n);
        for (int op = 0; op < check_n_binary; op++) {
            bool pw = !strcmp(check_binary_names[op], "power");
            pairs_add(&p, check_binary_fns[op](gpu, ag, pw ? pg : bg),
                      check_binary_fns[op](cpu, ac, pw ? pc : bc), check_binary_names[op]);
            /* and with a weak scalar on the right (a kernel parameter) */
            pairs_add(&p, check_binary_f_fns[op](gpu, ag, 3.0),
                      check_binary_f_fns[op](cpu, ac, 3.0), check_binary_names[op]);
        }
        pairs_check(&p);
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
    free(a);
    free(b);
    free(bp);
}

/* Mixed dtypes, casts, where: against the reference, one batch per left dtype. */
/* The compositions (frexp, modf, ldexp, round, fix, isposinf, float_power, divmod) and the
 * float32 special functions against the CPU device, on the fill's edge values and random ones:
 * a float32 special function rounds the same double on both devices, so it agrees to 1 ulp. */
static void test_numeric_compositions(void **state) {
    (void)state;
    static const loom_dtype_t fl[] = {LOOM_DTYPE_F16, LOOM_DTYPE_BF16, LOOM_DTYPE_F32,
                                      LOOM_DTYPE_F64, LOOM_DTYPE_I16};
    const int64_t n = 1027;
    uint64_t *bits = calloc(n, 8), *ebits = calloc(n, 8);
    static gpu_ref_batch_t p;
    for (size_t t = 0; t < sizeof fl / sizeof *fl; t++) {
        loom_dtype_t d = fl[t];
        fill(d, bits, n, (uint32_t)t + 3);
        fill(LOOM_DTYPE_I32, ebits, n, (uint32_t)t + 5);
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *x[2] = {check_from_bits(gpu, d, 1, &n, bits, n),
                              check_from_bits(cpu, d, 1, &n, bits, n)};
        loom_array_t *e[2] = {check_from_bits(gpu, LOOM_DTYPE_I32, 1, &n, ebits, n),
                              check_from_bits(cpu, LOOM_DTYPE_I32, 1, &n, ebits, n)};
        loom_array_t *r[2][12];
        for (int k = 0; k < 2; k++) {
            loom_ctx_t *c = k ? cpu : gpu;
            assert_int_equal(loom_frexp(c, x[k], &r[k][0], &r[k][1]), LOOM_STATUS_OK);
            assert_int_equal(loom_modf(c, x[k], &r[k][2], &r[k][3]), LOOM_STATUS_OK);
            r[k][4] = loom_ldexp(c, x[k], e[k]);
            r[k][5] = loom_round(c, x[k], 2);
            r[k][6] = loom_round(c, x[k], -1);
            r[k][7] = loom_isposinf(c, x[k]);
            r[k][8] = loom_float_power(c, x[k], loom_weak_float(c, 1.5));
            assert_int_equal(loom_divmod(c, x[k], loom_weak_float(c, 2.5), &r[k][9], &r[k][10]),
                             LOOM_STATUS_OK);
            r[k][11] = loom_fix(c, x[k]);
        }
        static const char *const what[] = {"frexp mantissa", "frexp exponent", "modf fraction",
                                            "modf integral", "ldexp", "round 2", "round -1",
                                            "isposinf", "float_power", "divmod q", "divmod r",
                                            "fix"};
        for (int i = 0; i < 12; i++) {
            bool exact = i != 8 && i != 5 && i != 6; /* pow, and rounding's multiply-divide */
            gpu_ref_batch_add(&ref, &p, r[0][i], r[1][i],
                              exact ? gpu_ref_ulps(0) : gpu_ref_math_ulps(), "%s", what[i]);
        }
        if (d == LOOM_DTYPE_F32 || d == LOOM_DTYPE_F64) { /* einsum: products, sums, diagonals */
            static const char *const subs[] = {"ij,jk->ik", "ij,kj", "ii->i", "ij->", "ij,ij->i",
                                               "i,j->ij", "bij,bjk->bki"};
            /* the random values after the fill's edge values (inf * 0 sums differ by order) */
            int64_t s2[2] = {13, 77}, s3[3] = {77, 13, 1}, sq[2] = {30, 30};
            int64_t at[1] = {16}, to2[1] = {16 + 1001}, toq[1] = {16 + 900}, tov[1] = {29};
            loom_array_t *m2[2], *m3[2], *mq[2], *v[2];
            for (int k = 0; k < 2; k++) {
                loom_ctx_t *c = k ? cpu : gpu;
                m2[k] = loom_reshape(c, loom_slice(c, x[k], 1, at, to2, NULL), 2, s2);
                m3[k] = loom_reshape(c, loom_slice(c, x[k], 1, at, to2, NULL), 3, s3);
                mq[k] = loom_reshape(c, loom_slice(c, x[k], 1, at, toq, NULL), 2, sq);
                v[k] = loom_slice(c, x[k], 1, at, tov, NULL);
            }
            for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
                loom_array_t *r2[2];
                for (int k = 0; k < 2; k++) {
                    loom_ctx_t *c = k ? cpu : gpu;
                    loom_array_t *ops[2];
                    switch (i) {
                        case 0: ops[0] = m2[k], ops[1] = loom_transpose(c, m2[k], 2, NULL); break;
                        case 1: ops[0] = m2[k], ops[1] = m2[k]; break;
                        case 2: case 3: ops[0] = mq[k], ops[1] = NULL; break;
                        case 4: ops[0] = m2[k], ops[1] = m2[k]; break;
                        case 5: ops[0] = v[k], ops[1] = v[k]; break;
                        default: ops[0] = loom_transpose(c, m3[k], 3, (int32_t[]){2, 0, 1}),
                                 ops[1] = loom_transpose(c, m3[k], 3, (int32_t[]){2, 1, 0});
                    }
                    r2[k] = loom_einsum(c, subs[i], ops[1] ? 2 : 1, ops, 1);
                }
                gpu_ref_batch_add(&ref, &p, r2[0], r2[1], gpu_ref_scaled(1.0), "einsum %s", subs[i]);
            }
            /* numpy.linalg's norms and products: reductions and matrix products */
            loom_array_t *l[2][7];
            for (int k = 0; k < 2; k++) {
                loom_ctx_t *c = k ? cpu : gpu;
                int32_t ax1 = 1, ax2[2] = {0, 1};
                l[k][0] = loom_norm(c, m2[k], LOOM_NORM_DEFAULT, 0, -1, NULL, 0);
                l[k][1] = loom_norm(c, m2[k], LOOM_NORM_ORD, 1, 1, &ax1, 1);
                l[k][2] = loom_norm(c, m2[k], LOOM_NORM_ORD, 3.5, 1, &ax1, 0);
                l[k][3] = loom_norm(c, mq[k], LOOM_NORM_ORD, INFINITY, 2, ax2, 0);
                l[k][4] = loom_matrix_power(c, loom_true_divide_f(c, mq[k], 30.0), 5);
                loom_array_t *chain[3] = {m2[k], loom_transpose(c, m2[k], 2, NULL), m2[k]};
                l[k][5] = loom_multi_dot(c, 3, chain);
                int64_t s13[2] = {13, 3};
                loom_array_t *t3 = loom_reshape(c, loom_slice(c, x[k], 1, at, (int64_t[]){16 + 39}, NULL), 2, s13);
                l[k][6] = loom_cross(c, t3, loom_flip(c, t3, 0, NULL), -1);
            }
            for (int i = 0; i < 7; i++)
                gpu_ref_batch_add(&ref, &p, l[0][i], l[1][i], gpu_ref_scaled(1.0), "linalg %d", i);
            /* interpolation, integration, polynomials */
            {
                loom_array_t *ip[2][4];
                for (int k = 0; k < 2; k++) {
                    loom_ctx_t *c = k ? cpu : gpu;
                    loom_array_t *sig = loom_slice(c, x[k], 1, at, to2, NULL);
                    loom_array_t *xp = loom_sort(c, loom_slice(c, x[k], 1, at, (int64_t[]){16 + 64}, NULL), 0);
                    loom_array_t *fp = loom_slice(c, x[k], 1, (int64_t[]){100}, (int64_t[]){164}, NULL);
                    ip[k][0] = loom_interp(c, sig, xp, fp, NULL, NULL, NAN);
                    ip[k][1] = loom_trapezoid(c, m2[k], NULL, 0.5, 1);
                    ip[k][2] = loom_polyval(c, v[k], loom_true_divide_f(c, sig, 10.0));
                    ip[k][3] = loom_digitize(c, sig, xp, 0);
                }
                for (int i = 0; i < 4; i++)
                    gpu_ref_batch_add(&ref, &p, ip[0][i], ip[1][i], gpu_ref_scaled(1.0), "interp etc %d", i);
                /* NaN-ignoring order statistics (the fill's NaN and infinities included) */
                loom_array_t *nq[2][3];
                for (int k = 0; k < 2; k++) {
                    loom_ctx_t *c = k ? cpu : gpu;
                    loom_array_t *all = loom_reshape(c, loom_slice(c, x[k], 1, NULL, (int64_t[]){1026}, NULL), 2, (int64_t[]){27, 38});
                    nq[k][0] = loom_nanmedian(c, all, 1, 0);
                    nq[k][1] = loom_nanquantile(c, all, 0.3, 0, LOOM_QUANTILE_LINEAR, 0);
                    nq[k][2] = loom_nanquantile(c, all, 0.8, 1, LOOM_QUANTILE_HAZEN, 1);
                }
                for (int i = 0; i < 3; i++)
                    gpu_ref_batch_add(&ref, &p, nq[0][i], nq[1][i], gpu_ref_ulps(0), "nanquantile %d", i);
            }
            /* direct convolution and correlation (one gather-multiply-sum reduction each) */
            for (int mode = 0; mode < 3; mode++) {
                loom_array_t *cv[2], *cr[2];
                for (int k = 0; k < 2; k++) {
                    loom_ctx_t *c = k ? cpu : gpu;
                    loom_array_t *sig = loom_slice(c, x[k], 1, at, to2, NULL);
                    loom_array_t *ker = loom_slice(c, x[k], 1, at, (int64_t[]){16 + 37}, NULL);
                    cv[k] = loom_convolve(c, sig, ker, (loom_conv_mode_t)mode);
                    cr[k] = loom_correlate(c, ker, sig, (loom_conv_mode_t)mode);
                }
                gpu_ref_batch_add(&ref, &p, cv[0], cv[1], gpu_ref_scaled(1.0), "convolve %d", mode);
                gpu_ref_batch_add(&ref, &p, cr[0], cr[1], gpu_ref_scaled(1.0), "correlate %d", mode);
            }
        }
        if (d == LOOM_DTYPE_F32) { /* the float32 special functions: the same double, rounded
                                      * (erf: float32 code of its own, the same bits) */
            loom_array_t *(*const sp[])(loom_ctx_t *, loom_array_t *) = {
                loom_erf, loom_erfc, loom_erfinv, loom_erfcinv, loom_i0, loom_sinc};
            for (size_t i = 0; i < sizeof sp / sizeof *sp; i++)
                gpu_ref_batch_add(&ref, &p, sp[i](gpu, x[0]), sp[i](cpu, x[1]),
                                  gpu_ref_ulps(i == 0 ? 0 : 1), "special %zu", i);
        }
        pairs_check(&p);
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
    free(bits);
    free(ebits);
}

static void test_mixed_and_where(void **state) {
    (void)state;
    const int64_t n = 4099;
    uint64_t *a = calloc(n, 8), *b = calloc(n, 8);
    static gpu_ref_batch_t p;
    for (int s = 0; s < N_DTYPES; s++) {
        loom_dtype_t da = all_dtypes[s];
        fill(da, a, n, 3);
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *xg = check_from_bits(gpu, da, 1, &n, a, n);
        loom_array_t *xc = check_from_bits(cpu, da, 1, &n, a, n);
        for (int t = 0; t < N_DTYPES; t++) {
            loom_dtype_t db = all_dtypes[t];
            fill(db, b, n, 5);
            loom_array_t *yg = check_from_bits(gpu, db, 1, &n, b, n);
            loom_array_t *yc = check_from_bits(cpu, db, 1, &n, b, n);
            pairs_add(&p, loom_multiply(gpu, xg, yg), loom_multiply(cpu, xc, yc), "multiply mixed");
            pairs_add(&p, loom_astype(gpu, xg, db), loom_astype(cpu, xc, db), "astype");
            pairs_add(&p, loom_where(gpu, loom_greater(gpu, xg, yg), xg, yg),
                      loom_where(cpu, loom_greater(cpu, xc, yc), xc, yc), "where");
        }
        pairs_check(&p);
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
    free(a);
    free(b);
}

/* Broadcasting and reuse of realised (device-resident) inputs read through strides. */
static void test_broadcast_shapes(void **state) {
    (void)state;
    static const int64_t shapes[][2][3] = {
        {{5, 1, 0}, {1, 7, 0}},  {{300, 1, 0}, {300, 0, 0}}, {{1, 0, 0}, {33, 65, 0}},
        {{0, 0, 0}, {4, 0, 0}},  {{2, 3, 4}, {3, 1, 0}},     {{1, 1, 1}, {7, 1, 9}},
        {{6, 1, 0}, {1, 16, 0}}, {{3, 1, 8}, {1, 4, 8}},     {{8192, 1, 0}, {1, 8192, 0}}};
    static const int nd[][2] = {{2, 2}, {2, 1}, {1, 2}, {0, 1}, {3, 2},
                                {3, 3}, {2, 2}, {3, 3}, {2, 2}};
    for (size_t c = 0; c < sizeof nd / sizeof nd[0]; c++) {
        int64_t na = 1, nb = 1;
        for (int i = 0; i < nd[c][0]; i++) na *= shapes[c][0][i];
        for (int i = 0; i < nd[c][1]; i++) nb *= shapes[c][1][i];
        uint64_t *a = calloc((size_t)na + 1, 8), *b = calloc((size_t)nb + 1, 8);
        fill(LOOM_DTYPE_F32, a, na, 1);
        fill(LOOM_DTYPE_F32, b, nb, 2);
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *xg = check_from_bits(gpu, LOOM_DTYPE_F32, nd[c][0], shapes[c][0], a, na);
        loom_array_t *yg = check_from_bits(gpu, LOOM_DTYPE_F32, nd[c][1], shapes[c][1], b, nb);
        loom_array_t *xc = check_from_bits(cpu, LOOM_DTYPE_F32, nd[c][0], shapes[c][0], a, na);
        loom_array_t *yc = check_from_bits(cpu, LOOM_DTYPE_F32, nd[c][1], shapes[c][1], b, nb);
        loom_array_t *g = loom_multiply(gpu, loom_exp(gpu, loom_add(gpu, xg, yg)), xg);
        loom_array_t *cc = loom_multiply(cpu, loom_exp(cpu, loom_add(cpu, xc, yc)), xc);
        compare(g, cc, "exp(a+b)*a");
        /* the realised inputs and result now live on the device: read them again (exact ops,
         * so the comparison keeps the tolerance of the values themselves) */
        compare(loom_multiply(gpu, xg, yg), loom_multiply(cpu, xc, yc), "reuse inputs");
        compare(loom_multiply_f(gpu, g, 2.0), loom_multiply_f(cpu, cc, 2.0), "reuse result");
        loom_scope_end(gpu);
        loom_scope_end(cpu);
        free(a);
        free(b);
    }
}

/* Sizes 2^k-1, 2^k, 2^k+1 against the reference (k <= 22), then by closed form up to 2^31+1. */
static void test_sizes(void **state) {
    (void)state;
    for (int k = 0; k <= 22; k += (k < 12 ? 1 : 5)) {
        for (int64_t dn = -1; dn <= 1; dn++) {
            int64_t n = ((int64_t)1 << k) + dn;
            if (n < 0) continue;
            loom_scope_begin(gpu);
            loom_scope_begin(cpu);
            loom_array_t *g = loom_random_uniform(gpu, 42, LOOM_DTYPE_F32, 1, &n, -3, 3);
            loom_array_t *c = loom_random_uniform(cpu, 42, LOOM_DTYPE_F32, 1, &n, -3, 3);
            gpu_ref_compare(&ref, g, c, gpu_ref_ulps(0), "random_uniform");
            compare(
                loom_sqrt(gpu, loom_add(gpu, loom_square(gpu, g), loom_multiply_f(gpu, g, 0.5))),
                loom_sqrt(cpu, loom_add(cpu, loom_square(cpu, c), loom_multiply_f(cpu, c, 0.5))),
                "chain");
            loom_scope_end(gpu);
            loom_scope_end(cpu);
        }
    }
    static const int big[] = {25, 28, 31};
    for (size_t b = 0; b < sizeof big / sizeof big[0] && !ref.self_check; b++)
        for (int64_t dn = -1; dn <= 1; dn++) {
            int64_t n = ((int64_t)1 << big[b]) + dn + (big[b] == 31 ? 4 : 0); /* 2^31+3..+5 */
            loom_scope_begin(gpu);
            loom_array_t *x = loom_full(gpu, LOOM_DTYPE_U8, 1, &n, 3);
            loom_array_t *y = loom_add_i(gpu, loom_multiply_i(gpu, x, 2), 1); /* 7 everywhere */
            uint8_t *h = malloc((size_t)n);
            assert_non_null(h);
            assert_int_equal(loom_read(gpu, y, h, (size_t)n), LOOM_STATUS_OK);
            int64_t bad = 0;
            for (int64_t i = 0; i < n; i++) bad += h[i] != 7;
            assert_int_equal(bad, 0);
            free(h);
            loom_scope_end(gpu);
        }
}

/* Two outputs of one space share one kernel; a second eval of the same graph compiles nothing. */
static void test_multi_output_and_cache(void **state) {
    (void)state;
    if (ref.self_check) skip(); /* kernel and plan counters exist on the CUDA device only */
    const int64_t n = 100003;
    loom_stats_t s0, s1, s2;
    loom_ctx_stats(gpu, &s0);
    loom_scope_begin(gpu);
    loom_array_t *x = loom_random_normal(gpu, 7, LOOM_DTYPE_F32, 1, &n, 0, 1);
    loom_array_t *t = loom_tanh(gpu, x);
    loom_array_t *outs[2] = {loom_multiply_f(gpu, t, 2.0), loom_add_f(gpu, t, 1.0)};
    assert_int_equal(loom_eval(gpu, 2, outs), LOOM_STATUS_OK);
    loom_ctx_stats(gpu, &s1);
    assert_int_equal(s1.kernels_launched - s0.kernels_launched, 1);
    /* a loop with a changing scalar: b = b + 0.02 compiles once */
    loom_array_t *b = loom_zeros(gpu, LOOM_DTYPE_F32, 1, &n);
    for (int i = 0; i < 50; i++) {
        loom_array_t *nb = loom_add_f(gpu, b, 0.02 * (i % 3 + 1));
        assert_int_equal(loom_eval(gpu, 1, &nb), LOOM_STATUS_OK);
        b = nb;
    }
    loom_ctx_stats(gpu, &s2);
    assert_true(s2.kernel_compiles - s1.kernel_compiles <= 2); /* zeros+add, then add */
    assert_true(s2.plan_hits - s1.plan_hits >= 48);            /* the dispatch fast path */
    float *all = malloc(n * sizeof *all);
    assert_int_equal(loom_read(gpu, b, all, n * sizeof *all), LOOM_STATUS_OK);
    float expect = 0;
    for (int i = 0; i < 50; i++) expect += (float)(0.02 * (i % 3 + 1)); /* same float32 steps */
    assert_true(all[0] == expect && all[n - 1] == expect);
    free(all);
    loom_scope_end(gpu);
    /* pool: intermediates were returned and reused, nothing outstanding */
    loom_stats_t s3;
    loom_ctx_stats(gpu, &s3);
    assert_int_equal(s3.pool_bytes_in_use, s0.pool_bytes_in_use);
    assert_true(s3.pool_bytes_held >= s3.pool_bytes_in_use);
}

static void test_zero_size_and_zero_d(void **state) {
    (void)state;
    int64_t z = 0;
    loom_scope_begin(gpu);
    loom_array_t *e = loom_add_f(gpu, loom_zeros(gpu, LOOM_DTYPE_F32, 1, &z), 1.0);
    assert_int_equal(loom_eval(gpu, 1, &e), LOOM_STATUS_OK);
    assert_int_equal(loom_array_size(e), 0);
    loom_array_t *s =
        loom_multiply(gpu, loom_full(gpu, LOOM_DTYPE_F64, 0, NULL, 1.5), loom_weak_float(gpu, 4.0));
    double v = 0;
    assert_int_equal(loom_read(gpu, s, &v, sizeof v), LOOM_STATUS_OK);
    assert_true(v == 6.0);
    loom_scope_end(gpu);
}

/* Integer arrays to negative integer powers raise on the device as NumPy raises (the status
 * word of the kernel, read by the next call that waits for the device): in an elementwise
 * kernel, a reduction's operand and a scan's; the word is cleared, so the same plans with
 * exponents >= 0 then give the reference's values. */
static void test_power_negative_exponent_raises(void **state) {
    (void)state;
    static const loom_dtype_t sints[] = {LOOM_DTYPE_I8, LOOM_DTYPE_I32, LOOM_DTYPE_I64};
    const int64_t n = 1 << 20;
    for (size_t t = 0; t < sizeof sints / sizeof sints[0]; t++) {
        loom_dtype_t d = sints[t];
        for (int bad = 1; bad >= 0; bad--) {
            /* exponents 0..5, and one -1 far into the array when bad */
            loom_ctx_t *cx[2] = {gpu, cpu};
            loom_array_t *r[2][3];
            for (int c = 0; c < 2; c++) {
                loom_ctx_t *x = cx[c];
                loom_array_t *e = loom_remainder(x, loom_arange_int(x, 0, n, 1, d),
                                                 loom_weak_int(x, 6));
                if (bad)
                    e = loom_where(x, loom_equal(x, loom_arange_int(x, 0, n, 1, LOOM_DTYPE_I64),
                                                 loom_weak_int(x, n - 77)),
                                   loom_weak_int(x, -1), e);
                loom_array_t *p = loom_power(x, loom_full(x, d, 0, NULL, 3), e);
                int32_t ax = 0;
                r[c][0] = loom_add(x, p, loom_weak_int(x, 1));
                r[c][1] = loom_max(x, p, 1, &ax, 0);
                r[c][2] = loom_cumsum(x, loom_astype(x, p, LOOM_DTYPE_I64), 0);
            }
            for (int k = 0; k < 3; k++) {
                /* the eval does not wait for the device; the next wait reports the raise */
                loom_status_t st = loom_eval(gpu, 1, &r[0][k]);
                assert_int_equal(st, LOOM_STATUS_OK);
                if (bad) st = loom_sync(gpu);
                if (bad) {
                    assert_int_equal(st, LOOM_STATUS_INVALID_ARGUMENT);
                    assert_non_null(strstr(loom_ctx_message(gpu), "negative integer powers"));
                    loom_ctx_clear_error(gpu);
                    assert_int_equal(loom_eval(cpu, 1, &r[1][k]), LOOM_STATUS_INVALID_ARGUMENT);
                    loom_ctx_clear_error(cpu);
                } else {
                    assert_int_equal(st, LOOM_STATUS_OK);
                    gpu_ref_compare(&ref, r[0][k], r[1][k], gpu_ref_ulps(0), "power");
                }
            }
        }
    }
}

int main(void) {
    int opened = gpu_ref_open(&ref);
    if (opened != 0) return opened; /* 77: no CUDA device (skipped) */
    gpu = ref.gpu;
    cpu = ref.cpu;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unary_all_dtypes),
        cmocka_unit_test(test_binary_all_dtypes),
        cmocka_unit_test(test_numeric_compositions),
        cmocka_unit_test(test_mixed_and_where),
        cmocka_unit_test(test_broadcast_shapes),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_multi_output_and_cache),
        cmocka_unit_test(test_zero_size_and_zero_d),
        cmocka_unit_test(test_random_bit_identical),
        cmocka_unit_test(test_power_negative_exponent_raises),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    gpu_ref_close(&ref);
    return rc;
}
