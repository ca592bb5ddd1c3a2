/* eval.c — the eval driver. Straight-line passes with the verifier between them:
 *
 *   roots ──► lower (DAG → flat IR, CSE on emit) ──► fold ──► verify ──┬─► CPU: ir_interp
 *                                                                      └─► CUDA: en_eval
 *        ──► realise each root in place (buffer in, operands dropped)
 *
 * en_eval (src/engine) does the device's work: uploads (transfer.c), the plan cache and the
 * step runner (run.c), fusion into kernels (schedule.c), code generation (src/codegen) and
 * compiles (src/runtime/nvrtc.c). Everything per-eval lives in one arena freed at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "fe.h"

void fe_realise(loom_ctx_t *ctx, loom_array_t *a, fe_buffer_t *buf) {
    (void)ctx;
    for (int i = 0; i < 3; i++) {
        loom_array_release(a->src[i]);
        a->src[i] = NULL;
    }
    fe_buffer_release(ctx, a->buf);
    a->buf = buf;
    a->op = IR_OP_INPUT;
    a->flags |= FE_REALISED; /* a weak scalar stays weak: evaluating changes no promotion */
    a->offset = 0;
    int64_t s = 1;
    for (int ax = a->ndim - 1; ax >= 0; ax--) {
        a->strides[ax] = s;
        s *= a->shape[ax] ? a->shape[ax] : 1;
    }
    memset(&a->p, 0, sizeof a->p);
}

/* ---- transfer statistics of one API call (eval, read) ----
 * begin notes the counters; end stores the difference as the stats' last_eval_* fields and
 * logs it (INFO) under `what`. */
typedef struct transfer_mark {
    uint64_t h2d_copies, h2d_bytes, d2h_copies, d2h_bytes;
} transfer_mark_t;

static void transfer_begin(loom_ctx_t *ctx, transfer_mark_t *m) {
    memset(m, 0, sizeof *m);
#if LOOM_HAVE_CUDA
    if (!ctx->rt || ctx->device != LOOM_DEVICE_CUDA) return;
    rt_stats_t r;
    rt_device_stats(ctx->rt, &r);
    *m = (transfer_mark_t){r.h2d_copies, r.h2d_bytes, r.d2h_copies, r.d2h_bytes};
#else
    (void)ctx;
#endif
}

static void transfer_end(loom_ctx_t *ctx, const transfer_mark_t *m, const char *what) {
    transfer_mark_t now;
    transfer_begin(ctx, &now);
    loom_stats_t *s = &ctx->stats;
    s->last_eval_h2d_copies = now.h2d_copies - m->h2d_copies;
    s->last_eval_h2d_bytes = now.h2d_bytes - m->h2d_bytes;
    s->last_eval_d2h_copies = now.d2h_copies - m->d2h_copies;
    s->last_eval_d2h_bytes = now.d2h_bytes - m->d2h_bytes;
    base_log(&ctx->log, LOOM_LOG_INFO,
             "%s: h2d %llu copies %llu bytes, d2h %llu copies %llu bytes (total h2d %llu / %llu, "
             "d2h %llu / %llu)",
             what, (unsigned long long)s->last_eval_h2d_copies,
             (unsigned long long)s->last_eval_h2d_bytes,
             (unsigned long long)s->last_eval_d2h_copies,
             (unsigned long long)s->last_eval_d2h_bytes, (unsigned long long)now.h2d_copies,
             (unsigned long long)now.h2d_bytes, (unsigned long long)now.d2h_copies,
             (unsigned long long)now.d2h_bytes);
}

#if LOOM_HAVE_CUDA
/* The CUDA device's eval: the engine runs g; its results become buffers (bufs[i], refcount 1,
 * or shared with an earlier result that is the same node). */
static void cuda_eval(loom_ctx_t *ctx, ir_graph_t *g, fe_buffer_t **bufs) {
    en_mem_t *res = base_arena_alloc(g->arena, g->n_outputs + 1, sizeof *res);
    uint32_t *same_as = base_arena_alloc(g->arena, g->n_outputs + 1, sizeof *same_as);
    if (!res || !same_as) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory");
        return;
    }
    if (en_eval(ctx->engine, g, res, same_as) != LOOM_STATUS_OK) return;
    for (uint32_t q = 0; q < g->n_outputs; q++) {
        if (same_as[q] != q) {
            bufs[q] = bufs[same_as[q]];
            if (bufs[q]) bufs[q]->refcount++;
            continue;
        }
        if (!res[q].dev) continue; /* the compile-only device computes nothing */
        fe_buffer_t *b = ctx->err.status ? NULL : fe_buffer_new(ctx);
        if (!b) {
            if (!ctx->err.status) fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory");
            en_mem_drop(ctx->engine, &res[q]);
            continue;
        }
        b->refcount = 1;
        b->m = res[q];
        bufs[q] = b;
    }
}
#endif

