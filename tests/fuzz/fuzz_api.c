/* fuzz_api — libFuzzer target: the bytes as a program of API calls on a CPU reference context,
 * made fresh for each input so that every input starts clean and replays alone. A pool of up
 * to 16 array handles; each opcode byte picks a call (constructors, elementwise ops, reductions,
 * scans, views, joins, products, gathers, masks, sorts, sets and scatters, loom_expr, eval and
 * reads, .npy round trips, wrapped host memory, DLPack export, scopes and refcounts, clearing
 * the error, an allocation failure armed for the next call) and takes its arguments from the
 * bytes after it, bad ones included (nil and NULL arrays, invalid dtypes and axes, negative and
 * huge extents, NULL lists).
 *
 * After each call the target checks the contract of loom.h and aborts on a violation: a builder
 * returns nil exactly when it records an error (or an operand was nil), the first error stays
 * until cleared, a status is a known one other than INTERNAL and comes with a message, actions
 * return the context's status, a read of an evaluated array succeeds, a short buffer is refused
 * and left untouched, and an array read back through a view, a second read or a .npy round trip
 * has the same bytes. Nothing is evaluated before a walk of its lazy DAG (src/frontend/fe.h)
 * bounds the work, so huge shapes are built and read with short buffers (which must fail before
 * allocating) but never computed. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/fe.h"
#include "loom.h"

#include "../support/dlpack.h"

enum {
    MAX_INPUT = 2048,
    MAX_CALLS = 128,
    POOL = 16,
    MAX_NODE_ELEMS = 4096, /* any one node that is evaluated: 64 KiB of complex128 */
    MAX_WORK = 1 << 16,    /* elements (and multiply-adds) of one evaluation */
    MAX_NODES = 512,
    SEEN_CAP = 2048, /* the walk's pointer set: a power of two above 2 * MAX_NODES */
    BUF_BYTES = MAX_NODE_ELEMS * 16, /* complex128 */
    CANARY = 64,
    ARENA_BYTES = 1 << 16, /* host memory that arrays borrow or wrap, per input */
    MAX_WRAPS = 64,
    MAX_EXPORTS = 8,
    MAX_BLOCKS = 8,
    MAX_TOKENS = 16,
};

/* ---- the program's state (reset for each input) ---- */

typedef struct slot {
    loom_array_t *a;
    uint32_t level;   /* the scope that owns it (ctx->n_scopes when made); 0: that scope ended */
    uint32_t retains; /* references the program holds beyond its scope's */
} slot_t;

static loom_ctx_t *ctx;
static slot_t pool[POOL];
static int n_pool, next_slot;
static bool inject;          /* an allocation failure is armed for this call */
static loom_status_t before; /* the status before the current call */
static char before_msg[sizeof((base_error_t *)0)->message];
static _Alignas(4096) unsigned char arena[ARENA_BYTES];
static size_t arena_used;
static _Alignas(64) unsigned char bufs[4][BUF_BYTES + 2 * CANARY];
static unsigned char scratch[BUF_BYTES];
static int wrap_released[MAX_WRAPS]; /* release calls per wrap */
static bool wrap_taken[MAX_WRAPS];   /* whether loom_wrap_host accepted it */
static int n_wraps;
static void *exports[MAX_EXPORTS];
static int n_exports;
static void *blocks[MAX_BLOCKS];
static int n_blocks;
static char npy_path[256];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what) {
    fprintf(stderr, "fuzz_api: %s (status %d, message \"%s\", before %d \"%s\")\n", what,
            (int)loom_ctx_status(ctx), loom_ctx_message(ctx), (int)before, before_msg);
    abort();
}

#define CHECK(cond, what)                                                                          \
    do {                                                                                           \
        if (!(cond)) fail(what);                                                                   \
    } while (0)

/* ---- reading the program ---- */

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
} reader_t;

static uint8_t byte(reader_t *r) { return r->at < r->n ? r->p[r->at++] : 0; }

static uint64_t raw64(reader_t *r) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | byte(r);
    return v;
}

/* A dtype, now and then an invalid one. */
static loom_dtype_t dtype(reader_t *r) {
    uint8_t b = byte(r);
    static const int bad[4] = {LOOM_DTYPE_COUNT, -1, 255, INT32_MAX};
    return b < 0xF0 ? (loom_dtype_t)(b % LOOM_DTYPE_COUNT) : (loom_dtype_t)bad[b & 3];
}

/* An extent (or a reshape's -1): mostly small, now and then negative or huge. */
static int64_t extent(reader_t *r) {
    static const int64_t huge[16] = {4097,
                                     65536,
                                     INT64_C(1) << 20,
                                     INT64_C(1) << 31,
                                     INT64_C(1) << 32,
                                     INT64_C(3037000500),
                                     INT64_C(1) << 40,
                                     INT64_C(1) << 59,
                                     INT64_C(1) << 60,
                                     (INT64_C(1) << 60) + 1,
                                     INT64_C(1) << 62,
                                     INT64_MAX,
                                     INT64_MIN,
                                     INT64_C(1) << 21,
                                     INT64_C(1) << 30,
                                     4096};
    uint8_t b = byte(r);
    switch (b >> 5) {
        case 7:
            return huge[b & 15];
        case 6:
            return -(int64_t)(b & 7) - 1;
        case 5:
            return b & 31;
        default:
            return b % 6;
    }
}

/* A shape: ndim (sometimes outside 0..LOOM_MAX_DIMS) and extents in shape[16]; NULL now and
 * then (with ndim > 0). */
static const int64_t *shape_arg(reader_t *r, int32_t *ndim, int64_t *shape) {
    uint8_t b = byte(r);
    *ndim = b < 0xE0 ? b % 5 : (int32_t)(b % 12) - 2; /* -2 .. 9 */
    int32_t n = *ndim < 0 ? 0 : *ndim;
    for (int32_t i = 0; i < n; i++) shape[i] = extent(r);
    if (b >= 0xFC) {
        *ndim = 1 + (b & 3);
        return NULL;
    }
    return shape;
}

/* One axis: mostly -4..4, now and then far out or LOOM_AXIS_NONE. */
static int32_t axis_arg(reader_t *r) {
    static const int32_t odd[8] = {INT32_MIN, INT32_MAX, 8, -9, 100, -100, 9, INT32_MIN + 1};
    uint8_t b = byte(r);
    return b >= 0xF8 ? odd[b & 7] : (int32_t)(b % 9) - 4;
}

/* A list of axes in axes[16] and its length (sometimes -1 or above LOOM_MAX_DIMS); NULL now
 * and then. */
static const int32_t *axes_arg(reader_t *r, int32_t *n, int32_t *axes) {
    uint8_t b = byte(r);
    static const int32_t odd[4] = {-1, 5, 9, -3};
    *n = b < 0xE0 ? b % 4 : odd[b & 3];
    for (int32_t i = 0; i < *n; i++) axes[i] = axis_arg(r);
    return (b & 0xF0) == 0xD0 ? NULL : axes;
}

