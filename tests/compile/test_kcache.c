/* test_kcache.c — the kernel cache without a GPU: compile-only devices compile with NVRTC and
 * cache to a temp folder; a second process finds the entries; corrupt entries are detected,
 * deleted and recompiled (a FIFO at an entry's name too, without hanging); unsafe or unwritable
 * folders make the cache memory-only (a symlinked folder also when spelled with a trailing
 * slash); dump files replace a planted symlink instead of writing through it; compile errors
 * carry the NVRTC log; a device without a driver says NO_DRIVER. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/rt.h"

static const char *const src_add1 = "extern \"C\" __global__ void add1(float *x, int n) {\n"
                                    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                    "    if (i < n) x[i] += 1.0f;\n"
                                    "}\n";
static const base_hash128_t key_add1 = {0x1111, 0x2222};

/* ---- fixture ---- */

typedef struct fx {
    char dir[256]; /* the temp folder of this test */
    char cache[300];
    base_alloc_t al;
    base_error_t err;
    base_log_t log;
    char logged[8192];
} fx_t;

static void on_log(void *user, loom_log_level_t level, const char *line) {
    fx_t *f = user;
    (void)level;
    size_t n = strlen(f->logged);
    snprintf(f->logged + n, sizeof f->logged - n, "%s\n", line);
}

static int setup(void **state) {
    fx_t *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/loom-kcache-XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->cache, sizeof f->cache, "%s/cache", f->dir);
    f->al.fail_after = -1;
    f->log = (base_log_t){LOOM_LOG_DEBUG, on_log, f};
    *state = f;
    return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    if (flag == FTW_DP) chmod(path, 0700);
    return remove(path);
}

static int teardown(void **state) {
    fx_t *f = *state;
    chmod(f->dir, 0700);
    chmod(f->cache, 0700);
    nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    assert_int_equal(f->al.n_live, 0); /* everything base_alloc'd was freed */
    free(f);
    return 0;
}

static rt_device_t *open_dev(fx_t *f, const char *cache_dir) {
    rt_options_t o = {0};
    o.compile_only = true;
    o.arch = "sm_90";
    o.cache_dir = cache_dir;
    rt_device_t *d = NULL;
    base_error_clear(&f->err);
    assert_int_equal(rt_device_create(&f->al, &f->err, &f->log, &o, &d), LOOM_STATUS_OK);
    assert_non_null(d);
    return d;
}

static rt_stats_t stats_of(rt_device_t *d) {
    rt_stats_t s;
    rt_device_stats(d, &s);
    return s;
}

/* Path of the one .cubin entry under the cache folder; false if there is not exactly one. */
static bool find_entry(const char *cache, char *out, size_t n) {
    int found = 0;
    DIR *top = opendir(cache);
    if (!top) return false;
    struct dirent *e;
    while ((e = readdir(top))) {
        if (e->d_name[0] == '.') continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s/%s", cache, e->d_name);
        DIR *in = opendir(sub);
        if (!in) continue;
        struct dirent *g;
        while ((g = readdir(in))) {
            size_t l = strlen(g->d_name);
            if (g->d_name[0] == '.' || l < 6 || strcmp(g->d_name + l - 6, ".cubin")) continue;
            assert_int_equal(l, 32 + 6);
            assert_memory_equal(g->d_name, e->d_name, 2); /* sharded by the first 2 hex */
            snprintf(out, n, "%s/%s", sub, g->d_name);
            found++;
        }
        closedir(in);
    }
    closedir(top);
    return found == 1;
}

static off_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* ---- tests ---- */

