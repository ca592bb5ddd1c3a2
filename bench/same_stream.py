#!/usr/bin/env python3
"""loom and torch.compile in one process, on one CUDA stream, timed by the same CUDA events.

Timing each peer in its own process after a short warm-up (3 calls), and loom in another
(bench_reduce), is not enough here: on the H200 the first ~0.5 s of GPU work in a process runs
up to 5 % slower than the rest, which is as large as the differences being judged. Here loom (through
ctypes, libloom.so, on torch's current stream via loom_options_t.cuda_stream, reading torch's
tensor in place via loom_wrap_device) and torch.compile run the same workload on the same input,
after a long warm-up of both, in alternating batches (which goes first alternates too).

usage: same_stream.py [LIBLOOM] [--rounds N] [--only NAME] [--solo] [--rounds-out] [--fma]
                      [--also LIBLOOM2] [--two-inputs]
Prints per workload: median, min and max µs per call of each system over the rounds, the rounds
in which loom was no slower (a tie counts), and the largest difference between the two results;
--solo: then each system alone, N batches in a row, and a device-to-device copy of the same bytes
(torch's copy_, the rate both are bound by); --rounds-out: every round's figure; --fma: loom
with loom_options_t.allow_fma (contracted multiply-adds, as torch.compile's kernels use);
--also: a second libloom (another tree's build) as a third system in the same rounds, each
system first, second and last equally often; --two-inputs: each system's calls alternate
between two inputs, so that nothing a call reads is left in L2 by the call before.
Each batch starts behind a ~1.5 ms GPU spin (torch.cuda._sleep), so that the events time the
GPU work and not the host's latency of the batch's first call.
Local self-check without a GPU or torch: same_stream.py LIBLOOM --cpu-check
"""
import ctypes as C
import statistics
import sys
import time

import numpy as np

F32 = 11  # LOOM_DTYPE_F32
DEV_CPU, DEV_CUDA = 1, 2


class Options(C.Structure):
    _fields_ = [("device", C.c_int), ("cuda_ordinal", C.c_int), ("arch", C.c_char_p),
                ("cache_dir", C.c_char_p), ("disable_disk_cache", C.c_int),
                ("dump_dir", C.c_char_p), ("log_level", C.c_int), ("log_fn", C.c_void_p),
                ("log_user", C.c_void_p), ("allow_tf32", C.c_int), ("allow_fma", C.c_int),
                ("cuda_stream", C.c_void_p)]


class Loom:
    def __init__(self, lib, device, stream=None, fma=False):
        L = self.L = C.CDLL(lib)
        P = C.c_void_p
        for name, res, args in (
                ("loom_ctx_create", C.c_int, [C.POINTER(Options), C.POINTER(P)]),
                ("loom_ctx_destroy", None, [P]), ("loom_last_create_message", C.c_char_p, []),
                ("loom_ctx_status", C.c_int, [P]), ("loom_ctx_message", C.c_char_p, [P]),
                ("loom_scope_begin", None, [P]), ("loom_scope_end", None, [P]),
                ("loom_wrap_device", P, [P, C.c_int, C.c_int32, C.POINTER(C.c_int64), P,
                                         C.c_uint64, P, P]),
                ("loom_wrap_host", P, [P, C.c_int, C.c_int32, C.POINTER(C.c_int64), P, P, P, P]),
                ("loom_array_retain", P, [P]), ("loom_array_release", None, [P]),
                ("loom_eval", C.c_int, [P, C.c_int32, C.POINTER(P)]),
                ("loom_read", C.c_int, [P, P, P, C.c_size_t]), ("loom_sync", C.c_int, [P]),
                ("loom_mean", P, [P, P, C.c_int32, C.POINTER(C.c_int32), C.c_int]),
                ("loom_var", P, [P, P, C.c_int32, C.POINTER(C.c_int32), C.c_int, C.c_double]),
                ("loom_max", P, [P, P, C.c_int32, C.POINTER(C.c_int32), C.c_int]),
                ("loom_sum", P, [P, P, C.c_int32, C.POINTER(C.c_int32), C.c_int]),
                ("loom_subtract", P, [P, P, P]), ("loom_true_divide", P, [P, P, P]),
                ("loom_add_f", P, [P, P, C.c_double]), ("loom_sqrt", P, [P, P]),
                ("loom_exp", P, [P, P])):
            f = getattr(L, name)
            f.restype, f.argtypes = res, args
        o = Options()
        o.device = device
        o.disable_disk_cache = 1
        o.cuda_stream = stream
        o.allow_fma = int(fma)  # --fma: loom_options_t.allow_fma (not NumPy-exact; opt-in)
        self.ctx = P()
        if L.loom_ctx_create(C.byref(o), C.byref(self.ctx)) != 0:
            raise RuntimeError(L.loom_last_create_message().decode())
        self.ax = (C.c_int32 * 1)(1)

    def check(self):
        if self.L.loom_ctx_status(self.ctx):
            raise RuntimeError(self.L.loom_ctx_message(self.ctx).decode())

    def wrap(self, rows, cols, ptr, host=False):
        shape = (C.c_int64 * 2)(rows, cols)
        f = self.L.loom_wrap_host if host else self.L.loom_wrap_device
        a = f(self.ctx, F32, 2, shape, None, ptr, None, None)
        self.check()
        return a

    def build(self, kind, x):
        L, c, ax = self.L, self.ctx, self.ax
        if kind == "layernorm":  # the peers' formula: (x - mean) / sqrt(var + 1e-5)
            m, v = L.loom_mean(c, x, 1, ax, 1), L.loom_var(c, x, 1, ax, 1, 0.0)
            return L.loom_true_divide(c, L.loom_subtract(c, x, m), L.loom_sqrt(c, L.loom_add_f(c, v, 1e-5)))
        e = L.loom_exp(c, L.loom_subtract(c, x, L.loom_max(c, x, 1, ax, 1)))
        return L.loom_true_divide(c, e, L.loom_sum(c, e, 1, ax, 1))

    def call(self, kind, x, out=None):
        self.L.loom_scope_begin(self.ctx)
        a = self.build(kind, x)
        arr = (C.c_void_p * 1)(a)
        self.L.loom_eval(self.ctx, 1, arr)
        if out is not None:
            self.L.loom_read(self.ctx, a, out.ctypes.data, out.nbytes)
        self.L.loom_scope_end(self.ctx)
        self.check()


