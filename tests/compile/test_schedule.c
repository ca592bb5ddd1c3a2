/* test_schedule — how the CUDA device cuts graphs into steps, checked on the compile-only
 * NVRTC device (no GPU): the schedule each eval writes to the dump folder lists its steps.
 * Softmax and layernorm are one reduce step, mean/var one, sum((x-y)**2) one; views are
 * index rewrites (no step of their own); matmul is one library step; joins are copies; a
 * factorisation is one step (its small-system kernels compile for 1 x 1 to 16 x 16).
 * Softmax over rows split across blocks (64 x 65536) is one step of one kernel (online
 * max and sum per chunk, then the output pass, as tasks of the same kernel). A reduction
 * gets a buffer only where something after its step reads it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loom.h"

static char root[256];
static int evals;

typedef struct counts {
    int steps, elem, reduce, scan, matmul, concat, linalg;
    int kernels; /* kernel names listed by the steps */
    int written; /* buffers the steps write */
} counts_t;

/* Evaluates expr over x (rows x cols f32 input), y (same), v (cols,) on the nvrtc device and
 * parses the schedule it dumped. */
static counts_t schedule_of_shape(const char *expr, int64_t rows, int64_t cols) {
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_NVRTC;
    o.arch = "sm_90";
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", root);
    o.cache_dir = cache;
    o.dump_dir = root;
    loom_ctx_t *ctx = NULL;
    assert_int_equal(loom_ctx_create(&o, &ctx), LOOM_STATUS_OK);
    int64_t shape[2] = {rows, cols};
    float *data = calloc((size_t)(rows * cols), sizeof *data);
    assert_non_null(data);
    loom_array_t *in[3] = {loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, data),
                           loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, data),
                           loom_from_host(ctx, LOOM_DTYPE_F32, 1, shape + 1, data)};
    const char *names[3] = {"x", "y", "v"};
    loom_array_t *r = loom_expr(ctx, expr, 3, names, in);
    if (loom_eval(ctx, 1, &r) != LOOM_STATUS_OK)
        fprintf(stderr, "%s: %s\n", expr, loom_ctx_message(ctx));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
    free(data);
    char path[400];
    snprintf(path, sizeof path, "%s/schedule_%06d.txt", root, 1);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    counts_t c = {0};
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char kind[32];
        int k;
        if (sscanf(line, " step %d %31[a-z]:", &k, kind) == 2) {
            c.steps++;
            c.elem += !strcmp(kind, "elementwise");
            c.reduce += !strcmp(kind, "reduce");
            c.scan += !strcmp(kind, "scan");
            c.matmul += !strcmp(kind, "matmul");
            c.concat += !strcmp(kind, "concat");
            c.linalg += !strcmp(kind, "linalg");
            for (const char *q = strchr(line, ':'); q && (q = strstr(q, " loom_")); q++)
                c.kernels++;
        }
        if (strstr(line, " writes "))
            for (const char *q = line; (q = strstr(q, " slot ")); q++) c.written++;
    }
    fclose(f);
    unlink(path);
    evals++;
    return c;
}

static counts_t schedule_of(const char *expr) { return schedule_of_shape(expr, 512, 256); }

static void expect(const char *expr, int steps, int reduce) {
    counts_t c = schedule_of(expr);
    if (c.steps != steps || c.reduce != reduce)
        fprintf(stderr, "%s: %d steps (%d reduce, %d elementwise, %d scan, %d matmul, %d concat)\n",
                expr, c.steps, c.reduce, c.elem, c.scan, c.matmul, c.concat);
    assert_int_equal(c.steps, steps);
    assert_int_equal(c.reduce, reduce);
}

static void test_fused_reductions(void **state) {
    (void)state;
    /* row softmax: max, then sum of exp(x - max), then the result: one step */
    expect("m = max(x, axis=-1, keepdims=True); e = exp(x - m); e / sum(e, axis=-1, keepdims=True)",
           1, 1);
    /* row layernorm with scale and shift */
    expect("mu = mean(x, axis=-1, keepdims=True); d = x - mu;"
           "d / sqrt(mean(d * d, axis=-1, keepdims=True) + 1e-5) * v + v",
           1, 1);
    expect("mean(x, axis=1)", 1, 1);
    expect("var(x, axis=1)", 1, 1);
    /* 256 columns of 512: split across blocks, which cannot stage: the mean, then the rest */
    expect("var(x, axis=0)", 2, 2);
    expect("sum((x - y) ** 2)", 1, 1);
    expect("sum(exp(x), axis=0) + max(x, axis=0)", 1, 1); /* same operand shape and axes */
    expect("sum(x, axis=0) + sum(x, axis=1)[:256]", 3, 2);  /* different axes: two steps */
}

/* Buffers the steps write: a reduction read only by its own step's results (softmax's max
 * and sum, layernorm's mean and variance) gets none; one a later step reads keeps its own. */
