"""loom from Python: a thin layer over libloom (ctypes, no compiled extension).

Python records calls and converts values; the graph, NumPy's semantics, fusion, errors and the
kernel caches stay in C. Every function of the expression language is a function here (see
`loom.numpy`), called by writing the call as expression text with the arrays bound by name:
`lnp.sum(x, axis=1)` runs the program `sum(_0, axis=1)`. Results are lazy until a value is
needed (`numpy.asarray(x)`, `float(x)`, printing, `bool(x)`); `loom.eval(*arrays)` computes
several together.

    import loom.numpy as lnp
    x = lnp.asarray(numpy_array)
    y = lnp.exp(x) * 2 + 1          # recorded, not run
    print(lnp.sum(y, axis=0))       # one eval: one fused kernel on a GPU
"""
import ctypes
import operator
import re as _re
import struct as _struct
import threading
import weakref

import numpy as _np

from . import _dlpack, _lib
from ._lib import lib, P

__all__ = ["Context", "ndarray", "eval", "get_context", "LoomError", "LinAlgError", "stats",
           "from_dlpack"]

# loom_status_t in include/loom.h's order
_STATUS_NAMES = ["OK", "INVALID_ARGUMENT", "OUT_OF_MEMORY", "SHAPE_MISMATCH", "DTYPE_ERROR",
                 "OVERFLOW", "WRONG_CTX", "BUFFER_TOO_SMALL", "NOT_AVAILABLE", "NO_DRIVER",
                 "NO_DEVICE", "DRIVER_TOO_OLD", "COMPILE_ERROR", "DEVICE_ERROR", "IO_ERROR",
                 "INTERNAL", "INDEX_ERROR", "LINALG_ERROR"]


class LoomError(RuntimeError):
    """A failure with no closer Python type (device, compile, I/O, internal errors)."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class LinAlgError(ValueError):
    """numpy.linalg.LinAlgError's counterpart (a ValueError, as NumPy's)."""


_EXC = {"INVALID_ARGUMENT": ValueError, "SHAPE_MISMATCH": ValueError, "DTYPE_ERROR": TypeError,
        "OVERFLOW": OverflowError, "WRONG_CTX": ValueError, "BUFFER_TOO_SMALL": ValueError,
        "OUT_OF_MEMORY": MemoryError, "NOT_AVAILABLE": NotImplementedError,
        "INDEX_ERROR": IndexError, "LINALG_ERROR": LinAlgError}


# the library's message for an axis past an array's dimensions (fe_axis and its like, and
# rollaxis's start)
_AXIS_MSG = _re.compile(r"axis -?\d+ is out of bounds for array of dimension \d+|"
                        r"'start' arg requires")


def _raise(ctx_p, status):
    """Raises the context's recorded error (then clears it, so the context goes on). An axis
    out of bounds is NumPy's AxisError, which is both a ValueError and an IndexError."""
    msg = (lib.loom_ctx_message(ctx_p) or b"").decode(errors="replace")
    lib.loom_ctx_clear_error(ctx_p)
    name = _STATUS_NAMES[status] if 0 <= status < len(_STATUS_NAMES) else str(status)
    exc = _EXC.get(name)
    if name == "INVALID_ARGUMENT" and _AXIS_MSG.search(msg):
        exc = _np.exceptions.AxisError
    if exc is None:
        raise LoomError("%s (%s)" % (msg, name), name)
    raise exc(msg)


