"""loom.numpy's index helpers, in-place updates, histograms and setxor1d against NumPy on the CPU
reference device: values, dtypes and shapes (empty ones too), errors, and the in-place
functions' rebinding (the loom array argument is rebound to the updated array, as x[k] = v
rebinds it; an alias taken before, such as a view, keeps the old values)."""
import warnings

import numpy as np
import pytest

import loom
import loom.numpy as lnp

import _arrays  # (this folder's)

rng = np.random.default_rng(11)


from _arrays import cpu_context  # noqa: F401 (the module's CPU context)


check = _arrays.check


def loomed(args):
    return [lnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]


def same(name, *args, **kwargs):
    check(getattr(lnp, name)(*loomed(args), **kwargs), getattr(np, name)(*args, **kwargs))


def same_error(name, *args, **kwargs):
    """NumPy's exception type, raised by loom too."""
    with pytest.raises(Exception) as want:
        getattr(np, name)(*args, **kwargs)
    with pytest.raises(want.type):
        r = getattr(lnp, name)(*loomed(args), **kwargs)
        np.asarray(r[0] if isinstance(r, tuple) else r)


# ---- index helpers ----------------------------------------------------------------------

@pytest.mark.parametrize("dims", [(7, 6), (2, 3, 4), (5,), (1, 1), (3, 0, 2)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_unravel_ravel(dims, order):
    size = int(np.prod(dims))
    for idx in (np.arange(size).reshape(-1, 1) if size else np.zeros(0, np.int64),
                rng.integers(0, max(size, 1), (2, 3)).astype(np.int32) if size else None):
        if idx is None:
            continue
        same("unravel_index", idx, dims, order=order)
        coords = np.unravel_index(idx, dims, order=order)
        same("ravel_multi_index", coords, dims, order=order)


def test_unravel_ravel_forms():
    same("unravel_index", 5, (2, 3))  # 0-d results
    same("unravel_index", 4, 6)  # an int shape
    same("unravel_index", 0, ())  # no axes: an empty tuple
    same("unravel_index", np.array([3, 1], np.uint8), [2, 3])
    same("ravel_multi_index", (1, 2), (2, 3))
    same("ravel_multi_index", np.array([[3, 6], [4, 5]]), (7, 6), order="F")
    same("ravel_multi_index", [[3, 6], [4, 5]], [7, 6])
    same("ravel_multi_index", ([3, 7, -9], [-1, 5, 13]), (7, 6), mode="wrap")
    same("ravel_multi_index", ([3, 7, -9], [-1, 5, 13]), (7, 6), mode="clip")
    same("ravel_multi_index", ([3, 7, -9], [-1, 5, 13]), (7, 6), mode=("clip", "wrap"))
    same("ravel_multi_index", (np.array([[1], [0]]), np.array([0, 2, 1])), (2, 3))  # broadcast
    same("unravel_index", np.array([True, False]), (3,))  # bool indices: 1 and 0, as NumPy's
    same("ravel_multi_index", (np.array([True]), np.array([2])), (3, 4))


def test_unravel_ravel_errors():
    for args in [(10, (2, 3)), (-1, (2, 3)), (np.array([1, 6]), (2, 3)), (0, (0, 3)),
                 (np.array([0]), ()), (np.zeros(0, int), ())]:  # (no axes: one index alone)
        same_error("unravel_index", *args)
    with pytest.raises(ValueError, match="index 10 is out of bounds for array with size 6"):
        lnp.unravel_index(10, (2, 3))
    same_error("unravel_index", 1.0, (2, 3))
    same_error("unravel_index", np.array([1.0]), (2, 3))
    same_error("unravel_index", 1, (2, 3), order="A")
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        lnp.ravel_multi_index(([1, 2], [0, 1]), (2, 3))
    same_error("ravel_multi_index", ([1], [-1]), (2, 3))
    same_error("ravel_multi_index", ([1],), (2, 3))
    same_error("ravel_multi_index", ([1], [1]), (2, 3), mode="foo")
    same_error("ravel_multi_index", ([1], [1]), (2, 3), mode=("wrap",))
    same_error("ravel_multi_index", ([1.0], [1]), (2, 3))
    same_error("ravel_multi_index", ([1], [1]), (2, 3), order="X")


@pytest.mark.parametrize("n,k,m", [(4, 0, None), (4, 1, 3), (3, -1, 5), (5, -7, None),
                                   (2, 9, 3), (0, 0, None), (3, 0, 0), (6, -2, 4)])
def test_tri_indices(n, k, m):
    same("tril_indices", n, k, m)
    same("triu_indices", n, k, m)
    same("tril_indices", n, k=k, m=m)
    if m is not None:
        a = np.zeros((n, m))
        same("tril_indices_from", a, k)
        same("triu_indices_from", a, k=k)


def test_diag_and_ix():
    same("diag_indices", 4)
    same("diag_indices", 3, 3)
    same("diag_indices", 0, 2)
    same("diag_indices_from", np.zeros((3, 3, 3)))
    same("ix_", np.array([0, 2]), np.array([True, False, True, True]), np.arange(3, dtype=np.int8))
    same("ix_", [1, 0])
    same("ix_", np.array([True, False]))
    same("ix_", np.array([], np.int64), np.array([2]))
    assert lnp.ix_() == ()
    x = rng.normal(size=(3, 4))
    check(lnp.asarray(x)[lnp.ix_([0, 2], [True, False, True, True])],
          x[np.ix_([0, 2], [True, False, True, True])])
    rows, cols = lnp.triu_indices(4, 1)
    check(lnp.asarray(np.arange(16).reshape(4, 4))[rows, cols],
          np.arange(16).reshape(4, 4)[np.triu_indices(4, 1)])


def test_index_helper_errors():
    same_error("tril_indices_from", np.zeros(3))
    same_error("triu_indices_from", np.zeros((2, 2, 2)))
    same_error("diag_indices_from", np.zeros(3))
    same_error("diag_indices_from", np.zeros((2, 3)))
    same_error("ix_", np.zeros((2, 2)))


# ---- in-place updates ------------------------------------------------------------------

def updated(name, a, *args, **kwargs):
    """NumPy's update of a copy of a, and loom's of a loom array of it: the same elements, the
    function returning None, the dtype and shape kept; and a view taken before keeps the old
    values (loom arrays are values)."""
    want = a.copy()
    assert getattr(np, name)(want, *args, **kwargs) is None
    x = lnp.asarray(a)
    same_object, view = x, x.reshape(-1)
    assert getattr(lnp, name)(x, *loomed(args), **kwargs) is None
    assert x is same_object
    check(x, want)
    check(view, a.reshape(-1))


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.bool_, np.complex64])
def test_put_place_putmask(dtype):
    a = (rng.integers(0, 5, (3, 4)) % 2 if dtype == np.bool_ else
         rng.integers(-9, 9, (3, 4))).astype(dtype)
    v = np.array([1, 0, 1]).astype(dtype)
    updated("put", a, [0, 5, -1, 5], v)
    updated("put", a, np.array([[2, 30]]), v, mode="wrap")
    updated("put", a, [-20, 30], v[:2], mode="clip")
    updated("put", a, [0, 1], v[:0])  # empty values: unchanged
    updated("put", a[:0], [], v)
    updated("put_along_axis", a, np.array([[1], [0], [3]]), v[:1], axis=1)
    updated("put_along_axis", a, np.array([[2, 0, 1, 1]]), v[:1], axis=0)
    updated("put_along_axis", a, np.array([0, 11]), v[:2], axis=None)
    mask = np.arange(12).reshape(3, 4) % 3 == 0
    updated("place", a, mask, v[:2])
    updated("place", a, np.zeros((3, 4), bool), v[:0])
    updated("putmask", a, mask, v[:2])
    updated("putmask", a, mask.reshape(12), v)
    updated("putmask", a, mask, v[:0])