static double real(reader_t *r) {
    static const double t[15] = {0,         1,     -1,     0.5, 2.5,   -0.0,   NAN,  INFINITY,
                                 -INFINITY, 1e308, 5e-324, 300, 65504, 3.5e38, -7.25};
    uint8_t b = byte(r);
    if ((b & 15) < 15) return t[b & 15];
    uint64_t v = raw64(r);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

static int64_t integer(reader_t *r) {
    static const int64_t t[15] = {127,
                                  128,
                                  255,
                                  256,
                                  -129,
                                  32768,
                                  65535,
                                  INT64_C(1) << 31,
                                  -(INT64_C(1) << 31) - 1,
                                  INT64_C(1) << 32,
                                  INT64_C(1) << 53,
                                  (INT64_C(1) << 53) + 1,
                                  INT64_MAX,
                                  INT64_MIN,
                                  300};
    uint8_t b = byte(r);
    if (b < 0xC0) return (int64_t)(b % 21) - 10;
    if ((b & 15) < 15) return t[b & 15];
    return (int64_t)raw64(r);
}

/* ---- the pool ---- */

static bool is_nil(const loom_array_t *a) { return a && loom_array_is_nil(a); }

/* An operand: a handle of the pool, or NULL. */
static loom_array_t *pick(reader_t *r) {
    uint8_t b = byte(r);
    return b == 0xFF || n_pool == 0 ? NULL : pool[b % n_pool].a;
}

static void put(loom_array_t *a) {
    if (loom_array_is_nil(a)) /* one nil in the pool is enough to test propagation */
        for (int i = 0; i < n_pool; i++)
            if (loom_array_is_nil(pool[i].a)) return;
    slot_t s = {a, ctx->n_scopes, 0};
    if (n_pool < POOL)
        pool[n_pool++] = s;
    else
        pool[next_slot++ % POOL] = s;
}

static void drop(int i) { pool[i] = pool[--n_pool]; }

/* Every handle the contract keeps alive (its scope is open, or the program retains it) is. */
static void check_pool(void) {
    for (int i = 0; i < n_pool; i++)
        if (!loom_array_is_nil(pool[i].a) && pool[i].a->refcount <= 0)
            fail("an array was freed while its scope or a retain still held it");
}

/* ---- invariants ---- */

/* Notes the status and message before a call. */
static void pre(void) {
    before = ctx->err.status;
    memcpy(before_msg, ctx->err.message, sizeof before_msg);
}

static void check_status(void) {
    loom_status_t st = loom_ctx_status(ctx);
    const char *m = loom_ctx_message(ctx);
    CHECK((unsigned)st < LOOM_STATUS_COUNT, "an unknown status");
    CHECK(st != LOOM_STATUS_INTERNAL, "an INTERNAL status (a bug in loom, says loom.h)");
    CHECK((st == LOOM_STATUS_OK) == (m[0] == '\0'), "a status without a message, or the reverse");
}

/* The first error stays until cleared. */
static void check_kept(void) {
    if (before != LOOM_STATUS_OK)
        CHECK(loom_ctx_status(ctx) == before && !strcmp(loom_ctx_message(ctx), before_msg),
              "the first error was replaced");
}

/* An action's returned status is the context's. */
static loom_status_t acted(loom_status_t st) {
    check_status();
    check_kept();
    CHECK(st == loom_ctx_status(ctx), "an action returned a status other than the context's");
    return st;
}

/* The facts of a non-nil array agree and its size fits. */
static void check_array(const loom_array_t *a) {
    int32_t nd = loom_array_ndim(a);
    loom_dtype_t d = loom_array_dtype(a);
    CHECK(nd >= 0 && nd <= LOOM_MAX_DIMS, "ndim out of range");
    CHECK((unsigned)d < LOOM_DTYPE_COUNT, "an invalid dtype");
    int64_t n = 1, nonzero = 1;
    size_t bytes;
    for (int32_t i = 0; i < nd; i++) {
        int64_t e = loom_array_dim(a, i);
        CHECK(e >= 0, "a negative extent");
        CHECK(!__builtin_mul_overflow(nonzero, e ? e : 1, &nonzero),
              "a shape whose element count overflows int64");
        n *= e; /* bounded by nonzero */
    }
    CHECK(!__builtin_mul_overflow((size_t)nonzero, loom_dtype_size(d), &bytes),
          "a shape whose bytes overflow size_t");
    CHECK(loom_array_dim(a, -1) == (nd ? loom_array_dim(a, nd - 1) : 0), "dim(-1)");
    CHECK(loom_array_size(a) == n, "size is not the product of the extents");
    CHECK(loom_array_nbytes(a) == (size_t)n * loom_dtype_size(d), "nbytes");
}

/* The contract of a builder's result r: nil with an error (or a nil operand), or an array with
 * none; a pending error stays. The result joins the pool. */
static loom_array_t *built(loom_array_t *r, bool nil_in) {
    check_status();
    check_kept();
    CHECK(r != NULL, "a builder returned NULL");
    loom_status_t st = loom_ctx_status(ctx);
    if (before == LOOM_STATUS_OK) {
        if (loom_array_is_nil(r))
            CHECK(st != LOOM_STATUS_OK || nil_in, "a nil result without an error");
        else
            CHECK(st == LOOM_STATUS_OK, "an error recorded with a non-nil result");
    }
    if (!loom_array_is_nil(r)) check_array(r);
    put(r);
    return r;
}

/* What fe_check_shape says of a shape: OK, INVALID_ARGUMENT or OVERFLOW. */
static loom_status_t shape_status(int32_t ndim, const int64_t *shape, int64_t *n) {
    *n = 0;
    if (ndim < 0 || ndim > LOOM_MAX_DIMS || (ndim > 0 && !shape))
        return LOOM_STATUS_INVALID_ARGUMENT;
    for (int32_t i = 0; i < ndim; i++)
        if (shape[i] < 0) return LOOM_STATUS_INVALID_ARGUMENT;
    int64_t p = 1, nonzero = 1;
    for (int32_t i = 0; i < ndim; i++)
        if (__builtin_mul_overflow(p, shape[i], &p) ||
            __builtin_mul_overflow(nonzero, shape[i] ? shape[i] : 1, &nonzero) ||
            nonzero >= (INT64_C(1) << 60))
            return LOOM_STATUS_OVERFLOW;
    *n = p;
    return LOOM_STATUS_OK;
}

/* A leaf constructor's status for a valid dtype and this shape status, when none is pending. */
static void check_leaf(loom_array_t *r, bool dtype_ok, loom_status_t shape_st) {
    if (before != LOOM_STATUS_OK || inject || !dtype_ok) return;
    if (shape_st == LOOM_STATUS_OK)
        CHECK(!loom_array_is_nil(r), "a valid constructor call failed");
    else
        CHECK(loom_ctx_status(ctx) == shape_st, "a bad shape gave another status");
}

/* ---- bounding the work ---- */

/* Elements of a's shape, or -1 past MAX_NODE_ELEMS. */
static int64_t node_elems(const loom_array_t *a) {
    int64_t n = 1;
    for (int32_t i = 0; i < a->ndim; i++)
        if (a->shape[i] == 0) return 0;
    for (int32_t i = 0; i < a->ndim; i++) {
        if (a->shape[i] < 0 || a->shape[i] > MAX_NODE_ELEMS || n > MAX_NODE_ELEMS / a->shape[i])
            return -1;
        n *= a->shape[i];
    }
    return n;
}

/* The multiply-adds per element of a MATMUL node: the extent it contracts. */
static int64_t contracted(const loom_array_t *m) {
    const loom_array_t *a = m->src[0];
    int64_t naxes = m->p.k >= IR_MATMUL_TENSORDOT ? m->p.k - IR_MATMUL_TENSORDOT : 1, k = 1;
    if (node_elems(a) < 0) return -1;
    for (int64_t i = 0; i < naxes && i < a->ndim; i++) k *= a->shape[a->ndim - 1 - i];
    return k;
}

/* Whether evaluating the roots (NULL and nil skipped) touches at most MAX_NODES nodes of at most
 * MAX_NODE_ELEMS elements each and MAX_WORK in all. Shared nodes count once. */
static bool small_enough(loom_array_t *const *roots, int n_roots) {
    static const loom_array_t *seen[SEEN_CAP];
    static const loom_array_t *stack[MAX_NODES];
    memset(seen, 0, sizeof seen);
    int n_seen = 0, n_stack = 0;
    int64_t work = 0;
    for (int i = 0; i < n_roots; i++)
        if (roots[i] && !loom_array_is_nil(roots[i])) {
            if (n_stack == MAX_NODES) return false;
            stack[n_stack++] = roots[i];
        }
    while (n_stack > 0) {
        const loom_array_t *a = stack[--n_stack];
        size_t h = ((uintptr_t)a >> 4) * 0x9E3779B97F4A7C15u >> 53; /* 11 bits */
        while (seen[h] && seen[h] != a) h = (h + 1) & (SEEN_CAP - 1);
        if (seen[h]) continue;
        if (++n_seen > MAX_NODES) return false;
        seen[h] = a;
        int64_t n = node_elems(a);
        if (n < 0) return false;
        if (!(a->flags & FE_REALISED) && a->op == IR_OP_MATMUL) {
            int64_t k = contracted(a);
            if (k < 0) return false;
            n *= k ? k : 1;
        }
        if (!(a->flags & FE_REALISED) && ir_ops[a->op].kind == IR_KIND_LINALG) {
            /* a factorisation: about max(rows, cols)^3 per matrix */
            const loom_array_t *o = a->src[0];
            int64_t big = o->shape[o->ndim - 1] > o->shape[o->ndim - 2] ? o->shape[o->ndim - 1]
                                                                        : o->shape[o->ndim - 2];
            if (big > 64) return false;
            n = node_elems(o) * (big ? big : 1);
        }
        if ((work += n) > MAX_WORK) return false;
        for (int k = 0; k < 3; k++) {
            if (!a->src[k]) continue;
            if (n_stack == MAX_NODES) return false;
            stack[n_stack++] = a->src[k];
        }
    }
    return true;
}

static bool small(loom_array_t *a) { return small_enough(&a, 1); }

static bool realised(const loom_array_t *a) {
    return a && !loom_array_is_nil(a) && (a->flags & FE_REALISED);
}

/* ---- reads ---- */

static void fill_canary(unsigned char *p, size_t n) { memset(p, 0xA5, n); }

static bool canary_ok(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0xA5) return false;
    return true;
}

/* Reads a (small enough, not nil) into bufs[k]; the status, checked against the contract. */
static loom_status_t read_into(loom_array_t *a, int k) {
    size_t need = loom_array_nbytes(a);
    fill_canary(bufs[k], need + CANARY);
    pre();
    bool was_realised = realised(a);
    loom_status_t st = acted(loom_read(ctx, a, bufs[k], need + (k & 1) * 8));
    if (before == LOOM_STATUS_OK && was_realised && !inject)
        CHECK(st == LOOM_STATUS_OK, "a read of an evaluated array failed");
    CHECK(canary_ok(bufs[k] + need, CANARY - 8), "a read wrote past the array's bytes");
    if (st != LOOM_STATUS_OK) CHECK(canary_ok(bufs[k], need), "a failed read wrote its buffer");
    return st;
}

/* ---- the calls ---- */

static void op_fill(reader_t *r) {
    uint8_t which = byte(r) % 6;
    loom_dtype_t d = dtype(r);
    int64_t shape[16] = {0}, n;
    int32_t nd;
    const int64_t *s = shape_arg(r, &nd, shape);
    loom_status_t sst = shape_status(nd, s, &n);
    bool dtype_ok = (unsigned)d < LOOM_DTYPE_COUNT;
    loom_array_t *a;
    pre();
    switch (which) {
        case 0:
            a = loom_zeros(ctx, d, nd, s);
            break;
        case 1:
            a = loom_ones(ctx, d, nd, s);
            break;
        case 2:
            a = loom_full(ctx, d, nd, s, real(r));
            break;
        case 3:
            a = loom_full_int(ctx, d, nd, s, integer(r));
            break;
        default: {
            uint64_t seed = raw64(r);
            double lo = real(r), hi = real(r);
            a = which == 4 ? loom_random_uniform(ctx, seed, d, nd, s, lo, hi)
                           : loom_random_normal(ctx, seed, d, nd, s, lo, hi);
            dtype_ok = dtype_ok && d >= LOOM_DTYPE_F16 && d <= LOOM_DTYPE_F64; /* floats */
            break;
        }
    }
    check_leaf(built(a, false), dtype_ok, sst);
}

static void op_range(reader_t *r) {
    uint8_t which = byte(r) % 4;
    loom_dtype_t d = dtype(r);
    pre();
    switch (which) {
        case 0: {
            double start = real(r), stop = real(r), step = real(r);
            built(loom_arange(ctx, start, stop, step, d), false);
            break;
        }
        case 1: {
            int64_t start = integer(r), stop = integer(r), step = integer(r);
            built(loom_arange_int(ctx, start, stop, step, d), false);
            break;
        }
        case 2: {
            double start = real(r), stop = real(r);
            int64_t num = extent(r);
            built(loom_linspace(ctx, start, stop, num, byte(r) & 1, d), false);
            break;
        }
        default: {
            int64_t n = extent(r), m = extent(r), k = integer(r);
            built(loom_eye(ctx, n, m, k, d), false);
            break;
        }
    }
}

