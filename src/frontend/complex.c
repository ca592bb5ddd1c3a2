/* complex.c - np.real, np.imag, np.conj and np.angle, and the complex number of two parts:
 * elementwise ops (REAL, IMAG, CONJUGATE, COMPLEX) that fuse like any other. */
#include <math.h>

#include "fe.h"

static bool is_cplx(const loom_array_t *a) { return ir_is_complex((loom_dtype_t)a->dtype); }

LOOM_API loom_array_t *loom_real(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "real", a)) return &ctx->nil;
    return is_cplx(a) ? fe_elementwise(ctx, IR_OP_REAL, 1, &a) : a;
}

LOOM_API loom_array_t *loom_imag(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "imag", a)) return &ctx->nil;
    if (is_cplx(a)) return fe_elementwise(ctx, IR_OP_IMAG, 1, &a);
    return fe_const(ctx, (loom_dtype_t)a->dtype, a->ndim, a->shape, 0);
}

LOOM_API loom_array_t *loom_conj(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "conj", a)) return &ctx->nil;
    if (a->dtype == LOOM_DTYPE_BOOL) return loom_astype(ctx, a, LOOM_DTYPE_I8); /* NumPy's loop */
    return is_cplx(a) ? fe_elementwise(ctx, IR_OP_CONJUGATE, 1, &a) : a;
}

LOOM_API loom_array_t *loom_iscomplex(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "iscomplex", a)) return &ctx->nil;
    return loom_not_equal_i(ctx, loom_imag(ctx, a), 0);
}

LOOM_API loom_array_t *loom_isreal(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "isreal", a)) return &ctx->nil;
    return loom_equal_i(ctx, loom_imag(ctx, a), 0);
}

/* NumPy's angle: arctan2(z.imag, z.real); a real z is arctan2(0, z) (weak 0). */
LOOM_API loom_array_t *loom_angle(loom_ctx_t *ctx, loom_array_t *a, int deg) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "angle", a)) return &ctx->nil;
    loom_array_t *r = is_cplx(a) ? loom_arctan2(ctx, loom_imag(ctx, a), loom_real(ctx, a))
                                 : loom_arctan2(ctx, loom_weak_int(ctx, 0), a);
    return deg ? loom_multiply_f(ctx, r, 180.0 / M_PI) : r;
}

LOOM_API loom_array_t *loom_complex(loom_ctx_t *ctx, loom_array_t *re, loom_array_t *im) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "complex", re) || !fe_check_arg(ctx, "complex", im)) return &ctx->nil;
    loom_array_t *ops[2] = {re, im};
    int d = fe_result_type(ctx, "complex", 2, ops);
    if (d < 0) return &ctx->nil;
    if (ir_is_complex((loom_dtype_t)d)) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "complex: the parts must be real, not %s (use real() and imag())",
                 ir_dtypes[d].name);
        return &ctx->nil;
    }
    loom_dtype_t c =
        ir_is_float((loom_dtype_t)d) ? ir_complex_dtype((loom_dtype_t)d) : LOOM_DTYPE_C128;
    loom_array_t *parts[2] = {loom_astype(ctx, re, c), loom_astype(ctx, im, c)};
    return fe_elementwise(ctx, IR_OP_COMPLEX, 2, parts);
}
