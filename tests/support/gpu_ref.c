/* gpu_ref — the GPU-against-reference harness; see gpu_ref.h. Uses only loom's public API. */
#include "gpu_ref.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include "check.h"

int gpu_ref_open(gpu_ref_t *r) {
    loom_options_t o = {0};
    r->gpu = r->cpu = NULL;
    r->self_check = getenv("LOOM_TEST_SELF_CHECK") != NULL;
    o.device = r->self_check ? LOOM_DEVICE_CPU : LOOM_DEVICE_CUDA;
    if (loom_ctx_create(&o, &r->gpu) != LOOM_STATUS_OK) {
        fprintf(stderr, "no CUDA device: %s (skipped)\n", loom_last_create_message());
        return 77;
    }
    o.device = LOOM_DEVICE_CPU;
    if (loom_ctx_create(&o, &r->cpu) != LOOM_STATUS_OK) {
        fprintf(stderr, "no CPU reference context: %s\n", loom_last_create_message());
        loom_ctx_destroy(r->gpu);
        r->gpu = NULL;
        return 1;
    }
    return 0;
}

void gpu_ref_close(gpu_ref_t *r) {
    loom_ctx_destroy(r->gpu);
    loom_ctx_destroy(r->cpu);
    r->gpu = r->cpu = NULL;
}

gpu_ref_tol_t gpu_ref_ulps(int ulps) {
    gpu_ref_tol_t t = {.rule = GPU_REF_ULPS, .ulps = ulps};
    return t;
}

gpu_ref_tol_t gpu_ref_math_ulps(void) {
    gpu_ref_tol_t t = {.rule = GPU_REF_MATH_ULPS};
    return t;
}

gpu_ref_tol_t gpu_ref_scaled(double scale) {
    gpu_ref_tol_t t = {.rule = GPU_REF_SCALED, .scale = scale};
    return t;
}

/* The GPU_REF_MATH_ULPS tolerance of dtype d. Arithmetic is exact on both devices. */
static int math_ulps(loom_dtype_t d) {
    switch (d) {
        case LOOM_DTYPE_F16:
        case LOOM_DTYPE_BF16:
            return 1;
        case LOOM_DTYPE_F32:
        case LOOM_DTYPE_F64:
            return 4;
        default:
            return 0;
    }
}

/* The GPU_REF_SCALED relative tolerance of dtype d. */
static double sum_rtol(loom_dtype_t d) {
    switch (d) {
        case LOOM_DTYPE_F16:
        case LOOM_DTYPE_BF16:
            return 2e-2;
        case LOOM_DTYPE_F32:
            return 1e-4;
        default:
            return 1e-10;
    }
}

/* Whether element bits got (GPU) match expected (CPU) of dtype d under tol. */
static bool element_match(loom_dtype_t d, uint64_t expected, uint64_t got, gpu_ref_tol_t tol) {
    switch (tol.rule) {
        case GPU_REF_ULPS:
            return check_bits_match(d, expected, got, tol.ulps);
        case GPU_REF_MATH_ULPS:
            return check_bits_match(d, expected, got, math_ulps(d));
        case GPU_REF_SCALED:
            break;
    }
    if (!check_is_float(d)) return expected == got;
    double a = check_bits_to_double(d, expected), b = check_bits_to_double(d, got);
    double m = fabs(a) > tol.scale ? fabs(a) : tol.scale;
    if ((isnan(a) && isnan(b)) || a == b || fabs(a - b) <= sum_rtol(d) * m) return true;
    bool special_a = a == 0 || isinf(a) || isnan(a), special_b = b == 0 || isinf(b) || isnan(b);
    return tol.order_specials && special_a && special_b;
}

/* Both nil: the same status on both sides, then cleared. Returns whether they were nil. */
static bool both_nil(const gpu_ref_t *r, loom_array_t *g, loom_array_t *c) {
    assert_int_equal(loom_array_is_nil(g), loom_array_is_nil(c));
    if (!loom_array_is_nil(c)) return false;
    assert_int_equal(loom_ctx_status(r->gpu), loom_ctx_status(r->cpu));
    loom_ctx_clear_error(r->gpu);
    loom_ctx_clear_error(r->cpu);
    return true;
}

void gpu_ref_compare(const gpu_ref_t *r, loom_array_t *g, loom_array_t *c, gpu_ref_tol_t tol,
                     const char *what) {
    if (both_nil(r, g, c)) return;
    loom_dtype_t d = loom_array_dtype(c);
    assert_int_equal(loom_array_dtype(g), d);
    assert_int_equal(loom_array_ndim(g), loom_array_ndim(c));
    int64_t n = loom_array_size(c);
    assert_int_equal(loom_array_size(g), n);
    uint64_t *eg = calloc((size_t)n + 1, 8), *ec = calloc((size_t)n + 1, 8);
    assert_non_null(eg);
    assert_non_null(ec);
    assert_int_equal(check_read_bits(r->gpu, g, eg, n), LOOM_STATUS_OK);
    assert_int_equal(check_read_bits(r->cpu, c, ec, n), LOOM_STATUS_OK);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        if (!element_match(d, ec[i], eg[i], tol) && bad++ < 3) {
            char a[64], b[64];
            check_format_bits(d, ec[i], a, sizeof a);
            check_format_bits(d, eg[i], b, sizeof b);
            print_error("%s %s [%lld of %lld]: cpu %s gpu %s\n", what, loom_dtype_name(d),
                        (long long)i, (long long)n, a, b);
        }
    if (bad > 3)
        print_error("%s %s: %lld of %lld elements differ\n", what, loom_dtype_name(d),
                    (long long)bad, (long long)n);
    free(eg);
    free(ec);
    assert_int_equal(bad, 0);
}

void gpu_ref_batch_add(const gpu_ref_t *r, gpu_ref_batch_t *b, loom_array_t *g, loom_array_t *c,
                       gpu_ref_tol_t tol, const char *fmt, ...) {
    assert_true(b->n < GPU_REF_BATCH_MAX);
    if (both_nil(r, g, c)) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->what[b->n], sizeof b->what[b->n], fmt, ap);
    va_end(ap);
    b->g[b->n] = g;
    b->c[b->n] = c;
    b->tol[b->n++] = tol;
}

/* Evaluates n arrays on side `side` of the comparison, failing the test with ctx's message. */
static void eval_side(loom_ctx_t *ctx, const char *side, int n, loom_array_t **arr) {
    loom_status_t st = loom_eval(ctx, n, arr);
    if (st != LOOM_STATUS_OK) print_error("%s eval: %s\n", side, loom_ctx_message(ctx));
    assert_int_equal(st, LOOM_STATUS_OK);
}

void gpu_ref_batch_check(const gpu_ref_t *r, gpu_ref_batch_t *b) {
    if (b->n == 0) return;
    eval_side(r->gpu, "gpu", b->n, b->g);
    eval_side(r->cpu, "cpu", b->n, b->c);
    for (int i = 0; i < b->n; i++) gpu_ref_compare(r, b->g[i], b->c[i], b->tol[i], b->what[i]);
    b->n = 0;
}
