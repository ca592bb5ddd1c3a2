"""loom.numpy against NumPy on the CPU reference device (LOOM_DEVICE selects another): values,
dtypes, tuples of results, laziness, errors and conversions. Property-based cases run where
hypothesis is installed."""
import numpy as np
import pytest

import loom
import loom.numpy as lnp

import _arrays  # (this folder's)

rng = np.random.default_rng(7)


from _arrays import cpu_context  # noqa: F401 (the module's CPU context)


def check(got, want, rtol=1e-6):
    _arrays.check(got, want, rtol)


DTYPES = _arrays.DTYPES


def sample(shape, dtype):
    return _arrays.sample(rng, shape, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["+", "-", "*", "==", "<", "/"])
def test_operators(op, dtype):
    if op == "<" and np.dtype(dtype).kind == "c":
        pytest.skip("complex numbers have no order in NumPy's operators")
    a, b = sample((3, 4), dtype), sample((4,), dtype)
    if op == "-" and dtype == "bool":
        with pytest.raises(TypeError):
            lnp.asarray(a) - lnp.asarray(b)
        return
    want = eval("a %s b" % op)
    got = eval("x %s y" % op, {"x": lnp.asarray(a), "y": lnp.asarray(b)})
    check(got, want, rtol=1e-2 if dtype == "float16" else 1e-6)


def test_python_scalars_are_weak():
    x = lnp.asarray(np.arange(4, dtype=np.float32))
    check(x * 2.5, np.arange(4, dtype=np.float32) * 2.5)
    check(1 - x, 1 - np.arange(4, dtype=np.float32))
    check(x ** 2, np.arange(4, dtype=np.float32) ** 2)
    i = lnp.asarray(np.arange(5, dtype=np.int8))
    check(i + 3, np.arange(5, dtype=np.int8) + 3)
    check(3 - i, 3 - np.arange(5, dtype=np.int8))
    check(x + True, np.arange(4, dtype=np.float32) + True)
    check(x * 1j, np.arange(4, dtype=np.float32) * 1j)
    # NumPy's own scalars are strong (NEP 50), Python's weak
    check(x + np.float64(1.5), np.arange(4, dtype=np.float32) + np.float64(1.5))
    check(lnp.add(x, np.float64(1.5)), np.add(np.arange(4, dtype=np.float32), np.float64(1.5)))
    with pytest.raises(OverflowError):
        np.asarray(i + 300)  # NumPy 2: a Python int out of int8's range
    check(i + 2**70 * 0 + 1, np.arange(5, dtype=np.int8) + 1)
    check(lnp.asarray(np.arange(3, dtype=np.uint64)) + 2**63,
          np.arange(3, dtype=np.uint64) + 2**63)


def test_fast_and_text_paths_agree():
    """The operators and ufuncs called straight through their C builders, and the same calls
    written as expression text, over enough calls that the fast path's scope is recycled."""
    a = sample((6,), "float32")
    x = lnp.asarray(a)
    y, want = x, a.copy()
    for k in range(1200):
        y = (y * 0.5 + 1.0) if k % 3 else lnp.sin(y)
        want = (want * np.float32(0.5) + np.float32(1.0)) if k % 3 else np.sin(want)
    check(y, want, rtol=1e-5)
    check(lnp.maximum(x, 0.25), np.maximum(a, 0.25))


@pytest.mark.parametrize("name", ["exp", "sin", "sqrt", "log1p", "tanh", "abs", "floor",
                                  "isnan", "sign", "square"])
def test_unary_functions(name):
    a = np.abs(sample((5, 6), "float64")) + 0.1
    check(getattr(lnp, name)(lnp.asarray(a)), getattr(np, name)(a))


