"""Property-based differential tests: every elementwise function of the library's table and
NumPy's reductions, on every dtype and on random broadcast shapes (0-d and empty included),
against NumPy, through the generated functions and the operators. Hypothesis draws the cases
from a fixed seed (derandomize), so a run checks the same examples every time;
LOOM_PROP_RANDOM=1 draws new ones and LOOM_PROP_N sets their number (300 a test by default).
The device is the CPU reference, or LOOM_PROP_DEVICE's (cuda on the GPU machine)."""
import os
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
import hypothesis.extra.numpy as hnp  # noqa: E402

import loom  # noqa: E402
import loom.numpy as lnp  # noqa: E402
from loom import _FAST  # noqa: E402

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
# what loom computes in another way than NumPy's loops, beyond rounding: left to the
# conformance suite's KNOWN list (tests/conformance), which names each one
SKIP = {"matmul", "dot", "vecdot", "matrix_transpose", "det", "inv", "svdvals", "solve"}


def _ufunc(name, arity):
    f = getattr(np, name, None)
    return isinstance(f, np.ufunc) and f.nin == arity and f.nout == 1


UNARY = sorted(n for n, (a, _) in _FAST.items()
               if a == 1 and n not in SKIP and _ufunc(n, 1))
BINARY = sorted(n for n, (a, _) in _FAST.items()
                if a == 2 and n not in SKIP and _ufunc(n, 2))
# the table's elementwise functions that NumPy offers as plain functions, not ufuncs
UNARY_FUNCTIONS = ["real", "imag", "fix", "i0", "sinc", "iscomplex", "isreal", "isneginf",
                   "isposinf", "angle"]
TOL = {"float16": 4e-3, "float32": 2e-5, "float64": 1e-12}
SETTINGS = settings(max_examples=int(os.environ.get("LOOM_PROP_N", "300")), deadline=None,
                    derandomize=os.environ.get("LOOM_PROP_RANDOM") is None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(autouse=True, scope="module")
def context():
    with loom.Context(device=os.environ.get("LOOM_PROP_DEVICE", "cpu")) as ctx:
        yield ctx


def _arrays(dtype, shape):
    """Values of every kind the dtype holds: extremes, zeros of both signs, NaN and the
    infinities for floats."""
    return hnp.arrays(np.dtype(dtype), shape)


def _tol(*dtypes):
    """The comparison's relative tolerance: the least precise float among the operands and
    the result (integers are exact)."""
    for level in ("float16", "float32"):
        for d in dtypes:
            d = np.dtype(d)
            if d.kind in "fc" and np.finfo(d).bits <= np.finfo(level).bits:
                return TOL[level]
    return TOL["float64"]


def _close(got, want, rtol, scale=1.0):
    """Whether got (NumPy's result from loom) matches want: the same dtype and shape, integers
    and bools equal, floats within rtol relative to the result's largest finite magnitude or
    scale if larger (transcendentals near a zero of the function are not compared
    relatively), the same infinities, NaN where NumPy gives NaN (of either sign)."""
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind == "c":  # each part relative to the largest finite |z|
        with np.errstate(all="ignore"):
            mag = np.abs(want.astype(np.complex128))
            # where both overflow (an infinite part each), the parts are the rounding noise
            # of an overflowed product: not compared
            over = np.isinf(mag) & np.isinf(np.abs(got.astype(np.complex128)))
        if over.any():
            got = np.where(over, want, got)
        mag = mag[np.isfinite(mag)]
        scale = max(scale, float(mag.max()) if mag.size else 1.0)
        _close(got.real, want.real, rtol, scale)
        _close(got.imag, want.imag, rtol, scale)
        return
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    w = want.astype(np.float64)
    g = got.astype(np.float64)
    finite = np.abs(w[np.isfinite(w)])
    scale = max(1.0, scale, float(finite.max()) if finite.size else 1.0)
    with np.errstate(all="ignore"):
        ok = (np.isnan(w) & np.isnan(g)) | (w == g) | (
            np.isfinite(w) & np.isfinite(g) & (np.abs(g - w) <= rtol * scale))
    if not ok.all():
        i = tuple(int(k) for k in np.argwhere(~ok)[0]) if want.ndim else ()
        raise AssertionError("%d of %d differ; first at %s: loom %r, NumPy %r" % (
            int((~ok).sum()), want.size, i, got[i], want[i]))


def _documented(name, arrays):
    """Arrays without the values where loom's function is documented to differ from NumPy's
    (docs/guide.md): complex log1p past the largest float, where NumPy's overflows to inf."""
    if name != "log1p":
        return arrays
    with np.errstate(all="ignore"):
        return [np.where(np.abs(a) > 1e300, 0, a).astype(a.dtype)
                if isinstance(a, np.ndarray) and a.dtype.kind == "c" else a for a in arrays]


def _scale(name, operands):
    """What a complex product's error is relative to: the operands' largest magnitudes
    multiplied (a part of the result cancels, and NumPy's loops take fused multiply-adds or
    not by the operands' layout)."""
    if name not in ("multiply", "square", "pow", "power", "float_power") or not any(
            np.iscomplexobj(x) for x in operands):
        return 1.0
    with np.errstate(all="ignore"):
        mags = [np.abs(np.asarray(x))[np.isfinite(np.asarray(x))] for x in operands]
    m = [float(v.max()) if v.size else 1.0 for v in mags]
    return m[0] * m[-1]


def _power_tol(name, a, b, rtol):
    """A complex64 power's tolerance: loom computes exp(b log a) in complex128, NumPy in
    float32, which loses about |b log a| ulps."""
    try:
        cplx64 = np.result_type(a, b) == np.complex64
    except (TypeError, ValueError, OverflowError):
        return rtol
    if name not in ("power", "pow", "**") or not cplx64:
        return rtol
    with np.errstate(all="ignore"):
        la = np.abs(np.log(np.abs(np.asarray(a, dtype=np.complex128))))
        bb = np.abs(np.asarray(b, dtype=np.complex128))
    la, bb = la[np.isfinite(la)], bb[np.isfinite(bb)]
    k = (float(bb.max()) if bb.size else 0.0) * ((float(la.max()) if la.size else 0.0) + 4)
    return max(rtol, 1.2e-7 * (8 + k))


def _past_overflow(name, operands):
    """Whether a complex product's parts may reach the largest float: there a fused
    multiply-add (loom's, and NumPy's vector loops') keeps a finite part where NumPy's
    scalar loop overflows to inf, and the other way round."""
    big = max((np.finfo(np.asarray(x).dtype).max for x in operands
               if np.asarray(x).dtype.kind == "c"), default=None)
    with np.errstate(all="ignore"):
        return big is not None and name == "multiply" and _scale(name, operands) > big / 4


def _numpy(f, *args):
    """f(*args) in NumPy, warnings silenced: its value, or the exception it raises."""
    with np.errstate(all="ignore"):
        try:
            return f(*args), None
        except (TypeError, ValueError, OverflowError, ZeroDivisionError) as e:
            return None, e


def _differential(np_f, loom_f, np_args, loom_args, rtol, scale=1.0, numpy_inexact=False):
    want, err = _numpy(np_f, *np_args)
    if err is not None:
        # NumPy refuses (a dtype its loop lacks, an integer to a negative power): loom refuses
        # with an exception of the same family, at the call or when the value is read
        with pytest.raises((TypeError, ValueError, OverflowError, ZeroDivisionError,
                            loom.LoomError)):
            np.asarray(loom_f(*loom_args))
        return
    want = np.asarray(want)
    got = np.asarray(loom_f(*loom_args))
    if numpy_inexact and want.dtype.kind == "c":
        # NumPy's float32 exp(b log a) overflows its phase or modulus before the value does:
        # its NaNs and infinities there are not loom's to match
        with np.errstate(all="ignore"):
            got = np.where(np.isfinite(want), got, want)
    _close(got, want, max(rtol, _tol(want.dtype)), scale)


def _draw(data, names, max_side):
    """A function's name from names, a dtype, and an array of that dtype of up to 3 axes."""
    name = data.draw(st.sampled_from(names), label="function")
    dtype = data.draw(st.sampled_from(DTYPES), label="dtype")
    a = data.draw(_arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0,
                                                  max_side=max_side)), label="a")
    return name, dtype, a