def test_put_casts():
    a = np.arange(6)
    updated("put", a, [1], [2.7])  # any cast, as NumPy's
    updated("putmask", a.astype(np.float32), a > 2, 1.5)
    updated("place", a.astype(np.int8), a > 3, [7, 9])


@pytest.mark.parametrize("name", ["put", "place", "putmask", "put_along_axis"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "float32", "complex64"])
def test_update_values_convert_as_numpy(name, dtype):
    # arrays: place and putmask cast by 'safe', put and put_along_axis by any rule; Python
    # numbers and lists of them by value (1j into a real dtype a TypeError, 300 into int8 an
    # OverflowError, into bool their truth)
    where = np.array([0, 2]) if name in ("put", "put_along_axis") else np.array([True, False, True])
    extra = (0,) if name == "put_along_axis" else ()
    for v in [np.array([1.5]), np.array([300]), np.array([-1], np.int8), np.float64(2.5), 1j,
              300, -1, 2.5, True, [7, 9], [1.5], [300], (1j,), [-1]]:
        a = np.zeros(3, dtype)
        try:
            getattr(np, name)(a, where, v, *extra)
        except Exception as e:
            with pytest.raises(type(e)):
                y = lnp.zeros(3, dtype=dtype)
                getattr(lnp, name)(y, *loomed([where, v]), *extra)
                np.asarray(y)
            continue
        y = lnp.zeros(3, dtype=dtype)
        getattr(lnp, name)(y, *loomed([where, v]), *extra)
        check(y, a)