@pytest.mark.parametrize("call", [
    "sum(x)", "sum(x, axis=0)", "mean(x, axis=1, keepdims=True)", "max(x, axis=(0, 2))",
    "argmax(x, axis=1)", "std(x, ddof=1)", "cumsum(x, axis=2)", "prod(x, axis=-1)",
    "median(x, axis=0)", "sort(x, axis=1)", "argsort(x, axis=2)", "quantile(x, 0.3)",
    "where(x > 0, x, 0.5 * x)", "clip(x, -1, 1)", "concatenate([x, x], axis=1)",
    "stack((x[0], x[1]))", "transpose(x, (2, 0, 1))", "reshape(x, (6, -1))", "pad(x, 1)",
    "roll(x, 2, axis=1)", "diff(x, axis=0)", "tile(x[0], (2, 1))", "einsum('ijk,ikl->ijl', x, x.swapaxes(1, 2))",
    "matmul(x, x.swapaxes(-1, -2))", "linalg.norm(x, axis=(1, 2))", "unique(x[0].round())",
    "take(x, [0, 2], axis=1)", "tril(x[0])", "isclose(x, x + 1e-9)", "nan_to_num(x / 0)",
    # dtype= of reductions and scans: the operand cast first, the result in that dtype
    "sum(x, axis=1, dtype='float32')", "cumsum(x, axis=2, dtype=np.float32)",
    "prod(x > 0, dtype='int16')", "mean(x, dtype=np.float32, keepdims=True)",
    "sum(x, dtype='int32')", "cumulative_sum(x, axis=0, dtype='float32', include_initial=True)",
    "std(x, axis=0, correction=1)", "var(x, ddof=2)", "nancumsum(x, dtype='float32')",
])
def test_functions_against_numpy(call):
    a = sample((2, 3, 4), "float64")
    want = eval("np." + call, {"np": np, "x": a})
    with np.errstate(all="ignore"):
        got = eval("lnp." + call, {"lnp": lnp, "np": np, "x": lnp.asarray(a)})
    check(got, want)


def test_methods_and_properties():
    a = sample((3, 5), "float32")
    x = lnp.asarray(a)
    assert x.shape == (3, 5) and x.dtype == np.float32 and x.ndim == 2 and x.size == 15
    check(x.T, a.T)
    check(x.sum(axis=1), a.sum(axis=1))
    check(x.astype(np.int32), a.astype(np.int32))
    check(x.reshape(5, 3), a.reshape(5, 3))
    check(x.mT, a.T)
    assert len(x) == 3
    assert float(x[1, 2]) == float(a[1, 2])
    assert bool(x[0, 0] == a[0, 0])


def test_indexing():
    a = sample((4, 5, 6), "float64")
    x = lnp.asarray(a)
    i = np.array([3, 0, 1])
    for key in [(1,), (slice(1, 3), None, Ellipsis), (Ellipsis, -1), (i,), (slice(None), i),
                (i, slice(None), i), (a > 0,), (slice(None, None, -2), 2)]:
        check(x[key], a[key])
    check(x[lnp.asarray(i)], a[i])


def test_setitem_rebinds():
    a = sample((4, 5), "float64")
    x = lnp.asarray(a)
    old = x
    x[1:3, 2] = 7.0
    a2 = a.copy()
    a2[1:3, 2] = 7.0
    check(x, a2)
    check(old, a2)  # the same Python object, rebound


def test_borrowed_arrays_survive_recycles_and_setitem(monkeypatch):
    """The fast path's results are borrowed from the context's scope: those alive when it is
    recycled (every few calls here) are retained then, dropped ones are not, and x[k] = v on a
    borrowed array rebinds it without releasing what the scope holds (which freed an array
    that a later one still read)."""
    monkeypatch.setattr(loom, "_RECYCLE", 3)
    a = np.arange(5, dtype=np.float32)
    x = lnp.asarray(a)
    uses = []
    for k in range(10):
        y = x + 1.0
        uses.append(y * 2.0)  # reads the array y is before the update
        y[0] = 9.0  # on a borrowed array, then dropped
        del y
        churn = [x * 3.0 for _ in range(4)]  # new arrays where freed ones were
    del churn
    for u in uses:
        check(u, (a + np.float32(1)) * np.float32(2))
    kept = [x * float(k) for k in range(10)]  # ten results across three recycles
    z = x - 0.5
    z[1:3] = 0.0
    for k, r in enumerate(kept):
        check(r, a * np.float32(k))
    w = a - np.float32(0.5)
    w[1:3] = 0.0
    check(z, w)


