"""loom.numpy's gradient, unwrap, window functions and legacy polynomial functions (np.poly*,
np.roots, np.poly) against NumPy on the CPU reference device: values, dtypes, tuples and
errors."""
import numpy as np
import pytest

import loom
import loom.numpy as lnp

import _arrays  # (this folder's)

rng = np.random.default_rng(11)


from _arrays import cpu_context  # noqa: F401 (the module's CPU context)


check = _arrays.check


def sample(shape, dtype):
    return _arrays.sample(rng, shape, dtype)


def tol(dtype):
    return {"float16": 2e-3, "float32": 2e-6, "complex64": 2e-6}.get(np.dtype(dtype).name, 1e-12)


# ---- gradient ----

@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8", "float16", "float32", "float64",
                                   "complex128"])
@pytest.mark.parametrize("shape", [(5,), (3, 4), (3, 4, 5)])
@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_dtypes_shapes(dtype, shape, edge_order):
    f = sample(shape, dtype)
    check(lnp.gradient(f, edge_order=edge_order), np.gradient(f, edge_order=edge_order),
          rtol=tol(dtype))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_spacings_and_axes(edge_order):
    f = sample((4, 5), "float64")
    x = np.array([0.0, 0.5, 2.0, 2.25, 4.0])
    xi = np.array([0, 2, 3, 7])
    same = np.array([1.0, 3.0, 5.0, 7.0])  # equally spaced: NumPy's uniform formulas
    for args, kw in [((2.0,), {}), ((3,), {}), ((1.5, x), {}), ((xi, 0.5), {}), ((same, x), {}),
                     ((x,), {"axis": 1}), ((x,), {"axis": -1}), ((), {"axis": (1, 0)}),
                     ((0.5, x), {"axis": (0, 1)}), ((np.float64(2.5),), {}),
                     ((np.float32(2.5),), {})]:
        got = lnp.gradient(f, *args, edge_order=edge_order, **kw)
        check(got, np.gradient(f, *args, edge_order=edge_order, **kw))
    f32 = f.astype(np.float32)
    check(lnp.gradient(f32, 2.0, x), np.gradient(f32, 2.0, x), rtol=1e-6)
    check(lnp.gradient(f32, 2.0), np.gradient(f32, 2.0), rtol=1e-6)
    check(lnp.gradient(f[:, :2], axis=1), np.gradient(f[:, :2], axis=1))  # two points
    check(lnp.gradient(np.ones((3, 0)), axis=0), np.gradient(np.ones((3, 0)), axis=0))
    check(lnp.gradient(np.array([1.0, 2.0, 4.0]), edge_order=0),
          np.gradient(np.array([1.0, 2.0, 4.0]), edge_order=0))
    assert lnp.gradient(np.float64(3.0)) == ()


def test_gradient_lazy_input_and_inf():
    f = np.array([1.0, np.inf, 3.0, 4.0, 6.0])
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    check(lnp.gradient(f, x), np.gradient(f, x))  # uniform: no 0 * inf from the middle term
    y = lnp.asarray(np.arange(6.0)) ** 2
    check(lnp.gradient(y, 0.5), np.gradient(np.arange(6.0) ** 2, 0.5))


def test_gradient_errors():
    f = np.ones((3, 4))
    with pytest.raises(ValueError, match="too small"):
        lnp.gradient(np.array([1.0]))
    with pytest.raises(ValueError, match="too small"):
        lnp.gradient(np.array([1.0, 2.0]), edge_order=2)
    with pytest.raises(ValueError, match="greater than 2"):
        lnp.gradient(np.arange(4.0), edge_order=3)
    with pytest.raises(ValueError, match="invalid number of arguments"):
        lnp.gradient(f, 1, 2, 3)
    with pytest.raises(ValueError, match="scalars or 1d"):
        lnp.gradient(f, np.ones((2, 2)), 2)
    with pytest.raises(ValueError, match="must match the length"):
        lnp.gradient(f, np.ones(2), 2)
    with pytest.raises(np.exceptions.AxisError):
        lnp.gradient(np.ones(3), axis=1)
    with pytest.raises(ValueError, match="repeated axis"):
        lnp.gradient(f, axis=(0, 0))
    with pytest.raises(TypeError):  # NumPy: the boolean `-` operator
        lnp.gradient(np.array([True, False, True]))
    with pytest.raises(IndexError):
        lnp.gradient(np.ones(1), np.ones(1), edge_order=0)


# ---- unwrap ----

@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "float32", "float64",
                                   "bool"])
