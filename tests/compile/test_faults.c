/* test_faults.c — fault injection, SQLite's way: for each kind of operation (a host
 * allocation, a driver call, an NVRTC call, a file operation of the kernel cache or the .npy
 * code) and each scenario (elementwise, reduction, integer matmul, transfers, a kernel-cache
 * miss and hit, .npy save and load), the Nth operation of that kind fails, for N = 1, 2, ...
 * until a run completes without reaching N. Every run must end with OK and the right values,
 * or with a clean error (a status that is not INTERNAL and a message); after
 * loom_ctx_clear_error the same context must run the scenario again correctly; no temp or
 * partial file may be left in the cache or beside a saved file, and a file being replaced
 * must hold its old bytes or the whole new ones. Leaks show under the sanitizer build (LSan).
 *
 * The CUDA side runs on the mock driver (tests/support/mock_driver.h: device memory is host
 * memory, kernels compile with NVRTC and launch as no-ops), so kernel results are not values
 * here; transfers are (an upload read back through a wrapped device pointer). File and NVRTC
 * calls are intercepted with the linker's --wrap (see meson.build), so the library is the one
 * every other test links. Failures are transient: only the Nth operation fails. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/fe.h"
#include "runtime/driver.h"

#include "../support/mock_driver.h"
#include "../support/shard.h"
#include "../support/tmpdir.h"

/* ---- the injector ---- */

typedef enum { F_NONE, F_ALLOC, F_DRIVER, F_NVRTC, F_FILE, F_KINDS } fault_kind_t;
static const char *const kind_names[F_KINDS] = {"none", "allocation", "driver call",
                                                 "NVRTC call", "file operation"};

static struct {
    fault_kind_t kind; /* armed kind */
    int64_t left;      /* operations of that kind still allowed before one fails */
    bool fired;
} fault;

/* Whether this operation of kind k fails (the armed one, once). */
static bool trip(fault_kind_t k) {
    if (fault.kind != k || fault.fired) return false;
    if (fault.left-- > 0) return false;
    fault.fired = true;
    return true;
}

static bool trip_driver(void) { return trip(F_DRIVER); }

/* File operations: the library's references to these symbols reach __wrap_* (-Wl,--wrap),
 * which reach the C library through __real_*. */
int __real_open64(const char *path, int flags, ...);
int __wrap_open64(const char *path, int flags, ...);
int __real_openat64(int dirfd, const char *path, int flags, ...);
int __wrap_openat64(int dirfd, const char *path, int flags, ...);
ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
int __real_fsync(int fd);
int __wrap_fsync(int fd);
int __real_close(int fd);
int __wrap_close(int fd);
int __real_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
int __wrap_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
int __real_mkdir(const char *path, mode_t mode);
int __wrap_mkdir(const char *path, mode_t mode);
int __real_mkdirat(int dirfd, const char *path, mode_t mode);
int __wrap_mkdirat(int dirfd, const char *path, mode_t mode);
int __real_fstat64(int fd, struct stat64 *st);
int __wrap_fstat64(int fd, struct stat64 *st);
int __real_fstatat64(int dirfd, const char *path, struct stat64 *st, int flags);
int __wrap_fstatat64(int dirfd, const char *path, struct stat64 *st, int flags);
int __real_lstat64(const char *path, struct stat64 *st);
int __wrap_lstat64(const char *path, struct stat64 *st);
FILE *__real_fdopen(int fd, const char *mode);
FILE *__wrap_fdopen(int fd, const char *mode);
size_t __real_fread(void *p, size_t size, size_t n, FILE *f);
size_t __wrap_fread(void *p, size_t size, size_t n, FILE *f);

#define FILE_TRIP(err, ret)                                                                        \
    do {                                                                                           \
        if (trip(F_FILE)) {                                                                        \
            errno = (err);                                                                         \
            return ret;                                                                            \
        }                                                                                          \
    } while (0)

static mode_t mode_arg(int flags, va_list ap) {
    return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}
