/* test_reduce_codegen — the reduction and scan code generators without a GPU: step graphs
 * built by hand for every reduce op × representative dtypes and every strategy (warp rows,
 * block rows, columns, splits, full and mixed-axis reductions, staged softmax/layernorm,
 * online split softmax (every float dtype, log-softmax, prologues, 3-D, mixed axes, full),
 * empty reductions), scans, x[mask]'s compaction and the radix sorts' kernels (every dtype,
 * sort and argsort, lines, rows, columns, 2^31 elements); every generated kernel compiles
 * with NVRTC on a compile-only device; source is deterministic; keys are structural (equal
 * for value-only changes, distinct for distinct structures). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../support/shard.h"
#include "codegen/cg.h"
#include "runtime/rt.h"

#define SM 132
#define L2 (50 << 20) /* an H100's L2 cache */

static char root[256];
static base_alloc_t al = {.fail_after = -1};
static base_error_t err;
static rt_device_t *dev;

/* ---- building step graphs ---- */

typedef struct gb {
    base_arena_t ar;
    base_error_t err;
    ir_graph_t g;
    uint64_t addr[16];
} gb_t;

static void gb_init(gb_t *b) {
    memset(b, 0, sizeof *b);
    base_arena_init(&b->ar, &al);
    ir_graph_init(&b->g, &b->ar, &b->err);
}

static void gb_fini(gb_t *b) { base_arena_fini(&b->ar); }

/* An input of the given shape; strides NULL = C order; device address 256-aligned. */
static uint32_t in_s(gb_t *b, loom_dtype_t d, int nd, const int64_t *shape, const int64_t *strides,
                     int64_t offset) {
    ir_input_t in;
    memset(&in, 0, sizeof in);
    int64_t s = 1;
    for (int ax = nd - 1; ax >= 0; ax--) {
        in.strides[ax] = strides ? strides[ax] : s;
        s *= shape[ax] ? shape[ax] : 1;
    }
    in.offset = offset;
    in.dev = 0x100000 * (b->g.n_inputs + 1);
    in.owner = (void *)(uintptr_t)in.dev; /* inputs are told apart by owner */
    ir_node_t n;
    memset(&n, 0, sizeof n);
    n.op = IR_OP_INPUT;
    n.dtype = (uint8_t)d;
    n.ndim = (uint8_t)nd;
    memcpy(n.shape, shape, sizeof(int64_t) * (size_t)nd);
    n.input = (int32_t)ir_add_input(&b->g, &in);
    b->addr[n.input] = in.dev;
    uint32_t id = ir_emit(&b->g, &n);
    assert_true(id != UINT32_MAX);
    return id;
}

static uint32_t in_c(gb_t *b, loom_dtype_t d, int nd, const int64_t *shape) {
    return in_s(b, d, nd, shape, NULL, 0);
}

static uint32_t cst(gb_t *b, loom_dtype_t d, double v) {
    ir_node_t n;
    memset(&n, 0, sizeof n);
    n.op = IR_OP_CONST;
    n.dtype = (uint8_t)d;
    n.input = -1;
    n.p.bits = ir_bits_from_double(d, v);
    return ir_emit(&b->g, &n);
}

/* Elementwise node: shape = NumPy broadcast of the operands' shapes, dtype d. */
static uint32_t op(gb_t *b, ir_op_t o, loom_dtype_t d, uint32_t a, uint32_t c) {
    ir_node_t n;
    memset(&n, 0, sizeof n);
    const ir_node_t *x = &b->g.nodes[a];
    const ir_node_t *y = ir_ops[o].arity > 1 ? &b->g.nodes[c] : x;
    int nd = x->ndim > y->ndim ? x->ndim : y->ndim;
    for (int ax = 0; ax < nd; ax++) {
        int i = ax - (nd - x->ndim), j = ax - (nd - y->ndim);
        int64_t ex = i >= 0 ? x->shape[i] : 1, ey = j >= 0 ? y->shape[j] : 1;
        n.shape[ax] = ex == 1 ? ey : ex;
    }
    n.op = (uint16_t)o;
    n.dtype = (uint8_t)d;
    n.ndim = (uint8_t)nd;
    n.input = -1;
    n.src[0] = a;
    n.src[1] = ir_ops[o].arity > 1 ? c : 0;
    uint32_t id = ir_emit(&b->g, &n);
    assert_true(id != UINT32_MAX);
    return id;
}

static uint32_t un(gb_t *b, ir_op_t o, uint32_t a) {
    return op(b, o, (loom_dtype_t)b->g.nodes[a].dtype, a, 0);
}
static uint32_t bin(gb_t *b, ir_op_t o, uint32_t a, uint32_t c) {
    return op(b, o, (loom_dtype_t)b->g.nodes[a].dtype, a, c);
}
static uint32_t cast(gb_t *b, loom_dtype_t d, uint32_t a) { return op(b, IR_OP_CAST, d, a, 0); }

/* REDUCE node (keepdims) over the axes in set; result dtype: int64 for ARG, else x's. */
static uint32_t red(gb_t *b, ir_op_t o, uint32_t x, uint32_t set) {
    ir_node_t n;
    memset(&n, 0, sizeof n);
    const ir_node_t *xn = &b->g.nodes[x];
    n.op = (uint16_t)o;
    n.dtype = (o == IR_OP_ARGMAX || o == IR_OP_ARGMIN) ? LOOM_DTYPE_I64 : xn->dtype;
    n.ndim = xn->ndim;
    for (int ax = 0; ax < xn->ndim; ax++) n.shape[ax] = (set >> ax) & 1u ? 1 : xn->shape[ax];
    n.input = -1;
    n.src[0] = x;
    n.p.axes = set;
    n.p.keepdims = 1;
    uint32_t id = ir_emit(&b->g, &n);
    assert_true(id != UINT32_MAX);
    return id;
}

static uint32_t scan(gb_t *b, ir_op_t o, uint32_t x, int axis) {
    ir_node_t n = b->g.nodes[x];
    n.op = (uint16_t)o;
    n.input = -1;
    memset(n.src, 0, sizeof n.src);
    n.src[0] = x;
    memset(&n.p, 0, sizeof n.p);
    n.p.axis = axis;
    n.hash = 0;
    uint32_t id = ir_emit(&b->g, &n);
    assert_true(id != UINT32_MAX);
    return id;
}

/* ---- generating and compiling ---- */

static char *gen_reduce(const cg_reduce_t *r, uint32_t i, char *name) {
    base_str_t s;
    base_str_init(&s, &al);
    cg_reduce_source(r, i, &s, name);
    assert_false(s.failed);
    char *text = strdup(base_str_get(&s));
    base_str_fini(&s);
    return text;
}

/* Compiles src; with LOOM_REDUCE_DUMP=dir set, also writes it to dir/<name>.cu for reading. */
static void build(const char *name, const char *src, base_hash128_t key, const char *what) {
    const char *dump = getenv("LOOM_REDUCE_DUMP");
    if (dump) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.cu", dump, name);
        FILE *f = fopen(path, "wb");
        if (f) {
            fprintf(f, "// %s\n%s", what, src);
            fclose(f);
        }
    }
    rt_kernel_t *k = NULL;
    loom_status_t st = rt_kernel_build(dev, key, name, src, &k);
    if (st != LOOM_STATUS_OK) {
        print_error("%s: %s\n%s\n", what, err.message, rt_last_compile_log(dev));
        FILE *f = fopen("/tmp/loom-reduce-failed.cu", "wb");
        if (f) {
            fputs(src, f);
            fclose(f);
        }
    }
    assert_int_equal(st, LOOM_STATUS_OK);
}

/* Describes the step, checks params and launch shapes, generates every kernel twice (the
 * same text), compiles each; returns the description (arena of b). */
