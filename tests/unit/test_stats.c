/* test_stats — NumPy's NaN-ignoring reductions (nansum, nanprod, nanmean, nanmax, nanmin,
 * nanvar, nanstd), ptp, median, quantile/percentile, isclose, nan_to_num, cumulative_sum/prod,
 * nancumsum/prod, average, cov, corrcoef and the data-type functions (can_cast, isdtype, finfo, iinfo,
 * result_type) on the CPU reference device, against NumPy 2's values, shapes and
 * dtypes for the same expressions (all-NaN slices give NaN; integers take the plain
 * reductions). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "loom.h"
#include "../support/check.h"


static const check_value_case_t cases[] = {
    /* found by the conformance suite: inf - inf is not a NaN to ignore; a 0-d array scans as
     * (1,) */
    {"nanstd(array([[1.0, inf], [2.0, 3.0]]), axis=0)", 1, {2}, 2, {0.5, NAN}, "float64"},
    {"cumulative_sum(array(5), include_initial=True)", 1, {2}, 2, {0.0, 5.0}, "int64"},
    /* isclose, nan_to_num, cumulative and NaN scans, weighted averages */
    {"isclose(array([[1.5, nan, -2.0, inf], [3.0, 1.0, -inf, 2.0]]), array([[1.5, nan, -2.00001, inf], [3.1, 1.0, inf, 2.0]]))",
     2, {2, 4}, 8, {1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0}, "bool"},
    {"isclose(array([[1.5, nan, -2.0, inf], [3.0, 1.0, -inf, 2.0]]), array([[1.5, nan, -2.0, inf], [3.0, 1.0, -inf, 2.0]]), equal_nan=True)",
     2, {2, 4}, 8, {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}, "bool"},
    {"isclose(array([[3, -1, 4], [1, 5, -9]]), 3)",
     2, {2, 3}, 6, {1.0, 0.0, 0.0, 0.0, 0.0, 0.0}, "bool"},
    {"nan_to_num(array([[1.5, nan, -2.0, inf], [3.0, 1.0, -inf, 2.0]]))",
     2, {2, 4}, 8, {1.5, 0.0, -2.0, 1.7976931348623157e+308, 3.0, 1.0, -1.7976931348623157e+308, 2.0}, "float64"},
    {"nan_to_num(array([[1.5, nan, -2.0, inf], [3.0, 1.0, -inf, 2.0]]), nan=7.0, posinf=1.0, neginf=-1.0)",
     2, {2, 4}, 8, {1.5, 7.0, -2.0, 1.0, 3.0, 1.0, -1.0, 2.0}, "float64"},
    {"cumulative_sum(array([[3, -1, 4], [1, 5, -9]]), axis=1, include_initial=True)",
     2, {2, 4}, 8, {0.0, 3.0, 2.0, 6.0, 0.0, 1.0, 6.0, -3.0}, "int64"},
    {"cumulative_prod(array([[3, -1, 4], [1, 5, -9]]), axis=0)",
     2, {2, 3}, 6, {3.0, -1.0, 4.0, 3.0, -5.0, -36.0}, "int64"},
    {"nancumsum(array([[1.5, nan, -2.0, inf], [3.0, 1.0, -inf, 2.0]]))",
     1, {8}, 8, {1.5, 1.5, -0.5, INFINITY, INFINITY, INFINITY, NAN, NAN}, "float64"},
    {"nancumprod(array([[1.5, nan, -2.0, inf], [3.0, 1.0, -inf, 2.0]]), axis=1)",
     2, {2, 4}, 8, {1.5, 1.5, -3.0, -INFINITY, 3.0, 3.0, -INFINITY, -INFINITY}, "float64"},
    {"average(array([[3, -1, 4], [1, 5, -9]]), axis=1, weights=array([1.0, 2.0, 3.0]))",
     1, {2}, 2, {2.1666666666666665, -2.6666666666666665}, "float64"},
    {"average(array([[3, -1, 4], [1, 5, -9]]), weights=array([[3, -1, 4], [1, 5, -9]]) * 0 + 2)",
     0, {0}, 1, {0.5}, "float64"},
    {"average(array([[3, -1, 4], [1, 5, -9]]), axis=0, keepdims=True)",
     2, {1, 3}, 3, {2.0, 2.0, -2.5}, "float64"},
    /* covariance and correlation; a (1, n) m with rowvar=False is n variables (NumPy 2
     * transposes every m that is not 1-D; found by the conformance suite) */
    {"cov(array([[1.0, 2.0, 4.0]]), rowvar=False)",
     2, {3, 3}, 9, {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN}, "float64"},
    {"cov(array([[1.0, 2.0, 4.0, 7.0], [2.0, 1.0, 0.5, -1.0]]))",
     2, {2, 2}, 4, {7.0, -3.25, -3.25, 1.5625}, "float64"},
    {"cov(array([[1.0, 2.0, 4.0, 7.0], [2.0, 1.0, 0.5, -1.0]]), bias=True)",
     2, {2, 2}, 4, {5.25, -2.4375, -2.4375, 1.171875}, "float64"},
    {"cov(array([[1.0, 2.0, 4.0, 7.0], [2.0, 1.0, 0.5, -1.0]]), rowvar=False, ddof=0)",
     2, {4, 4}, 16, {0.25, -0.25, -0.875, -2.0, -0.25, 0.25, 0.875, 2.0, -0.875, 0.875, 3.0625, 7.0, -2.0, 2.0, 7.0, 16.0}, "float64"},
    {"corrcoef(array([[1.0, 2.0, 4.0, 7.0], [2.0, 1.0, 0.5, -1.0]]))",
     2, {2, 2}, 4, {0.9999999999999998, -0.9827076298239907, -0.9827076298239907, 1.0}, "float64"},
    {"cov(array([1, 2, 4]), array([3, 3, 5]))",
     2, {2, 2}, 4, {2.3333333333333335, 1.6666666666666667, 1.6666666666666667, 1.3333333333333333}, "float64"},
    /* data-type functions (as NumPy 2 answers them) */
    {"can_cast('int64', 'int8', casting='same_kind')", 0, {0}, 1, {1}, "bool"},
    {"can_cast('float64', 'int64', casting='same_kind')", 0, {0}, 1, {0}, "bool"},
    {"can_cast(arange(3).astype('int8'), 'int16')", 0, {0}, 1, {1}, "bool"},
    {"isdtype('uint8', ('signed integer', 'bool'))", 0, {0}, 1, {0}, "bool"},
    {"finfo('float32').eps", 0, {0}, 1, {1.1920928955078125e-07}, "float32"},
    {"finfo('float16').smallest_normal", 0, {0}, 1, {6.103515625e-05}, "float16"},
    {"iinfo('int16').min", 0, {0}, 1, {-32768}, "int64"},
    {"iinfo(arange(2).astype('uint8').dtype).max", 0, {0}, 1, {255}, "int64"},
    {"zeros((), dtype=result_type(arange(3).astype('int8'), 1.0))", 0, {0}, 1, {0}, "float64"},
    {"zeros((), dtype=result_type(arange(3).astype('int8'), 100))", 0, {0}, 1, {0}, "int8"},
    /* median and quantiles (one q), every method's rules and dtypes */
    /* lines of 256 elements or more: order statistics by radix select, not a sort */
    {"median((arange(1200) * 37 % 601).reshape(3, 400) - 300.5, axis=1)",
     1, {3}, 3, {-6.5, 3.0, 2.0}, "float64"},
    {"median((arange(1000) * 7919 % 1009).astype('int16').reshape(2, 500), axis=1)",
     1, {2}, 2, {503.5, 507.5}, "float64"},
    {"quantile(where(arange(600.0) == 17, nan, arange(600.0) * 7 % 101).reshape(2, 300), 0.3, axis=1)",
     1, {2}, 2, {NAN, 29.700000000000003}, "float64"},
    {"quantile(((arange(900) * 7919 % 1013) / 7.0).astype('float32').reshape(3, 300), 0.71, axis=1, method='higher')",
     1, {3}, 3, {103.14286041259766, 103.28571319580078, 102.42857360839844}, "float32"},
    {"median((arange(777) % 50 - 25.0).astype('float16'))", 0, {0}, 1, {-1.0}, "float16"},
    {"median(where(arange(602.0) == 7, nan, arange(602.0)).reshape(2, 301), axis=1)",
     1, {2}, 2, {NAN, 451.0}, "float64"},
    {"median(array([[1.5, -2.0, 4.0, 0.5], [3.0, nan, 1.0, 2.0], [0.25, 3.0, -1.0, 7.0]]), axis=1)",
     1, {3}, 3, {1.0, NAN, 1.625}, "float64"},
    {"median(array([[3, -1, 4, 8, 2], [1, 5, -9, 2, 6]]))",
     0, {0}, 1, {2.5}, "float64"},
    {"median(array([[3, -1, 4, 8, 2], [1, 5, -9, 2, 6]]), axis=0, keepdims=True)",
     2, {1, 5}, 5, {2.0, 2.0, -2.5, 5.0, 4.0}, "float64"},
    {"quantile(array([[1.5, -2.0, 4.0, 0.5], [3.0, nan, 1.0, 2.0], [0.25, 3.0, -1.0, 7.0]]), 0.3, axis=1)",
     1, {3}, 3, {0.24999999999999978, NAN, 0.12499999999999989}, "float64"},
    {"quantile(array([[3, -1, 4, 8, 2], [1, 5, -9, 2, 6]]), 0.3, axis=1, method='lower')",
     1, {2}, 2, {2.0, 1.0}, "int64"},
    {"quantile(array([[3, -1, 4, 8, 2], [1, 5, -9, 2, 6]]), 0.5, method='nearest')",
     0, {0}, 1, {2.0}, "int64"},
    {"quantile(array([[3, -1, 4, 8, 2], [1, 5, -9, 2, 6]]), 0.62, axis=1, method='weibull')",
     1, {2}, 2, {3.72, 4.16}, "float64"},
    {"quantile(array([[1.5, -2.0, 4.0, 0.5], [3.0, nan, 1.0, 2.0], [0.25, 3.0, -1.0, 7.0]]), 0.1, axis=0, method='closest_observation')",
     1, {4}, 4, {0.25, NAN, -1.0, 0.5}, "float64"},
    {"quantile(array([[3, -1, 4, 8, 2], [1, 5, -9, 2, 6]]), 0.25, method='averaged_inverted_cdf')",
     0, {0}, 1, {1.0}, "float64"},
    {"quantile(array([[3, -1, 4, 8, 2], [1, 5, -9, 2, 6]]), 0.4, axis=1, method='midpoint')",
     1, {2}, 2, {2.5, 1.5}, "float64"},
    {"percentile(array([[1.5, -2.0, 4.0, 0.5], [3.0, nan, 1.0, 2.0], [0.25, 3.0, -1.0, 7.0]]), 90, axis=1, method='hazen')",
     1, {3}, 3, {4.0, NAN, 7.0}, "float64"},
    {"quantile(array([[3, -1, 4, 8, 2], [1, 5, -9, 2, 6]]), 1)",
     0, {0}, 1, {8.0}, "int64"},
    {"quantile(array([[3, -1, 4, 8, 2], [1, 5, -9, 2, 6]]), 0.5, method='inverted_cdf')",
     0, {0}, 1, {2.0}, "int64"},
    {"nansum(array([[1.5, nan, -2.0, 4.0], [nan, nan, nan, nan], [0.25, 3.0, nan, -1.0]]), axis=1)",
     1, {3}, 3, {3.5, 0.0, 2.25}, "float64"},
    {"nanprod(array([[1.5, nan, -2.0, 4.0], [nan, nan, nan, nan], [0.25, 3.0, nan, -1.0]]), axis=0)",
     1, {4}, 4, {0.375, 3.0, -2.0, -4.0}, "float64"},
    {"nanmean(array([[1.5, nan, -2.0, 4.0], [nan, nan, nan, nan], [0.25, 3.0, nan, -1.0]]), axis=1)",
     1, {3}, 3, {1.1666666666666667, NAN, 0.75}, "float64"},
    {"nanmax(array([[1.5, nan, -2.0, 4.0], [nan, nan, nan, nan], [0.25, 3.0, nan, -1.0]]), axis=1)",
     1, {3}, 3, {4.0, NAN, 3.0}, "float64"},
    {"nanmin(array([[1.5, nan, -2.0, 4.0], [nan, nan, nan, nan], [0.25, 3.0, nan, -1.0]]), axis=0)",
     1, {4}, 4, {0.25, 3.0, -2.0, -1.0}, "float64"},
    {"nanvar(array([[1.5, nan, -2.0, 4.0], [nan, nan, nan, nan], [0.25, 3.0, nan, -1.0]]), axis=1)",
     1, {3}, 3, {6.055555555555556, NAN, 2.7916666666666665}, "float64"},
    {"nanstd(array([[1.5, nan, -2.0, 4.0], [nan, nan, nan, nan], [0.25, 3.0, nan, -1.0]]), axis=1, ddof=1)",
     1, {3}, 3, {3.013856886670854, NAN, 2.0463381929681126}, "float64"},
    {"nanmean(array([[1.5, nan, -2.0, 4.0], [nan, nan, nan, nan], [0.25, 3.0, nan, -1.0]]))",
     0, {0}, 1, {0.9583333333333334}, "float64"},
    {"nanvar(array([[1.5, nan, -2.0, 4.0], [nan, nan, nan, nan], [0.25, 3.0, nan, -1.0]]), ddof=8)",
     0, {0}, 1, {NAN}, "float64"},
    {"ptp(array([[3, -1, 4], [1, 5, -9]]), axis=1)",
     1, {2}, 2, {5.0, 14.0}, "int64"},
    {"ptp(array([[1.5, nan, -2.0, 4.0], [nan, nan, nan, nan], [0.25, 3.0, nan, -1.0]]), axis=0)",
     1, {4}, 4, {NAN, NAN, NAN, NAN}, "float64"},
    {"nansum(array([[3, -1, 4], [1, 5, -9]]))",
     0, {0}, 1, {3.0}, "int64"},
    {"nanmax(array([[3, -1, 4], [1, 5, -9]]), axis=0, keepdims=True)",
     2, {1, 3}, 3, {3.0, 5.0, 4.0}, "int64"},
    {"nanmean(array([nan, 1.0], dtype='float32'))",
     0, {0}, 1, {1.0}, "float32"},
};

static void test_stats_numpy_cases(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    check_value_cases(ctx, cases, sizeof cases / sizeof *cases, 1e-6);
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_stats_numpy_cases)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
