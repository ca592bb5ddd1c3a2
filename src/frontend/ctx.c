/* ctx.c — contexts: options and environment, the device choice, sticky errors, scopes and
 * statistics. No mutable global state except the thread-local message of a failed create. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fe.h"

static _Thread_local char create_message[1100];

LOOM_API const char *loom_last_create_message(void) { return create_message; }

loom_status_t fe_error(loom_ctx_t *ctx, loom_status_t status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    loom_status_t s = base_error_report(&ctx->err, &ctx->log, status, fmt, ap);
    va_end(ap);
    return s;
}

static void log_stderr(void *user, loom_log_level_t level, const char *line) {
    (void)user;
    static const char *names[] = {"off", "error", "info", "debug"};
    fprintf(stderr, "loom %s: %s\n", names[level <= LOOM_LOG_DEBUG ? level : 0], line);
}

static loom_log_level_t parse_level(const char *s) {
    if (!strcasecmp(s, "error") || !strcmp(s, "1")) return LOOM_LOG_ERROR;
    if (!strcasecmp(s, "info") || !strcmp(s, "2")) return LOOM_LOG_INFO;
    if (!strcasecmp(s, "debug") || !strcmp(s, "3")) return LOOM_LOG_DEBUG;
    return LOOM_LOG_OFF;
}

LOOM_API int loom_device_from_name(const char *name, const char **arch) {
    if (arch) *arch = NULL;
    if (!name) return -1;
    if (!strcasecmp(name, "auto")) return LOOM_DEVICE_AUTO;
    if (!strcasecmp(name, "cpu")) return LOOM_DEVICE_CPU;
    if (!strcasecmp(name, "cuda") || !strcasecmp(name, "gpu")) return LOOM_DEVICE_CUDA;
    if (strncasecmp(name, "nvrtc", 5) || (name[5] && (name[5] != ':' || !name[6]))) return -1;
    if (arch && name[5]) *arch = name + 6;
    return LOOM_DEVICE_NVRTC;
}

static loom_status_t create_fail(loom_ctx_t *ctx, loom_status_t st, const char *msg) {
    snprintf(create_message, sizeof create_message, "%s", msg);
    loom_ctx_destroy(ctx);
    return st;
}

static bool dup_opt(loom_ctx_t *ctx, char **dst, const char *opt, const char *env) {
    const char *v = opt && *opt ? opt : getenv(env);
    if (!v || !*v) return true;
    *dst = base_strdup(&ctx->al, v);
    return *dst != NULL;
}

LOOM_API loom_status_t loom_ctx_create(const loom_options_t *options, loom_ctx_t **out) {
    create_message[0] = '\0';
    if (!out) {
        snprintf(create_message, sizeof create_message, "loom_ctx_create: out is NULL");
        return LOOM_STATUS_INVALID_ARGUMENT;
    }
    *out = NULL;
    loom_options_t o = {0};
    if (options) o = *options;
    loom_ctx_t *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        snprintf(create_message, sizeof create_message, "loom_ctx_create: out of memory");
        return LOOM_STATUS_OUT_OF_MEMORY;
    }
    ctx->al.fail_after = -1;
    ctx->nil.ctx = ctx;
    ctx->nil.flags = FE_NIL;
    ctx->nil.refcount = 1;

    const char *env;
    const char *arch = o.arch;
    if (o.device == LOOM_DEVICE_AUTO && (env = getenv("LOOM_DEVICE")) && *env) {
        const char *env_arch;
        int kind = loom_device_from_name(env, &env_arch);
        if (env_arch) arch = env_arch;
        if (kind >= 0) o.device = (loom_device_kind_t)kind;
        if (kind < 0) {
            char msg[256];
            snprintf(
                msg, sizeof msg,
                "LOOM_DEVICE=\"%.100s\" is not one of auto, cpu, cuda, gpu, nvrtc, nvrtc:sm_XY",
                env);
            return create_fail(ctx, LOOM_STATUS_INVALID_ARGUMENT, msg);
        }
    }
    if ((unsigned)o.device > LOOM_DEVICE_NVRTC) {
        char msg[128];
        snprintf(msg, sizeof msg, "loom_ctx_create: unknown device kind %d", (int)o.device);
        return create_fail(ctx, LOOM_STATUS_INVALID_ARGUMENT, msg);
    }
    ctx->log.level = o.log_level;
    ctx->log.fn = o.log_fn;
    ctx->log.user = o.log_user;
    if ((env = getenv("LOOM_LOG")) && *env) {
        loom_log_level_t lv = parse_level(env);
        if (lv > ctx->log.level) ctx->log.level = lv;
        if (!ctx->log.fn) ctx->log.fn = log_stderr;
    }
    ctx->disable_disk_cache = o.disable_disk_cache != 0;
    if (!dup_opt(ctx, &ctx->cache_dir, o.cache_dir, "LOOM_CACHE_DIR") ||
        !dup_opt(ctx, &ctx->dump_dir, o.dump_dir, "LOOM_DUMP") ||
        !dup_opt(ctx, &ctx->arch, arch, "LOOM_ARCH"))
        return create_fail(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_ctx_create: out of memory");

    loom_scope_begin(ctx);
    if (ctx->err.status) return create_fail(ctx, ctx->err.status, ctx->err.message);

    if (o.device == LOOM_DEVICE_CPU) {
        ctx->device = LOOM_DEVICE_CPU;
    } else {
#if LOOM_HAVE_CUDA
        rt_options_t ro = {
            .ordinal = o.cuda_ordinal,
            .compile_only = o.device == LOOM_DEVICE_NVRTC,
            .arch = ctx->arch,
            .cache_dir = ctx->cache_dir,
            .disable_disk_cache = ctx->disable_disk_cache,
            .dump_dir = ctx->dump_dir,
            .stream = o.cuda_stream,
            .allow_fma = o.allow_fma != 0 || ((env = getenv("LOOM_ALLOW_FMA")) && *env == '1'),
        };
        loom_status_t st = rt_device_create(&ctx->al, &ctx->err, &ctx->log, &ro, &ctx->rt);
        if (st == LOOM_STATUS_OK) {
            ctx->cuda_ordinal = o.cuda_ordinal;
            ctx->device = o.device == LOOM_DEVICE_NVRTC ? LOOM_DEVICE_NVRTC : LOOM_DEVICE_CUDA;
            en_options_t eo = {
                .rt = ctx->rt,
                .al = &ctx->al,
                .err = &ctx->err,
                .log = &ctx->log,
                .stats = &ctx->stats,
                .dump_dir = ctx->dump_dir,
                .compile_only = ctx->device == LOOM_DEVICE_NVRTC,
                .allow_tf32 = o.allow_tf32 != 0,
            };
            if (!(ctx->engine = en_engine_create(&eo)))
                return create_fail(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_ctx_create: out of memory");
        } else if (o.device == LOOM_DEVICE_AUTO &&
                   (st == LOOM_STATUS_NO_DRIVER || st == LOOM_STATUS_NO_DEVICE)) {
            base_log(&ctx->log, LOOM_LOG_INFO,
                     "no CUDA device (%s); using the CPU reference device", ctx->err.message);
            base_error_clear(&ctx->err);
            ctx->device = LOOM_DEVICE_CPU;
        } else {
            char msg[sizeof ctx->err.message];
            snprintf(msg, sizeof msg, "%s", ctx->err.message);
            return create_fail(ctx, st, msg);
        }
#else
        if (o.device == LOOM_DEVICE_AUTO) {
            ctx->device = LOOM_DEVICE_CPU;
        } else {
            return create_fail(ctx, LOOM_STATUS_NOT_AVAILABLE,
                               "this loom was built without CUDA (NVRTC not found at build time)");
        }
#endif
    }
#if LOOM_HAVE_CUDA
    if (ctx->rt)
        snprintf(ctx->device_name, sizeof ctx->device_name, "%s%s", rt_device_name(ctx->rt),
                 ctx->device == LOOM_DEVICE_NVRTC ? " (compile only)" : "");
    else
#endif
        snprintf(ctx->device_name, sizeof ctx->device_name, "CPU reference");
    base_log(&ctx->log, LOOM_LOG_INFO, "context on %s", ctx->device_name);
    *out = ctx;
    return LOOM_STATUS_OK;
}

LOOM_API void loom_ctx_destroy(loom_ctx_t *ctx) {
    if (!ctx) return;
    while (ctx->n_scopes > 0) {
        fe_scope_t *s = &ctx->scopes[ctx->n_scopes - 1];
        for (uint32_t i = 0; i < s->n; i++) loom_array_release(s->items[i]);
        base_free(&ctx->al, s->items);
        ctx->n_scopes--;
    }
    fe_node_free_all(ctx);
    fe_host_free_all(ctx); /* pinned blocks: before the device goes */
