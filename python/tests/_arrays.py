"""Test data shared by the Python package's tests: random arrays of every dtype loom and
NumPy share."""
import numpy as np

DTYPES = ["bool", "int8", "int32", "int64", "uint8", "uint32", "float16", "float32", "float64",
          "complex64", "complex128"]


def sample(rng, shape, dtype):
    """Values of dtype drawn from rng: normal * 4 (complex: both parts), > 0 for bool, the
    magnitude for unsigned."""
    x = rng.standard_normal(shape) * 4
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if dtype == "bool":
        return x > 0
    if np.dtype(dtype).kind == "u":
        x = np.abs(x)
    return x.astype(dtype)