static cg_reduce_t *check_step(gb_t *b, const uint32_t *outs, uint32_t n_outs, const char *what) {
    cg_reduce_t *r = cg_reduce_init(&b->g, &b->ar, outs, n_outs, b->addr, SM);
    assert_non_null(r);
    uint32_t nk = cg_reduce_n_kernels(r);
    assert_true(nk == 1 || nk == 2);
    if (nk == 2) assert_true(cg_reduce_scratch_bytes(r) > 0);
    size_t zoff, zbytes;
    if (cg_reduce_zeroed(r, &zoff, &zbytes)) { /* the counters: the end of the scratch */
        assert_int_equal(nk, 1);
        assert_int_equal(zoff + zbytes, cg_reduce_scratch_bytes(r));
        assert_true(zoff % 16 == 0 && zbytes >= 8);
    }
    for (uint32_t i = 0; i < nk; i++) {
        char n1[40], n2[40];
        char *a = gen_reduce(r, i, n1), *c = gen_reduce(r, i, n2);
        assert_string_equal(a, c);
        assert_string_equal(n1, n2);
        uint32_t np = cg_reduce_n_params(r, i);
        uint64_t *w = calloc(np + 1, sizeof *w), out_addr[16];
        for (int o = 0; o < 16; o++) out_addr[o] = 0x9000000 + 0x100000 * (uint64_t)o;
        w[np] = 0xdeadbeef;
        cg_reduce_params(r, i, b->addr, out_addr, 0x7000000, true, w);
        assert_true(w[np] == 0xdeadbeef); /* wrote no more than it said */
        if (cg_reduce_reversible(r)) { /* the order word last, read from there */
            char name[40], want[48];
            assert_true(w[np - 1] == 1);
            snprintf(want, sizeof want, "lm_rev = P.w[%u] != 0;", np - 1);
            char *text = gen_reduce(r, i, name);
            assert_non_null(strstr(text, want));
            free(text);
        }
        free(w);
        uint32_t grid[3], block[3], smem;
        cg_reduce_launch_shape(r, i, SM, 0, grid, block, &smem);
        assert_true(grid[0] >= 1 && grid[1] >= 1 && grid[2] >= 1);
        assert_int_equal(block[0], cg_reduce_block_threads(r, i));
        assert_true(block[0] >= 32 && block[0] <= 1024);
        char whatk[200];
        snprintf(whatk, sizeof whatk, "%s (kernel %u)", what, i);
        build(n1, a, cg_reduce_key(r, i), whatk);
        free(a);
        free(c);
    }
    /* A kept copy generates the same. */
    cg_reduce_t *k = cg_reduce_keep(r, &al);
    assert_non_null(k);
    for (uint32_t i = 0; i < nk; i++) {
        char n1[40], n2[40];
        char *a = gen_reduce(r, i, n1), *c = gen_reduce(k, i, n2);
        assert_string_equal(a, c);
        free(a);
        free(c);
    }
    cg_reduce_free(k, &al);
    return r;
}

static const loom_dtype_t dtypes[] = {LOOM_DTYPE_BOOL, LOOM_DTYPE_I8,  LOOM_DTYPE_I32,
                                      LOOM_DTYPE_I64,  LOOM_DTYPE_U64, LOOM_DTYPE_F16,
                                      LOOM_DTYPE_BF16, LOOM_DTYPE_F32, LOOM_DTYPE_F64};
static const ir_op_t value_ops[] = {IR_OP_SUM, IR_OP_PROD,   IR_OP_MAX,
                                    IR_OP_MIN, IR_OP_ARGMAX, IR_OP_ARGMIN};

/* Every op on one dtype as one multi-output step over x (shape, axes). */
static void all_ops_step(loom_dtype_t d, int nd, const int64_t *shape, const int64_t *strides,
                         uint32_t axes, const char *what) {
    gb_t b;
    gb_init(&b);
    uint32_t x = in_s(&b, d, nd, shape, strides, 0), outs[16], n = 0;
    for (size_t k = 0; k < BASE_ARRAY_LEN(value_ops); k++)
        outs[n++] = red(&b, value_ops[k], x, axes);
    uint32_t xb = d == LOOM_DTYPE_BOOL ? x : cast(&b, LOOM_DTYPE_BOOL, x);
    outs[n++] = red(&b, IR_OP_ANY, xb, axes);
    outs[n++] = red(&b, IR_OP_ALL, xb, axes);
    char w[200];
    snprintf(w, sizeof w, "%s %s", what, ir_dtypes[d].name);
    check_step(&b, outs, n, w);
    gb_fini(&b);
}

static void test_every_op_dtype_row(void **state) {
    (void)state;
    int64_t warp[2] = {100, 33}, cta[2] = {64, 5000};
    for (size_t t = 0; t < BASE_ARRAY_LEN(dtypes); t++) {
        all_ops_step(dtypes[t], 2, warp, NULL, 2, "warp rows");
        all_ops_step(dtypes[t], 2, cta, NULL, 2, "block rows");
    }
}

static void test_every_op_dtype_column_split_full(void **state) {
    (void)state;
    int64_t col[2] = {1000, 300000}, colsplit[2] = {65536, 64}, full[1] = {1 << 20};
    for (size_t t = 0; t < BASE_ARRAY_LEN(dtypes); t++) {
        all_ops_step(dtypes[t], 2, col, NULL, 1, "column");
        all_ops_step(dtypes[t], 2, colsplit, NULL, 1, "column split");
        all_ops_step(dtypes[t], 1, full, NULL, 1, "full split");
    }
}

/* The strategies, checked through what they generate. */
static void test_strategies(void **state) {
    (void)state;
    struct {
        int nd;
        int64_t shape[4];
        uint32_t axes;
        int kernels;
        const char *what;
    } cases[] = {
        {2, {8192, 32}, 2, 1, "short rows"},
        {2, {8192, 1}, 2, 1, "rows of one"},
        {2, {8192, 1025}, 2, 1, "rows of 1025"},
        {2, {8192, 1026}, 2, 1, "rows of 1026 (pairs)"},
        {2, {8192, 8192}, 2, 1, "long rows"},
        {2, {64, 1 << 20}, 2, 2, "64 x 1M rows (split)"},
        {2, {8192, 8192}, 1, 2, "column sum 8192^2 (split)"},
        {2, {65536, 64}, 1, 2, "column sum 65536 x 64 (split)"},
        {2, {64, 65536}, 1, 1, "column sum 64 x 65536"},
        {1, {1 << 24}, 1, 2, "full 16M (split)"},
        {2, {4096, 4096}, 3, 2, "full 2-D (split)"},
        {3, {30, 40, 50}, 5, 1, "mixed axes 0 and 2"},
        {3, {300, 40, 500}, 5, 2, "mixed axes 0 and 2, long (split)"},
        {4, {3, 5, 7, 9}, 10, 1, "mixed axes 1 and 3"},
        {3, {8, 3, 1000}, 1, 1, "axis 0 of 3-D"},
        {2, {0, 100}, 2, 1, "no outputs"},
        {2, {100, 0}, 2, 1, "empty rows"},
        {1, {7}, 1, 1, "one tiny row"},
    };
    for (size_t c = 0; c < BASE_ARRAY_LEN(cases); c++) {
        gb_t b;
        gb_init(&b);
        uint32_t x = in_c(&b, LOOM_DTYPE_F32, cases[c].nd, cases[c].shape);
        uint32_t outs[3] = {red(&b, IR_OP_SUM, x, cases[c].axes)};
        outs[1] = red(&b, IR_OP_ARGMAX, x, cases[c].axes);
        /* mean-like epilogue: sum * (1 / n) */
        outs[2] = bin(&b, IR_OP_MULTIPLY, outs[0], cst(&b, LOOM_DTYPE_F32, 0.5));
        cg_reduce_t *r = check_step(&b, outs, 3, cases[c].what);
        if ((int)cg_reduce_n_kernels(r) != cases[c].kernels)
            print_error("%s: %u kernels\n", cases[c].what, cg_reduce_n_kernels(r));
        assert_int_equal((int)cg_reduce_n_kernels(r), cases[c].kernels);
        assert_int_equal(cg_reduce_can_stage(cases[c].nd, cases[c].shape, cases[c].axes, SM),
                         cases[c].kernels == 1);
        gb_fini(&b);
    }
}

/* Transposed, sliced, broadcast and misaligned operands. */
static void test_strided_operands(void **state) {
    (void)state;
    int64_t shape[2] = {512, 768};
    int64_t trans[2] = {1, 512}, sliced[2] = {1536, 2}, bcast[2] = {0, 1};
    const int64_t *st[] = {trans, sliced, bcast, NULL};
    for (size_t k = 0; k < BASE_ARRAY_LEN(st); k++)
        for (uint32_t axes = 1; axes <= 3; axes++) {
            gb_t b;
            gb_init(&b);
            uint32_t x = in_s(&b, LOOM_DTYPE_F32, 2, shape, st[k], k == 3 ? 1 : 0);
            uint32_t outs[2] = {red(&b, IR_OP_SUM, x, axes), red(&b, IR_OP_MAX, x, axes)};
            check_step(&b, outs, 2, "strided");
            gb_fini(&b);
        }
}