def test_copy_module():
    """copy.copy and copy.deepcopy (sklearn's clone uses the latter) give an array of the same
    values bound on its own: an update of one leaves the other."""
    import copy
    a = sample((3, 4), "float32")
    x = lnp.asarray(a) * 2.0
    c, d = copy.copy(x), copy.deepcopy({"k": x})["k"]
    x[0] = 0.0
    check(c, a * np.float32(2))
    check(d, a * np.float32(2))
    want = a * np.float32(2)
    want[0] = 0
    check(x, want)


def test_several_results():
    a = sample((5, 4), "float64")
    u, s, vh = lnp.linalg.svd(lnp.asarray(a), full_matrices=False)
    check(s, np.linalg.svd(a, full_matrices=False)[1])
    check((u * s[None, :]) @ vh, a)
    w, v = lnp.linalg.eigh(lnp.asarray(a.T @ a))
    check(w, np.linalg.eigh(a.T @ a)[0])
    q, r = lnp.linalg.qr(lnp.asarray(a))
    check(q @ r, a)


def test_fft_and_complex():
    a = sample((16,), "complex128")
    check(lnp.fft.fft(lnp.asarray(a)), np.fft.fft(a))
    check(lnp.fft.irfft(lnp.fft.rfft(lnp.asarray(a.real))), np.fft.irfft(np.fft.rfft(a.real)))
    check(lnp.abs(lnp.asarray(a)), np.abs(a))
    check(lnp.asarray(a).real, a.real)


def test_submodules_hold_only_their_own_functions():
    # lnp.fft once held the linalg extension's names (svdvals, vecdot, ...), bound to
    # "fft.svdvals", which is no function
    for sub, np_sub in ((lnp.fft, np.fft), (lnp.linalg, np.linalg)):
        public = {n for n in dir(sub) if not n.startswith("_")}
        assert public <= set(dir(np_sub)), public - set(dir(np_sub))
    assert {"fft", "fft2", "rfftn", "fftshift", "fftfreq"} <= set(dir(lnp.fft))
    assert {"svdvals", "vecdot", "matrix_norm", "solve", "eigh"} <= set(dir(lnp.linalg))


def test_lazy_until_needed():
    ctx = loom.get_context()
    x = lnp.asarray(sample((100,), "float32"))
    before = ctx.stats()["evals"]
    y = x
    for k in range(50):
        y = y * 1.01 + 0.001 if k % 2 else lnp.sin(y)
    assert ctx.stats()["evals"] == before  # recorded, nothing run
    np.asarray(y)
    assert ctx.stats()["evals"] == before + 1  # one eval for the whole chain
    a, b = lnp.exp(x), lnp.cos(x)
    loom.eval(a, b)
    assert ctx.stats()["evals"] == before + 2


def test_errors_become_exceptions():
    with pytest.raises(ValueError, match="broadcast"):
        lnp.ones((2, 3)) + lnp.ones((4,))
    with pytest.raises(lnp.linalg.LinAlgError, match="Singular matrix"):
        np.asarray(lnp.linalg.inv(lnp.zeros((3, 3))))
    with pytest.raises(IndexError):
        np.asarray(lnp.take(lnp.arange(3), lnp.asarray([5])))
    with pytest.raises(TypeError):
        lnp.asarray(np.array(["a"]))
    with pytest.raises(AttributeError):
        lnp.ones(3).no_such_method()
    check(lnp.ones(3) * 2, np.ones(3) * 2)  # the context goes on after an error


def test_contexts_and_conversions():
    with loom.Context(device="cpu") as c2:
        x = lnp.arange(5)
        assert x.context is c2
    with pytest.raises(ValueError, match="unknown device"):
        loom.Context(device="tpu")
    a = sample((3, 3), "float32")
    x = lnp.asarray(a)
    check(lnp.from_dlpack(a), a)
    np.testing.assert_array_equal(np.from_dlpack(x), a)
    assert x.__array_namespace__() is lnp
    assert lnp.__array_api_version__ == "2024.12"


def test_a_context_dies_with_its_last_array_not_in_a_cycle():
    # A context is freed by reference counting when its last array goes, not later by the
    # cycle collector, whose finalisers run in any order (a CuPy stream given as stream=
    # could be destroyed before the context that runs on it).
    import gc
    import weakref
    gc.disable()
    try:
        c = loom.Context(device="cpu")
        with c:
            x = lnp.arange(5.0)
            y = x * 2 + 1  # fast-path results, borrowed from the context's scope
        gone = weakref.ref(c)
        del c
        assert gone() is not None  # x and y keep it
        np.testing.assert_array_equal(np.asarray(y), np.arange(5.0) * 2 + 1)
        del x, y
        assert gone() is None
    finally:
        gc.enable()


