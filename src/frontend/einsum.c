/* einsum.c — np.einsum on loom's own operations: repeated labels in an operand become
 * diagonals, labels no other term needs are summed first, and the terms are contracted two at
 * a time, each contraction one matrix product (batch labels leading, the contracted labels as
 * its k) or, with nothing to contract, one broadcast multiply that fuses with what follows.
 * The order is the operands' (optimize false) or greedy: at each step the pair whose result is
 * smallest, as NumPy's optimize='greedy' chooses. */
#include <string.h>

#include "fe.h"

#define EIN_MAX_OPS  16
#define EIN_ELLIPSIS 64 /* labels of ellipsis axes: 64 + position from the right */
#define EIN_LABELS   (EIN_ELLIPSIS + LOOM_MAX_DIMS)

typedef struct term {
    loom_array_t *a;
    int32_t n;
    int lab[LOOM_MAX_DIMS];
} term_t;

typedef struct einsum {
    loom_ctx_t *ctx;
    int32_t nt;
    term_t t[EIN_MAX_OPS];
    int32_t nout;
    int out[LOOM_MAX_DIMS];
    int64_t size[EIN_LABELS]; /* each label's extent (the largest; 1s broadcast) */
    loom_dtype_t dtype;
} einsum_t;

static bool failed(void) { return false; }
/* Records the message and gives false. */
#define fail(e, ...) (fe_error((e)->ctx, LOOM_STATUS_INVALID_ARGUMENT, __VA_ARGS__), failed())

static int label_of(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
    return -1;
}

/* One term's labels from s[0..len): letters and at most one "..." covering rank - letters
 * axes (rank -1: the output, whose ellipsis covers *ell axes). */
static bool parse_term(einsum_t *e, const char *subs, const char *s, size_t len, int32_t rank,
                       int32_t *ell, int32_t *n, int *lab) {
    int32_t letters = 0, dots = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.') {
            if (i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.' || dots)
                return fail(e, "einsum: '%s': an ellipsis is three dots, once per term", subs);
            dots = 1;
            i += 2;
        } else if (s[i] != ' ') {
            if (label_of(s[i]) < 0)
                return fail(e, "einsum: '%s': invalid subscript '%c' (letters only)", subs, s[i]);
            letters++;
        }
    }
    int32_t span = rank < 0 ? *ell : rank - letters;
    if (rank >= 0 && (dots ? span < 0 : letters != rank))
        return fail(e, "einsum: '%s': a term's subscripts do not match its operand's %d dimensions",
                    subs, (int)rank);
    if (!dots) span = 0;
    if (letters + span > LOOM_MAX_DIMS)
        return fail(e, "einsum: '%s': more than %d axes", subs, LOOM_MAX_DIMS);
    if (rank >= 0 && span > *ell) *ell = span;
    *n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.') {
            for (int32_t k = span - 1; k >= 0; k--) lab[(*n)++] = EIN_ELLIPSIS + k;
            i += 2;
        } else if (s[i] != ' ') {
            lab[(*n)++] = label_of(s[i]);
        }
    }
    return true;
}

static int count_in(const int *lab, int32_t n, int l) {
    int c = 0;
    for (int32_t i = 0; i < n; i++) c += lab[i] == l;
    return c;
}

/* Whether label l is needed outside terms i and j (-1: none): in the output or another term. */
static bool needed(const einsum_t *e, int l, int32_t i, int32_t j) {
    if (count_in(e->out, e->nout, l)) return true;
    for (int32_t k = 0; k < e->nt; k++)
        if (k != i && k != j && count_in(e->t[k].lab, e->t[k].n, l)) return true;
    return false;
}

/* Sums term i over its labels that no other term (besides j) and not the output needs. */
static void sum_unneeded(einsum_t *e, int32_t i, int32_t j) {
    term_t *t = &e->t[i];
    int32_t axes[LOOM_MAX_DIMS], na = 0, keep = 0;
    int kept[LOOM_MAX_DIMS];
    for (int32_t a = 0; a < t->n; a++) {
        bool other = j >= 0 && count_in(e->t[j].lab, e->t[j].n, t->lab[a]);
        if (!other && !needed(e, t->lab[a], i, j))
            axes[na++] = a;
        else
            kept[keep++] = t->lab[a];
    }
    if (!na) return;
    t->a = loom_astype(e->ctx, loom_sum(e->ctx, t->a, na, axes, 0), e->dtype);
    t->n = keep;
    memcpy(t->lab, kept, sizeof(int) * (size_t)keep);
}

