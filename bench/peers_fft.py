"""PyTorch (eager and torch.compile) and CuPy on bench_fft's workloads, in the same call, with the
bench's protocol: warm-up, then the median of 9 batches of 10 calls, CUDA events."""
import statistics
import cupy as cp
import torch

N = 1 << 24


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
    print("%-14s %-14s %9.1f us   %.3f TB/s" % (name, peer, us, nbytes / (us * 1e-6) / 1e12))


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