def test_every_table_function_is_exposed():
    from loom import _lib
    for name, params, method in _lib.functions():
        if name.startswith("random."):  # numpy.random's Generator methods
            assert callable(getattr(lnp.random.Generator, name[7:])), name
            continue
        f = getattr(lnp, name)
        if name == "fft":  # NumPy's np.fft is the module; the function is np.fft.fft
            f = f.fft
        assert callable(f), name


try:
    from hypothesis import given, settings, strategies as st
    import hypothesis.extra.numpy as hnp
except ImportError:  # property-based cases need hypothesis
    given = None

if given is not None:
    @settings(max_examples=40, deadline=None)
    @given(hnp.arrays(st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
                      hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
                      elements={"allow_nan": False, "allow_infinity": False,
                                "min_value": -100, "max_value": 100}),
           st.sampled_from(["add", "multiply", "maximum", "subtract"]))
    def test_property_binary_with_self_reversed(a, name):
        b = a[::-1] if a.ndim else a
        want = getattr(np, name)(a, b)
        check(getattr(lnp, name)(lnp.asarray(a), lnp.asarray(b)), want)

    @settings(max_examples=40, deadline=None)
    @given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
                      elements={"allow_nan": False, "min_value": -1e6, "max_value": 1e6}),
           st.sampled_from(["sum", "max", "min", "mean", "cumsum"]))
    def test_property_reductions_along_last_axis(a, name):
        check(getattr(lnp, name)(lnp.asarray(a), axis=-1), getattr(np, name)(a, axis=-1),
              rtol=1e-9)


def test_inspection_namespace():
    info = lnp.__array_namespace_info__()
    assert info.capabilities()["boolean indexing"] is True
    assert info.default_dtypes()["real floating"] == np.float64
    assert set(info.dtypes(kind="complex floating")) == {"complex64", "complex128"}
    assert "int8" in info.dtypes(kind=("signed integer", "bool")) and "bool" in info.dtypes()
    assert info.default_device() == loom.get_context().device
    assert lnp.broadcast_shapes((2, 1), (3,)) == (2, 3) and lnp.bool is np.bool_
    assert lnp.finfo(lnp.float32).eps == np.finfo(np.float32).eps
    assert lnp.iinfo(lnp.ones(2, dtype=lnp.int8)).max == 127


@pytest.mark.parametrize("script,arg", [("first_program.py", "2000"),
                                        ("transfer_cost.py", "4096"),
                                        ("matmul_speedup.py", "48")])
def test_examples_run(script, arg):
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "examples", "python", script)
    env = dict(os.environ, LOOM_DEVICE="cpu",
               PYTHONPATH=os.path.join(here, "..") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, path, arg], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert "device: CPU reference" in p.stdout


try:
    import array_api_strict as xp
except ImportError:  # the differential cases need array-api-strict
    xp = None


@pytest.mark.skipif(xp is None, reason="array-api-strict is not installed")
@pytest.mark.parametrize("call", [
    "sum(x, axis=1)", "mean(x)", "permute_dims(x, (1, 0))", "concat([x, x], axis=0)",
    "matrix_transpose(x)", "astype(x, i32)", "cumulative_sum(x, axis=0, include_initial=True)",
    "unique_values(round(x))", "argsort(x, axis=1, descending=True)", "clip(x, -0.5, 0.5)",
    "vecdot(x, x)", "linalg.vector_norm(x, ord=3)", "where(x > 0, x, 0.0)", "sort(x, axis=0)",
    "searchsorted(sort(x[:, 0]), x[0, :])", "count_nonzero(x > 0, axis=0)", "tile(x, (2, 1))",
    "flip(x, axis=1)", "roll(x, 3)", "moveaxis(x, 0, 1)", "nextafter(x, 1.0)", "hypot(x, x)",
    "std(x, correction=1)", "var(x, axis=0, correction=0.5)", "unique_all(round(x))[3]",
    "unique_inverse(round(x))[1]", "cumulative_prod(x, axis=0, include_initial=True)",
    "concat((x, x), axis=None)", "unstack(x, axis=1)[2]", "linspace(0, 1, 5, endpoint=False)",
    "roll(x, (1, 2), axis=(0, 1))", "argmin(x, axis=0, keepdims=True)", "atan2(x, x + 1)",
])
def test_against_array_api_strict(call):
    """The standard's own reference: the same call on array-api-strict and on loom.numpy."""
    a = sample((4, 5), "float64")
    ns_x = {"x": xp.asarray(a), "i32": xp.int32}
    names = {k: getattr(xp, k) for k in dir(xp) if not k.startswith("_")}
    names["linalg"] = xp.linalg
    want = np.asarray(eval(call, names, ns_x))
    got = eval(call, {k: getattr(lnp, k) for k in dir(lnp) if not k.startswith("_")},
               {"x": lnp.asarray(a), "i32": lnp.int32})
    check(got, want)