/* loom_from_host (a copy) or loom_borrow_host (memory of the arena, unchanged until the input
 * ends), with data from the program; sizes that would copy more than the data are not asked
 * for unless the shape check must refuse them first. */
static void op_host(reader_t *r) {
    uint8_t b = byte(r);
    loom_dtype_t d = dtype(r);
    int64_t shape[16] = {0}, n;
    int32_t nd;
    const int64_t *s = shape_arg(r, &nd, shape);
    loom_status_t sst = shape_status(nd, s, &n);
    bool dtype_ok = (unsigned)d < LOOM_DTYPE_COUNT;
    size_t bytes = dtype_ok && sst == LOOM_STATUS_OK ? (size_t)n * loom_dtype_size(d) : 0;
    bool borrow = b & 1;
    if (dtype_ok && sst == LOOM_STATUS_OK && bytes > BUF_BYTES) return;
    unsigned char *data = borrow ? arena + arena_used : scratch;
    if (borrow && arena_used + bytes > ARENA_BYTES) return;
    size_t k = byte(r) % 33; /* a pattern from the program, repeated */
    unsigned char pat[32];
    for (size_t i = 0; i < k; i++) pat[i] = byte(r);
    for (size_t i = 0; i < bytes; i++) data[i] = k ? pat[i % k] : (unsigned char)(i * 131u + 7u);
    if (d == LOOM_DTYPE_BOOL) /* bools are bytes 0 and 1 (loom_npy_load makes them so) */
        for (size_t i = 0; i < bytes; i++) data[i] &= 1;
    if (borrow) arena_used = (arena_used + bytes + 63) & ~(size_t)63;
    const void *p = (b & 0x0E) == 0x0E ? NULL : data;
    pre();
    loom_array_t *a =
        borrow ? loom_borrow_host(ctx, d, nd, s, p) : loom_from_host(ctx, d, nd, s, p);
    check_leaf(built(a, false), dtype_ok && (p || bytes == 0), sst);
}

static void op_weak(reader_t *r) {
    uint8_t which = byte(r) % 4;
    loom_array_t *a;
    pre();
    switch (which) {
        case 0:
            a = built(loom_weak_int(ctx, integer(r)), false);
            break;
        case 1:
            a = built(loom_weak_uint(ctx, (uint64_t)integer(r)), false);
            break;
        case 2:
            a = built(loom_weak_float(ctx, real(r)), false);
            break;
        default:
            a = built(loom_weak_bool(ctx, byte(r) & 1), false);
            break;
    }
    CHECK(before != LOOM_STATUS_OK || inject || !loom_array_is_nil(a), "a weak scalar failed");
}

typedef loom_array_t *(*unary_fn)(loom_ctx_t *, loom_array_t *);
typedef loom_array_t *(*binary_fn)(loom_ctx_t *, loom_array_t *, loom_array_t *);
typedef loom_array_t *(*binary_f_fn)(loom_ctx_t *, loom_array_t *, double);
typedef loom_array_t *(*binary_i_fn)(loom_ctx_t *, loom_array_t *, int64_t);

#define FN(name) loom_##name,
static const unary_fn unary[] = {LOOM_UNARY_LIST(FN)};
static const binary_fn binary[] = {LOOM_BINARY_LIST(FN)};
#undef FN
#define FN(name) loom_##name##_f,
static const binary_f_fn binary_f[] = {LOOM_BINARY_LIST(FN)};
#undef FN
#define FN(name) loom_##name##_i,
static const binary_i_fn binary_i[] = {LOOM_BINARY_LIST(FN)};
#undef FN

#define N_UNARY  (sizeof unary / sizeof unary[0])
#define N_BINARY (sizeof binary / sizeof binary[0])

static void op_unary(reader_t *r) {
    unary_fn f = unary[byte(r) % N_UNARY];
    loom_array_t *a = pick(r);
    pre();
    built(f(ctx, a), is_nil(a));
}

static void op_binary(reader_t *r) {
    uint8_t b = byte(r);
    size_t k = b % N_BINARY;
    loom_array_t *a = pick(r);
    pre();
    switch (byte(r) % 4) {
        case 0:
            built(binary_f[k](ctx, a, real(r)), is_nil(a));
            break;
        case 1:
            built(binary_i[k](ctx, a, integer(r)), is_nil(a));
            break;
        default: {
            loom_array_t *c = pick(r);
            built(binary[k](ctx, a, c), is_nil(a) || is_nil(c));
            break;
        }
    }
}

static void op_where_clip(reader_t *r) {
    uint8_t b = byte(r);
    loom_array_t *x = pick(r), *y = pick(r), *z = pick(r);
    bool nil_in = is_nil(x) || is_nil(y) || is_nil(z);
    pre();
    if (b & 1)
        built(loom_where(ctx, x, y, z), nil_in);
    else
        built(loom_clip(ctx, x, y, z), nil_in);
}

static void op_astype(reader_t *r) {
    loom_array_t *a = pick(r);
    loom_dtype_t d = dtype(r);
    pre();
    built(loom_astype(ctx, a, d), is_nil(a));
}

typedef loom_array_t *(*reduce_fn)(loom_ctx_t *, loom_array_t *, int32_t, const int32_t *, int);
static const reduce_fn reductions[] = {loom_sum, loom_prod, loom_mean,   loom_max,   loom_min,
                                       loom_any, loom_all,  loom_argmax, loom_argmin};

static void op_reduce(reader_t *r) {
    uint8_t which = byte(r) % 11;
    loom_array_t *a = pick(r);
    int32_t axes[16] = {0}, n;
    const int32_t *ax = axes_arg(r, &n, axes);
    int keepdims = byte(r) & 1;
    pre();
    if (which < 9) {
        built(reductions[which](ctx, a, n, ax, keepdims), is_nil(a));
    } else {
        double ddof = real(r);
        built((which == 9 ? loom_var : loom_std)(ctx, a, n, ax, keepdims, ddof), is_nil(a));
    }
}

static void op_scan(reader_t *r) {
    uint8_t b = byte(r);
    loom_array_t *a = pick(r);
    int32_t axis = b & 2 ? LOOM_AXIS_NONE : axis_arg(r);
    pre();
    built((b & 1 ? loom_cumprod : loom_cumsum)(ctx, a, axis), is_nil(a));
}

static void op_reshape(reader_t *r) {
    uint8_t b = byte(r);
    loom_array_t *a = pick(r);
    int64_t shape[16] = {0};
    int32_t nd;
    const int64_t *s = shape_arg(r, &nd, shape);
    pre();
    if (b & 1)
        built(loom_broadcast_to(ctx, a, nd, s), is_nil(a));
    else
        built(loom_reshape(ctx, a, nd, s), is_nil(a));
}

static void op_axes(reader_t *r) {
    uint8_t which = byte(r) % 5;
    loom_array_t *a = pick(r);
    int32_t axes[16] = {0}, dst[16] = {0}, n;
    const int32_t *ax = axes_arg(r, &n, axes);
    pre();
    switch (which) {
        case 0:
            built(loom_transpose(ctx, a, n, ax), is_nil(a));
            break;
        case 1:
            built(loom_expand_dims(ctx, a, n, ax), is_nil(a));
            break;
        case 2:
            built(loom_squeeze(ctx, a, n, ax), is_nil(a));
            break;
        case 3:
            built(loom_flip(ctx, a, n, ax), is_nil(a));
            break;
        default:
            for (int32_t i = 0; i < n; i++) dst[i] = axis_arg(r);
            built(loom_moveaxis(ctx, a, n, ax, byte(r) == 0xFF ? NULL : dst), is_nil(a));
            break;
    }
}

/* A slice bound: omitted, small, or far out. */
static int64_t bound(reader_t *r) {
    uint8_t b = byte(r);
    if (b < 0x40) return LOOM_NONE;
    if (b < 0xF0) return (int64_t)(b % 13) - 6;
    static const int64_t far[16] = {
        INT64_MAX,     INT64_MIN + 1, INT64_C(1) << 62, -(INT64_C(1) << 62), 100, -100, 4096, -4097,
        INT64_MAX - 1, INT64_MIN + 2, INT64_C(1) << 32, -(INT64_C(1) << 32), 7,   -7,   8,    -8};
    return far[b & 15];
}

static void op_slice(reader_t *r) {
    uint8_t b = byte(r);
    loom_array_t *a = pick(r);
    int32_t naxes = (int32_t)(byte(r) % 11) - 1; /* -1 .. 9 */
    int64_t lists[3][16];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 16; i++) lists[k][i] = i < naxes ? bound(r) : 0;
    pre();
    built(loom_slice(ctx, a, naxes, b & 1 ? NULL : lists[0], b & 2 ? NULL : lists[1],
                     b & 4 ? NULL : lists[2]),
          is_nil(a));
}

static void op_join(reader_t *r) {
    uint8_t b = byte(r);
    int32_t n = b % 5; /* 0 .. 4 */
    loom_array_t *arrays[4];
    bool nil_in = false;
    for (int32_t i = 0; i < n; i++) {
        arrays[i] = pick(r);
        nil_in = nil_in || is_nil(arrays[i]);
    }
    int32_t axis = axis_arg(r);
    if ((b & 0xF0) == 0xF0) n = -1;
    loom_array_t *const *list = (b & 0xF0) == 0xE0 ? NULL : arrays;
    pre();
    if (b & 8)
        built(loom_stack(ctx, n, list, axis), nil_in);
    else
        built(loom_concatenate(ctx, n, list, axis), nil_in);
}

static void op_product(reader_t *r) {
    uint8_t which = byte(r) % 3;
    loom_array_t *a = pick(r), *c = pick(r);
    bool nil_in = is_nil(a) || is_nil(c);
    pre();
    if (which == 0)
        built(loom_matmul(ctx, a, c), nil_in);
    else if (which == 1)
        built(loom_dot(ctx, a, c), nil_in);
    else
        built(loom_tensordot(ctx, a, c, (int32_t)(byte(r) % 11) - 1), nil_in);
}

