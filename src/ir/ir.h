/* ir — the op table, dtype facts, the flat per-eval IR and its passes, and the CPU reference
 * interpreter. Grouped by source file below.
 *
 * Invariants of the flat IR: nodes live in one array and refer to their operands by 32-bit
 * index; operands always come before their users; every node's dtype and shape are final
 * (promotion and broadcasting were resolved by the frontend, and explicit CAST nodes make the
 * operands of an arithmetic node share its compute dtype). */
#ifndef LOOM_IR_H
#define LOOM_IR_H

#include "../base/base.h"

/* ---- dtype.c: dtype facts and NumPy 2 promotion ---- */
typedef enum ir_dkind {
    IR_DKIND_BOOL, IR_DKIND_INT, IR_DKIND_UINT, IR_DKIND_FLOAT, IR_DKIND_COMPLEX
} ir_dkind_t;

typedef struct ir_dtype_info {
    const char *name;   /* "float32" */
    const char *sfx;    /* suffix of the prelude's functions and types: "f32" */
    const char *ctype;  /* storage type in generated C: "lm_f32" */
    uint8_t size;
    ir_dkind_t kind;
    uint8_t bits;       /* for ints: value bits; for floats and complex: total bits */
    char npchar;        /* NumPy's type character ('f'), 'E' for bfloat16 */
} ir_dtype_info_t;

extern const ir_dtype_info_t ir_dtypes[LOOM_DTYPE_COUNT];
/* np.result_type for two strong dtypes; -1 if there is none. */
int ir_promote(loom_dtype_t a, loom_dtype_t b);
/* np.can_cast(from, to, "safe"). */
bool ir_can_cast_safe(loom_dtype_t from, loom_dtype_t to);
static inline bool ir_is_float(loom_dtype_t d) { return ir_dtypes[d].kind == IR_DKIND_FLOAT; }
static inline bool ir_is_int(loom_dtype_t d) {
    return ir_dtypes[d].kind == IR_DKIND_INT || ir_dtypes[d].kind == IR_DKIND_UINT;
}
static inline bool ir_is_complex(loom_dtype_t d) { return ir_dtypes[d].kind == IR_DKIND_COMPLEX; }
/* The float dtype of a complex dtype's parts; any other dtype itself. */
static inline loom_dtype_t ir_real_dtype(loom_dtype_t d) {
    return d == LOOM_DTYPE_C64 ? LOOM_DTYPE_F32 : d == LOOM_DTYPE_C128 ? LOOM_DTYPE_F64 : d;
}
/* The complex dtype holding a float dtype (float16, bfloat16, float32: complex64); any other
 * dtype itself. */
static inline loom_dtype_t ir_complex_dtype(loom_dtype_t d) {
    if (ir_dtypes[d].kind != IR_DKIND_FLOAT) return d;
    return d == LOOM_DTYPE_F64 ? LOOM_DTYPE_C128 : LOOM_DTYPE_C64;
}

/* ---- ops.c: the op table ----
 * X(ENUM, name, kind, arity, loops, out)
 *   kind:  LEAF (no operands), ELEM (elementwise, arity operands), MATMUL (a contraction:
 *          matmul, dot or tensordot of two operands of the node's dtype; matmul.c), VIEW,
 *          CONCAT, REDUCE, SCAN (params below; loops and out unused)
 *   loops: which compute dtypes the op has a loop for (NumPy's ufunc.types, plus bfloat16
 *          wherever float16 has one): ALL = bool, ints, floats; NUM = ints, floats;
 *          FLT = floats; INT = bool, ints; INTNB = ints; ALLC, NUMC, FLTC = ALL, NUM, FLT and
 *          the complex dtypes; CPLX = complex only; ANY = any (casts, where, leaves)
 *   out:   SAME (result dtype = compute dtype), BOOL, or REAL (a complex compute dtype's
 *          part dtype, else the compute dtype)
 * The prelude (src/ir/prelude.h) defines lm_<name>_<sfx>() for each op and loop dtype;
 * the CPU interpreter and the CUDA code generator both call those functions. */
