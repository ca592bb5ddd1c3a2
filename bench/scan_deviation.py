"""How far loom's float32 cumsum and cumprod on the CUDA device move from NumPy's sequential
float32 order (docs/guide.md quotes it): rows and columns of 4096 x 4096 and one line of 2^24,
through `loom eval`. cumsum of uniform [-1, 1) and [0, 1): per case, the largest
|loom - numpy| over the sum of |x| up to that element, in units of float32's epsilon, and the
same for a float64 reference (how far each is from the exact sum). cumprod of factors uniform
in [0.999, 1.001) (whose products stay in float32's range): the largest relative difference
|loom - numpy| / |numpy|, in epsilons, and each one's from the float64 product.
Usage: scan_deviation.py LOOM"""
import os
import subprocess
import sys
import tempfile

import numpy as np

EPS = np.finfo(np.float32).eps
DEVICE = os.environ.get("LOOM_SCAN_DEVICE", "cuda")


def run(loom, tmp, x, expr):
    """expr of x through `loom eval` on DEVICE, as float64."""
    xp, out = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
    np.save(xp, x)
    subprocess.run([loom, "eval", expr, "x=" + xp, "-o", out, "--device", DEVICE], check=True,
                   capture_output=True)
    return np.load(out).astype(np.float64)


def main():
    loom = sys.argv[1]
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        for lo in (-1.0, 0.0):
            for shape, axis in (((4096, 4096), 1), ((4096, 4096), 0), ((1 << 24,), 0)):
                x = rng.uniform(lo, 1.0, shape).astype(np.float32)
                got = run(loom, tmp, x, "cumsum(x, axis=%d)" % axis)
                want = np.cumsum(x, axis=axis).astype(np.float64)
                exact = np.cumsum(x.astype(np.float64), axis=axis)
                scale = np.cumsum(np.abs(x.astype(np.float64)), axis=axis)
                print("cumsum %s axis %d, x in [%g, 1): loom - numpy %.1f eps, loom - exact "
                      "%.1f eps, numpy - exact %.1f eps (of the running sum of |x|)" % (
                          shape, axis, lo, np.max(np.abs(got - want) / scale) / EPS,
                          np.max(np.abs(got - exact) / scale) / EPS,
                          np.max(np.abs(want - exact) / scale) / EPS))
        for shape, axis in (((4096, 4096), 1), ((4096, 4096), 0), ((1 << 24,), 0)):
            x = rng.uniform(0.999, 1.001, shape).astype(np.float32)
            got = run(loom, tmp, x, "cumprod(x, axis=%d)" % axis)
            want = np.cumprod(x, axis=axis).astype(np.float64)
            exact = np.cumprod(x.astype(np.float64), axis=axis)
            print("cumprod %s axis %d, x in [0.999, 1.001): loom - numpy %.1f eps, loom - exact "
                  "%.1f eps, numpy - exact %.1f eps (relative)" % (
                      shape, axis, np.max(np.abs(got - want) / np.abs(want)) / EPS,
                      np.max(np.abs(got - exact) / exact) / EPS,
                      np.max(np.abs(want - exact) / exact) / EPS))


if __name__ == "__main__":
    main()