static void expect_written(const char *expr, int steps, int written) {
    counts_t c = schedule_of(expr);
    if (c.steps != steps || c.written != written)
        fprintf(stderr, "%s: %d steps, %d buffers written\n", expr, c.steps, c.written);
    assert_int_equal(c.steps, steps);
    assert_int_equal(c.written, written);
}

static void test_reduction_buffers(void **state) {
    (void)state;
    expect_written("m = max(x, axis=-1, keepdims=True); e = exp(x - m);"
                   "e / sum(e, axis=-1, keepdims=True)", 1, 1);
    expect_written("mu = mean(x, axis=-1, keepdims=True); d = x - mu;"
                   "d / sqrt(mean(d * d, axis=-1, keepdims=True) + 1e-5)", 1, 1);
    expect_written("(x - mean(x, axis=1, keepdims=True)) / std(x, axis=1, keepdims=True)", 1, 1);
    expect_written("mean(x, axis=1)", 1, 1); /* the result itself */
    /* the mean is read by the second step (columns split across blocks): its buffer stays */
    expect_written("var(x, axis=0)", 2, 2);
    expect_written("m = mean(x, axis=1, keepdims=True); sum((x - m) ** 2, axis=0)", 2, 2);
    /* read by a matrix product's operand (materialised) and by a scan */
    expect_written("s = sum(x, axis=1, keepdims=True); (x / s) @ y.T", 3, 3);
    expect_written("s = sum(x, axis=1, keepdims=True); cumsum(x - s, axis=1)", 2, 2);
    /* the scan reads the sum, not the max under it: the max gets no buffer */
    expect_written("m = max(x, axis=-1, keepdims=True); s = sum(exp(x - m), axis=-1, keepdims=True);"
                   "cumsum(s, axis=0)", 2, 2);
}

/* Rows of 65536: split across blocks. A softmax's max and sum of exp(x - max) run online in
 * one step: one kernel of chunk tasks (partial (max, sum) per chunk) and output tasks
 * (combine + output pass), not the max step, the sum step and an output kernel (5 kernels);
 * without an X-shaped result, the chunks' kernel and a combining kernel (2). */
static void expect_split(const char *expr, int steps, int kernels) {
    counts_t c = schedule_of_shape(expr, 64, 65536);
    if (c.steps != steps || c.kernels != kernels)
        fprintf(stderr, "%s (64 x 65536): %d steps (%d reduce, %d elementwise), %d kernels\n",
                expr, c.steps, c.reduce, c.elem, c.kernels);
    assert_int_equal(c.steps, steps);
    assert_int_equal(c.kernels, kernels);
}

static void test_split_softmax(void **state) {
    (void)state;
    expect_split("m = max(x, axis=-1, keepdims=True); e = exp(x - m);"
                 "e / sum(e, axis=-1, keepdims=True)",
                 1, 1);
    /* log-softmax, and the sum alone (no X-shaped result) */
    expect_split("m = max(x, axis=1, keepdims=True);"
                 "x - m - log(sum(exp(x - m), axis=1, keepdims=True))",
                 1, 1);
    expect_split("m = max(x, axis=1, keepdims=True); sum(exp(x - m), axis=1)", 1, 2);
    /* a prologue: softmax of x * 2 + y */
    expect_split("z = x * 2 + y; m = max(z, axis=1, keepdims=True); e = exp(z - m);"
                 "e / sum(e, axis=1, keepdims=True)",
                 1, 1);
    /* not the pattern: the sum of exp(x - max) over another operand's max stays staged in
     * separate steps (max; sum; output) */
    expect_split("m = max(y, axis=1, keepdims=True); e = exp(x - m);"
                 "e / sum(e, axis=1, keepdims=True)",
                 3, 5);
    /* split variance is not online: the mean, then the sum of squares */
    expect_split("var(x, axis=1)", 2, 4);
}

static void test_views_are_index_rewrites(void **state) {
    (void)state;
    expect("x.T + 1", 1, 0);
    expect("x[::2, 1:100:3] * y[1::2, :33]", 1, 0);
    expect("reshape(x, (256, 512)) + reshape(y, (256, 512))", 1, 0);
    expect("reshape(x.T, (512 * 256,))", 1, 0); /* the copy is the result itself */
    expect("reshape((x + y).T, (512 * 256,)) * 2", 2, 0); /* strides cannot express it: a temp */
    expect("flip(x, axis=0) - x", 1, 0);
    expect("sum(x.T, axis=1)", 1, 1);
    expect("sum(x[:, ::2] * 2, axis=-1)", 1, 1);
}

static void test_other_steps(void **state) {
    (void)state;
    counts_t c = schedule_of("matmul(x, y.T)");
    assert_int_equal(c.matmul, 1);
    assert_int_equal(c.steps, 1);
    c = schedule_of("matmul(x * 2, y.T) + 1");
    assert_int_equal(c.matmul, 1);
    c = schedule_of("concatenate((x, y), axis=1)");
    assert_int_equal(c.concat, 1);
    assert_int_equal(c.steps, 1);
    c = schedule_of("concatenate((x * 2, y), axis=0) + 1");
    assert_int_equal(c.concat, 1);
    c = schedule_of("cumsum(x * 2, axis=1)");
    assert_int_equal(c.scan, 1);
    assert_int_equal(c.steps, 1);
}

