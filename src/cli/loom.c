/* loom — the command: NumPy expressions over .npy files (loom eval), what this machine and
 * build offer (loom info), and the kernel cache (loom cache stats|clear). A thin shell over the
 * public API: the expression language is loom_parse's, files are loom_npy_load/save's. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <loom.h>

static const char usage_text[] =
    "NAME\n"
    "    loom - evaluate NumPy expressions with loom, inspect devices and the kernel cache\n"
    "\n"
    "SYNOPSIS\n"
    "    loom eval EXPR [NAME=FILE.npy ...] [-o FILE.npy | -o NAME=FILE.npy ...]\n"
    "              [--device auto|cpu|cuda|gpu|nvrtc[:sm_XY]] [--dump DIR] [--dot FILE]\n"
    "              [--stats] [--repeat N]\n"
    "    loom info [--device auto|cpu|cuda|gpu|nvrtc[:sm_XY]]\n"
    "    loom cache stats|clear\n"
    "    loom --help | --version\n"
    "\n"
    "DESCRIPTION\n"
    "    loom eval evaluates EXPR, a program in a subset of Python/NumPy syntax, over arrays read\n"
    "    from .npy files, so that NumPy can evaluate the same string and the results compared.\n"
    "    Statements are separated by ';' or newlines; `a = ...` assigns. Operators: + - * / // %\n"
    "    ** @, unary - + ~, comparisons, & | ^ << >>, parentheses. Numbers: ints, floats with\n"
    "    exponents, imaginary numbers (2.5j, 1 + 2j), True, False, inf, nan, pi, e (Python\n"
    "    numbers: weak next to arrays, NEP 50).\n"
    "    Calls use NumPy's names, with or without np.: every elementwise ufunc (sqrt, add,\n"
    "    maximum, ...), where, clip, astype(x, 'float32') or x.astype('float32'), zeros, ones,\n"
    "    full, arange, linspace, eye (dtype=...); reductions sum, prod, mean, max, min, argmax,\n"
    "    argmin, any, all, var, std (axis=, keepdims=, ddof=), cumsum, cumprod; views and joins:\n"
    "    indexing x[1:10:2, :, None, ...], x.T, reshape, transpose, broadcast_to, expand_dims,\n"
    "    squeeze, flip, moveaxis, concatenate, stack; matmul (and @). On the CUDA device they\n"
    "    run as fused kernels (LOOM_DUMP shows the schedule) and cuBLAS; a construct loom does\n"
    "    not support yet is an error naming it, never a wrong answer.\n"
    "\n"
    "    Without -o, the last value is printed. -o FILE.npy writes the last value; -o "
    "NAME=FILE.npy\n"
    "    writes the variable (or input) NAME. Every output is computed in one evaluation.\n"
    "\n"
    "OPTIONS\n"
    "    NAME=FILE.npy   bind NAME to the array in FILE.npy (any loom dtype, either byte order,\n"
    "                    C or Fortran order, format 1.0-3.0; bfloat16 as descr '<V2')\n"
    "    -o [NAME=]FILE  write an output as .npy (bfloat16 as '<V2'); FILE - is stdout. An\n"
    "                    existing file is replaced whole or, if the write fails, left as it was\n"
    "    --device D      auto (CUDA if present, else the CPU reference; default, or "
    "$LOOM_DEVICE),\n"
    "                    cpu, cuda (or gpu), or nvrtc[:sm_XY] (compile kernels only, for that\n"
    "                    arch, default sm_90; computes no values); in any case, as for\n"
    "                    $LOOM_DEVICE\n"
    "    --dump DIR      write each kernel's .cu, compile log and the graph (text, DOT) to DIR\n"
    "    --dot FILE      write the evaluated graph as Graphviz DOT to FILE\n"
    "    --stats         print the context's counters (kernels, cache hits, copies) to stderr\n"
    "    --repeat N      evaluate N times, 1 <= N <= 1000000 (a new graph each time), and print\n"
    "                    timings to stderr\n"
    "\n"
    "    loom info prints the loom and NVRTC versions, the CUDA driver, the device, and the "
    "kernel\n"
    "    cache folder and its size. loom cache stats counts the cache's entries; loom cache clear\n"
    "    deletes them (only files named like cache entries).\n"
    "\n"
    "ENVIRONMENT\n"
    "    LOOM_DEVICE, LOOM_CACHE_DIR, LOOM_DUMP, LOOM_LOG=error|info|debug, LOOM_ALLOW_FMA,\n"
    "    LOOM_COPY_THREADS, LOOM_GEMM_TUNE (see loom.h and docs/)\n"
    "\n"
    "EXIT STATUS\n"
    "    0 on success, 1 when loom reports an error (printed with its status), 2 on bad usage.\n"
    "\n"
    "EXAMPLES\n"
    "    loom eval 'sqrt(x**2 + y**2)' x=a.npy y=b.npy -o h.npy\n"
    "    loom eval 'z = where(x > 0, x, 0.1 * x); w = z.astype(\"float16\")' x=a.npy -o w=w.npy\n"
    "    loom eval '-2**2 + 7 // 2'\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "loom: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(loom --help for usage)\n");
    return 2;
}

static int fail(loom_ctx_t *ctx) {
    const char *msg = loom_ctx_message(ctx);
    if (!strncmp(msg, "loom: ", 6)) msg += 6;
    fprintf(stderr, "loom: error (%s): %s\n", loom_status_string(loom_ctx_status(ctx)), msg);
    return 1; /* the caller destroys ctx */
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