#define IR_OP_LIST(X)                                                                          \
    X(INPUT, "input", LEAF, 0, ANY, SAME)          /* a realised buffer */                    \
    X(CONST, "const", LEAF, 0, ANY, SAME)          /* p.bits everywhere */                    \
    X(ARANGE, "arange", LEAF, 0, ANY, SAME)        /* p.a + i * p.b; ints p.i0 + i * p.di */  \
    X(LINSPACE, "linspace", LEAF, 0, ANY, SAME)    /* NumPy's linspace formula */             \
    X(EYE, "eye", LEAF, 0, ANY, SAME)              /* col - row == p.k */                     \
    X(RAND_UNIFORM, "random_uniform", LEAF, 0, ANY, SAME)                                     \
    X(RAND_NORMAL, "random_normal", LEAF, 0, ANY, SAME)                                       \
    X(CAST, "astype", ELEM, 1, ANY, SAME)          /* to this node's dtype */                 \
    X(WHERE, "where", ELEM, 3, ANY, SAME)          /* src0 bool; src1, src2 this dtype */     \
    X(NEGATIVE, "negative", ELEM, 1, NUMC, SAME)                                                \
    X(POSITIVE, "positive", ELEM, 1, NUMC, SAME)                                                \
    X(ABS, "absolute", ELEM, 1, ALLC, REAL)                                                     \
    X(SIGN, "sign", ELEM, 1, NUMC, SAME)                                                        \
    X(SQRT, "sqrt", ELEM, 1, FLTC, SAME)                                                        \
    X(CBRT, "cbrt", ELEM, 1, FLT, SAME)                                                        \
    X(SQUARE, "square", ELEM, 1, NUMC, SAME)                                                    \
    X(RECIPROCAL, "reciprocal", ELEM, 1, NUMC, SAME)                                            \
    X(EXP, "exp", ELEM, 1, FLTC, SAME)                                                          \
    X(EXP2, "exp2", ELEM, 1, FLTC, SAME)                                                        \
    X(EXPM1, "expm1", ELEM, 1, FLTC, SAME)                                                      \
    X(LOG, "log", ELEM, 1, FLTC, SAME)                                                          \
    X(LOG2, "log2", ELEM, 1, FLTC, SAME)                                                        \
    X(LOG10, "log10", ELEM, 1, FLTC, SAME)                                                      \
    X(LOG1P, "log1p", ELEM, 1, FLTC, SAME)                                                      \
    X(SIN, "sin", ELEM, 1, FLTC, SAME)                                                          \
    X(COS, "cos", ELEM, 1, FLTC, SAME)                                                          \
    X(TAN, "tan", ELEM, 1, FLTC, SAME)                                                          \
    X(ARCSIN, "arcsin", ELEM, 1, FLTC, SAME)                                                    \
    X(ARCCOS, "arccos", ELEM, 1, FLTC, SAME)                                                    \
    X(ARCTAN, "arctan", ELEM, 1, FLTC, SAME)                                                    \
    X(SINH, "sinh", ELEM, 1, FLTC, SAME)                                                        \
    X(COSH, "cosh", ELEM, 1, FLTC, SAME)                                                        \
    X(TANH, "tanh", ELEM, 1, FLTC, SAME)                                                        \
    X(ARCSINH, "arcsinh", ELEM, 1, FLTC, SAME)                                                  \
    X(ARCCOSH, "arccosh", ELEM, 1, FLTC, SAME)                                                  \
    X(ARCTANH, "arctanh", ELEM, 1, FLTC, SAME)                                                  \
    X(FLOOR, "floor", ELEM, 1, ALL, SAME)                                                      \
    X(CEIL, "ceil", ELEM, 1, ALL, SAME)                                                        \
    X(TRUNC, "trunc", ELEM, 1, ALL, SAME)                                                      \
    X(RINT, "rint", ELEM, 1, FLT, SAME)                                                        \
    X(ISNAN, "isnan", ELEM, 1, ALLC, BOOL)                                                      \
    X(ISINF, "isinf", ELEM, 1, ALLC, BOOL)                                                      \
    X(ISFINITE, "isfinite", ELEM, 1, ALLC, BOOL)                                                \
    X(LOGICAL_NOT, "logical_not", ELEM, 1, ALLC, BOOL)                                          \
    X(INVERT, "invert", ELEM, 1, INT, SAME)                                                    \
    /* Special functions: float32 computed in double, rounded once (prelude.h) */             \
    X(ERF, "erf", ELEM, 1, FLT, SAME)                                                          \
    X(ERFC, "erfc", ELEM, 1, FLT, SAME)                                                        \
    X(ERFINV, "erfinv", ELEM, 1, FLT, SAME)                                                    \
    X(ERFCINV, "erfcinv", ELEM, 1, FLT, SAME)                                                  \
    X(LGAMMA, "lgamma", ELEM, 1, FLT, SAME)                                                    \
    X(DIGAMMA, "digamma", ELEM, 1, FLT, SAME)                                                  \
    X(I0, "i0", ELEM, 1, FLT, SAME)                                                            \
    X(SINC, "sinc", ELEM, 1, FLT, SAME)                                                        \
    X(DEG2RAD, "deg2rad", ELEM, 1, FLT, SAME)                                                  \
    X(RAD2DEG, "rad2deg", ELEM, 1, FLT, SAME)                                                  \
    X(SPACING, "spacing", ELEM, 1, FLT, SAME)                                                  \
    X(SIGNBIT, "signbit", ELEM, 1, FLT, BOOL)                                                  \
    X(FREXP_EXPONENT, "frexp_exponent", ELEM, 1, FLT, SAME) /* frexp's exponent, as a float */ \
    /* Complex parts (out REAL: the part's float dtype) and the complex number of two parts:  \
     * COMPLEX's operands are complex, their real parts become the result's two parts. */      \
    X(REAL, "real", ELEM, 1, CPLX, REAL)                                                       \
    X(IMAG, "imag", ELEM, 1, CPLX, REAL)                                                       \
    X(CONJUGATE, "conjugate", ELEM, 1, CPLX, SAME)                                             \
    X(COMPLEX, "complex", ELEM, 2, CPLX, SAME)                                                 \
    X(ADD, "add", ELEM, 2, ALLC, SAME)                                                          \
    X(SUBTRACT, "subtract", ELEM, 2, NUMC, SAME)                                                \
    X(MULTIPLY, "multiply", ELEM, 2, ALLC, SAME)                                                \
    X(TRUE_DIVIDE, "true_divide", ELEM, 2, FLTC, SAME)                                          \
    X(FLOOR_DIVIDE, "floor_divide", ELEM, 2, NUM, SAME)                                        \
    X(REMAINDER, "remainder", ELEM, 2, NUM, SAME)                                              \
    X(POWER, "power", ELEM, 2, NUMC, SAME)                                                      \
    X(MAXIMUM, "maximum", ELEM, 2, ALLC, SAME)                                                  \
    X(MINIMUM, "minimum", ELEM, 2, ALLC, SAME)                                                  \
    X(FMAX, "fmax", ELEM, 2, ALLC, SAME)                                                        \
    X(FMIN, "fmin", ELEM, 2, ALLC, SAME)                                                        \
    X(ARCTAN2, "arctan2", ELEM, 2, FLT, SAME)                                                  \
    X(HYPOT, "hypot", ELEM, 2, FLT, SAME)                                                      \
    X(COPYSIGN, "copysign", ELEM, 2, FLT, SAME)                                                \
    X(EQUAL, "equal", ELEM, 2, ALLC, BOOL)                                                      \
    X(NOT_EQUAL, "not_equal", ELEM, 2, ALLC, BOOL)                                              \
    X(LESS, "less", ELEM, 2, ALLC, BOOL)                                                        \
    X(LESS_EQUAL, "less_equal", ELEM, 2, ALLC, BOOL)                                            \
    X(GREATER, "greater", ELEM, 2, ALLC, BOOL)                                                  \
    X(GREATER_EQUAL, "greater_equal", ELEM, 2, ALLC, BOOL)                                      \
    X(LOGICAL_AND, "logical_and", ELEM, 2, ALLC, BOOL)                                          \
    X(LOGICAL_OR, "logical_or", ELEM, 2, ALLC, BOOL)                                            \
    X(LOGICAL_XOR, "logical_xor", ELEM, 2, ALLC, BOOL)                                          \
    X(BITWISE_AND, "bitwise_and", ELEM, 2, INT, SAME)                                          \
    X(BITWISE_OR, "bitwise_or", ELEM, 2, INT, SAME)                                            \
    X(BITWISE_XOR, "bitwise_xor", ELEM, 2, INT, SAME)                                          \
    X(LEFT_SHIFT, "left_shift", ELEM, 2, INTNB, SAME)                                          \
    X(RIGHT_SHIFT, "right_shift", ELEM, 2, INTNB, SAME)                                        \
    X(LOGADDEXP, "logaddexp", ELEM, 2, FLT, SAME)                                              \
    X(LOGADDEXP2, "logaddexp2", ELEM, 2, FLT, SAME)                                            \
    X(NEXTAFTER, "nextafter", ELEM, 2, FLT, SAME)                                              \
    X(HEAVISIDE, "heaviside", ELEM, 2, FLT, SAME)                                              \
    /* operand 1: the integer exponent as a float of the node's dtype (the frontend clamps    \
     * it to +-2200, exact in float16, float32 and float64; bfloat16 computes in float32) */  \
    X(LDEXP, "ldexp", ELEM, 2, FLT, SAME)                                                      \
    X(GCD, "gcd", ELEM, 2, INTNB, SAME)                                                        \
    X(LCM, "lcm", ELEM, 2, INTNB, SAME)                                                        \
    /* An index into an axis of extent b (b >= 0): a in [-b, b) gives a, or a + b when       \
     * negative; outside, the node raises (IR_RAISE_INDEX). p.axis: the axis, for the       \
     * message. The frontend passes int64 operands. */                                       \
    X(INDEX, "index", ELEM, 2, INTNB, SAME)                                                    \
    /* C's fmod (the sign of operand 0; exact), and the 1-bits of |a| (bitwise_count; the    \
     * frontend casts the count to uint8, NumPy's result dtype) */                            \
    X(FMOD, "fmod", ELEM, 2, NUM, SAME)                                                        \
    X(BITWISE_COUNT, "bitwise_count", ELEM, 1, INTNB, SAME)                                    \
    /* Movement: index rewrites of operand 0, same dtype; the interpreter reads them  \
     * through strides (RESHAPE copies only where strides cannot express it). */                \
    X(RESHAPE, "reshape", VIEW, 1, ANY, SAME)      /* C order, same size */                   \
    X(PERMUTE, "transpose", VIEW, 1, ANY, SAME)    /* axis i reads operand axis p.ax[i] */    \
    X(SLICE, "slice", VIEW, 1, ANY, SAME)          /* i reads p.ax[k] + i * p.step[k] */      \
    X(EXPAND, "broadcast_to", VIEW, 1, ANY, SAME)  /* trailing-aligned, 1 -> extent */       \
    X(CONCAT, "concatenate", CONCAT, 2, ANY, SAME) /* operand 1 after operand 0 on p.axis */ \
    /* result[c] = operand 0 at c with axis p.axis replaced by operand 1 at c: operand 1 is   \
     * int64 of the node's shape, each value in [0, extent) (INDEX nodes make them so);       \
     * operand 0 has the node's rank and dtype and, off p.axis, the node's extents. */        \
    X(GATHER, "take", GATHER, 2, ANY, SAME)                                                    \
    /* Step graphs only (the scheduler's form of GATHER, never in an eval graph): operand 0,  \
     * an INPUT whose strides leave out the gathered axis, read at its own element plus       \
     * operand 1 (int64, an element offset) elements. */                                      \
    X(LOAD, "load", GATHER, 2, ANY, SAME)                                                      \
    /* The flat C-order positions of the true elements of bool operand 0: int64, 1-D; the    \
     * node's extent is fixed when it is built (the count, or a caller's size): fewer true    \
     * elements pad with -1, more are cut off. */                                             \
    X(NONZERO, "flatnonzero", NONZERO, 1, ANY, SAME)                                           \
    /* The elements of operand 1 (any dtype) at the true elements of bool operand 0, both 1-D \
     * of one extent n, in order: x[mask] without the positions in between. 1-D of n +        \
     * ir_compress_tail(dtype) elements: the kept values first, then (after unspecified       \
     * elements up to n) their count from element n on, as ir_compress_tail says. */          \
    X(COMPRESS, "compress", NONZERO, 2, ANY, SAME)                                             \
    /* Stable sorts along p.axis, NumPy's order (NaN last; -0.0 and 0.0 equal, so they keep   \
     * their order): SORT gives the values, ARGSORT their int64 positions along the axis. */  \
    X(SORT, "sort", SORT, 1, ANY, SAME)                                                        \
    X(ARGSORT, "argsort", SORT, 1, ANY, SAME)                                                  \
    /* Order statistics along p.axis without the sort: element i of the result's axis is the \
     * element at position p.ax[i] of the line stably sorted as SORT sorts it (its own bits:  \
     * the zero or NaN at that position). The axis's extent is the count of ranks (1..8);     \
     * real dtypes only. */                                                                   \
    X(SELECT, "select", SORT, 1, ANY, SAME)                                                    \
    /* For each element of operand 1, its insertion point in the sorted 1-D operand 0 (same   \
     * dtype), NumPy's order: p.k 0 the first (side='left'), 1 after the last equal. int64,   \
     * operand 1's shape. */                                                                   \
    X(SEARCHSORTED, "searchsorted", SEARCH, 2, ANY, SAME)                                      \
    /* np.correlate's direct form: a (n1) and taps v (n2), both 1-D of the node's dtype        \
     * (float32, float64) -> (len): out[t] = sum over i of a[p.k + t + i] * v[i] (v[n2-1-i]    \
     * when p.axis is 1: convolve's reversed taps), the terms with p.k + t + i outside a      \
     * left out, added in order of i (so both devices give the same bits). */                 \
    X(CORRELATE, "correlate", SEARCH, 2, FLT, SAME)                                            \
    /* A functional scatter: operand 0 (the node's dtype and shape) with, for each element e  \
     * of the int64 flat indices operand 1 in C order, element f = idx[e] (skipped when     \
     * negative) combined with operand 2's element e (broadcast to operand 1's shape):        \
     * p.k 0 set (the last write wins), 1 add (every duplicate, in that order), 2 minimum,    \
     * 3 maximum (NumPy's ufunc.at). */                                                        \
    X(SCATTER, "scatter", SCATTER, 3, ANY, SAME)                                               \
    /* Reductions over the operand axes in the bit set p.axes (p.keepdims: those axes stay  \
     * with extent 1). SUM, PROD, MAX, MIN: operand dtype = result dtype (16-bit floats     \
     * accumulate in float32); ARGMAX/ARGMIN: int64 result, flat index over the reduced     \
     * axes in C order; ANY/ALL: bool operand and result. */                                \
    X(SUM, "sum", REDUCE, 1, ANY, SAME)                                                       \
    X(PROD, "prod", REDUCE, 1, ANY, SAME)                                                     \
    X(MAX, "max", REDUCE, 1, ANY, SAME)            /* NaN propagates */                       \
    X(MIN, "min", REDUCE, 1, ANY, SAME)                                                       \
    X(ARGMAX, "argmax", REDUCE, 1, ANY, SAME)      /* first occurrence; NaN wins */           \
    X(ARGMIN, "argmin", REDUCE, 1, ANY, SAME)                                                 \
    X(ANY, "any", REDUCE, 1, ANY, SAME)                                                       \
    X(ALL, "all", REDUCE, 1, ANY, SAME)                                                       \
    /* Inclusive scans along p.axis, sequential in the result dtype (NumPy's accumulate). */  \
    X(CUMSUM, "cumsum", SCAN, 1, ANY, SAME)                                                   \
    X(CUMPROD, "cumprod", SCAN, 1, ANY, SAME)                                                 \
    /* The discrete Fourier transform along p.axis of a complex64 or complex128 operand, same \
     * shape and dtype: p.k 0 forward (exp(-2 pi i jk / n)), 1 backward (exp(+...)), both     \
     * unscaled (numpy.fft's norms, real transforms and padding are the frontend's). */       \
    X(FFT, "fft", FFT, 1, CPLX, SAME)                                                          \
    X(MATMUL, "matmul", MATMUL, 2, ALLC, SAME)      /* contraction, p.k = mode (matmul.c) */ \
    /* Factorisations (float32, float64, complex64, complex128), one per matrix of the last   \
     * two axes, stacked over the leading ones; C-contiguous operands and results of the      \
     * operand's dtype but where said (ref_linalg.c documents how each maps onto LAPACK's     \
     * column-major routines, which both devices call the same way). Real values packed into  \
     * a complex result (eigenvalues, singular values) have a zero imaginary part.            \
     * LU: (.., n, n) -> (.., n+1, n): rows 0..n-1 the transposed getrf factors of the        \
     *   transpose (diagonal: U's), row n the 1-based pivots. Never raises.                   \
     * SOLVE: A (.., n, n), B^T (.., k, n) -> X^T (.., k, n) with A X = B; p.k 1 (inv): one    \
     *   B^T (k, n) for every matrix. Raises singular; p.k 2 (cond's inv): a singular matrix  \
     *   gives NaN or inf instead (the CPU NaN throughout), as NumPy's inv under errstate.     \
     * CHOLESKY: A^T (.., n, n), or A with p.k 1 (the step transposes it as it copies it) -> \
     *   L^T on and above the diagonal (A = L L^H from A's lower triangle); below it          \
     *   whatever the device leaves. Raises not positive definite.                            \
     * EIGH: p.k bit 0: read the upper triangle (else the lower); bit 1: values only, (.., n) \
     *   ascending, of the real dtype; else (.., n+1, n): row 0 the values, row 1 + i         \
     *   eigenvector i (complex: its conjugate).                                              \
     * SVD of (.., m, n) with m <= n: p.k 0 the values (.., m), descending, of the real      \
     *   dtype; 1 (reduced) and 2 (full) (.., m*m + m + r*n), r = m or n: U (m x m), s, Vh    \
     *   (r x n), each C order.                                                               \
     * QR of A^T (.., n, m), k = min(m, n): p.k 0 (reduced) and 1 (complete): (.., q*m +     \
     *   n*k), q = k or m: Q^T (q x m) then R^T (n x k) whose part above the diagonal is     \
     *   whatever the device leaves (its Householder vectors); 2: R^T alone (.., n, k).       \
     * EIG of A^T (.., n, n), complex only: p.k 0 the eigenvalues (.., n) in the library's    \
     *   order; 1: (.., n+1, n): row 0 the values, row 1 + i the right eigenvector of value i \
     *   (unit 2-norm, largest component real). Raises did not converge. */                   \
    X(LU, "lu_factor", LINALG, 1, FLTC, SAME)                                                  \
    X(SOLVE, "solve", LINALG, 2, FLTC, SAME)                                                   \
    X(CHOLESKY, "cholesky", LINALG, 1, FLTC, SAME)                                             \
    X(EIGH, "eigh", LINALG, 1, FLTC, SAME)                                                     \
    X(SVD, "svd", LINALG, 1, FLTC, SAME)                                                       \
    X(QR, "qr", LINALG, 1, FLTC, SAME)                                                         \
    X(EIG, "eig", LINALG, 1, CPLX, SAME)