static void test_kcache_compiles_and_counts(void **state) {
    fx_t *f = *state;
    rt_device_t *d = open_dev(f, f->cache);
    assert_string_equal(rt_device_arch(d), "sm_90");
    assert_string_equal(rt_kernel_cache_dir(d), f->cache);
    struct stat st;
    assert_int_equal(stat(f->cache, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_null(rt_kernel_find(d, key_add1));

    rt_kernel_t *k = NULL;
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    assert_non_null(k);
    assert_string_equal(rt_kernel_name(k), "add1");
    assert_true(rt_kernel_binary_size(k) > 0);
    rt_stats_t s = stats_of(d);
    assert_int_equal(s.kernel_compiles, 1);
    assert_int_equal(s.kernel_disk_hits, 0);
    assert_int_equal(s.kernel_mem_hits, 0);
    assert_true(s.compile_ms > 0);
    assert_non_null(strstr(f->logged, "compiled kernel add1"));

    char entry[600];
    assert_true(find_entry(f->cache, entry, sizeof entry));
    assert_int_equal(file_size(entry), 48 + (off_t)rt_kernel_binary_size(k));
    assert_int_equal(stat(entry, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);

    assert_ptr_equal(rt_kernel_find(d, key_add1), k);
    rt_kernel_t *k2 = NULL;
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k2), LOOM_STATUS_OK);
    assert_ptr_equal(k2, k);
    s = stats_of(d);
    assert_int_equal(s.kernel_mem_hits, 2);
    assert_int_equal(s.kernel_compiles, 1);

    /* Another structural key with the same source: a new memory entry, the same disk entry. */
    rt_kernel_t *k3 = NULL;
    base_hash128_t other = {0x3333, 0x4444};
    assert_int_equal(rt_kernel_build(d, other, "add1", src_add1, &k3), LOOM_STATUS_OK);
    assert_ptr_not_equal(k3, k);
    s = stats_of(d);
    assert_int_equal(s.kernel_compiles, 1);
    assert_int_equal(s.kernel_disk_hits, 1);
    rt_device_destroy(d);
}

/* The child's side of test_kcache_second_process: exit 0 iff it compiled nothing and found
 * the kernel on disk. */
static int child_build(const char *cache) {
    base_alloc_t al = {.fail_after = -1};
    base_error_t err = {0};
    rt_options_t o = {0};
    o.compile_only = true;
    o.cache_dir = cache;
    rt_device_t *d = NULL;
    if (rt_device_create(&al, &err, NULL, &o, &d) != LOOM_STATUS_OK) return 10;
    rt_kernel_t *k = NULL;
    if (rt_kernel_build(d, key_add1, "add1", src_add1, &k) != LOOM_STATUS_OK) return 11;
    rt_stats_t s;
    rt_device_stats(d, &s);
    int rc = s.kernel_compiles != 0 ? 12 : s.kernel_disk_hits != 1 ? 13 : 0;
    rt_device_destroy(d);
    return al.n_live ? 14 : rc;
}

static void test_kcache_second_process_compiles_nothing(void **state) {
    fx_t *f = *state;
    rt_device_t *d = open_dev(f, f->cache);
    rt_kernel_t *k = NULL;
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    rt_device_destroy(d);

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/proc/self/exe", "test_kcache", "--child-build", f->cache, (char *)NULL);
        _exit(127);
    }
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
}

/* Damages the entry with `damage`, then checks that a fresh device deletes it, recompiles
 * and writes a good one, which a third device then loads. */
static void check_recovers(fx_t *f, void (*damage)(const char *path, off_t size)) {
    rt_device_t *d = open_dev(f, f->cache);
    rt_kernel_t *k = NULL;
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    rt_device_destroy(d);
    char entry[600];
    assert_true(find_entry(f->cache, entry, sizeof entry));
    off_t size = file_size(entry);
    damage(entry, size);

    f->logged[0] = '\0';
    d = open_dev(f, f->cache);
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    rt_stats_t s = stats_of(d);
    assert_int_equal(s.kernel_compiles, 1);
    assert_int_equal(s.kernel_disk_hits, 0);
    assert_non_null(strstr(f->logged, "corrupt"));
    assert_non_null(strstr(f->logged, "deleted, recompiling"));
    rt_device_destroy(d);
    assert_int_equal(file_size(entry), size); /* rewritten whole */

    d = open_dev(f, f->cache);
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    s = stats_of(d);
    assert_int_equal(s.kernel_compiles, 0);
    assert_int_equal(s.kernel_disk_hits, 1);
    rt_device_destroy(d);
}

static void truncate_payload(const char *path, off_t size) {
    assert_int_equal(truncate(path, size - 100), 0);
}

static void truncate_header(const char *path, off_t size) {
    (void)size;
    assert_int_equal(truncate(path, 20), 0);
}