/* softmax over the last axis: max, then sum(exp(x - max)), then exp(x - max) / sum. */
static uint32_t softmax(gb_t *b, uint32_t x, uint32_t axes, uint32_t *m_out) {
    uint32_t m = red(b, IR_OP_MAX, x, axes);
    uint32_t e = un(b, IR_OP_EXP, bin(b, IR_OP_SUBTRACT, x, m));
    uint32_t s = red(b, IR_OP_SUM, e, axes);
    if (m_out) *m_out = m;
    return bin(b, IR_OP_TRUE_DIVIDE, e, s);
}

/* layernorm over the last axis as the frontend lowers mean/var (float64 division). */
static uint32_t layernorm(gb_t *b, uint32_t x, uint32_t gamma, uint32_t beta, int64_t n) {
    loom_dtype_t d = (loom_dtype_t)b->g.nodes[x].dtype;
    uint32_t s = red(b, IR_OP_SUM, x, 2);
    uint32_t mean = cast(b, d,
                         op(b, IR_OP_TRUE_DIVIDE, LOOM_DTYPE_F64, cast(b, LOOM_DTYPE_F64, s),
                            cst(b, LOOM_DTYPE_F64, (double)n)));
    uint32_t dev_ = bin(b, IR_OP_SUBTRACT, x, mean);
    uint32_t ss = red(b, IR_OP_SUM, bin(b, IR_OP_MULTIPLY, dev_, dev_), 2);
    uint32_t var = cast(b, d,
                        op(b, IR_OP_TRUE_DIVIDE, LOOM_DTYPE_F64, cast(b, LOOM_DTYPE_F64, ss),
                           cst(b, LOOM_DTYPE_F64, (double)n)));
    uint32_t den = un(b, IR_OP_SQRT, bin(b, IR_OP_ADD, var, cst(b, d, 1e-5)));
    uint32_t y = bin(b, IR_OP_TRUE_DIVIDE, bin(b, IR_OP_SUBTRACT, x, mean), den);
    if (gamma == UINT32_MAX) return y; /* without gamma and beta */
    return bin(b, IR_OP_ADD, bin(b, IR_OP_MULTIPLY, y, gamma), beta);
}

/* How many times kernel i of r contains text `what`. */
static int count_of(const cg_reduce_t *r, uint32_t i, const char *what) {
    char name[40];
    char *text = gen_reduce(r, i, name);
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
    free(text);
    return n;
}

/* Whether kernel i of r contains text `what`. */
static bool source_has(const cg_reduce_t *r, uint32_t i, const char *what) {
    return count_of(r, i, what) > 0;
}

/* Steps whose blocks take several outputs (columns: a thread each; rows up to a warp's: a warp
 * each) reverse only where the grid has a block per output block: threads past the last output
 * leave the loop (break), and in reverse order the partial last block comes first, so with
 * fewer blocks (the grid stops at 2^30) they would skip outputs (found in review). */
static void test_reverse_order(void **state) {
    (void)state;
    int64_t cols[2] = {100, 300}, rows[2] = {1001, 1000}, huge[2] = {(INT64_C(1) << 33) + 5, 1000};
    gb_t b;
    gb_init(&b);
    uint32_t x = in_c(&b, LOOM_DTYPE_F32, 2, cols), out = red(&b, IR_OP_SUM, x, 1u);
    cg_reduce_t *r = check_step(&b, &out, 1, "column sum 100 x 300");
    assert_true(cg_reduce_reversible(r));
    assert_true(source_has(r, 0, "if (o >= n_out) break;"));
    gb_fini(&b);
    for (int h = 0; h < 2; h++) { /* 1001 rows: reversible; 2^33 + 5: 2^30 + 1 blocks of 8 */
        gb_init(&b);
        x = in_c(&b, LOOM_DTYPE_F32, 2, h ? huge : rows);
        out = red(&b, IR_OP_SUM, x, 2u);
        r = check_step(&b, &out, 1, h ? "row sum (2^33 + 5) x 1000" : "row sum 1001 x 1000");
        assert_true(source_has(r, 0, "const LM_I o = ob * 8 + (LM_I)(threadIdx.x / 32);"));
        assert_true(source_has(r, 0, "if (o >= n_out) break;"));
        assert_true(cg_reduce_reversible(r) == !h);
        gb_fini(&b);
    }
}