typedef enum ir_op {
#define IR__OP_ENUM(e, name, kind, arity, loops, out) IR_OP_##e,
    IR_OP_LIST(IR__OP_ENUM)
#undef IR__OP_ENUM
        IR_OP_COUNT
} ir_op_t;

typedef enum ir_op_kind {
    IR_KIND_LEAF, IR_KIND_ELEM, IR_KIND_MATMUL,
    IR_KIND_VIEW, IR_KIND_CONCAT, IR_KIND_REDUCE, IR_KIND_SCAN, IR_KIND_GATHER, IR_KIND_NONZERO,
    IR_KIND_SORT, IR_KIND_SEARCH, IR_KIND_SCATTER, IR_KIND_LINALG, IR_KIND_FFT
} ir_op_kind_t;
typedef enum ir_loops {
    IR_LOOPS_ANY, IR_LOOPS_ALL, IR_LOOPS_NUM, IR_LOOPS_FLT, IR_LOOPS_INT, IR_LOOPS_INTNB,
    IR_LOOPS_ALLC, IR_LOOPS_NUMC, IR_LOOPS_FLTC, IR_LOOPS_CPLX
} ir_loops_t;
typedef enum ir_out { IR_OUT_SAME, IR_OUT_BOOL, IR_OUT_REAL } ir_out_t;
/* The result dtype of an elementwise op computing in dtype d. */
static inline loom_dtype_t ir_out_dtype(ir_op_t op, loom_dtype_t d);