def ref(kind, x):
    x = x.astype(np.float64)
    if kind == "layernorm":
        m = x.mean(axis=1, keepdims=True)
        return (x - m) / np.sqrt(((x - m) ** 2).mean(axis=1, keepdims=True) + 1e-5)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def cpu_check(lib):
    lm = Loom(lib, DEV_CPU)
    x = np.random.default_rng(0).standard_normal((64, 1000)).astype(np.float32)
    a = lm.wrap(64, 1000, x.ctypes.data, host=True)
    for kind in ("layernorm", "softmax"):
        out = np.empty_like(x)
        lm.call(kind, a, out)
        print(f"cpu check {kind}: max |loom - numpy float64| = {np.abs(out - ref(kind, x)).max():.3g}")
    lm.L.loom_array_release(a)
    lm.L.loom_ctx_destroy(lm.ctx)


def main():
    args = sys.argv[1:]
    lib = args[0] if args and not args[0].startswith("--") else "build-gpu/libloom.so"
    if "--cpu-check" in args:
        return cpu_check(lib)
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 30
    only = args[args.index("--only") + 1] if "--only" in args else ""
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    stream = torch.cuda.Stream()  # not the default stream: its handle is 0, which loom reads as
    torch.cuda.set_stream(stream)  # "no stream given" and would then run on a stream of its own
    assert stream.cuda_stream, "a stream handle of 0 would leave loom on its own stream"
    lm = Loom(lib, DEV_CUDA, C.c_void_p(stream.cuda_stream), fma="--fma" in args)
    # --also LIB: a second build of loom (another tree) in the same rounds, for an A/B
    also = args[args.index("--also") + 1] if "--also" in args else None
    lm2 = Loom(also, DEV_CUDA, C.c_void_p(stream.cuda_stream), fma="--fma" in args) if also else None
    print(f"{torch.cuda.get_device_name()} torch {torch.__version__}; loom allow_fma={int('--fma' in args)}; "
          "one stream, CUDA events, "
          f"batches of 10 calls, {rounds} rounds alternating", flush=True)
    R = Cn = 8192
    xt = torch.randn(R, Cn, device="cuda", dtype=torch.float32)
    x = lm.wrap(R, Cn, xt.data_ptr())
    x2 = lm2.wrap(R, Cn, xt.data_ptr()) if lm2 else None
    # --two-inputs: every system's calls alternate between two inputs, so that no call finds
    # in L2 what the call before read (each input's last pass was two calls ago)
    two = "--two-inputs" in args
    xt_b = torch.randn(R, Cn, device="cuda", dtype=torch.float32) if two else xt
    x_b = lm.wrap(R, Cn, xt_b.data_ptr()) if two else x
    x2_b = (lm2.wrap(R, Cn, xt_b.data_ptr()) if two else x2) if lm2 else None
    flip = [0]

    def alt(a, b):  # a, then b, then a ... (only a without --two-inputs)
        flip[0] ^= 1
        return a if flip[0] or not two else b

    def tln(a):
        mu = a.mean(dim=1, keepdim=True); v = ((a - mu) ** 2).mean(dim=1, keepdim=True)
        return (a - mu) / torch.sqrt(v + 1e-5)

    def tsm(a):
        mx = a.amax(dim=1, keepdim=True); e = torch.exp(a - mx); return e / e.sum(dim=1, keepdim=True)

    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]

    enq = {}

    def batch(f, n=10, key=None):
        torch.cuda._sleep(3_000_000)  # the GPU busy while the host queues the batch
        t0 = time.perf_counter()
        ev[0].record(stream)
        for _ in range(n):
            f()
        t1 = time.perf_counter()
        ev[1].record(stream)
        ev[1].synchronize()
        if key:
            enq.setdefault(key, []).append((t1 - t0) * 1e6 / n)
        return ev[0].elapsed_time(ev[1]) * 1e3 / n

    for kind, tf in (("layernorm", tln), ("softmax", tsm)):
        if only and only not in kind:
            continue
        tc = torch.compile(tf)
        enq.clear()
        sysf = {"loom": lambda: lm.call(kind, alt(x, x_b)), "torch.compile": lambda: tc(alt(xt, xt_b))}
        if lm2:
            sysf["loom (--also)"] = lambda: lm2.call(kind, alt(x2, x2_b))
        yt = tc(xt)
        out = np.empty((R, Cn), np.float32)
        lm.call(kind, x, out)
        diff = float(np.abs(out - yt.cpu().numpy()).max())
        if lm2:
            out2 = np.empty((R, Cn), np.float32)
            lm2.call(kind, x2, out2)
            print(f"{kind}: max |loom - loom (--also)| = {float(np.abs(out - out2).max()):.3g}")
        for f in sysf.values():  # warm-up: about 1 s of GPU work each
            for _ in range(75):
                batch(f, 100)
        ts = {k: [] for k in sysf}
        wins = wins2 = 0
        for r in range(rounds):
            names = list(sysf)
            if len(names) == 2:
                order = names if r % 2 == 0 else names[::-1]
            else:  # every system first, second and last equally often
                order = names[r % 3:] + names[:r % 3]
            got = {k: batch(sysf[k], key=k) for k in order}
            for k in sysf:
                ts[k].append(got[k])
            wins += got["loom"] <= got["torch.compile"]
            wins2 += lm2 is not None and got["loom (--also)"] <= got["torch.compile"]
        for k, v in ts.items():
            print(f"{kind}_8192x8192  {k:14s} median {statistics.median(v):7.1f} us  "
                  f"min {min(v):7.1f}  max {max(v):7.1f}  (host enqueue per call: median "
                  f"{statistics.median(enq[k]):5.1f} us)", flush=True)
            if "--rounds-out" in args:
                print("   " + " ".join(f"{t:.1f}" for t in v))
        if "--solo" in args:  # each system alone, `rounds` batches in a row
            for k, f in sysf.items():
                v = [batch(f) for _ in range(rounds)]
                print(f"{kind}_8192x8192  {k:14s} alone: median {statistics.median(v):7.1f} us  "
                      f"min {min(v):7.1f}  max {max(v):7.1f}")
            yc = torch.empty_like(xt)
            v = [batch(lambda: yc.copy_(xt)) for _ in range(rounds)]
            print(f"{kind}_8192x8192  {'copy (d2d)':14s} alone: median {statistics.median(v):7.1f} us  "
                  f"min {min(v):7.1f}  max {max(v):7.1f}")
            del yc
        print(f"{kind}_8192x8192  loom no slower in {wins} of {rounds} rounds; "
              f"max |loom - torch.compile| = {diff:.3g}", flush=True)
        if lm2:
            print(f"{kind}_8192x8192  loom (--also) no slower in {wins2} of {rounds} rounds", flush=True)
    for m, a, b in ((lm, x, x_b), (lm2, x2, x2_b)):
        if m:
            m.L.loom_array_release(a)
            if two:
                m.L.loom_array_release(b)
            m.L.loom_sync(m.ctx)
            m.L.loom_ctx_destroy(m.ctx)


if __name__ == "__main__":
    main()
