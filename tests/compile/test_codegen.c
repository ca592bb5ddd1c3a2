/* test_codegen — the compile suite's code generation checks, on the compile-only NVRTC device
 * (no GPU needed): every kernel the op × dtype matrix generates compiles; the flat, vector,
 * strided and 64-bit-index variants compile; generated text is deterministic and matches the
 * golden files; changing a scalar changes no source (scalars are parameters).
 * Run with LOOM_GOLDEN_UPDATE=1 to rewrite the golden files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../support/check.h"
#include "../support/shard.h"
#include "codegen/cg.h"

#ifndef GOLDEN_DIR
#define GOLDEN_DIR "tests/compile/golden"
#endif

static const loom_dtype_t all_dtypes[] = {
    LOOM_DTYPE_BOOL, LOOM_DTYPE_I8,  LOOM_DTYPE_I16, LOOM_DTYPE_I32, LOOM_DTYPE_I64,
    LOOM_DTYPE_U8,   LOOM_DTYPE_U16, LOOM_DTYPE_U32, LOOM_DTYPE_U64, LOOM_DTYPE_F16,
    LOOM_DTYPE_BF16, LOOM_DTYPE_F32, LOOM_DTYPE_F64};
#define N_DTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

static char root[256];

/* A compile-only NVRTC context for arch, caching under cache. */
static loom_ctx_t *nvrtc_ctx_with(const char *arch, const char *cache, const char *dump, int fma) {
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_NVRTC;
    o.arch = arch;
    o.cache_dir = cache;
    o.dump_dir = dump;
    o.allow_fma = fma;
    loom_ctx_t *ctx = NULL;
    loom_status_t st = loom_ctx_create(&o, &ctx);
    if (st != LOOM_STATUS_OK) print_error("nvrtc ctx: %s\n", loom_last_create_message());
    assert_int_equal(st, LOOM_STATUS_OK);
    return ctx;
}

/* The kernel cache: the test's own, or LOOM_TEST_KERNEL_CACHE (tools/test.sh shares one between
 * its two builds, so the sanitizer build loads what the first build compiled; counts below add
 * compiles and disk hits, so they hold either way). */
static loom_ctx_t *nvrtc_ctx(const char *dump) {
    char cache[300];
    const char *shared = getenv("LOOM_TEST_KERNEL_CACHE");
    snprintf(cache, sizeof cache, "%s/cache", root);
    return nvrtc_ctx_with("sm_90", shared && *shared ? shared : cache, dump, 0);
}

/* Collects a for one batched eval; a dtype the op refuses (nil) is fine, other failures not. */
typedef struct batch {
    loom_array_t *items[256];
    int n;
} batch_t;

static void add(loom_ctx_t *ctx, batch_t *b, loom_array_t *a, const char *what) {
    if (loom_array_is_nil(a)) {
        loom_status_t st = loom_ctx_status(ctx);
        if (st != LOOM_STATUS_DTYPE_ERROR && st != LOOM_STATUS_INVALID_ARGUMENT &&
            st != LOOM_STATUS_OVERFLOW)
            print_error("%s: %s\n", what, loom_ctx_message(ctx));
        assert_true(st == LOOM_STATUS_DTYPE_ERROR || st == LOOM_STATUS_INVALID_ARGUMENT ||
                    st == LOOM_STATUS_OVERFLOW);
        loom_ctx_clear_error(ctx);
        return;
    }
    assert_true(b->n < 256);
    b->items[b->n++] = a;
}

static void eval_batch(loom_ctx_t *ctx, batch_t *b) {
    loom_status_t st = loom_eval(ctx, b->n, b->items);
    if (st != LOOM_STATUS_OK) print_error("batch of %d: %s\n", b->n, loom_ctx_message(ctx));
    assert_int_equal(st, LOOM_STATUS_OK);
    b->n = 0;
}

static void eval_ok(loom_ctx_t *ctx, loom_array_t *a, const char *what) {
    batch_t b = {.n = 0};
    add(ctx, &b, a, what);
    if (b.n) eval_batch(ctx, &b);
}

