#!/usr/bin/env python3
"""numpy.linalg through `loom eval` against NumPy 2: every factorisation and what is built on
it, over stacks, empty and 1 x 1 matrices, float32, float64, complex64, complex128 and integer
inputs, transposed views, and the errors NumPy raises (LinAlgError for singular and indefinite
matrices).

Results that are unique are compared directly; eigenvectors and singular vectors (unique only
up to sign or phase) through what they must satisfy: V diag(w) V^H = A, U S Vh = A, Q R = A,
A V = V diag(w) and the orthonormality of Q, U, V; eig's eigenvalues (in the library's order)
through their sum and product. Usage: linalg.py LOOM [--device cpu]. Exits 77 without NumPy 2."""
import argparse
import os
import subprocess
import sys
import tempfile

from common import device_missing, np

RTOL = {"float32": 2e-4, "float64": 1e-9, "complex64": 2e-4, "complex128": 1e-9}


def inputs():
    rng = np.random.default_rng(20261202)
    g = lambda *s: rng.standard_normal(s)
    arrays = {
        "a": g(4, 4) + 4 * np.eye(4),                 # well conditioned
        "s3": g(3, 5, 5) + 5 * np.eye(5),             # a stack
        "f": (g(6, 6) + 6 * np.eye(6)).astype(np.float32),
        "i": rng.integers(-5, 6, (3, 3)) + 8 * np.eye(3, dtype=np.int64),
        "b": g(4, 2), "v": g(4), "bs": g(3, 5, 3), "vs": g(5),
        "t": g(7, 3), "w": g(3, 7), "tf": g(6, 4).astype(np.float32),
        "one": np.array([[2.5]]), "nz": np.array([[0.0, 0.0], [0.0, np.nan]]), "e": np.zeros((0, 0)), "e3": np.zeros((3, 0, 0)),
        "eb": np.zeros((0, 4, 4)), "sing": np.array([[1.0, 2.0], [2.0, 4.0]]),
        "big": g(40, 40) + 10 * np.eye(40), "many": g(200, 8, 8) + 4 * np.eye(8),
        "m17": g(17, 17) + 6 * np.eye(17), "m130": g(130, 130) + 15 * np.eye(130),
        "tall": g(100000, 3),
    }
    spd = g(3, 6, 6)
    arrays["p"] = spd @ spd.swapaxes(-1, -2) + 6 * np.eye(6)
    arrays["pf"] = arrays["p"][0].astype(np.float32)
    sym = g(5, 5)
    arrays["h"] = sym + sym.T
    arrays["hs"] = arrays["p"] - 3 * np.eye(6)
    arrays["indef"] = np.stack([arrays["p"][0], -arrays["p"][1], arrays["p"][2]])
    c = lambda *s: g(*s) + 1j * g(*s)
    arrays["ca"] = c(4, 4) + 4 * np.eye(4)
    arrays["cs3"] = c(3, 5, 5) + 5 * np.eye(5)
    arrays["cf"] = (c(6, 6) + 6 * np.eye(6)).astype(np.complex64)
    arrays["cb"] = c(4, 2)
    arrays["ct"], arrays["cw"] = c(7, 3), c(3, 7)
    hp = c(3, 6, 6)
    arrays["cp"] = hp @ hp.conj().swapaxes(-1, -2) + 6 * np.eye(6)
    arrays["cpf"] = arrays["cp"][0].astype(np.complex64)
    # exactly singular in floating point too, in either orientation: every multiplier is a
    # division by a power of two, so LAPACK, cuSOLVER and NumPy all meet an exact zero pivot
    arrays["csing"] = np.array([[2, 1 + 1j], [4, 2 + 2j]])
    arrays["cm40"] = c(40, 40) + 8 * np.eye(40)
    return arrays


