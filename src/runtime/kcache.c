/* kcache.c — the two-level kernel cache.
 *
 * Memory: the caller's 128-bit structural key -> rt_kernel_t, open addressing; a lookup hashes
 * nothing and allocates nothing. Disk: one file per compiled binary,
 *     <dir>/<2 hex>/<32 hex>.cubin    (32 hex = XXH3-128 of format, source, options, NVRTC, arch)
 * holding a disk_header_t then the payload. Entries are written to a temp file in the same
 * folder and renamed into place, so readers see whole files or none; every field is checked on
 * load and an entry that fails is deleted and recompiled; entries are opened only if regular
 * files and without blocking, so a FIFO planted at an entry's name is a bad entry, not a hang.
 * The folder is opened once (no symlink, spelled with or without trailing slashes; ours; not
 * group/other-writable) and used through its descriptor, so it cannot be swapped underneath
 * us. Any disk trouble makes the cache memory-only; it is never an error. Dump files are
 * written like entries (base_file_replace): a symlink planted at a dump name is replaced. */
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack: no allocation */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "driver.h"

#define FORMAT_VERSION 1u
#define MAX_PAYLOAD    ((uint64_t)1 << 30)

typedef struct disk_header {
    char magic[8];    /* "LOOMKRN" and a NUL */
    uint32_t version; /* FORMAT_VERSION */
    uint32_t flags;   /* bit 0: the payload is PTX, not a cubin */
    uint64_t key_lo, key_hi;
    uint64_t payload_size; /* the file holds exactly this many bytes after the header */
    uint64_t checksum;     /* XXH3-64 of the payload */
} disk_header_t;           /* in native byte order: a cache belongs to one machine */

_Static_assert(sizeof(disk_header_t) == 48, "disk header layout");
static const char magic[8] = "LOOMKRN";

/* ---- memory level ---- */

static rt_kernel_t **slot_of(const rt_kcache_t *kc, base_hash128_t key) {
    uint32_t m = kc->cap - 1;
    for (uint32_t j = (uint32_t)(key.lo ^ (key.hi >> 32)) & m;; j = (j + 1) & m)
        if (!kc->slots[j] || (kc->slots[j]->key.lo == key.lo && kc->slots[j]->key.hi == key.hi))
            return &kc->slots[j];
}

static rt_kernel_t *mem_find(const rt_kcache_t *kc, base_hash128_t key) {
    return kc->cap ? *slot_of(kc, key) : NULL;
}

/* Room for one more kernel, so that inserting cannot fail. */
static bool mem_reserve(rt_device_t *d) {
    rt_kcache_t *kc = &d->kc;
    if ((kc->n + 1) * 2 <= kc->cap) return true;
    rt_kcache_t grown = *kc;
    grown.cap = kc->cap ? kc->cap * 2 : 64;
    grown.slots = base_calloc(d->al, grown.cap, sizeof *grown.slots);
    if (!grown.slots) return false;
    for (uint32_t i = 0; i < kc->cap; i++)
        if (kc->slots[i]) *slot_of(&grown, kc->slots[i]->key) = kc->slots[i];
    base_free(d->al, kc->slots);
    kc->slots = grown.slots;
    kc->cap = grown.cap;
    return true;
}

rt_kernel_t *rt_kernel_find(rt_device_t *d, base_hash128_t key) {
    rt_kernel_t *k = mem_find(&d->kc, key);
    if (k) {
        d->stats.kernel_mem_hits++;
        base_log(d->log, LOOM_LOG_DEBUG, "kernel %s: memory cache hit", k->name);
    }
    return k;
}

const char *rt_kernel_name(const rt_kernel_t *k) { return k->name; }
size_t rt_kernel_binary_size(const rt_kernel_t *k) { return k->binary_size; }
uint64_t rt_kernel_status(const rt_kernel_t *k) { return k->status; }
const char *rt_kernel_cache_dir(const rt_device_t *d) { return d->kc.dir; }
const char *rt_last_compile_log(const rt_device_t *d) { return d->nvrtc.log ? d->nvrtc.log : ""; }

/* ---- the folder ---- */

/* Creates each missing component of path with mode 0700. */
static void make_dirs(base_alloc_t *al, const char *path) {
    char *p = base_strdup(al, path);
    if (!p) return;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        mkdir(p, 0700);
        *s = '/';
    }
    mkdir(p, 0700);
    base_free(al, p);
}

