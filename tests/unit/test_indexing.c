/* test_indexing — gathers, masks, sorts and sets on the CPU reference device against NumPy 2
 * (sort, argsort, searchsorted, unique and its Array API forms, isin, intersect1d, union1d,
 * setdiff1d as well as what follows): np.take (axis,
 * None, every mode, N-D and 0-d indices, bool indices, strided and broadcast operands),
 * np.take_along_axis, integer-array and boolean indexing in the expression language (NumPy's
 * placement of the index axes), nonzero, flatnonzero, argwhere, count_nonzero, compress,
 * extract and where(cond), with JAX's size= forms; the errors NumPy raises. Expected values are
 * NumPy 2.4's (the cases table was printed by NumPy from the same expressions). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../support/check.h"

typedef struct {
    const char *expr;
    int32_t ndim;
    int64_t shape[4];
    int64_t n;
    int64_t want[24]; /* float results: twice the value */
    int scale;
} take_case_t;

/* Float results that are not finite. */
#define NAN_CODE  INT64_MIN
#define PINF_CODE INT64_MAX
#define NINF_CODE (INT64_MIN + 1)

static const take_case_t cases[] = {
    {"take(arange(6).reshape(2,3), arange(3)[::-1], axis=1)", 2, {2, 3}, 6, {2, 1, 0, 5, 4, 3}, 1},
    {"take(arange(6).reshape(2,3), arange(4) - 2)", 1, {4}, 4, {4, 5, 0, 1}, 1},
    {"take(arange(6).reshape(2,3), arange(4) * 3 - 5, axis=1, mode='wrap')",
     2,
     {2, 4},
     8,
     {1, 1, 1, 1, 4, 4, 4, 4},
     1},
    {"take(arange(6).reshape(2,3), arange(4) * 3 - 5, axis=1, mode='clip')",
     2,
     {2, 4},
     8,
     {0, 0, 1, 2, 3, 3, 4, 5},
     1},
    {"take(arange(6).reshape(2,3), arange(4).reshape(2,2) % 2, axis=0)",
     3,
     {2, 2, 3},
     12,
     {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5},
     1},
    {"take(arange(6).reshape(2,3), arange(4).reshape(2,2) % 3, axis=-1)",
     3,
     {2, 2, 2},
     8,
     {0, 1, 2, 0, 3, 4, 5, 3},
     1},
    {"take(arange(6).reshape(2,3), 2, axis=1)", 1, {2}, 2, {2, 5}, 1},
    {"take(arange(6).reshape(2,3).T, arange(2), axis=1)", 2, {3, 2}, 6, {0, 3, 1, 4, 2, 5}, 1},
    {"take(arange(24).reshape(2,3,4)[:, ::2, 1:], arange(3) - 1, axis=2)",
     3,
     {2, 2, 3},
     12,
     {3, 1, 2, 11, 9, 10, 15, 13, 14, 23, 21, 22},
     1},
    {"take(arange(6.0) * 0.5, arange(3) > 0)", 1, {3}, 3, {0, 1, 1}, 2},
    {"arange(6).reshape(2,3).take(arange(2), 1)", 2, {2, 2}, 4, {0, 1, 3, 4}, 1},
    {"take_along_axis(arange(6).reshape(2,3), (arange(4).reshape(2,2) + 1) % 3, axis=1)",
     2,
     {2, 2},
     4,
     {1, 2, 3, 4},
     1},
    {"take_along_axis(arange(6).reshape(2,3), arange(3).reshape(1,3) % 2, axis=0)",
     2,
     {1, 3},
     3,
     {0, 4, 2},
     1},
    {"take_along_axis(arange(6).reshape(2,3), arange(2).reshape(2,1) * 2, axis=-1)",
     2,
     {2, 1},
     2,
     {0, 5},
     1},
    {"take_along_axis(arange(6).reshape(2,3), arange(3) * 2 - 1, axis=None)",
     1,
     {3},
     3,
     {5, 1, 3},
     1},
    {"take_along_axis(arange(3).reshape(1,3), arange(8).reshape(4,2) % 3, axis=1)",
     2,
     {4, 2},
     8,
     {0, 1, 2, 0, 1, 2, 0, 1},
     1},
    {"arange(12).reshape(3,4)[arange(2) * 2]", 2, {2, 4}, 8, {0, 1, 2, 3, 8, 9, 10, 11}, 1},
    {"arange(12).reshape(3,4)[:, arange(3) - 1]", 2, {3, 3}, 9, {3, 0, 1, 7, 4, 5, 11, 8, 9}, 1},
    {"arange(12).reshape(3,4)[-1, arange(4).reshape(2,2)]", 2, {2, 2}, 4, {8, 9, 10, 11}, 1},
    {"arange(24).reshape(2,3,4)[0, :, arange(2).reshape(2,1)]",
     3,
     {2, 1, 3},
     6,
     {0, 4, 8, 1, 5, 9},
     1},
    {"arange(24).reshape(2,3,4)[..., arange(2) + 2]",
     3,
     {2, 3, 2},
     12,
     {2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23},
     1},
    {"arange(24).reshape(2,3,4)[1, arange(3), 1:3]", 2, {3, 2}, 6, {13, 14, 17, 18, 21, 22}, 1},
    {"arange(12).reshape(3,4)[None, arange(2)]", 3, {1, 2, 4}, 8, {0, 1, 2, 3, 4, 5, 6, 7}, 1},
    {"arange(12).reshape(3,4)[arange(2)][:, ::-1]", 2, {2, 4}, 8, {3, 2, 1, 0, 7, 6, 5, 4}, 1},
    {"sum(take(arange(12).reshape(3,4) * 2, arange(3) % 2, axis=0), axis=1)",
     1,
     {3},
     3,
     {12, 44, 12},
     1},
    {"arange(12).reshape(3,4)[arange(2), arange(2)]", 1, {2}, 2, {0, 5}, 1},
    {"arange(12).reshape(3,4)[arange(3).reshape(3,1), arange(2)]",
     2,
     {3, 2},
     6,
     {0, 1, 4, 5, 8, 9},
     1},
    {"arange(24).reshape(2,3,4)[arange(2), :, arange(2)]", 2, {2, 3}, 6, {0, 4, 8, 13, 17, 21}, 1},
    {"arange(24).reshape(2,3,4)[:, arange(3), arange(3)+1]",
     2,
     {2, 3},
     6,
     {1, 6, 11, 13, 18, 23},
     1},
    {"arange(24).reshape(2,3,4)[1, :, arange(2)]", 2, {2, 3}, 6, {12, 16, 20, 13, 17, 21}, 1},
    {"arange(24).reshape(2,3,4)[arange(2), 1, arange(2)]", 1, {2}, 2, {4, 17}, 1},
    {"arange(24).reshape(2,3,4)[..., arange(2), arange(2)-1]", 2, {2, 2}, 4, {3, 4, 15, 16}, 1},
    {"arange(24).reshape(2,3,4)[None, arange(2), None, arange(2) % 2]",
     4,
     {2, 1, 1, 4},
     8,
     {0, 1, 2, 3, 16, 17, 18, 19},
     1},
    {"arange(24).reshape(2,3,4)[arange(2).reshape(2,1,1), arange(3).reshape(1,3,1), arange(4) % 3]",
     3,
     {2, 3, 4},
     24,
     {0, 1, 2, 0, 4, 5, 6, 4, 8, 9, 10, 8, 12, 13, 14, 12, 16, 17, 18, 16, 20, 21, 22, 20},
     1},
    {"arange(24).reshape(2,3,4).transpose(2,0,1)[arange(3), arange(3) % 2]",
     2,
     {3, 3},
     9,
     {0, 4, 8, 13, 17, 21, 2, 6, 10},
     1},
    {"arange(12).reshape(3,4)[arange(12).reshape(3,4) % 3 == 0]", 1, {4}, 4, {0, 3, 6, 9}, 1},
    {"arange(12).reshape(3,4)[arange(3) > 0]", 2, {2, 4}, 8, {4, 5, 6, 7, 8, 9, 10, 11}, 1},
    {"arange(12).reshape(3,4)[:, arange(4) % 2 == 1]", 2, {3, 2}, 6, {1, 3, 5, 7, 9, 11}, 1},
    {"arange(12).reshape(3,4)[arange(3) != 1, 2]", 1, {2}, 2, {2, 10}, 1},
    {"arange(12).reshape(3,4)[arange(3) > 5]", 2, {0, 4}, 0, {0}, 1},
    {"arange(24).reshape(2,3,4)[arange(6).reshape(2,3) % 4 == 1]",
     2,
     {2, 4},
     8,
     {4, 5, 6, 7, 20, 21, 22, 23},
     1},
    {"arange(24).reshape(2,3,4).transpose(1,2,0)[arange(12).reshape(3,4) % 5 == 0]",
     2,
     {3, 2},
     6,
     {0, 12, 5, 17, 10, 22},
     1},
    {"(arange(6) * 1.5)[arange(6) > 2]", 1, {3}, 3, {9, 12, 15}, 2},
    {"nonzero(arange(6).reshape(2,3) % 2)[1]", 1, {3}, 3, {1, 0, 2}, 1},
    {"arange(6).reshape(2,3)[nonzero(arange(6).reshape(2,3) % 2)]", 1, {3}, 3, {1, 3, 5}, 1},
    {"where(arange(5) > 2)[0]", 1, {2}, 2, {3, 4}, 1},
    {"argwhere(arange(6).reshape(2,3) > 2)", 2, {3, 2}, 6, {1, 0, 1, 1, 1, 2}, 1},
    {"argwhere(arange(6).reshape(2,3) > 9)", 2, {0, 2}, 0, {0}, 1},
    {"flatnonzero(arange(6) % 4)", 1, {4}, 4, {1, 2, 3, 5}, 1},
    {"flatnonzero((arange(6) - 2.5) * (arange(6) != 3))", 1, {5}, 5, {0, 1, 2, 4, 5}, 1},
    {"count_nonzero(arange(6).reshape(2,3) % 2, axis=0)", 1, {3}, 3, {1, 1, 1}, 1},
    {"count_nonzero(arange(6).reshape(2,3) % 2, axis=1, keepdims=True)", 2, {2, 1}, 2, {1, 2}, 1},
    {"count_nonzero(arange(6) % 2)", 0, {0}, 1, {3}, 1},
    {"compress(arange(3) != 1, arange(6).reshape(2,3), axis=1)", 2, {2, 2}, 4, {0, 2, 3, 5}, 1},
    {"compress(arange(2) > 0, arange(6).reshape(2,3), axis=1)", 2, {2, 1}, 2, {1, 4}, 1},
    {"compress(arange(4) % 3 == 0, arange(6).reshape(2,3))", 1, {2}, 2, {0, 3}, 1},
    {"extract(arange(6) % 2 == 0, arange(6) * 10)", 1, {3}, 3, {0, 20, 40}, 1},
    /* x[mask] of every width: bool values, int8, none kept, all kept */
    {"(arange(10) % 3 == 0)[arange(10) > 4]", 1, {5}, 5, {0, 1, 0, 0, 1}, 1},
    {"arange(6).astype(int8)[arange(6) > 9]", 1, {0}, 0, {0}, 1},
    {"(arange(6) - 3).astype(int8)[arange(6) >= 0]", 1, {6}, 6, {-3, -2, -1, 0, 1, 2}, 1},
    {"sort((arange(12) * 7 % 5).reshape(3,4))",
     2,
     {3, 4},
     12,
     {0, 1, 2, 4, 0, 2, 3, 4, 0, 1, 2, 3},
     1},
    {"sort((arange(12) * 7 % 5).reshape(3,4), axis=0)",
     2,
     {3, 4},
     12,
     {0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 4, 4},
     1},
    {"sort((arange(12) * 7 % 5).reshape(3,4), axis=None)",
     1,
     {12},
     12,
     {0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 4, 4},
     1},
    {"argsort((arange(12) * 7 % 5).reshape(3,4), axis=0)",
     2,
     {3, 4},
     12,
     {0, 1, 2, 0, 2, 0, 1, 2, 1, 2, 0, 1},
     1},
    {"argsort((arange(12) * 7 % 5) + log(arange(12) % 4 - 1.0))",
     1,
     {12},
     12,
     {1, 5, 9, 10, 3, 6, 11, 2, 7, 0, 4, 8},
     1},
    {"argsort((arange(8) % 3) * -0.0)", 1, {8}, 8, {0, 1, 2, 3, 4, 5, 6, 7}, 1},
    {"argsort(arange(6) % 2 == 0)", 1, {6}, 6, {1, 3, 5, 0, 2, 4}, 1},
    {"sort(arange(6) % 2 == 0)", 1, {6}, 6, {0, 0, 0, 1, 1, 1}, 1},
    {"argsort((arange(12) * 7 % 5).reshape(3,4).T[::-1], axis=1)",
     2,
     {4, 3},
     12,
     {0, 2, 1, 2, 1, 0, 1, 0, 2, 0, 2, 1},
     1},
    {"unique((arange(12) * 7 % 5).reshape(3,4))", 1, {5}, 5, {0, 1, 2, 3, 4}, 1},
    {"unique((arange(12) * 7 % 5).reshape(3,4), return_counts=True)[1]",
     1,
     {5},
     5,
     {3, 2, 3, 2, 2},
     1},
    {"unique((arange(12) * 7 % 5).reshape(3,4), return_index=True)[1]",
     1,
     {5},
     5,
     {0, 3, 1, 4, 2},
     1},
    {"unique((arange(12) * 7 % 5).reshape(3,4), return_inverse=True)[1]",
     2,
     {3, 4},
     12,
     {0, 2, 4, 1, 3, 0, 2, 4, 1, 3, 0, 2},
     1},
    {"unique(where(arange(8) % 4 == 0, nan, where(arange(8) % 4 == 1, -inf, arange(8) % 4 * 0.5)))",
     1,
     {4},
     4,
     {NINF_CODE, 2, 3, NAN_CODE},
     2},
    {"unique(where(arange(8) % 4 == 0, nan, where(arange(8) % 4 == 1, -inf, arange(8) % 4 * 0.5)), "
     "return_counts=True)[1]",
     1,
     {4},
     4,
     {2, 2, 2, 2},
     1},
    {"unique(where(arange(8) % 4 == 0, nan, where(arange(8) % 4 == 1, -inf, arange(8) % 4 * 0.5)), "
     "equal_nan=False)",
     1,
     {5},
     5,
     {NINF_CODE, 2, 3, NAN_CODE, NAN_CODE},
     2},
    {"unique_all(arange(6) % 3 == 0)[2]", 1, {6}, 6, {1, 0, 0, 1, 0, 0}, 1},
    {"unique_counts(arange(7) % 3)[1]", 1, {3}, 3, {3, 2, 2}, 1},
    {"unique(arange(0))", 1, {0}, 0, {0}, 1},
    {"searchsorted(arange(10) // 2, arange(6) - 1)", 1, {6}, 6, {0, 0, 2, 4, 6, 8}, 1},
    {"searchsorted(arange(10) // 2, arange(6).reshape(2,3) - 1, side='right')",
     2,
     {2, 3},
     6,
     {0, 2, 4, 6, 8, 10},
     1},
    {"searchsorted(arange(5) * -1.0, arange(5) - 3.5, sorter=arange(5)[::-1])",
     1,
     {5},
     5,
     {1, 2, 3, 4, 5},
     1},
    {"searchsorted(log(arange(5) - 1.0), log(arange(4) - 1.5))", 1, {4}, 4, {5, 5, 2, 3}, 1},
    {"isin(arange(10) % 7, arange(3) * 2)", 1, {10}, 10, {1, 0, 1, 0, 1, 0, 0, 1, 0, 1}, 1},
    {"isin(arange(6).reshape(2,3), arange(3) + 2, invert=True)",
     2,
     {2, 3},
     6,
     {1, 1, 0, 0, 0, 1},
     1},
    {"isin(arange(4), arange(0))", 1, {4}, 4, {0, 0, 0, 0}, 1},
    {"intersect1d(arange(10) % 7, arange(5) * 2)", 1, {4}, 4, {0, 2, 4, 6}, 1},
    {"union1d(arange(4) * 3, arange(5) % 3)", 1, {6}, 6, {0, 1, 2, 3, 6, 9}, 1},
    {"setdiff1d(arange(10) % 7, arange(5) * 2)", 1, {3}, 3, {1, 3, 5}, 1},
    {"bincount(arange(10) % 4)", 1, {4}, 4, {3, 3, 2, 2}, 1},
    {"bincount(arange(6) % 3, weights=arange(6) * 0.5, minlength=5)",
     1,
     {5},
     5,
     {3, 5, 7, 0, 0},
     2},
    {"histogram(arange(10) * 0.5)[0]", 1, {10}, 10, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 1},
    {"histogram(arange(10) * 0.5, bins=9)[1]", 1, {10}, 10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 2},
    {"histogram(arange(10) * 0.37, bins=3, range=(0.5, 2))[0]", 1, {3}, 3, {1, 2, 1}, 1},
    {"histogram(arange(10) * 1.0, bins=arange(4) * 3.0)[0]", 1, {3}, 3, {3, 3, 4}, 1},
    {"histogram(arange(10), bins=4, weights=arange(10) * 0.5)[0]", 1, {4}, 4, {3, 7, 11, 24}, 2},
    {"x = arange(6).reshape(2,3); x[0] = 9; x", 2, {2, 3}, 6, {9, 9, 9, 3, 4, 5}, 1},
    {"x = arange(6.0); x[x > 2] = -1; x", 1, {6}, 6, {0, 2, 4, -2, -2, -2}, 2},
    {"x = arange(6).reshape(2,3); x[:, arange(2)] = arange(2) * 10; x",
     2,
     {2, 3},
     6,
     {0, 10, 2, 0, 10, 5},
     1},
    {"x = arange(6); x[arange(3) % 2] = arange(3) + 7; x", 1, {6}, 6, {9, 8, 2, 3, 4, 5}, 1},
    {"x = arange(6).reshape(2,3); x[1, ::2] = 5.7; x", 2, {2, 3}, 6, {0, 1, 2, 5, 4, 5}, 1},
    {"x = arange(12).reshape(3,4); x[arange(2), 1:3] = -arange(2).reshape(2,1); x",
     2,
     {3, 4},
     12,
     {0, 0, 0, 3, 4, -1, -1, 7, 8, 9, 10, 11},
     1},
    {"v, c = unique(arange(7) % 3, return_counts=True); c * 10 + v", 1, {3}, 3, {30, 21, 22}, 1},
    {"i, j = nonzero(arange(6).reshape(2,3) > 3); j - i", 1, {2}, 2, {0, 1}, 1},
    {"lexsort((arange(6) % 2, arange(6) % 3))", 1, {6}, 6, {0, 3, 4, 1, 2, 5}, 1},
    {"lexsort((arange(8) * 5 % 7).reshape(2,4))", 1, {4}, 4, {3, 2, 1, 0}, 1},
    {"lexsort((arange(12).reshape(3,4) % 2, arange(12).reshape(3,4) * 7 % 5), axis=0)",
     2,
     {3, 4},
     12,
     {0, 1, 2, 0, 2, 0, 1, 2, 1, 2, 0, 1},
     1},
    {"choose(arange(4) % 3, (arange(4), arange(4) * 10, arange(4) * 100))",
     1,
     {4},
     4,
     {0, 10, 200, 3},
     1},
    {"choose(arange(4) - 1, (arange(4), arange(4) * 10, arange(4) * 100), mode='wrap')",
     1,
     {4},
     4,
     {0, 1, 20, 300},
     1},
    {"choose(arange(4) + 1, (arange(4), arange(4) * 10, arange(4) * 100), mode='clip')",
     1,
     {4},
     4,
     {0, 100, 200, 300},
     1},
    {"choose((arange(6) % 2).reshape(2,3), (arange(3), 7))", 2, {2, 3}, 6, {0, 7, 2, 7, 1, 7}, 1},
    {"take(arange(5), arange(0))", 1, {0}, 0, {0}, 1},
    /* lists: np.asarray's arrays, as indices and operands */
    {"arange(6).reshape(2,3)[[1, 0, 1]]", 2, {3, 3}, 9, {3, 4, 5, 0, 1, 2, 3, 4, 5}, 1},
    {"arange(6).reshape(2,3)[:, [2, -3]]", 2, {2, 2}, 4, {2, 0, 5, 3}, 1},
    {"arange(6).reshape(2,3)[[[0], [1]], [0, 2]]", 2, {2, 2}, 4, {0, 2, 3, 5}, 1},
    {"arange(5)[[True, False, True, False, True]]", 1, {3}, 3, {0, 2, 4}, 1},
    {"take(arange(5), [4, 0])", 1, {2}, 2, {4, 0}, 1},
    {"array([[1.5, 2], [3, 4]])[[1, 1]]", 2, {2, 2}, 4, {6, 8, 6, 8}, 2},
    {"isin(arange(5), [1, 3])", 1, {5}, 5, {0, 1, 0, 1, 0}, 1},
    {"array([[1, 2], [3, 4]], dtype='float32') * [1, 2]", 2, {2, 2}, 4, {2, 8, 6, 16}, 2},
    {"array([])[[]]", 1, {0}, 0, {0}, 2},
    /* ufunc.at statements rebind their variable */
    {"y = arange(5.0); np.add.at(y, [0, 0, 4], 1.5); y", 1, {5}, 5, {6, 2, 4, 6, 11}, 2},
    {"y = arange(6).reshape(2, 3); np.maximum.at(y, (array([0, 1, 1]), array([2, 0, 0])), [7, 9, 3]); y",
     2,
     {2, 3},
     6,
     {0, 1, 7, 9, 4, 5},
     1},
    {"y = arange(4); np.minimum.at(y, [3, 3, 1], [2, -1, 5]); y", 1, {4}, 4, {0, 1, 2, -1}, 1},
    /* a mask of several axes among other indices: its nonzero() arrays there */
    {"arange(24).reshape(2,3,4)[arange(6).reshape(2,3) % 2 == 0, 1]",
     1, {3}, 3, {1, 9, 17}, 1},
    {"arange(24).reshape(2,3,4)[:, arange(12).reshape(3,4) % 3 == 0]",
     2, {2, 4}, 8, {0, 3, 6, 9, 12, 15, 18, 21}, 1},
    {"arange(24).reshape(2,3,4)[arange(6).reshape(2,3) > 2, [0, 1, 3]]",
     1, {3}, 3, {12, 17, 23}, 1},
    /* a Python bool or 0-d mask: a new axis kept once or not at all */
    {"arange(6).reshape(2,3)[True, 1]", 2, {1, 3}, 3, {3, 4, 5}, 1},
    {"arange(6).reshape(2,3)[..., False]", 3, {2, 3, 0}, 0, {0}, 1},
    {"arange(6).reshape(2,3)[array(True), [1, 0]]", 2, {2, 3}, 6, {3, 4, 5, 0, 1, 2}, 1},
    /* unique along an axis: distinct rows (slices), lexicographic */
    {"unique(array([[1, 0, 1], [2, 3, 4], [1, 0, 1], [0, 9, 9], [2, 3, 4]]), axis=0)",
     2, {3, 3}, 9, {0, 9, 9, 1, 0, 1, 2, 3, 4}, 1},
    {"unique(array([[1, 0, 1], [2, 3, 4], [1, 0, 1]]), axis=1)",
     2, {3, 3}, 9, {0, 1, 1, 3, 2, 4, 0, 1, 1}, 1},
    {"unique(array([[1, 0, 1], [2, 3, 4], [1, 0, 1]]), axis=0, return_counts=True)[1]",
     1, {2}, 2, {2, 1}, 1},
    {"unique(array([[1, 0, 1], [2, 3, 4], [1, 0, 1]]), axis=0, return_inverse=True)[1]",
     1, {3}, 3, {0, 1, 0}, 1},
    {"take(arange(0), arange(0))", 1, {0}, 0, {0}, 1},
};

