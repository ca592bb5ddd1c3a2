/* gpu_ref — the GPU tests' harness: the same expression built on the CUDA device and on the
 * CPU reference device, evaluated on each and compared element by element (ints and bools
 * exactly, floats within a tolerance), with the first mismatches printed. Under
 * LOOM_TEST_SELF_CHECK=1 the "GPU" side is a second CPU context, which checks the harness and
 * the tests themselves without a device. Public API only; assertions are cmocka's. */
#ifndef LOOM_TESTS_GPU_REF_H
#define LOOM_TESTS_GPU_REF_H

#include <stdbool.h>
#include <stdint.h>

#include <loom.h>

/* The two contexts a GPU test compares. */
typedef struct gpu_ref {
    loom_ctx_t *gpu; /* the device under test: CUDA, or CPU under LOOM_TEST_SELF_CHECK */
    loom_ctx_t *cpu; /* the CPU reference device */
    bool self_check; /* LOOM_TEST_SELF_CHECK is set: counters of the CUDA device are absent */
} gpu_ref_t;

/* Opens both contexts. Returns 0; 77 (skipped, with a line on stderr) when the CUDA context
 * cannot be created (no driver or no device); 1 when the CPU context cannot. main() returns
 * a non-zero result as its exit status. */
int gpu_ref_open(gpu_ref_t *r);
/* Destroys both contexts. */
void gpu_ref_close(gpu_ref_t *r);

/* How float elements must agree; ints and bools always agree exactly. */
typedef enum gpu_ref_rule {
    GPU_REF_ULPS,      /* within tol.ulps units in the last place (0: bit for bit) */
    GPU_REF_MATH_ULPS, /* within the math-function tolerance of the dtype: CUDA's and glibc's
                        * functions differ by a few ulps (float32, float64: 4), and 16-bit
                        * results computed in float32 may round to a neighbour (1) */
    GPU_REF_SCALED,    /* |cpu - gpu| <= rtol(d) * max(|cpu|, tol.scale), for sums whose order
                        * differs: rtol 2e-2 for float16 and bfloat16, 1e-4 for float32, 1e-10
                        * for float64 */
} gpu_ref_rule_t;

/* NaN matches any NaN under every rule. check_bits_match says what the ulp rules do with
 * infinities and signed zeros. */
typedef struct gpu_ref_tol {
    gpu_ref_rule_t rule;
    int ulps;            /* GPU_REF_ULPS */
    double scale;        /* GPU_REF_SCALED */
    bool order_specials; /* GPU_REF_SCALED: zeros, infinities and NaNs all match each other. A
                          * product that overflows or underflows part-way depends on the order
                          * of the multiplications (NumPy multiplies in order, the GPU in a
                          * tree): 0 * inf in one order is inf * 0 = NaN in another. */
} gpu_ref_tol_t;

gpu_ref_tol_t gpu_ref_ulps(int ulps);
gpu_ref_tol_t gpu_ref_math_ulps(void);
gpu_ref_tol_t gpu_ref_scaled(double scale);

/* Compares g (built on r->gpu) with c (built on r->cpu), evaluating them if need be: both nil
 * with the same status (the errors are then cleared), or the same dtype, ndim and size and
 * every element within tol. Prints the first three mismatching elements, naming `what`, and
 * fails the current test on any. */
void gpu_ref_compare(const gpu_ref_t *r, loom_array_t *g, loom_array_t *c, gpu_ref_tol_t tol,
                     const char *what);

/* Pairs of results built on both devices, evaluated in one loom_eval per side (so each side
 * compiles one multi-output kernel per shape, not one per op), then compared pair by pair.
 * Large: keep it static. */
#define GPU_REF_BATCH_MAX 512
typedef struct gpu_ref_batch {
    int n;
    loom_array_t *g[GPU_REF_BATCH_MAX], *c[GPU_REF_BATCH_MAX];
    gpu_ref_tol_t tol[GPU_REF_BATCH_MAX];
    char what[GPU_REF_BATCH_MAX][96];
} gpu_ref_batch_t;

/* Adds a pair, named by a printf format. A pair refused on both sides (nil arrays, such as an
 * op without a loop for the dtype) must carry the same status on both; the errors are cleared
 * and the pair is left out. Fails the current test when the batch is full. */
#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
void gpu_ref_batch_add(const gpu_ref_t *r, gpu_ref_batch_t *b, loom_array_t *g, loom_array_t *c,
                       gpu_ref_tol_t tol, const char *fmt, ...);
/* Evaluates the batch on each side (failing the test, with the context's message, if an eval
 * fails), compares every pair with gpu_ref_compare, and empties the batch. */
void gpu_ref_batch_check(const gpu_ref_t *r, gpu_ref_batch_t *b);

#endif