/* Every op × dtype, every cast, where and the generators: one multi-output kernel per dtype
 * and group (all outputs share the iteration space), so NVRTC compiles each op's code once. */
/* Every op compiles in the dtypes t with t % SWEEP_PARTS == part: the sweep is SWEEP_PARTS
 * cmocka tests, next to each other in the list, so that the compile suite's shards
 * (tests/support/shard.h; as many as parts, see meson.build) share it. */
#define SWEEP_PARTS 6
static void every_op_dtype(int part) {
    loom_ctx_t *ctx = nvrtc_ctx(NULL);
    int64_t n = 1001; /* not a multiple of any vector width: every op in the tail too */
    static batch_t b;
    int done = 0;
    for (int t = part; t < N_DTYPES; t += SWEEP_PARTS, done++) {
        loom_dtype_t d = all_dtypes[t];
        loom_scope_begin(ctx);
        loom_array_t *x = loom_full(ctx, d, 1, &n, 1), *y = loom_full(ctx, d, 1, &n, 2);
        /* random leaves are read per element, so nothing constant-folds away */
        loom_array_t *r =
            loom_astype(ctx, loom_random_uniform(ctx, 1, LOOM_DTYPE_F64, 1, &n, -5, 5), d);
        for (int op = 0; op < check_n_unary; op++)
            add(ctx, &b, check_unary_fns[op](ctx, r), check_unary_names[op]);
        for (int op = 0; op < check_n_binary; op++) {
            add(ctx, &b, check_binary_fns[op](ctx, r, loom_add(ctx, x, y)), check_binary_names[op]);
            add(ctx, &b, check_binary_i_fns[op](ctx, r, 3), check_binary_names[op]);
        }
        for (int u = 0; u < N_DTYPES; u++)
            add(ctx, &b, loom_astype(ctx, r, all_dtypes[u]), "astype");
        add(ctx, &b, loom_where(ctx, loom_greater(ctx, r, x), r, y), "where");
        add(ctx, &b, loom_arange(ctx, 0, 1000, 1, d), "arange");
        add(ctx, &b, loom_linspace(ctx, 0, 1, 1000, 1, d), "linspace");
        if (check_is_float(d)) add(ctx, &b, loom_random_normal(ctx, 3, d, 1, &n, 0, 1), "normal");
        eval_batch(ctx, &b);
        eval_ok(ctx, loom_eye(ctx, 30, 40, 2, d), "eye");
        loom_scope_end(ctx);
    }
    loom_stats_t s;
    loom_ctx_stats(ctx, &s);
    assert_true(s.kernel_compiles + s.kernel_disk_hits >= 2 * (uint64_t)done);
    loom_ctx_destroy(ctx);
}

#define SWEEP_TEST(k)                                                                              \
    static void test_every_op_dtype_compiles_##k(void **state) {                                   \
        (void)state;                                                                               \
        every_op_dtype(k);                                                                         \
    }
SWEEP_TEST(0)
SWEEP_TEST(1)
SWEEP_TEST(2)
SWEEP_TEST(3)
SWEEP_TEST(4)
SWEEP_TEST(5)

/* Strided (broadcast) operands, and a space over 2^31 elements (64-bit index variant). */
static void test_variants_compile(void **state) {
    (void)state;
    loom_ctx_t *ctx = nvrtc_ctx(NULL);
    int64_t col[2] = {8192, 1}, row[2] = {1, 8192}, big = (INT64_C(1) << 31) + 5;
    loom_array_t *a = loom_random_uniform(ctx, 1, LOOM_DTYPE_F32, 2, col, 0, 1);
    loom_array_t *b = loom_random_uniform(ctx, 2, LOOM_DTYPE_F32, 2, row, 0, 1);
    eval_ok(ctx, loom_multiply(ctx, loom_exp(ctx, loom_add(ctx, a, b)), a), "outer");
    loom_array_t *c = loom_random_uniform(ctx, 3, LOOM_DTYPE_F16, 1, &big, 0, 1);
    eval_ok(ctx, loom_sqrt(ctx, loom_multiply(ctx, c, c)), "big");
    loom_ctx_destroy(ctx);
}