static void test_take_numpy_cases(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const take_case_t *k = &cases[c];
        bool special = false; /* non-finite codes: compared as the values they stand for */
        for (int64_t i = 0; i < k->n; i++)
            special = special || k->want[i] == NAN_CODE || k->want[i] == PINF_CODE ||
                      k->want[i] == NINF_CODE;
        if (!special) {
            check_expr_values(ctx, k->expr, NULL, k->ndim, k->shape, k->n, k->want, k->scale, NULL,
                              0);
            continue;
        }
        double dw[24];
        for (int64_t i = 0; i < k->n; i++)
            dw[i] = k->want[i] == NAN_CODE    ? NAN
                    : k->want[i] == PINF_CODE ? INFINITY
                    : k->want[i] == NINF_CODE ? -INFINITY
                                              : (double)k->want[i] / k->scale;
        check_expr_values(ctx, k->expr, NULL, k->ndim, k->shape, k->n, NULL, 1, dw, 0);
    }
    loom_ctx_destroy(ctx);
}

/* A Python number among choose's choices takes the arrays' dtype (NEP 50, as np.where's
 * does; an int out of range wraps as NumPy's does). Found by the conformance suite. */
static void test_choose_weak_scalars(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    static const struct {
        const char *expr;
        int8_t want[3];
    } weak_cases[] = {{"choose(array([0, 1, 0]), (arange(3).astype('int8'), 0))", {0, 0, 2}},
                 {"choose(array([1, 1, 0]), (arange(3).astype('int8'), 300))", {44, 44, 2}}};
    for (size_t c = 0; c < sizeof weak_cases / sizeof *weak_cases; c++) {
        loom_scope_begin(ctx);
        loom_array_t *r = loom_expr(ctx, weak_cases[c].expr, 0, NULL, NULL);
        if (loom_array_is_nil(r)) fail_msg("%s: %s", weak_cases[c].expr, loom_ctx_message(ctx));
        assert_int_equal(loom_array_dtype(r), LOOM_DTYPE_I8);
        int8_t got[3];
        assert_int_equal(loom_read(ctx, r, got, sizeof got), LOOM_STATUS_OK);
        assert_memory_equal(got, weak_cases[c].want, sizeof got);
        loom_scope_end(ctx);
    }
    loom_ctx_destroy(ctx);
}

