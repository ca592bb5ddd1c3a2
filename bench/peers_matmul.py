"""CuPy and PyTorch on bench_matmul's workloads with bench_matmul's protocol, for the same call.

Sustained tensor-core work slows the H200 down (power and clocks), so a time depends on how long
the GPU has been busy: short bursts (5 x 5 calls) time float16 8192^2 at ~1.37 ms,
while 9 x 10 calls after a float32 10000^2 product give ~1.56-1.68 ms for CuPy and loom alike.
This script repeats bench_matmul's order and counts: float32 10000^2 first (7 x 3 timed), then
float16 8192^2 plain and + bias + relu (9 x 10 timed), 3 warm-up calls each, median of the
batches, inputs uniform in [lo, 1) as bench_matmul draws them. Usage: peers_matmul.py [pos]."""
import statistics, sys, time
import cupy as cp
import torch

lo = 0.0 if "pos" in sys.argv[1:] else -1.0
cps = cp.cuda.Device().synchronize

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

def rand(shape, dtype):
    return (cp.random.rand(*shape, dtype=cp.float32) * (1 - lo) + lo).astype(dtype)

torch.backends.cuda.matmul.allow_tf32 = False
a32, b32 = rand((10000, 10000), cp.float32), rand((10000, 10000), cp.float32)
print(f"cupy  matmul f32 10000^2 [{lo:g},1)        {bench(lambda: a32 @ b32, cps, 7, 3):8.3f} ms", flush=True)
del a32, b32
a, b, bias = rand((8192, 8192), cp.float16), rand((8192, 8192), cp.float16), rand((8192,), cp.float16)
plain = bench(lambda: a @ b, cps, 9, 10)
print(f"cupy  matmul f16 8192^2 [{lo:g},1)         {plain:8.3f} ms", flush=True)
fused = bench(lambda: cp.maximum(a @ b + bias, 0), cps, 9, 10)
print(f"cupy  matmul f16 8192^2 + bias + relu      {fused:8.3f} ms ({fused / plain:.3f}x plain)", flush=True)
at, bt, biast = (torch.as_tensor(v, device="cuda") for v in (a, b, bias))
plain = bench(lambda: at @ bt, torch.cuda.synchronize, 9, 10)
print(f"torch matmul f16 8192^2 [{lo:g},1)         {plain:8.3f} ms", flush=True)
fused = bench(lambda: torch.relu(torch.addmm(biast, at, bt)), torch.cuda.synchronize, 9, 10)
print(f"torch addmm+relu f16 8192^2                {fused:8.3f} ms ({fused / plain:.3f}x plain)", flush=True)
