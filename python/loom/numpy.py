"""`import loom.numpy as lnp`: NumPy's namespace on loom.

Every function of loom's expression language is a function here, generated from the library's
own table (loom_expr_function): a function added to the C library appears in Python with no
glue. numpy.linalg's and numpy.fft's functions are also in `lnp.linalg` and `lnp.fft`;
numpy.random's Generator and module functions are in `lnp.random` (python/loom/random.py). Arrays
and dtypes go in as NumPy's do (NumPy arrays, Python numbers and sequences, np.float32 or
'float32'); results are `loom.ndarray`s, lazy until a value is needed."""
import builtins as _builtins
import inspect as _inspect
import os as _os
import operator as _operator
import sys as _sys
import types as _types

import numpy as _np

from . import _lib
from . import (Context, LinAlgError, asarray, eval, from_dlpack, get_context,  # noqa: F401
               ndarray, _Binder, _call_text, _canonical_name, _fast1, _fast2, _FAST,
               _np_dtype_of, _raise)

__array_api_version__ = "2024.12"

# NumPy's dtype objects, in and out
bool = bool_ = _np.bool_  # noqa: A001 (the Array API's name)
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, None

_TABLE = _lib.functions()
_METHODS = {name for name, _, method in _TABLE if method}
_BUILTIN = {"abs", "round", "min", "max", "sum", "all", "any", "pow", "divmod", "complex"}
_OWN = {"finfo", "iinfo", "result_type", "can_cast", "isdtype"}  # Python objects, not arrays
# Python's own, which calls write as text (insert's and delete's obj): here Python's
_SYNTAX = {"slice": _builtins.slice}


# Parameters that take a shape, axes or an extent: NumPy reads a list there as a tuple and an
# integer-valued array (a 0-d loom array) through operator.index, where elsewhere a list is an
# array-like. (The Array API's `ones([n])`, and scikit-learn's counts as 0-d arrays.)
_SHAPE_LIKE = {"shape", "newshape", "axes", "axis", "s", "reps", "source", "destination", "n",
               "N", "M", "k", "num", "new_shape", "indices_or_sections", "pad_width",
               "stat_length", "dims"}


def _shape_like(v, name=None):
    if isinstance(v, (list, tuple)):  # nested too: tensordot's axes=((1,), (0,))
        return tuple(x if type(x) is int or x is None else _shape_like(x) for x in v)
    if isinstance(v, (ndarray, _np.ndarray)) and v.ndim == 0 or isinstance(v, _np.integer):
        v = _index(v)
    if name == "k" and type(v) is int and not -(1 << 62) < v < 1 << 62:
        # a diagonal offset (eye, tri, tril, triu, diag) past any extent, or rot90's count:
        # one in int64 that is as far and the same modulo 4
        v = (1 << 62 if v > 0 else -(1 << 62)) + v % 4
    return v


def _index(x):
    """operator.index for integer-valued arguments; other values as they are (the library
    reports what it refuses)."""
    if isinstance(x, _np.integer):
        return int(x)
    if isinstance(x, _np.ndarray):
        return int(x) if x.dtype.kind in "biu" else x
    return x if isinstance(x, (_np.generic, float, complex, str)) else _operator.index(x)


def _shaped(f, params):
    """f with its shape-like parameters (by position and by name) read as NumPy reads them."""
    ps = [p for p in params.split(",") if p]
    names = [p.rstrip("?*") for p in ps]
    star = next((i for i, p in enumerate(ps) if p.endswith("*")), len(ps))
    at = [i for i, n in enumerate(names) if n in _SHAPE_LIKE]
    if not at:
        return f
    pos = [i for i in at if i < star]  # (those after a variadic one are keyword-only)
    # (this module's any, all, sum, ... are NumPy's: not used here)

    def g(*args, **kwargs):
        if pos and pos[0] < len(args):
            args = list(args)
            for i in pos:
                if i < len(args):
                    args[i] = _shape_like(args[i], names[i])
        for k in kwargs:
            if k in _SHAPE_LIKE:
                kwargs[k] = _shape_like(kwargs[k], k)
        return f(*args, **kwargs)
    return g


def _method_args(name, args, kwargs):
    """x.NAME(*args, **kwargs)'s shape-like arguments read as NumPy reads them (x takes the
    first parameter; x.reshape(2, 3)'s integers are the shape)."""
    at = _METHOD_AT.get(name)
    if at is None:
        return args, kwargs
    if name in ("reshape", "transpose"):  # the positional arguments are the tuple
        args = tuple(_shape_like(a) for a in args)
    elif args:
        args = tuple(_shape_like(a) if i in at else a for i, a in enumerate(args))
    for k in kwargs:
        if k in _SHAPE_LIKE:
            kwargs[k] = _shape_like(kwargs[k])
    return args, kwargs


_METHOD_AT = {}
for _name, _params, _method in _TABLE:
    _ps = [p.rstrip("?*") for p in _params.split(",") if p][1:]
    if _method and any(p in _SHAPE_LIKE for p in _ps):
        _METHOD_AT[_name] = {i for i, p in enumerate(_ps) if p in _SHAPE_LIKE}


class _LibraryDefault:
    """The default of an optional parameter in a function's signature: the library's own."""

    def __repr__(self):
        return "<default>"


_DEFAULT = _LibraryDefault()


# keywords every call takes (_call_text reads them), shown in the signatures of the functions
# whose Array API or NumPy forms have them
_DEVICE = ("arange", "empty", "empty_like", "eye", "full", "full_like", "linspace", "ones",
           "ones_like", "zeros", "zeros_like", "astype")
_COPY = ("astype", "reshape")


