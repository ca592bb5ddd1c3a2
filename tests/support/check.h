/* check — helpers shared by the unit tests: contexts on the CPU reference device, arrays to
 * and from buffers of zero-extended element bits, per-dtype comparisons (exact, or within a
 * number of ULPs for floats), the op tables from loom.h as function arrays, and message checks.
 * Everything goes through the public API only. */
#ifndef LOOM_TESTS_CHECK_H
#define LOOM_TESTS_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <loom.h>

/* ---- contexts and arrays ---- */

/* A new context on the CPU reference device; fails the current test if creation fails. */
loom_ctx_t *check_cpu_ctx(void);

/* Element bits of one element at p (dtype d), zero-extended; and the inverse. */
uint64_t check_load_bits(loom_dtype_t d, const void *p);
void check_store_bits(loom_dtype_t d, void *p, uint64_t bits);

/* A copy of n elements given as zero-extended bits, in an array of this shape (NULL shape:
 * 1-d of n elements). The result belongs to the ctx's current scope. */
loom_array_t *check_from_bits(loom_ctx_t *ctx, loom_dtype_t d, int32_t ndim,
                              const int64_t *shape, const uint64_t *bits, int64_t n);
/* Evaluates a and reads its n elements into out as bits. Returns loom_read's status; on a size
 * mismatch (loom_array_size(a) != n) returns LOOM_STATUS_INVALID_ARGUMENT without reading. */
loom_status_t check_read_bits(loom_ctx_t *ctx, loom_array_t *a, uint64_t *out, int64_t n);

/* ---- comparing ---- */

int check_is_float(loom_dtype_t d);
/* Whether got matches expected for dtype d. ints and bools: exactly. Floats: NaN matches any
 * NaN; infinities and zeros (sign included) exactly; otherwise within ulps units in the last
 * place (0: bit-exact). */
int check_bits_match(loom_dtype_t d, uint64_t expected, uint64_t got, int ulps);
/* Writes "0x3c00 (1)" style text for an element into buf. */
void check_format_bits(loom_dtype_t d, uint64_t bits, char *buf, size_t cap);
/* The value as a double (ints may round). */
double check_bits_to_double(loom_dtype_t d, uint64_t bits);
/* The bits of v rounded to float dtype d (F16, BF16, F32 or F64): the inverse for floats. */
uint64_t check_float_bits(loom_dtype_t d, double v);

/* ---- NumPy-generated expectations of whole expressions ---- */

/* Evaluates expr (a program with no inputs) on ctx and fails the current test, naming expr,
 * unless its dtype is NumPy's (by name; NULL: not checked), its shape is (ndim, shape) and its
 * n values are NumPy's: iwant[i] / scale (integer tables; floats stored scaled) or dwant[i]
 * (NaN and infinities exactly, others within rel of the value). One of iwant and dwant. */
void check_expr_values(loom_ctx_t *ctx, const char *expr, const char *dtype, int32_t ndim,
                       const int64_t *shape, int64_t n, const int64_t *iwant, int scale,
                       const double *dwant, double rel);

/* One NumPy-generated expectation of a whole expression with float (or small integer) values,
 * and a table of them checked with check_expr_values: float64 results within rel, float32
 * within max(rel, 2e-7), float16 within max(rel, 1e-3). */
typedef struct check_value_case {
    const char *expr;
    int32_t ndim;
    int64_t shape[4];
    int64_t n;
    double want[16];
    const char *dtype;
} check_value_case_t;
void check_value_cases(loom_ctx_t *ctx, const check_value_case_t *cases, size_t n, double rel);

/* Evaluates expr (no inputs) on ctx and fails the current test, naming expr, unless the
 * context's message then contains phrase (the build or the eval failed so); clears it. */
void check_expr_error(loom_ctx_t *ctx, const char *expr, const char *phrase);

/* ---- messages ---- */

/* Whether msg contains word, not preceded or followed by a letter, digit or '_' (so "int8"
 * is not found inside "uint8"). */
int check_has_word(const char *msg, const char *word);
/* Whether msg, with its spaces removed, contains text (so "(3, 4)" matches "(3,4)"). */
int check_has_nospace(const char *msg, const char *text);
/* Fails the current test unless a is nil with status st and a message containing phrase;
 * then clears the error. */
void check_expect_error(loom_ctx_t *ctx, loom_array_t *a, loom_status_t st, const char *phrase);

/* ---- op tables, in LOOM_UNARY_LIST / LOOM_BINARY_LIST order ---- */

typedef loom_array_t *(*check_unary_fn)(loom_ctx_t *, loom_array_t *);
typedef loom_array_t *(*check_binary_fn)(loom_ctx_t *, loom_array_t *, loom_array_t *);
typedef loom_array_t *(*check_binary_f_fn)(loom_ctx_t *, loom_array_t *, double);
typedef loom_array_t *(*check_binary_i_fn)(loom_ctx_t *, loom_array_t *, int64_t);

extern const check_unary_fn check_unary_fns[];
extern const char *const check_unary_names[];
extern const int check_n_unary;
extern const check_binary_fn check_binary_fns[];
extern const check_binary_f_fn check_binary_f_fns[];
extern const check_binary_i_fn check_binary_i_fns[];
extern const char *const check_binary_names[];
extern const int check_n_binary;

#endif
