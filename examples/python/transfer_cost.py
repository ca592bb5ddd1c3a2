#!/usr/bin/env python3
"""What moving NumPy data to the device and back costs next to the work itself.

Times three things for `hypot(a, b) * 2` over N float32: the upload of a and b, the compute on
data already there, and the download of the result; then the whole round trip in one go.
Usage: transfer_cost.py [N] (default 64M)."""
import sys
import time

import numpy as np

import loom
import loom.numpy as lnp


def ms(f, reps=5):
    f()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[len(ts) // 2] * 1e3


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 26
    rng = np.random.default_rng(0)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    la, lb = lnp.asarray(a), lnp.asarray(b)
    loom.eval(la, lb)
    up = ms(lambda: loom.eval(lnp.asarray(a), lnp.asarray(b)))
    comp = ms(lambda: loom.eval(lnp.hypot(la, lb) * 2))
    r = lnp.hypot(la, lb) * 2
    loom.eval(r)
    down = ms(lambda: r.get())
    whole = ms(lambda: (lnp.hypot(lnp.asarray(a), lnp.asarray(b)) * 2).get())
    mb = n * 4 / 1e6
    print("device: %s, %d float32 (%.0f MB an array)" % (loom.get_context().device, n, mb))
    print("  upload of a and b   %8.2f ms  (%.1f GB/s)" % (up, 2 * mb / up))
    print("  compute             %8.2f ms" % comp)
    print("  download of result  %8.2f ms  (%.1f GB/s)" % (down, mb / down))
    print("  round trip          %8.2f ms  (NumPy alone: %.2f ms)" % (
        whole, ms(lambda: np.hypot(a, b) * 2)))


if __name__ == "__main__":
    main()
