#!/usr/bin/env python3
"""Conformance: random NumPy expressions evaluated by NumPy 2 and by `loom eval`, compared.

Usage: conformance.py LOOM_BINARY [--n N] [--seed S] [--device cpu|cuda] [-v]

Each expression mixes operators, ufuncs, where/clip/astype, Python numbers (NEP 50 weak
scalars) and arrays of every NumPy dtype loom has, in shapes that broadcast together. NumPy's
answer and loom's must agree on dtype, shape and values (ints and bools exactly, floats within a
per-dtype tolerance, NaN where NaN); where NumPy raises, loom must fail too. Reductions (random
axes, keepdims, ddof), scans, views (reshape, transpose, .T, broadcast_to, expand_dims, squeeze,
flip, moveaxis), joins and basic indexing (ints, slices with negative steps, None, ...) are
generated from the NumPy shape of their operand, mostly valid, sometimes not (both must refuse).
Constructs loom does not evaluate yet (out=, views of other dtypes) must fail with
"not supported yet". Matrix products (`@`, matmul, dot) are generated too; shapes that do not
contract must fail in both.
Failing expressions are printed exactly, with both answers. Exit 0 = all agree, 1 = failures,
77 = skipped (NumPy not installed). Seeded: the same seed gives the same expressions.
"""
import argparse
import builtins
import os
import random
import re
import subprocess
import sys
import tempfile
import warnings

try:
    import numpy as np
except ImportError:
    print("conformance: numpy is not installed; skipping")
    sys.exit(77)
if int(np.__version__.split(".")[0]) < 2 or not hasattr(np, "astype"):
    print("conformance: NumPy %s is older than 2.1 (NEP 50, np.astype); skipping" % np.__version__)
    sys.exit(77)

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]
SHAPES = [(), (1,), (5,), (3, 1), (1, 5), (3, 5), (2, 1, 5), (2, 3, 5), (5, 3)]
UNARY = ["negative", "positive", "abs", "sign", "sqrt", "cbrt", "square", "reciprocal", "exp",
         "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
         "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "floor",
         "ceil", "trunc", "rint", "isnan", "isinf", "isfinite", "logical_not", "invert",
         "deg2rad", "rad2deg", "spacing", "signbit", "i0", "sinc", "fix", "isposinf",
         "isneginf", "fabs", "bitwise_count"]
BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
          "maximum", "minimum", "fmax", "fmin", "arctan2", "hypot", "copysign", "equal",
          "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
          "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
          "left_shift", "right_shift", "logaddexp", "logaddexp2", "nextafter", "heaviside",
          "gcd", "lcm", "ldexp", "float_power", "fmod"]
OPS = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "<", "<=", ">", ">=",
       "==", "!="]