@SETTINGS
@given(st.data())
def test_unary_functions(data):
    name, dtype, a = _draw(data, UNARY + UNARY_FUNCTIONS, 4)
    a, = _documented(name, [a])
    if name == "sinc" and a.dtype.kind == "f":
        # NumPy's pi * x overflows in the dtype (its sinc is NaN there); loom's is the value
        with np.errstate(all="ignore"):
            a = np.where(np.abs(a) > np.finfo(a.dtype).max / 4, a.dtype.type(1), a)
    _differential(getattr(np, name), getattr(lnp, name), (a,), (lnp.asarray(a),),
                  _tol(dtype))


# Python numbers as operands: NumPy 2's weak scalars (NEP 50), the fast path's cache
_NUMBERS = st.one_of(st.booleans(), st.integers(-300, 300), st.integers(-2**63, 2**64 - 1),
                     st.floats(width=64), st.sampled_from([0.0, -0.0, 0.5, 2.0]),
                     st.complex_numbers(max_magnitude=1e6, allow_nan=False))


def _operand(data, label, shape):
    """An array of a drawn dtype and the given shape, or (one time in five) a Python number."""
    if data.draw(st.integers(0, 4), label=label + " is a number") == 0:
        v = data.draw(_NUMBERS, label=label)
        return v, v
    dtype = data.draw(st.sampled_from(DTYPES), label=label + " dtype")
    a = data.draw(_arrays(dtype, shape), label=label)
    return a, lnp.asarray(a)


@SETTINGS
@given(st.data())
def test_binary_functions(data):
    name = data.draw(st.sampled_from(BINARY), label="function")
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                         min_side=0, max_side=4),
                       label="shapes").input_shapes
    a, la = _operand(data, "a", shapes[0])
    b, lb = _operand(data, "b", shapes[1])
    if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
        b = np.asarray(0.5 if isinstance(b, bool) else b)  # an array on one side at least
        lb = lnp.asarray(b)
    dts = [x.dtype for x in (a, b) if isinstance(x, np.ndarray)]
    if "power" in name or name == "pow":
        # a complex power with a part that is not finite: glibc's cpow (NumPy's) multiplies
        # through C99's recovery of infinities, loom through npymath's formula
        with np.errstate(all="ignore"):
            if any(np.iscomplexobj(x) and not np.isfinite(x).all() for x in (a, b)):
                return
    if _past_overflow(name, (a, b)):
        return
    if name in ("power", "pow") and (0 in np.shape(a) + np.shape(b) or (
            getattr(a, "dtype", None) == np.bool_ and type(b) is int)):
        return  # NumPy checks an integer power's sign only on elements it computes, and
        # gives int8 for bool ** int where loom gives int64 (the conformance suite's KNOWN)
    rtol = _power_tol(name, a, b, _tol(*dts))
    _differential(getattr(np, name), getattr(lnp, name), (a, b), (la, lb), rtol,
                  _scale(name, (a, b)), rtol > _tol(*dts))


_OPERATORS = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
              "/": lambda x, y: x / y, "//": lambda x, y: x // y, "%": lambda x, y: x % y,
              "**": lambda x, y: x ** y, "&": lambda x, y: x & y, "|": lambda x, y: x | y,
              "^": lambda x, y: x ^ y, "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y,
              "<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y,
              ">=": lambda x, y: x >= y, "==": lambda x, y: x == y, "!=": lambda x, y: x != y}