typedef struct ir_op_info {
    const char *name; /* NumPy's name */
    ir_op_kind_t kind;
    uint8_t arity;
    ir_loops_t loops;
    ir_out_t out;
} ir_op_info_t;

extern const ir_op_info_t ir_ops[IR_OP_COUNT];
static inline loom_dtype_t ir_out_dtype(ir_op_t op, loom_dtype_t d) {
    return ir_ops[op].out == IR_OUT_BOOL ? LOOM_DTYPE_BOOL
           : ir_ops[op].out == IR_OUT_REAL ? ir_real_dtype(d)
                                           : d;
}
/* Whether op has a loop computing in dtype d. */
bool ir_op_has_loop(ir_op_t op, loom_dtype_t d);
/* NumPy's order of a ufunc's loops: ? b B h H i I l L q Q e f d F D, bfloat16 after e. */
extern const loom_dtype_t ir_loop_order[LOOM_DTYPE_COUNT];
/* NumPy's loop choice: the first loop dtype (in ir_loop_order) that `common` casts to
 * safely; -1 if none. */
int ir_op_loop_dtype(ir_op_t op, loom_dtype_t common);

/* ---- The flat IR (graph.c) ---- */
typedef struct ir_params {
    uint64_t bits; /* CONST: the value, in the node's dtype, as raw bits (zero-extended) */
    double a, b;   /* ARANGE of a float dtype: start, step; LINSPACE: start, step; RAND:
                      low/high, mean/std */
    int64_t i0, di; /* ARANGE of bool or an integer dtype: element 0, and the difference between
                       neighbours (mod 2**64; the dtype wraps them) */
    double c;      /* LINSPACE: stop (written at index k when endpoint) */
    int64_t k;     /* EYE: diagonal; LINSPACE: index of the endpoint or -1; MATMUL: mode */
    uint64_t seed; /* RAND */
    int64_t ax[LOOM_MAX_DIMS];   /* PERMUTE: operand axis of each result axis; SLICE: starts */
    int64_t step[LOOM_MAX_DIMS]; /* SLICE: step of each axis (nonzero, may be negative) */
    uint32_t axes;               /* REDUCE: bit i set = operand axis i is reduced */
    uint32_t keepdims;           /* REDUCE: reduced axes stay, with extent 1 */
    int64_t axis;                /* CONCAT, SCAN, GATHER: the axis; INDEX: the indexed axis */
} ir_params_t;

