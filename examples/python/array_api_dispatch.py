#!/usr/bin/env python3
"""scikit-learn and SciPy running on loom through their Array API support: estimators and
functions fed loom arrays compute with loom (on the GPU when there is one), each result checked
against the same call on NumPy arrays. Needs scikit-learn and SciPy; SCIPY_ARRAY_API=1 is set
here before they are imported, as both require.
Usage: array_api_dispatch.py [ROWS] (default 100,000 rows of 32 float64 features)."""
import os
import sys

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np  # noqa: E402
import scipy.special  # noqa: E402
import scipy.stats  # noqa: E402
import sklearn  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.feature_selection import VarianceThreshold  # noqa: E402
from sklearn.impute import SimpleImputer  # noqa: E402
from sklearn.kernel_approximation import Nystroem  # noqa: E402
from sklearn.linear_model import LogisticRegression, RidgeClassifier  # noqa: E402
from sklearn.metrics import pairwise  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.preprocessing import QuantileTransformer, RobustScaler, StandardScaler  # noqa: E402

import loom  # noqa: E402
import loom.numpy as lnp  # noqa: E402

CASES = [
    ("sklearn StandardScaler", lambda x, y: StandardScaler().fit_transform(x)),
    ("sklearn PCA (full SVD)", lambda x, y: PCA(4, svd_solver="full").fit_transform(x)),
    ("sklearn PCA (covariance eigh)",
     lambda x, y: PCA(4, svd_solver="covariance_eigh").fit_transform(x)),
    ("sklearn LinearDiscriminantAnalysis", lambda x, y: LinearDiscriminantAnalysis()
     .fit(x, y).predict_proba(x)),
    ("sklearn GaussianNB", lambda x, y: GaussianNB().fit(x, y).predict_proba(x)),
    ("sklearn rbf_kernel", lambda x, y: pairwise.rbf_kernel(x[:500])),
    ("sklearn RobustScaler", lambda x, y: RobustScaler().fit_transform(x)),
    ("sklearn QuantileTransformer",
     lambda x, y: QuantileTransformer(n_quantiles=100, random_state=0).fit_transform(x)),
    ("sklearn SimpleImputer (median)",
     lambda x, y: SimpleImputer(strategy="median").fit_transform(x)),
    ("sklearn VarianceThreshold", lambda x, y: VarianceThreshold(1.0).fit_transform(x)),
    ("sklearn Nystroem", lambda x, y: Nystroem(n_components=50, random_state=0).fit_transform(x)),
    ("sklearn RidgeClassifier (svd)", lambda x, y: RidgeClassifier(solver="svd")
     .fit(x, y).decision_function(x)),
    ("sklearn LinearDiscriminantAnalysis (lsqr)",
     lambda x, y: LinearDiscriminantAnalysis(solver="lsqr").fit(x, y).decision_function(x)),
    ("sklearn LogisticRegression", lambda x, y: LogisticRegression().fit(x, y).predict_proba(x)),
    ("scipy.special.logsumexp", lambda x, y: scipy.special.logsumexp(x, axis=1)),
    ("scipy.stats.zscore", lambda x, y: scipy.stats.zscore(x, axis=0)),
    ("scipy.stats.skew", lambda x, y: scipy.stats.skew(x, axis=0)),
]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 32)) * np.linspace(0.5, 3, 32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    lx, ly = lnp.asarray(x), lnp.asarray(y)
    print("device:", loom.get_context().device)
    failed = 0
    for name, fn in CASES:
        want = np.asarray(fn(x, y))
        with sklearn.config_context(array_api_dispatch=True):
            got = fn(lx, ly)
        ok = isinstance(got, loom.ndarray) and np.allclose(
            np.abs(np.asarray(got)), np.abs(want), rtol=1e-6, atol=1e-8)  # (signs of components)
        failed += not ok
        print("%-42s %s" % (name, "agrees with NumPy" if ok else "DIFFERS"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
