/* ref_kernels.c - the CPU interpreter's kernel tables, generated from the prelude's op and
 * dtype lists (LM_ELEM_OPS, LM_LOOPS_*, LM_DTYPE_LIST). The op list of the prelude is checked
 * against ir.h's IR_OP_LIST at compile time, so the two cannot drift apart. */
#include "ir.h"

#include <assert.h>
#include <string.h>

#include "prelude.h"

/* ---- LM_ELEM_OPS must be IR_OP_LIST's elementwise ops (less CAST and WHERE) ---- */
enum {
#define FACTS(e, name, kind, arity, loops, out)                                                    \
    LOOPS_OF_##e = IR_LOOPS_##loops, ARITY_OF_##e = arity, OUT_OF_##e = IR_OUT_##out,
    IR_OP_LIST(FACTS)
#undef FACTS
};
#define CHECK_OP(E, n, ar, loops, o)                                                               \
    _Static_assert((int)LOOPS_OF_##E == (int)IR_LOOPS_##loops && ARITY_OF_##E == ar &&             \
                       (int)OUT_OF_##E == (int)IR_OUT_##o,                                         \
                   "prelude.h and ir.h disagree on " #E);
LM_ELEM_OPS(CHECK_OP)
#undef CHECK_OP
#define COUNT_ONE(...)                 +1
#define COUNT_ELEM(e, name, kind, ...) +(IR_KIND_##kind == IR_KIND_ELEM)
_Static_assert(0 LM_ELEM_OPS(COUNT_ONE) + 2 == 0 IR_OP_LIST(COUNT_ELEM),
               "prelude.h's LM_ELEM_OPS misses an elementwise op of IR_OP_LIST");
#define COUNT_DT(...) +1
_Static_assert(0 LM_DTYPE_LIST(COUNT_DT) == LOOM_DTYPE_COUNT, "prelude.h's dtype list");

/* ---- Loops ---- */
#define PARAMS                                                                                     \
    int64_t n, void *out, const void *a, int64_t sa, const void *b, int64_t sb, const void *c,     \
        int64_t sc
/* The result type is the prelude function's (a complex op's REAL result is its part type). */
#define DEF_ELEM(E, name, ar, o, TAG, C, s, T, W, N) DEF_ELEM_##ar(name, o, s, T)
#define DEF_ELEM_1(name, o, s, T)                                                                  \
    static void ref_##name##_##s(PARAMS) {                                                         \
        const T *x = a;                                                                            \
        __typeof__(lm_##name##_##s(x[0])) *y = out;                                                \
        (void)b, (void)sb, (void)c, (void)sc;                                                      \
        for (int64_t i = 0; i < n; i++) y[i] = lm_##name##_##s(x[i * sa]);                         \
    }
#define DEF_ELEM_2(name, o, s, T)                                                                  \
    static void ref_##name##_##s(PARAMS) {                                                         \
        const T *x = a, *z = b;                                                                    \
        __typeof__(lm_##name##_##s(x[0], z[0])) *y = out;                                          \
        (void)c, (void)sc;                                                                         \
        for (int64_t i = 0; i < n; i++) y[i] = lm_##name##_##s(x[i * sa], z[i * sb]);              \
    }
#define DEF_OP(E, name, ar, loops, o) LM_LOOPS_##loops(DEF_ELEM, E, name, ar, o)
LM_ELEM_OPS(DEF_OP)

#define DEF_WHERE(TAG, s, T, canon)                                                                \
    static void ref_where_##s(PARAMS) {                                                            \
        T *y = out;                                                                                \
        const lm_b *cond = a;                                                                      \
        const T *x = b, *z = c;                                                                    \
        for (int64_t i = 0; i < n; i++) y[i] = lm_where_##s(cond[i * sa], x[i * sb], z[i * sc]);   \
    }
LM_DTYPE_LIST(DEF_WHERE)

