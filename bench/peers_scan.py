"""PyTorch (eager and torch.compile) and CuPy (CUB's scan) on bench_reduce's cumsum workloads
(float32 rows and columns of 8192 x 8192, one line of 2^28), in the same call, with the bench's
protocol: warm-up, then the median of 9 batches of 10 calls, CUDA events."""
import statistics
import cupy as cp
import torch


def bench(fn, reps=9, inner=10):
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
    floor = nbytes / 4.17e12 * 1e6
    print("%-24s %-14s %9.1f us   %.3f TB/s   %5.1f%% of copy" % (
        name, peer, us, nbytes / (us * 1e-6) / 1e12, 100 * floor / us))


sq = torch.rand(8192, 8192, device="cuda") * 2 - 1
line = torch.rand(1 << 28, device="cuda") * 2 - 1
compiled = torch.compile(lambda a, d: torch.cumsum(a, d))
for name, x, dim in [("cumsum_rows_8192x8192", sq, 1), ("cumsum_cols_8192x8192", sq, 0),
                     ("cumsum_1d_256M", line, 0)]:
    nbytes = 8 * x.numel()
    report(name, "torch", bench(lambda: torch.cumsum(x, dim)), nbytes)
    report(name, "torch.compile", bench(lambda: compiled(x, dim)), nbytes)
    cx = cp.asarray(x)
    report(name, "cupy", bench(lambda: cp.cumsum(cx, axis=dim)), nbytes)
    del cx