/* A gather is a load inside the kernel that reads it (its index arithmetic too), in an
 * elementwise kernel or a reduction's prologue and epilogue; generators are index arithmetic
 * inside reductions; a sort is one step of fixed kernels. */
static void test_gathers_and_generators(void **state) {
    (void)state;
    expect("take(x, astype(v, 'int64'), axis=1) * 2 + y[:, :256]", 1, 0);
    expect("x[astype(v[:100], 'int64')] + 1", 1, 0);
    expect("sum(take(x, astype(v, 'int64'), axis=1), axis=1)", 1, 1);
    expect("m = max(x, axis=1, keepdims=True);"
           "m + log(sum(exp(x - m), axis=1, keepdims=True))"
           " - take_along_axis(x, reshape(astype(x[:, 0], 'int64'), (512, 1)), axis=1)",
           1, 1);
    expect("sum(x * arange(256), axis=1)", 1, 1);
    expect("sum(x + eye(512, 256), axis=0)", 1, 1);
    expect("sort(x, axis=1)", 1, 0);
    expect("sort(x * 2, axis=0)", 2, 0); /* the operand is computed first */
    /* direct convolution: float32 and float64 one correlate step over the operands' buffers
     * (the reversed taps read in place); other dtypes the padded window as a gather of
     * generator indices, one reduction */
    expect("convolve(v, v[:31])", 1, 0);
    expect("convolve(v, v[:31] * 2)", 2, 0);
    expect("convolve(astype(v, 'int32'), astype(v[:31], 'int32'))", 2, 1); /* a gather's data: a buffer */
    expect("linalg.norm(x - y, axis=1)", 1, 1);
}

/* A factorisation is one library step over a buffer its producer wrote; what follows fuses
 * as usual (det: the LU step, one reduction for the sign and the log sum, one for whether the
 * matrix holds a NaN, and the combination of the two). Stacks of small systems and small
 * Cholesky factorisations are loom's own kernels: compiled here for small, odd and the
 * largest sizes. */
static void test_factorisations(void **state) {
    (void)state;
    counts_t c = schedule_of("linalg.det(x[:256])");
    assert_int_equal(c.steps, 4);
    assert_int_equal(c.linalg, 1);
    assert_int_equal(c.reduce, 3);
    c = schedule_of("linalg.solve(x[:256] * 2 + 1, v)"); /* the producer, then the solve */
    assert_int_equal(c.steps, 2);
    assert_int_equal(c.elem, 1);
    assert_int_equal(c.linalg, 1);
    c = schedule_of("linalg.cholesky(x[:256], upper=True) + 1");
    assert_int_equal(c.linalg, 1);
    assert_int_equal(c.elem, 1); /* the triangle and the + 1, after the step */
    /* the lower form reads A's lower triangle: the step transposes A as it copies it (no
     * transposing step before it; every element width's copy compiled) */
    static const char *const lower[] = {"linalg.cholesky(x[:256])",
                                        "linalg.cholesky(x[:256].astype('float64'))",
                                        "linalg.cholesky(x[:256].astype('complex128'))"};
    for (size_t k = 0; k < sizeof lower / sizeof *lower; k++) {
        c = schedule_of(lower[k]);
        assert_int_equal(c.linalg, 1);
        assert_int_equal(c.elem, k ? 2 : 1); /* (the cast), the triangle */
    }
    static const char *const stacks[] = {
        "linalg.solve(reshape(x[:2, :2], (2, 1, 2))[..., :1], v[:2].reshape(2, 1, 1))",
        "linalg.inv(reshape(x[:50], (512, 5, 5)))",
        "linalg.inv(reshape(x, (512, 16, 16)).astype('float64'))",
        "linalg.solve(reshape(x, (512, 16, 16)), reshape(y[:32], (512, 16, 1)))",
        "linalg.slogdet(reshape(x, (2048, 8, 8)).astype('float64'))[1]",
        "linalg.cholesky(reshape(x[:2, :2], (4, 1, 1)))",
        "linalg.cholesky(reshape(x[:50], (512, 5, 5)), upper=True)",
        "linalg.cholesky(reshape(x, (512, 16, 16)).astype('float64'))",
    };
    for (size_t k = 0; k < sizeof stacks / sizeof *stacks; k++) {
        c = schedule_of(stacks[k]);
        assert_int_equal(c.linalg, 1);
    }
}

int main(void) {
    snprintf(root, sizeof root, "/tmp/loom_test_schedule_%d", (int)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", root, root);
    if (system(cmd) != 0) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fused_reductions),
        cmocka_unit_test(test_reduction_buffers),
        cmocka_unit_test(test_split_softmax),
        cmocka_unit_test(test_views_are_index_rewrites),
        cmocka_unit_test(test_other_steps),
        cmocka_unit_test(test_gathers_and_generators),
        cmocka_unit_test(test_factorisations),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) return 1;
    return rc;
}