typedef struct ir_node {
    uint16_t op;
    uint8_t dtype;
    uint8_t ndim;
    uint32_t src[3];
    int64_t shape[LOOM_MAX_DIMS];
    ir_params_t p;
    int32_t input; /* INPUT: index into ir_graph.inputs */
    uint64_t hash; /* structural: op, dtype, shape, operands, and params other than values */
} ir_node_t;

/* A realised buffer read by an eval, as the IR sees it: element strides and offset. */
typedef struct ir_input {
    const void *host;     /* host memory, or NULL when the data is on the device */
    uint64_t dev;         /* device address, or 0 */
    int64_t strides[LOOM_MAX_DIMS];
    int64_t offset;       /* elements */
    void *owner;          /* the frontend array it came from (opaque here) */
} ir_input_t;

typedef struct ir_graph {
    base_arena_t *arena;
    ir_node_t *nodes;
    uint32_t n_nodes, cap_nodes;
    ir_input_t *inputs;
    uint32_t n_inputs, cap_inputs;
    uint32_t *outputs;    /* node index of each requested result */
    uint32_t n_outputs, cap_outputs;
    uint32_t *cse;        /* open-addressing table of node indices + 1 */
    uint32_t cap_cse;
    base_error_t *err;
} ir_graph_t;

void ir_graph_init(ir_graph_t *g, base_arena_t *arena, base_error_t *err);
/* Adds a node (CSE: an identical node already present is returned instead). Returns the
 * node's index, or UINT32_MAX on failure (recorded on g->err). */