def test_unwrap_dtypes(dtype):
    p = (np.cumsum(rng.standard_normal((3, 9)) * 3, axis=1)).astype(dtype)
    check(lnp.unwrap(p), np.unwrap(p), rtol=tol(dtype))
    check(lnp.unwrap(p, axis=0), np.unwrap(p, axis=0), rtol=tol(dtype))


def test_unwrap_periods_and_discont():
    p = np.array([0, 3, 7, 1, -5, 2, 9, 4])
    for kw in [{"period": 4}, {"period": 5}, {"period": -4}, {"period": 6, "discont": 2},
               {"period": 4.0}, {"discont": 1.0}, {"discont": 4}, {}]:
        check(lnp.unwrap(p, **kw), np.unwrap(p, **kw))
        check(lnp.unwrap(p.astype(np.int8), **kw), np.unwrap(p.astype(np.int8), **kw))
        check(lnp.unwrap(p * 0.75, **kw), np.unwrap(p * 0.75, **kw))
    # a jump of exactly period / 2 keeps its sign
    check(lnp.unwrap(np.array([0.0, np.pi, 0.0, -np.pi])),
          np.unwrap(np.array([0.0, np.pi, 0.0, -np.pi])))
    check(lnp.unwrap(np.array([0, 2, 0, -2]), period=4),
          np.unwrap(np.array([0, 2, 0, -2]), period=4))
    check(lnp.unwrap(np.array([0, 2, 0, -2]), period=np.int64(4)),
          np.unwrap(np.array([0, 2, 0, -2]), period=np.int64(4)))
    check(lnp.unwrap(np.array([0, 3, 0, -3]), period=np.int64(5)),
          np.unwrap(np.array([0, 3, 0, -3]), period=np.int64(5)))
    check(lnp.unwrap(np.array([])), np.unwrap(np.array([])))
    check(lnp.unwrap(np.ones((2, 0))), np.unwrap(np.ones((2, 0))))
    check(lnp.unwrap(np.array([np.nan, 1.0, 8.0])), np.unwrap(np.array([np.nan, 1.0, 8.0])))
    with pytest.raises(ValueError, match="at least one dimensional"):
        lnp.unwrap(np.array(3.0))
    with pytest.raises(np.exceptions.AxisError):
        lnp.unwrap(np.ones(3), axis=1)


# ---- window functions ----

@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
@pytest.mark.parametrize("m", [-3, 0, 1, 2, 5, 8, 33, 5.5, True])
def test_windows(name, m):
    check(getattr(lnp, name)(m), getattr(np, name)(m))


@pytest.mark.parametrize("m, beta", [(-2, 3.0), (0, 3.0), (1, 3.0), (2, 0.0), (7, 3.5),
                                     (16, 14), (0.5, 3.0), (9, -2.0)])
def test_kaiser(m, beta):
    check(lnp.kaiser(m, beta), np.kaiser(m, beta))


def test_window_errors():
    with pytest.raises(ValueError, match="cannot compute length"):
        lnp.hanning(np.nan)
    with pytest.raises(ValueError):
        lnp.bartlett("5")


# ---- polynomials ----

POLY_DTYPES = ["bool", "int8", "int64", "uint8", "float32", "float64", "complex128"]


@pytest.mark.parametrize("dtype", POLY_DTYPES)
def test_polyder_polyint(dtype):
    p = sample((5,), dtype)
    for m in (0, 1, 2, 4, 6, 9):
        check(lnp.polyder(p, m), np.polyder(p, m), rtol=tol(dtype))
    for m in (0, 1, 3):
        check(lnp.polyint(p, m), np.polyint(p, m), rtol=tol(dtype))
    check(lnp.polyint(p, 2, k=[1, 2]), np.polyint(p, 2, k=[1, 2]), rtol=tol(dtype))
    check(lnp.polyint(p, 3, k=2.5), np.polyint(p, 3, k=2.5), rtol=tol(dtype))
    k32 = np.array([1.5, -2.0, 3.0], np.float32)
    check(lnp.polyint(p, 2, k=k32), np.polyint(p, 2, k=k32), rtol=tol(dtype))