int __wrap_open64(const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    FILE_TRIP(EACCES, -1);
    return __real_open64(path, flags, mode);
}
int __wrap_openat64(int dirfd, const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    FILE_TRIP(EMFILE, -1);
    return __real_openat64(dirfd, path, flags, mode);
}
ssize_t __wrap_read(int fd, void *buf, size_t n) {
    FILE_TRIP(EIO, -1);
    return __real_read(fd, buf, n);
}
ssize_t __wrap_write(int fd, const void *buf, size_t n) {
    FILE_TRIP(ENOSPC, -1);
    return __real_write(fd, buf, n);
}
int __wrap_fsync(int fd) {
    FILE_TRIP(EIO, -1);
    return __real_fsync(fd);
}
int __wrap_close(int fd) { /* the descriptor is closed either way, as Linux does */
    int r = __real_close(fd);
    FILE_TRIP(EIO, -1);
    return r;
}
int __wrap_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    FILE_TRIP(EXDEV, -1);
    return __real_renameat(olddirfd, oldpath, newdirfd, newpath);
}
int __wrap_mkdir(const char *path, mode_t mode) {
    FILE_TRIP(EROFS, -1);
    return __real_mkdir(path, mode);
}
int __wrap_mkdirat(int dirfd, const char *path, mode_t mode) {
    FILE_TRIP(EDQUOT, -1);
    return __real_mkdirat(dirfd, path, mode);
}
int __wrap_fstat64(int fd, struct stat64 *st) {
    FILE_TRIP(EIO, -1);
    return __real_fstat64(fd, st);
}
int __wrap_fstatat64(int dirfd, const char *path, struct stat64 *st, int flags) {
    FILE_TRIP(EIO, -1);
    return __real_fstatat64(dirfd, path, st, flags);
}
int __wrap_lstat64(const char *path, struct stat64 *st) {
    FILE_TRIP(EIO, -1);
    return __real_lstat64(path, st);
}
FILE *__wrap_fdopen(int fd, const char *mode) {
    FILE_TRIP(ENOMEM, NULL);
    return __real_fdopen(fd, mode);
}
size_t __wrap_fread(void *p, size_t size, size_t n, FILE *f) {
    FILE_TRIP(EIO, 0);
    return __real_fread(p, size, n, f);
}

/* NVRTC: the calls a compile makes. */
nvrtcResult __real_nvrtcCreateProgram(nvrtcProgram *p, const char *src, const char *name, int n,
                                      const char *const *headers, const char *const *names);
nvrtcResult __wrap_nvrtcCreateProgram(nvrtcProgram *p, const char *src, const char *name, int n,
                                      const char *const *headers, const char *const *names);
nvrtcResult __real_nvrtcCompileProgram(nvrtcProgram p, int n, const char *const *opts);
nvrtcResult __wrap_nvrtcCompileProgram(nvrtcProgram p, int n, const char *const *opts);
nvrtcResult __real_nvrtcGetCUBINSize(nvrtcProgram p, size_t *n);
nvrtcResult __wrap_nvrtcGetCUBINSize(nvrtcProgram p, size_t *n);
nvrtcResult __real_nvrtcGetCUBIN(nvrtcProgram p, char *out);
nvrtcResult __wrap_nvrtcGetCUBIN(nvrtcProgram p, char *out);
nvrtcResult __real_nvrtcGetProgramLogSize(nvrtcProgram p, size_t *n);
nvrtcResult __wrap_nvrtcGetProgramLogSize(nvrtcProgram p, size_t *n);
nvrtcResult __real_nvrtcGetProgramLog(nvrtcProgram p, char *out);
nvrtcResult __wrap_nvrtcGetProgramLog(nvrtcProgram p, char *out);

#define NVRTC_TRIP()                                                                               \
    do {                                                                                           \
        if (trip(F_NVRTC)) return NVRTC_ERROR_OUT_OF_MEMORY;                                       \
    } while (0)