def test_array_api_keywords_and_named_results():
    a = sample((3, 4), "float64")
    x = lnp.asarray(a)
    check(lnp.zeros((2, 3), device=None), np.zeros((2, 3)))
    check(lnp.arange(5, device=x.device), np.arange(5))
    check(lnp.astype(x, lnp.float32, copy=False), a.astype(np.float32))
    check(lnp.reshape(x, (4, 3), copy=None), a.reshape(4, 3))
    check(lnp.asarray([1, 2], copy=True), np.array([1, 2]))
    with pytest.raises(ValueError, match="device"):
        lnp.ones(2, device="tpu:0")
    u = lnp.unique_all(lnp.round(x))
    want = np.unique_all(np.round(a))
    check(u.values, want.values)
    check(u.counts, want.counts)
    check(u.inverse_indices, want.inverse_indices)
    r = lnp.linalg.svd(x, full_matrices=False)
    check(r.S, np.linalg.svd(a).S)
    check(lnp.linalg.slogdet(x[:, :3]).logabsdet, np.linalg.slogdet(a[:, :3]).logabsdet)
    check(lnp.linalg.qr(x).R @ lnp.eye(4), np.linalg.qr(a).R @ np.eye(4))
    assert lnp.result_type(lnp.float32, x) == np.float64
    assert lnp.result_type(lnp.asarray(np.ones(2, np.float32)), 1.0) == np.float32


def test_complex_sorts_searches_and_scatters():
    z = sample((12,), "complex128")
    z[[2, 7]] = complex(np.nan, 1)
    z[5] = complex(1, np.nan)
    x = lnp.asarray(z)
    check(lnp.sort(x), np.sort(z))
    check(lnp.argsort(x, stable=True), np.argsort(z, stable=True))
    s = np.sort(z)
    check(lnp.searchsorted(lnp.asarray(s), x[:5]), np.searchsorted(s, z[:5]))
    check(lnp.isin(x, x[::3]), np.isin(z, z[::3]))
    y = lnp.asarray(z)
    y[[0, 3, 0]] = lnp.asarray([1j, 2, 3 + 3j])
    w = z.copy()
    w[[0, 3, 0]] = [1j, 2, 3 + 3j]
    check(y, w)


def test_numpy_reads_shapes_slices_and_copies_as_numpy_does():
    n = lnp.asarray(3)  # a 0-d integer array, as library code computes counts
    check(lnp.ones([2, 3]), np.ones([2, 3]))  # a list is a shape here, not an array
    check(lnp.zeros((n, np.int64(2))), np.zeros((3, 2)))
    check(lnp.full(n, 1.5), np.full(3, 1.5))
    check(lnp.broadcast_to(lnp.asarray([1.0, 2.0]), (np.int32(2), 2)),
          np.broadcast_to([1.0, 2.0], (2, 2)))
    x = lnp.asarray(np.arange(6.0))
    check(x.reshape(np.int64(2), n), np.arange(6.0).reshape(2, 3))  # methods too
    check(x.reshape([n, 2]).sum(axis=np.int64(0)), np.arange(6.0).reshape(3, 2).sum(axis=0))
    check(x[:n], np.arange(6.0)[:3])  # a slice bound through operator.index
    check(x[n - 1:lnp.asarray(5):np.int64(2)], np.arange(6.0)[2:5:2])
    # asarray(copy=True) gives a new object: an update of it leaves the original
    y = lnp.asarray(x, copy=True)
    assert y is not x and lnp.asarray(x) is x
    y[0] = 9
    check(x, np.arange(6.0))
    check(y, np.r_[9.0, np.arange(1.0, 6.0)])