def test_polyder_polyint_edges():
    check(lnp.polyder(np.array([])), np.polyder(np.array([])))
    check(lnp.polyint(np.array([]), 1), np.polyint(np.array([]), 1))
    check(lnp.polyint(np.array([1, 2, 3]), 1, k=1j), np.polyint(np.array([1, 2, 3]), 1, k=1j))
    with pytest.raises(ValueError, match="Order of derivative must be positive"):
        lnp.polyder(np.array([1, 2]), -1)
    with pytest.raises(ValueError, match="Order of integral must be positive"):
        lnp.polyint(np.array([1, 2]), -1)
    with pytest.raises(ValueError, match="k must be a scalar"):
        lnp.polyint(np.array([1.0, 2.0]), 3, k=[1, 2])
    with pytest.raises(ValueError):
        lnp.polyder(np.array(3.0))


@pytest.mark.parametrize("d1, d2", [("int8", "float32"), ("uint8", "uint8"), ("float64", "int64"),
                                    ("complex64", "float32"), ("bool", "int32")])
@pytest.mark.parametrize("n1, n2", [(3, 3), (2, 5), (6, 1)])
def test_polyadd_polysub_polymul(d1, d2, n1, n2):
    a, b = sample((n1,), d1), sample((n2,), d2)
    check(lnp.polyadd(a, b), np.polyadd(a, b), rtol=tol(d1) + tol(d2))
    if "bool" not in (d1, d2):
        check(lnp.polysub(a, b), np.polysub(a, b), rtol=tol(d1) + tol(d2))
    check(lnp.polymul(a, b), np.polymul(a, b), rtol=max(tol(d1), tol(d2)) * 10)


def test_poly_arithmetic_edges():
    check(lnp.polyadd(3, np.array([1, 2, 3])), np.polyadd(3, np.array([1, 2, 3])))
    check(lnp.polyadd(np.array([]), np.array([1, 2])), np.polyadd(np.array([]), np.array([1, 2])))
    check(lnp.polyadd(np.ones((2, 2)), np.ones((2, 2))),
          np.polyadd(np.ones((2, 2)), np.ones((2, 2))))
    # polymul trims leading zeros (poly1d)
    for a, b in [([0, 1, 2], [1, 1]), ([0, 0], [1, 2]), ([], [1, 2]), ([0.0, -0.0, 1e-300], [1]),
                 ([np.nan, 1], [1]), ([0, 0, 3], [0, 2, 0])]:
        a, b = np.array(a), np.array(b)
        check(lnp.polymul(a, b), np.polymul(a, b))
    with pytest.raises(ValueError, match="1d only"):
        lnp.polymul(np.ones((2, 2)), [1])


@pytest.mark.parametrize("u, v", [([1, 2, 3, 4.0], [1, 1.0]), ([1, 2], [1, 1, 1]), ([3], [2]),
                                  ([1, 2, 1], [1, 1]), ([1, 2, 1 + 1e-9], [1, 1]),
                                  ([2, 0, -3, 5, 1, 7], [0.5, 0, 2]), ([1, 2, 3], [0, 1])])
def test_polydiv(u, v):
    u, v = np.array(u), np.array(v)
    with np.errstate(all="ignore"):
        check(lnp.polydiv(u, v), np.polydiv(u, v))
    u32, v32 = u.astype(np.float32), v.astype(np.float32)
    with np.errstate(all="ignore"):
        check(lnp.polydiv(u32, v32), np.polydiv(u32, v32), rtol=1e-5)
        check(lnp.polydiv(u32, v), np.polydiv(u32, v))


def test_polydiv_long_and_complex():
    u, v = rng.standard_normal(60), rng.standard_normal(4)
    check(lnp.polydiv(u, v), np.polydiv(u, v), rtol=1e-9)
    uc = u[:9] + 1j * rng.standard_normal(9)
    check(lnp.polydiv(uc, v), np.polydiv(uc, v), rtol=1e-9)
    with pytest.raises(IndexError):
        lnp.polydiv(np.array([]), np.array([0, 1]))
    with pytest.raises(ValueError):
        lnp.polydiv(np.ones((2, 2)), np.array([1, 1]))


@pytest.mark.parametrize("xdtype, ydtype", [("float64", "float64"), ("int64", "int32"),
                                            ("float32", "float64"), ("float32", "float32")])