uint32_t ir_emit(ir_graph_t *g, const ir_node_t *node);
/* Room for n_nodes nodes (and their CSE table) without growing; false on failure (recorded
 * on g->err). Only a size hint: emitting more still grows. */
bool ir_graph_reserve(ir_graph_t *g, uint32_t n_nodes);
/* Adds an input (every call a new one: callers dedupe, e.g. lowering by array, the scheduler
 * by slot and strides); its index, or UINT32_MAX on failure. */
uint32_t ir_add_input(ir_graph_t *g, const ir_input_t *in);
bool ir_add_output(ir_graph_t *g, uint32_t node);
int64_t ir_node_size(const ir_node_t *n);
/* COMPRESS's trailing elements in dtype d, which hold its count: the uint64's bytes, or for bool
 * (whose reads and copies make every byte 0 or 1) one element per bit, lowest first. */
static inline int64_t ir_compress_tail(loom_dtype_t d) {
    size_t es = ir_dtypes[d].size;
    return d == LOOM_DTYPE_BOOL ? 64 : (int64_t)((8 + es - 1) / es);
}
/* Structural hash of a node, from its fields and its operands' hashes. */
uint64_t ir_node_hash(const ir_graph_t *g, const ir_node_t *n);

/* ---- fold.c: constant folding ----
 * An elementwise node whose operands are all CONST becomes a CONST of its own shape (but not
 * a node that raises: its error is the eval's, on the device that runs it). */
void ir_fold(ir_graph_t *g);

/* ---- ops.c: data-dependent errors ----
 * A node raises when some operand values make it an error rather than a value, as NumPy
 * raises: POWER of signed integers with a negative exponent. Each device checks the values
 * it computes: the reference interpreter before the op, a generated kernel through
 * lm_raise(IR_RAISE_*) into its module's status word, read at the next wait for the device
 * (engine/run.c). */
enum { IR_RAISE_NEG_POWER = 1u, IR_RAISE_INDEX = 2u };
bool ir_node_raises(const ir_graph_t *g, const ir_node_t *n);
/* The error message and status of the first IR_RAISE_* bit set in bits. */
const char *ir_raise_message(uint32_t bits);
loom_status_t ir_raise_status(uint32_t bits);
/* The status of an INDEX error, as NumPy words it: "index 7 is out of bounds for axis 0 with
 * size 5". */
loom_status_t ir_index_error(base_error_t *err, int64_t index, int64_t axis, int64_t size);
/* Its message, NumPy's: index, axis and size as long long (the engine words a GPU's raise so). */
#define IR_INDEX_MESSAGE "index %lld is out of bounds for axis %lld with size %lld"

/* ---- verify.c: checks the invariants above; records INTERNAL and returns false if broken */
bool ir_verify(const ir_graph_t *g);

/* ---- print.c: deterministic text dump ---- */
void ir_print(const ir_graph_t *g, base_str_t *out);
/* The same graph as Graphviz DOT. */
void ir_print_dot(const ir_graph_t *g, base_str_t *out);
/* The value of a CONST as text, exactly ("1.5", "0x1p-3" style never; shortest round trip). */
void ir_print_scalar(loom_dtype_t dtype, uint64_t bits, base_str_t *out);

/* ---- interp.c: the CPU reference device ----
 * Computes every node of g on the host; results[i] receives a malloc'd (through al)
 * C-contiguous buffer for g->outputs[i]. Returns the status (errors on g->err). */
loom_status_t ir_interp(const ir_graph_t *g, base_alloc_t *al, void **results);
/* Copies the strided elements (strides in elements) at src to dst in C order. */
void ir_copy_strided(loom_dtype_t dtype, int32_t ndim, const int64_t *shape, const void *src,
                     const int64_t *strides, void *dst);

/* ---- matmul.c: contractions (MATMUL nodes) ----
 * p.k of a MATMUL node says which contraction it is: IR_MATMUL_MATMUL (np.matmul: 1-D operands
 * promoted and the added axis removed, batch axes broadcast), IR_MATMUL_DOT (np.dot of operands
 * of 2 or more axes: a's last axis with b's second-to-last) or IR_MATMUL_TENSORDOT + n
 * (np.tensordot(a, b, n): a's last n axes with b's first n). Operands have the node's dtype;
 * ints wrap, bool is or-of-ands, float16/bfloat16 accumulate in float32 and round once. */
enum { IR_MATMUL_MATMUL = 0, IR_MATMUL_DOT = 1, IR_MATMUL_TENSORDOT = 2 };

/* Why a contraction's shapes are refused (for the frontend's NumPy-style messages). */
typedef enum ir_matmul_fault {
    IR_MATMUL_OK,
    IR_MATMUL_NDIM,     /* operand `operand` has too few axes (0-d for matmul, < n for tensordot) */
    IR_MATMUL_CORE,     /* contracted extents differ: a axis `a_axis` vs b axis `b_axis` */
    IR_MATMUL_BATCH,    /* batch axes do not broadcast */
    IR_MATMUL_TOO_MANY, /* the result would have more than LOOM_MAX_DIMS axes */
    IR_MATMUL_MODE      /* unknown mode */
} ir_matmul_fault_t;

typedef struct ir_matmul_why {
    ir_matmul_fault_t fault;
    int operand;        /* NDIM: 0 or 1 */
    int a_axis, b_axis; /* CORE: the mismatched axes (non-negative) */
} ir_matmul_why_t;

/* The result shape of contraction `mode` of shapes a and b; false (and *why) if NumPy refuses. */
bool ir_matmul_shape(int64_t mode, int a_ndim, const int64_t *a_shape, int b_ndim,
                     const int64_t *b_shape, int *out_ndim, int64_t *out_shape,
                     ir_matmul_why_t *why);
/* Computes MATMUL node n into the C-contiguous out from operand views a and b (element strides).
 * Blocked and packed: any strides work (transposed, broadcast, sliced). Returns false only when
 * a scratch allocation through al fails. */