def test_array_api_dispatch_example():
    """scikit-learn's and SciPy's Array API paths on loom arrays agree with NumPy (where both
    are installed)."""
    import importlib.util
    import os
    import subprocess
    import sys
    if not (importlib.util.find_spec("sklearn") and importlib.util.find_spec("scipy")):
        pytest.skip("scikit-learn and SciPy are not installed")
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "examples", "python", "array_api_dispatch.py")
    env = dict(os.environ, LOOM_DEVICE="cpu", SCIPY_ARRAY_API="1",
               PYTHONPATH=os.path.join(here, "..") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, path, "2000"], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "DIFFERS" not in p.stdout and p.stdout.count("agrees with NumPy") == 17


# ---- what the official Array API test suite (array-api-tests) found ----

def test_signatures_show_the_table_parameters():
    import inspect
    P = inspect.Parameter
    sig = inspect.signature(lnp.sum)
    assert list(sig.parameters) == ["a", "axis", "dtype", "out", "keepdims"]
    sig = inspect.signature(lnp.meshgrid)
    assert sig.parameters["xi"].kind == P.VAR_POSITIONAL
    assert sig.parameters["indexing"].kind == P.KEYWORD_ONLY
    for name in ("ones", "zeros_like", "arange", "eye", "linspace", "astype"):
        assert inspect.signature(getattr(lnp, name)).parameters["device"].kind == P.KEYWORD_ONLY
    assert "copy" in inspect.signature(lnp.reshape).parameters
    assert list(inspect.signature(lnp.linalg.svd).parameters)[0] == "a"
    assert "prepend" in inspect.signature(lnp.diff).parameters


def test_variadic_broadcast_arrays_and_meshgrid():
    xs = [sample((3,), "float32"), sample((1,), "float32"), sample((3, 1), "float64")]
    lx = [lnp.asarray(x) for x in xs]
    got = lnp.broadcast_arrays(*lx, 2, *lx)  # more than four, a number among them
    want = np.broadcast_arrays(*xs, 2, *xs)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        check(g, w)
    grids = [sample((k,), "int32") for k in (2, 3, 1, 2, 2)]
    for ij in ("xy", "ij"):
        got = lnp.meshgrid(*[lnp.asarray(g) for g in grids], indexing=ij)
        for g, w in zip(got, np.meshgrid(*grids, indexing=ij)):
            check(g, w)
    assert lnp.broadcast_arrays() == () and lnp.meshgrid() == ()
    with pytest.raises(ValueError, match="at most 8"):
        lnp.meshgrid(*[lnp.asarray(grids[0])] * 9)


def test_data_type_functions_give_python_objects():
    assert lnp.can_cast(np.int8, np.float32) is True
    assert lnp.can_cast("float64", np.float32) is False
    assert lnp.can_cast(np.float64, np.float32, "same_kind") is True
    assert lnp.can_cast(lnp.asarray(np.arange(3)), np.float64) is True
    with pytest.raises(ValueError, match="casting"):
        lnp.can_cast(np.int8, np.int16, "sometimes")
    assert lnp.isdtype(np.uint8, "integral") is True
    assert lnp.isdtype(np.uint8, np.uint8) is True
    assert lnp.isdtype(np.float32, ("bool", np.float32)) is True
    assert lnp.isdtype(np.float32, ("bool", "integral")) is False
    with pytest.raises(ValueError, match="kind"):
        lnp.isdtype(np.float32, "floaty")


def test_clip_without_bounds_and_take_along_the_last_axis():
    x = sample((4, 5), "float32")
    check(lnp.clip(lnp.asarray(x)), np.clip(x))
    check(lnp.clip(lnp.asarray(x), None, None), x)
    i = np.argsort(x, axis=-1)
    check(lnp.take_along_axis(lnp.asarray(x), lnp.asarray(i)), np.take_along_axis(x, i, -1))
    check(lnp.take_along_axis(lnp.asarray(x), lnp.asarray(i.ravel()), axis=None),
          np.take_along_axis(x, i.ravel(), axis=None))


