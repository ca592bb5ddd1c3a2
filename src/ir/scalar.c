/* scalar.c - one-element conversions for the frontend, constant folding and the interpreter,
 * and the public 16-bit float conversions: all through the prelude's functions, so a value
 * converted here is bit-identical to the same conversion inside a kernel. */
#include <string.h>

#include "prelude.h"
#include "ir.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ir_bits_* keep values in the low bytes of a uint64_t: little-endian hosts only"
#endif

typedef void (*cast_el_fn)(void *dst, const void *src);

#define DEF_CAST_TO(TTAG, ts, TT, tc, FTAG, fs, FT, fc)                                            \
    static void cast_##fs##_##ts(void *dst, const void *src) {                                     \
        FT x;                                                                                      \
        TT y;                                                                                      \
        memcpy(&x, src, sizeof x);                                                                 \
        y = lm_cast_##fs##_##ts(x);                                                                \
        memcpy(dst, &y, sizeof y);                                                                 \
    }
#define DEF_CAST_FROM(FTAG, fs, FT, fc) LM_DTYPE_LIST2(DEF_CAST_TO, FTAG, fs, FT, fc)
LM_DTYPE_LIST(DEF_CAST_FROM)

#define ENTRY_CAST_TO(TTAG, ts, TT, tc, FTAG, fs, FT, fc)                                          \
    [LOOM_DTYPE_##FTAG][LOOM_DTYPE_##TTAG] = cast_##fs##_##ts,
#define ENTRY_CAST_FROM(FTAG, fs, FT, fc) LM_DTYPE_LIST2(ENTRY_CAST_TO, FTAG, fs, FT, fc)
static const cast_el_fn casts[LOOM_DTYPE_COUNT][LOOM_DTYPE_COUNT] = {
    LM_DTYPE_LIST(ENTRY_CAST_FROM)};

void ir_cast_element(loom_dtype_t to, void *dst, loom_dtype_t from, const void *src) {
    casts[from][to](dst, src);
}

/* The first 8 bytes of a value of dtype d cast from one of dtype from: the whole value, except
 * for complex128, whose real part's float64 bits they are. */
static uint64_t bits_of(loom_dtype_t d, loom_dtype_t from, const void *src) {
    unsigned char buf[16] = {0};
    uint64_t bits;
    ir_cast_element(d, buf, from, src);
    memcpy(&bits, buf, sizeof bits);
    return bits;
}

uint64_t ir_bits_from_double(loom_dtype_t d, double v) { return bits_of(d, LOOM_DTYPE_F64, &v); }
uint64_t ir_bits_from_i64(loom_dtype_t d, int64_t v) { return bits_of(d, LOOM_DTYPE_I64, &v); }
uint64_t ir_bits_from_u64(loom_dtype_t d, uint64_t v) { return bits_of(d, LOOM_DTYPE_U64, &v); }

double ir_bits_to_double(loom_dtype_t d, uint64_t bits) {
    unsigned char buf[16] = {0};
    double v;
    memcpy(buf, &bits, sizeof bits);
    ir_cast_element(LOOM_DTYPE_F64, &v, d, buf);
    return v;
}

LOOM_API uint16_t loom_f32_to_f16(float x) { return lm_f32_to_f16(x); }
LOOM_API float loom_f16_to_f32(uint16_t h) { return lm_f16_to_f32(h); }
LOOM_API uint16_t loom_f64_to_f16(double x) { return lm_f64_to_f16(x); }
LOOM_API uint16_t loom_f32_to_bf16(float x) { return lm_f32_to_bf16(x); }
LOOM_API float loom_bf16_to_f32(uint16_t h) { return lm_bf16_to_f32(h); }
LOOM_API uint16_t loom_f64_to_bf16(double x) { return lm_f64_to_bf16(x); }