/* Lowering memo: an array lowered in the current lowering carries its epoch and IR index. */
static bool lowered(const loom_array_t *a, uint64_t epoch) { return a->lowered == epoch; }

/* Emits the IR node of a whose operands are already lowered. */
static uint32_t lower_one(ir_graph_t *g, const loom_array_t *a) {
    ir_node_t n;
    n.op = a->op;
    n.dtype = a->dtype;
    n.ndim = a->ndim;
    memcpy(n.shape, a->shape, sizeof n.shape);
    memset(n.src, 0, sizeof n.src);
    n.p = a->p;
    n.input = -1;
    n.hash = 0;
    if (a->flags & FE_REALISED) {
        ir_input_t in;
        in.owner = &a->buf->m;
        in.host = a->buf->m.on_device ? NULL : a->buf->m.host;
        in.dev = a->buf->m.on_device ? a->buf->m.dev : 0;
        memcpy(in.strides, a->strides, sizeof in.strides);
        in.offset = a->offset;
        uint32_t k = ir_add_input(g, &in);
        if (k == UINT32_MAX) return UINT32_MAX;
        n.op = IR_OP_INPUT;
        n.input = (int32_t)k;
        return ir_emit(g, &n);
    }
    for (int s = 0; s < ir_ops[a->op].arity; s++) n.src[s] = a->src[s]->lowered_idx;
    if (n.op == IR_OP_CAST && g->nodes[n.src[0]].dtype == n.dtype) return n.src[0];
    return ir_emit(g, &n);
}

/* Lowers the DAG under the roots to g, operands first (iterative: graphs can be deep). */
static bool lower(loom_ctx_t *ctx, ir_graph_t *g, int32_t n, loom_array_t *const *roots) {
    uint64_t epoch = ++ctx->lower_epoch;
    /* room for twice the latest lowering's nodes (a loop evaluates graphs of one size), never
     * more than the live arrays: reserving for every live array zeroed a CSE table of their
     * size per eval (64-128 KB for a small graph in a context whose recycled scope holds
     * thousands) */
    uint64_t est = 2 * (uint64_t)ctx->lowered_last;
    if (est > ctx->n_live_nodes) est = ctx->n_live_nodes;
    if (est > 65536) est = 65536;
    if (!ir_graph_reserve(g, (uint32_t)est)) return false;
    uint32_t cap = 256, sp = 0;
    loom_array_t **stack = malloc(cap * sizeof *stack);
    if (!stack) goto oom;
    for (int32_t r = 0; r < n; r++) {
        stack[sp++] = roots[r];
        while (sp) {
            loom_array_t *a = stack[sp - 1];
            if (lowered(a, epoch)) {
                sp--;
                continue;
            }
            bool ready = true;
            if (!(a->flags & FE_REALISED))
                for (int s = ir_ops[a->op].arity - 1; s >= 0; s--) { /* first operand first */
                    loom_array_t *o = a->src[s];
                    if (lowered(o, epoch)) continue;
                    ready = false;
                    if (sp == cap) {
                        loom_array_t **ns = realloc(stack, 2 * cap * sizeof *stack);
                        if (!ns) {
                            free(stack);
                            goto oom;
                        }
                        stack = ns;
                        cap *= 2;
                    }
                    stack[sp++] = o;
                }
            if (!ready) continue;
            sp--;
            uint32_t idx = lower_one(g, a);
            if (idx == UINT32_MAX) {
                free(stack);
                return false;
            }
            a->lowered = epoch;
            a->lowered_idx = idx;
        }
        if (!ir_add_output(g, roots[r]->lowered_idx)) {
            free(stack);
            return false;
        }
    }
    free(stack);
    ctx->lowered_last = g->n_nodes;
    return true;
oom:
    fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory lowering the graph");
    return false;
}