bool ir_ref_matmul(const ir_node_t *n, const ir_node_t *a_node, const void *a,
                   const int64_t *a_strides, const ir_node_t *b_node, const void *b,
                   const int64_t *b_strides, void *out, base_alloc_t *al);

/* A contraction as one GEMM: batch axes (extent and element strides in a, b and the
 * C-contiguous result; broadcast axes have stride 0), outer contracted axes (tensordot with
 * n > 1: accumulated around the GEMM; sc unused), and one m x k by k x n product with element
 * strides. Shared by the reference kernel and the CUDA device's matmul step (gemm.c). */
typedef struct ir_matmul_axis {
    int64_t n, sa, sb, sc;
} ir_matmul_axis_t;
typedef struct ir_matmul_plan {
    int n_batch, n_kout;
    ir_matmul_axis_t batch[2 * LOOM_MAX_DIMS];
    ir_matmul_axis_t kout[LOOM_MAX_DIMS];
    int64_t m, n, k;
    int64_t sam, sak, sbk, sbn, scm, scn;
} ir_matmul_plan_t;
/* The plan of MATMUL node n for operand views with these element strides; false if the shapes
 * do not fit the node (the verifier rules that out). */
bool ir_matmul_plan(const ir_node_t *n, const ir_node_t *a_node, const int64_t *a_strides,
                    const ir_node_t *b_node, const int64_t *b_strides, ir_matmul_plan_t *out);

/* ---- ref_linalg.c: factorisations through LAPACK (LAPACKE, loaded with dlopen) ----
 * LINALG node n of operands a (and b for SOLVE), C-contiguous, into the C-contiguous out. A
 * data-dependent failure (singular, not positive definite, no convergence) returns
 * LOOM_STATUS_LINALG_ERROR with ir_linalg_error's message; a missing LAPACK NOT_AVAILABLE;
 * scratch memory through al OUT_OF_MEMORY. Errors are recorded on err. */
loom_status_t ir_ref_linalg(const ir_node_t *n, const ir_node_t *a_node, const void *a,
                            const ir_node_t *b_node, const void *b, void *out, base_alloc_t *al,
                            base_error_t *err);
/* The info word of a matrix that EIG refuses before factoring: it holds an inf or a NaN. */
#define IR_LINALG_NONFINITE 0x7fffffff
/* Records the error of LINALG node n whose LAPACK (or cuSOLVER) info was `info` (> 0) for matrix
 * `index` of `batch`, worded as NumPy's LinAlgError ("Singular matrix"); returns the status. */
loom_status_t ir_linalg_error(base_error_t *err, const ir_node_t *n, int64_t info, int64_t index,
                              int64_t batch);
/* The result shape of LINALG op `op` (mode: its p.k) over operands a (and b for SOLVE); false
 * when the operands do not fit (not square, not m <= n for SVD, right-hand sides that differ). */
bool ir_linalg_shape(ir_op_t op, int64_t mode, const ir_node_t *a, const ir_node_t *b, int *ndim,
                     int64_t *shape);
/* The dtype of LINALG op `op` (mode: its p.k) over operands of dtype d: d, or its real dtype
 * where the result holds real values alone (EIGH's and SVD's values-only modes). */
loom_dtype_t ir_linalg_dtype(ir_op_t op, int64_t mode, loom_dtype_t d);
/* The matrices of LINALG node n: how many (the product of the leading extents) and the rows
 * and columns of each of the node's first operand. */
void ir_linalg_dims(const ir_node_t *n, const ir_node_t *a_node, int64_t *batch, int64_t *rows,
                    int64_t *cols);

/* FFT nodes: the unscaled transform over the axes in p.axes (bit i: axis i; a run of at most
 * IR_FFT_MAX_RANK adjacent axes, the last p.axis), of the kind in p.k. R2C takes a real operand
 * and keeps p.axis's first n / 2 + 1 outputs; C2R (one axis) takes those n / 2 + 1 of a
 * Hermitian line and gives its n real points, ignoring the imaginary parts of X[0] and X[n / 2]
 * as NumPy's irfft does (cuFFT needs them zero: the frontend clears them, which also gives
 * cuFFT the scratch copy its C2R overwrites). */
enum { IR_FFT_FORWARD, IR_FFT_INVERSE, IR_FFT_R2C, IR_FFT_C2R };
#define IR_FFT_MAX_RANK 3
static inline int ir_fft_first_axis(const ir_node_t *n) {
    int a = (int)n->p.axis;
    while (a > 0 && ((n->p.axes >> (a - 1)) & 1u)) a--;
    return a;
}
/* FFT nodes on the reference device: operand o (data p, element strides s) transformed into
 * out (C order), in double. False when memory runs out. */
bool ir_ref_fft(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s, void *out,
                base_alloc_t *al);

/* ---- ref_fft.c: the reference device's DFT (any length, double) ----
 * A plan for complex transforms of length n over interleaved (re, im) doubles: mixed radix
 * when n's prime factors are small, Bluestein otherwise. NULL when memory runs out. */
typedef struct ir_fft_plan ir_fft_plan_t;
ir_fft_plan_t *ir_fft_plan_new(int64_t n, base_alloc_t *al);
void ir_fft_plan_free(ir_fft_plan_t *p);
/* Doubles of scratch ir_fft_exec needs (the caller's: plans are shared between threads). */
size_t ir_fft_scratch_doubles(const ir_fft_plan_t *p);
/* In place: sign -1 the forward transform X_k = sum_j x_j exp(-2 pi i jk / n), +1 the backward
 * one (exp(+...), unscaled). */
void ir_fft_exec(const ir_fft_plan_t *p, double *data, int sign, double *scratch);

