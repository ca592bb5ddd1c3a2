"""PyTorch (eager and torch.compile) and CuPy (CUB's scan) on bench_reduce's cumsum workloads
(float32 rows and columns of 8192 x 8192, one line of 2^28), in the same call, with the bench's
protocol: warm-up, then the median of 9 batches of 10 calls, CUDA events."""
import cupy as cp
import torch

from peer_timing import bench, report


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
