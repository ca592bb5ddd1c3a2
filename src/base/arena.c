/* arena.c — bump allocation in blocks, freed all at once (per-eval data). */
#include <string.h>

#include "base.h"

struct base_arena_block {
    base_arena_block_t *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void base_arena_init(base_arena_t *a, base_alloc_t *al) {
    a->al = al;
    a->head = NULL;
    a->first = NULL;
    a->failed = false;
}

void base_arena_init_buf(base_arena_t *a, base_alloc_t *al, void *buf, size_t size) {
    base_arena_init(a, al);
    uintptr_t at = ((uintptr_t)buf + 15) & ~(uintptr_t)15;
    size_t skip = (size_t)(at - (uintptr_t)buf);
    if (size < skip + sizeof(base_arena_block_t) + 16) return; /* too small: malloc'd blocks */
    base_arena_block_t *b = (base_arena_block_t *)at;
    b->next = NULL;
    b->used = 0;
    b->cap = size - skip - sizeof *b;
    a->head = a->first = b;
}

void base_arena_fini(base_arena_t *a) {
    base_arena_block_t *b = a->head;
    while (b) {
        base_arena_block_t *next = b->next;
        if (b != a->first) base_free(a->al, b); /* the caller's buffer stays */
        b = next;
    }
    a->head = NULL;
    a->first = NULL;
}

void *base_arena_alloc_raw(base_arena_t *a, size_t n, size_t size) {
    size_t bytes;
    if (!base_mul_size(n, size, &bytes) || bytes > SIZE_MAX / 2) {
        a->failed = true;
        return NULL;
    }
    bytes = (bytes + 15) & ~(size_t)15;
    base_arena_block_t *b = a->head;
    if (!b || b->cap - b->used < bytes) {
        size_t cap = bytes > 65536 ? bytes : 65536;
        b = base_malloc(a->al, 1, sizeof *b + cap);
        if (!b) {
            a->failed = true;
            return NULL;
        }
        b->used = 0;
        b->cap = cap;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += bytes;
    return p;
}

void *base_arena_alloc(base_arena_t *a, size_t n, size_t size) {
    void *p = base_arena_alloc_raw(a, n, size);
    if (p) memset(p, 0, n * size); /* n * size was checked */
    return p;
}
