#!/usr/bin/env python3
"""Writes tests/data/numpy_matmul.h: np.matmul, np.dot and np.tensordot cases computed by NumPy 2
(result dtype, shape, values, or the error NumPy raises), for tests/unit/test_matmul.c.

Small integer-valued inputs give exact results in every dtype (ints wrap where the values are
large); random float inputs carry an absolute tolerance per case: (k + 2) * eps(accumulator)
* max_ij sum_k |a_ik b_kj| + eps(result) * max |result|. bfloat16 (ml_dtypes) has no NumPy
matmul loop: its expected values are the float32 product of the bfloat16 inputs rounded once.

Usage: python3 tools/gen_numpy_matmul_tables.py [out.h]"""
import sys

import numpy as np

try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # bfloat16 cases are then left out
    BF16 = None

LOOM = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "bfloat16", "float32", "float64"]
FNS = {"matmul": 0, "dot": 1, "tensordot": 2}
rng = np.random.default_rng(20261130)


def dt(name):
    return BF16 if name == "bfloat16" else np.dtype(name)


def bits(arr):
    """Element bits, zero-extended to 64, C order."""
    a = np.ascontiguousarray(arr)
    if a.dtype == np.bool_:
        return [int(x) for x in a.reshape(-1).view(np.uint8)]
    u = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    return [int(x) for x in a.reshape(-1).view(u)]


def values(shape, name, kind):
    d = dt(name)
    if kind == "small":  # exact in every dtype
        if name == "bool":
            return rng.integers(0, 2, shape).astype(bool)
        lo = 0 if name.startswith("uint") else -3
        return rng.integers(lo, 4, shape).astype(d)
    if kind == "wrap":  # large ints: the sums wrap around
        info = np.iinfo(d)
        return rng.integers(max(info.min, -(1 << 62)), min(info.max, 1 << 62), shape,
                            dtype=np.int64 if info.min < 0 else np.uint64,
                            endpoint=True).astype(d)
    return rng.uniform(-1, 1, shape).astype(d)  # "rand"


def compute(fn, a, b, naxes):
    if a.dtype == BF16 or b.dtype == BF16:
        r = np.result_type(a.dtype if a.dtype != BF16 else np.float16,
                           b.dtype if b.dtype != BF16 else np.float16)
        out = BF16 if (a.dtype == BF16 and b.dtype == BF16) or r == np.float16 else r
        f = getattr(np, fn)
        args = (a.astype(np.float32), b.astype(np.float32)) + ((naxes,) if fn == "tensordot" else ())
        return np.asarray(f(*args)).astype(out)
    if fn == "tensordot":
        return np.asarray(np.tensordot(a, b, naxes))
    return np.asarray(getattr(np, fn)(a, b))


def inner(fn, ash, bsh, naxes):
    if fn == "tensordot":
        return int(np.prod(ash[len(ash) - naxes:])) if naxes else 1
    return ash[-1] if ash else 1


cases = []
pool = []


def add(fn, ash, bsh, an, bn, kind="small", naxes=0):
    a = values(ash, an, kind) if ash is not None else None
    b = values(bsh, bn, kind)
    try:
        r = compute(fn, a, b, naxes)
        err = None
    except (ValueError, IndexError) as e:
        r, err = None, str(e)
    c = dict(fn=fn, naxes=naxes, an=an, bn=bn, ash=ash, bsh=bsh, err=err, tol=0.0,
             a_off=len(pool))
    pool.extend(bits(a))
    c["b_off"] = len(pool)
    pool.extend(bits(b))
    if r is not None:
        c["on"] = "bfloat16" if r.dtype == BF16 else r.dtype.name
        c["osh"] = r.shape
        c["o_off"] = len(pool)
        pool.extend(bits(r))
        if kind == "rand":
            acc = 2.0 ** -52 if r.dtype == np.float64 else 2.0 ** -23
            k = inner(fn, ash, bsh, naxes)
            s = np.abs(compute(fn, np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)),
                               naxes)).max(initial=0.0)
            eps_out = 2.0 ** -7 if r.dtype == BF16 else float(np.finfo(r.dtype).eps)
            rmax = float(np.abs(r.astype(np.float64)).max(initial=0.0))
            c["tol"] = (k + 2) * acc * float(s) + eps_out * rmax
    else:
        c["on"], c["osh"], c["o_off"] = "bool", None, 0
    cases.append(c)


# np.matmul's shape rules.
MATMUL_SHAPES = [
    ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((1, 3), (3, 1)),
    ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 2)), ((3,), (2, 3, 4)),
    ((2, 2, 3), (3,)), ((2, 1, 4, 3), (1, 5, 3, 2)),
    ((0, 3), (3, 4)), ((2, 0), (0, 3)), ((2, 3), (3, 0)), ((0, 2, 3), (3, 4)), ((0,), (0,)),
    ((3, 0), (0,)),
    # errors
    ((2, 3), (4, 5)), ((3,), (4,)), ((2, 2, 3), (3, 3, 2)), ((), (3,)), ((3,), ()),
    ((2, 2, 3), (3, 4, 2)),
]
for ash, bsh in MATMUL_SHAPES:
    add("matmul", ash, bsh, "float32", "float32")