static void test_staged(void **state) {
    (void)state;
    int64_t shapes[][2] = {{8192, 8192}, {4096, 1000}, {100, 31},
                           {64, 16384},  {300, 40000}, {300, 1023}};
    loom_dtype_t ds[] = {LOOM_DTYPE_F32, LOOM_DTYPE_F16, LOOM_DTYPE_BF16, LOOM_DTYPE_F64};
    for (size_t k = 0; k < BASE_ARRAY_LEN(shapes); k++)
        for (size_t t = 0; t < BASE_ARRAY_LEN(ds); t++) {
            if (t && k) continue; /* every dtype on the first shape, f32 on the others */
            gb_t b;
            gb_init(&b);
            uint32_t x = in_c(&b, ds[t], 2, shapes[k]);
            assert_true(cg_reduce_can_stage(2, shapes[k], 2, SM));
            uint32_t out = softmax(&b, x, 2, NULL);
            cg_reduce_t *r = check_step(&b, &out, 1, "softmax");
            /* values read by several passes, in registers: a block per row (8192) keeps x
             * alone and recomputes x - max; a warp per row (31) keeps x - max too */
            if (t == 0 && (k == 0 || k == 2)) {
                assert_true(source_has(r, 0, " c0["));
                assert_true(source_has(r, 0, " c3[") == (k == 2));
            }
            /* a lean float32 row of 512 threads: 3 blocks; exp keeps plain loads and stores */
            if (k == 0) {
                assert_true(source_has(r, 0, "__launch_bounds__(512, 3)") == (t == 0));
                assert_false(source_has(r, 0, "lmr_stcs("));
            }
            gb_fini(&b);
            gb_init(&b);
            x = in_c(&b, ds[t], 2, shapes[k]);
            uint32_t gm = in_c(&b, ds[t], 1, &shapes[k][1]), bt = in_c(&b, ds[t], 1, &shapes[k][1]);
            out = layernorm(&b, x, gm, bt, shapes[k][1]);
            r = check_step(&b, &out, 1, "layernorm");
            if (t == 0 && (k == 0 || k == 2)) { /* x alone, or x and x - mean */
                assert_true(source_has(r, 0, " c0["));
                assert_true(source_has(r, 0, " c8[") == (k == 2));
            }
            /* float32 8192-element rows: 3 blocks of 512, evict-first loads of x and stores
             * (gamma and beta, re-read by every row, plain); other dtypes and rows as before */
            assert_true(source_has(r, 0, "__launch_bounds__(512, 3)") == (t == 0 && k == 0));
            assert_true(source_has(r, 0, "lmr_stcs((lm_vec") == (t == 0 && k == 0));
            if (t == 0 && k == 0) {
                assert_true(source_has(r, 0, "= lmr_ldcs((const lm_vec<lm_f32, 4> *)(in0"));
                assert_false(source_has(r, 0, "lmr_ldcs((const lm_vec<lm_f32, 4> *)(in1"));
            }
            assert_false(source_has(r, 0, "lmr_ldkeep(")); /* gamma and beta are read once */
            gb_fini(&b);
            /* without gamma and beta, float32 8192-element rows keep nothing in registers:
             * x is read by three passes, the first two keeping it in L2, the last evict-first,
             * at 4 blocks of 512; other dtypes and rows as with gamma and beta */
            gb_init(&b);
            x = in_c(&b, ds[t], 2, shapes[k]);
            out = layernorm(&b, x, UINT32_MAX, UINT32_MAX, shapes[k][1]);
            r = check_step(&b, &out, 1, "layernorm without gamma and beta");
            bool l2 = t == 0 && k == 0;
            assert_true(source_has(r, 0, "__launch_bounds__(512, 4)") == l2);
            assert_true(source_has(r, 0, "createpolicy.fractional.L2::evict_last") == l2);
            assert_true(count_of(r, 0, "= lmr_ldkeep((const lm_vec<lm_f32, 4> *)(in0") == (l2 ? 2 : 0));
            assert_true(count_of(r, 0, "= lmr_ldcs((const lm_vec<lm_f32, 4> *)(in0") == (l2 ? 1 : 0));
            /* no priority reset after the last read (it cost 1.8 us and bought nothing) */
            assert_false(source_has(r, 0, "applypriority"));
            if (l2) { /* in this order: keep, keep, then the evict-first read, then the store */
                char name[40];
                char *text = gen_reduce(r, 0, name);
                const char *k1 = strstr(text, "= lmr_ldkeep((");
                const char *k2 = k1 ? strstr(k1 + 1, "= lmr_ldkeep((") : NULL;
                const char *ld = k2 ? strstr(k2, "= lmr_ldcs((") : NULL;
                const char *st = ld ? strstr(ld, "lmr_stcs((") : NULL;
                assert_non_null(st);
                free(text);
            }
            assert_true(source_has(r, 0, "lmr_stcs((lm_vec") == l2);
            if (l2) assert_false(source_has(r, 0, " c0["));
            /* one kernel: the blocks take their rows in either order, by a parameter */
            assert_true(cg_reduce_reversible(r));
            assert_true(source_has(r, 0, "const LM_I ob = lm_rev ? nob - 1 - ob_ : ob_;"));
            if (t == 0 && k == 2) assert_true(source_has(r, 0, " c0[")); /* 31: a warp per row */
            gb_fini(&b);
        }
    /* softmax(x * y + z) over 8192-element rows: the three inputs would take 48 registers,
     * over the budget, so the block keeps x * y + z and its difference from the max (32) */
    {
        int64_t sh[2] = {4096, 8192};
        gb_t b;
        gb_init(&b);
        uint32_t x = in_c(&b, LOOM_DTYPE_F32, 2, sh), y = in_c(&b, LOOM_DTYPE_F32, 2, sh),
                 z = in_c(&b, LOOM_DTYPE_F32, 2, sh);
        uint32_t out = softmax(&b, bin(&b, IR_OP_ADD, bin(&b, IR_OP_MULTIPLY, x, y), z), 2, NULL);
        cg_reduce_t *r = check_step(&b, &out, 1, "softmax(x * y + z)");
        assert_int_equal(count_of(r, 0, "lm_vec<lm_f32, 4> c"), 2);
        assert_false(source_has(r, 0, " c0[")); /* x */
        gb_fini(&b);
    }
    /* column softmax (axis 0) of a short column: one thread per column, staged */
    int64_t cs[2] = {1000, 200000};
    assert_true(cg_reduce_can_stage(2, cs, 1, SM));
    gb_t b;
    gb_init(&b);
    uint32_t x = in_c(&b, LOOM_DTYPE_F32, 2, cs), m;
    uint32_t outs[2] = {softmax(&b, x, 1, &m), 0};
    outs[1] = m;
    check_step(&b, outs, 2, "column softmax + max");
    gb_fini(&b);
    /* an X-shaped output needing no reduction, beside one that does */
    gb_init(&b);
    int64_t s2[2] = {256, 4096};
    x = in_c(&b, LOOM_DTYPE_F32, 2, s2);
    uint32_t x2 = bin(&b, IR_OP_MULTIPLY, x, x);
    uint32_t o3[3] = {x2, red(&b, IR_OP_SUM, x2, 2), 0};
    o3[2] = bin(&b, IR_OP_SUBTRACT, x, o3[1]);
    check_step(&b, o3, 3, "x*x, sum, x - sum");
    gb_fini(&b);
    /* sum and sum of squares share one pass; ((x - y) ** 2).sum() with a per-row input */
    gb_init(&b);
    int64_t rb[2] = {4096, 1};
    x = in_c(&b, LOOM_DTYPE_F32, 2, s2);
    uint32_t y = in_c(&b, LOOM_DTYPE_F32, 2, rb);
    uint32_t dd = bin(&b, IR_OP_SUBTRACT, x, y);
    uint32_t o2[2] = {red(&b, IR_OP_SUM, x, 2),
                      red(&b, IR_OP_SUM, bin(&b, IR_OP_MULTIPLY, dd, dd), 2)};
    check_step(&b, o2, 2, "sum and sum of squares");
    gb_fini(&b);
}

/* Softmax over split rows: the max and the sum of exp(x - max) online in kernel 0, the
 * combine and the output pass in kernel 1. */