# (expression, number of results); NumPy evaluates the same text.
CASES = [
    ("linalg.solve(a, b)", 1), ("linalg.solve(a, v)", 1), ("linalg.solve(s3, bs)", 1),
    ("linalg.solve(s3, vs)", 1), ("linalg.solve(f, f[:, :2])", 1), ("linalg.solve(i, i)", 1),
    ("linalg.solve(a.T, b)", 1), ("linalg.solve(s3, s3[0])", 1), ("linalg.solve(one, one)", 1),
    ("linalg.solve(e, e)", 1), ("linalg.solve(big, big[:, 3])", 1),
    ("linalg.inv(a)", 1), ("linalg.inv(s3)", 1), ("linalg.inv(f)", 1), ("linalg.inv(i)", 1),
    ("linalg.inv(e3)", 1), ("linalg.inv(eb)", 1), ("linalg.inv(big) @ big", 1),
    ("linalg.det(a)", 1), ("linalg.det(s3)", 1), ("linalg.det(f)", 1), ("linalg.det(i)", 1),
    ("linalg.det(sing)", 1), ("linalg.det(e3)", 1), ("linalg.det(one)", 1),
    ("linalg.slogdet(s3)", 2), ("linalg.slogdet(sing)", 2), ("linalg.slogdet(f)", 2),
    ("linalg.slogdet(-a)", 2), ("linalg.slogdet(e)", 2),
    ("linalg.cholesky(p)", 1), ("linalg.cholesky(pf)", 1), ("linalg.cholesky(p, upper=True)", 1),
    ("linalg.cholesky(one)", 1), ("linalg.cholesky(e3)", 1), ("linalg.cholesky(np.tril(p))", 1),
    ("linalg.cholesky(np.tril(p), upper=True)", 1),
    # a stack of 200 small matrices: the GPU's thread-per-matrix kernel (float32 and float64)
    ("linalg.cholesky(many @ np.swapaxes(many, -1, -2))", 1),
    ("linalg.cholesky((many @ np.swapaxes(many, -1, -2)).astype(np.float32), upper=True)", 1),
    ("linalg.eigvalsh(h)", 1), ("linalg.eigvalsh(hs)", 1), ("linalg.eigvalsh(h, UPLO='U')", 1),
    ("linalg.eigvalsh(np.triu(h))", 1), ("linalg.eigvalsh(np.triu(h), UPLO='U')", 1),
    ("linalg.eigh(hs)[0]", 1), ("linalg.eigvalsh(pf)", 1), ("linalg.eigvalsh(e3)", 1),
    ("r = linalg.eigh(hs); (r[1] * r[0][..., None, :]) @ r[1].mT", 1),
    ("r = linalg.eigh(h, UPLO='U'); r[1].mT @ r[1]", 1),
    ("linalg.svdvals(t)", 1), ("linalg.svdvals(w)", 1), ("linalg.svdvals(s3)", 1),
    ("linalg.svd(tf, compute_uv=False)", 1), ("linalg.svd(e, compute_uv=False)", 1),
    ("r = linalg.svd(t, full_matrices=False); (r[0] * r[1][..., None, :]) @ r[2]", 1),
    ("r = linalg.svd(w, full_matrices=False); (r[0] * r[1][..., None, :]) @ r[2]", 1),
    ("r = linalg.svd(s3); (r[0] * r[1][..., None, :]) @ r[2]", 1),
    ("r = linalg.svd(t); r[0].mT @ r[0]", 1), ("r = linalg.svd(w); r[2] @ r[2].mT", 1),
    ("linalg.qr(t, mode='r')", 1), ("linalg.qr(w, mode='r')", 1), ("linalg.qr(t)", 2),
    ("linalg.qr(w)", 2), ("linalg.qr(t, mode='complete')", 2), ("linalg.qr(w, mode='complete')", 2),
    ("linalg.qr(s3)", 2), ("linalg.qr(tf)", 2), ("linalg.qr(e)", 2),
    ("r = linalg.qr(t); r[0] @ r[1]", 1),
    ("linalg.pinv(t)", 1), ("linalg.pinv(s3)", 1), ("linalg.pinv(sing)", 1),
    ("linalg.pinv(e)", 1), ("linalg.pinv(t, rtol=None)", 1),
    ("linalg.matrix_rank(a)", 1), ("linalg.matrix_rank(sing)", 1), ("linalg.matrix_rank(s3)", 1),
    ("linalg.matrix_rank(v)", 1), ("linalg.matrix_rank(sing, tol=0.5)", 1),
    ("linalg.norm(t, 2)", 1), ("linalg.norm(t, -2)", 1), ("linalg.norm(t, 'nuc')", 1),
    ("linalg.norm(s3, 2, axis=(0, 2))", 1), ("linalg.norm(s3, 'nuc', axis=(2, 1), keepdims=True)", 1),
    ("linalg.matrix_norm(s3, ord=2)", 1), ("linalg.matrix_norm(s3, ord='nuc', keepdims=True)", 1),
    ("linalg.cond(a)", 1), ("linalg.cond(s3, -2)", 1), ("linalg.cond(a, 1)", 1),
    ("linalg.cond(a, 'fro')", 1), ("linalg.cond(s3, -np.inf)", 1), ("linalg.cond(sing, 1)", 1),
    # a singular matrix's 2-norm condition number is its largest singular value over a
    # rounding-level smallest one, which moves with the SVD's implementation (NumPy's
    # OpenBLAS or the reference LAPACK): compared as "huge" (or inf) only
    ("linalg.cond(sing) > 1e15", 1), ("linalg.cond(np.stack([a, a * 0, a]), np.inf)", 1),
    ("linalg.cond(a * np.nan, 1)", 1), ("linalg.matrix_rank(s3, rtol=0.5)", 1),
    ("linalg.matrix_rank(big, rtol=0.1)", 1),
    ("linalg.lstsq(t, t[:, 0] * 2 + 1)", 4), ("linalg.lstsq(t, t @ b[:3])", 4),
    ("linalg.lstsq(w, w[:, 0])", 4), ("linalg.lstsq(sing, sing[0])", 4), ("linalg.lstsq(t, t)", 4),
    ("linalg.matrix_power(a, -1)", 1), ("linalg.matrix_power(s3, -3)", 1),
    ("linalg.tensorinv(a.reshape(2, 2, 4), ind=2)", 1),
    ("linalg.tensorsolve(a.reshape(2, 2, 2, 2), v.reshape(2, 2))", 1),
    ("linalg.solve(2 * a + 1, b - 1) * 3", 1),
    ("linalg.solve(many, many[..., :1])", 1), ("linalg.qr(t * np.nan)", 2),
    ("linalg.det(a * np.nan)", 1), ("linalg.solve(a * np.nan, v)", 1), ("linalg.solve(many, many)", 1),
    ("linalg.inv(many)", 1), ("linalg.det(many)", 1), ("linalg.solve(m17, m17[0])", 1),
    ("linalg.solve(m17.mT, m17[:, :2])", 1), ("linalg.inv(m130) @ m130", 1),
    ("linalg.eigvalsh(m130 + m130.T)", 1), ("linalg.svdvals(m130[:, :77])", 1),
    ("linalg.slogdet(m130)", 2), ("linalg.cholesky(m130 @ m130.T)", 1),
    ("r = linalg.qr(m130[:77]); r[0] @ r[1]", 1),
    # found by review: empty matrix_rank, slogdet's sign with NaN, lstsq's dtype and rcond < 0,
    # scratch sized by the longer side squared
    ("linalg.matrix_rank(np.zeros((2, 0, 3)))", 1), ("linalg.matrix_rank(np.zeros((0, 3)))", 1),
    # with a NaN in the matrix the sign follows the device's pivot order (as NumPy's follows its
    # BLAS's) and loom's logabsdet is NaN where NumPy's is -inf if LAPACK met a zero pivot first
    ("linalg.slogdet(np.array([[np.nan, 1.0], [2.0, 3.0]]))[1]", 1),
    ("np.isnan(linalg.slogdet(nz)[1]) | np.isneginf(linalg.slogdet(nz)[1])", 1),
    ("np.isnan(linalg.det(nz)) | (linalg.det(nz) == 0)", 1),
    ("linalg.lstsq(tf, np.arange(6, dtype=np.int8))", 4),
    ("linalg.lstsq(np.diag([1.0, 1e-20]), np.array([1.0, 1.0]), rcond=-1)", 4),
    ("linalg.svdvals(tall)", 1), ("linalg.qr(tall, mode='r')", 1),
    # numpy.linalg's trace and diagonal take the last two axes (np.trace's the first two)
    ("linalg.trace(s3)", 1), ("linalg.diagonal(s3, offset=1)", 1), ("np.trace(s3)", 1),
    ("np.linalg.trace(s3, offset=-1)", 1),
    # complex matrices: the c and z routines, real results where NumPy's are real
    ("linalg.solve(ca, cb)", 1), ("linalg.solve(cs3, cs3[0])", 1), ("linalg.solve(cf, cf[:, 1])", 1),
    ("linalg.solve(ca, b)", 1), ("linalg.solve(a, cb)", 1), ("linalg.solve(ca.mT, cb)", 1),
    ("linalg.inv(ca)", 1), ("linalg.inv(cs3)", 1), ("linalg.inv(cf)", 1),
    ("linalg.inv(cm40) @ cm40", 1), ("linalg.solve(np.broadcast_to(ca, (300, 4, 4)), cb)", 1),
    ("linalg.det(ca)", 1), ("linalg.det(cs3)", 1), ("linalg.det(cf)", 1), ("linalg.det(csing)", 1),
    ("linalg.slogdet(cs3)", 2), ("linalg.slogdet(cf)", 2), ("linalg.slogdet(csing)", 2),
    ("linalg.slogdet(cm40)", 2),
    ("linalg.cholesky(cp)", 1), ("linalg.cholesky(cp, upper=True)", 1), ("linalg.cholesky(cpf)", 1),
    ("linalg.cholesky(np.tril(cp))", 1),
    ("linalg.eigvalsh(cp)", 1), ("linalg.eigvalsh(cp, UPLO='U')", 1), ("linalg.eigvalsh(cpf)", 1),
    ("linalg.eigvalsh(np.triu(cp), UPLO='U')", 1), ("linalg.eigh(cp)[0]", 1),
    ("r = linalg.eigh(cp); (r[1] * r[0][..., None, :]) @ r[1].mT.conj()", 1),
    ("r = linalg.eigh(cp, UPLO='U'); (r[1] * r[0][..., None, :]) @ r[1].mT.conj()", 1),
    ("r = linalg.eigh(cpf); r[1].mT.conj() @ r[1]", 1),
    ("linalg.svdvals(ct)", 1), ("linalg.svdvals(cw)", 1), ("linalg.svdvals(cs3)", 1),
    ("linalg.svd(cf, compute_uv=False)", 1),
    ("r = linalg.svd(ct, full_matrices=False); (r[0] * r[1][..., None, :]) @ r[2]", 1),
    ("r = linalg.svd(cw); (r[0][:, :3] * r[1]) @ r[2][:3]", 1),
    ("r = linalg.svd(cw); r[2] @ r[2].mT.conj()", 1), ("r = linalg.svd(ct); r[0].mT.conj() @ r[0]", 1),
    ("linalg.qr(ct, mode='r')", 1), ("r = linalg.qr(ct); r[0] @ r[1]", 1),
    ("r = linalg.qr(cw, mode='complete'); r[0] @ r[1]", 1),
    ("r = linalg.qr(ct, mode='complete'); r[0].mT.conj() @ r[0]", 1),
    ("linalg.pinv(ct)", 1), ("linalg.pinv(cs3)", 1), ("linalg.pinv(csing)", 1),
    ("linalg.matrix_rank(ca)", 1), ("linalg.matrix_rank(csing)", 1),
    ("linalg.norm(ct, 2)", 1), ("linalg.norm(ct, 'nuc')", 1), ("linalg.norm(ct)", 1),
    ("linalg.norm(cs3, 1, axis=(1, 2))", 1), ("linalg.norm(cb, axis=0)", 1),
    ("linalg.cond(ca)", 1), ("linalg.cond(cs3, 1)", 1), ("linalg.cond(ca, 'fro')", 1),
    ("linalg.lstsq(ct, ct[:, 0] * 2 + 1j)", 4), ("linalg.lstsq(cw, cw[:, 0])", 4),
    ("linalg.lstsq(ct, t[:, :2])", 4),
    ("linalg.matrix_power(ca, -2)", 1), ("linalg.tensorinv(ca.reshape(2, 2, 4), ind=2)", 1),
    # eig: always complex; the eigenvalues in the library's order, so compared through their
    # sum and product and the eigenvectors through A V = V diag(w) and their unit norms
    ("linalg.eigvals(ca).sum()", 1), ("linalg.eigvals(ca).prod()", 1),
    ("linalg.eigvals(cs3).sum(axis=-1)", 1), ("linalg.eigvals(cs3).prod(axis=-1)", 1),
    ("linalg.eigvals(cf).sum()", 1), ("np.real(linalg.eigvals(a).sum())", 1),
    ("np.real(linalg.eigvals(m17).prod())", 1), ("linalg.eigvals(e3)", 1),
    ("r = linalg.eig(ca); ca @ r[1] - r[1] * r[0][..., None, :]", 1),
    ("r = linalg.eig(cs3); cs3 @ r[1] - r[1] * r[0][..., None, :]", 1),
    ("r = linalg.eig(cm40); cm40 @ r[1] - r[1] * r[0][..., None, :]", 1),
    ("r = linalg.eig(a); a @ r[1] - r[1] * r[0][..., None, :]", 1),
    ("r = linalg.eig(cf); cf @ r[1] - r[1] * r[0][..., None, :]", 1),
    ("r = linalg.eig(f); f @ r[1] - r[1] * r[0][..., None, :]", 1),
    ("linalg.norm(linalg.eig(cs3)[1], axis=-2)", 1), ("linalg.eig(one)[0]", 1),
]
# NumPy raises; loom must fail with the same kind of error.
ERRORS = [
    ("linalg.solve(sing, v[:2])", "Singular matrix"), ("linalg.inv(sing)", "Singular matrix"),
    ("linalg.inv(np.stack([a, a * 0, a]))", "matrix 1 of the stack of 3"),
    ("linalg.cholesky(indef)", "matrix 1 of the stack of 3"),
    ("linalg.cholesky(np.concatenate([p, -p]))", "matrix 3 of the stack of 6"),
    ("linalg.cholesky(h)", "not positive definite"), ("linalg.inv(t)", "square"),
    ("linalg.det(v)", "two-dimensional"), ("linalg.solve(a, t)", "must have shape"),
    ("linalg.eigvalsh(a.astype(np.float16))", "unsupported in linalg"),
    ("linalg.matrix_power(sing, -1)", "Singular matrix"),
    ("linalg.svd(t * np.nan)[1]", "SVD did not converge"),
    ("linalg.solve(np.zeros((2, 2)), np.zeros((2, 0)))", "Singular matrix"),
    ("linalg.eigvalsh(h * np.nan)", "did not converge"),
    ("linalg.solve(csing, cb[:2])", "Singular matrix"), ("linalg.inv(np.stack([ca, ca * 0]))",
                                                         "matrix 1 of the stack of 2"),
    ("linalg.cholesky(-cp)", "matrix 0 of the stack of 3"),
    ("linalg.eigvals(ca * np.nan)", "infs or NaNs"),
    ("linalg.eigvals(np.stack([ca, ca, ca / 0]))", "matrix 2 of the stack of 3"),
]


