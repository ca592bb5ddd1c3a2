#!/usr/bin/env python3
"""prelude_check.py - compares every op x dtype and every cast of the prelude (src/ir/prelude.h,
run through the reference kernels by prelude_check.c) with NumPy 2 (and ml_dtypes for bfloat16).

Meson runs it as the unit test prelude_check:
    python3 tests/unit/prelude_check.py <build>/tests/unit/prelude_check
Exits 77 (skipped) without NumPy 2. Without ml_dtypes the bfloat16 loops and casts are left out
(a note says so) and everything else is still checked.

Integers, bools and the IEEE basic operations must match bit for bit (any NaN matches any
NaN; the sign of a zero result of maximum/minimum/fmax/fmin is not compared, NumPy's own
loops disagree on it; nor for sign of bfloat16, where loom keeps NumPy's float16 rule
sign(-0.0) = 0.0 and ml_dtypes returns -0.0). bfloat16 to integer casts are expected to give
what NumPy's float32 cast of the same (exactly representable) value gives, as float16's do:
for NaN, infinities and values outside the integer type's range ml_dtypes (0.7) returns 0
where NumPy's float loops give 0x80..0 or wrap around, and the prelude follows NumPy's floats.
Transcendental functions may differ by a few ulps (glibc and NumPy's SIMD code are different
implementations). Exit status 1 on any mismatch."""
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("NumPy is not installed (skipped)")
    sys.exit(77)
if int(np.__version__.split(".")[0]) < 2:
    print(f"NumPy {np.__version__} is older than 2 (skipped)")
    sys.exit(77)
try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:
    BF16 = None

np.seterr(all="ignore")
DTYPES = {"bool": np.dtype(bool), "int8": np.dtype(np.int8), "int16": np.dtype(np.int16),
          "int32": np.dtype(np.int32), "int64": np.dtype(np.int64), "uint8": np.dtype(np.uint8),
          "uint16": np.dtype(np.uint16), "uint32": np.dtype(np.uint32),
          "uint64": np.dtype(np.uint64), "float16": np.dtype(np.float16), "bfloat16": BF16,
          "float32": np.dtype(np.float32), "float64": np.dtype(np.float64)}
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLTS = ["float16", "bfloat16", "float32", "float64"]
if BF16 is None:  # no ml_dtypes: leave bfloat16 out of every loop and cast
    del DTYPES["bfloat16"]
    FLTS.remove("bfloat16")
LOOPS = {"ALL": ["bool"] + INTS + FLTS, "NUM": INTS + FLTS, "FLT": FLTS, "INT": ["bool"] + INTS,
         "INTNB": INTS}
UNARY = dict(negative="NUM", positive="NUM", absolute="ALL", sign="NUM", sqrt="FLT",
             cbrt="FLT", square="NUM", reciprocal="NUM", exp="FLT", exp2="FLT", expm1="FLT",
             log="FLT", log2="FLT", log10="FLT", log1p="FLT", sin="FLT", cos="FLT", tan="FLT",
             arcsin="FLT", arccos="FLT", arctan="FLT", sinh="FLT", cosh="FLT", tanh="FLT",
             arcsinh="FLT", arccosh="FLT", arctanh="FLT", floor="ALL", ceil="ALL", trunc="ALL",
             rint="FLT", isnan="ALL", isinf="ALL", isfinite="ALL", logical_not="ALL",
             invert="INT", deg2rad="FLT", rad2deg="FLT", spacing="FLT", signbit="FLT")
BINARY = dict(add="ALL", subtract="NUM", multiply="ALL", true_divide="FLT",
              floor_divide="NUM", remainder="NUM", power="NUM", maximum="ALL", minimum="ALL",
              fmax="ALL", fmin="ALL", arctan2="FLT", hypot="FLT", copysign="FLT", equal="ALL",
              not_equal="ALL", less="ALL", less_equal="ALL", greater="ALL",
              greater_equal="ALL", logical_and="ALL", logical_or="ALL", logical_xor="ALL",
              bitwise_and="INT", bitwise_or="INT", bitwise_xor="INT", left_shift="INTNB",
              right_shift="INTNB", logaddexp="FLT", logaddexp2="FLT", nextafter="FLT",
              heaviside="FLT", gcd="INTNB", lcm="INTNB")
EXACT = {"negative", "positive", "absolute", "sign", "sqrt", "square", "reciprocal", "floor",
         "ceil", "trunc", "rint", "isnan", "isinf", "isfinite", "logical_not", "invert", "add",
         "subtract", "multiply", "true_divide", "floor_divide", "remainder", "maximum",
         "minimum", "fmax", "fmin", "copysign", "equal", "not_equal", "less", "less_equal",
         "greater", "greater_equal", "logical_and", "logical_or", "logical_xor", "bitwise_and",
         "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "deg2rad", "rad2deg",
         "spacing", "signbit", "nextafter", "heaviside", "gcd", "lcm"}
# Computed in double and rounded once (NumPy's float32 logaddexp loses up to 46 ulp near 0).
IN_DOUBLE = {"logaddexp", "logaddexp2"}
SIGNED_ZERO_FREE = {"maximum", "minimum", "fmax", "fmin"}