def _signature(name, params):
    """The inspect.Signature of a table function's parameters ("a,axis?,arrays*"): positional
    or keyword, a "*" one variadic and those after it keyword-only, then device= and copy=
    where the function's standard form has them, so that inspect and the Array API's signature
    checks see the names (the functions themselves take *args, **kwargs)."""
    out, kind = [], _inspect.Parameter.POSITIONAL_OR_KEYWORD
    for p in params.split(","):
        if not p:
            continue
        if p.endswith("*"):
            out.append(_inspect.Parameter(p[:-1], _inspect.Parameter.VAR_POSITIONAL))
            kind = _inspect.Parameter.KEYWORD_ONLY
        elif p.endswith("?"):
            out.append(_inspect.Parameter(p[:-1], kind, default=_DEFAULT))
        else:
            out.append(_inspect.Parameter(p, kind))
    for extra, names in (("copy", _COPY), ("device", _DEVICE)):
        if name in names:
            out.append(_inspect.Parameter(extra, _inspect.Parameter.KEYWORD_ONLY, default=None))
    return _inspect.Signature(out)


def _make(name, params, head=None):
    head = head or name
    fast = _FAST.get(name)
    if fast is not None and head == name:
        arity, builder = fast

        def f(*args, **kwargs):
            if not kwargs and len(args) == arity:
                r = _fast1(builder, args[0]) if arity == 1 else _fast2(builder, *args)
                if r is not None:
                    return r
            return _call_text(head, [], args, kwargs)
    else:
        def f(*args, **kwargs):
            return _call_text(head, [], args, kwargs)
    f = _shaped(f, params)
    f.__name__ = f.__qualname__ = name
    f.__signature__ = _signature(name, params)
    f.__doc__ = "numpy.%s(%s) on loom (the expression language's %s)." % (
        head, params.replace(",", ", "), head)
    return f


_mod = _sys.modules[__name__]
_names = []
for _name, _f in _SYNTAX.items():
    setattr(_mod, _name, _f)
for _name, _params, _ in _TABLE:
    if _name in _OWN or _name in _SYNTAX or "." in _name:  # random.NAME: in lnp.random
        continue
    if not hasattr(_mod, _name) or _name in _BUILTIN:
        setattr(_mod, _name, _make(_name, _params))
        _names.append(_name)

# Results that NumPy and the Array API name: the tuples come back as these
import collections as _collections  # noqa: E402

_NAMED = {
    "unique_all": ("UniqueAllResult", "values indices inverse_indices counts"),
    "unique_counts": ("UniqueCountsResult", "values counts"),
    "unique_inverse": ("UniqueInverseResult", "values inverse_indices"),
    "svd": ("SVDResult", "U S Vh"),
    "eigh": ("EighResult", "eigenvalues eigenvectors"),
    "eig": ("EigResult", "eigenvalues eigenvectors"),
    "qr": ("QRResult", "Q R"),
    "slogdet": ("SlogdetResult", "sign logabsdet"),
    "lstsq": ("LstsqResult", "x residuals rank s"),
}
_TYPES = {k: _collections.namedtuple(n, f) for k, (n, f) in _NAMED.items()}


def _named(name, f):
    t = _TYPES.get(name)
    if t is None:
        return f

    def g(*args, **kwargs):
        r = f(*args, **kwargs)
        return t(*r) if isinstance(r, tuple) and len(r) == len(t._fields) else r
    g.__name__, g.__qualname__, g.__doc__ = f.__name__, f.__qualname__, f.__doc__
    g.__signature__ = f.__signature__
    return g


for _name in list(_names):
    setattr(_mod, _name, _named(_name, getattr(_mod, _name)))


# NumPy's in-place updates: the expression language's functions return the updated array; here,
# as NumPy's, they rebind their first argument to it (as x[key] = v does: an alias taken before
# keeps the old values) and return None. A NumPy array cannot be updated by loom.
_IN_PLACE = ("put", "put_along_axis", "place", "putmask", "copyto", "fill_diagonal")


# the values of these updates: a list or tuple of numbers becomes an array of the target's dtype
# as NumPy converts it (Python's numbers by value: 300 into int8 an OverflowError, 1.5 into
# int8 1), where an array of the values is cast by the function's rule (place's 'safe')
_VALUES_AT = {"put": (2, "v"), "put_along_axis": (2, "values"), "place": (2, "vals"),
              "putmask": (2, "values"), "fill_diagonal": (1, "val")}


def _listed(v, dtype):
    if _holds_arrays(v):
        return v
    return _np.asarray(v, dtype=dtype)


def _holds_arrays(v):
    return _builtins.any(isinstance(x, (ndarray, _np.ndarray)) or
               isinstance(x, (list, tuple)) and _holds_arrays(x) for x in v)


def _in_place(name, f):
    first = next(iter(f.__signature__.parameters))

    def g(*args, **kwargs):
        target = args[0] if args else kwargs.get(first)
        if not isinstance(target, ndarray):
            raise TypeError("%s: %s must be a loom.ndarray, not %s (loom cannot write into "
                            "it; take loom.numpy.asarray of it first)"
                            % (name, first, type(target).__name__))
        if name in _VALUES_AT:  # NumPy reads a list of values in the target's dtype
            at, pname = _VALUES_AT[name]
            if len(args) > at and isinstance(args[at], (list, tuple)):
                args = args[:at] + (_listed(args[at], target.dtype),) + args[at + 1:]
            elif isinstance(kwargs.get(pname), (list, tuple)):
                kwargs[pname] = _listed(kwargs[pname], target.dtype)
        new = f(*args, **kwargs)
        if new._ctx is not target._ctx:
            raise ValueError("%s: the result is in another context than %s" % (name, first))
        target._assign(new)
    g.__name__, g.__qualname__, g.__signature__ = f.__name__, f.__qualname__, f.__signature__
    g.__doc__ = ("numpy.%s on loom: rebinds its first argument to the updated array (an alias "
                 "keeps the old values) and returns None." % name)
    return g


