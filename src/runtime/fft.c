/* fft.c — transforms through cuFFT, loaded with dlopen into a function table as solver.c loads
 * cuSOLVER, so loom loads and runs without it. The declarations are ours, with the numeric
 * values of cufft.h.
 *
 * A job transforms the rank-r blocks of a C-contiguous (outer, n..., inner) array (complex to
 * complex, real to complex or complex to real) with one plan of rank r. cuFFT's advanced layout
 * has one batch distance, so the plan runs once (inner == 1: blocks one after another) or once
 * per slab: the blocks of one outer index at distance 1 and stride inner, or those of one inner
 * index at distance (block) * inner, whichever needs fewer executions. Plans are made without their own work area (it comes from
 * the pool on every run) and kept, the least recently used replaced, by type and layout. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"

typedef int ff_result_t; /* cufftResult; 0 = CUFFT_SUCCESS */
typedef int ff_handle_t; /* cufftHandle */
enum {
    FF_R2C = 0x2a, FF_C2R = 0x2c, FF_C2C = 0x29, FF_D2Z = 0x6a, FF_Z2D = 0x6c, FF_Z2Z = 0x69,
    FF_FORWARD = -1, FF_INVERSE = 1
};

typedef struct ff_table {
    ff_result_t (*Create)(ff_handle_t *h);
    ff_result_t (*Destroy)(ff_handle_t h);
    ff_result_t (*SetAutoAllocation)(ff_handle_t h, int on);
    ff_result_t (*MakePlanMany64)(ff_handle_t h, int rank, long long *n, long long *inembed,
                                  long long istride, long long idist, long long *onembed,
                                  long long ostride, long long odist, int type, long long batch,
                                  size_t *work);
    ff_result_t (*SetWorkArea)(ff_handle_t h, void *work);
    ff_result_t (*SetStream)(ff_handle_t h, CUstream s);
    ff_result_t (*ExecC2C)(ff_handle_t h, void *in, void *out, int direction);
    ff_result_t (*ExecZ2Z)(ff_handle_t h, void *in, void *out, int direction);
    ff_result_t (*ExecR2C)(ff_handle_t h, void *in, void *out);
    ff_result_t (*ExecC2R)(ff_handle_t h, void *in, void *out);
    ff_result_t (*ExecD2Z)(ff_handle_t h, void *in, void *out);
    ff_result_t (*ExecZ2D)(ff_handle_t h, void *in, void *out);
} ff_table_t;

#define FF_SYM(field, name)                                                                        \
    { "cufft" name, offsetof(ff_table_t, field) }
static const struct {
    const char *name;
    size_t offset;
} ff_syms[] = {
    FF_SYM(Create, "Create"),
    FF_SYM(Destroy, "Destroy"),
    FF_SYM(SetAutoAllocation, "SetAutoAllocation"),
    FF_SYM(MakePlanMany64, "MakePlanMany64"),
    FF_SYM(SetWorkArea, "SetWorkArea"),
    FF_SYM(SetStream, "SetStream"),
    FF_SYM(ExecC2C, "ExecC2C"),
    FF_SYM(ExecZ2Z, "ExecZ2Z"),
    FF_SYM(ExecR2C, "ExecR2C"),
    FF_SYM(ExecC2R, "ExecC2R"),
    FF_SYM(ExecD2Z, "ExecD2Z"),
    FF_SYM(ExecZ2D, "ExecZ2D"),
};

static const char *const ff_libs[] = {"libcufft.so.12", "libcufft.so.11", "libcufft.so"};

#define FF_PLANS 16

/* A plan's layout: type, rank and points, strides, distances, batch. */
typedef struct ff_layout {
    int type, rank;
    int64_t n[3], stride, idist, odist, batch;
} ff_layout_t;

typedef struct ff_plan {
    ff_handle_t h;
    bool used;
    ff_layout_t l;
    size_t work;
    uint64_t last; /* use counter: the least recent is replaced */
} ff_plan_t;

struct rt_fft {
    void *dl;
    const char *lib;
    ff_table_t t;
    ff_plan_t plans[FF_PLANS];
    uint64_t clock;
};