LATER = ["cumsum({x}, out={x})", "{x}.view('int8')"]
# Gathers, masks, sorts, sets, the manipulation functions built from them and the NaN-ignoring
# reductions, over the same random inputs (0-d, empty, non-contiguous,
# NaN and duplicates included). Sorts ask for NumPy's stable kind: loom's sorts are stable.
INDEXING = ["{x}[{x} > 0]", "{x}[{x} != {x}]", "flatnonzero({x})", "count_nonzero({x})",
            "argwhere({x})", "nonzero({x})[0]", "sort({x}, kind='stable')",
            "sort({x}, axis=None, kind='stable')", "argsort({x}, kind='stable')",
            "argsort({x}, axis=0, kind='stable')", "unique({x})",
            "unique({x}, return_counts=True)[1]", "unique({x}, return_inverse=True)[1]",
            "unique({x}, return_index=True)[1]", "isin({x}, {y})",
            "searchsorted(sort({y}, axis=None, kind='stable'), {x})",
            "take({x}, argsort({y}, axis=None, kind='stable') % 2)",
            "take({x}, count_nonzero({y}) - 1, mode='clip')",
            "take_along_axis({x}, argsort({x}, axis=-1, kind='stable'), axis=-1)",
            "{x}[argsort({y}, axis=None, kind='stable') % 2]", "intersect1d({x}, {y})",
            "union1d({x}, {y})", "setdiff1d({x}, {y})", "compress(ravel({y}) > 0, {x})",
            "extract({y} > 0, {x})", "{x}[[0, -1]]", "{x}[[True]]", "{x} * [2]",
            "lexsort(({x}, {y}))", "lexsort(({x}, {y}), axis=0)",
            "choose((ravel({x}) > 0).astype(int), (ravel({x}), 0))",
            "choose(argsort({x}, axis=None, kind='stable') % 2, (ravel({x}), ravel({x}) * 2))",
            "unique({x}, axis=0)", "unique({x}, axis=-1, return_counts=True)[1]",
            "unique({x}, axis=0, return_inverse=True)[1]", "{x}[{x} > 0, ...]",
            "{x}[None, {x} > 0]", "{x}[True]", "{x}[False, ...]", "{x}[..., True]",
            # manipulation built from gathers, slices and broadcasts
            "swapaxes({x}, 0, -1)", "tril({x})", "triu({x}, 1)", "diagonal({x})", "trace({x})",
            "roll({x}, 3)", "roll({x}, -1, axis=0)", "repeat({x}, 2)", "repeat({x}, 2, axis=0)",
            "tile({x}, 2)", "tile({x}, (2, 1))", "diff({x})", "diff({x}, axis=0)", "rot90({x})",
            "atleast_2d({x})", "atleast_3d({x})", "diag(ravel({x}))",
            # NaN-ignoring reductions and ptp
            "nansum({x})", "nanmean({x}, axis=0)", "nanmax({x}, axis=-1, keepdims=True)",
            "nanmin({x})", "nanprod({x}, axis=0)", "nanvar({x}, ddof=1)", "nanstd({x}, axis=0)",
            "ptp({x})", "ptp({x}, axis=0)",
            # order statistics
            "median({x})", "median({x}, axis=0)", "quantile({x}, 0.3)",
            "quantile({x}, 0.75, axis=-1, method='weibull')", "quantile({x}, 0.2, method='lower')",
            "quantile({x}, 0.5, axis=0, method='midpoint')", "percentile({x}, 40, axis=0)",
            "quantile({x}, 0.9, method='closest_observation')",
            # comparisons, cleanups, scans, weighted means
            "isclose({x}, {y})", "isclose({x}, {y}, equal_nan=True)", "nan_to_num({x})",
            "nancumsum({x})", "nancumprod({x}, axis=0)", "cumulative_sum(ravel({x}))",
            "cumulative_sum({x}, axis=0, include_initial=True)", "average({x}, axis=0)",
            "average({x}, weights={y})",
            # creation from another array, products, grids and splits
            "zeros_like({x})", "full_like({x}, 3)", "outer({x}, {y})", "inner({x}, {y})",
            "vecdot({x}, {y})", "kron({x}, {y})", "meshgrid(ravel({x}), ravel({y}))[1]",
            "array_split({x}, 3)[0]", "split({x}, 2, axis=-1)[1]", "pad({x}, 2)",
            "pad({x}, 1, mode='edge')", "pad({x}, 3, mode='reflect')",
            "pad({x}, 2, mode='symmetric')", "pad({x}, 4, mode='wrap')",
            "broadcast_arrays({x}, {y})[0]", "ediff1d({x})", "ediff1d({x}, to_begin=0)",
            "cov({x})", "corrcoef({x}, rowvar=False)",
            # two-result functions, rounding, NaN-ignoring arg reductions, unstack
            "frexp({x})[0]", "frexp({x})[1]", "modf({x})[0]", "modf({x})[1]",
            "divmod({x}, {y})[0]", "divmod({x}, {y})[1]", "round({x}, 2)", "round({x}, -1)",
            "around({x})", "nanargmax(nan_to_num({x}, nan=0.0) * 0 + {x})",
            "nanargmin({x}, axis=0)", "unstack({x})[0]", "unstack({x}, axis=-1)[-1]",
            # NumPy's everyday functions composed from the above: comparisons, stacking,
            # insert/delete, statistic pads, bit packing, several quantiles, index helpers
            "allclose({x}, {y})", "array_equal({x}, {x})", "array_equiv({x}, {y})",
            "hstack(({x}, {x}))", "vstack(({x}, {y}))", "column_stack(({x}, {x}))",
            "dstack(({x}, {y}))", "flipud({x})", "fliplr(atleast_2d({x}))", "append({x}, {y})",
            "delete({x}, 0)", "delete({x}, -1, axis=0)", "insert({x}, 1, 7)",
            "resize({x}, (3, 2))", "diagflat({x})", "trim_zeros(ravel({x}))",
            "pad({x}, 2, mode='mean')", "pad({x}, 1, mode='maximum')",
            "pad({x}, (1, 2), mode='linear_ramp')", "pad({x}, 1, mode='minimum')",
            "packbits({x}, axis=-1)", "unpackbits(packbits(ravel({x})))",
            "percentile({x}, (25, 75), axis=0)", "quantile({x}, (0.1, 0.5, 0.9))",
            "sort_complex(ravel({x}))", "setxor1d({x}, {y})", "unwrap({x})",
            "gradient(ravel({x}))", "polyder(ravel({x}))", "polyint(ravel({x}))",
            "unravel_index(flatnonzero({x}), (3, 5))[0]", "fmod({x}, {y})",
            # einsum: products, sums, transposes, diagonals, broadcasting through "..."
            "einsum('...', {x})", "einsum('...i->...', {x})", "einsum('i...->...', {x})",
            "einsum('...i,...i->...', {x}, {x})", "einsum('...ij->...ji', {x})",
            "einsum('...,...', {x}, {y})", "einsum('...ii->...i', {x})",
            "einsum('ij,jk', {x}, {y})", "einsum('ij,kj->ik', {x}, {y})",
            "einsum('i...,i...->...', {x}, {y})",
            # (same operands: NumPy's optimize=True path broadcasts a labelled extent-1 axis
            # differently from its own unoptimized einsum; loom gives the unoptimized value)
            "einsum('i...,i...->...', {x}, {x}, optimize=True)",
            # numpy.linalg's norms and products
            "linalg.norm({x})", "linalg.norm({x}, axis=0)", "linalg.norm({x}, ord=1, axis=-1)",
            "linalg.norm({x}, ord=inf)", "linalg.norm({x}, 'fro')", "linalg.norm({x}, -inf)",
            "linalg.vector_norm({x}, ord=0)", "linalg.vector_norm({x}, ord=3, keepdims=True)",
            "linalg.matrix_norm({x}, ord=-1)", "linalg.matrix_power({x}, 3)",
            "linalg.multi_dot([{x}, {y}])", "cross({x}, {y})",
            # numpy.fft's helpers, direct convolution
            "fft.fftshift({x})", "fft.ifftshift({x}, axes=0)", "fft.fftshift({x}, axes=-1)",
            "convolve(ravel({x}), ravel({y}))", "convolve(ravel({x}), ravel({y}), 'same')",
            "correlate(ravel({x}), ravel({y}))", "correlate(ravel({x}), ravel({y}), 'full')",
            "convolve({x}, {y}, mode='valid')",
            # interpolation, binning, integration, polynomials, selection
            "interp({x}, sort(ravel({y})), arange(ravel({y}).size))",
            "interp({x}, sort(ravel({y})), sort(ravel({y})) * 2, left=-1.0, right=7.0)",
            "digitize({x}, sort(ravel({y})))", "digitize({x}, sort(ravel({y})), right=True)",
            "trapezoid({x})", "trapezoid({x}, axis=0)", "trapezoid({x}, dx=0.5)",
            "polyval(ravel({y}), {x})", "vander(ravel({x}))", "vander(ravel({x}), 3, increasing=True)",
            "select([{x} > 0, {y} < 0], [{x}, {y}], -1)", "vdot({x}, {x})",
            "split(ravel({x}), [2, 4])[1]", "roll({x}, (1, 2), axis=(0, -1))",
            "tensordot({x}, {y}, axes=([0], [0]))",
            "nanmedian({x})", "nanmedian({x}, axis=0)", "nanquantile({x}, 0.3, axis=-1)",
            "nanquantile({x}, 0.6, method='weibull')", "nanpercentile({x}, 90, axis=0, method='lower')"]