/* Reads the one .cu file in dir (the generated part, after the prelude). */
static char *read_generated(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    char path[512] = "";
    int count = 0;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".cu")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            count++;
        }
    closedir(d);
    assert_int_equal(count, 1);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = calloc((size_t)len + 1, 1);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    char *gen = strstr(text, "/* ---- generated by loom ---- */");
    assert_non_null(gen);
    char *out = strdup(gen);
    free(text);
    return out;
}

typedef loom_array_t *(*graph_fn)(loom_ctx_t *ctx, double scalar);

static loom_array_t *g_hypot(loom_ctx_t *ctx, double s) {
    int64_t n = 1 << 20;
    loom_array_t *x = loom_random_uniform(ctx, 1, LOOM_DTYPE_F32, 1, &n, 0, 1);
    loom_array_t *y = loom_random_normal(ctx, 2, LOOM_DTYPE_F32, 1, &n, 0, 1);
    return loom_multiply_f(
        ctx, loom_sqrt(ctx, loom_add(ctx, loom_multiply(ctx, x, x), loom_multiply(ctx, y, y))), s);
}

/* The same with a size that is not a multiple of 4: the scalar tail after the vector loop. */
static loom_array_t *g_hypot_tail(loom_ctx_t *ctx, double s) {
    int64_t n = 1027;
    loom_array_t *x = loom_random_uniform(ctx, 1, LOOM_DTYPE_F32, 1, &n, 0, 1);
    loom_array_t *y = loom_random_normal(ctx, 2, LOOM_DTYPE_F32, 1, &n, 0, 1);
    return loom_multiply_f(
        ctx, loom_sqrt(ctx, loom_add(ctx, loom_multiply(ctx, x, x), loom_multiply(ctx, y, y))), s);
}

static loom_array_t *g_outer(loom_ctx_t *ctx, double s) {
    int64_t row[2] = {1, 48};
    loom_array_t *e = loom_add_f(ctx, loom_eye(ctx, 64, 48, 0, LOOM_DTYPE_F32), s);
    loom_array_t *b = loom_random_uniform(ctx, 9, LOOM_DTYPE_F32, 2, row, 0, 1);
    return loom_where(ctx, loom_less(ctx, b, e), loom_exp(ctx, loom_add(ctx, b, e)),
                      loom_weak_float(ctx, 0.0));
}

static loom_array_t *g_mixed(loom_ctx_t *ctx, double s) {
    int64_t n = 4096;
    loom_array_t *h = loom_random_uniform(ctx, 5, LOOM_DTYPE_F16, 1, &n, -1, 1);
    loom_array_t *i = loom_arange(ctx, 0, 4096, 1, LOOM_DTYPE_I32);
    return loom_add(ctx, loom_floor_divide_i(ctx, i, 7),
                    loom_astype(ctx, loom_multiply_f(ctx, h, s), LOOM_DTYPE_I32));
}

static void golden_case(const char *name, graph_fn fn) {
    char dump1[300], dump2[300], gold[400];
    snprintf(dump1, sizeof dump1, "%s/%s-1", root, name);
    snprintf(dump2, sizeof dump2, "%s/%s-2", root, name);
    loom_ctx_t *ctx = nvrtc_ctx(dump1);
    eval_ok(ctx, fn(ctx, 2.5), name);
    loom_ctx_destroy(ctx);
    ctx = nvrtc_ctx(dump2); /* another process-like context, another scalar value */
    eval_ok(ctx, fn(ctx, -1e-3), name);
    loom_ctx_destroy(ctx);
    char *a = read_generated(dump1), *b = read_generated(dump2);
    assert_string_equal(a, b); /* deterministic, and the scalar is not in the text */
    snprintf(gold, sizeof gold, "%s/%s.cu", GOLDEN_DIR, name);
    if (getenv("LOOM_GOLDEN_UPDATE")) {
        FILE *f = fopen(gold, "wb");
        assert_non_null(f);
        fputs(a, f);
        fclose(f);
    }
    FILE *f = fopen(gold, "rb");
    if (!f) print_error("missing golden file %s (run with LOOM_GOLDEN_UPDATE=1)\n", gold);
    assert_non_null(f);
    char *g = calloc(1 << 20, 1);
    size_t len = fread(g, 1, (1 << 20) - 1, f);
    g[len] = '\0';
    fclose(f);
    assert_string_equal(g, a);
    free(g);
    free(a);
    free(b);
}