static bool verify(loom_ctx_t *ctx, const ir_graph_t *g) {
#ifdef NDEBUG
    (void)ctx;
    (void)g;
    return true;
#else
    return ir_verify(g) || (fe_error(ctx, ctx->err.status, "%s", ctx->err.message), false);
#endif
}

/* Collects the distinct unrealised roots; checks every argument. */
static int32_t pending_roots(loom_ctx_t *ctx, const char *fn, int32_t n,
                             loom_array_t *const *arrays, loom_array_t **out) {
    int32_t k = 0;
    bool bad = false;
    for (int32_t i = 0; i < n && !bad; i++) {
        loom_array_t *a = arrays[i];
        if (!fe_check_arg(ctx, fn, a)) {
            if (a && (a->flags & FE_NIL) && !ctx->err.status)
                fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: array %d is nil", fn, i);
            bad = true;
            break;
        }
        if (a->flags & (FE_REALISED | FE_MARK)) continue; /* done, or listed already */
        a->flags |= FE_MARK;
        out[k++] = a;
    }
    for (int32_t j = 0; j < k; j++) out[j]->flags &= (uint8_t)~FE_MARK;
    return bad ? -1 : k;
}

/* LOOM_DUMP / options.dump_dir: the evaluated graph as text and as Graphviz DOT. */
static void dump_graph(loom_ctx_t *ctx, const ir_graph_t *g) {
    if (!ctx->dump_dir) return;
    mkdir(ctx->dump_dir, 0700);
    for (int dot = 0; dot < 2; dot++) {
        base_str_t s;
        base_str_init(&s, &ctx->al);
        if (dot)
            ir_print_dot(g, &s);
        else
            ir_print(g, &s);
        char name[32];
        snprintf(name, sizeof name, "graph_%06llu", (unsigned long long)ctx->stats.evals + 1);
        if (!s.failed)
            base_file_dump(&ctx->al, &ctx->log, ctx->dump_dir, name, dot ? "dot" : "txt",
                           base_str_get(&s), s.len);
        base_str_fini(&s);
    }
}

static bool build_graph(loom_ctx_t *ctx, ir_graph_t *g, int32_t k, loom_array_t **roots) {
    return lower(ctx, g, k, roots) && verify(ctx, g) && (ir_fold(g), verify(ctx, g));
}

/* The device's work on g: the buffers of its outputs into bufs (NULL where the compile-only
 * device computes nothing); host: room for as many pointers (the CPU device's results). */
static void device_eval(loom_ctx_t *ctx, ir_graph_t *g, void **host, fe_buffer_t **bufs) {
    if (ctx->device == LOOM_DEVICE_CPU) {
        if (ir_interp(g, &ctx->al, host) == LOOM_STATUS_OK) {
            for (uint32_t i = 0; i < g->n_outputs; i++) {
                bufs[i] = fe_buffer_new(ctx);
                if (!bufs[i]) {
                    fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_eval: out of memory");
                    break;
                }
                bufs[i]->refcount = 1;
                bufs[i]->m.host = host[i];
                bufs[i]->m.bytes = (size_t)ir_node_size(&g->nodes[g->outputs[i]]) *
                                   ir_dtypes[g->nodes[g->outputs[i]].dtype].size;
                host[i] = NULL;
            }
        }
        for (uint32_t i = 0; i < g->n_outputs; i++) base_free(&ctx->al, host[i]);
    } else {
#if LOOM_HAVE_CUDA
        cuda_eval(ctx, g, bufs);
#else
        fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE, "loom_eval: no CUDA in this build");
#endif
    }
}

/* ---- Replays of a prepared program's evaluated run ----
 * loom_program_eval keeps its last run's lowered graph when the graph depends on the bound
 * arrays only through their buffers: the run evaluated and read nothing (a count read back
 * or a 0-d mask's value would be baked into the graph), every bound array realised (a lazy
 * one's graph would be inlined) and not a weak scalar (whose Python value the builders
 * read), no two distinct ones sharing a buffer, every graph input one of them as bound (its
 * strides and offset), and every item a pending root or a bound array given back as it is.
 * A later run whose names and arrays match (the same names in order; each array realised,
 * not weak, of the recorded dtype, shape, strides and offset; the same arrays bound to
 * several names) then copies the graph, points its inputs at the new arrays' buffers and
 * evaluates it: the statements, their builders and the lowering are skipped, and the results
 * are what they would have computed. An error of the eval (a value-dependent one: an index
 * out of range, a negative integer power) is the same status and message; the items are then
 * nil, where a run leaves its lazy arrays. */
