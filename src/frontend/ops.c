/* ops.c — the elementwise builders: NumPy 2 dtype resolution (NEP 50 weak scalars, then the
 * ufunc's loop), broadcasting, and explicit casts of the operands to the loop dtype. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fe.h"

static bool is_weak(const loom_array_t *a) { return (a->flags & FE_WEAK) != 0; }

static int weak_rank(const loom_array_t *a) {
    switch ((fe_weak_kind_t)a->weak_kind) {
        case FE_WEAK_BOOL:
            return 0;
        case FE_WEAK_INT:
        case FE_WEAK_UINT:
            return 1;
        case FE_WEAK_FLOAT:
            return 2;
        default:
            return 3;
    }
}

/* Does a weak integer fit dtype d (an integer dtype)? */
static bool weak_int_fits(const loom_array_t *w, loom_dtype_t d) {
    unsigned bits = 8u * ir_dtypes[d].size;
    bool neg = w->weak_kind == FE_WEAK_INT && w->weak.i < 0;
    if (ir_dtypes[d].kind == IR_DKIND_UINT) {
        if (neg) return false;
        uint64_t v = w->weak_kind == FE_WEAK_UINT ? w->weak.u : (uint64_t)w->weak.i;
        return bits >= 64 || v < (UINT64_C(1) << bits);
    }
    if (w->weak_kind == FE_WEAK_UINT) return false; /* above INT64_MAX */
    int64_t v = w->weak.i;
    if (bits >= 64) return true;
    int64_t lim = INT64_C(1) << (bits - 1);
    return v >= -lim && v < lim;
}

static void weak_text(const loom_array_t *w, char *buf, size_t cap) {
    switch ((fe_weak_kind_t)w->weak_kind) {
        case FE_WEAK_BOOL:
            snprintf(buf, cap, "%s", w->weak.i ? "True" : "False");
            break;
        case FE_WEAK_INT:
            snprintf(buf, cap, "%lld", (long long)w->weak.i);
            break;
        case FE_WEAK_UINT:
            snprintf(buf, cap, "%llu", (unsigned long long)w->weak.u);
            break;
        case FE_WEAK_FLOAT:
            snprintf(buf, cap, "%.17g", w->weak.f);
            break;
        case FE_WEAK_COMPLEX:
            snprintf(buf, cap, "(%.17g%+.17gj)", w->weak.c.re, w->weak.c.im);
            break;
    }
}

/* The dtype a weak scalar takes next to a strong dtype d (NEP 50), or -1 with an error. */
static int weak_against(loom_ctx_t *ctx, const char *fn, const loom_array_t *w, loom_dtype_t d) {
    switch ((fe_weak_kind_t)w->weak_kind) {
        case FE_WEAK_BOOL:
            return d;
        case FE_WEAK_INT:
        case FE_WEAK_UINT:
            if (d == LOOM_DTYPE_BOOL)
                return w->weak_kind == FE_WEAK_UINT ? LOOM_DTYPE_U64 : LOOM_DTYPE_I64;
            if (ir_is_int(d) && !weak_int_fits(w, d)) {
                char v[64];
                weak_text(w, v, sizeof v);
                fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: Python integer %s out of bounds for %s",
                         fn, v, ir_dtypes[d].name);
                return -1;
            }
            return d;
        case FE_WEAK_FLOAT:
            return ir_is_float(d) || ir_is_complex(d) ? (int)d : LOOM_DTYPE_F64;
        case FE_WEAK_COMPLEX: /* float32 + 1j is complex64 */
            return ir_is_float(d) || ir_is_complex(d) ? (int)ir_complex_dtype(d) : LOOM_DTYPE_C128;
    }
    return -1;
}

int fe_promote(loom_ctx_t *ctx, const char *fn, loom_dtype_t a, loom_dtype_t b) {
    int p = ir_promote(a, b);
    if (p < 0)
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: no common dtype for %s and %s", fn,
                 ir_dtypes[a].name, ir_dtypes[b].name);
    return p;
}

/* np.result_type over operands with NEP 50: strong dtypes promote; weak scalars yield to
 * them; all-weak operands take the default dtype of the highest kind. */
