"""PyTorch (eager and torch.compile) and CuPy (CUB's scan) on bench_reduce's cumsum and cumprod
workloads (float32 rows and columns of 8192 x 8192 and one line of 2^28; cumsum of [-1, 1),
cumprod of factors in [0.99, 1.01)), in the same call, with the bench's protocol: warm-up, then
the median of 9 batches of 10 calls, CUDA events."""
import cupy as cp
import torch

from peer_timing import bench, report


sq = torch.rand(8192, 8192, device="cuda") * 2 - 1
line = torch.rand(1 << 28, device="cuda") * 2 - 1
for fn, cfn in [("cumsum", cp.cumsum), ("cumprod", cp.cumprod)]:
    if fn == "cumprod":  # factors near 1, as bench_reduce's
        sq = sq * 0.01 + 1
        line = line * 0.01 + 1
    op = getattr(torch, fn)
    compiled = torch.compile(lambda a, d: op(a, d))
    for name, x, dim in [(fn + "_rows_8192x8192", sq, 1), (fn + "_cols_8192x8192", sq, 0),
                         (fn + "_1d_256M", line, 0)]:
        nbytes = 8 * x.numel()
        report(name, "torch", bench(lambda: op(x, dim)), nbytes)
        report(name, "torch.compile", bench(lambda: compiled(x, dim)), nbytes)
        cx = cp.asarray(x)
        report(name, "cupy", bench(lambda: cfn(cx, axis=dim)), nbytes)
        del cx
