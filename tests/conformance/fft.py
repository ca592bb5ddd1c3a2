#!/usr/bin/env python3
"""numpy.fft's transforms through `loom eval` against NumPy 2: every function with n / s, axis /
axes and the three norms, power-of-two, smooth and prime lengths (Bluestein), float32, float64,
integer, bool and complex inputs, and NumPy's errors. Values within a few ulps times log2(n) of
the largest magnitude (loom transforms in double; NumPy's pocketfft in the input's precision).
Usage: fft.py LOOM [--device cpu] [-k TEXT]. Exits 77 without NumPy 2."""
import sys

from common import arguments, check_all, np


def inputs():
    rng = np.random.default_rng(20261203)
    g = lambda *s: rng.standard_normal(s)
    return {
        "x": g(64), "x7": g(7), "x97": g(97), "x1": g(1), "x360": g(360),
        "f": g(48).astype(np.float32), "i": rng.integers(-9, 9, 30), "b": rng.integers(0, 2, 16) > 0,
        "z": g(50) + 1j * g(50), "zf": (g(33) + 1j * g(33)).astype(np.complex64),
        "m": g(12, 10), "mf": g(6, 8).astype(np.float32), "t": g(4, 5, 6),
        "zm": g(9, 14) + 1j * g(9, 14), "u": g(9, 5, 3) + 1j * g(9, 5, 3),
        "q": g(3, 4, 5, 6), "zt": g(4, 6, 7) + 1j * g(4, 6, 7),
        "ztf": (g(3, 10, 9) + 1j * g(3, 10, 9)).astype(np.complex64),
        "img": g(96, 80).astype(np.float32),
        "w3": g(100, 9, 2), "zw3": (g(100, 9, 2) + 1j * g(100, 9, 2)).astype(np.complex64),
        "big": g(100000), "k": g(3000), "bigf": g(100000).astype(np.float32),
        "zbig": g(100000) + 1j * g(100000), "zk": g(3000) + 1j * g(3000),
        "ik": rng.integers(-9, 9, 3000), "ibig": rng.integers(-9, 9, 100000),
    }


def fftconvolve(a, v, mode="full"):
    """scipy.signal.fftconvolve's values and dtypes, from NumPy's direct convolution."""
    a, v = np.asarray(a), np.asarray(v)
    d = np.result_type(a, v)
    if d.kind in "biu":
        d = np.dtype(np.float64)
    elif d == np.float16:
        d = np.dtype(np.float32)
    full = np.convolve(a.astype(np.complex128 if d.kind == "c" else np.float64),
                       v.astype(np.complex128 if d.kind == "c" else np.float64))
    n1, n2 = len(a), len(v)
    if mode == "same":
        s = (len(full) - n1) // 2
        full = full[s:s + n1]
    elif mode == "valid":
        lo = min(n1, n2)
        full = full[lo - 1:lo - 1 + max(n1, n2) - lo + 1]
    return full.astype(d)


CASES = [
    "np.fft.fft(x)", "np.fft.fft(x7)", "np.fft.fft(x97)", "np.fft.fft(x1)", "np.fft.fft(x360)",
    "np.fft.fft(f)", "np.fft.fft(i)", "np.fft.fft(b)", "np.fft.fft(z)", "np.fft.fft(zf)",
    "np.fft.ifft(z)", "np.fft.ifft(zf)", "np.fft.ifft(x97)",
    "np.fft.fft(x, 100)", "np.fft.fft(x, 10)", "np.fft.fft(z, n=37)", "np.fft.ifft(z, 64)",
    "np.fft.fft(m, axis=0)", "np.fft.fft(m)", "np.fft.ifft(zm, axis=0)", "np.fft.fft(t, axis=1)", "np.fft.fft(u, axis=1)",
    "np.fft.ifft(u, axis=0)",
    "np.fft.fft(x, norm='ortho')", "np.fft.fft(x, norm='forward')", "np.fft.ifft(z, norm='ortho')",
    "np.fft.ifft(z, norm='forward')", "np.fft.ifft(z, norm='backward')",
    "np.fft.rfft(x)", "np.fft.rfft(x7)", "np.fft.rfft(f)", "np.fft.rfft(i, 11)", "np.fft.rfft(m, axis=0)",
    "np.fft.rfft(x97, norm='ortho')",
    "np.fft.irfft(z)", "np.fft.irfft(z, 99)", "np.fft.irfft(z, 98)", "np.fft.irfft(zf)",
    "np.fft.irfft(zm, axis=0)", "np.fft.irfft(z[:5], 20)", "np.fft.irfft(z, norm='forward')",
    "np.fft.irfft(np.fft.rfft(x97), 97)",
    "np.fft.hfft(z)", "np.fft.hfft(z, 31)", "np.fft.hfft(zf, norm='ortho')", "np.fft.ihfft(x)",
    "np.fft.ihfft(x97, norm='forward')", "np.fft.ihfft(f)",
    "np.fft.fft2(m)", "np.fft.ifft2(zm)", "np.fft.fft2(mf)", "np.fft.fft2(t)", "np.fft.fft2(m, s=(5, 16))",
    "np.fft.fft2(t, axes=(0, 2))", "np.fft.rfft2(m)", "np.fft.irfft2(zm)", "np.fft.irfft2(zm, s=(9, 25))",
    "np.fft.fftn(t)", "np.fft.ifftn(t)", "np.fft.fftn(t, axes=(1,))", "np.fft.fftn(t, s=(3, 7), axes=(0, 2))",
    "np.fft.rfftn(t)", "np.fft.irfftn(np.fft.rfftn(t), s=(4, 5, 6))", "np.fft.fftn(m, norm='ortho')",
    "np.fft.ifftn(zm, norm='forward')", "np.abs(np.fft.fft(x)) ** 2",
    "np.fft.fftn(q)", "np.fft.ifftn(q, axes=(0, 1, 3))", "np.fft.rfftn(q)",
    "np.fft.rfftn(t, axes=(2, 0))", "np.fft.rfftn(t, axes=(0, 1))", "np.fft.rfft2(img)",
    "np.fft.irfftn(zt)", "np.fft.irfftn(zt, axes=(0, 1))", "np.fft.irfft2(ztf)",
    "np.fft.irfft2(ztf, norm='ortho')", "np.fft.irfft(zt, axis=1)", "np.fft.irfft(zt, 12, axis=0)",
    "np.fft.fft2(ztf)", "np.fft.ifft2(zt, axes=(0, 2))", "np.fft.irfft(np.fft.rfft(img) * 0.5)",
    "np.fft.irfft(z)[:3].sum() + np.abs(z).sum()",
    # middle axes (complex: one call per inner index when more outer than inner lines; real:
    # moved to the last axis) and real inputs starting one element in (staged on the GPU)
    "np.fft.rfft(bigf[1:])", "np.fft.rfft(x[1:], axis=0)", "np.fft.rfft(mf[:, 1:])",
    "np.fft.rfft(w3, axis=1)", "np.fft.irfft(zw3, axis=1)", "np.fft.irfft(zw3, 16, axis=1)",
    "np.fft.rfftn(w3, axes=(0, 1))", "np.fft.fft2(zw3, axes=(0, 1))", "np.fft.irfftn(np.fft.rfftn(q), s=(4, 5, 6))",
    "np.real(np.fft.ifft(np.fft.fft(x) * np.fft.fft(x[::-1])))",
]