#define DEF_CAST_TO(TTAG, ts, TT, tc, FTAG, fs, FT, fc)                                            \
    static void ref_cast_##fs##_##ts(PARAMS) {                                                     \
        TT *y = out;                                                                               \
        const FT *x = a;                                                                           \
        (void)b, (void)sb, (void)c, (void)sc;                                                      \
        for (int64_t i = 0; i < n; i++) y[i] = lm_cast_##fs##_##ts(x[i * sa]);                     \
    }
#define DEF_CAST_FROM(FTAG, fs, FT, fc) LM_DTYPE_LIST2(DEF_CAST_TO, FTAG, fs, FT, fc)
LM_DTYPE_LIST(DEF_CAST_FROM)

/* ---- Tables ---- */
#define ENTRY_ELEM(E, name, ar, o, TAG, C, s, T, W, N)                                             \
    [IR_OP_##E][LOOM_DTYPE_##TAG] = ref_##name##_##s,
#define ENTRY_OP(E, name, ar, loops, o) LM_LOOPS_##loops(ENTRY_ELEM, E, name, ar, o)
#define ENTRY_WHERE(TAG, s, T, canon)   [IR_OP_WHERE][LOOM_DTYPE_##TAG] = ref_where_##s,
const ir_ref_fn ir_ref_elem[IR_OP_COUNT][LOOM_DTYPE_COUNT] = {LM_ELEM_OPS(ENTRY_OP)
                                                                  LM_DTYPE_LIST(ENTRY_WHERE)};

#define ENTRY_CAST_TO(TTAG, ts, TT, tc, FTAG, fs, FT, fc)                                          \
    [LOOM_DTYPE_##FTAG][LOOM_DTYPE_##TTAG] = ref_cast_##fs##_##ts,
#define ENTRY_CAST_FROM(FTAG, fs, FT, fc) LM_DTYPE_LIST2(ENTRY_CAST_TO, FTAG, fs, FT, fc)
const ir_ref_fn ir_ref_cast[LOOM_DTYPE_COUNT][LOOM_DTYPE_COUNT] = {LM_DTYPE_LIST(ENTRY_CAST_FROM)};

/* ---- Leaves ---- */
/* ARANGE's parameters by canonical type: integers (p->i0, p->di) for bool and the integer
 * dtypes, doubles for the floats. */
#define ARANGE_ARGS_i64(p)  (p)->i0, (p)->di
#define ARANGE_ARGS_u64(p)  (p)->i0, (p)->di
#define ARANGE_ARGS_f64(p)  (p)->a, (p)->b
#define ARANGE_ARGS_f64h(p) (p)->a, (p)->b
#define ARANGE_ARGS_f64b(p) (p)->a, (p)->b
#define ARANGE_ARGS_c128(p) (p)->a, (p)->b
#define DEF_LEAVES(TAG, s, T, canon)                                                               \
    static void arange_##s(const ir_params_t *p, int64_t n, void *out) {                           \
        T *y = out;                                                                                \
        for (int64_t i = 0; i < n; i++) y[i] = lm_arange_##s(ARANGE_ARGS_##canon(p), i);           \
    }                                                                                              \
    static void linspace_##s(const ir_params_t *p, int64_t n, void *out) {                         \
        T *y = out;                                                                                \
        for (int64_t i = 0; i < n; i++) y[i] = lm_linspace_##s(p->a, p->b, p->c, p->k, i);         \
    }                                                                                              \
    static void eye_##s(int64_t rows, int64_t cols, int64_t k, void *out) {                        \
        T *y = out, one = lm_cast_b_##s(1), zero = lm_cast_b_##s(0);                               \
        for (int64_t r = 0; r < rows; r++)                                                         \
            for (int64_t col = 0; col < cols; col++)                                               \
                y[r * cols + col] = col - r == k ? one : zero;                                     \
    }
LM_DTYPE_LIST(DEF_LEAVES)

