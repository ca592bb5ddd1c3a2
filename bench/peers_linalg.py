"""PyTorch and CuPy on bench_linalg's workloads, in the same call, with bench_linalg's protocol
(3 warm-up calls, median of timed batches; inputs built the same way: uniform [-1, 1) plus a
diagonal, symmetric, or a a^T / n + I). torch.linalg.solve/cholesky/eigh/svdvals and
cupy.linalg.solve/cholesky/eigh/svd(compute_uv=False); torch's solve checks for errors, which
synchronises, as loom's does. Usage: peers_linalg.py."""
import statistics, time
import cupy as cp
import torch

def bench(fn, sync, reps, inner):
    for _ in range(3):
        fn()
    sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        sync()
        ts.append((time.perf_counter() - t0) / inner)
    return statistics.median(ts) * 1e3

ts, cs = torch.cuda.synchronize, cp.cuda.Device().synchronize
def mat(shape, dtype, diag=0.0, sym=False, spd=False):
    a = torch.rand(*shape, dtype=dtype, device="cuda") * 2 - 1
    n = shape[-1]
    if spd:
        a = a @ a.mT / n + torch.eye(n, dtype=dtype, device="cuda")
    if sym:
        a = a + a.mT
    if diag:
        a = a + diag * torch.eye(n, dtype=dtype, device="cuda")
    return a

def line(name, t_ms, c_ms):
    print(f"{name:36s} torch {t_ms:9.3f} ms   cupy {c_ms:9.3f} ms", flush=True)

for dt, name in ((torch.float32, "f32"), (torch.float64, "f64")):
    a, b = mat((8192, 8192), dt, 8192), torch.rand(8192, dtype=dt, device="cuda") * 2 - 1
    ca, cb = cp.asarray(a), cp.asarray(b)
    line(f"solve {name} 8192^2", bench(lambda: torch.linalg.solve(a, b), ts, 5, 1),
         bench(lambda: cp.linalg.solve(ca, cb), cs, 5, 1))
    del a, b, ca, cb
a, b = mat((100000, 8, 8), torch.float32, 8), torch.rand(100000, 8, 1, device="cuda") * 2 - 1
ca, cb = cp.asarray(a), cp.asarray(b)
line("solve f32 100000 x 8^2 (stacked)", bench(lambda: torch.linalg.solve(a, b), ts, 15, 10),
     bench(lambda: cp.linalg.solve(ca, cb), cs, 15, 10))
a = mat((8192, 8192), torch.float32, spd=True)
ca = cp.asarray(a)
line("cholesky f32 8192^2", bench(lambda: torch.linalg.cholesky(a), ts, 5, 1),
     bench(lambda: cp.linalg.cholesky(ca), cs, 5, 1))
a = mat((4096, 4096), torch.float32, sym=True)
ca = cp.asarray(a)
line("eigh f32 4096^2", bench(lambda: torch.linalg.eigh(a), ts, 3, 1),
     bench(lambda: cp.linalg.eigh(ca), cs, 3, 1))
line("svdvals f32 4096^2", bench(lambda: torch.linalg.svdvals(a), ts, 3, 1),
     bench(lambda: cp.linalg.svd(ca, compute_uv=False), cs, 3, 1))
