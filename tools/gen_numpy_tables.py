#!/usr/bin/env python3
"""Generates tests/data/numpy_*.h: what NumPy 2 answers for loom's ops, as C tables.

    python3 tools/gen_numpy_tables.py            # writes tests/data/
    python3 tools/gen_numpy_tables.py --check    # exits 1 if the committed files differ

The op lists are parsed from include/loom.h (LOOM_UNARY_LIST, LOOM_BINARY_LIST), so the tables
follow the header. Values are exact bit patterns. bfloat16 is not a NumPy dtype: its values are
computed as loom (and ml_dtypes) define them, in float32 and rounded to nearest even, with the
rounding done here in integer arithmetic. Output is deterministic for a given NumPy version.
"""
import math
import os
import re
import sys
import warnings
from fractions import Fraction

import numpy as np

warnings.simplefilter("ignore")
np.seterr(all="ignore")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data")

# loom's dtype enum order (LOOM_DTYPE_LIST) and NumPy's names.
LOOM_DTYPES = ["BOOL", "I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64", "F16", "BF16",
               "F32", "F64"]
NP_NAME = {"BOOL": "bool", "I8": "int8", "I16": "int16", "I32": "int32", "I64": "int64",
           "U8": "uint8", "U16": "uint16", "U32": "uint32", "U64": "uint64",
           "F16": "float16", "F32": "float32", "F64": "float64"}
NP12 = [d for d in LOOM_DTYPES if d != "BF16"]
FLOATS = ["F16", "BF16", "F32", "F64"]
SIGNED = ["I8", "I16", "I32", "I64"]
UNSIGNED = ["U8", "U16", "U32", "U64"]
NUMPY_OP = {"abs": "absolute", "true_divide": "divide"}


def parse_list(name):
    with open(os.path.join(ROOT, "include", "loom.h")) as f:
        text = f.read()
    m = re.search(r"#define %s\(X\)(.*?)\n\s*\n" % name, text, re.S)
    return re.findall(r"X\((\w+)\)", m.group(1))


UNARY = parse_list("LOOM_UNARY_LIST")
BINARY = parse_list("LOOM_BINARY_LIST")


# Special functions NumPy lacks (scipy.special has them, with a few wrong values in the far
# tails): their exact values from mpmath, with loom's (C's) values at the poles.
SPECIAL = ("erf", "erfc", "erfinv", "erfcinv", "lgamma", "digamma")


def special_value(name, x):
    import mpmath as mp
    inf, nan = float("inf"), float("nan")
    if x != x:
        return nan
    if x == 0 and name in ("erf", "erfinv"):  # odd: -0 stays -0
        return x
    if name == "erf":
        return float(mp.erf(x))
    if name == "erfc":
        return float(mp.erfc(x))
    if name == "erfinv":
        if abs(x) > 1:
            return nan
        return x * inf if abs(x) == 1 else x if x == 0 else float(mp.erfinv(x))
    if name == "erfcinv":
        if not 0 <= x <= 2:
            return nan
        if x in (0, 2):
            return inf if x == 0 else -inf
        if x == 1:
            return 0.0
        with mp.workdps(40 + max(0, int(-math.log10(x)))):
            return float(mp.erfinv(1 - mp.mpf(x)))
    if name == "lgamma":  # +inf at the poles and at both infinities, as C's lgamma
        if math.isinf(x) or (x <= 0 and x == math.floor(x)):
            return inf
        return float(mp.re(mp.loggamma(x)))
    if name == "digamma":  # scipy.special.psi's poles: -inf at +0, +inf at -0
        if x == 0:
            return -inf if math.copysign(1, x) > 0 else inf
        if x == -inf or (x < 0 and x == math.floor(x)):
            return nan
        return inf if x == inf else float(mp.digamma(x))


def in_float64(fn, dtype_of=np.sqrt):
    """fn computed in float64 and rounded once to the dtype NumPy's dtype_of gives (loom's
    special functions; np.sqrt's rule: float dtypes kept, int8 -> float16)."""
    def run(*xs):
        dt = dtype_of(*[x[:0] if isinstance(x, np.ndarray) else x for x in xs]).dtype
        return fn(*[np.asarray(x, np.float64) for x in xs]).astype(dt)
    return run