/* loom_expr's tokens, split at '#' once (LLVMFuzzerInitialize): names, numbers, operators and
 * the starts of calls, methods and keyword arguments. */
static const char token_text[] =
    "a#b#c#d#0#1#2#-1#0.5#2.5#300#1e300#2**63#True#+#-#*#/#//#%#**#@#<#==#&#|#^#~#<<#>>#(#)#,#"
    "[#]#:#::-1#None#;#x =#x#.T#.mT#sqrt(#abs(#sum(#mean(#max(#argmax(#cumsum(#var(#where(#"
    "clip(#reshape(#transpose(#concatenate((#stack((#matmul(#dot(#zeros((#ones((#full((#"
    "arange(#linspace(#eye(#exp(#maximum(#floor_divide(#isnan(#broadcast_to(#expand_dims(#"
    "squeeze(#flip(#moveaxis(#ravel(#.astype('float16')#.astype('int8')#.astype('bool')#"
    ".astype('uint64')#.sum(#.reshape(#axis=#keepdims=True#dtype='int32'#dtype='bfloat16'#"
    "ddof=1#-2#3#4#int8(#float32(#uint64(#inf#nan#0.0#-0.0#10**20";
static const char *tokens[128];
static char token_buf[sizeof token_text];
static int n_tokens;

/* loom_expr over up to four handles bound to a, b, c, d: a program of tokens (or raw bytes). */
static void op_expr(reader_t *r) {
    static const char *const names[4] = {"a", "b", "c", "d"};
    static const char *const bad_names[4] = {"a", "a", "1x", ""};
    uint8_t b = byte(r);
    int32_t n_names = b % 5;
    loom_array_t *arrays[4];
    for (int32_t i = 0; i < n_names; i++) arrays[i] = pick(r);
    char text[MAX_TOKENS * 24 + 1];
    size_t len = 0;
    int n = byte(r) % (MAX_TOKENS + 1);
    if (b & 0x80) { /* raw bytes, up to the first NUL */
        for (int i = 0; i < n; i++) text[len++] = (char)byte(r);
    } else {
        for (int i = 0; i < n; i++) {
            const char *t = tokens[byte(r) % n_tokens];
            size_t tl = strlen(t);
            memcpy(text + len, t, tl);
            len += tl;
            text[len++] = ' ';
        }
    }
    text[len] = '\0';
    const char *const *nm = (b & 0x60) == 0x60 ? bad_names : names;
    pre();
    if ((b & 0x70) == 0x50)
        built(loom_expr(ctx, NULL, n_names, nm, arrays), false);
    else if ((b & 0x70) == 0x10 && n_names > 0)
        built(loom_expr(ctx, text, n_names, NULL, arrays), false);
    else
        built(loom_expr(ctx, text, n_names, nm, arrays), false);
}

/* loom_eval of up to four handles, with bad counts and lists now and then; then each result
 * reads back. */
static void op_eval(reader_t *r) {
    uint8_t b = byte(r);
    int32_t n = b % 5;
    loom_array_t *roots[4];
    bool bad = false;
    for (int32_t i = 0; i < n; i++) {
        roots[i] = pick(r);
        bad = bad || !roots[i] || loom_array_is_nil(roots[i]);
    }
    if (!small_enough(roots, n)) return;
    bool bad_list = (b & 0xF0) == 0xF0;
    int32_t count = bad_list && (b & 8) ? -1 : n;
    pre();
    loom_status_t st = acted(loom_eval(ctx, count, bad_list && !(b & 8) ? NULL : roots));
    if (before != LOOM_STATUS_OK) return;
    if (count < 0 || (bad_list && n > 0))
        CHECK(st == LOOM_STATUS_INVALID_ARGUMENT, "loom_eval took a bad list");
    else if (bad)
        CHECK(st != LOOM_STATUS_OK, "loom_eval took a nil or NULL array");
    if (st != LOOM_STATUS_OK || bad_list) return;
    for (int32_t i = 0; i < n; i++) {
        CHECK(realised(roots[i]), "loom_eval left a root unevaluated");
        if (!inject) CHECK(read_into(roots[i], 0) == LOOM_STATUS_OK, "a read after eval failed");
    }
}

/* loom_read with an exact, larger, short or NULL buffer; an array too large to evaluate is
 * read only with a short buffer, which must be refused before anything is computed. A read
 * that succeeds is repeated (the array is now evaluated) and must give the same bytes. */
static void op_read(reader_t *r) {
    uint8_t b = byte(r);
    loom_array_t *a = pick(r);
    size_t need = loom_array_nbytes(a);
    bool fits = a && !loom_array_is_nil(a) && need <= BUF_BYTES && small(a);
    int mode = b % 5; /* 0, 1: exact; 2: 8 bytes more; 3: short; 4: NULL dst */
    if (!fits && need == 0 && a && !loom_array_is_nil(a)) return;
    if (!fits && a && !loom_array_is_nil(a)) mode = 3;
    size_t cap = need + (mode == 2 ? 8 : 0); /* never more than bufs[0] holds */
    if (mode == 3)
        cap = need == 0 ? 0 : need - 1 <= BUF_BYTES ? need - 1 - (b >> 4) % need : (b >> 4) * 1024u;
    size_t fill = cap;
    fill_canary(bufs[0], fill + CANARY);
    pre();
    bool was_realised = realised(a);
    loom_status_t st = acted(loom_read(ctx, a, mode == 4 ? NULL : bufs[0], cap));
    if (before != LOOM_STATUS_OK) {
        CHECK(canary_ok(bufs[0], fill + CANARY), "a read wrote despite a pending error");
        return;
    }
    if (!a || loom_array_is_nil(a))
        CHECK(st == LOOM_STATUS_INVALID_ARGUMENT, "a read of a nil array");
    else if (cap < need)
        CHECK(st == LOOM_STATUS_BUFFER_TOO_SMALL, "a short buffer was not refused");
    else if (mode == 4 && need > 0)
        CHECK(st == LOOM_STATUS_INVALID_ARGUMENT, "a NULL buffer was not refused");
    else if (was_realised && !inject)
        CHECK(st == LOOM_STATUS_OK, "a read of an evaluated array failed");
    if (st != LOOM_STATUS_OK) {
        CHECK(canary_ok(bufs[0], fill + CANARY), "a failed read wrote its buffer");
        return;
    }
    CHECK(canary_ok(bufs[0] + need, fill - need + CANARY), "a read wrote past the array's bytes");
    if (mode == 4 || inject) return;
    CHECK(realised(a), "a read left its array unevaluated");
    CHECK(read_into(a, 1) == LOOM_STATUS_OK, "a second read failed");
    CHECK(!memcmp(bufs[0], bufs[1], need), "a second read gave other bytes");
}

/* loom_read_many of up to four arrays; all sizes are checked before anything is written. */
static void op_read_many(reader_t *r) {
    uint8_t b = byte(r);
    int32_t n = b % 5;
    loom_array_t *arrays[4];
    void *dsts[4];
    size_t caps[4], needs[4];
    loom_status_t expect = LOOM_STATUS_OK;
    bool all_small = true;
    for (int32_t i = 0; i < n; i++) {
        uint8_t m = byte(r);
        arrays[i] = pick(r);
        needs[i] = loom_array_nbytes(arrays[i]);
        bool valid = arrays[i] && !loom_array_is_nil(arrays[i]);
        bool fits = valid && needs[i] <= BUF_BYTES && small(arrays[i]);
        all_small = all_small && (fits || !valid);
        caps[i] = (m & 3) == 3 || !fits ? (needs[i] ? needs[i] - 1 : 0) : needs[i];
        if (caps[i] > BUF_BYTES) caps[i] = BUF_BYTES; /* short all the same */
        dsts[i] = (m & 7) == 6 ? NULL : bufs[i];
        if (valid && !fits && needs[i] == 0) return; /* would evaluate something large */
        if (expect == LOOM_STATUS_OK) {
            if (!valid)
                expect = LOOM_STATUS_INVALID_ARGUMENT;
            else if (caps[i] < needs[i])
                expect = LOOM_STATUS_BUFFER_TOO_SMALL;
            else if (!dsts[i] && needs[i] > 0)
                expect = LOOM_STATUS_INVALID_ARGUMENT;
        }
        fill_canary(bufs[i], (caps[i] < BUF_BYTES ? caps[i] : BUF_BYTES) + CANARY);
    }
    if (!all_small && expect == LOOM_STATUS_OK) return;
    int bad = (b & 0xE0) == 0xE0 ? 1 + (b >> 3) % 4 : 0; /* a NULL list, or n = -1 */
    if (bad == 4 || (bad && n > 0)) expect = LOOM_STATUS_INVALID_ARGUMENT;
    pre();
    loom_status_t st = acted(loom_read_many(ctx, bad == 4 ? -1 : n, bad == 1 ? NULL : arrays,
                                            bad == 2 ? NULL : dsts, bad == 3 ? NULL : caps));
    if (before != LOOM_STATUS_OK) return;
    if (expect != LOOM_STATUS_OK)
        CHECK(st == expect, "loom_read_many: a bad entry gave another status");
    for (int32_t i = 0; i < n; i++) {
        size_t fill = caps[i] < BUF_BYTES ? caps[i] : BUF_BYTES;
        if (st != LOOM_STATUS_OK)
            CHECK(canary_ok(bufs[i], fill + CANARY), "a failed loom_read_many wrote a buffer");
        else if (needs[i] <= BUF_BYTES)
            CHECK(canary_ok(bufs[i] + needs[i], CANARY), "loom_read_many wrote past an array");
    }
}

/* An array read through a view that changes nothing (identity reshape, full slice, flip twice,
 * expand then squeeze, identity transpose), evaluated as part of the view's graph, and then
 * alone: the same bytes. */
