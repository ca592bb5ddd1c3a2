"""loom.numpy's everyday NumPy functions beyond the Array API (fmod, fabs, bitwise_count,
allclose, array_equal, logspace, geomspace, matvec, percentile of several q, ...), NumPy's
array methods that update in place (as rebinding), and the namespace's metadata, conversion
and I/O helpers, against NumPy on the CPU reference device."""
import os

import numpy as np
import pytest

import loom
import loom.numpy as lnp

import _arrays  # (this folder's)

rng = np.random.default_rng(11)


from _arrays import cpu_context  # noqa: F401 (the module's CPU context)


def check(got, want, rtol=1e-12):
    _arrays.check(got, want, rtol, atol=0)


def errors_alike(f_np, f_loom):
    with pytest.raises(Exception) as want:
        f_np()
    with pytest.raises(type(want.value)):
        f_loom()


INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("dtype", INTS + ["float16", "float32", "float64"])
def test_fmod_is_cs(dtype):
    a = _arrays.sample(rng, (4, 5), dtype)
    b = _arrays.sample(rng, (5,), dtype)
    if np.dtype(dtype).kind in "iu":
        b[1] = 0  # 0 for a zero divisor, as NumPy's (with its warning)
    with np.errstate(all="ignore"):
        want = np.fmod(a, b)
    check(lnp.fmod(lnp.asarray(a), lnp.asarray(b)), want)
    # the dividend's sign, exactly: the case remainder's rounding would lose
    check(lnp.fmod(lnp.asarray([-1e-20, 1e-20, -0.0]), 1.0), np.fmod([-1e-20, 1e-20, -0.0], 1.0))


@pytest.mark.parametrize("dtype", INTS + ["bool", "float16", "float32", "float64"])
def test_fabs_takes_the_float_loop(dtype):
    a = _arrays.sample(rng, (7,), dtype)
    check(lnp.fabs(lnp.asarray(a)), np.fabs(a))


def test_fabs_refuses_complex_and_bitwise_count_floats():
    errors_alike(lambda: np.fabs(np.array([1j])), lambda: lnp.fabs(lnp.asarray([1j])))
    errors_alike(lambda: np.bitwise_count(np.array([1.5])),
                 lambda: lnp.bitwise_count(lnp.asarray([1.5])))


@pytest.mark.parametrize("dtype", INTS)
def test_bitwise_count_of_magnitudes(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, info.max, 0, 1, 5], dtype=dtype)
    check(lnp.bitwise_count(lnp.asarray(a)), np.bitwise_count(a))


def test_allclose_array_equal_array_equiv():
    a = rng.random((3, 4))
    for b in (a, a + 1e-9, a + 1e-3, a[0], np.where(a > 0.5, np.nan, a)):
        for f in ("allclose", "array_equal", "array_equiv"):
            got = getattr(lnp, f)(lnp.asarray(a), lnp.asarray(b))
            want = getattr(np, f)(a, b)
            assert isinstance(got, loom.ndarray) and got.shape == () and bool(got) == want, f
    n = np.array([np.nan, 1.0])
    assert bool(lnp.array_equal(lnp.asarray(n), lnp.asarray(n), equal_nan=True))
    assert not bool(lnp.array_equal(lnp.asarray(n), lnp.asarray(n)))
    assert bool(lnp.allclose(lnp.asarray(n), lnp.asarray(n), equal_nan=True))
    # shapes that differ or do not broadcast: False, not an error (NumPy's)
    assert not bool(lnp.array_equal(lnp.asarray([1, 2]), lnp.asarray([1, 2, 3])))
    assert not bool(lnp.array_equiv(lnp.asarray([1, 2]), lnp.asarray([1, 2, 3])))
    assert bool(lnp.array_equiv(lnp.asarray([1, 2]), lnp.asarray([[1, 2], [1, 2]])))


