"""PyTorch (eager and torch.compile) and CuPy on two of bench_elementwise's and bench_reduce's
workloads, in the same call, with the benches' protocol (peer_timing.bench): the erf-form gelu
`0.5 x (1 + erf(x / sqrt(2)))` over 64M float32 (torch's `gelu(approximate='none')`, CuPy's
`cupyx.scipy.special.erf` in an elementwise expression and fused) and the median of each row of
8192 x 8192 float32 (`torch.median` returns the lower of the two middle values of an even row,
NumPy's and CuPy's their mean)."""
import cupy as cp
import cupyx.scipy.special as cps
import torch

from peer_timing import bench, report

N = 1 << 26
x = torch.rand(N, device="cuda") * 2 - 1
cx = cp.asarray(x)


def gelu_t(x):
    return torch.nn.functional.gelu(x)


@cp.fuse()
def gelu_fused(x):
    return 0.5 * x * (1 + cps.erf(x * 0.7071067811865476))


compiled = torch.compile(gelu_t)
with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
    cupy_us = bench(lambda: 0.5 * cx * (1 + cps.erf(cx * 0.7071067811865476)))
    fused_us = bench(lambda: gelu_fused(cx))
for name, us in [("torch eager", bench(lambda: gelu_t(x))),
                 ("torch.compile", bench(lambda: compiled(x))), ("cupy", cupy_us),
                 ("cupy.fuse", fused_us)]:
    report("gelu_erf_64M", name, us, 8 * N)
del x, cx

m = torch.rand(8192, 8192, device="cuda") * 2 - 1
cm = cp.asarray(m)
with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
    cupy_us = bench(lambda: cp.median(cm, axis=1), 5, 2)
for name, us in [("torch.median", bench(lambda: torch.median(m, dim=1), 5, 2)),
                 ("cupy", cupy_us)]:
    report("median_rows_8192x8192", name, us, 4 * 8192 * 8192)