static void flip_byte(const char *path, off_t size, off_t at) {
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    unsigned char c;
    assert_int_equal(pread(fd, &c, 1, at), 1);
    c ^= 0x10;
    assert_int_equal(pwrite(fd, &c, 1, at), 1);
    close(fd);
    assert_int_equal(file_size(path), size);
}

static void flip_payload(const char *path, off_t size) {
    flip_byte(path, size, 48 + (size - 48) / 2);
}
static void flip_key(const char *path, off_t size) { flip_byte(path, size, 20); }
static void flip_checksum(const char *path, off_t size) { flip_byte(path, size, 40); }

static void test_kcache_truncated_entry_recompiled(void **state) {
    check_recovers(*state, truncate_payload);
}
static void test_kcache_truncated_header_recompiled(void **state) {
    check_recovers(*state, truncate_header);
}
static void test_kcache_flipped_payload_byte_recompiled(void **state) {
    check_recovers(*state, flip_payload);
}
static void test_kcache_flipped_key_byte_recompiled(void **state) {
    check_recovers(*state, flip_key);
}
static void test_kcache_flipped_checksum_byte_recompiled(void **state) {
    check_recovers(*state, flip_checksum);
}

/* A device on `dir` must be memory-only and still build (and find) kernels. */
static void check_memory_only(fx_t *f, const char *dir, const char *why) {
    f->logged[0] = '\0';
    rt_device_t *d = open_dev(f, dir);
    assert_null(rt_kernel_cache_dir(d));
    assert_non_null(strstr(f->logged, "refusing"));
    assert_non_null(strstr(f->logged, why));
    rt_kernel_t *k = NULL;
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    assert_ptr_equal(rt_kernel_find(d, key_add1), k);
    assert_int_equal(stats_of(d).kernel_compiles, 1);
    rt_device_destroy(d);
    char entry[600];
    assert_false(find_entry(f->cache, entry, sizeof entry)); /* nothing written */
}

static void test_kcache_symlinked_folder_refused(void **state) {
    fx_t *f = *state;
    char link[320];
    assert_int_equal(mkdir(f->cache, 0700), 0);
    snprintf(link, sizeof link, "%s/link", f->dir);
    assert_int_equal(symlink(f->cache, link), 0);
    check_memory_only(f, link, "symbolic link");
}

/* O_NOFOLLOW does not apply to a path ending in '/': the folder is checked without it. */
static void test_kcache_symlinked_folder_trailing_slash_refused(void **state) {
    fx_t *f = *state;
    char link[320];
    assert_int_equal(mkdir(f->cache, 0700), 0);
    snprintf(link, sizeof link, "%s/link", f->dir);
    assert_int_equal(symlink(f->cache, link), 0);
    snprintf(link, sizeof link, "%s/link/", f->dir);
    check_memory_only(f, link, "symbolic link");
    snprintf(link, sizeof link, "%s/link//", f->dir);
    check_memory_only(f, link, "symbolic link");
    /* A real folder spelled with trailing slashes is used, and named without them. */
    snprintf(link, sizeof link, "%s//", f->cache);
    rt_device_t *d = open_dev(f, link);
    assert_string_equal(rt_kernel_cache_dir(d), f->cache);
    rt_device_destroy(d);
}

/* A FIFO planted at an entry's name is a bad entry: dropped and recompiled, never a hang. */
static void test_kcache_fifo_entry_recompiled(void **state) {
    fx_t *f = *state;
    rt_device_t *d = open_dev(f, f->cache);
    rt_kernel_t *k = NULL;
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    rt_device_destroy(d);
    char entry[600];
    assert_true(find_entry(f->cache, entry, sizeof entry));
    assert_int_equal(unlink(entry), 0);
    assert_int_equal(mkfifo(entry, 0600), 0);

    d = open_dev(f, f->cache);
    alarm(120); /* opening the FIFO for reading blocks without a writer: the alarm fails it */
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    alarm(0);
    assert_int_equal(f->err.status, LOOM_STATUS_OK);
    assert_int_equal(stats_of(d).kernel_compiles, 1);
    rt_device_destroy(d);
    struct stat st;
    assert_int_equal(lstat(entry, &st), 0);
    assert_true(S_ISREG(st.st_mode));
}