int fe_result_type(loom_ctx_t *ctx, const char *fn, int n, loom_array_t *const *ops) {
    int strong = -1;
    for (int i = 0; i < n; i++) {
        if (is_weak(ops[i])) continue;
        if (strong < 0) {
            strong = ops[i]->dtype;
            continue;
        }
        int p = fe_promote(ctx, fn, (loom_dtype_t)strong, (loom_dtype_t)ops[i]->dtype);
        if (p < 0) return -1;
        strong = p;
    }
    if (strong < 0) {
        int rank = 0;
        const loom_array_t *top = ops[0];
        for (int i = 0; i < n; i++)
            if (weak_rank(ops[i]) >= rank) {
                rank = weak_rank(ops[i]);
                top = ops[i];
            }
        return top->dtype; /* bool, int64 (uint64 above INT64_MAX), float64 */
    }
    int d = strong;
    for (int i = 0; i < n; i++) {
        if (!is_weak(ops[i])) continue;
        int w = weak_against(ctx, fn, ops[i], (loom_dtype_t)strong);
        if (w < 0) return -1;
        if (w != strong) {
            int p = ir_promote((loom_dtype_t)d, (loom_dtype_t)w);
            d = p < 0 ? d : p;
        }
    }
    return d;
}

bool fe_broadcast_shapes(int n, loom_array_t *const *ops, int32_t *ndim, int64_t *shape) {
    int32_t nd = 0;
    for (int i = 0; i < n; i++)
        if (ops[i]->ndim > nd) nd = ops[i]->ndim;
    *ndim = nd;
    for (int32_t ax = 0; ax < nd; ax++) {
        int64_t ext = 1;
        for (int i = 0; i < n; i++) {
            int32_t j = ax - (nd - ops[i]->ndim);
            int64_t e = j < 0 ? 1 : ops[i]->shape[j];
            if (e == 1) continue;
            if (ext != 1 && e != ext) return false;
            ext = e;
        }
        shape[ax] = ext;
    }
    return true;
}

/* Broadcasts shapes (NumPy rules); records SHAPE_MISMATCH naming the shapes, or OVERFLOW when the
 * result has too many elements. */
static bool broadcast(loom_ctx_t *ctx, const char *fn, int n, loom_array_t *const *ops,
                      int32_t *ndim, int64_t *shape) {
    if (!fe_broadcast_shapes(n, ops, ndim, shape)) {
        char s[8][160];
        for (int k = 0; k < n && k < 8; k++)
            fe_format_shape(s[k], sizeof s[k], ops[k]->ndim, ops[k]->shape);
        if (n == 2)
            fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                     "%s: operands could not be broadcast together with shapes %s %s", fn, s[0],
                     s[1]);
        else
            fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                     "%s: operands could not be broadcast together with shapes %s %s %s", fn, s[0],
                     s[1], s[2]);
        return false;
    }
    return fe_check_shape(ctx, fn, *ndim, shape, NULL); /* each fits; together they may not */
}

/* A weak scalar's value in dtype d (cast as NumPy casts a Python number). */
static uint64_t weak_bits(const loom_array_t *a, loom_dtype_t d) {
    switch ((fe_weak_kind_t)a->weak_kind) {
        case FE_WEAK_FLOAT:
            return ir_bits_from_double(d, a->weak.f);
        case FE_WEAK_COMPLEX: /* a real dtype takes the real part; bool, whether either is */
            if (d == LOOM_DTYPE_BOOL) return a->weak.c.re != 0 || a->weak.c.im != 0;
            return ir_bits_from_double(d, a->weak.c.re);
        case FE_WEAK_UINT:
            return ir_bits_from_u64(d, a->weak.u);
        default:
            return ir_bits_from_i64(d, a->weak.i);
    }
}

/* An operand converted to dtype d: weak scalars become strong constants of d, strong arrays
 * get a CAST node when their dtype differs. */
static loom_array_t *to_dtype(loom_ctx_t *ctx, loom_array_t *a, loom_dtype_t d) {
    if (is_weak(a) && a->weak_kind == FE_WEAK_COMPLEX && ir_is_complex(d))
        return fe_complex_const(ctx, d, 0, NULL, a->weak.c.re, a->weak.c.im);
    if (is_weak(a)) return fe_const(ctx, d, 0, NULL, weak_bits(a, d));
    if (a->dtype == d) return a;
    return fe_shaped(ctx, IR_OP_CAST, d, a->ndim, a->shape, 1, &a, NULL);
}