def ufunc(name):
    if name in SPECIAL:
        return in_float64(lambda x: np.array([special_value(name, float(v)) for v in x.flat],
                                             np.float64).reshape(x.shape))
    if name in ("logaddexp", "logaddexp2"):  # NumPy's float32 loses up to 46 ulp near 0
        return in_float64(getattr(np, name), getattr(np, name))
    if name in ("i0", "sinc"):  # Python functions: integers in float64, floats kept
        fn = getattr(np, name)
        return lambda x: in_float64(fn)(x) if x.dtype.kind == "f" else fn(x)
    return getattr(np, NUMPY_OP.get(name, name))


def cdt(d):
    return "LOOM_DTYPE_" + d


def from_np(dt):
    """loom dtype name of a NumPy dtype."""
    for d in NP12:
        if np.dtype(NP_NAME[d]) == dt:
            return d
    raise ValueError(dt)


# ---- bfloat16, done in integers ----

def f32_bits(x):
    return int(np.array(x, np.float32).view(np.uint32))


def f32_to_bf16(x):
    """float32 value -> bfloat16 bits, round to nearest even; NaN stays a quiet NaN."""
    b = f32_bits(x)
    if (b & 0x7FFFFFFF) > 0x7F800000:
        return (b >> 16) | 0x40
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def bf16_to_f32(h):
    return np.array([h << 16], np.uint32).view(np.float32)[0]


def exact_to_bf16(v):
    """An exact value (int, or float64 / float32) -> bfloat16 bits, single rounding."""
    if isinstance(v, float) and v != v:
        return 0x7FC0
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return 0x7F80 if v > 0 else 0xFF80
    fr = Fraction(v)
    sign = 0x8000 if (fr < 0 or (fr == 0 and isinstance(v, float) and str(v)[0] == "-")) else 0
    fr = abs(fr)
    if fr == 0:
        return sign
    e = fr.numerator.bit_length() - fr.denominator.bit_length()
    if Fraction(2) ** e > fr:
        e -= 1
    e = max(e, -126)                       # subnormals share the minimum exponent
    q = fr / Fraction(2) ** (e - 7)        # mantissa with 7 fraction bits, as a fraction
    m = q.numerator // q.denominator
    rem = q - m
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and (m & 1)):
        m += 1
    if m >= 256:
        m >>= 1
        e += 1
    if e > 127:
        return sign | 0x7F80
    if m < 128:                            # subnormal
        return sign | m
    return sign | ((e + 127) << 7) | (m & 0x7F)


# ---- bit patterns ----

def np_dtype(d):
    return np.dtype(np.float32) if d == "BF16" else np.dtype(NP_NAME[d])


def bits_of(arr, d):
    """Raw bits (as Python ints) of a NumPy array holding dtype d (BF16: a float32 array)."""
    if d == "BF16":
        return [f32_to_bf16(x) for x in arr.astype(np.float32)]
    if d == "BOOL":
        return [int(x) for x in arr.astype(np.uint8)]
    u = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.dtype.itemsize]
    return [int(x) for x in np.ascontiguousarray(arr).view(u)]


def array_of(bits, d):
    """NumPy array from bits; BF16 becomes the exact float32 array."""
    if d == "BF16":
        return np.array([bf16_to_f32(b) for b in bits], np.float32)
    if d == "BOOL":
        return np.array(bits, np.uint8).astype(bool)
    dt = np.dtype(NP_NAME[d])
    u = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
    return np.array(bits, u).view(dt)


def hexs(bits):
    return ",".join("0x%x" % b for b in bits)


# ---- edge inputs ----

def float_edges(d, small):
    if d == "BF16":
        fmax, tiny, sub = 3.3895313892515355e38, 2.0 ** -126, 2.0 ** -133
    else:
        fi = np.finfo(np_dtype(d))
        fmax, tiny, sub = float(fi.max), float(fi.tiny), float(fi.smallest_subnormal)
    nan, inf = float("nan"), float("inf")
    if small:
        vals = [nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, fmax, sub]
    else:
        vals = [nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1.5, 3.0, 7.0, 1e-5,
                0.99, 10.0, 100.0, 1e4, 1e30, fmax, -fmax, tiny, sub, -sub]
    if d == "BF16":
        return [exact_to_bf16(v) for v in vals]
    return bits_of(np.array(vals, np.float64).astype(np_dtype(d)), d)


