"""PyTorch (eager and torch.compile) and CuPy on bench_elementwise's complex64 chain
abs(exp(1j * x) * z + conj(z)) over 64M (x float32, z complex64), in the same call, with the
bench's protocol: warm-up, then the median of 9 batches of 10 calls, CUDA events."""
import cupy as cp
import torch

from peer_timing import bench, report

N = 1 << 26

x = torch.rand(N, device="cuda")
z = torch.complex(torch.rand(N, device="cuda"), torch.rand(N, device="cuda"))


def chain(x, z):
    return torch.abs(torch.exp(1j * x) * z + torch.conj(z))


compiled = torch.compile(chain)
cx, cz = cp.asarray(x), cp.asarray(z)
# CuPy runs on its own stream handle; make it torch's current one so the events time it
with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
    cupy_us = bench(lambda: cp.abs(cp.exp(1j * cx) * cz + cp.conj(cz)))
@cp.fuse()
def fused(x, z):
    return cp.abs(cp.exp(1j * x) * z + cp.conj(z))


with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
    fused_us = bench(lambda: fused(cx, cz))
rows = [("torch eager", bench(lambda: chain(x, z))), ("torch.compile", bench(lambda: compiled(x, z))),
        ("cupy", cupy_us), ("cupy.fuse", fused_us)]
for name, us in rows:
    report("complex64_chain_64M", name, us, 16 * N)