static void test_kcache_world_writable_folder_refused(void **state) {
    fx_t *f = *state;
    assert_int_equal(mkdir(f->cache, 0700), 0);
    assert_int_equal(chmod(f->cache, 0777), 0);
    check_memory_only(f, f->cache, "writable by others");
}

static void test_kcache_group_writable_folder_refused(void **state) {
    fx_t *f = *state;
    assert_int_equal(mkdir(f->cache, 0700), 0);
    assert_int_equal(chmod(f->cache, 0770), 0);
    check_memory_only(f, f->cache, "writable by its group");
}

/* Exit code 0 iff a device on the read-only folder `cache` starts with it, builds a kernel
 * without error and ends memory-only. */
static int unwritable_scenario(const char *cache) {
    base_alloc_t al = {.fail_after = -1};
    base_error_t err = {0};
    rt_options_t o = {0};
    o.compile_only = true;
    o.cache_dir = cache;
    rt_device_t *d = NULL;
    if (rt_device_create(&al, &err, NULL, &o, &d) != LOOM_STATUS_OK) return 20;
    if (!rt_kernel_cache_dir(d)) return 21; /* read-only is fine for reading */
    rt_kernel_t *k = NULL;
    if (rt_kernel_build(d, key_add1, "add1", src_add1, &k) != LOOM_STATUS_OK) return 22;
    if (err.status != LOOM_STATUS_OK) return 23;
    if (rt_kernel_cache_dir(d)) return 24; /* the failed write made it memory-only */
    if (rt_kernel_build(d, (base_hash128_t){9, 9}, "add1", src_add1, &k) != LOOM_STATUS_OK)
        return 25;
    rt_device_destroy(d);
    return al.n_live ? 26 : 0;
}

static void test_kcache_unwritable_folder_degrades(void **state) {
    fx_t *f = *state;
    assert_int_equal(mkdir(f->cache, 0500), 0);
    if (geteuid() != 0) {
        assert_int_equal(unwritable_scenario(f->cache), 0);
        return;
    }
    /* Root writes anywhere: run the scenario as nobody, on a folder nobody owns. */
    assert_int_equal(chown(f->cache, 65534, 65534), 0);
    assert_int_equal(chmod(f->dir, 0755), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(30);
        _exit(unwritable_scenario(f->cache));
    }
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
}

static void test_kcache_shard_blocked_degrades(void **state) {
    fx_t *f = *state;
    rt_device_t *d = open_dev(f, f->cache);
    rt_kernel_t *k = NULL;
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    rt_device_destroy(d);
    char entry[600], shard[600];
    assert_true(find_entry(f->cache, entry, sizeof entry));
    /* Replace the shard folder by a file: the next store fails with ENOTDIR. */
    snprintf(shard, sizeof shard, "%s", entry);
    *strrchr(shard, '/') = '\0';
    assert_int_equal(unlink(entry), 0);
    assert_int_equal(rmdir(shard), 0);
    FILE *fp = fopen(shard, "w");
    assert_non_null(fp);
    fclose(fp);

    d = open_dev(f, f->cache);
    assert_non_null(rt_kernel_cache_dir(d));
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    assert_int_equal(f->err.status, LOOM_STATUS_OK);
    assert_null(rt_kernel_cache_dir(d));
    assert_non_null(strstr(f->logged, "memory only"));
    rt_device_destroy(d);
}