/* Evaluating r fails with st and phrase (an error found in the values). */
static void expect_eval_error(loom_ctx_t *ctx, loom_array_t *r, loom_status_t st,
                              const char *phrase) {
    assert_false(loom_array_is_nil(r));
    assert_int_equal(loom_eval(ctx, 1, &r), st);
    if (!strstr(loom_ctx_message(ctx), phrase))
        fail_msg("message \"%s\" lacks \"%s\"", loom_ctx_message(ctx), phrase);
    loom_ctx_clear_error(ctx);
}

static void test_take_errors(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t s23[2] = {2, 3}, s2 = 2, s0 = 0;
    loom_array_t *a = loom_reshape(ctx, loom_arange_int(ctx, 0, 6, 1, LOOM_DTYPE_I32), 2, s23);
    int64_t iv[2] = {1, 7}, neg[2] = {-4, 0};
    loom_array_t *i = loom_from_host(ctx, LOOM_DTYPE_I64, 1, &s2, iv);
    /* an action given a nil array whose error was cleared: an error, never OK without results
     * (found by fuzz_api) */
    loom_array_t *nil = loom_take(ctx, a, i, 7, LOOM_TAKE_RAISE);
    assert_true(loom_array_is_nil(nil));
    loom_ctx_clear_error(ctx);
    loom_array_t *u = NULL, *nz[2] = {NULL, NULL};
    assert_int_equal(loom_unique(ctx, nil, 1, &u, NULL, NULL, NULL), LOOM_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_ctx_message(ctx), "unique: the array is nil"));
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_nonzero(ctx, nil, 2, nz), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    /* a result whose size overflows (found by fuzz_api): OVERFLOW, not an array */
    int64_t big[2] = {INT64_C(1) << 31, INT64_C(1) << 31};
    loom_array_t *huge = loom_take(ctx, loom_zeros(ctx, LOOM_DTYPE_F32, 2, big),
                                   loom_zeros(ctx, LOOM_DTYPE_I64, 1, big), 1, LOOM_TAKE_WRAP);
    assert_true(loom_array_is_nil(huge));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
    assert_non_null(strstr(loom_ctx_message(ctx), "too many elements"));
    loom_ctx_clear_error(ctx);
    /* NumPy: IndexError: index 7 is out of bounds for axis 1 with size 3 */
    expect_eval_error(ctx, loom_take(ctx, a, i, 1, LOOM_TAKE_RAISE), LOOM_STATUS_INDEX_ERROR,
                      "index 7 is out of bounds for axis 1 with size 3");
    expect_eval_error(
        ctx,
        loom_take(ctx, a, loom_from_host(ctx, LOOM_DTYPE_I64, 1, &s2, neg), 1, LOOM_TAKE_RAISE),
        LOOM_STATUS_INDEX_ERROR, "index -4 is out of bounds for axis 1 with size 3");
    expect_eval_error(ctx,
                      loom_take_along_axis(ctx, a, loom_reshape(ctx, i, 2, (int64_t[]){2, 1}), 1),
                      LOOM_STATUS_INDEX_ERROR, "index 7 is out of bounds");
    /* the same context works afterwards */
    int32_t got[2];
    assert_int_equal(loom_read(ctx, loom_take(ctx, a, i, 1, LOOM_TAKE_WRAP), got, 0),
                     LOOM_STATUS_BUFFER_TOO_SMALL);
    loom_ctx_clear_error(ctx);
    /* NumPy: TypeError: Cannot cast array data from dtype('float64') to dtype('int64') */
    check_expect_error(
        ctx, loom_take(ctx, a, loom_full(ctx, LOOM_DTYPE_F64, 1, &s2, 1), 0, LOOM_TAKE_RAISE),
        LOOM_STATUS_DTYPE_ERROR, "indices must be integers");
    /* NumPy: IndexError: cannot do a non-empty take from an empty axes. (every mode) */
    loom_array_t *e = loom_zeros(ctx, LOOM_DTYPE_F32, 1, &s0);
    check_expect_error(ctx, loom_take(ctx, e, i, 0, LOOM_TAKE_WRAP), LOOM_STATUS_INDEX_ERROR,
                       "non-empty take from an empty axis");
    check_expect_error(ctx, loom_take(ctx, a, i, 2, LOOM_TAKE_RAISE), LOOM_STATUS_INVALID_ARGUMENT,
                       "axis 2 is out of bounds for array of dimension 2");
    check_expect_error(ctx, loom_take(ctx, a, i, 0, (loom_take_mode_t)7),
                       LOOM_STATUS_INVALID_ARGUMENT, "mode 7");
    /* NumPy: ValueError: `indices` and `arr` must have the same number of dimensions */
    check_expect_error(ctx, loom_take_along_axis(ctx, a, i, 1), LOOM_STATUS_INVALID_ARGUMENT,
                       "same number of dimensions");
    check_expect_error(
        ctx, loom_take_along_axis(ctx, a, loom_zeros(ctx, LOOM_DTYPE_I64, 2, (int64_t[]){3, 1}), 1),
        LOOM_STATUS_SHAPE_MISMATCH, "do not broadcast");
    check_expect_error(ctx, loom_take_along_axis(ctx, a, a, LOOM_AXIS_NONE),
                       LOOM_STATUS_INVALID_ARGUMENT, "single dimension");
    /* more than LOOM_MAX_DIMS result axes */
    int64_t s8[8] = {1, 1, 1, 1, 1, 1, 1, 2};
    check_expect_error(
        ctx, loom_take(ctx, a, loom_zeros(ctx, LOOM_DTYPE_I64, 8, s8), 0, LOOM_TAKE_RAISE),
        LOOM_STATUS_INVALID_ARGUMENT, "9 axes");
    /* loom_gather's own arguments */
    loom_array_t *two[2] = {i, i};
    check_expect_error(ctx, loom_gather(ctx, a, 2, (int32_t[]){1, -1}, two, 0),
                       LOOM_STATUS_INVALID_ARGUMENT, "axis -1 is given twice");
    check_expect_error(ctx, loom_gather(ctx, a, 1, (int32_t[]){0}, two, 2),
                       LOOM_STATUS_INVALID_ARGUMENT, "destination 2 is outside [0, 1]");
    check_expect_error(ctx, loom_gather(ctx, a, 3, (int32_t[]){0, 1, 0}, two, 0),
                       LOOM_STATUS_INVALID_ARGUMENT, "3 index arrays");
    /* the expression language */
    const char *bad[][2] = {
        {"take(arange(6), arange(3), mode='bad')", "mode must be"},
        {"arange(6)[arange(3) + 4]", "index 6 is out of bounds for axis 0 with size 6"},
        {"arange(6).reshape(2, 3)[arange(2), arange(3)]",
         "could not be broadcast together with shapes (2,) (3,)"},
        {"arange(6).reshape(2, 3)[arange(2), arange(2) + 2]",
         "index 3 is out of bounds for axis 1 with size 3"},
        {"arange(6)[arange(3) > 0]", "boolean index did not match indexed array along axis 0; size "
                                     "of axis is 6 but size of corresponding boolean axis is 3"},
        {"arange(12).reshape(3, 4)[arange(2) > 0, 2]",
         "size of axis is 3 but size of corresponding boolean axis is 2"},
        {"compress(arange(7) == 6, arange(6))", "index 6 is out of bounds for axis 0 with size 6"},
        {"nonzero(arange(6))[2]", "tuple index out of range"},
        {"arange(6)[False, [0, 1]]", "shapes (0,) (2,)"},
        {"where(arange(6) > 1, 1)", "both or neither"},
        {"choose(arange(4) - 1, (arange(4), arange(4) * 10))", "index -3 is out of bounds"},
        {"choose(arange(4), (arange(4), arange(4)), mode='bad')", "mode -1"},
        {"a, b = unique(arange(6)); a", "cannot unpack an array into 2 names"},
        {"a, b = nonzero(arange(8).reshape(2, 2, 2)); a", "cannot unpack a tuple into 2 names"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        check_expr_error(ctx, bad[k][0], bad[k][1]);
    loom_ctx_destroy(ctx);
}

/* Every index dtype (bool read as 0 and 1), a float16 operand, and a result used twice. */
static void test_take_dtypes(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    static const loom_dtype_t ids[] = {LOOM_DTYPE_BOOL, LOOM_DTYPE_I8,  LOOM_DTYPE_U8,
                                       LOOM_DTYPE_I16,  LOOM_DTYPE_U16, LOOM_DTYPE_I32,
                                       LOOM_DTYPE_U32,  LOOM_DTYPE_I64, LOOM_DTYPE_U64};
    int64_t s4 = 4;
    for (size_t k = 0; k < sizeof ids / sizeof *ids; k++) {
        loom_scope_begin(ctx);
        loom_array_t *a =
            loom_astype(ctx, loom_arange(ctx, 10, 15, 1, LOOM_DTYPE_F64), LOOM_DTYPE_F16);
        uint64_t raw[4] = {1, 0, 1, 1};
        loom_array_t *x = check_from_bits(ctx, ids[k], 1, &s4, raw, 4);
        loom_array_t *r =
            loom_astype(ctx, loom_take(ctx, a, x, 0, LOOM_TAKE_RAISE), LOOM_DTYPE_F64);
        double got[4];
        assert_int_equal(loom_read(ctx, r, got, sizeof got), LOOM_STATUS_OK);
        assert_true(got[0] == 11 && got[1] == 10 && got[2] == 11 && got[3] == 11);
        loom_scope_end(ctx);
    }
    loom_ctx_destroy(ctx);
}

/* The size= forms: no sync, padding, cut-off; argwhere of 0-d; nonzero refuses 0-d; a mask
 * computed in the same graph; loom_boolean_index's own checks. */
static void test_masks_c_api(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t s23[2] = {2, 3};
    loom_array_t *a = loom_reshape(ctx, loom_arange_int(ctx, 0, 6, 1, LOOM_DTYPE_F32), 2, s23);
    loom_array_t *m = loom_greater(ctx, a, loom_full(ctx, LOOM_DTYPE_F32, 0, NULL, 2.5));
    loom_stats_t s0, s1;
    loom_ctx_stats(ctx, &s0);
    loom_array_t *f = loom_flatnonzero_sized(ctx, m, 5, -9);
    loom_ctx_stats(ctx, &s1);
    assert_int_equal(s1.evals - s0.evals, 0); /* no sync */
    int64_t got[6];
    assert_int_equal(loom_read(ctx, f, got, 5 * sizeof *got), LOOM_STATUS_OK);
    assert_true(got[0] == 3 && got[1] == 4 && got[2] == 5 && got[3] == -9 && got[4] == -9);
    assert_int_equal(loom_read(ctx, loom_flatnonzero_sized(ctx, m, 2, 0), got, 2 * sizeof *got),
                     LOOM_STATUS_OK);
    assert_true(got[0] == 3 && got[1] == 4);
    loom_array_t *nz[2];
    assert_int_equal(loom_nonzero_sized(ctx, m, 4, 7, 2, nz), LOOM_STATUS_OK);
    assert_int_equal(loom_read(ctx, nz[1], got, 4 * sizeof *got), LOOM_STATUS_OK);
    assert_true(got[0] == 0 && got[1] == 1 && got[2] == 2 && got[3] == 7);
    /* the data-dependent form evaluates the compaction (the mask computed as it goes) and
     * reads its count back (one eval), then stays lazy */
    loom_ctx_stats(ctx, &s0);
    loom_array_t *sel = loom_boolean_index(ctx, a, m, 0);
    loom_ctx_stats(ctx, &s1);
    assert_int_equal(s1.evals - s0.evals, 1);
    float v[3];
    assert_int_equal(loom_read(ctx, loom_multiply(ctx, sel, sel), v, sizeof v), LOOM_STATUS_OK);
    assert_true(v[0] == 9 && v[1] == 16 && v[2] == 25);
    /* complex128 values (a 16-byte element: the count in one trailing element) */
    loom_array_t *zc = loom_complex(ctx, loom_astype(ctx, a, LOOM_DTYPE_F64),
                                    loom_negative(ctx, loom_astype(ctx, a, LOOM_DTYPE_F64)));
    loom_array_t *zs = loom_boolean_index(ctx, zc, m, 0);
    assert_int_equal(loom_array_dim(zs, 0), 3);
    double zv[6];
    assert_int_equal(loom_read(ctx, zs, zv, sizeof zv), LOOM_STATUS_OK);
    for (int i = 0; i < 3; i++) assert_true(zv[2 * i] == 3 + i && zv[2 * i + 1] == -(3 + i));
    /* NumPy 2: argwhere of 0-d is (1, 0) or (0, 0); nonzero of 0-d raises */
    loom_array_t *w = loom_argwhere(ctx, loom_full(ctx, LOOM_DTYPE_F32, 0, NULL, 0));
    assert_int_equal(loom_array_dim(w, 0), 0);
    assert_int_equal(loom_array_dim(w, 1), 0);
    assert_int_equal(loom_nonzero(ctx, loom_full(ctx, LOOM_DTYPE_F32, 0, NULL, 1), 1, nz),
                     LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_nonzero(ctx, a, 1, nz), LOOM_STATUS_INVALID_ARGUMENT); /* no room */
    loom_ctx_clear_error(ctx);
    check_expect_error(ctx, loom_flatnonzero_sized(ctx, m, -1, 0), LOOM_STATUS_INVALID_ARGUMENT,
                       "size -1 is negative");
    check_expect_error(ctx, loom_boolean_index(ctx, a, a, 0), LOOM_STATUS_DTYPE_ERROR,
                       "the mask is float32, not bool");
    check_expect_error(ctx, loom_boolean_index(ctx, a, m, 1), LOOM_STATUS_INDEX_ERROR,
                       "array is 2-dimensional, but 3 were indexed (a 2-d mask at axis 1)");
    check_expect_error(ctx, loom_boolean_index(ctx, a, m, -1), LOOM_STATUS_INVALID_ARGUMENT,
                       "a 2-d mask at axis -1");
    check_expect_error(ctx, loom_compress(ctx, m, a, 0), LOOM_STATUS_INVALID_ARGUMENT,
                       "condition must be a 1-d array");
    /* count_nonzero: NaN and -0.0 as NumPy counts them */
    double vals[4] = {NAN, -0.0, 0.0, 2};
    int64_t s4 = 4, c;
    loom_array_t *d = loom_from_host(ctx, LOOM_DTYPE_F64, 1, &s4, vals);
    assert_int_equal(loom_read(ctx, loom_count_nonzero(ctx, d, -1, NULL, 0), &c, sizeof c),
                     LOOM_STATUS_OK);
    assert_int_equal(c, 2);
    loom_ctx_destroy(ctx);
}

/* The bits of an element of d's size. */
static uint64_t size_mask(loom_dtype_t d) {
    size_t sz = loom_dtype_size(d);
    return sz >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * sz)) - 1;
}