loom_status_t rt_fft_create(rt_device_t *d, rt_fft_t **out) {
    *out = NULL;
    if (d->compile_only) return rt_not_available(d, "cuFFT");
    rt_fft_t *f = base_calloc(d->al, 1, sizeof *f);
    if (!f) return base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY, "cuFFT: out of memory");
    char why[256];
    f->dl = rt_dlopen_first(ff_libs, BASE_ARRAY_LEN(ff_libs), &f->lib, why, sizeof why);
    if (!f->dl) {
        base_free(d->al, f);
        return base_error_set(d->err, LOOM_STATUS_NOT_AVAILABLE,
                              "fft on the CUDA device needs cuFFT: %s not found (%s)", ff_libs[0],
                              why[0] ? why : "unknown reason");
    }
    for (size_t i = 0; i < BASE_ARRAY_LEN(ff_syms); i++) {
        void *fn = dlsym(f->dl, ff_syms[i].name);
        if (!fn) {
            loom_status_t st = base_error_set(d->err, LOOM_STATUS_NOT_AVAILABLE,
                                              "%s has no symbol %s: cuFFT is too old or broken",
                                              f->lib, ff_syms[i].name);
            rt_fft_destroy(d, f);
            return st;
        }
        memcpy((char *)&f->t + ff_syms[i].offset, &fn, sizeof fn);
    }
    *out = f;
    return LOOM_STATUS_OK;
}

void rt_fft_destroy(rt_device_t *d, rt_fft_t *f) {
    if (!f) return;
    bool any = false;
    for (int i = 0; i < FF_PLANS; i++) any = any || f->plans[i].used;
    if (any && rt_bind(d) == LOOM_STATUS_OK) {
        rt_sync(d); /* transforms still queued use the plans */
        for (int i = 0; i < FF_PLANS; i++)
            if (f->plans[i].used) f->t.Destroy(f->plans[i].h);
    }
    if (f->dl) dlclose(f->dl);
    base_free(d->al, f);
}

static loom_status_t ff_fail(rt_device_t *d, const char *call, ff_result_t r,
                             const rt_fft_job_t *j) {
    static const char *const kinds[] = {"complex", "real to complex", "complex to real"};
    char pts[64];
    int at = 0;
    for (int i = 0; i < j->rank && at < (int)sizeof pts; i++)
        at += snprintf(pts + at, sizeof pts - (size_t)at, "%s%lld", i ? " x " : "",
                       (long long)j->n[i]);
    return base_error_set(d->err, r == 2 ? LOOM_STATUS_OUT_OF_MEMORY : LOOM_STATUS_DEVICE_ERROR,
                          "cufft%s failed: status %d (%s %s, %lld x (%s)-point x %lld lines)",
                          call, r, j->dtype == LOOM_DTYPE_C128 ? "complex128" : "complex64",
                          kinds[j->kind], (long long)j->outer, pts, (long long)j->inner);
}

/* The plan of this layout, made on a miss (replacing the least recently used). */
static loom_status_t ff_plan(rt_device_t *d, rt_fft_t *f, const rt_fft_job_t *j,
                             const ff_layout_t *l, ff_plan_t **out) {
    ff_plan_t *lru = &f->plans[0];
    for (int i = 0; i < FF_PLANS; i++) {
        ff_plan_t *p = &f->plans[i];
        if (p->used && p->l.type == l->type && p->l.rank == l->rank &&
            !memcmp(p->l.n, l->n, sizeof l->n) && p->l.stride == l->stride &&
            p->l.idist == l->idist && p->l.odist == l->odist && p->l.batch == l->batch) {
            p->last = ++f->clock;
            *out = p;
            return LOOM_STATUS_OK;
        }
        if (!p->used || (lru->used && p->last < lru->last)) lru = p;
    }
    if (lru->used) { /* queued transforms may still use it */
        loom_status_t st = rt_sync(d);
        if (st) return st;
        f->t.Destroy(lru->h);
        lru->used = false;
    }
    ff_handle_t h;
    ff_result_t r = f->t.Create(&h);
    if (r) return ff_fail(d, "Create", r, j);
    /* the embeddings: the points, the complex side's last axis n / 2 + 1 */
    long long n[3], ie[3], oe[3];
    for (int i = 0; i < l->rank; i++) n[i] = ie[i] = oe[i] = l->n[i];
    long long half = n[l->rank - 1] / 2 + 1;
    if (j->kind == RT_FFT_R2C) oe[l->rank - 1] = half;
    if (j->kind == RT_FFT_C2R) ie[l->rank - 1] = half;
    size_t work = 0;
    if (!(r = f->t.SetAutoAllocation(h, 0)))
        r = f->t.MakePlanMany64(h, l->rank, n, ie, l->stride, l->idist, oe, l->stride, l->odist,
                                l->type, l->batch, &work);
    if (r) {
        f->t.Destroy(h);
        return ff_fail(d, "MakePlanMany64", r, j);
    }
    *lru = (ff_plan_t){h, true, *l, work, ++f->clock};
    *out = lru;
    return LOOM_STATUS_OK;
}