static void test_online_softmax(void **state) {
    (void)state;
    int64_t rows[2] = {64, 1 << 20};
    assert_false(cg_reduce_can_stage(2, rows, 2, SM));
    assert_true(cg_reduce_can_online(2, rows, 2, SM));
    int64_t cols[2] = {1 << 20, 64}; /* columns split too, but not online */
    assert_false(cg_reduce_can_online(2, cols, 1, SM));
    int64_t fits[2] = {8192, 8192}; /* staged in one kernel, no split */
    assert_false(cg_reduce_can_online(2, fits, 2, SM));
    loom_dtype_t ds[] = {LOOM_DTYPE_F32, LOOM_DTYPE_F16, LOOM_DTYPE_BF16, LOOM_DTYPE_F64};
    for (size_t t = 0; t < BASE_ARRAY_LEN(ds); t++) {
        gb_t b;
        gb_init(&b);
        uint32_t x = in_c(&b, ds[t], 2, rows), m;
        uint32_t outs[3] = {softmax(&b, x, 2, &m), m, 0};
        outs[2] = b.g.nodes[outs[0]].src[1]; /* the sum */
        assert_true(cg_reduce_online_max(&b.g, outs[2]) == m);
        char w[80];
        snprintf(w, sizeof w, "online softmax + max + sum %s", ir_dtypes[ds[t]].name);
        cg_reduce_t *r = check_step(&b, outs, 3, w);
        /* one kernel: chunk tasks (online pairs) and output tasks (their combine) */
        assert_int_equal(cg_reduce_n_kernels(r), 1);
        assert_true(source_has(r, 0, "lmr_oterm_"));
        assert_true(source_has(r, 0, "lmr_opair_"));
        assert_false(source_has(r, 0, "lm_rev")); /* split: chunks in order, not reversible */
        assert_false(cg_reduce_reversible(r));
        assert_true(source_has(r, 0, "atomicAdd(lmf_ctr + 32 * (1 + o), 1u)"));
        /* the task counting last fences after its atomic, before it reads the partials */
        assert_true(source_has(r, 0, "== (unsigned)nch - 1;\n            if (lmf_last) __threadfence();"));
        /* 1M-element rows: chunks (16 KB) kept in two slots of shared memory, one ticket
         * each; float64 rows need 512 chunks, more than 2 * SM: re-read from L2 */
        bool kept = ds[t] != LOOM_DTYPE_F64;
        assert_true(source_has(r, 0, "__shared__ lm_vec<") == kept);
        assert_true(source_has(r, 0, "*const lmx0 = lmx0_s + (slot ^ 1) * clen;") == kept);
        size_t zoff, zbytes;
        assert_true(cg_reduce_zeroed(r, &zoff, &zbytes));
        assert_int_equal(zbytes, 128 * (1 + rows[0])); /* the ticket, a count per row: a line each */
        uint32_t grid[3], block[3], smem;
        cg_reduce_launch_shape(r, 0, SM, 0, grid, block, &smem);
        /* a resident grid taking tickets (stash: 6 blocks per multiprocessor when the
         * occupancy is not known, fewer than the 64 * 256 tickets) */
        if (kept) {
            /* float32 rows take 256 chunks (16-bit ones 128): on fewer than nch / 2
             * multiprocessors blocks that all wait could stall, so the step re-reads from L2 */
            int64_t nch = ds[t] == LOOM_DTYPE_F32 ? 256 : 128;
            cg_reduce_t *few = cg_reduce_init(&b.g, &b.ar, outs, 3, b.addr, (int)nch / 2 - 1);
            assert_non_null(few);
            assert_false(source_has(few, 0, "int slot = 0;"));
            few = cg_reduce_init(&b.g, &b.ar, outs, 3, b.addr, (int)nch / 2);
            assert_true(source_has(few, 0, "int slot = 0;"));
            assert_true(grid[0] == 6 * SM && grid[1] == 1);
            cg_reduce_launch_shape(r, 0, SM, 2, grid, block, &smem);
            assert_true(grid[0] == 2 * SM && grid[1] == 1);
        } else { /* 8 blocks per multiprocessor, fewer than the 2 * 64 * 512 tickets */
            assert_true(grid[0] == 8 * SM && grid[1] == 1);
        }
        gb_fini(&b);
    }
    /* log-softmax (x - m - log(s)); the sum alone; a prologue; an X output needing only the
     * max; odd rows (no vectors); a strided operand; 3-D rows; mixed axes; a full softmax */
    for (int c = 0; c < 9; c++) {
        gb_t b;
        gb_init(&b);
        int64_t odd[2] = {5, 100003}, r3[3] = {4, 16, 65536}, mixed[3] = {300, 40, 500},
                full[1] = {1 << 24}, st[2] = {1 << 21, 2};
        uint32_t x, axes = 2, outs[2], n = 1;
        if (c == 5)
            x = in_c(&b, LOOM_DTYPE_F32, 2, odd);
        else if (c == 6)
            x = in_s(&b, LOOM_DTYPE_F32, 2, rows, st, 1); /* every other element, offset 1 */
        else if (c == 7)
            x = in_c(&b, LOOM_DTYPE_F32, 3, r3), axes = 4;
        else if (c == 8)
            x = in_c(&b, LOOM_DTYPE_F32, 3, mixed), axes = 5;
        else
            x = in_c(&b, LOOM_DTYPE_F32, 2, rows);
        if (c == 4) /* x * 2 + 1 */
            x = bin(&b, IR_OP_ADD, bin(&b, IR_OP_MULTIPLY, x, cst(&b, LOOM_DTYPE_F32, 2)),
                    cst(&b, LOOM_DTYPE_F32, 1));
        uint32_t m = red(&b, IR_OP_MAX, x, axes);
        uint32_t d = bin(&b, IR_OP_SUBTRACT, x, m);
        uint32_t sm = red(&b, IR_OP_SUM, un(&b, IR_OP_EXP, d), axes);
        if (c == 0 || c == 4)
            outs[0] = bin(&b, IR_OP_SUBTRACT, d, un(&b, IR_OP_LOG, sm));
        else if (c == 1)
            outs[0] = sm;
        else if (c == 2)
            outs[0] = d, outs[1] = sm, n = 2;
        else
            outs[0] = bin(&b, IR_OP_TRUE_DIVIDE, un(&b, IR_OP_EXP, d), sm);
        if (c == 3) { /* the full softmax over a 1-D operand */
            gb_fini(&b);
            gb_init(&b);
            x = in_c(&b, LOOM_DTYPE_F32, 1, full);
            outs[0] = softmax(&b, x, 1, NULL);
        }
        char w[80];
        snprintf(w, sizeof w, "online case %d", c);
        cg_reduce_t *r = check_step(&b, outs, n, w);
        /* the sum alone writes no X output: a combining kernel after the chunks' kernel */
        assert_int_equal(cg_reduce_n_kernels(r), c == 1 ? 2 : 1);
        assert_true(source_has(r, c == 1, "lmr_opair_"));
        /* chunks kept in shared memory where vectors load them and a row takes at most
         * 2 * SM of them; odd rows (no vectors) and the 16M-element row re-read theirs */
        if (c == 0 || c == 4 || c == 7) assert_true(source_has(r, 0, "int slot = 0;"));
        if (c == 3 || c == 5) {
            assert_false(source_has(r, 0, "int slot = 0;"));
            assert_true(source_has(r, 0, "lmr_ldcs("));
        }
        size_t zoff, zbytes;
        assert_true(cg_reduce_zeroed(r, &zoff, &zbytes) == (c != 1));
        gb_fini(&b);
    }
    /* not online: the sum of exp(x - max(y)) over another operand's max */
    gb_t b;
    gb_init(&b);
    uint32_t x = in_c(&b, LOOM_DTYPE_F32, 2, rows), y = in_c(&b, LOOM_DTYPE_F32, 2, rows);
    uint32_t m = red(&b, IR_OP_MAX, y, 2);
    uint32_t sm = red(&b, IR_OP_SUM, un(&b, IR_OP_EXP, bin(&b, IR_OP_SUBTRACT, x, m)), 2);
    assert_true(cg_reduce_online_max(&b.g, sm) == UINT32_MAX);
    gb_fini(&b);
}

/* Keys: scalars and extents are parameters; structure is not. */
static base_hash128_t key_of(int64_t rows, int64_t cols, double scale, loom_dtype_t d,
                             uint32_t axes, ir_op_t o) {
    gb_t b;
    gb_init(&b);
    int64_t shape[2] = {rows, cols};
    uint32_t x = in_c(&b, d, 2, shape);
    uint32_t out = bin(&b, IR_OP_MULTIPLY, red(&b, o, x, axes), cst(&b, d, scale));
    cg_reduce_t *r = cg_reduce_init(&b.g, &b.ar, &out, 1, b.addr, SM);
    assert_non_null(r);
    base_hash128_t k = cg_reduce_key(r, 0);
    char n1[40], n2[40];
    char *a = gen_reduce(r, 0, n1);
    gb_fini(&b);
    gb_init(&b);
    x = in_c(&b, d, 2, shape);
    out = bin(&b, IR_OP_MULTIPLY, red(&b, o, x, axes), cst(&b, d, scale * 3 + 1));
    r = cg_reduce_init(&b.g, &b.ar, &out, 1, b.addr, SM);
    char *c = gen_reduce(r, 0, n2);
    assert_string_equal(a, c); /* the scalar is not in the text */
    free(a);
    free(c);
    gb_fini(&b);
    return k;
}

static bool same(base_hash128_t a, base_hash128_t b) { return a.lo == b.lo && a.hi == b.hi; }

static void test_keys(void **state) {
    (void)state;
    base_hash128_t k = key_of(4096, 2000, 2.0, LOOM_DTYPE_F32, 2, IR_OP_SUM);
    assert_true(same(k, key_of(4096, 2000, -7.0, LOOM_DTYPE_F32, 2, IR_OP_SUM)));
    assert_true(same(k, key_of(1000, 3000, 2.0, LOOM_DTYPE_F32, 2, IR_OP_SUM))); /* extents */
    assert_false(same(k, key_of(4096, 2000, 2.0, LOOM_DTYPE_F64, 2, IR_OP_SUM)));
    assert_false(same(k, key_of(4096, 2000, 2.0, LOOM_DTYPE_F32, 2, IR_OP_MAX)));
    assert_false(same(k, key_of(4096, 2000, 2.0, LOOM_DTYPE_F32, 1, IR_OP_SUM)));
    assert_false(same(k, key_of(4096, 20, 2.0, LOOM_DTYPE_F32, 2, IR_OP_SUM))); /* warp rows */
}

/* ---- scans ---- */

/* Builds the scan's kernel; with `staged` 1 or 0, asserts that it does or does not stage
 * tiles through shared memory asynchronously. */
static void check_scan_form(gb_t *b, uint32_t out, const char *what, int staged) {
    cg_scan_t *s = cg_scan_init(&b->g, &b->ar, out, b->addr, SM, L2);
    assert_non_null(s);
    base_str_t t1, t2;
    base_str_init(&t1, &al);
    base_str_init(&t2, &al);
    char n1[40], n2[40];
    cg_scan_source(s, &t1, n1);
    cg_scan_t *k = cg_scan_keep(s, &al);
    assert_non_null(k);
    cg_scan_source(k, &t2, n2);
    assert_string_equal(base_str_get(&t1), base_str_get(&t2));
    cg_scan_free(k, &al);
    uint32_t np = cg_scan_n_params(s);
    uint64_t *w = calloc(np + 1, sizeof *w);
    w[np] = 0xabcdef;
    cg_scan_params(s, b->addr, 0x9000000, 0xA000000, w);
    assert_true(w[np] == 0xabcdef);
    free(w);
    uint32_t grid[3], block[3], smem;
    cg_scan_launch_shape(s, grid, block, &smem);
    /* an empty scan launches nothing */
    assert_int_equal(grid[0] == 0, ir_node_size(&b->g.nodes[out]) == 0);
    assert_true(block[0] >= 32);
    if (staged >= 0) assert_int_equal(strstr(base_str_get(&t1), "lm_cp_commit") != NULL, staged);
    build(n1, base_str_get(&t1), cg_scan_key(s), what);
    base_str_fini(&t1);
    base_str_fini(&t2);
}

