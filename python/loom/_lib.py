"""libloom through ctypes: finding the library and declaring the C functions the package calls.

The library is the first of: $LOOM_LIBRARY (a path), the libdir pkg-config names for `loom`, a
build folder of the repository this package sits in (build, build-gpu), and the
system's search path (ctypes.util.find_library)."""
import ctypes
import ctypes.util
import os
import subprocess

_here = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("LOOM_LIBRARY")
    if env:
        yield env
        return
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "loom"], capture_output=True,
                                text=True, check=True, timeout=10).stdout.strip()
        if libdir:
            yield os.path.join(libdir, "libloom.so")
    except (OSError, subprocess.SubprocessError):
        pass
    root = os.path.dirname(os.path.dirname(_here))
    for b in ("build", "build-gpu"):
        yield os.path.join(root, b, "libloom.so")
    found = ctypes.util.find_library("loom")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path + " (missing)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("loom: libloom.so not found; set LOOM_LIBRARY to its path, or install it "
                      "where pkg-config finds it (tried: %s)" % "; ".join(tried or ["nothing"]))


lib = _load()

P = ctypes.c_void_p
c_i32, c_i64, c_u64, c_size = ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64, ctypes.c_size_t
c_str = ctypes.c_char_p


class Options(ctypes.Structure):
    """loom_options_t (include/loom.h), field for field."""
    _fields_ = [("device", ctypes.c_int), ("cuda_ordinal", ctypes.c_int), ("arch", c_str),
                ("cache_dir", c_str), ("disable_disk_cache", ctypes.c_int), ("dump_dir", c_str),
                ("log_level", ctypes.c_int), ("log_fn", P), ("log_user", P),
                ("allow_tf32", ctypes.c_int), ("allow_fma", ctypes.c_int), ("cuda_stream", P)]


class Stats(ctypes.Structure):
    """loom_stats_t (include/loom.h), field for field."""
    _fields_ = [("evals", c_u64), ("kernels_launched", c_u64), ("plan_hits", c_u64),
                ("plan_misses", c_u64), ("kernel_mem_hits", c_u64), ("kernel_disk_hits", c_u64),
                ("kernel_compiles", c_u64), ("compile_ms", ctypes.c_double),
                ("h2d_copies", c_u64), ("h2d_bytes", c_u64), ("d2h_copies", c_u64),
                ("d2h_bytes", c_u64), ("pool_bytes_in_use", c_size), ("pool_bytes_held", c_size),
                ("pool_peak_in_use", c_size), ("last_eval_h2d_copies", c_u64),
                ("last_eval_h2d_bytes", c_u64), ("last_eval_d2h_copies", c_u64),
                ("last_eval_d2h_bytes", c_u64), ("kernels_reversed", c_u64)]


