#!/usr/bin/env python3
"""complex64 and complex128 through `loom eval` against NumPy 2: promotion with every dtype
(NEP 50 weak Python complex numbers too), arithmetic, the complex ufuncs, special values,
reductions, casts, views and the errors for what loom does not do with complex yet.

Arithmetic, parts, casts and moves must agree bit for bit (NaNs as NaNs); the transcendental
functions within a few ulps of NumPy's (glibc's) values, relative to |z|. Usage: complex.py LOOM
[--device cpu|cuda] [-k TEXT]. Exits 77 without NumPy 2."""
import itertools
import sys

from common import arguments, check_all, np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
# ulps of the part dtype, relative to |NumPy's value|, for the functions that are not exact
ULPS = 8


def inputs():
    rng = np.random.default_rng(20261202)
    g = lambda *s: rng.standard_normal(s)
    specials = [0.0, -0.0, 1.0, -1.0, 2.5, 1e-300, 1e300, np.inf, -np.inf, np.nan]
    zs = np.array([complex(a, b) for a, b in itertools.product(specials, specials)])
    return {
        "z64": (g(5, 7) + 1j * g(5, 7)).astype(np.complex64),
        "z128": g(64) * 3 + 1j * g(64) * 3,
        "zs": zs,                                      # every pair of special parts
        "zf": np.array([complex(a, b) for a, b in itertools.product(specials[:7], specials[:7])]),
        "zl": np.array([complex(a, b) for a, b in itertools.product(
            [710.0, -712.5, 1000.0, 1500.0, -2200.0], [5e-300, -1e-10, 1e-5, 3.0])]),
        "zt": np.array([complex(a, b) for a, b in itertools.product(  # subnormal parts
            [5e-324, -1e-320, 3e-310, -0.0, 1e-300], [5e-324, -3e-318, 0.0, 1e-305])]),
        "zb": np.array([complex(a, b) for a, b in itertools.product(
            [1.7e308, -1.2e308, 0.5, -0.0], [1.7e308, -1.6e308, 2.0, 0.0])]),
        "f32": g(5, 7).astype(np.float32),
        "f64": g(64),
        "i8": rng.integers(-9, 9, (5, 7)).astype(np.int8),
        "b": rng.integers(0, 2, 64).astype(bool),
    }