static void test_kcache_compile_error_carries_log(void **state) {
    fx_t *f = *state;
    rt_device_t *d = open_dev(f, f->cache);
    const char *bad = "extern \"C\" __global__ void broken(float *x) {\n"
                      "    x[0] = undefined_thing;\n"
                      "}\n";
    rt_kernel_t *k = (rt_kernel_t *)1;
    assert_int_equal(rt_kernel_build(d, key_add1, "broken", bad, &k), LOOM_STATUS_COMPILE_ERROR);
    assert_null(k);
    assert_int_equal(f->err.status, LOOM_STATUS_COMPILE_ERROR);
    assert_non_null(strstr(f->err.message, "broken"));
    assert_non_null(strstr(f->err.message, "undefined_thing"));
    assert_non_null(strstr(f->err.message, "sm_90"));
    assert_non_null(strstr(rt_last_compile_log(d), "undefined_thing"));
    assert_null(rt_kernel_find(d, key_add1));
    assert_int_equal(stats_of(d).kernel_compiles, 0);
    char entry[600];
    assert_false(find_entry(f->cache, entry, sizeof entry));

    /* A long log is truncated to fit the message, keeping its start. */
    base_str_t s;
    base_str_init(&s, &f->al);
    base_str_cat(&s, "extern \"C\" __global__ void many(float *x) {\n");
    for (int i = 0; i < 60; i++) base_str_printf(&s, "    x[%d] = undefined_%d;\n", i, i);
    base_str_cat(&s, "}\n");
    base_error_clear(&f->err);
    assert_int_equal(rt_kernel_build(d, key_add1, "many", base_str_get(&s), &k),
                     LOOM_STATUS_COMPILE_ERROR);
    assert_non_null(strstr(f->err.message, "undefined_0"));
    assert_non_null(strstr(f->err.message, "[log truncated]"));
    assert_true(strlen(rt_last_compile_log(d)) > 1000);
    base_str_fini(&s);
    rt_device_destroy(d);
}

static void test_kcache_memory_hit_does_not_touch_disk(void **state) {
    fx_t *f = *state;
    rt_device_t *d = open_dev(f, f->cache);
    rt_kernel_t *k = NULL, *k2 = NULL;
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    char entry[600];
    assert_true(find_entry(f->cache, entry, sizeof entry));
    off_t size = file_size(entry);
    /* Corrupt the entry: a disk read would delete it, a disk write would repair it. */
    assert_int_equal(truncate(entry, 10), 0);
    assert_ptr_equal(rt_kernel_find(d, key_add1), k);
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k2), LOOM_STATUS_OK);
    assert_ptr_equal(k2, k);
    assert_int_equal(file_size(entry), 10);
    rt_stats_t s = stats_of(d);
    assert_int_equal(s.kernel_mem_hits, 2);
    assert_int_equal(s.kernel_compiles, 1);
    assert_int_equal(s.kernel_disk_hits, 0);
    assert_true(size > 10);
    rt_device_destroy(d);
}

static void test_kcache_dump_dir_gets_source_and_log(void **state) {
    fx_t *f = *state;
    char dump[320], path[400];
    snprintf(dump, sizeof dump, "%s/dump", f->dir);
    rt_options_t o = {0};
    o.compile_only = true;
    o.cache_dir = f->cache;
    o.dump_dir = dump;
    rt_device_t *d = NULL;
    assert_int_equal(rt_device_create(&f->al, &f->err, &f->log, &o, &d), LOOM_STATUS_OK);
    rt_kernel_t *k = NULL;
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    snprintf(path, sizeof path, "%s/add1.cu", dump);
    assert_int_equal(file_size(path), (off_t)strlen(src_add1));
    snprintf(path, sizeof path, "%s/add1.log", dump);
    assert_true(file_size(path) >= 0);
    rt_device_destroy(d);
}

/* Evaluates arange(64) * 2 + 1 on a compile-only context dumping to dump; 0 on success. */
static int eval_dumping(fx_t *f, const char *dump) {
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_NVRTC;
    o.cache_dir = f->cache;
    o.dump_dir = dump;
    loom_ctx_t *ctx = NULL;
    if (loom_ctx_create(&o, &ctx) != LOOM_STATUS_OK) return -1;
    loom_array_t *x = loom_arange(ctx, 0, 64, 1, LOOM_DTYPE_F32);
    loom_array_t *c = loom_add_f(ctx, loom_multiply_f(ctx, x, 2), 1);
    loom_status_t st = loom_eval(ctx, 1, &c);
    loom_ctx_destroy(ctx);
    return st == LOOM_STATUS_OK ? 0 : -1;
}

/* Every dump file (graph text and DOT, schedule, kernel source and log) replaces a symlink
 * planted at its name instead of writing through it. */
