"""PyTorch (eager and torch.compile) and CuPy on bench_fft's workloads, in the same call, with the
bench's protocol: warm-up, then the median of 9 batches of 10 calls, CUDA events."""
import cupy as cp
import torch

from peer_timing import bench, report

N = 1 << 24


def cplx(*shape):
    return torch.complex(torch.rand(*shape, device="cuda"), torch.rand(*shape, device="cuda"))


line, rows, cols = cplx(N), cplx(16384, 1024), cplx(1024, 16384)
x, w = torch.rand(16384, 1024, device="cuda"), torch.rand(1024, device="cuda")
power = lambda a, b: torch.fft.fft(a * b, dim=1).abs() ** 2
power_c = torch.compile(power)
work = [
    ("fft_1d_16M", lambda: torch.fft.fft(line), cp.asarray(line), lambda a: cp.fft.fft(a), 16),
    ("fft_rows", lambda: torch.fft.fft(rows, dim=1), cp.asarray(rows), lambda a: cp.fft.fft(a, axis=1), 16),
    ("fft_cols", lambda: torch.fft.fft(cols, dim=0), cp.asarray(cols), lambda a: cp.fft.fft(a, axis=0), 16),
]
for name, tf, ca, cf, b in work:
    report(name, "torch", bench(tf), b * N)
    report(name, "cupy", bench(lambda: cf(ca)), b * N)
report("power_rows", "torch eager", bench(lambda: power(x, w)), 8 * N)
report("power_rows", "torch.compile", bench(lambda: power_c(x, w)), 8 * N)
cx, cw = cp.asarray(x), cp.asarray(w)
report("power_rows", "cupy", bench(lambda: cp.abs(cp.fft.fft(cx * cw, axis=1)) ** 2), 8 * N)