# Every dtype pair NumPy has (and bfloat16 with itself and float32).
names = [n for n in LOOM if n != "bfloat16"]
for an in names:
    for bn in names:
        add("matmul", (2, 3), (3, 4), an, bn)
if BF16 is not None:
    add("matmul", (2, 3), (3, 4), "bfloat16", "bfloat16")
    add("matmul", (4, 5), (5,), "bfloat16", "float32")
    add("matmul", (2, 33), (33, 3), "bfloat16", "bfloat16", "rand")
# Integers that wrap.
for n in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
    add("matmul", (3, 7), (7, 5), n, n, "wrap")
# Blocking edges: m > 64, k > 256, n > 256 (the CPU kernel's tiles), random floats.
for n in ["float32", "float64", "float16"]:
    add("matmul", (67, 260), (260, 9), n, n, "rand")
    add("matmul", (2, 3, 17), (17, 300), n, n, "rand")
    add("matmul", (5, 1, 2, 9), (3, 9, 6), n, n, "rand")
add("matmul", (67, 260), (260, 9), "int32", "int32", "wrap")
add("matmul", (67, 260), (260, 9), "bool", "bool")
# np.dot.
DOT_SHAPES = [((3,), (3,)), ((2, 3), (3, 4)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3, 4), (5, 4, 6)),
              ((2, 3), (4, 3, 5)), ((3,), (2, 3, 4)), ((2, 2, 3), (3,)), ((2, 2, 3), (3, 4)),
              ((), (2, 3)), ((2, 3), ()), ((0, 3), (2, 3, 0)),
              ((2, 3), (4, 5)), ((2, 3, 4), (5, 3, 6)), ((3,), (4,))]
for ash, bsh in DOT_SHAPES:
    add("dot", ash, bsh, "int32", "int32")
add("dot", (2, 3, 4), (5, 4, 6), "float32", "float32", "rand")
add("dot", (2, 3), (4, 3, 5), "float16", "int8")
# np.tensordot, integer axes.
TD = [((2, 3, 4), (3, 4, 5), 2), ((2, 3), (4,), 0), ((2, 3), (3, 4), 1), ((2, 3, 4), (2, 3, 4), 3),
      ((), (2, 3), 0), ((2, 3, 4), (4, 2, 3), 1), ((0, 3), (3, 2), 1),
      ((2, 3), (4, 5), 1), ((2, 3), (3, 2), 3)]
for ash, bsh, n in TD:
    add("tensordot", ash, bsh, "float64", "float64", "small", n)
add("tensordot", (3, 4, 5), (4, 5, 6), "float32", "float32", "rand", 2)


def shape_c(s):
    if s is None:
        return "-1, {0}"
    return "%d, {%s}" % (len(s), ",".join(str(x) for x in s) or "0")


def cstr(s):
    return "NULL" if s is None else '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/numpy_matmul.h"
with open(out, "w") as f:
    f.write("/* numpy_matmul.h — np.matmul, np.dot and np.tensordot cases: result dtype, shape and\n"
            " * values (or NumPy's error), for test_matmul.c.\n"
            " * Generated by tools/gen_numpy_matmul_tables.py with NumPy %s; do not edit. */\n"
            % np.__version__)
    f.write("#ifndef LOOM_TESTS_NUMPY_MATMUL_H\n#define LOOM_TESTS_NUMPY_MATMUL_H\n\n"
            "#include <stdint.h>\n#include <loom.h>\n\n"
            "typedef struct np_mm_shape {\n    int32_t ndim; /* -1: NumPy raises */\n"
            "    int64_t dims[LOOM_MAX_DIMS];\n} np_mm_shape_t;\n"
            "typedef struct np_mm_case {\n"
            "    int fn;    /* 0 matmul, 1 dot, 2 tensordot */\n"
            "    int naxes; /* tensordot */\n"
            "    loom_dtype_t a_dtype, b_dtype, out_dtype;\n"
            "    np_mm_shape_t a, b, out;\n"
            "    const char *error; /* NumPy's message when it raises */\n"
            "    double tol;        /* 0: exact; else the absolute error allowed per element */\n"
            "    int64_t a_off, b_off, out_off; /* into np_mm_bits */\n"
            "} np_mm_case_t;\n\n")
    f.write("static const np_mm_case_t np_mm_cases[] = {\n")
    for c in cases:
        f.write("    {%d, %d, LOOM_DTYPE_%s, LOOM_DTYPE_%s, LOOM_DTYPE_%s, {%s}, {%s}, {%s}, %s, %.17g, "
                "%d, %d, %d},\n" % (
                    FNS[c["fn"]], c["naxes"], *(dict(bool="BOOL", bfloat16="BF16").get(
                        x, x.upper().replace("INT", "I").replace("UI", "U").replace("FLOAT", "F"))
                        for x in (c["an"], c["bn"], c["on"])),
                    shape_c(c["ash"]), shape_c(c["bsh"]), shape_c(c["osh"]), cstr(c["err"]),
                    c["tol"], c["a_off"], c["b_off"], c["o_off"]))
    f.write("};\n\nstatic const uint64_t np_mm_bits[] = {\n")
    for i in range(0, len(pool), 8):
        f.write("    " + ", ".join("0x%xu" % v for v in pool[i:i + 8]) + ",\n")
    f.write("};\n\n#endif\n")
print("wrote %s: %d cases, %d values" % (out, len(cases), len(pool)))