/* The folder to use, base_alloc'd, or NULL (memory-only). */
static char *choose_dir(rt_device_t *d, const rt_options_t *opt) {
    const char *env;
    base_str_t s;
    base_str_init(&s, d->al);
    if (opt->cache_dir && *opt->cache_dir)
        base_str_cat(&s, opt->cache_dir);
    else if ((env = getenv("LOOM_CACHE_DIR")) && *env)
        base_str_cat(&s, env);
    else if ((env = getenv("XDG_CACHE_HOME")) && env[0] == '/')
        base_str_printf(&s, "%s/loom/%s", env, LOOM_VERSION_STRING);
    else if ((env = getenv("HOME")) && env[0] == '/')
        base_str_printf(&s, "%s/.cache/loom/%s", env, LOOM_VERSION_STRING);
    /* Without trailing slashes (and "/." ends): O_NOFOLLOW does not apply to "link/". */
    const char *p = base_str_get(&s);
    size_t n = s.len;
    for (;;) {
        if (n > 1 && p[n - 1] == '/')
            n--;
        else if (n > 2 && p[n - 1] == '.' && p[n - 2] == '/')
            n -= 2;
        else
            break;
    }
    base_str_t t;
    base_str_init(&t, d->al);
    base_str_catn(&t, p, n);
    char *dir = s.failed || t.failed || !n ? NULL : base_strdup(d->al, base_str_get(&t));
    base_str_fini(&t);
    base_str_fini(&s);
    return dir;
}

/* Opens dir if it is safe to trust; -1 (and the reason in why) if not. dir has no trailing
 * slash, so that the no-symlink checks (lstat, O_NOFOLLOW) see its last component. */
static int open_dir(const char *dir, char *why, size_t why_n) {
    struct stat st, named;
    if (lstat(dir, &st) != 0) {
        snprintf(why, why_n, "cannot create it: %s", strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(why, why_n, "it is a symbolic link");
        return -1;
    }
    named = st;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_n, "cannot open it: %s",
                 errno == ELOOP ? "it is a symbolic link" : strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, why_n, "it is not a folder");
    } else if (st.st_dev != named.st_dev || st.st_ino != named.st_ino) {
        snprintf(why, why_n, "it was replaced while being opened"); /* judged by the descriptor */
    } else if (st.st_uid != geteuid()) {
        snprintf(why, why_n, "it belongs to uid %u, not to us (uid %u)", (unsigned)st.st_uid,
                 (unsigned)geteuid());
    } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, why_n, "it is writable by %s (mode %03o)",
                 st.st_mode & S_IWOTH ? "others" : "its group", (unsigned)(st.st_mode & 0777));
    } else {
        return fd;
    }
    close(fd);
    return -1;
}

static void go_memory_only(rt_kcache_t *kc, base_alloc_t *al) {
    if (kc->dirfd >= 0) close(kc->dirfd);
    kc->dirfd = -1;
    base_free(al, kc->dir);
    kc->dir = NULL;
}

loom_status_t rt_kcache_init(rt_device_t *d, const rt_options_t *opt) {
    rt_kcache_t *kc = &d->kc;
    kc->dirfd = -1;
    if (opt->disable_disk_cache) return LOOM_STATUS_OK;
    kc->dir = choose_dir(d, opt);
    if (!kc->dir) {
        base_log(d->log, LOOM_LOG_INFO, "kernel cache: no folder to use; memory only");
        return LOOM_STATUS_OK;
    }
    make_dirs(d->al, kc->dir);
    char why[160];
    kc->dirfd = open_dir(kc->dir, why, sizeof why);
    if (kc->dirfd < 0) {
        base_log(d->log, LOOM_LOG_ERROR, "kernel cache: refusing %s (%s); memory only", kc->dir,
                 why);
        go_memory_only(kc, d->al);
    }
    return LOOM_STATUS_OK;
}

void rt_kcache_fini(rt_device_t *d) {
    rt_kcache_t *kc = &d->kc;
    for (uint32_t i = 0; i < kc->cap; i++) {
        rt_kernel_t *k = kc->slots[i];
        if (!k) continue;
        if (k->module) d->drv.ModuleUnload(k->module);
        base_free(d->al, k->name);
        base_free(d->al, k);
    }
    base_free(d->al, kc->slots);
    go_memory_only(kc, d->al);
    memset(kc, 0, sizeof *kc);
    kc->dirfd = -1;
}

/* ---- disk level ---- */

static void hash_field(XXH3_state_t *h, const void *p, size_t n) {
    uint64_t len = n;
    XXH3_128bits_update(h, &len, sizeof len); /* length-prefixed: fields cannot run together */
    XXH3_128bits_update(h, p, n);
}