def test_complex_fill_of_bool():
    check(lnp.full(3, 1j, dtype=bool), np.full(3, 1j, dtype=bool))
    check(lnp.full_like(lnp.zeros(2, dtype=bool), 2j), np.full_like(np.zeros(2, bool), 2j))


@pytest.mark.parametrize("src,kw", [
    (np.arange(4) * 10, {}),
    (np.arange(4.0), {"casting": "unsafe"}),
    (np.arange(4, dtype=np.int8), {"casting": "safe"}),
    (7, {}),
    (np.arange(4), {"where": np.array([True, False, True, False])}),
    (np.arange(12).reshape(3, 4), {"where": np.arange(12).reshape(3, 4) % 5 == 0}),
    (-3, {"where": False}),
    (np.array(5), {}),
])
def test_copyto(src, kw):
    updated("copyto", np.arange(12).reshape(3, 4), src, **kw)


def test_copyto_dtypes():
    updated("copyto", np.zeros((2, 3), np.float32), 1.5)
    updated("copyto", np.zeros((2, 3), np.int8), np.arange(3))  # same_kind: int64 -> int8
    updated("copyto", np.zeros((2, 3), np.complex64), 1j)
    updated("copyto", np.zeros((2, 3), bool), True)
    updated("copyto", np.zeros((2, 3)), np.ones((2, 3), bool))
    updated("copyto", np.zeros((0, 3)), 1.0)
    # Python scalars under each rule: NumPy 2 judges their kind ('no': a bool only into bool;
    # 'equiv': the scalar's own dtype, int64, float64, complex128 or bool)
    for casting in ("no", "equiv", "safe", "same_kind", "unsafe"):
        for dst, src in [(np.int8, 1), (np.float32, 1.5), (np.float32, 1), (np.int8, 1.5),
                         (np.uint8, 3), (np.float64, np.float32(2.5)), (np.int64, -1),
                         (np.float64, 1.5), (np.complex128, 1j), (np.bool_, True),
                         (np.int8, True), (np.float64, 1)]:
            try:
                np.copyto(np.zeros(3, dst), src, casting=casting)
            except TypeError:
                with pytest.raises(TypeError):
                    lnp.copyto(lnp.zeros(3, dst), src, casting=casting)
                continue
            updated("copyto", np.zeros(3, dst), src, casting=casting)


def test_fill_diagonal():
    updated("fill_diagonal", np.zeros((4, 4), int), 5)
    updated("fill_diagonal", np.zeros((7, 3)), [1.5, 2], wrap=True)
    updated("fill_diagonal", np.zeros((7, 3)), [1.5, 2])
    updated("fill_diagonal", np.zeros((3, 7), np.int8), [1, 2, 3, 4])
    updated("fill_diagonal", np.zeros((3, 3, 3)), 2)
    updated("fill_diagonal", np.zeros((0, 3)), 2)