EXACT = [
    # promotion and NEP 50 weak complex numbers
    "f32 + 1j", "i8 * 1j", "f32.astype(np.complex64) + f64[:35].reshape(5, 7)", "z64 + 2.5",
    "z64 * 2", "z128 + z64[0, 0]", "b + 1j", "1j * 1j + z64", "(1 + 2j) * (3 - 1j) + z128",
    "np.float16(1) + 1j", "z64 + f32", "z64 + i8", "z64 + f64[:35].reshape(5, 7)",
    # data-type functions
    "np.finfo(np.complex64).eps", "np.finfo(np.complex128).max", "np.isdtype(np.complex64, 'complex floating')",
    "np.isdtype(np.complex128, 'real floating')", "np.can_cast(np.complex64, np.float32, 'same_kind')",
    "np.can_cast(np.float64, np.complex64, 'same_kind')", "np.can_cast(np.int32, np.complex64)",
    # arithmetic as NumPy's loops compute it
    "z64 + z64[::-1]", "z128 - 2", "z128 * (1 + 2j)", "z64 * z64", "z64 / (z64 + 1)",
    "z128 / z128[::-1]", "1 / z128", "zs / zs[::-1]", "zs * zs[::-1]", "zs + zs[::-1]",
    "np.square(z64)", "np.square(zs)", "np.reciprocal(z128)", "np.reciprocal(zs)", "-zs",
    "+z64", "np.negative(z64)", "z64 ** 2", "z128 ** 3", "z128 ** -2", "z128 ** 7",
    "z128 ** 1", "z64 ** 0", "zs ** 2", "np.power(z128, 4)",
    # parts
    "np.real(z64)", "np.imag(z128)", "np.conj(z64)", "z64.conj()", "np.conjugate(zs)",
    "np.real(f32)", "np.imag(i8)", "np.conj(i8)", "np.abs(z64)", "np.absolute(zs)",
    "np.abs(zs.astype(np.complex64))", "np.abs(zf.astype(np.complex64) * 1e30)",
    "np.iscomplex(zs)", "np.isreal(zs)", "np.iscomplex(f32)", "np.iscomplexobj(z64)",
    "np.isrealobj(z64)", "np.iscomplexobj(f32)",
    # predicates and comparisons
    "np.isnan(zs)", "np.isinf(zs)", "np.isfinite(zs)", "z128 == z128[::-1]", "zs == zs",
    "zs != zs[::-1]", "np.logical_not(zs)", "np.logical_and(zs, zs[::-1])",
    "np.logical_or(z64, 0)", "np.logical_xor(zs, 1j)", "z64 == 1j",
    # NumPy's lexicographic order, NaNs included
    "zs < zs[::-1]", "zs <= zs[::-1]", "zs > zs[::-1]", "zs >= zs[::-1]", "z64 < 0.5",
    "np.maximum(zs, zs[::-1])", "np.minimum(zs, zs[::-1])", "np.fmax(zs, zs[::-1])",
    "np.fmin(zs, zs[::-1])", "np.maximum(z64, 1)", "np.clip(z128, -1 - 1j, 1 + 1j)",
    # casts
    "z128.astype(np.float32)", "z64.astype(np.float64)", "z64.astype(bool)", "zs.astype(bool)",
    "z128.astype(np.int32)", "f32.astype(np.complex64)", "i8.astype(np.complex128)",
    "z128.astype(np.complex64)", "z64.astype(np.complex128)", "b.astype(np.complex64)",
    "z64.astype(np.float16)", "zf.astype(np.uint8)",
    "np.array([np.nan, -np.nan, -np.inf, np.inf, -0.0, 1e-45, 3.5], dtype=np.float32).astype(np.complex64)",
    # moves, creation, where
    "z128[::3]", "z64.T", "np.concatenate((z64, z64 * 1j))", "np.where(f32 > 0, z64, 0)",
    "np.where(f32 > 0, z64, 1j)", "z128.reshape(8, 8)[1:5, ::2]", "np.take(z128, np.array([3, 1, 60]))",
    "z64[f32 > 0]", "np.zeros(3, dtype=np.complex64)", "np.ones((2, 3), dtype=np.complex128)",
    "np.full(4, 1 + 2j)", "np.full((2,), 3j, dtype=np.complex64)", "np.flip(z64, axis=1)",
    "np.broadcast_to(z64[0], (3, 7))", "np.stack([z128, z128 * 2])", "np.roll(z128, 3)",
    "np.array([1 + 2j, 3, 4.5])", "np.nan_to_num(zs)", "z128.real", "z64.imag", "(1 + 2j).imag",
    "complex(1, 2) * z64", "np.conj(b)", "np.full_like(f32, 1j, dtype=np.complex128)",
    "np.full_like(z64, 2 - 1j)", "np.angle(1j)", "np.isclose(1j, 1j)",
    "np.round(z128, 2)", "np.around(z64)", "np.rint(zs)", "np.rint(z64 * 3)",
    # lexicographic max and min (a single NaN per reduction: which of several NaNs wins
    # depends on the combining order)
    "np.max(z128)", "np.min(z64, axis=1)", "np.max(z64, axis=0, keepdims=True)", "np.ptp(z128)",
    "np.nanmax(zs)", "np.nanmin(zs)", "np.nanmax(zs[:90].reshape(9, 10), axis=1)",
    "np.max(np.where(np.arange(64) == 5, complex(np.nan, 1), z128))",
    "np.amin(np.where(np.arange(64) == 9, complex(2, np.nan), z128))",
    "np.argmax(z128)", "np.argmin(z64, axis=1)", "np.argmax(zs)", "np.argmin(zs)",
    "np.argmax(zs.reshape(10, 10), axis=0)", "np.nanargmax(zs[:90].reshape(9, 10), axis=1)",
    "np.nanargmin(z64, axis=0)",
]

