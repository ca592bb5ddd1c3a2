/* check — test helpers; see check.h. Uses only loom's public API. */
#include "check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

loom_ctx_t *check_cpu_ctx(void) {
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_CPU;
    loom_ctx_t *ctx = NULL;
    loom_status_t st = loom_ctx_create(&o, &ctx);
    if (st != LOOM_STATUS_OK || ctx == NULL)
        fail_msg("loom_ctx_create(CPU) failed: %s: %s", loom_status_string(st),
                 loom_last_create_message());
    return ctx;
}

uint64_t check_load_bits(loom_dtype_t d, const void *p) {
    switch (loom_dtype_size(d)) {
        case 1: {
            uint8_t v;
            memcpy(&v, p, 1);
            return v;
        }
        case 2: {
            uint16_t v;
            memcpy(&v, p, 2);
            return v;
        }
        case 4: {
            uint32_t v;
            memcpy(&v, p, 4);
            return v;
        }
        case 8: {
            uint64_t v;
            memcpy(&v, p, 8);
            return v;
        }
        case 16: { /* complex128: the real part's bits, all ones when the imaginary part is
                      not zero (check_store_bits writes a zero one) */
            uint64_t v, im;
            memcpy(&v, p, 8);
            memcpy(&im, (const char *)p + 8, 8);
            return im ? UINT64_MAX : v;
        }
        default:
            return 0;
    }
}

void check_store_bits(loom_dtype_t d, void *p, uint64_t bits) {
    switch (loom_dtype_size(d)) {
        case 1: {
            uint8_t v = (uint8_t)bits;
            memcpy(p, &v, 1);
            break;
        }
        case 2: {
            uint16_t v = (uint16_t)bits;
            memcpy(p, &v, 2);
            break;
        }
        case 4: {
            uint32_t v = (uint32_t)bits;
            memcpy(p, &v, 4);
            break;
        }
        case 8:
            memcpy(p, &bits, 8);
            break;
        case 16: /* complex128: bits are the real part's, the imaginary part is zero */
            memcpy(p, &bits, 8);
            memset((char *)p + 8, 0, 8);
            break;
        default:
            break;
    }
}

loom_array_t *check_from_bits(loom_ctx_t *ctx, loom_dtype_t d, int32_t ndim, const int64_t *shape,
                              const uint64_t *bits, int64_t n) {
    size_t es = loom_dtype_size(d);
    unsigned char *buf = malloc(es * (size_t)(n > 0 ? n : 1));
    assert_non_null(buf);
    for (int64_t i = 0; i < n; i++) check_store_bits(d, buf + (size_t)i * es, bits[i]);
    loom_array_t *a = ndim < 0 || shape == NULL ? loom_from_host(ctx, d, 1, &n, buf)
                                                : loom_from_host(ctx, d, ndim, shape, buf);
    free(buf);
    return a;
}

loom_status_t check_read_bits(loom_ctx_t *ctx, loom_array_t *a, uint64_t *out, int64_t n) {
    if (loom_array_is_nil(a))
        return loom_ctx_status(ctx) ? loom_ctx_status(ctx) : LOOM_STATUS_INTERNAL;
    if (loom_array_size(a) != n) return LOOM_STATUS_INVALID_ARGUMENT;
    loom_dtype_t d = loom_array_dtype(a);
    size_t es = loom_dtype_size(d);
    size_t nb = es * (size_t)(n > 0 ? n : 1);
    unsigned char *buf = malloc(nb);
    assert_non_null(buf);
    loom_status_t st = loom_read(ctx, a, buf, nb);
    if (st == LOOM_STATUS_OK)
        for (int64_t i = 0; i < n; i++) out[i] = check_load_bits(d, buf + (size_t)i * es);
    free(buf);
    return st;
}

int check_is_float(loom_dtype_t d) {
    return d == LOOM_DTYPE_F16 || d == LOOM_DTYPE_BF16 || d == LOOM_DTYPE_F32 ||
           d == LOOM_DTYPE_F64;
}

/* Float format facts: exponent bits and mantissa bits. */
static void float_fmt(loom_dtype_t d, int *ebits, int *mbits) {
    switch (d) {
        case LOOM_DTYPE_F16:
            *ebits = 5;
            *mbits = 10;
            break;
        case LOOM_DTYPE_BF16:
            *ebits = 8;
            *mbits = 7;
            break;
        case LOOM_DTYPE_F32:
            *ebits = 8;
            *mbits = 23;
            break;
        default:
            *ebits = 11;
            *mbits = 52;
            break;
    }
}