@pytest.mark.parametrize("args,kw", [
    ((0, 3, 4), {}), ((0, 2, 3), {"base": 2.0}), ((0, 3, 4), {"dtype": int}),
    ((1, 2, 5), {"endpoint": False, "dtype": np.float32}), ((2, -2, 0), {}), ((1, 1, 1), {})])
def test_logspace(args, kw):
    check(lnp.logspace(*args, **kw), np.logspace(*args, **kw), rtol=1e-14)


@pytest.mark.parametrize("args,kw", [
    ((1, 1000, 4), {}), ((-1000, -1, 4), {"endpoint": False}), ((-1, 1, 3), {}),
    ((1, 256, 9), {"dtype": int}), ((2, 2, 0), {}), ((2, 8, 1), {}), ((8, 2, 3), {}),
    ((1e-3, 1e3, 7), {"dtype": np.float32})])
def test_geomspace(args, kw):
    with np.errstate(invalid="ignore"):
        want = np.geomspace(*args, **kw)
    check(lnp.geomspace(*args, **kw), want, rtol=1e-14)


def test_geomspace_refuses_zero():
    errors_alike(lambda: np.geomspace(0, 1, 3), lambda: lnp.geomspace(0, 1, 3))
    errors_alike(lambda: np.logspace(0, 1, -1), lambda: lnp.logspace(0, 1, -1))


@pytest.mark.parametrize("sa,sb", [((2, 3), (3,)), ((2, 1, 3, 4), (2, 4)), ((5, 3), (2, 1, 3))])
def test_matvec_vecmat(sa, sb):
    a = rng.random(sa) + 1j * rng.random(sa)
    v = rng.random(sb) + 1j * rng.random(sb)
    check(lnp.matvec(lnp.asarray(a), lnp.asarray(v)), np.matvec(a, v))
    at = np.swapaxes(a, -1, -2)
    check(lnp.vecmat(lnp.asarray(v), lnp.asarray(at)), np.vecmat(v, at))
    w = v.reshape(-1)  # 1-D: not a matrix
    errors_alike(lambda: np.matvec(w, w), lambda: lnp.matvec(lnp.asarray(w), lnp.asarray(w)))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int64", "uint64"])
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 9), (2, 0, 3), (2, 3, 17)])
def test_packbits_unpackbits(dtype, shape):
    a = (rng.integers(0, 3, shape) if dtype != "uint8" else rng.integers(0, 256, shape))
    a = np.asarray(a).astype(dtype)
    x = lnp.asarray(a)
    for axis in (None, 0, -1, 1, 2, -4):
        for order in ("big", "little"):
            for f, kws in (("packbits", [{}]),
                           ("unpackbits", [{}, {"count": 3}, {"count": -2}, {"count": 20}])):
                for kw in kws:
                    if a.size == 0 and kw.get("count", 0) > 0:
                        continue  # (NumPy's padding of nothing is uninitialised memory)
                    try:
                        want = getattr(np, f)(a, axis=axis, bitorder=order, **kw)
                    except Exception as e:  # (the axis, or unpackbits of another dtype)
                        with pytest.raises(type(e)):
                            np.asarray(getattr(lnp, f)(x, axis=axis, bitorder=order, **kw))
                        continue
                    check(getattr(lnp, f)(x, axis=axis, bitorder=order, **kw), want)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "float16", "float32", "float64",
                                   "complex64", "complex128"])
def test_sort_complex(dtype):
    a = _arrays.sample(rng, (3, 5), dtype)
    check(lnp.sort_complex(lnp.asarray(a)), np.sort_complex(a))


@pytest.mark.parametrize("f,q,kw", [
    ("percentile", [25, 75], {"axis": 0}), ("percentile", (10, 50, 90), {}),
    ("quantile", np.array([0.1, 0.9]), {"axis": 1, "keepdims": True}),
    ("quantile", [0, 1], {"axis": 0}), ("nanpercentile", [5.5], {"axis": 1}),
    ("percentile", np.array(30), {"axis": 1}), ("quantile", [], {"axis": 0}),
    ("nanquantile", [0.25, 0.5], {"axis": 0, "method": "nearest"})])
