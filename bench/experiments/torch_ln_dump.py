#!/usr/bin/env python3
"""Session 8: capture torch.compile's kernel for same_stream.py's layernorm (source, PTX, launch
metadata, SASS), to read what it does that loom's re-read kernel does not.
usage: OUTDIR=dir python3 torch_ln_dump.py   (Triton cache and the inductor source go to OUTDIR)"""
import glob
import os
import shutil
import subprocess

out = os.environ.get("OUTDIR", "/tmp/tln")
os.makedirs(out, exist_ok=True)
os.environ["TRITON_CACHE_DIR"] = os.path.join(out, "triton")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(out, "inductor")  # holds *.best_config
import torch  # noqa: E402
from torch._inductor.utils import run_and_get_code  # noqa: E402


def tln(a):  # same_stream.py's formula
    mu = a.mean(dim=1, keepdim=True); v = ((a - mu) ** 2).mean(dim=1, keepdim=True)
    return (a - mu) / torch.sqrt(v + 1e-5)


x = torch.randn(8192, 8192, device="cuda")
_, code = run_and_get_code(torch.compile(tln), x)
open(os.path.join(out, "inductor.py"), "w").write("\n\n".join(code))
for f in glob.glob(os.path.join(out, "triton", "**", "*"), recursive=True):
    if f.endswith(".cubin"):
        sass = subprocess.run(["cuobjdump", "-sass", f], capture_output=True, text=True).stdout
        open(os.path.join(out, os.path.basename(f) + ".sass"), "w").write(sass)
    if f.endswith((".ptx", ".json", ".ttgir")) and "__grp__" not in f:
        shutil.copy(f, out)
print("\n".join(sorted(os.listdir(out))))
for f in glob.glob(os.path.join(out, "inductor", "**", "*.best_config"), recursive=True):
    print("autotuned:", open(f).read())