class Context:
    """A loom context: its device ("auto": a GPU if there is one, else the CPU reference; "cpu",
    "cuda", "nvrtc"), kernel cache and dump folders. Usable as a `with` block, which makes it
    the current context of the thread for arrays created inside.

    stream: a CUDA stream for loom to run on instead of one of its own (loom_options_t's
    cuda_stream): a CUstream handle as an int, or a stream object of CuPy (.ptr) or PyTorch
    (.cuda_stream). Handle 0, the default stream, stands for the legacy default stream. loom
    queues its copies and kernels on it in call order, so it needs no sync with the caller's work
    on that stream; the stream must outlive the context."""

    def __init__(self, device="auto", cache_dir=None, dump_dir=None, allow_tf32=False,
                 allow_fma=False, stream=None):
        o = _lib.Options()
        arch = ctypes.c_char_p()
        kind = lib.loom_device_from_name(str(device).encode(), ctypes.byref(arch))
        if kind < 0:
            raise ValueError("loom.Context: unknown device %r (auto, cpu, cuda, nvrtc)" % device)
        o.device = kind
        o.arch = arch.value
        o.cache_dir = cache_dir.encode() if cache_dir else None
        o.dump_dir = dump_dir.encode() if dump_dir else None
        o.allow_tf32, o.allow_fma = int(bool(allow_tf32)), int(bool(allow_fma))
        self._stream_handle = _stream_handle(stream)
        o.cuda_stream = self._stream_handle or None
        self._keep = (o.arch, o.cache_dir, o.dump_dir, stream)
        p = P()
        st = lib.loom_ctx_create(ctypes.byref(o), ctypes.byref(p))
        if st:
            msg = (lib.loom_last_create_message() or b"").decode(errors="replace")
            exc = _EXC.get(_STATUS_NAMES[st], LoomError)
            if exc is LoomError:
                raise LoomError(msg, _STATUS_NAMES[st])
            raise exc(msg)
        self._p = p.value
        self.lock = threading.RLock()  # a context's calls must not overlap (include/loom.h)
        # the fast path's results (and their weak scalars) live in a scope of their own,
        # closed and reopened every _RECYCLE calls. An array the fast path made is borrowed
        # from the scope (no retain, no release: two calls into C saved an operation); those
        # still alive when the scope closes are retained then (_recycle)
        lib.loom_scope_begin(self._p)
        self._calls = 0
        # the scope's borrowed arrays, oldest first, held weakly: the arrays refer to the
        # context, and a cycle would leave the context to the cycle collector, which finalises
        # in any order (the stream= object could go first)
        self._young = []
        # the context's nil array (what a failed builder returns), to spot one without a call
        self._nil = lib.loom_expr(self._p, b"(", 0, None, None)
        lib.loom_ctx_clear_error(self._p)
        self._weak = {}  # (type, value) -> a retained weak scalar, reused by the fast path
        self._outs = ((P * 16)(), _lib.c_i32(), ctypes.c_int())  # parse_items' results
        self._programs = weakref.WeakSet()  # loom.jit's programs: destroyed before the context

    @property
    def device(self):
        return lib.loom_ctx_device_name(self._p).decode()

    def sync(self):
        """Waits until all work queued on the context has finished (loom_sync)."""
        with self.lock:
            st = lib.loom_sync(self._p)
            if st:
                _raise(self._p, st)

    def stats(self):
        """The context's counters (loom_stats_t) as a dict."""
        s = _lib.Stats()
        lib.loom_ctx_stats(self._p, ctypes.byref(s))
        return {k: getattr(s, k) for k, _ in s._fields_}

    def _tick(self):
        self._calls += 1
        if self._calls >= _RECYCLE:
            self._recycle()

    def _recycle(self):
        """Closes and reopens the scope (the caller holds the lock), first retaining the
        borrowed arrays that something still refers to."""
        young, self._young = self._young, []
        for w in young:
            a = w()
            if a is not None and not a._own:
                a._own = _Ref(self, lib.loom_array_retain(a._p))
        self._calls = 0
        lib.loom_scope_end(self._p)
        lib.loom_scope_begin(self._p)

    def weak(self, t, v):
        """A weak scalar array of Python number v (type t), kept for reuse (arrays are values);
        None for integers beyond uint64."""
        # floats by value, but zeros and NaNs by their bits (-0.0 is not 0.0)
        key = (t, v) if t is int or t is bool or (t is float and v == v and v != 0) else (
            t, _key_of(v))
        p = self._weak.get(key)
        if p is None:
            if t is float:
                p = lib.loom_weak_float(self._p, v)
            elif t is int:
                if -_I64 <= v < _I64:
                    p = lib.loom_weak_int(self._p, v)
                elif 0 <= v < 2 * _I64:
                    p = lib.loom_weak_uint(self._p, v)
                else:
                    return None
            elif t is bool:
                p = lib.loom_weak_bool(self._p, int(v))
            else:
                p = lib.loom_weak_complex(self._p, v.real, v.imag)
            p = lib.loom_array_retain(p)
            if len(self._weak) >= 1024:  # a bound: constants repeat, counters need not
                for q in self._weak.values():
                    lib.loom_array_release(q)
                self._weak.clear()
            self._weak[key] = p
        return p

    def close(self):
        if getattr(self, "_p", None) and lib is not None:
            for prog in list(getattr(self, "_programs", ())):
                prog.close()
            lib.loom_ctx_destroy(self._p)
        self._p = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __enter__(self):
        _stack().append(self)
        return self

    def __exit__(self, *exc):
        _stack().pop()
        return False

    def __repr__(self):
        return "loom.Context(%s)" % self.device


def _stream_handle(stream):
    """The CUstream handle of Context's stream= (0: none given)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        h = stream
    else:
        h = getattr(stream, "cuda_stream", None)  # torch.cuda.Stream
        if h is None:
            h = getattr(stream, "ptr", None)  # cupy.cuda.Stream
        if not isinstance(h, int):
            raise TypeError("loom.Context: stream must be a CUstream handle (int) or have .ptr or "
                            ".cuda_stream, not %s" % type(stream).__name__)
    if h < 0:
        raise ValueError("loom.Context: stream handle %d is negative" % h)
    # The driver API reads handle 0 as the legacy default stream; loom would read NULL as "make
    # a stream of your own", so the legacy stream is named by its own handle, CU_STREAM_LEGACY.
    return h or 1


_RECYCLE = 512
_weakref = weakref.ref
_new_array = object.__new__
_tls = threading.local()
_default = None
_default_lock = threading.Lock()


def _stack():
    if not hasattr(_tls, "stack"):
        _tls.stack = []
    return _tls.stack


def get_context():
    """The current context: the innermost `with Context(...)` of this thread, else the
    process's default one (device auto, created on first use)."""
    st = _stack()
    if st:
        return st[-1]
    global _default
    with _default_lock:
        if _default is None:
            _default = Context()
        return _default


def stats():
    return get_context().stats()


# ---- dtypes ----

_DT_NAMES = _lib.DTYPES


