"""DLPack both ways on the CPU reference device: NumPy -> loom -> NumPy without copies, the
capsule protocol (names, consumed once, deleters run exactly once, errors leave the capsule to
its producer), and the Array API's keywords (stream, max_version, dl_device, copy)."""
import ctypes
import gc
import weakref

import numpy as np
import pytest

import loom
import loom.numpy as lnp
from loom import _dlpack

import _arrays  # (this folder's)

rng = np.random.default_rng(11)


from _arrays import cpu_context  # noqa: F401 (the module's CPU context)


def sample(shape, dtype):
    return _arrays.sample(rng, shape, dtype)


DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]

VIEWS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "sliced": lambda a: a[1::2, ::3],
    "reversed": lambda a: a[::-1],
    "broadcast": lambda a: np.broadcast_to(a[:1], a.shape),
    "0-d": lambda a: np.array(a[2, 3]),
    "empty": lambda a: a[:0],
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_dlpack_round_trip(dtype, view):
    x = VIEWS[view](sample((6, 7), dtype))
    a = lnp.from_dlpack(x)
    assert isinstance(a, loom.ndarray)
    assert a.shape == x.shape and a.dtype == x.dtype
    np.testing.assert_array_equal(a.get(), x)
    back = np.from_dlpack(a)
    assert back.shape == x.shape and back.dtype == x.dtype
    np.testing.assert_array_equal(back, x)


def test_dlpack_import_is_zero_copy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = lnp.from_dlpack(x)
    back = np.from_dlpack(a)
    assert back.ctypes.data == x.ctypes.data  # the same memory, through loom
    assert not back.flags.writeable  # a versioned capsule, flagged read-only


def test_dlpack_strided_import_keeps_strides():
    x = np.arange(30, dtype=np.int32).reshape(5, 6)[::2, 1::2]
    back = np.from_dlpack(lnp.from_dlpack(x))
    assert back.ctypes.data == x.ctypes.data and back.strides == x.strides


def test_dlpack_computed_values():
    x = sample((4, 5), "float32")
    y = lnp.sin(lnp.from_dlpack(x)) * 2
    assert y.__dlpack_device__() == (1, 0)
    np.testing.assert_allclose(np.from_dlpack(y), np.sin(x) * 2, rtol=1e-6)
    np.testing.assert_allclose(np.from_dlpack(y.T), (np.sin(x) * 2).T, rtol=1e-6)


def test_dlpack_capsule_names():
    a = lnp.asarray([1.0, 2.0])
    assert "\"dltensor\"" in repr(a.__dlpack__())
    assert "\"dltensor_versioned\"" in repr(a.__dlpack__(max_version=(1, 0)))
    assert "\"dltensor_versioned\"" in repr(a.__dlpack__(max_version=(1, 3)))
    assert "\"dltensor\"" in repr(a.__dlpack__(max_version=(0, 8)))


def test_dlpack_each_call_a_new_capsule():
    a = lnp.asarray(np.arange(5.0)) + 1
    first, second = np.from_dlpack(a), np.from_dlpack(a)
    np.testing.assert_array_equal(first, np.arange(5.0) + 1)
    np.testing.assert_array_equal(second, first)
    x = np.arange(4, dtype=np.int64)
    np.testing.assert_array_equal(lnp.from_dlpack(x).get(), lnp.from_dlpack(x).get())


def _live():
    gc.collect()
    return len(_dlpack._live)


def test_dlpack_export_deleter_runs_once_consumed():
    before = _live()
    a = lnp.asarray(np.arange(6.0)) * 3
    b = np.from_dlpack(a)
    assert _live() == before + 1
    del a  # the export keeps loom's array alive
    np.testing.assert_array_equal(b, np.arange(6.0) * 3)
    del b
    assert _live() == before


def test_dlpack_export_deleter_runs_unconsumed():
    before = _live()
    a = lnp.asarray(np.arange(6.0))
    for versioned in ((1, 0), None):
        c = a.__dlpack__(max_version=versioned)
        assert _live() == before + 1
        del c  # never consumed: the capsule's destructor frees the tensor
        assert _live() == before


def test_dlpack_import_deleter_runs():
    base = np.arange(20, dtype=np.float64)
    gone = []
    weakref.finalize(base, gone.append, True)
    ref = weakref.ref(base)
    a = lnp.from_dlpack(base)
    b = lnp.from_dlpack(base[::-2])
    del base
    gc.collect()
    assert ref() is not None and not gone  # loom's arrays hold it
    np.testing.assert_array_equal(a.get(), np.arange(20.0))
    del a
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(b.get(), np.arange(20.0)[::-2])
    del b
    gc.collect()
    assert ref() is None and gone == [True]


def test_dlpack_loom_to_loom():
    a = lnp.asarray(np.arange(4.0))
    assert lnp.from_dlpack(a) is a
    with loom.Context(device="cpu"):
        other = lnp.from_dlpack(a)  # another context: through a capsule
        assert other.context is not a.context
        np.testing.assert_array_equal((other + 1).get(), np.arange(4.0) + 1)