# sums: NumPy's order depends on the memory layout (pairwise along contiguous rows, one row
# after another across them); within ULPS of the largest |part| seen
SUMS = [
    "np.nanmean(zs[:40])", "np.nanmean(np.where(np.isnan(zs), 1j, zs))", "np.nanmean(z64, axis=0)",
    "np.cov(z64)", "np.cov(z128)", "np.corrcoef(z64)", "np.correlate(z128, z128[:9])",
    "np.correlate(z128[:9], z128, 'full')", "np.correlate(f64[:20], z128[:7], 'same')",
    "np.convolve(z128, z128[:5])", "np.interp(f64, np.arange(-3.0, 3.0), z128[:6])",
    "np.float_power(z64, 2)", "np.float_power(f32, 1j)",
    "z64.T @ z64", "z128.reshape(8, 8) @ z128.reshape(8, 8)", "np.dot(z64, z64.T)",
    "np.vdot(z128, z128[::-1])", "np.vecdot(z64, z64)", "np.inner(z128, z128)",
    "np.einsum('ij,kj->ik', z64, z64)", "np.tensordot(z64, z64, axes=([0], [0]))",
    "f32 @ z64.T", "z64 @ f64[:7]", "z128.reshape(4, 4, 4) @ z128.reshape(4, 4, 4)",
    "np.zeros((3, 0), dtype=np.complex64) @ np.zeros((0, 2), dtype=np.complex64)",
    "z128.reshape(8, 8).T @ z128.reshape(8, 8)[:, ::2]", "np.linalg.matrix_power(z128.reshape(8, 8), 3)",
    "np.sum(z64)", "np.sum(z128)", "np.sum(z64, axis=0)", "np.sum(z64, axis=1, keepdims=True)",
    "np.prod(z64[:3], axis=1)", "np.prod(z128[:10])", "np.mean(z64)", "np.mean(z128)",
    "np.mean(z64, axis=0)", "np.any(zs)", "np.all(z64)", "np.nansum(zs)",
    "np.sum(np.ones((300, 200)) * (1 + 1j), axis=0)", "np.cumsum(z128)", "np.cumsum(z64, axis=0)",
    "np.cumsum(z64, axis=1)", "np.cumprod(z128[:20] * 0.5)", "np.cumprod(z64, axis=1)",
    "np.cumsum(zs)", "np.nancumsum(zs)", "np.cumsum(np.ones((40, 700), dtype=np.complex64) * (1 + 2j), axis=1)",
    "np.cumsum(np.ones((40, 700)) * (0.1 + 2j), axis=1)", "np.sum(z128.reshape(8, 8), axis=0)",
]