for _name in _IN_PLACE:
    setattr(_mod, _name, _in_place(_name, getattr(_mod, _name)))


# NumPy's ufunc methods on the table's ufuncs, as attributes of the functions (calls keep
# their plain-function speed): reduce and accumulate name loom's reductions and scans, outer
# broadcasts, at is the expression language's np.NAME.at statement. nin, nout, nargs and
# identity are NumPy's.
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "fmax": "nanmax", "fmin": "nanmin", "logical_and": "all", "logical_or": "any"}
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}
_AT = ("add", "minimum", "maximum")
_NOVALUE = _np._NoValue


def _unsupported(name, method, what):
    return NotImplementedError("loom: %s.%s: %s" % (name, method, what))


def _ufunc_methods(name, f):
    u = getattr(_np, name)
    f.nin, f.nout, f.nargs, f.identity = u.nin, u.nout, u.nargs, u.identity
    if u.nin != 2:
        return

    def outer(A, B, **kwargs):
        A, B = asarray(A), asarray(B)
        return f(A.reshape(A.shape + (1,) * B.ndim), B, **kwargs)
    f.outer = outer

    def reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=_NOVALUE,
               where=True):
        if name not in _REDUCE:
            raise _unsupported(name, "reduce", "loom reduces with %s" % ", ".join(
                "%s (%s)" % kv for kv in _REDUCE.items()))
        if out is not None or initial is not _NOVALUE or where is not True:
            raise _unsupported(name, "reduce", "out=, initial= and where= are not supported")
        kw = {"axis": axis, "keepdims": keepdims}
        if dtype is not None:
            if name not in ("add", "multiply"):
                raise _unsupported(name, "reduce", "dtype= is for add and multiply")
            kw["dtype"] = dtype
        return getattr(_mod, _REDUCE[name])(array, **kw)
    f.reduce = reduce

    def accumulate(array, axis=0, dtype=None, out=None):
        if name not in _ACCUMULATE or out is not None:
            raise _unsupported(name, "accumulate", "loom accumulates with add (cumsum) and "
                               "multiply (cumprod), without out=")
        return getattr(_mod, _ACCUMULATE[name])(array, axis=axis, dtype=dtype)
    f.accumulate = accumulate

    def at(a, indices, b=None):
        """np.NAME.at(a, indices, b): every duplicate index combined in order; a is rebound
        to the result (an alias keeps the old values), as x[key] = v is."""
        if name not in _AT or b is None:
            raise _unsupported(name, "at", "add.at, minimum.at and maximum.at (with values) "
                               "are (and x[indices] = v)")
        if not isinstance(a, ndarray):
            raise TypeError("%s.at: a must be a loom.ndarray, not %s (loom cannot write into "
                            "it)" % (name, type(a).__name__))
        bd = _Binder([a])
        idx = ("(" + "".join(bd.arg(x) + ", " for x in indices) + ")"
               if isinstance(indices, tuple) else bd.arg(indices))
        prog = "np.%s.at(%s, %s, %s)" % (name, bd.names[0], idx, bd.lit(
            _listed(b, a.dtype) if isinstance(b, (list, tuple)) else b))
        a._assign(bd.run(prog, out_name=bd.names[0]))
    f.at = at


for _name in list(_names):
    if isinstance(getattr(_np, _name, None), _np.ufunc):
        _ufunc_methods(_name, getattr(_mod, _name))


def _tupled(v):
    return tuple(_tupled(x) if isinstance(x, list) else x for x in v)


def _histogram_args(args, kwargs, at, per_axis):
    """The histograms' bins= and range= as NumPy reads them (at: bins's position): range= a
    pair, or one pair or None per axis, where a list would otherwise become an array; for
    histogram2d and histogramdd (per_axis), a list of bins holds one count or one array of
    edges per axis, not the edges themselves."""
    args = list(args)
    for i, name in ((at, "bins"), (at + 1, "range")):
        if name == "bins" and not per_axis:
            continue
        if len(args) > i and isinstance(args[i], list):
            args[i] = _tupled(args[i]) if name == "range" else tuple(args[i])
        if isinstance(kwargs.get(name), list):
            v = kwargs[name]
            kwargs[name] = _tupled(v) if name == "range" else tuple(v)
    return args, kwargs


def _histogram(name, f, at):
    per_axis = name in ("histogram2d", "histogramdd")

    def g(*args, **kwargs):
        args, kwargs = _histogram_args(args, kwargs, at, per_axis)
        r = f(*args, **kwargs)
        # the expression language's tuple is flat: (hist, the edges of each axis)
        return (r[0], list(r[1:])) if name == "histogramdd" else r
    g.__name__, g.__qualname__, g.__signature__ = f.__name__, f.__qualname__, f.__signature__
    g.__doc__ = f.__doc__
    return g


for _name, _at in (("histogram", 1), ("histogram_bin_edges", 1), ("histogram2d", 2),
                   ("histogramdd", 1)):
    setattr(_mod, _name, _histogram(_name, getattr(_mod, _name), _at))


def _loom_arrays(v):
    """block's nested lists with their NumPy arrays as loom arrays, so that they stay lists
    (a list of NumPy arrays alone would be read as one array)."""
    if isinstance(v, list):
        return [_loom_arrays(x) for x in v]
    return asarray(v) if isinstance(v, _np.ndarray) else v


