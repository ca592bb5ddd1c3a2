"""What the peers scripts share: bench_util.h's protocol for PyTorch and CuPy calls (3 warm-up
calls, then the median of `reps` batches of `inner` calls, CUDA events on PyTorch's stream,
CuPy's device synchronised first) and one report line (µs, TB/s of the bytes that must move,
their share of the copy bandwidth in FLOORS.md, 4.17 TB/s)."""
import statistics

import cupy as cp
import torch

COPY_TBPS = 4.17


def bench(fn, reps=9, inner=10):
    """Median microseconds per call of fn()."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(inner):
            fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e3 / inner)
    return statistics.median(times)


def report(name, peer, us, nbytes):
    floor = nbytes / (COPY_TBPS * 1e12) * 1e6
    print("%-24s %-14s %9.1f us   %.3f TB/s   %5.1f%% of copy" % (
        name, peer, us, nbytes / (us * 1e-6) / 1e12, 100 * floor / us))