#define DEVICE_NAMES "auto, cpu, cuda, gpu, nvrtc, nvrtc:sm_XY"
#define MAX_REPEAT   1000000

/* --device VALUE (v NULL: missing), in the spellings LOOM_DEVICE accepts. Returns 0, or 2
 * after a usage error. */
static int device_option(const char *v, loom_options_t *o) {
    int kind = loom_device_from_name(v, &o->arch);
    if (kind >= 0) {
        o->device = (loom_device_kind_t)kind;
        return 0;
    }
    if (!v) return usage_error("--device needs one of %s", DEVICE_NAMES);
    return usage_error("--device '%.100s' is not one of %s (in any case)", v, DEVICE_NAMES);
}

/* A decimal count in [lo, hi]: digits only (no sign, no spaces), without overflow. */
static bool parse_count(const char *s, long long lo, long long hi, long long *out) {
    if (!s || *s < '0' || *s > '9') return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static loom_ctx_t *make_ctx(const loom_options_t *o) {
    loom_ctx_t *ctx = NULL;
    loom_status_t st = loom_ctx_create(o, &ctx);
    if (st != LOOM_STATUS_OK) {
        fprintf(stderr, "loom: cannot create a context (%s): %s\n", loom_status_string(st),
                loom_last_create_message());
        return NULL;
    }
    return ctx;
}

/* ---- Printing values ---- */

static double elem_double(loom_dtype_t d, const unsigned char *p) {
    uint16_t h;
    switch (d) {
        case LOOM_DTYPE_BOOL:
            return *p != 0;
        case LOOM_DTYPE_I8:
            return *(const int8_t *)p;
        case LOOM_DTYPE_U8:
            return *p;
        case LOOM_DTYPE_F16:
            memcpy(&h, p, 2);
            return loom_f16_to_f32(h);
        case LOOM_DTYPE_BF16:
            memcpy(&h, p, 2);
            return loom_bf16_to_f32(h);
        case LOOM_DTYPE_F32: {
            float f;
            memcpy(&f, p, 4);
            return f;
        }
        case LOOM_DTYPE_F64: {
            double f;
            memcpy(&f, p, 8);
            return f;
        }
        default:
            return 0;
    }
}

/* Whether text read back gives the same element (shortest round-trip output). */
static bool same_elem(loom_dtype_t d, double v, double back) {
    switch (d) {
        case LOOM_DTYPE_F16:
            return loom_f64_to_f16(back) == loom_f64_to_f16(v);
        case LOOM_DTYPE_BF16:
            return loom_f64_to_bf16(back) == loom_f64_to_bf16(v);
        case LOOM_DTYPE_F32:
            return (float)back == (float)v;
        default:
            return back == v;
    }
}

/* A float as NumPy prints it: the shortest text that reads back to the same value. */
static void format_real(loom_dtype_t d, double v, char *buf, size_t cap) {
    if (v != v) {
        snprintf(buf, cap, "nan");
        return;
    }
    if (v == 1.0 / 0.0 || v == -1.0 / 0.0) {
        snprintf(buf, cap, "%s", v > 0 ? "inf" : "-inf");
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (same_elem(d, v, strtod(buf, NULL))) break;
    }
    if (!strpbrk(buf, ".en") && strlen(buf) + 1 < cap) strcat(buf, ".");
}

static void print_elem(loom_dtype_t d, const unsigned char *p) {
    char buf[64];
    switch (d) {
        case LOOM_DTYPE_BOOL:
            fputs(*p ? " True" : "False", stdout);
            return;
        case LOOM_DTYPE_I16: {
            int16_t v;
            memcpy(&v, p, 2);
            printf("%d", v);
            return;
        }
        case LOOM_DTYPE_I32: {
            int32_t v;
            memcpy(&v, p, 4);
            printf("%d", v);
            return;
        }
        case LOOM_DTYPE_I64: {
            int64_t v;
            memcpy(&v, p, 8);
            printf("%lld", (long long)v);
            return;
        }
        case LOOM_DTYPE_U16: {
            uint16_t v;
            memcpy(&v, p, 2);
            printf("%u", v);
            return;
        }
        case LOOM_DTYPE_U32: {
            uint32_t v;
            memcpy(&v, p, 4);
            printf("%u", v);
            return;
        }
        case LOOM_DTYPE_U64: {
            uint64_t v;
            memcpy(&v, p, 8);
            printf("%llu", (unsigned long long)v);
            return;
        }
        case LOOM_DTYPE_I8:
        case LOOM_DTYPE_U8:
            printf("%g", elem_double(d, p));
            return;
        default:
            break;
    }
    if (d == LOOM_DTYPE_C64 || d == LOOM_DTYPE_C128) { /* NumPy's 1.+2.j */
        loom_dtype_t part = d == LOOM_DTYPE_C64 ? LOOM_DTYPE_F32 : LOOM_DTYPE_F64;
        size_t half = loom_dtype_size(part);
        char re[64], im[64];
        format_real(part, elem_double(part, p), re, sizeof re);
        format_real(part, elem_double(part, p + half), im, sizeof im);
        printf("%s%s%sj", re, im[0] == '-' ? "" : "+", im);
        return;
    }
    format_real(d, elem_double(d, p), buf, sizeof buf);
    fputs(buf, stdout);
}

/* NumPy's str() layout; long axes of big arrays show 3 items at each end. */
static void print_axis(loom_dtype_t d, const unsigned char *data, int32_t ndim,
                       const int64_t *shape, int32_t ax, int64_t off, bool summarize) {
    size_t esize = loom_dtype_size(d);
    if (ax == ndim) {
        print_elem(d, data + (size_t)off * esize);
        return;
    }
    int64_t stride = 1;
    for (int32_t i = ax + 1; i < ndim; i++) stride *= shape[i];
    fputc('[', stdout);
    for (int64_t i = 0; i < shape[ax]; i++) {
        if (summarize && shape[ax] > 6 && i == 3) {
            printf(ax + 1 == ndim ? " ..." : "\n%*s...", ax + 1, "");
            i = shape[ax] - 3;
        }
        if (i) {
            if (ax + 1 == ndim)
                fputc(' ', stdout);
            else
                printf("%.*s%*s", ndim - ax - 1, "\n\n\n\n\n\n\n\n", ax + 1, "");
        }
        print_axis(d, data, ndim, shape, ax + 1, off + i * stride, summarize);
    }
    fputc(']', stdout);
}

static int print_array(loom_ctx_t *ctx, loom_array_t *a) {
    loom_dtype_t d = loom_array_dtype(a);
    int32_t nd = loom_array_ndim(a);
    int64_t shape[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) shape[i] = loom_array_dim(a, i);
    size_t n = loom_array_nbytes(a);
    unsigned char *buf = malloc(n ? n : 1);
    if (!buf) {
        fprintf(stderr, "loom: out of memory\n");
        return 1;
    }
    if (loom_read(ctx, a, buf, n) != LOOM_STATUS_OK) {
        free(buf);
        return -1;
    }
    printf("%s (", loom_dtype_name(d));
    for (int32_t i = 0; i < nd; i++) printf(i ? ", %lld" : "%lld", (long long)shape[i]);
    printf(nd == 1 ? ",)\n" : ")\n");
    print_axis(d, buf, nd, shape, 0, 0, loom_array_size(a) > 1000);
    fputc('\n', stdout);
    free(buf);
    return 0;
}

/* ---- --dot: the graph the library dumps, copied out of the dump folder ---- */

/* The path of the newest graph_*.dot in dir (malloc'd), or NULL. */
static char *newest_dot(const char *dir) {
    DIR *dd = opendir(dir);
    if (!dd) return NULL;
    char best[256] = "";
    struct dirent *e;
    while ((e = readdir(dd))) {
        size_t n = strlen(e->d_name);
        if (!strncmp(e->d_name, "graph_", 6) && n > 4 && !strcmp(e->d_name + n - 4, ".dot") &&
            n < sizeof best && strcmp(e->d_name, best) > 0)
            strcpy(best, e->d_name);
    }
    closedir(dd);
    if (!best[0]) return NULL;
    char *p = malloc(strlen(dir) + strlen(best) + 2);
    if (p) sprintf(p, "%s/%s", dir, best);
    return p;
}

static bool copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    bool ok = in && out;
    char buf[1 << 14];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
    if (in) fclose(in);
    if (out) ok = fclose(out) == 0 && ok;
    return ok;
}