/* NumPy's order of two elements of dtype d (bits a, b): -1, 0 or 1 (NaN last, -0.0 == 0.0). */
static int order(loom_dtype_t d, uint64_t a, uint64_t b) {
    double x = check_bits_to_double(d, a), y = check_bits_to_double(d, b);
    bool nx = x != x, ny = y != y;
    if (nx || ny) return nx == ny ? 0 : nx ? 1 : -1;
    return x < y ? -1 : x > y ? 1 : 0;
}

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Sorts of every dtype and of the lengths around warp, block and power-of-two edges, random
 * (with duplicates, NaN, infinities, both zeros), all equal, sorted and reversed: argsort is a
 * permutation, sort holds the elements it names (bits included), the order is NumPy's, and
 * equal elements keep their order. */
static void test_sort_properties(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    static const loom_dtype_t ds[] = {
        LOOM_DTYPE_BOOL, LOOM_DTYPE_I8,  LOOM_DTYPE_U8,  LOOM_DTYPE_I16, LOOM_DTYPE_U16,
        LOOM_DTYPE_I32,  LOOM_DTYPE_U32, LOOM_DTYPE_I64, LOOM_DTYPE_U64, LOOM_DTYPE_F16,
        LOOM_DTYPE_BF16, LOOM_DTYPE_F32, LOOM_DTYPE_F64};
    static const int64_t lens[] = {0, 1, 2, 31, 32, 33, 1023, 1024, 1025, (1 << 20) + 1};
    static const double specials[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY};
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (size_t di = 0; di < sizeof ds / sizeof *ds; di++)
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++)
            for (int pattern = 0; pattern < 4; pattern++) {
                loom_dtype_t d = ds[di];
                int64_t n = lens[li];
                if (n > 4096 && (pattern || (d != LOOM_DTYPE_F32 && d != LOOM_DTYPE_I32))) continue;
                bool fl = check_is_float(d);
                uint64_t *bits = malloc(sizeof *bits * (size_t)(n + 1));
                uint64_t *sorted = malloc(sizeof *sorted * (size_t)(n + 1));
                int64_t *perm = malloc(sizeof *perm * (size_t)(n + 1));
                assert_non_null(bits);
                assert_non_null(sorted);
                assert_non_null(perm);
                for (int64_t i = 0; i < n; i++) {
                    uint64_t r = rng_next(&seed);
                    double v = pattern == 1   ? 3.0
                               : pattern == 2 ? (double)(i % 100)
                               : pattern == 3 ? (double)((n - i) % 100)
                                              : (double)(r % 17) - (d == LOOM_DTYPE_BOOL ? 0 : 8);
                    if (d == LOOM_DTYPE_BOOL) v = v != 0 && (pattern != 0 || (r >> 20) % 2);
                    if (pattern == 0 && fl && (r >> 32) % 8 == 0) v = specials[(r >> 40) % 5];
                    if (!fl && v < 0 &&
                        (d == LOOM_DTYPE_U8 || d == LOOM_DTYPE_U16 || d == LOOM_DTYPE_U32 ||
                         d == LOOM_DTYPE_U64))
                        v = -v;
                    bits[i] = fl ? check_float_bits(d, v) : (uint64_t)(int64_t)v & size_mask(d);
                }
                loom_scope_begin(ctx);
                loom_array_t *a = check_from_bits(ctx, d, 1, &n, bits, n);
                assert_int_equal(check_read_bits(ctx, loom_sort(ctx, a, 0), sorted, n),
                                 LOOM_STATUS_OK);
                if (n)
                    assert_int_equal(
                        loom_read(ctx, loom_argsort(ctx, a, -1), perm, sizeof *perm * (size_t)n),
                        LOOM_STATUS_OK);
                loom_scope_end(ctx);
                char *seen = calloc((size_t)(n + 1), 1);
                assert_non_null(seen);
                for (int64_t i = 0; i < n; i++) {
                    assert_true(perm[i] >= 0 && perm[i] < n && !seen[perm[i]]);
                    seen[perm[i]] = 1;
                    if (sorted[i] != bits[perm[i]])
                        fail_msg("%s n=%lld pattern %d: sort[%lld] is not a[argsort[%lld]]",
                                 loom_dtype_name(d), (long long)n, pattern, (long long)i,
                                 (long long)i);
                    if (i == 0) continue;
                    int o = order(d, bits[perm[i - 1]], bits[perm[i]]);
                    if (o > 0 || (o == 0 && perm[i - 1] > perm[i]))
                        fail_msg("%s n=%lld pattern %d: out of order or unstable at %lld",
                                 loom_dtype_name(d), (long long)n, pattern, (long long)i);
                }
                free(seen);
                free(bits);
                free(sorted);
                free(perm);
            }
    loom_ctx_destroy(ctx);
}