/* The dispatch fast path: the same structure with new scalars (and new leaf values) reuses
 * the cached plan and kernels; a new structure or shape does not. */
static void test_plan_cache(void **state) {
    (void)state;
    loom_ctx_t *ctx = nvrtc_ctx(NULL);
    loom_stats_t s0, s1, s2;
    loom_ctx_stats(ctx, &s0);
    for (int i = 0; i < 10; i++) {
        loom_scope_begin(ctx);
        eval_ok(ctx, g_hypot(ctx, 0.5 + i), "hypot");
        loom_scope_end(ctx);
    }
    loom_ctx_stats(ctx, &s1);
    assert_int_equal(s1.plan_misses - s0.plan_misses, 1);
    assert_int_equal(s1.plan_hits - s0.plan_hits, 9);
    assert_true(
        s1.kernel_compiles + s1.kernel_disk_hits - s0.kernel_compiles - s0.kernel_disk_hits == 1);
    int64_t n = 100;
    loom_scope_begin(ctx);
    eval_ok(ctx, loom_add_f(ctx, loom_random_uniform(ctx, 1, LOOM_DTYPE_F32, 1, &n, 0, 1), 1),
            "small");
    loom_scope_end(ctx);
    loom_ctx_stats(ctx, &s2);
    assert_int_equal(s2.plan_misses - s1.plan_misses, 1);
    loom_ctx_destroy(ctx);
}

/* A kernel without the scalar tail (size a multiple of vec) is not reused for a size that
 * needs one: the tail is part of the key, like the index width. */
static void test_tail_variant_keyed(void **state) {
    (void)state;
    loom_ctx_t *ctx = nvrtc_ctx(NULL);
    const int64_t sizes[4] = {1024, 2048, 1027, 1029};
    loom_stats_t s0, s1;
    loom_ctx_stats(ctx, &s0);
    for (int i = 0; i < 4; i++) {
        loom_scope_begin(ctx);
        int64_t n = sizes[i];
        eval_ok(ctx, loom_sqrt(ctx, loom_random_uniform(ctx, 1, LOOM_DTYPE_F32, 1, &n, 0, 1)),
                "sqrt");
        loom_scope_end(ctx);
    }
    loom_ctx_stats(ctx, &s1);
    assert_int_equal(
        s1.kernel_compiles + s1.kernel_disk_hits - s0.kernel_compiles - s0.kernel_disk_hits, 2);
    assert_int_equal(s1.kernel_mem_hits - s0.kernel_mem_hits, 2); /* 2048 and 1029 */
    loom_ctx_destroy(ctx);
}

/* Kernels of 256+ nodes hash every output slot (found by review: the key's fixed buffer
 * overflowed and dropped output positions, so swapped outputs reused the wrong kernel). */
static void test_long_kernel_key(void **state) {
    (void)state;
    loom_ctx_t *ctx = nvrtc_ctx(NULL);
    int64_t n = 64;
    for (int order = 0; order < 2; order++) {
        loom_scope_begin(ctx);
        loom_array_t *y = loom_random_uniform(ctx, 1, LOOM_DTYPE_F32, 1, &n, 0, 1);
        for (int i = 0; i < 252; i++) y = loom_add_f(ctx, y, 1.0);
        loom_array_t *q = loom_greater_f(ctx, y, 100.0);
        loom_array_t *roots[2] = {order ? q : y, order ? y : q};
        assert_int_equal(loom_eval(ctx, 2, roots), LOOM_STATUS_OK);
        loom_scope_end(ctx);
    }
    loom_stats_t s;
    loom_ctx_stats(ctx, &s);
    assert_int_equal(s.kernel_mem_hits, 0); /* two output orders, two kernels */
    loom_ctx_destroy(ctx);
}