APPROX = [
    "np.nanvar(zs[10:40])", "np.nanstd(np.where(np.isnan(zs), 1j, zs))", "np.nanvar(z64, axis=0)",
    "np.nanstd(z64, axis=1, ddof=1)",
    "np.sign(zs)", "np.sign(z64)",  # z / hypot(z): libm's hypot and CUDA's may differ by an ulp
    "np.sqrt(z64)", "np.sqrt(z128)", "np.sqrt(zs)", "np.exp(z128)", "np.exp(z64)", "np.exp(zf)",
    "np.exp(zs.astype(np.complex64))", "np.exp(zs)", "np.abs(np.exp(1j * f32) * z64 + np.conj(z64))",
    "np.log(z128)", "np.log(z64)", "np.log(zs)", "np.log(1 + 1e-9j + z128 * 0)",
    "np.sin(z128)", "np.cos(z128)", "np.tan(z128)", "np.sinh(z128)", "np.cosh(z128)",
    "np.tanh(z128)", "np.sin(z64)", "np.tanh(z64 * 30)", "np.tanh(zf)", "np.sinh(zf)",
    "np.cosh(zf)", "np.sin(zf)", "np.cos(zf)", "np.tan(zf)", "np.sin(zs)", "np.cos(zs)",
    "np.sinh(zs)", "np.cosh(zs)", "np.tan(zs)", "np.tanh(zs)", "np.sinh(zs.astype(np.complex64))",
    "np.sin(zs.astype(np.complex64))",
    # parts near the largest float, where |z| overflows (log and the inverse functions)
    "np.log(zb)", "np.log(zb.astype(np.complex64) * 1e-270)", "np.log10(zb)",
    "np.arccos(zb)", "np.arcsin(zb)", "np.arcsinh(zb)", "np.arccosh(zb)", "np.arctanh(zb)",
    "np.arccos(zb.astype(np.complex64) * 1e-270)", "np.arcsinh(zb.astype(np.complex64) * 1e-270)",
    "np.sqrt(zt)", "np.log(zt)", "np.arccos(zt)", "np.arcsin(zt)", "np.arcsinh(zt)",
    # real parts where sinh and cosh overflow before their product with a small sin or cos
    "np.sinh(zl)", "np.cosh(zl)", "np.sin(zl * 1j)", "np.cos(zl * 1j)",
    "np.sinh(zl.astype(np.complex64) * 0.1)", "np.cosh(zl.astype(np.complex64) * 0.1)",
    "np.arccosh(zt)", "np.sqrt(zt * 1e-10)", "np.log((zt * 1e280).astype(np.complex64) * 1e-25)",
    # the inverse functions: branch cuts (signed zeros on the real and imaginary axes), the
    # special values, tiny and huge parts, near the branch points +-1 and +-i
    "np.arcsin(zs)", "np.arccos(zs)", "np.arctan(zs)", "np.arcsinh(zs)", "np.arccosh(zs)",
    "np.arctanh(zs)", "np.arcsin(z128)", "np.arccos(z128)", "np.arctan(z128)",
    "np.arcsinh(z128)", "np.arccosh(z128)", "np.arctanh(z128)", "np.arcsin(z64)",
    "np.arccos(zf)", "np.arctan(z64)", "np.arcsinh(zf)", "np.arccosh(z64)", "np.arctanh(zf)",
    "np.arctanh(1 + z128 * 1e-9)", "np.arctanh(-1 - 1e-300j + f64 * 0)", "np.arctan(1j + z128 * 1e-7)",
    "np.arcsin(f64 * 3 + 0j)", "np.arcsin(f64 * 3 - 0j)", "np.arccos(np.conj(f64 * 3 + 0j))",
    "np.arccosh(f64 * 3 + 0j)", "np.arcsinh(1j * f64 * 3)", "np.arctanh(f64.astype(np.complex64) * 2)",
    "np.sinc(z128)", "np.sinc(z64)", "np.sinc(zf)", "np.exp2(z128)", "np.exp2(z64)", "np.expm1(z128 * 0.1)", "np.expm1(z64)", "np.log1p(z128)",
    # NumPy's log1p loses digits near 0 (log(hypot(1 + x, y))): at 1e-9 its complex128 real
    # part is off by 3e-7 relative (mpmath agrees with loom's), so only this comparison holds
    "np.log1p(z64.astype(np.complex128) * 0.01).astype(np.complex64)", "np.log2(z128)", "np.log10(z64)", "np.log10(zs)",
    "z128 ** 0.5", "z128 ** (1 + 1j)", "np.power(z64, 2.5)", "z128 ** 1.5", "2 ** z128",
    "np.angle(z128)", "np.angle(z64, deg=True)", "np.angle(f32)", "np.angle(zs)",
    "np.var(z128)", "np.std(z64)", "np.std(z64, axis=1)", "np.var(z64, axis=0, ddof=1)",
    "np.abs(z128 * 1e200)", "np.isclose(z128, z128 + 1e-12)", "np.linalg.norm(z128)",
    "np.linalg.norm(z64, axis=1)", "np.mean(np.exp(1j * f64) * z128)",
    # NumPy's lexicographic order (two stable sorts of the parts), NaN parts last
    "np.sort(z64)", "np.sort(z128)", "np.argsort(zs, kind='stable')", "np.sort(zs)", "np.sort(z64, axis=0)",
    "np.argsort(z64, axis=None)", "np.unique(np.round(z128))", "np.unique(zs)",
    "np.unique(zs, return_counts=True)[1]", "np.unique(zs, return_inverse=True)[1]",
    "np.unique(zs[::-1], return_index=True)[1]", "np.unique(zs[::-1])",
    "np.median(z64, axis=1)", "np.sort(zs)[::-1]",
    # searches by ranks in a merged sort; scatters part by part
    "np.searchsorted(np.sort(zs), zs[::3])", "np.searchsorted(np.sort(z128), z128[:9], side='right')",
    "np.isin(zs, zs[::7])", "np.setdiff1d(z128, z128[::2])",
    # minimum.at / maximum.at: NumPy's sequential lexicographic result (first NaN, first of equals)
    "y = np.copy(zs); np.minimum.at(y, np.arange(100) % 7, zs[::-1]); y",
    "y = np.copy(zs); np.maximum.at(y, np.arange(100) % 5, zs); y",
    "y = np.copy(z64); np.minimum.at(y, (np.array([0, 4, 4, 0]), np.array([1, 6, 6, 1])), z64[2, :4]); y",
    "y = np.round(z128 * 2); np.maximum.at(y, np.arange(64) % 3, np.round(z128[::-1] * 2)); y",
]

