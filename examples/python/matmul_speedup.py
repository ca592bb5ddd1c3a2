#!/usr/bin/env python3
"""A matrix product on loom (cuBLAS on a GPU) against NumPy's (OpenBLAS), with the check.
Usage: matmul_speedup.py [N] (default 4096; float32 N x N)."""
import sys
import time

import numpy as np

import loom
import loom.numpy as lnp


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n),
                                                                               dtype=np.float32)
    t = time.perf_counter()
    want = a @ b
    t_np = time.perf_counter() - t
    la, lb = lnp.asarray(a), lnp.asarray(b)
    loom.eval(la @ lb)  # warm-up (and the uploads)
    reps = 5
    t = time.perf_counter()
    for _ in range(reps):
        c = la @ lb
        loom.eval(c)
    c.get()[:1, :1]  # a read waits for the device
    t_loom = (time.perf_counter() - t) / reps
    err = float(np.abs(c.get() - want).max() / np.abs(want).max())
    flops = 2.0 * n ** 3
    print("device: %s, %d x %d float32" % (loom.get_context().device, n, n))
    print("  NumPy %.2f ms (%.0f GFLOP/s), loom %.2f ms (%.0f GFLOP/s): %.1fx; max relative "
          "difference %.1e" % (t_np * 1e3, flops / t_np / 1e9, t_loom * 1e3,
                               flops / t_loom / 1e9, t_np / t_loom, err))


if __name__ == "__main__":
    main()