/* Scatters: duplicates (set keeps the last, add sums all), determinism, casting rules, errors. */
static void test_scatter_c_api(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 4096, s1 = 1, s2 = 2, s3 = 3;
    /* 4096 float32 values added into one element, twice: the same bits both times, and the
     * sum in index order */
    loom_array_t *v = loom_random_uniform(ctx, 5, LOOM_DTYPE_F32, 1, &n, -1, 1);
    loom_array_t *i = loom_zeros(ctx, LOOM_DTYPE_I64, 1, &n);
    int32_t ax0 = 0;
    float r1, r2, all[4096], seq = 0, last;
    loom_array_t *z = loom_zeros(ctx, LOOM_DTYPE_F32, 1, &s1);
    assert_int_equal(loom_read(ctx, loom_at(ctx, z, 1, &ax0, &i, v, LOOM_AT_ADD), &r1, sizeof r1),
                     LOOM_STATUS_OK);
    assert_int_equal(loom_read(ctx, loom_at(ctx, z, 1, &ax0, &i, v, LOOM_AT_ADD), &r2, sizeof r2),
                     LOOM_STATUS_OK);
    assert_memory_equal(&r1, &r2, sizeof r1);
    assert_int_equal(loom_read(ctx, v, all, sizeof all), LOOM_STATUS_OK);
    for (int k = 0; k < 4096; k++) seq += all[k];
    assert_memory_equal(&r1, &seq, sizeof r1);
    /* set: the last of duplicated indices */
    assert_int_equal(
        loom_read(ctx, loom_at(ctx, z, 1, &ax0, &i, v, LOOM_AT_SET), &last, sizeof last),
        LOOM_STATUS_OK);
    assert_memory_equal(&last, &all[4095], sizeof last);
    /* min over duplicates */
    int64_t ones[3] = {1, 1, 1};
    int32_t seven[3] = {7, -3, 5}, got[2];
    loom_array_t *iv = loom_from_host(ctx, LOOM_DTYPE_I64, 1, &s3, ones);
    loom_array_t *vals = loom_from_host(ctx, LOOM_DTYPE_I32, 1, &s3, seven);
    assert_int_equal(loom_read(ctx,
                               loom_at(ctx, loom_zeros(ctx, LOOM_DTYPE_I32, 1, &s2), 1, &ax0, &iv,
                                       vals, LOOM_AT_MIN),
                               got, sizeof got),
                     LOOM_STATUS_OK);
    assert_true(got[0] == 0 && got[1] == -3);
    /* NumPy: np.add.at on an int array with float values breaks the same_kind rule */
    check_expect_error(ctx,
                       loom_at(ctx, loom_zeros(ctx, LOOM_DTYPE_I32, 1, &s3), 1, &ax0, &iv,
                               loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, 1.5), LOOM_AT_ADD),
                       LOOM_STATUS_DTYPE_ERROR, "same_kind");
    check_expect_error(ctx, loom_at(ctx, vals, 1, &ax0, &iv, vals, (loom_at_op_t)9),
                       LOOM_STATUS_INVALID_ARGUMENT, "op 9");
    /* out-of-bounds scatter indices raise as gathers do */
    int64_t three = 3;
    loom_array_t *bad = loom_from_host(ctx, LOOM_DTYPE_I64, 1, &s1, &three);
    loom_array_t *r = loom_at(ctx, vals, 1, &ax0, &bad,
                              loom_full_int(ctx, LOOM_DTYPE_I32, 0, NULL, 1), LOOM_AT_SET);
    assert_int_equal(loom_eval(ctx, 1, &r), LOOM_STATUS_INDEX_ERROR);
    loom_ctx_clear_error(ctx);
    check_expect_error(ctx,
                       loom_bincount(ctx, loom_full_int(ctx, LOOM_DTYPE_I32, 1, &s3, -2), NULL, 0),
                       LOOM_STATUS_INVALID_ARGUMENT, "no negative elements");
    check_expect_error(ctx, loom_bincount(ctx, loom_full(ctx, LOOM_DTYPE_F32, 1, &s3, 1), NULL, 0),
                       LOOM_STATUS_INVALID_ARGUMENT, "integers");
    int64_t s0 = 0;
    check_expect_error(ctx,
                       loom_place(ctx, vals, loom_ones(ctx, LOOM_DTYPE_BOOL, 1, &s3),
                                  loom_zeros(ctx, LOOM_DTYPE_I32, 1, &s0)),
                       LOOM_STATUS_INVALID_ARGUMENT, "cannot insert from an empty array");
    loom_array_t *h = NULL;
    assert_int_equal(loom_histogram(ctx, vals, 3, NULL, 2.0, 1.0, NULL, &h, NULL),
                     LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    loom_ctx_destroy(ctx);
}