def _block(f):
    def g(arrays):
        return f(_loom_arrays(arrays))
    g.__name__, g.__qualname__, g.__signature__ = f.__name__, f.__qualname__, f.__signature__
    g.__doc__ = f.__doc__
    return g


block = _block(block)


def _sequence(f):
    """f with a list of arrays taken as its arrays (NumPy ones as loom ones), not as one array
    made from them: each keeps its dtype (hstack's casting= judges each)."""
    def g(arrays, *args, **kwargs):
        if isinstance(arrays, list) and _builtins.any(isinstance(x, _np.ndarray) for x in arrays):
            arrays = [asarray(x) if isinstance(x, _np.ndarray) else x for x in arrays]
        return f(arrays, *args, **kwargs)
    g.__name__, g.__qualname__, g.__signature__ = f.__name__, f.__qualname__, f.__signature__
    g.__doc__ = f.__doc__
    return g


for _name in ("hstack", "vstack", "dstack", "column_stack", "concatenate", "stack"):
    setattr(_mod, _name, _sequence(getattr(_mod, _name)))


def result_type(*arrays_and_dtypes):
    """np.result_type over loom arrays (their dtypes), dtypes and Python scalars (weak):
    loom's promotion is NumPy 2's."""
    return _np.result_type(*[a.dtype if isinstance(a, ndarray) else a
                             for a in arrays_and_dtypes])


# numpy.linalg and numpy.fft: the functions NumPy keeps there, called by their qualified names
linalg = _types.ModuleType(__name__ + ".linalg", "numpy.linalg on loom")
fft = _types.ModuleType(__name__ + ".fft", "numpy.fft on loom")
linalg.LinAlgError = LinAlgError
# (the standard's linalg extension, in numpy.linalg from NumPy 2.0 on)
_STD_LINALG = ("matrix_transpose", "vecdot", "svdvals", "vector_norm", "matrix_norm")
for _sub, _np_sub, _prefix in ((linalg, _np.linalg, "linalg."), (fft, _np.fft, "fft.")):
    for _name, _params, _ in _TABLE:
        if hasattr(_np_sub, _name) or (_sub is linalg and _name in _STD_LINALG):
            setattr(_sub, _name, _named(_name, _make(_name, _params, _prefix + _name)))
    _sys.modules[_sub.__name__] = _sub

# numpy.random: a Generator's seed and call count over the language's random.NAME functions
from . import random  # noqa: E402
_sys.modules[__name__ + ".random"] = random


# shapes alone (no values): NumPy's own rule
broadcast_shapes = _np.broadcast_shapes


_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")  # loom_casting_t's order


def _dtype_code(dt, fn):
    """The library's code of a dtype (a NumPy dtype, a type, a name or alias, or an array's),
    or TypeError."""
    if isinstance(dt, ndarray):
        return _lib.lib.loom_array_dtype(dt._p)
    if isinstance(dt, _np.ndarray):
        dt = dt.dtype
    try:
        name = _canonical_name(dt)
    except TypeError:
        name = None
    if name not in _lib.DTYPES:
        raise TypeError("%s: %r is not a dtype loom has" % (fn, dt))
    return _lib.DTYPES.index(name)


def can_cast(from_, to, casting="safe"):
    """np.can_cast of a dtype or a loom array's dtype into a dtype (loom_can_cast): a Python
    bool, as NumPy's."""
    if casting not in _CASTINGS:
        raise ValueError("can_cast: casting must be one of %s, not %r" % (
            ", ".join(repr(c) for c in _CASTINGS), casting))
    if type(from_) in (int, float, complex, _builtins.bool):
        raise TypeError("can_cast() does not support Python ints, floats, and complex because "
                        "the result used to depend on the value")
    return _lib.lib.loom_can_cast(_dtype_code(from_, "can_cast"), _dtype_code(to, "can_cast"),
                                  _CASTINGS.index(casting)) == 1


def isdtype(dtype, kind):
    """The Array API's isdtype (loom_isdtype): whether dtype is of kind, a kind name, a dtype or
    a tuple of them; a Python bool."""
    if isinstance(dtype, ndarray):
        raise TypeError("isdtype: dtype argument must be a NumPy dtype, not a loom array")
    code = _dtype_code(dtype, "isdtype")
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str):
            r = _lib.lib.loom_isdtype(code, k.encode())
            if r < 0:
                raise ValueError("isdtype: kind argument must be a dtype or one of 'bool', "
                                 "'signed integer', 'unsigned integer', 'integral', "
                                 "'real floating', 'complex floating', 'numeric', not %r" % k)
            if r:
                return True
        elif code == _dtype_code(k, "isdtype"):
            return True
    return False


def finfo(type):  # noqa: A002 (NumPy's name)
    """NumPy's finfo of a dtype, a loom array's dtype or a name (the expression language's
    finfo gives the same numbers but is no Python object)."""
    return _np.finfo(type.dtype if isinstance(type, ndarray) else _np_dtype_of(type))


def iinfo(type):  # noqa: A002
    return _np.iinfo(type.dtype if isinstance(type, ndarray) else _np_dtype_of(type))

_MAX_DIMS = 8  # LOOM_MAX_DIMS


class _Info:
    """The Array API's inspection namespace (__array_namespace_info__())."""

    def capabilities(self):
        # boolean masks and unique/nonzero have data-dependent shapes: one sync reads the count
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": _MAX_DIMS}

    def default_device(self):
        return get_context().device

    def devices(self):
        return [get_context().device]

    def default_dtypes(self, *, device=None):
        return {"real floating": _np.dtype("float64"), "complex floating": _np.dtype("complex128"),
                "integral": _np.dtype("int64"), "indexing": _np.dtype("int64")}

    def dtypes(self, *, device=None, kind=None):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        out = {}
        for code, name in enumerate(_lib.DTYPES):
            if name == "bfloat16":  # not an Array API dtype
                continue
            for k in kinds:  # (the namespace's own any() is the array function)
                if k is None or _lib.lib.loom_isdtype(code, k.encode()) == 1:
                    out[name] = _np.dtype(name)
                    break
        return out


