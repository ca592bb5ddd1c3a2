"""DLPack both ways, without copies: loom arrays as producers (`ndarray.__dlpack__`) and as
consumers (`loom.from_dlpack`), over the C API's loom_to_dlpack and loom_from_dlpack.

The capsules follow the DLPack protocol of the Array API standard: a producer's capsule is named
"dltensor" (legacy DLManagedTensor) or "dltensor_versioned" (DLManagedTensorVersioned, when the
consumer asks for max_version >= (1, 0)); a consumer that takes the tensor renames it
"used_dltensor[_versioned]" and owns it from then on, calling its deleter when done. A capsule
that was never consumed calls the deleter itself when it is collected.

Synchronisation. Export: loom's work runs on a stream of its own (or the Context's stream=), so
before a capsule is handed out the context is synchronised (loom_sync): the data is then ready
for any stream of the consumer, whatever stream it named. Import of CUDA memory: the producer is
asked to make its work visible to the consumer's stream; that is the Context's stream= when it
has one, else the legacy default stream (stream=1), which loom's own non-blocking stream does not
wait for by itself: then the host waits for the legacy stream before loom reads the memory."""
import ctypes

from ._lib import lib, P

KDL_CPU, KDL_CUDA, KDL_CUDA_HOST = 1, 2, 3  # DLDeviceType
_FLAG_READ_ONLY, _FLAG_IS_COPIED = 1, 2  # DLPACK_FLAG_BITMASK_*
_LOOM_DEVICE_CPU, _LOOM_DEVICE_CUDA = 1, 2  # loom_device_kind_t
_CU_STREAM_LEGACY = 1


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    """DLTensor (dlpack.h v1.x)."""
    _fields_ = [("data", P), ("device", _Device), ("ndim", ctypes.c_int32), ("dtype", _DType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _Managed(ctypes.Structure):
    """DLManagedTensor: the legacy "dltensor" capsule's payload."""
    _fields_ = [("dl_tensor", _Tensor), ("manager_ctx", P), ("deleter", P)]


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _ManagedVersioned(ctypes.Structure):
    """DLManagedTensorVersioned: the "dltensor_versioned" capsule's payload."""
    _fields_ = [("version", _Version), ("manager_ctx", P), ("deleter", P),
                ("flags", ctypes.c_uint64), ("dl_tensor", _Tensor)]


_DELETER = ctypes.CFUNCTYPE(None, P)  # void (*deleter)(DLManagedTensor[Versioned] *)
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, P)  # PyCapsule_Destructor (the capsule as PyObject *)

# The capsule functions, as function objects of our own (setting argtypes on ctypes.pythonapi's
# would change them for every other user of it). PYFUNCTYPE: called with the GIL held, and a
# Python error they set is raised.
_api = ctypes.pythonapi
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, P, ctypes.c_char_p, _CAPSULE_DESTRUCTOR)(
    ("PyCapsule_New", _api))
_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))
_capsule_get_pointer = ctypes.PYFUNCTYPE(P, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))
_capsule_set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", _api))
# the same two for the destructor, which gets the capsule as a bare pointer: it is being freed,
# and a py_object argument would take a new reference to it
_raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, P, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_raw_get_pointer = ctypes.PYFUNCTYPE(P, P, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))

# A capsule keeps a pointer to its name, not a copy: the names are never freed (see _immortal)
_NAME = b"dltensor"
_NAME_VERSIONED = b"dltensor_versioned"
_USED = b"used_dltensor"
_USED_VERSIONED = b"used_dltensor_versioned"

# export address -> (Context, the deleter loom set): what _export_deleter needs
_live = {}


@_DELETER
def _export_deleter(managed):
    """The deleter of every tensor loom exports: loom's own, called under the context's lock (the
    consumer may free its tensor on any thread, while the context is in use on another). The
    entry's reference keeps the Context alive until then: loom's deleter must run before
    loom_ctx_destroy. A context closed by hand already freed the export with everything else."""
    entry = _live.pop(managed, None)
    if entry is None:
        return
    ctx, deleter = entry
    with ctx.lock:
        if ctx._p:
            _DELETER(deleter)(managed)


@_CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):
    """Frees the tensor of a capsule that no consumer took (its name still "dltensor...")."""
    for name, layout in ((_NAME_VERSIONED, _ManagedVersioned), (_NAME, _Managed)):
        if _raw_is_valid(capsule, name):
            p = _raw_get_pointer(capsule, name)
            m = layout.from_address(p)
            if m.deleter:
                _DELETER(m.deleter)(p)
            return


