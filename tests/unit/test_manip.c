/* test_manip — NumPy's manipulation functions (swapaxes, atleast_nd, tril/triu, diagonal, trace,
 * diag, roll, repeat, tile, diff, rot90, *_like, outer, inner, vecdot, kron, meshgrid, split,
 * array_split, pad, tri, indices, broadcast_arrays, ediff1d) on the CPU reference device, against values, shapes
 * and dtypes NumPy 2 gave for the same expressions; and their errors. The 0-d cases of
 * argsort, repeat and lexsort were found by the conformance suite. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "loom.h"
#include "../support/check.h"

typedef struct {
    const char *expr;
    int32_t ndim;
    int64_t shape[4];
    int64_t n;
    int64_t want[72]; /* float results: twice the value */
    int scale;
    const char *dtype;
} manip_case_t;

static const manip_case_t cases[] = {
    /* index grids, broadcast_arrays, ediff1d */
    {"tri(3, 5, 2)",
     2, {3, 5}, 15, {2, 2, 2, 0, 0, 2, 2, 2, 2, 0, 2, 2, 2, 2, 2}, 2, "float64"},
    {"tri(4, 2, -1, dtype='int8')",
     2, {4, 2}, 8, {0, 0, 1, 0, 1, 1, 1, 1}, 1, "int8"},
    {"indices((2, 3))",
     3, {2, 2, 3}, 12, {0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2}, 1, "int64"},
    {"broadcast_arrays(array([1, 2, 3]), array([[10], [20]]))[0]",
     2, {2, 3}, 6, {1, 2, 3, 1, 2, 3}, 1, "int64"},
    {"ediff1d(array([1, 4, 9, 16]), to_end=[100, 200], to_begin=-1)",
     1, {6}, 6, {-1, 3, 5, 7, 100, 200}, 1, "int64"},
    /* pad, every mode */
    {"pad(array([1, 2, 3]), (1, 7), mode='reflect')",
     1, {11}, 11, {2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2}, 1, "int64"},
    {"pad(array([1, 2, 3]), 2, mode='symmetric')",
     1, {7}, 7, {2, 1, 1, 2, 3, 3, 2}, 1, "int64"},
    {"pad(array([1, 2, 3]), (4, 1), mode='wrap')",
     1, {8}, 8, {3, 1, 2, 3, 1, 2, 3, 1}, 1, "int64"},
    {"pad(arange(6.0).reshape(2, 3), ((1, 0), (0, 2)), mode='edge')",
     2, {3, 5}, 15, {0, 2, 4, 4, 4, 0, 2, 4, 4, 4, 6, 8, 10, 10, 10}, 2, "float64"},
    {"pad(arange(6.0).reshape(2, 3), 1, constant_values=-1.5)",
     2, {4, 5}, 20, {-3, -3, -3, -3, -3, -3, 0, 2, 4, -3, -3, 6, 8, 10, -3, -3, -3, -3, -3, -3}, 2, "float64"},
    {"pad(array([7]), 2, mode='reflect')",
     1, {5}, 5, {7, 7, 7, 7, 7}, 1, "int64"},
    /* *_like, products, meshgrid and splits */
    /* vecdot keeps the operands' dtype (found by the conformance suite) */
    {"vecdot(array([100, 100]).astype('int8'), array([2, 2]).astype('int8'))", 0, {0}, 1, {-112},
     1, "int8"},
    {"full_like(arange(6).reshape(2, 3), 7.9)",
     2, {2, 3}, 6, {7, 7, 7, 7, 7, 7}, 1, "int64"},
    {"ones_like(arange(6).reshape(2, 3), dtype='float32')",
     2, {2, 3}, 6, {2, 2, 2, 2, 2, 2}, 2, "float32"},
    {"outer(array([1, 2, 3]), array([2.0, -1.0]))",
     2, {3, 2}, 6, {4, -2, 8, -4, 12, -6}, 2, "float64"},
    {"inner(arange(6).reshape(2, 3), arange(6).reshape(2, 3))",
     2, {2, 2}, 4, {5, 14, 14, 50}, 1, "int64"},
    {"vecdot(arange(6).reshape(2, 3), array([1, 2, 3]))",
     1, {2}, 2, {8, 26}, 1, "int64"},
    {"kron(array([1, 2, 3]), array([2.0, -1.0]))",
     1, {6}, 6, {4, -2, 8, -4, 12, -6}, 2, "float64"},
    {"kron(arange(6).reshape(2, 3), array([[1, 0], [0, 1]]))",
     2, {4, 6}, 24, {0, 0, 1, 0, 2, 0, 0, 0, 0, 1, 0, 2, 3, 0, 4, 0, 5, 0, 0, 3, 0, 4, 0, 5}, 1, "int64"},
    {"meshgrid(array([1, 2, 3]), array([2.0, -1.0]))[0]",
     2, {2, 3}, 6, {1, 2, 3, 1, 2, 3}, 1, "int64"},
    {"meshgrid(array([1, 2, 3]), array([2.0, -1.0]), indexing='ij')[1]",
     2, {3, 2}, 6, {4, -2, 4, -2, 4, -2}, 2, "float64"},
    {"array_split(arange(7), 3)[0]",
     1, {3}, 3, {0, 1, 2}, 1, "int64"},
    {"split(arange(6).reshape(2, 3), 3, axis=1)[2]",
     2, {2, 1}, 2, {2, 5}, 1, "int64"},
    /* 0-d arrays as NumPy takes them: argsort and repeat as (1,), lexsort's keys as 0-d */
    {"argsort(array(5))", 1, {1}, 1, {0}, 1, "int64"},
    {"repeat(array(5), 2, axis=0)", 1, {2}, 2, {5, 5}, 1, "int64"},
    {"lexsort((array(5), array(2.0)), axis=-1)", 0, {0}, 1, {0}, 1, "int64"},
    {"swapaxes(arange(24.0).reshape(2,3,4), 0, 2)",
     3, {4, 3, 2}, 24, {0, 24, 8, 32, 16, 40, 2, 26, 10, 34, 18, 42, 4, 28, 12, 36, 20, 44, 6, 30, 14, 38, 22, 46}, 2, "float64"},
    {"atleast_3d(array([3, 1, 4]))",
     3, {1, 3, 1}, 3, {3, 1, 4}, 1, "int64"},
    {"atleast_2d(array(5))",
     2, {1, 1}, 1, {5}, 1, "int64"},
    {"tril(arange(12).reshape(3,4), 1)",
     2, {3, 4}, 12, {0, 1, 0, 0, 4, 5, 6, 0, 8, 9, 10, 11}, 1, "int64"},
    {"triu(arange(24.0).reshape(2,3,4), -1)",
     3, {2, 3, 4}, 24, {0, 2, 4, 6, 8, 10, 12, 14, 0, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 0, 42, 44, 46}, 2, "float64"},
    {"tril(arange(3), 1)",
     2, {3, 3}, 9, {0, 1, 0, 0, 1, 2, 0, 1, 2}, 1, "int64"},
    {"diagonal(arange(12).reshape(3,4), 1)",
     1, {3}, 3, {1, 6, 11}, 1, "int64"},
    {"diagonal(arange(24.0).reshape(2,3,4), 1, 2, 1)",
     2, {2, 2}, 4, {8, 18, 32, 42}, 2, "float64"},
    {"diagonal(arange(12).reshape(3,4), 7)",
     1, {0}, 0, {0}, 1, "int64"},
    {"trace(arange(24.0).reshape(2,3,4), -1, 1, 2)",
     1, {2}, 2, {26, 74}, 2, "float64"},
    {"diag(array([3, 1, 4]), -1)",
     2, {4, 4}, 16, {0, 0, 0, 0, 3, 0, 0, 0, 0, 1, 0, 0, 0, 0, 4, 0}, 1, "int64"},
    {"diag(arange(12).reshape(3,4), 1)",
     1, {3}, 3, {1, 6, 11}, 1, "int64"},
    {"roll(arange(12).reshape(3,4), -5)",
     2, {3, 4}, 12, {5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4}, 1, "int64"},
    {"roll(arange(24.0).reshape(2,3,4), 7, axis=-2)",
     3, {2, 3, 4}, 24, {16, 18, 20, 22, 0, 2, 4, 6, 8, 10, 12, 14, 40, 42, 44, 46, 24, 26, 28, 30, 32, 34, 36, 38}, 2, "float64"},
    {"repeat(arange(12).reshape(3,4), [1, 0, 2], axis=0)",
     2, {3, 4}, 12, {0, 1, 2, 3, 8, 9, 10, 11, 8, 9, 10, 11}, 1, "int64"},
    {"repeat(array([3, 1, 4]), array([3, 1, 4]))",
     1, {8}, 8, {3, 3, 3, 1, 4, 4, 4, 4}, 1, "int64"},
    {"arange(12).reshape(3,4).repeat(2, axis=1)",
     2, {3, 8}, 24, {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11}, 1, "int64"},
    {"tile(array([3, 1, 4]), (2, 2))",
     2, {2, 6}, 12, {3, 1, 4, 3, 1, 4, 3, 1, 4, 3, 1, 4}, 1, "int64"},
    {"tile(arange(12).reshape(3,4), (2, 1, 3))",
     3, {2, 3, 12}, 72, {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11}, 1, "int64"},
    {"diff(arange(12).reshape(3,4), 2)",
     2, {3, 2}, 6, {0, 0, 0, 0, 0, 0}, 1, "int64"},
    {"diff(array([True, False, False, True]))",
     1, {3}, 3, {1, 0, 1}, 1, "bool"},
    {"rot90(arange(12).reshape(3,4), -1)",
     2, {4, 3}, 12, {8, 4, 0, 9, 5, 1, 10, 6, 2, 11, 7, 3}, 1, "int64"},
    /* found by the conformance suite: concatenate keeps Python numbers weak (NEP 50, as
     * np.where does: an int out of range wraps); stack converts them first */
    {"concatenate((ones(1, dtype='float16'), 2.5), axis=None)", 1, {2}, 2, {2, 5}, 2, "float16"},
    {"concatenate((ones(1, dtype='int8'), 300), axis=None)", 1, {2}, 2, {1, 44}, 1, "int8"},
    {"concatenate((ones(1, dtype='int8'), 2.5), axis=None)", 1, {2}, 2, {2, 5}, 2, "float64"},
    {"stack((ones((), dtype='float16'), 2.5))", 1, {2}, 2, {2, 5}, 2, "float64"},
    /* lists where NumPy takes array_like (np.asarray's dtype) */
    {"diag([1, 2])", 2, {2, 2}, 4, {1, 0, 0, 2}, 1, "int64"},
    {"concatenate(([1, 2], [3.5]))", 1, {3}, 3, {2, 4, 7}, 2, "float64"},
    {"rot90(arange(24.0).reshape(2,3,4), 1, (0, 2))",
     3, {4, 3, 2}, 24, {6, 30, 14, 38, 22, 46, 4, 28, 12, 36, 20, 44, 2, 26, 10, 34, 18, 42, 0, 24, 8, 32, 16, 40}, 2, "float64"},
};