static void check_scan(gb_t *b, uint32_t out, const char *what) {
    check_scan_form(b, out, what, -1);
}

/* A kernel is cached by its key, so scans of one key must have one text: lines of one tile,
 * of a few and of many (whose staged tiles hold more items) in every form, sums and products
 * of float32 and of bool in int64. */
static void check_scan_keys(void) {
    enum { N = 16 };
    static const int64_t shapes[][2] = {{3, 700}, {3, 1500}, {40, 30001}, {2, 140000}};
    base_hash128_t keys[N];
    base_str_t texts[N];
    int n = 0;
    for (int i = 0; i < 4; i++)
        for (int d = 0; d < 2; d++)
            for (int prod = 0; prod < 2; prod++) {
                gb_t b;
                gb_init(&b);
                uint32_t x = in_c(&b, d ? LOOM_DTYPE_BOOL : LOOM_DTYPE_F32, 2, shapes[i]);
                if (d) x = cast(&b, LOOM_DTYPE_I64, x);
                cg_scan_t *s =
                    cg_scan_init(&b.g, &b.ar, scan(&b, prod ? IR_OP_CUMPROD : IR_OP_CUMSUM, x, 1),
                                 b.addr, SM, L2);
                assert_non_null(s);
                char name[40];
                base_str_init(&texts[n], &al);
                cg_scan_source(s, &texts[n], name);
                keys[n++] = cg_scan_key(s);
                gb_fini(&b);
            }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (!memcmp(&keys[i], &keys[j], sizeof keys[i]))
                assert_string_equal(base_str_get(&texts[i]), base_str_get(&texts[j]));
    for (int i = 0; i < n; i++) base_str_fini(&texts[i]);
}

/* The text of the scan or compaction c into t (initialized here). */
static void scan_text(gb_t *b, uint32_t c, base_str_t *t) {
    char name[40];
    base_str_init(t, &al);
    cg_scan_source(cg_scan_init(&b->g, &b->ar, c, b->addr, SM, L2), t, name);
}

static void test_scans(void **state) {
    (void)state;
    /* every form: (5, 1000, 40) along 0 one thread per line, along 1 column groups, along 2
     * the warp tile; (3, 700) along 1 look-back tiles (a product, then a sum: float products
     * keep the in-order forms) */
    int64_t shape[3] = {5, 1000, 40}, rows[2] = {3, 700};
    for (size_t t = 0; t < BASE_ARRAY_LEN(dtypes); t++)
        for (int axis = 0; axis < 5; axis++) {
            gb_t b;
            gb_init(&b);
            uint32_t x = axis < 3 ? in_c(&b, dtypes[t], 3, shape) : in_c(&b, dtypes[t], 2, rows);
            loom_dtype_t d =
                ir_dtypes[dtypes[t]].kind == IR_DKIND_BOOL ? LOOM_DTYPE_I64 : dtypes[t];
            uint32_t xc = d == dtypes[t] ? x : cast(&b, d, x);
            check_scan(&b,
                       scan(&b, axis % 2 ? IR_OP_CUMPROD : IR_OP_CUMSUM, xc, axis < 3 ? axis : 1),
                       "scan");
            gb_fini(&b);
        }
    /* a prologue with a scalar, a transposed operand, an empty one */
    gb_t b;
    gb_init(&b);
    int64_t s2[2] = {300, 400}, tr[2] = {1, 300}, e[2] = {0, 5};
    uint32_t x = in_s(&b, LOOM_DTYPE_F32, 2, s2, tr, 0);
    uint32_t p = bin(&b, IR_OP_MULTIPLY, x, cst(&b, LOOM_DTYPE_F32, 2.0));
    check_scan(&b, scan(&b, IR_OP_CUMSUM, p, 1), "prologue scan");
    gb_fini(&b);
    gb_init(&b);
    x = in_c(&b, LOOM_DTYPE_F32, 2, e);
    check_scan(&b, scan(&b, IR_OP_CUMSUM, x, 1), "empty scan");
    gb_fini(&b);
    /* look-back tiles: staged through shared memory with two inputs narrower than the result
     * (a result buffer of its own), past LBP's tiles a line a block a tile (every dtype,
     * sums and products), and with an input strided along the line in LB's form */
    int64_t two[2] = {3, 700}, long_line[2] = {2, 140000}, st[2] = {1, 3}, lst[2] = {280000, 2};
    gb_init(&b);
    x = cast(&b, LOOM_DTYPE_I64, in_c(&b, LOOM_DTYPE_I8, 2, two));
    uint32_t y = cast(&b, LOOM_DTYPE_I64, in_c(&b, LOOM_DTYPE_U8, 2, two));
    check_scan_form(&b, scan(&b, IR_OP_CUMSUM, bin(&b, IR_OP_MULTIPLY, x, y), 1),
                    "two-input staged scan", 1);
    gb_fini(&b);
    for (size_t t = 0; t < BASE_ARRAY_LEN(dtypes); t++)
        for (int prod = 0; prod < 2; prod++) {
            gb_init(&b);
            x = in_c(&b, dtypes[t], 2, long_line);
            if (ir_dtypes[dtypes[t]].kind == IR_DKIND_BOOL) x = cast(&b, LOOM_DTYPE_I64, x);
            check_scan(&b, scan(&b, prod ? IR_OP_CUMPROD : IR_OP_CUMSUM, x, 1), "long-line scan");
            gb_fini(&b);
        }
    gb_init(&b);
    x = in_c(&b, LOOM_DTYPE_F64, 2, long_line);
    uint32_t c = scan(&b, IR_OP_CUMSUM, x, 1);
    check_scan_form(&b, c, "staged long-line scan", 1);
    { /* a block prefetches the tile a multiprocessor count on (its last parameter) where a line
       * has 32 tiles or more (35 of 4096 here); rows of 8192 (one or two tiles) do not */
        uint64_t w[64];
        cg_scan_t *s = cg_scan_init(&b.g, &b.ar, c, b.addr, SM, L2);
        cg_scan_params(s, b.addr, 0, 0, w);
        assert_int_equal(w[cg_scan_n_params(s) - 1], SM);
        base_str_t t;
        scan_text(&b, c, &t);
        assert_non_null(strstr(base_str_get(&t), "prefetch.global.L2"));
        base_str_fini(&t);
        gb_t r;
        gb_init(&r);
        int64_t sq[2] = {8192, 8192};
        for (int prod = 0; prod < 2; prod++) {
            uint32_t rc =
                scan(&r, prod ? IR_OP_CUMPROD : IR_OP_CUMSUM, in_c(&r, LOOM_DTYPE_F32, 2, sq), 1);
            s = cg_scan_init(&r.g, &r.ar, rc, r.addr, SM, L2);
            cg_scan_params(s, r.addr, 0, 0, w);
            assert_int_equal(w[cg_scan_n_params(s) - 1], 0);
        }
        gb_fini(&r);
    }
    gb_fini(&b);
    gb_init(&b);
    x = in_s(&b, LOOM_DTYPE_F32, 2, long_line, lst, 0);
    check_scan_form(&b, scan(&b, IR_OP_CUMSUM, x, 1), "strided long-line scan", 0);
    gb_fini(&b);
    gb_init(&b);
    x = in_s(&b, LOOM_DTYPE_F32, 2, two, st, 0);
    check_scan_form(&b, scan(&b, IR_OP_CUMSUM, x, 1), "strided look-back scan", 0);
    gb_fini(&b);
    int64_t none[2] = {0, 20000};
    gb_init(&b);
    x = in_c(&b, LOOM_DTYPE_F32, 2, none);
    check_scan_form(&b, scan(&b, IR_OP_CUMSUM, x, 1), "empty staged scan", 1);
    gb_fini(&b);
    check_scan_keys();
}

