#!/usr/bin/env python3
"""Writes the .npy fixtures of tests/unit/test_npy.c with NumPy itself (np.save and
np.lib.format.write_array), so that loom's reader is checked against the real format.

Every array holds element k (in C order) = (3k - 5) cast to the dtype, except bool (k % 3 != 0),
the floats ((3k - 5) / 4) and the complex dtypes ((3k - 5) / 4 + (k - 7) / 8 j); bfloat16 has no NumPy dtype, so its fixture is the bfloat16 bit
patterns viewed as '|V2' (what np.save writes for ml_dtypes.bfloat16). test_npy.c computes the
same values. Run from the repository root: python3 tools/gen_npy_fixtures.py
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "npy")
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
SHAPE = (2, 3, 4)


def values(dtype, shape):
    n = int(np.prod(shape))
    k = np.arange(n, dtype=np.int64)
    if dtype == "bool":
        a = (k % 3) != 0
    elif dtype == "bfloat16":
        f = ((3 * k - 5) / 4).astype(np.float32)
        a = (f.view(np.uint32) >> 16).astype("<u2").view("|V2")  # exact: values need 7 bits
    elif dtype.startswith("complex"):
        a = ((3 * k - 5) / 4 + 1j * ((k - 7) / 8)).astype(dtype)
    elif dtype.startswith("float"):
        a = ((3 * k - 5) / 4).astype(dtype)
    else:
        a = (3 * k - 5).astype(dtype)  # two's complement wrap for unsigned
    return a.reshape(shape)


def write(name, arr, version=None):
    path = os.path.join(OUT, name + ".npy")
    with open(path, "wb") as f:
        np.lib.format.write_array(f, arr, version=version, allow_pickle=False)


def main():
    os.makedirs(OUT, exist_ok=True)
    for d in DTYPES:
        a = values(d, SHAPE)
        write(d + "_c", a, (1, 0))
        write(d + "_f", np.asfortranarray(a), (1, 0))
        if a.dtype.itemsize > 1 and d != "bfloat16":
            write(d + "_be", a.astype(a.dtype.newbyteorder(">")), (1, 0))
    f32 = values("float32", SHAPE)
    write("float32_v2", f32, (2, 0))
    write("float32_v3", f32, (3, 0))
    write("float64_be_f_v2", np.asfortranarray(values("float64", SHAPE).astype(">f8")), (2, 0))
    write("float64_0d", np.array(-1.25), (1, 0))
    write("int32_empty", np.zeros((0, 3), np.int32), (1, 0))
    write("int16_1d", values("int16", (5,)), (1, 0))


if __name__ == "__main__":
    main()