/* top_k (largest first, equal values lowest position first, NaN largest) and partition (the
 * kth element in place, smaller ones before it, larger after). */
static void test_top_k_and_partition(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t s7 = 7;
    double x[7] = {1, 3, NAN, 3, -2, 7, 3};
    loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_F64, 1, &s7, x);
    loom_array_t *v = NULL, *i = NULL;
    assert_int_equal(loom_top_k(ctx, a, 4, -1, &v, &i), LOOM_STATUS_OK);
    int64_t gi[4];
    double gv[4];
    assert_int_equal(loom_read(ctx, i, gi, sizeof gi), LOOM_STATUS_OK);
    assert_int_equal(loom_read(ctx, v, gv, sizeof gv), LOOM_STATUS_OK);
    assert_true(gi[0] == 2 && gi[1] == 5 && gi[2] == 1 && gi[3] == 3);
    assert_true(gv[0] != gv[0] && gv[1] == 7 && gv[2] == 3 && gv[3] == 3);
    assert_int_equal(loom_top_k(ctx, a, 8, 0, &v, &i), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    for (int64_t kth = -7; kth < 7; kth++) {
        double p[7];
        assert_int_equal(loom_read(ctx, loom_partition(ctx, a, kth, 0), p, sizeof p),
                         LOOM_STATUS_OK);
        int64_t k = kth < 0 ? kth + 7 : kth;
        for (int64_t j = 0; j < 7; j++) { /* NaN sorts last */
            bool before = j<k, after = j> k;
            double pk = p[k], pj = p[j];
            if (before) assert_true(pk != pk || pj <= pk);
            if (after) assert_true(pj != pj || (pk == pk && pj >= pk));
        }
    }
    check_expect_error(ctx, loom_partition(ctx, a, 7, 0), LOOM_STATUS_INVALID_ARGUMENT,
                       "kth(=7) out of bounds (7)");
    check_expect_error(ctx, loom_lexsort(ctx, 0, NULL, -1), LOOM_STATUS_INVALID_ARGUMENT,
                       "need sequence of keys");
    loom_ctx_destroy(ctx);
}

/* NumPy's index helpers (unravel_index, ravel_multi_index, tril/triu/diag_indices and their
 * _from forms, ix_), its in-place updates as values (put, put_along_axis, place, putmask,
 * copyto, fill_diagonal), setxor1d, and the histograms (density=, histogram_bin_edges,
 * histogram2d, histogramdd): values NumPy 2.4 gave for the same expressions. */
static const take_case_t helper_cases[] = {
    {"unravel_index(array([22, 41, 37]), (7, 6))[0]", 1, {3}, 3, {3, 6, 6}, 1},
    {"unravel_index(array([22, 41, 37]), (7, 6))[1]", 1, {3}, 3, {4, 5, 1}, 1},
    {"unravel_index(array([[22, 41, 37]]), (7, 6), order='F')[1]", 2, {1, 3}, 3, {3, 5, 5}, 1},
    {"unravel_index(5, (2, 3, 1))[1]", 0, {0}, 1, {2}, 1},
    {"ravel_multi_index((array([3, 6, 6]), array([4, 5, 1])), (7, 6))", 1, {3}, 3, {22, 41, 37}, 1},
    {"ravel_multi_index((array([3, 7]), array([-1, 5])), (7, 6), mode=('clip', 'wrap'))",
     1,
     {2},
     2,
     {23, 41},
     1},
    {"ravel_multi_index(array([[3, 6], [4, 5]]), (7, 6), order='F')", 1, {2}, 2, {31, 41}, 1},
    {"tril_indices(3, 1, 4)[1]", 1, {9}, 9, {0, 1, 0, 1, 2, 0, 1, 2, 3}, 1},
    {"triu_indices(4, -1, 3)[0]", 1, {9}, 9, {0, 0, 0, 1, 1, 1, 2, 2, 3}, 1},
    {"tril_indices_from(zeros((3, 2)))[0]", 1, {5}, 5, {0, 1, 1, 2, 2}, 1},
    {"triu_indices_from(zeros((2, 4)), 2)[1]", 1, {3}, 3, {2, 3, 3}, 1},
    {"tril_indices(0)[0]", 1, {0}, 0, {0}, 1},
    {"diag_indices(3)[1]", 1, {3}, 3, {0, 1, 2}, 1},
    {"diag_indices_from(zeros((2, 2, 2)))[2]", 1, {2}, 2, {0, 1}, 1},
    {"ix_([True, False, True], [2, 1])[0]", 2, {2, 1}, 2, {0, 2}, 1},
    {"ix_([True, False, True], [2, 1])[1]", 2, {1, 2}, 2, {2, 1}, 1},
    {"put(arange(6), [0, 5], [9, 8])", 1, {6}, 6, {9, 1, 2, 3, 4, 8}, 1},
    {"put(arange(6), [7, -8], [1, 2], mode='wrap')", 1, {6}, 6, {0, 1, 2, 3, 2, 5}, 1},
    {"put_along_axis(arange(6).reshape(2,3), array([[2], [0]]), 9, axis=1)",
     2,
     {2, 3},
     6,
     {0, 1, 9, 9, 4, 5},
     1},
    {"place(arange(6), arange(6) % 2 == 1, [7, 8])", 1, {6}, 6, {0, 7, 2, 8, 4, 7}, 1},
    {"putmask(arange(6), arange(6) % 2 == 1, [7, 8])", 1, {6}, 6, {0, 8, 2, 8, 4, 8}, 1},
    {"copyto(arange(6.0).reshape(2,3), array([1, 2, 3]), where=array([True, False, True]))",
     2,
     {2, 3},
     6,
     {2, 2, 6, 2, 8, 6},
     2},
    {"copyto(arange(3.0), 1.5, casting='no')", 1, {3}, 3, {3, 3, 3}, 2}, /* (Python float) */
    {"copyto(arange(3), 7, casting='equiv')", 1, {3}, 3, {7, 7, 7}, 1},  /* (int64's own) */
    {"fill_diagonal(zeros((5, 2), dtype='int64'), [3, 4], wrap=True)",
     2,
     {5, 2},
     10,
     {3, 0, 0, 4, 0, 0, 3, 0, 0, 4},
     1},
    {"fill_diagonal(zeros((3, 3, 3), dtype='int64'), 7)[1]",
     2,
     {3, 3},
     9,
     {0, 0, 0, 0, 7, 0, 0, 0, 0},
     1},
    {"setxor1d(arange(6) % 4, array([3, 7]))", 1, {4}, 4, {0, 1, 2, 7}, 1},
    {"setxor1d(array([1, 2, 2]), array([2, 3]), assume_unique=True)", 1, {2}, 2, {1, 3}, 1},
};