/* As to_dtype, for an operand that only the op being built will hold: a weak scalar's
 * constant is shared with the scope's other ops that use the same one (fe_scope_t.consts).
 * Lowering would merge the copies anyway (CSE), so the IR is the same; what is saved is a
 * node built, lowered and freed per op. Such a constant never reaches the caller, and the
 * scope keeps it alive; the op check is a guard should anything ever realise it. */
static loom_array_t *operand(loom_ctx_t *ctx, loom_array_t *a, loom_dtype_t d) {
    if (!is_weak(a) || ir_is_complex(d)) return to_dtype(ctx, a, d);
    uint64_t bits = weak_bits(a, d);
    fe_scope_t *s = &ctx->scopes[ctx->n_scopes - 1];
    for (int i = 0; i < FE_SCOPE_CONSTS; i++) {
        loom_array_t *c = s->consts[i];
        if (c && c->op == IR_OP_CONST && c->dtype == d && c->p.bits == bits) return c;
    }
    loom_array_t *c = fe_const(ctx, d, 0, NULL, bits);
    if (!(c->flags & FE_NIL)) s->consts[s->next_const++ % FE_SCOPE_CONSTS] = c;
    return c;
}

static bool args_ok(loom_ctx_t *ctx, const char *fn, int n, loom_array_t *const *ops) {
    for (int i = 0; i < n; i++)
        if (!fe_check_arg(ctx, fn, ops[i])) return false;
    return true;
}

/* NumPy refuses these even though a bool operand casts safely to an integer loop. */
static bool bool_refused(loom_ctx_t *ctx, ir_op_t op, int loop, int n, loom_array_t **ops) {
    bool all_bool = true;
    for (int i = 0; i < n; i++) all_bool = all_bool && ops[i]->dtype == LOOM_DTYPE_BOOL;
    if (!all_bool || loop == LOOM_DTYPE_BOOL) return false;
    if (op == IR_OP_NEGATIVE || op == IR_OP_SUBTRACT)
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "%s: not supported for the input dtype bool (the boolean `-` operator); use %s",
                 ir_ops[op].name, op == IR_OP_NEGATIVE ? "logical_not" : "logical_xor");
    else if (op == IR_OP_POSITIVE || op == IR_OP_SIGN || op == IR_OP_GCD || op == IR_OP_LCM)
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "%s: ufunc '%s' not supported for the input dtype bool", ir_ops[op].name,
                 ir_ops[op].name);
    else
        return false;
    return true;
}

static bool is_comparison(ir_op_t op) { return op >= IR_OP_EQUAL && op <= IR_OP_GREATER_EQUAL; }
static bool is_logical(ir_op_t op) { return op >= IR_OP_LOGICAL_AND && op <= IR_OP_LOGICAL_XOR; }


/* resolve_loop's answers by op and participating dtypes (the second LOOM_DTYPE_COUNT when
 * there is one): the loop dtype + 1, 0 while unknown. Shared by every ctx and thread: each
 * entry is one byte written with the same value by whoever computes it first. */
static uint8_t loop_memo[IR_OP_COUNT][LOOM_DTYPE_COUNT][LOOM_DTYPE_COUNT + 1];

/* The loop dtype of an elementwise op, as NumPy 2 resolves it: the first loop every
 * participating operand casts to safely. Strong operands participate; a weak scalar only
 * where its kind is above every strong operand's (then as int64 / uint64 / float64), as NEP 50
 * says; true_divide of integers uses the float64 loop. Returns -1 with an error. */