REDUCE = ["sum", "prod", "mean", "max", "min", "any", "all", "var", "std"]
# Relative tolerance by the least precise float an expression may compute in (a float32
# intermediate widened to float64 carries float32's error): float16 where any input or cast is
# float16, bool or an 8-bit int (their float loops are float16), float32 likewise, else float64.
# Errors are measured against the largest magnitude in the result (cancellation).
RTOL = {"float16": 4e-3, "float32": 1e-5, "float64": 1e-12}
LOW = {"float16": ["float16", "bool", "int8", "uint8"], "float32": ["float32", "int16", "uint16"]}

# Differences that are the library's, not the parser's: reported on every run as KNOWN (not
# failures) until fixed; remove an entry when its fix lands and the suite still passes.
KNOWN = [
    ("power(bool array, Python int): NumPy gives int8, loom int64",
     lambda expr, np_err, loom_err, why: why is not None and "dtype int64, NumPy int8" in why
     and ("**" in expr or "power(" in expr)),
    ("float -> uint32 of NaN / -inf / beyond 2**32: NumPy gives 0 (x86 cvttsd2si, 64-bit, "
     "truncated), loom 2147483648",
     lambda expr, np_err, loom_err, why: why is not None and "uint32" in expr
     and ("2147483648" in why or re.search(r"\b(nan|inf)\b|\*\*|log|sqrt|arc|/", expr))),
    ("copysign(x, NaN from an invalid op): x86 NumPy's NaN is negative, loom's positive",
     lambda expr, np_err, loom_err, why: why is not None and "copysign(" in expr
     and copysign_flip(why)),
    ("where(c, int array, out-of-range Python int): NumPy widens (np.result_type), loom refuses",
     lambda expr, np_err, loom_err, why: loom_err is not None and "where: Python integer" in loom_err),
    # np.dot with a 0-d zero operand scales by 0 and gives 0 even for NaN/inf elements
    # (np.dot(np.array(False), [nan]) is [0.]); loom_dot multiplies (0 * nan = nan).
    ("dot(0-d zero, array holding NaN/inf): NumPy 0, loom_dot NaN",
     lambda expr, np_err, loom_err, why: why is not None and ("dot(" in expr or "inner(" in expr)
     and re.search(r"loom np\.float\d+\(nan\), NumPy np\.float\d+\(-?[0-9]", why)),
    ("signbit of a NaN from an invalid op: x86 NumPy's NaN is negative, loom's positive",
     lambda expr, np_err, loom_err, why: why is not None and re.search(
         r"signbit\(.*(arccos|arcsin|arccosh|arctanh|log|log2|log10|log1p|sqrt|power|remainder)\(",
         expr)),
    # np.unique(axis=...) sorts rows as structured values, whose float16 fields order NaN
    # first (float32 and float64 fields order it last, as every sort does); loom puts NaN last.
    ("unique(float16 rows holding NaN, axis=k): NumPy orders the NaN row first",
     lambda expr, np_err, loom_err, why: why is not None and "unique(" in expr
     and "axis=" in expr and float16_nan_operand(expr)),
    # np.i0 evaluates its Chebyshev series in the input's dtype: float16 results can be off by
    # several ulps; loom rounds the float64 value once.
    ("i0 of float16: NumPy's series in float16, loom's float64 rounded once",
     lambda expr, np_err, loom_err, why: why is not None and "i0(" in expr
     and ("float16" in why or float16_nan_operand(expr, nan=False))),
    # einsum with a label of extent 1 on one operand (broadcast): NumPy sums the other
    # operand over it before multiplying, so inf * (0 + 1) stays inf where loom's inf * 0 is NaN.
    ("einsum over a broadcast label with inf: NumPy sums first (inf), loom multiplies first (NaN)",
     lambda expr, np_err, loom_err, why: why is not None and "einsum(" in expr
     and re.search(r"loom np\.float\d+\(nan\), NumPy np\.float\d+\(-?inf\)", why)),
    ("Python ints past 2**127 (NumPy: object or float64): loom's parser refuses them",
     lambda expr, np_err, loom_err, why: loom_err is not None
     and "parser holds integers below 2**127" in loom_err),
]

