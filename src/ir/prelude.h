/* prelude.h - the meaning of every loom op, in one header read by two compilers: gcc as C11
 * (the CPU reference interpreter, scalar conversions, constant folding) and NVRTC as CUDA C++
 * (prepended to every generated kernel). Both sides therefore compute the same functions.
 *
 * Naming contract (the code generator writes these names as text):
 *   types        lm_b lm_i8 lm_i16 lm_i32 lm_i64 lm_u8 lm_u16 lm_u32 lm_u64 lm_f16 lm_bf16
 *                lm_f32 lm_f64 lm_c64 lm_c128 (16-bit floats are stored as their bit patterns;
 *                complex numbers as structs of the real and imaginary parts, NumPy's layout)
 *   ops          lm_<numpy name>_<sfx>(a[, b]) for each op of LM_ELEM_OPS and each dtype of
 *                its loop set; returns lm_b for comparisons and predicates, else the operand type
 *   casts        lm_cast_<from sfx>_<to sfx>(x), all 15 x 15 pairs (NumPy's unsafe astype)
 *   where        lm_where_<sfx>(lm_b c, x, y)
 *   leaves       lm_arange_<sfx>(start, step, i), lm_linspace_<sfx>(start, step, stop, k, i),
 *                lm_random_uniform_<fsfx>(seed, i, low, high),
 *                lm_random_normal_<fsfx>(seed, i, mean, std), lm_philox(seed, ctr, out[4])
 *   conversions  lm_f32_to_f16 lm_f16_to_f32 lm_f64_to_f16 lm_f32_to_bf16 lm_bf16_to_f32
 *                lm_f64_to_bf16 (exact round-to-nearest-even, integer code only)
 *
 * Semantics are NumPy 2's on x86-64 Linux, float16/bfloat16 computed in float32 and rounded
 * back as NumPy does. Nothing here may depend on the compiler: no undefined behaviour (signed
 * wraparound is done in unsigned types), no reliance on libm for the random stream (its log,
 * cos and the final affine map are built from IEEE basic operations, see docs/random.md). */
#ifndef LOOM_PRELUDE_H
#define LOOM_PRELUDE_H

#ifdef __CUDACC_RTC__
#define LM_FN static __device__ __forceinline__
#define LM_DMUL(a, b) __dmul_rn((a), (b))
#define LM_DADD(a, b) __dadd_rn((a), (b))
#define LM_DSUB(a, b) __dsub_rn((a), (b))
#define LM_DDIV(a, b) __ddiv_rn((a), (b))
#define LM_DSQRT(a) __dsqrt_rn(a)
#define LM_FMUL(a, b) __fmul_rn((a), (b))
#define LM_FADD(a, b) __fadd_rn((a), (b))
#define LM_FSUB(a, b) __fsub_rn((a), (b))
/* sine and cosine of one argument (F: the libm suffix), one range reduction for both */
#define LM_SINCOS(F, x, s, c) sincos##F((x), (s), (c))
#else
#include <math.h>
#define LM_FN static inline
/* The host build uses -ffp-contract=off, so plain operators round once each. */
#define LM_DMUL(a, b) ((a) * (b))
#define LM_DADD(a, b) ((a) + (b))
#define LM_DSUB(a, b) ((a) - (b))
#define LM_DDIV(a, b) ((a) / (b))
#define LM_DSQRT(a) sqrt(a)
#define LM_FMUL(a, b) ((a) * (b))
#define LM_FADD(a, b) ((a) + (b))
#define LM_FSUB(a, b) ((a) - (b))
#define LM_SINCOS(F, x, s, c) (*(s) = sin##F(x), *(c) = cos##F(x))
#endif
/* The elementwise ops' LM_OP_* (see LM__MUL_F): the rounding macros, on the host and where
 * NVRTC reads this file as it is (tools/nvrtc_check.c). shake.py (LM_SHAKE) leaves them
 * undefined, for each kernel's preamble to define. */
#if !defined(__CUDACC_RTC__) || !defined(LM_SHAKE)
#define LM_OP_FMUL(a, b) LM_FMUL(a, b)
#define LM_OP_FADD(a, b) LM_FADD(a, b)
#define LM_OP_FSUB(a, b) LM_FSUB(a, b)
#define LM_OP_DMUL(a, b) LM_DMUL(a, b)
#define LM_OP_DADD(a, b) LM_DADD(a, b)
#define LM_OP_DSUB(a, b) LM_DSUB(a, b)
#endif

typedef unsigned char lm_b; /* 0 or 1 */
typedef signed char lm_i8;
typedef short lm_i16;
typedef int lm_i32;
typedef long long lm_i64;
typedef unsigned char lm_u8;
typedef unsigned short lm_u16;
typedef unsigned int lm_u32;
typedef unsigned long long lm_u64;
typedef unsigned short lm_f16;  /* IEEE binary16 bits */
typedef unsigned short lm_bf16; /* bfloat16 bits (the top half of a float32) */
typedef float lm_f32;
typedef double lm_f64;
struct lm_c64 {
    lm_f32 re, im;
};
struct lm_c128 {
    lm_f64 re, im;
};
typedef struct lm_c64 lm_c64;
typedef struct lm_c128 lm_c128;

/* ---- Tables -------------------------------------------------------------------------------
 * X(TAG, sfx, ctype, class, W, bits): every dtype. TAG matches LOOM_DTYPE_<TAG>; class is
 * B (bool), S (signed), U (unsigned), H (16-bit float, computed in float32), F (native
 * float) or C (complex); W is the unsigned type integer arithmetic wraps in (for F: the libm
 * suffix; for C: the type of each part). */
#define LM__DT_B(X, E, n, a, o) X(E, n, a, o, BOOL, B, b, lm_b, lm_u32, 1)
#define LM__DT_S(X, E, n, a, o)                                                                \
    X(E, n, a, o, I8, S, i8, lm_i8, lm_u32, 8) X(E, n, a, o, I16, S, i16, lm_i16, lm_u32, 16)  \
    X(E, n, a, o, I32, S, i32, lm_i32, lm_u32, 32)                                             \
    X(E, n, a, o, I64, S, i64, lm_i64, lm_u64, 64)
#define LM__DT_U(X, E, n, a, o)                                                                \
    X(E, n, a, o, U8, U, u8, lm_u8, lm_u32, 8) X(E, n, a, o, U16, U, u16, lm_u16, lm_u32, 16)  \
    X(E, n, a, o, U32, U, u32, lm_u32, lm_u32, 32)                                             \
    X(E, n, a, o, U64, U, u64, lm_u64, lm_u64, 64)
/* f32 and f64 come first: the 16-bit versions call the f32 ones. */
#define LM__DT_F(X, E, n, a, o)                                                                \
    X(E, n, a, o, F32, F, f32, lm_f32, f, 32) X(E, n, a, o, F64, F, f64, lm_f64, , 64)         \
    X(E, n, a, o, F16, H, f16, lm_f16, lm_f32, 16)                                             \
    X(E, n, a, o, BF16, H, bf16, lm_bf16, lm_f32, 16)

#define LM__DT_C(X, E, n, a, o)                                                                \
    X(E, n, a, o, C64, C, c64, lm_c64, lm_f32, 64) X(E, n, a, o, C128, C, c128, lm_c128, lm_f64, 128)

/* Loop sets of ir.h: X(E, name, arity, out, TAG, class, sfx, ctype, W, bits) per dtype. The
 * sets ending in C add the complex dtypes; CPLX is those alone. */
#define LM_LOOPS_ALL(X, E, n, a, o)                                                            \
    LM__DT_B(X, E, n, a, o) LM__DT_S(X, E, n, a, o) LM__DT_U(X, E, n, a, o)                    \
        LM__DT_F(X, E, n, a, o)
#define LM_LOOPS_NUM(X, E, n, a, o)                                                            \
    LM__DT_S(X, E, n, a, o) LM__DT_U(X, E, n, a, o) LM__DT_F(X, E, n, a, o)
#define LM_LOOPS_FLT(X, E, n, a, o) LM__DT_F(X, E, n, a, o)
#define LM_LOOPS_INT(X, E, n, a, o)                                                            \
    LM__DT_B(X, E, n, a, o) LM__DT_S(X, E, n, a, o) LM__DT_U(X, E, n, a, o)
#define LM_LOOPS_INTNB(X, E, n, a, o) LM__DT_S(X, E, n, a, o) LM__DT_U(X, E, n, a, o)
#define LM_LOOPS_ALLC(X, E, n, a, o) LM_LOOPS_ALL(X, E, n, a, o) LM__DT_C(X, E, n, a, o)
#define LM_LOOPS_NUMC(X, E, n, a, o) LM_LOOPS_NUM(X, E, n, a, o) LM__DT_C(X, E, n, a, o)
#define LM_LOOPS_FLTC(X, E, n, a, o) LM__DT_F(X, E, n, a, o) LM__DT_C(X, E, n, a, o)
#define LM_LOOPS_CPLX(X, E, n, a, o) LM__DT_C(X, E, n, a, o)

/* X(TAG, sfx, ctype, canonical): the dtypes in LOOM_DTYPE_LIST order. A cast first widens
 * its source to the canonical type (u64, i64, f64, c128; f64h = f64 from a float16 source, whose
 * cast to uint32 NumPy does differently; f64b = f64 from a bfloat16 source, which narrows back
 * to bfloat16 bit for bit, NaN payloads included), then narrows to the target. */
#define LM_DTYPE_LIST(X)                                                                       \
    X(BOOL, b, lm_b, u64) X(I8, i8, lm_i8, i64) X(I16, i16, lm_i16, i64)                       \
    X(I32, i32, lm_i32, i64) X(I64, i64, lm_i64, i64) X(U8, u8, lm_u8, u64)                    \
    X(U16, u16, lm_u16, u64) X(U32, u32, lm_u32, u64) X(U64, u64, lm_u64, u64)                 \
    X(F16, f16, lm_f16, f64h) X(BF16, bf16, lm_bf16, f64b) X(F32, f32, lm_f32, f64)            \
    X(F64, f64, lm_f64, f64) X(C64, c64, lm_c64, c128) X(C128, c128, lm_c128, c128)
/* A second copy, for nesting inside LM_DTYPE_LIST (the preprocessor does not recurse). */
#define LM_DTYPE_LIST2(X, p, q, r, s)                                                          \
    X(BOOL, b, lm_b, u64, p, q, r, s) X(I8, i8, lm_i8, i64, p, q, r, s)                        \
    X(I16, i16, lm_i16, i64, p, q, r, s) X(I32, i32, lm_i32, i64, p, q, r, s)                  \
    X(I64, i64, lm_i64, i64, p, q, r, s) X(U8, u8, lm_u8, u64, p, q, r, s)                     \
    X(U16, u16, lm_u16, u64, p, q, r, s) X(U32, u32, lm_u32, u64, p, q, r, s)                  \
    X(U64, u64, lm_u64, u64, p, q, r, s) X(F16, f16, lm_f16, f64h, p, q, r, s)                 \
    X(BF16, bf16, lm_bf16, f64b, p, q, r, s) X(F32, f32, lm_f32, f64, p, q, r, s)              \
    X(F64, f64, lm_f64, f64, p, q, r, s) X(C64, c64, lm_c64, c128, p, q, r, s)                 \
    X(C128, c128, lm_c128, c128, p, q, r, s)

/* X(ENUM, name, arity, loops, out): the elementwise ops of ir.h's IR_OP_LIST, same order,
 * without CAST and WHERE (ref_kernels.c checks the two lists agree at compile time). */
#define LM_ELEM_OPS(X)                                                                         \
    X(NEGATIVE, negative, 1, NUMC, SAME) X(POSITIVE, positive, 1, NUMC, SAME)                    \
    X(ABS, absolute, 1, ALLC, REAL) X(SIGN, sign, 1, NUMC, SAME) X(SQRT, sqrt, 1, FLTC, SAME)     \
    X(CBRT, cbrt, 1, FLT, SAME) X(SQUARE, square, 1, NUMC, SAME)                                \
    X(RECIPROCAL, reciprocal, 1, NUMC, SAME) X(EXP, exp, 1, FLTC, SAME)                          \
    X(EXP2, exp2, 1, FLTC, SAME) X(EXPM1, expm1, 1, FLTC, SAME) X(LOG, log, 1, FLTC, SAME)        \
    X(LOG2, log2, 1, FLTC, SAME) X(LOG10, log10, 1, FLTC, SAME) X(LOG1P, log1p, 1, FLTC, SAME)    \
    X(SIN, sin, 1, FLTC, SAME) X(COS, cos, 1, FLTC, SAME) X(TAN, tan, 1, FLTC, SAME)              \
    X(ARCSIN, arcsin, 1, FLTC, SAME) X(ARCCOS, arccos, 1, FLTC, SAME)                            \
    X(ARCTAN, arctan, 1, FLTC, SAME) X(SINH, sinh, 1, FLTC, SAME) X(COSH, cosh, 1, FLTC, SAME)    \
    X(TANH, tanh, 1, FLTC, SAME) X(ARCSINH, arcsinh, 1, FLTC, SAME)                              \
    X(ARCCOSH, arccosh, 1, FLTC, SAME) X(ARCTANH, arctanh, 1, FLTC, SAME)                        \
    X(FLOOR, floor, 1, ALL, SAME) X(CEIL, ceil, 1, ALL, SAME) X(TRUNC, trunc, 1, ALL, SAME)    \
    X(RINT, rint, 1, FLT, SAME) X(ISNAN, isnan, 1, ALLC, BOOL) X(ISINF, isinf, 1, ALLC, BOOL)    \
    X(ISFINITE, isfinite, 1, ALLC, BOOL) X(LOGICAL_NOT, logical_not, 1, ALLC, BOOL)              \
    X(INVERT, invert, 1, INT, SAME) X(ERF, erf, 1, FLT, SAME) X(ERFC, erfc, 1, FLT, SAME)      \
    X(ERFINV, erfinv, 1, FLT, SAME) X(ERFCINV, erfcinv, 1, FLT, SAME)                          \
    X(LGAMMA, lgamma, 1, FLT, SAME) X(DIGAMMA, digamma, 1, FLT, SAME) X(I0, i0, 1, FLT, SAME)  \
    X(SINC, sinc, 1, FLT, SAME) X(DEG2RAD, deg2rad, 1, FLT, SAME)                              \
    X(RAD2DEG, rad2deg, 1, FLT, SAME) X(SPACING, spacing, 1, FLT, SAME)                        \
    X(SIGNBIT, signbit, 1, FLT, BOOL) X(FREXP_EXPONENT, frexp_exponent, 1, FLT, SAME)          \
    X(REAL, real, 1, CPLX, REAL) X(IMAG, imag, 1, CPLX, REAL)                                  \
    X(CONJUGATE, conjugate, 1, CPLX, SAME) X(COMPLEX, complex, 2, CPLX, SAME)                  \
    X(ADD, add, 2, ALLC, SAME)                                                                  \
    X(SUBTRACT, subtract, 2, NUMC, SAME) X(MULTIPLY, multiply, 2, ALLC, SAME)                    \
    X(TRUE_DIVIDE, true_divide, 2, FLTC, SAME) X(FLOOR_DIVIDE, floor_divide, 2, NUM, SAME)      \
    X(REMAINDER, remainder, 2, NUM, SAME) X(POWER, power, 2, NUMC, SAME)                        \
    X(MAXIMUM, maximum, 2, ALLC, SAME) X(MINIMUM, minimum, 2, ALLC, SAME)                        \
    X(FMAX, fmax, 2, ALLC, SAME) X(FMIN, fmin, 2, ALLC, SAME) X(ARCTAN2, arctan2, 2, FLT, SAME)  \
    X(HYPOT, hypot, 2, FLT, SAME) X(COPYSIGN, copysign, 2, FLT, SAME)                          \
    X(EQUAL, equal, 2, ALLC, BOOL) X(NOT_EQUAL, not_equal, 2, ALLC, BOOL)                        \
    X(LESS, less, 2, ALLC, BOOL) X(LESS_EQUAL, less_equal, 2, ALLC, BOOL)                        \
    X(GREATER, greater, 2, ALLC, BOOL) X(GREATER_EQUAL, greater_equal, 2, ALLC, BOOL)            \
    X(LOGICAL_AND, logical_and, 2, ALLC, BOOL) X(LOGICAL_OR, logical_or, 2, ALLC, BOOL)          \
    X(LOGICAL_XOR, logical_xor, 2, ALLC, BOOL) X(BITWISE_AND, bitwise_and, 2, INT, SAME)        \
    X(BITWISE_OR, bitwise_or, 2, INT, SAME) X(BITWISE_XOR, bitwise_xor, 2, INT, SAME)          \
    X(LEFT_SHIFT, left_shift, 2, INTNB, SAME) X(RIGHT_SHIFT, right_shift, 2, INTNB, SAME)      \
    X(LOGADDEXP, logaddexp, 2, FLT, SAME) X(LOGADDEXP2, logaddexp2, 2, FLT, SAME)              \
    X(NEXTAFTER, nextafter, 2, FLT, SAME) X(HEAVISIDE, heaviside, 2, FLT, SAME)                \
    X(LDEXP, ldexp, 2, FLT, SAME) X(GCD, gcd, 2, INTNB, SAME) X(LCM, lcm, 2, INTNB, SAME)      \
    X(INDEX, index, 2, INTNB, SAME) X(FMOD, fmod, 2, NUM, SAME)                                \
    X(BITWISE_COUNT, bitwise_count, 1, INTNB, SAME)