static int resolve_loop(loom_ctx_t *ctx, ir_op_t op, int n, loom_array_t **ops) {
    const char *fn = ir_ops[op].name;
    int strong_rank = -1; /* 0 bool, 1 int, 2 float, 3 complex */
    for (int i = 0; i < n; i++)
        if (!is_weak(ops[i])) {
            int r = ir_dtypes[ops[i]->dtype].kind == IR_DKIND_BOOL  ? 0
                    : ir_is_complex((loom_dtype_t)ops[i]->dtype)    ? 3
                    : ir_is_float((loom_dtype_t)ops[i]->dtype)      ? 2
                                                                    : 1;
            if (r > strong_rank) strong_rank = r;
        }
    loom_dtype_t part[3] = {LOOM_DTYPE_BOOL, LOOM_DTYPE_BOOL, LOOM_DTYPE_BOOL};
    int np = 0;
    bool all_intlike = true;
    for (int i = 0; i < n; i++) {
        loom_dtype_t d = (loom_dtype_t)ops[i]->dtype;
        if (is_weak(ops[i])) {
            if (weak_rank(ops[i]) <= strong_rank) continue; /* yields to the strong operands */
            if (ops[i]->weak_kind == FE_WEAK_COMPLEX && strong_rank == 2)
                d = LOOM_DTYPE_C64; /* float32 + 1j is complex64, float64 + 1j complex128 */
        }
        part[np++] = d;
        all_intlike = all_intlike && (ir_is_int(d) || d == LOOM_DTYPE_BOOL);
    }
    if (op == IR_OP_TRUE_DIVIDE && all_intlike) return LOOM_DTYPE_F64;
    /* The search depends only on (op, participating dtypes): remembered for one or two. */
    uint8_t *memo = np <= 2 ? &loop_memo[op][part[0]][np == 2 ? part[1] : LOOM_DTYPE_COUNT]
                            : NULL;
    uint8_t hit = memo ? __atomic_load_n(memo, __ATOMIC_RELAXED) : 0;
    if (hit) return hit - 1;
    for (size_t l = 0; l < LOOM_DTYPE_COUNT; l++) {
        loom_dtype_t L = ir_loop_order[l];
        if (!ir_op_has_loop(op, L)) continue;
        bool ok = true;
        for (int i = 0; i < np && ok; i++) ok = ir_can_cast_safe(part[i], L);
        if (ok) {
            if (memo) __atomic_store_n(memo, (uint8_t)(L + 1), __ATOMIC_RELAXED);
            return L;
        }
    }
    if (n == 1)
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "%s: ufunc '%s' not supported for the input dtype %s", fn, fn,
                 ir_dtypes[ops[0]->dtype].name);
    else
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "%s: ufunc '%s' not supported for the input dtypes (%s, %s)", fn, fn,
                 ir_dtypes[ops[0]->dtype].name, ir_dtypes[ops[1]->dtype].name);
    return -1;
}

/* The dtype to compare a strong integer array with a weak integer that does not fit its
 * loop: NumPy 2 compares the values exactly (uint8 < 300 is True everywhere). */
static loom_dtype_t widened_compare(const loom_array_t *w, loom_dtype_t strong) {
    bool neg = w->weak_kind == FE_WEAK_INT && w->weak.i < 0;
    if (w->weak_kind != FE_WEAK_UINT && strong != LOOM_DTYPE_U64) return LOOM_DTYPE_I64;
    if (!neg && ir_dtypes[strong].kind == IR_DKIND_UINT) return LOOM_DTYPE_U64;
    return LOOM_DTYPE_F64;
}

