"""How far loom's float32 cumsum on the CUDA device moves from NumPy's sequential float32 order
(docs/guide.md quotes it): uniform [-1, 1) and [0, 1) inputs, rows and columns of 4096 x 4096
and one line of 2^24, through `loom eval`. Prints, per case, the largest |loom - numpy| over
the sum of |x| up to that element, in units of float32's epsilon, and the same for a float64
reference (how far each is from the exact sum).
Usage: scan_deviation.py LOOM"""
import os
import subprocess
import sys
import tempfile

import numpy as np

EPS = np.finfo(np.float32).eps
DEVICE = os.environ.get("LOOM_SCAN_DEVICE", "cuda")


def main():
    loom = sys.argv[1]
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        for lo in (-1.0, 0.0):
            for shape, axis in (((4096, 4096), 1), ((4096, 4096), 0), ((1 << 24,), 0)):
                x = rng.uniform(lo, 1.0, shape).astype(np.float32)
                xp, out = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
                np.save(xp, x)
                subprocess.run([loom, "eval", "cumsum(x, axis=%d)" % axis, "x=" + xp, "-o", out,
                                "--device", DEVICE], check=True, capture_output=True)
                got = np.load(out).astype(np.float64)
                want = np.cumsum(x, axis=axis).astype(np.float64)
                exact = np.cumsum(x.astype(np.float64), axis=axis)
                scale = np.cumsum(np.abs(x.astype(np.float64)), axis=axis)
                print("cumsum %s axis %d, x in [%g, 1): loom - numpy %.1f eps, loom - exact "
                      "%.1f eps, numpy - exact %.1f eps (of the running sum of |x|)" % (
                          shape, axis, lo, np.max(np.abs(got - want) / scale) / EPS,
                          np.max(np.abs(got - exact) / scale) / EPS,
                          np.max(np.abs(want - exact) / scale) / EPS))


if __name__ == "__main__":
    main()