/* ---- Bit patterns ------------------------------------------------------------------------ */
#ifdef __CUDACC_RTC__
LM_FN lm_u32 lm__fbits(lm_f32 x) { return __float_as_uint(x); }
LM_FN lm_f32 lm__ffrom(lm_u32 u) { return __uint_as_float(u); }
LM_FN lm_u64 lm__dbits(lm_f64 x) { return (lm_u64)__double_as_longlong(x); }
LM_FN lm_f64 lm__dfrom(lm_u64 u) { return __longlong_as_double((lm_i64)u); }
#else
LM_FN lm_u32 lm__fbits(lm_f32 x) {
    union { lm_f32 f; lm_u32 u; } v;
    v.f = x;
    return v.u;
}
LM_FN lm_f32 lm__ffrom(lm_u32 u) {
    union { lm_f32 f; lm_u32 u; } v;
    v.u = u;
    return v.f;
}
LM_FN lm_u64 lm__dbits(lm_f64 x) {
    union { lm_f64 f; lm_u64 u; } v;
    v.f = x;
    return v.u;
}
LM_FN lm_f64 lm__dfrom(lm_u64 u) {
    union { lm_f64 f; lm_u64 u; } v;
    v.u = u;
    return v.f;
}
#endif

LM_FN lm_b lm__isnan_f32(lm_f32 x) { return (lm__fbits(x) & 0x7fffffffu) > 0x7f800000u; }
LM_FN lm_b lm__isnan_f64(lm_f64 x) {
    return (lm__dbits(x) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}
LM_FN lm_b lm__isinf_f32(lm_f32 x) { return (lm__fbits(x) & 0x7fffffffu) == 0x7f800000u; }
LM_FN lm_b lm__isinf_f64(lm_f64 x) {
    return (lm__dbits(x) & 0x7fffffffffffffffull) == 0x7ff0000000000000ull;
}

/* float32 <-> float64 with NaN payloads moved bit by bit, so that both compilers agree (a
 * plain conversion may canonicalise NaNs on the GPU). A payload that would vanish becomes the
 * quiet bit, as x86 does. Finite values: exact widening, round-to-nearest-even narrowing. */
LM_FN lm_f64 lm__f32_to_f64(lm_f32 x) {
    lm_u32 u = lm__fbits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return lm__dfrom(((lm_u64)(u >> 31) << 63) | 0x7ff0000000000000ull |
                         ((lm_u64)(u & 0x7fffffu) << 29));
    return (lm_f64)x;
}
LM_FN lm_f32 lm__f64_to_f32(lm_f64 x) {
    lm_u64 u = lm__dbits(x);
    if ((u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) {
        lm_u32 m = (lm_u32)((u & 0xfffffffffffffull) >> 29);
        return lm__ffrom(((lm_u32)(u >> 63) << 31) | 0x7f800000u | (m ? m : 0x400000u));
    }
    return (lm_f32)x;
}

/* ---- 16-bit floats ----------------------------------------------------------------------- */

/* m >> sh rounded to nearest, ties to even (sh in 1..63). */
LM_FN lm_u64 lm__shr_rne(lm_u64 m, int sh) {
    lm_u64 q = m >> sh, rem = m & ((1ull << sh) - 1), half = 1ull << (sh - 1);
    return q + (rem > half || (rem == half && (q & 1)));
}

/* A finite or infinite double, rounded once to a binary format with eb exponent bits and mb
 * fraction bits (sign, exponent, fraction packed in 1 + eb + mb bits). NaNs are the caller's. */
LM_FN lm_u32 lm__f64_to_narrow(lm_u64 d, int eb, int mb) {
    lm_u32 sgn = (lm_u32)(d >> 63) << (eb + mb);
    lm_u64 a = d & 0x7fffffffffffffffull;
    int bias = (1 << (eb - 1)) - 1, emin = 1 - bias;
    lm_u32 inf = ((1u << eb) - 1) << mb;
    int e = (int)(a >> 52) - 1023;
    lm_u64 m = a & 0xfffffffffffffull;
    if (a == 0) return sgn;
    if (e > bias) return sgn | inf; /* >= 2^(emax+1), infinity included */
    if (e == -1023) e = -1022;      /* double subnormal */
    else m |= 1ull << 52;
    int s = e < emin ? emin : e;    /* exponent of the target's ulp scale */
    int sh = 52 - mb + (s - e);
    if (sh >= 64) return sgn;       /* far below half the smallest subnormal */
    lm_u64 bits = ((lm_u64)(s - emin) << mb) + lm__shr_rne(m, sh);
    return bits >= inf ? (sgn | inf) : (sgn | (lm_u32)bits);
}

/* NaNs keep their top payload bits as NumPy's npy_double_to_half does (a payload that would
 * vanish becomes 1), so quiet NaNs stay quiet. */
LM_FN lm_f16 lm_f64_to_f16(lm_f64 x) {
    lm_u64 d = lm__dbits(x);
    if ((d & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) {
        lm_u32 m = (lm_u32)((d & 0xfffffffffffffull) >> 42);
        return (lm_f16)(((lm_u32)(d >> 48) & 0x8000u) | 0x7c00u | (m ? m : 1u));
    }
    return (lm_f16)lm__f64_to_narrow(d, 5, 10);
}

LM_FN lm_f16 lm_f32_to_f16(lm_f32 x) {
    lm_u32 f = lm__fbits(x), sgn = (f >> 16) & 0x8000u, a = f & 0x7fffffffu;
    if (a >= 0x7f800000u) {
        lm_u32 m = (a & 0x7fffffu) >> 13;
        if (a == 0x7f800000u) return (lm_f16)(sgn | 0x7c00u);
        return (lm_f16)(sgn | 0x7c00u | (m ? m : 1u));
    }
    if (a >= 0x477ff000u) return (lm_f16)(sgn | 0x7c00u); /* >= 65520 rounds to infinity */
    if (a < 0x38800000u) {                                  /* below 2^-14: subnormal or 0 */
        if (a < 0x33000000u) return (lm_f16)sgn;            /* below 2^-25 */
        lm_u32 e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
        return (lm_f16)(sgn | (lm_u32)lm__shr_rne(m, (int)(126 - e)));
    }
    return (lm_f16)(sgn | (lm_u32)lm__shr_rne(a - 0x38000000u, 13));
}

LM_FN lm_f32 lm_f16_to_f32(lm_f16 h) {
    lm_u32 sgn = ((lm_u32)h & 0x8000u) << 16, e = ((lm_u32)h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) return lm__ffrom(sgn | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (m == 0) return lm__ffrom(sgn);
        e = 113; /* normalise a subnormal: value m * 2^-24 */
        while (!(m & 0x400u)) {
            m <<= 1;
            e--;
        }
        return lm__ffrom(sgn | (e << 23) | ((m & 0x3ffu) << 13));
    }
    return lm__ffrom(sgn | ((e + 112) << 23) | (m << 13));
}

/* bfloat16 NaNs become the quiet NaN 0x7fc0 with the sign kept, as ml_dtypes does. */
LM_FN lm_bf16 lm_f32_to_bf16(lm_f32 x) {
    lm_u32 u = lm__fbits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (lm_bf16)(((u >> 16) & 0x8000u) | 0x7fc0u);
    return (lm_bf16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
LM_FN lm_f32 lm_bf16_to_f32(lm_bf16 h) { return lm__ffrom((lm_u32)h << 16); }
LM_FN lm_bf16 lm_f64_to_bf16(lm_f64 x) {
    lm_u64 d = lm__dbits(x);
    if ((d & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
        return (lm_bf16)(((lm_u32)(d >> 48) & 0x8000u) | 0x7fc0u);
    return (lm_bf16)lm__f64_to_narrow(d, 8, 7);
}

/* ---- Casts (NumPy's astype, unsafe) ------------------------------------------------------
 * float -> int follows what NumPy's cast loops give on x86-64 (cvttsd2si semantics: NaN and
 * out-of-range values give the "integer indefinite" 0x80...0; int8/16 and uint8/16 take the
 * low bits of the int32 conversion; uint32 and uint64 use the subtract-2^31/2^63 sequence of
 * NumPy's vectorised loops; float16 -> uint32 goes through int64). Written with explicit range
 * checks, so that the GPU gives the same. */
LM_FN lm_i32 lm__cvt32(lm_f64 x) {
    return (x > -2147483649.0 && x < 2147483648.0) ? (lm_i32)x : (lm_i32)(-2147483647 - 1);
}
LM_FN lm_i64 lm__cvt64(lm_f64 x) {
    return (x >= -9223372036854775808.0 && x < 9223372036854775808.0)
               ? (lm_i64)x
               : (lm_i64)(-9223372036854775807ll - 1);
}
/* A 64-bit integer magnitude rounded to odd at 53 bits: exact as a double, and rounding it
 * again to a narrower format is then a single correct rounding. */
LM_FN lm_f64 lm__u64_to_f64_odd(lm_u64 u) {
    lm_u64 scale = 1;
    while (u >> 53) {
        u = (u >> 1) | (u & 1);
        scale <<= 1;
    }
    return LM_DMUL((lm_f64)u, (lm_f64)scale);
}

/* Canonical forms of each source. */
LM_FN lm_u64 lm__canon_b(lm_b x) { return x; }
LM_FN lm_i64 lm__canon_i8(lm_i8 x) { return x; }
LM_FN lm_i64 lm__canon_i16(lm_i16 x) { return x; }
LM_FN lm_i64 lm__canon_i32(lm_i32 x) { return x; }
LM_FN lm_i64 lm__canon_i64(lm_i64 x) { return x; }
LM_FN lm_u64 lm__canon_u8(lm_u8 x) { return x; }
LM_FN lm_u64 lm__canon_u16(lm_u16 x) { return x; }
LM_FN lm_u64 lm__canon_u32(lm_u32 x) { return x; }
LM_FN lm_u64 lm__canon_u64(lm_u64 x) { return x; }
LM_FN lm_f64 lm__canon_f16(lm_f16 x) { return lm__f32_to_f64(lm_f16_to_f32(x)); }
LM_FN lm_f64 lm__canon_bf16(lm_bf16 x) { return lm__f32_to_f64(lm_bf16_to_f32(x)); }
LM_FN lm_f64 lm__canon_f32(lm_f32 x) { return lm__f32_to_f64(x); }
LM_FN lm_f64 lm__canon_f64(lm_f64 x) { return x; }

/* Narrowing from the canonical forms. */
#define LM__FROM_INT(sfx, T)                                                                   \
    LM_FN T lm__##sfx##_from_i64(lm_i64 x) { return (T)(lm_u64)x; }                            \
    LM_FN T lm__##sfx##_from_u64(lm_u64 x) { return (T)x; }
LM__FROM_INT(i8, lm_i8)
LM__FROM_INT(i16, lm_i16)
LM__FROM_INT(i32, lm_i32)
LM__FROM_INT(i64, lm_i64)
LM__FROM_INT(u8, lm_u8)
LM__FROM_INT(u16, lm_u16)
LM__FROM_INT(u32, lm_u32)
LM__FROM_INT(u64, lm_u64)
LM_FN lm_b lm__b_from_i64(lm_i64 x) { return x != 0; }
LM_FN lm_b lm__b_from_u64(lm_u64 x) { return x != 0; }
LM_FN lm_f32 lm__f32_from_i64(lm_i64 x) { return (lm_f32)x; } /* one rounding on both */
LM_FN lm_f32 lm__f32_from_u64(lm_u64 x) { return (lm_f32)x; }
LM_FN lm_f64 lm__f64_from_i64(lm_i64 x) { return (lm_f64)x; }
LM_FN lm_f64 lm__f64_from_u64(lm_u64 x) { return (lm_f64)x; }
/* |x| >= 2^53 is far beyond float16's range, so rounding through double is exact enough. */
LM_FN lm_f16 lm__f16_from_i64(lm_i64 x) { return lm_f64_to_f16((lm_f64)x); }
LM_FN lm_f16 lm__f16_from_u64(lm_u64 x) { return lm_f64_to_f16((lm_f64)x); }
LM_FN lm_bf16 lm__bf16_from_u64(lm_u64 x) { return lm_f64_to_bf16(lm__u64_to_f64_odd(x)); }
LM_FN lm_bf16 lm__bf16_from_i64(lm_i64 x) {
    lm_f64 m = lm__u64_to_f64_odd(x < 0 ? 0 - (lm_u64)x : (lm_u64)x);
    return lm_f64_to_bf16(x < 0 ? -m : m);
}

LM_FN lm_b lm__b_from_f64(lm_f64 x) { return x != 0; } /* NaN is true */
LM_FN lm_i8 lm__i8_from_f64(lm_f64 x) { return (lm_i8)(lm_u32)lm__cvt32(x); }
LM_FN lm_i16 lm__i16_from_f64(lm_f64 x) { return (lm_i16)(lm_u32)lm__cvt32(x); }
LM_FN lm_i32 lm__i32_from_f64(lm_f64 x) { return lm__cvt32(x); }
LM_FN lm_i64 lm__i64_from_f64(lm_f64 x) { return lm__cvt64(x); }
LM_FN lm_u8 lm__u8_from_f64(lm_f64 x) { return (lm_u8)(lm_u32)lm__cvt32(x); }
LM_FN lm_u16 lm__u16_from_f64(lm_f64 x) { return (lm_u16)(lm_u32)lm__cvt32(x); }
LM_FN lm_u32 lm__u32_from_f64(lm_f64 x) {
    if (x >= 2147483648.0) return (lm_u32)lm__cvt32(x - 2147483648.0) ^ 0x80000000u;
    return (lm_u32)lm__cvt32(x);
}
LM_FN lm_u64 lm__u64_from_f64(lm_f64 x) {
    if (x >= 9223372036854775808.0)
        return (lm_u64)lm__cvt64(x - 9223372036854775808.0) ^ 0x8000000000000000ull;
    return (lm_u64)lm__cvt64(x);
}
LM_FN lm_f16 lm__f16_from_f64(lm_f64 x) { return lm_f64_to_f16(x); }
LM_FN lm_bf16 lm__bf16_from_f64(lm_f64 x) { return lm_f64_to_bf16(x); }
LM_FN lm_f32 lm__f32_from_f64(lm_f64 x) { return lm__f64_to_f32(x); }
LM_FN lm_f64 lm__f64_from_f64(lm_f64 x) { return x; }
/* From a float16 source: the same, except uint32 (NumPy converts through int64 there). */
#define LM__FROM_F64H(sfx, T)                                                                  \
    LM_FN T lm__##sfx##_from_f64h(lm_f64 x) { return lm__##sfx##_from_f64(x); }
LM__FROM_F64H(b, lm_b)
LM__FROM_F64H(i8, lm_i8)
LM__FROM_F64H(i16, lm_i16)
LM__FROM_F64H(i32, lm_i32)
LM__FROM_F64H(i64, lm_i64)
LM__FROM_F64H(u8, lm_u8)
LM__FROM_F64H(u16, lm_u16)
LM__FROM_F64H(u64, lm_u64)
LM__FROM_F64H(f16, lm_f16)
LM__FROM_F64H(bf16, lm_bf16)
LM__FROM_F64H(f32, lm_f32)
LM__FROM_F64H(f64, lm_f64)
LM_FN lm_u32 lm__u32_from_f64h(lm_f64 x) { return (lm_u32)(lm_u64)lm__cvt64(x); }
/* From a bfloat16 source: the same, except bfloat16 itself, a copy (a NaN's payload is kept,
 * where one from float32 or float64 becomes 0x7fc0): x is exact in float32. */
#define LM__FROM_F64B(sfx, T)                                                                  \
    LM_FN T lm__##sfx##_from_f64b(lm_f64 x) { return lm__##sfx##_from_f64(x); }
LM__FROM_F64B(b, lm_b)
LM__FROM_F64B(i8, lm_i8)
LM__FROM_F64B(i16, lm_i16)
LM__FROM_F64B(i32, lm_i32)
LM__FROM_F64B(i64, lm_i64)
LM__FROM_F64B(u8, lm_u8)
LM__FROM_F64B(u16, lm_u16)
LM__FROM_F64B(u32, lm_u32)
LM__FROM_F64B(u64, lm_u64)
LM__FROM_F64B(f16, lm_f16)
LM__FROM_F64B(f32, lm_f32)
LM__FROM_F64B(f64, lm_f64)
LM_FN lm_bf16 lm__bf16_from_f64b(lm_f64 x) { return (lm_bf16)(lm__fbits(lm__f64_to_f32(x)) >> 16); }

/* Complex: the canonical form is complex128; a real target takes the real part (NumPy's
 * ComplexWarning cast), bool is true when either part is nonzero; a complex target from a
 * real source gets a zero imaginary part. */
LM_FN lm_c64 lm__mk_c64(lm_f32 re, lm_f32 im) {
    lm_c64 z;
    z.re = re;
    z.im = im;
    return z;
}
LM_FN lm_c128 lm__mk_c128(lm_f64 re, lm_f64 im) {
    lm_c128 z;
    z.re = re;
    z.im = im;
    return z;
}
LM_FN lm_c128 lm__canon_c64(lm_c64 x) {
    return lm__mk_c128(lm__f32_to_f64(x.re), lm__f32_to_f64(x.im));
}
LM_FN lm_c128 lm__canon_c128(lm_c128 x) { return x; }
#define LM__FROM_C128(sfx, T)                                                                  \
    LM_FN T lm__##sfx##_from_c128(lm_c128 x) { return lm__##sfx##_from_f64(x.re); }
LM__FROM_C128(i8, lm_i8)
LM__FROM_C128(i16, lm_i16)
LM__FROM_C128(i32, lm_i32)
LM__FROM_C128(i64, lm_i64)
LM__FROM_C128(u8, lm_u8)
LM__FROM_C128(u16, lm_u16)
LM__FROM_C128(u32, lm_u32)
LM__FROM_C128(u64, lm_u64)
LM__FROM_C128(f16, lm_f16)
LM__FROM_C128(bf16, lm_bf16)
LM__FROM_C128(f32, lm_f32)
LM__FROM_C128(f64, lm_f64)
LM_FN lm_b lm__b_from_c128(lm_c128 x) { return x.re != 0 || x.im != 0; }
LM_FN lm_c64 lm__c64_from_c128(lm_c128 x) {
    return lm__mk_c64(lm__f64_to_f32(x.re), lm__f64_to_f32(x.im));
}
LM_FN lm_c128 lm__c128_from_c128(lm_c128 x) { return x; }
#define LM__TO_COMPLEX(c)                                                                      \
    LM_FN lm_c64 lm__c64_from_##c(lm_f64 x) { return lm__mk_c64(lm__f64_to_f32(x), 0); }      \
    LM_FN lm_c128 lm__c128_from_##c(lm_f64 x) { return lm__mk_c128(x, 0); }
LM__TO_COMPLEX(f64)
LM__TO_COMPLEX(f64h)
LM__TO_COMPLEX(f64b)
LM_FN lm_c64 lm__c64_from_i64(lm_i64 x) { return lm__mk_c64((lm_f32)x, 0); }
LM_FN lm_c64 lm__c64_from_u64(lm_u64 x) { return lm__mk_c64((lm_f32)x, 0); }
LM_FN lm_c128 lm__c128_from_i64(lm_i64 x) { return lm__mk_c128((lm_f64)x, 0); }
LM_FN lm_c128 lm__c128_from_u64(lm_u64 x) { return lm__mk_c128((lm_f64)x, 0); }

/* A cast goes through its source's canonical form unless LM__PROBE_cast_<from>_<to> gives it
 * a body of its own. float32 -> complex64 through float64 is the identity on the real part
 * (NaN payloads included: the widening moves them bit by bit and the narrowing loses none),
 * but the compilers cannot see that through the NaN tests: the round trip was a sixth of the
 * complex64 chain's instructions on CUDA. */
#define LM__SECOND_(a, b, ...) b
#define LM__SECOND(...) LM__SECOND_(__VA_ARGS__)
#define LM__PROBE_cast_f32_c64 ~, lm__mk_c64(x, 0)
#define LM__CAST_TO(TTAG, ts, TT, tc, fs, FT, fc, unused)                                      \
    LM_FN TT lm_cast_##fs##_##ts(FT x) {                                                       \
        return LM__SECOND(LM__PROBE_cast_##fs##_##ts,                                          \
                          lm__##ts##_from_##fc(lm__canon_##fs(x)), ~);                         \
    }
#define LM__CAST_FROM(FTAG, fs, FT, fc) LM_DTYPE_LIST2(LM__CAST_TO, fs, FT, fc, 0)
LM_DTYPE_LIST(LM__CAST_FROM)

/* ---- where ------------------------------------------------------------------------------- */
#define LM__WHERE(E, sfx, T, c)                                                                \
    LM_FN T lm_where_##sfx(lm_b cond, T x, T y) { return cond ? x : y; }
LM_DTYPE_LIST(LM__WHERE)

/* ---- Elementwise ops --------------------------------------------------------------------
 * Each op has one body macro LM__OP_<name>(C, sfx, T, W, N): C is the dtype's class, W the
 * wraparound type (for F: the libm suffix), N the bits; a and b are the operands. Bodies
 * that differ by class dispatch to LM__<OP>_<C>. The H class (float16, bfloat16) is always
 * the float32 function with conversions around it, as NumPy computes it. */

/* Float floor division and remainder: NumPy's npy_divmod, npy_floor_divide, npy_remainder. */
#define LM__DIVMOD(sfx, T, F)                                                                  \
    LM_FN T lm__divmod_##sfx(T a, T b, T *modulus) {                                           \
        T mod = fmod##F(a, b), div, floordiv;                                                  \
        if (!b) {                                                                              \
            *modulus = mod;                                                                    \
            return a / b;                                                                      \
        }                                                                                      \
        div = (a - mod) / b;                                                                   \
        if (mod) {                                                                             \
            if ((b < 0) != (mod < 0)) {                                                        \
                mod += b;                                                                      \
                div -= (T)1;                                                                   \
            }                                                                                  \
        } else {                                                                               \
            mod = copysign##F((T)0, b);                                                        \
        }                                                                                      \
        if (div) {                                                                             \
            floordiv = floor##F(div);                                                          \
            if (div - floordiv > (T)0.5) floordiv += (T)1;                                     \
        } else {                                                                               \
            floordiv = copysign##F((T)0, a / b);                                               \
        }                                                                                      \
        *modulus = mod;                                                                        \
        return floordiv;                                                                       \
    }                                                                                          \
    LM_FN T lm__fdiv_##sfx(T a, T b) {                                                         \
        T mod;                                                                                 \
        if (!b) return a / b;                                                                  \
        return lm__divmod_##sfx(a, b, &mod);                                                   \
    }                                                                                          \
    LM_FN T lm__frem_##sfx(T a, T b) {                                                         \
        T mod;                                                                                 \
        if (!b) return fmod##F(a, b);                                                          \
        lm__divmod_##sfx(a, b, &mod);                                                          \
        return mod;                                                                            \
    }
LM__DIVMOD(f32, lm_f32, f)
LM__DIVMOD(f64, lm_f64, )

/* Integer power by repeated squaring, wrapping (exponent >= 0). */
LM_FN lm_u64 lm__ipow(lm_u64 base, lm_u64 e) {
    lm_u64 r = 1;
    while (e) {
        if (e & 1) r *= base;
        base *= base;
        e >>= 1;
    }
    return r;
}

#define LM__OP_negative(C, s, T, W, N) LM__NEG_##C(T, W)
#define LM__NEG_S(T, W) return (T)(0 - (W)a);
#define LM__NEG_U(T, W) return (T)(0 - (W)a);
#define LM__NEG_F(T, F) return -a;
#define LM__OP_positive(C, s, T, W, N) return a;
#define LM__OP_absolute(C, s, T, W, N) LM__ABS_##C(T, W)
#define LM__ABS_B(T, W) return a;
#define LM__ABS_S(T, W) return a < 0 ? (T)(0 - (W)a) : a;
#define LM__ABS_U(T, W) return a;
#define LM__ABS_F(T, F) return fabs##F(a);
#define LM__OP_sign(C, s, T, W, N) LM__SIGN_##C(T)
#define LM__SIGN_S(T) return (T)((a > 0) - (a < 0));
#define LM__SIGN_U(T) return (T)(a > 0);
#define LM__SIGN_F(T) return a > 0 ? (T)1 : a < 0 ? (T)-1 : a == 0 ? (T)0 : a;
#define LM__OP_sqrt(C, s, T, F, N) return sqrt##F(a);
#define LM__OP_cbrt(C, s, T, F, N) return cbrt##F(a);
#define LM__OP_square(C, s, T, W, N) LM__SQUARE_##C(T, W)
#define LM__SQUARE_S(T, W) return (T)((W)a * (W)a);
#define LM__SQUARE_U(T, W) return (T)((W)a * (W)a);
#define LM__SQUARE_F(T, W) return LM__MUL_F(T, a, a);
/* NumPy's integer reciprocal is 1.0 / x converted back, so 1/0 is the cast of infinity. */
#define LM__OP_reciprocal(C, s, T, W, N) LM__RECIP_##C(s, T)
#define LM__RECIP_S(s, T) return lm__##s##_from_f64(1.0 / (lm_f64)a);
#define LM__RECIP_U(s, T) return lm__##s##_from_f64(1.0 / (lm_f64)a);
#define LM__RECIP_F(s, T) return (T)1 / a;
#define LM__OP_exp(C, s, T, F, N) return exp##F(a);
#define LM__OP_exp2(C, s, T, F, N) return exp2##F(a);
#define LM__OP_expm1(C, s, T, F, N) return expm1##F(a);
#define LM__OP_log(C, s, T, F, N) return log##F(a);
#define LM__OP_log2(C, s, T, F, N) return log2##F(a);
#define LM__OP_log10(C, s, T, F, N) return log10##F(a);
#define LM__OP_log1p(C, s, T, F, N) return log1p##F(a);
#define LM__OP_sin(C, s, T, F, N) return sin##F(a);
#define LM__OP_cos(C, s, T, F, N) return cos##F(a);
#define LM__OP_tan(C, s, T, F, N) return tan##F(a);
#define LM__OP_arcsin(C, s, T, F, N) return asin##F(a);
#define LM__OP_arccos(C, s, T, F, N) return acos##F(a);
#define LM__OP_arctan(C, s, T, F, N) return atan##F(a);
#define LM__OP_sinh(C, s, T, F, N) return sinh##F(a);
#define LM__OP_cosh(C, s, T, F, N) return cosh##F(a);
#define LM__OP_tanh(C, s, T, F, N) return tanh##F(a);
#define LM__OP_arcsinh(C, s, T, F, N) return asinh##F(a);
#define LM__OP_arccosh(C, s, T, F, N) return acosh##F(a);
#define LM__OP_arctanh(C, s, T, F, N) return atanh##F(a);
#define LM__OP_rint(C, s, T, F, N) return rint##F(a); /* current mode: nearest-even */
#define LM__OP_floor(C, s, T, W, N) LM__ROUND_##C(floor, W)
#define LM__OP_ceil(C, s, T, W, N) LM__ROUND_##C(ceil, W)
#define LM__OP_trunc(C, s, T, W, N) LM__ROUND_##C(trunc, W)
#define LM__ROUND_B(fn, W) return a;
#define LM__ROUND_S(fn, W) return a;
#define LM__ROUND_U(fn, W) return a;
#define LM__ROUND_F(fn, F) return fn##F(a);
#define LM__OP_isnan(C, s, T, W, N) LM__PRED_##C(lm__isnan_##s(a), 0)
#define LM__OP_isinf(C, s, T, W, N) LM__PRED_##C(lm__isinf_##s(a), 0)
#define LM__OP_isfinite(C, s, T, W, N) LM__PRED_##C(!lm__isnan_##s(a) && !lm__isinf_##s(a), 1)
#define LM__PRED_B(f, i) (void)a; return i;
#define LM__PRED_S(f, i) (void)a; return i;
#define LM__PRED_U(f, i) (void)a; return i;
#define LM__PRED_F(f, i) return f;
#define LM__OP_logical_not(C, s, T, W, N) return a == 0; /* NaN is true, so not NaN is 0 */
#define LM__OP_invert(C, s, T, W, N) LM__INV_##C(T, W)
#define LM__INV_B(T, W) return !a;
#define LM__INV_S(T, W) return (T)~(W)a;
#define LM__INV_U(T, W) return (T)~(W)a;

/* The float add/subtract/multiply ops go through LM_OP_*. On the host they are plain
 * operators (built with -ffp-contract=off). For NVRTC they are left undefined here, so they
 * reach the kernel text as names, and the kernel's own preamble (cg__emit_prelude) defines
 * them: __fadd_rn and the like, which are never contracted, even after inlining a multiply
 * into an add; or, where loom_options_t.allow_fma is set (-DLM_ALLOW_FMA), plain operators
 * that NVRTC (--fmad=true) may contract. The prelude's own arithmetic keeps LM_FMUL etc.,
 * which always round once each. */
#define LM__MUL_F(T, x, y) (sizeof(T) == 4 ? (T)LM_OP_FMUL((lm_f32)(x), (lm_f32)(y)) : (T)LM_OP_DMUL((lm_f64)(x), (lm_f64)(y)))
#define LM__OP_add(C, s, T, W, N) LM__ADD_##C(T, W)
#define LM__ADD_B(T, W) return a | b;
#define LM__ADD_S(T, W) return (T)((W)a + (W)b);
#define LM__ADD_U(T, W) return (T)((W)a + (W)b);
#define LM__ADD_F(T, W)                                                                        \
    return sizeof(T) == 4 ? (T)LM_OP_FADD((lm_f32)a, (lm_f32)b) : (T)LM_OP_DADD((lm_f64)a, (lm_f64)b);
#define LM__OP_subtract(C, s, T, W, N) LM__SUB_##C(T, W)
#define LM__SUB_S(T, W) return (T)((W)a - (W)b);
#define LM__SUB_U(T, W) return (T)((W)a - (W)b);
#define LM__SUB_F(T, W)                                                                        \
    return sizeof(T) == 4 ? (T)LM_OP_FSUB((lm_f32)a, (lm_f32)b) : (T)LM_OP_DSUB((lm_f64)a, (lm_f64)b);
#define LM__OP_multiply(C, s, T, W, N) LM__MULT_##C(T, W)
#define LM__MULT_B(T, W) return a & b;
#define LM__MULT_S(T, W) return (T)((W)a * (W)b);
#define LM__MULT_U(T, W) return (T)((W)a * (W)b);
#define LM__MULT_F(T, W) return LM__MUL_F(T, a, b);
#define LM__OP_true_divide(C, s, T, F, N) return a / b;
/* Integer floor division and remainder: 0 for a zero divisor, MIN // -1 = MIN (NumPy). */
#define LM__OP_floor_divide(C, s, T, W, N) LM__FDIV_##C(s, T, W)
#define LM__FDIV_S(s, T, W)                                                                    \
    if (b == 0) return 0;                                                                      \
    if (b == -1) return (T)(0 - (W)a);                                                         \
    T q = (T)(a / b);                                                                          \
    return (T)((a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q);
#define LM__FDIV_U(s, T, W) return b == 0 ? (T)0 : (T)(a / b);
#define LM__FDIV_F(s, T, W) return lm__fdiv_##s(a, b);
#define LM__OP_remainder(C, s, T, W, N) LM__REM_##C(s, T, W)
#define LM__REM_S(s, T, W)                                                                     \
    if (b == 0 || b == -1) return 0;                                                           \
    T r = (T)(a % b);                                                                          \
    return (T)((r != 0 && ((r < 0) != (b < 0))) ? r + b : r);
#define LM__REM_U(s, T, W) return b == 0 ? (T)0 : (T)(a % b);
#define LM__REM_F(s, T, W) return lm__frem_##s(a, b);
/* C's fmod: the dividend's sign; integers 0 for a zero divisor (NumPy), MIN % -1 = 0. */
#define LM__OP_fmod(C, s, T, W, N) LM__FMOD_##C(T, W)
#define LM__FMOD_S(T, W) return (b == 0 || b == -1) ? (T)0 : (T)(a % b);
#define LM__FMOD_U(T, W) return b == 0 ? (T)0 : (T)(a % b);
#define LM__FMOD_F(T, F) return fmod##F(a, b);
/* A negative integer exponent gives 0 here; NumPy raises, and so does every device: the
 * node raises (ir_node_raises), checked before this runs. */
#define LM__OP_power(C, s, T, W, N) LM__POW_##C(T, W)
#define LM__POW_S(T, W) return b < 0 ? (T)0 : (T)lm__ipow((lm_u64)a, (lm_u64)b);
#define LM__POW_U(T, W) return (T)lm__ipow((lm_u64)a, (lm_u64)b);
#define LM__POW_F(T, F) return pow##F(a, b);
/* maximum/minimum propagate NaN (the first one); fmax/fmin ignore it. On equal operands
 * (0.0 and -0.0) the second is returned, as NumPy's vector loops do. */
#define LM__OP_maximum(C, s, T, W, N) LM__MAXMIN_##C(>, a != a ? a : b != b ? b :)
#define LM__OP_minimum(C, s, T, W, N) LM__MAXMIN_##C(<, a != a ? a : b != b ? b :)
#define LM__OP_fmax(C, s, T, W, N) LM__MAXMIN_##C(>, b != b ? a : a != a ? b :)
#define LM__OP_fmin(C, s, T, W, N) LM__MAXMIN_##C(<, b != b ? a : a != a ? b :)
#define LM__MAXMIN_B(op, nan) return a op b ? a : b;
#define LM__MAXMIN_S(op, nan) return a op b ? a : b;
#define LM__MAXMIN_U(op, nan) return a op b ? a : b;
#define LM__MAXMIN_F(op, nan) return nan(a op b ? a : b);
#define LM__OP_arctan2(C, s, T, F, N) return atan2##F(a, b);
#define LM__OP_hypot(C, s, T, F, N) return hypot##F(a, b);
#define LM__OP_copysign(C, s, T, F, N) return copysign##F(a, b);
#define LM__OP_equal(C, s, T, W, N) return a == b;
#define LM__OP_not_equal(C, s, T, W, N) return a != b;
#define LM__OP_less(C, s, T, W, N) return a < b;
#define LM__OP_less_equal(C, s, T, W, N) return a <= b;
#define LM__OP_greater(C, s, T, W, N) return a > b;
#define LM__OP_greater_equal(C, s, T, W, N) return a >= b;
#define LM__OP_logical_and(C, s, T, W, N) return (a != 0) & (b != 0);
#define LM__OP_logical_or(C, s, T, W, N) return (a != 0) | (b != 0);
#define LM__OP_logical_xor(C, s, T, W, N) return (a != 0) != (b != 0);
#define LM__OP_bitwise_and(C, s, T, W, N) return (T)(a & b);
#define LM__OP_bitwise_or(C, s, T, W, N) return (T)(a | b);
#define LM__OP_bitwise_xor(C, s, T, W, N) return (T)(a ^ b);
/* Shifts: a count outside [0, bits) gives 0, or -1 for a negative signed a shifted right. */
#define LM__OP_left_shift(C, s, T, W, N) return (lm_u64)b < N ? (T)((W)a << b) : (T)0;
#define LM__OP_right_shift(C, s, T, W, N) LM__SHR_##C(T, N)
#define LM__SHR_S(T, N)                                                                        \
    if ((lm_u64)b >= N) return a < 0 ? (T)-1 : (T)0;                                           \
    return a < 0 ? (T)~(~a >> b) : (T)(a >> b);
#define LM__SHR_U(T, N) return (lm_u64)b < N ? (T)(a >> b) : (T)0;
/* An index into an axis of extent b, counted from the end when negative. Out of [-b, b) the
 * node raises (checked before this runs); the clamp keeps even that case inside the axis. */
#define LM__OP_index(C, s, T, W, N) LM__IDX_##C(T)
#define LM__IDX_S(T)                                                                           \
    T r = a < 0 ? (T)(a + b) : a;                                                              \
    return r < 0 ? (T)0 : r >= b ? (b > 0 ? (T)(b - 1) : (T)0) : r;
#define LM__IDX_U(T) return a >= b ? (b > 0 ? (T)(b - 1) : (T)0) : a;

/* ---- Special functions and the bit-level float ops ----------------------------------------
 * The special functions (erf ... sinc; float32 erf apart, lm__erf_f32) compute float32 in
 * double and round once, so a float32 result is the double result correctly rounded: within
 * one ulp of the exact value and, since
 * both devices round the same double, the same on both but where the two math libraries'
 * doubles straddle a float32 rounding boundary (tools/ulp_sweep measures both). float64 uses
 * each device's math library (erf, erfc, lgamma) or the code below built on it. */
#ifndef __CUDACC_RTC__
double lgamma_r(double, int *); /* POSIX; lgamma itself writes the global signgam */
#define LM__LGAMMA(x) lgamma_r((x), &(int){0})
#else
#define LM__LGAMMA(x) lgamma(x)
#endif
#define LM__PI 3.14159265358979323846
#define LM__F64_NAN (lm__dfrom(0x7ff8000000000000ull))
#define LM__F64_INF (lm__dfrom(0x7ff0000000000000ull))

/* erfinv and erfcinv: Giles's single-precision approximation (or, in the far tail, the
 * asymptote of erfc) as a start, then four Halley steps on erf(x) = y, written as
 * erfc(x) = q (q = 1 - y exact, or given) where erfc is the better-conditioned side. */
LM_FN lm_f64 lm__erfinv_start(lm_f64 t, lm_f64 w) { /* t in (0, 1), w = -log(q (2 - q)) */
    lm_f64 p;
    if (w < 5.0) {
        w = w - 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
        return p * t;
    }
    if (w < 16.0) {
        w = sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
        return p * t;
    }
    /* erfc(x) ~ exp(-x^2) / (x sqrt(pi)) (1 - 1/2x^2) with -log(q) ~ w + log(2): a few
     * fixed-point steps of x^2 = -log(q) - log(x sqrt(pi)) + log(1 - 1/2x^2) */
    lm_f64 l = w + 0.6931471805599453, x = sqrt(l);
    for (int i = 0; i < 3; i++) x = sqrt(l - log(x) - 0.5723649429247001 + log1p(-0.5 / (x * x)));
    return x;
}
/* The x > 0 with erfc(x) = q, q in (0, 1]; t = 1 - q when that is known exactly. */
LM_FN lm_f64 lm__erfcinv_pos(lm_f64 q, lm_f64 t) {
    lm_f64 x = lm__erfinv_start(t, -log(q * (2.0 - q)));
    if (q < 1e-280) { /* erfc near underflow: Newton on log erfc(x) = log q, from the series
                       * erfc(x) = exp(-x^2) / (x sqrt(pi)) (1 - 1/2x^2 + 3/4x^4 - ...) */
        lm_f64 l = -log(q);
        for (int i = 0; i < 4; i++) {
            lm_f64 z = 0.5 / (x * x);
            lm_f64 sr = 1.0 - z * (1.0 - 3.0 * z * (1.0 - 5.0 * z * (1.0 - 7.0 * z)));
            lm_f64 g = x * x + log(x) + 0.5723649429247001 - log(sr) - l; /* log sqrt(pi) */
            x = x - g / (2.0 * x + 1.0 / x);
        }
        return x;
    }
    for (int i = 0; i < 4; i++) {
        lm_f64 d = 1.1283791670955126 * exp(-x * x); /* erfc'(x) = -d */
        lm_f64 f = t <= 0.5 ? t - erf(x) : erfc(x) - q; /* erfc(x) - q, the accurate way */
        if (d == 0.0) break;
        x = x + f / (d - x * f);
    }
    return x;
}
LM_FN lm_f64 lm__erfinv_f64(lm_f64 y) {
    if (y != y) return y;
    lm_f64 t = fabs(y);
    if (t > 1.0) return LM__F64_NAN;
    if (t == 1.0) return y * LM__F64_INF;
    if (t == 0.0) return y;
    lm_f64 x = lm__erfcinv_pos(1.0 - t, t); /* 1 - t is exact for t >= 0.5 */
    return y < 0 ? -x : x;
}
LM_FN lm_f64 lm__erfcinv_f64(lm_f64 q) {
    if (q != q) return q;
    if (q < 0.0 || q > 2.0) return LM__F64_NAN;
    if (q == 0.0) return LM__F64_INF;
    if (q == 2.0) return -LM__F64_INF;
    if (q == 1.0) return 0.0;
    if (q > 1.0) return -lm__erfcinv_pos(2.0 - q, q - 1.0); /* 2 - q exact */
    return lm__erfcinv_pos(q, 1.0 - q); /* exact where used: for q >= 0.5 */
}
LM_FN lm_f64 lm__lgamma_f64(lm_f64 x) { return LM__LGAMMA(x); }
LM_FN lm_f64 lm__erf_f64(lm_f64 x) { return erf(x); }
/* float32 erf in float32 arithmetic, every step an explicit fmaf or a single IEEE operation,
 * so both devices compute the same bits (the double route costs a float64 evaluation per
 * element, which bound the erf-form GELU to 2.4 x its memory floor). Below 0.921875,
 * erf(x) = x + x R(x^2); above, erf(t) = 1 - exp(Q(t)) with Q ~ log erfc(t) on [0.921875, 4]
 * (erf is 1.0f from 3.92 on, so t is clamped to 4) and the exp reduced by ln 2 and a degree-6
 * polynomial. The coefficients are float32 minimax fits (weighted by erf's ulp); an
 * exhaustive sweep of [0, 4.5] against erfl gives at most 1.063 ulp (at 1.0640011) and 98.6 %
 * of results correctly rounded. Odd by construction: the sign is copied onto erf(|x|). */
LM_FN lm_f32 lm__erf_f32(lm_f32 a) {
    lm_u32 sign = lm__fbits(a) & 0x80000000u;
    lm_f32 t = lm__ffrom(lm__fbits(a) & 0x7fffffffu), r;
    if (t != t) return lm__ffrom(lm__fbits(a) | 0x400000u); /* NaN, quieted */
    if (t < 0.921875f) {
        lm_f32 s = LM_FMUL(a, a);
        r = 7.991272286744788e-05f;
        r = fmaf(r, s, -0.000804888317361474f);
        r = fmaf(r, s, 0.0051923589780926704f);
        r = fmaf(r, s, -0.026855723932385445f);
        r = fmaf(r, s, 0.11283625662326813f);
        r = fmaf(r, s, -0.3761262893676758f);
        r = fmaf(r, s, 0.12837916612625122f);
        return fmaf(r, a, a);
    }
    t = t > 4.0f ? 4.0f : t;
    lm_f32 q = -5.042268185206922e-07f;
    q = fmaf(q, t, -1.4562537216988858e-05f);
    q = fmaf(q, t, 0.0003982346970587969f);
    q = fmaf(q, t, -0.0040586828254163265f);
    q = fmaf(q, t, 0.024906039237976074f);
    q = fmaf(q, t, -0.10802596062421799f);
    q = fmaf(q, t, -0.6335324048995972f);
    q = fmaf(q, t, -1.1294389963150024f);
    q = fmaf(q, t, 0.00016132762539200485f); /* q in [-17.4, -1.9] */
    /* exp(q) = 2^j exp(f): j = rint(q / ln 2) by the 1.5 * 2^23 rounding constant, whose
     * bits then hold j; f = q - j ln 2 in two parts, |f| <= ln 2 / 2 */
    lm_f32 jm = fmaf(q, 1.44269502f, 12582912.0f), j = LM_FSUB(jm, 12582912.0f);
    lm_f32 f = fmaf(j, -0.693147182f, q);
    f = fmaf(j, 1.90465421e-09f, f);
    lm_f32 p = 0.0013820468448102474f;
    p = fmaf(p, f, 0.00836925022304058f);
    p = fmaf(p, f, 0.04166828468441963f);
    p = fmaf(p, f, 0.16666516661643982f);
    p = fmaf(p, f, 0.4999999403953552f);
    p = fmaf(p, f, 1.0f);
    p = fmaf(p, f, 1.0f);
    lm_f32 scale = lm__ffrom((lm_u32)((lm_i32)(lm__fbits(jm) - 0x4b400000u) + 127) << 23);
    r = fmaf(-p, scale, 1.0f); /* p * scale is exact: 2^j is normal for these q */
    return lm__ffrom(lm__fbits(r) | sign);
}
LM_FN lm_f64 lm__erfc_f64(lm_f64 x) { return erfc(x); }

/* digamma's Taylor coefficients psi^(k)(x0) / k!, k = 1..22, at its positive root x0 =
 * 1.4616321449683622 + 9.549995429965697e-17 (mpmath, 50 digits): the series keeps the
 * relative accuracy near the root that the recurrence loses to cancellation. */
#ifdef __CUDACC_RTC__
__device__
#endif
static const lm_f64 lm__digamma_root[22] = {
    0.9676722454476212, -0.4427631689835921, 0.258499760955651, -0.16394270544240652,
    0.10782405069126237, -0.07219956125645471, 0.04880428816414311, -0.03316112647484736,
    0.022597648232218104, -0.01542476590494896, 0.010538791616612175, -0.007204534386356869,
    0.004926781395729853, -0.003369801655439328, 0.002305126326734928, -0.0015769367714301972,
    0.0010788252019162967, -0.0007380709389960052, 0.000504953265834602,
    -0.0003454680251063077, 0.00023635601564027053, -0.00016170622091974803};
/* digamma (scipy.special.psi's values at the poles: -inf at +0, +inf at -0, NaN at the
 * negative integers and -inf): reflection below 0, the recurrence up to 10, then the
 * asymptotic series. */
LM_FN lm_f64 lm__digamma_f64(lm_f64 x) {
    if (x != x) return x;
    if (x == 0.0) return lm__dbits(x) >> 63 ? LM__F64_INF : -LM__F64_INF;
    if (x == LM__F64_INF) return x;
    lm_f64 dx = (x - 1.4616321449683622) - 9.549995429965697e-17;
    if (fabs(dx) < 0.25) {
        lm_f64 p = lm__digamma_root[21];
        for (int k = 20; k >= 0; k--) p = lm__digamma_root[k] + p * dx;
        return p * dx;
    }
    lm_f64 acc = 0.0;
    if (x < 0.0) {
        lm_f64 r = x - floor(x + 0.5); /* x - nearest integer, exact */
        if (r == 0.0) return LM__F64_NAN;
        acc = -LM__PI / tan(LM__PI * r);
        x = 1.0 - x;
    }
    while (x < 10.0) {
        acc -= 1.0 / x;
        x += 1.0;
    }
    lm_f64 z = 1.0 / (x * x);
    lm_f64 s = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
    return acc + log(x) - 0.5 / x - s;
}

/* NumPy's i0 (exp(|x|) times a series over sqrt(|x|) past 30, so it overflows where
 * exp does, as NumPy's does): the power series sum (x^2/4)^k / (k!)^2 up to |x| = 30, the
 * asymptotic expansion of exp(-x) sqrt(x) I0(x) beyond. */
LM_FN lm_f64 lm__i0_f64(lm_f64 x) {
    x = fabs(x);
    if (x != x) return x;
    if (x <= 30.0) {
        lm_f64 q = 0.25 * x * x, term = 1.0, sum = 1.0;
        for (int k = 1; k < 120 && term > 1e-17 * sum; k++) {
            term = term * q / ((lm_f64)k * (lm_f64)k);
            sum += term;
        }
        return sum;
    }
    lm_f64 r = 1.0 / (8.0 * x), term = 1.0, sum = 1.0;
    for (int k = 1; k < 30; k++) {
        term = term * r * (lm_f64)((2 * k - 1) * (2 * k - 1)) / (lm_f64)k;
        sum += term;
    }
    return exp(x) * (sum * 0.3989422804014327) / sqrt(x); /* 1/sqrt(2 pi) */
}
/* NumPy's sinc: sin(y) / y with y = pi x, and x = 0 taken as 1e-20. */
LM_FN lm_f64 lm__sinc_f64(lm_f64 x) {
    lm_f64 y = LM__PI * (x == 0.0 ? 1.0e-20 : x);
    return sin(y) / y;
}
/* NumPy's npy_logaddexp and npy_logaddexp2. */
LM_FN lm_f64 lm__logaddexp_f64(lm_f64 x, lm_f64 y) {
    if (x == y) return x + 0.6931471805599453; /* ln 2; infinities of one sign too */
    lm_f64 t = x - y;
    if (t > 0) return x + log1p(exp(-t));
    if (t <= 0) return y + log1p(exp(t));
    return t;
}
LM_FN lm_f64 lm__logaddexp2_f64(lm_f64 x, lm_f64 y) {
    if (x == y) return x + 1.0;
    lm_f64 t = x - y;
    if (t > 0) return x + 1.4426950408889634 * log1p(exp2(-t));
    if (t <= 0) return y + 1.4426950408889634 * log1p(exp2(t));
    return t;
}
/* The float32 version of a double special function: widen, compute, round once. */
#define LM__SP1_f32(fn, a) lm__f64_to_f32(lm__##fn##_f64(lm__f32_to_f64(a)))
#define LM__SP1_f64(fn, a) lm__##fn##_f64(a)
#define LM__SP2_f32(fn, a, b) lm__f64_to_f32(lm__##fn##_f64(lm__f32_to_f64(a), lm__f32_to_f64(b)))
#define LM__SP2_f64(fn, a, b) lm__##fn##_f64(a, b)
#define LM__OP_erf(C, s, T, F, N) return LM__ERF_##s(a);
#define LM__ERF_f32(a) lm__erf_f32(a)
#define LM__ERF_f64(a) lm__erf_f64(a)
#define LM__OP_erfc(C, s, T, F, N) return LM__SP1_##s(erfc, a);
#define LM__OP_erfinv(C, s, T, F, N) return LM__SP1_##s(erfinv, a);
#define LM__OP_erfcinv(C, s, T, F, N) return LM__SP1_##s(erfcinv, a);
#define LM__OP_lgamma(C, s, T, F, N) return LM__SP1_##s(lgamma, a);
#define LM__OP_digamma(C, s, T, F, N) return LM__SP1_##s(digamma, a);
#define LM__OP_i0(C, s, T, F, N) return LM__SP1_##s(i0, a);
#define LM__OP_sinc(C, s, T, F, N) return LM__SP1_##s(sinc, a);
#define LM__OP_logaddexp(C, s, T, F, N) return LM__SP2_##s(logaddexp, a, b);
#define LM__OP_logaddexp2(C, s, T, F, N) return LM__SP2_##s(logaddexp2, a, b);

/* NumPy's deg2rad and rad2deg multiply by a constant of the loop's type (float32's is formed
 * in float32 from its pi). */
#define LM__OP_deg2rad(C, s, T, F, N) return LM__MUL_F(T, a, LM__DEGRAD_##s);
#define LM__OP_rad2deg(C, s, T, F, N) return LM__MUL_F(T, a, LM__RADDEG_##s);
#define LM__DEGRAD_f32 ((lm_f32)3.14159265358979323846 / 180.0f)
#define LM__DEGRAD_f64 (LM__PI / 180.0)
#define LM__RADDEG_f32 (180.0f / (lm_f32)3.14159265358979323846)
#define LM__RADDEG_f64 (180.0 / LM__PI)

/* np.heaviside: NaN for NaN x, h0 at x == 0. */
#define LM__OP_heaviside(C, s, T, F, N)                                                        \
    return a != a ? (T)LM__F64_NAN : a == 0 ? b : a < 0 ? (T)0 : (T)1;

/* Bit-level ops, on the float's own format: nextafter (NumPy's float16 keeps x when x == y,
 * C's returns y), spacing (float32/64: the step away from zero, and +tiny at either zero;
 * NumPy's float16: the step towards +inf), signbit. 16-bit formats compare as float32. */
#define LM__OP_signbit(C, s, T, F, N) return (lm_b)(LM__BITS_##s(a) >> (N - 1));
#define LM__BITS_f32(a) lm__fbits(a)
#define LM__BITS_f64(a) lm__dbits(a)
#define LM__FROMBITS_f32(u) lm__ffrom((lm_u32)(u))
#define LM__FROMBITS_f64(u) lm__dfrom(u)
#define LM__OP_nextafter(C, s, T, F, N)                                                        \
    if (a != a || b != b) return a + b;                                                        \
    if (a == b) return b;                                                                      \
    if (a == 0) return LM__FROMBITS_##s((LM__BITS_##s(b) >> (N - 1) << (N - 1)) | 1);          \
    return LM__FROMBITS_##s(LM__BITS_##s(a) + (((a < b) == (a > 0)) ? 1 : -1));
#define LM__OP_spacing(C, s, T, F, N)                                                          \
    if (a != a) return a;                                                                      \
    if (a - a != 0) return (T)LM__F64_NAN; /* infinities */                                    \
    if (a == 0) return LM__FROMBITS_##s(1);                                                    \
    return LM__FROMBITS_##s(LM__BITS_##s(a) + 1) - a;
/* 16-bit versions (LM__HBODY_2): the same on 16-bit patterns. */
#define LM__H16_NAN_f16 0x7e00u
#define LM__H16_NAN_bf16 0x7fc0u
#define LM__H16(s)                                                                             \
    LM_FN lm_b lm__signbit_##s(lm_##s a) { return (lm_b)(a >> 15); }                          \
    LM_FN lm_##s lm__nextafter_##s(lm_##s a, lm_##s b) {                                        \
        lm_f32 fa = lm_##s##_to_f32(a), fb = lm_##s##_to_f32(b);                               \
        if (fa != fa || fb != fb) return (lm_##s)LM__H16_NAN_##s;                               \
        if (fa == fb) return LM__H16_EQ_##s;                                                     \
        if (fa == 0) return (lm_##s)((b & 0x8000u) | 1u);                                       \
        return (lm_##s)(((fa < fb) == (fa > 0)) ? a + 1 : a - 1);                               \
    }                                                                                          \
    LM_FN lm_##s lm__spacing_##s(lm_##s a) {                                                   \
        lm_f32 fa = lm_##s##_to_f32(a);                                                        \
        if (fa != fa || fa - fa != 0) return (lm_##s)LM__H16_NAN_##s;                           \
        lm_##s n = LM__H16_SPACING_##s;                                                        \
        return lm_f32_to_##s(LM_FSUB(lm_##s##_to_f32(n), fa));                                  \
    }
#define LM__H16_EQ_f16 a
#define LM__H16_EQ_bf16 b
/* float16: towards +inf (NumPy's); bfloat16: away from zero, -tiny at -0 (ml_dtypes's) */
#define LM__H16_SPACING_f16                                                                    \
    (lm_f16)(fa == 0 ? 1u : (a & 0x8000u) ? a - 1u : a + 1u)
#define LM__H16_SPACING_bf16 (lm_bf16)(fa == 0 ? (a & 0x8000u) | 1u : a + 1u)
LM__H16(f16)
LM__H16(bf16)

/* gcd and lcm (NumPy's: non-negative, of the magnitudes, wrapping as the type does;
 * lcm = |a / gcd * b|). */
#define LM__OP_gcd(C, s, T, W, N) return (T)lm__gcd((lm_u64)LM__MAG_##C(W), (lm_u64)LM__MAGB_##C(W));
#define LM__OP_lcm(C, s, T, W, N)                                                              \
    lm_u64 g = lm__gcd((lm_u64)LM__MAG_##C(W), (lm_u64)LM__MAGB_##C(W));                         \
    if (!g) return 0;                                                                          \
    return (T)(W)((W)((lm_u64)LM__MAG_##C(W) / g) * (W)LM__MAGB_##C(W));
#define LM__MAG_S(W) (W)(a < 0 ? (W)0 - (W)a : (W)a)
#define LM__MAGB_S(W) (W)(b < 0 ? (W)0 - (W)b : (W)b)
#define LM__MAG_U(W) (W)a
#define LM__MAGB_U(W) (W)b
/* bitwise_count: the 1-bits of |a| (NumPy's; |MIN| wraps to MIN, one bit). */
#ifdef __CUDACC_RTC__
#define LM__POPCOUNT(x) __popcll(x)
#else
#define LM__POPCOUNT(x) __builtin_popcountll(x)
#endif
#define LM__OP_bitwise_count(C, s, T, W, N) return (T)LM__POPCOUNT((lm_u64)LM__MAG_##C(W));
LM_FN lm_u64 lm__gcd(lm_u64 a, lm_u64 b) {
    while (b) {
        lm_u64 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* ldexp: b holds the integer exponent (the frontend clamps it to +-2200, exact in every
 * float dtype it passes; bfloat16 goes through float32, as ml_dtypes computes it). frexp's
 * exponent: 0 for zeros, infinities and NaN. Both exact. */
#define LM__OP_ldexp(C, s, T, F, N) return ldexp##F(a, (int)b);
#define LM__OP_frexp_exponent(C, s, T, F, N)                                                   \
    int e = 0;                                                                                 \
    if (a == a && a - a == 0) frexp##F(a, &e);                                                 \
    return (T)e;

#define LM__RET_SAME(T) T
#define LM__RET_BOOL(T) lm_b
#define LM__RET_REAL(T) T
#define LM__PARAMS_1(T) T a
#define LM__PARAMS_2(T) T a, T b
#define LM__ARGS_1(s) lm_##s##_to_f32(a)
#define LM__ARGS_2(s) lm_##s##_to_f32(a), lm_##s##_to_f32(b)
#define LM__HRET_SAME(s, x) return lm_f32_to_##s(x);
#define LM__HRET_BOOL(s, x) return x;
#define LM__HRET_REAL(s, x) return lm_f32_to_##s(x);

#define LM__DEF(E, n, ar, o, TAG, C, s, T, W, N) LM__DEF_##C(n, ar, o, C, s, T, W, N)
#define LM__DEF_B(n, ar, o, C, s, T, W, N) LM__DEF_PLAIN(n, ar, o, C, s, T, W, N)
#define LM__DEF_S(n, ar, o, C, s, T, W, N) LM__DEF_PLAIN(n, ar, o, C, s, T, W, N)
#define LM__DEF_U(n, ar, o, C, s, T, W, N) LM__DEF_PLAIN(n, ar, o, C, s, T, W, N)
#define LM__DEF_F(n, ar, o, C, s, T, W, N) LM__DEF_PLAIN(n, ar, o, C, s, T, W, N)
#define LM__DEF_C(n, ar, o, C, s, T, W, N) /* written out below */
#define LM__DEF_PLAIN(n, ar, o, C, s, T, W, N)                                                 \
    LM_FN LM__RET_##o(T) lm_##n##_##s(LM__PARAMS_##ar(T)) { LM__OP_##n(C, s, T, W, N) }
#define LM__DEF_H(n, ar, o, C, s, T, W, N)                                                     \
    LM_FN LM__RET_##o(T) lm_##n##_##s(LM__PARAMS_##ar(T)) {                                   \
        LM__CAT(LM__HBODY_, LM__FIRST_ON_EQ(n##_##s))(n, ar, o, s)                             \
    }
#define LM__HBODY_0(n, ar, o, s) LM__HRET_##o(s, lm_##n##_f32(LM__ARGS_##ar(s)))
/* NumPy's float16 maximum/minimum return the first operand when the operands compare equal
 * (maximum(+0, -0) is +0, maximum(-0, +0) is -0); its float32/64 vector loops the second. */
#define LM__HBODY_1(n, ar, o, s)                                                               \
    lm_f32 fa = lm_##s##_to_f32(a), fb = lm_##s##_to_f32(b);                                  \
    if (fa == fb) return a;                                                                    \
    LM__HRET_##o(s, lm_##n##_f32(fa, fb))
#define LM__PROBE_maximum_f16 ~, 1
#define LM__PROBE_minimum_f16 ~, 1
/* The bit-level ops work on the 16-bit patterns themselves (LM__H16). */
#define LM__HBODY_2(n, ar, o, s) return lm__##n##_##s(LM__HARGS_##ar);
#define LM__HARGS_1 a
#define LM__HARGS_2 a, b
#define LM__PROBE_signbit_f16 ~, 2
#define LM__PROBE_signbit_bf16 ~, 2
#define LM__PROBE_nextafter_f16 ~, 2
#define LM__PROBE_nextafter_bf16 ~, 2
#define LM__PROBE_spacing_f16 ~, 2
#define LM__PROBE_spacing_bf16 ~, 2
#define LM__FIRST_ON_EQ(ns) LM__SECOND(LM__PROBE_##ns, 0, ~)
#define LM__CAT_(a, b) a##b
#define LM__CAT(a, b) LM__CAT_(a, b)
#define LM__GEN_OP(E, n, ar, loops, o) LM_LOOPS_##loops(LM__DEF, E, n, ar, o)
LM_ELEM_OPS(LM__GEN_OP)

/* ---- Complex ops --------------------------------------------------------------------------
 * NumPy's loops, part by part, in the dtype's precision: add and subtract; multiply (and
 * square) as NumPy's vector loops compute it, with one fused multiply-add per part
 * (re = fma(ar, br, -(ai bi)), im = fma(ar, bi, ai br)); absolute as its vector loop,
 * max * sqrt(1 + (min / max)^2) with a fused multiply-add; division and reciprocal by Smith's
 * method; sign as z / hypot(z); integer powers below 100 by repeated multiplication without
 * fused multiply-adds (npymath's npy_cpow). exp, log,
 * sqrt and the trigonometric and hyperbolic functions follow C99's Annex G with their special
 * values, in the dtype's own precision (the float32 functions for complex64, as NumPy's
 * npy_cexpf and the like). */
LM_FN lm_f64 lm__nan64(void) { return lm__dfrom(0x7ff8000000000000ull); }
LM_FN lm_f64 lm__inf64(void) { return lm__dfrom(0x7ff0000000000000ull); }
#define LM__CARITH(s, T, R, rs, F, MUL, ADD, SUB, CPOW)                                            \
    LM_FN T lm_add_##s(T a, T b) { return lm__mk_##s(ADD(a.re, b.re), ADD(a.im, b.im)); }          \
    LM_FN T lm_subtract_##s(T a, T b) { return lm__mk_##s(SUB(a.re, b.re), SUB(a.im, b.im)); }     \
    LM_FN T lm_multiply_##s(T a, T b) {                                                            \
        return lm__mk_##s(fma##F(a.re, b.re, -MUL(a.im, b.im)),                                    \
                          fma##F(a.re, b.im, MUL(a.im, b.re)));                                    \
    }                                                                                              \
    LM_FN T lm_square_##s(T a) { return lm_multiply_##s(a, a); }                                   \
    LM_FN T lm__cmul_##s(T a, T b) { /* npymath's cmul: no fused multiply-add */                   \
        return lm__mk_##s(SUB(MUL(a.re, b.re), MUL(a.im, b.im)),                                   \
                          ADD(MUL(a.re, b.im), MUL(a.im, b.re)));                                  \
    }                                                                                              \
    LM_FN T lm_true_divide_##s(T a, T b) {                                                         \
        R br = fabs##F(b.re), bi = fabs##F(b.im);                                                  \
        if (br >= bi) {                                                                            \
            if (br == 0 && bi == 0) return lm__mk_##s(a.re / br, a.im / br);                       \
            R rat = b.im / b.re, scl = (R)1 / ADD(b.re, MUL(b.im, rat));                           \
            return lm__mk_##s(MUL(ADD(a.re, MUL(a.im, rat)), scl),                                 \
                              MUL(SUB(a.im, MUL(a.re, rat)), scl));                                \
        }                                                                                          \
        R rat = b.re / b.im, scl = (R)1 / ADD(b.im, MUL(b.re, rat));                               \
        return lm__mk_##s(MUL(ADD(MUL(a.re, rat), a.im), scl),                                     \
                          MUL(SUB(MUL(a.im, rat), a.re), scl));                                    \
    }                                                                                              \
    LM_FN T lm_reciprocal_##s(T a) {                                                               \
        if (fabs##F(a.im) <= fabs##F(a.re)) {                                                      \
            R r = a.im / a.re, d = ADD(a.re, MUL(a.im, r));                                        \
            return lm__mk_##s((R)1 / d, -r / d);                                                   \
        }                                                                                          \
        R r = a.re / a.im, d = ADD(MUL(a.re, r), a.im);                                            \
        return lm__mk_##s(r / d, (R)-1 / d);                                                       \
    }                                                                                              \
    LM_FN T lm_negative_##s(T a) { return lm__mk_##s(-a.re, -a.im); }                              \
    LM_FN T lm_positive_##s(T a) { return a; }                                                     \
    LM_FN T lm_conjugate_##s(T a) { return lm__mk_##s(a.re, -a.im); }                              \
    LM_FN R lm_real_##s(T a) { return a.re; }                                                      \
    LM_FN R lm_imag_##s(T a) { return a.im; }                                                      \
    LM_FN T lm_complex_##s(T a, T b) { return lm__mk_##s(a.re, b.re); }                            \
    LM_FN R lm_absolute_##s(T a) {                                                                 \
        R re = fabs##F(a.re), im = fabs##F(a.im), inf = (R)lm__inf64();                            \
        if (!(re < inf && im < inf)) /* one test on the common path */                             \
            return re == inf || im == inf ? inf : (R)lm__nan64();                                  \
        R big = re > im ? re : im, small = re > im ? im : re;                                      \
        if (big == 0) return big;                                                                  \
        R ratio = small / big;                                                                     \
        return MUL(sqrt##F(fma##F(ratio, ratio, (R)1)), big);                                      \
    }                                                                                              \
    LM_FN lm_b lm_isnan_##s(T a) { return lm__isnan_##rs(a.re) | lm__isnan_##rs(a.im); }           \
    LM_FN lm_b lm_isinf_##s(T a) { return lm__isinf_##rs(a.re) | lm__isinf_##rs(a.im); }           \
    LM_FN lm_b lm_isfinite_##s(T a) {                                                              \
        return !(lm__isnan_##rs(a.re) | lm__isnan_##rs(a.im) | lm__isinf_##rs(a.re) |              \
                 lm__isinf_##rs(a.im));                                                            \
    }                                                                                              \
    LM_FN lm_b lm_logical_not_##s(T a) { return a.re == 0 && a.im == 0; }                          \
    LM_FN lm_b lm_equal_##s(T a, T b) { return a.re == b.re && a.im == b.im; }                     \
    LM_FN lm_b lm_not_equal_##s(T a, T b) { return a.re != b.re || a.im != b.im; }                 \
    /* NumPy's lexicographic order (CLT, CLE, CGT, CGE of its loops): a NaN imaginary part         \
     * makes the real parts' strict order false */                                                 \
    LM_FN lm_b lm_less_##s(T a, T b) {                                                             \
        return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im);     \
    }                                                                                              \
    LM_FN lm_b lm_less_equal_##s(T a, T b) {                                                       \
        return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im);    \
    }                                                                                              \
    LM_FN lm_b lm_greater_##s(T a, T b) { return lm_less_##s(b, a); }                              \
    LM_FN lm_b lm_greater_equal_##s(T a, T b) { return lm_less_equal_##s(b, a); }                  \
    /* maximum and minimum propagate a NaN of either part of a, else of b; fmax and fmin           \
     * ignore a NaN b */                                                                           \
    LM_FN T lm_maximum_##s(T a, T b) {                                                             \
        return a.re != a.re || a.im != a.im || lm_greater_equal_##s(a, b) ? a : b;                 \
    }                                                                                              \
    LM_FN T lm_minimum_##s(T a, T b) {                                                             \
        return a.re != a.re || a.im != a.im || lm_less_equal_##s(a, b) ? a : b;                    \
    }                                                                                              \
    LM_FN T lm_fmax_##s(T a, T b) {                                                                \
        return b.re != b.re || b.im != b.im || lm_greater_equal_##s(a, b) ? a : b;                 \
    }                                                                                              \
    LM_FN T lm_fmin_##s(T a, T b) {                                                                \
        return b.re != b.re || b.im != b.im || lm_less_equal_##s(a, b) ? a : b;                    \
    }                                                                                              \
    LM_FN lm_b lm_logical_and_##s(T a, T b) {                                                      \
        return (a.re != 0 || a.im != 0) && (b.re != 0 || b.im != 0);                               \
    }                                                                                              \
    LM_FN lm_b lm_logical_or_##s(T a, T b) {                                                       \
        return a.re != 0 || a.im != 0 || b.re != 0 || b.im != 0;                                   \
    }                                                                                              \
    LM_FN lm_b lm_logical_xor_##s(T a, T b) {                                                      \
        return (a.re != 0 || a.im != 0) != (b.re != 0 || b.im != 0);                               \
    }                                                                                              \
    LM_FN T lm_sign_##s(T a) {                                                                     \
        R h = hypot##F(a.re, a.im), nan = (R)lm__nan64();                                          \
        if (h != h) return lm__mk_##s(nan, nan);                                                   \
        if (lm__isinf_##rs(h)) {                                                                   \
            if (!lm__isinf_##rs(a.re)) return lm__mk_##s(0, a.im > 0 ? (R)1 : (R)-1);              \
            if (lm__isinf_##rs(a.im)) return lm__mk_##s(nan, nan);                                 \
            return lm__mk_##s(a.re > 0 ? (R)1 : (R)-1, 0);                                         \
        }                                                                                          \
        if (h == 0) return lm__mk_##s(0, 0);                                                       \
        return lm__mk_##s(a.re / h, a.im / h);                                                     \
    }                                                                                              \
    LM_FN T lm_power_##s(T a, T b) {                                                               \
        if (b.re == 0 && b.im == 0) return lm__mk_##s(1, 0);                                       \
        if (a.re == 0 && a.im == 0) {                                                              \
            if (b.re > 0) return lm__mk_##s(0, 0);                                                 \
            return lm__mk_##s((R)lm__nan64(), (R)lm__nan64());                                     \
        }                                                                                          \
        if (b.im == 0 && b.re > -100 && b.re < 100 && (R)(int)b.re == b.re) {                      \
            int n = (int)b.re, m = n < 0 ? -n : n, mask = 1;                                       \
            if (n == 1) return a;                                                                  \
            if (n == 2) return lm__cmul_##s(a, a);                                                 \
            if (n == 3) return lm__cmul_##s(a, lm__cmul_##s(a, a));                                \
            T acc = lm__mk_##s(1, 0), p = a;                                                       \
            for (;;) {                                                                             \
                if (m & mask) acc = lm__cmul_##s(acc, p);                                          \
                mask <<= 1;                                                                        \
                if (m < mask) break;                                                               \
                p = lm__cmul_##s(p, p);                                                            \
            }                                                                                      \
            return n < 0 ? lm_true_divide_##s(lm__mk_##s(1, 0), acc) : acc;                        \
        }                                                                                          \
        return CPOW(a, b);                                                                         \
    }