# through an LU factorisation, whose blocking and pivot order differ between LAPACK and
# cuSOLVER: within 64 ulps of the largest magnitude (a 5 x 5 determinant was 9 ulps off)
FACTORED = ["np.linalg.det(z64[:, :5] + 8 * np.eye(5))"]

ERRORS = [
    ("np.floor(z64)", "not supported"),
    ("z64 // 2", "not supported"), ("np.arctan2(z64, z64)", "not supported"),
    ("z128.astype(np.int8)[np.array([1.5j])]", "indices"),
    ("np.array([1 + 1j], dtype=np.float64)", "cannot become float64"),
    ("np.ldexp(f32, 1j)", "ldexp"), ("np.interp(z128, f64, f64)", "Cannot cast"),
]


def parts(a):
    if a.dtype.kind == "c":
        return [a.real, a.imag]
    return [a]


def close(got, want, exact, floor=0.0):
    if got.shape != want.shape or got.dtype != want.dtype:
        return "shape/dtype %s %s, NumPy %s %s" % (got.shape, got.dtype, want.shape, want.dtype)
    if want.dtype.kind not in "fc":
        return None if np.array_equal(got, want) else "values differ"
    part = np.finfo(want.dtype).eps
    # the magnitude each element is measured against: |z| (complex), |x| (real)
    mag = np.abs(want.astype(np.complex128)) if want.dtype.kind == "c" else np.abs(want)
    bad = np.zeros(want.shape, bool)
    for g, w in zip(parts(got), parts(want)):
        g, w = g.astype(np.float64), w.astype(np.float64)
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        if not exact:
            with np.errstate(invalid="ignore", over="ignore"):
                tol = ULPS * part * np.where(np.isfinite(mag),
                                             np.maximum(np.maximum(mag, np.abs(w)), floor), 0)
                near = np.isfinite(w) & np.isfinite(g) & (np.abs(g - w) <= tol)
                tiny = np.isfinite(w) & (np.abs(w) < 1e-300) & (np.abs(g) < 1e-300)
            same |= near | tiny
        bad |= ~same
    if not bad.any():
        return None
    k = tuple(int(x) for x in np.argwhere(bad)[0]) if want.ndim else ()
    return "%d of %d differ; first at %s: loom %r, NumPy %r" % (
        int(np.count_nonzero(bad)), want.size, k, got[k], want[k])


def promotion_cases():
    """dtype of (zeros of A) + (zeros of B) for every pair with a complex dtype."""
    out = []
    for a in DTYPES:
        for b in DTYPES:
            if "complex" in a or "complex" in b:
                out.append("np.zeros(2, dtype=np.%s) + np.zeros(2, dtype=np.%s)" % (a, b))
    return out


def main():
    args = arguments()
    if args is None:
        return 77
    np.seterr(all="ignore")
    arrays = inputs()
    cases = [(e, True) for e in EXACT + promotion_cases()] + [(e, False) for e in APPROX] + \
        [(e, "sum") for e in SUMS] + [(e, "lu") for e in FACTORED]
    cases = [c for c in cases if args.k in c[0]]
    errors = [e for e in ERRORS if args.k in e[0]]

    def compare(got, want, tag):
        floor = float(np.max(np.abs(want))) if tag in ("sum", "lu") and want.size else 0.0
        floor *= 8 if tag == "lu" else 1
        return close(got, want, tag is True, floor if np.isfinite(floor) else 0.0)

    return check_all(args.loom, args.device, arrays, cases, errors, compare, "complex")

if __name__ == "__main__":
    sys.exit(main())