def __array_namespace_info__():
    return _Info()


def __dir__():
    return sorted(set(globals()) | set(_names))


def _install_methods():
    """NumPy's array methods on ndarray: one for each of the table's functions marked as a
    method that ndarray does not define itself, writing its call as text. (Methods rather than
    a __getattr__: with one, every attribute read of an array went through it, and Python does
    not specialise reads of the class's slots; 5 % of a recorded operation.)"""
    def make(name):
        head = "{0}.%s" % name

        def method(self, *args, **kwargs):
            args, kwargs = _method_args(name, args, kwargs)
            return _call_text(head, [self], args, kwargs)
        method.__name__ = name
        method.__qualname__ = "ndarray." + name
        method.__doc__ = "numpy.ndarray.%s on loom (the expression language's x.%s)." % (name, name)
        return method

    for name in sorted(_METHODS):
        if not hasattr(ndarray, name):
            setattr(ndarray, name, make(name))


_install_methods()


# ---- NumPy's types, constants and functions of metadata, conversion and I/O ----
# (no computing here: dtypes and shapes, NumPy's own helpers, or loom arrays made from what
# NumPy reads)

dtype = _np.dtype
(generic, number, integer, signedinteger, unsignedinteger, inexact, floating,
 complexfloating) = (_np.generic, _np.number, _np.integer, _np.signedinteger,
                     _np.unsignedinteger, _np.inexact, _np.floating, _np.complexfloating)
(int_, intp, uintp, intc, uintc, byte, ubyte, short, ushort, long, ulong, longlong,
 ulonglong) = (_np.int_, _np.intp, _np.uintp, _np.intc, _np.uintc, _np.byte, _np.ubyte,
               _np.short, _np.ushort, _np.long, _np.ulong, _np.longlong, _np.ulonglong)
half, single, double, csingle, cdouble = _np.half, _np.single, _np.double, _np.csingle, _np.cdouble
True_, False_, euler_gamma = _np.True_, _np.False_, _np.euler_gamma
ScalarType, typecodes, little_endian = _np.ScalarType, _np.typecodes, _np.little_endian
index_exp, s_, ndindex, errstate = _np.index_exp, _np.s_, _np.ndindex, _np.errstate
issubdtype, mintypecode, promote_types = _np.issubdtype, _np.mintypecode, _np.promote_types
get_printoptions, set_printoptions, printoptions = (_np.get_printoptions, _np.set_printoptions,
                                                    _np.printoptions)
testing = _np.testing  # (its asserts read loom arrays' values)


def shape(a):
    return a.shape if isinstance(a, ndarray) else _np.shape(a)


def ndim(a):
    return a.ndim if isinstance(a, ndarray) else _np.ndim(a)


def size(a, axis=None):
    if not isinstance(a, ndarray):
        return _np.size(a, axis)
    if axis is None:
        return a.size
    sh = a.shape
    n = 1
    for ax in axis if isinstance(axis, tuple) else (axis,):
        n *= sh[_operator.index(ax)]
    return n


def isscalar(element):
    return _np.isscalar(element)  # (a loom array is not a scalar, as a NumPy 0-d array is not)


def iterable(y):
    return _np.iterable(y)


def common_type(*arrays):
    return _np.common_type(*[_np.empty(0, a.dtype) if isinstance(a, ndarray) else a
                             for a in arrays])


def min_scalar_type(a):
    if isinstance(a, ndarray) and a.ndim:
        return a.dtype  # (NumPy's: an array that is not 0-d keeps its dtype)
    return _np.min_scalar_type(a.get() if isinstance(a, ndarray) else a)


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None):
    return asarray(a, dtype=dtype, device=device, copy=copy)


def ascontiguousarray(a, dtype=None):
    """asarray, at least 1-d (NumPy's rule); loom arrays are always C-ordered values."""
    return atleast_1d(asarray(a, dtype=dtype))


asfortranarray = ascontiguousarray


def require(a, dtype=None, requirements=None):
    return asarray(a, dtype=dtype)


def asarray_chkfinite(a, dtype=None, order=None):
    """asarray, after checking that every value is finite (reads one bool: a sync)."""
    a = asarray(a, dtype=dtype)
    if a.dtype.kind in "fc" and not _builtins.bool(all(isfinite(a))):
        raise ValueError("array must not contain infs or NaNs")
    return a


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    return asarray(_np.frombuffer(buffer, dtype=_np_dtype_of(dtype), count=count,
                                  offset=offset))


def fromiter(iter, dtype, count=-1):  # noqa: A002 (NumPy's name)
    return asarray(_np.fromiter(iter, dtype=_np_dtype_of(dtype), count=count))


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """NumPy's: function called once with the index arrays of shape (loom arrays)."""
    return function(*indices(shape, dtype=dtype), **kwargs)


def save(file, arr, allow_pickle=False):
    """np.save: a path is written by the library (loom_npy_save), a file object through NumPy."""
    arr = asarray(arr)
    if isinstance(file, (str, bytes)) or hasattr(file, "__fspath__"):
        path = _os.fsdecode(file)
        if not path.endswith(".npy"):
            path += ".npy"
        with arr._ctx.lock:
            st = _lib.lib.loom_npy_save(arr._ctx._p, arr._p, path.encode())
            if st:
                _raise(arr._ctx._p, st)
        return
    _np.save(file, arr.get(), allow_pickle=False)


