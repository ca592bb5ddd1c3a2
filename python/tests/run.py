#!/usr/bin/env python3
"""The Python package's tests under meson: pytest over this folder; exit 77 (skipped) without
NumPy 2 or pytest."""
import os
import sys

try:
    import numpy
    import pytest
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)
if int(numpy.__version__.split(".")[0]) < 2:
    print("skipped: NumPy %s (loom.numpy's tests compare with NumPy 2)" % numpy.__version__)
    sys.exit(77)
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", os.path.dirname(os.path.abspath(__file__))]))