static void test_kcache_dumps_replace_planted_symlinks(void **state) {
    fx_t *f = *state;
    char first[320], second[320], victim[320], path[700];
    snprintf(first, sizeof first, "%s/dump1", f->dir);
    snprintf(second, sizeof second, "%s/dump2", f->dir);
    snprintf(victim, sizeof victim, "%s/victim", f->dir);
    assert_int_equal(eval_dumping(f, first), 0); /* learns the names */
    FILE *fp = fopen(victim, "w");
    assert_non_null(fp);
    fputs("precious", fp);
    fclose(fp);
    assert_int_equal(mkdir(second, 0700), 0);
    DIR *dd = opendir(first);
    assert_non_null(dd);
    struct dirent *e;
    int planted = 0;
    while ((e = readdir(dd))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", second, e->d_name);
        assert_int_equal(symlink(victim, path), 0);
        planted++;
    }
    closedir(dd);
    assert_true(planted >= 5); /* graph .txt and .dot, schedule, a kernel's .cu and .log */
    assert_int_equal(eval_dumping(f, second), 0);
    assert_int_equal(file_size(victim), 8);
    dd = opendir(second);
    assert_non_null(dd);
    while ((e = readdir(dd))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (e->d_name[0] == '.') fail_msg("temp file %s left in %s", e->d_name, second);
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", second, e->d_name);
        assert_int_equal(lstat(path, &st), 0);
        if (!S_ISREG(st.st_mode)) fail_msg("%s is still a symlink", path);
    }
    closedir(dd);
}