static const check_value_case_t helper_float_cases[] = {
    {"histogram(arange(8) * 0.5, bins=4, density=True)[0]",
     1,
     {4},
     4,
     {0.2857142857142857, 0.2857142857142857, 0.2857142857142857, 0.2857142857142857},
     "float64"},
    {"histogram(arange(4), bins=array([0, 2, 5]), weights=arange(4), density=True)[0]",
     1,
     {2},
     2,
     {0.08333333333333333, 0.2777777777777778},
     "float64"},
    {"histogram(array([]), bins=2, density=True)[0]", 1, {2}, 2, {NAN, NAN}, "float64"},
    {"histogram_bin_edges(arange(10), bins=4)", 1, {5}, 5, {0.0, 2.25, 4.5, 6.75, 9.0}, "float64"},
    {"histogram_bin_edges(arange(10, dtype='float32'), bins=3, range=(1, 2))",
     1,
     {4},
     4,
     {1.0, 1.3333333730697632, 1.6666666269302368, 2.0},
     "float32"},
    {"histogram_bin_edges(arange(10), bins=[0, 1, 5])", 1, {3}, 3, {0.0, 1.0, 5.0}, "int64"},
    {"histogram2d(arange(6) * 1.0, arange(6) % 3, bins=(2, 3))[0]",
     2,
     {2, 3},
     6,
     {1.0, 1.0, 1.0, 1.0, 1.0, 1.0},
     "float64"},
    {"histogram2d(arange(6) * 1.0, arange(6) % 3, bins=(2, 3))[2]",
     1,
     {4},
     4,
     {0.0, 0.6666666666666666, 1.3333333333333333, 2.0},
     "float64"},
    {"histogram2d(arange(6), arange(6) % 3, bins=array([0, 1, 3]))[0]",
     2,
     {2, 2},
     4,
     {1.0, 0.0, 1.0, 2.0},
     "float64"},
    {"histogram2d(arange(5), arange(5) % 3, bins=3, range=((0, 3), (0, 2)), density=True)[0]",
     2,
     {3, 3},
     9,
     {0.375, 0.0, 0.0, 0.0, 0.375, 0.0, 0.375, 0.0, 0.37499999999999994},
     "float64"},
    {"histogramdd(arange(12).reshape(6, 2), bins=2)[0]",
     2,
     {2, 2},
     4,
     {3.0, 0.0, 0.0, 3.0},
     "float64"},
    {"histogramdd(arange(12).reshape(6, 2), bins=(2, 3), range=((0, 10), (0, 6)), "
     "weights=arange(6))[0]",
     2,
     {2, 3},
     6,
     {0.0, 1.0, 2.0, 0.0, 0.0, 0.0},
     "float64"},
    {"histogramdd((arange(4), arange(4) % 2), bins=2)[2]", 1, {3}, 3, {0.0, 0.5, 1.0}, "float64"},
    {"histogramdd(arange(5.0), bins=(array([0, 1, 4]),), density=True)[0]",
     1,
     {2},
     2,
     {0.2, 0.26666666666666666},
     "float64"},
    {"setxor1d(array([1.5, nan, 2]), array([2, nan]))", 1, {3}, 3, {1.5, NAN, NAN}, "float64"},
};

/* NumPy's bin estimators: the number of bins (the edges' length less one). */
static const check_value_case_t estimator_cases[] = {
    {"histogram_bin_edges(arange(10), bins='sturges')",
     1,
     {6},
     6,
     {0, 1.8, 3.6, 5.4, 7.2, 9},
     "float64"},
    {"histogram_bin_edges(arange(10) ** 2, bins='auto')",
     1,
     {6},
     6,
     {0, 16.2, 32.4, 48.6, 64.8, 81},
     "float64"},
    {"histogram(arange(10) ** 2, bins='fd')[0]", 1, {3}, 3, {6, 2, 2}, "int64"},
    {"histogram_bin_edges(arange(10.0), bins='sqrt', range=(2, 8))",
     1,
     {4},
     4,
     {2, 4, 6, 8},
     "float64"},
    {"histogram_bin_edges(arange(10) ** 3 * 1.0, bins='doane')",
     1,
     {7},
     7,
     {0, 121.5, 243, 364.5, 486, 607.5, 729},
     "float64"},
    {"histogram_bin_edges(arange(10) * 1.0, bins='scott')", 1, {3}, 3, {0, 4.5, 9}, "float64"},
    {"histogram_bin_edges(arange(10) * 1.0, bins='rice')",
     1,
     {6},
     6,
     {0, 1.8, 3.6, 5.4, 7.2, 9},
     "float64"},
};

static void test_index_helpers_numpy_cases(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    for (size_t c = 0; c < sizeof helper_cases / sizeof *helper_cases; c++) {
        const take_case_t *k = &helper_cases[c];
        check_expr_values(ctx, k->expr, NULL, k->ndim, k->shape, k->n, k->want, k->scale, NULL, 0);
    }
    check_value_cases(ctx, helper_float_cases,
                      sizeof helper_float_cases / sizeof *helper_float_cases, 1e-15);
    check_value_cases(ctx, estimator_cases, sizeof estimator_cases / sizeof *estimator_cases,
                      1e-15);
    loom_ctx_destroy(ctx);
}