nvrtcResult __wrap_nvrtcCreateProgram(nvrtcProgram *p, const char *src, const char *name, int n,
                                      const char *const *headers, const char *const *names) {
    NVRTC_TRIP();
    return __real_nvrtcCreateProgram(p, src, name, n, headers, names);
}
nvrtcResult __wrap_nvrtcCompileProgram(nvrtcProgram p, int n, const char *const *opts) {
    NVRTC_TRIP();
    return __real_nvrtcCompileProgram(p, n, opts);
}
nvrtcResult __wrap_nvrtcGetCUBINSize(nvrtcProgram p, size_t *n) {
    NVRTC_TRIP();
    return __real_nvrtcGetCUBINSize(p, n);
}
nvrtcResult __wrap_nvrtcGetCUBIN(nvrtcProgram p, char *out) {
    NVRTC_TRIP();
    return __real_nvrtcGetCUBIN(p, out);
}
nvrtcResult __wrap_nvrtcGetProgramLogSize(nvrtcProgram p, size_t *n) {
    NVRTC_TRIP();
    return __real_nvrtcGetProgramLogSize(p, n);
}
nvrtcResult __wrap_nvrtcGetProgramLog(nvrtcProgram p, char *out) {
    NVRTC_TRIP();
    return __real_nvrtcGetProgramLog(p, out);
}

/* ---- folders ---- */

static char root[256], cache[300], files[300];

/* Fails the test if a temp file (".*.tmp", base_file_replace's) is left anywhere under path. */
static void assert_no_temp(const char *path, const char *what, int64_t n) {
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    char sub[1024];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' && len > 4 && !strcmp(e->d_name + len - 4, ".tmp")) {
            closedir(d);
            fail_msg("%s, fault %lld: temp file %s/%s left behind", what, (long long)n, path,
                     e->d_name);
        }
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        assert_no_temp(sub, what, n);
    }
    closedir(d);
}

/* ---- contexts ---- */

/* A CPU context, created unarmed; allocation faults armed on its allocator. */
static loom_ctx_t *cpu_ctx(void) {
    loom_options_t o = {.device = LOOM_DEVICE_CPU, .disable_disk_cache = 1};
    loom_ctx_t *ctx = NULL;
    fault_kind_t armed = fault.kind;
    fault.kind = F_NONE; /* loom_ctx_create's own failures are test_misuse's */
    assert_int_equal(loom_ctx_create(&o, &ctx), LOOM_STATUS_OK);
    fault.kind = armed;
    if (armed == F_ALLOC) {
        ctx->al.fail_after = fault.left;
        ctx->al.fail_once = true;
    }
    return ctx;
}

/* A CUDA context on the mock driver with the kernel cache in `cache` (disk off: NULL): the
 * runtime and engine are created while faults are armed, so their creation fails too. NULL
 * (ctx destroyed) when creation failed; the failure must be a clean one. */
#define STAGE_BYTES (64 << 10) /* small staging buffers: large copies are cheap here */

static loom_ctx_t *mock_cuda_ctx(const char *cache_dir) {
    mock_trip = trip_driver;
    loom_ctx_t *ctx = cpu_ctx();
    if (!mock_attach(ctx, (rt_options_t){.cache_dir = cache_dir,
                                         .disable_disk_cache = cache_dir == NULL,
                                         .copy_threads = 1,
                                         .stage_bytes = STAGE_BYTES})) {
        assert_int_not_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
        assert_int_not_equal(loom_ctx_status(ctx), LOOM_STATUS_INTERNAL);
        assert_true(loom_ctx_message(ctx)[0] != '\0');
        loom_ctx_destroy(ctx);
        return NULL;
    }
    return ctx;
}

/* ---- scenarios: each returns the status; with `check`, values are asserted on success ---- */

typedef struct scenario {
    const char *name;
    bool cuda;        /* on the mock driver, else on the CPU device */
    bool disk;        /* with a kernel disk cache (warm unless `cold`) */
    bool cold;        /* the cache emptied before every run: a miss, compiled by NVRTC */
    loom_status_t (*run)(loom_ctx_t *ctx, bool check);
} scenario_t;

#define N_ROWS 48
#define N_COLS 33

static float xs[N_ROWS * N_COLS];

static loom_array_t *input(loom_ctx_t *ctx) {
    int64_t shape[2] = {N_ROWS, N_COLS};
    for (int i = 0; i < N_ROWS * N_COLS; i++) xs[i] = (float)(i % 97) * 0.25f - 3.0f;
    return loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, xs);
}

