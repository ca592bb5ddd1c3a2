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
    }


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
    "np.real(np.fft.ifft(np.fft.fft(x) * np.fft.fft(x[::-1])))",
]

ERRORS = [
    ("np.fft.fft(x, 0)", "Invalid number of FFT data points (0)"),
    ("np.fft.fft(x, norm='none')", "Invalid norm value"),
    ("np.fft.rfft(z)", "must be real"), ("np.fft.irfft(x1)", "Invalid number of FFT data points"),
    ("np.fft.fft(x, axis=1)", "axis"), ("np.fft.fftn(t, s=(3, 4), axes=(0,))", "different lengths"),
]


def close(got, want):
    if got.shape != want.shape or got.dtype != want.dtype:
        return "shape/dtype %s %s, NumPy %s %s" % (got.shape, got.dtype, want.shape, want.dtype)
    if want.size == 0:
        return None
    eps = np.finfo(want.dtype).eps
    scale = float(np.max(np.abs(want))) or 1.0
    tol = 16 * eps * max(1.0, np.log2(max(want.shape))) * scale
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
    errors = [e for e in ERRORS if args.k in e[0]]
    return check_all(args.loom, args.device, arrays, cases, errors,
                     lambda got, want, _: close(got, want), "fft")

if __name__ == "__main__":
    sys.exit(main())
