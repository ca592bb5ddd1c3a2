"""`import loom.numpy as lnp`: NumPy's namespace on loom.

Every function of loom's expression language is a function here, generated from the library's
own table (loom_expr_function): a function added to the C library appears in Python with no
glue. numpy.linalg's and numpy.fft's functions are also in `lnp.linalg` and `lnp.fft`. Arrays
and dtypes go in as NumPy's do (NumPy arrays, Python numbers and sequences, np.float32 or
'float32'); results are `loom.ndarray`s, lazy until a value is needed."""
import sys as _sys
import types as _types

import numpy as _np

from . import _lib
from . import (Context, LinAlgError, asarray, eval, get_context, ndarray,  # noqa: F401
               _call_text, _dtype_name, _fast, _FAST)

__array_api_version__ = "2024.12"

# NumPy's dtype objects, in and out
bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, None

_TABLE = _lib.functions()
_METHODS = {name for name, _, method in _TABLE if method}
_BUILTIN = {"abs", "round", "min", "max", "sum", "all", "any", "pow", "divmod", "complex"}


def _make(name, params, head=None):
    head = head or name
    fast = _FAST.get(name)
    if fast is not None and head == name:
        arity, builder = fast

        def f(*args, **kwargs):
            if not kwargs and len(args) == arity:
                r = _fast(builder, args)
                if r is not None:
                    return r
            return _call_text(head, [], args, kwargs)
    else:
        def f(*args, **kwargs):
            return _call_text(head, [], args, kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = "numpy.%s(%s) on loom (the expression language's %s)." % (
        head, params.replace(",", ", "), head)
    return f


_mod = _sys.modules[__name__]
_names = []
for _name, _params, _ in _TABLE:
    if not hasattr(_mod, _name) or _name in _BUILTIN:
        setattr(_mod, _name, _make(_name, _params))
        _names.append(_name)

# numpy.linalg and numpy.fft: the functions NumPy keeps there, called by their qualified names
linalg = _types.ModuleType(__name__ + ".linalg", "numpy.linalg on loom")
fft = _types.ModuleType(__name__ + ".fft", "numpy.fft on loom")
linalg.LinAlgError = LinAlgError
for _sub, _np_sub, _prefix in ((linalg, _np.linalg, "linalg."), (fft, _np.fft, "fft.")):
    for _name, _params, _ in _TABLE:
        if hasattr(_np_sub, _name) or _name in ("matrix_transpose", "vecdot", "svdvals",
                                                "vector_norm", "matrix_norm"):
            setattr(_sub, _name, _make(_name, _params, _prefix + _name))
    _sys.modules[_sub.__name__] = _sub


def from_dlpack(x, device=None, copy=None):
    """An array from any DLPack producer (through NumPy: a host copy)."""
    return asarray(_np.from_dlpack(x))


def __dir__():
    return sorted(set(globals()) | set(_names))
