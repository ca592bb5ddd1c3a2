/* emit.c — text and key helpers of the code generators: prelude selection,
 * block-hashed structural keys and elementwise expressions over named variables. */
#include "emit.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int fn_cmp(const void *key, const void *elem) {
    const base_str_t *k = key;
    const cg_prelude_fn_t *f = elem;
    int c = strncmp(k->p, f->name, k->len);
    return c ? c : (f->name[k->len] ? -1 : 0);
}

void cg__emit_prelude(const char *gen, base_str_t *o, base_alloc_t *al) {
    uint8_t *want = base_calloc(al, cg_prelude_n_fns, 1);
    uint32_t *stack = base_malloc(al, cg_prelude_n_fns + 1, sizeof *stack);
    if (!want || !stack) {
        o->failed = true;
        goto out;
    }
    uint32_t sp = 0;
    for (const char *p = gen; *p;) { /* every identifier starting lm_ */
        if (!(p[0] == 'l' && p[1] == 'm' && p[2] == '_') ||
            (p > gen && (p[-1] == '_' || isalnum((unsigned char)p[-1])))) {
            p++;
            continue;
        }
        const char *e = p;
        while (*e == '_' || isalnum((unsigned char)*e)) e++;
        base_str_t key = {.p = (char *)p, .len = (size_t)(e - p)};
        const cg_prelude_fn_t *f =
            bsearch(&key, cg_prelude_fns, cg_prelude_n_fns, sizeof *f, fn_cmp);
        if (f && !want[f->pos]) {
            want[f->pos] = 1;
            stack[sp++] = f->pos;
        }
        p = e;
    }
    while (sp) { /* and what they call */
        const cg_prelude_fn_t *f = &cg_prelude_fns[cg_prelude_by_pos[stack[--sp]]];
        for (uint32_t d = 0; d < f->n_deps; d++) {
            uint32_t pos = cg_prelude_deps[f->dep_start + d];
            if (!want[pos]) {
                want[pos] = 1;
                stack[sp++] = pos;
            }
        }
    }
    base_str_cat(o, cg_prelude_preamble);
    for (uint32_t pos = 0; pos < cg_prelude_n_fns; pos++)
        if (want[pos]) {
            const cg_prelude_fn_t *f = &cg_prelude_fns[cg_prelude_by_pos[pos]];
            base_str_catn(o, cg_prelude_text + f->off, f->len);
        }
out:
    base_free(al, want);
    base_free(al, stack);
}

void cg__key_init(cg__key_t *k, uint32_t format) {
    k->n = 0;
    k->acc = 0x6c6f6f6d;
    cg__key_put(k, format);
}

void cg__key_put(cg__key_t *k, uint32_t w) {
    if (k->n == BASE_ARRAY_LEN(k->words)) {
        k->acc = base_hash64(k->words, sizeof k->words, k->acc);
        k->n = 0;
    }
    k->words[k->n++] = w;
}

base_hash128_t cg__key_done(cg__key_t *k) {
    uint64_t acc = k->acc; /* the folded blocks (a no-op mix when there were none) */
    cg__key_put(k, (uint32_t)acc);
    cg__key_put(k, (uint32_t)(acc >> 32));
    return base_hash128(k->words, k->n * sizeof *k->words);
}

void cg__emit_elem(base_str_t *o, const ir_graph_t *g, const ir_node_t *n, uint32_t pa, uint32_t pb,
                   uint32_t pc) {
    const char *s = ir_dtypes[n->dtype].sfx;
    switch (n->op) {
        case IR_OP_CAST:
            base_str_printf(o, "lm_cast_%s_%s(v%u)", ir_dtypes[g->nodes[n->src[0]].dtype].sfx, s,
                            pa);
            break;
        case IR_OP_WHERE:
            base_str_printf(o, "lm_where_%s(v%u, v%u, v%u)", s, pa, pb, pc);
            break;
        default: {
            const char *d = ir_dtypes[g->nodes[n->src[0]].dtype].sfx;
            base_str_printf(o, "lm_%s_%s(v%u", ir_ops[n->op].name, d, pa);
            if (ir_ops[n->op].arity > 1) base_str_printf(o, ", v%u", pb);
            base_str_cat(o, ")");
        }
    }
}