def int_edges(d, small):
    if d == "BOOL":
        return [0, 1]
    info = np.iinfo(NP_NAME[d])
    bits = info.bits
    if d in SIGNED:
        vals = ([0, 1, -1, 2, -7, bits - 1, bits, bits + 1, info.min, info.max] if small else
                [0, 1, -1, 2, -2, 3, 7, -7, 100, info.min, info.min + 1, info.max, info.max - 1])
    else:
        vals = ([0, 1, 2, 3, bits - 1, bits, bits + 1, info.max, info.max - 1] if small else
                [0, 1, 2, 3, 7, 100, info.max, info.max - 1, info.max // 2, info.max // 2 + 1])
    out = []
    for v in vals:
        if v not in out:
            out.append(v)
    return bits_of(np.array(out, dtype=NP_NAME[d]), d)


def edges(d, small):
    return float_edges(d, small) if d in FLOATS else int_edges(d, small)


# ---- evaluating NumPy ----

def call(fn):
    """(result, None) or (None, exception class name)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                return fn(), None
            except OverflowError:
                return None, "OverflowError"
            except TypeError:  # UFuncTypeError and its no-loop subclasses too
                return None, "TypeError"
            except ValueError:
                return None, "ValueError"


def run_op(name, d, arrays):
    """Runs op on arrays of dtype d; BF16 computes in float32 and rounds. (out dtype, bits)."""
    if d == "BF16" and name in ("nextafter", "spacing"):
        return None, "bit-level ops on bfloat16's own format (prelude_check tests them)"
    res, err = call(lambda: ufunc(name)(*arrays))
    if err:
        return None, err
    if d == "BF16" and res.dtype == np.float32:
        return "BF16", bits_of(res, "BF16")
    od = from_np(res.dtype)
    return od, bits_of(res, od)


# ---- writing ----

class Writer:
    def __init__(self, fname, what):
        self.fname = fname
        self.guard = "LOOM_TESTS_" + fname.upper().replace(".", "_")
        self.lines = [
            "/* %s — %s" % (fname, what),
            " * Generated by tools/gen_numpy_tables.py with NumPy %s; do not edit. */" % np.__version__,
            "#ifndef %s" % self.guard, "#define %s" % self.guard, "",
            "#include <stdint.h>", "#include <loom.h>", ""]

    def __call__(self, s=""):
        self.lines.append(s)

    def text(self):
        return "\n".join(self.lines + ["", "#endif", ""])


def wrap(items, indent="    ", width=96):
    out, line = [], indent
    for it in items:
        if len(line) + len(it) + 2 > width and line.strip():
            out.append(line.rstrip())
            line = indent
        line += it + ", "
    if line.strip():
        out.append(line.rstrip())
    return "\n".join(out)


def dt_or_err(d):
    return cdt(d) if d else "NP_ERR"


def gen_promotion():
    w = Writer("numpy_promotion.h", "NumPy's result dtypes for promotion and every op.")
    w("#define NP_ERR (-1) /* NumPy raises TypeError: no loop / no common dtype */")
    w("#define NP_N_DTYPES %d" % len(NP12))
    w("#define NP_N_UNARY %d" % len(UNARY))
    w("#define NP_N_BINARY %d" % len(BINARY))
    w("/* The 12 NumPy dtypes, in the row/column order of the tables below. */")
    w("static const int np_dtypes[NP_N_DTYPES] = {\n%s\n};" % wrap([cdt(d) for d in NP12]))
    w("static const char *const np_unary_names[NP_N_UNARY] = {\n%s\n};"
      % wrap(['"%s"' % n for n in UNARY]))
    w("static const char *const np_binary_names[NP_N_BINARY] = {\n%s\n};"
      % wrap(['"%s"' % n for n in BINARY]))
    rows = []
    for a in NP12:
        rows.append(wrap([cdt(from_np(np.result_type(NP_NAME[a], NP_NAME[b]))) for b in NP12]))
    w("/* np.result_type(np_dtypes[i], np_dtypes[j]). */")
    w("static const int np_result_type[NP_N_DTYPES][NP_N_DTYPES] = {\n%s\n};"
      % ",\n".join("  {\n%s\n  }" % r for r in rows))
    n_err = 0
    w("/* ufunc(ones(1, np_dtypes[i])).dtype, or NP_ERR. */")
    w("static const int np_unary_result[NP_N_UNARY][NP_N_DTYPES] = {")
    for name in UNARY:
        row = []
        for d in NP12:
            od, err = run_op(name, d, [np.ones(1, NP_NAME[d])])
            n_err += bool(err)
            row.append(dt_or_err(od))
        w("  /* %s */ {\n%s\n  }," % (name, wrap(row)))
    w("};")
    w("/* ufunc(ones(1, np_dtypes[i]), ones(1, np_dtypes[j])).dtype, or NP_ERR. */")
    w("static const int np_binary_result[NP_N_BINARY][NP_N_DTYPES][NP_N_DTYPES] = {")
    for name in BINARY:
        w("  /* %s */ {" % name)
        for a in NP12:
            row = []
            for b in NP12:
                od, err = run_op(name, a, [np.ones(1, NP_NAME[a]), np.ones(1, NP_NAME[b])])
                n_err += bool(err)
                row.append(dt_or_err(od))
            w("    {%s}," % wrap(row, indent="").strip())
        w("  },")
    w("};")
    w("/* np.where(cond, ones(1, np_dtypes[i]), ones(1, np_dtypes[j])).dtype. */")
    w("static const int np_where_result[NP_N_DTYPES][NP_N_DTYPES] = {")
    for a in NP12:
        row = [dt_or_err(from_np(np.where(np.ones(1, bool), np.ones(1, NP_NAME[a]),
                                          np.ones(1, NP_NAME[b])).dtype)) for b in NP12]
        w("    {%s}," % wrap(row, indent="").strip())
    w("};")
    w("/* np.clip(ones(1, np_dtypes[i]), lo, hi).dtype with lo, hi ones(1, np_dtypes[j]). */")
    w("static const int np_clip_result[NP_N_DTYPES][NP_N_DTYPES] = {")
    for a in NP12:
        row = []
        for b in NP12:
            r, err = call(lambda: np.clip(np.ones(1, NP_NAME[a]), np.ones(1, NP_NAME[b]),
                                          np.ones(1, NP_NAME[b])))
            n_err += bool(err)
            row.append(dt_or_err(None if err else from_np(r.dtype)))
        w("    {%s}," % wrap(row, indent="").strip())
    w("};")
    return w, n_err


# Weak scalars: each as (kind, Python value).
# Each out of range of some dtypes: 128 (int8), 300 (8-bit), 40000 (int16), 70000 (16-bit),
# 2**31 (int32), 2**40 (32-bit), -1 (unsigned), 2**64-1 (int64).
WEAK_SCALARS = [("INT", 3), ("INT", -1), ("INT", 128), ("INT", 300), ("INT", 40000),
                ("INT", 70000), ("INT", 2 ** 31), ("INT", 2 ** 40), ("INT", -2 ** 63),
                ("UINT", 2 ** 64 - 1), ("FLOAT", 2.5), ("FLOAT", float("nan")), ("FLOAT", 1e300),
                ("BOOL", True)]
WEAK_ARRAY_VALUE = {"BOOL": True, "F16": 5.0, "F32": 5.0, "F64": 5.0}


def weak_payload(kind, v):
    if kind == "FLOAT":
        return int(np.array(v, np.float64).view(np.uint64))
    return int(v) & 0xFFFFFFFFFFFFFFFF


def gen_weak():
    w = Writer("numpy_weak.h", "NEP 50 weak Python scalars against every dtype and binary op.")
    w("""typedef enum np_weak_kind { NP_WEAK_INT, NP_WEAK_UINT, NP_WEAK_FLOAT, NP_WEAK_BOOL } np_weak_kind_t;

/* ufunc(array, scalar) (or ufunc(scalar, array) when scalar_first), the array being
 * np.array([np_weak_array_value[dtype]], dtype). status is what loom must record: OK, OVERFLOW
 * (NumPy's OverflowError), DTYPE_ERROR (TypeError). result is the dtype (-1 on error). When
 * has_value, value holds the result element's bits (NumPy raised ValueError otherwise, as for an
 * integer to a negative integer power). payload: int64 / uint64 / double bits / 0-1. */
typedef struct np_weak_case {
    uint8_t op;     /* index in LOOM_BINARY_LIST */
    uint8_t dtype;  /* the array's loom dtype */
    uint8_t kind;   /* np_weak_kind_t */
    uint8_t scalar_first;
    int8_t result;
    uint8_t status;
    uint8_t has_value;
    uint64_t payload;
    uint64_t value;
} np_weak_case_t;
""")
    arr_bits = []
    for d in LOOM_DTYPES:
        if d == "BF16":
            arr_bits.append("0")
            continue
        arr_bits.append("0x%x" % bits_of(np.array([WEAK_ARRAY_VALUE.get(d, 5)], NP_NAME[d]), d)[0])
    w("/* Bits of the array's one element, by loom dtype (bfloat16 unused). */")
    w("static const uint64_t np_weak_array_value[LOOM_DTYPE_COUNT] = {%s};" % ", ".join(arr_bits))
    for d in LOOM_DTYPES:
        w("#define D_%s LOOM_DTYPE_%s" % (d, d))
    for st in ("OK", "OVERFLOW", "DTYPE_ERROR"):
        w("#define S_%s LOOM_STATUS_%s" % (st, st))
    for k in ("INT", "UINT", "FLOAT", "BOOL"):
        w("#define W_%s NP_WEAK_%s" % (k, k))
    w("static const np_weak_case_t np_weak_cases[] = {")
    counts = {}
    for oi, name in enumerate(BINARY):
        for d in NP12:
            arr = np.array([WEAK_ARRAY_VALUE.get(d, 5)], NP_NAME[d])
            rows = []
            for kind, v in WEAK_SCALARS:
                for first in (0, 1):
                    args = [v, arr] if first else [arr, v]
                    res, err = call(lambda: ufunc(name)(*args))
                    status, result, has, value = "OK", "-1", 0, 0
                    if err == "OverflowError":
                        status = "OVERFLOW"
                    elif err == "TypeError":
                        status = "DTYPE_ERROR"
                    elif err == "ValueError":
                        dts = [type(v) if x is v else x.dtype for x in args] + [None]
                        r2, e2 = call(lambda: ufunc(name).resolve_dtypes(tuple(dts)))
                        assert not e2, (name, d, v, e2)
                        result = cdt(from_np(r2[-1]))
                    elif err:
                        raise RuntimeError((name, d, v, err))
                    else:
                        od = from_np(res.dtype)
                        result, has, value = cdt(od), 1, bits_of(res, od)[0]
                    counts[status] = counts.get(status, 0) + 1
                    rows.append("{%d,D_%s,W_%s,%d,%s,S_%s,%d,0x%x,0x%x}"
                                % (oi, d, kind, first, result.replace("LOOM_DTYPE_", "D_"),
                                   status, has, weak_payload(kind, v), value))
            w("    /* %s %s */" % (name, NP_NAME[d]))
            w(wrap(rows))
    w("};")
    w("#define NP_N_WEAK_CASES (sizeof np_weak_cases / sizeof np_weak_cases[0])")
    return w, counts


def unspecified_cast(src_bits, s, t):
    """Which elements NumPy casts differently alone, in a vector, and tiled (x86 SIMD paths)."""
    a = array_of(src_bits, s)
    tt = np_dtype(t)
    whole, _ = call(lambda: a.astype(tt))
    tiled, _ = call(lambda: np.tile(a, 37).astype(tt)[-len(a):])
    mask = []
    for i in range(len(a)):
        one, _ = call(lambda: a[i:i + 1].astype(tt))
        vals = {bits_of(x, t)[0] for x in (whole[i:i + 1], tiled[i:i + 1], one)}
        mask.append(int(len(vals) > 1))
    return whole, mask


def cast_bits(src_bits, s, t):
    """(out bits, unspecified mask) of astype from s to t."""
    if t == "BF16":
        vals = array_of(src_bits, s)
        out = []
        for x in vals:
            if s in FLOATS:
                out.append(exact_to_bf16(float(x)))
            else:
                out.append(exact_to_bf16(int(x)))
        return out, [0] * len(out)
    # From bfloat16: its exact float32 value, cast as NumPy casts float32.
    whole, mask = unspecified_cast(src_bits, s, t)
    return bits_of(whole, t), mask


def gen_ops():
    w = Writer("numpy_ops.h", "NumPy's values of every op on edge inputs, as bit patterns.")
    w("""/* Element bits are zero-extended into uint64_t: bool 0/1, ints two's complement, floats
 * IEEE (float16/bfloat16 as 16 bits). bfloat16 results are float32 results rounded to
 * nearest even, loom's rule. */
typedef struct np_unary_case {
    uint8_t op, in, out; /* op index in LOOM_UNARY_LIST; loom dtypes */
    uint16_t n;
    const uint64_t *x, *y; /* y[i] = op(x[i]) */
} np_unary_case_t;
/* y[i * nb + j] = op(a[i], b[j]), both operands of dtype in. */
typedef struct np_binary_case {
    uint8_t op, in, out; /* op index in LOOM_BINARY_LIST */
    uint16_t na, nb;
    const uint64_t *a, *b, *y;
} np_binary_case_t;
/* y[i] = x[i].astype(to); where unspec && unspec[i], NumPy itself gives different values
 * depending on the code path (x86 SIMD vs scalar), so any value is accepted. */
typedef struct np_cast_case {
    uint8_t from, to;
    uint16_t n;
    const uint64_t *x, *y;
    const uint8_t *unspec;
} np_cast_case_t;
/* y[i] = np.clip(a[i], lo[i], hi[i]), one dtype. */
typedef struct np_clip_case {
    uint8_t dtype, out;
    uint16_t n;
    const uint64_t *a, *lo, *hi, *y;
} np_clip_case_t;
/* y[i] = np.where(c[i], x[i], y[i]) with dtypes cond, xd, yd -> out. */
typedef struct np_where_case {
    uint8_t cond, xd, yd, out;
    uint16_t n;
    const uint64_t *c, *x, *y, *r;
} np_where_case_t;
""")
    counts = {"unary": 0, "unary_values": 0, "binary": 0, "binary_values": 0, "cast": 0,
              "cast_values": 0, "cast_unspec": 0, "clip": 0, "where": 0}
    # Edge vectors.
    for d in LOOM_DTYPES:
        w("static const uint64_t np_edge_%s[] = {%s};" % (d.lower(), hexs(edges(d, False))))
        w("static const uint64_t np_edge2_%s[] = {%s};" % (d.lower(), hexs(edges(d, True))))
    # Unary.
    cases = []
    for oi, name in enumerate(UNARY):
        for d in LOOM_DTYPES:
            x = edges(d, False)
            od, y = run_op(name, d, [array_of(x, d)])
            if od is None:
                continue
            cases.append("{%d, %s, %s, %d, np_edge_%s, np_u_%d_%s}"
                         % (oi, cdt(d), cdt(od), len(x), d.lower(), oi, d.lower()))
            w("static const uint64_t np_u_%d_%s[] = {%s}; /* %s */" % (oi, d.lower(), hexs(y), name))
            counts["unary"] += 1
            counts["unary_values"] += len(y)
    w("static const np_unary_case_t np_unary_cases[] = {\n%s\n};" % wrap(cases))
    w("#define NP_N_UNARY_CASES (sizeof np_unary_cases / sizeof np_unary_cases[0])")
    # Binary.
    cases = []
    for oi, name in enumerate(BINARY):
        for d in LOOM_DTYPES:
            a = edges(d, True)
            b = a
            bname = "np_edge2_%s" % d.lower()
            if name == "power" and d in SIGNED:  # NumPy raises on negative integer powers
                b = [v for v, s in zip(a, array_of(a, d)) if s >= 0]
                bname = "np_pw_%s" % d.lower()
                w("static const uint64_t %s[] = {%s};" % (bname, hexs(b)))
            A = array_of([x for x in a for _ in b], d)
            B = array_of([y for _ in a for y in b], d)
            od, y = run_op(name, d, [A, B])
            if od is None:
                continue
            w("static const uint64_t np_b_%d_%s[] = {%s}; /* %s */" % (oi, d.lower(), hexs(y), name))
            cases.append("{%d, %s, %s, %d, %d, np_edge2_%s, %s, np_b_%d_%s}"
                         % (oi, cdt(d), cdt(od), len(a), len(b), d.lower(), bname, oi, d.lower()))
            counts["binary"] += 1
            counts["binary_values"] += len(y)
    w("static const np_binary_case_t np_binary_cases[] = {\n%s\n};" % wrap(cases))
    w("#define NP_N_BINARY_CASES (sizeof np_binary_cases / sizeof np_binary_cases[0])")
    # astype.
    cases = []
    for s in LOOM_DTYPES:
        x = edges(s, False)
        for t in LOOM_DTYPES:
            y, mask = cast_bits(x, s, t)
            nm = "np_c_%s_%s" % (s.lower(), t.lower())
            w("static const uint64_t %s[] = {%s};" % (nm, hexs(y)))
            um = "NULL"
            if any(mask):
                um = nm + "_u"
                w("static const uint8_t %s[] = {%s};" % (um, ",".join(map(str, mask))))
                counts["cast_unspec"] += sum(mask)
            cases.append("{%s, %s, %d, np_edge_%s, %s, %s}"
                         % (cdt(s), cdt(t), len(x), s.lower(), nm, um))
            counts["cast"] += 1
            counts["cast_values"] += len(y)
    w("static const np_cast_case_t np_cast_cases[] = {\n%s\n};" % wrap(cases))
    w("#define NP_N_CAST_CASES (sizeof np_cast_cases / sizeof np_cast_cases[0])")
    # clip: a, lo, hi are the small edge vector and two rotations of it.
    cases = []
    for d in LOOM_DTYPES:
        a = edges(d, True)
        lo = a[1:] + a[:1]
        hi = a[3:] + a[:3] if len(a) > 3 else a[::-1]
        res, err = call(lambda: np.clip(array_of(a, d), array_of(lo, d), array_of(hi, d)))
        if err:
            continue
        od = "BF16" if d == "BF16" else from_np(res.dtype)
        k = d.lower()
        w("static const uint64_t np_clip_lo_%s[] = {%s};" % (k, hexs(lo)))
        w("static const uint64_t np_clip_hi_%s[] = {%s};" % (k, hexs(hi)))
        w("static const uint64_t np_clip_y_%s[] = {%s};" % (k, hexs(bits_of(res, od))))
        cases.append("{%s, %s, %d, np_edge2_%s, np_clip_lo_%s, np_clip_hi_%s, np_clip_y_%s}"
                     % (cdt(d), cdt(od), len(a), k, k, k, k))
        counts["clip"] += 1
    w("static const np_clip_case_t np_clip_cases[] = {\n%s\n};" % wrap(cases))
    w("#define NP_N_CLIP_CASES (sizeof np_clip_cases / sizeof np_clip_cases[0])")
    # where: every cond dtype (truthiness of its edges, x = 1.0f, y = 0.0f) and every pair of
    # NumPy dtypes for x and y (mixed dtypes: the values are cast to the result).
    cases = []
    n = 8
    for c in LOOM_DTYPES:
        cb = edges(c, False)
        ones = bits_of(np.ones(len(cb), np.float32), "F32")
        zeros = [0] * len(cb)
        r = bits_of(np.where(array_of(cb, c), np.float32(1), np.float32(0)).astype(np.float32), "F32")
        k = c.lower()
        w("static const uint64_t np_wc_%s[] = {%s};" % (k, hexs(r)))
        cases.append("{%s, LOOM_DTYPE_F32, LOOM_DTYPE_F32, LOOM_DTYPE_F32, %d, np_edge_%s, "
                     "np_w_ones, np_w_zeros, np_wc_%s}" % (cdt(c), len(cb), k, k))
        counts["where"] += 1
    w("static const uint64_t np_w_ones[32] = {%s};" % hexs([ones[0]] * 32))
    w("static const uint64_t np_w_zeros[32] = {0};")
    assert max(len(edges(c, False)) for c in LOOM_DTYPES) <= 32 and zeros is not None
    cond = [1, 0, 0, 1, 1, 0, 1, 0]
    w("static const uint64_t np_w_cond[%d] = {%s};" % (n, hexs(cond)))
    for xd in NP12:
        w("static const uint64_t np_w8_%s[%d] = {%s};"
          % (xd.lower(), n, hexs(list(np.resize(np.array(edges(xd, True), dtype=object), n)))))
    for xd in NP12:
        for yd in NP12:
            X = array_of(list(np.resize(np.array(edges(xd, True), dtype=object), n)), xd)
            Y = array_of(list(np.resize(np.array(edges(yd, True), dtype=object), n)), yd)
            res = np.where(np.array(cond, bool), X, Y)
            od = from_np(res.dtype)
            nm = "np_wr_%s_%s" % (xd.lower(), yd.lower())
            w("static const uint64_t %s[%d] = {%s};" % (nm, n, hexs(bits_of(res, od))))
            cases.append("{LOOM_DTYPE_BOOL, %s, %s, %s, %d, np_w_cond, np_w8_%s, np_w8_%s, %s}"
                         % (cdt(xd), cdt(yd), cdt(od), n, xd.lower(), yd.lower(), nm))
            counts["where"] += 1
    w("static const np_where_case_t np_where_cases[] = {\n%s\n};" % wrap(cases))
    w("#define NP_N_WHERE_CASES (sizeof np_where_cases / sizeof np_where_cases[0])")
    return w, counts


SHAPES = [(), (0,), (1,), (3,), (4,), (5,), (1, 1), (3, 4), (4, 1), (1, 4), (0, 1), (1, 0),
          (0, 4), (3, 0), (2, 3, 4), (3, 1, 1), (2, 1, 4), (1, 3, 1), (2, 0, 4), (5, 1, 1, 1),
          (1, 1, 1, 1, 1, 1, 1, 3)]
SHAPES3 = [(), (1,), (4,), (3, 1), (1, 0), (2, 3, 4), (5,)]


def shape_c(s):
    return "{%d, {%s}}" % (len(s), ",".join(str(x) for x in s) or "0")


def gen_broadcast():
    w = Writer("numpy_broadcast.h", "np.broadcast_shapes of pairs and triples of shapes.")
    w("""typedef struct np_shape {
    int32_t ndim; /* -1: NumPy raises ValueError (shapes do not broadcast) */
    int64_t dims[LOOM_MAX_DIMS];
} np_shape_t;
typedef struct np_broadcast_case {
    np_shape_t a, b, c, out; /* c.ndim == -2 for a pair */
} np_broadcast_case_t;
""")
    rows, n_err = [], 0

    def res(*ss):
        nonlocal n_err
        r, err = call(lambda: np.broadcast_shapes(*ss))
        if err:
            n_err += 1
            return "{-1, {0}}"
        return shape_c(r)

    for a in SHAPES:
        for b in SHAPES:
            rows.append("{%s, %s, {-2, {0}}, %s}" % (shape_c(a), shape_c(b), res(a, b)))
    for a in SHAPES3:
        for b in SHAPES3:
            for c in SHAPES3:
                rows.append("{%s, %s, %s, %s}" % (shape_c(a), shape_c(b), shape_c(c), res(a, b, c)))
    w("static const np_broadcast_case_t np_broadcast_cases[] = {\n%s\n};"
      % ",\n".join("    " + r for r in rows))
    w("#define NP_N_BROADCAST_CASES (sizeof np_broadcast_cases / sizeof np_broadcast_cases[0])")
    return w, (len(rows), n_err)


def main():
    check = "--check" in sys.argv
    os.makedirs(OUT, exist_ok=True)
    results = [gen_promotion(), gen_weak(), gen_ops(), gen_broadcast()]
    bad = 0
    for w, info in results:
        path = os.path.join(OUT, w.fname)
        text = w.text()
        if check:
            old = open(path).read() if os.path.exists(path) else ""
            if old != text:
                print("differs:", path)
                bad = 1
        else:
            with open(path, "w") as f:
                f.write(text)
        print("%-22s %7d bytes  %s" % (w.fname, len(text), info))
    return bad


if __name__ == "__main__":
    sys.exit(main())