/* The Annex G functions for one precision: T the complex type, R its part type, F the libm
 * suffix, MUL/ADD/SUB/DIV its rounding operations, BIG where hypot would overflow, TCUT where
 * tanh's real part is 1 to the last bit (FreeBSD's 22 and 9), SQBIG where a square would,
 * TINY where sqrt's parts are scaled up by UP (an even power of two; DOWN its square root's
 * reciprocal) to keep subnormal digits, EXPT glibc's (int)((MAX_EXP - 1) log 2), past which
 * sinh and cosh overflow, MAXV the largest finite value. */
#define LM__CTRANS(s, T, R, rs, F, MUL, ADD, SUB, DIV, BIG, TCUT, SQBIG, TINY, UP, DOWN, EXPT,     \
                   MAXV)                                                                           \
    LM_FN T lm_exp_##s(T z) {                                                                      \
        R a = z.re, b = z.im;                                                                      \
        if (b == 0) return lm__mk_##s(exp##F(a), b);                                               \
        /* one test on the common path: b infinite or NaN, or a infinite */                        \
        if (!(fabs##F(b) < (R)lm__inf64()) || fabs##F(a) == (R)lm__inf64()) {                      \
            if (!lm__isinf_##rs(a)) return lm__mk_##s((R)lm__nan64(), (R)lm__nan64());             \
            R r = a < 0 ? (R)0 : a;                                                                \
            if (lm__isinf_##rs(b) || lm__isnan_##rs(b))                                            \
                return lm__mk_##s(r, a < 0 ? (R)0 : SUB(b, b));                                    \
            return lm__mk_##s(MUL(r, cos##F(b)), MUL(r, sin##F(b)));                               \
        }                                                                                          \
        R e = exp##F(a), sn, cs;                                                                   \
        LM_SINCOS(F, b, &sn, &cs);                                                                 \
        return lm__mk_##s(MUL(e, cs), MUL(e, sn));                                                 \
    }                                                                                              \
    /* log |z| near |z| = 1 through log1p, so that it keeps its relative precision there */        \
    /* log |z| of |z| = h = hypot(a, b), which may have overflowed: past BIG, npymath's            \
     * log hypot(a / 2, b / 2) + log 2; below TINY, where h may have lost subnormal digits,        \
     * log hypot(a UP, b UP) - log UP */                                                           \
    LM_FN R lm__logabs_##s(R a, R b, R h) {                                                        \
        if (fabs##F(a) > (R)BIG || fabs##F(b) > (R)BIG)                                            \
            return ADD(log##F(hypot##F(MUL(a, (R)0.5), MUL(b, (R)0.5))),                           \
                       (R)0.693147180559945309417232121458176568);                                 \
        if (fabs##F(a) < (R)TINY && fabs##F(b) < (R)TINY)                                          \
            return SUB(log##F(hypot##F(MUL(a, (R)UP), MUL(b, (R)UP))), log##F((R)UP));             \
        return log##F(h);                                                                          \
    }                                                                                              \
    LM_FN T lm_log_##s(T z) {                                                                      \
        R a = fabs##F(z.re), b = fabs##F(z.im), hi = a > b ? a : b, lo = a > b ? b : a;            \
        R h = hypot##F(a, b), re;                                                                  \
        if (h > (R)0.7 && h < (R)1.4)                                                              \
            re = MUL((R)0.5, log1p##F(ADD(MUL(SUB(hi, (R)1), ADD(hi, (R)1)), MUL(lo, lo))));       \
        else                                                                                       \
            re = lm__logabs_##s(a, b, h);                                                          \
        return lm__mk_##s(re, atan2##F(z.im, z.re));                                               \
    }                                                                                              \
    LM_FN T lm_sqrt_##s(T z) {                                                                     \
        R a = z.re, b = z.im, scale = 1, t;                                                        \
        if (a == 0 && b == 0) return lm__mk_##s(0, b);                                             \
        if (lm__isinf_##rs(b)) return lm__mk_##s(fabs##F(b), b);                                   \
        if (lm__isnan_##rs(a)) return lm__mk_##s(a, (R)lm__nan64());                               \
        if (lm__isinf_##rs(a)) {                                                                   \
            if (a < 0) return lm__mk_##s(fabs##F(SUB(b, b)), copysign##F(-a, b));                  \
            return lm__mk_##s(a, copysign##F(SUB(b, b), b));                                       \
        }                                                                                          \
        if (lm__isnan_##rs(b)) return lm__mk_##s((R)lm__nan64(), b);                               \
        if (fabs##F(a) > (R)BIG || fabs##F(b) > (R)BIG) { /* hypot would overflow */               \
            a = MUL(a, (R)0.25);                                                                   \
            b = MUL(b, (R)0.25);                                                                   \
            scale = 2;                                                                             \
        } else if (fabs##F(a) < (R)TINY && fabs##F(b) < (R)TINY) { /* (a + |z|) / 2 would lose     \
                                                                      digits, or underflow */      \
            a = MUL(a, (R)UP);                                                                     \
            b = MUL(b, (R)UP);                                                                     \
            scale = (R)DOWN;                                                                       \
        }                                                                                          \
        if (a >= 0) {                                                                              \
            t = sqrt##F(MUL(ADD(a, hypot##F(a, b)), (R)0.5));                                      \
            return lm__mk_##s(MUL(t, scale), MUL(DIV(b, MUL((R)2, t)), scale));                    \
        }                                                                                          \
        t = sqrt##F(MUL(ADD(-a, hypot##F(a, b)), (R)0.5));                                         \
        return lm__mk_##s(MUL(DIV(fabs##F(b), MUL((R)2, t)), scale),                               \
                          MUL(copysign##F(t, b), scale));                                          \
    }                                                                                              \
    /* (c, s) e^|a| / 2 for |a| > EXPT, where sinh and cosh overflow before the product with       \
     * a small cos b or sin b would: glibc's steps of e^EXPT (NumPy's csinh and ccosh) */          \
    LM_FN T lm__scaled_##s(R a, R c, R sn) {                                                       \
        R et = exp##F((R)EXPT), h = MUL(et, (R)0.5), rx = SUB(fabs##F(a), (R)EXPT);                \
        c = MUL(c, h), sn = MUL(sn, h);                                                            \
        if (rx > (R)EXPT) rx = SUB(rx, (R)EXPT), c = MUL(c, et), sn = MUL(sn, et);                 \
        if (rx > (R)EXPT) return lm__mk_##s(MUL(c, (R)MAXV), MUL(sn, (R)MAXV));                    \
        R ev = exp##F(rx);                                                                         \
        return lm__mk_##s(MUL(ev, c), MUL(ev, sn));                                                \
    }                                                                                              \
    LM_FN T lm_sinh_##s(T z) {                                                                     \
        R a = z.re, b = z.im;                                                                      \
        if (b == 0) return lm__mk_##s(sinh##F(a), b);                                              \
        if (lm__isinf_##rs(b) || lm__isnan_##rs(b)) {                                              \
            if (a == 0) return lm__mk_##s(a, (R)lm__nan64());                                      \
            if (lm__isinf_##rs(a)) return lm__mk_##s((R)lm__inf64(), (R)lm__nan64());              \
        }                                                                                          \
        if (fabs##F(a) > (R)EXPT) {                                                                \
            R c = cos##F(b);                                                                       \
            return lm__scaled_##s(a, a < 0 ? -c : c, sin##F(b));                                   \
        }                                                                                          \
        return lm__mk_##s(MUL(sinh##F(a), cos##F(b)), MUL(cosh##F(a), sin##F(b)));                 \
    }                                                                                              \
    LM_FN T lm_cosh_##s(T z) {                                                                     \
        R a = z.re, b = z.im;                                                                      \
        if (b == 0) return lm__mk_##s(cosh##F(a), MUL(a == 0 ? a : copysign##F((R)1, a), b));      \
        if (lm__isinf_##rs(b) || lm__isnan_##rs(b)) {                                              \
            if (a == 0) return lm__mk_##s((R)lm__nan64(), 0);                                      \
            if (lm__isinf_##rs(a)) return lm__mk_##s((R)lm__inf64(), (R)lm__nan64());              \
        }                                                                                          \
        if (fabs##F(a) > (R)EXPT) {                                                                \
            R sn = sin##F(b);                                                                      \
            return lm__scaled_##s(a, cos##F(b), a < 0 ? -sn : sn);                                 \
        }                                                                                          \
        return lm__mk_##s(MUL(cosh##F(a), cos##F(b)), MUL(sinh##F(a), sin##F(b)));                 \
    }                                                                                              \
    /* Kahan's formulation (as FreeBSD's ctanh): no overflow for a large real part */              \
    LM_FN T lm_tanh_##s(T z) {                                                                     \
        R x = z.re, y = z.im;                                                                      \
        if (lm__isnan_##rs(x)) return lm__mk_##s(x, y == 0 ? y : x);                               \
        if (lm__isinf_##rs(x)) {                                                                   \
            R im = lm__isinf_##rs(y) || lm__isnan_##rs(y) ? (R)0 : MUL(sin##F(y), cos##F(y));      \
            return lm__mk_##s(copysign##F((R)1, x), copysign##F((R)0, im));                        \
        }                                                                                          \
        if (lm__isinf_##rs(y) || lm__isnan_##rs(y)) {                                              \
            if (x == 0) return lm__mk_##s(x, (R)lm__nan64());                                      \
            return lm__mk_##s((R)lm__nan64(), (R)lm__nan64());                                     \
        }                                                                                          \
        if (fabs##F(x) >= (R)TCUT) {                                                               \
            R e = exp##F(-fabs##F(x));                                                             \
            return lm__mk_##s(copysign##F((R)1, x),                                                \
                              MUL(MUL(MUL((R)4, sin##F(y)), cos##F(y)), MUL(e, e)));               \
        }                                                                                          \
        R t = tan##F(y), beta = ADD((R)1, MUL(t, t)), sh = sinh##F(x);                             \
        R rho = sqrt##F(ADD((R)1, MUL(sh, sh)));                                                   \
        R denom = ADD((R)1, MUL(MUL(beta, sh), sh));                                               \
        return lm__mk_##s(DIV(MUL(MUL(beta, rho), sh), denom), DIV(t, denom));                     \
    }                                                                                              \
    /* sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz); glibc's csin (NumPy's)          \
     * gives (NaN, +inf) for an infinite imaginary part beside a real one that is not finite */    \
    LM_FN T lm_sin_##s(T z) {                                                                      \
        if (lm__isinf_##rs(z.im) && !(fabs##F(z.re) < (R)lm__inf64()))                             \
            return lm__mk_##s((R)lm__nan64(), (R)lm__inf64());                                     \
        T w = lm_sinh_##s(lm__mk_##s(-z.im, z.re));                                                \
        return lm__mk_##s(w.im, -w.re);                                                            \
    }                                                                                              \
    LM_FN T lm_cos_##s(T z) { return lm_cosh_##s(lm__mk_##s(-z.im, z.re)); }                       \
    LM_FN T lm_tan_##s(T z) {                                                                      \
        T w = lm_tanh_##s(lm__mk_##s(-z.im, z.re));                                                \
        return lm__mk_##s(w.im, -w.re);                                                            \
    }                                                                                              \
    /* NumPy's nc_exp2, nc_expm1, nc_log2 and nc_log10 */                                          \
    LM_FN T lm_exp2_##s(T z) {                                                                     \
        return lm_exp_##s(lm__mk_##s(MUL(z.re, (R)0.693147180559945309417232121458176568),         \
                                     MUL(z.im, (R)0.693147180559945309417232121458176568)));       \
    }                                                                                              \
    LM_FN T lm_expm1_##s(T z) {                                                                    \
        R h = sin##F(DIV(z.im, (R)2));                                                             \
        return lm__mk_##s(SUB(MUL(expm1##F(z.re), cos##F(z.im)), MUL(MUL((R)2, h), h)),            \
                          MUL(exp##F(z.re), sin##F(z.im)));                                        \
    }                                                                                              \
    /* log1p: NumPy's log(hypot(1 + x, y)) loses the digits of a small z to the rounding of        \
     * 1 + x; near |1 + z| = 1 this takes log1p(x (2 + x) + y^2) / 2 instead */                    \
    LM_FN T lm_log1p_##s(T z) {                                                                    \
        R x = ADD(z.re, (R)1), h = hypot##F(x, z.im), re;                                          \
        if (h > (R)0.5 && h < (R)2)                                                                \
            re = MUL((R)0.5, log1p##F(ADD(MUL(z.re, ADD((R)2, z.re)), MUL(z.im, z.im))));          \
        else                                                                                       \
            re = lm__logabs_##s(x, z.im, h);                                                       \
        return lm__mk_##s(re, atan2##F(z.im, x));                                                  \
    }                                                                                              \
    LM_FN T lm_log2_##s(T z) {                                                                     \
        T l = lm_log_##s(z);                                                                       \
        return lm__mk_##s(MUL(l.re, (R)1.442695040888963407359924681001892137),                    \
                          MUL(l.im, (R)1.442695040888963407359924681001892137));                   \
    }                                                                                              \
    LM_FN T lm_log10_##s(T z) {                                                                    \
        T l = lm_log_##s(z);                                                                       \
        return lm__mk_##s(MUL(l.re, (R)0.434294481903251827651128918916605082),                    \
                          MUL(l.im, (R)0.434294481903251827651128918916605082));                   \
    }                                                                                              \
    /* The inverse functions: Kahan's formulas ("Branch cuts for complex elementary                \
     * functions", 1987) through sqrt(1 - z) and sqrt(1 + z), whose signed zeros put the           \
     * branch cuts where C99 and NumPy have them; C99 Annex G's values for infinities and          \
     * NaNs as glibc gives them (NumPy's); asin, atan through asinh, atanh (asin z =               \
     * -i asinh(iz)), acosh through acos (|Im acos z| + i sign(y) Re acos z). */                   \
    /* -v with the sign bit flipped on a NaN too (PTX's neg leaves a NaN's sign unspecified;       \
     * glibc's results carry it into signed infinities and zeros) */                               \
    LM_FN R lm__negbits_##s(R v) { return copysign##F(v, -copysign##F((R)1, v)); }                 \
    /* log |2z| where |z| > SQBIG, and asinh's and acos's modulus there (their error is            \
     * O(1 / |z|^2)): log hypot(x / 2, y / 2) + 2 log 2, which cannot overflow (glibc's form) */   \
    LM_FN R lm__log2abs_##s(R x, R y) {                                                            \
        return ADD(log##F(hypot##F(MUL(x, (R)0.5), MUL(y, (R)0.5))),                               \
                   (R)1.386294361119890618834464242916);                                           \
    }                                                                                              \
    LM_FN T lm__csqrt1m_##s(T z) { return lm_sqrt_##s(lm__mk_##s(SUB((R)1, z.re), -z.im)); }       \
    LM_FN T lm__csqrt1p_##s(T z) { return lm_sqrt_##s(lm__mk_##s(ADD((R)1, z.re), z.im)); }        \
    LM_FN T lm_arcsinh_##s(T z) {                                                                  \
        R x = z.re, y = z.im;                                                                      \
        if (lm__isnan_##rs(x)) {                                                                   \
            if (y == 0) return z;                                                                  \
            if (lm__isinf_##rs(y)) return lm__mk_##s(copysign##F((R)lm__inf64(), x), x);           \
            return lm__mk_##s((R)lm__nan64(), (R)lm__nan64());                                     \
        }                                                                                          \
        if (lm__isnan_##rs(y)) {                                                                   \
            if (lm__isinf_##rs(x)) return z;                                                       \
            return lm__mk_##s((R)lm__nan64(), (R)lm__nan64());                                     \
        }                                                                                          \
        if (lm__isinf_##rs(x) || lm__isinf_##rs(y)) {                                              \
            R q = lm__isinf_##rs(x) ? (lm__isinf_##rs(y) ? (R)(LM__PI / 4) : (R)0)                 \
                                    : (R)(LM__PI / 2);                                             \
            return lm__mk_##s(copysign##F((R)lm__inf64(), x), copysign##F(q, y));                  \
        }                                                                                          \
        if (fabs##F(x) < (R)TINY && fabs##F(y) < (R)TINY) return z; /* z - z^3 / 6 + ... */        \
        if (fabs##F(x) > (R)SQBIG || fabs##F(y) > (R)SQBIG) { /* Kahan's products overflow */      \
            R re = lm__log2abs_##s(x, y);                                                          \
            return lm__mk_##s(copysign##F(re, x),                                                  \
                              copysign##F(atan2##F(fabs##F(y), fabs##F(x)), y));                   \
        }                                                                                          \
        /* asin(w) at w = iz = (-y, x): (atan2(Re w, Re(s1 s2)), asinh(Im(conj(s1) s2))) */        \
        T w = lm__mk_##s(lm__negbits_##s(y), x), s1 = lm__csqrt1m_##s(w), s2 = lm__csqrt1p_##s(w); \
        R re = atan2##F(w.re, SUB(MUL(s1.re, s2.re), MUL(s1.im, s2.im)));                          \
        R im = asinh##F(SUB(MUL(s1.re, s2.im), MUL(s1.im, s2.re)));                                \
        return lm__mk_##s(im, lm__negbits_##s(re));                                                \
    }                                                                                              \
    LM_FN T lm_arcsin_##s(T z) {                                                                   \
        T w = lm_arcsinh_##s(lm__mk_##s(lm__negbits_##s(z.im), z.re));                             \
        return lm__mk_##s(w.im, lm__negbits_##s(w.re));                                            \
    }                                                                                              \
    LM_FN T lm_arccos_##s(T z) {                                                                   \
        R x = z.re, y = z.im;                                                                      \
        if (lm__isnan_##rs(x)) {                                                                   \
            if (lm__isinf_##rs(y)) return lm__mk_##s(x, -y);                                       \
            return lm__mk_##s((R)lm__nan64(), (R)lm__nan64());                                     \
        }                                                                                          \
        if (lm__isnan_##rs(y)) {                                                                   \
            if (lm__isinf_##rs(x)) return lm__mk_##s(y, -copysign##F((R)lm__inf64(), y));          \
            if (x == 0) return lm__mk_##s((R)(LM__PI / 2), y);                                     \
            return lm__mk_##s((R)lm__nan64(), (R)lm__nan64());                                     \
        }                                                                                          \
        if (lm__isinf_##rs(x) || lm__isinf_##rs(y)) {                                              \
            R re = !lm__isinf_##rs(x)  ? (R)(LM__PI / 2)                                           \
                   : lm__isinf_##rs(y) ? (x < 0 ? (R)(3 * LM__PI / 4) : (R)(LM__PI / 4))           \
                                       : (x < 0 ? (R)LM__PI : (R)0);                               \
            return lm__mk_##s(re, copysign##F((R)lm__inf64(), -y));                                \
        }                                                                                          \
        if (fabs##F(x) > (R)SQBIG || fabs##F(y) > (R)SQBIG) /* Kahan's products overflow */        \
            return lm__mk_##s(atan2##F(fabs##F(y), x), copysign##F(lm__log2abs_##s(x, y), -y));    \
        T s1 = lm__csqrt1m_##s(z), s2 = lm__csqrt1p_##s(z);                                        \
        return lm__mk_##s(MUL((R)2, atan2##F(s1.re, s2.re)),                                       \
                          asinh##F(SUB(MUL(s2.re, s1.im), MUL(s2.im, s1.re))));                    \
    }                                                                                              \
    LM_FN T lm_arccosh_##s(T z) {                                                                  \
        R x = z.re, y = z.im;                                                                      \
        if (lm__isnan_##rs(x) || lm__isnan_##rs(y)) {                                              \
            R nan = (R)lm__nan64();                                                                \
            if (lm__isinf_##rs(x) || lm__isinf_##rs(y)) return lm__mk_##s((R)lm__inf64(), nan);    \
            return lm__mk_##s(nan, x == 0 ? (R)(LM__PI / 2) : nan);                                \
        }                                                                                          \
        T w = lm_arccos_##s(z);                                                                    \
        return lm__mk_##s(fabs##F(w.im), copysign##F(w.re, y));                                    \
    }                                                                                              \
    /* atanh z = (log1p(4x / ((1 - x)^2 + y^2)) / 4, atan2(2y, (1 - x)(1 + x) - y^2) / 2),         \
     * and x / |z|^2 and +-pi/2 where |z| is large enough for the squares to overflow */           \
    LM_FN T lm_arctanh_##s(T z) {                                                                  \
        R x = z.re, y = z.im, ax = fabs##F(x), ay = fabs##F(y);                                    \
        if (lm__isnan_##rs(x)) {                                                                   \
            if (lm__isinf_##rs(y))                                                                 \
                return lm__mk_##s(copysign##F((R)0, x), copysign##F((R)(LM__PI / 2), y));          \
            return lm__mk_##s((R)lm__nan64(), (R)lm__nan64());                                     \
        }                                                                                          \
        if (lm__isnan_##rs(y)) {                                                                   \
            if (lm__isinf_##rs(x)) return lm__mk_##s(copysign##F((R)0, x), y);                     \
            if (x == 0) return z;                                                                  \
            return lm__mk_##s((R)lm__nan64(), (R)lm__nan64());                                     \
        }                                                                                          \
        if (ax > (R)SQBIG || ay > (R)SQBIG) { /* infinities too */                                 \
            R hi = ax > ay ? ax : ay, lo = ax > ay ? ay : ax, r = DIV(lo, hi);                     \
            R re = lm__isinf_##rs(hi) ? (R)0 : DIV(DIV(DIV(x, hi), hi), ADD((R)1, MUL(r, r)));     \
            return lm__mk_##s(copysign##F(re, x), copysign##F((R)(LM__PI / 2), y));                \
        }                                                                                          \
        /* Re is odd in x and Im even: |x| keeps log1p's argument >= 0 (no cancellation); */       \
        R omx = SUB((R)1, ax), d = ADD(MUL(omx, omx), MUL(y, y));                                  \
        /* near z = +-1 (d small, perhaps underflowing) as log |1 + z| - log |1 - z| */            \
        R re =                                                                                     \
            d < (R)0.25                                                                            \
                ? MUL((R)0.5, SUB(log##F(hypot##F(ADD((R)1, ax), y)), log##F(hypot##F(omx, y))))   \
                : MUL((R)0.25, log1p##F(DIV(MUL((R)4, ax), d)));                                   \
        R im = MUL((R)0.5, atan2##F(MUL((R)2, y), SUB(MUL(omx, ADD((R)1, ax)), MUL(y, y))));       \
        return lm__mk_##s(copysign##F(re, x), im);                                                 \
    }                                                                                              \
    LM_FN T lm_arctan_##s(T z) {                                                                   \
        T w = lm_arctanh_##s(lm__mk_##s(lm__negbits_##s(z.im), z.re));                             \
        return lm__mk_##s(w.im, lm__negbits_##s(w.re));                                            \
    }                                                                                              \
    /* a ** b = exp(b log a), the general case of power (C99's cpow as glibc computes it) */       \
    LM_FN T lm__cpow_##s(T a, T b) {                                                               \
        T l = lm_log_##s(a);                                                                       \
        return lm_exp_##s(lm__mk_##s(SUB(MUL(b.re, l.re), MUL(b.im, l.im)),                        \
                                     ADD(MUL(b.re, l.im), MUL(b.im, l.re))));                      \
    }
#define LM__FDIV_RN(a, b) ((a) / (b))
LM__CTRANS(c64, lm_c64, lm_f32, f32, f, LM_FMUL, LM_FADD, LM_FSUB, LM__FDIV_RN, 1e37, 9, 1e18,
           1e-36, 18446744073709551616.0, 2.3283064365386962890625e-10, 88,
           3.40282346638528859811704183484516925e+38)
LM__CTRANS(c128, lm_c128, lm_f64, f64, , LM_DMUL, LM_DADD, LM_DSUB, LM_DDIV, 1e300, 22, 1e150,
           1e-300, 340282366920938463463374607431768211456.0,
           5.42101086242752217003726400434970855712890625e-20, 709,
           1.79769313486231570814527423731704357e+308)
/* complex64's general power in complex128, rounded once: exp(b log a) in float32 loses
 * |b log a| ulps of the exponent (hundreds where |a| is large), and overflows early */
LM_FN lm_c64 lm__cpow_wide_c64(lm_c64 a, lm_c64 b) {
    lm_c128 r = lm__cpow_c128(lm__mk_c128((lm_f64)a.re, (lm_f64)a.im),
                              lm__mk_c128((lm_f64)b.re, (lm_f64)b.im));
    return lm__mk_c64((lm_f32)r.re, (lm_f32)r.im);
}
LM__CARITH(c64, lm_c64, lm_f32, f32, f, LM_OP_FMUL, LM_OP_FADD, LM_OP_FSUB, lm__cpow_wide_c64)
LM__CARITH(c128, lm_c128, lm_f64, f64, , LM_OP_DMUL, LM_OP_DADD, LM_OP_DSUB, lm__cpow_c128)

/* ---- Leaf generators --------------------------------------------------------------------- */

/* np.arange(start, stop, step, dtype): NumPy stores start and start + step in the dtype, then
 * fills element i >= 2 with v0 + i * (v1 - v0) in the dtype's arithmetic (wraparound for ints;
 * float32 for float16/bfloat16). Integer dtypes take v0 and d = v1 - v0 as integers (the
 * frontend computes them, exactly, from integer or double bounds), so values past 2**53 stay
 * exact; the others take the double start and step and form v1 = start + step here. */
#define LM__ARANGE_INT(s, T)                                                                   \
    LM_FN T lm_arange_##s(lm_i64 v0, lm_i64 d, lm_i64 i) {                                     \
        return (T)((lm_u64)v0 + (lm_u64)i * (lm_u64)d);                                        \
    }
LM__ARANGE_INT(i8, lm_i8)
LM__ARANGE_INT(i16, lm_i16)
LM__ARANGE_INT(i32, lm_i32)
LM__ARANGE_INT(i64, lm_i64)
LM__ARANGE_INT(u8, lm_u8)
LM__ARANGE_INT(u16, lm_u16)
LM__ARANGE_INT(u32, lm_u32)
LM__ARANGE_INT(u64, lm_u64)
LM_FN lm_b lm_arange_b(lm_i64 v0, lm_i64 d, lm_i64 i) {
    return ((lm_u64)v0 + (lm_u64)i * (lm_u64)d) != 0;
}
LM_FN lm_f32 lm_arange_f32(lm_f64 start, lm_f64 step, lm_i64 i) {
    lm_f32 v0 = lm_cast_f64_f32(start), v1 = lm_cast_f64_f32(LM_DADD(start, step));
    if (i == 0) return v0;
    if (i == 1) return v1;
    return LM_FADD(v0, LM_FMUL((lm_f32)i, LM_FSUB(v1, v0)));
}
LM_FN lm_f64 lm_arange_f64(lm_f64 start, lm_f64 step, lm_i64 i) {
    lm_f64 v1 = LM_DADD(start, step);
    if (i == 0) return start;
    if (i == 1) return v1;
    return LM_DADD(start, LM_DMUL((lm_f64)i, LM_DSUB(v1, start)));
}
#define LM__ARANGE_HALF(s)                                                                     \
    LM_FN lm_##s lm_arange_##s(lm_f64 start, lm_f64 step, lm_i64 i) {                          \
        lm_##s h0 = lm_cast_f64_##s(start), h1 = lm_cast_f64_##s(LM_DADD(start, step));        \
        lm_f32 v0 = lm_##s##_to_f32(h0), v1 = lm_##s##_to_f32(h1);                             \
        if (i == 0) return h0;                                                                 \
        if (i == 1) return h1;                                                                 \
        return lm_f32_to_##s(LM_FADD(v0, LM_FMUL((lm_f32)i, LM_FSUB(v1, v0))));                \
    }
LM__ARANGE_HALF(f16)
LM__ARANGE_HALF(bf16)
LM_FN lm_c64 lm_arange_c64(lm_f64 start, lm_f64 step, lm_i64 i) {
    return lm__mk_c64(lm_arange_f32(start, step, i), 0);
}
LM_FN lm_c128 lm_arange_c128(lm_f64 start, lm_f64 step, lm_i64 i) {
    return lm__mk_c128(lm_arange_f64(start, step, i), 0);
}

/* np.linspace: y = i * step + start in double, element k (the endpoint, or -1) = stop
 * exactly; integer dtypes take floor(y) before the cast, as NumPy does. */
#define LM__LINSPACE(TAG, s, T, canon)                                                         \
    LM_FN T lm_linspace_##s(lm_f64 start, lm_f64 step, lm_f64 stop, lm_i64 k, lm_i64 i) {      \
        lm_f64 y = i == k ? stop : LM_DADD(LM_DMUL((lm_f64)i, step), start);                   \
        return lm_cast_f64_##s(LM__LINSPACE_FLOOR_##canon(y));                                 \
    }
#define LM__LINSPACE_FLOOR_i64(y) floor(y)
#define LM__LINSPACE_FLOOR_u64(y) floor(y)
#define LM__LINSPACE_FLOOR_f64(y) (y)
#define LM__LINSPACE_FLOOR_f64h(y) (y)
LM__LINSPACE(BOOL, b, lm_b, f64) /* bool is not an integer dtype for NumPy: no floor */
LM__LINSPACE(I8, i8, lm_i8, i64)
LM__LINSPACE(I16, i16, lm_i16, i64)
LM__LINSPACE(I32, i32, lm_i32, i64)
LM__LINSPACE(I64, i64, lm_i64, i64)
LM__LINSPACE(U8, u8, lm_u8, u64)
LM__LINSPACE(U16, u16, lm_u16, u64)
LM__LINSPACE(U32, u32, lm_u32, u64)
LM__LINSPACE(U64, u64, lm_u64, u64)
LM__LINSPACE(F16, f16, lm_f16, f64h)
LM__LINSPACE(BF16, bf16, lm_bf16, f64)
LM__LINSPACE(F32, f32, lm_f32, f64)
LM__LINSPACE(F64, f64, lm_f64, f64)
#define LM__LINSPACE_FLOOR_c128(y) (y)
LM__LINSPACE(C64, c64, lm_c64, c128)
LM__LINSPACE(C128, c128, lm_c128, c128)

/* ---- Random: Philox-4x32-10 and the stream of docs/random.md ----------------------------- */
LM_FN void lm_philox(lm_u64 seed, lm_u64 counter, lm_u32 out[4]) {
    lm_u32 c0 = (lm_u32)counter, c1 = (lm_u32)(counter >> 32), c2 = 0, c3 = 0;
    lm_u32 k0 = (lm_u32)seed, k1 = (lm_u32)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        lm_u64 p0 = (lm_u64)0xD2511F53u * c0, p1 = (lm_u64)0xCD9E8D57u * c2;
        lm_u32 n0 = (lm_u32)(p1 >> 32) ^ c1 ^ k0, n2 = (lm_u32)(p0 >> 32) ^ c3 ^ k1;
        c1 = (lm_u32)p1;
        c3 = (lm_u32)p0;
        c0 = n0;
        c2 = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* Natural log of x in (0, 1], from basic operations only: x = m * 2^e with m in
 * [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172. */
LM_FN lm_f64 lm__rng_log(lm_f64 x) {
    lm_u64 u = lm__dbits(x);
    int e = (int)(u >> 52) - 1023;
    lm_f64 m = lm__dfrom((u & 0xfffffffffffffull) | 0x3ff0000000000000ull);
    if (m > 1.4142135623730951) {
        m = LM_DMUL(m, 0.5);
        e++;
    }
    lm_f64 f = LM_DSUB(m, 1.0), s = LM_DDIV(f, LM_DADD(m, 1.0)), z = LM_DMUL(s, s);
    lm_f64 p = 1.0 / 25;
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 23);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 21);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 19);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 17);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 15);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 13);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 11);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 9);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 7);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 5);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 3);
    lm_f64 logm = LM_DADD(LM_DMUL(LM_DMUL(2.0, s), LM_DMUL(p, z)), LM_DMUL(2.0, s));
    lm_f64 ed = (lm_f64)e;
    /* ln 2 split so that e * hi is exact (fdlibm's constants). */
    return LM_DADD(LM_DMUL(ed, 6.93147180369123816490e-01),
                   LM_DADD(LM_DMUL(ed, 1.90821492927058770002e-10), logm));
}
/* Taylor polynomials on [0, pi/4]. */
LM_FN lm_f64 lm__rng_sin(lm_f64 t) {
    lm_f64 z = LM_DMUL(t, t), p = 1.0 / 355687428096000.0; /* 1/17! */
    p = LM_DSUB(LM_DMUL(p, z), 1.0 / 1307674368000.0);     /* 1/15! */
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 6227020800.0);
    p = LM_DSUB(LM_DMUL(p, z), 1.0 / 39916800.0);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 362880.0);
    p = LM_DSUB(LM_DMUL(p, z), 1.0 / 5040.0);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 120.0);
    p = LM_DSUB(LM_DMUL(p, z), 1.0 / 6.0);
    return LM_DADD(t, LM_DMUL(LM_DMUL(p, z), t));
}
LM_FN lm_f64 lm__rng_cos(lm_f64 t) {
    lm_f64 z = LM_DMUL(t, t), p = -1.0 / 6402373705728000.0; /* -1/18! */
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 20922789888000.0);      /* 1/16! */
    p = LM_DSUB(LM_DMUL(p, z), 1.0 / 87178291200.0);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 479001600.0);
    p = LM_DSUB(LM_DMUL(p, z), 1.0 / 3628800.0);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 40320.0);
    p = LM_DSUB(LM_DMUL(p, z), 1.0 / 720.0);
    p = LM_DADD(LM_DMUL(p, z), 1.0 / 24.0);
    p = LM_DSUB(LM_DMUL(p, z), 0.5);
    return LM_DADD(1.0, LM_DMUL(p, z));
}
/* cos(2 pi u) for u in [0, 1): quadrant and reflection are exact on the dyadic u. */
LM_FN lm_f64 lm__rng_cos2pi(lm_f64 u) {
    lm_f64 t = LM_DMUL(u, 4.0);
    int q = (int)t;
    lm_f64 f = LM_DSUB(t, (lm_f64)q);
    int refl = f > 0.5;
    if (refl) f = LM_DSUB(1.0, f);
    lm_f64 th = LM_DMUL(f, 1.5707963267948966), c = lm__rng_cos(th), s = lm__rng_sin(th);
    if (refl) {
        lm_f64 tmp = c;
        c = s;
        s = tmp;
    }
    return q == 0 ? c : q == 1 ? -s : q == 2 ? -c : s;
}