static base_hash128_t disk_key(const rt_device_t *d, const char *source) {
    XXH3_state_t h;
    char ver[32];
    uint32_t format = FORMAT_VERSION;
    XXH3_128bits_reset(&h);
    XXH3_128bits_update(&h, &format, sizeof format);
    hash_field(&h, source, strlen(source));
    for (int i = 0; i < d->nvrtc.n_opts; i++)
        hash_field(&h, d->nvrtc.opts[i], strlen(d->nvrtc.opts[i]));
    snprintf(ver, sizeof ver, "nvrtc %d.%d", d->nvrtc.major, d->nvrtc.minor);
    hash_field(&h, ver, strlen(ver));
    hash_field(&h, d->arch, strlen(d->arch));
    XXH128_hash_t r = XXH3_128bits_digest(&h);
    return (base_hash128_t){r.low64, r.high64};
}

/* "ab/ab12...ef.cubin" relative to the cache folder. */
static void entry_path(base_hash128_t key, char *out, size_t n) {
    char hex[33];
    snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)key.hi,
             (unsigned long long)key.lo);
    snprintf(out, n, "%.2s/%s.cubin", hex, hex);
}

static bool read_all(int fd, void *p, size_t n) {
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        got += (size_t)r;
    }
    return true;
}

/* Reads the entry for key into *bin. false if there is none or it did not verify (then it is
 * deleted). */
static bool disk_load(rt_device_t *d, base_hash128_t key, rt_binary_t *bin) {
    rt_kcache_t *kc = &d->kc;
    char rel[64];
    entry_path(key, rel, sizeof rel);
    struct stat st;
    int fd = base_file_open_regular(kc->dirfd, rel, false, &st); /* never blocks on a FIFO */
    if (fd == -1) return false;
    const char *bad = NULL;
    disk_header_t h;
    memset(bin, 0, sizeof *bin);
    if (fd < 0)
        bad = base_file_kind(st.st_mode); /* a FIFO, a symbolic link, ...: not an entry */
    else if ((uint64_t)st.st_size < sizeof h || !read_all(fd, &h, sizeof h))
        bad = "truncated header";
    else if (memcmp(h.magic, magic, sizeof magic) != 0)
        bad = "bad magic";
    else if (h.version != FORMAT_VERSION)
        bad = "other format version";
    else if (h.key_lo != key.lo || h.key_hi != key.hi)
        bad = "key mismatch";
    else if (h.flags != (d->nvrtc.ptx ? 1u : 0u))
        bad = "binary kind mismatch";
    else if (h.payload_size == 0 || h.payload_size > MAX_PAYLOAD ||
             h.payload_size != (uint64_t)st.st_size - sizeof h)
        bad = "length mismatch (truncated or extended)";
    else if (!(bin->data = base_malloc(d->al, (size_t)h.payload_size, 1)))
        bad = "no host memory to read it";
    else if (!read_all(fd, bin->data, (size_t)h.payload_size))
        bad = "read failed";
    else if (XXH3_64bits(bin->data, (size_t)h.payload_size) != h.checksum)
        bad = "checksum mismatch";
    if (fd >= 0) close(fd);
    if (!bad) {
        bin->size = (size_t)h.payload_size;
        bin->ptx = h.flags & 1u;
        return true;
    }
    base_free(d->al, bin->data);
    memset(bin, 0, sizeof *bin);
    unlinkat(kc->dirfd, rel, 0);
    base_log(d->log, LOOM_LOG_INFO, "kernel cache: %s/%s is corrupt (%s); deleted, recompiling",
             kc->dir, rel, bad);
    return false;
}

/* Drops a disk entry that verified but that the driver would not load. */
static void disk_drop(rt_device_t *d, base_hash128_t key) {
    char rel[64];
    entry_path(key, rel, sizeof rel);
    if (d->kc.dirfd >= 0) unlinkat(d->kc.dirfd, rel, 0);
}

/* Writes the entry atomically (base_file_replace: temp file, fsync, rename). A failure that
 * will repeat (full or read-only disk, no permission) makes the cache memory-only; never an
 * error. */
static void disk_store(rt_device_t *d, base_hash128_t key, const rt_binary_t *bin) {
    rt_kcache_t *kc = &d->kc;
    char rel[64];
    entry_path(key, rel, sizeof rel);
    disk_header_t h;
    memcpy(h.magic, magic, sizeof magic);
    h.version = FORMAT_VERSION;
    h.flags = bin->ptx ? 1u : 0u;
    h.key_lo = key.lo;
    h.key_hi = key.hi;
    h.payload_size = bin->size;
    h.checksum = XXH3_64bits(bin->data, bin->size);
    char shard[3] = {rel[0], rel[1], '\0'};
    base_span_t parts[2] = {{&h, sizeof h}, {bin->data, bin->size}};
    int e = mkdirat(kc->dirfd, shard, 0700) != 0 && errno != EEXIST
                ? errno
                : base_file_replace(d->al, kc->dirfd, rel, parts, 2, 0600, false);
    if (!e) return;
    if (e == ENOSPC || e == EROFS || e == EACCES || e == EPERM || e == EDQUOT || e == ENOTDIR) {
        base_log(d->log, LOOM_LOG_INFO, "kernel cache: cannot write %s/%s (%s); memory only",
                 kc->dir, rel, strerror(e));
        go_memory_only(kc, d->al);
    } else {
        base_log(d->log, LOOM_LOG_INFO, "kernel cache: cannot write %s/%s (%s)", kc->dir, rel,
                 strerror(e));
    }
}