def random_cases(arrays, count, seed):
    """Random stacks (empty, 1 x 1, odd sizes), dtypes and views (transposed, reversed,
    strided), each function compared directly where its result is unique and through its
    defining identity where it is not."""
    rng = np.random.default_rng(seed)
    cases = []
    views = ["{x}", "{x}.mT", "{x}[..., ::-1, :]", "np.flip({x}, -1).mT"]
    for i in range(count):
        batch = [(), (0,), (1,), (3,), (2, 2)][rng.integers(5)]
        n = int(rng.choice([0, 1, 2, 3, 5, 8, 17]))
        m = int(rng.choice([1, 2, 4, 9]))
        dt = [np.float64, np.float32, np.int32, np.complex128, np.complex64][rng.integers(5)]
        cplx = np.dtype(dt).kind == "c"
        g = lambda *s: rng.uniform(-1, 1, s) + (1j * rng.uniform(-1, 1, s) if cplx else 0)
        sq = g(*batch, n, n) + (n + 1) * np.eye(n)
        if dt == np.int32:
            sq = np.round(sq * 4).astype(np.int32) + 4 * (n + 1) * np.eye(n, dtype=np.int32)
        name = "zq%d" % i
        arrays[name] = sq.astype(dt)
        arrays["zb%d" % i] = g(*batch, n, m).astype(dt if dt != np.int32 else np.float64)
        spd = g(*batch, n, n)
        arrays["zp%d" % i] = (spd @ spd.conj().swapaxes(-1, -2) + n * np.eye(n)).astype(
            dt if dt in (np.float32, np.complex64, np.complex128) else np.float64)
        v = views[rng.integers(len(views))].format(x=name)
        pick = rng.integers(11)
        if pick == 0:
            cases.append(("linalg.solve(%s, zb%d)" % (v, i), 1))
        elif pick == 1:
            cases.append(("linalg.inv(%s)" % v, 1))
        elif pick == 2:
            cases.append(("linalg.slogdet(%s)" % v, 2))
        elif pick == 3:
            cases.append(("linalg.cholesky(zp%d, upper=%s)" % (i, bool(rng.integers(2))), 1))
        elif pick == 4:
            cases.append(("linalg.eigvalsh(zp%d)" % i, 1))
        elif pick == 5:
            cases.append(("r = linalg.eigh(zp%d); (r[1] * r[0][..., None, :]) @ r[1].mT.conj()"
                          % i, 1))
        elif pick == 6:
            cases.append(("linalg.svdvals(zb%d)" % i, 1))
        elif pick == 7:
            cases.append(("r = linalg.svd(%s, full_matrices=False); (r[0] * r[1][..., None, :]) "
                          "@ r[2]" % v, 1))
        elif pick == 8:
            cases.append(("r = linalg.qr(zb%d.mT); r[0] @ r[1]" % i, 1))
        elif pick == 9:
            cases.append(("linalg.pinv(zb%d)" % i, 1))
        else:
            cases.append(("r = linalg.eig(%s); %s @ r[1] - r[1] * r[0][..., None, :]" % (v, v), 1))
    return cases


