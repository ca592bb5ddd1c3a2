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

# the sizes: one 2^26 line, fft2 of 8192 x 8192, the filter pipeline of 2^27 points,
# np.convolve 'same' of 2^24 points with 255 taps (torch: cuDNN's conv1d, which correlates)
big = cplx(4 * N)
report("fft_1d_64M", "torch", bench(lambda: torch.fft.fft(big)), 64 * N)
cbig = cp.asarray(big)
report("fft_1d_64M", "cupy", bench(lambda: cp.fft.fft(cbig)), 64 * N)
del big, cbig
sq = cplx(8192, 8192)
report("fft2_8192", "torch", bench(lambda: torch.fft.fft2(sq)), 64 * N)
csq = cp.asarray(sq)
report("fft2_8192", "cupy", bench(lambda: cp.fft.fft2(csq)), 64 * N)
del sq, csq
xf, hf = torch.rand(8 * N, device="cuda"), cplx(4 * N + 1)
filt = lambda a, b: torch.fft.irfft(torch.fft.rfft(a) * b, n=8 * N)
filt_c = torch.compile(filt)
report("filter_128M", "torch eager", bench(lambda: filt(xf, hf)), 96 * N)
report("filter_128M", "torch.compile", bench(lambda: filt_c(xf, hf)), 96 * N)
cxf, chf = cp.asarray(xf), cp.asarray(hf)
report("filter_128M", "cupy", bench(lambda: cp.fft.irfft(cp.fft.rfft(cxf) * chf, n=8 * N)), 96 * N)
del xf, hf, cxf, chf
xs, ks = torch.rand(N, device="cuda"), torch.rand(255, device="cuda")
conv = lambda a, k: torch.nn.functional.conv1d(a.view(1, 1, -1), k.flip(0).view(1, 1, -1),
                                               padding=127).view(-1)
report("convolve_same", "torch conv1d", bench(lambda: conv(xs, ks)), 8 * N)
cxs, cks = cp.asarray(xs), cp.asarray(ks)
report("convolve_same", "cupy", bench(lambda: cp.convolve(cxs, cks, "same")), 8 * N)