ARRAYS = {}


def float16_nan_operand(expr, nan=True):
    """Whether the expression reads a float16 input (that holds a NaN)."""
    return any(a.dtype == np.float16 and (not nan or np.isnan(a).any())
               for name, a in ARRAYS.items() if re.search(r"\b%s\b" % name, expr))


def copysign_flip(why):
    """loom and NumPy differ only in sign (the sign of a NaN that copysign copies)."""
    m = re.search(r"loom np\.float\d+\((.*?)\), NumPy np\.float\d+\((.*?)\)", why)
    return bool(m) and float(m.group(1)) == -float(m.group(2))


def make_inputs(rng, n):
    arrays = {}
    for i in range(n):
        dt = DTYPES[i % len(DTYPES)] if i < len(DTYPES) else rng.choice(DTYPES)
        shape = rng.choice(SHAPES)
        size = int(np.prod(shape))
        if dt == "bool":
            a = np.array([rng.random() < 0.5 for _ in range(size)], dtype=bool)
        elif dt.startswith("float"):
            vals = [rng.choice([0.0, -0.0, 0.5, 1.0, -1.0, 2.0, 3.5, float("nan"), float("inf")])
                    if rng.random() < 0.25 else rng.uniform(-4, 4) for _ in range(size)]
            a = np.array(vals, dtype=dt)
        elif dt.startswith("u"):
            a = np.array([rng.randint(0, 9) for _ in range(size)], dtype=dt)
        else:
            a = np.array([rng.randint(-6, 9) for _ in range(size)], dtype=dt)
        arrays["a%d" % i] = a.reshape(shape)
    return arrays