def run(loom, binds, tmp, expr, n, device):
    names = ["r%d" % i for i in range(max(n, 1))]
    prog = expr if n <= 1 else "%s = %s" % (", ".join(names), expr)
    outs = ["-o", os.path.join(tmp, "out0.npy")] if n <= 1 else \
        [a for k in names for a in ("-o", "%s=%s" % (k, os.path.join(tmp, k + ".npy")))]
    p = subprocess.run([loom, "eval", prog, *binds, *outs, "--device", device],
                       capture_output=True, text=True)
    if p.returncode:
        return None, p.stderr.strip()
    if n <= 1:
        return [np.load(os.path.join(tmp, "out0.npy"))], None
    return [np.load(os.path.join(tmp, k + ".npy")) for k in names], None


def close(got, want, expr=""):
    if ("eig(" in expr or "eigvals(" in expr) and want.dtype.kind == "f" and got.dtype.kind == "c":
        # eig is always complex (include/loom.h); NumPy's is real when every eigenvalue is
        want = want.astype(np.result_type(want.dtype, np.complex64))
    if got.shape != want.shape or got.dtype != want.dtype:
        return "shape/dtype %s %s, NumPy %s %s" % (got.shape, got.dtype, want.shape, want.dtype)
    if want.dtype.kind not in "fc":
        return None if np.array_equal(got, want) else "values differ"
    if want.dtype.kind == "c":  # both parts, on the larger part's scale
        want, got = np.stack([want.real, want.imag]), np.stack([got.real, got.imag])
        rtol = RTOL["float32" if want.dtype == np.float32 else "float64"]
    else:
        rtol = RTOL[str(want.dtype)]
    w, g = want.astype(np.float64), got.astype(np.float64)
    fin = np.abs(w[np.isfinite(w)])
    scale = max(1.0, float(fin.max())) if fin.size else 1.0
    with np.errstate(invalid="ignore"):
        ok = (w == g) | (np.isnan(w) & np.isnan(g)) | \
            (np.abs(g - w) <= rtol * scale)
    if np.all(ok):
        return None
    k = tuple(int(x) for x in np.argwhere(~ok)[0]) if want.ndim else ()
    return "%d of %d differ; first at %s: loom %r, NumPy %r" % (
        int(np.count_nonzero(~ok)), want.size, k, got[k], want[k])