def test_quantiles_of_several_q(f, q, kw):
    x = rng.random((5, 7))
    x[1, 2] = np.nan if f.startswith("nan") else x[1, 2]
    check(getattr(lnp, f)(lnp.asarray(x), q, **kw), getattr(np, f)(x, q, **kw))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("f,q,method", [
    ("quantile", [0.25, 0.75], "linear"), ("percentile", [25, 75], "linear"),
    ("quantile", np.array([0.5]), "hazen"), ("quantile", np.array([0.3], "float32"), "midpoint"),
    ("nanpercentile", (10, 90), "weibull"), ("quantile", [0.25, 0.75], "nearest"),
    ("quantile", 0.25, "linear"), ("quantile", [0, 1], "linear")])
def test_quantiles_take_the_dtype_of_q(dtype, f, q, method):
    # float data and a q of its own dtype (an array, a list): NumPy interpolates in the
    # dtype both promote to (float64 for a list), but takes a weak number as the data's dtype
    x = rng.random((4, 6)).astype(dtype)
    want = getattr(np, f)(x, q, axis=1, method=method)
    check(getattr(lnp, f)(lnp.asarray(x), q, axis=1, method=method), want,
          rtol=2e-3 if dtype == "float16" else 1e-6)  # (NumPy subtracts in x's dtype)


def test_quantiles_refuse_complex():
    z = np.array([1 + 1j, 3, 2j])
    for f, q in (("quantile", 0.5), ("percentile", [50]), ("nanquantile", [0.5])):
        errors_alike(lambda: getattr(np, f)(z, q), lambda: getattr(lnp, f)(lnp.asarray(z), q))


@pytest.mark.parametrize("dtype", ["float16", "float32", "int8", "uint8", "int64"])
@pytest.mark.parametrize("method", ["linear", "lower", "weibull", "hazen", "midpoint",
                                    "inverted_cdf", "averaged_inverted_cdf"])
@pytest.mark.parametrize("q", [(0.5,), (0, 1), [0, 1], np.array([0.2, 0.7]), np.array(0.3)])
def test_quantile_dtype_of_a_q_array(dtype, method, q):
    """NumPy's result dtype for q arrays and sequences: the interpolating methods promote with
    q's dtype (found by the conformance suite: float16 data gave float16 for (0.25, 0.75))."""
    a = (rng.random((4, 6)) * 10).astype(dtype)
    for f, qq in (("quantile", q), ("percentile", np.multiply(q, 100))):
        want = getattr(np, f)(a, qq, axis=0, method=method)
        check(getattr(lnp, f)(lnp.asarray(a), qq, axis=0, method=method), want, rtol=1e-2)


def test_quantiles_check_every_q():
    x = lnp.asarray(rng.random(5))
    errors_alike(lambda: np.percentile(np.ones(5), [50, 101]), lambda: lnp.percentile(x, [50, 101]))
    errors_alike(lambda: np.quantile(np.ones(5), [0.5, 1.5]), lambda: lnp.quantile(x, [0.5, 1.5]))


def test_methods_that_update_in_place_rebind():
    a = rng.random((4, 3))
    x = lnp.asarray(a)
    alias = x  # the same object: sees the update
    old = x.copy()  # another object over the old values: keeps them
    x.sort(axis=0)
    assert alias is x
    check(x, np.sort(a, axis=0))
    check(old, a)
    x.fill(2.5)
    check(x, np.full((4, 3), 2.5))
    y = lnp.asarray([5, 1, 4, 2, 3])
    y.partition(2)
    assert np.asarray(y)[2] == 3
    assert x.sort() is None and y.fill(1) is None