def literal(rng):
    return rng.choice(["0", "1", "2", "3", "-1", "-2", "7", "0.5", "2.5", "-1.25", "1e-3",
                       "True", "False", "300", "inf", "nan", "2**3", "(1 + 2)"])


def shape_of(expr, arrays):
    want, err = numpy_eval(expr, arrays)
    return None if err is not None else want.shape


def axis_expr(rng, nd, tuple_ok=True):
    """None, an int axis (sometimes out of range) or a tuple of distinct axes."""
    r = rng.random()
    if r < 0.2 or nd == 0 and r < 0.6:
        return "None"
    if r < 0.6 or not tuple_ok or nd == 0:
        return str(rng.randint(-nd - (r < 0.03), max(nd - 1, 0) + (r < 0.03)))
    k = rng.randint(0, nd)
    axes = rng.sample(range(nd), k)
    return "(%s)" % "".join("%d, " % (a - nd if rng.random() < 0.3 else a) for a in axes)


def index_expr(rng, shape):
    items, ell = [], False
    for i, d in enumerate(shape):
        r = rng.random()
        if r < 0.25:
            items.append(str(rng.randint(-d - (r < 0.02), d - 1 + (r < 0.02)) if d else 0))
        elif r < 0.7:
            b = lambda: rng.choice(["", str(rng.randint(-d - 2, d + 2))])
            step = rng.choice(["", "", "1", "2", "-1", "-2", "3"])
            items.append("%s:%s%s" % (b(), b(), ":" + step if step else rng.choice(["", ":"])))
        elif r < 0.8 and not ell:
            items.append("...")
            ell = True
        else:
            items.append(":")
        if rng.random() < 0.15:
            items.append("None")
    while items and rng.random() < 0.3:  # trailing axes may be left out
        items.pop()
    if not items:
        items = [rng.choice(["...", "None", ":"])]
    return ", ".join(items)