loom_array_t *fe_elementwise(loom_ctx_t *ctx, ir_op_t op, int n, loom_array_t **ops) {
    if (!ctx) return NULL;
    const char *fn = ir_ops[op].name;
    if (!args_ok(ctx, fn, n, ops)) return &ctx->nil;
    int loop = resolve_loop(ctx, op, n, ops);
    if (loop < 0 || bool_refused(ctx, op, loop, n, ops)) return &ctx->nil;
    bool truthy[3] = {false, false, false}; /* weak numbers used only for their truth value */
    bool any_strong = false;
    for (int i = 0; i < n; i++) any_strong = any_strong || !is_weak(ops[i]);
    for (int i = 0; i < n; i++) {
        loom_array_t *w = ops[i];
        /* A Python int above int64 next to an array becomes int64 first (and fails) unless
         * the op computes in floats; logical ops always take that path. */
        if (is_weak(w) && w->weak_kind == FE_WEAK_UINT && any_strong &&
            (is_logical(op) || (!ir_is_float((loom_dtype_t)loop) &&
                                (n == 1 || ops[1 - i]->dtype == LOOM_DTYPE_BOOL)))) {
            fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: Python integer %llu out of bounds for int64",
                     fn, (unsigned long long)w->weak.u);
            return &ctx->nil;
        }
        if (!is_weak(w) || (w->weak_kind != FE_WEAK_INT && w->weak_kind != FE_WEAK_UINT) ||
            !ir_is_int((loom_dtype_t)loop) || weak_int_fits(w, (loom_dtype_t)loop))
            continue;
        if (is_comparison(op)) {
            loop = widened_compare(w, (loom_dtype_t)loop);
        } else if (is_logical(op)) {
            continue; /* (its truth below) */
        } else {
            char v[64];
            weak_text(w, v, sizeof v);
            fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: Python integer %s out of bounds for %s", fn, v,
                     ir_dtypes[loop].name);
            return &ctx->nil;
        }
    }
    /* NumPy's logical ufuncs take each operand to bool on its own: a Python number counts by
     * its own truth, not by its cast to the loop (1e-300 beside float16 is true) */
    bool truth[3] = {false, false, false};
    for (int i = 0; i < n && is_logical(op); i++) {
        const loom_array_t *w = ops[i];
        if (!is_weak(w)) continue;
        truthy[i] = true;
        truth[i] = w->weak_kind == FE_WEAK_FLOAT     ? w->weak.f != 0
                   : w->weak_kind == FE_WEAK_COMPLEX ? w->weak.c.re != 0 || w->weak.c.im != 0
                   : w->weak_kind == FE_WEAK_UINT    ? w->weak.u != 0
                                                     : w->weak.i != 0;
    }
    if (op == IR_OP_POWER && ir_is_int((loom_dtype_t)loop) && is_weak(ops[1]) &&
        ops[1]->weak_kind == FE_WEAK_INT && ops[1]->weak.i < 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "power: integers to negative integer powers are not allowed (exponent %lld)",
                 (long long)ops[1]->weak.i);
        return &ctx->nil;
    }
    int32_t ndim;
    int64_t shape[LOOM_MAX_DIMS];
    if (!broadcast(ctx, fn, n, ops, &ndim, shape)) return &ctx->nil;
    loom_array_t *cast[3];
    for (int i = 0; i < n; i++) {
        cast[i] = truthy[i] ? fe_const(ctx, (loom_dtype_t)loop, 0, NULL,
                                       ir_bits_from_i64((loom_dtype_t)loop, truth[i]))
                            : operand(ctx, ops[i], (loom_dtype_t)loop);
        if (cast[i]->flags & FE_NIL) return &ctx->nil;
    }
    loom_dtype_t out = ir_out_dtype(op, (loom_dtype_t)loop);
    /* NumPy's float32/float64 power loops take sqrt for a scalar exponent of 0.5 (the other
     * exponents they special-case, -1, 0, 1 and 2, give pow's values anyway); sqrt differs
     * from pow at -0.0 and -inf. Decided here for a Python-number exponent; an exponent array
     * keeps pow, whatever its values. */
    if (op == IR_OP_POWER && is_weak(ops[1]) && !is_weak(ops[0]) &&
        ops[1]->weak_kind == FE_WEAK_FLOAT && ops[1]->weak.f == 0.5 &&
        (loop == LOOM_DTYPE_F32 || loop == LOOM_DTYPE_F64))
        return fe_shaped(ctx, IR_OP_SQRT, out, ndim, shape, 1, cast, NULL);
    return fe_shaped(ctx, op, out, ndim, shape, n, cast, NULL);
}

#define UNARY_DEF(name, ENUM)                                                                      \
    LOOM_API loom_array_t *loom_##name(loom_ctx_t *ctx, loom_array_t *a) {                         \
        return fe_elementwise(ctx, IR_OP_##ENUM, 1, &a);                                              \
    }