/* NumPy's errors (messages as NumPy words them), and the C API's argument checks. */
static void test_index_helpers_errors(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    static const struct {
        const char *expr, *phrase;
    } errs[] = {
        {"unravel_index(10, (2, 3))", "index 10 is out of bounds for array with size 6"},
        {"unravel_index(array([1, -1]), (2, 3))",
         "index -1 is out of bounds for array with size 6"},
        {"unravel_index(0, (0, 3))", "index 0 is out of bounds for array with size 0"},
        {"unravel_index(1.0, (2, 3))", "only int indices permitted"},
        {"unravel_index(1, (2, 3), order='A')", "only 'C' or 'F' order is permitted"},
        {"ravel_multi_index((array([1, 2]), array([0, 1])), (2, 3))",
         "invalid entry in coordinates array"},
        {"ravel_multi_index((array([1]), array([-1])), (2, 3))",
         "invalid entry in coordinates array"},
        {"ravel_multi_index((array([1]),), (2, 3))",
         "parameter multi_index must be a sequence of length 2"},
        {"ravel_multi_index((array([1]), array([1])), (2, 3), mode=('wrap',))",
         "list of clipmodes has wrong length (1 instead of 2)"},
        {"ravel_multi_index((array([1]), array([1])), (2, 3), mode='foo')",
         "clipmode must be one of 'clip', 'raise', or 'wrap'"},
        {"ravel_multi_index((array([1.0]), array([1])), (2, 3))", "only int indices permitted"},
        {"tril_indices(-1)", "negative dimensions are not allowed"},
        {"tril_indices_from(zeros(3))", "input array must be 2-d"},
        {"diag_indices_from(zeros(3))", "input array must be at least 2-d"},
        {"diag_indices_from(zeros((2, 3)))", "All dimensions of input must be of equal length"},
        {"ix_(zeros((2, 2)))", "Cross index must be 1 dimensional"},
        {"put(arange(3), [0], [1], mode='foo')", "clipmode must be one of"},
        {"place(arange(3), arange(3) > 0, [])", "cannot insert from an empty array"},
        {"place(arange(3), [True], [1])", "mask and data must be the same size"},
        {"putmask(arange(3), [True], [1])", "mask and data must be the same size"},
        {"copyto(arange(3), arange(3) * 1.5)",
         "Cannot cast array data from dtype('float64') to dtype('int64') according to the rule "
         "'same_kind'"},
        {"copyto(arange(3), 2.5)", "Cannot cast scalar from dtype('float64') to dtype('int64')"},
        {"copyto(arange(3).astype('int8'), arange(3), casting='safe')",
         "according to the rule 'safe'"},
        {"copyto(arange(3), arange(2))",
         "could not broadcast input array from shape (2,) into shape (3,)"},
        {"copyto(arange(3), 1, casting='bad')", "casting must be one of"},
        {"copyto(arange(3).astype('int8'), 1, casting='equiv')",
         "Cannot cast scalar from dtype('int64') to dtype('int8') according to the rule 'equiv'"},
        {"copyto(arange(3), True, casting='no')",
         "Cannot cast scalar from dtype('bool') to dtype('int64') according to the rule 'no'"},
        {"copyto(arange(3.0), 1, where=arange(3))",
         "to dtype('bool') according to the rule 'safe'"},
        {"fill_diagonal(zeros(3), 1)", "array must be at least 2-d"},
        {"fill_diagonal(zeros((2, 3, 2)), 1)", "All dimensions of input must be of equal length"},
        {"histogram(arange(3), bins='stone')",
         "the estimator 'stone' of int64 data is not supported"},
        {"histogram(arange(3), bins='auto', weights=arange(3))",
         "Automated estimation of the number of bins is not supported for weighted data"},
        {"histogram(array([1.0, nan]), bins='auto')",
         "autodetected range of [nan, nan] is not finite"},
        {"histogram_bin_edges(arange(3), bins='foo')", "'foo' is not a valid estimator for `bins`"},
        {"histogram2d(arange(3), arange(2))", "x and y must have the same length."},
        {"histogramdd(zeros((3, 2)), bins=(2, 2, 2))",
         "The dimension of bins must be equal to the dimension of the sample x."},
        {"histogramdd(zeros((3, 2)), bins=(2, 0))", "`bins[1]` must be positive, when an integer"},
        {"histogramdd(zeros((3, 2)), range=((0, 1), (2, 1)))",
         "max must be larger than min in range parameter"},
    };
    for (size_t c = 0; c < sizeof errs / sizeof *errs; c++)
        check_expr_error(ctx, errs[c].expr, errs[c].phrase);
    /* put's raise mode checks the indices where they are, when the eval runs */
    check_expr_error(ctx, "put(arange(3), [5], [1])",
                     "index 5 is out of bounds for axis 0 with size 3");

    /* the C API: NULL ctx, bad arguments, the statuses */
    loom_array_t *outs[4];
    int64_t dims[2] = {2, 3};
    assert_null(loom_putmask(NULL, NULL, NULL, NULL));
    assert_int_equal(loom_unravel_index(NULL, NULL, 2, dims, 0, outs),
                     LOOM_STATUS_INVALID_ARGUMENT);
    assert_int_equal(loom_tril_indices(ctx, 3, 0, LOOM_NONE, NULL), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    loom_array_t *i = loom_arange_int(ctx, 0, 6, 1, LOOM_DTYPE_I32);
    assert_int_equal(loom_unravel_index(ctx, i, 2, dims, 0, outs), LOOM_STATUS_OK);
    loom_array_t *back = loom_ravel_multi_index(ctx, 2, outs, dims, NULL, 0);
    assert_false(loom_array_is_nil(back));
    int64_t got[6];
    assert_int_equal(loom_read(ctx, back, got, sizeof got), LOOM_STATUS_OK);
    for (int k = 0; k < 6; k++) assert_int_equal(got[k], k);
    loom_take_mode_t bad_mode[2] = {LOOM_TAKE_RAISE, (loom_take_mode_t)7};
    assert_true(loom_array_is_nil(loom_ravel_multi_index(ctx, 2, outs, dims, bad_mode, 0)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_true(loom_array_is_nil(loom_copyto(ctx, i, i, (loom_casting_t)9, NULL)));
    loom_ctx_clear_error(ctx);
    /* the C forms of what the expression language composes */
    loom_scope_begin(ctx);
    loom_array_t *data = loom_arange_int(ctx, 0, 10, 1, LOOM_DTYPE_I64);
    double lo = NAN, hi = NAN, dv[6];
    int64_t nb = 0;
    assert_int_equal(loom_histogram_bin_count(ctx, data, "sturges", &lo, &hi, &nb), LOOM_STATUS_OK);
    assert_int_equal(nb, 5);
    assert_true(lo == 0 && hi == 9);
    assert_int_equal(loom_histogram_bin_count(ctx, data, "stone", &lo, &hi, &nb),
                     LOOM_STATUS_NOT_AVAILABLE);
    loom_ctx_clear_error(ctx);
    loom_array_t *e = loom_histogram_bin_edges(ctx, data, (int64_t)nb, NULL, lo, hi, NULL);
    assert_int_equal(loom_read(ctx, e, dv, 6 * sizeof *dv), LOOM_STATUS_OK);
    assert_true(dv[1] == 1.8 && dv[5] == 9);
    loom_array_t *h, *he;
    assert_int_equal(loom_histogram(ctx, data, 2, NULL, NAN, NAN, NULL, &h, &he), LOOM_STATUS_OK);
    assert_int_equal(loom_read(ctx, loom_histogram_density(ctx, h, he), dv, 2 * sizeof *dv),
                     LOOM_STATUS_OK);
    assert_true(dv[0] == 5.0 / 4.5 / 10 && dv[1] == dv[0]);
    assert_true(loom_array_is_nil(loom_histogram_density(ctx, h, h))); /* edges: one more */
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_SHAPE_MISMATCH);
    loom_ctx_clear_error(ctx);
    int64_t s33[2] = {3, 3};
    loom_array_t *sq = loom_zeros(ctx, LOOM_DTYPE_F32, 2, s33);
    float fv[9];
    loom_array_t *fd = loom_fill_diagonal(ctx, sq, loom_weak_float(ctx, 2.5), 0);
    assert_int_equal(loom_read(ctx, fd, fv, sizeof fv), LOOM_STATUS_OK);
    assert_true(fv[0] == 2.5f && fv[4] == 2.5f && fv[8] == 2.5f && fv[1] == 0);
    loom_array_t *ct = loom_copyto(ctx, sq, loom_weak_int(ctx, 7), LOOM_CASTING_SAME_KIND, NULL);
    assert_int_equal(loom_read(ctx, ct, fv, sizeof fv), LOOM_STATUS_OK);
    assert_true(fv[0] == 7 && fv[8] == 7);
    assert_int_equal(loom_diag_indices(ctx, 3, 3, outs), LOOM_STATUS_OK);
    assert_int_equal(loom_array_dim(outs[2], 0), 3);
    loom_array_t *ixin[2] = {data, loom_greater(ctx, data, loom_weak_int(ctx, 7))};
    assert_int_equal(loom_ix(ctx, 2, ixin, outs), LOOM_STATUS_OK);
    assert_int_equal(loom_array_dim(outs[0], 0), 10);
    assert_int_equal(loom_array_dim(outs[1], 1), 2);
    loom_scope_end(ctx);
    /* tril and triu indices of many shapes: the closed-form count is nonzero's */
    for (int64_t n = 0; n < 5; n++)
        for (int64_t m = 0; m < 5; m++)
            for (int64_t k = -6; k <= 6; k++)
                for (int up = 0; up < 2; up++) {
                    loom_scope_begin(ctx);
                    assert_int_equal(
                        (up ? loom_triu_indices : loom_tril_indices)(ctx, n, k, m, outs),
                        LOOM_STATUS_OK);
                    loom_array_t *t = loom_tri(ctx, n, m, up ? k - 1 : k, LOOM_DTYPE_BOOL);
                    if (up) t = loom_logical_not(ctx, t);
                    loom_array_t *want[2];
                    assert_int_equal(loom_nonzero(ctx, t, 2, want), LOOM_STATUS_OK);
                    for (int a = 0; a < 2; a++) {
                        int64_t len = loom_array_dim(want[a], 0);
                        assert_int_equal(loom_array_dim(outs[a], 0), len);
                        if (len == 0) continue;
                        int64_t g[25], w[25];
                        assert_int_equal(loom_read(ctx, outs[a], g, (size_t)len * 8),
                                         LOOM_STATUS_OK);
                        assert_int_equal(loom_read(ctx, want[a], w, (size_t)len * 8),
                                         LOOM_STATUS_OK);
                        assert_memory_equal(g, w, (size_t)len * 8);
                    }
                    loom_scope_end(ctx);
                }
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take_numpy_cases),
        cmocka_unit_test(test_choose_weak_scalars),    cmocka_unit_test(test_take_errors),
        cmocka_unit_test(test_take_dtypes),         cmocka_unit_test(test_masks_c_api),
        cmocka_unit_test(test_sort_properties),     cmocka_unit_test(test_scatter_c_api),
        cmocka_unit_test(test_top_k_and_partition),
        cmocka_unit_test(test_index_helpers_numpy_cases),
        cmocka_unit_test(test_index_helpers_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