@SETTINGS
@given(st.data())
def test_operators_with_numbers_on_either_side(data):
    """The operators' fast path (C builders called with cached weak scalars) against NumPy's
    operators, the number on the left or the right."""
    op = data.draw(st.sampled_from(sorted(_OPERATORS)), label="operator")
    dtype = data.draw(st.sampled_from(DTYPES), label="dtype")
    a = data.draw(_arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=2, max_side=4)),
                  label="a")
    v = data.draw(_NUMBERS, label="number")
    f = _OPERATORS[op]
    if op == "**" and a.dtype.kind == "c" and v == 0.5:
        return  # NumPy's operator takes sqrt for a complex array ** 0.5 (np.power does not)
    if op == "**" and a.dtype == np.bool_ and type(v) is int:
        return  # NumPy's int8 for bool ** int, loom's int64 (the conformance suite's KNOWN list)
    first = data.draw(st.booleans(), label="number first")
    g = (lambda x: f(v, x)) if first else (lambda x: f(x, v))
    rtol = _power_tol(op, *((v, a) if first else (a, v)), _tol(dtype))
    _differential(g, g, (a,), (lnp.asarray(a),), rtol, 1.0, rtol > _tol(dtype))


REDUCTIONS = ["sum", "prod", "mean", "max", "min", "any", "all", "argmax", "argmin", "var",
              "std", "ptp", "count_nonzero", "nansum", "nanprod", "nanmean", "nanmax", "nanmin",
              "nanvar", "nanstd", "nanargmax", "nanargmin", "median", "nanmedian"]
SCANS = ["cumsum", "cumprod", "nancumsum", "nancumprod"]


@SETTINGS
@given(st.data())
def test_reductions(data):
    name, dtype, a = _draw(data, REDUCTIONS + SCANS, 5)
    kwargs = {}
    if name in SCANS or name.startswith(("arg", "nanarg")):
        axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1) if a.ndim
                                   else st.none()), label="axis")
    else:
        axis = data.draw(st.one_of(st.none(), hnp.valid_tuple_axes(a.ndim))
                         if a.ndim else st.none(), label="axes")
    if axis is not None:
        kwargs["axis"] = axis
    if name not in SCANS and name != "count_nonzero" and data.draw(st.booleans(),
                                                                    label="keepdims"):
        kwargs["keepdims"] = True
    if isinstance(axis, tuple) and a.size == 0 and "median" in name:
        return  # NumPy's own error (it cannot reshape the empty array to add an axis)
    with np.errstate(all="ignore"):
        if "median" in name and a.dtype.kind == "f" and (
                np.abs(a[np.isfinite(a)]) > np.finfo(a.dtype).max / 2).any():
            return  # NumPy's nanmedian over axis=() adds two such values in the dtype: inf
    with np.errstate(all="ignore"):
        if (("median" in name or name.startswith("nan")) and a.dtype.kind == "c"
                and not np.isfinite(a).all()):
            # a complex median, or a NaN-ignoring reduction of only NaNs: NumPy gives one
            # element holding a NaN, with its other part; loom NaN in both parts
            return
    if "prod" in name and a.dtype.kind == "c":
        # where a product's parts overflow, NumPy's loops (with or without fused multiply-adds)
        # and npymath's formula reach inf or NaN differently
        with np.errstate(all="ignore"):
            a = np.where(np.abs(a) > 1e4, a / np.abs(a), a).astype(a.dtype)
    n = a.size if axis is None else int(np.prod([a.shape[k] for k in np.atleast_1d(axis)]))
    # sums in another order than NumPy's pairwise one: the tolerance grows with the count
    rtol, scale = _tol(dtype) * max(1, n), 1.0
    if name in ("var", "std", "nanvar", "nanstd") and a.dtype.kind in "fc":
        # the deviations from a rounded mean: their error is relative to the data's size
        with np.errstate(all="ignore"):
            big = np.abs(a[np.isfinite(a)]).astype(np.float64)
        big = float(big.max()) if big.size else 1.0
        scale = big * big if "var" in name else big
        with np.errstate(all="ignore"):
            if (np.finfo(a.dtype).dtype.itemsize <= 4
                    and big * big > np.finfo(a.dtype).max / max(1, n)):
                # NumPy's float32 squares (complex64's too) overflow; loom sums them in float64
                return
    _differential(lambda x: getattr(np, name)(x, **kwargs),
                  lambda x: getattr(lnp, name)(x, **kwargs), (a,), (lnp.asarray(a),), rtol,
                  scale)


# The differences these properties found, each as a fixed case (they hold on both devices)

def test_found_complex_rint_and_sinc():
    z = np.array([0, 1.5 + 2.5j, -0.5 - 3.5j, 2.5 - 0.5j, complex(np.nan, 1)], np.complex64)
    np.testing.assert_array_equal(np.asarray(lnp.rint(lnp.asarray(z))), np.rint(z))
    _close(np.asarray(lnp.sinc(lnp.asarray(z))), np.sinc(z), 1e-6)


def test_found_complex_functions_at_the_ends_of_the_range():
    inf, nan = np.inf, np.nan
    z = np.array([complex(inf, inf), complex(-inf, nan), complex(nan, inf), complex(inf, -inf),
                  1.27e308 + 1.27e308j, -1e308 + 1.6e308j, 5e-324j, 1 + 5e-324j,
                  5e-324 + 5e-324j])
    for f in ("sin", "cos", "sinh", "cosh", "log", "sqrt", "arccos", "arcsin", "arcsinh",
              "arccosh"):
        with np.errstate(all="ignore"):
            want = getattr(np, f)(z)
        _close(np.asarray(getattr(lnp, f)(lnp.asarray(z))), want, 1e-14)


