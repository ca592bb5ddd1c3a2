#!/usr/bin/env python3
"""bench_python — what loom costs from Python (the ctypes package in python/loom), on the default
context (CUDA on a GPU machine), beside the same workloads in C:

  record_15op                  recording the 15-op chain `a = sin(a) * 1.5 + 0.25` (5 times)
                               without evaluating it: µs per op
  dispatch_15op_1k (no read)   the chain plus lnp.eval on 1024 device-resident float32: µs per
                               chain (bench_elementwise's chain_once, with c->read false)
  dispatch_15op_1k (with read) the same, plus the copy of the result into NumPy
  jit_15op_1k (no read / with read)  the chain as a loom.jit function (traced once, then one
                               loom_program_eval per call: the run and its eval), or that and the copy to
                               NumPy
  sum_256M, gelu_64M, hypot_64M, matmul f32 8192^2, matmul f16 8192^2
                               bench_reduce's, bench_elementwise's and bench_matmul's workloads,
                               each call evaluated, the context synchronised after the batch

Timing: time.perf_counter around a batch of `inner` calls (the last followed by Context.sync),
3 warm-up calls first, the median of 9 batches, per call. The bandwidth workloads' batches are
100 calls long: the host records call k + 1 while the GPU runs call k, so only the first
call's recording and the final sync (tens of µs) show, a fraction of a µs a call. The C
benchmarks time the same calls
with CUDA events on loom's stream; the lead compares the two (this script only prints). With
PyTorch importable, the chain's PyTorch eager and torch.compile figures follow, timed the same way
(torch.cuda.synchronize after the batch).

usage: LOOM_LIBRARY=build/libloom.so PYTHONPATH=python python3 bench/bench_python.py [NAME]
  NAME: only the workloads whose names contain it.
  LOOM_BENCH_SMALL=1: tiny sizes and batches (a check that the script runs, e.g. on the CPU
  device), not figures to report.
"""
import os
import statistics
import sys
import time

import numpy as np

import loom
import loom.numpy as lnp

SMALL = os.environ.get("LOOM_BENCH_SMALL") == "1"
ONLY = sys.argv[1] if len(sys.argv) > 1 else None
REPS = 9


def median_us(fn, inner, sync):
    """Median µs per call of fn() over REPS batches of `inner` calls, sync() closing each batch."""
    if SMALL:
        inner = min(inner, 3)
    for _ in range(3):
        fn()
    sync()
    times = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e6 / inner)
    return statistics.median(times)


def report(name, us, note=""):
    print("%-34s %12.2f us%s" % (name, us, "  " + note if note else ""), flush=True)


def wanted(name):
    return ONLY is None or ONLY in name


def device_array(host):
    """host's values as a computed loom array: in device memory on a GPU (as bench_util.h's
    bench_rand makes them), not a host array uploaded at every eval."""
    x = lnp.asarray(host).astype(host.dtype.name)
    lnp.eval(x)
    return x


def chain(a):
    for _ in range(5):
        a = lnp.sin(a) * 1.5 + 0.25
    return a


def main():
    ctx = loom.get_context()
    print("loom from Python on %s (numpy %s, python %s)%s" % (
        ctx.device, np.__version__, sys.version.split()[0], "  [LOOM_BENCH_SMALL]" if SMALL
        else ""), flush=True)
    rng = np.random.default_rng(1)
    sync = ctx.sync

    x1k = device_array(rng.random(1024, dtype=np.float32))
    if wanted("record_15op"):
        report("record_15op", median_us(lambda: chain(x1k), 2000, sync) / 15, "per op")
    if wanted("dispatch_15op_1k (no read)"):
        report("dispatch_15op_1k (no read)", median_us(lambda: lnp.eval(chain(x1k)), 500, sync))
    if wanted("dispatch_15op_1k (with read)"):
        report("dispatch_15op_1k (with read)", median_us(lambda: chain(x1k).get(), 200, sync))
    jchain = loom.jit(chain)
    if wanted("jit_15op_1k (no read)"):
        report("jit_15op_1k (no read)", median_us(lambda: jchain(x1k), 500, sync),
               "loom.jit: one program run and one eval")
    if wanted("jit_15op_1k (with read)"):
        report("jit_15op_1k (with read)", median_us(lambda: jchain(x1k).get(), 200, sync))
    want = x1k.get()  # the chain's values, checked once against NumPy's
    for _ in range(5):
        want = np.sin(want) * np.float32(1.5) + np.float32(0.25)
    np.testing.assert_allclose(chain(x1k).get(), want, rtol=1e-5, atol=1e-5)

    n = 1 << (12 if SMALL else 28)
    if wanted("sum_256M"):
        x = device_array(rng.random(n, dtype=np.float32))
        report("sum_256M" + (" (small)" if SMALL else ""),
               median_us(lambda: lnp.eval(lnp.sum(x)), 100, sync))
        del x

    n = 1 << (12 if SMALL else 26)
    if wanted("gelu_64M") or wanted("hypot_64M"):
        x = device_array(rng.random(n, dtype=np.float32))
        y = device_array(rng.random(n, dtype=np.float32))

        def gelu():
            inner = (x + x * x * x * 0.044715) * 0.7978845608
            return lnp.eval(x * 0.5 * (lnp.tanh(inner) + 1.0))

        if wanted("gelu_64M"):
            report("gelu_64M" + (" (small)" if SMALL else ""), median_us(gelu, 100, sync))
        if wanted("hypot_64M"):
            report("hypot_64M" + (" (small)" if SMALL else ""),
                   median_us(lambda: lnp.eval(lnp.sqrt(x * x + y * y)), 100, sync))
        del x, y

    m = 64 if SMALL else 8192
    for dt, inner in (("float32", 3), ("float16", 10)):
        name = "matmul %s 8192^2" % ("f32" if dt == "float32" else "f16")
        if not wanted(name):
            continue
        a = device_array(rng.uniform(-1, 1, (m, m)).astype(dt))
        b = device_array(rng.uniform(-1, 1, (m, m)).astype(dt))
        us = median_us(lambda: lnp.eval(a @ b), inner, sync)
        report(name + (" (small)" if SMALL else ""), us,
               "%.1f TFLOP/s" % (2.0 * m * m * m / (us * 1e-6) / 1e12))
        del a, b

    peers(rng)


def peers(rng):
    """PyTorch eager and torch.compile on the 15-op chain over 1024 float32 on the GPU."""
    if not wanted("torch"):
        return
    try:
        import torch
    except ImportError:
        print("(PyTorch not importable: no peer figures)")
        return
    if not torch.cuda.is_available():
        print("(PyTorch sees no GPU: no peer figures)")
        return
    x = torch.from_numpy(rng.random(1024, dtype=np.float32)).cuda()
    sync = torch.cuda.synchronize

    def tchain(a):
        for _ in range(5):
            a = torch.sin(a) * 1.5 + 0.25
        return a

    report("torch eager 15op_1k (no read)", median_us(lambda: tchain(x), 500, sync))
    report("torch eager 15op_1k (with read)", median_us(lambda: tchain(x).cpu().numpy(), 200,
                                                        sync))
    for mode in ("default", "reduce-overhead"):
        try:
            f = torch.compile(tchain, mode=mode)
            for _ in range(5):  # compile, and record the CUDA graph
                f(x)
            sync()
            report("torch.compile(%s) 15op_1k" % mode, median_us(lambda: f(x), 500, sync))
        except Exception as e:  # noqa: BLE001 (any failure of the compiler stack)
            print("torch.compile(%s): failed: %s" % (mode, str(e).splitlines()[0][:120]))


if __name__ == "__main__":
    main()
