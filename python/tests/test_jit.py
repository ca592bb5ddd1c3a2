"""loom.jit: a function traced once per signature and replayed as one loom program gives the
values the same calls give without it, on the CPU reference device."""
import gc

import numpy as np
import pytest

import loom
import loom.numpy as lnp

rng = np.random.default_rng(11)


from _arrays import cpu_context  # noqa: F401 (the module's CPU context)


def chain(a):
    for _ in range(5):
        a = lnp.sin(a) * 1.5 + 0.25
    return a


def test_chain_matches_the_plain_calls_and_is_traced_once(cpu_context):
    f = loom.jit(chain)
    for k in range(4):
        x = lnp.asarray(rng.standard_normal(1000).astype(np.float32))
        np.testing.assert_array_equal(np.asarray(f(x)), np.asarray(chain(x)))
    assert f.cache_size() == 1
    before = cpu_context.stats()["evals"]
    r = f(x)
    assert cpu_context.stats()["evals"] == before + 1  # computed on return: one eval
    np.asarray(r)
    assert cpu_context.stats()["evals"] == before + 1
    g = loom.jit(chain, lazy=True)
    r = g(x)
    assert cpu_context.stats()["evals"] == before + 1  # lazy: nothing ran
    np.testing.assert_array_equal(np.asarray(r * 2), np.asarray(chain(x) * 2))
    assert cpu_context.stats()["evals"] == before + 3  # the chain and the product: one eval


def test_a_new_shape_dtype_or_static_argument_traces_again():
    f = loom.jit(lambda x, axis: (x * 2).sum(axis=axis))
    a = rng.standard_normal((3, 4))
    for arr, axis in [(a, 0), (a, 1), (a, 0), (a.astype(np.float32), 0), (a[:2], 0)]:
        got = f(lnp.asarray(arr), axis)
        np.testing.assert_allclose(np.asarray(got), (arr * 2).sum(axis=axis), rtol=1e-6)
    assert f.cache_size() == 4