static void remove_tree_files(const char *dir) {
    DIR *dd = opendir(dir);
    if (!dd) return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(dd))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(dd);
    rmdir(dir);
}

/* -o -: the .npy to stdout, as a stream. loom_npy_save writes named files (replacing them whole),
 * so the file is saved in a private temp folder and copied. 0, or the exit code (reported). */
static int save_stdout(loom_ctx_t *ctx, loom_array_t *a) {
    char dir[] = "/tmp/loom-out-XXXXXX", path[sizeof dir + 8], buf[1 << 14];
    if (!mkdtemp(dir)) {
        fprintf(stderr, "loom: -o -: cannot create a temporary folder: %s\n", strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/o.npy", dir);
    int rc = loom_npy_save(ctx, a, path) != LOOM_STATUS_OK ? fail(ctx) : 0;
    FILE *in = rc ? NULL : fopen(path, "rb");
    bool ok = in != NULL;
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, stdout) == n;
    ok = ok && fflush(stdout) == 0;
    if (!rc && !ok) {
        fprintf(stderr, "loom: -o -: writing the .npy to stdout: %s\n", strerror(errno));
        rc = 1;
    }
    if (in) fclose(in);
    unlink(path);
    rmdir(dir);
    return rc;
}

/* ---- loom eval ---- */

typedef struct out_spec {
    const char *name; /* NULL: the last value */
    const char *file;
} out_spec_t;

/* Everything `loom eval` allocates, freed in one place whichever way it returns. */
typedef struct eval_mem {
    char **in_names;
    const char **in_files;
    out_spec_t *outs;
    loom_array_t **inputs;
    const char **res_names;
    loom_array_t **res;
    double *times;
    loom_ctx_t *ctx;
    char tmpdir[32];
    bool own_dump;
} eval_mem_t;

static int eval_run(int argc, char **argv, eval_mem_t *m) {
    const char *expr = NULL, *dump = NULL, *dot = NULL;
    loom_options_t o = {0};
    bool stats = false;
    long long repeat = 1;
    int n_in = 0, n_out = 0;
    char **in_names = m->in_names = calloc((size_t)argc, sizeof *in_names);
    const char **in_files = m->in_files = calloc((size_t)argc, sizeof *in_files);
    out_spec_t *outs = m->outs = calloc((size_t)argc, sizeof *outs);
    if (!in_names || !in_files || !outs) return usage_error("%s", "out of memory");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            if (!has_val) return usage_error("%s needs [NAME=]FILE.npy", a);
            char *v = argv[++i], *eq = strchr(v, '=');
            if (eq) {
                *eq = '\0';
                outs[n_out++] = (out_spec_t){v, eq + 1};
            } else {
                outs[n_out++] = (out_spec_t){NULL, v};
            }
        } else if (!strcmp(a, "--device")) {
            if (device_option(has_val ? argv[i + 1] : NULL, &o)) return 2;
            i++;
        } else if (!strcmp(a, "--dump")) {
            if (!has_val) return usage_error("%s needs a folder", a);
            dump = argv[++i];
        } else if (!strcmp(a, "--dot")) {
            if (!has_val) return usage_error("%s needs a file", a);
            dot = argv[++i];
        } else if (!strcmp(a, "--stats")) {
            stats = true;
        } else if (!strcmp(a, "--repeat")) {
            if (!has_val) return usage_error("--repeat needs a count from 1 to %d", MAX_REPEAT);
            if (!parse_count(argv[i + 1], 1, MAX_REPEAT, &repeat))
                return usage_error("--repeat takes a count from 1 to %d, not '%.100s'", MAX_REPEAT,
                                   argv[i + 1]);
            i++;
        } else if (a[0] == '-' && a[1] == '-' && a[2] &&
                   strspn(a + 2, "abcdefghijklmnopqrstuvwxyz-") == strlen(a + 2)) {
            /* --word is an option; an expression such as --x or --f(x) is not */
            return usage_error("unknown option %s", a);
        } else if (!expr) {
            expr = a;
        } else if (strchr(a, '=')) {
            in_names[n_in] = argv[i];
            char *eq = strchr(argv[i], '=');
            *eq = '\0';
            in_files[n_in++] = eq + 1;
        } else {
            return usage_error("unexpected argument '%s' (inputs are NAME=FILE.npy)", a);
        }
    }
    if (!expr) return usage_error("%s", "eval needs an expression");
    int unnamed = 0, to_stdout = 0;
    for (int k = 0; k < n_out; k++) unnamed += outs[k].name == NULL;
    for (int k = 0; k < n_out; k++) to_stdout += !strcmp(outs[k].file, "-");
    if (unnamed > 1) return usage_error("%s", "only one -o FILE may be unnamed (the last value)");
    if (to_stdout > 1) return usage_error("%s", "only one -o may write to stdout (-)");

    char *tmpdir = m->tmpdir;
    snprintf(m->tmpdir, sizeof m->tmpdir, "/tmp/loom-dot-XXXXXX");
    if (dot && !dump) {
        if (!mkdtemp(tmpdir))
            return usage_error("cannot create a temporary folder: %s", strerror(errno));
        dump = tmpdir;
        m->own_dump = true;
    }
    o.dump_dir = dump;
    loom_ctx_t *ctx = m->ctx = make_ctx(&o);
    if (!ctx) return 1;

    loom_array_t **inputs = m->inputs = calloc((size_t)(n_in ? n_in : 1), sizeof *inputs);
    if (!inputs) return usage_error("%s", "out of memory");
    for (int i = 0; i < n_in; i++) {
        inputs[i] = loom_npy_load(ctx, in_files[i]);
        if (loom_array_is_nil(inputs[i])) return fail(ctx);
    }
    int n_res = n_out ? n_out : 1;
    const char **res_names = m->res_names = calloc((size_t)n_res, sizeof *res_names);
    loom_array_t **res = m->res = calloc((size_t)n_res, sizeof *res);
    double *times = m->times = calloc((size_t)repeat, sizeof *times);
    if (!res_names || !res || !times) return usage_error("%s", "out of memory");
    for (int k = 0; k < n_out; k++) res_names[k] = outs[k].name;
    for (long long r = 0; r < repeat; r++) {
        if (r) loom_scope_end(ctx);
        loom_scope_begin(ctx);
        double t0 = now_ms();
        if (loom_parse(ctx, expr, n_in, (const char *const *)in_names, inputs, n_res, res_names,
                       res) != LOOM_STATUS_OK ||
            loom_eval(ctx, n_res, res) != LOOM_STATUS_OK || loom_sync(ctx) != LOOM_STATUS_OK)
            return fail(ctx);
        times[r] = now_ms() - t0;
    }
    int rc = 0;
    if (n_out == 0 && loom_ctx_device(ctx) == LOOM_DEVICE_NVRTC) {
        fprintf(stderr, "loom: kernels compiled; the nvrtc device computes no values\n");
    } else if (n_out == 0) {
        int p = print_array(ctx, res[0]);
        if (p < 0) return fail(ctx);
        rc = p;
    }
    for (int k = 0; k < n_out; k++) {
        if (!strcmp(outs[k].file, "-")) {
            int w = save_stdout(ctx, res[k]);
            if (w) return w;
        } else if (loom_npy_save(ctx, res[k], outs[k].file) != LOOM_STATUS_OK) {
            return fail(ctx);
        }
    }
    if (repeat > 1) {
        double best = times[0], sum = 0;
        for (long long r = 0; r < repeat; r++) {
            best = times[r] < best ? times[r] : best;
            sum += times[r];
        }
        fprintf(stderr,
                "loom: %lld runs (parse + build + eval): first %.3f ms, best %.3f ms, "
                "mean %.3f ms\n",
                repeat, times[0], best, sum / (double)repeat);
    }
    if (stats) {
        loom_stats_t s;
        loom_ctx_stats(ctx, &s);
        fprintf(stderr,
                "loom: device %s\n"
                "loom: evals %llu, kernels launched %llu, plan hits %llu / misses %llu\n"
                "loom: kernels: memory-cache hits %llu, disk-cache hits %llu, compiled %llu "
                "(%.1f ms)\n"
                "loom: copies: h2d %llu (%llu bytes), d2h %llu (%llu bytes); pool in use %zu, "
                "held %zu, peak %zu bytes\n",
                loom_ctx_device_name(ctx), (unsigned long long)s.evals,
                (unsigned long long)s.kernels_launched, (unsigned long long)s.plan_hits,
                (unsigned long long)s.plan_misses, (unsigned long long)s.kernel_mem_hits,
                (unsigned long long)s.kernel_disk_hits, (unsigned long long)s.kernel_compiles,
                s.compile_ms, (unsigned long long)s.h2d_copies, (unsigned long long)s.h2d_bytes,
                (unsigned long long)s.d2h_copies, (unsigned long long)s.d2h_bytes,
                s.pool_bytes_in_use, s.pool_bytes_held, s.pool_peak_in_use);
    }
    if (dot) {
        char *src = newest_dot(dump);
        if (!src) {
            fprintf(stderr,
                    "loom: --dot: nothing was evaluated (the result is an input), no graph\n");
            rc = rc ? rc : 1;
        } else if (!copy_file(src, dot)) {
            fprintf(stderr, "loom: --dot: cannot write %s: %s\n", dot, strerror(errno));
            rc = 1;
        }
        free(src);
    }
    return rc;
}