UNARY_DEF(negative, NEGATIVE)
UNARY_DEF(positive, POSITIVE)
UNARY_DEF(abs, ABS)
UNARY_DEF(sign, SIGN)
UNARY_DEF(sqrt, SQRT)
UNARY_DEF(cbrt, CBRT)
UNARY_DEF(square, SQUARE)
UNARY_DEF(reciprocal, RECIPROCAL)
UNARY_DEF(exp, EXP)
UNARY_DEF(exp2, EXP2)
UNARY_DEF(expm1, EXPM1)
UNARY_DEF(log, LOG)
UNARY_DEF(log2, LOG2)
UNARY_DEF(log10, LOG10)
UNARY_DEF(log1p, LOG1P)
UNARY_DEF(sin, SIN)
UNARY_DEF(cos, COS)
UNARY_DEF(tan, TAN)
UNARY_DEF(arcsin, ARCSIN)
UNARY_DEF(arccos, ARCCOS)
UNARY_DEF(arctan, ARCTAN)
UNARY_DEF(sinh, SINH)
UNARY_DEF(cosh, COSH)
UNARY_DEF(tanh, TANH)
UNARY_DEF(arcsinh, ARCSINH)
UNARY_DEF(arccosh, ARCCOSH)
UNARY_DEF(arctanh, ARCTANH)
UNARY_DEF(floor, FLOOR)
UNARY_DEF(ceil, CEIL)
UNARY_DEF(trunc, TRUNC)
UNARY_DEF(isnan, ISNAN)
UNARY_DEF(isinf, ISINF)
UNARY_DEF(isfinite, ISFINITE)
UNARY_DEF(logical_not, LOGICAL_NOT)
UNARY_DEF(invert, INVERT)
UNARY_DEF(erf, ERF)
UNARY_DEF(erfc, ERFC)
UNARY_DEF(erfinv, ERFINV)
UNARY_DEF(erfcinv, ERFCINV)
UNARY_DEF(lgamma, LGAMMA)
UNARY_DEF(digamma, DIGAMMA)
UNARY_DEF(deg2rad, DEG2RAD)
UNARY_DEF(rad2deg, RAD2DEG)
UNARY_DEF(spacing, SPACING)
UNARY_DEF(signbit, SIGNBIT)

/* np.i0 and np.sinc are Python functions over float64 arithmetic for integer and bool
 * input (their float loops keep the dtype). */
#define FLOAT64_FOR_INTS_DEF(name, ENUM)                                                           \
    LOOM_API loom_array_t *loom_##name(loom_ctx_t *ctx, loom_array_t *a) {                         \
        if (!ctx) return NULL;                                                                     \
        if (!fe_check_arg(ctx, #name, a)) return &ctx->nil;                                        \
        if (!ir_is_float((loom_dtype_t)a->dtype) && !ir_is_complex((loom_dtype_t)a->dtype))      \
            a = loom_astype(ctx, a, LOOM_DTYPE_F64);                                               \
        return fe_elementwise(ctx, IR_OP_##ENUM, 1, &a);                                              \
    }
FLOAT64_FOR_INTS_DEF(i0, I0)

/* NumPy's sinc of a complex z is its Python code's sin(y) / y with
 * y = pi * where(z == 0, 1e-20, z); real dtypes take the SINC node. */
LOOM_API loom_array_t *loom_sinc(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "sinc", a)) return &ctx->nil;
    if (ir_is_complex((loom_dtype_t)a->dtype)) {
        loom_array_t *y = loom_multiply_f(
            ctx, loom_where(ctx, loom_equal_i(ctx, a, 0), loom_weak_float(ctx, 1e-20), a), M_PI);
        return loom_true_divide(ctx, loom_sin(ctx, y), y);
    }
    if (!ir_is_float((loom_dtype_t)a->dtype)) a = loom_astype(ctx, a, LOOM_DTYPE_F64);
    return fe_elementwise(ctx, IR_OP_SINC, 1, &a);
}

/* NumPy's rint of a complex number rounds its two parts, each half to even. */
LOOM_API loom_array_t *loom_rint(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "rint", a)) return &ctx->nil;
    if (ir_is_complex((loom_dtype_t)a->dtype))
        return loom_complex(ctx, loom_rint(ctx, loom_real(ctx, a)),
                            loom_rint(ctx, loom_imag(ctx, a)));
    return fe_elementwise(ctx, IR_OP_RINT, 1, &a);
}

/* The weak scalar operand of the _f and _i builders, as loom_weak_float / loom_weak_int would
 * make it, but in *w on the caller's stack: elementwise only reads a weak operand (it becomes a
 * CONST of the loop dtype), so no node, scope entry or hash is needed for it. */
#define LOOM_MAX_CHOICES 32 /* value operands resolved with weak ints as 0 (more: as given) */