def test_found_median_of_empty_arrays_and_axis_tuples():
    x = np.arange(24.0).reshape(2, 3, 4)
    for f in ("median", "nanmedian"):
        with np.errstate(all="ignore"):
            for a, kw in ((np.zeros(0, bool), {}), (np.zeros((0, 3)), {"axis": 0}),
                          (x, {"axis": (0, 2)}), (x, {"axis": (2, 0), "keepdims": True}),
                          (x, {"axis": ()})):
                _close(np.asarray(getattr(lnp, f)(lnp.asarray(a), **kw)),
                       np.asarray(getattr(np, f)(a, **kw)), 1e-15)
    _close(np.asarray(lnp.quantile(lnp.asarray(x), [0.25, 0.5], axis=(0, 2), keepdims=True)),
           np.quantile(x, [0.25, 0.5], axis=(0, 2), keepdims=True), 1e-15)
    with np.errstate(all="ignore"):
        _close(np.asarray(lnp.nanquantile(lnp.zeros((0, 2), dtype=lnp.int32), [0.5, 0.2],
                                          axis=0)),
               np.nanquantile(np.zeros((0, 2), np.int32), [0.5, 0.2], axis=0), 0)
    with pytest.raises(IndexError):
        lnp.quantile(lnp.zeros(0), 0.5)  # NumPy's IndexError too
    with pytest.raises(ValueError, match="repeated axis"):
        lnp.median(lnp.asarray(x), axis=(1, -2))


def test_found_ldexp_and_logical_ops_with_python_numbers():
    with pytest.raises(OverflowError, match="2147483648 out of bounds for int32"):
        lnp.ldexp(lnp.asarray(np.int8(1)), 2**31)
    with pytest.raises(TypeError, match="ldexp"):
        lnp.ldexp(1j, lnp.asarray([1]))  # (a complex mantissa was cast to float64)
    for b in (False, True):  # a bool mantissa takes NumPy's int64 loop: no error
        np.testing.assert_array_equal(np.asarray(lnp.ldexp(lnp.asarray(np.array(b)), 2**31)),
                                      np.ldexp(np.array(b), 2**31))
    a = np.array([0, 1], np.float16)
    for v in (1e-300, 0.0, float("nan"), 1e-300j, 0j, 5, True):
        for f in ("logical_or", "logical_and", "logical_xor"):
            np.testing.assert_array_equal(np.asarray(getattr(lnp, f)(lnp.asarray(a), v)),
                                          getattr(np, f)(a, v))


# ---- indexing: basic and advanced indices, read and written ----

@SETTINGS
@given(st.data())
def test_indexing_reads_and_writes(data):
    """x[index] and x[index] = v for NumPy's basic indices (slices, integers, None, ...) and
    its advanced ones (integer arrays broadcast together, a boolean mask), against NumPy."""
    dtype = data.draw(st.sampled_from(DTYPES), label="dtype")
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5),
                      label="shape")
    a = data.draw(_arrays(dtype, shape), label="a")
    kinds = ["basic", "mask"] + (["integer arrays"] if 0 not in shape else [])
    kind = data.draw(st.sampled_from(kinds), label="kind")
    if kind == "basic":
        index = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True),
                          label="index")
    elif kind == "integer arrays":
        index = data.draw(hnp.integer_array_indices(
            shape, result_shape=hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)),
            label="index")
    else:
        index = data.draw(hnp.arrays(np.bool_, shape), label="mask")
    x = lnp.asarray(a)
    want = a[index]
    np.testing.assert_array_equal(np.asarray(x[index]), want)
    assert np.asarray(x[index]).dtype == want.dtype
    # a write: NumPy's copy updated in place, loom's array rebound to the updated value
    v = data.draw(_arrays(dtype, want.shape), label="v")
    b, y = a.copy(), lnp.asarray(a)
    b[index] = v
    y[index] = lnp.asarray(v)
    np.testing.assert_array_equal(np.asarray(y), b)


# ---- sorting, sets and manipulation: a function and its arguments drawn for the array ----

def _axis(data, ndim):
    return data.draw(st.integers(-ndim, ndim - 1), label="axis")


_CALLS = {
    "sort": lambda d, a: ((a,), {"axis": _axis(d, a.ndim), "stable": True}),
    "argsort": lambda d, a: ((a,), {"axis": _axis(d, a.ndim), "stable": True}),
    "unique": lambda d, a: ((a,), {k: d.draw(st.booleans(), label=k) for k in (
        "return_index", "return_inverse", "return_counts")}),
    "flip": lambda d, a: ((a,), {"axis": _axis(d, a.ndim)}),
    "roll": lambda d, a: ((a, d.draw(st.integers(-7, 7), label="shift")),
                          {"axis": _axis(d, a.ndim)}),
    "transpose": lambda d, a: ((a, tuple(d.draw(st.permutations(range(a.ndim)),
                                                label="axes"))), {}),
    "reshape": lambda d, a: ((a, (-1,) + a.shape[1:] if a.shape[0] else a.shape), {}),
    "concatenate": lambda d, a: (((a, a[::-1]),), {"axis": _axis(d, a.ndim)}),
    "stack": lambda d, a: (((a, a),), {"axis": d.draw(st.integers(-a.ndim - 1, a.ndim),
                                                       label="axis")}),
    "repeat": lambda d, a: ((a, d.draw(st.integers(0, 3), label="repeats")),
                            {"axis": _axis(d, a.ndim)}),
    "tile": lambda d, a: ((a, tuple(d.draw(st.lists(st.integers(0, 2), min_size=1,
                                                    max_size=3), label="reps"))), {}),
    "diff": lambda d, a: ((a,), {"n": d.draw(st.integers(0, 3), label="n"),
                                 "axis": _axis(d, a.ndim)}),
    "expand_dims": lambda d, a: ((a, d.draw(st.integers(-a.ndim - 1, a.ndim), label="axis")),
                                 {}),
    "squeeze": lambda d, a: ((a,), {}),
    "swapaxes": lambda d, a: ((a, _axis(d, a.ndim), _axis(d, a.ndim)), {}),
    "moveaxis": lambda d, a: ((a, _axis(d, a.ndim), _axis(d, a.ndim)), {}),
    "take": lambda d, a: ((a, d.draw(hnp.arrays(np.int64, hnp.array_shapes(
        min_dims=0, max_dims=2, max_side=3), elements=st.integers(-9, 9)), label="indices")),
        {"axis": _axis(d, a.ndim), "mode": d.draw(st.sampled_from(["wrap", "clip"]),
                                                  label="mode")}),
    "searchsorted": lambda d, a: ((np.sort(a.ravel()), a), {"side": d.draw(
        st.sampled_from(["left", "right"]), label="side")}),
    "count_nonzero": lambda d, a: ((a,), {"axis": _axis(d, a.ndim)}),
    "nonzero": lambda d, a: ((a,), {}),
    "argwhere": lambda d, a: ((a,), {}),
    "tril": lambda d, a: ((a, d.draw(st.integers(-3, 3), label="k")), {}),
    "trace": lambda d, a: ((a,), {"offset": d.draw(st.integers(-3, 3), label="offset")}),
    "pad": lambda d, a: ((a, d.draw(st.integers(0, 2), label="width")),
                         {"mode": d.draw(st.sampled_from(["constant", "edge", "wrap",
                                                          "reflect", "symmetric"]),
                                         label="mode")}),
}
_NEEDS_2D = {"tril", "trace"}