#if LOOM_HAVE_CUDA
    en_engine_destroy(ctx->engine); /* before the device: its cuBLAS workspace is pool memory */
    if (ctx->rt) rt_device_destroy(ctx->rt);
#endif
    base_free(&ctx->al, ctx->scopes);
    base_free(&ctx->al, ctx->cache_dir);
    base_free(&ctx->al, ctx->dump_dir);
    base_free(&ctx->al, ctx->arch);
    free(ctx);
}

LOOM_API loom_status_t loom_ctx_status(const loom_ctx_t *ctx) {
    return ctx ? ctx->err.status : LOOM_STATUS_INVALID_ARGUMENT;
}

LOOM_API const char *loom_ctx_message(const loom_ctx_t *ctx) {
    return ctx ? ctx->err.message : "loom_ctx_message: ctx is NULL";
}

LOOM_API void loom_ctx_clear_error(loom_ctx_t *ctx) {
    if (ctx) base_error_clear(&ctx->err);
}

LOOM_API loom_device_kind_t loom_ctx_device(const loom_ctx_t *ctx) {
    return ctx ? ctx->device : LOOM_DEVICE_CPU;
}

LOOM_API const char *loom_ctx_device_name(const loom_ctx_t *ctx) {
    return ctx ? ctx->device_name : "";
}