static loom_array_t *weak_operand(loom_ctx_t *ctx, loom_array_t *w, fe_weak_kind_t kind, double f,
                                  int64_t i) {
    *w = (loom_array_t){.ctx = ctx, .refcount = 1, .op = IR_OP_CONST, .flags = FE_WEAK,
                        .weak_kind = (uint8_t)kind};
    if (kind == FE_WEAK_FLOAT) {
        w->dtype = LOOM_DTYPE_F64;
        w->weak.f = f;
        memcpy(&w->p.bits, &f, sizeof f);
    } else {
        w->dtype = LOOM_DTYPE_I64;
        w->weak.i = i;
        w->p.bits = (uint64_t)i;
    }
    return w;
}

#define BINARY_DEF(name, ENUM)                                                                     \
    LOOM_API loom_array_t *loom_##name(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {        \
        loom_array_t *ops[2] = {a, b};                                                             \
        return fe_elementwise(ctx, IR_OP_##ENUM, 2, ops);                                             \
    }                                                                                              \
    LOOM_API loom_array_t *loom_##name##_f(loom_ctx_t *ctx, loom_array_t *a, double b) {           \
        loom_array_t w;                                                                            \
        loom_array_t *ops[2] = {a, weak_operand(ctx, &w, FE_WEAK_FLOAT, b, 0)};                    \
        return fe_elementwise(ctx, IR_OP_##ENUM, 2, ops);                                             \
    }                                                                                              \
    LOOM_API loom_array_t *loom_##name##_i(loom_ctx_t *ctx, loom_array_t *a, int64_t b) {          \
        loom_array_t w;                                                                            \
        loom_array_t *ops[2] = {a, weak_operand(ctx, &w, FE_WEAK_INT, 0, b)};                      \
        return fe_elementwise(ctx, IR_OP_##ENUM, 2, ops);                                             \
    }
BINARY_DEF(add, ADD)
BINARY_DEF(subtract, SUBTRACT)
BINARY_DEF(multiply, MULTIPLY)
BINARY_DEF(true_divide, TRUE_DIVIDE)
BINARY_DEF(floor_divide, FLOOR_DIVIDE)
BINARY_DEF(remainder, REMAINDER)
BINARY_DEF(power, POWER)
BINARY_DEF(maximum, MAXIMUM)
BINARY_DEF(minimum, MINIMUM)
BINARY_DEF(fmax, FMAX)
BINARY_DEF(fmin, FMIN)
BINARY_DEF(arctan2, ARCTAN2)
BINARY_DEF(hypot, HYPOT)
BINARY_DEF(copysign, COPYSIGN)
BINARY_DEF(equal, EQUAL)
BINARY_DEF(not_equal, NOT_EQUAL)
BINARY_DEF(less, LESS)
BINARY_DEF(less_equal, LESS_EQUAL)
BINARY_DEF(greater, GREATER)
BINARY_DEF(greater_equal, GREATER_EQUAL)
BINARY_DEF(logical_and, LOGICAL_AND)
BINARY_DEF(logical_or, LOGICAL_OR)
BINARY_DEF(logical_xor, LOGICAL_XOR)
BINARY_DEF(bitwise_and, BITWISE_AND)
BINARY_DEF(bitwise_or, BITWISE_OR)
BINARY_DEF(bitwise_xor, BITWISE_XOR)
BINARY_DEF(left_shift, LEFT_SHIFT)
BINARY_DEF(right_shift, RIGHT_SHIFT)
BINARY_DEF(logaddexp, LOGADDEXP)
BINARY_DEF(logaddexp2, LOGADDEXP2)
BINARY_DEF(nextafter, NEXTAFTER)
BINARY_DEF(heaviside, HEAVISIDE)
BINARY_DEF(gcd, GCD)
BINARY_DEF(lcm, LCM)
BINARY_DEF(fmod, FMOD)

/* np.fabs: NumPy's float loops only (int8 -> float16, complex refused). */
LOOM_API loom_array_t *loom_fabs(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "fabs", a)) return &ctx->nil;
    int loop = ir_op_loop_dtype(IR_OP_DEG2RAD, (loom_dtype_t)a->dtype);
    if (loop < 0) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "ufunc 'fabs' not supported for the input types (%s)", ir_dtypes[a->dtype].name);
        return &ctx->nil;
    }
    return loom_abs(ctx, loom_astype(ctx, a, (loom_dtype_t)loop));
}