def load(file, mmap_mode=None, allow_pickle=False):
    """np.load: a .npy path read by the library (loom_npy_load); .npz archives and file
    objects through NumPy, each array as a loom array (a dict for .npz)."""
    if ((isinstance(file, (str, bytes)) or hasattr(file, "__fspath__")) and
            _os.fsdecode(file).endswith(".npy")):
        ctx = get_context()
        with ctx.lock:
            p = _lib.lib.loom_npy_load(ctx._p, _os.fsencode(file))
            if _lib.lib.loom_array_is_nil(p):
                _raise(ctx._p, _lib.lib.loom_ctx_status(ctx._p))
            return ndarray(ctx, _lib.lib.loom_array_retain(p))
    r = _np.load(file, allow_pickle=False)
    if isinstance(r, _np.ndarray):
        return asarray(r)
    with r:
        return {k: asarray(r[k]) for k in r.files}


def savez(file, *args, **kwds):
    _np.savez(file, *[_host(a) for a in args], **{k: _host(v) for k, v in kwds.items()})


def savez_compressed(file, *args, **kwds):
    _np.savez_compressed(file, *[_host(a) for a in args],
                         **{k: _host(v) for k, v in kwds.items()})


def savetxt(fname, X, *args, **kwargs):
    _np.savetxt(fname, _host(X), *args, **kwargs)


def loadtxt(*args, **kwargs):
    return asarray(_np.loadtxt(*args, **kwargs))


def genfromtxt(*args, **kwargs):
    return asarray(_np.genfromtxt(*args, **kwargs))


def array2string(a, *args, **kwargs):
    return _np.array2string(_host(a), *args, **kwargs)


def array_repr(arr, *args, **kwargs):
    return _np.array_repr(_host(arr), *args, **kwargs)


def array_str(a, *args, **kwargs):
    return _np.array_str(_host(a), *args, **kwargs)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """NumPy's: func1d on every 1-D slice along axis (one recorded call each; the results,
    stacked, take the axis's place). Meant for few slices: each is its own loom call."""
    arr = asarray(arr)
    ax = _operator.index(axis)
    nd = arr.ndim
    if not -nd <= ax < nd:
        raise _np.exceptions.AxisError(axis, nd)
    ax %= nd
    moved = moveaxis(arr, ax, -1)
    outer = moved.shape[:-1]
    if 0 in outer:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    res = [asarray(func1d(moved[i], *args, **kwargs)) for i in _np.ndindex(*outer)]
    out = stack(res).reshape(outer + res[0].shape)
    # the result's own axes go where axis was (NumPy: buff's axes moved to axis)
    k = res[0].ndim
    return moveaxis(out, tuple(range(len(outer), len(outer) + k)),
                    tuple(range(ax, ax + k))) if k else out