def test_in_place_methods_check_as_numpy():
    # sort and partition take one axis (axis=None would flatten the array in place)
    a = rng.random((2, 3))
    x = lnp.asarray(a)
    errors_alike(lambda: a.copy().sort(None), lambda: x.sort(None))
    errors_alike(lambda: a.copy().partition(0, None), lambda: x.partition(0, None))
    check(x, a)
    # fill converts a number as NumPy's fill: by value, into the array's dtype
    for dtype, value in [("uint8", -1), ("int8", 1000), ("int8", 1j), ("float32", 1j),
                         ("int8", 2.5), ("int8", np.float64(-2.5)), ("uint64", 2**64 - 1),
                         ("bool", 2j), ("int64", 2**63 - 1)]:
        want = np.zeros(3, dtype)
        y = lnp.zeros(3, dtype=dtype)
        try:
            want.fill(value)
        except Exception as e:
            with pytest.raises(type(e)):
                y.fill(value)
            continue
        y.fill(value)
        check(y, want)


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint64", "float64"])
def test_full_of_integers_past_a_double(dtype):
    # an integer fill is exact (not through a double), and refused where it does not fit
    for v in (2**63 - 1, 2**64 - 1, 2**53 + 1, -2**63, 1000, -1):
        for f_np, f_loom in ((lambda: np.full(2, v, dtype=dtype), lambda: lnp.full(2, v, dtype)),
                             (lambda: np.full_like(np.zeros(2, dtype), v),
                              lambda: lnp.full_like(lnp.zeros(2, dtype=dtype), v))):
            try:
                want = f_np()
            except Exception as e:
                with pytest.raises(type(e)):
                    f_loom()
                continue
            check(f_loom(), want)


def test_partition_of_an_empty_array():
    for shape, kth in (((2, 0), 0), ((0, 3), 5)):  # NumPy checks no kth there
        e = np.zeros(shape)
        check(lnp.partition(lnp.asarray(e), kth), np.partition(e, kth))