static void op_view_check(reader_t *r) {
    uint8_t which = byte(r) % 5;
    loom_array_t *a = pick(r);
    if (!a || loom_array_is_nil(a) || !small(a) || loom_array_nbytes(a) > BUF_BYTES) return;
    int32_t nd = loom_array_ndim(a), perm[LOOM_MAX_DIMS], zero = 0;
    int64_t shape[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) {
        shape[i] = loom_array_dim(a, i);
        perm[i] = i;
    }
    pre();
    loom_array_t *v;
    switch (which) {
        case 0:
            v = built(loom_reshape(ctx, a, nd, shape), false);
            break;
        case 1:
            v = built(loom_slice(ctx, a, nd, NULL, NULL, NULL), false);
            break;
        case 2:
            v = built(loom_flip(ctx, a, -1, NULL), false);
            pre();
            v = built(loom_flip(ctx, v, -1, NULL), loom_array_is_nil(v));
            break;
        case 3:
            v = built(loom_expand_dims(ctx, a, 1, &zero), false);
            pre();
            v = built(loom_squeeze(ctx, v, 1, &zero), loom_array_is_nil(v));
            break;
        default:
            v = built(loom_transpose(ctx, a, nd, perm), false);
            break;
    }
    if (loom_array_is_nil(v) || !small(v)) return;
    if (read_into(v, 2) != LOOM_STATUS_OK) return;
    CHECK(inject || read_into(a, 3) == LOOM_STATUS_OK, "an array failed where its view did not");
    if (!inject) CHECK(!memcmp(bufs[2], bufs[3], loom_array_nbytes(a)), "a view changed bytes");
}

/* Evaluating an operand changes nothing that builders compute from it: a binary op built
 * before and after loom_eval of its operand has the same dtype, shape and bytes. */
static void op_transparent(reader_t *r) {
    binary_fn f = binary[byte(r) % N_BINARY];
    loom_array_t *x = pick(r), *y = pick(r);
    if (!x || !y || loom_array_is_nil(x) || loom_array_is_nil(y) || realised(x) ||
        loom_ctx_status(ctx) != LOOM_STATUS_OK)
        return;
    pre();
    loom_array_t *r1 = built(f(ctx, y, x), false);
    if (loom_array_is_nil(r1) || !small(r1)) return;
    pre();
    if (acted(loom_eval(ctx, 1, &x)) != LOOM_STATUS_OK) return;
    pre();
    loom_array_t *r2 = built(f(ctx, y, x), false);
    if (loom_array_is_nil(r2)) {
        CHECK(inject, "a builder failed once its operand was evaluated");
        return;
    }
    CHECK(loom_array_dtype(r1) == loom_array_dtype(r2) &&
              loom_array_ndim(r1) == loom_array_ndim(r2),
          "evaluating an operand changed the dtype or ndim of a result");
    for (int32_t i = 0; i < loom_array_ndim(r1); i++)
        CHECK(loom_array_dim(r1, i) == loom_array_dim(r2, i),
              "evaluating an operand changed the shape of a result");
    if (read_into(r1, 0) != LOOM_STATUS_OK || inject) return;
    CHECK(read_into(r2, 1) == LOOM_STATUS_OK, "a result failed once its operand was evaluated");
    CHECK(!memcmp(bufs[0], bufs[1], loom_array_nbytes(r1)),
          "evaluating an operand changed the bytes of a result");
}

/* loom_npy_save and loom_npy_load: a round trip gives the dtype, shape and bytes back; bad
 * paths are refused. */
static void op_npy(reader_t *r) {
    uint8_t b = byte(r);
    loom_array_t *a = pick(r);
    const char *path = (b & 7) == 7   ? NULL
                       : (b & 7) == 6 ? "/nonexistent-loom-dir/x.npy"
                                      : npy_path;
    if (b & 0x80) { /* load only: what an earlier save of this input left, or nothing */
        pre();
        built(loom_npy_load(ctx, (b & 7) == 5 ? "/" : path), false);
        return;
    }
    if (a && !loom_array_is_nil(a) && (!small(a) || loom_array_nbytes(a) > BUF_BYTES)) return;
    pre();
    loom_status_t st = acted(loom_npy_save(ctx, a, path));
    if (before != LOOM_STATUS_OK) return;
    if (!path) CHECK(st == LOOM_STATUS_INVALID_ARGUMENT, "a NULL path was not refused");
    if (st != LOOM_STATUS_OK || inject || path != npy_path) return;
    pre();
    loom_array_t *l = built(loom_npy_load(ctx, path), false);
    CHECK(!loom_array_is_nil(l), "a saved .npy file did not load");
    CHECK(loom_array_dtype(l) == loom_array_dtype(a) && loom_array_ndim(l) == loom_array_ndim(a),
          "a .npy round trip changed the dtype or ndim");
    for (int32_t i = 0; i < loom_array_ndim(a); i++)
        CHECK(loom_array_dim(l, i) == loom_array_dim(a, i), "a .npy round trip changed the shape");
    CHECK(read_into(a, 0) == LOOM_STATUS_OK && read_into(l, 1) == LOOM_STATUS_OK,
          "a read after a .npy round trip failed");
    CHECK(!memcmp(bufs[0], bufs[1], loom_array_nbytes(a)), "a .npy round trip changed bytes");
}

/* ---- wrapped host memory and DLPack export ---- */

static void wrap_release(void *user) {
    int id = (int)(uintptr_t)user;
    if (id < 0 || id >= n_wraps) abort();
    wrap_released[id]++;
}

/* loom_wrap_host over a 4 KiB piece of the arena, strided; strides that reach out of the piece
 * are passed only when they are too far for loom to accept. */
static void op_wrap(reader_t *r) {
    enum { PIECE = 4096 };
    uint8_t b = byte(r);
    loom_dtype_t d = dtype(r);
    int64_t shape[16] = {0}, strides[16] = {0}, n;
    int32_t nd;
    const int64_t *s = shape_arg(r, &nd, shape);
    bool far = false;
    for (int32_t i = 0; i < nd; i++) { /* elements, -4..4, or too far for loom to take */
        uint8_t c = byte(r);
        strides[i] =
            c >= 0xF8 ? (c & 1 ? INT64_C(1) << 55 : -(INT64_C(1) << 56)) : (int64_t)(c % 9) - 4;
        far = far || c >= 0xF8;
    }
    const int64_t *st = b & 1 ? NULL : strides;
    far = far && st;
    size_t off = byte(r) % 64 * 8 + (b & 2 ? 1 : 0); /* misaligned now and then */
    if (n_wraps == MAX_WRAPS || arena_used + PIECE > ARENA_BYTES) return;
    unsigned char *piece = arena + arena_used;
    for (size_t i = 0; i < PIECE; i++)
        piece[i] = (unsigned char)(d == LOOM_DTYPE_BOOL ? (i * 37u + b) >> 3 & 1 : i * 37u + b);
    loom_status_t sst = shape_status(nd, s, &n);
    size_t es = loom_dtype_size(d);
    bool inside = true;
    if (sst == LOOM_STATUS_OK && es && n > 0) { /* the lowest and highest byte reached */
        int64_t lo = 0, hi = 0, cs = 1;
        for (int32_t i = nd - 1; i >= 0; i--) {
            int64_t sd = st ? st[i] : cs;
            if (shape[i] > PIECE || sd < -PIECE || sd > PIECE) {
                inside = false;
                break;
            }
            int64_t span = sd * (shape[i] - 1);
            if (span < 0)
                lo += span;
            else
                hi += span;
            cs *= shape[i];
        }
        inside = inside && (int64_t)off + lo * (int64_t)es >= 0 &&
                 (int64_t)off + (hi + 1) * (int64_t)es <= PIECE;
    }
    if (!inside && !far) return;
    int id = n_wraps++;
    arena_used += PIECE;
    void *data = (b & 0x0C) == 0x0C ? NULL : piece + off;
    pre();
    loom_array_t *a = loom_wrap_host(ctx, d, nd, s, st, data, b & 0x10 ? NULL : wrap_release,
                                     (void *)(uintptr_t)id);
    built(a, false);
    wrap_taken[id] = !loom_array_is_nil(a);
    if (wrap_taken[id] && !inside) fail("loom_wrap_host took strides that reach too far");
    if (b & 0x10) wrap_taken[id] = false; /* no release function: nothing to count */
}


static bool export_versioned[MAX_EXPORTS];

static void delete_export(int i) {
    if (export_versioned[i]) {
        DLManagedTensorVersioned *v = exports[i];
        v->deleter(v);
    } else {
        DLManagedTensor *m = exports[i];
        m->deleter(m);
    }
    exports[i] = exports[--n_exports];
    export_versioned[i] = export_versioned[n_exports];
}

/* loom_to_dlpack (kept until deleted here or at the input's end) and loom_array_host_ptr: the
 * tensor describes the array, and element [0,...,0] is where both say. */