def _np_dtype(code):
    name = _DT_NAMES[code]
    if name == "bfloat16":
        try:
            import ml_dtypes
            return _np.dtype(ml_dtypes.bfloat16)
        except ImportError:
            raise TypeError("bfloat16 arrays need the ml_dtypes package to become NumPy arrays")
    return _np.dtype(name)


def _dtype_name(dt):
    """NumPy's name of a dtype given as a NumPy dtype, a type (np.float32, float) or a name."""
    if isinstance(dt, str):
        return dt
    if dt is float:
        return "float64"
    if dt is int:
        return "int64"
    if dt is bool:
        return "bool"
    if dt is complex:
        return "complex128"
    return _np.dtype(dt).name


# ---- arrays ----

class ndarray:
    """A lazy loom array. Operators, indexing and NumPy's methods record work; converting to a
    NumPy array or a Python number evaluates."""
    __slots__ = ("_ctx", "_p", "_sig", "_own", "__weakref__")
    __array_priority__ = 100

    # An array made here holds its reference (p retained) in a _Ref, whose finaliser releases
    # it. The fast path's results are borrowed from the context's scope and hold none (_own
    # None): no finaliser runs when they go (a Python frame an operation), and a recycle that
    # retains one gives it a _Ref then.
    def __init__(self, ctx, p):
        self._ctx = ctx
        self._p = p  # retained
        self._sig = None
        self._own = _Ref(ctx, p)

    # facts
    @property
    def ndim(self):
        return lib.loom_array_ndim(self._p)

    @property
    def shape(self):
        return tuple(lib.loom_array_dim(self._p, i) for i in range(self.ndim))

    @property
    def dtype(self):
        return _np_dtype(lib.loom_array_dtype(self._p))

    def _signature(self):
        """(dtype code, extents...): what a loom.jit program depends on (kept: an array's
        dtype and shape never change)."""
        sig = self._sig
        if sig is None:
            p = self._p
            sig = self._sig = (lib.loom_array_dtype(p),) + tuple(
                lib.loom_array_dim(p, i) for i in range(lib.loom_array_ndim(p)))
        return sig

    @property
    def size(self):
        n = 1
        for e in self.shape:
            n *= e
        return n

    @property
    def nbytes(self):
        return lib.loom_array_nbytes(self._p)

    @property
    def context(self):
        return self._ctx

    def __len__(self):
        if not self.ndim:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    # values
    def get(self):
        """The values as a NumPy array (evaluates)."""
        out = _np.empty(self.shape, dtype=self.dtype)
        with self._ctx.lock:
            st = lib.loom_read(self._ctx._p, self._p, out.ctypes.data, out.nbytes)
            if st:
                _raise(self._ctx._p, st)
        return out

    def __array__(self, dtype=None, copy=None):
        a = self.get()
        return a if dtype is None else a.astype(dtype, copy=False)

    def item(self):
        return self.get().item()

    def __float__(self):
        return float(self.get())

    def __int__(self):
        return int(self.get())

    def __complex__(self):
        return complex(self.get())

    def __index__(self):
        if self.dtype.kind not in "iub":
            raise TypeError("only integer arrays can be used as an index")
        return int(self.get())

    def __bool__(self):
        return bool(self.get())

    def tolist(self):
        return self.get().tolist()

    def tobytes(self, order="C"):
        return self.get().tobytes(order)

    def tofile(self, fid, sep="", format="%s"):  # noqa: A002 (NumPy's name)
        self.get().tofile(fid, sep, format)

    @property
    def itemsize(self):
        return self.dtype.itemsize

    def __contains__(self, value):
        return bool(_run("any({0} == {1})", [self, value]))

    def __iter__(self):
        if not self.ndim:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self):
        return "loom." + repr(self.get()).replace("\n", "\n     ")

    def __str__(self):
        return str(self.get())

    def __format__(self, spec):
        """f"{x:.2f}" of a 0-d array formats its value, as NumPy's does."""
        if not spec:
            return str(self)
        if self.ndim:
            raise TypeError("unsupported format string passed to loom.ndarray.__format__")
        return format(self.item(), spec)

    # recorded work: the operators through their C builders where the table has them, else
    # as expression text (__add__, __radd__, ...: made below by _operator_methods)
    def _un(self, name, text):
        f = _FAST.get(name)
        r = _fast1(f[1], self) if f is not None else None
        return r if r is not None else _run(text, [self])

    def __neg__(self): return self._un("negative", "-{0}")
    def __pos__(self): return self._un("positive", "+{0}")
    def __invert__(self): return self._un("invert", "~{0}")
    def __abs__(self): return self._un("abs", "abs({0})")
    __hash__ = None

    def __divmod__(self, o):
        return _run("divmod({0}, {1})", [self, o])

    def __rdivmod__(self, o):
        return _run("divmod({1}, {0})", [self, o])

    @property
    def T(self):
        return _run("{0}.T", [self])

    @property
    def mT(self):
        return _run("{0}.mT", [self])

    @property
    def real(self):
        return _run("{0}.real", [self])

    @property
    def imag(self):
        return _run("{0}.imag", [self])

    def __getitem__(self, key):
        b = _Binder([self])
        return b.run("%s[%s]" % (b.names[0], b.subscript(key)))

    def __copy__(self):
        """A new array object of the same values (its own binding: x[k] = v on one leaves the
        other as it was); no data is copied, arrays being values."""
        with self._ctx.lock:
            return ndarray(self._ctx, lib.loom_array_retain(self._p))

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __setitem__(self, key, value):
        """x[key] = value as a functional update: x is rebound to the new array (arrays that
        alias the old one keep its values, unlike NumPy's in-place write)."""
        b = _Binder([self])
        prog = "%s[%s] = %s" % (b.names[0], b.subscript(key), b.lit(value))
        self._assign(b.run(prog, out_name=b.names[0]))

    def _assign(self, new):
        """Rebinds this array object to new's values: NumPy's in-place updates (x[k] = v,
        x.sort(), np.put(x, ...)) as values (arrays that alias the old one keep its values)."""
        if new._ctx is not self._ctx:
            raise ValueError("loom: an in-place update across contexts")
        with self._ctx.lock:
            self._p = lib.loom_array_retain(new._p)
        self._sig = None
        self._own = _Ref(self._ctx, self._p)  # (the old one, if any, releases the old array)

    # NumPy's methods (x.sum(axis=1), x.reshape(2, 3), ...): installed by loom.numpy, which
    # this package imports last

    # the Array API's and DLPack's hooks
    def __array_namespace__(self, api_version=None):
        from . import numpy as lnp
        return lnp

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of the array's memory, without a copy (loom_to_dlpack): evaluated
        first, and with the context synchronised, so that any consumer stream may read it. A
        versioned capsule (max_version >= (1, 0)) is flagged read-only: loom's arrays are
        values, and other arrays may share the memory; a legacy one has no such flag, and the
        consumer must not write it either. copy=True exports a copy of the consumer's own.
        dl_device: None or the array's own device; (kDLCPU, 0) for an array on the GPU gives a
        host copy, unless copy=False (BufferError)."""
        return _dlpack.to_dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        """(kDLCPU, 0) on the CPU device; on a GPU (kDLCUDA, ordinal), or (kDLCPU, 0) for an
        array still in host memory (a NumPy array taken in, not yet computed with). Evaluates
        the array on a GPU."""
        return _dlpack.array_device(self)

    def _device_ptr(self):
        """The device address of element [0, ..., 0] (loom_array_device_ptr: evaluates and
        synchronises first); valid while the array lives. Raises for an array in host memory."""
        with self._ctx.lock:
            p = lib.loom_array_device_ptr(self._ctx._p, self._p)
            if not p:
                _raise(self._ctx._p, lib.loom_ctx_status(self._ctx._p))
        return p

    def to_device(self, device, stream=None):
        if device not in ("cpu", None):
            raise ValueError("loom.ndarray.to_device: only 'cpu' (a NumPy array) for now")
        return self.get()

    @property
    def device(self):
        return self._ctx.device


def _ctx_of(values):
    for v in values:
        if isinstance(v, ndarray):
            return v._ctx
    return get_context()


def asarray(obj, dtype=None, ctx=None, device=None, copy=None):
    """A loom array holding obj's values (copied): a loom array as it is (cast if dtype asks;
    with copy=True a new object, so that x[k] = v on the result leaves obj as it was), NumPy
    arrays, Python numbers and nested sequences as NumPy would read them."""
    if isinstance(device, Context):
        ctx = device
    if isinstance(obj, ndarray):
        have = _DT_NAMES[lib.loom_array_dtype(obj._p)]
        want = have if dtype is None else _canonical_name(dtype)
        if want != have:
            if copy is False:
                raise ValueError("asarray: copy=False, but %s to %s needs a copy" % (have, want))
            return _call_text("{0}.astype", [obj], (_dtype_name(dtype),), {})
        # copy: a new object, so that x[k] = v on it does not rebind obj (memory is shared:
        # arrays are immutable)
        return obj.__copy__() if copy else obj
    ctx = ctx or get_context()
    a = _np.asarray(obj, dtype=None if dtype is None else _np_dtype_of(dtype))
    if a.dtype.name not in _DT_NAMES:
        raise TypeError("loom has no dtype for NumPy's %s" % a.dtype)
    if a.dtype.byteorder not in "=|":  # the other byte order: swapped into the native one
        a = a.astype(a.dtype.newbyteorder("="))
    code = _DT_NAMES.index(a.dtype.name)
    if not a.flags.c_contiguous:  # (np.ascontiguousarray would make a 0-d array 1-d)
        a = a.copy(order="C")
    shape = (_lib.c_i64 * max(a.ndim, 1))(*a.shape)
    with ctx.lock:
        p = lib.loom_from_host(ctx._p, code, a.ndim, shape, a.ctypes.data)
        if lib.loom_array_is_nil(p):
            _raise(ctx._p, lib.loom_ctx_status(ctx._p))
        return ndarray(ctx, lib.loom_array_retain(p))


def from_dlpack(x, *, device=None, copy=None):
    """An array over the memory of any DLPack producer (NumPy, CuPy, PyTorch, JAX, loom),
    without a copy: host memory as a host array (uploaded when a GPU computes with it), CUDA
    memory of the context's GPU as a device array. The producer must not change the memory while
    loom may read it. copy=True: a copy of loom's own; copy=False: never a copy (BufferError
    when one is needed, e.g. CUDA memory into a CPU context, which copy=None copies to the
    host). device: None (the current context), a Context, or the current context's device."""
    return _dlpack.from_dlpack(x, _device_context(device, "from_dlpack"), copy)