@pytest.mark.parametrize("deg", [0, 1, 3])
def test_polyfit(xdtype, ydtype, deg):
    x = (np.linspace(-2, 3, 12).astype(xdtype) if xdtype[0] == "f"
         else np.arange(-5, 7, dtype=xdtype))
    y = (0.5 * x ** 3 - x + 2 + rng.standard_normal(12)).astype(ydtype)
    r = 2e-4 if "float32" in (xdtype, ydtype) else 1e-8
    check(lnp.polyfit(x, y, deg), np.polyfit(x, y, deg), rtol=r, atol=r)
    y2 = np.stack([y, y[::-1]], axis=1)
    w = np.linspace(0.5, 2, 12)
    check(lnp.polyfit(x, y2, deg, w=w), np.polyfit(x, y2, deg, w=w), rtol=r, atol=r)
    check(lnp.polyfit(x, y, deg, w=w), np.polyfit(x, y, deg, w=w), rtol=r, atol=r)
    got, want = lnp.polyfit(x, y, deg, full=True), np.polyfit(x, y, deg, full=True)
    check(got[:4], tuple(np.asarray(v) for v in want[:4]), rtol=r, atol=r)
    assert float(np.asarray(got[4])) == float(want[4])
    for cov in (True, "unscaled"):
        check(lnp.polyfit(x, y, deg, cov=cov), np.polyfit(x, y, deg, cov=cov), rtol=r, atol=r)
    check(lnp.polyfit(x, y2, deg, cov=True), np.polyfit(x, y2, deg, cov=True), rtol=r, atol=r)


def test_polyfit_rcond_and_errors():
    x, y = np.arange(5), np.arange(5) ** 2
    got = lnp.polyfit(x, y, 1, rcond=0.5, full=True)
    want = np.polyfit(x, y, 1, rcond=0.5, full=True)
    check(got[:4], tuple(np.asarray(v) for v in want[:4]), rtol=1e-10)
    assert float(np.asarray(got[4])) == 0.5
    for args, kw, msg in [((x, y, -1), {}, "deg >= 0"), ((np.ones((2, 2)), y, 1), {}, "1D vector"),
                          ((np.ones(0), np.ones(0), 1), {}, "non-empty"),
                          ((x, np.ones((5, 2, 2)), 1), {}, "1D or 2D"),
                          ((x, np.ones(4), 1), {}, "same length"),
                          ((x, y, 1), {"w": np.ones((5, 1))}, "1-d array for weights"),
                          ((x, y, 1), {"w": np.ones(4)}, "same length"),
                          ((x[:2], y[:2], 1), {"cov": True}, "must exceed order")]:
        with pytest.raises(ValueError, match=msg):
            lnp.polyfit(*args, **kw)


def by_value(z):
    """z sorted by its rounded parts (the eigenvalue order is the library's)."""
    return z[np.lexsort((np.round(z.imag, 4), np.round(z.real, 4)))]


@pytest.mark.parametrize("p, dtype", [([1, -3, 2], "float64"), ([0, 1, -3, 2, 0, 0], "int64"),
                                      ([1, 0, 1], "float32"), ([2, -1, 4, 3, 5], "float64"),
                                      ([1j, 2, 3], "complex128"), ([5, 0], "int8"),
                                      ([0, 0], "float64"), ([], "float64"), ([3, 0, 0], "bool")])
def test_roots(p, dtype):
    p = np.array(p, dtype=dtype)
    want, got = np.roots(p), np.asarray(lnp.roots(p))
    if want.size and got.dtype.kind == "c" and want.dtype.kind != "c":
        # loom's eigenvalues are always complex (NumPy's real when all are)
        want = want.astype(got.dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(by_value(got), by_value(want),
                               rtol=1e-5 if dtype == "float32" else 1e-10, atol=1e-6)


def test_roots_errors():
    with pytest.raises(ValueError, match="rank-1"):
        lnp.roots(np.ones((2, 2)))
    with pytest.raises(TypeError):
        lnp.roots(np.array([1, 0, 1], dtype=np.float16))


@pytest.mark.parametrize("z", [[1, 2], [1, 2, -3.5, 0.25], [], [4]])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "float16", "complex128"])
def test_poly_of_roots(z, dtype):
    z = np.array(z, dtype=dtype)
    want = np.poly(z)
    if dtype == "complex128" and len(z):
        want = want.astype(np.complex128)  # loom keeps complex roots' dtype
    check(lnp.poly(z), want, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_poly_of_matrix_and_errors():
    for a in [np.array([[1.0, 2], [3, 4]]), np.array([[0, -1], [1, 0]], dtype=np.float32),
              np.array([[2, 1, 0], [1, 3, 1], [0, 1, 4]])]:
        check(lnp.poly(a), np.poly(a), rtol=1e-5 if a.dtype == np.float32 else 1e-10)
    with pytest.raises(ValueError, match="non-empty square"):
        lnp.poly(np.ones((0, 0)))
    with pytest.raises(ValueError, match="non-empty square"):
        lnp.poly(np.ones((2, 3)))