/* 53 random bits as a double in [0, 1). */
LM_FN lm_f64 lm__rng_u53(lm_u32 hi, lm_u32 lo) {
    return LM_DMUL((lm_f64)(((lm_u64)hi << 21) | (lo >> 11)), 1.0 / 9007199254740992.0);
}
LM_FN lm_f64 lm__rng_normal(lm_u64 seed, lm_i64 i, lm_f64 mean, lm_f64 std) {
    lm_u32 r[4];
    lm_philox(seed, (lm_u64)i, r);
    lm_f64 u1 = LM_DSUB(1.0, lm__rng_u53(r[0], r[1])); /* (0, 1] */
    lm_f64 u2 = lm__rng_u53(r[2], r[3]);
    lm_f64 rad = LM_DSQRT(LM_DMUL(-2.0, lm__rng_log(u1)));
    return LM_DADD(mean, LM_DMUL(std, LM_DMUL(rad, lm__rng_cos2pi(u2))));
}
/* uniform: u has the precision of the dtype (53, 24, 11 or 8 bits), low + (high - low) * u
 * in double, rounded once to the dtype. */
LM_FN lm_f64 lm__rng_affine(lm_f64 u, lm_f64 low, lm_f64 high) {
    return LM_DADD(low, LM_DMUL(LM_DSUB(high, low), u));
}
LM_FN lm_f64 lm_random_uniform_f64(lm_u64 seed, lm_i64 i, lm_f64 low, lm_f64 high) {
    lm_u32 r[4];
    lm_philox(seed, (lm_u64)i, r);
    return lm__rng_affine(lm__rng_u53(r[0], r[1]), low, high);
}
#define LM__UNIFORM_NARROW(s, bits)                                                            \
    LM_FN lm_##s lm_random_uniform_##s(lm_u64 seed, lm_i64 i, lm_f64 low, lm_f64 high) {       \
        lm_u32 r[4];                                                                           \
        lm_philox(seed, (lm_u64)i, r);                                                         \
        lm_f64 u = LM_DMUL((lm_f64)(r[0] >> (32 - bits)), 1.0 / (lm_f64)(1u << bits));         \
        return lm_cast_f64_##s(lm__rng_affine(u, low, high));                                  \
    }                                                                                          \
    LM_FN lm_##s lm_random_normal_##s(lm_u64 seed, lm_i64 i, lm_f64 mean, lm_f64 std) {        \
        return lm_cast_f64_##s(lm__rng_normal(seed, i, mean, std));                            \
    }
