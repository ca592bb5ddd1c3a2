"""PyTorch and CuPy on bench_linalg's workloads, in the same call, with bench_linalg's protocol
(3 warm-up calls, median of timed batches; inputs built the same way: uniform [-1, 1) plus a
diagonal, symmetric, or a a^T / n + I). torch.linalg.solve/cholesky/eigh/svdvals and
cupy.linalg.solve/cholesky/eigh/svd(compute_uv=False); torch's solve checks for errors, which
synchronises, as loom's does. Usage: peers_linalg.py [NAME] (only the workloads whose names
contain NAME)."""
import statistics, sys, time
import cupy as cp
import torch

only = sys.argv[1] if len(sys.argv) > 1 else ""
ts, cs = torch.cuda.synchronize, cp.cuda.Device().synchronize


def bench(fn, sync, reps, inner):
    for _ in range(3):
        fn()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        sync()
        times.append((time.perf_counter() - t0) / inner)
    return statistics.median(times) * 1e3


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


def line(name, torch_fn, cupy_fn, reps, inner):
    if only not in name:
        return
    t, c = bench(torch_fn, ts, reps, inner), bench(cupy_fn, cs, reps, inner)
    print(f"{name:36s} torch {t:9.3f} ms   cupy {c:9.3f} ms", flush=True)


for dt, tag in ((torch.float32, "f32"), (torch.float64, "f64")):
    if only in f"solve {tag} 8192^2":
        a, b = mat((8192, 8192), dt, 8192), torch.rand(8192, dtype=dt, device="cuda") * 2 - 1
        ca, cb = cp.asarray(a), cp.asarray(b)
        line(f"solve {tag} 8192^2", lambda: torch.linalg.solve(a, b),
             lambda: cp.linalg.solve(ca, cb), 5, 1)
        del a, b, ca, cb
if only in "solve f32 100000 x 8^2 (stacked)":
    a, b = mat((100000, 8, 8), torch.float32, 8), torch.rand(100000, 8, 1, device="cuda") * 2 - 1
    ca, cb = cp.asarray(a), cp.asarray(b)
    line("solve f32 100000 x 8^2 (stacked)", lambda: torch.linalg.solve(a, b),
         lambda: cp.linalg.solve(ca, cb), 15, 10)
if only in "solve f32 10000 x 8^2 (separate calls)":
    a, b = mat((10000, 8, 8), torch.float32, 8), torch.rand(10000, 8, 1, device="cuda") * 2 - 1
    ca, cb = cp.asarray(a), cp.asarray(b)

    def torch_loop():
        return [torch.linalg.solve(a[i], b[i]) for i in range(10000)]

    def cupy_loop():
        return [cp.linalg.solve(ca[i], cb[i]) for i in range(10000)]

    line("solve f32 10000 x 8^2 (separate calls)", torch_loop, cupy_loop, 3, 1)
if only in "cholesky f32 100000 x 8^2 (stacked)":
    a = mat((100000, 8, 8), torch.float32, spd=True)
    ca = cp.asarray(a)
    line("cholesky f32 100000 x 8^2 (stacked)", lambda: torch.linalg.cholesky(a),
         lambda: cp.linalg.cholesky(ca), 15, 10)
if only in "cholesky f32 8192^2":
    a = mat((8192, 8192), torch.float32, spd=True)
    ca = cp.asarray(a)
    line("cholesky f32 8192^2", lambda: torch.linalg.cholesky(a), lambda: cp.linalg.cholesky(ca),
         5, 1)
if only in "eigh f32 4096^2 svdvals f32 4096^2":
    a = mat((4096, 4096), torch.float32, sym=True)
    ca = cp.asarray(a)
    line("eigh f32 4096^2", lambda: torch.linalg.eigh(a), lambda: cp.linalg.eigh(ca), 3, 1)
    line("svdvals f32 4096^2", lambda: torch.linalg.svdvals(a),
         lambda: cp.linalg.svd(ca, compute_uv=False), 3, 1)