FLOAT_VALUES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -3.0, 7.5, -7.5, 0.1,
                -0.1, 2.0, 10.0, 1e-3, 100.5, 65504.0, 3e9, -3e9, 1e20, -1e20, np.inf, -np.inf,
                np.nan, 1e-6, 300.7, -300.7, 0.75, 4.0, 1e-40, 1e300, 2.0**31, 2.0**63, 127.9,
                -128.5, 65535.9, -0.99]


def values(name):
    dt = DTYPES[name]
    if name == "bool":
        return np.array([False, True])
    if name in FLTS:
        return np.array(FLOAT_VALUES).astype(dt)
    info = np.iinfo(dt)
    v = [0, 1, 2, 3, 5, 7, 100, info.bits - 1, info.bits, info.bits + 1, info.max,
         info.max - 1, info.min, info.min + 1]
    if info.min < 0:
        v += [-1, -2, -3, -7, -100]
    return np.array(v, dtype=object).astype(np.int64 if info.min < 0 else np.uint64).astype(dt)


def bits(arr):
    """Each element's bit pattern as a Python int."""
    size = arr.dtype.itemsize
    raw = np.ascontiguousarray(arr).view({1: np.uint8, 2: np.uint16, 4: np.uint32,
                                          8: np.uint64}[size])
    return [int(x) for x in raw]


def is_float(dt):
    return dt.kind == "f" or (BF16 is not None and dt == BF16)


def isnan_bits(b, dt):
    if not is_float(dt):
        return False
    return bool(np.isnan(np.array([b], dtype={2: np.uint16, 4: np.uint32, 8: np.uint64}[
        dt.itemsize]).view(dt).astype(np.float64))[0])


def ulps(x, y, dt):
    """Distance in representable values between two finite float bit patterns."""
    n = dt.itemsize * 8

    def key(b):
        return (1 << (n - 1)) - (b & ~(1 << (n - 1))) if b >> (n - 1) else (1 << (n - 1)) + b
    return abs(key(x) - key(y))


def main():
    exe = sys.argv[1]
    reqs, expect, meta = [], [], []
    for op, loops in list(UNARY.items()) + list(BINARY.items()):
        binary = op in BINARY
        for name in LOOPS[loops]:
            dt = DTYPES[name]
            v = values(name)
            if op in IN_DOUBLE and dt != np.float64:  # loom rounds the double result once
                uf = (lambda f, d: lambda *x: f(*[y.astype(np.float64) for y in x]).astype(d))(
                    getattr(np, op), dt)
            else:
                uf = getattr(np, op)
            if binary:
                a, b = np.repeat(v, len(v)), np.tile(v, len(v))
                if op == "power" and dt.kind == "i":
                    keep = b >= 0  # NumPy raises on negative integer exponents
                    a, b = a[keep], b[keep]
                res = uf(a, b)
            else:
                a, b = v, v
                res = uf(a)
            if res.dtype != dt and res.dtype != np.dtype(bool):
                res = res.astype(dt)  # bfloat16 ops that ml_dtypes computes in float32
            for x, y, r in zip(bits(a), bits(b), bits(res)):
                reqs.append(f"E {op} {name} {x:x} {y:x}")
                expect.append(r)
                meta.append((op, name, x, y, res.dtype))
    for fn, fdt in DTYPES.items():
        v = values(fn) if fn != "bool" else np.array([False, True])
        for tn, tdt in DTYPES.items():
            # Take element 0 of a long array: NumPy's vectorised cast loop, not its tail.
            src = v.astype(np.float32) if fn == "bfloat16" and tdt.kind in "iu" else v
            res = [np.repeat(src[i:i + 1], 64).astype(tdt)[:1] for i in range(len(v))]
            for x, r in zip(bits(v), [bits(r)[0] for r in res]):
                reqs.append(f"C {fn} {tn} {x:x}")
                expect.append(r)
                meta.append(("astype", f"{fn}->{tn}", x, 0, tdt))
    out = subprocess.run([exe], input="\n".join(reqs) + "\n", capture_output=True, text=True,
                         check=True).stdout.split()
    assert len(out) == len(reqs), (len(out), len(reqs))
    bad = 0
    worst = {}
    for got, want, (op, name, x, y, rdt) in zip(out, expect, meta):
        if got == "none":
            print(f"missing loop {op} {name}")
            bad += 1
            continue
        g = int(got, 16)
        if g == want:
            continue
        if isnan_bits(g, rdt) and isnan_bits(want, rdt) and op != "astype":
            continue
        if (op in SIGNED_ZERO_FREE or (op == "sign" and name == "bfloat16")) and is_float(rdt):
            n = rdt.itemsize * 8
            if (g | want) & ~(1 << (n - 1)) == 0:
                continue
        if op not in EXACT and op != "astype" and not isnan_bits(g, rdt) and \
                not isnan_bits(want, rdt):
            d = ulps(g, want, rdt)
            worst[(op, name)] = max(worst.get((op, name), 0), d)
            if d <= 4:
                continue
        bad += 1
        if bad <= 60:
            print(f"MISMATCH {op} {name} a={x:#x} b={y:#x}: got {g:#x} want {want:#x}")
    for (op, name), d in sorted(worst.items()):
        if d > 1:
            print(f"note: {op} {name} differs from NumPy by up to {d} ulp")
    if BF16 is None:
        print("note: ml_dtypes is not installed: the bfloat16 loops and casts were not checked")
    print(f"{len(reqs)} checks, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