def test_array_tolerances_of_pinv_and_matrix_rank():
    a = sample((3, 5, 4), "float64")
    a[1] = 0
    a[2, :, 1] = a[2, :, 0]
    t = np.array([1e-6, 0.5, 1e-3])
    check(lnp.linalg.pinv(lnp.asarray(a), rtol=lnp.asarray(t)), np.linalg.pinv(a, rtol=t))
    check(lnp.linalg.pinv(lnp.asarray(a), rcond=t.tolist()), np.linalg.pinv(a, rcond=t))
    check(lnp.linalg.matrix_rank(lnp.asarray(a), rtol=lnp.asarray(t)),
          np.linalg.matrix_rank(a, rtol=t))
    tol = np.array([0.1, 0.0, 10.0])
    check(lnp.linalg.matrix_rank(lnp.asarray(a), tol=lnp.asarray(tol)),
          np.linalg.matrix_rank(a, tol=tol))
    empty = lnp.asarray(np.zeros((0, 1, 1), np.float32))
    none = lnp.asarray(np.zeros(0, np.float32))
    assert lnp.linalg.pinv(empty, rtol=none).shape == (0, 1, 1)
    assert lnp.linalg.matrix_rank(empty, rtol=none).shape == (0,)
    with pytest.raises(ValueError, match="broadcast"):
        lnp.linalg.pinv(lnp.asarray(a), rtol=lnp.asarray(np.ones(2)))
    with pytest.raises(ValueError, match="both set"):
        lnp.linalg.matrix_rank(lnp.asarray(a), tol=lnp.asarray(tol), rtol=0.1)


def test_diff_prepend_append_and_trace_dtype():
    x = sample((3, 4), "float64")
    lx = lnp.asarray(x)
    check(lnp.diff(lx, prepend=0), np.diff(x, prepend=0))
    check(lnp.diff(lx, axis=0, prepend=1, append=2), np.diff(x, axis=0, prepend=1, append=2))
    p = np.ones((3, 2), np.int32)
    check(lnp.diff(lx, n=2, prepend=lnp.asarray(p)), np.diff(x, n=2, prepend=p))
    u = (np.arange(1, 10, dtype=np.uint8) * 40).reshape(3, 3)
    for d in (np.uint8, np.int16, np.float32, None):
        check(lnp.linalg.trace(lnp.asarray(u), dtype=d), np.linalg.trace(u, dtype=d))
    check(lnp.trace(lnp.asarray(u.astype(np.float64)), dtype=np.int8),
          np.trace(u.astype(np.float64), dtype=np.int8))


def test_axis_errors_are_numpys_axiserror():
    with pytest.raises(np.exceptions.AxisError):
        lnp.expand_dims(lnp.asarray(np.array(False)), axis=-2)
    with pytest.raises(IndexError):
        lnp.sum(lnp.ones((2, 3)), axis=5)
    with pytest.raises(ValueError):
        lnp.moveaxis(lnp.ones((2, 3)), 2, 0)


@pytest.mark.parametrize("xs,ms", [((1,), (0,)), ((3,), (0,)), ((1, 3), (0, 3)), ((1, 3), (0,)),
                                   ((2, 1), (2, 0)), ((2, 3, 4), (0, 3)), ((1,), (2,)),
                                   ((0,), (1,)), ((), (1,)), ((2, 3), (2, 3, 1))])
def test_boolean_index_shapes_as_numpy(xs, ms):
    x = np.arange(int(np.prod(xs))).reshape(xs)
    m = np.zeros(ms, bool)
    try:
        want = x[m]
    except IndexError:
        with pytest.raises(IndexError):
            lnp.asarray(x)[lnp.asarray(m)]
        return
    check(lnp.asarray(x)[lnp.asarray(m)], want)


def test_asarray_without_a_copy_is_the_array():
    x = lnp.asarray(np.arange(4, dtype=np.int32))
    assert lnp.asarray(x, dtype=np.int32, copy=False) is x
    assert lnp.asarray(x, dtype="int32") is x
    y = lnp.asarray(x, copy=True)
    x[0] = 7
    assert int(y[0]) == 0 and int(x[0]) == 7
    with pytest.raises(ValueError, match="copy"):
        lnp.asarray(x, dtype=np.float32, copy=False)