def structural(rng, sub, arrays):
    """A reduction, scan, view, join or index of sub, chosen from sub's NumPy shape."""
    x = sub()
    shape = shape_of(x, arrays)
    if shape is None:
        shape = rng.choice(SHAPES)
    nd, r = len(shape), rng.random()
    method = rng.random() < 0.4 and not x[0].isdigit() and x[0] != "-"
    if r < 0.35:
        fn = rng.choice(REDUCE + ["argmax", "argmin", "cumsum", "cumprod"])
        kw = []
        if rng.random() < 0.8:
            ax = axis_expr(rng, nd, fn in REDUCE)
            kw.append(("axis=%s" if rng.random() < 0.6 else "%s") % ax)
        if fn in ("var", "std") and rng.random() < 0.5:
            kw.append("ddof=%s" % rng.choice(["0", "1", "2"]))
        if fn not in ("cumsum", "cumprod") and rng.random() < 0.4:
            kw.append("keepdims=%s" % rng.choice(["True", "False"]))
        if method:
            return "%s.%s(%s)" % (x, fn, ", ".join(kw))
        return "%s(%s)" % (fn, ", ".join([x] + kw))
    if r < 0.6:
        return "%s[%s]" % (x, index_expr(rng, shape))
    size = 1
    for d in shape:
        size *= d
    v = rng.randrange(9)
    if v == 0:
        dims = [size]
        if size % 2 == 0 and rng.random() < 0.6:
            dims = [2, size // 2]
        if rng.random() < 0.3:
            dims[rng.randrange(len(dims))] = -1
        if rng.random() < 0.1:
            dims.append(rng.choice([1, 2]))
        if method:
            return "%s.reshape(%s)" % (x, ", ".join(map(str, dims)))
        return "reshape(%s, (%s,))" % (x, ", ".join(map(str, dims)))
    if v == 1:
        perm = list(range(nd))
        rng.shuffle(perm)
        c = rng.randrange(4)
        if c == 0 and method:
            return "%s.T" % x
        if c == 1 and method:
            return "%s.transpose(%s)" % (x, ", ".join(map(str, perm)))
        if c == 2:
            return "transpose(%s)" % x
        return "transpose(%s, (%s))" % (x, "".join("%d, " % p for p in perm))
    if v == 2:
        target = [rng.choice([d, 2]) if d == 1 else d for d in shape]
        if rng.random() < 0.5:
            target = [rng.choice([1, 2, 3])] + target
        return "broadcast_to(%s, (%s))" % (x, "".join("%d, " % d for d in target))
    if v == 3:
        return "expand_dims(%s, %s)" % (x, rng.randint(-nd - 1, nd))
    if v == 4:
        ones = [i for i, d in enumerate(shape) if d == 1]
        if ones and rng.random() < 0.6:
            return "squeeze(%s, axis=%d)" % (x, rng.choice(ones))
        return ("%s.squeeze()" if method else "squeeze(%s)") % x
    if v == 5:
        return "flip(%s%s)" % (x, "" if rng.random() < 0.3 else ", " + axis_expr(rng, nd))
    if v == 6:
        s = rng.randint(-nd, max(nd - 1, 0))
        d = rng.randint(-nd, max(nd - 1, 0))
        return "moveaxis(%s, %d, %d)" % (x, s, d)
    y = rng.choice([x, x, sub()])
    if v == 7:
        ax = rng.choice(["None"] + [str(a) for a in range(-nd, nd)] if nd else ["None", "0"])
        return "concatenate((%s, %s), axis=%s)" % (x, y, ax)
    return "stack([%s, %s], axis=%d)" % (x, y, rng.randint(-nd - 1, nd))


def gen(rng, names, depth, arrays):
    if depth == 0 or rng.random() < 0.2:
        return rng.choice(names) if rng.random() < 0.8 else literal(rng)
    sub = lambda: gen(rng, names, depth - 1, arrays)
    if rng.random() < 0.3:
        return structural(rng, sub, arrays)
    r = rng.random()
    if r < 0.35:
        return "(%s %s %s)" % (sub(), rng.choice(OPS), sub())
    if r < 0.45:
        return "%s%s" % (rng.choice(["-", "+", "~"]), sub())
    if r < 0.62:
        return "%s(%s)" % (rng.choice(UNARY), sub())
    if r < 0.8:
        return "%s(%s, %s)" % (rng.choice(BINARY), sub(), sub())
    if r < 0.87:
        return "where(%s, %s, %s)" % (sub(), sub(), sub())
    if r < 0.92:
        return "clip(%s, %s, %s)" % (sub(), rng.choice(["0", "-1", "0.5"]), rng.choice(["3", "2.5"]))
    if r < 0.96:  # matrix products: many shape pairs do not contract (both must refuse)
        return rng.choice(["(%s @ %s)", "matmul(%s, %s)", "dot(%s, %s)"]) % (sub(), sub())
    dt = rng.choice(DTYPES)
    return rng.choice(["%s.astype('%s')" % (sub(), dt), "astype(%s, %s)" % (sub(), dt)])


def numpy_eval(expr, arrays):
    ns = {name: getattr(np, name) for name in UNARY + BINARY}
    ns.update(matmul=np.matmul, dot=np.dot)
    ns.update({f: getattr(np, f) for f in REDUCE + [
        "amax", "amin", "argmax", "argmin", "cumsum", "cumprod", "reshape", "transpose",
        "permute_dims", "broadcast_to", "expand_dims", "squeeze", "flip", "moveaxis", "ravel",
        "concatenate", "stack", "take", "take_along_axis", "nonzero", "flatnonzero", "argwhere",
        "count_nonzero", "sort", "argsort", "searchsorted", "unique", "isin", "intersect1d",
        "union1d", "setdiff1d", "compress", "extract", "lexsort", "choose", "swapaxes", "tril",
        "triu", "diagonal", "trace", "roll", "repeat", "tile", "diff", "rot90", "atleast_2d",
        "atleast_3d", "diag", "nansum", "nanmean", "nanmax", "nanmin", "nanprod", "nanvar",
        "nanstd", "ptp", "median", "quantile", "percentile", "isclose", "nan_to_num", "nancumsum",
        "nancumprod", "cumulative_sum", "average", "zeros_like", "full_like", "outer", "inner",
        "vecdot", "kron", "meshgrid", "array_split", "split", "pad", "broadcast_arrays",
        "ediff1d", "cov", "corrcoef", "frexp", "modf", "divmod", "round", "around",
        "nanargmax", "nanargmin", "unstack", "einsum", "allclose", "array_equal",
        "array_equiv", "hstack", "vstack", "column_stack", "dstack", "flipud", "fliplr",
        "append", "delete", "insert", "resize", "diagflat", "trim_zeros", "packbits",
        "unpackbits", "sort_complex", "setxor1d", "unwrap", "gradient", "polyder", "polyint",
        "unravel_index", "fmod"]})
    ns.update(linalg=np.linalg, cross=np.cross, fft=np.fft, convolve=np.convolve,
              correlate=np.correlate, interp=np.interp, digitize=np.digitize,
              trapezoid=np.trapezoid, polyval=np.polyval, vander=np.vander, select=np.select,
              vdot=np.vdot, tensordot=np.tensordot, nanmedian=np.nanmedian,
              nanquantile=np.nanquantile, nanpercentile=np.nanpercentile)
    ns.update(abs=np.abs, where=np.where, clip=np.clip, astype=np.astype, np=np, inf=np.inf,
              nan=np.nan, pi=np.pi, e=np.e)
    ns.update({d: getattr(np, d if d != "bool" else "bool_") for d in DTYPES})
    ns.update(arrays)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np.asarray(eval(expr, {"__builtins__": builtins}, ns)), None
        except Exception as ex:  # NumPy refuses: loom must refuse too
            return None, "%s: %s" % (type(ex).__name__, ex)


def rtol_for(expr, arrays, want):
    used = [str(a.dtype) for n, a in arrays.items() if n in expr]
    for level in ("float16", "float32"):
        if str(want.dtype) == level or any(d in LOW[level] for d in used) or \
                any(d in expr for d in LOW[level] if d != "bool"):
            return RTOL[level]
    return RTOL.get(str(want.dtype), RTOL["float64"])


def compare(want, got, rtol):
    """None if they agree, else a description."""
    if got.dtype != want.dtype:
        return "dtype %s, NumPy %s" % (got.dtype, want.dtype)
    if got.shape != want.shape:
        return "shape %s, NumPy %s" % (got.shape, want.shape)
    if want.dtype.kind == "c":  # (sort_complex) each part as a float, NaN matching NaN
        return compare(want.real, got.real, rtol) or compare(want.imag, got.imag, rtol)
    if want.dtype.kind != "f":
        bad = got != want
    else:
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        finite = np.abs(w[np.isfinite(w)])
        scale = max(1.0, float(finite.max())) if finite.size else 1.0
        with np.errstate(all="ignore"):
            close = (np.isnan(w) & np.isnan(g)) | (w == g) | \
                    (np.isfinite(w) & np.isfinite(g) & (np.abs(g - w) <= rtol * scale))
        bad = ~close
    if np.any(bad):
        i = np.argwhere(bad)[0] if want.ndim else ()
        i = tuple(int(k) for k in i)
        return "%d of %d elements differ; first at %s: loom %r, NumPy %r" % (
            int(np.count_nonzero(bad)), want.size, i, got[i], want[i])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("loom")
    ap.add_argument("--n", type=int, default=int(os.environ.get("LOOM_CONFORMANCE_N", "600")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("LOOM_CONFORMANCE_SEED", "7")))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--part", choices=["all", "main", "indexing"], default="all",
                    help="main: the generated expressions and not-yet constructs; indexing: "
                         "gathers, masks, sorts and sets (two test shards)")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    arrays = make_inputs(rng, 16)
    ARRAYS.update(arrays)
    names = sorted(arrays)
    failures = refused = agreed = 0
    known = {}

    def is_known(expr, np_err=None, loom_err=None, why=None):
        for desc, pred in KNOWN:
            if pred(expr, np_err, loom_err, why):
                known[desc] = known.get(desc, 0) + 1
                if args.v:
                    print("KNOWN (%s): %s" % (desc, expr))
                return True
        return False

    with tempfile.TemporaryDirectory(prefix="loom-conformance-") as tmp:
        binds = []
        for name, a in arrays.items():
            path = os.path.join(tmp, name + ".npy")
            np.save(path, a)
            binds.append("%s=%s" % (name, path))
        out = os.path.join(tmp, "out.npy")
        cases = [(gen(rng, names, rng.randint(1, 3), arrays), False) for _ in range(args.n)]
        n_later = max(10, args.n // 20)
        n_indexing = max(20, args.n // 5)
        cases += [(rng.choice(LATER).format(x=rng.choice(names)), True) for _ in range(n_later)]
        indexing = [(rng.choice(INDEXING).format(x=rng.choice(names), y=rng.choice(names)), False)
                    for _ in range(n_indexing)]
        if args.part == "indexing":
            cases, n_later = indexing, 0
        elif args.part == "all":
            cases += indexing
        else:
            n_indexing = 0
        for expr, later in cases:
            if os.path.exists(out):
                os.remove(out)
            p = subprocess.run([args.loom, "eval", expr, *binds, "-o", out, "--device", args.device],
                               capture_output=True, text=True)
            err = p.stderr.strip()
            if later:
                ok = p.returncode != 0 and "not supported yet" in err
                if not ok:
                    failures += 1
                    print("FAIL (expected 'not supported yet'): %s\n  loom: rc %d %s" % (expr, p.returncode, err))
                continue
            want, np_err = numpy_eval(expr, arrays)
            if np_err is not None:
                if p.returncode == 0 and not is_known(expr, np_err=np_err):
                    failures += 1
                    print("FAIL (NumPy raises, loom does not): %s\n  NumPy: %s" % (expr, np_err))
                else:
                    refused += 1
                    if args.v:
                        print("both refuse: %s\n  NumPy: %s\n  loom: %s" % (expr, np_err, err))
                continue
            if p.returncode != 0:
                if want.dtype.kind == "O":  # Python ints past int64: loom has no object dtype
                    refused += 1
                    continue
                if is_known(expr, loom_err=err):
                    continue
                failures += 1
                print("FAIL (loom refuses, NumPy gives %s %s): %s\n  loom: %s" % (want.dtype, want.shape, expr, err))
                continue
            why = compare(want, np.load(out), rtol_for(expr, arrays, want))
            if why and not is_known(expr, why=why):
                failures += 1
                print("FAIL: %s\n  %s" % (expr, why))
            else:
                agreed += 1
    print("conformance (seed %d, device %s): %d expressions agree with NumPy %s, %d refused by "
          "both, %d not-yet constructs, %d failures (%d expressions from the gather, mask, "
          "sort, set, manipulation and NaN-reduction templates)" % (args.seed, args.device, agreed, np.__version__, refused, n_later,
                         failures, n_indexing))
    for desc, n in sorted(known.items()):
        print("KNOWN library difference, %d expressions: %s" % (n, desc))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