def test_dlpack_copy_true_is_independent():
    x = np.arange(8, dtype=np.float32)
    shared = lnp.from_dlpack(x)
    own = lnp.from_dlpack(x, copy=True)
    x[:] = -1  # the CPU device reads borrowed memory directly
    np.testing.assert_array_equal(own.get(), np.arange(8, dtype=np.float32))
    np.testing.assert_array_equal(shared.get(), -np.ones(8, np.float32))


def test_dlpack_copy_false_and_copied_export():
    x = np.arange(6, dtype=np.int32)
    a = lnp.from_dlpack(x, copy=False)
    assert np.from_dlpack(a, copy=False).ctypes.data == x.ctypes.data
    c = np.from_dlpack(a, copy=True)
    assert c.ctypes.data != x.ctypes.data and c.flags.writeable
    c[0] = 100
    np.testing.assert_array_equal(a.get(), np.arange(6, dtype=np.int32))


def test_dlpack_keywords():
    a = lnp.asarray(np.arange(3.0))
    with pytest.raises(ValueError):
        a.__dlpack__(stream=1)  # host memory has no streams
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(2, 0))
    np.testing.assert_array_equal(np.from_dlpack(a, device="cpu"), np.arange(3.0))
    c = a.__dlpack__(dl_device=(1, 0), copy=False, max_version=(1, 0))
    assert "dltensor_versioned" in repr(c)
    with pytest.raises(ValueError):
        lnp.from_dlpack(np.arange(3.0), device="some other device")
    with pytest.raises(TypeError):
        lnp.from_dlpack([1, 2, 3])


class _Old:
    """A producer of the 2021 protocol: __dlpack__(stream=None) only, legacy capsules."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_dlpack_old_producer():
    x = np.arange(10, dtype=np.uint16).reshape(2, 5)
    np.testing.assert_array_equal(lnp.from_dlpack(_Old(x)).get(), x)
    y = np.arange(3.0)
    c = lnp.from_dlpack(_Old(y), copy=True)  # the producer cannot copy: loom does
    y[:] = 7
    np.testing.assert_array_equal(c.get(), np.arange(3.0))


class _Fake:
    """A producer of a hand-made DLManagedTensorVersioned, counting its deleter's calls."""

    def __init__(self, major=1, code=2, bits=32):
        self.data = (ctypes.c_float * 4)(1, 2, 3, 4)
        self.shape = (ctypes.c_int64 * 1)(4)
        self.deleted = 0
        self._deleter = _dlpack._DELETER(self._delete)
        m = self.m = _dlpack._ManagedVersioned()
        m.version.major, m.version.minor = major, 0
        m.deleter = ctypes.cast(self._deleter, ctypes.c_void_p).value
        m.flags = 1
        t = m.dl_tensor
        t.data = ctypes.addressof(self.data)
        t.device.device_type = 1
        t.ndim = 1
        t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
        t.shape = self.shape

    def _delete(self, p):
        assert p == ctypes.addressof(self.m)
        self.deleted += 1

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return _dlpack._capsule_new(ctypes.addressof(self.m), _dlpack._NAME_VERSIONED,
                                    _dlpack._capsule_destructor)

    def __dlpack_device__(self):
        return (1, 0)


def test_dlpack_consumer_owns_the_tensor():
    f = _Fake()
    capsule = f.__dlpack__()
    a = lnp.from_dlpack(_Given(capsule))
    assert "used_dltensor_versioned" in repr(capsule)
    del capsule
    gc.collect()
    assert f.deleted == 0  # a used capsule leaves the tensor to its consumer
    np.testing.assert_array_equal(a.get(), np.array([1, 2, 3, 4], np.float32))
    del a
    gc.collect()
    assert f.deleted == 1


@pytest.mark.parametrize("fake, exc", [(dict(major=2), NotImplementedError),
                                       (dict(code=2, bits=8), TypeError)])
def test_dlpack_failed_import_leaves_the_capsule(fake, exc):
    f = _Fake(**fake)
    capsule = f.__dlpack__()
    with pytest.raises(exc):
        lnp.from_dlpack(_Given(capsule))
    assert "\"dltensor_versioned\"" in repr(capsule)  # not consumed
    assert f.deleted == 0
    del capsule
    gc.collect()
    assert f.deleted == 1  # its own destructor freed it
    np.testing.assert_array_equal(lnp.asarray([1.0]).get(), [1.0])  # the context goes on


class _Given:
    """Hands out one capsule made beforehand."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def test_dlpack_used_capsule_is_refused():
    a = lnp.asarray(np.arange(3.0))
    capsule = a.__dlpack__(max_version=(1, 0))
    lnp.from_dlpack(_Given(capsule), device=loom.Context(device="cpu"))
    with pytest.raises(ValueError):
        lnp.from_dlpack(_Given(capsule))


def test_dlpack_namespace():
    assert lnp.from_dlpack is loom.from_dlpack
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(lnp.sum(lnp.from_dlpack(x), axis=0).get(), x.sum(axis=0))


def test_context_sync_and_stream_argument():
    ctx = loom.get_context()
    ctx.sync()
    with pytest.raises(TypeError):
        loom.Context(device="cpu", stream="not a stream")

    class S:
        ptr = 0
    assert loom._stream_handle(S()) == 1  # the default stream: CU_STREAM_LEGACY
    assert loom._stream_handle(None) == 0
    assert loom._stream_handle(12345) == 12345