static loom_status_t run_elementwise(loom_ctx_t *ctx, bool check) {
    loom_array_t *x = input(ctx);
    loom_array_t *r = loom_add(ctx, loom_sqrt(ctx, loom_add(ctx, loom_multiply(ctx, x, x),
                                                            loom_weak_float(ctx, 1))),
                               loom_exp(ctx, loom_negative(ctx, x)));
    static float out[N_ROWS * N_COLS];
    loom_status_t st = loom_read(ctx, r, out, sizeof out);
    if (st == LOOM_STATUS_OK && check && ctx->device == LOOM_DEVICE_CPU)
        for (int i = 0; i < N_ROWS * N_COLS; i++)
            assert_true(out[i] == sqrtf(xs[i] * xs[i] + 1) + expf(-xs[i]));
    return st;
}

static loom_status_t run_reduction(loom_ctx_t *ctx, bool check) {
    loom_array_t *x = input(ctx);
    int32_t ax = 1;
    loom_array_t *r[2] = {loom_sum(ctx, loom_multiply(ctx, x, loom_weak_float(ctx, 2)), 1, &ax, 0),
                          loom_max(ctx, x, 0, NULL, 0)};
    float s[N_ROWS], mx = 0;
    void *dst[2] = {s, &mx};
    size_t bytes[2] = {sizeof s, sizeof mx};
    loom_status_t st = loom_read_many(ctx, 2, r, dst, bytes);
    if (st == LOOM_STATUS_OK && check && ctx->device == LOOM_DEVICE_CPU)
        assert_true(mx == 21.0f);
    return st;
}

static loom_status_t run_matmul(loom_ctx_t *ctx, bool check) {
    int64_t sa[2] = {8, 16}, sb[2] = {16, 4};
    int32_t a[128], b[64], c[32];
    for (int i = 0; i < 128; i++) a[i] = i % 7 - 3;
    for (int i = 0; i < 64; i++) b[i] = i % 5 - 2;
    loom_array_t *r = loom_matmul(ctx, loom_from_host(ctx, LOOM_DTYPE_I32, 2, sa, a),
                                  loom_from_host(ctx, LOOM_DTYPE_I32, 2, sb, b));
    loom_status_t st = loom_read(ctx, r, c, sizeof c);
    if (st == LOOM_STATUS_OK && check && ctx->device == LOOM_DEVICE_CPU)
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 4; j++) {
                int32_t want = 0;
                for (int k = 0; k < 16; k++) want += a[i * 16 + k] * b[k * 4 + j];
                assert_int_equal(c[i * 4 + j], want);
            }
    return st;
}

/* Uploads (a small packed one and one larger than a staging buffer), device-to-device copies
 * (concatenations run as copies, not kernels) and downloads: the bytes must survive. */
static loom_status_t run_transfers(loom_ctx_t *ctx, bool check) {
    enum { SMALL = 1000, LARGE = 5 * STAGE_BYTES / 8 }; /* 2.5 staging buffers */
    static int32_t small[SMALL], big[LARGE], back[2][SMALL + LARGE];
    for (int i = 0; i < SMALL; i++) small[i] = i * 3 + 1;
    for (int i = 0; i < LARGE; i++) big[i] = i ^ 0x5a5a;
    int64_t ns = SMALL, nl = LARGE;
    loom_array_t *h[2] = {loom_from_host(ctx, LOOM_DTYPE_I32, 1, &ns, small),
                          loom_from_host(ctx, LOOM_DTYPE_I32, 1, &nl, big)};
    loom_array_t *hr[2] = {h[1], h[0]};
    loom_array_t *r[2] = {loom_concatenate(ctx, 2, h, 0), loom_concatenate(ctx, 2, hr, 0)};
    void *dst[2] = {back[0], back[1]};
    size_t bytes[2] = {sizeof back[0], sizeof back[1]};
    memset(back, 0, sizeof back);
    loom_status_t st = loom_read_many(ctx, 2, r, dst, bytes);
    if (st == LOOM_STATUS_OK && check) {
        assert_memory_equal(back[0], small, sizeof small);
        assert_memory_equal(back[0] + SMALL, big, sizeof big);
        assert_memory_equal(back[1], big, sizeof big);
        assert_memory_equal(back[1] + LARGE, small, sizeof small);
    }
    return st;
}

