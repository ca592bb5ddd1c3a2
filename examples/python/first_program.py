#!/usr/bin/env python3
"""A NumPy function moved to loom by changing the import, checked against NumPy.

The same source runs on both namespaces: `softplus_stats(np, x)` and `softplus_stats(lnp, x)`;
loom records the calls and runs them as fused kernels when the result is read.
Usage: first_program.py [N] (default 10,000,000)."""
import sys
import time

import numpy as np

import loom
import loom.numpy as lnp


def softplus_stats(xp, x):
    y = xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(x, 0)  # a stable softplus
    return xp.mean(y), xp.std(y), xp.max(y)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    t = time.perf_counter()
    want = softplus_stats(np, x)
    t_np = time.perf_counter() - t
    lx = lnp.asarray(x)  # one upload
    loom.eval(*softplus_stats(lnp, lx))  # warm-up: compiles (or loads) the kernels
    t = time.perf_counter()
    got = [float(v) for v in loom.eval(*softplus_stats(lnp, lx))]
    t_loom = time.perf_counter() - t
    print("device: %s" % loom.get_context().device)
    for name, g, w in zip(("mean", "std", "max"), got, want):
        print("  %-4s loom %.7g  NumPy %.7g  relative difference %.1e" % (
            name, g, w, abs(g - w) / max(abs(w), 1e-30)))
    print("  NumPy %.2f ms, loom %.2f ms (inputs already on the device)" % (t_np * 1e3,
                                                                             t_loom * 1e3))


if __name__ == "__main__":
    main()
