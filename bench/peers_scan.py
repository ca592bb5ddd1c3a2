"""PyTorch (eager and torch.compile) and CuPy (CUB's scan) on bench_reduce's cumsum and cumprod
workloads (float32 rows and columns of 8192 x 8192, one line of 2^28 for cumsum and of 2^20
for cumprod), in the same call, with the bench's
protocol: warm-up, then the median of 9 batches of 10 calls, CUDA events."""
import cupy as cp
import torch

from peer_timing import bench, report


sq = torch.rand(8192, 8192, device="cuda") * 2 - 1
line = torch.rand(1 << 28, device="cuda") * 2 - 1
short = torch.rand(1 << 20, device="cuda") * 2 - 1
for fn, cfn in [("cumsum", cp.cumsum), ("cumprod", cp.cumprod)]:
    op = getattr(torch, fn)
    compiled = torch.compile(lambda a, d: op(a, d))
    for name, x, dim in [(fn + "_rows_8192x8192", sq, 1), (fn + "_cols_8192x8192", sq, 0),
                         ("cumsum_1d_256M", line, 0) if fn == "cumsum" else
                         ("cumprod_1d_1M", short, 0)]:
        nbytes = 8 * x.numel()
        report(name, "torch", bench(lambda: op(x, dim)), nbytes)
        report(name, "torch.compile", bench(lambda: compiled(x, dim)), nbytes)
        cx = cp.asarray(x)
        report(name, "cupy", bench(lambda: cfn(cx, axis=dim)), nbytes)
        del cx