def numpy_eval(expr, arrays):
    ns = dict(arrays, np=np, linalg=np.linalg)
    if "=" in expr.split(";")[0] and ";" in expr:
        stmt, last = expr.rsplit(";", 1)
        exec(stmt, ns)
        return eval(last, ns)
    return eval(expr, ns)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("loom")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("-k", default="", help="only the cases whose text contains this")
    ap.add_argument("--random", type=int, default=60, help="random cases added")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    if device_missing(args.loom, args.device):
        return 77
    arrays = inputs()
    cases_all = CASES + random_cases(arrays, args.random, args.seed)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="loom-linalg-") as tmp:
        binds = []
        for k, x in arrays.items():
            np.save(os.path.join(tmp, k + ".npy"), x)
            binds.append("%s=%s" % (k, os.path.join(tmp, k + ".npy")))
        cases = [c for c in cases_all if args.k in c[0]]
        errors = [c for c in ERRORS if args.k in c[0]]
        for expr, n in cases:
            want = numpy_eval(expr, arrays)
            got, err = run(args.loom, binds, tmp, expr, n, args.device)
            if err:
                failures += 1
                print("FAIL %s\n  loom: %s" % (expr, err))
                continue
            wants = [np.asarray(want)] if n == 1 else [np.asarray(x) for x in want]
            for i, (g, w) in enumerate(zip(got, wants)):
                why = close(g, w, expr)
                if why:
                    failures += 1
                    print("FAIL %s (result %d): %s" % (expr, i, why))
        for expr, words in errors:
            try:
                numpy_eval(expr, arrays)
                np_raised = False
            except (np.linalg.LinAlgError, TypeError, ValueError):
                np_raised = True
            got, err = run(args.loom, binds, tmp, expr, 1, args.device)
            if not np_raised or got is not None or words not in (err or ""):
                failures += 1
                print("FAIL %s: NumPy raised %s; loom: %s" % (expr, np_raised, err or "no error"))
    total = len(cases) + len(errors)
    print("%d of %d linalg cases agree with NumPy" % (total - failures, total))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