static void op_export(reader_t *r) {
    uint8_t b = byte(r);
    if ((b & 3) == 3 && n_exports > 0) {
        delete_export(b % n_exports);
        return;
    }
    loom_array_t *a = pick(r);
    if (a && !loom_array_is_nil(a) && (!small(a) || loom_array_nbytes(a) > BUF_BYTES)) return;
    bool valid = a && !loom_array_is_nil(a);
    if (b & 1) {
        pre();
        const void *p = loom_array_host_ptr(ctx, a);
        check_status();
        check_kept();
        if (before != LOOM_STATUS_OK || !valid) {
            CHECK(!p, "loom_array_host_ptr of nil or with an error pending");
            return;
        }
        if (loom_array_size(a) == 0) CHECK(!p, "loom_array_host_ptr of an empty array");
        if (!p || inject) return;
        CHECK(read_into(a, 0) == LOOM_STATUS_OK, "a read after loom_array_host_ptr failed");
        CHECK(!memcmp(p, bufs[0], loom_dtype_size(loom_array_dtype(a))),
              "loom_array_host_ptr: element 0 differs from the read");
        return;
    }
    if (n_exports == MAX_EXPORTS) return;
    int versioned = (b >> 2) & 1;
    void *out = (void *)&out;
    pre();
    loom_status_t st = acted(loom_to_dlpack(ctx, a, versioned, (b & 0x30) == 0x30 ? NULL : &out));
    if ((b & 0x30) == 0x30) {
        CHECK(before != LOOM_STATUS_OK || st == LOOM_STATUS_INVALID_ARGUMENT, "out NULL taken");
        return;
    }
    if (st != LOOM_STATUS_OK) {
        CHECK(out == NULL, "a failed loom_to_dlpack left *out set");
        return;
    }
    CHECK(valid && out, "loom_to_dlpack succeeded without a tensor");
    const DLTensor *t = versioned ? &((DLManagedTensorVersioned *)out)->dl_tensor
                               : &((DLManagedTensor *)out)->dl_tensor;
    if (versioned) CHECK(((DLManagedTensorVersioned *)out)->version.major == 1, "DLPack version");
    CHECK(t->ndim == loom_array_ndim(a) && t->device.device_type == 1 && t->dtype.lanes == 1 &&
              t->dtype.bits == 8 * loom_dtype_size(loom_array_dtype(a)),
          "a DLPack tensor that does not describe its array");
    for (int32_t i = 0; i < t->ndim; i++)
        CHECK(t->shape[i] == loom_array_dim(a, i), "a DLPack shape");
    exports[n_exports] = out;
    export_versioned[n_exports++] = versioned;
}

/* ---- scopes, refcounts, errors and the rest ---- */

static void op_scope(reader_t *r) {
    uint8_t b = byte(r);
    uint32_t depth = ctx->n_scopes;
    pre();
    if (b & 1) {
        if (depth >= 16) return;
        loom_scope_begin(ctx);
        check_status();
        check_kept();
        CHECK(ctx->n_scopes == depth + 1 || inject,
              "loom_scope_begin opened no scope and said nothing");
        return;
    }
    loom_scope_end(ctx);
    check_status();
    check_kept();
    if (depth <= 1) {
        CHECK(ctx->n_scopes == depth, "loom_scope_end closed the outermost scope");
        CHECK(before != LOOM_STATUS_OK || loom_ctx_status(ctx) == LOOM_STATUS_INVALID_ARGUMENT,
              "an unmatched loom_scope_end was not refused");
        return;
    }
    CHECK(ctx->n_scopes == depth - 1, "loom_scope_end did not close one scope");
    for (int i = n_pool - 1; i >= 0; i--) {
        if (pool[i].level != depth || loom_array_is_nil(pool[i].a)) continue;
        if (pool[i].retains)
            pool[i].level = 0;
        else
            drop(i);
    }
}

static void op_refcount(reader_t *r) {
    uint8_t b = byte(r);
    if (n_pool == 0) return;
    int i = byte(r) % n_pool;
    if (b & 1) {
        CHECK(loom_array_retain(pool[i].a) == pool[i].a, "loom_array_retain returned another");
        if (!loom_array_is_nil(pool[i].a)) pool[i].retains++;
        return;
    }
    for (int k = 0; k < n_pool; k++, i = (i + 1) % n_pool) /* the next retained handle */
        if (pool[i].retains) {
            loom_array_release(pool[i].a);
            if (--pool[i].retains == 0 && pool[i].level == 0) drop(i);
            return;
        }
    loom_array_release(NULL);
    loom_array_release(&ctx->nil);
}

static void op_clear(reader_t *r) {
    (void)r;
    loom_ctx_clear_error(ctx);
    CHECK(loom_ctx_status(ctx) == LOOM_STATUS_OK && loom_ctx_message(ctx)[0] == '\0',
          "an error survived loom_ctx_clear_error");
}

/* The facts and queries that never fail: dtype names and promotion, statuses, the context's
 * facts, statistics, sync and trim, host_changed, dump_ir. */
static void op_facts(reader_t *r) {
    uint8_t b = byte(r);
    loom_dtype_t d1 = dtype(r), d2 = dtype(r);
    int pd = loom_dtype_promote(d1, d2);
    CHECK(pd == loom_dtype_promote(d2, d1), "loom_dtype_promote is not symmetric");
    CHECK(pd >= -1 && pd < LOOM_DTYPE_COUNT, "loom_dtype_promote out of range");
    if ((unsigned)d1 < LOOM_DTYPE_COUNT)
        CHECK(loom_dtype_from_name(loom_dtype_name(d1)) == (int)d1, "dtype names");
    CHECK(loom_status_string((loom_status_t)byte(r)) != NULL, "loom_status_string");
    loom_array_t *a = pick(r);
    switch (b % 5) {
        case 0: {
            loom_info_t info;
            loom_ctx_info(ctx, &info);
            CHECK(info.device == LOOM_DEVICE_CPU && loom_ctx_device(ctx) == LOOM_DEVICE_CPU,
                  "the device changed");
            loom_stats_t s;
            loom_ctx_stats(ctx, &s);
            loom_ctx_trim(ctx);
            pre();
            acted(loom_sync(ctx));
            break;
        }
        case 1:
            pre();
            acted(loom_array_host_changed(ctx, a));
            break;
        case 2: {
            loom_array_t *arr[3] = {a, pick(r), pick(r)};
            int32_t n = byte(r) % 4;
            size_t cap = b & 0x80 ? BUF_BYTES : b & 0x40 ? 16 : 0;
            pre();
            int64_t len = loom_dump_ir(ctx, n, arr, cap ? (char *)bufs[0] : NULL, cap);
            check_status();
            check_kept();
            if (len >= 0 && cap)
                CHECK(strlen((char *)bufs[0]) == (size_t)len || strlen((char *)bufs[0]) == cap - 1,
                      "loom_dump_ir's length");
            break;
        }
        case 3: { /* NULL ctx: builders return NULL, actions INVALID_ARGUMENT */
            int64_t one = 1;
            CHECK(!loom_zeros(NULL, LOOM_DTYPE_F32, 1, &one) && !loom_add(NULL, a, a) &&
                      !loom_sum(NULL, a, -1, NULL, 0) && !loom_expr(NULL, "1", 0, NULL, NULL) &&
                      loom_eval(NULL, 1, &a) == LOOM_STATUS_INVALID_ARGUMENT &&
                      loom_read(NULL, a, bufs[0], 8) == LOOM_STATUS_INVALID_ARGUMENT,
                  "a NULL ctx");
            break;
        }
        default: { /* host blocks: allocate, write, free (a foreign or freed pointer too) */
            if ((b & 0x40) && n_blocks < MAX_BLOCKS) {
                size_t bytes = (size_t)byte(r) * 33u;
                pre();
                void *p = loom_host_alloc(ctx, bytes);
                check_status();
                check_kept();
                if (!p) {
                    CHECK(inject, "loom_host_alloc failed");
                    break;
                }
                CHECK(((uintptr_t)p & 4095) == 0, "loom_host_alloc's alignment");
                memset(p, 0x5A, bytes);
                blocks[n_blocks++] = p;
                break;
            }
            void *p = n_blocks && !(b & 0x20) ? blocks[--n_blocks] : (void *)arena;
            pre();
            loom_host_free(ctx, p);
            check_status();
            check_kept();
            if (p == (void *)arena && before == LOOM_STATUS_OK)
                CHECK(loom_ctx_status(ctx) == LOOM_STATUS_INVALID_ARGUMENT,
                      "loom_host_free took a foreign pointer");
            break;
        }
    }
}

/* Arms an allocation failure: the next call's allocations succeed this many times, then fail. */
static int armed = -1;
static void op_fail_alloc(reader_t *r) { armed = byte(r) % 24; }

/* Whether a data-dependent builder may run on a: small enough to evaluate, and no extent past
 * MAX_NODE_ELEMS (unique along an axis of empty slices still does work per slice). */
static bool sync_ok(loom_array_t *a) {
    if (!a || loom_array_is_nil(a)) return true;
    for (int32_t i = 0; i < a->ndim; i++)
        if (a->shape[i] > MAX_NODE_ELEMS) return false;
    return small(a);
}

/* Gathers, masks, sorts, sets and scatters, bad modes, axes and index dtypes included. The
 * data-dependent ones (masks, unique, bincount) evaluate while they are built: only on
 * operands small enough to evaluate (sync_ok). */
static void op_index(reader_t *r) {
    uint8_t b = byte(r);
    loom_array_t *a = pick(r), *c = pick(r), *d = pick(r);
    int32_t axis = b & 0x80 ? LOOM_AXIS_NONE : axis_arg(r);
    uint8_t m = byte(r);
    bool nil2 = is_nil(a) || is_nil(c);
    if (getenv("FUZZ_API_TRACE"))
        fprintf(stderr, "fuzz_api: index call %d, axis %d, mode byte %u, a %s ndim %d dim0 %lld\n",
                b % 13, (int)axis, m, a ? loom_dtype_name(loom_array_dtype(a)) : "NULL",
                a ? (int)loom_array_ndim(a) : -1, a ? (long long)loom_array_dim(a, 0) : -1LL);
    pre();
    switch (b % 13) {
        case 0:
            built(loom_take(ctx, a, c, axis, (loom_take_mode_t)(m % 4)), nil2);
            break;
        case 1:
            built(loom_take_along_axis(ctx, a, c, axis), nil2);
            break;
        case 2:
            built((m & 1 ? loom_sort : loom_argsort)(ctx, a, axis), is_nil(a));
            break;
        case 3:
            built(loom_searchsorted(ctx, a, c, m & 1, m & 2 ? d : NULL),
                  nil2 || ((m & 2) && is_nil(d)));
            break;
        case 4:
            built(loom_isin(ctx, a, c, m & 1), nil2);
            break;
        case 5:
            built(loom_at(ctx, a, 1, &axis, &c, d, (loom_at_op_t)(m % 5)), nil2 || is_nil(d));
            break;
        case 6:
            built(loom_flatnonzero_sized(ctx, a, integer(r), integer(r)), is_nil(a));
            break;
        case 7: {
            loom_array_t *ch[2] = {c, d};
            built(loom_choose(ctx, a, 2, ch, (loom_take_mode_t)(m % 4)), nil2 || is_nil(d));
            break;
        }
        case 8: {
            loom_array_t *keys[2] = {a, c};
            built(loom_lexsort(ctx, 1 + (m & 1), keys, axis), is_nil(a) || ((m & 1) && is_nil(c)));
            break;
        }
        case 9:
            if (!sync_ok(a) || !sync_ok(c)) return;
            built(loom_boolean_index(ctx, a, c, axis), nil2);
            break;
        case 10:
            if (!sync_ok(a)) return;
            built(m & 1 ? loom_flatnonzero(ctx, a) : loom_count_nonzero(ctx, a, 1, &axis, m & 2),
                  is_nil(a));
            break;
        case 11:
            if (!sync_ok(a) || !sync_ok(c)) return;
            built(loom_bincount(ctx, a, m & 1 ? c : NULL, integer(r) % 64),
                  is_nil(a) || ((m & 1) && is_nil(c)));
            break;
        default: { /* unique, every output or some */
            if (!sync_ok(a)) return;
            loom_array_t *out[4] = {NULL, NULL, NULL, NULL};
            loom_status_t st = acted(loom_unique_axis(ctx, a, axis, m & 1, &out[0],
                                                      m & 2 ? &out[1] : NULL, m & 4 ? &out[2] : NULL,
                                                      m & 8 ? &out[3] : NULL));
            for (int k = 0; k < 4; k++) {
                if (before == LOOM_STATUS_OK && st == LOOM_STATUS_OK && (k == 0 || (m >> k & 1)))
                    CHECK(out[k] && !loom_array_is_nil(out[k]), "unique succeeded without a result");
                if (out[k] && !loom_array_is_nil(out[k])) {
                    check_array(out[k]);
                    put(out[k]);
                }
            }
            break;
        }
    }
}

