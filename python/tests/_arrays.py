"""Test data shared by the Python package's tests: random arrays of every dtype loom and
NumPy share."""
import numpy as np
import pytest

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


def check(got, want, rtol=1e-12, atol=None):
    """got (a loom array, or a tuple or list of them) equals NumPy's want in type, shape, dtype
    and values: integers and bools exactly, floats and complex within rtol and atol (default
    rtol; NaN where NaN), or exactly with rtol 0."""
    import loom  # (here, so that importing this module needs no library)
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            check(g, w, rtol, atol)
        return
    assert isinstance(got, loom.ndarray), type(got)
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
    if rtol and w.dtype.kind in "fc":
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol if atol is None else atol,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(g, w)


@pytest.fixture(autouse=True, scope="module")
def cpu_context():
    """A CPU context for the whole module that imports this name (`from _arrays import
    cpu_context`): every test of it runs on the reference device."""
    import loom  # (here, so that importing this module needs no library)
    with loom.Context(device="cpu") as ctx:
        yield ctx
