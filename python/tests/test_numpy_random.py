"""lnp.random (numpy.random on loom's Philox stream) on the CPU reference device: the values
differ from NumPy's, so these check what NumPy promises: shapes and dtypes, determinism by
seed, new numbers on each call, ranges, distributions (moments of 1e5 draws under fixed seeds:
deterministic), permutations, choices, in-place shuffles, and NumPy's errors."""
import numpy as np
import pytest

import loom
import loom.numpy as lnp


from _arrays import cpu_context  # noqa: F401 (the module's CPU context)


def values(a):
    assert isinstance(a, loom.ndarray)
    return np.asarray(a)


def near(x, mean, var, kurt):
    """x's mean and variance within 5 standard errors of the distribution's."""
    n = x.size
    assert abs(x.mean() - mean) < 5 * np.sqrt(var / n)
    assert abs(x.var() - var) < 5 * np.sqrt((kurt - 1) / n) * var


@pytest.mark.parametrize("size, shape", [(None, ()), (0, (0,)), (5, (5,)), ((2, 3), (2, 3)),
                                         ([2, 0], (2, 0)), (np.int64(4), (4,))])
def test_shapes_and_dtypes(size, shape):
    g = lnp.random.default_rng(1)
    for a, dt in ((g.random(size), np.float64), (g.random(size, dtype=np.float32), np.float32),
                  (g.uniform(1, 2, size), np.float64), (g.normal(0, 1, size), np.float64),
                  (g.standard_normal(size, dtype=np.float32), np.float32),
                  (g.exponential(2.0, size), np.float64), (g.integers(0, 5, size), np.int64),
                  (g.integers(0, 5, size, dtype=np.uint8), np.uint8),
                  (g.choice(4, size), np.int64), (g.choice([1.5, 2.5], size), np.float64)):
        v = values(a)
        assert v.shape == shape and v.dtype == dt


def test_seed_determines_values_and_calls_differ():
    a, b = lnp.random.default_rng(123), lnp.random.default_rng(123)
    x1, x2 = values(a.random(50)), values(a.random(50))
    assert not np.array_equal(x1, x2)
    np.testing.assert_array_equal(values(b.random(50)), x1)
    np.testing.assert_array_equal(values(b.random(50)), x2)
    assert not np.array_equal(values(lnp.random.default_rng(124).random(50)), x1)
    g = lnp.random.default_rng(5)
    assert lnp.random.default_rng(g) is g
    # a failed call draws nothing: the next one is the stream the failed one would have had
    c, d = lnp.random.default_rng(9), lnp.random.default_rng(9)
    with pytest.raises(ValueError):
        c.integers(3, 3)
    np.testing.assert_array_equal(values(c.random(4)), values(d.random(4)))
    # seed=None: from os.urandom
    assert not np.array_equal(values(lnp.random.default_rng().random(8)),
                              values(lnp.random.default_rng().random(8)))


def test_legacy_functions():
    lnp.random.seed(42)
    a = [values(f()) for f in (lambda: lnp.random.rand(2, 3), lambda: lnp.random.randn(4),
                               lambda: lnp.random.randint(5, size=7),
                               lambda: lnp.random.random_sample((3,)))]
    lnp.random.seed(42)
    b = [values(lnp.random.rand(2, 3)), values(lnp.random.randn(4)),
         values(lnp.random.randint(5, size=7)), values(lnp.random.random((3,)))]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert a[0].shape == (2, 3) and a[2].dtype == np.int64 and a[2].max() < 5
    assert values(lnp.random.rand()).shape == ()
    assert values(lnp.random.randint(3, 9, dtype=np.int8)).dtype == np.int8
    assert values(lnp.random.uniform(1, 2, 3)).min() >= 1
    assert values(lnp.random.normal(size=2)).shape == (2,)
    assert values(lnp.random.standard_normal(2)).shape == (2,)
    assert values(lnp.random.exponential(size=2)).min() >= 0
    assert sorted(values(lnp.random.permutation(5))) == list(range(5))
    assert values(lnp.random.choice([3, 4], 6)).tolist() != []
    with pytest.raises(ValueError, match="1-dimensional"):
        lnp.random.choice(np.ones((2, 2)), 1)
    x = lnp.arange(6)
    lnp.random.shuffle(x)
    assert sorted(values(x)) == list(range(6))