def test_update_errors():
    for name, args in [("put", ([0], [1])), ("place", (np.array([True]), [1])),
                       ("putmask", (np.array([True]), [1])), ("copyto", (1,)),
                       ("fill_diagonal", (1,)), ("put_along_axis", (np.array([0]), 1, 0))]:
        with pytest.raises(TypeError, match="loom.ndarray, not ndarray"):
            getattr(lnp, name)(np.zeros((2, 2)), *args)
        with pytest.raises(TypeError, match="not list"):
            getattr(lnp, name)([[0, 0], [0, 0]], *args)
    x = lnp.arange(6)
    for name, args, kw in [
            ("place", (np.arange(6) > 2, []), {}),
            ("put", ([0], [1]), {"mode": "foo"}),
            ("putmask", (np.array([True]), [1]), {}),
            ("copyto", (np.arange(6) * 1.5,), {}),
            ("copyto", (2.5,), {}),
            ("copyto", (np.arange(3),), {}),
            ("copyto", (1,), {"casting": "bad"}),
            ("copyto", (np.arange(6),), {"where": np.arange(6)}),
            ("copyto", (300,), {}),
            ("fill_diagonal", (1,), {})]:
        a = np.arange(6, dtype=np.int8 if isinstance(args[0], int) and args[0] == 300
                      else np.int64)
        with pytest.raises(Exception) as want:
            getattr(np, name)(a, *args, **kw)
        y = lnp.asarray(a)
        with pytest.raises(want.type):
            getattr(lnp, name)(y, *loomed(args), **kw)
        check(y, a)  # a failed update leaves the array as it was
    same_error("fill_diagonal", np.zeros((2, 3, 2)), 1)
    # put's raise mode is checked where the indices are: when the values are read
    lnp.put(x, [9], [1])
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        np.asarray(x)


def test_updates_in_the_expression_language():
    """The expression language's forms return the updated array; the argument is unchanged."""
    x = lnp.arange(6)
    check(loom._run("put({0}, [0], [9])", [x]), np.array([9, 1, 2, 3, 4, 5]))
    check(loom._run("copyto({0}, 7, where={0} > 3)", [x]), np.array([0, 1, 2, 3, 7, 7]))
    check(x, np.arange(6))


# ---- histograms ------------------------------------------------------------------------

def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():  # NumPy's density of nothing divides by zero
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


@pytest.mark.parametrize("data", [rng.normal(size=40), rng.integers(0, 9, 30),
                                  rng.normal(size=17).astype(np.float32), np.zeros(0),
                                  np.full(5, 2.0)])
def test_histogram_density_and_edges(data):
    w = rng.random(data.shape)
    for kw in [{}, {"bins": 4}, {"bins": [-1, 0, 0.5, 3]}, {"range": (-1, 2), "bins": 3},
               {"weights": w}, {"bins": 5, "weights": w.astype(np.float32)}]:
        want = quiet(np.histogram, data, density=True, **kw)
        got = lnp.histogram(lnp.asarray(data), density=True,
                            **{k: lnp.asarray(v) if isinstance(v, np.ndarray) else v
                               for k, v in kw.items()})
        # float32 data or weights: NumPy finds edges in float32 arithmetic and sums float32
        # weights in float64 (loom: float64 edges, rounded; float32 sums), a few ulps apart
        single = data.dtype == np.float32 or kw.get("weights", w).dtype == np.float32
        check(got, want, rtol=1e-6 if single else 1e-12)
        kw.pop("weights", None)
        check(lnp.histogram_bin_edges(lnp.asarray(data), **kw),
              np.histogram_bin_edges(data, **kw), rtol=1e-6 if single else 1e-12)


def test_histogram_bin_edges_forms():
    same("histogram_bin_edges", np.arange(10), 3)
    same("histogram_bin_edges", np.arange(10), [0, 2, 9])
    same("histogram_bin_edges", np.arange(10), range=[1, 5])
    same("histogram", np.arange(10), range=[1, 5])  # a list as range=, as NumPy reads it
    with pytest.raises(NotImplementedError, match="'stone'"):
        lnp.histogram_bin_edges(lnp.arange(10), "stone")
    same_error("histogram", np.arange(10), "auto", weights=np.ones(10))
    same_error("histogram_bin_edges", np.array([1.0, np.nan]), "auto")


@pytest.mark.parametrize("data", [rng.normal(size=200), rng.integers(0, 50, 100),
                                  rng.exponential(size=500), np.arange(3), np.full(5, 2.0),
                                  np.zeros(0), rng.integers(0, 3, 40),
                                  rng.random(30) > 0.3])  # (bool: NumPy's uint8)