/* Repeated labels within a term: their diagonal (NumPy puts it last); their extents must be
 * equal (no broadcasting within one operand). */
static bool diagonals(einsum_t *e, term_t *t) {
    for (int32_t p = 0; p < t->n; p++)
        for (int32_t q = p + 1; q < t->n; q++)
            if (t->lab[p] == t->lab[q]) {
                int l = t->lab[p];
                int64_t ep = loom_array_dim(t->a, p), eq = loom_array_dim(t->a, q);
                if (ep != eq)
                    return fail(e,
                                "einsum: dimensions in single operand for collapsing index "
                                "don't match (%lld != %lld)",
                                (long long)ep, (long long)eq);
                t->a = loom_diagonal(e->ctx, t->a, 0, p, q);
                int32_t m = 0;
                for (int32_t k = 0; k < t->n; k++)
                    if (k != p && k != q) t->lab[m++] = t->lab[k];
                t->lab[m++] = l;
                t->n = m;
                p = -1; /* start over: labels moved */
                break;
            }
    return true;
}

/* t's axes permuted to the label order `want` (every label of t, each once). */
static loom_array_t *arrange(einsum_t *e, const term_t *t, const int *want, int32_t n) {
    int32_t perm[LOOM_MAX_DIMS];
    bool id = true;
    for (int32_t k = 0; k < n; k++) {
        for (int32_t a = 0; a < t->n; a++)
            if (t->lab[a] == want[k]) perm[k] = a;
        id = id && perm[k] == k;
    }
    return id ? t->a : loom_transpose(e->ctx, t->a, n, perm);
}

static int64_t ext(const term_t *t, int l) {
    for (int32_t a = 0; a < t->n; a++)
        if (t->lab[a] == l) return loom_array_dim(t->a, a);
    return 1;
}

/* The labels of contracting terms i and j, split: batch (both, needed later), only-i and
 * only-j (needed later), contracted (both, not needed). */
typedef struct split {
    int32_t nb, ni, nj, nc;
    int b[LOOM_MAX_DIMS], li[LOOM_MAX_DIMS], lj[LOOM_MAX_DIMS], c[LOOM_MAX_DIMS];
} split_t;

static void split_labels(const einsum_t *e, int32_t i, int32_t j, split_t *s) {
    const term_t *A = &e->t[i], *B = &e->t[j];
    s->nb = s->ni = s->nj = s->nc = 0;
    for (int32_t a = 0; a < A->n; a++) {
        int l = A->lab[a];
        if (!count_in(B->lab, B->n, l))
            s->li[s->ni++] = l;
        else if (needed(e, l, i, j))
            s->b[s->nb++] = l;
        else
            s->c[s->nc++] = l;
    }
    for (int32_t a = 0; a < B->n; a++)
        if (!count_in(A->lab, A->n, B->lab[a])) s->lj[s->nj++] = B->lab[a];
}

/* Elements of the result of contracting i and j (for the greedy order). */
static double result_size(const einsum_t *e, int32_t i, int32_t j) {
    split_t s;
    split_labels(e, i, j, &s);
    double z = 1;
    for (int32_t k = 0; k < s.nb; k++) z *= (double)e->size[s.b[k]];
    for (int32_t k = 0; k < s.ni; k++) z *= (double)e->size[s.li[k]];
    for (int32_t k = 0; k < s.nj; k++) z *= (double)e->size[s.lj[k]];
    return z;
}