typedef struct replay_key {
    uint8_t dtype, ndim;
    int32_t alias; /* the first name bound to the same array */
    int64_t shape[LOOM_MAX_DIMS], strides[LOOM_MAX_DIMS], offset;
} replay_key_t;

struct fe_replay {
    base_arena_t arena;
    int32_t n_bound, n_items, is_tuple;
    char **names;
    replay_key_t *keys;
    ir_node_t *nodes;
    ir_input_t *inputs;
    int32_t *input_of; /* the bound array of each graph input */
    uint32_t *outputs;
    uint32_t n_nodes, n_inputs, n_outputs;
    int32_t *item; /* >= 0: that output; < 0: bound array -1 - item as it is */
};

void fe_replay_free(loom_ctx_t *ctx, fe_replay_t *r) {
    if (!r) return;
    base_arena_fini(&r->arena);
    base_free(&ctx->al, r);
}

static int32_t first_alias(int32_t j, loom_array_t *const *bound) {
    int32_t a = 0;
    while (bound[a] != bound[j]) a++;
    return a;
}

/* Whether bound[0..n) can be keyed: realised arrays, not weak (the builders read a weak
 * scalar's Python value, not its buffer: into constants, overflow checks, sqrt for ** 0.5),
 * no two distinct ones on one buffer. */
static bool keyable(int32_t n, loom_array_t *const *bound) {
    for (int32_t j = 0; j < n; j++) {
        const loom_array_t *b = bound[j];
        if (!b || (b->flags & (FE_NIL | FE_REALISED | FE_WEAK)) != FE_REALISED || b->refcount <= 0)
            return false;
        for (int32_t i = 0; i < j; i++)
            if (bound[i] != b && bound[i]->buf == b->buf) return false;
    }
    return true;
}

static void key_of(replay_key_t *k, int32_t j, loom_array_t *const *bound) {
    const loom_array_t *b = bound[j];
    memset(k, 0, sizeof *k);
    k->dtype = b->dtype;
    k->ndim = b->ndim;
    k->alias = first_alias(j, bound);
    for (int ax = 0; ax < b->ndim; ax++)
        k->shape[ax] = b->shape[ax], k->strides[ax] = b->strides[ax];
    k->offset = b->offset;
}

static fe_replay_t *record(loom_ctx_t *ctx, const ir_graph_t *g, int32_t k,
                           loom_array_t *const *roots, const fe_record_t *rec) {
    if (ctx->device == LOOM_DEVICE_NVRTC || !keyable(rec->n_bound, rec->bound)) return NULL;
    for (int32_t q = 0; q < k; q++)
        if (roots[q]->flags & FE_WEAK) return NULL; /* (a fresh result would not be weak) */
    fe_replay_t *r = base_calloc(&ctx->al, 1, sizeof *r);
    if (!r) return NULL;
    base_arena_init(&r->arena, &ctx->al);
    base_arena_t *ar = &r->arena;
    r->n_bound = rec->n_bound;
    r->n_items = rec->n_items;
    r->is_tuple = rec->is_tuple;
    r->n_nodes = g->n_nodes;
    r->n_inputs = g->n_inputs;
    r->n_outputs = g->n_outputs;
    r->names = base_arena_alloc(ar, (size_t)rec->n_bound + 1, sizeof *r->names);
    r->keys = base_arena_alloc(ar, (size_t)rec->n_bound + 1, sizeof *r->keys);
    r->nodes = base_arena_alloc_raw(ar, (size_t)g->n_nodes + 1, sizeof *r->nodes);
    r->inputs = base_arena_alloc_raw(ar, (size_t)g->n_inputs + 1, sizeof *r->inputs);
    r->input_of = base_arena_alloc_raw(ar, (size_t)g->n_inputs + 1, sizeof *r->input_of);
    r->outputs = base_arena_alloc_raw(ar, (size_t)g->n_outputs + 1, sizeof *r->outputs);
    r->item = base_arena_alloc_raw(ar, (size_t)rec->n_items + 1, sizeof *r->item);
    bool ok = r->names && r->keys && r->nodes && r->inputs && r->input_of && r->outputs && r->item;
    for (int32_t j = 0; ok && j < rec->n_bound; j++) {
        size_t len = strlen(rec->names[j]) + 1;
        ok = (r->names[j] = base_arena_alloc_raw(ar, len, 1)) != NULL;
        if (ok) memcpy(r->names[j], rec->names[j], len);
        key_of(&r->keys[j], j, rec->bound);
    }
    for (uint32_t i = 0; ok && i < g->n_inputs; i++) { /* which bound array, as bound */
        const ir_input_t *in = &g->inputs[i];
        r->input_of[i] = -1;
        for (int32_t j = 0; j < rec->n_bound && r->input_of[i] < 0; j++) {
            const loom_array_t *b = rec->bound[j];
            if (in->owner == &b->buf->m && in->offset == b->offset &&
                !memcmp(in->strides, b->strides, sizeof(int64_t) * b->ndim))
                r->input_of[i] = j;
        }
        ok = r->input_of[i] >= 0;
        r->inputs[i] = *in;
    }
    for (int32_t t = 0; ok && t < rec->n_items; t++) { /* a root, or a bound array */
        r->item[t] = INT32_MIN;
        for (int32_t q = 0; q < k; q++)
            if (rec->items[t] == roots[q]) r->item[t] = q;
        for (int32_t j = 0; j < rec->n_bound && r->item[t] == INT32_MIN; j++)
            if (rec->items[t] == rec->bound[j]) r->item[t] = -1 - j;
        ok = r->item[t] != INT32_MIN;
    }
    if (!ok) {
        fe_replay_free(ctx, r);
        return NULL;
    }
    memcpy(r->nodes, g->nodes, g->n_nodes * sizeof *r->nodes);
    memcpy(r->outputs, g->outputs, g->n_outputs * sizeof *r->outputs);
    return r;
}