# (case, its inputs): the direct form below the cost rule's threshold, the transforms above
CONV = [
    ("fftconvolve(x, x97)", "x x97"), ("fftconvolve(x97, x, 'same')", "x97 x"),
    ("fftconvolve(x, x97, mode='valid')", "x x97"), ("fftconvolve(z, x7)", "z x7"),
    ("fftconvolve(big, k)", "big k"), ("fftconvolve(k, big, 'same')", "k big"),
    ("fftconvolve(big, k, 'valid')", "big k"), ("fftconvolve(bigf, k)", "bigf k"),
    ("fftconvolve(bigf, bigf[:4000].astype('float32'), 'same')", "bigf bigf"),
    ("fftconvolve(zbig, zk)", "zbig zk"), ("fftconvolve(zbig, k, 'valid')", "zbig k"),
    ("fftconvolve(ibig, ik)", "ibig ik"), ("fftconvolve(i, b)", "i b"),
]

ERRORS = [
    ("np.fft.fft(x, 0)", "Invalid number of FFT data points (0)"),
    ("np.fft.fft(x, norm='none')", "Invalid norm value"),
    ("np.fft.rfft(z)", "must be real"), ("np.fft.irfft(x1)", "Invalid number of FFT data points"),
    ("np.fft.rfft(x[:0])", "Invalid number of FFT data points (0)"),
    ("np.fft.fft(z[:0])", "Invalid number of FFT data points (0)"),
    ("np.fft.fftn(m[:0])", "Invalid number of FFT data points (0)"),
    ("np.fft.irfftn(zm[:0])", "Invalid number of FFT data points (0)"),
    ("np.fft.fft(x, axis=1)", "axis"), ("np.fft.fftn(t, s=(3, 4), axes=(0,))", "different lengths"),
]


def close(got, want, scale=None):
    if got.shape != want.shape or got.dtype != want.dtype:
        return "shape/dtype %s %s, NumPy %s %s" % (got.shape, got.dtype, want.shape, want.dtype)
    if want.size == 0:
        return None
    eps = np.finfo(want.dtype).eps
    scale = scale or float(np.max(np.abs(want))) or 1.0
    tol = 16 * eps * max(1.0, np.log2(max(want.shape, default=1))) * scale
    bad = np.abs(got.astype(np.complex128) - want.astype(np.complex128)) > tol
    if not bad.any():
        return None
    k = tuple(int(v) for v in np.argwhere(bad)[0])
    return "%d of %d differ (tolerance %.3g); first at %s: loom %r, NumPy %r" % (
        int(np.count_nonzero(bad)), want.size, tol, k, got[k], want[k])


def main():
    args = arguments()
    if args is None:
        return 77
    arrays = inputs()
    cases = [(c, None) for c in CASES if args.k in c]
    for c, names in CONV:  # a transform's error scales with the inputs' norms
        a, v = (np.asarray(arrays[n], dtype=np.complex128) for n in names.split())
        if args.k in c:
            cases.append((c, float(np.linalg.norm(a) * np.linalg.norm(v))))
    errors = [e for e in ERRORS if args.k in e[0]]
    errors.append(("fftconvolve(x, m)", "too deep"))
    return check_all(args.loom, args.device, arrays, cases, errors,
                     lambda got, want, scale: close(got, want, scale), "fft",
                     {"fftconvolve": fftconvolve})

if __name__ == "__main__":
    sys.exit(main())