static int cmd_eval(int argc, char **argv) {
    eval_mem_t m;
    memset(&m, 0, sizeof m);
    int rc = eval_run(argc, argv, &m);
    loom_ctx_destroy(m.ctx);
    if (m.own_dump) remove_tree_files(m.tmpdir);
    free(m.times);
    free(m.res);
    free(m.res_names);
    free(m.inputs);
    free(m.in_names);
    free(m.in_files);
    free(m.outs);
    return rc;
}

/* ---- loom info, loom cache ---- */

/* Walks <dir>/<2 hex>/<32 hex>.cubin (the kernel cache's layout); deletes them if clear. */
static void cache_walk(const char *dir, bool clear, long *n, long long *bytes) {
    *n = 0;
    *bytes = 0;
    DIR *top = opendir(dir);
    if (!top) return;
    struct dirent *e;
    char sub[4096], path[4400];
    while ((e = readdir(top))) {
        if (strlen(e->d_name) != 2 || strspn(e->d_name, "0123456789abcdef") != 2) continue;
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        struct stat sst; /* a real shard folder, never a symlink to somewhere else */
        if (lstat(sub, &sst) != 0 || !S_ISDIR(sst.st_mode)) continue;
        DIR *dd = opendir(sub);
        if (!dd) continue;
        struct dirent *f;
        while ((f = readdir(dd))) {
            size_t len = strlen(f->d_name);
            if (len != 38 || strcmp(f->d_name + 32, ".cubin") ||
                strspn(f->d_name, "0123456789abcdef") != 32)
                continue;
            snprintf(path, sizeof path, "%s/%s", sub, f->d_name);
            struct stat st;
            if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
            if (clear && unlink(path) != 0) continue;
            (*n)++;
            *bytes += (long long)st.st_size;
        }
        closedir(dd);
        if (clear) rmdir(sub); /* only succeeds when empty */
    }
    closedir(top);
}