static bool replay_matches(loom_ctx_t *ctx, const fe_replay_t *r, int32_t n_bound,
                           const char *const *names, loom_array_t *const *bound) {
    if (n_bound != r->n_bound || (n_bound && (!names || !bound)) || !keyable(n_bound, bound))
        return false;
    for (int32_t j = 0; j < n_bound; j++) {
        if (bound[j]->ctx != ctx || !names[j]) return false;
        replay_key_t k;
        key_of(&k, j, bound);
        if (strcmp(names[j], r->names[j]) || memcmp(&k, &r->keys[j], sizeof k)) return false;
    }
    return true;
}

bool fe_replay(loom_ctx_t *ctx, const fe_replay_t *r, int32_t n_bound, const char *const *names,
               loom_array_t *const *bound, int32_t cap, loom_array_t **outs, int32_t *n_items,
               int *is_tuple) {
    if (!r || ctx->err.status || cap < r->n_items || !outs || !n_items ||
        !replay_matches(ctx, r, n_bound, names, bound))
        return false;
    for (int32_t t = 0; t < cap; t++) outs[t] = &ctx->nil; /* (as a run leaves them) */
    transfer_mark_t xfer;
    transfer_begin(ctx, &xfer);
    base_arena_t arena;
    base_arena_init(&arena, &ctx->al);
    ir_graph_t g;
    ir_graph_init(&g, &arena, &ctx->err);
    g.nodes = base_arena_alloc_raw(&arena, (size_t)r->n_nodes + 1, sizeof *g.nodes);
    g.inputs = base_arena_alloc_raw(&arena, (size_t)r->n_inputs + 1, sizeof *g.inputs);
    g.outputs = base_arena_alloc_raw(&arena, (size_t)r->n_outputs + 1, sizeof *g.outputs);
    void **host = base_arena_alloc(&arena, (size_t)r->n_outputs + 1, sizeof *host);
    fe_buffer_t **bufs = base_arena_alloc(&arena, (size_t)r->n_outputs + 1, sizeof *bufs);
    loom_array_t **res = base_arena_alloc(&arena, (size_t)r->n_outputs + 1, sizeof *res);
    if (!g.nodes || !g.inputs || !g.outputs || !host || !bufs || !res) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_program_eval: out of memory");
    } else {
        memcpy(g.nodes, r->nodes, r->n_nodes * sizeof *g.nodes);
        memcpy(g.outputs, r->outputs, r->n_outputs * sizeof *g.outputs);
        g.n_nodes = g.cap_nodes = r->n_nodes;
        g.n_outputs = g.cap_outputs = r->n_outputs;
        g.n_inputs = g.cap_inputs = r->n_inputs;
        for (uint32_t i = 0; i < r->n_inputs; i++) { /* as lower_one makes them */
            const fe_buffer_t *b = bound[r->input_of[i]]->buf;
            g.inputs[i] = r->inputs[i];
            g.inputs[i].owner = (void *)&b->m;
            g.inputs[i].host = b->m.on_device ? NULL : b->m.host;
            g.inputs[i].dev = b->m.on_device ? b->m.dev : 0;
        }
        if (ir_graph_reserve(&g, g.n_nodes)) { /* (the CSE table, for graphs of 64 and more) */
            dump_graph(ctx, &g);
            device_eval(ctx, &g, host, bufs);
        }
        for (uint32_t q = 0; q < r->n_outputs && !ctx->err.status; q++) {
            const ir_node_t *n = &g.nodes[g.outputs[q]];
            if (!bufs[q]) {
                fe_error(ctx, LOOM_STATUS_INTERNAL, "loom_program_eval: result %u not computed",
                         (unsigned)q);
                break;
            }
            res[q] = fe_node_new(ctx, IR_OP_INPUT, (loom_dtype_t)n->dtype, n->ndim, n->shape);
            if (!(res[q]->flags & FE_NIL)) {
                fe_realise(ctx, res[q], bufs[q]);
                bufs[q] = NULL;
            }
        }
        for (uint32_t q = 0; q < r->n_outputs; q++) fe_buffer_release(ctx, bufs[q]);
        if (!ctx->err.status) ctx->stats.evals++;
    }
    for (int32_t t = 0; t < r->n_items; t++)
        outs[t] = ctx->err.status   ? &ctx->nil
                  : r->item[t] >= 0 ? res[r->item[t]]
                                    : fe_scope_adopt(ctx, bound[-1 - r->item[t]]);
    *n_items = ctx->err.status ? 0 : r->n_items;
    if (is_tuple) *is_tuple = ctx->err.status ? 0 : r->is_tuple;
    base_log(&ctx->log, LOOM_LOG_DEBUG, "eval of a prepared program replayed (%u IR nodes)",
             r->n_nodes);
    base_arena_fini(&arena);
    transfer_end(ctx, &xfer, "eval");
    return true;
}

