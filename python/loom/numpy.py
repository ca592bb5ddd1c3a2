"""`import loom.numpy as lnp`: NumPy's namespace on loom.

Every function of loom's expression language is a function here, generated from the library's
own table (loom_expr_function): a function added to the C library appears in Python with no
glue. numpy.linalg's and numpy.fft's functions are also in `lnp.linalg` and `lnp.fft`. Arrays
and dtypes go in as NumPy's do (NumPy arrays, Python numbers and sequences, np.float32 or
'float32'); results are `loom.ndarray`s, lazy until a value is needed."""
import builtins as _builtins
import inspect as _inspect
import operator as _operator
import sys as _sys
import types as _types

import numpy as _np

from . import _lib
from . import (Context, LinAlgError, asarray, eval, from_dlpack, get_context,  # noqa: F401
               ndarray, _call_text, _canonical_name, _fast1, _fast2, _FAST, _np_dtype_of)

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


# Parameters that take a shape, axes or an extent: NumPy reads a list there as a tuple and an
# integer-valued array (a 0-d loom array) through operator.index, where elsewhere a list is an
# array-like. (The Array API's `ones([n])`, and scikit-learn's counts as 0-d arrays.)
_SHAPE_LIKE = {"shape", "newshape", "axes", "axis", "s", "reps", "source", "destination", "n",
               "N", "M", "k", "num", "dims"}


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
    names = [p.rstrip("?*") for p in params.split(",") if p]
    at = [i for i, n in enumerate(names) if n in _SHAPE_LIKE]
    if not at:
        return f

    first = at[0]  # (this module's any, all, sum, ... are NumPy's: not used here)

    def g(*args, **kwargs):
        if first < len(args):
            args = list(args)
            for i in at:
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
for _name, _params, _ in _TABLE:
    if _name in _OWN:
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


def _in_place(name, f):
    first = next(iter(f.__signature__.parameters))

    def g(*args, **kwargs):
        target = args[0] if args else kwargs.get(first)
        if not isinstance(target, ndarray):
            raise TypeError("%s: %s must be a loom.ndarray, not %s (loom cannot write into "
                            "it; take loom.numpy.asarray of it first)"
                            % (name, first, type(target).__name__))
        new = f(*args, **kwargs)
        if new._ctx is not target._ctx:
            raise ValueError("%s: the result is in another context than %s" % (name, first))
        target._rebind(new)
    g.__name__, g.__qualname__, g.__signature__ = f.__name__, f.__qualname__, f.__signature__
    g.__doc__ = ("numpy.%s on loom: rebinds its first argument to the updated array (an alias "
                 "keeps the old values) and returns None." % name)
    return g


for _name in _IN_PLACE:
    setattr(_mod, _name, _in_place(_name, getattr(_mod, _name)))


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


def result_type(*arrays_and_dtypes):
    """np.result_type over loom arrays (their dtypes), dtypes and Python scalars (weak):
    loom's promotion is NumPy 2's."""
    return _np.result_type(*[a.dtype if isinstance(a, ndarray) else a
                             for a in arrays_and_dtypes])


# numpy.linalg and numpy.fft: the functions NumPy keeps there, called by their qualified names
linalg = _types.ModuleType(__name__ + ".linalg", "numpy.linalg on loom")
fft = _types.ModuleType(__name__ + ".fft", "numpy.fft on loom")
linalg.LinAlgError = LinAlgError
for _sub, _np_sub, _prefix in ((linalg, _np.linalg, "linalg."), (fft, _np.fft, "fft.")):
    for _name, _params, _ in _TABLE:
        if hasattr(_np_sub, _name) or _name in ("matrix_transpose", "vecdot", "svdvals",
                                                "vector_norm", "matrix_norm"):
            setattr(_sub, _name, _named(_name, _make(_name, _params, _prefix + _name)))
    _sys.modules[_sub.__name__] = _sub


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