def _device_context(device, fn):
    """The context a device= argument names."""
    if device is None:
        return get_context()
    if isinstance(device, Context):
        return device
    ctx = get_context()
    if device != ctx.device:
        raise ValueError("loom.%s: device %r is not the current context's (%s); pass a "
                         "loom.Context" % (fn, device, ctx.device))
    return ctx


def _canonical_name(dt):
    """loom's name of a dtype given as _dtype_name takes it, NumPy's aliases ('f8', 'i4',
    'double') included; bfloat16 without ml_dtypes."""
    name = _dtype_name(dt)
    return name if name in _DT_NAMES else _np.dtype(name).name


def _np_dtype_of(dt):
    name = _dtype_name(dt)
    return _np_dtype(_DT_NAMES.index(name)) if name in _DT_NAMES else _np.dtype(name)


def eval(*arrays):
    """Computes the arrays together (kernels shared between them); returns them."""
    if not arrays:
        return arrays
    ctx = arrays[0]._ctx
    ps = (P * len(arrays))(*[a._p for a in arrays])
    with ctx.lock:
        st = lib.loom_eval(ctx._p, len(arrays), ps)
        if st:
            _raise(ctx._p, st)
    return arrays


class _Ref:
    """The reference to a loom array that an ndarray owns, released when the ndarray (its one
    holder) goes while its context is open."""
    __slots__ = ("ctx", "p")

    def __init__(self, ctx, p):
        self.ctx = ctx
        self.p = p

    def __del__(self):
        try:
            if self.p and self.ctx._p:
                lib.loom_array_release(self.p)
        except Exception:
            pass