static loom_status_t eval(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays,
                          const fe_record_t *rec);

LOOM_API loom_status_t loom_eval(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays) {
    return eval(ctx, n, arrays, NULL);
}

loom_status_t fe_eval_record(loom_ctx_t *ctx, const fe_record_t *rec) {
    return eval(ctx, rec->n_items, rec->items, rec);
}

static loom_status_t eval(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays,
                          const fe_record_t *rec) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (ctx->err.status) return ctx->err.status;
    ctx->eval_calls++;
    if (n < 0 || (n > 0 && !arrays))
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "loom_eval: %d arrays at %p", n,
                        (const void *)arrays);
    if (n == 0) return LOOM_STATUS_OK;
    loom_array_t **roots = base_malloc(&ctx->al, (size_t)n, sizeof *roots);
    if (!roots) return fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_eval: out of memory");
    int32_t k = pending_roots(ctx, "loom_eval", n, arrays, roots);
    if (k <= 0) {
        base_free(&ctx->al, roots);
        return ctx->err.status;
    }
    for (int32_t i = 0; i < k; i++) loom_array_retain(roots[i]); /* alive through realising */
    transfer_mark_t xfer;
    transfer_begin(ctx, &xfer);
    double t0 = base_now_ms();
    base_arena_t arena;
    base_arena_init(&arena, &ctx->al);
    ir_graph_t g;
    ir_graph_init(&g, &arena, &ctx->err);
    void **host = base_calloc(&ctx->al, (size_t)k, sizeof *host);
    fe_buffer_t **bufs = base_calloc(&ctx->al, (size_t)k, sizeof *bufs);
    if (!host || !bufs) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_eval: out of memory");
    } else if (build_graph(ctx, &g, k, roots)) {
        if (rec) *rec->keep = record(ctx, &g, k, roots, rec);
        dump_graph(ctx, &g);
        device_eval(ctx, &g, host, bufs);
        if (!ctx->err.status) {
            for (int32_t i = 0; i < k; i++)
                if (bufs[i]) {
                    fe_realise(ctx, roots[i], bufs[i]);
                    bufs[i] = NULL;
                }
            ctx->stats.evals++;
        }
    }
    if (bufs)
        for (int32_t i = 0; i < k; i++) fe_buffer_release(ctx, bufs[i]);
    base_free(&ctx->al, bufs);
    base_free(&ctx->al, host);
    for (int32_t i = 0; i < k; i++) loom_array_release(roots[i]);
    base_free(&ctx->al, roots);
    base_log(&ctx->log, LOOM_LOG_DEBUG, "eval of %d arrays (%u IR nodes): %.3f ms", k, g.n_nodes,
             base_now_ms() - t0);
    base_arena_fini(&arena);
    transfer_end(ctx, &xfer, "eval");
    return ctx->err.status;
}