static void test_manip_numpy_cases(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const manip_case_t *k = &cases[c];
        check_expr_values(ctx, k->expr, k->dtype, k->ndim, k->shape, k->n, k->want, k->scale,
                          NULL, 0);
    }
    loom_ctx_destroy(ctx);
}

/* NumPy's refusals, each with loom's message. */
static void test_manip_errors(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    static const char *const bad[][2] = {
        {"repeat(array([3, 1]), -1)", "repeats may not contain negative values"},
        {"repeat(arange(3), [1, 2])", "could not be broadcast together"},
        {"diagonal(arange(3))", "at least two dimensions"},
        {"swapaxes(arange(6).reshape(2, 3), 0, 2)", "axis 2 is out of bounds"},
        {"swapaxes(arange(6).reshape(2, 3), 0, 4294967296)", "out of bounds"},
        {"rot90(arange(6).reshape(2, 3), 1, (0, 0))", "axes must be different"},
        {"diff(array(5))", "at least one dimensional"},
        {"tril(array(5))", "at least 1-d"},
        {"tile(arange(3), -1)", "negative repetition"},
        {"roll(arange(3), (1, 2))", "tuple of shifts"},
        {"pad(zeros((0, 3)), 1, mode='edge')", "can't extend empty axis 0"},
        {"pad(arange(3), 1, mode='mean')", "statistic modes"},
        /* found by the conformance suite: ediff1d subtracts and casts its ends same_kind */
        {"ediff1d(array([True, False]))", "the boolean `-` operator"},
        {"ediff1d(arange(3).astype('uint8'), to_begin=0)", "under the `same_kind` rule"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        check_expr_error(ctx, bad[k][0], bad[k][1]);
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_manip_numpy_cases),
        cmocka_unit_test(test_manip_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