typedef void (*leaf_fn)(const ir_params_t *p, int64_t n, void *out);
typedef void (*eye_fn)(int64_t rows, int64_t cols, int64_t k, void *out);
#define ENTRY_ARANGE(TAG, s, T, canon)   [LOOM_DTYPE_##TAG] = arange_##s,
#define ENTRY_LINSPACE(TAG, s, T, canon) [LOOM_DTYPE_##TAG] = linspace_##s,
#define ENTRY_EYE(TAG, s, T, canon)      [LOOM_DTYPE_##TAG] = eye_##s,
static const leaf_fn arange_fns[LOOM_DTYPE_COUNT] = {LM_DTYPE_LIST(ENTRY_ARANGE)};
static const leaf_fn linspace_fns[LOOM_DTYPE_COUNT] = {LM_DTYPE_LIST(ENTRY_LINSPACE)};
static const eye_fn eye_fns[LOOM_DTYPE_COUNT] = {LM_DTYPE_LIST(ENTRY_EYE)};

/* Random numbers: native for the float dtypes, else the float64 stream cast to the dtype. */
static void random_fill(const ir_node_t *node, int64_t n, void *out) {
    const ir_params_t *p = &node->p;
    bool normal = node->op == IR_OP_RAND_NORMAL;
    switch (node->dtype) {
#define RAND_CASE(TAG, s)                                                                          \
    case LOOM_DTYPE_##TAG: {                                                                       \
        lm_##s *y = out;                                                                           \
        for (int64_t i = 0; i < n; i++)                                                            \
            y[i] = normal ? lm_random_normal_##s(p->seed, i, p->a, p->b)                           \
                          : lm_random_uniform_##s(p->seed, i, p->a, p->b);                         \
        return;                                                                                    \
    }
        RAND_CASE(F16, f16)
        RAND_CASE(BF16, bf16)
        RAND_CASE(F32, f32)
        RAND_CASE(F64, f64)
#undef RAND_CASE
        default: {
            size_t size = ir_dtypes[node->dtype].size;
            ir_ref_fn cast = ir_ref_cast[LOOM_DTYPE_F64][node->dtype];
            for (int64_t i = 0; i < n; i++) {
                double v = normal ? lm_random_normal_f64(p->seed, i, p->a, p->b)
                                  : lm_random_uniform_f64(p->seed, i, p->a, p->b);
                cast(1, (char *)out + (size_t)i * size, &v, 1, NULL, 0, NULL, 0);
            }
        }
    }
}

void ir_ref_leaf(const ir_node_t *node, void *out) {
    int64_t n = 1;
    for (int i = 0; i < node->ndim; i++) n *= node->shape[i];
    assert(node->dtype < LOOM_DTYPE_COUNT);
    if (n == 0) return; /* eye's loop over rows would run even without columns */
    switch (node->op) {
        case IR_OP_CONST: {
            size_t size = ir_dtypes[node->dtype].size;
            unsigned char bytes[8];
            uint64_t bits = node->p.bits;
            for (size_t j = 0; j < size; j++) bytes[j] = (unsigned char)(bits >> (8 * j));
            for (int64_t i = 0; i < n; i++) memcpy((char *)out + (size_t)i * size, bytes, size);
            break;
        }
        case IR_OP_ARANGE:
            arange_fns[node->dtype](&node->p, n, out);
            break;
        case IR_OP_LINSPACE:
            linspace_fns[node->dtype](&node->p, n, out);
            break;
        case IR_OP_EYE:
            assert(node->ndim == 2);
            eye_fns[node->dtype](node->shape[0], node->shape[1], node->p.k, out);
            break;
        case IR_OP_RAND_UNIFORM:
        case IR_OP_RAND_NORMAL:
            random_fill(node, n, out);
            break;
        default:
            assert(!"ir_ref_leaf: not a generated leaf");
    }
}
