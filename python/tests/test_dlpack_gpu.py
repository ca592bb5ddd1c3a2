"""DLPack with CuPy and PyTorch on a GPU: CUDA tensors in and out of loom without copies (the
same device pointers), values after loom computes with them, the stream protocol (work the
producer still has queued is finished before loom reads, loom's results before the consumer
reads), and Context(stream=). Skipped unless loom's default context is CUDA and the peer
imports."""
import gc

import numpy as np
import pytest

import loom
import loom.numpy as lnp
from loom._lib import lib

N = 1 << 24  # large enough that a read racing the producer's last kernel would see old values


@pytest.fixture(scope="module", autouse=True)
def cuda_ctx():
    ctx = loom.get_context()
    if lib.loom_ctx_device(ctx._p) != 2:  # LOOM_DEVICE_CUDA
        pytest.skip("loom's default context is not CUDA (%s)" % ctx.device)
    return ctx


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    return torch


@pytest.fixture(scope="module")
def cp():
    cp = pytest.importorskip("cupy")
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 (CuPy's CUDA errors have no common base)
        pytest.skip("CuPy sees no GPU: %s" % e)
    return cp


def _busy(torch, t, factor):
    """t *= factor, queued behind ~20 ms of GPU spinning on torch's current stream."""
    torch.cuda._sleep(50_000_000)
    t.mul_(factor)


def test_torch_round_trip_same_memory(torch):
    t = torch.randn(1000, device="cuda")
    a = lnp.from_dlpack(t)
    assert a._device_ptr() == t.data_ptr()
    assert a.__dlpack_device__() == (2, t.device.index or 0)
    back = torch.from_dlpack(a)
    assert back.data_ptr() == t.data_ptr() and back.device == t.device
    assert torch.equal(back, t)
    np.testing.assert_array_equal(a.get(), t.cpu().numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int8", "int64",
                                   "uint8", "bool", "complex64"])
def test_torch_dtypes(torch, dtype):
    t = (torch.randn(17, 5, device="cuda") * 5).to(getattr(torch, dtype))
    a = lnp.from_dlpack(t)
    assert a._device_ptr() == t.data_ptr()
    back = torch.from_dlpack(a)
    assert back.dtype == t.dtype and torch.equal(back, t)


def test_torch_strided_views(torch):
    base = torch.arange(64 * 48, dtype=torch.float32, device="cuda").reshape(64, 48)
    for t in (base.T, base[::2, 3::5], base.T[1:]):
        a = lnp.from_dlpack(t)
        assert a._device_ptr() == t.data_ptr()
        np.testing.assert_array_equal(a.get(), t.cpu().numpy())
        np.testing.assert_array_equal((a * 2).get(), (t * 2).cpu().numpy())


def test_torch_computed_by_loom(torch):
    t = torch.randn(4096, device="cuda")
    r = lnp.sin(lnp.from_dlpack(t)) * 2
    out = torch.from_dlpack(r)
    assert out.device == t.device and out.data_ptr() == r._device_ptr()
    torch.testing.assert_close(out, torch.sin(t) * 2, rtol=1e-6, atol=1e-6)
    m = torch.from_dlpack(lnp.from_dlpack(t.reshape(64, 64)).T @ lnp.ones((64, 3), "float32"))
    torch.testing.assert_close(m, t.reshape(64, 64).T @ torch.ones(64, 3, device="cuda"))


def test_torch_producer_work_finishes_first(torch):
    t = torch.ones(N, device="cuda")
    for _ in range(3):
        _busy(torch, t, 2.0)  # still queued when loom takes the tensor
        s = float(lnp.sum(lnp.from_dlpack(t), dtype="float64"))
        torch.cuda.synchronize()
        assert s == float(t.double().sum())


def test_torch_reads_loom_results(torch):
    x = lnp.from_dlpack(torch.full((N,), 0.5, device="cuda"))
    for k in range(3):
        r = lnp.exp(x * k) + 1  # queued on loom's stream
        got = torch.from_dlpack(r).double().sum().item()  # read on torch's stream at once
        assert got == pytest.approx(N * (np.exp(0.5 * k) + 1), rel=1e-6)


