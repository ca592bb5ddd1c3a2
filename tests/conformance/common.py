"""What the NumPy comparison scripts share: NumPy 2 or a skip (exit 77), and whether the device
asked for answers at all."""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    np = None

if np is None or int(np.__version__.split(".")[0]) < 2:
    print("numpy 2 not installed: skipped")
    sys.exit(77)


def arguments():
    """LOOM [--device D] [-k TEXT]: the loom binary, the device, a filter on the cases' text;
    None (after saying so) when the device is missing."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("loom")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("-k", default="", help="only the cases whose text contains this")
    args = ap.parse_args()
    return None if device_missing(args.loom, args.device) else args


def device_missing(loom, device):
    """True (after saying so) when `loom eval` cannot run on device; the CPU is always there."""
    if device == "cpu":
        return False
    p = subprocess.run([loom, "eval", "1", "--device", device], capture_output=True)
    if p.returncode:
        print("no %s device: skipped" % device)
        return True
    return False


def run(loom, binds, tmp, expr, device):
    """`loom eval expr` with the arrays bound: (its one result, None) or (None, stderr)."""
    out = os.path.join(tmp, "out.npy")
    p = subprocess.run([loom, "eval", expr, *binds, "-o", out, "--device", device],
                       capture_output=True, text=True)
    if p.returncode:
        return None, p.stderr.strip()
    return np.load(out), None


def check_all(loom, device, arrays, cases, errors, compare, what, names=None):
    """Each (expr, tag) of cases through loom and NumPy (with the arrays, np and names
    defined; an expr with ';' is statements and the value of the last one, run by NumPy on
    copies of the arrays), compare(got, want, tag) giving None or why they differ; each
    (expr, words) of
    errors must fail in loom with words in the message. Prints the failures and a summary; 0
    when all agree, else 1."""
    import warnings
    warnings.simplefilter("ignore")
    failures = 0
    with tempfile.TemporaryDirectory(prefix="loom-%s-" % what) as tmp:
        binds = []
        for k, x in arrays.items():
            np.save(os.path.join(tmp, k + ".npy"), x)
            binds.append("%s=%s" % (k, os.path.join(tmp, k + ".npy")))
        for expr, tag in cases:
            env = dict({k: v.copy() for k, v in arrays.items()}, np=np, **(names or {}))
            if ";" in expr:  # statements, then the value of the last one
                head, _, last = expr.rpartition(";")
                exec(head, env)
                want = np.asarray(eval(last, env))
            else:
                want = np.asarray(eval(expr, env))
            got, err = run(loom, binds, tmp, expr, device)
            why = "loom: %s" % err if err else compare(got, want, tag)
            if why:
                failures += 1
                print("FAIL %s: %s" % (expr, why))
        for expr, words in errors:
            _, err = run(loom, binds, tmp, expr, device)
            if not err or words not in err:
                failures += 1
                print("FAIL %s: expected an error with %r, got %r" % (expr, words, err))
    total = len(cases) + len(errors)
    print("%d of %d %s cases agree with NumPy" % (total - failures, total, what))
    return 1 if failures else 0
