/* alloc.c — the one allocator: overflow-checked sizes, live counts, injectable failure. */
#include <stdlib.h>
#include <string.h>

#include "base.h"

bool base_mul_i64(int64_t a, int64_t b, int64_t *out) {
    if (a < 0 || b < 0) return false;
    return !__builtin_mul_overflow(a, b, out);
}

bool base_mul_size(size_t a, size_t b, size_t *out) { return !__builtin_mul_overflow(a, b, out); }

static bool should_fail(base_alloc_t *al) {
    if (!al || al->fail_after < 0) return false;
    if (al->fail_after == 0) {
        al->n_failed++;
        if (al->fail_once) al->fail_after = -1;
        return true;
    }
    al->fail_after--;
    return false;
}

void *base_malloc(base_alloc_t *al, size_t n, size_t size) {
    size_t bytes;
    if (!base_mul_size(n, size, &bytes) || should_fail(al)) return NULL;
    void *p = malloc(bytes ? bytes : 1);
    if (p && al) al->n_live++;
    return p;
}

void *base_calloc(base_alloc_t *al, size_t n, size_t size) {
    size_t bytes;
    if (!base_mul_size(n, size, &bytes) || should_fail(al)) return NULL;
    void *p = calloc(bytes ? bytes : 1, 1);
    if (p && al) al->n_live++;
    return p;
}

void *base_memalign(base_alloc_t *al, size_t align, size_t bytes) {
    void *p = NULL;
    if (should_fail(al) || posix_memalign(&p, align, bytes ? bytes : 1) != 0) return NULL;
    if (al) al->n_live++;
    return p;
}

void *base_realloc(base_alloc_t *al, void *p, size_t n, size_t size) {
    size_t bytes;
    if (!base_mul_size(n, size, &bytes) || should_fail(al)) return NULL;
    void *q = realloc(p, bytes ? bytes : 1);
    if (q && !p && al) al->n_live++;
    return q;
}

void base_free(base_alloc_t *al, void *p) {
    if (!p) return;
    if (al) al->n_live--;
    free(p);
}

char *base_strdup(base_alloc_t *al, const char *s) {
    size_t n = strlen(s) + 1;
    char *d = base_malloc(al, n, 1);
    if (d) memcpy(d, s, n);
    return d;
}