/* Whether a's elements lie in C order one after the other from its offset on (as eval's
 * results do; wrapped and imported memory may not). */
static bool dense(const loom_array_t *a) {
    if (fe_size(a) == 0) return true;
    int64_t s = 1;
    for (int ax = a->ndim - 1; ax >= 0; ax--) {
        if (a->shape[ax] != 1 && a->strides[ax] != s) return false;
        s *= a->shape[ax];
    }
    return true;
}

/* " array i:" naming loom_read_many's array i in a message, "" for loom_read (i = -1). */
static const char *which_array(char *buf, size_t cap, int32_t i) {
    if (i < 0) return "";
    snprintf(buf, cap, " array %d:", i);
    return buf;
}

/* Checks that a can be read into a buffer of dst_bytes at dst (i: its index for
 * loom_read_many, -1 for loom_read); false with the error recorded. Messages are formatted
 * only on failure: loom_read_many checks every array of a batch. */
static bool check_read(loom_ctx_t *ctx, const char *fn, int32_t i, loom_array_t *a,
                       const void *dst, size_t dst_bytes) {
    char which[32];
    if (!fe_check_arg(ctx, fn, a)) {
        if (!ctx->err.status)
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s:%s array is nil", fn,
                     which_array(which, sizeof which, i));
        return false;
    }
    size_t need = loom_array_nbytes(a);
    if (dst_bytes < need) {
        char s[200];
        fe_format_shape(s, sizeof s, a->ndim, a->shape);
        fe_error(ctx, LOOM_STATUS_BUFFER_TOO_SMALL, "%s:%s %zu bytes needed for %s %s, buffer has %zu",
                 fn, which_array(which, sizeof which, i), need, ir_dtypes[a->dtype].name, s,
                 dst_bytes);
        return false;
    }
    if (need && !dst) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s:%s dst is NULL", fn,
                 which_array(which, sizeof which, i));
        return false;
    }
    return true;
}

/* Copies n evaluated arrays out: device ones in one batch of downloads (a strided one through
 * a copy loom computes first, as a gather on the device), host ones directly. */
static loom_status_t read_out(loom_ctx_t *ctx, const char *fn, int32_t n,
                              loom_array_t *const *arrays, void *const *dsts) {
    if (ctx->device == LOOM_DEVICE_NVRTC)
        return fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE,
                        "%s: the compile-only device (nvrtc) computes no values", fn);
#if LOOM_HAVE_CUDA
    /* the copies wait for the device: the raises of the kernels before them are read first */
    if (ctx->engine && en_check(ctx->engine)) return ctx->err.status;
    void **dd = base_malloc(&ctx->al, (size_t)n, sizeof *dd);
    uint64_t *src = base_malloc(&ctx->al, (size_t)n, sizeof *src);
    size_t *len = base_malloc(&ctx->al, (size_t)n, sizeof *len);
    uint32_t n_dev = 0;
    bool scoped = false; /* a scope for the copies of strided device arrays, when there are */
    if (!dd || !src || !len) fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
#endif
    for (int32_t i = 0; i < n && !ctx->err.status; i++) {
        loom_array_t *a = arrays[i];
        size_t need = loom_array_nbytes(a);
        if (need == 0) continue;
        bool contig = dense(a);
#if LOOM_HAVE_CUDA
        if (a->buf->m.on_device && !contig) {
            if (!scoped) loom_scope_begin(ctx);
            scoped = true;
            a = loom_astype(ctx, a, (loom_dtype_t)a->dtype);
            if (loom_eval(ctx, 1, &a) != LOOM_STATUS_OK) break;
            contig = dense(a);
        }
        if (a->buf->m.on_device && en_mem_check(ctx->engine, &a->buf->m)) break;
        if (a->buf->m.on_device && contig) {
            dd[n_dev] = dsts[i];
            src[n_dev] = a->buf->m.dev + (uint64_t)a->offset * ir_dtypes[a->dtype].size;
            len[n_dev++] = need;
            continue;
        }
#endif
        if (a->buf->m.on_device)
            fe_error(ctx, LOOM_STATUS_INTERNAL, "%s: a strided device array's copy is strided", fn);
        else if (contig)
            memcpy(dsts[i],
                   (const char *)a->buf->m.host + a->offset * (int64_t)ir_dtypes[a->dtype].size,
                   need);
        else
            ir_copy_strided((loom_dtype_t)a->dtype, a->ndim, a->shape,
                            (const char *)a->buf->m.host +
                                a->offset * (int64_t)ir_dtypes[a->dtype].size,
                            a->strides, dsts[i]);
    }