# ---- calls straight to the C builders: elementwise ufuncs with arrays and Python numbers ----

_OPS = {"+": "add", "-": "subtract", "*": "multiply", "/": "true_divide", "//": "floor_divide",
        "%": "remainder", "**": "power", "&": "bitwise_and", "|": "bitwise_or",
        "^": "bitwise_xor", "<<": "left_shift", ">>": "right_shift", "<": "less",
        "<=": "less_equal", ">": "greater", ">=": "greater_equal", "==": "equal",
        "!=": "not_equal"}
_FAST = _lib.builders()
_I64 = 1 << 63


# builders applied to loom arrays and Python numbers (weak, as NEP 50 says): None when a
# value needs the general path (NumPy arrays, lists, huge integers, other contexts, arrays
# loom.jit traces)
def _fast1(builder, a):
    if type(a) is not ndarray:
        return None
    ctx = a._ctx
    lock = ctx.lock  # (acquire and release: `with` costs two bound methods and more)
    lock.acquire()
    try:
        pa = a._p
        return _wrap(ctx, builder(ctx._p, pa), pa)
    finally:
        lock.release()


def _fast2(builder, a, b):
    ta, tb = type(a), type(b)
    aa, ab = ta is ndarray, tb is ndarray
    if aa:
        ctx = a._ctx
        if ab:
            if b._ctx is not ctx:
                return None
        elif tb not in _NUMBERS:
            return None
    elif ab:
        ctx = b._ctx
        if ta not in _NUMBERS:
            return None
    else:
        return None
    lock = ctx.lock
    lock.acquire()
    try:
        # numbers become weak scalars under the lock: straight from the cache where its key is
        # (type, value) (ints, bools, floats but zeros and NaNs), else through weak
        pa = a._p if aa else ctx._weak.get((ta, a)) or ctx.weak(ta, a)
        pb = b._p if ab else ctx._weak.get((tb, b)) or ctx.weak(tb, b)
        if pa is None or pb is None:
            return None
        return _wrap(ctx, builder(ctx._p, pa, pb), pa, pb)
    finally:
        lock.release()


_NUMBERS = frozenset((float, int, bool, complex))


def _wrap(ctx, p, pa, pb=None):
    """A builder's result p as a loom array borrowed from ctx's scope (the caller holds ctx's
    lock); retained when it is an operand pa or pb (a builder may return one as it is: then
    no scope holds it for Python)."""
    if not p or p == ctx._nil:
        _raise(ctx._p, lib.loom_ctx_status(ctx._p))
    if p == pa or p == pb:
        return ndarray(ctx, lib.loom_array_retain(p))
    r = _new_array(ndarray)
    r._ctx, r._p, r._sig, r._own = ctx, p, None, None
    young = ctx._young
    young.append(_weakref(r))
    if len(young) >= _RECYCLE:
        ctx._recycle()
    return r


# ---- calls as expression text ----

_REPR_FLOAT = {float("inf"): "inf", float("-inf"): "(-inf)"}


def _holds_loom(v):
    """Whether a list holds a loom array, at any depth of nested lists."""
    return any(isinstance(x, ndarray) or isinstance(x, list) and _holds_loom(x) for x in v)


