#!/usr/bin/env python3
"""Row softmax of 64 x 1M float32 (few long rows) in the peers, timed as
bench_reduce times loom: 3 warm-up calls, then the median over 9 batches of 10 back-to-back
calls bracketed by CUDA events (torch) or wall time with block_until_ready (JAX)."""
import statistics
import time

import numpy as np

R, C = 64, 1 << 20
xh = np.random.default_rng(1).standard_normal((R, C), dtype=np.float32)


def report(name, us):
    print(f"{name:<28} {us:9.1f} us")


try:
    import torch

    x = torch.from_numpy(xh).cuda()

    def eager(a):
        m = a.amax(dim=1, keepdim=True)
        e = torch.exp(a - m)
        return e / e.sum(dim=1, keepdim=True)

    for name, f in (("torch eager (5 ops)", eager), ("torch.softmax", lambda a: torch.softmax(a, 1))):
        for _ in range(3):
            f(x)
        torch.cuda.synchronize()
        times = []
        for _ in range(9):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(10):
                f(x)
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e) * 1e3 / 10)
        report(name, statistics.median(times))
except Exception as exc:  # a peer missing on this machine is reported, not fatal
    print("torch:", exc)

try:
    import jax
    import jax.numpy as jnp

    xj = jnp.asarray(xh)
    f = jax.jit(lambda a: jax.nn.softmax(a, axis=1))
    for _ in range(3):
        f(xj).block_until_ready()
    times = []
    for _ in range(9):
        t0 = time.perf_counter()
        for _ in range(10):
            y = f(xj)
        y.block_until_ready()
        times.append((time.perf_counter() - t0) * 1e6 / 10)
    report("jax.jit softmax", statistics.median(times))
except Exception as exc:
    print("jax:", exc)