/* Replaces term i by its contraction with term j, and removes term j. */
static void contract(einsum_t *e, int32_t i, int32_t j) {
    loom_ctx_t *ctx = e->ctx;
    sum_unneeded(e, i, j);
    sum_unneeded(e, j, i);
    split_t s;
    split_labels(e, i, j, &s);
    term_t *A = &e->t[i], *B = &e->t[j], r = {.n = 0};
    for (int32_t k = 0; k < s.nb; k++) r.lab[r.n++] = s.b[k];
    for (int32_t k = 0; k < s.ni; k++) r.lab[r.n++] = s.li[k];
    for (int32_t k = 0; k < s.nj; k++) r.lab[r.n++] = s.lj[k];
    int wa[LOOM_MAX_DIMS], wb[LOOM_MAX_DIMS], na = 0, nb = 0;
    for (int32_t k = 0; k < s.nb; k++) wa[na++] = wb[nb++] = s.b[k];
    for (int32_t k = 0; k < s.ni; k++) wa[na++] = s.li[k];
    if (s.nc == 0) { /* an outer product over the batch: a broadcast multiply */
        for (int32_t k = 0; k < s.nj; k++) wb[nb++] = s.lj[k];
        loom_array_t *x = arrange(e, A, wa, na), *y = arrange(e, B, wb, nb);
        int32_t ins[LOOM_MAX_DIMS], n_ins = 0;
        for (int32_t k = 0; k < s.nj; k++) ins[n_ins++] = na + k; /* x gains j's axes */
        if (n_ins) x = loom_expand_dims(ctx, x, n_ins, ins);
        n_ins = 0;
        for (int32_t k = 0; k < s.ni; k++) ins[n_ins++] = s.nb + k; /* y gains i's */
        if (n_ins) y = loom_expand_dims(ctx, y, n_ins, ins);
        r.a = loom_astype(ctx, loom_multiply(ctx, x, y), e->dtype);
    } else { /* batch + (m, k) @ batch + (k, n), each side's batch extents its own */
        for (int32_t k = 0; k < s.nc; k++) wa[na++] = wb[nb++] = s.c[k];
        for (int32_t k = 0; k < s.nj; k++) wb[nb++] = s.lj[k];
        int64_t sa[LOOM_MAX_DIMS], sb[LOOM_MAX_DIMS], m = 1, n = 1, kk = 1;
        for (int32_t k = 0; k < s.nb; k++) sa[k] = ext(A, s.b[k]), sb[k] = ext(B, s.b[k]);
        for (int32_t k = 0; k < s.ni; k++) m *= ext(A, s.li[k]);
        for (int32_t k = 0; k < s.nj; k++) n *= ext(B, s.lj[k]);
        for (int32_t k = 0; k < s.nc; k++) kk *= e->size[s.c[k]];
        loom_array_t *x = arrange(e, A, wa, na), *y = arrange(e, B, wb, nb);
        /* a contracted label of extent 1 on one side broadcasts */
        int64_t full[LOOM_MAX_DIMS];
        bool bx = false, by = false;
        for (int32_t k = 0; k < na; k++) full[k] = loom_array_dim(x, k);
        for (int32_t k = 0; k < s.nc; k++)
            if (full[s.nb + s.ni + k] != e->size[s.c[k]])
                full[s.nb + s.ni + k] = e->size[s.c[k]], bx = true;
        if (bx) x = loom_broadcast_to(ctx, x, na, full);
        for (int32_t k = 0; k < nb; k++) full[k] = loom_array_dim(y, k);
        for (int32_t k = 0; k < s.nc; k++)
            if (full[s.nb + k] != e->size[s.c[k]]) full[s.nb + k] = e->size[s.c[k]], by = true;
        if (by) y = loom_broadcast_to(ctx, y, nb, full);
        sa[s.nb] = m, sa[s.nb + 1] = kk;
        sb[s.nb] = kk, sb[s.nb + 1] = n;
        loom_array_t *p = loom_matmul(ctx, loom_reshape(ctx, x, s.nb + 2, sa),
                                      loom_reshape(ctx, y, s.nb + 2, sb));
        int64_t rs[LOOM_MAX_DIMS];
        for (int32_t k = 0; k < s.nb; k++) rs[k] = loom_array_dim(p, k);
        for (int32_t k = 0; k < s.ni; k++) rs[s.nb + k] = ext(A, s.li[k]);
        for (int32_t k = 0; k < s.nj; k++) rs[s.nb + s.ni + k] = ext(B, s.lj[k]);
        r.a = loom_astype(ctx, loom_reshape(ctx, p, r.n, rs), e->dtype);
    }
    e->t[i] = r;
    for (int32_t k = j; k + 1 < e->nt; k++) e->t[k] = e->t[k + 1];
    e->nt--;
}