class _Binder:
    """Writes Python values as expression text, binding arrays to the names _0, _1, ... (while
    loom.jit traces: traced arrays to their variables, other arrays to the trace's captures)."""

    def __init__(self, arrays=()):
        self.arrays = []
        self.names = []
        self.ctx = None
        self.trace = getattr(_tls, "trace", None)
        for a in arrays:
            self.bind(a)

    def bind(self, a):
        if not isinstance(a, ndarray):
            a = asarray(a, ctx=self.ctx or _ctx_of([]))
        if self.ctx is None:
            self.ctx = a._ctx
        if self.trace is not None:
            name = a._name if isinstance(a, _Tracer) else self.trace.capture(a)
            if name in self.names:
                return name
        else:
            name = "_%d" % len(self.arrays)
        self.arrays.append(a)
        self.names.append(name)
        return name

    def lit(self, v):
        if isinstance(v, ndarray):
            return self.bind(v)
        if v is None:
            return "None"
        if v is Ellipsis:
            return "..."
        if isinstance(v, _np.generic):  # NumPy's scalars are strong (NEP 50): 0-d arrays
            return self.bind(asarray(v, ctx=self.ctx or get_context()))
        if isinstance(v, bool):
            return "True" if v else "False"
        if isinstance(v, int):
            return "(%d)" % int(v)
        if isinstance(v, float):
            f = float(v)
            if f != f:
                return "nan"
            return _REPR_FLOAT.get(f, "(%r)" % f)
        if isinstance(v, complex):
            c = complex(v)
            return "complex(%s, %s)" % (self.lit(c.real), self.lit(c.imag))
        if isinstance(v, str):
            return repr(v)
        if isinstance(v, _np.dtype) or (isinstance(v, type) and (
                issubclass(v, _np.generic) or v in (float, int, bool, complex))):
            return repr(_dtype_name(v))
        if isinstance(v, slice):  # bounds as NumPy takes them: None or operator.index(x)
            return ":".join("" if x is None else self.lit(operator.index(x))
                            for x in (v.start, v.stop, v.step))
        if isinstance(v, tuple):
            return "(" + "".join(self.lit(x) + ", " for x in v) + ")"
        if isinstance(v, list):
            if _holds_loom(v):  # (np.block's nested lists of arrays, too: lists stay lists)
                return "[" + ", ".join(self.lit(x) if not isinstance(x, list) or _holds_loom(x)
                                       else self.lists(x) for x in v) + "]"
            if any(isinstance(x, _np.ndarray) and x.ndim for x in v):
                try:
                    return self.bind(asarray(v, ctx=self.ctx or get_context()))
                except ValueError:  # NumPy arrays of several shapes: a sequence (hstack's)
                    return "[" + ", ".join(self.lit(x) for x in v) + "]"
            return self.bind(asarray(v, ctx=self.ctx or get_context()))
        if isinstance(v, _np.ndarray):
            return self.bind(asarray(v, ctx=self.ctx or get_context()))
        raise TypeError("loom: cannot pass %s (%r) to loom" % (type(v).__name__, v))

    def lists(self, v):
        """A list inside a list of loom arrays: written as a list, its lists too."""
        return "[" + ", ".join(self.lists(x) if isinstance(x, list) else self.lit(x)
                               for x in v) + "]"

    def arg(self, v):
        """A call's argument: lit, but a slice is Python's slice(start, stop, step) there."""
        if isinstance(v, slice):
            return "slice(%s)" % ", ".join("None" if x is None else self.lit(operator.index(x))
                                           for x in (v.start, v.stop, v.step))
        return self.lit(v)

    def subscript(self, key):
        items = key if isinstance(key, tuple) else (key,)
        if not items:
            return "..."
        return ", ".join(self.lit(x) for x in items)

    def run(self, program, out_name=None):
        ctx = self.ctx or get_context()
        n = len(self.arrays)
        names = _names(n) if self.trace is None else _c_names(self.names)
        arrs = (P * max(n, 1))(*[a._p for a in self.arrays])
        with ctx.lock:
            # the results join the context's recycled scope, as the fast path's do
            if out_name is not None:
                outs = (P * 1)()
                on = (_lib.c_str * 1)(out_name.encode())
                st = lib.loom_parse(ctx._p, program.encode(), n, names, arrs, 1, on, outs)
                items, tup = [outs[0]], False
            else:
                outs, cnt, tup = ctx._outs
                st = lib.loom_parse_items(ctx._p, program.encode(), n, names, arrs, 16, outs,
                                          ctypes.byref(cnt), ctypes.byref(tup))
                items, tup = outs[:cnt.value], bool(tup.value)
            if st:
                _raise(ctx._p, st)
            res = [ndarray(ctx, lib.loom_array_retain(p)) for p in items]
            ctx._tick()
        if self.trace is not None:
            res = self.trace.record(program, out_name, res, tup)
        return tuple(res) if tup else res[0]


_NAME_ARRAYS = {}


def _c_names(names):
    """A C array of these names (the caller keeps it while C reads it)."""
    return (_lib.c_str * max(len(names), 1))(*[x.encode() for x in names])


def _names(n):
    """The C array of the names _0 .. _n-1 (kept: the same for every call of n arrays)."""
    a = _NAME_ARRAYS.get(n)
    if a is None:
        a = _NAME_ARRAYS[n] = (_lib.c_str * max(n, 1))(*[("_%d" % i).encode() for i in range(n)])
    return a


def _run(fmt, values):
    b = _Binder()
    texts = [b.lit(v) for v in values]
    return b.run(fmt.format(*texts))


