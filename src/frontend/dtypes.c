/* dtypes.c — NumPy's data-type functions: can_cast, finfo, iinfo, isdtype (the facts of the
 * dtype table; nothing here builds arrays). */
#include <string.h>

#include "fe.h"

/* NumPy's kind order for same_kind: bool < unsigned < signed < float < complex. */
static int kind_rank(loom_dtype_t d) {
    switch (ir_dtypes[d].kind) {
        case IR_DKIND_BOOL:
            return 0;
        case IR_DKIND_UINT:
            return 1;
        case IR_DKIND_INT:
            return 2;
        case IR_DKIND_FLOAT:
            return 3;
        default:
            return 4;
    }
}

LOOM_API int loom_can_cast(loom_dtype_t from, loom_dtype_t to, loom_casting_t casting) {
    if ((unsigned)from >= LOOM_DTYPE_COUNT || (unsigned)to >= LOOM_DTYPE_COUNT) return -1;
    switch (casting) {
        case LOOM_CASTING_NO:
        case LOOM_CASTING_EQUIV:
            return from == to;
        case LOOM_CASTING_SAFE:
            return ir_can_cast_safe(from, to);
        case LOOM_CASTING_SAME_KIND:
            return ir_can_cast_safe(from, to) || kind_rank(from) <= kind_rank(to);
        case LOOM_CASTING_UNSAFE:
            return 1;
        default:
            return -1;
    }
}

LOOM_API int loom_finfo(loom_dtype_t d, loom_finfo_t *out) {
    if ((unsigned)d >= LOOM_DTYPE_COUNT || !out) return -1;
    d = ir_real_dtype(d); /* a complex dtype's: its parts' (np.finfo(complex64) is float32's) */
    if (ir_dtypes[d].kind != IR_DKIND_FLOAT) return -1;
    memset(out, 0, sizeof *out);
    switch (d) { /* np.finfo's (bfloat16: ml_dtypes') */
        case LOOM_DTYPE_F16:
            *out = (loom_finfo_t){16, 0x1p-10, 65504.0, -65504.0, 0x1p-14, 1e-3};
            break;
        case LOOM_DTYPE_BF16:
            *out = (loom_finfo_t){16, 0x1p-7, 0x1.fep127, -0x1.fep127, 0x1p-126, 1e-2};
            break;
        case LOOM_DTYPE_F32:
            *out = (loom_finfo_t){32, 0x1p-23, 0x1.fffffep127, -0x1.fffffep127, 0x1p-126, 1e-6};
            break;
        default:
            *out = (loom_finfo_t){
                64, 0x1p-52, 0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023, 0x1p-1022, 1e-15};
            break;
    }
    return 0;
}

LOOM_API int loom_iinfo(loom_dtype_t d, loom_iinfo_t *out) {
    if ((unsigned)d >= LOOM_DTYPE_COUNT || !out) return -1;
    ir_dkind_t k = ir_dtypes[d].kind;
    if (k != IR_DKIND_INT && k != IR_DKIND_UINT) return -1;
    int bits = 8 * (int)ir_dtypes[d].size;
    out->bits = bits;
    if (k == IR_DKIND_UINT) {
        out->min = 0;
        out->max = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    } else {
        out->min = bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
        out->max = (uint64_t)(bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1);
    }
    return 0;
}

LOOM_API int loom_isdtype(loom_dtype_t d, const char *kind) {
    if ((unsigned)d >= LOOM_DTYPE_COUNT || !kind) return -1;
    ir_dkind_t k = ir_dtypes[d].kind;
    if (!strcmp(kind, "bool")) return k == IR_DKIND_BOOL;
    if (!strcmp(kind, "signed integer")) return k == IR_DKIND_INT;
    if (!strcmp(kind, "unsigned integer")) return k == IR_DKIND_UINT;
    if (!strcmp(kind, "integral")) return k == IR_DKIND_INT || k == IR_DKIND_UINT;
    if (!strcmp(kind, "real floating")) return k == IR_DKIND_FLOAT;
    if (!strcmp(kind, "complex floating")) return k == IR_DKIND_COMPLEX;
    if (!strcmp(kind, "numeric")) return k != IR_DKIND_BOOL;
    return -1;
}