/* COMPRESS node of a 1-D bool mask and values of its extent (the frontend's x[mask]). */
static uint32_t compress(gb_t *b, uint32_t mask, uint32_t vals) {
    ir_node_t n;
    memset(&n, 0, sizeof n);
    const ir_node_t *v = &b->g.nodes[vals];
    n.op = IR_OP_COMPRESS;
    n.dtype = v->dtype;
    n.ndim = 1;
    n.shape[0] = v->shape[0] + ir_compress_tail((loom_dtype_t)v->dtype);
    n.input = -1;
    n.src[0] = mask;
    n.src[1] = vals;
    uint32_t id = ir_emit(&b->g, &n);
    assert_true(id != UINT32_MAX);
    return id;
}

/* The single-pass compaction: every value width (1 to 16 bytes) with a bool mask input (the
 * staged form: unit strides); the mask and the values computed in the kernel from one input,
 * strided (the register form) and contiguous (staged); an empty mask, which still launches a
 * block (it writes the count). */
static void test_compress(void **state) {
    (void)state;
    int64_t n = 5000, e = 0, two = 2;
    uint32_t c;
    static const loom_dtype_t more[] = {LOOM_DTYPE_C64, LOOM_DTYPE_C128};
    for (size_t t = 0; t < BASE_ARRAY_LEN(dtypes) + BASE_ARRAY_LEN(more); t++) {
        loom_dtype_t d = t < BASE_ARRAY_LEN(dtypes) ? dtypes[t] : more[t - BASE_ARRAY_LEN(dtypes)];
        gb_t b;
        gb_init(&b);
        c = compress(&b, in_c(&b, LOOM_DTYPE_BOOL, 1, &n), in_c(&b, d, 1, &n));
        check_scan_form(&b, c, "compress", 1);
        cg_scan_t *s = cg_scan_init(&b.g, &b.ar, c, b.addr, SM, L2);
        size_t zeroed, bytes = cg_scan_scratch_bytes(s, &zeroed);
        assert_true(bytes == zeroed && bytes >= 16 + 8); /* the ticket and a status word a tile */
        gb_fini(&b);
    }
    gb_t b;
    { /* a stored mask: copied in a group of its own, waited for first; the tile an L2's
       * sixth on prefetched, none where the L2 is not known (the last parameter) */
        int64_t big = INT64_C(1) << 28;
        gb_init(&b);
        uint32_t vals = in_c(&b, LOOM_DTYPE_F32, 1, &big); /* in0: copied second */
        c = compress(&b, in_c(&b, LOOM_DTYPE_BOOL, 1, &big), vals);
        base_str_t t;
        base_str_init(&t, &al);
        char name[40];
        cg_scan_t *s = cg_scan_init(&b.g, &b.ar, c, b.addr, SM, L2);
        cg_scan_source(s, &t, name);
        const char *src = base_str_get(&t);
        assert_non_null(strstr(src, "lm_cp_wait<1>();"));
        assert_true(strstr(src, "lm_cp_wait<1>();") < strstr(src, "lm_cp_wait<0>();"));
        assert_non_null(strstr(src, "const lm_b *src = in1"));
        assert_true(strstr(src, "const lm_b *src = in1") < strstr(src, "const lm_f32 *src = in0"));
        uint64_t w[64];
        assert_true(cg_scan_n_params(s) <= 64);
        cg_scan_params(s, b.addr, 0, 0, w);
        assert_int_equal(w[cg_scan_n_params(s) - 1], (50 << 20) / 6 / (8192 * 5));
        cg_scan_params(cg_scan_init(&b.g, &b.ar, c, b.addr, SM, 0), b.addr, 0, 0, w);
        assert_int_equal(w[cg_scan_n_params(s) - 1], 0);
        base_str_fini(&t);
        gb_fini(&b);
    }
    gb_init(&b);
    uint32_t x = in_s(&b, LOOM_DTYPE_F32, 1, &n, &two, 0);
    uint32_t m = op(&b, IR_OP_GREATER, LOOM_DTYPE_BOOL, x, cst(&b, LOOM_DTYPE_F32, 0.5));
    check_scan_form(&b, compress(&b, m, bin(&b, IR_OP_MULTIPLY, x, cst(&b, LOOM_DTYPE_F32, 2.0))),
                    "fused compress", 0);
    gb_fini(&b);
    gb_init(&b);
    x = in_c(&b, LOOM_DTYPE_F32, 1, &n);
    m = op(&b, IR_OP_GREATER, LOOM_DTYPE_BOOL, x, cst(&b, LOOM_DTYPE_F32, 0.5));
    c = compress(&b, m, bin(&b, IR_OP_MULTIPLY, x, cst(&b, LOOM_DTYPE_F32, 2.0)));
    check_scan_form(&b, c, "fused staged compress", 1);
    { /* the computed value is computed again at its store, not held in registers (spilled) */
        base_str_t t;
        scan_text(&b, c, &t);
        assert_null(strstr(base_str_get(&t), "xs[IT]"));
        assert_non_null(strstr(base_str_get(&t), "lm_multiply_f32"));
        base_str_fini(&t);
    }
    c = compress(&b, m, x);
    check_scan_form(&b, c, "staged x[x > 0.5]", 1);
    { /* the mask is computed from x: one group */
        base_str_t t;
        scan_text(&b, c, &t);
        assert_null(strstr(base_str_get(&t), "lm_cp_wait<1>"));
        assert_non_null(strstr(base_str_get(&t), "prefetch.global.L2"));
        base_str_fini(&t);
    }
    gb_fini(&b);
    gb_init(&b);
    c = compress(&b, in_c(&b, LOOM_DTYPE_BOOL, 1, &e), in_c(&b, LOOM_DTYPE_F32, 1, &e));
    cg_scan_t *s = cg_scan_init(&b.g, &b.ar, c, b.addr, SM, L2);
    uint32_t grid[3], block[3], smem;
    cg_scan_launch_shape(s, grid, block, &smem);
    assert_int_equal(grid[0], 1);
    check_scan_form(&b, c, "empty compress", 1);
    gb_fini(&b);
}

/* A SORT or ARGSORT node of x along axis (the frontend's loom_sort, loom_argsort). */
static uint32_t sort_node(gb_t *b, ir_op_t o, uint32_t x, int axis) {
    ir_node_t n;
    memset(&n, 0, sizeof n);
    const ir_node_t *v = &b->g.nodes[x];
    n.op = (uint16_t)o;
    n.dtype = o == IR_OP_SORT ? v->dtype : (uint8_t)LOOM_DTYPE_I64;
    n.ndim = v->ndim;
    memcpy(n.shape, v->shape, sizeof(int64_t) * v->ndim);
    n.input = -1;
    n.src[0] = x;
    n.p.axis = axis;
    uint32_t id = ir_emit(&b->g, &n);
    assert_true(id != UINT32_MAX);
    return id;
}

/* The step of sort node s: the kernels expected (a float sort's payload kernel; the line
 * digits' pass where key and line number pass 64 bits), each compiled. */