def _decl(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


_decl("loom_dtype_name", c_str, ctypes.c_int)
_decl("loom_dtype_from_name", ctypes.c_int, c_str)
_decl("loom_device_from_name", ctypes.c_int, c_str, ctypes.POINTER(c_str))
_decl("loom_ctx_create", ctypes.c_int, ctypes.POINTER(Options), ctypes.POINTER(P))
_decl("loom_ctx_destroy", None, P)
_decl("loom_last_create_message", c_str)
_decl("loom_ctx_status", ctypes.c_int, P)
_decl("loom_ctx_message", c_str, P)
_decl("loom_ctx_clear_error", None, P)
_decl("loom_ctx_device", ctypes.c_int, P)
_decl("loom_ctx_device_name", c_str, P)
_decl("loom_ctx_stats", None, P, ctypes.POINTER(Stats))
_decl("loom_scope_begin", None, P)
_decl("loom_scope_end", None, P)
_decl("loom_array_retain", P, P)
_decl("loom_array_release", None, P)
_decl("loom_array_is_nil", ctypes.c_int, P)
_decl("loom_array_dtype", ctypes.c_int, P)
_decl("loom_array_ndim", c_i32, P)
_decl("loom_array_dim", c_i64, P, c_i32)
_decl("loom_array_nbytes", c_size, P)
_decl("loom_from_host", P, P, ctypes.c_int, c_i32, ctypes.POINTER(c_i64), P)
_decl("loom_eval", ctypes.c_int, P, c_i32, ctypes.POINTER(P))
_decl("loom_read", ctypes.c_int, P, P, P, c_size)
_decl("loom_sync", ctypes.c_int, P)
_decl("loom_array_device_ptr", c_u64, P, P)
_decl("loom_to_dlpack", ctypes.c_int, P, P, ctypes.c_int, ctypes.POINTER(P))
_decl("loom_from_dlpack", P, P, P, ctypes.c_int)
_decl("loom_expr", P, P, c_str, c_i32, ctypes.POINTER(c_str), ctypes.POINTER(P))
_decl("loom_parse", ctypes.c_int, P, c_str, c_i32, ctypes.POINTER(c_str), ctypes.POINTER(P),
      c_i32, ctypes.POINTER(c_str), ctypes.POINTER(P))
_decl("loom_parse_items", ctypes.c_int, P, c_str, c_i32, ctypes.POINTER(c_str), ctypes.POINTER(P),
      c_i32, ctypes.POINTER(P), ctypes.POINTER(c_i32), ctypes.POINTER(ctypes.c_int))
_decl("loom_program_create", ctypes.c_int, P, c_str, ctypes.POINTER(P))
_decl("loom_program_run", ctypes.c_int, P, P, c_i32, ctypes.POINTER(c_str), ctypes.POINTER(P),
      c_i32, ctypes.POINTER(P), ctypes.POINTER(c_i32), ctypes.POINTER(ctypes.c_int))
_decl("loom_program_destroy", None, P)
_decl("loom_program_eval", ctypes.c_int, P, P, c_i32, ctypes.POINTER(c_str), ctypes.POINTER(P),
      c_i32, ctypes.POINTER(P), ctypes.POINTER(c_i32), ctypes.POINTER(ctypes.c_int))
# The run as a loom.jit replay calls it (lazy, or evaluated in the same call): pointer
# arguments of type void *, so that its arrays go by address (ints), where POINTER argument
# types check each object per call.
_prog_proto = ctypes.CFUNCTYPE(ctypes.c_int, P, P, c_i32, P, P, c_i32, P, P, P)
program_run_addr = _prog_proto(("loom_program_run", lib))
program_eval_addr = _prog_proto(("loom_program_eval", lib))
_decl("loom_expr_function", c_str, c_i32, ctypes.POINTER(c_str), ctypes.POINTER(ctypes.c_int))
_decl("loom_expr_builder", P, c_i32, ctypes.POINTER(ctypes.c_int))
_decl("loom_isdtype", ctypes.c_int, ctypes.c_int, c_str)
_decl("loom_can_cast", ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int)
_decl("loom_weak_int", P, P, c_i64)
_decl("loom_weak_uint", P, P, c_u64)
_decl("loom_weak_float", P, P, ctypes.c_double)
_decl("loom_weak_bool", P, P, ctypes.c_int)
_decl("loom_weak_complex", P, P, ctypes.c_double, ctypes.c_double)
_decl("loom_npy_load", P, P, c_str)
_decl("loom_npy_save", ctypes.c_int, P, P, c_str)

# the elementwise builders keep the GIL: they only record a node (the time to release the GIL
# and take it back is a sizeable part of that)
UNARY = ctypes.PYFUNCTYPE(P, P, P)
BINARY = ctypes.PYFUNCTYPE(P, P, P, P)

# the dtype enumeration, by the library's own names
DTYPES = []
while len(DTYPES) < 64:
    s = lib.loom_dtype_name(len(DTYPES))
    if not s or s == b"invalid":
        break
    DTYPES.append(s.decode())


def functions():
    """The expression language's functions: (name, parameters, is_method) in table order."""
    out, i = [], 0
    params, method = c_str(), ctypes.c_int()
    while True:
        name = lib.loom_expr_function(i, ctypes.byref(params), ctypes.byref(method))
        if not name:
            return out
        out.append((name.decode(), (params.value or b"").decode(), bool(method.value)))
        i += 1


def builders():
    """{name: (arity, C builder)} of the table's elementwise ufuncs (loom_expr_builder)."""
    out, arity = {}, ctypes.c_int()
    for i, (name, _, _) in enumerate(functions()):
        f = lib.loom_expr_builder(i, ctypes.byref(arity))
        if f and name not in out:
            out[name] = (arity.value, (UNARY if arity.value == 1 else BINARY)(f))
    return out