def _immortal(*objs):
    """Keeps objs alive until the process ends, interpreter teardown included: a capsule collected
    late still reads its name and calls its destructor."""
    incref = ctypes.PYFUNCTYPE(None, ctypes.py_object)(("Py_IncRef", _api))
    for o in objs:
        incref(o)


_immortal(_NAME, _NAME_VERSIONED, _USED, _USED_VERSIONED, _export_deleter, _capsule_destructor)


def _error(ctx, status):
    """Raises the context's recorded error (as loom's Python layer maps it)."""
    from . import _raise
    _raise(ctx._p, status)


# ---- export ----

def array_device(arr):
    """(DLDeviceType, device id) of where arr's values live: (kDLCPU, 0) on the CPU device; on a
    CUDA context (kDLCUDA, ordinal) for computed arrays, (kDLCPU, 0) for those still in host
    memory (NumPy arrays taken in and not yet computed with; loom uploads them when used). On a
    GPU this evaluates arr, as exporting it would."""
    ctx = arr._ctx
    if lib.loom_ctx_device(ctx._p) == _LOOM_DEVICE_CPU:
        return (KDL_CPU, 0)
    with ctx.lock:
        p = _export(ctx, arr, 1)
        m = _ManagedVersioned.from_address(p)
        where = (m.dl_tensor.device.device_type, m.dl_tensor.device.device_id)
        _DELETER(m.deleter)(p)
    return where


def _export(ctx, arr, versioned):
    """loom_to_dlpack, the error raised as BufferError (nothing can be exported then)."""
    out = P()
    st = lib.loom_to_dlpack(ctx._p, arr._p, versioned, ctypes.byref(out))
    if st:
        msg = (lib.loom_ctx_message(ctx._p) or b"").decode(errors="replace")
        lib.loom_ctx_clear_error(ctx._p)
        raise BufferError("loom: cannot export the array through DLPack: %s" % msg)
    return out.value


def _fresh(arr):
    """A computed array of arr's values in a buffer of its own (a consumer may write it)."""
    from . import _call_text
    return _call_text("{0}.astype", [arr], (arr.dtype.name,), {})


def to_dlpack(arr, stream=None, max_version=None, dl_device=None, copy=None):
    """ndarray.__dlpack__: a capsule of arr's memory (see the module's text)."""
    ctx = arr._ctx
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    layout = _ManagedVersioned if versioned else _Managed
    src = _fresh(arr) if copy else arr
    with ctx.lock:
        p = _export(ctx, src, int(versioned))
        m = layout.from_address(p)
        where = (m.dl_tensor.device.device_type, m.dl_tensor.device.device_id)
        try:
            if dl_device is not None and tuple(dl_device) != where:
                if tuple(dl_device) == (KDL_CPU, 0) and copy is not False:
                    return _host_copy(arr, max_version)  # the copy the standard allows
                raise BufferError("loom: the array lives on DLPack device %r, not %r%s" % (
                    where, tuple(dl_device), " (copy=False)" if copy is False else ""))
            if where[0] == KDL_CPU and stream is not None:
                raise ValueError("loom: stream must be None for an array in host memory, not %r"
                                 % (stream,))
            if where[0] == KDL_CUDA and stream == 0:
                raise ValueError("loom: stream=0 is ambiguous for CUDA (1 is the legacy default "
                                 "stream, 2 the per-thread one)")
            # The data must be complete before the consumer reads it, on whatever stream: wait
            # for everything queued on the context (loom_to_dlpack waits too for device memory
            # today; this keeps the promise whatever it does).
            st = lib.loom_sync(ctx._p)
            if st:
                _error(ctx, st)
        except BaseException:
            _DELETER(m.deleter)(p)
            raise
        if versioned and copy:
            m.flags = _FLAG_IS_COPIED  # the consumer's own buffer: writable
        _live[p] = (ctx, m.deleter)
        m.deleter = ctypes.cast(_export_deleter, P).value
    try:
        return _capsule_new(p, _NAME_VERSIONED if versioned else _NAME, _capsule_destructor)
    except BaseException:
        _export_deleter(p)
        raise


