/* engine.c — the engine's state (created beside the ctx's runtime device, destroyed once), its
 * error funnel, and the one find-or-build path every generated kernel takes. */
#include <stdio.h>

#include "internal.h"

en_engine_t *en_engine_create(const en_options_t *o) {
    en_engine_t *e = base_calloc(o->al, 1, sizeof *e);
    if (!e) return NULL;
    e->rt = o->rt;
    e->al = o->al;
    e->err = o->err;
    e->log = o->log;
    e->stats = o->stats;
    e->dump_dir = o->dump_dir;
    e->compile_only = o->compile_only;
    e->allow_tf32 = o->allow_tf32;
    return e;
}

void en_engine_destroy(en_engine_t *e) {
    if (!e) return;
    if (e->blas) rt_blas_destroy(e->rt, e->blas); /* its workspace is pool memory */
    if (e->solver) rt_solver_destroy(e->rt, e->solver);
    if (e->fft) rt_fft_destroy(e->rt, e->fft);
    en_plans_clear(e);
    base_free(e->al, e->words);
    base_free(e->al, e->raised);
    base_free(e->al, e);
}

loom_status_t en_error(en_engine_t *e, loom_status_t status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    loom_status_t s = base_error_report(e->err, e->log, status, fmt, ap);
    va_end(ap);
    return s;
}

rt_kernel_t *en_kernel(en_engine_t *e, base_hash128_t key, en_source_fn *source, const void *obj,
                       uint32_t idx) {
    rt_kernel_t *kern = rt_kernel_find(e->rt, key);
    if (kern) return kern;
    base_str_t text;
    base_str_init(&text, e->al);
    char name[48];
    source(obj, idx, &text, name);
    if (text.failed)
        en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "codegen: out of memory generating %s", name);
    else
        rt_kernel_build(e->rt, key, name, base_str_get(&text), &kern);
    base_str_fini(&text);
    return e->err->status ? NULL : kern;
}
