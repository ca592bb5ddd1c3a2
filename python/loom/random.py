"""`lnp.random`: numpy.random on loom's counter-based generator (Philox-4x32-10).

`default_rng(seed)` gives a Generator with NumPy's methods (random, uniform, normal,
standard_normal, exponential, integers, permutation, choice, shuffle); the module's functions
(seed, rand, randn, randint, random, random_sample, uniform, normal, standard_normal, choice,
permutation, shuffle, exponential) use one module-level generator, as NumPy's legacy ones do.

The distributions are NumPy's, the values are not: the bits come from another generator (as
CuPy's and JAX's do), the same on every loom device. A Generator holds a seed and a count of
its calls; call number k draws under the key loom_random_key(seed, k) (docs/random.md), so each
call gives new numbers and the same seed repeats them. The numbers come from the library's
expression language (random.NAME(..., seed=, stream=)); this module only keeps that state."""
import operator as _operator
import os as _os

import numpy as _np

from . import _call_text, _Ref, ndarray
from ._lib import lib as _lib

__all__ = ["Generator", "default_rng", "seed", "rand", "randn", "randint", "random",
           "random_sample", "uniform", "normal", "standard_normal", "choice", "permutation",
           "shuffle", "exponential"]


def _seed_value(seed):
    """A seed as the library takes it: an int in [0, 2**64); None: one from os.urandom."""
    if seed is None:
        return int.from_bytes(_os.urandom(8), "little")
    if isinstance(seed, (bool, float)) or not hasattr(seed, "__index__"):
        raise TypeError("SeedSequence expects int or sequence of ints for entropy not %r (loom "
                        "takes one int)" % (seed,))
    s = _operator.index(seed)
    if s < 0:
        raise ValueError("expected non-negative integer")
    if s >= 1 << 64:
        raise ValueError("loom: a seed must be below 2**64, not %d" % s)
    return s


def _size(size):
    """size= as a shape the library reads: None, an int or a tuple of ints."""
    if size is None:
        return None
    if isinstance(size, (list, tuple, _np.ndarray)):
        return tuple(_operator.index(k) for k in size)
    return _operator.index(size)


def _num(v):
    """A NumPy scalar parameter (loc, scale, low, high) as the Python number it holds (loom's
    language takes these as numbers; NumPy scalars would bind as 0-d arrays)."""
    if isinstance(v, _np.generic) or (isinstance(v, _np.ndarray) and v.ndim == 0):
        return v.item()
    return v


class Generator:
    """numpy.random.Generator's methods on loom: the values differ from NumPy's, the
    distributions do not. State: the seed and the number of calls made so far."""

    def __init__(self, seed=None):
        self._seed = _seed_value(seed)
        self._calls = 0

    def __repr__(self):
        return "Generator(Philox) at 0x%X" % id(self)

    def _draw(self, name, args, kwargs):
        """random.NAME(*args, **kwargs) on this generator's next stream (counted only when the
        call succeeds, as NumPy's state moves only with a draw)."""
        kwargs = dict(kwargs, seed=self._seed, stream=self._calls)
        r = _call_text("random." + name, [], args, kwargs)
        self._calls += 1
        return r

    def random(self, size=None, dtype=_np.float64):
        return self._draw("random", (_size(size), dtype), {})

    def uniform(self, low=0.0, high=1.0, size=None, dtype=_np.float64):
        return self._draw("uniform", (_num(low), _num(high), _size(size), dtype), {})

    def standard_normal(self, size=None, dtype=_np.float64):
        return self._draw("standard_normal", (_size(size), dtype), {})

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=_np.float64):
        return self._draw("normal", (_num(loc), _num(scale), _size(size), dtype), {})

    def exponential(self, scale=1.0, size=None, dtype=_np.float64):
        return self._draw("exponential", (_num(scale), _size(size), dtype), {})

    def integers(self, low, high=None, size=None, dtype=_np.int64, endpoint=False):
        return self._draw("integers", (_num(low), _num(high), _size(size), dtype,
                                       bool(endpoint)), {})

    def permutation(self, x, axis=0):
        """x an int n: a permutation of arange(n); an array: a copy shuffled along axis."""
        if isinstance(x, (int, _np.integer)) and not isinstance(x, bool):
            x = int(x)
        return self._draw("permutation", (x, _operator.index(axis)), {})

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        if isinstance(a, (int, _np.integer)) and not isinstance(a, bool) or (
                isinstance(a, _np.ndarray) and a.ndim == 0 and a.dtype.kind in "iu"):
            a = int(a)
        return self._draw("choice", (a, _size(size), bool(replace), p, _operator.index(axis),
                                     bool(shuffle)), {})

    def shuffle(self, x, axis=0):
        """Shuffles x along axis in place, as NumPy does: a loom array is rebound to the
        shuffled array (as x[key] = v rebinds it), a NumPy array gets its values written."""
        if not isinstance(x, (ndarray, _np.ndarray)):
            raise TypeError("shuffle: x must be a loom or NumPy array, not %s" % type(x).__name__)
        new = self._draw("shuffle", (x, _operator.index(axis)), {})
        if isinstance(x, _np.ndarray):
            x[...] = _np.asarray(new)
        else:
            x._p = _lib.loom_array_retain(new._p)
            x._sig = None
            x._own = _Ref(x._ctx, x._p)  # (the old one, if any, releases the old array)


def default_rng(seed=None):
    """A Generator seeded with seed (an int below 2**64; None: from os.urandom); a Generator
    passed in is returned as it is, as NumPy's default_rng does."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed)


# NumPy's legacy functions: one generator for the module
_rng = Generator()


def seed(seed=None):  # noqa: F811 (NumPy's name)
    """Reseeds the module's generator (None: from os.urandom)."""
    global _rng
    _rng = Generator(seed)


def rand(*dims):
    return _rng.random(dims or None)


def randn(*dims):
    return _rng.standard_normal(dims or None)


def randint(low, high=None, size=None, dtype=int):
    return _rng.integers(low, high, size, _np.int64 if dtype is int else dtype)


def random(size=None):
    return _rng.random(size)


random_sample = random


def uniform(low=0.0, high=1.0, size=None):
    return _rng.uniform(low, high, size)


def normal(loc=0.0, scale=1.0, size=None):
    return _rng.normal(loc, scale, size)


def standard_normal(size=None):
    return _rng.standard_normal(size)


def exponential(scale=1.0, size=None):
    return _rng.exponential(scale, size)


def choice(a, size=None, replace=True, p=None):
    ndim = a.ndim if isinstance(a, ndarray) else _np.ndim(a)
    if not isinstance(a, (int, _np.integer)) and ndim != 1:
        raise ValueError("a must be 1-dimensional")
    return _rng.choice(a, size, replace, p)


def permutation(x):
    return _rng.permutation(x)


def shuffle(x):
    _rng.shuffle(x)