def test_ranges():
    g = lnp.random.default_rng(3)
    v = values(g.integers(-3, 4, 5000))
    assert v.min() == -3 and v.max() == 3 and len(np.unique(v)) == 7
    v = values(g.integers(-3, 4, 5000, endpoint=True))
    assert v.min() == -3 and v.max() == 4
    v = values(g.integers(7, size=2000))
    assert v.min() == 0 and v.max() == 6
    v = values(g.integers(-128, 127, 5000, dtype=np.int8, endpoint=True))
    assert v.dtype == np.int8 and v.min() == -128 and v.max() == 127
    v = values(g.integers(0, 2, 1000, dtype=bool))
    assert v.dtype == np.bool_ and v.any() and not v.all()
    for dt in (np.float64, np.float32):
        v = values(g.uniform(-2, 5, 5000, dtype=dt))
        assert v.dtype == dt and v.min() >= -2 and v.max() < 5
        v = values(g.random(5000, dtype=dt))
        assert v.min() >= 0 and v.max() < 1


def test_moments():
    g = lnp.random.default_rng(2024)
    n = 100_000
    near(values(g.random(n)), 0.5, 1 / 12, 1.8)
    near(values(g.uniform(-1, 3, n)), 1, 16 / 12, 1.8)
    near(values(g.standard_normal(n)), 0, 1, 3)
    near(values(g.normal(2, 3, n)), 2, 9, 3)
    near(values(g.exponential(2, n)), 2, 4, 9)
    near(values(g.integers(0, 10, n)).astype(float), 4.5, 8.25, 1.78)
    counts = np.bincount(values(g.choice(4, n, p=[0.1, 0.2, 0.3, 0.4])), minlength=4)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    assert np.all(np.abs(counts / n - p) < 5 * np.sqrt(p * (1 - p) / n))


def test_permutation_and_shuffle():
    g = lnp.random.default_rng(11)
    p = values(g.permutation(1000))
    assert sorted(p) == list(range(1000)) and not np.array_equal(p, np.arange(1000))
    assert values(g.permutation(0)).shape == (0,)
    m = np.arange(12).reshape(3, 4)
    r = values(g.permutation(m))
    assert sorted(r[:, 0]) == [0, 4, 8] and np.array_equal(r - r[:, :1], m - m[:, :1])
    c = values(g.permutation(lnp.asarray(m), axis=1))
    assert np.array_equal(c - c[:1], m - m[:1]) and sorted(c[0]) == [0, 1, 2, 3]
    x = lnp.asarray(m.astype(np.float32))
    g.shuffle(x)
    assert x.dtype == np.float32 and sorted(values(x)[:, 0]) == [0, 4, 8]
    z = m.copy()
    g.shuffle(z, axis=1)
    assert sorted(z[0]) == [0, 1, 2, 3] and np.array_equal(z - z[:1], m - m[:1])
    with pytest.raises(np.exceptions.AxisError):
        g.permutation(lnp.asarray(3.5))
    with pytest.raises(np.exceptions.AxisError):
        g.permutation(m, axis=2)


def test_choice():
    g = lnp.random.default_rng(5)
    v = values(g.choice(50, 50, replace=False))
    assert sorted(v) == list(range(50))
    v = values(g.choice(50, (4, 5), replace=False))
    assert v.shape == (4, 5) and len(np.unique(v)) == 20
    p = [0.5, 0, 0.2, 0, 0.3]
    assert set(values(g.choice(5, 2000, p=p)).tolist()) == {0, 2, 4}
    for _ in range(10):
        w = values(g.choice(5, 3, replace=False, p=p))
        assert sorted(w) == [0, 2, 4]
    a = np.array([1.5, 2.5, 3.5])
    v = values(g.choice(a, 6))
    assert v.dtype == np.float64 and set(v.tolist()) <= {1.5, 2.5, 3.5}
    r = values(g.choice(np.arange(6).reshape(3, 2), 2, axis=1))
    assert r.shape == (3, 2) and np.array_equal(r - r[:1], [[0, 0], [2, 2], [4, 4]])
    assert values(g.choice(3)).shape == ()
    assert values(g.choice([], 0)).shape == (0,)
    assert values(g.choice(np.array(4), 3)).max() < 4