def _call_text(head, values, args, kwargs):
    """head (with {0}.. for values) called with args and kwargs: `head(arg, ..., key=val)`.

    The Array API's device= (None, a Context, or the current context's device) chooses the
    context; copy= is accepted and has no effect: arrays are values, so whether a result shares
    memory with an operand is never observable."""
    if "device" in kwargs or "copy" in kwargs:
        kwargs = dict(kwargs)
        dev = kwargs.pop("device", None)
        kwargs.pop("copy", None)
        if isinstance(dev, Context):
            with dev:
                return _call_text(head, values, args, kwargs)
        if dev is not None and dev != get_context().device and dev != "cpu":
            raise ValueError("loom: device %r is not this context's (%s); use a loom.Context" %
                             (dev, get_context().device))
    b = _Binder()
    texts = [b.lit(v) for v in values]
    parts = [b.arg(a) for a in args] + ["%s=%s" % (k, b.arg(v)) for k, v in kwargs.items()]
    return b.run("%s(%s)" % (head.format(*texts), ", ".join(parts)))


# ---- loom.jit: a function recorded once as a program, replayed with new arrays ----

class _Tracer(ndarray):
    """An array inside a function loom.jit is tracing: a real (lazy) array, so shapes, dtypes
    and errors are known while tracing, and the program variable that holds it. Its values are
    not: they change from call to call."""

    def __init__(self, ctx, p, name):
        ndarray.__init__(self, ctx, p)
        self._name = name

    def _no_value(self, *args, **kwargs):
        raise TypeError("loom.jit: the values of a traced array are not known while the function "
                        "is traced (it runs again with other arrays); compute them outside, or "
                        "pass them as non-array arguments, which are part of the cache key")

    get = item = __array__ = __float__ = __int__ = __complex__ = __index__ = _no_value
    __bool__ = __iter__ = __dlpack__ = _no_value

    def __copy__(self):  # recorded, as x.copy() is
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __repr__(self):
        return "loom.jit traced array(shape=%s, dtype=%s)" % (self.shape, self.dtype)

    __str__ = __repr__


class _Trace:
    """The statements of a traced function, and the arrays it captured from outside."""

    def __init__(self):
        self.lines = []
        self.captured = []
        self.keep = []
        self.capture_names = {}
        self.n = 0

    def capture(self, a):
        """The program name of an array from outside the function: bound on every run to the
        value it has now (a later x[k] = v on it while tracing is a statement of the
        program, not a change of what is bound)."""
        name = self.capture_names.get(id(a))
        if name is None:
            name = self.capture_names[id(a)] = "_c%d" % len(self.captured)
            self.keep.append(a)  # (the id stays this object's while the trace runs)
            with a._ctx.lock:
                self.captured.append(ndarray(a._ctx, lib.loom_array_retain(a._p)))
        return name

    def record(self, program, out_name, res, tup):
        """The binder's program as statements; its results as traced arrays."""
        k = self.n
        self.n += 1
        if out_name is not None:  # x[key] = v: the program's own statement rebinds out_name
            self.lines.append(program)
            return [_Tracer(r._ctx, lib.loom_array_retain(r._p), out_name) for r in res]
        self.lines.append("_t%d = %s" % (k, program))
        names = ["_t%d_%d" % (k, i) for i in range(len(res))] if tup else ["_t%d" % k]
        if tup:
            self.lines.extend("%s = _t%d[%d]" % (n, k, i) for i, n in enumerate(names))
        return [_Tracer(r._ctx, lib.loom_array_retain(r._p), n) for r, n in zip(res, names)]


class _Program:
    """One traced function's program on one context, with its bindings."""

    def __init__(self, ctx, text, n_args, captured, tup):
        self.ctx = ctx
        self.text = text
        self.captured = captured
        self.tup = tup
        p = P()
        with ctx.lock:
            st = lib.loom_program_create(ctx._p, text.encode(), ctypes.byref(p))
            if st:
                _raise(ctx._p, st)
        self._p = p
        ctx._programs.add(self)
        names = ["_a%d" % i for i in range(n_args)] + ["_c%d" % i for i in range(len(captured))]
        self.n = len(names)
        self.names = _c_names(names)
        self.arrs = (P * max(self.n, 1))()
        for i, c in enumerate(captured):
            self.arrs[n_args + i] = c._p
        self.n_args = n_args
        self.outs = (P * 16)()
        self.cnt = _lib.c_i32()
        self.tuple = ctypes.c_int()
        # the run's arguments as ctypes objects made once (ctypes passes an object of the
        # argument's own type as it is, where an int is converted on every call)
        V = ctypes.c_void_p
        self.args = (V(ctx._p), V(p.value), _lib.c_i32(self.n), V(ctypes.addressof(self.names)),
                     V(ctypes.addressof(self.arrs)), _lib.c_i32(16),
                     V(ctypes.addressof(self.outs)), V(ctypes.addressof(self.cnt)),
                     V(ctypes.addressof(self.tuple)))

    def run(self, arrays, lazy):
        ctx = self.ctx
        arrs = self.arrs
        outs, cnt = self.outs, self.cnt
        with ctx.lock:  # (arrs, outs and cnt are the program's: one run at a time)
            for i, a in enumerate(arrays):
                if a._ctx is not ctx:
                    raise ValueError("loom.jit: arrays of different contexts")
                arrs[i] = a._p
            st = (_lib.program_run_addr if lazy else _lib.program_eval_addr)(*self.args)
            if st:
                _raise(ctx._p, st)
            # the results borrowed from the scope, as the builders' (the run puts an array
            # bound to a name and given back as it is in the scope too)
            if self.tup:
                res = tuple(_wrap(ctx, p, None) for p in outs[:cnt.value])
            else:
                res = _wrap(ctx, outs[0], None)
            ctx._tick()
        return res

    def close(self):
        if self._p:
            lib.loom_program_destroy(self._p)
            self._p = None

    def __del__(self):
        try:
            if self._p and self.ctx._p:
                self.ctx._programs.discard(self)
                self.close()
        except Exception:
            pass


