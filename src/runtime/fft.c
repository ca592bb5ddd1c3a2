/* fft.c — complex transforms through cuFFT, loaded with dlopen into a function table as
 * solver.c loads cuSOLVER, so loom loads and runs without it. The declarations are ours, with
 * the numeric values of cufft.h.
 *
 * A job transforms every line along one axis of a C-contiguous (outer, n, inner) array into
 * another of the same shape. cuFFT's advanced layout has one batch distance, so a job is one
 * plan executed once (inner == 1: lines at distance n) or once per slab: the lines of one outer
 * index at distance 1 and stride inner, or the lines of one inner index at distance n * inner,
 * whichever needs fewer executions. Plans are made without their own work area (it comes from
 * the pool on every run) and kept, the least recently used replaced, by type and layout. */
#include <dlfcn.h>
#include <string.h>

#include "driver.h"

typedef int ff_result_t; /* cufftResult; 0 = CUFFT_SUCCESS */
typedef int ff_handle_t; /* cufftHandle */
enum { FF_C2C = 0x29, FF_Z2Z = 0x69, FF_FORWARD = -1, FF_INVERSE = 1 };

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
};

static const char *const ff_libs[] = {"libcufft.so.12", "libcufft.so.11", "libcufft.so"};

#define FF_PLANS 16

typedef struct ff_plan {
    ff_handle_t h;
    bool used;
    int type;
    int64_t n, stride, dist, batch;
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
    return base_error_set(d->err, r == 2 ? LOOM_STATUS_OUT_OF_MEMORY : LOOM_STATUS_DEVICE_ERROR,
                          "cufft%s failed: status %d (%s, %lld x %lld-point x %lld lines)", call, r,
                          j->dtype == LOOM_DTYPE_C128 ? "complex128" : "complex64",
                          (long long)j->outer, (long long)j->n, (long long)j->inner);
}

/* The plan of this type and layout, made on a miss (replacing the least recently used). */
static loom_status_t ff_plan(rt_device_t *d, rt_fft_t *f, const rt_fft_job_t *j, int type,
                             int64_t stride, int64_t dist, int64_t batch, ff_plan_t **out) {
    ff_plan_t *lru = &f->plans[0];
    for (int i = 0; i < FF_PLANS; i++) {
        ff_plan_t *p = &f->plans[i];
        if (p->used && p->type == type && p->n == j->n && p->stride == stride && p->dist == dist &&
            p->batch == batch) {
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
    long long n = j->n, emb = j->n; /* the embedding is unused for rank 1 */
    size_t work = 0;
    if (!(r = f->t.SetAutoAllocation(h, 0)))
        r = f->t.MakePlanMany64(h, 1, &n, &emb, stride, dist, &emb, stride, dist, type, batch,
                                &work);
    if (r) {
        f->t.Destroy(h);
        return ff_fail(d, "MakePlanMany64", r, j);
    }
    *lru = (ff_plan_t){h, true, type, j->n, stride, dist, batch, work, ++f->clock};
    *out = lru;
    return LOOM_STATUS_OK;
}

loom_status_t rt_fft_run(rt_device_t *d, rt_fft_t *f, const rt_fft_job_t *j) {
    if (j->n == 0 || j->outer == 0 || j->inner == 0) return LOOM_STATUS_OK;
    loom_status_t st = rt_bind(d);
    if (st) return st;
    bool z = j->dtype == LOOM_DTYPE_C128;
    int type = z ? FF_Z2Z : FF_C2C;
    uint64_t es = z ? 16 : 8;
    /* (stride, distance, batch) of one execution, and the executions' count and step */
    int64_t stride, dist, batch, execs;
    uint64_t step;
    if (j->inner == 1) {
        stride = 1, dist = j->n, batch = j->outer, execs = 1, step = 0;
    } else if (j->outer <= j->inner) {
        stride = j->inner, dist = 1, batch = j->inner, execs = j->outer;
        step = (uint64_t)(j->n * j->inner) * es;
    } else {
        stride = j->inner, dist = j->n * j->inner, batch = j->outer, execs = j->inner, step = es;
    }
    ff_plan_t *p = NULL;
    if ((st = ff_plan(d, f, j, type, stride, dist, batch, &p))) return st;
    ff_result_t r = f->t.SetStream(p->h, (CUstream)rt_device_stream(d));
    if (r) return ff_fail(d, "SetStream", r, j);
    uint64_t work = 0;
    if (p->work && (st = rt_alloc(d, p->work, &work))) return st;
    if ((r = f->t.SetWorkArea(p->h, (void *)(uintptr_t)work))) {
        st = ff_fail(d, "SetWorkArea", r, j);
        goto done;
    }
    int dir = j->inverse ? FF_INVERSE : FF_FORWARD;
    for (int64_t e = 0; e < execs; e++) {
        void *in = (void *)(uintptr_t)(j->in + (uint64_t)e * step);
        void *o = (void *)(uintptr_t)(j->out + (uint64_t)e * step);
        r = z ? f->t.ExecZ2Z(p->h, in, o, dir) : f->t.ExecC2C(p->h, in, o, dir);
        if (r) {
            st = ff_fail(d, z ? "ExecZ2Z" : "ExecC2C", r, j);
            goto done;
        }
    }
done:
    if (work) rt_free(d, work);
    return st;
}