@pytest.mark.parametrize("call, exc, msg", [
    (lambda g: g.integers(5, 5), ValueError, "low >= high"),
    (lambda g: g.integers(5, 4, endpoint=True), ValueError, "low > high"),
    (lambda g: g.integers(0), ValueError, "high <= 0"),
    (lambda g: g.integers(-1, endpoint=True), ValueError, "high < 0"),
    (lambda g: g.integers(0, 300, dtype=np.int8), ValueError, "high is out of bounds for int8"),
    (lambda g: g.integers(-1, 3, dtype=np.uint8), ValueError, "low is out of bounds for uint8"),
    (lambda g: g.integers(0, 3, dtype=np.float64), TypeError, "dtype float64"),
    (lambda g: g.integers(0, 3, size=-1), ValueError, "negative"),
    (lambda g: g.random(dtype=np.int64), TypeError, "dtype int64"),
    (lambda g: g.uniform(3, 1), ValueError, "high - low < 0"),
    (lambda g: g.uniform(-1e308, 1e308), OverflowError, "range exceeds valid bounds"),
    (lambda g: g.normal(0, -1), ValueError, "scale < 0"),
    (lambda g: g.exponential(-1), ValueError, "scale < 0"),
    (lambda g: g.choice(5, 6, replace=False), ValueError, "Cannot take a larger sample"),
    (lambda g: g.choice(5, 3, p=[0.5, 0.5, 0, 0, 0.1]), ValueError, "do not sum to 1"),
    (lambda g: g.choice(5, 3, p=[1.5, -0.5, 0, 0, 0]), ValueError, "not non-negative"),
    (lambda g: g.choice(5, 3, p=[np.nan, 0.5, 0, 0, 0]), ValueError, "contain NaN"),
    (lambda g: g.choice(5, 3, p=[0.5, 0.5, 0, 0]), ValueError, "same size"),
    (lambda g: g.choice(5, 3, p=[[0.5, 0.5, 0, 0, 0]]), ValueError, "1-dimensional"),
    (lambda g: g.choice(5, 3, replace=False, p=[0.5, 0.5, 0, 0, 0]), ValueError,
     "Fewer non-zero entries in p than size"),
    (lambda g: g.choice(0, 3), ValueError, "a must be a positive integer"),
    (lambda g: g.choice([], 3), ValueError, "a cannot be empty"),
    (lambda g: g.shuffle([1, 2, 3]), TypeError, "must be a loom or NumPy array"),
])
def test_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call(lnp.random.default_rng(0))


def test_seeds():
    with pytest.raises(ValueError, match="non-negative"):
        lnp.random.default_rng(-1)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        lnp.random.default_rng(1 << 64)
    with pytest.raises(TypeError):
        lnp.random.default_rng(1.5)
    big = lnp.random.default_rng((1 << 64) - 1)
    assert values(big.random(3)).shape == (3,)
    np.testing.assert_array_equal(values(lnp.random.default_rng(np.uint64(7)).random(3)),
                                  values(lnp.random.default_rng(7).random(3)))


def test_language_and_generator_agree():
    # call k of a Generator is the language's random.NAME(..., seed=, stream=k)
    g = lnp.random.default_rng(77)
    g.random(2)
    x = values(g.normal(1, 2, 5))
    y = values(loom._call_text("random.normal", [], (1, 2, 5), {"seed": 77, "stream": 1}))
    np.testing.assert_array_equal(x, y)