def test_diagonal_offsets_past_int64():
    for k in (2 ** 63, -2 ** 63 - 1, 2 ** 70 + 3, -2 ** 70 - 3):
        check(lnp.eye(3, k=k), np.eye(3, k=k))
        m = np.arange(4).reshape(2, 2)
        check(lnp.rot90(lnp.asarray(m), k=k), np.rot90(m, k=k))
    assert lnp.eye(0, k=2 ** 63).shape == (0, 0)


def test_dtype_names_aliases_and_bfloat16_without_numpy_dtypes():
    x = lnp.asarray(np.arange(3, dtype=np.float32))
    b = lnp.asarray(x, dtype="bfloat16")  # (no ml_dtypes needed to cast)
    check(lnp.asarray(b, dtype=np.float32), np.arange(3, dtype=np.float32))
    assert lnp.asarray(x, dtype="f4") is x
    assert lnp.can_cast("f8", "c8") is False and lnp.can_cast("i4", "f8") is True
    assert lnp.can_cast(np.array([1], np.int8), np.int16) is True
    assert lnp.can_cast(b, np.float32) is True
    with pytest.raises(TypeError, match="Python ints"):
        lnp.can_cast(True, np.int8)


def test_index_errors_and_pinv_default_tolerance_of_complex64():
    x = lnp.asarray(np.arange(6.0).reshape(2, 3))
    for key in (5, (0, 5), (0, 0, 0), (Ellipsis, np.array([True, False]))):
        with pytest.raises(IndexError):
            x[key]
    a = np.diag([1, 2e-7, 1]).astype(np.complex64)  # float32's eps decides, as NumPy's
    check(lnp.linalg.pinv(lnp.asarray(a), rtol=None), np.linalg.pinv(a, rtol=None))


def test_pinv_tolerance_rules_as_numpy():
    a = lnp.asarray(sample((3, 4, 4), "float64"))
    with pytest.raises(ValueError, match="both set"):  # rtol=None counts as set, as NumPy's
        lnp.linalg.pinv(a, rcond=0.3, rtol=None)
    with pytest.raises(ValueError, match="both set"):
        lnp.linalg.pinv(a, rcond=lnp.ones(3), rtol=0.1)
    with pytest.raises(ValueError, match="do not broadcast"):  # one a matrix at most
        lnp.linalg.pinv(a[0], rtol=lnp.asarray(np.array([0.1])))
    assert lnp.linalg.pinv(a, rtol=lnp.asarray(np.array([0.1]))).shape == (3, 4, 4)


def test_matrix_rank_of_an_empty_stack_broadcasts_the_tolerance():
    z = np.zeros((2, 0, 3))
    for kw in (dict(tol=np.array([[1.0], [2.0]])), dict(rtol=np.array([[1.0], [2.0]])), {}):
        got = lnp.linalg.matrix_rank(lnp.asarray(z), **{k: lnp.asarray(v) for k, v in kw.items()})
        check(got, np.linalg.matrix_rank(z, **kw))


def test_an_empty_broadcast_index_checks_nothing():
    a = np.arange(6).reshape(2, 3)
    empty = np.array([], dtype=np.int64)
    check(lnp.asarray(a)[lnp.asarray(empty), [7]], a[empty, [7]])
    z = np.zeros((2, 0))
    check(lnp.asarray(z)[lnp.asarray(np.zeros(0, bool)), [0]], z[np.zeros(0, bool), [0]])
    with pytest.raises(IndexError, match="index 7"):  # (checked when evaluated)
        np.asarray(lnp.asarray(a)[lnp.asarray(np.array([1])), [7]])


def test_linspace_of_one_element_with_the_endpoint():
    for start, stop in ((0.0, 0.0), (0, 5), (-2.5, 7), (2, np.inf)):
        with np.errstate(invalid="ignore"):
            want = np.linspace(start, stop, 1)
        check(lnp.linspace(start, stop, 1), want)
    check(lnp.linspace(3, 5, 1, dtype=np.int32), np.linspace(3, 5, 1, dtype=np.int32))