static void check_sort(gb_t *b, uint32_t s, bool seg, const char *what) {
    cg_sort_t st;
    cg_sort_init(&st, &b->g, s, SM, 0, 0);
    const ir_node_t *n = &b->g.nodes[s];
    loom_dtype_t d = (loom_dtype_t)b->g.nodes[n->src[0]].dtype;
    bool sort = n->op == IR_OP_SORT, fl = ir_dtypes[d].kind == IR_DKIND_FLOAT;
    /* contiguous lines of at most 8192 elements of at most 4 bytes, at least a line a
     * multiprocessor: a block a line, one kernel */
    bool rows = st.inner == 1 && st.len >= CG_SORT_THREADS && st.len <= CG_SORT_THREADS * 32 &&
                ir_dtypes[d].size <= 4 && st.n / st.len >= SM;
    assert_int_equal(st.rows, rows);
    if (rows) {
        assert_int_equal(cg_sort_n_kernels(&st), 1);
        assert_int_equal(st.kinds[0], CG_SK_ROWS);
        assert_true(st.tile >= st.len && st.tile < 2 * st.len);
        assert_int_equal(cg_sort_scatter_smem(&st), st.tile * (ir_dtypes[d].size + 2));
        /* a block that may not hold the tile (48 KiB, Pascal's) takes the device-wide sort;
         * an H100's 227 KiB holds any */
        int64_t need = st.tile * (int64_t)(ir_dtypes[d].size + 2) + CG_SORT_ROWS_STATIC;
        cg_sort_t other;
        cg_sort_init(&other, &b->g, s, SM, 64 * 1024, 48 * 1024);
        assert_int_equal(other.rows, need <= 48 * 1024);
        cg_sort_init(&other, &b->g, s, SM, 228 * 1024, 227 * 1024);
        assert_true(other.rows);
        base_str_t t;
        base_str_init(&t, &al);
        char name[40];
        cg_sort_source(&st, 0, &t, name);
        char w[120];
        snprintf(w, sizeof w, "%s, rows kernel", what);
        build(name, base_str_get(&t), cg_sort_key(&st, 0), w);
        base_str_fini(&t);
        return;
    }
    assert_int_equal(st.seg, seg);
    assert_int_equal(st.keys_only, sort && !seg);
    assert_int_equal(st.wide, st.n >= (INT64_C(1) << 30));
    assert_int_equal(st.tile, CG_SORT_THREADS * st.ipt);
    int per_key = st.kbytes + st.pbytes;
    assert_int_equal(st.ipt, per_key <= 8 ? (seg ? 16 : 32) : per_key <= 12 ? 12 : 8);
    assert_true(st.tile * per_key <= 64 * 1024);
    assert_int_equal(cg_sort_scatter_smem(&st), st.tile * per_key);
    /* a multiprocessor without room for two blocks of the big tile keeps 16 keys a thread */
    cg_sort_t small;
    cg_sort_init(&small, &b->g, s, SM, 100 * 1024, 0);
    assert_int_equal(small.ipt, per_key <= 8 ? 16 : st.ipt);
    cg_sort_init(&small, &b->g, s, SM, 228 * 1024, 0);
    assert_int_equal(small.ipt, st.ipt);
    int want[4], nk = 0;
    want[nk++] = CG_SK_PREP;
    if (sort && !seg && fl) want[nk++] = CG_SK_PAYS;
    want[nk++] = CG_SK_SCATTER;
    if (seg) want[nk++] = CG_SK_SCATTER_SEG;
    assert_int_equal(cg_sort_n_kernels(&st), nk);
    for (int i = 0; i < nk; i++) {
        assert_int_equal(st.kinds[i], want[i]);
        assert_int_equal(cg_sort_index(&st, want[i]), i);
        base_str_t t;
        base_str_init(&t, &al);
        char name[40];
        cg_sort_source(&st, (uint32_t)i, &t, name);
        char w[120];
        snprintf(w, sizeof w, "%s, kernel %d", what, i);
        build(name, base_str_get(&t), cg_sort_key(&st, (uint32_t)i), w);
        base_str_fini(&t);
    }
}

/* The radix sorts' kernels: every dtype, sort and argsort, along one line (sort: keys alone),
 * rows (the line number in the key; 64-bit elements: line digits) and columns (lines apart in
 * memory), and a line of 2^31 (64-bit look-back words); the radix select of every dtype:
 * never run here, only compiled. */
static void test_sorts(void **state) {
    (void)state;
    int64_t line = 5000, rows[2] = {300, 257}, big = INT64_C(1) << 31;
    static const ir_op_t ops[2] = {IR_OP_SORT, IR_OP_ARGSORT};
    for (size_t t = 0; t < BASE_ARRAY_LEN(dtypes); t++)
        for (int o = 0; o < 2; o++)
            for (int c = 0; c < 3; c++) {
                loom_dtype_t d = dtypes[t];
                gb_t b;
                gb_init(&b);
                uint32_t x = c == 0 ? in_c(&b, d, 1, &line) : in_c(&b, d, 2, rows);
                bool seg = c > 0 && ir_dtypes[d].size == 8;
                char what[80];
                snprintf(what, sizeof what, "%s of %s, %s", ir_ops[ops[o]].name, ir_dtypes[d].name,
                         c == 0   ? "one line"
                         : c == 1 ? "rows"
                                  : "columns");
                check_sort(&b, sort_node(&b, ops[o], x, c == 2 ? 0 : c), seg, what);
                gb_fini(&b);
            }
    /* rows of 8192: the largest tile of the rows kernel (past 48 KiB a block); an argsort
     * of float32 and a sort of int8 */
    static const loom_dtype_t long_rows[2] = {LOOM_DTYPE_F32, LOOM_DTYPE_I8};
    int64_t rows8k[2] = {140, 8192};
    for (int t = 0; t < 2; t++) {
        gb_t b;
        gb_init(&b);
        uint32_t x = in_c(&b, long_rows[t], 2, rows8k);
        char what[80];
        snprintf(what, sizeof what, "%s of %s, rows of 8192", ir_ops[ops[1 - t]].name,
                 ir_dtypes[long_rows[t]].name);
        check_sort(&b, sort_node(&b, ops[1 - t], x, 1), false, what);
        gb_fini(&b);
    }
    /* order statistics (SELECT): one kernel, along rows and columns, 3 ranks */
    for (size_t t = 0; t < BASE_ARRAY_LEN(dtypes); t++)
        for (int c = 0; c < 2; c++) {
            loom_dtype_t d = dtypes[t];
            gb_t b;
            gb_init(&b);
            uint32_t x = in_c(&b, d, 2, rows);
            ir_node_t n;
            memset(&n, 0, sizeof n);
            n.op = IR_OP_SELECT;
            n.dtype = (uint8_t)d;
            n.ndim = 2;
            n.shape[0] = c ? 3 : rows[0];
            n.shape[1] = c ? rows[1] : 3;
            n.input = -1;
            n.src[0] = x;
            n.p.axis = c ? 0 : 1;
            n.p.ax[0] = 0, n.p.ax[1] = 7, n.p.ax[2] = 256;
            uint32_t id = ir_emit(&b.g, &n);
            assert_true(id != UINT32_MAX);
            cg_sort_t st;
            cg_sort_init(&st, &b.g, id, SM, 0, 0);
            assert_int_equal(cg_sort_n_kernels(&st), 1);
            assert_int_equal(st.kinds[0], CG_SK_SELECT);
            assert_int_equal(st.m, 3);
            assert_int_equal(st.len, rows[c ? 0 : 1]);
            assert_int_equal(st.inner, c ? rows[1] : 1);
            base_str_t text;
            base_str_init(&text, &al);
            char name[40], what[80];
            cg_sort_source(&st, 0, &text, name);
            snprintf(what, sizeof what, "select of %s, %s", ir_dtypes[d].name,
                     c ? "columns" : "rows");
            build(name, base_str_get(&text), cg_sort_key(&st, 0), what);
            base_str_fini(&text);
            gb_fini(&b);
        }
    static const loom_dtype_t wide[2] = {LOOM_DTYPE_F32, LOOM_DTYPE_F64};
    for (int t = 0; t < 2; t++)
        for (int o = 0; o < 2; o++) {
            gb_t b;
            gb_init(&b);
            uint32_t x = in_c(&b, wide[t], 1, &big);
            check_sort(&b, sort_node(&b, ops[o], x, 0), false, "a line of 2^31");
            gb_fini(&b);
        }
}

int main(int argc, char **argv) {
    snprintf(root, sizeof root, "/tmp/loom-redcg-XXXXXX");
    if (!mkdtemp(root)) return 1;
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", root);
    rt_options_t o = {0};
    o.compile_only = true;
    o.arch = "sm_90";
    const char *shared = getenv("LOOM_TEST_KERNEL_CACHE"); /* see tools/test.sh */
    o.cache_dir = shared && *shared ? shared : cache;
    if (rt_device_create(&al, &err, NULL, &o, &dev) != LOOM_STATUS_OK) {
        fprintf(stderr, "compile-only device: %s\n", err.message);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_op_dtype_row),
        cmocka_unit_test(test_every_op_dtype_column_split_full),
        cmocka_unit_test(test_strategies),
        cmocka_unit_test(test_strided_operands),
        cmocka_unit_test(test_reverse_order),
        cmocka_unit_test(test_staged),
        cmocka_unit_test(test_online_softmax),
        cmocka_unit_test(test_sorts), /* (shard 3 of 4 had under a second) */
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_scans),
        cmocka_unit_test(test_compress),
    };
    struct CMUnitTest picked[BASE_ARRAY_LEN(tests)];
    int n = shard_pick(argc, argv, tests, (int)BASE_ARRAY_LEN(tests), picked);
    int rc = n < 0 ? 1 : _cmocka_run_group_tests("reduce_codegen", picked, (size_t)n, NULL, NULL);
    rt_device_destroy(dev);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) rc = rc ? rc : 1;
    return rc;
}