/* np.bitwise_count: the count as uint8, NumPy's dtype for every integer input. */
LOOM_API loom_array_t *loom_bitwise_count(loom_ctx_t *ctx, loom_array_t *a) {
    loom_array_t *r = fe_elementwise(ctx, IR_OP_BITWISE_COUNT, 1, &a);
    return r && !loom_array_is_nil(r) ? loom_astype(ctx, r, LOOM_DTYPE_U8) : r;
}

int fe_value_dtype(loom_ctx_t *ctx, const char *fn, int n, loom_array_t *const *ops) {
    /* np.where takes a Python int as np.asarray does (int64) and casts it unsafely to the
     * result dtype, so one out of that dtype's range wraps instead of raising (NumPy 2:
     * np.where(c, int8_array, 300) holds 44): the dtype is resolved with such a value as 0. */
    loom_array_t zero[LOOM_MAX_CHOICES], *typed[LOOM_MAX_CHOICES];
    if (n > LOOM_MAX_CHOICES) return fe_result_type(ctx, fn, n, ops);
    for (int i = 0; i < n; i++)
        typed[i] = is_weak(ops[i]) && ops[i]->weak_kind == FE_WEAK_INT
                       ? weak_operand(ctx, &zero[i], FE_WEAK_INT, 0, 0)
                       : ops[i];
    return fe_result_type(ctx, fn, n, typed);
}

LOOM_API loom_array_t *loom_where(loom_ctx_t *ctx, loom_array_t *cond, loom_array_t *x,
                                  loom_array_t *y) {
    if (!ctx) return NULL;
    loom_array_t *ops[3] = {cond, x, y};
    if (!args_ok(ctx, "where", 3, ops)) return &ctx->nil;
    int d = fe_value_dtype(ctx, "where", 2, ops + 1);
    if (d < 0) return &ctx->nil;
    int32_t ndim;
    int64_t shape[LOOM_MAX_DIMS];
    if (!broadcast(ctx, "where", 3, ops, &ndim, shape)) return &ctx->nil;
    loom_array_t *cast[3] = {operand(ctx, cond, LOOM_DTYPE_BOOL),
                             operand(ctx, x, (loom_dtype_t)d), operand(ctx, y, (loom_dtype_t)d)};
    for (int i = 0; i < 3; i++)
        if (cast[i]->flags & FE_NIL) return &ctx->nil;
    return fe_shaped(ctx, IR_OP_WHERE, (loom_dtype_t)d, ndim, shape, 3, cast, NULL);
}

/* np.clip with both bounds: the three operands in their common dtype, then a kept where it
 * equals a bound (NumPy 2: clip(-0.0, 0.0, 1.0) is -0.0), hi where lo > hi, NaN from any
 * operand. maximum/minimum return their second operand on equal operands, except float16's,
 * which return the first: the operand order below puts a (then the clipped value) there. */
LOOM_API loom_array_t *loom_clip(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *lo,
                                 loom_array_t *hi) {
    if (!ctx) return NULL;
    loom_array_t *ops[3] = {a, lo, hi};
    if (!args_ok(ctx, "clip", 3, ops)) return &ctx->nil;
    int d = fe_result_type(ctx, "clip", 3, ops);
    if (d < 0) return &ctx->nil;
    loom_array_t *x = operand(ctx, a, (loom_dtype_t)d), *l = operand(ctx, lo, (loom_dtype_t)d),
                 *h = operand(ctx, hi, (loom_dtype_t)d);
    if ((x->flags | l->flags | h->flags) & FE_NIL) return &ctx->nil;
    if (d == LOOM_DTYPE_F16) return loom_minimum(ctx, loom_maximum(ctx, x, l), h);
    return loom_minimum(ctx, h, loom_maximum(ctx, l, x));
}

LOOM_API loom_array_t *loom_astype(loom_ctx_t *ctx, loom_array_t *a, loom_dtype_t dtype) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "astype", a)) return &ctx->nil;
    if ((unsigned)dtype >= LOOM_DTYPE_COUNT) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "astype: invalid dtype %d", (int)dtype);
        return &ctx->nil;
    }
    if (is_weak(a)) return to_dtype(ctx, a, dtype);
    return fe_shaped(ctx, IR_OP_CAST, dtype, a->ndim, a->shape, 1, &a, NULL);
}