/* The kernel cache folder, from a compile-only context (no GPU needed). */
static int cache_dir(char *out, size_t cap) {
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_NVRTC;
    loom_ctx_t *ctx = NULL;
    if (loom_ctx_create(&o, &ctx) != LOOM_STATUS_OK) {
        fprintf(stderr, "loom: no kernel cache: %s\n", loom_last_create_message());
        return 1;
    }
    loom_info_t info;
    loom_ctx_info(ctx, &info);
    snprintf(out, cap, "%s", info.cache_dir);
    loom_ctx_destroy(ctx);
    if (!out[0]) {
        fprintf(stderr, "loom: the kernel cache is memory-only (no usable folder)\n");
        return 1;
    }
    return 0;
}

static int cmd_cache(int argc, char **argv) {
    if (argc != 1 || (strcmp(argv[0], "stats") && strcmp(argv[0], "clear")))
        return usage_error("%s", "cache takes stats or clear");
    char dir[4096];
    if (cache_dir(dir, sizeof dir)) return 1;
    long n;
    long long bytes;
    bool clear = !strcmp(argv[0], "clear");
    cache_walk(dir, clear, &n, &bytes);
    if (clear)
        printf("removed %ld kernels (%.1f KiB) from %s\n", n, (double)bytes / 1024, dir);
    else
        printf("folder  %s\nkernels %ld\nbytes   %lld (%.1f KiB)\n", dir, n, bytes,
               (double)bytes / 1024);
    return 0;
}