int check_bits_match(loom_dtype_t d, uint64_t expected, uint64_t got, int ulps) {
    if (!check_is_float(d)) return expected == got;
    int eb, mb;
    float_fmt(d, &eb, &mb);
    int total = 1 + eb + mb;
    uint64_t sign = (uint64_t)1 << (total - 1);
    uint64_t mag_mask = sign - 1;
    uint64_t inf = (((uint64_t)1 << eb) - 1) << mb;
    uint64_t em = expected & mag_mask, gm = got & mag_mask;
    int e_nan = em > inf, g_nan = gm > inf;
    if (e_nan || g_nan) return e_nan && g_nan;
    if (em == inf || em == 0) return expected == got; /* infinities, signed zeros: exact */
    if (expected == got) return 1;
    /* Map sign-magnitude onto a line of integers, where neighbours differ by one ULP. */
    int64_t eo = (expected & sign) ? -(int64_t)em : (int64_t)em;
    int64_t go = (got & sign) ? -(int64_t)gm : (int64_t)gm;
    int64_t diff = eo > go ? eo - go : go - eo;
    return diff <= ulps;
}

double check_bits_to_double(loom_dtype_t d, uint64_t bits) {
    switch (d) {
        case LOOM_DTYPE_BOOL:
            return bits ? 1.0 : 0.0;
        case LOOM_DTYPE_I8:
            return (double)(int8_t)bits;
        case LOOM_DTYPE_I16:
            return (double)(int16_t)bits;
        case LOOM_DTYPE_I32:
            return (double)(int32_t)bits;
        case LOOM_DTYPE_I64:
            return (double)(int64_t)bits;
        case LOOM_DTYPE_U8:
        case LOOM_DTYPE_U16:
        case LOOM_DTYPE_U32:
        case LOOM_DTYPE_U64:
            return (double)bits;
        case LOOM_DTYPE_F16:
            return (double)loom_f16_to_f32((uint16_t)bits);
        case LOOM_DTYPE_BF16:
            return (double)loom_bf16_to_f32((uint16_t)bits);
        case LOOM_DTYPE_F32: {
            float f;
            uint32_t u = (uint32_t)bits;
            memcpy(&f, &u, 4);
            return f;
        }
        case LOOM_DTYPE_F64: {
            double f;
            memcpy(&f, &bits, 8);
            return f;
        }
        default:
            return 0.0;
    }
}

uint64_t check_float_bits(loom_dtype_t d, double v) {
    assert_true(check_is_float(d));
    if (d == LOOM_DTYPE_F16) return loom_f64_to_f16(v);
    if (d == LOOM_DTYPE_BF16) return loom_f64_to_bf16(v);
    uint64_t b = 0;
    if (d == LOOM_DTYPE_F32) {
        float f = (float)v;
        uint32_t fb;
        memcpy(&fb, &f, 4);
        b = fb;
    } else {
        memcpy(&b, &v, 8);
    }
    return b;
}

void check_format_bits(loom_dtype_t d, uint64_t bits, char *buf, size_t cap) {
    switch (d) {
        case LOOM_DTYPE_I8:
        case LOOM_DTYPE_I16:
        case LOOM_DTYPE_I32:
        case LOOM_DTYPE_I64: {
            int64_t v = d == LOOM_DTYPE_I8    ? (int8_t)bits
                        : d == LOOM_DTYPE_I16 ? (int16_t)bits
                        : d == LOOM_DTYPE_I32 ? (int32_t)bits
                                              : (int64_t)bits;
            snprintf(buf, cap, "0x%llx (%lld)", (unsigned long long)bits, (long long)v);
            break;
        }
        case LOOM_DTYPE_BOOL:
        case LOOM_DTYPE_U8:
        case LOOM_DTYPE_U16:
        case LOOM_DTYPE_U32:
        case LOOM_DTYPE_U64:
            snprintf(buf, cap, "0x%llx (%llu)", (unsigned long long)bits, (unsigned long long)bits);
            break;
        default:
            snprintf(buf, cap, "0x%llx (%.17g)", (unsigned long long)bits,
                     check_bits_to_double(d, bits));
            break;
    }
}

static int is_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

int check_has_word(const char *msg, const char *word) {
    size_t n = strlen(word);
    if (msg == NULL || n == 0) return 0;
    for (const char *p = strstr(msg, word); p; p = strstr(p + 1, word)) {
        int before = p > msg && is_word_char(p[-1]) && is_word_char(word[0]);
        int after = is_word_char(p[n]) && is_word_char(word[n - 1]);
        if (!before && !after) return 1;
    }
    return 0;
}

int check_has_nospace(const char *msg, const char *text) {
    if (msg == NULL) return 0;
    size_t n = strlen(msg);
    char *s = malloc(n + 1);
    if (s == NULL) return 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (msg[i] != ' ') s[k++] = msg[i];
    s[k] = '\0';
    int found = strstr(s, text) != NULL;
    free(s);
    return found;
}