/* frexp, modf, divmod (two results or none), ldexp, round, nanargmax (a sync), unstack and
 * einsum with subscripts from a list or made of random letters, commas, dots and arrows. */
static void op_numeric(reader_t *r) {
    static const char *const subs[] = {"ij,jk->ik", "ii", "ii->i", "...ij,...jk", "i,i", "ij->",
                                       "i...->...", "ab,cd->abcd", "ij,jk,kl->il", "->",
                                       "i->ii", "...,...", "Ab,bA->A", "i..", ",", ""};
    uint8_t b = byte(r);
    loom_array_t *a = pick(r), *c = pick(r), *d = pick(r);
    bool nil2 = is_nil(a) || is_nil(c);
    pre();
    switch (b % 7) {
        case 0: case 1: case 2: {
            loom_array_t *x = NULL, *y = NULL;
            loom_status_t st = acted(b % 7 == 0   ? loom_frexp(ctx, a, &x, &y)
                                     : b % 7 == 1 ? loom_modf(ctx, a, &x, &y)
                                                  : loom_divmod(ctx, a, c, &x, &y));
            CHECK((x == NULL) == (y == NULL), "a two-result function handed out one result");
            if (x && !loom_array_is_nil(x)) check_array(x), put(x);
            if (y && !loom_array_is_nil(y)) check_array(y), put(y);
            (void)st;
            break;
        }
        case 3:
            built(byte(r) & 1 ? loom_ldexp(ctx, a, c) : loom_round(ctx, a, axis_arg(r)), nil2);
            break;
        case 4: {
            if (!sync_ok(a)) return;
            int32_t axis = axis_arg(r);
            built(b & 8 ? loom_nanargmax(ctx, a, 1, &axis, b & 16)
                        : loom_nanargmin(ctx, a, -1, NULL, b & 16),
                  is_nil(a));
            break;
        }
        case 5: {
            loom_array_t *out[16];
            int32_t axis = b & 8 ? 0 : axis_arg(r), nd = a && !is_nil(a) ? loom_array_ndim(a) : 0;
            for (int32_t i = 0; i < nd; i++)
                if (loom_array_dim(a, i) > 16) return; /* out has room for 16 */
            loom_status_t st = acted(loom_unstack(ctx, a, axis, out));
            if (st == LOOM_STATUS_OK && before == LOOM_STATUS_OK && nd > 0)
                for (int64_t i = 0; i < loom_array_dim(a, axis < 0 ? axis + nd : axis); i++)
                    check_array(out[i]), put(out[i]);
            break;
        }
        default: {
            char s[12];
            const char *sub = subs[byte(r) % (sizeof subs / sizeof *subs)];
            if (b & 8) { /* random subscripts */
                static const char alphabet[] = "ijkAa,.->";
                int n = byte(r) % 11;
                for (int i = 0; i < n; i++) s[i] = alphabet[byte(r) % (sizeof alphabet - 1)];
                s[n] = 0;
                sub = s;
            }
            loom_array_t *ops[3] = {a, c, d};
            int32_t n = 1 + byte(r) % 3;
            bool nil_in = is_nil(a) || (n > 1 && is_nil(c)) || (n > 2 && is_nil(d));
            built(loom_einsum(ctx, sub, n, ops, b & 16), nil_in);
            break;
        }
    }
}

/* numpy.linalg's norms and products, numpy.fft's helpers, convolution, interp, digitize (a
 * sync), trapezoid, polyval, vander, select, vdot, split points and axis-list tensordot. */
static void op_numeric2(reader_t *r) {
    uint8_t b = byte(r);
    loom_array_t *a = pick(r), *c = pick(r), *d = pick(r);
    bool nil1 = is_nil(a), nil2 = is_nil(a) || is_nil(c), nil3 = nil2 || is_nil(d);
    int32_t axes[2] = {axis_arg(r), axis_arg(r)};
    double p = real(r);
    pre();
    switch (b % 12) {
        case 0:
            built(loom_norm(ctx, a, (loom_norm_t)(byte(r) % 5), p, (int32_t)(byte(r) % 4) - 1, axes,
                            b & 16),
                  nil1);
            break;
        case 1:
            built(b & 16 ? loom_vector_norm(ctx, a, (int32_t)(byte(r) % 3) - 1, axes, b & 32, p)
                         : loom_matrix_norm(ctx, a, b & 32, (loom_norm_t)(byte(r) % 4), p),
                  nil1);
            break;
        case 2:
            built(b & 16 ? loom_cross(ctx, a, c, axes[0]) : loom_matrix_power(ctx, a, integer(r) % 9),
                  b & 16 ? nil2 : nil1);
            break;
        case 3: {
            loom_array_t *ops[3] = {a, c, d};
            int32_t n = 2 + byte(r) % 2;
            built(loom_multi_dot(ctx, n, ops), n == 2 ? nil2 : nil3);
            break;
        }
        case 4:
            built(b & 16 ? loom_fftshift(ctx, a, (int32_t)(byte(r) % 3) - 1, axes)
                         : loom_fftfreq(ctx, integer(r) % 70000, p),
                  b & 16 ? nil1 : false);
            break;
        case 5:
            if (!sync_ok(a) || !sync_ok(c)) return;
            built((b & 16   ? loom_convolve
                   : b & 32 ? loom_fftconvolve
                            : loom_correlate)(ctx, a, c, (loom_conv_mode_t)(byte(r) % 4)),
                  nil2);
            break;
        case 6:
            built(loom_interp(ctx, a, c, d, b & 16 ? a : NULL, NULL, b & 32 ? p : NAN), nil3);
            break;
        case 7:
            if (!sync_ok(c)) return;
            built(loom_digitize(ctx, a, c, b & 16), nil2);
            break;
        case 8:
            built(b & 16 ? loom_trapezoid(ctx, a, b & 32 ? c : NULL, p, axes[0]) : loom_polyval(ctx, a, c),
                  b & 16 ? (nil1 || ((b & 32) && is_nil(c))) : nil2);
            break;
        case 9:
            built(b & 16 ? loom_vander(ctx, a, integer(r) % 9, b & 32) : loom_vdot(ctx, a, c),
                  b & 16 ? nil1 : nil2);
            break;
        case 10: {
            loom_array_t *conds[2] = {a, c}, *choices[2] = {d, a};
            built(loom_select(ctx, 1 + (b >> 4 & 1), conds, choices, b & 32 ? c : NULL),
                  nil3);
            break;
        }
        default: {
            if (b & 16) {
                int32_t other[2] = {axes[1], axes[0]};
                built(loom_tensordot_axes(ctx, a, c, b >> 5 & 1 ? 2 : 1, axes, other), nil2);
            } else {
                loom_array_t *out[4];
                int64_t at[3] = {integer(r) % 20, integer(r) % 20, integer(r) % 20};
                loom_status_t st = acted(loom_split_at(ctx, a, 3, at, axes[0], out));
                if (st == LOOM_STATUS_OK && before == LOOM_STATUS_OK && !nil1)
                    for (int k = 0; k < 4; k++) check_array(out[k]), put(out[k]);
            }
            break;
        }
    }
}

/* Several results of one call: all of them or none, each a checked array. */
static void results(loom_status_t st, int n, loom_array_t **out) {
    int set = 0;
    for (int k = 0; k < n; k++) set += out[k] != NULL;
    CHECK(set == 0 || set == n, "a several-result function handed out some of its results");
    (void)st;
    for (int k = 0; k < n; k++)
        if (out[k] && !loom_array_is_nil(out[k])) check_array(out[k]), put(out[k]);
}

/* numpy.linalg's factorisations and what is built on them: any shapes, dtypes and modes
 * (lstsq reads the rank back: only on operands small enough to evaluate). */