def _host_copy(arr, max_version):
    """A capsule of a NumPy copy of arr (for a consumer that asked for the host)."""
    a = arr.get()
    if max_version is None:
        return a.__dlpack__()
    try:
        return a.__dlpack__(max_version=max_version)
    except TypeError:  # NumPy before 2.1
        return a.__dlpack__()


# ---- import ----

_cuda = None


def _legacy_stream_sync(ctx):
    """Waits on the host for the legacy default stream of the context's device (see the module's
    text), through the driver: libcuda.so.1, loaded on first use."""
    global _cuda
    if _cuda is None:
        try:
            cuda = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise BufferError("loom: cannot synchronise with the producer's CUDA stream (%s)" % e)
        cuda.cuStreamSynchronize.restype = ctypes.c_int
        cuda.cuStreamSynchronize.argtypes = [P]
        _cuda = cuda
    st = lib.loom_sync(ctx._p)  # also makes the context's CUDA context current on this thread
    if st:
        _error(ctx, st)
    r = _cuda.cuStreamSynchronize(_CU_STREAM_LEGACY)
    if r:
        raise BufferError("loom: cuStreamSynchronize(CU_STREAM_LEGACY) failed (CUresult %d)" % r)


def _capsule(x, stream, dl_device, copy):
    """x.__dlpack__ with the keywords the standard gives consumers (2023.12), else with those an
    older producer takes."""
    kwargs = {"max_version": (1, 0)}
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    if copy is not None:
        kwargs["copy"] = copy
    try:
        return x.__dlpack__(stream=stream, **kwargs), True
    except TypeError:
        pass
    if dl_device is not None:
        raise BufferError("loom: %s's __dlpack__ cannot move its data to the host (no "
                          "dl_device=)" % type(x).__name__)
    return (x.__dlpack__() if stream is None else x.__dlpack__(stream=stream)), False


def from_dlpack(x, ctx, copy=None):
    """loom.from_dlpack on context ctx: x's memory taken without a copy (copy=None or False);
    copy=True asks the producer for a copy (or makes one, for a producer without copy=).

    CUDA memory of another device than the context's is a BufferError; on the CPU device it is
    copied to the host by the producer (dl_device=kDLCPU), unless copy=False."""
    from . import ndarray
    if isinstance(x, ndarray) and x._ctx is ctx and not copy:
        return x
    try:
        dev = tuple(x.__dlpack_device__())
    except AttributeError:
        raise TypeError("loom.from_dlpack: %s has no __dlpack_device__ (not a DLPack producer)"
                        % type(x).__name__) from None
    ours = lib.loom_ctx_device(ctx._p)
    stream = dl_device = None
    if dev[0] == KDL_CUDA:
        if ours != _LOOM_DEVICE_CUDA:
            if copy is False:
                raise BufferError("loom.from_dlpack: the tensor lives on CUDA device %d and this "
                                  "context (%s) has no GPU; copy=False forbids the copy to the "
                                  "host" % (dev[1], ctx.device))
            dl_device = (KDL_CPU, 0)
        else:
            stream = ctx._stream_handle or _CU_STREAM_LEGACY
    capsule, keywords = _capsule(x, stream, dl_device, copy)
    versioned = bool(_capsule_is_valid(capsule, _NAME_VERSIONED))
    if not versioned and not _capsule_is_valid(capsule, _NAME):
        raise ValueError("loom.from_dlpack: %s's __dlpack__ gave no unused DLPack capsule"
                         % type(x).__name__)
    p = _capsule_get_pointer(capsule, _NAME_VERSIONED if versioned else _NAME)
    t = (_ManagedVersioned if versioned else _Managed).from_address(p).dl_tensor
    with ctx.lock:
        if t.device.device_type == KDL_CUDA and not ctx._stream_handle:
            _legacy_stream_sync(ctx)
        lib.loom_scope_begin(ctx._p)  # the result is held by Python alone: freed when dropped
        a = lib.loom_from_dlpack(ctx._p, p, int(versioned))
        if lib.loom_array_is_nil(a):
            st = lib.loom_ctx_status(ctx._p)
            lib.loom_scope_end(ctx._p)
            _error(ctx, st)  # the capsule is left as it was: its destructor frees the tensor
        r = ndarray(ctx, lib.loom_array_retain(a))
        lib.loom_scope_end(ctx._p)
        _capsule_set_name(capsule, _USED_VERSIONED if versioned else _USED)
    if copy and not keywords:  # the producer could not be asked for a copy
        r = _fresh(r)
        from . import eval as _eval
        _eval(r)
    return r