/* 32-bit indices only with headroom below 2^31 (found by review: n = 2^31 - 1 overflowed
 * `(n + 7) / 8` and the grid-stride increment). */
static void test_index_width_headroom(void **state) {
    (void)state;
    char dump[300];
    snprintf(dump, sizeof dump, "%s/idx", root);
    loom_ctx_t *ctx = nvrtc_ctx(dump);
    int64_t n = INT32_MAX;
    eval_ok(ctx, loom_add_i(ctx, loom_full_int(ctx, LOOM_DTYPE_U8, 1, &n, 7), 1), "u8");
    char *gen = read_generated(dump);
    assert_non_null(strstr(gen, "typedef long long LM_I;"));
    free(gen);
    /* and the compile-only device hands out no pointers (found by review: a NULL buffer) */
    int64_t four = 4;
    loom_array_t *y = loom_add_f(ctx, loom_zeros(ctx, LOOM_DTYPE_F32, 1, &four), 1.0);
    assert_null(loom_array_host_ptr(ctx, y));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_NOT_AVAILABLE);
    loom_ctx_destroy(ctx);
}

/* A mask's selection on the compile-only device compiles its kernel and refuses the result,
 * whose size is a count it cannot compute (found by use: an internal error). */
static void test_mask_refused_compile_only(void **state) {
    (void)state;
    char dump[300];
    snprintf(dump, sizeof dump, "%s/mask", root);
    loom_ctx_t *ctx = nvrtc_ctx(dump);
    int64_t n = 5000;
    loom_array_t *x = loom_random_uniform(ctx, 7, LOOM_DTYPE_F32, 1, &n, -1, 1);
    (void)loom_extract(ctx, loom_greater_f(ctx, x, 0.0), x);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_NOT_AVAILABLE);
    assert_non_null(strstr(loom_ctx_message(ctx), "compile-only"));
    DIR *d = opendir(dump); /* the compaction's kernel was compiled (and dumped) */
    assert_non_null(d);
    int kernels = 0;
    for (struct dirent *e; (e = readdir(d));)
        kernels += strncmp(e->d_name, "loom_sc_", 8) == 0 && strstr(e->d_name, ".cu") != NULL;
    closedir(d);
    assert_int_equal(kernels, 1);
    loom_ctx_destroy(ctx);
}

/* Strided kernels divide coordinates by multiply-high and shift: the quotient must equal r / d
 * for every r < 2^31 and 2 <= d < 2^31 (checked at the edges: powers of two and their
 * neighbours, dividends next to multiples of d and next to 2^31, plus random pairs). */
static uint32_t fastdiv(uint32_t r, uint32_t d) {
    if (d == 1) return r;
    uint32_t m = cg_fastdiv_magic(d);
    unsigned s = 31u - (unsigned)__builtin_clz(d - 1);
    return (uint32_t)(((uint64_t)r * m) >> 32) >> s;
}

static void check_divisor(uint32_t d) {
    const uint32_t top = (uint32_t)INT32_MAX;
    uint32_t rs[] = {0, 1, d - 1, d, d + 1, 2 * (d % (top / 2)), top, top - 1, top - d + 1,
                     (top / d) * d, (top / d) * d - 1, (top / d) * d + 1};
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
        uint32_t r = rs[i] > top ? top : rs[i];
        if (fastdiv(r, d) != r / d) fail_msg("fastdiv(%u, %u) = %u, want %u", r, d, fastdiv(r, d), r / d);
    }
}

static void test_fastdiv_exact(void **state) {
    (void)state;
    for (uint32_t d = 1; d < 70000; d++) check_divisor(d);
    for (int p = 1; p < 31; p++)
        for (int dd = -3; dd <= 3; dd++) {
            int64_t d = (INT64_C(1) << p) + dd;
            if (d >= 1 && d <= INT32_MAX) check_divisor((uint32_t)d);
        }
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 2000000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t d = (uint32_t)(x >> 33) % (uint32_t)INT32_MAX + 1, r = (uint32_t)x & INT32_MAX;
        if (fastdiv(r, d) != r / d) fail_msg("fastdiv(%u, %u) = %u, want %u", r, d, fastdiv(r, d), r / d);
        if (i % 64 == 0) check_divisor(d);
    }
}

