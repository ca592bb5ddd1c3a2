/* dtype.c - dtype facts and NumPy 2 promotion (np.result_type of strong dtypes, np.can_cast
 * "safe"), with bfloat16 promoting like float16 except bfloat16 + float16 -> float32 (JAX).
 * Names and sizes come from LOOM_DTYPE_LIST, suffixes and C types from the prelude. */
#include <string.h>

#include "prelude.h"
#include "ir.h"

/* X(TAG, kind, bits, npchar): bits are value bits for ints (sign excluded), total for floats. */
#define DTYPE_FACTS(X)                                                                             \
    X(BOOL, BOOL, 1, '?')                                                                          \
    X(I8, INT, 7, 'b') X(I16, INT, 15, 'h') X(I32, INT, 31, 'i') X(I64, INT, 63, 'l')              \
        X(U8, UINT, 8, 'B') X(U16, UINT, 16, 'H') X(U32, UINT, 32, 'I') X(U64, UINT, 64, 'L')      \
            X(F16, FLOAT, 16, 'e') X(BF16, FLOAT, 16, 'E') X(F32, FLOAT, 32, 'f')                  \
                X(F64, FLOAT, 64, 'd') X(C64, COMPLEX, 64, 'F') X(C128, COMPLEX, 128, 'D')

#define NAME_SIZE(e, s, n)         [LOOM_DTYPE_##e].name = s, [LOOM_DTYPE_##e].size = n,
#define SFX_CTYPE(e, s, ct, canon) [LOOM_DTYPE_##e].sfx = #s, [LOOM_DTYPE_##e].ctype = #ct,
#define FACTS(e, k, b, c)                                                                          \
    [LOOM_DTYPE_##e].kind = IR_DKIND_##k, [LOOM_DTYPE_##e].bits = b, [LOOM_DTYPE_##e].npchar = c,
const ir_dtype_info_t ir_dtypes[LOOM_DTYPE_COUNT] = {
    LOOM_DTYPE_LIST(NAME_SIZE) LM_DTYPE_LIST(SFX_CTYPE) DTYPE_FACTS(FACTS)};

static bool valid(int d) { return d >= 0 && d < LOOM_DTYPE_COUNT; }

bool ir_can_cast_safe(loom_dtype_t from, loom_dtype_t to) {
    const ir_dtype_info_t *f = &ir_dtypes[from], *t = &ir_dtypes[to];
    if (from == to || f->kind == IR_DKIND_BOOL) return true;
    if (t->kind == IR_DKIND_BOOL) return false;
    if (f->kind == IR_DKIND_COMPLEX) return t->kind == IR_DKIND_COMPLEX && t->size > f->size;
    /* a complex dtype holds what its parts' float dtype holds, and that float dtype */
    size_t tsize = t->kind == IR_DKIND_COMPLEX ? t->size / 2u : t->size;
    bool tfloat = t->kind == IR_DKIND_FLOAT || t->kind == IR_DKIND_COMPLEX;
    if (f->kind == IR_DKIND_FLOAT) /* float16 and bfloat16 do not hold each other */
        return tfloat && (tsize > f->size || (t->kind == IR_DKIND_COMPLEX && tsize == f->size));
    if (tfloat) /* an int needs a significand of its size */
        return f->size <= (tsize == 2 ? 1 : tsize == 4 ? 2 : 8);
    if (f->kind == IR_DKIND_INT && t->kind == IR_DKIND_UINT) return false;
    return f->bits <= t->bits; /* value bits: uint8 (8) fits int16 (15), not int8 (7) */
}

int ir_promote(loom_dtype_t a, loom_dtype_t b) {
    /* The smallest of these both operands cast to safely; NumPy's answer for every pair. */
    static const loom_dtype_t wider[] = {LOOM_DTYPE_I16, LOOM_DTYPE_I32, LOOM_DTYPE_I64,
                                         LOOM_DTYPE_F32, LOOM_DTYPE_F64, LOOM_DTYPE_C64,
                                         LOOM_DTYPE_C128};
    if (!valid((int)a) || !valid((int)b)) return -1;
    if (ir_can_cast_safe(a, b)) return (int)b;
    if (ir_can_cast_safe(b, a)) return (int)a;
    for (size_t i = 0; i < BASE_ARRAY_LEN(wider); i++)
        if (ir_can_cast_safe(a, wider[i]) && ir_can_cast_safe(b, wider[i])) return (int)wider[i];
    return -1;
}

LOOM_API const char *loom_dtype_name(loom_dtype_t dtype) {
    return valid((int)dtype) ? ir_dtypes[dtype].name : "invalid";
}

LOOM_API size_t loom_dtype_size(loom_dtype_t dtype) {
    return valid((int)dtype) ? ir_dtypes[dtype].size : 0;
}

LOOM_API int loom_dtype_from_name(const char *name) {
    if (!name) return -1;
    for (int d = 0; d < LOOM_DTYPE_COUNT; d++)
        if (strcmp(name, ir_dtypes[d].name) == 0) return d;
    return -1;
}

LOOM_API int loom_dtype_promote(loom_dtype_t a, loom_dtype_t b) { return ir_promote(a, b); }

LOOM_API const char *loom_status_string(loom_status_t status) {
    static const char *const strings[] = {
#define STATUS_STRING(e, s) [LOOM_STATUS_##e] = s,
        LOOM_STATUS_LIST(STATUS_STRING)
#undef STATUS_STRING
    };
    if ((int)status < 0 || status >= LOOM_STATUS_COUNT) return "unknown status";
    return strings[status];
}