def test_other_methods():
    a = rng.random((3, 4))
    x = lnp.asarray(a)
    assert x.tolist() == a.tolist() and x.itemsize == 8 and x.tobytes() == a.tobytes()
    check(x.flatten(), a.flatten())
    check(x.flatten("F"), a.flatten("F"))
    assert a[1, 2] in x and 7.0 not in x
    q, r = divmod(7, lnp.asarray([2, 3]))
    check(q, np.array([3, 2]))
    check(r, np.array([1, 1]))
    s = lnp.asarray([1, 3, 5, 7])
    check(s.searchsorted([4, 7]), np.array([2, 3]))
    check(lnp.asarray([0, 2, 1]).choose([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), np.array([1, 8, 6]))
    check(x.compress([True, False, True], axis=0), a.compress([True, False, True], axis=0))
    check(lnp.asarray([3, 1, 2]).argpartition(1)[1], np.array(2))


def test_metadata_helpers():
    x = lnp.asarray(np.zeros((3, 4), np.float32))
    assert lnp.shape(x) == (3, 4) and lnp.ndim(x) == 2 and lnp.size(x) == 12
    assert lnp.size(x, 1) == 4 and lnp.shape([[1, 2]]) == (1, 2)
    assert not lnp.isscalar(x) and lnp.isscalar(3.0) and lnp.iterable(x)
    assert lnp.common_type(x) is np.float32 and lnp.min_scalar_type(x) == np.float32
    assert lnp.dtype("f4") == np.float32 and lnp.promote_types("i1", "u1") == np.int16
    assert lnp.issubdtype(x.dtype, lnp.floating)
    assert lnp.ascontiguousarray(5).shape == (1,)


def test_conversion_and_io(tmp_path):
    check(lnp.asarray_chkfinite([1.0, 2.0]), np.array([1.0, 2.0]))
    errors_alike(lambda: np.asarray_chkfinite([1.0, np.inf]),
                 lambda: lnp.asarray_chkfinite([1.0, np.inf]))
    check(lnp.fromfunction(lambda i, j: i * 10 + j, (2, 3)),
          np.fromfunction(lambda i, j: i * 10 + j, (2, 3)))
    check(lnp.frombuffer(b"\x01\x02\x03", dtype=np.uint8), np.array([1, 2, 3], np.uint8))
    check(lnp.fromiter(range(4), float), np.arange(4.0))
    a = rng.random((2, 3))
    lnp.save(os.path.join(tmp_path, "a"), lnp.asarray(a))  # the suffix added, as NumPy's
    check(lnp.load(os.path.join(tmp_path, "a.npy")), a)
    assert np.array_equal(np.load(os.path.join(tmp_path, "a.npy")), a)
    lnp.savez(os.path.join(tmp_path, "b.npz"), x=lnp.asarray(a), y=a[0])
    d = lnp.load(os.path.join(tmp_path, "b.npz"))
    check(d["x"], a)
    check(d["y"], a[0])


def test_apply_along_axis_and_piecewise():
    a = rng.random((3, 4))
    x = lnp.asarray(a)
    check(lnp.apply_along_axis(lambda v: v.sum(), 1, x), np.apply_along_axis(np.sum, 1, a))
    check(lnp.apply_along_axis(lambda v: lnp.stack([v.min(), v.max()]), 0, x),
          np.apply_along_axis(lambda v: np.stack([v.min(), v.max()]), 0, a))
    v = np.linspace(-2, 2, 9)
    check(lnp.piecewise(lnp.asarray(v), [v < 0, v >= 0], [lambda t: -t, lambda t: t * 2]),
          np.piecewise(v, [v < 0, v >= 0], [lambda t: -t, lambda t: t * 2]))
    check(lnp.piecewise(lnp.asarray(v), [v < -1], [0, lambda t: t + 10]),
          np.piecewise(v, [v < -1], [0, lambda t: t + 10]))


def test_index_tricks():
    check(lnp.r_[lnp.asarray([1, 2]), 3, 0:3], np.r_[np.array([1, 2]), 3, 0:3])
    check(lnp.r_[0:1:5j], np.r_[0:1:5j])
    check(lnp.c_[lnp.asarray([1, 2]), [3, 4]], np.c_[np.array([1, 2]), [3, 4]])
    # Python numbers are weak, as in NumPy's result_type, and converted by value
    f32, i8 = np.array([1.0], np.float32), np.array([1], np.int8)
    check(lnp.r_[lnp.asarray(f32), 2.5], np.r_[f32, 2.5])
    check(lnp.c_[lnp.asarray(i8), 3], np.c_[i8, 3])
    check(lnp.r_[lnp.asarray(i8), 0:3], np.r_[i8, 0:3])
    with pytest.raises(OverflowError):
        np.r_[i8, 300]
    with pytest.raises(OverflowError):
        lnp.r_[lnp.asarray(i8), 300]


def test_grids_and_real_if_close():
    check(lnp.mgrid[0:5], np.mgrid[0:5])
    check(lnp.mgrid[0:2, 0:3], np.mgrid[0:2, 0:3])
    check(lnp.mgrid[0:1:0.5, 0:2], np.mgrid[0:1:0.5, 0:2])
    check(lnp.mgrid[-1:1:5j], np.mgrid[-1:1:5j])
    got, want = lnp.ogrid[0:2, 0:3], np.ogrid[0:2, 0:3]
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        check(g, w)
    for a in (np.array([1 + 1e-16j, 2]), np.array([1 + 1e-3j]), np.array([1, 2])):
        check(lnp.real_if_close(lnp.asarray(a)), np.real_if_close(a))
    x = lnp.asarray(np.ones((2, 3)))
    assert lnp.einsum_path("ij,jk->ik", x, x.T)[0] == np.einsum_path(
        "ij,jk->ik", np.ones((2, 3)), np.ones((3, 2)))[0]


def test_more_array_methods():
    a = np.arange(6.0).reshape(2, 3)
    for shape in ((4, 2), 2, (3, 2), (), None, (0,), [1, 3]):
        x, want = lnp.asarray(a), a.copy()
        args = () if shape is None else (shape,)  # (no shape: the array as it is)
        x.resize(*args)
        want.resize(*args, refcheck=False)
        check(x, want)
    for shape in (-1, (2, -1)):  # negative dimensions: refused, the array kept
        x = lnp.asarray(a)
        errors_alike(lambda: a.copy().resize(shape, refcheck=False), lambda: x.resize(shape))
        check(x, a)
    x = lnp.asarray(a)
    assert x.flat[2] == 2.0 and len(x.flat) == 6
    assert [float(v) for v in x.flat] == a.ravel().tolist()
    x.flat[1:3] = -1.0
    w = a.copy()
    w.flat[1:3] = -1.0
    check(x, w)
    assert x.strides == a.strides and x.base is None
    check(x.view(), w)
    with pytest.raises(NotImplementedError):
        x.view(np.int64)
    import pickle
    check(pickle.loads(pickle.dumps(x)), w)


@pytest.mark.parametrize("name,vals", [
    ("sqrt", [-1.0, 4.0]), ("sqrt", [1, 4]), ("log", [-1.0, 2.0]), ("log10", [10.0]),
    ("arcsin", [2.0, 0.5]), ("arctanh", [0.5])])
def test_emath(name, vals):
    for dt in ("float32", "float64"):
        x = np.array(vals, dtype=dt if isinstance(vals[0], float) else None)
        want = getattr(np.emath, name)(x)
        check(getattr(lnp.emath, name)(lnp.asarray(x)), want, rtol=1e-6)
    check(lnp.emath.power(lnp.asarray([-4.0]), 0.5), np.emath.power(np.array([-4.0]), 0.5),
          rtol=1e-12)


def test_emath_dtypes():
    # float16 outside the domain goes to complex128 (NumPy's _tocomplex); power's exponent is
    # an array (a number too), in float64 when it holds a negative integer
    x = np.array([-2.0, 3.0], np.float16)
    check(lnp.emath.sqrt(lnp.asarray(x)), np.emath.sqrt(x), rtol=1e-3)
    check(lnp.emath.log(lnp.asarray(x)), np.emath.log(x), rtol=1e-3)
    for a, p in [(np.array([2, 3], np.int8), -2), (np.array([2, 3], np.uint8), -2),
                 (np.array([True, False]), -1), (np.array([1.5, -2.0], np.float32), 2),
                 (2, np.array([-2, 1], np.int8)), (np.array([-2.0], np.float32), -2)]:
        want = np.emath.power(a, p)
        got = lnp.emath.power(lnp.asarray(a) if isinstance(a, np.ndarray) else a,
                              lnp.asarray(p) if isinstance(p, np.ndarray) else p)
        check(got, want, rtol=1e-6)


def test_lists_of_arrays_and_formatting():
    """np.array([x, y]) of loom arrays stacks them as NumPy's (numbers beside them strong);
    a 0-d array formats like its value."""
    a, b = lnp.asarray(np.float32(1)), lnp.asarray(np.float32(2))
    check(lnp.array([a, b]), np.array([np.float32(1), np.float32(2)]))
    check(lnp.array([a, 1.0]), np.array([np.float32(1), 1.0]))
    check(lnp.array([[a, b], [b, a]]), np.array([[1, 2], [2, 1]], np.float32))
    check(lnp.array([lnp.arange(3), lnp.arange(3.0)]), np.array([np.arange(3), np.arange(3.0)]))
    with pytest.raises(ValueError):
        lnp.array([lnp.ones(2), lnp.ones(3)])
    assert f"{lnp.asarray(2.0) / 3:.3f}" == "0.667" and "%.1f" % lnp.asarray(1.25) == "1.2"
    assert f"{lnp.arange(2)}" == str(np.arange(2))
    with pytest.raises(TypeError):
        f"{lnp.arange(2):.2f}"


def test_flags_read_as_numpy_would():
    for shape in ((2, 3), (1, 4), (5,)):
        a = np.zeros(shape)
        x = lnp.asarray(a)
        for key in ("C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEABLE", "C", "F", "W"):
            assert x.flags[key] == a.flags[key], (shape, key)
        assert x.flags.c_contiguous and x.flags.writeable


def test_apply_over_axes_and_mask_indices():
    a = np.arange(24.0).reshape(2, 3, 4)
    check(lnp.apply_over_axes(lnp.sum, lnp.asarray(a), [0, 2]),
          np.apply_over_axes(np.sum, a, [0, 2]))
    check(lnp.apply_over_axes(lnp.mean, lnp.asarray(a), -1), np.apply_over_axes(np.mean, a, -1))
    for f, k in ((lnp.triu, 1), (lnp.tril, -1)):
        got = lnp.mask_indices(4, f, k)
        want = np.mask_indices(4, getattr(np, f.__name__), k)
        check(got, want)


@pytest.mark.parametrize("f", ["concatenate", "stack", "vstack", "hstack"])
def test_an_array_as_the_sequence(f):
    """np.concatenate(a) and np.stack(a) iterate a along its first axis, as NumPy does (loom
    refused an array there)."""
    a = np.arange(12.0).reshape(3, 4)
    check(getattr(lnp, f)(lnp.asarray(a)), getattr(np, f)(a))
    if f in ("concatenate", "stack"):
        check(getattr(lnp, f)(lnp.asarray(a), axis=-1), getattr(np, f)(a, axis=-1))
        errors_alike(lambda: getattr(np, f)(np.asarray(5.0)),
                     lambda: getattr(lnp, f)(lnp.asarray(5.0)))


def test_ufunc_methods():
    """NumPy's ufunc methods on loom.numpy's ufuncs: reduce and accumulate through loom's
    reductions and scans, outer by broadcasting, at as the scatter statement (the target
    rebound, duplicates combined in order), and the ufuncs' nin, nout, nargs and identity."""
    a = np.arange(12.0).reshape(3, 4) - 5
    x = lnp.asarray(a)
    for name, kw in (("add", {}), ("multiply", {"axis": 1}), ("maximum", {"axis": None}),
                     ("minimum", {"keepdims": True}), ("fmax", {"axis": 1}),
                     ("logical_or", {"axis": 0}), ("logical_and", {})):
        check(getattr(lnp, name).reduce(x, **kw), getattr(np, name).reduce(a, **kw))
    check(lnp.add.reduce(x, dtype=lnp.float32), np.add.reduce(a, dtype=np.float32), rtol=1e-6)
    check(lnp.add.accumulate(x), np.add.accumulate(a))
    check(lnp.multiply.accumulate(x, axis=1), np.multiply.accumulate(a, axis=1))
    check(lnp.subtract.outer(x[0], x[:, 1]), np.subtract.outer(a[0], a[:, 1]))
    check(lnp.power.outer(lnp.arange(3), [1, 2]), np.power.outer(np.arange(3), [1, 2]))
    i = np.array([0, 2, 0, 0])
    for name, key, v in (("add", i, 1.5), ("add", (i, np.array([1, 1, 1, 3])), [1, 2, 3, 4]),
                         ("minimum", (i, slice(None)), -7.0), ("maximum", i, a[[1, 1, 2, 0]])):
        y, z, want = lnp.asarray(a), None, a.copy()
        z = y[...]  # an alias taken before keeps the old values
        getattr(lnp, name).at(y, key, v)
        getattr(np, name).at(want, key, v)
        check(y, want)
        check(z, a)
    assert (lnp.add.nin, lnp.add.nout, lnp.add.nargs, lnp.add.identity) == (2, 1, 3, 0)
    assert lnp.sin.nin == 1 and not hasattr(lnp.sin, "reduce")
    with pytest.raises(NotImplementedError, match="subtract.reduce"):
        lnp.subtract.reduce(x)
    with pytest.raises(NotImplementedError, match="initial="):
        lnp.add.reduce(x, initial=1)
    with pytest.raises(NotImplementedError, match="multiply.at"):
        lnp.multiply.at(x, i, 2)
    with pytest.raises(TypeError, match="loom.ndarray"):
        lnp.add.at(a, i, 1)
