"""CuPy and PyTorch on bench_indexing's workloads with bench_indexing's protocol (3 warm-up calls,
median of batches, float32 inputs uniform in [-1, 1)), for the same call. Sorts are CuPy's and
torch's own (CUB radix sorts); unique and x[x > 0] include their count read, as loom's do."""
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
    return statistics.median(ts) * 1e6

cs, ts_ = cp.cuda.Device().synchronize, torch.cuda.synchronize
def row(name, c, t):
    print(f"{name:28s} cupy {c:10.1f} us   torch {t:10.1f} us", flush=True)

x = cp.random.uniform(-1, 1, 1 << 28, dtype=cp.float32)
xt = torch.as_tensor(x, device="cuda")
row("sort_f32_2^28", bench(lambda: cp.sort(x), cs, 5, 2),
    bench(lambda: torch.sort(xt, stable=True), ts_, 5, 2))
row("mask_f32_2^28", bench(lambda: x[x > 0], cs, 5, 2), bench(lambda: xt[xt > 0], ts_, 5, 2))
m, mt = x > 0, xt > 0
row("mask_stored_f32_2^28", bench(lambda: x[m], cs, 5, 2), bench(lambda: xt[mt], ts_, 5, 2))
del m, mt
del x, xt
# (uint32 key, int32 value) pairs sorted by key, as NumPy code writes it: v[argsort(k)]
k = cp.random.randint(0, 1 << 32, 1 << 28, dtype=cp.int64).astype(cp.uint32)
v = cp.random.randint(-(1 << 31), 1 << 31, 1 << 28, dtype=cp.int64).astype(cp.int32)
vt = torch.as_tensor(v, device="cuda")
try:  # torch sorts uint32 only in recent versions
    kt = torch.as_tensor(k, device="cuda")
    torch.sort(kt[:64], stable=True)
    note = ""
except (RuntimeError, TypeError):
    kt = torch.as_tensor(k.astype(cp.int64), device="cuda")
    note = "   (torch: int64 keys)"
row("sort_pairs_u32_i32_2^28", bench(lambda: v[cp.argsort(k)], cs, 5, 2),
    bench(lambda: vt[torch.sort(kt, stable=True).indices], ts_, 5, 2))
if note:
    print(note, flush=True)
del k, v, kt, vt
x = cp.random.uniform(-1, 1, (8192, 8192), dtype=cp.float32)
xt = torch.as_tensor(x, device="cuda")
row("argsort_rows_8192x8192", bench(lambda: cp.argsort(x, axis=1), cs, 5, 2),
    bench(lambda: torch.argsort(xt, dim=1, stable=True), ts_, 5, 2))
lab = cp.random.randint(0, 8192, (8192, 1))
labt = torch.as_tensor(lab, device="cuda")
def xent_cp():
    m = x.max(axis=1, keepdims=True)
    return m + cp.log(cp.exp(x - m).sum(axis=1, keepdims=True)) - cp.take_along_axis(x, lab, 1)
def xent_t():
    return torch.logsumexp(xt, 1, keepdim=True) - torch.take_along_dim(xt, labt, 1)
def lse_cp():
    m = x.max(axis=1, keepdims=True)
    return m + cp.log(cp.exp(x - m).sum(axis=1, keepdims=True))
def lse_t():
    return torch.logsumexp(xt, 1, keepdim=True)
tl = torch.compile(lse_t)
row("lse_8192x8192", bench(lse_cp, cs, 9, 10), bench(lse_t, ts_, 9, 10))
print(f"{'  torch.compile':28s} {bench(tl, ts_, 9, 10):10.1f} us", flush=True)
tc = torch.compile(xent_t)
row("xent_gather_8192x8192", bench(xent_cp, cs, 9, 10), bench(xent_t, ts_, 9, 10))
print(f"{'  torch.compile':28s} {bench(tc, ts_, 9, 10):10.1f} us", flush=True)
idx = cp.random.randint(0, 8192, 8192)
idxt = torch.as_tensor(idx, device="cuda")
row("take_rows_8192x8192", bench(lambda: x[idx], cs, 9, 10), bench(lambda: xt[idxt], ts_, 9, 10))
del x, xt
u = cp.random.randint(0, 1 << 20, 1 << 26, dtype=cp.int32)
ut = torch.as_tensor(u, device="cuda")
row("unique_i32_2^26", bench(lambda: cp.unique(u), cs, 5, 2),
    bench(lambda: torch.unique(ut, sorted=True), ts_, 5, 2))
row("unique_counts_i32_2^26", bench(lambda: cp.unique(u, return_counts=True), cs, 5, 2),
    bench(lambda: torch.unique(ut, sorted=True, return_counts=True), ts_, 5, 2))