/* .npy: save over an existing file, then load it back. On failure the file holds its old
 * bytes, whole; on success the new ones. */
static char npy_path[400];
static const char old_bytes[] = "old contents, not a .npy file\n";

static loom_status_t run_npy(loom_ctx_t *ctx, bool check) {
    loom_array_t *x = input(ctx);
    loom_array_t *y = loom_multiply(ctx, x, loom_weak_float(ctx, 3));
    loom_status_t st = loom_npy_save(ctx, y, npy_path);
    FILE *f = fopen(npy_path, "rb");
    assert_non_null(f);
    char head[sizeof old_bytes];
    size_t got = fread(head, 1, sizeof old_bytes - 1, f);
    fclose(f);
    bool is_old = got == sizeof old_bytes - 1 && !memcmp(head, old_bytes, got);
    if (st != LOOM_STATUS_OK) {
        assert_true(is_old); /* the old file, untouched */
        return st;
    }
    assert_false(is_old);
    loom_array_t *z = loom_npy_load(ctx, npy_path);
    static float out[N_ROWS * N_COLS];
    st = loom_read(ctx, z, out, sizeof out);
    if (st == LOOM_STATUS_OK && check && ctx->device == LOOM_DEVICE_CPU)
        for (int i = 0; i < N_ROWS * N_COLS; i++) assert_true(out[i] == xs[i] * 3);
    return st;
}

/* A gather in raise mode: its kernel's status word is noted at the eval and read at the read
 * (the mock's kernels never set it) */
static loom_status_t run_gather(loom_ctx_t *ctx, bool check) {
    int64_t n = 5, idx[5] = {0, 32, 7, -1, 3};
    loom_array_t *i = loom_from_host(ctx, LOOM_DTYPE_I64, 1, &n, idx);
    loom_array_t *r = loom_take(ctx, input(ctx), i, 1, LOOM_TAKE_RAISE);
    static float out[N_ROWS * 5];
    loom_status_t st = loom_read(ctx, r, out, sizeof out);
    if (st == LOOM_STATUS_OK && check && ctx->device == LOOM_DEVICE_CPU)
        assert_true(out[3] == xs[N_COLS - 1]);
    return st;
}

static const scenario_t scenarios[] = {
    {"elementwise (cpu)", false, false, false, run_elementwise},
    {"reduction (cpu)", false, false, false, run_reduction},
    {"matmul (cpu)", false, false, false, run_matmul},
    {"npy save and load (cpu)", false, false, false, run_npy},
    {"elementwise, cache hit", true, true, false, run_elementwise},
    {"elementwise, cache miss", true, true, true, run_elementwise},
    {"reduction, cache hit", true, true, false, run_reduction},
    {"reduction, cache miss", true, true, true, run_reduction},
    {"integer matmul, cache hit", true, true, false, run_matmul},
    {"transfers", true, false, false, run_transfers},
    {"gather with a bounds check, cache hit", true, true, false, run_gather},
    {"npy save and load (cuda)", true, true, false, run_npy},
};
#define N_SCENARIOS ((int)(sizeof scenarios / sizeof scenarios[0]))

static void reset_npy(void) {
    FILE *f = fopen(npy_path, "wb");
    assert_non_null(f);
    fputs(old_bytes, f);
    fclose(f);
}

/* One run with the Nth operation of kind k failing (n < 0: none). Returns whether the fault
 * fired (so the loop goes on). */
