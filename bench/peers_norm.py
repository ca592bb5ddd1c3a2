"""PyTorch (eager and torch.compile) and CuPy on bench_reduce's row norm (the 2-norm of each
row of 8192 x 8192 float32, numpy.linalg.norm(x, axis=1)), in the same call, with the bench's
protocol: warm-up, then the median of 9 batches of 10 calls, CUDA events."""
import cupy as cp
import torch

from peer_timing import bench, report

x = torch.rand(8192, 8192, device="cuda") * 2 - 1
compiled = torch.compile(lambda a: torch.linalg.vector_norm(a, dim=1))
nbytes = 4 * x.numel()
name = "norm_rows_8192x8192"
report(name, "torch", bench(lambda: torch.linalg.vector_norm(x, dim=1)), nbytes)
report(name, "torch.compile", bench(lambda: compiled(x)), nbytes)
cx = cp.asarray(x)
report(name, "cupy", bench(lambda: cp.linalg.norm(cx, axis=1)), nbytes)