@SETTINGS
@given(st.data())
def test_sorting_sets_and_manipulation(data):
    name = data.draw(st.sampled_from(sorted(_CALLS)), label="function")
    dtype = data.draw(st.sampled_from(DTYPES), label="dtype")
    a = data.draw(_arrays(dtype, hnp.array_shapes(min_dims=2 if name in _NEEDS_2D else 1,
                                                  max_dims=3, min_side=0, max_side=5)),
                  label="a")
    args, kwargs = _CALLS[name](data, a)
    if name == "take" and a.shape[kwargs["axis"]] == 0:
        return  # NumPy's take of an empty axis with mode='wrap' never returns
    loom_args = [lnp.asarray(x) if isinstance(x, np.ndarray) else
                 tuple(lnp.asarray(y) for y in x) if isinstance(x, tuple) and x and
                 isinstance(x[0], np.ndarray) else x for x in args]
    with np.errstate(all="ignore"):
        try:
            want, err = getattr(np, name)(*args, **kwargs), None
        except (TypeError, ValueError, IndexError) as e:
            want, err = None, e
    if err is not None:
        with pytest.raises((TypeError, ValueError, IndexError, loom.LoomError)):
            got = getattr(lnp, name)(*loom_args, **kwargs)
            np.asarray(got[0] if isinstance(got, tuple) else got)
        return
    hypothesis.event("compared " + name)
    got = getattr(lnp, name)(*loom_args, **kwargs)
    wants = want if isinstance(want, tuple) else (want,)
    gots = got if isinstance(got, tuple) else (got,)
    assert len(gots) == len(wants)
    for g, w in zip(gots, wants):
        w = np.asarray(w)
        _close(np.asarray(g), w, _tol(w.dtype) * 8)


# ---- the standard's own semantics: array-api-strict, on the dtypes it allows ----

try:
    import array_api_strict as xp
except ImportError:  # (these cases need it)
    xp = None
STRICT_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float32", "float64", "complex64", "complex128"]


def _strict_elementwise(arity):
    """The standard's elementwise functions of that arity that loom.numpy has too."""
    if xp is None:
        return ["abs"]
    import inspect
    out = []
    for n in dir(xp):
        f = getattr(xp, n)
        if n.startswith("_") or not callable(f) or not hasattr(lnp, n) or n in SKIP:
            continue
        try:
            ps = [p for p in inspect.signature(f).parameters.values()
                  if p.default is inspect.Parameter.empty and p.kind in (
                      p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            continue
        ufunc_like = n in UNARY or n in BINARY or n in ("real", "imag", "round", "clip",
                                                        "logaddexp", "copysign", "nextafter")
        if ufunc_like and len(ps) == arity:
            out.append(n)
    return sorted(out)


@pytest.mark.skipif(xp is None, reason="array-api-strict is not installed")
@SETTINGS
@given(st.data())
def test_standard_elementwise_against_array_api_strict(data):
    """Every elementwise function the standard and loom.numpy share, with one dtype (the
    standard leaves mixed kinds to the library), against array-api-strict's values; where the
    standard refuses a dtype (sin of integers), loom follows NumPy and is not compared."""
    arity = data.draw(st.sampled_from([1, 2]), label="arity")
    name = data.draw(st.sampled_from(_strict_elementwise(arity)), label="function")
    dtype = data.draw(st.sampled_from(STRICT_DTYPES), label="dtype")
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=arity, min_dims=0,
                                                         max_dims=3, max_side=4),
                       label="shapes").input_shapes
    arrays = _documented(name, [data.draw(_arrays(dtype, s), label="operand") for s in shapes])
    with np.errstate(all="ignore"):
        if name == "sign" and dtype.startswith("complex") and not np.isfinite(arrays[0]).all():
            return  # array-api-strict's z / |z| is NaN at infinities; NumPy's (loom's) is not
    with np.errstate(all="ignore"):
        try:
            want = np.asarray(getattr(xp, name)(*[xp.asarray(a) for a in arrays]))
        except (TypeError, ValueError):
            return
    if _past_overflow(name, arrays):
        return
    got = np.asarray(getattr(lnp, name)(*[lnp.asarray(a) for a in arrays]))
    _close(got, want, _tol(dtype), _scale(name, arrays))


# ---- linalg and fft: well-conditioned matrices and random transform arguments ----