def test_torch_copy_keywords(torch):
    t = torch.arange(8, dtype=torch.float32, device="cuda")
    own = lnp.from_dlpack(t, copy=True)
    assert own._device_ptr() != t.data_ptr()
    t.fill_(-1)
    np.testing.assert_array_equal(own.get(), np.arange(8, dtype=np.float32))
    copied = torch.from_dlpack(own.__dlpack__(max_version=(1, 0), copy=True))
    assert copied.data_ptr() != own._device_ptr()
    copied.add_(1)  # the consumer's own buffer
    np.testing.assert_array_equal(own.get(), np.arange(8, dtype=np.float32))


def test_torch_into_cpu_context(torch):
    t = torch.arange(6, dtype=torch.int32, device="cuda")
    with loom.Context(device="cpu"):
        a = lnp.from_dlpack(t)  # copy=None: the producer copies to the host
        np.testing.assert_array_equal(a.get(), np.arange(6, dtype=np.int32))
        with pytest.raises(BufferError):
            lnp.from_dlpack(t, copy=False)


def test_torch_deleters_run(torch):
    t = torch.randn(1 << 20, device="cuda")
    before = torch.cuda.memory_allocated()
    a = lnp.from_dlpack(t)
    del t
    gc.collect()
    assert torch.cuda.memory_allocated() == before  # loom holds torch's memory
    del a
    gc.collect()
    assert torch.cuda.memory_allocated() == before - 4 * (1 << 20)


def test_cupy_round_trip_same_memory(cp):
    x = cp.arange(1000, dtype=cp.float32) / 7
    a = lnp.from_dlpack(x)
    assert a._device_ptr() == x.data.ptr
    back = cp.from_dlpack(a)
    assert back.data.ptr == x.data.ptr
    assert bool((back == x).all())
    r = cp.from_dlpack(lnp.sin(a) * 2)
    cp.testing.assert_allclose(r, cp.sin(x) * 2, rtol=1e-6, atol=1e-6)


def test_cupy_strided(cp):
    x = cp.arange(30 * 40, dtype=cp.float64).reshape(30, 40)[::3, 5:].T
    a = lnp.from_dlpack(x)
    assert a._device_ptr() == x.data.ptr
    np.testing.assert_array_equal(a.get(), cp.asnumpy(x))


def test_numpy_on_a_gpu_context():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = lnp.from_dlpack(x)
    assert a.__dlpack_device__() == (1, 0)  # taken in, not uploaded yet
    assert np.from_dlpack(a).ctypes.data == x.ctypes.data
    r = lnp.sqrt(a)
    assert r.__dlpack_device__()[0] == 2
    np.testing.assert_allclose(np.from_dlpack(r, device="cpu"), np.sqrt(x), rtol=1e-6)
    with pytest.raises(BufferError):
        r.__dlpack__(dl_device=(1, 0), copy=False)


def test_context_on_a_torch_stream(torch):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s), loom.Context(stream=s) as ctx:
        assert ctx._stream_handle == s.cuda_stream
        t = torch.ones(N, device="cuda")
        _busy(torch, t, 3.0)
        r = lnp.sum(lnp.from_dlpack(t), dtype="float64")  # ordered on s: no sync
        assert float(r) == 3.0 * N
        y = lnp.from_dlpack(t) * 2
        out = torch.from_dlpack(y)
        assert float(out.double().sum()) == 6.0 * N
    s.synchronize()


def test_context_on_the_default_stream(torch):
    with loom.Context(stream=torch.cuda.current_stream()) as ctx:
        assert ctx._stream_handle in (1, torch.cuda.current_stream().cuda_stream)
        t = torch.ones(N, device="cuda")
        _busy(torch, t, 5.0)
        assert float(lnp.sum(lnp.from_dlpack(t), dtype="float64")) == 5.0 * N


def test_context_on_a_cupy_stream(cp):
    s = cp.cuda.Stream(non_blocking=True)
    with s, loom.Context(stream=s) as ctx:
        assert ctx._stream_handle == s.ptr
        x = cp.full(N, 2.0, dtype=cp.float32)
        a = lnp.from_dlpack(x)
        assert float(lnp.sum(a, dtype="float64")) == 2.0 * N
        assert float(cp.from_dlpack(lnp.sqrt(a)).sum(dtype=cp.float64)) == pytest.approx(
            np.sqrt(2.0) * N, rel=1e-6)
    s.synchronize()