static void op_linalg(reader_t *r) {
    uint8_t b = byte(r);
    loom_array_t *a = pick(r), *c = pick(r);
    bool nil1 = is_nil(a), nil2 = is_nil(a) || is_nil(c);
    double p = real(r);
    loom_array_t *out[4] = {NULL, NULL, NULL, NULL};
    pre();
    switch (b % 10) {
        case 0:
            built(b & 16 ? loom_solve(ctx, a, c) : loom_inv(ctx, a), b & 16 ? nil2 : nil1);
            break;
        case 1:
            built(b & 16 ? loom_cholesky(ctx, a, b & 32) : loom_det(ctx, a), nil1);
            break;
        case 2:
            results(acted(loom_slogdet(ctx, a, &out[0], &out[1])), 2, out);
            break;
        case 3:
            if (b & 64)
                results(acted(loom_eig(ctx, a, &out[0], &out[1])), 2, out);
            else if (b & 128)
                built(loom_eigvals(ctx, a), nil1);
            else if (b & 16)
                results(acted(loom_eigh(ctx, a, b & 32, &out[0], &out[1])), 2, out);
            else
                built(loom_eigvalsh(ctx, a, b & 32), nil1);
            break;
        case 4:
            if (b & 16)
                results(acted(loom_svd(ctx, a, b & 32, &out[0], &out[1], &out[2])), 3, out);
            else
                built(loom_svdvals(ctx, a), nil1);
            break;
        case 5: {
            loom_qr_mode_t m = (loom_qr_mode_t)(byte(r) % 4);
            loom_status_t st = acted(loom_qr(ctx, a, m, &out[0], &out[1]));
            if (m == LOOM_QR_R) {
                if (out[1] && !loom_array_is_nil(out[1])) check_array(out[1]), put(out[1]);
                (void)st;
            } else {
                results(st, 2, out);
            }
            break;
        }
        case 6:
            if (b & 128) /* array tolerances: c, one for each matrix */
                built(b & 16 ? loom_pinv_tol(ctx, a, c)
                             : loom_matrix_rank_tol(ctx, a, b & 32 ? c : NULL, b & 64 ? c : NULL),
                      nil2);
            else
                built(b & 16 ? loom_pinv(ctx, a, p) : loom_matrix_rank(ctx, a, b & 32 ? p : NAN, b & 64 ? p : NAN), nil1);
            break;
        case 7:
            built(loom_cond(ctx, a, (loom_norm_t)(byte(r) % 5), p), nil1);
            break;
        case 8:
            built(b & 16 ? loom_tensorinv(ctx, a, (int32_t)(byte(r) % 5) - 1)
                         : loom_tensorsolve(ctx, a, c),
                  b & 16 ? nil1 : nil2);
            break;
        default:
            if (!sync_ok(a) || !sync_ok(c)) return;
            results(acted(loom_lstsq(ctx, a, c, p, &out[0], &out[1], &out[2], &out[3])), 4, out);
            break;
    }
}

/* Complex numbers: the parts, the number of two parts, weak and full complex values. */
/* NumPy's comparisons, ranges, vector products, bit packing, stacking and random draws. */
static void op_numpy(reader_t *r) {
    uint8_t b = byte(r);
    loom_array_t *a = pick(r), *c = pick(r);
    bool nil1 = is_nil(a), nil2 = nil1 || is_nil(c);
    int64_t shape[16] = {0}, n;
    int32_t nd;
    pre();
    switch (b % 8) {
        case 0:
            built(b & 8    ? loom_allclose(ctx, a, c, real(r), real(r), b & 16)
                  : b & 16 ? loom_array_equal(ctx, a, c, b & 32)
                           : loom_array_equiv(ctx, a, c),
                  nil2);
            break;
        case 1: {
            double start = real(r), stop = real(r);
            int64_t num = extent(r);
            loom_dtype_t d = dtype(r);
            built(b & 8 ? loom_logspace(ctx, start, stop, num, b & 16, real(r), d)
                        : loom_geomspace(ctx, start, stop, num, b & 16, d),
                  false);
            break;
        }
        case 2:
            built(b & 8 ? loom_matvec(ctx, a, c) : loom_vecmat(ctx, a, c), nil2);
            break;
        case 3:
            if (!sync_ok(a)) return;
            built(b & 8    ? loom_sort_complex(ctx, a)
                  : b & 16 ? loom_packbits(ctx, a, axis_arg(r), b & 32)
                           : loom_unpackbits(ctx, a, axis_arg(r), b & 32 ? LOOM_NONE : integer(r),
                                             b & 64),
                  nil1);
            break;
        case 4: {
            loom_array_t *xs[2] = {a, c};
            loom_array_t *(*const stackers[])(loom_ctx_t *, int32_t, loom_array_t *const *) = {
                loom_hstack, loom_vstack, loom_dstack, loom_column_stack};
            built(stackers[(b >> 3) % 4](ctx, 1 + (b >> 5 & 1), xs), nil2);
            break;
        }
        case 5: {
            const int64_t *s = shape_arg(r, &nd, shape);
            if (shape_status(nd, s, &n) == LOOM_STATUS_OK && n > (1 << 16)) return;
            uint64_t seed = raw64(r), stream = raw64(r);
            loom_dtype_t d = dtype(r);
            built(b & 8    ? loom_rng_uniform(ctx, seed, stream, real(r), real(r), d, nd, s)
                  : b & 16 ? loom_rng_normal(ctx, seed, stream, real(r), real(r), d, nd, s)
                  : b & 32 ? loom_rng_exponential(ctx, seed, stream, real(r), d, nd, s)
                           : loom_rng_integers(ctx, seed, stream, integer(r), integer(r), b & 64,
                                               d, nd, s),
                  false);
            break;
        }
        default: {
            if (!sync_ok(a) || (c && !is_nil(c) && !sync_ok(c))) return;
            const int64_t *s = shape_arg(r, &nd, shape);
            if (shape_status(nd, s, &n) == LOOM_STATUS_OK && n > (1 << 16)) return;
            uint64_t seed = raw64(r), stream = raw64(r);
            built(b & 8 ? loom_rng_permutation(ctx, seed, stream, a, axis_arg(r))
                        : loom_rng_choice(ctx, seed, stream, a, nd, s, b & 16, b & 32 ? c : NULL,
                                          axis_arg(r)),
                  b & 32 ? nil2 : nil1);
            break;
        }
    }
}

static void op_complex(reader_t *r) {
    uint8_t which = byte(r) % 6;
    loom_array_t *a = pick(r);
    pre();
    switch (which) {
        case 0:
            built(loom_real(ctx, a), is_nil(a));
            break;
        case 1:
            built(loom_imag(ctx, a), is_nil(a));
            break;
        case 2:
            built(loom_conj(ctx, a), is_nil(a));
            break;
        case 3:
            built(loom_angle(ctx, a, byte(r) & 1), is_nil(a));
            break;
        case 4: {
            loom_array_t *c = pick(r);
            built(loom_complex(ctx, a, c), is_nil(a) || is_nil(c));
            break;
        }
        default: {
            double re = real(r), im = real(r);
            loom_array_t *w = built(loom_weak_complex(ctx, re, im), false);
            CHECK(before != LOOM_STATUS_OK || inject || !loom_array_is_nil(w),
                  "a weak complex number failed");
            break;
        }
    }
}

/* The opcodes, by name for FUZZ_API_TRACE=1, which prints each call of a replayed input with
 * the status after it (the library itself never prints). */
typedef struct op {
    void (*fn)(reader_t *r);
    const char *name;
} op_t;
#define OP(name)                                                                                   \
    { op_##name, #name }
static const op_t ops[] = {
    OP(fill),       OP(range),  OP(host),       OP(weak),       OP(unary),       OP(unary),
    OP(binary),     OP(binary), OP(where_clip), OP(astype),     OP(reduce),      OP(scan),
    OP(reshape),    OP(axes),   OP(slice),      OP(join),       OP(product),     OP(expr),
    OP(eval),       OP(read),   OP(read_many),  OP(view_check), OP(transparent), OP(npy),
    OP(wrap),       OP(export), OP(scope),      OP(refcount),   OP(clear),       OP(facts),
    OP(fail_alloc),
};
/* Opcodes added later take the top opcode bytes, so that every byte below keeps the call it
 * picked when the corpus's inputs were found (byte % the first table's length). */
#define LATER_FROM 248
static const op_t later_ops[] = {OP(index),  OP(numeric), OP(numeric2),
                                  OP(linalg), OP(complex), OP(numpy)};
#undef OP
static bool trace;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(npy_path, sizeof npy_path, "%s/loom-fuzz-api-%ld.npy", dir ? dir : "/tmp",
             (long)getpid());
    trace = getenv("FUZZ_API_TRACE") != NULL;
    memcpy(token_buf, token_text, sizeof token_text);
    for (char *t = token_buf; t && n_tokens < 128; n_tokens++) {
        tokens[n_tokens] = t;
        if ((t = strchr(t, '#'))) *t++ = '\0';
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > MAX_INPUT) return 0; /* long programs only repeat what short ones reach */
    loom_options_t o = {.device = LOOM_DEVICE_CPU, .disable_disk_cache = 1};
    if (loom_ctx_create(&o, &ctx) != LOOM_STATUS_OK) abort();
    n_pool = next_slot = n_wraps = n_exports = n_blocks = 0;
    arena_used = 0;
    armed = -1;
    memset(wrap_released, 0, sizeof wrap_released);
    memset(wrap_taken, 0, sizeof wrap_taken);
    reader_t r = {data, size, 0};
    for (int calls = 0; calls < MAX_CALLS && r.at < r.n; calls++) {
        size_t at = r.at;
        uint8_t code = byte(&r);
        const op_t *op = code >= LATER_FROM
                             ? &later_ops[(code - LATER_FROM) % (sizeof later_ops / sizeof later_ops[0])]
                             : &ops[code % (sizeof ops / sizeof ops[0])];
        inject = armed >= 0;
        ctx->al.fail_after = armed;
        armed = -1;
        op->fn(&r);
        ctx->al.fail_after = -1;
        inject = false;
        check_pool();
        if (trace)
            fprintf(stderr, "fuzz_api: @%zu %s -> pool %d, status %d %s\n", at, op->name, n_pool,
                    (int)loom_ctx_status(ctx), loom_ctx_message(ctx));
    }
    while (n_exports > 0) delete_export(n_exports - 1);
    loom_ctx_destroy(ctx);
    ctx = NULL;
    for (int i = 0; i < n_wraps; i++)
        if (wrap_released[i] != (wrap_taken[i] ? 1 : 0))
            fail("a wrapped block's release ran other than once (or ran for a refused wrap)");
    unlink(npy_path);
    return 0;
}