_LINALG = ["solve", "inv", "det", "slogdet", "norm", "matrix_rank", "pinv", "cholesky",
           "eigvalsh", "svdvals", "qr", "lstsq", "matrix_power", "cond", "eigh", "svd", "eig",
           "eigvals"]


def _same_values(got, want, atol):
    """Each line's eigenvalues the same multiset as NumPy's, within atol (orders differ)."""
    assert got.shape == want.shape and got.dtype.kind == "c", (got.shape, want.shape, got.dtype)
    g, w = got.reshape(-1, got.shape[-1]), want.reshape(-1, want.shape[-1])
    for gl, wl in zip(g, w):
        d = np.abs(gl[:, None] - wl[None, :])
        assert (d.min(axis=0) <= atol).all() and (d.min(axis=1) <= atol).all(), (gl, wl)


def _draw_parts(data, dtype, shape, elements=None, raw=np.float64, label="entries"):
    """An array of shape whose real part, and for a complex dtype also its imaginary part, is
    drawn from elements (floats in [-1, 1] by default), as float64 or complex128."""
    parts = 2 if dtype.startswith("complex") else 1
    r = data.draw(hnp.arrays(raw, (parts,) + shape,
                             elements=st.floats(-1, 1) if elements is None else elements),
                  label=label)
    return r[0] + (1j * r[1] if parts == 2 else 0)


@SETTINGS
@given(st.data())
def test_linalg(data):
    name = data.draw(st.sampled_from(_LINALG), label="function")
    dtype = data.draw(st.sampled_from(["float32", "float64", "complex64", "complex128"]),
                      label="dtype")
    n = data.draw(st.integers(1, 5), label="n")
    batch = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2), label="batch"))
    a = _draw_parts(data, dtype, batch + (n, n))
    # strictly diagonally dominant (parts in [-1, 1]: off the diagonal a row's moduli sum to
    # at most sqrt(2) (n - 1)): well conditioned, nonsingular
    a = a + (2 * n + 1) * np.eye(n)
    if name in ("cholesky", "eigvalsh", "eigh"):
        a = a @ np.conj(np.swapaxes(a, -1, -2)) + np.eye(n)  # Hermitian positive definite
    a = a.astype(dtype)
    args, kwargs = (a,), {}
    if name in ("solve", "lstsq"):
        k = data.draw(st.integers(1, 3), label="columns")
        args = (a if name == "solve" else a[(0,) * len(batch)],
                data.draw(hnp.arrays(dtype, (batch if name == "solve" else ()) + (n, k),
                                     elements=st.floats(-2, 2, width=32)), label="b"))
    elif name == "norm":
        kwargs = {"ord": data.draw(st.sampled_from([None, "fro", "nuc", 1, -1, 2, -2, np.inf,
                                                    -np.inf]), label="ord"), "axis": (-2, -1)}
    elif name == "matrix_power":
        args = (a, data.draw(st.integers(-3, 4), label="power"))
    elif name == "cond":
        kwargs = {"p": data.draw(st.sampled_from([None, "fro", 1, np.inf, 2]), label="p")}
    elif name == "svd":
        kwargs = {"full_matrices": data.draw(st.booleans(), label="full_matrices")}
    if name == "lstsq":
        kwargs = {"rcond": None}
    want = getattr(np.linalg, name)(*args, **kwargs)
    got = getattr(lnp.linalg, name)(*[lnp.asarray(x) if isinstance(x, np.ndarray) else x
                                      for x in args], **kwargs)
    wants = tuple(want) if isinstance(want, tuple) else (want,)
    gots = tuple(got) if isinstance(got, tuple) else (got,)
    rtol = 1e-3 if dtype in ("float32", "complex64") else 1e-9
    if name == "qr":  # Q and R up to the signs of R's diagonal: compare Q R and |R|
        q, r = (np.asarray(g) for g in gots)
        _close(q @ r, a.astype(q.dtype), rtol)
        _close(np.abs(r), np.abs(wants[1]).astype(np.abs(r).dtype), rtol)
        return
    big = max(1.0, float(np.abs(a).max()))
    # a multiple eigenvalue of a general matrix moves by about the square root of the rounding
    ev_tol = (rtol + 10 * float(np.sqrt(np.finfo(a.dtype).eps))) * big
    if name in ("eigh", "svd", "eig"):
        # vectors up to a phase each (eig's values in LAPACK's or cuSOLVER's order): the
        # values, then the factorisation rebuilt
        g = [np.asarray(x) for x in gots]
        if name == "eigh":
            _close(g[0], np.asarray(wants[0]), rtol, big)
            _close(a @ g[1], g[1] * g[0][..., None, :], rtol, big)
        elif name == "svd":
            _close(g[1], np.asarray(wants[1]), rtol, big)
            _close((g[0] * g[1][..., None, :]) @ g[2][..., :n, :], a, rtol, big)
            assert g[0].shape == wants[0].shape and g[2].shape == wants[2].shape
        else:
            _close(a @ g[1], g[1] * g[0][..., None, :], rtol, big)
            _same_values(g[0], np.asarray(wants[0]), ev_tol)
        return
    if name == "eigvals":
        _same_values(np.asarray(got), np.asarray(want), ev_tol)
        return
    if name == "lstsq":
        gots, wants = gots[:2] + gots[3:], wants[:2] + wants[3:]  # rank compared apart
        assert int(np.asarray(got[2])) == int(want[2])
    for g, w in zip(gots, wants):
        w = np.asarray(w)
        _close(np.asarray(g), w, rtol, max(1.0, float(np.abs(w).max()) if w.size else 1.0))