static ff_result_t ff_exec(const rt_fft_t *f, const ff_plan_t *p, void *in, void *out,
                           bool inverse) {
    int dir = inverse ? FF_INVERSE : FF_FORWARD;
    switch (p->l.type) {
        case FF_C2C: return f->t.ExecC2C(p->h, in, out, dir);
        case FF_Z2Z: return f->t.ExecZ2Z(p->h, in, out, dir);
        case FF_R2C: return f->t.ExecR2C(p->h, in, out);
        case FF_D2Z: return f->t.ExecD2Z(p->h, in, out);
        case FF_C2R: return f->t.ExecC2R(p->h, in, out);
        default: return f->t.ExecZ2D(p->h, in, out);
    }
}

loom_status_t rt_fft_run(rt_device_t *d, rt_fft_t *f, const rt_fft_job_t *j) {
    int64_t pts = 1, half = 1;
    for (int i = 0; i < j->rank; i++) {
        pts *= j->n[i];
        half *= i == j->rank - 1 ? j->n[i] / 2 + 1 : j->n[i];
    }
    if (pts == 0 || j->outer == 0 || j->inner == 0) return LOOM_STATUS_OK;
    loom_status_t st = rt_bind(d);
    if (st) return st;
    bool z = j->dtype == LOOM_DTYPE_C128;
    static const int types[2][3] = {{FF_C2C, FF_R2C, FF_C2R}, {FF_Z2Z, FF_D2Z, FF_Z2D}};
    ff_layout_t l = {.type = types[z][j->kind], .rank = j->rank};
    memcpy(l.n, j->n, sizeof l.n);
    /* elements of a block and element bytes, in and out */
    uint64_t cs = z ? 16 : 8, rs = cs / 2;
    int64_t ib = j->kind == RT_FFT_C2R ? half : pts, ob = j->kind == RT_FFT_R2C ? half : pts;
    uint64_t ies = j->kind == RT_FFT_R2C ? rs : cs, oes = j->kind == RT_FFT_C2R ? rs : cs;
    int64_t execs;
    uint64_t istep, ostep;
    if (j->inner == 1) {
        l.stride = 1, l.idist = ib, l.odist = ob, l.batch = j->outer, execs = 1;
        istep = ostep = 0;
    } else if (j->outer <= j->inner) {
        l.stride = j->inner, l.idist = l.odist = 1, l.batch = j->inner, execs = j->outer;
        istep = (uint64_t)(ib * j->inner) * ies, ostep = (uint64_t)(ob * j->inner) * oes;
    } else {
        l.stride = j->inner, l.idist = ib * j->inner, l.odist = ob * j->inner;
        l.batch = j->outer, execs = j->inner, istep = ies, ostep = oes;
    }
    /* cuFFT wants the real side on a complex element's boundary: the frontend keeps batches
     * whole (one call, or calls a block apart) and C2R writes a fresh buffer; an R2C operand
     * starting between two (a view such as x[1:]) is staged */
    bool r2c = j->kind == RT_FFT_R2C, c2r = j->kind == RT_FFT_C2R;
    uint64_t rstep = r2c ? istep : c2r ? ostep : 0;
    if ((execs > 1 && rstep % cs) || (c2r && j->out % cs))
        return base_error_set(d->err, LOOM_STATUS_INTERNAL,
                              "fft: a real transform's real side is not on a %llu-byte boundary",
                              (unsigned long long)cs);
    uint64_t in = j->in, stage = 0, work = 0;
    ff_plan_t *p = NULL;
    if (r2c && j->in % cs) {
        size_t bytes = (size_t)(j->outer * j->inner * pts) * rs;
        if ((st = rt_alloc(d, bytes, &stage))) return st;
        if ((st = rt_d2d(d, stage, j->in, bytes))) goto done;
        in = stage;
    }
    if ((st = ff_plan(d, f, j, &l, &p))) goto done;
    ff_result_t r = f->t.SetStream(p->h, (CUstream)rt_device_stream(d));
    if (r) {
        st = ff_fail(d, "SetStream", r, j);
        goto done;
    }
    if (p->work && (st = rt_alloc(d, p->work, &work))) goto done;
    if ((r = f->t.SetWorkArea(p->h, (void *)(uintptr_t)work))) {
        st = ff_fail(d, "SetWorkArea", r, j);
        goto done;
    }
    static const char *const names[2][3] = {{"ExecC2C", "ExecR2C", "ExecC2R"},
                                            {"ExecZ2Z", "ExecD2Z", "ExecZ2D"}};
    for (int64_t e = 0; e < execs; e++) {
        void *i = (void *)(uintptr_t)(in + (uint64_t)e * istep);
        void *o = (void *)(uintptr_t)(j->out + (uint64_t)e * ostep);
        if ((r = ff_exec(f, p, i, o, j->inverse))) {
            st = ff_fail(d, names[z][j->kind], r, j);
            goto done;
        }
    }
done:
    if (work) rt_free(d, work);
    if (stage) rt_free(d, stage);
    return st;
}
