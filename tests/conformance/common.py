"""What the NumPy comparison scripts share: NumPy 2 or a skip (exit 77), and whether the device
asked for answers at all."""
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    np = None

if np is None or int(np.__version__.split(".")[0]) < 2:
    print("numpy 2 not installed: skipped")
    sys.exit(77)


def device_missing(loom, device):
    """True (after saying so) when `loom eval` cannot run on device; the CPU is always there."""
    if device == "cpu":
        return False
    p = subprocess.run([loom, "eval", "1", "--device", device], capture_output=True)
    if p.returncode:
        print("no %s device: skipped" % device)
        return True
    return False