@SETTINGS
@given(st.data())
def test_fft(data):
    name = data.draw(st.sampled_from(["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]),
                     label="function")
    real_in = name in ("rfft", "ihfft")
    dtype = data.draw(st.sampled_from(["float32", "float64"] if real_in else
                                      ["float32", "float64", "complex64", "complex128"]),
                      label="dtype")
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=9),
                      label="shape")
    a = _draw_parts(data, dtype, shape).astype(dtype)
    kwargs = {"axis": _axis(data, a.ndim),
              "n": data.draw(st.one_of(st.none(), st.integers(1, 12)), label="n"),
              "norm": data.draw(st.sampled_from([None, "backward", "ortho", "forward"]),
                                label="norm")}
    if name in ("irfft", "hfft") and kwargs["n"] is None and a.shape[kwargs["axis"]] < 2:
        kwargs["n"] = 2  # (NumPy's default output length 2 (m - 1) is 0 there)
    want = getattr(np.fft, name)(a, **kwargs)
    got = np.asarray(getattr(lnp.fft, name)(lnp.asarray(a), **kwargs))
    # NumPy 2 keeps float32 in pocketfft's single precision, as loom does
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    scale = max(1.0, float(np.abs(a).sum()))
    _close(got, want, 1e-5 if dtype in ("float32", "complex64") else 1e-12, scale)


@SETTINGS
@given(st.data())
def test_fft_nd(data):
    """The n-D transforms with drawn axes, `s` and norm, and the shifts."""
    name = data.draw(st.sampled_from(["fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2",
                                      "rfftn", "irfftn", "fftshift", "ifftshift"]),
                     label="function")
    real_in = name.startswith("rfft")
    dtype = data.draw(st.sampled_from(["float32", "float64"] if real_in else
                                      ["float32", "float64", "complex64", "complex128"]),
                      label="dtype")
    two = name.endswith("2")
    shape = data.draw(hnp.array_shapes(min_dims=2 if two else 1, max_dims=3, min_side=1,
                                       max_side=6), label="shape")
    a = _draw_parts(data, dtype, shape).astype(dtype)
    k = 2 if two else data.draw(st.integers(1, a.ndim), label="k")
    axes = tuple(data.draw(st.permutations(range(-a.ndim, 0)), label="axes")[:k])
    kwargs = {"axes": axes}
    if "shift" not in name:
        if data.draw(st.booleans(), label="with s"):
            kwargs["s"] = tuple(data.draw(st.lists(st.integers(1, 8), min_size=k, max_size=k),
                                          label="s"))
        kwargs["norm"] = data.draw(st.sampled_from([None, "backward", "ortho", "forward"]),
                                   label="norm")
    with np.errstate(all="ignore"):
        try:
            want, err = getattr(np.fft, name)(a, **kwargs), None
        except ValueError as e:
            want, err = None, e
    if err is not None:  # (irfftn's default last length 2 (m - 1) is 0 where m is 1)
        with pytest.raises((ValueError, loom.LoomError)):
            np.asarray(getattr(lnp.fft, name)(lnp.asarray(a), **kwargs))
        return
    hypothesis.event("compared " + name)
    got = np.asarray(getattr(lnp.fft, name)(lnp.asarray(a), **kwargs))
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                 got.shape, want.shape)
    scale = max(1.0, float(np.abs(a).sum()))
    _close(got, want, 1e-5 if dtype in ("float32", "complex64") else 1e-12, scale)


_EINSUM = ["ij,jk->ik", "ij,ij->i", "i,i->", "ij->ji", "ii->i", "bij,bjk->bik", "i,j->ij",
           "ij->", "ijk,k->ij", "...j,j->..."]


@SETTINGS
@given(st.data())
def test_products(data):
    """matmul (batched, 1-d operands), dot, vdot, inner, outer, kron, tensordot, vecdot, cross
    and einsum on drawn sizes and dtypes."""
    name = data.draw(st.sampled_from(["matmul", "dot", "vdot", "inner", "outer", "kron",
                                      "tensordot", "vecdot", "cross", "einsum"]),
                     label="function")
    dtype = data.draw(st.sampled_from(["int32", "int64", "float32", "float64", "complex64",
                                       "complex128", "bool"]), label="dtype")
    m, n, k, b = (data.draw(st.integers(0 if name != "cross" else 1, 4), label=x)
                  for x in "mnkb")

    def arr(shape, label):
        if dtype == "bool":
            return data.draw(hnp.arrays(np.bool_, shape), label=label)
        # (small integers: every product exact in any order)
        return _draw_parts(data, dtype, shape, st.integers(-4, 4), np.int64, label).astype(dtype)

    kwargs = {}
    if name == "matmul":
        form = data.draw(st.sampled_from(["mm", "bmm", "vm", "mv", "vv"]), label="form")
        sa = {"mm": (m, k), "bmm": (b, m, k), "vm": (k,), "mv": (m, k), "vv": (k,)}[form]
        sb = {"mm": (k, n), "bmm": (1, k, n), "vm": (k, n), "mv": (k,), "vv": (k,)}[form]
        args = (arr(sa, "a"), arr(sb, "b"))
    elif name in ("dot", "inner"):
        args = (arr((m, k), "a"), arr((k,) if name == "dot" else (n, k), "b"))
    elif name in ("vdot", "outer"):
        args = (arr((m, k), "a"), arr((m, k) if name == "vdot" else (n,), "b"))
    elif name == "kron":
        args = (arr((m, k), "a"), arr((n, b), "b"))
    elif name == "tensordot":
        args = (arr((m, k, b), "a"), arr((k, b, n), "b"))
        kwargs = {"axes": data.draw(st.sampled_from([0, 1, 2, ([1], [0]), ([1, 2], [0, 1])]),
                                    label="axes")}
        if kwargs["axes"] == 1:
            args = (args[0], arr((b, n), "b"))
        elif kwargs["axes"] == 0:
            args = (arr((m, k), "a"), arr((n,), "b"))
    elif name == "vecdot":
        args = (arr((b, k), "a"), arr((k,), "b"))
    elif name == "cross":
        # (vectors of 2 components mixed with 3: deprecated in NumPy 2.0, refused from 2.5)
        c = 3 if np.lib.NumpyVersion(np.__version__) >= "2.5.0" else data.draw(
            st.sampled_from([2, 3]), label="components")
        args = (arr((m, 3), "a"), arr((c,), "b"))
    else:
        sub = data.draw(st.sampled_from(_EINSUM), label="subscripts")
        size = {"i": m, "j": k, "k": n, "b": b}
        shapes = [tuple(size[c] if c != "." else 2 for c in op.replace("...", "."))
                  for op in sub.split("->")[0].split(",")]
        if sub == "ii->i":
            shapes = [(m, m)]
        args = (sub,) + tuple(arr(sh, "op%d" % i) for i, sh in enumerate(shapes))
    if dtype == "bool" and name in ("cross", "vecdot"):
        return  # (NumPy refuses booleans there: its own subtract and conjugate rules)
    with np.errstate(all="ignore"):
        try:
            want, err = getattr(np, name)(*args, **kwargs), None
        except (TypeError, ValueError) as e:
            want, err = None, e
    loom_args = [lnp.asarray(x) if isinstance(x, np.ndarray) else x for x in args]
    if err is not None:
        with pytest.raises((TypeError, ValueError, loom.LoomError)):
            np.asarray(getattr(lnp, name)(*loom_args, **kwargs))
        return
    hypothesis.event("compared " + name)
    got = np.asarray(getattr(lnp, name)(*loom_args, **kwargs))
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                 got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