static bool run_once(const scenario_t *s, fault_kind_t k, int64_t n) {
    if (s->cold) {
        tmpdir_remove(cache);
        mkdir(cache, 0700);
    }
    reset_npy();
    fault = (typeof(fault)){.kind = n < 0 ? F_NONE : k, .left = n};
    loom_ctx_t *ctx = s->cuda ? mock_cuda_ctx(s->disk ? cache : NULL) : cpu_ctx();
    char what[160];
    snprintf(what, sizeof what, "%s, failing %s", s->name, kind_names[k]);
    if (!ctx) { /* creation failed cleanly (asserted there) */
        assert_true(fault.fired || k == F_ALLOC);
        assert_no_temp(root, what, n);
        fault.kind = F_NONE;
        return true;
    }
    loom_scope_begin(ctx);
    loom_status_t st = s->run(ctx, true);
    loom_scope_end(ctx);
    bool fired = fault.fired || ctx->al.n_failed;
    fault.kind = F_NONE;
    ctx->al.fail_after = -1;
    if (st != LOOM_STATUS_OK) {
        if (!fired) fail_msg("%s: failed without a fault: %s", what, loom_ctx_message(ctx));
        if (st == LOOM_STATUS_INTERNAL || !loom_ctx_message(ctx)[0])
            fail_msg("%s, fault %lld: status %s, message \"%s\"", what, (long long)n,
                     loom_status_string(st), loom_ctx_message(ctx));
        assert_no_temp(root, what, n);
        /* the same context works again */
        loom_ctx_clear_error(ctx);
        reset_npy();
        loom_scope_begin(ctx);
        st = s->run(ctx, true);
        loom_scope_end(ctx);
        if (st != LOOM_STATUS_OK)
            fail_msg("%s, fault %lld: after clearing the error: %s", what, (long long)n,
                     loom_ctx_message(ctx));
    }
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
    assert_no_temp(root, what, n);
    return fired;
}

/* Every scenario of one temperature (cold: cache misses, compiled by NVRTC) under faults of
 * kind k. Under allocation and driver faults, only the elementwise miss: a reduction's compile
 * path is the same code, and each run of a miss compiles afresh. */
static void sweep(fault_kind_t k, bool cold) {
    for (int i = 0; i < N_SCENARIOS; i++) {
        const scenario_t *s = &scenarios[i];
        if (s->cold != cold || (!s->cuda && (k == F_DRIVER || k == F_NVRTC))) continue;
        if (cold && (k == F_ALLOC || k == F_DRIVER) && s->run != run_elementwise) continue;
        if (s->disk && !s->cold) {
            tmpdir_remove(cache);
            mkdir(cache, 0700);
            run_once(s, k, -1); /* warm the cache */
        }
        int64_t n = 0;
        while (run_once(s, k, n)) {
            n++;
            if (n > 100000) fail_msg("%s: more than 100000 operations", s->name);
        }
        print_message("[ faults   ] %-32s %-15s %lld runs\n", s->name, kind_names[k],
                      (long long)n + 1);
    }
}

static void test_faults_allocation(void **state) { (void)state, sweep(F_ALLOC, false); }
static void test_faults_allocation_cold(void **state) { (void)state, sweep(F_ALLOC, true); }
static void test_faults_driver(void **state) { (void)state, sweep(F_DRIVER, false); }
static void test_faults_driver_cold(void **state) { (void)state, sweep(F_DRIVER, true); }
static void test_faults_nvrtc(void **state) { (void)state, sweep(F_NVRTC, true); }
static void test_faults_file(void **state) { (void)state, sweep(F_FILE, false); }
static void test_faults_file_cold(void **state) { (void)state, sweep(F_FILE, true); }

int main(int argc, char **argv) {
    snprintf(root, sizeof root, "/tmp/loom_faults_XXXXXX");
    if (!mkdtemp(root)) return 1;
    snprintf(cache, sizeof cache, "%s/cache", root);
    snprintf(files, sizeof files, "%s/files", root);
    mkdir(files, 0700);
    snprintf(npy_path, sizeof npy_path, "%s/x.npy", files);
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_faults_allocation), cmocka_unit_test(test_faults_driver),
        cmocka_unit_test(test_faults_file),       cmocka_unit_test(test_faults_nvrtc),
        cmocka_unit_test(test_faults_allocation_cold), cmocka_unit_test(test_faults_driver_cold),
        cmocka_unit_test(test_faults_file_cold),
    };
    enum { N_CASES = sizeof all / sizeof all[0] };
    struct CMUnitTest tests[N_CASES];
    int n = shard_pick(argc, argv, all, N_CASES, tests);
    int rc = n < 0 ? 1 : _cmocka_run_group_tests("faults", tests, (size_t)n, NULL, NULL);
    tmpdir_remove(root);
    return rc;
}