/* Whether some file under dir (the disk cache) contains needle. */
static bool tree_has(const char *dir, const char *needle) {
    DIR *d = opendir(dir);
    if (!d) return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            found = tree_has(path, needle);
            continue;
        }
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        char *buf = malloc((size_t)st.st_size + 1);
        size_t n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
        fclose(f);
        if (buf) {
            buf[n] = 0;
            for (size_t i = 0; i + strlen(needle) <= n && !found; i++)
                found = !memcmp(buf + i, needle, strlen(needle));
        }
        free(buf);
    }
    closedir(d);
    return found;
}

/* allow_fma: x * y + z becomes one FMA per element; by default the multiply and the add
 * round on their own, as NumPy does. An arch newer than NVRTC knows makes it compile PTX,
 * which the disk cache then holds as text. */
static void test_allow_fma(void **state) {
    (void)state;
    for (int fma = 0; fma < 2; fma++) {
        char cache[300];
        snprintf(cache, sizeof cache, "%s/fma%d", root, fma);
        loom_ctx_t *ctx = nvrtc_ctx_with("sm_999", cache, NULL, fma);
        int64_t n = 1000;
        float data[1000] = {0};
        loom_array_t *x = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, data);
        loom_array_t *y = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, data);
        loom_array_t *r = loom_add(ctx, loom_multiply(ctx, x, y), x);
        eval_ok(ctx, r, "x * y + x");
        loom_ctx_destroy(ctx);
        assert_true(tree_has(cache, ".version")); /* PTX text */
        assert_true(tree_has(cache, "fma.rn.f32") == (fma == 1));
        assert_true(tree_has(cache, "mul.rn.f32") == (fma == 0));
    }
}

static void test_golden_hypot(void **s) {
    (void)s;
    golden_case("hypot", g_hypot);
}
static void test_golden_hypot_tail(void **s) {
    (void)s;
    golden_case("hypot_tail", g_hypot_tail);
}
static void test_golden_outer(void **s) {
    (void)s;
    golden_case("outer", g_outer);
}
static void test_golden_mixed(void **s) {
    (void)s;
    golden_case("mixed", g_mixed);
}

int main(int argc, char **argv) {
    snprintf(root, sizeof root, "/tmp/loom-codegen-XXXXXX");
    if (!mkdtemp(root)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_op_dtype_compiles_0), /* SWEEP_PARTS shards' worth */
        cmocka_unit_test(test_every_op_dtype_compiles_1),
        cmocka_unit_test(test_every_op_dtype_compiles_2),
        cmocka_unit_test(test_every_op_dtype_compiles_3),
        cmocka_unit_test(test_every_op_dtype_compiles_4),
        cmocka_unit_test(test_every_op_dtype_compiles_5),
        cmocka_unit_test(test_fastdiv_exact),
        cmocka_unit_test(test_variants_compile),
        cmocka_unit_test(test_golden_hypot),
        cmocka_unit_test(test_golden_hypot_tail),
        cmocka_unit_test(test_golden_outer),
        cmocka_unit_test(test_golden_mixed),
        cmocka_unit_test(test_plan_cache),
        cmocka_unit_test(test_tail_variant_keyed),
        cmocka_unit_test(test_long_kernel_key),
        cmocka_unit_test(test_index_width_headroom),
        cmocka_unit_test(test_mask_refused_compile_only),
        cmocka_unit_test(test_allow_fma),
    };
    struct CMUnitTest picked[BASE_ARRAY_LEN(tests)];
    int n = shard_pick(argc, argv, tests, (int)BASE_ARRAY_LEN(tests), picked);
    int rc = n < 0 ? 1 : _cmocka_run_group_tests("codegen", picked, (size_t)n, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) rc = rc ? rc : 1;
    return rc;
}
