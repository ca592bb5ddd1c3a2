/* strbuf.c — a growable string with a sticky failure flag: callers append freely and check
 * once at the end. */
#include <stdio.h>
#include <string.h>

#include "base.h"

void base_str_init(base_str_t *s, base_alloc_t *al) {
    s->al = al;
    s->p = NULL;
    s->len = s->cap = 0;
    s->failed = false;
}

void base_str_fini(base_str_t *s) {
    base_free(s->al, s->p);
    base_str_init(s, s->al);
}

static bool reserve(base_str_t *s, size_t extra) {
    if (s->failed) return false;
    if (s->len + extra + 1 <= s->cap) return true;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < s->len + extra + 1) {
        if (cap > SIZE_MAX / 2) {
            s->failed = true;
            return false;
        }
        cap *= 2;
    }
    char *p = base_realloc(s->al, s->p, cap, 1);
    if (!p) {
        s->failed = true;
        return false;
    }
    s->p = p;
    s->cap = cap;
    return true;
}

void base_str_catn(base_str_t *s, const char *text, size_t n) {
    if (!reserve(s, n)) return;
    memcpy(s->p + s->len, text, n);
    s->len += n;
    s->p[s->len] = '\0';
}

void base_str_cat(base_str_t *s, const char *text) { base_str_catn(s, text, strlen(text)); }

void base_str_vprintf(base_str_t *s, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        s->failed = true;
        return;
    }
    if (!reserve(s, (size_t)n)) return;
    vsnprintf(s->p + s->len, (size_t)n + 1, fmt, ap);
    s->len += (size_t)n;
}

void base_str_printf(base_str_t *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    base_str_vprintf(s, fmt, ap);
    va_end(ap);
}

const char *base_str_get(const base_str_t *s) { return s->p ? s->p : ""; }

void base_str_reset(base_str_t *s) {
    s->len = 0;
    if (s->p) s->p[0] = '\0';
}