def test_tuples_indexing_updates_and_captured_arrays():
    w = rng.standard_normal(4)
    lw = lnp.asarray(w)

    @loom.jit
    def f(x, y):
        z = x[1:, ::2] @ lw[:2]  # a captured loom array
        x[0] = 7  # rebinds x inside the program, as outside it
        q, r = divmod(x, 3)
        u = lnp.linalg.svd(x[:, :3])  # a tuple result of the library
        return z + y, q, x.T, u.S, np.float32(2) * r

    for k in range(2):
        a, b = rng.standard_normal((3, 4)) + k, rng.standard_normal(2)
        z, q, t, s, r2 = f(lnp.asarray(a), lnp.asarray(b))
        np.testing.assert_allclose(np.asarray(z), a[1:, ::2] @ w[:2] + b, rtol=1e-12)
        a2 = a.copy()
        a2[0] = 7
        np.testing.assert_allclose(np.asarray(q), a2 // 3)
        np.testing.assert_allclose(np.asarray(t), a2.T)
        np.testing.assert_allclose(np.asarray(s), np.linalg.svd(a2[:, :3])[1], rtol=1e-12)
        np.testing.assert_allclose(np.asarray(r2), 2 * (a2 % 3), rtol=1e-12)
    assert f.cache_size() == 1


def test_errors():
    @loom.jit
    def needs_value(x):
        return x * 2 if bool(x.sum() > 0) else x

    with pytest.raises(TypeError, match="not known while the function is traced"):
        needs_value(lnp.asarray([1.0, 2.0]))
    with pytest.raises(ValueError):
        loom.jit(lambda x, y: x + y)(lnp.asarray([1.0, 2.0]), lnp.asarray([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="must return loom arrays"):
        loom.jit(lambda x: 3)(lnp.asarray([1.0]))
    # the context goes on after them
    np.testing.assert_array_equal(np.asarray(loom.jit(chain)(lnp.asarray([0.5]))),
                                  np.asarray(chain(lnp.asarray([0.5]))))


def test_programs_are_destroyed_before_their_context():
    with loom.Context(device="cpu") as c:
        f = loom.jit(chain)
        np.asarray(f(lnp.asarray(np.ones(8, np.float32))))
    c.close()
    del f
    gc.collect()


def test_review_cases():
    """Nested jit functions, copies of traced arrays, one-element tuples, -0.0 against 0.0,
    and a captured array updated while tracing, each as the plain calls behave."""
    a, b = lnp.asarray(np.arange(4.0)), lnp.asarray(10 * np.arange(4.0))
    g = loom.jit(lambda x: x * 2)
    f = loom.jit(lambda x: g(x) + 1)
    g(a), f(a)
    np.testing.assert_array_equal(np.asarray(f(b)), 20 * np.arange(4.0) + 1)
    k = loom.jit(lambda x: lnp.asarray(x, copy=True) + 1)
    k(a)
    np.testing.assert_array_equal(np.asarray(k(b)), 10 * np.arange(4.0) + 1)
    t = loom.jit(lambda x: lnp.nonzero(x)[0] + 0)
    np.testing.assert_array_equal(np.asarray(t(a)), [1, 2, 3])
    h = loom.jit(lambda x, z: 1 / (x * z))
    assert np.asarray(h(a, 0.0))[0] == np.inf and np.asarray(h(a, -0.0))[0] == -np.inf
    assert h.cache_size() == 2
    w = lnp.zeros(3)

    def bump(x):
        w[0] = w[0] + 1
        return w + x

    s = loom.jit(bump)
    for _ in range(2):  # each call adds one to the w it captured, as the first did
        np.testing.assert_array_equal(np.asarray(s(lnp.zeros(3))), [1.0, 0.0, 0.0])


def test_inputs_given_back():
    """A jit function that returns its argument or a captured array as it is, alone and in a
    tuple: the result holds the array after the caller drops its own (the arguments made
    before a recycling of the scope, so that only Python's references hold them then)."""
    c = lnp.asarray(np.arange(3.0))
    ident, cap = loom.jit(lambda x: x), loom.jit(lambda x: c)
    both = loom.jit(lambda x: (x, c, x + 1))
    xs = [lnp.asarray(np.full(3, float(k))) for k in range(3)]
    for _ in range(600):  # past the scope's recycling: xs become owned by Python alone
        cap(xs[0])
    got = [(ident(x), cap(x)) + both(x) for x in xs]
    del xs
    gc.collect()
    for _ in range(600):  # and the results' scope recycled too
        cap(c)
    for k, (i, cc, bx, bc, b1) in enumerate(got):
        np.testing.assert_array_equal(np.asarray(i), np.full(3, float(k)))
        np.testing.assert_array_equal(np.asarray(bx), np.full(3, float(k)))
        np.testing.assert_array_equal(np.asarray(b1), np.full(3, k + 1.0))
        np.testing.assert_array_equal(np.asarray(cc), np.arange(3.0))
        np.testing.assert_array_equal(np.asarray(bc), np.arange(3.0))


def test_replayed_calls_match_the_plain_calls():
    """Calls of a few jit functions with new arrays whose shapes, dtypes, layouts and sharing
    change from call to call (a call that matches the last evaluated one replays its graph in
    C; each case follows each other one at least once): every result as the plain calls give
    it."""
    fns = [
        lambda x, y: (x * 2 + y).sum(axis=0),
        lambda x, y: (x @ y.T, x - y.mean()),
        lambda x, y: lnp.where(x > y, x, y)[1:, ::2] ** 2,
        lambda x, y: (x, y + 1, lnp.cumsum(x, axis=-1)),
    ]
    # (y is x, Fortran order (NumPy's memory taken by DLPack, strided), shape, dtype)
    cases = [(True, False, (3, 4), np.float64), (False, False, (3, 4), np.float64),
             (False, False, (3, 4), np.float64),
             (True, False, (3, 4), np.float64), (True, False, (3, 4), np.float64),
             (False, False, (3, 4), np.float64), (False, True, (3, 4), np.float64),
             (False, True, (3, 4), np.float64), (False, False, (3, 4), np.float64),
             (False, False, (5, 4), np.float64), (False, False, (5, 4), np.float32),
             (False, False, (5, 4), np.float32), (True, True, (5, 4), np.float32),
             (False, True, (5, 4), np.float32)]
    keep = []  # (the NumPy memory DLPack arrays use)

    def arr(a, fortran):
        if not fortran:
            return lnp.asarray(a)
        keep.append(np.asfortranarray(a))
        return lnp.from_dlpack(keep[-1])

    for f in fns:
        jf = loom.jit(f)
        for same, fortran, shape, dt in cases:
            a = rng.standard_normal(shape).astype(dt)
            b = rng.standard_normal(shape).astype(dt)
            x = arr(a, fortran)
            y = x if same else arr(b, fortran)
            got, want = jf(x, y), f(x, y)
            got = got if isinstance(got, tuple) else (got,)
            want = want if isinstance(want, tuple) else (want,)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                assert g.dtype == w.dtype and g.shape == w.shape
                np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def test_weak_zeros_keep_their_sign():
    x = lnp.asarray(np.arange(3.0))
    np.testing.assert_array_equal(np.asarray(1 / (x * 0.0)), [np.inf] * 3)
    np.testing.assert_array_equal(np.asarray(1 / (x * -0.0)), [-np.inf] * 3)
    np.testing.assert_array_equal(np.asarray(1 / (x * complex(-0.0, 0.0)).real)[:1], [-np.inf])


def test_copies_inside_a_trace():
    """copy.copy, copy.deepcopy and asarray(copy=True) of a traced array are recorded as
    x.copy() is: an update of the copy leaves the original."""
    import copy

    @loom.jit
    def f(x):
        y = copy.copy(x)
        y[0] = 7.0
        z = lnp.asarray(x, copy=True)  # (it rebound x's program name too)
        z[1] = 5.0
        return y + copy.deepcopy(x) + z

    for a in (np.arange(4, dtype=np.float32), np.arange(1, 5, dtype=np.float32)):
        want, z = a.copy(), a.copy()
        want[0], z[1] = 7, 5
        np.testing.assert_array_equal(f(lnp.asarray(a)).get(), want + a + z)
    assert f.cache_size() == 1