static void test_kcache_disabled_and_env_folders(void **state) {
    fx_t *f = *state;
    rt_options_t o = {0};
    o.compile_only = true;
    o.disable_disk_cache = true;
    rt_device_t *d = NULL;
    assert_int_equal(rt_device_create(&f->al, &f->err, &f->log, &o, &d), LOOM_STATUS_OK);
    assert_null(rt_kernel_cache_dir(d));
    rt_device_destroy(d);

    char env_dir[320], xdg[320], want[400];
    snprintf(env_dir, sizeof env_dir, "%s/env", f->dir);
    setenv("LOOM_CACHE_DIR", env_dir, 1);
    d = open_dev(f, NULL);
    assert_string_equal(rt_kernel_cache_dir(d), env_dir);
    rt_device_destroy(d);

    unsetenv("LOOM_CACHE_DIR");
    snprintf(xdg, sizeof xdg, "%s/xdg", f->dir);
    setenv("XDG_CACHE_HOME", xdg, 1);
    d = open_dev(f, NULL);
    snprintf(want, sizeof want, "%s/loom/%s", xdg, LOOM_VERSION_STRING);
    assert_string_equal(rt_kernel_cache_dir(d), want);
    struct stat st;
    assert_int_equal(stat(want, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    rt_device_destroy(d);
    unsetenv("XDG_CACHE_HOME");
}

static void test_kcache_bad_name_and_arch(void **state) {
    fx_t *f = *state;
    rt_device_t *d = open_dev(f, f->cache);
    rt_kernel_t *k = NULL;
    assert_int_equal(rt_kernel_build(d, key_add1, "../add1", src_add1, &k),
                     LOOM_STATUS_INVALID_ARGUMENT);
    rt_device_destroy(d);
    rt_options_t o = {0};
    o.compile_only = true;
    o.arch = "gfx90a";
    base_error_clear(&f->err);
    assert_int_equal(rt_device_create(&f->al, &f->err, &f->log, &o, &d),
                     LOOM_STATUS_INVALID_ARGUMENT);
    assert_null(d);
    assert_non_null(strstr(f->err.message, "gfx90a"));
}

static void test_kcache_other_arch_other_entry(void **state) {
    fx_t *f = *state;
    rt_options_t o = {0};
    o.compile_only = true;
    o.cache_dir = f->cache;
    o.arch = "sm_80";
    rt_device_t *d = NULL;
    assert_int_equal(rt_device_create(&f->al, &f->err, &f->log, &o, &d), LOOM_STATUS_OK);
    assert_string_equal(rt_device_name(d), "NVRTC compile-only (sm_80)");
    rt_kernel_t *k = NULL;
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    rt_device_destroy(d);
    d = open_dev(f, f->cache); /* sm_90: a different disk key */
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    assert_int_equal(stats_of(d).kernel_compiles, 1);
    rt_device_destroy(d);
}

static void test_kcache_compile_only_refuses_device_work(void **state) {
    fx_t *f = *state;
    rt_device_t *d = open_dev(f, f->cache);
    uint64_t p = 1;
    char buf[4];
    assert_int_equal(rt_alloc(d, 16, &p), LOOM_STATUS_NOT_AVAILABLE);
    assert_int_equal(p, 0);
    assert_non_null(strstr(f->err.message, "compile-only"));
    assert_int_equal(rt_h2d(d, 0, buf, 4), LOOM_STATUS_NOT_AVAILABLE);
    assert_int_equal(rt_d2h(d, buf, 0, 4), LOOM_STATUS_NOT_AVAILABLE);
    assert_int_equal(rt_sync(d), LOOM_STATUS_NOT_AVAILABLE);
    rt_kernel_t *k = NULL;
    base_error_clear(&f->err);
    assert_int_equal(rt_kernel_build(d, key_add1, "add1", src_add1, &k), LOOM_STATUS_OK);
    assert_int_equal(rt_launch(d, k, 1, 32, NULL), LOOM_STATUS_NOT_AVAILABLE);
    assert_null(rt_device_stream(d));
    rt_trim(d);
    rt_free(d, 0);
    rt_device_destroy(d);
}

static void test_kcache_failing_allocations(void **state) {
    fx_t *f = *state;
    /* Fail the Nth allocation for every N until a whole run succeeds: no crash, no leak. */
    for (int64_t n = 0;; n++) {
        f->al.fail_after = n;
        base_error_clear(&f->err);
        rt_options_t o = {0};
        o.compile_only = true;
        o.cache_dir = f->cache;
        rt_device_t *d = NULL;
        rt_kernel_t *k = NULL;
        loom_status_t st = rt_device_create(&f->al, &f->err, &f->log, &o, &d);
        if (st == LOOM_STATUS_OK) st = rt_kernel_build(d, key_add1, "add1", src_add1, &k);
        rt_device_destroy(d);
        assert_int_equal(f->al.n_live, 0);
        if (st == LOOM_STATUS_OK && f->al.fail_after > 0) break;
        assert_true(st == LOOM_STATUS_OK || st == LOOM_STATUS_OUT_OF_MEMORY);
        assert_true(n < 200);
    }
    f->al.fail_after = -1;
}

static void test_rt_no_driver(void **state) {
    fx_t *f = *state;
    rt_options_t o = {0};
    o.driver_lib = "libcuda-loom-missing.so.1";
    rt_device_t *d = (rt_device_t *)1;
    assert_int_equal(rt_device_create(&f->al, &f->err, &f->log, &o, &d), LOOM_STATUS_NO_DRIVER);
    assert_null(d);
    assert_non_null(strstr(f->err.message, "libcuda-loom-missing.so.1 not found: "));

    /* The default library: on a machine without one, the same clear status. */
    void *dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (dl) {
        dlclose(dl);
        return;
    }
    o.driver_lib = NULL;
    base_error_clear(&f->err);
    assert_int_equal(rt_device_create(&f->al, &f->err, &f->log, &o, &d), LOOM_STATUS_NO_DRIVER);
    assert_null(d);
    assert_non_null(strstr(f->err.message, "libcuda.so.1 not found: "));
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--child-build") == 0) return child_build(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kcache_compiles_and_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_second_process_compiles_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_kcache_truncated_entry_recompiled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_truncated_header_recompiled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_flipped_payload_byte_recompiled, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_kcache_flipped_key_byte_recompiled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_flipped_checksum_byte_recompiled, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_kcache_symlinked_folder_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_symlinked_folder_trailing_slash_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_kcache_fifo_entry_recompiled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_world_writable_folder_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_group_writable_folder_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_unwritable_folder_degrades, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_shard_blocked_degrades, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_compile_error_carries_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_memory_hit_does_not_touch_disk, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_kcache_dump_dir_gets_source_and_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_dumps_replace_planted_symlinks, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_kcache_disabled_and_env_folders, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_bad_name_and_arch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_other_arch_other_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kcache_compile_only_refuses_device_work, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_kcache_failing_allocations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rt_no_driver, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
