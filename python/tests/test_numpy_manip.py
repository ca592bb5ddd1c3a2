"""loom.numpy's stacking, splitting and rearranging functions against NumPy on the CPU reference
device: hstack, vstack, dstack, column_stack, block, hsplit/vsplit/dsplit, fliplr/flipud,
rollaxis, append, insert, delete, resize, trim_zeros, diagflat, identity: values, dtypes and
shapes over several dtypes and shapes (empty and 0-d ones where NumPy takes them), and the
Python types of their errors."""
import warnings

import numpy as np
import pytest

import loom
import loom.numpy as lnp

import _arrays  # (this folder's)

rng = np.random.default_rng(11)


from _arrays import cpu_context  # noqa: F401 (the module's CPU context)


def check(got, want, rtol=0):
    """Equal values (these functions move values; pad's mean, median and ramps compute, to
    within rtol)."""
    _arrays.check(got, want, rtol)


def sample(shape, dtype="float64"):
    return _arrays.sample(rng, shape, dtype)


DTYPES = ["bool", "int8", "uint32", "int64", "float16", "float32", "complex128"]
SHAPES = [(), (0,), (4,), (2, 3), (0, 3), (2, 3, 2)]


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack"])
@pytest.mark.parametrize("shape", SHAPES)
def test_stacks(name, shape):
    if name == "column_stack" and len(shape) > 2:
        shape = shape[:2]
    a, b = sample(shape, "int8"), sample(shape, "float32")
    if name == "hstack" and len(shape) == 1:
        b = sample((3,), "float32")  # 1-D arrays join end to end: lengths may differ
    want = getattr(np, name)((a, b))
    check(getattr(lnp, name)((lnp.asarray(a), lnp.asarray(b))), want)
    check(getattr(lnp, name)([lnp.asarray(a), lnp.asarray(b), lnp.asarray(a)]),
          getattr(np, name)([a, b, a]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_stacks_dtypes(dtype):
    a = sample((2, 3), dtype)
    other = {"hstack": a[:, :1], "column_stack": a[:, :1], "vstack": a[:1], "dstack": a}
    for name, b in other.items():
        check(getattr(lnp, name)([lnp.asarray(a), lnp.asarray(b)]), getattr(np, name)([a, b]))
    check(lnp.hstack([lnp.asarray(a), lnp.asarray(a)], dtype="complex128"),
          np.hstack([a, a], dtype="complex128"))


def test_stacks_of_numpy_arrays_of_several_shapes():
    a, b, c = sample((2,), "int8"), sample((3,), "float32"), sample((2, 2), "int64")
    check(lnp.hstack([a, b]), np.hstack([a, b]))
    check(lnp.concatenate([a, b]), np.concatenate([a, b]))
    check(lnp.vstack([a, c]), np.vstack([a, c]))


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_stacks_casting_without_dtype(casting):
    # casting= alone checks each array against the common dtype, as NumPy's
    for d1, d2 in (("float64", "float32"), ("int8", "int8"), ("int64", "uint64"),
                   ("bool", "int8")):
        a, b = sample((2, 2), d1), sample((2, 2), d2)
        for name in ("hstack", "vstack"):
            for pair in ([lnp.asarray(a), lnp.asarray(b)], [a, b]):  # (NumPy's arrays too)
                try:
                    want = getattr(np, name)([a, b], casting=casting)
                except TypeError:
                    with pytest.raises(TypeError):
                        getattr(lnp, name)(pair, casting=casting)
                    continue
                check(getattr(lnp, name)(pair, casting=casting), want)


def test_stack_errors():
    with pytest.raises(ValueError, match="need at least one array"):
        lnp.hstack([])
    with pytest.raises(ValueError):
        lnp.vstack([lnp.arange(2), lnp.arange(3)])
    with pytest.raises(TypeError):
        lnp.vstack([lnp.arange(2.0)], dtype="int8")


def test_block():
    a, b = sample((2, 2), "int32"), sample((2, 1), "float32")
    c, d = sample((3,), "int8"), sample((1, 3), "int64")
    la, lb, lc, ld = (lnp.asarray(x) for x in (a, b, c, d))
    check(lnp.block([[la, lb], [lc]]), np.block([[a, b], [c]]))
    check(lnp.block([[la, lb], [ld]]), np.block([[a, b], [d]]))
    check(lnp.block([lc, lc]), np.block([c, c]))
    check(lnp.block([[[lc]], [[lc]]]), np.block([[[c]], [[c]]]))  # depth past the arrays' ndim
    check(lnp.block(la), np.block(a))
    e = sample((0, 2))
    check(lnp.block([[lnp.asarray(e)], [la]]), np.block([[e], [a]]))
    # NumPy arrays in the lists are blocks too, not rows of one array
    check(lnp.block([a, a]), np.block([a, a]))
    check(lnp.block([[a, lb], [d]]), np.block([[a, b], [d]]))
    with pytest.raises(ValueError, match="cannot be empty"):
        lnp.block([[la], []])
    with pytest.raises(ValueError, match="List depths are mismatched"):
        lnp.block([[la], lb])
    with pytest.raises(ValueError, match="must match exactly"):
        lnp.block([[la, lc]])


@pytest.mark.parametrize("name,axis,shape", [
    ("hsplit", 1, (2, 6)), ("hsplit", 0, (6,)), ("vsplit", 0, (4, 3)), ("dsplit", 2, (2, 1, 4)),
    ("hsplit", 1, (0, 4))])
def test_splits(name, axis, shape):
    a = sample(shape)
    x = lnp.asarray(a)
    n = shape[axis]
    for arg in (2, [1, 3], [n + 2], []):
        got, want = getattr(lnp, name)(x, arg), getattr(np, name)(a, arg)
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)


def test_split_errors():
    with pytest.raises(ValueError, match="hsplit only works"):
        lnp.hsplit(lnp.asarray(np.float64(1)), 2)
    with pytest.raises(ValueError, match="vsplit only works"):
        lnp.vsplit(lnp.arange(4), 2)
    with pytest.raises(ValueError, match="dsplit only works"):
        lnp.dsplit(lnp.ones((2, 2)), 2)
    with pytest.raises(ValueError, match="equal division"):
        lnp.hsplit(lnp.arange(5), 2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_flips_and_rollaxis(dtype):
    a = sample((2, 3, 4), dtype)
    x = lnp.asarray(a)
    check(lnp.fliplr(x), np.fliplr(a))
    check(lnp.flipud(x), np.flipud(a))
    check(lnp.flipud(x[0, 0]), np.flipud(a[0, 0]))
    for axis, start in [(2, 0), (0, 2), (1, 3), (-1, -3), (0, 0), (1, 1), (2, 3)]:
        check(lnp.rollaxis(x, axis, start), np.rollaxis(a, axis, start))
    check(lnp.rollaxis(x, 2), np.rollaxis(a, 2))


def test_view_errors():
    with pytest.raises(ValueError, match="Input must be >= 2-d."):
        lnp.fliplr(lnp.arange(3))
    with pytest.raises(ValueError, match="Input must be >= 1-d."):
        lnp.flipud(lnp.asarray(np.int8(3)))
    with pytest.raises(np.exceptions.AxisError):
        lnp.rollaxis(lnp.ones((2, 3)), 0, 5)
    with pytest.raises(np.exceptions.AxisError):
        lnp.rollaxis(lnp.ones((2, 3)), 3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_append(dtype):
    a, v = sample((2, 3), dtype), sample((1, 3), "int16")
    x, lv = lnp.asarray(a), lnp.asarray(v)
    check(lnp.append(x, lv), np.append(a, v))
    check(lnp.append(x, lv, axis=0), np.append(a, v, axis=0))
    check(lnp.append(x, lnp.asarray(a[:, :0]), axis=1), np.append(a, a[:, :0], axis=1))
    check(lnp.append(lnp.asarray(np.float32(2)), lv), np.append(np.float32(2), v))
    with pytest.raises(ValueError):
        lnp.append(x, lnp.arange(3), axis=0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_insert(dtype):
    a = sample((3, 4), dtype)
    x = lnp.asarray(a)
    v = sample((3,), dtype)
    for obj, values, axis in [
            (1, v, 1), (-1, v, 1), (4, v, 1), (0, v[:1], 0), (2, 5, None), ([1], v, 1),
            ([1], v[:, None], 1), ([0, 2], v[:2], None), ([4, -4, 2, 2], v[:1], 1),
            ([-7, 1], v[:2], None), ([], v[:1], 0), (slice(1, 3), v[:2], None),
            (slice(None, None, -2), v[:2], 1), (slice(5, 9), v[:1], 1),
            (np.array([True, False, True, False]), v[:1], 1),
            (np.array([False, True, False]), v[:1], 0), (np.int64(2), v, 1)]:
        want = np.insert(a, obj, values, axis=axis)
        got = lnp.insert(x, obj, lnp.asarray(values) if isinstance(values, np.ndarray)
                         else values, axis=axis)
        check(got, want)
    e = sample((0,), dtype)
    check(lnp.insert(lnp.asarray(e), 0, lnp.asarray(v)), np.insert(e, 0, v))
    check(lnp.insert(lnp.asarray(e), [0, 0], lnp.asarray(v[:2])), np.insert(e, [0, 0], v[:2]))


def test_insert_errors():
    x = lnp.arange(5)
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 0 with size 5"):
        lnp.insert(x, 6, 1)
    with pytest.raises(IndexError):
        lnp.insert(x, [-6], 1)
    with pytest.raises(IndexError):
        np.asarray(lnp.insert(x, [7, 1], 1))  # found when the positions are evaluated
    with pytest.raises(IndexError):
        lnp.insert(x, 1.5, 1)
    with pytest.raises(ValueError, match="one dimensional or scalar"):
        lnp.insert(x, [[1, 2]], 1)
    with pytest.raises(np.exceptions.AxisError):
        lnp.insert(x, 1, 1, axis=1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_delete(dtype):
    a = sample((4, 5), dtype)
    x = lnp.asarray(a)
    for obj, axis in [
            (1, 1), (-1, 0), (7, None), ([0, -1, 0], 1), ([[0, 2]], 0), ([], 1),
            (np.array([True, False, True, False]), 0), (slice(1, 4), 1), (slice(None, None, 2), 0),
            (slice(8, 1, -3), None), (slice(4, 1), 1), (slice(-2, None), 0), (slice(None), 1),
            (np.int64(-2), 1), (np.array([4]), 1)]:
        check(lnp.delete(x, obj, axis=axis), np.delete(a, obj, axis=axis))
    e = sample((0, 3), dtype)
    check(lnp.delete(lnp.asarray(e), slice(None), axis=0), np.delete(e, slice(None), axis=0))
    check(lnp.delete(lnp.asarray(e), 1, axis=1), np.delete(e, 1, axis=1))


def test_delete_errors():
    x = lnp.arange(5)
    with pytest.raises(IndexError, match="index -6 is out of bounds for axis 0 with size 5"):
        lnp.delete(x, -6)
    with pytest.raises(IndexError):
        lnp.delete(x, [1, 7])
    with pytest.raises(IndexError):
        lnp.delete(x, [1.5, 2.0])
    with pytest.raises(ValueError, match="match the axis length of 5"):
        lnp.delete(x, [True, False])
    with pytest.raises(ValueError):
        lnp.delete(x, slice(1, 3, 0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3)])
def test_resize(dtype, shape):
    a = sample(shape, dtype)
    for new in [7, (2, 4), (0, 3), (), (3, 1, 2), 1]:
        check(lnp.resize(lnp.asarray(a), new), np.resize(a, new))
    with pytest.raises(ValueError, match="non-negative"):
        lnp.resize(lnp.asarray(a), (2, -1))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "float32", "complex128"])
def test_trim_zeros(dtype):
    f = np.array([0, 0, 3, 0, 4, 0, 0]).astype(dtype)
    for trim in ("fb", "f", "b", "BF"):
        check(lnp.trim_zeros(lnp.asarray(f), trim), np.trim_zeros(f, trim))
    m = np.zeros((4, 5), dtype)
    m[1, 2] = m[2, 3] = 1
    for axis in (None, 0, 1, -1, (0, 1)):
        for trim in ("fb", "f", "b"):
            check(lnp.trim_zeros(lnp.asarray(m), trim, axis=axis),
                  np.trim_zeros(m, trim, axis=axis))
    for z in (np.zeros(3, dtype), np.zeros((2, 3), dtype), np.zeros((0, 2), dtype)):
        check(lnp.trim_zeros(lnp.asarray(z)), np.trim_zeros(z))
        check(lnp.trim_zeros(lnp.asarray(z), axis=-1), np.trim_zeros(z, axis=-1))
    with pytest.raises(ValueError, match="unexpected character"):
        lnp.trim_zeros(lnp.asarray(f), "x")


@pytest.mark.parametrize("dtype", DTYPES)
def test_diagflat_identity(dtype):
    v = sample((2, 2), dtype)
    for k in (0, 1, -2, 5):
        check(lnp.diagflat(lnp.asarray(v), k), np.diagflat(v, k))
    check(lnp.diagflat(lnp.asarray(v[0, 0])), np.diagflat(v[0, 0]))
    check(lnp.diagflat(lnp.asarray(v[:0])), np.diagflat(v[:0]))
    for n in (0, 1, 4):
        check(lnp.identity(n, dtype=dtype), np.identity(n, dtype=dtype))
    check(lnp.identity(3), np.identity(3))
    with pytest.raises(ValueError):
        lnp.identity(-1)


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8", "float32", "float64"])
@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean", "median", "linear_ramp"])
def test_pad_modes(dtype, mode):
    a = sample((3, 4), dtype)
    x = lnp.asarray(a)
    for width in (2, (1, 3), ((2, 0), (1, 5))):
        check(lnp.pad(x, width, mode=mode), np.pad(a, width, mode=mode), rtol=1e-6)
    if mode == "linear_ramp":
        for ev in (5, (2, -3), ((1, 2), (3, 4))):
            check(lnp.pad(x, ((2, 3), (4, 1)), mode=mode, end_values=ev),
                  np.pad(a, ((2, 3), (4, 1)), mode=mode, end_values=ev), rtol=1e-6)
    else:
        for sl in (1, (2, 3), ((1, 2), (7, 3)), None):
            check(lnp.pad(x, ((2, 3), (4, 1)), mode=mode, stat_length=sl),
                  np.pad(a, ((2, 3), (4, 1)), mode=mode, stat_length=sl), rtol=1e-6)


def test_pad_statistics_of_bool_and_of_nothing():
    # bool: NumPy's mean and ramp are not rounded (0.25 is True); a median of no elements (a
    # stat_length of 0) is NaN, as the mean's
    a = np.array([[True, False, False, False], [False, True, True, False]])
    for mode in ("mean", "median"):
        for sl in (None, 1, 3):
            check(lnp.pad(lnp.asarray(a), 2, mode=mode, stat_length=sl),
                  np.pad(a, 2, mode=mode, stat_length=sl))
    check(lnp.pad(lnp.asarray(a), (1, 3), mode="linear_ramp"), np.pad(a, (1, 3), "linear_ramp"))
    f = sample((2, 3), "float64")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.pad(f, 1, mode="median", stat_length=0)
    check(lnp.pad(lnp.asarray(f), 1, mode="median", stat_length=0), want)


def test_pad_statistics_of_empty_arrays_and_zero_lengths():
    # an empty array stays empty (no statistic computed); a stat_length of 0 for maximum and
    # minimum is refused even on an axis not padded, as NumPy's
    for e, pw in ((np.zeros((0, 3)), ((0, 0), (1, 2))), (np.zeros((3, 0), np.int8), 0)):
        for mode in ("maximum", "minimum", "mean", "median", "edge", "wrap", "linear_ramp"):
            check(lnp.pad(lnp.asarray(e), pw, mode=mode), np.pad(e, pw, mode=mode))
    x = np.arange(6.0).reshape(2, 3)
    for sl in (0, ((1, 1), (0, 2))):
        with pytest.raises(ValueError):
            np.pad(x, ((1, 1), (0, 0)), mode="maximum", stat_length=sl)
        with pytest.raises(ValueError, match="stat_length of 0"):
            lnp.pad(lnp.asarray(x), ((1, 1), (0, 0)), mode="maximum", stat_length=sl)


def test_pad_widths_of_0d():
    x = np.array(1.5)
    check(lnp.pad(lnp.asarray(x), 2), np.pad(x, 2))
    for pw in (-1, ((1, -1),)):
        with pytest.raises(ValueError):
            np.pad(x, pw)
        with pytest.raises(ValueError):
            lnp.pad(lnp.asarray(x), pw)


@pytest.mark.parametrize("dtype", ["int16", "float64", "complex64"])
@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
def test_pad_odd(dtype, mode):
    for shape in ((1,), (2,), (3, 4)):
        a = sample(shape, dtype)
        for width in (1, (7, 9), 11):
            # (NumPy reflects chunk by chunk; loom adds whole periods' steps: the last bits)
            check(lnp.pad(lnp.asarray(a), width, mode=mode, reflect_type="odd"),
                  np.pad(a, width, mode=mode, reflect_type="odd"), rtol=1e-6)


def test_pad_constant_pairs_and_empty():
    a = sample((2, 3), "int32")
    x = lnp.asarray(a)
    for cv in ((7, -1), ((1, 2), (3, 4)), ((5,),), [[1, 2], [3, 4]]):
        check(lnp.pad(x, ((1, 2), (3, 1)), constant_values=cv),
              np.pad(a, ((1, 2), (3, 1)), constant_values=cv))
    e = np.zeros((0, 2))
    check(lnp.pad(lnp.asarray(e), ((1, 2), (0, 1)), constant_values=((1, 2), (3, 4))),
          np.pad(e, ((1, 2), (0, 1)), constant_values=((1, 2), (3, 4))))
    got = np.asarray(lnp.pad(x, (1, 2), mode="empty"))  # the padding's values are undefined
    assert got.shape == (5, 6) and got.dtype == a.dtype
    np.testing.assert_array_equal(got[1:3, 1:4], a)
    assert lnp.pad(lnp.asarray(e), 1, mode="empty").shape == (2, 4)


def test_pad_errors():
    x = lnp.arange(3)
    with pytest.raises(ValueError, match="not supported"):
        lnp.pad(x, 1, mode="average")
    with pytest.raises(ValueError, match="unsupported keyword arguments"):
        lnp.pad(x, 1, mode="edge", stat_length=2)
    with pytest.raises(ValueError, match="stat_length of 0"):
        lnp.pad(x, 1, mode="minimum", stat_length=0)
    with pytest.raises(ValueError, match="negative"):
        lnp.pad(x, 1, mode="mean", stat_length=-2)
    with pytest.raises(ValueError, match="can't extend empty axis"):
        lnp.pad(lnp.zeros((0, 2)), 1, mode="median")


def test_pad_statistics_of_bool_do_not_round():
    """NumPy rounds a mean or median pad for np.integer dtypes only: a bool's mean of 1/3 is
    True (found by the conformance suite)."""
    a = np.array([[True, False, False], [False, False, True]])
    for mode in ("mean", "median", "maximum", "minimum"):
        got = lnp.pad(lnp.asarray(a), 2, mode=mode)
        want = np.pad(a, 2, mode=mode)
        assert got.dtype == want.dtype and np.array_equal(np.asarray(got), want), mode