LOOM_API loom_array_t *loom_einsum(loom_ctx_t *ctx, const char *subscripts, int32_t n,
                                   loom_array_t *const *operands, int optimize) {
    if (!ctx) return NULL;
    if (!subscripts || n < 1 || n > EIN_MAX_OPS || !operands) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "einsum: subscripts and 1 to %d operands are required (%d given)", EIN_MAX_OPS,
                 (int)n);
        return &ctx->nil;
    }
    for (int32_t i = 0; i < n; i++)
        if (!fe_check_arg(ctx, "einsum", operands[i])) return &ctx->nil;
    einsum_t e = {.ctx = ctx, .nt = n};
    int d = fe_result_type(ctx, "einsum", n, operands);
    if (d < 0) return &ctx->nil;
    e.dtype = (loom_dtype_t)d;
    /* terms, split at ',' up to "->" */
    const char *arrow = strstr(subscripts, "->"),
               *end = arrow ? arrow : subscripts + strlen(subscripts);
    const char *p = subscripts;
    int32_t ell = 0;
    for (int32_t i = 0; i < n; i++) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        if ((i < n - 1) != (c != NULL))
            return fail(&e, "einsum: '%s': the subscripts name %d operands", subscripts,
                        (int)(1 +
                              (int)(memchr(subscripts, ',', (size_t)(end - subscripts)) != NULL))),
                   &ctx->nil;
        const char *te = c ? c : end;
        e.t[i].a = loom_astype(ctx, operands[i], e.dtype);
        if (!parse_term(&e, subscripts, p, (size_t)(te - p), loom_array_ndim(operands[i]), &ell,
                        &e.t[i].n, e.t[i].lab))
            return &ctx->nil;
        p = te + 1;
    }
    for (int l = 0; l < EIN_LABELS; l++) e.size[l] = 1;
    for (int32_t i = 0; i < n; i++)
        for (int32_t a = 0; a < e.t[i].n; a++) {
            int l = e.t[i].lab[a];
            int64_t x = loom_array_dim(operands[i], a);
            if (x != 1 && e.size[l] != 1 && e.size[l] != x)
                return fail(&e, "einsum: '%s': a subscript's axes differ in extent (%d)",
                            subscripts, (int)x),
                       &ctx->nil;
            if (x != 1) e.size[l] = x;
        }
    if (arrow) {
        if (!parse_term(&e, subscripts, arrow + 2, strlen(arrow + 2), -1, &ell, &e.nout, e.out))
            return &ctx->nil;
        for (int32_t k = 0; k < e.nout; k++) {
            bool seen = false;
            for (int32_t i = 0; i < n && !seen; i++)
                seen = count_in(e.t[i].lab, e.t[i].n, e.out[k]);
            if (count_in(e.out, e.nout, e.out[k]) > 1 || !seen)
                return fail(&e, "einsum: '%s': output subscript %d appears twice or in no operand",
                            subscripts, (int)k),
                       &ctx->nil;
        }
    } else { /* implicit: the ellipsis axes, then the labels seen once, in ASCII order */
        e.nout = 0;
        for (int32_t k = ell - 1; k >= 0; k--) e.out[e.nout++] = EIN_ELLIPSIS + k;
        for (int l = 0; l < 52; l++) {
            int c = 0;
            for (int32_t i = 0; i < n; i++) c += count_in(e.t[i].lab, e.t[i].n, l);
            if (c == 1) {
                if (e.nout == LOOM_MAX_DIMS)
                    return fail(&e, "einsum: '%s': more than %d axes", subscripts, LOOM_MAX_DIMS),
                           &ctx->nil;
                e.out[e.nout++] = l;
            }
        }
    }
    for (int32_t i = 0; i < e.nt; i++)
        if (!diagonals(&e, &e.t[i])) return &ctx->nil;
    while (e.nt > 1) {
        int32_t bi = 0, bj = 1;
        if (optimize) {
            double best = -1;
            for (int32_t i = 0; i < e.nt; i++)
                for (int32_t j = i + 1; j < e.nt; j++) {
                    double z = result_size(&e, i, j);
                    if (best < 0 || z < best) best = z, bi = i, bj = j;
                }
        }
        contract(&e, bi, bj);
        if (ctx->err.status) return &ctx->nil;
    }
    sum_unneeded(&e, 0, -1);
    term_t *t = &e.t[0];
    loom_array_t *r = arrange(&e, t, e.out, e.nout);
    /* ellipsis axes of extent 1 here that another operand had longer */
    int64_t full[LOOM_MAX_DIMS];
    bool grow = false;
    for (int32_t k = 0; k < e.nout; k++) {
        full[k] = e.size[e.out[k]];
        grow = grow || loom_array_dim(r, k) != full[k];
    }
    if (grow) r = loom_broadcast_to(ctx, r, e.nout, full);
    return ctx->err.status ? &ctx->nil : r;
}