LM__UNIFORM_NARROW(f32, 24)
LM__UNIFORM_NARROW(f16, 11)
LM__UNIFORM_NARROW(bf16, 8)
LM_FN lm_f64 lm_random_normal_f64(lm_u64 seed, lm_i64 i, lm_f64 mean, lm_f64 std) {
    return lm__rng_normal(seed, i, mean, std);
}

#ifdef __CUDACC_RTC__
/* ---- Kernel parameters (generated kernels only) ------------------------------------------ */

/* Parameters travel as 64-bit words; these read a scalar of each dtype from one. */
LM_FN lm_b lm_word_b(lm_u64 w) { return (lm_b)(w & 1); }
LM_FN lm_i8 lm_word_i8(lm_u64 w) { return (lm_i8)w; }
LM_FN lm_i16 lm_word_i16(lm_u64 w) { return (lm_i16)w; }
LM_FN lm_i32 lm_word_i32(lm_u64 w) { return (lm_i32)w; }
LM_FN lm_i64 lm_word_i64(lm_u64 w) { return (lm_i64)w; }
LM_FN lm_u8 lm_word_u8(lm_u64 w) { return (lm_u8)w; }
LM_FN lm_u16 lm_word_u16(lm_u64 w) { return (lm_u16)w; }
LM_FN lm_u32 lm_word_u32(lm_u64 w) { return (lm_u32)w; }
LM_FN lm_u64 lm_word_u64(lm_u64 w) { return w; }
LM_FN lm_f16 lm_word_f16(lm_u64 w) { return (lm_f16)w; }
LM_FN lm_bf16 lm_word_bf16(lm_u64 w) { return (lm_bf16)w; }
LM_FN lm_f32 lm_word_f32(lm_u64 w) { return __uint_as_float((unsigned)w); }
LM_FN lm_f64 lm_word_f64(lm_u64 w) { return __longlong_as_double((long long)w); }
/* complex64: both parts in one word, as they lie in memory (complex128 is never a parameter:
 * its constants are built from two float64 ones by COMPLEX). */
LM_FN lm_c64 lm_word_c64(lm_u64 w) {
    return lm__mk_c64(__uint_as_float((unsigned)w), __uint_as_float((unsigned)(w >> 32)));
}

/* N elements of T moved by one aligned load or store (16 bytes at most). */
template <typename T, int N> struct alignas(sizeof(T) * N) lm_vec { T v[N]; };
#endif

#endif