/* ---- scalar.c: scalar conversions shared by frontend, folding and the interpreter ---- */
/* Converts one element between dtypes with NumPy's casting (the same functions as kernels). */
void ir_cast_element(loom_dtype_t to, void *dst, loom_dtype_t from, const void *src);
/* A scalar's CONST bits (p.bits). complex128 does not fit 64 bits: for it these are the real
 * part's float64 bits, and the frontend's constants of complex128 are a CAST of that float64
 * CONST (COMPLEX of two of them where the imaginary part is not zero). */
uint64_t ir_bits_from_double(loom_dtype_t d, double v);
uint64_t ir_bits_from_i64(loom_dtype_t d, int64_t v);
uint64_t ir_bits_from_u64(loom_dtype_t d, uint64_t v);
double ir_bits_to_double(loom_dtype_t d, uint64_t bits);

/* ---- ref_kernels.c: the CPU reference interpreter's kernels ----
 * One strided loop per op and dtype, each calling the prelude's function (prelude.h), so the
 * CPU and the generated CUDA code compute the same thing. */
/* out[i] = f(a[i * sa], b[i * sb], c[i * sc]) for i < n; strides in elements, out contiguous.
 * Unused operands and strides are ignored (pass NULL and 0). */
typedef void (*ir_ref_fn)(int64_t n, void *out, const void *a, int64_t sa, const void *b,
                          int64_t sb, const void *c, int64_t sc);

/* [op][compute dtype = operand dtype]; NULL where the op has no loop for that dtype. For WHERE:
 * [IR_OP_WHERE][result dtype], with a the bool condition and b, c the two choices. */
extern const ir_ref_fn ir_ref_elem[IR_OP_COUNT][LOOM_DTYPE_COUNT];
/* [from][to]: NumPy's astype (unsafe casting); a only. [d][d] is a copy. */
extern const ir_ref_fn ir_ref_cast[LOOM_DTYPE_COUNT][LOOM_DTYPE_COUNT];
/* Fills the node's whole C-contiguous output for CONST, ARANGE, LINSPACE, EYE (2-D: 1 where
 * col - row == p.k), RAND_UNIFORM and RAND_NORMAL (non-float dtypes: the float64 stream
 * cast to the dtype). Other ops: nothing is written (a broken invariant; asserts). */
void ir_ref_leaf(const ir_node_t *node, void *out);

/* ---- shape_ref.c: views, concatenation, reductions and scans ----
 * Operands are read through element strides (any sign, zero for broadcast axes); outputs are
 * C-contiguous buffers of the node's shape. */

/* The strides (and element offset from the operand's base) of VIEW node n read over operand o
 * whose view has strides ost. False for a RESHAPE that strides cannot express (the caller
 * copies the operand to a contiguous buffer and retries with its strides). */
bool ir_ref_view(const ir_node_t *n, const ir_node_t *o, const int64_t *ost, int64_t *offset,
                 int64_t *strides);
/* CONCAT node n of operands a and b (their views at pa/sa and pb/sb) into out. */
void ir_ref_concat(const ir_node_t *n, const ir_node_t *a, const char *pa, const int64_t *sa,
                   const ir_node_t *b, const char *pb, const int64_t *sb, void *out);
/* REDUCE node n of operand o (view at p, strides s) into out; false if scratch memory through
 * al runs out. Empty MAX/MIN/ARGMAX/ARGMIN write nothing (the frontend refuses them). */
bool ir_ref_reduce(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                   void *out, base_alloc_t *al);
/* GATHER node n of data operand o (view at p, strides s) and index operand x (int64 view at
 * px, strides sx) into out. */
void ir_ref_gather(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                   const int64_t *px, const int64_t *sx, void *out);
/* NONZERO node n of bool operand o (view at p, strides s) into out. */
void ir_ref_nonzero(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                    void *out);
/* COMPRESS node n: bool mask o (view at p, strides s), values of the mask's extent (view at
 * pv, strides sv). */
void ir_ref_compress(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                     const char *pv, const int64_t *sv, void *out);
/* SORT or ARGSORT node n of operand o into out; false if scratch memory through al runs out. */
bool ir_ref_sort(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                 void *out, base_alloc_t *al);
/* SEARCHSORTED node n: sorted operand o (view at p, strides s), values v (view at pv, strides
 * sv) into out. */
void ir_ref_searchsorted(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                         const ir_node_t *v, const char *pv, const int64_t *sv, void *out);
/* CORRELATE node n: a (view at pa, strides sa), taps v (view at pv, strides sv) into out. */
void ir_ref_correlate(const ir_node_t *n, const ir_node_t *a, const char *pa, const int64_t *sa,
                      const ir_node_t *v, const char *pv, const int64_t *sv, void *out);
/* SCATTER node n: base o (view at p, strides s), flat indices x (view px, strides sx), values
 * v (view pv, strides sv) into out. */
void ir_ref_scatter(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                    const ir_node_t *x, const char *px, const int64_t *sx, const ir_node_t *v,
                    const char *pv, const int64_t *sv, void *out);
/* SCAN node n of operand o (same dtype) into out. */
void ir_ref_scan(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                 void *out);

/* ---- ir_prelude.c, generated by shake.py ----
 * The prelude (prelude.h: op semantics shared by the CPU interpreter and the generated kernels)
 * as NVRTC reads it, split into declarations emitted always and functions emitted on use. */
typedef struct ir_prelude_fn {
    const char *name;
    uint32_t pos;               /* position in the prelude (definitions precede uses) */
    uint32_t off, len;          /* its text in ir_prelude_text */
    uint32_t dep_start, n_deps; /* positions of the prelude functions it calls */
} ir_prelude_fn_t;
extern const char ir_prelude_preamble[];
extern const char ir_prelude_text[];
extern const uint32_t ir_prelude_deps[];
extern const ir_prelude_fn_t ir_prelude_fns[]; /* sorted by name */
extern const uint32_t ir_prelude_by_pos[];     /* position -> index in ir_prelude_fns */
extern const uint32_t ir_prelude_n_fns;

#endif