#if LOOM_HAVE_CUDA
    if (n_dev && !ctx->err.status) rt_d2h_batch(ctx->rt, n_dev, dd, src, len);
    if (scoped) loom_scope_end(ctx);
    base_free(&ctx->al, dd);
    base_free(&ctx->al, src);
    base_free(&ctx->al, len);
#endif
    return ctx->err.status;
}

LOOM_API loom_status_t loom_read(loom_ctx_t *ctx, loom_array_t *a, void *dst, size_t dst_bytes) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (ctx->err.status) return ctx->err.status;
    if (!check_read(ctx, "loom_read", -1, a, dst, dst_bytes)) return ctx->err.status;
    transfer_mark_t xfer;
    transfer_begin(ctx, &xfer);
    if (loom_eval(ctx, 1, &a) == LOOM_STATUS_OK) read_out(ctx, "loom_read", 1, &a, &dst);
    transfer_end(ctx, &xfer, "loom_read");
    return ctx->err.status;
}

LOOM_API loom_status_t loom_read_many(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays,
                                      void *const *dsts, const size_t *dst_bytes) {
    static const char fn[] = "loom_read_many";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (ctx->err.status) return ctx->err.status;
    if (n < 0 || (n > 0 && (!arrays || !dsts || !dst_bytes)))
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: %d arrays at %p, dsts %p, dst_bytes %p", fn, n, (const void *)arrays,
                        (const void *)dsts, (const void *)dst_bytes);
    for (int32_t i = 0; i < n; i++)
        if (!check_read(ctx, fn, i, arrays[i], dsts[i], dst_bytes[i])) return ctx->err.status;
    if (n == 0) return LOOM_STATUS_OK;
    transfer_mark_t xfer;
    transfer_begin(ctx, &xfer);
    if (loom_eval(ctx, n, arrays) == LOOM_STATUS_OK) read_out(ctx, fn, n, arrays, dsts);
    transfer_end(ctx, &xfer, fn);
    return ctx->err.status;
}

LOOM_API loom_status_t loom_sync(loom_ctx_t *ctx) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
#if LOOM_HAVE_CUDA
    if (ctx->rt && ctx->device == LOOM_DEVICE_CUDA && !ctx->err.status && !rt_sync(ctx->rt))
        en_check(ctx->engine);
#endif
    return ctx->err.status;
}

LOOM_API int64_t loom_dump_ir(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays, char *buf,
                              size_t cap) {
    if (!ctx || n < 0 || (n > 0 && !arrays) || (cap > 0 && !buf)) return -1;
    loom_array_t **roots = base_malloc(&ctx->al, (size_t)(n ? n : 1), sizeof *roots);
    if (!roots) return -1;
    int64_t len = -1;
    for (int32_t i = 0; i < n; i++)
        if (!fe_check_arg(ctx, "loom_dump_ir", arrays[i])) goto out;
    for (int32_t i = 0; i < n; i++) roots[i] = arrays[i];
    base_arena_t arena;
    base_arena_init(&arena, &ctx->al);
    ir_graph_t g;
    ir_graph_init(&g, &arena, &ctx->err);
    if (build_graph(ctx, &g, n, roots)) {
        base_str_t s;
        base_str_init(&s, &ctx->al);
        ir_print(&g, &s);
        if (!s.failed) {
            len = (int64_t)s.len;
            if (cap) {
                size_t c = s.len < cap - 1 ? s.len : cap - 1;
                memcpy(buf, base_str_get(&s), c);
                buf[c] = '\0';
            }
        }
        base_str_fini(&s);
    }
    base_arena_fini(&arena);
out:
    base_free(&ctx->al, roots);
    return len;
}