LOOM_API void loom_scope_begin(loom_ctx_t *ctx) {
    if (!ctx) return;
    if (ctx->n_scopes == ctx->cap_scopes) {
        uint32_t cap = ctx->cap_scopes ? ctx->cap_scopes * 2 : 8;
        fe_scope_t *s = base_realloc(&ctx->al, ctx->scopes, cap, sizeof *s);
        if (!s) {
            fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_scope_begin: out of memory");
            return;
        }
        ctx->scopes = s;
        ctx->cap_scopes = cap;
    }
    ctx->scopes[ctx->n_scopes++] = (fe_scope_t){0};
}

LOOM_API void loom_scope_end(loom_ctx_t *ctx) {
    if (!ctx) return;
    if (ctx->n_scopes <= 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "loom_scope_end: no open scope (more ends than begins)");
        return;
    }
    fe_scope_t *s = &ctx->scopes[--ctx->n_scopes];
    for (uint32_t i = 0; i < s->n; i++) loom_array_release(s->items[i]);
    base_free(&ctx->al, s->items);
}

LOOM_API void loom_ctx_stats(const loom_ctx_t *ctx, loom_stats_t *out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!ctx) return;
    *out = ctx->stats;
#if LOOM_HAVE_CUDA
    if (ctx->rt) {
        rt_stats_t r;
        rt_device_stats(ctx->rt, &r);
        out->kernel_mem_hits = r.kernel_mem_hits;
        out->kernel_disk_hits = r.kernel_disk_hits;
        out->kernel_compiles = r.kernel_compiles;
        out->compile_ms = r.compile_ms;
        out->kernels_launched = r.launches;
        out->h2d_copies = r.h2d_copies;
        out->h2d_bytes = r.h2d_bytes;
        out->d2h_copies = r.d2h_copies;
        out->d2h_bytes = r.d2h_bytes;
        out->pool_bytes_in_use = r.pool_in_use;
        out->pool_bytes_held = r.pool_held;
        out->pool_peak_in_use = r.pool_peak;
    }
#endif
}

LOOM_API void loom_ctx_trim(loom_ctx_t *ctx) {
#if LOOM_HAVE_CUDA
    if (ctx && ctx->rt && ctx->device == LOOM_DEVICE_CUDA) rt_trim(ctx->rt);
#else
    (void)ctx;
#endif
}