static void print_version(const char *what, int v) {
    if (v)
        printf("%-8s%d.%d\n", what, v / 1000, (v % 1000) / 10);
    else
        printf("%-8snone\n", what);
}

static int cmd_info(int argc, char **argv) {
    loom_options_t o = {0};
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--device"))
            return usage_error("info: unexpected argument '%s'", argv[i]);
        if (device_option(i + 1 < argc ? argv[i + 1] : NULL, &o)) return 2;
        i++;
    }
    loom_info_t info;
    loom_ctx_info(NULL, &info);
    printf("loom    %s (header %s)\n", info.version, LOOM_VERSION_STRING);
    printf("cuda    %s\n", info.cuda_built ? "built with NVRTC" : "not built (CPU only)");
    print_version("nvrtc", info.nvrtc_version);
    print_version("driver", info.driver_version);
    loom_ctx_t *ctx = NULL;
    loom_status_t st = loom_ctx_create(&o, &ctx);
    if (st != LOOM_STATUS_OK) {
        printf("device  none (%s: %s)\n", loom_status_string(st), loom_last_create_message());
    } else {
        loom_ctx_info(ctx, &info);
        printf("device  %s%s%s\n", info.device_name, info.arch[0] ? ", " : "", info.arch);
        loom_ctx_destroy(ctx);
    }
    char dir[4096];
    if (info.cuda_built && cache_dir(dir, sizeof dir) == 0) {
        long n;
        long long bytes;
        cache_walk(dir, false, &n, &bytes);
        printf("cache   %s (%ld kernels, %.1f KiB)\n", dir, n, (double)bytes / 1024);
    } else {
        printf("cache   none\n");
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage_text, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("loom %s\n", LOOM_VERSION_STRING);
        return 0;
    }
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return 0;
        }
    if (!strcmp(cmd, "eval")) return cmd_eval(argc - 2, argv + 2);
    if (!strcmp(cmd, "info")) return cmd_info(argc - 2, argv + 2);
    if (!strcmp(cmd, "cache")) return cmd_cache(argc - 2, argv + 2);
    return usage_error("unknown command '%s' (eval, info, cache)", cmd);
}