def apply_over_axes(func, a, axes):
    """NumPy's: func(a, axis) over each axis in turn, the axis kept (as extent 1)."""
    val = asarray(a)
    nd = val.ndim
    for axis in (axes,) if isinstance(axes, int) else axes:
        axis = axis + nd if axis < 0 else axis
        res = asarray(func(val, axis))
        if res.ndim == val.ndim:
            val = res
        elif res.ndim == val.ndim - 1:
            val = expand_dims(res, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return val


def mask_indices(n, mask_func, k=0):
    """NumPy's: the indices where mask_func(ones((n, n)), k) is nonzero (one sync)."""
    return nonzero(mask_func(ones((n, n), dtype=int), k) != 0)


def piecewise(x, condlist, funclist, *args, **kw):
    """NumPy's: where condlist[i], funclist[i](x[condlist[i]]) (or the value funclist[i]);
    one more function is the default where no condition holds; later conditions win. Each
    callable reads its elements through a mask (a sync for the count)."""
    x = asarray(x)
    if _np.isscalar(condlist) or (x.ndim != 0 and not isinstance(
            condlist[0] if isinstance(condlist, (list, tuple)) else condlist[0:0],
            (list, ndarray, _np.ndarray))):
        condlist = [condlist]
    conds = [broadcast_to(asarray(c, dtype=bool), x.shape) for c in condlist]
    n = len(conds)
    if len(funclist) not in (n, n + 1):
        raise ValueError("with %d condition(s), either %d or %d functions are expected"
                         % (n, n, n + 1))
    if len(funclist) == n + 1:  # the "otherwise" condition
        conds.append(~any(stack(conds), axis=0) if n else ones(x.shape, dtype=bool))
    y = zeros_like(x)
    for c, f in zip(conds, funclist):
        if callable(f):
            vals = x[c]
            if vals.size:
                y[c] = f(vals, *args, **kw)
        else:
            y[c] = f
    return y


class _Concat:
    """np.r_ and np.c_ for loom arrays, numbers and slices (arange/linspace as NumPy reads
    them); NumPy's string directives are not supported."""

    def __init__(self, columns):
        self.columns = columns

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        parts, typed = [], []  # (typed: what NumPy's result_type sees, Python numbers weak)
        for it in items:
            if isinstance(it, str):
                raise NotImplementedError("loom.numpy.r_/c_: string directives (%r)" % it)
            if isinstance(it, (bool, int, float, complex)) and not isinstance(it, _np.generic):
                parts.append(it)  # (made an array of the common dtype below)
                typed.append(it)
                continue
            if isinstance(it, slice):
                step = 1 if it.step is None else it.step
                start = 0 if it.start is None else it.start
                if isinstance(step, complex):
                    parts.append(linspace(start, it.stop, int(abs(step))))
                else:
                    parts.append(arange(start, it.stop, step))
            else:
                parts.append(asarray(it))
            typed.append(parts[-1])
        if parts:  # NumPy's: the common dtype, a Python number converted by value into it
            dt = result_type(*typed)
            parts = [asarray(p, dtype=dt) if not isinstance(p, ndarray) else
                     p if p.dtype == dt else p.astype(dt) for p in parts]
        if self.columns:
            parts = [p.reshape(-1, 1) if p.ndim < 2 else p for p in parts]
            return concatenate(parts, axis=-1)
        return concatenate([atleast_1d(p) for p in parts])


r_, c_ = _Concat(False), _Concat(True)


class _Grid:
    """np.mgrid (dense) and np.ogrid (open): slices as arange, or linspace for a complex step
    (its magnitude the number of points, the stop included)."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        axes, floats = [], False
        for sl in items:
            if not isinstance(sl, slice):
                raise TypeError("loom.numpy.%sgrid: slices only, not %r" % (
                    "o" if self.sparse else "m", sl))
            start = 0 if sl.start is None else sl.start
            step = 1 if sl.step is None else sl.step
            floats = floats or _builtins.any(isinstance(v, (float, complex))
                                             for v in (start, sl.stop, step))
            if isinstance(step, complex):
                axes.append(linspace(start, sl.stop, int(abs(step))))
            else:
                axes.append(arange(start, sl.stop, step))
        if floats:
            axes = [a.astype(float64) for a in axes]
        if not isinstance(key, tuple):
            return axes[0]
        if self.sparse:
            n = len(axes)
            return tuple(a.reshape(tuple(-1 if i == k else 1 for i in range(n)))
                         for k, a in enumerate(axes))
        return stack(meshgrid(*axes, indexing="ij"))


mgrid, ogrid = _Grid(False), _Grid(True)


def real_if_close(a, tol=100):
    """NumPy's: the real part when every imaginary part is within tol machine epsilons of zero
    (tol > 1) or tol (reads one bool: a sync); otherwise a as it is."""
    a = asarray(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = _np.finfo(a.dtype).eps * tol
    return a.real if _builtins.bool(all(abs(a.imag) < tol)) else a


def einsum_path(subscripts, *operands, optimize="greedy", einsum_call=False):
    """NumPy's contraction planning, which reads only the operands' shapes."""
    stand_ins = [_np.lib.stride_tricks.as_strided(_np.zeros(1, o.dtype), o.shape,
                                                  (0,) * o.ndim)
                 if isinstance(o, ndarray) else o for o in operands]
    return _np.einsum_path(subscripts, *stand_ins, optimize=optimize, einsum_call=einsum_call)


def isfortran(a):
    return False  # loom's arrays are C-ordered values


exceptions, uint, typename = _np.exceptions, _np.uint, _np.typename
base_repr, binary_repr = _np.base_repr, _np.binary_repr
format_float_positional = _np.format_float_positional
format_float_scientific = _np.format_float_scientific


# ---- NumPy's array methods that are not table functions of the array ----

def _flatten(self, order="C"):
    """numpy.ndarray.flatten: the values in C order ('F': Fortran order). A loom array is never
    a view of memory another array may change, so this is ravel."""
    if order not in ("C", "F", "A", "K"):
        raise ValueError("flatten: order must be one of 'C', 'F', 'A', or 'K' (got %r)" % order)
    return ravel(self.T if order == "F" else self)


def _in_place_axis(axis):
    # the methods sort one axis: no axis=None (the function's flattening), as NumPy's
    return _operator.index(axis)


def _sort(self, axis=-1, kind=None, order=None, *, stable=None):
    """numpy.ndarray.sort: sorts in place (rebinds the array, as x[k] = v does)."""
    self._assign(sort(self, axis=_in_place_axis(axis), kind=kind, order=order, stable=stable))


def _partition(self, kth, axis=-1, kind="introselect", order=None):
    """numpy.ndarray.partition, in place (rebinds the array)."""
    self._assign(partition(self, kth, axis=_in_place_axis(axis), kind=kind, order=order))


def _fill(self, value):
    """numpy.ndarray.fill, in place (rebinds the array to full_like(self, value)). A Python
    number is converted as NumPy's fill converts it: 1000 into int8 an OverflowError, 1j into
    a real dtype a TypeError."""
    if isinstance(value, (bool, int, float, complex, _np.generic)):
        value = _np.asarray(value, dtype=self.dtype).item()
    self._assign(full_like(self, value))


def _argpartition(self, kth, axis=-1, kind="introselect", order=None):
    return argpartition(self, kth, axis=axis, kind=kind, order=order)


def _searchsorted(self, v, side="left", sorter=None):
    return searchsorted(self, v, side=side, sorter=sorter)


def _choose(self, choices, out=None, mode="raise"):
    return choose(self, choices, out=out, mode=mode)


def _compress(self, condition, axis=None, out=None):
    return compress(condition, self, axis=axis, out=out)


def _resize(self, *new_shape, refcheck=True):
    """numpy.ndarray.resize, in place (rebinds): the flattened values cut, or followed by
    zeros, to the new size (np.resize repeats them instead)."""
    if not new_shape or new_shape == (None,):  # NumPy: no shape leaves the array as it is
        return
    shape = new_shape[0] if len(new_shape) == 1 else new_shape
    shape = tuple(_shape_like(shape)) if isinstance(shape, (tuple, list)) else (
        _operator.index(shape),)
    n = 1
    for e in shape:
        e = _operator.index(e)
        if e < 0:
            raise ValueError("negative dimensions not allowed")
        n *= e
    flat = ravel(self)
    have = self.size
    if n <= have:
        flat = flat[:n]
    else:
        flat = concatenate([flat, zeros(n - have, dtype=self.dtype)])
    self._assign(flat.reshape(shape))


def _view(self, dtype=None, type=None):  # noqa: A002 (NumPy's names)
    """numpy.ndarray.view without a new dtype: the same values (loom's arrays are values, so
    a view and a copy cannot be told apart). Reinterpreting the bytes as another dtype is not
    supported."""
    if type is not None or (dtype is not None and _np.dtype(_np_dtype_of(dtype)) != self.dtype):
        raise NotImplementedError("loom: ndarray.view with another dtype or type (%r, %r)"
                                  % (dtype, type))
    return self.__copy__()


class _Flat:
    """numpy.ndarray.flat: the elements in C order, read by flat index or slice; assigning
    through it rebinds the array (as x[k] = v does)."""

    def __init__(self, base):
        self.base = base

    def __len__(self):
        return self.base.size

    def __iter__(self):
        return iter(ravel(self.base))

    def __getitem__(self, key):
        return ravel(self.base)[key]

    def __setitem__(self, key, value):
        flat = ravel(self.base)
        flat[key] = value
        self.base._assign(flat.reshape(self.base.shape))


def _strides(self):
    """C-order strides of the shape (what np.asarray(x).strides gives)."""
    out, step = [], self.itemsize
    for e in reversed(self.shape):
        out.append(step)
        step *= e
    return tuple(reversed(out))


class _Flags:
    """numpy.ndarray.flags as they read for a loom array: a C-ordered value that x[k] = v
    updates (by rebinding), so writeable; item access by NumPy's names and letters too."""
    _ALIASES = {"C": "c_contiguous", "CONTIGUOUS": "c_contiguous", "F": "f_contiguous",
                "FORTRAN": "f_contiguous", "W": "writeable", "A": "aligned", "O": "owndata",
                "X": "writebackifcopy"}

    def __init__(self, a):
        self.c_contiguous = self.contiguous = True
        self.f_contiguous = _builtins.sum(e > 1 for e in a.shape) <= 1
        self.fortran = False  # (NumPy's: Fortran order and not C order)
        self.writeable = self.aligned = self.owndata = True
        self.writebackifcopy = False

    def __getitem__(self, key):
        key = self._ALIASES.get(key.upper(), key.lower())
        if not hasattr(self, key):
            raise KeyError(key)
        return getattr(self, key)

    def __repr__(self):
        return "\n".join("  %s : %s" % (k.upper(), getattr(self, k)) for k in (
            "c_contiguous", "f_contiguous", "owndata", "writeable", "aligned",
            "writebackifcopy"))


ndarray.flags = property(_Flags)
ndarray.dump = lambda self, file: self.get().dump(file)
ndarray.dumps = lambda self: self.get().dumps()
ndarray.flat = property(_Flat, lambda self, v: _Flat(self).__setitem__(slice(None), v))
ndarray.strides = property(_strides)
ndarray.base = property(lambda self: None)
ndarray.__reduce__ = lambda self: (asarray, (self.get(),))  # pickles the values

for _name, _f in (("flatten", _flatten), ("sort", _sort), ("partition", _partition),
                  ("fill", _fill), ("argpartition", _argpartition),
                  ("searchsorted", _searchsorted), ("choose", _choose),
                  ("compress", _compress), ("resize", _resize), ("view", _view)):
    _f.__name__, _f.__qualname__ = _name, "ndarray." + _name
    setattr(ndarray, _name, _f)


def _host(x):
    """x with its loom arrays (in lists and tuples too) as NumPy arrays of their values."""
    if isinstance(x, ndarray):
        return x.get()
    if type(x) in (list, tuple):
        return type(x)(_host(v) for v in x)
    return x


# numpy.emath: a real input with values outside a function's real domain computes as complex
# (NumPy's _fix_real_lt_zero and the like); which dtype that is depends on the values, so each
# call reads one bool first (a sync)
emath = _types.ModuleType(__name__ + ".emath", "numpy.emath on loom")


def _to_complex_if(x, outside):
    x = asarray(x)
    if x.dtype.kind not in "c" and _builtins.bool(any(outside(x))):
        # NumPy's _tocomplex: complex64 for these, complex128 for the others (float16 too)
        small = x.dtype in (_np.float32, _np.int8, _np.int16, _np.uint8, _np.uint16)
        x = x.astype(complex64 if small else complex128)
    return x


def _emath(name, outside, f=None):
    f = f or getattr(_mod, name)

    def g(x):
        return f(_to_complex_if(x, outside))
    g.__name__ = g.__qualname__ = name
    g.__doc__ = "numpy.emath.%s on loom (one sync to choose the dtype)." % name
    setattr(emath, name, g)


for _name in ("sqrt", "log", "log2", "log10"):
    _emath(_name, lambda x: x < 0)
for _name in ("arccos", "arcsin", "arctanh"):
    _emath(_name, lambda x: abs(x) > 1)
def _power(x, p):
    # NumPy's _fix_int_lt_zero: p as an array (a Python number too), in float64 when it is of
    # integers and any is negative
    p = asarray(p)
    if p.dtype.kind in "biu" and _builtins.bool(any(p < 0)):
        p = p.astype(float64)
    return power(_to_complex_if(x, lambda v: v < 0), p)


_power.__name__ = _power.__qualname__ = "power"
emath.power = _power
emath.logn = lambda n, x: log(_to_complex_if(x, lambda v: v < 0)) / log(
    _to_complex_if(n, lambda v: v < 0))
_sys.modules[emath.__name__] = emath


def ndenumerate(arr):
    """NumPy's, over the values (one read)."""
    return _np.ndenumerate(_host(arr))