/* ---- dumps ---- */

static void dump(rt_device_t *d, const char *name, const char *source, const char *log) {
    if (!d->dump_dir) return;
    make_dirs(d->al, d->dump_dir);
    base_file_dump(d->al, d->log, d->dump_dir, name, "cu", source, strlen(source));
    base_file_dump(d->al, d->log, d->dump_dir, name, "log", log, strlen(log));
}

/* ---- building ---- */

static bool is_identifier(const char *s) {
    if (!*s || (*s >= '0' && *s <= '9')) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

/* Loads the binary into a module and finds the function, and the status word when `status`
 * is not NULL; all NULL in compile_only mode. */
static CUresult load(rt_device_t *d, const rt_binary_t *bin, const char *name, CUmodule *mod,
                     CUfunction *fn, uint64_t *status) {
    *mod = NULL;
    *fn = NULL;
    if (d->compile_only) return CUDA_SUCCESS;
    CUresult r = d->drv.ModuleLoadData(mod, bin->data);
    if (r) return r;
    r = d->drv.ModuleGetFunction(fn, *mod, name);
    if (!r && status) {
        CUdeviceptr p = 0;
        size_t bytes = 0;
        r = d->drv.ModuleGetGlobal(&p, &bytes, *mod, RT_STATUS_WORD);
        if (!r && bytes != RT_STATUS_BYTES) r = CUDA_ERROR_INVALID_IMAGE; /* another layout */
        *status = (uint64_t)p;
    }
    if (r) {
        d->drv.ModuleUnload(*mod);
        *mod = NULL;
    }
    return r;
}

loom_status_t rt_kernel_build(rt_device_t *d, base_hash128_t key, const char *name,
                              const char *source, rt_kernel_t **out) {
    rt_kcache_t *kc = &d->kc;
    *out = rt_kernel_find(d, key);
    if (*out) return LOOM_STATUS_OK;
    if (!is_identifier(name))
        return base_error_set(d->err, LOOM_STATUS_INVALID_ARGUMENT,
                              "kernel name \"%s\" is not a C identifier", name);
    loom_status_t st = rt_bind(d);
    if (st) return st;
    rt_kernel_t *k = base_calloc(d->al, 1, sizeof *k);
    if (!k || !(k->name = base_strdup(d->al, name)) || !mem_reserve(d)) {
        st = base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY,
                            "out of host memory building kernel %s", name);
        goto fail;
    }
    base_hash128_t dkey = disk_key(d, source);
    rt_binary_t bin = {0};
    bool from_disk = kc->dirfd >= 0 && disk_load(d, dkey, &bin);
    for (;;) {
        if (!from_disk) {
            st = rt_nvrtc_compile(d, name, source, &bin);
            dump(d, name, source, rt_last_compile_log(d));
            if (st) goto fail;
            if (kc->dirfd >= 0) disk_store(d, dkey, &bin);
        } else {
            dump(d, name, source, "(loaded from the disk cache; not compiled)\n");
        }
        CUresult r = load(d, &bin, name, &k->module, &k->fn,
                          strstr(source, RT_STATUS_WORD) ? &k->status : NULL);
        if (r == CUDA_SUCCESS) break;
        base_free(d->al, bin.data);
        memset(&bin, 0, sizeof bin);
        if (!from_disk) {
            st = rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "loading the kernel's module");
            goto fail;
        }
        /* It verified, yet the driver refuses it: drop it and compile afresh, once. */
        base_log(d->log, LOOM_LOG_INFO, "kernel cache: driver refused cached %s; recompiling",
                 name);
        disk_drop(d, dkey);
        from_disk = false;
    }
    if (from_disk) {
        d->stats.kernel_disk_hits++;
        base_log(d->log, LOOM_LOG_DEBUG, "kernel %s: disk cache hit (%zu bytes)", name, bin.size);
    }
    k->key = key;
    k->binary_size = bin.size;
    base_free(d->al, bin.data);
    *slot_of(kc, key) = k;
    kc->n++;
    *out = k;
    return LOOM_STATUS_OK;
fail:
    if (k) base_free(d->al, k->name);
    base_free(d->al, k);
    return st;
}