#define CHECK_UNARY_FN(name) loom_##name,
#define CHECK_NAME(name)     #name,
#define CHECK_BINARY_F(name) loom_##name##_f,
#define CHECK_BINARY_I(name) loom_##name##_i,
const check_unary_fn check_unary_fns[] = {LOOM_UNARY_LIST(CHECK_UNARY_FN)};
const char *const check_unary_names[] = {LOOM_UNARY_LIST(CHECK_NAME)};
const int check_n_unary = (int)(sizeof check_unary_fns / sizeof check_unary_fns[0]);
const check_binary_fn check_binary_fns[] = {LOOM_BINARY_LIST(CHECK_UNARY_FN)};
const check_binary_f_fn check_binary_f_fns[] = {LOOM_BINARY_LIST(CHECK_BINARY_F)};
const check_binary_i_fn check_binary_i_fns[] = {LOOM_BINARY_LIST(CHECK_BINARY_I)};
const char *const check_binary_names[] = {LOOM_BINARY_LIST(CHECK_NAME)};
const int check_n_binary = (int)(sizeof check_binary_fns / sizeof check_binary_fns[0]);

void check_expect_error(loom_ctx_t *ctx, loom_array_t *a, loom_status_t st, const char *phrase) {
    assert_true(loom_array_is_nil(a));
    assert_int_equal(loom_ctx_status(ctx), st);
    if (!strstr(loom_ctx_message(ctx), phrase))
        fail_msg("message \"%s\" lacks \"%s\"", loom_ctx_message(ctx), phrase);
    loom_ctx_clear_error(ctx);
}

void check_expr_values(loom_ctx_t *ctx, const char *expr, const char *dtype, int32_t ndim,
                       const int64_t *shape, int64_t n, const int64_t *iwant, int scale,
                       const double *dwant, double rel) {
    loom_scope_begin(ctx);
    loom_array_t *r = loom_expr(ctx, expr, 0, NULL, NULL);
    if (loom_array_is_nil(r)) fail_msg("%s: %s", expr, loom_ctx_message(ctx));
    if (dtype && strcmp(loom_dtype_name(loom_array_dtype(r)), dtype))
        fail_msg("%s: dtype %s, NumPy %s", expr, loom_dtype_name(loom_array_dtype(r)), dtype);
    if (loom_array_ndim(r) != ndim) fail_msg("%s: %d axes, NumPy %d", expr, loom_array_ndim(r), ndim);
    for (int32_t i = 0; i < ndim; i++)
        if (loom_array_dim(r, i) != shape[i])
            fail_msg("%s: axis %d has %lld, NumPy %lld", expr, i, (long long)loom_array_dim(r, i),
                     (long long)shape[i]);
    if (loom_array_size(r) != n) fail_msg("%s: %lld elements, NumPy %lld", expr,
                                          (long long)loom_array_size(r), (long long)n);
    double *got = malloc((size_t)(n ? n : 1) * sizeof *got);
    if (!got) fail_msg("out of memory");
    if (n && loom_read(ctx, loom_astype(ctx, r, LOOM_DTYPE_F64), got, (size_t)n * sizeof *got) !=
                 LOOM_STATUS_OK)
        fail_msg("%s: %s", expr, loom_ctx_message(ctx));
    for (int64_t i = 0; i < n; i++) {
        double w = iwant ? (double)iwant[i] / scale : dwant[i], g = got[i];
        int ok = isnan(w) ? isnan(g) : isinf(w) || !dwant ? g == w : fabs(g - w) <= rel * (fabs(w) + 1e-6);
        if (!ok) {
            free(got);
            fail_msg("%s [%lld]: got %.17g, NumPy %.17g", expr, (long long)i, g, w);
        }
    }
    free(got);
    loom_scope_end(ctx);
}

void check_expr_error(loom_ctx_t *ctx, const char *expr, const char *phrase) {
    loom_array_t *r = loom_expr(ctx, expr, 0, NULL, NULL);
    if (!loom_array_is_nil(r)) loom_eval(ctx, 1, &r);
    if (!strstr(loom_ctx_message(ctx), phrase))
        fail_msg("%s: message \"%s\" lacks \"%s\"", expr, loom_ctx_message(ctx), phrase);
    loom_ctx_clear_error(ctx);
}

void check_value_cases(loom_ctx_t *ctx, const check_value_case_t *cases, size_t n, double rel) {
    for (size_t c = 0; c < n; c++) {
        const check_value_case_t *k = &cases[c];
        double r = rel;
        if (!strcmp(k->dtype, "float16") && r < 1e-3) r = 1e-3;
        if (!strcmp(k->dtype, "float32") && r < 2e-7) r = 2e-7;
        check_expr_values(ctx, k->expr, k->dtype, k->ndim, k->shape, k->n, NULL, 1, k->want, r);
    }
}
