/* test_manip — NumPy's manipulation functions (swapaxes, atleast_nd, tril/triu, diagonal, trace,
 * diag, roll, repeat, tile, diff, rot90, *_like, outer, inner, vecdot, kron, meshgrid, split,
 * array_split, pad, tri, indices, broadcast_arrays, ediff1d, the stacking and block functions,
 * hsplit/vsplit/dsplit, fliplr/flipud, rollaxis, append, insert, delete, resize, trim_zeros,
 * diagflat, identity) on the CPU reference device, against values, shapes
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
    /* the statistic modes, linear_ramp, odd reflections and per-axis constants */
    {"pad(arange(6).reshape(2, 3), ((1, 2), (2, 1)), mode='maximum')",
     2, {5, 6}, 30, {5, 5, 3, 4, 5, 5, 2, 2, 0, 1, 2, 2, 5, 5, 3, 4, 5, 5, 5, 5, 3, 4, 5, 5, 5, 5, 3, 4, 5, 5}, 1, "int64"},
    {"pad(arange(6).reshape(2, 3), 2, mode='minimum', stat_length=1)",
     2, {6, 7}, 42, {0, 0, 0, 1, 2, 2, 2, 0, 0, 0, 1, 2, 2, 2, 0, 0, 0, 1, 2, 2, 2, 3, 3, 3, 4, 5, 5, 5, 3, 3, 3, 4, 5, 5, 5, 3, 3, 3, 4, 5, 5, 5}, 1, "int64"},
    {"pad(arange(7), (3, 2), mode='mean', stat_length=(2, 3))",
     1, {12}, 12, {0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 5, 5}, 1, "int64"},
    {"pad(array([1, 2, 4, 8]), 3, mode='mean')",
     1, {10}, 10, {4, 4, 4, 1, 2, 4, 8, 4, 4, 4}, 1, "int64"},
    {"pad(arange(6.0).reshape(2, 3), 1, mode='median')",
     2, {4, 5}, 20, {5, 3, 5, 7, 5, 2, 0, 2, 4, 2, 8, 6, 8, 10, 8, 5, 3, 5, 7, 5}, 2, "float64"},
    {"pad(array([1, 3, 4, 10]), (2, 1), mode='median', stat_length=((2, 2),))",
     1, {7}, 7, {2, 2, 1, 3, 4, 10, 7}, 1, "int64"},
    {"pad(array([1, 3, 4, 10]), (5, 3), mode='linear_ramp', end_values=(5, -4))",
     1, {12}, 12, {5, 4, 3, 2, 1, 1, 3, 4, 10, 5, 0, -4}, 1, "int64"},
    {"pad(arange(4.0).reshape(2, 2), ((2, 1), (1, 2)), mode='linear_ramp', end_values=((1, 2), (3, 4)))",
     2, {5, 5}, 25, {6, 2, 2, 5, 8, 6, 1, 2, 5, 8, 6, 0, 2, 5, 8, 6, 4, 6, 7, 8, 6, 4, 4, 6, 8}, 2, "float64"},
    {"pad(array([1, 2, 4]), (7, 8), mode='reflect', reflect_type='odd')",
     1, {18}, 18, {-10, -8, -6, -5, -4, -2, 0, 1, 2, 4, 6, 7, 8, 10, 12, 13, 14, 16}, 1, "int64"},
    {"pad(array([1, 2, 4]), (7, 8), mode='symmetric', reflect_type='odd')",
     1, {18}, 18, {-5, -5, -4, -2, -2, 0, 1, 1, 2, 4, 4, 6, 7, 7, 8, 10, 10, 12}, 1, "int64"},
    {"pad(array([5]), 3, mode='reflect', reflect_type='odd')",
     1, {7}, 7, {5, 5, 5, 5, 5, 5, 5}, 1, "int64"},
    {"pad(arange(6).reshape(2, 3), ((1, 2), (2, 1)), constant_values=((1, 2), (3, 4)))",
     2, {5, 6}, 30, {3, 3, 1, 1, 1, 4, 3, 3, 0, 1, 2, 4, 3, 3, 3, 4, 5, 4, 3, 3, 2, 2, 2, 4, 3, 3, 2, 2, 2, 4}, 1, "int64"},
    {"pad(zeros((0, 2)), ((1, 1), (0, 0)), constant_values=((1, 2), (3, 4)))",
     2, {2, 2}, 4, {2, 2, 4, 4}, 2, "float64"},
    {"pad(arange(5, dtype='int8'), 2, mode='mean', stat_length=2)",
     1, {9}, 9, {0, 0, 0, 1, 2, 3, 4, 4, 4}, 1, "int8"},
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
     3, {4, 3, 2}, 24, {6, 30, 14, 38, 22, 46, 4, 28, 12, 36, 20, 44, 2, 26, 10, 34, 18, 42, 0, 24, 8, 32, 16, 40}, 2, "float64"},    /* Python's slice() as an index, as insert's and delete's obj is written */
    {"arange(12).reshape(3, 4)[slice(None, None, -1), slice(2)]",
     2, {3, 2}, 6, {8, 9, 4, 5, 0, 1}, 1, "int64"},
    {"arange(12).reshape(3, 4)[[0, 2], slice(1, 3)]",
     2, {2, 2}, 4, {1, 2, 9, 10}, 1, "int64"},
    /* stacking, block, the splits, flips, rollaxis, append, insert, delete, resize, trim_zeros,
     * diagflat, identity */
    {"hstack((array([1, 2]), array([3.5])))",
     1, {3}, 3, {2, 4, 7}, 2, "float64"},
    {"hstack((arange(4).reshape(2, 2), ones((2, 1), dtype='int8')))",
     2, {2, 3}, 6, {0, 1, 1, 2, 3, 1}, 1, "int64"},
    {"vstack((array([1, 2, 3]), arange(6).reshape(2, 3)))",
     2, {3, 3}, 9, {1, 2, 3, 0, 1, 2, 3, 4, 5}, 1, "int64"},
    {"vstack((array(1), array(2)))",
     2, {2, 1}, 2, {1, 2}, 1, "int64"},
    {"dstack((array([1, 2]), array([3, 4])))",
     3, {1, 2, 2}, 4, {1, 3, 2, 4}, 1, "int64"},
    {"column_stack((array([1, 2]), arange(4).reshape(2, 2), array([7, 8])))",
     2, {2, 4}, 8, {1, 0, 1, 7, 2, 2, 3, 8}, 1, "int64"},
    {"block([[eye(2, dtype='int64'), zeros((2, 1), dtype='int64')], [array([[5, 6, 7]])]])",
     2, {3, 3}, 9, {1, 0, 0, 0, 1, 0, 5, 6, 7}, 1, "int64"},
    {"block([array([1, 2]), 3, array([4.5])])",
     1, {4}, 4, {2, 4, 6, 9}, 2, "float64"},
    {"block([[[1], [2]], [[3], [4]]])",
     3, {2, 2, 1}, 4, {1, 2, 3, 4}, 1, "int64"},
    {"block(array([1, 2]))",
     1, {2}, 2, {1, 2}, 1, "int64"},
    {"hsplit(arange(12).reshape(2, 6), 3)[1]",
     2, {2, 2}, 4, {2, 3, 8, 9}, 1, "int64"},
    {"hsplit(arange(6), [2, 5])[1]",
     1, {3}, 3, {2, 3, 4}, 1, "int64"},
    {"vsplit(arange(12).reshape(4, 3), [1])[1]",
     2, {3, 3}, 9, {3, 4, 5, 6, 7, 8, 9, 10, 11}, 1, "int64"},
    {"dsplit(arange(8).reshape(2, 1, 4), 2)[1]",
     3, {2, 1, 2}, 4, {2, 3, 6, 7}, 1, "int64"},
    {"fliplr(arange(6).reshape(2, 3))",
     2, {2, 3}, 6, {2, 1, 0, 5, 4, 3}, 1, "int64"},
    {"flipud(arange(6).reshape(3, 2))",
     2, {3, 2}, 6, {4, 5, 2, 3, 0, 1}, 1, "int64"},
    {"rollaxis(arange(24).reshape(2, 3, 4), 2)",
     3, {4, 2, 3}, 24, {0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}, 1, "int64"},
    {"rollaxis(arange(24).reshape(2, 3, 4), 0, 2)",
     3, {3, 2, 4}, 24, {0, 1, 2, 3, 12, 13, 14, 15, 4, 5, 6, 7, 16, 17, 18, 19, 8, 9, 10, 11, 20, 21, 22, 23}, 1, "int64"},
    {"rollaxis(arange(24).reshape(2, 3, 4), 1, 3)",
     3, {2, 4, 3}, 24, {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 12, 16, 20, 13, 17, 21, 14, 18, 22, 15, 19, 23}, 1, "int64"},
    {"append(arange(4).reshape(2, 2), array([9.5]))",
     1, {5}, 5, {0, 2, 4, 6, 19}, 2, "float64"},
    {"append(arange(4).reshape(2, 2), array([[7, 8]]), axis=0)",
     2, {3, 2}, 6, {0, 1, 2, 3, 7, 8}, 1, "int64"},
    {"insert(arange(5), 2, 9)",
     1, {6}, 6, {0, 1, 9, 2, 3, 4}, 1, "int64"},
    {"insert(arange(5), -1, array([7, 8]))",
     1, {7}, 7, {0, 1, 2, 3, 7, 8, 4}, 1, "int64"},
    {"insert(arange(5), [-7, 1, 5, 1], array([10, 11, 12, 13]))",
     1, {9}, 9, {0, 1, 11, 13, 2, 3, 4, 10, 12}, 1, "int64"},
    {"insert(arange(6).reshape(2, 3), 1, array([7, 8]), axis=1)",
     2, {2, 4}, 8, {0, 7, 1, 2, 3, 8, 4, 5}, 1, "int64"},
    {"insert(arange(6).reshape(2, 3), [1], array([[7], [8]]), axis=1)",
     2, {2, 4}, 8, {0, 7, 1, 2, 3, 8, 4, 5}, 1, "int64"},
    {"insert(arange(6).reshape(2, 3), [0, 3], 9, axis=1)",
     2, {2, 5}, 10, {9, 0, 1, 2, 9, 9, 3, 4, 5, 9}, 1, "int64"},
    {"insert(arange(6.0).reshape(2, 3), 0, 2.5)",
     1, {7}, 7, {5, 0, 2, 4, 6, 8, 10}, 2, "float64"},
    {"insert(arange(5), slice(1, None, 2), array([7, 8]))",
     1, {7}, 7, {0, 7, 1, 2, 8, 3, 4}, 1, "int64"},
    {"insert(arange(5), [], 9)",
     1, {5}, 5, {0, 1, 2, 3, 4}, 1, "int64"},
    {"insert(arange(4), array([True, False, True, False]), 9)",
     1, {6}, 6, {9, 0, 1, 9, 2, 3}, 1, "int64"},
    {"delete(arange(6).reshape(2, 3), 1, axis=1)",
     2, {2, 2}, 4, {0, 2, 3, 5}, 1, "int64"},
    {"delete(arange(6).reshape(2, 3), -1)",
     1, {5}, 5, {0, 1, 2, 3, 4}, 1, "int64"},
    {"delete(arange(6), [0, -1, 0])",
     1, {4}, 4, {1, 2, 3, 4}, 1, "int64"},
    {"delete(arange(6).reshape(3, 2), [[0, 2]], axis=0)",
     2, {1, 2}, 2, {2, 3}, 1, "int64"},
    {"delete(arange(6), array([True, False, True, False, False, True]))",
     1, {3}, 3, {1, 3, 4}, 1, "int64"},
    {"delete(arange(10), slice(8, 1, -3))",
     1, {7}, 7, {0, 1, 3, 4, 6, 7, 9}, 1, "int64"},
    {"delete(arange(10), slice(2, None))",
     1, {2}, 2, {0, 1}, 1, "int64"},
    {"delete(arange(6), slice(4, 1))",
     1, {6}, 6, {0, 1, 2, 3, 4, 5}, 1, "int64"},
    {"resize(array([1, 2, 3]), (2, 4))",
     2, {2, 4}, 8, {1, 2, 3, 1, 2, 3, 1, 2}, 1, "int64"},
    {"resize(arange(6.0).reshape(2, 3), 4)",
     1, {4}, 4, {0, 2, 4, 6}, 2, "float64"},
    {"resize(array([1, 2]), (0, 3))",
     2, {0, 3}, 0, {0}, 1, "int64"},
    {"resize(zeros(0, dtype='int8'), 3)",
     1, {3}, 3, {0, 0, 0}, 1, "int8"},
    {"trim_zeros(array([0, 0, 3, 0, 4, 0]))",
     1, {3}, 3, {3, 0, 4}, 1, "int64"},
    {"trim_zeros(array([0, 0, 3, 0, 4, 0]), 'f')",
     1, {4}, 4, {3, 0, 4, 0}, 1, "int64"},
    {"trim_zeros(array([0, 0, 3, 0, 4, 0]), trim='B')",
     1, {5}, 5, {0, 0, 3, 0, 4}, 1, "int64"},
    {"trim_zeros(array([[0, 0, 0], [0, 2, 0], [0, 0, 3]]))",
     2, {2, 2}, 4, {2, 0, 0, 3}, 1, "int64"},
    {"trim_zeros(array([[0, 0, 0], [0, 2, 0], [0, 0, 3]]), axis=1)",
     2, {3, 2}, 6, {0, 0, 2, 0, 0, 3}, 1, "int64"},
    {"trim_zeros(zeros((2, 3)), axis=0)",
     2, {0, 3}, 0, {0}, 2, "float64"},
    {"diagflat(array([[1, 2], [3, 4]]))",
     2, {4, 4}, 16, {1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4}, 1, "int64"},
    {"diagflat(array([1.5, 2]), -1)",
     2, {3, 3}, 9, {0, 0, 0, 3, 0, 0, 0, 4, 0}, 2, "float64"},
    {"identity(3)",
     2, {3, 3}, 9, {2, 0, 0, 0, 2, 0, 0, 0, 2}, 2, "float64"},
    {"identity(2, dtype='int8')",
     2, {2, 2}, 4, {1, 0, 0, 1}, 1, "int8"},
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
        {"pad(arange(3), 1, mode='average')", "mode 'average' is not supported"},
        {"pad(arange(3), 1, mode='edge', constant_values=2)",
         "unsupported keyword arguments for mode 'edge': {'constant_values'}"},
        {"pad(arange(3), 1, mode='maximum', stat_length=0)", "stat_length of 0 yields no value"},
        {"pad(arange(3), 1, mode='mean', stat_length=-1)", "index can't contain negative values"},
        {"pad(arange(6).reshape(2, 3), 1, constant_values=(1, 2, 3))", "does not broadcast"},
        {"pad(arange(3), 1, mode='reflect', reflect_type='even-odd')", "'even' or 'odd'"},
        {"pad(zeros((0, 3)), 1, mode='mean')", "can't extend empty axis 0"},
        /* found by the conformance suite: ediff1d subtracts and casts its ends same_kind */
        {"ediff1d(array([True, False]))", "the boolean `-` operator"},
        {"ediff1d(arange(3).astype('uint8'), to_begin=0)", "under the `same_kind` rule"},
        {"hstack(())", "need at least one array to concatenate"},
        {"vstack((arange(2), arange(3)))", "must match exactly"},
        {"hstack((arange(2.0), arange(3)), dtype='int8')", "according to the rule 'same_kind'"},
        {"block([])", "List at arrays cannot be empty"},
        {"block([[1], []])", "List at arrays[1] cannot be empty"},
        {"block([[1], 2])", "First element was at depth 2, but there is an element at depth 1 "
                            "(arrays[1])"},
        {"block([1, [2]])", "First element was at depth 1, but there is an element at depth 2 "
                            "(arrays[1][0])"},
        {"block([[ones((2, 2))], [ones((3, 3))]])", "must match exactly"},
        {"hsplit(array(1), 2)", "hsplit only works on arrays of 1 or more dimensions"},
        {"vsplit(arange(4), 2)", "vsplit only works on arrays of 2 or more dimensions"},
        {"dsplit(ones((2, 2)), 2)", "dsplit only works on arrays of 3 or more dimensions"},
        {"hsplit(arange(5), 2)", "does not result in an equal division"},
        {"fliplr(arange(3))", "Input must be >= 2-d."},
        {"flipud(array(1))", "Input must be >= 1-d."},
        {"rollaxis(ones((2, 3)), 0, 5)", "'start' arg requires -2 <= start < 3, but 5"},
        {"rollaxis(ones((2, 3)), 3)", "axis 3 is out of bounds"},
        {"append(arange(3), ones((2, 2)), axis=0)", "same number of dimensions"},
        {"insert(arange(5), 6, 1)", "index 6 is out of bounds for axis 0 with size 5"},
        {"insert(arange(5), [-6], 1)", "index [-6] is out of bounds for axis 0 with size 5"},
        {"insert(arange(5), [[1, 2]], 1)", "must be one dimensional or scalar"},
        {"insert(arange(5), 1.5, 1)", "must be of integer (or boolean) type"},
        {"insert(arange(5), [1], array([[1, 2]]))", "cannot broadcast"},
        {"delete(arange(5), -6)", "index -6 is out of bounds for axis 0 with size 5"},
        {"delete(arange(5), [True, False])", "must be one dimensional and match the axis length "
                                             "of 5"},
        {"delete(arange(5), [1.5, 2.0])", "must be of integer (or boolean) type"},
        {"delete(arange(5), slice(1, 3, 0))", "slice step cannot be zero"},
        {"arange(5)[slice(1, 4, 0)]", "slice step cannot be zero"},
        {"arange(5)[slice(1.5)]", "slice indices must be integers or None"},
        {"delete(arange(6).reshape(2, 3), 0, axis=2)", "axis 2 is out of bounds"},
        {"resize(arange(3), (2, -1))", "all elements of `new_shape` must be non-negative"},
        {"trim_zeros(arange(3), 'x')", "unexpected character(s) in `trim`: 'x'"},
        {"trim_zeros(arange(3), 'ff')", "unexpected character(s) in `trim`: 'ff'"},
        {"identity(-1)", "negative"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        check_expr_error(ctx, bad[k][0], bad[k][1]);
    loom_ctx_destroy(ctx);
}