def jit(fn=None, *, lazy=False):
    """fn recorded once per signature and replayed: the first call with a new signature (the
    arrays' context, shapes and dtypes, and the other arguments' values, which must be
    hashable) runs fn on traced arrays and keeps what it did as one loom program
    (loom_program_create); later calls bind the new arrays and run the program in C
    (loom_program_run), with no Python per operation. As JAX's jit, the results are computed
    when the call returns (one eval, queued on the device); lazy=True returns them lazy
    instead, to fuse with what follows. fn must take arrays and Python values and return an
    array or a tuple of arrays, and must not ask for the values of its arrays; arrays it uses
    from outside are captured as they were when traced. The kept programs hold their context
    (and the captured arrays) until f.cache_clear()."""
    if fn is None:
        return lambda f: jit(f, lazy=lazy)
    cache = {}

    def traced(*args):
        if getattr(_tls, "trace", None) is not None:  # inside another's trace: part of it
            return fn(*args)
        if len(args) == 1 and type(args[0]) is ndarray:  # the common case, without a list
            a = args[0]
            prog = cache.get((id(a._ctx), a._signature()))
            if prog is not None:
                return prog.run(args, lazy)
        key = [None]
        arrays = []
        ctx = None
        for a in args:
            if isinstance(a, ndarray):
                if ctx is None:
                    ctx = a._ctx
                arrays.append(a)
                key.append(a._signature())
            else:
                key.append(("static", type(a), _key_of(a)))
        if ctx is None:
            ctx = get_context()
        key[0] = id(ctx)
        key = tuple(key)
        prog = cache.get(key)
        if prog is None:
            prog = cache[key] = _trace(fn, ctx, args)
        return prog.run(arrays, lazy)

    traced.__name__ = getattr(fn, "__name__", "jit")
    traced.__doc__ = fn.__doc__
    traced.__wrapped__ = fn
    traced.cache_clear = cache.clear
    traced.cache_size = lambda: len(cache)
    return traced


def _key_of(v):
    """A cache key for a Python value: floats and complex numbers by their bits (-0.0 is not
    0.0, and a NaN is the same NaN), tuples item by item, anything else itself."""
    if type(v) is float:
        return _struct.pack("<d", v)
    if type(v) is complex:
        return _struct.pack("<dd", v.real, v.imag)
    if type(v) is tuple:
        return tuple(_key_of(x) for x in v)
    return v


def _trace(fn, ctx, args):
    if getattr(_tls, "trace", None) is not None:
        raise NotImplementedError("loom.jit: a jit function called while another is traced")
    tr = _Trace()
    targs = []
    n = 0
    for a in args:
        if isinstance(a, ndarray):
            targs.append(_Tracer(a._ctx, lib.loom_array_retain(a._p), "_a%d" % n))
            n += 1
        else:
            targs.append(a)
    _tls.trace = tr
    try:
        out = fn(*targs)
    finally:
        _tls.trace = None
    tup = isinstance(out, (tuple, list))
    outs = list(out) if tup else [out]
    names = []
    for o in outs:
        if isinstance(o, _Tracer):
            names.append(o._name)
        elif isinstance(o, ndarray):
            names.append(tr.capture(o))
        else:
            raise TypeError("loom.jit: %s returned %s; it must return loom arrays" %
                            (getattr(fn, "__name__", "the function"), type(o).__name__))
    if not outs:
        raise TypeError("loom.jit: the function returned an empty tuple")
    last = "(%s,)" % ", ".join(names) if tup else names[0]
    return _Program(ctx, "\n".join(tr.lines + [last]), n, list(tr.captured), tup)


def _operator_methods():
    """ndarray's binary operators, each bound to its C builder (the general path, expression
    text, where the fast one declines)."""
    names = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod",
             "**": "pow", "@": "matmul", "&": "and", "|": "or", "^": "xor", "<<": "lshift",
             ">>": "rshift"}
    compare = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}

    def make(op, reflected):
        f = _FAST.get(_OPS.get(op))
        builder = f[1] if f is not None else None
        text = ("{1} %s {0}" if reflected else "{0} %s {1}") % op

        if builder is None:
            def method(self, other):
                return _run(text, [self, other])
        elif reflected:
            def method(self, other):
                r = _fast2(builder, other, self)
                return r if r is not None else _run(text, [self, other])
        else:
            def method(self, other):
                r = _fast2(builder, self, other)
                return r if r is not None else _run(text, [self, other])
        return method

    for op, n in names.items():
        setattr(ndarray, "__%s__" % n, make(op, False))
        setattr(ndarray, "__r%s__" % n, make(op, True))
    for op, n in compare.items():
        setattr(ndarray, "__%s__" % n, make(op, False))


_operator_methods()


from . import numpy as _numpy  # noqa: E402,F401 (installs NumPy's array methods on ndarray)
