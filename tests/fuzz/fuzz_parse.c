/* fuzz_parse — libFuzzer target: the bytes as a loom_parse program on the CPU reference device,
 * with x (int8[3]), y (float32[2,3]) and b (bool[3]) bound, and every result evaluated when its
 * graph is small enough. Any status is fine; a crash, a sanitizer report or a leak is a finding.
 * The size guard walks the lazy DAG (src/frontend/fe.h) before eval, so that zeros((10**9,))
 * stays an unevaluated node and the target keeps thousands of runs a second. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"
#include "loom.h"

enum {
    MAX_NODE_ELEMS = 1 << 16, /* any one node: 512 KiB of float64 */
    MAX_TOTAL_ELEMS = 1 << 20,
    MAX_NODES = 4096,
};

static loom_ctx_t *ctx;
static loom_array_t *bound[3];
static const char *const names[3] = {"x", "y", "b"};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    loom_options_t o = {.device = LOOM_DEVICE_CPU, .disable_disk_cache = 1};
    if (loom_ctx_create(&o, &ctx) != LOOM_STATUS_OK) abort();
    int8_t x[3] = {1, -2, 3};
    float y[6] = {1.5f, 2.5f, -3.0f, 0.0f, -0.0f, 1e30f};
    uint8_t b[3] = {1, 0, 1};
    int64_t s1 = 3, s2[2] = {2, 3};
    bound[0] = loom_array_retain(loom_from_host(ctx, LOOM_DTYPE_I8, 1, &s1, x));
    bound[1] = loom_array_retain(loom_from_host(ctx, LOOM_DTYPE_F32, 2, s2, y));
    bound[2] = loom_array_retain(loom_from_host(ctx, LOOM_DTYPE_BOOL, 1, &s1, b));
    if (loom_ctx_status(ctx) != LOOM_STATUS_OK) abort();
    return 0;
}

/* Elements of a's shape, or -1 past MAX_NODE_ELEMS (or on overflow). */
static int64_t node_elems(const loom_array_t *a) {
    int64_t n = 1;
    for (int32_t i = 0; i < a->ndim; i++) {
        if (a->shape[i] < 0) return -1;
        if (a->shape[i] == 0) return 0;
        if (a->shape[i] > MAX_NODE_ELEMS || n > MAX_NODE_ELEMS / a->shape[i]) return -1;
        n *= a->shape[i];
    }
    return n;
}

/* Whether evaluating the roots touches at most MAX_NODES nodes of at most MAX_NODE_ELEMS
 * elements each and MAX_TOTAL_ELEMS in all. Shared nodes count once. */
static int small_enough(loom_array_t *const *roots, int n_roots) {
    static const loom_array_t *seen[MAX_NODES];
    static const loom_array_t *stack[MAX_NODES];
    int n_seen = 0, n_stack = 0;
    int64_t total = 0;
    for (int r = 0; r < n_roots; r++)
        if (roots[r] && !loom_array_is_nil(roots[r])) stack[n_stack++] = roots[r];
    while (n_stack > 0) {
        const loom_array_t *a = stack[--n_stack];
        int dup = 0;
        for (int i = 0; i < n_seen && !dup; i++) dup = seen[i] == a;
        if (dup) continue;
        if (n_seen == MAX_NODES) return 0;
        seen[n_seen++] = a;
        int64_t n = node_elems(a);
        if (n < 0 || (total += n) > MAX_TOTAL_ELEMS) return 0;
        for (int k = 0; k < 3; k++) {
            if (!a->src[k]) continue;
            if (n_stack == MAX_NODES) return 0;
            stack[n_stack++] = a->src[k];
        }
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0; /* long programs only repeat what short ones reach */
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    loom_scope_begin(ctx);
    loom_array_t *out = NULL, *items[4];
    int32_t n_items = 0;
    int tuple = 0;
    if (size % 2) { /* odd lengths: the last value as items (a tuple's entries) */
        if (loom_parse_items(ctx, text, 3, names, bound, 4, items, &n_items, &tuple) ==
                LOOM_STATUS_OK &&
            small_enough(items, n_items))
            loom_eval(ctx, n_items, items);
    } else if (loom_parse(ctx, text, 3, names, bound, 1, NULL, &out) == LOOM_STATUS_OK &&
               small_enough(&out, 1)) {
        loom_eval(ctx, 1, &out);
    }
    loom_scope_end(ctx);
    loom_ctx_clear_error(ctx);
    free(text);
    return 0;
}