# ---- casts and where, clip ----

@SETTINGS
@given(st.data())
def test_casts(data):
    """astype between every pair of dtypes: integers wrap as NumPy's casts do, floats round
    to nearest even; float to integer only for values the integer holds (C leaves the rest
    undefined, and x86 NumPy's values are the instruction's)."""
    src = data.draw(st.sampled_from(DTYPES), label="from")
    dst = data.draw(st.sampled_from(DTYPES), label="to")
    a = data.draw(_arrays(src, hnp.array_shapes(min_dims=0, max_dims=2, max_side=5)),
                  label="a")
    if a.dtype.kind in "fc" and np.dtype(dst).kind in "iu":
        info = np.iinfo(dst)
        with np.errstate(all="ignore"):
            r = a.real if a.dtype.kind == "c" else a
            ok = np.isfinite(r) & (r > info.min - 1) & (r < float(info.max) * (1 - 2**-20))
            a = np.where(ok, a, 0).astype(a.dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (ComplexWarning)
        want = a.astype(dst)
    got = np.asarray(lnp.asarray(a).astype(dst))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@SETTINGS
@given(st.data())
def test_where_and_clip(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3,
                                                         max_side=4), label="shapes").input_shapes
    c = data.draw(hnp.arrays(np.bool_, shapes[0]), label="condition")
    x, lx = _operand(data, "x", shapes[1])
    y, ly = _operand(data, "y", shapes[2])
    if any(type(v) is int and not -2**63 <= v < 2**63 for v in (x, y)):
        return  # NumPy's where wraps such a Python int into the array's dtype; loom refuses it
    int_dtypes = [v.dtype for v in (x, y) if isinstance(v, np.ndarray) and v.dtype.kind in "iu"]
    if any(type(v) is int and any(not np.iinfo(d).min <= v <= np.iinfo(d).max for d in int_dtypes)
           for v in (x, y)):
        return  # an int out of the array's range: NumPy 2.4 wraps it (so does loom), 2.5 raises
    _differential(np.where, lnp.where, (c, x, y), (lnp.asarray(c), lx, ly),
                  _tol(*[v.dtype for v in (x, y) if isinstance(v, np.ndarray)]))
    if isinstance(x, np.ndarray) and x.dtype.kind in "iuf":
        lo, hi = (data.draw(st.floats(-100, 100) if x.dtype.kind == "f" else
                            st.integers(-5, 100), label=k) for k in ("lo", "hi"))
        _differential(np.clip, lnp.clip, (x, lo, hi), (lx, lo, hi), _tol(x.dtype))


# ---- NumPy's ufunc methods ----

@SETTINGS
@given(st.data())
def test_ufunc_methods(data):
    from loom.numpy import _ACCUMULATE, _REDUCE
    method = data.draw(st.sampled_from(["reduce", "accumulate", "outer"]), label="method")
    names = {"reduce": sorted(_REDUCE), "accumulate": sorted(_ACCUMULATE),
             "outer": [n for n in BINARY if n not in ("ldexp", "pow", "power", "float_power")]}
    name, dtype, a = _draw(data, names[method], 4)
    if method == "outer":
        b = data.draw(_arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)),
                      label="b")
        _differential(getattr(np, name).outer, getattr(lnp, name).outer, (a, b),
                      (lnp.asarray(a), lnp.asarray(b)), _tol(dtype))
        return
    if a.ndim == 0:
        return  # (NumPy's reduce and accumulate need an axis)
    axis = _axis(data, a.ndim)
    n = a.shape[axis]
    with np.errstate(all="ignore"):
        if (name in ("fmax", "fmin") and a.dtype.kind == "c" and a.size
                and np.isnan(a).all(axis=axis).any()):
            return  # a complex all-NaN slice (nanmax, nanmin): see test_reductions
        if "prod" in _REDUCE.get(name, "") + _ACCUMULATE.get(name, "") and a.dtype.kind == "c":
            a = np.where(np.abs(a) > 1e4, a / np.abs(a), a).astype(a.dtype)  # (see above)
    _differential(lambda x: getattr(getattr(np, name), method)(x, axis=axis),
                  lambda x: getattr(getattr(lnp, name), method)(x, axis=axis), (a,),
                  (lnp.asarray(a),), _tol(dtype) * max(1, n))