/* loom_block's pre-order description: a good one, and each way one can be inconsistent
 * (a nil result with INVALID_ARGUMENT, never a read past the lists). */
static void test_manip_block_api(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    loom_array_t *x = loom_arange_int(ctx, 0, 2, 1, LOOM_DTYPE_I64);
    loom_array_t *arrays[3] = {x, x, x};
    const int32_t ragged[3] = {2, 2, 1}; /* [[x, x], [x]]: (2, 4) and (2,) do not fit */
    const int32_t rows[3] = {2, 1, 1}; /* [[x], [x]] */
    loom_array_t *r = loom_block(ctx, 2, 3, rows, 2, arrays);
    int64_t got[4], want[4] = {0, 1, 0, 1};
    assert_int_equal(loom_read(ctx, r, got, sizeof got), LOOM_STATUS_OK);
    assert_memory_equal(got, want, sizeof got);
    assert_int_equal(loom_array_dim(r, 0), 2);
    r = loom_block(ctx, 2, 3, ragged, 3, arrays);
    assert_true(loom_array_is_nil(r));
    assert_non_null(strstr(loom_ctx_message(ctx), "must match exactly"));
    loom_ctx_clear_error(ctx);
    static const struct {
        int32_t depth, nlists, n;
        int32_t lens[3];
    } bad[] = {
        {2, 1, 2, {2}},       /* the inner lists' lengths missing */
        {2, 3, 1, {2, 1, 1}}, /* too few arrays */
        {1, 1, 3, {2}},       /* arrays left over */
        {1, 2, 2, {2, 1}},    /* lists left over */
        {1, 1, 2, {-1}},      /* a negative length */
        {1, 1, 2, {1 << 30}}, /* longer than the arrays */
        {9, 1, 1, {1}},       /* deeper than LOOM_MAX_DIMS */
        {0, 0, 2, {0}},       /* depth 0 is one array */
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        r = loom_block(ctx, bad[k].depth, bad[k].nlists, bad[k].lens, bad[k].n, arrays);
        assert_true(loom_array_is_nil(r));
        assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
        loom_ctx_clear_error(ctx);
    }
    const int32_t empty[2] = {1, 0};
    r = loom_block(ctx, 2, 2, empty, 1, arrays);
    assert_true(loom_array_is_nil(r));
    assert_non_null(strstr(loom_ctx_message(ctx), "List at arrays[0] cannot be empty"));
    loom_ctx_clear_error(ctx);
    r = loom_block(ctx, 0, 0, NULL, 1, arrays); /* np.block(x): x */
    assert_int_equal(loom_read(ctx, r, got, 2 * sizeof *got), LOOM_STATUS_OK);
    assert_null(loom_block(NULL, 0, 0, NULL, 1, arrays));
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_manip_numpy_cases),
        cmocka_unit_test(test_manip_errors),
        cmocka_unit_test(test_manip_block_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