@pytest.mark.parametrize("estimator", ["auto", "fd", "doane", "scott", "rice", "sturges",
                                       "sqrt"])
def test_bin_estimators(data, estimator):
    for rg in (None, (0.5, 2.5), (1, 1)):  # (an empty range: widened by 0.5, then the cut)
        same("histogram_bin_edges", data, estimator, range=rg)
        same("histogram", data, bins=estimator, range=rg)
    same_error("histogram_bin_edges", np.arange(10), "foo")
    same_error("histogram_bin_edges", np.arange(10), 3, weights=np.ones(3))


@pytest.mark.parametrize("kw", [
    {}, {"bins": 3}, {"bins": [3, 4]}, {"bins": (2, np.array([-1.0, 0, 2]))},
    {"bins": np.array([-2.0, 0, 0.5, 2])}, {"range": [(-1, 1), None], "bins": [3, 2]},
    {"density": True}, {"bins": 4, "density": True, "range": ((-2, 2), (-3, 3))},
])
def test_histogram2d(kw):
    x, y, w = rng.normal(size=30), rng.normal(size=30), rng.random(30)
    for extra in ({}, {"weights": w}):
        args = dict(kw, **extra)
        want = np.histogram2d(x, y, **args)
        got = lnp.histogram2d(lnp.asarray(x), lnp.asarray(y),
                              **{k: lnp.asarray(v) if isinstance(v, np.ndarray) else v
                                 for k, v in args.items()})
        check(got, want)


def test_histogramdd():
    s = rng.normal(size=(25, 3))
    same("histogramdd", s)
    same("histogramdd", s, bins=(2, 3, 4))
    same("histogramdd", s, bins=[2, np.array([-1.0, 0, 1]), 3], density=True)
    same("histogramdd", s, bins=2, range=[(-1, 1), None, (0, 3)], weights=rng.random(25))
    same("histogramdd", s[:, 0], bins=4)  # 1-d: one axis
    same("histogramdd", np.zeros((0, 2)), bins=2)
    check(lnp.histogramdd((lnp.asarray(s[:, 0]), lnp.asarray(s[:, 1])), bins=3),
          np.histogramdd((s[:, 0], s[:, 1]), bins=3))
    same_error("histogramdd", s, bins=(2, 3))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_histogram_edges_of_float_data(dtype):
    # edges from the data's min and max: in its dtype and arithmetic, as NumPy's linspace of
    # two such scalars (a range's numbers: float64 in histogramdd)
    s = rng.normal(size=(40, 2)).astype(dtype)
    for kw in ({"bins": 7}, {"bins": 5, "density": True}, {"bins": 3, "range": [None, (-1, 1)]}):
        same("histogramdd", s, **kw)
        same("histogram2d", s[:, 0], s[:, 1], **kw)
    same("histogram", s[:, 0], bins=9, density=True)
    same("histogram_bin_edges", s[:, 1], bins=11)
    for est in ("auto", "sturges", "fd"):  # (a count from an estimator: the same edges)
        same("histogram", s[:, 0], bins=est, density=True)
        same("histogram_bin_edges", s[:, 1], bins=est)
    same_error("histogramdd", s, bins=(2, 0, 3))
    same_error("histogram2d", np.arange(3), np.arange(4))


# ---- setxor1d ----------------------------------------------------------------------------

@pytest.mark.parametrize("a,b", [
    (np.array([1, 2, 2, 3]), np.array([3, 4])),
    (rng.integers(0, 6, (3, 4)), rng.integers(3, 9, 5)),
    (np.array([1.5, np.nan, 2.0]), np.array([np.nan, 2.0])),
    (np.zeros(0, int), np.zeros(0, int)),
    (np.array([1, 2], np.int8), np.array([2.5])),
    (np.array([True, False]), np.array([True])),
])
def test_setxor1d(a, b):
    same("setxor1d", a, b)
    ua, ub = np.unique(a), np.unique(b)
    same("setxor1d", ua, ub, assume_unique=True)
    same("setxor1d", a.reshape(-1), b, assume_unique=True)  # NumPy's formula as it is
