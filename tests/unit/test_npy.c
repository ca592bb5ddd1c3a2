/* test_npy — .npy files: NumPy-written fixtures (tests/data/npy, from tools/gen_npy_fixtures.py)
 * of every dtype in C and Fortran order, both byte orders and format versions 1.0-3.0; round
 * trips through loom_npy_save and loom_npy_load; corrupt, truncated and unsupported files, each
 * a clear error naming the file; and what is at the target of a save: a failed save leaves the
 * old file whole, a FIFO, folder, socket or block device is refused (and left), a character
 * device is written as a stream, a symbolic link is refused (its target untouched). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "../support/check.h"

#ifndef LOOM_TEST_NPY_DIR
#define LOOM_TEST_NPY_DIR "tests/data/npy"
#endif

static const char *const dtype_names[LOOM_DTYPE_COUNT] = {
#define NAME(e, s, n) s,
    LOOM_DTYPE_LIST(NAME)
#undef NAME
};

/* The generator's element k of dtype d, as bits (see tools/gen_npy_fixtures.py). */
static uint64_t fixture_bits(loom_dtype_t d, int64_t k) {
    int64_t v = 3 * k - 5;
    double f = (double)v / 4;
    uint64_t bits;
    switch (d) {
        case LOOM_DTYPE_BOOL:
            return k % 3 != 0;
        case LOOM_DTYPE_F16:
            return loom_f64_to_f16(f);
        case LOOM_DTYPE_BF16:
            return loom_f64_to_bf16(f);
        case LOOM_DTYPE_F32: {
            float x = (float)f;
            uint32_t b;
            memcpy(&b, &x, 4);
            return b;
        }
        case LOOM_DTYPE_F64:
            memcpy(&bits, &f, 8);
            return bits;
        default: {
            size_t size = loom_dtype_size(d);
            bits = (uint64_t)v;
            return size == 8 ? bits : bits & ((UINT64_C(1) << (8 * size)) - 1);
        }
    }
}

/* The generator's element k of dtype d, as its bytes (complex: real part fixture_bits's float
 * value, imaginary part (k - 7) / 8). */
static void fixture_bytes(loom_dtype_t d, int64_t k, unsigned char *out) {
    if (d == LOOM_DTYPE_C64) {
        float p[2] = {(float)(3 * k - 5) / 4, (float)(k - 7) / 8};
        memcpy(out, p, sizeof p);
    } else if (d == LOOM_DTYPE_C128) {
        double p[2] = {(double)(3 * k - 5) / 4, (double)(k - 7) / 8};
        memcpy(out, p, sizeof p);
    } else {
        check_store_bits(d, out, fixture_bits(d, k));
    }
}

static void expect_fixture(loom_ctx_t *ctx, const char *file, loom_dtype_t d, int32_t ndim,
                           const int64_t *shape) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", LOOM_TEST_NPY_DIR, file);
    loom_array_t *a = loom_npy_load(ctx, path);
    if (loom_array_is_nil(a)) fail_msg("%s: %s", path, loom_ctx_message(ctx));
    assert_int_equal(loom_array_dtype(a), d);
    assert_int_equal(loom_array_ndim(a), ndim);
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; i++) {
        assert_int_equal(loom_array_dim(a, i), shape[i]);
        n *= shape[i];
    }
    size_t es = loom_dtype_size(d);
    unsigned char got[64 * 16], want[16];
    assert_true(n <= 64);
    assert_int_equal(loom_read(ctx, a, got, (size_t)n * es), LOOM_STATUS_OK);
    for (int64_t k = 0; k < n; k++) {
        fixture_bytes(d, k, want);
        if (memcmp(got + (size_t)k * es, want, es))
            fail_msg("%s: element %lld differs from the generator's", file, (long long)k);
    }
}

static void test_npy_fixtures_every_dtype_and_layout(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    const int64_t shape[3] = {2, 3, 4};
    for (int d = 0; d < LOOM_DTYPE_COUNT; d++) {
        char f[64];
        snprintf(f, sizeof f, "%s_c.npy", dtype_names[d]);
        expect_fixture(ctx, f, (loom_dtype_t)d, 3, shape);
        snprintf(f, sizeof f, "%s_f.npy", dtype_names[d]);
        expect_fixture(ctx, f, (loom_dtype_t)d, 3, shape);
        if (loom_dtype_size((loom_dtype_t)d) > 1 && d != LOOM_DTYPE_BF16) {
            snprintf(f, sizeof f, "%s_be.npy", dtype_names[d]);
            expect_fixture(ctx, f, (loom_dtype_t)d, 3, shape);
        }
    }
    loom_ctx_destroy(ctx);
}

static void test_npy_fixtures_versions_and_shapes(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    const int64_t shape[3] = {2, 3, 4}, empty[2] = {0, 3}, five = 5;
    expect_fixture(ctx, "float32_v2.npy", LOOM_DTYPE_F32, 3, shape);
    expect_fixture(ctx, "float32_v3.npy", LOOM_DTYPE_F32, 3, shape);
    expect_fixture(ctx, "float64_be_f_v2.npy", LOOM_DTYPE_F64, 3, shape);
    expect_fixture(ctx, "int16_1d.npy", LOOM_DTYPE_I16, 1, &five);
    expect_fixture(ctx, "int32_empty.npy", LOOM_DTYPE_I32, 2, empty);
    loom_array_t *z = loom_npy_load(ctx, LOOM_TEST_NPY_DIR "/float64_0d.npy");
    assert_false(loom_array_is_nil(z));
    assert_int_equal(loom_array_ndim(z), 0);
    double v = 0;
    assert_int_equal(loom_read(ctx, z, &v, sizeof v), LOOM_STATUS_OK);
    assert_true(v == -1.25);
    loom_ctx_destroy(ctx);
}

static char tmpdir[64];

static int setup_dir(void **state) {
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/loom-test-npy-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_dir(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_npy_round_trip_every_dtype(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    const int64_t shapes[][3] = {{2, 3, 4}, {0, 3, 1}, {1, 1, 7}};
    for (int d = 0; d < LOOM_DTYPE_COUNT; d++)
        for (int s = 0; s < 4; s++) {
            int32_t ndim = s == 3 ? 0 : 3;
            const int64_t *shape = shapes[s == 3 ? 0 : s]; /* 0-d: ndim 0, not a NULL shape */
            int64_t n = 1;
            for (int32_t i = 0; i < ndim; i++) n *= shape[i];
            size_t es = loom_dtype_size((loom_dtype_t)d);
            unsigned char bytes[24 * 16], got[24 * 16];
            for (int64_t k = 0; k < n; k++)
                fixture_bytes((loom_dtype_t)d, k + 11, bytes + (size_t)k * es);
            loom_array_t *a = loom_from_host(ctx, (loom_dtype_t)d, ndim, shape, bytes);
            char path[128];
            snprintf(path, sizeof path, "%s/rt_%d_%d.npy", tmpdir, d, s);
            assert_int_equal(loom_npy_save(ctx, a, path), LOOM_STATUS_OK);
            loom_array_t *b = loom_npy_load(ctx, path);
            if (loom_array_is_nil(b)) fail_msg("%s", loom_ctx_message(ctx));
            assert_int_equal(loom_array_dtype(b), d);
            assert_int_equal(loom_array_ndim(b), ndim);
            for (int32_t i = 0; i < ndim; i++) assert_int_equal(loom_array_dim(b, i), shape[i]);
            assert_int_equal(loom_read(ctx, b, got, (size_t)n * es), LOOM_STATUS_OK);
            assert_memory_equal(got, bytes, (size_t)n * es);
            /* The header is NumPy's: 64-byte aligned data, 'descr' first. */
            FILE *f = fopen(path, "rb");
            unsigned char head[64];
            assert_non_null(f);
            assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
            fclose(f);
            assert_int_equal((10 + head[8] + 256 * head[9]) % 64, 0);
            assert_memory_equal(head + 10, "{'descr': '", 11);
        }
    /* A lazy expression is evaluated by save. */
    int64_t n = 3;
    loom_array_t *x = loom_add_i(ctx, loom_arange(ctx, 0, 3, 1, LOOM_DTYPE_I32), 5);
    char path[128];
    snprintf(path, sizeof path, "%s/lazy.npy", tmpdir);
    assert_int_equal(loom_npy_save(ctx, x, path), LOOM_STATUS_OK);
    loom_array_t *y = loom_npy_load(ctx, path);
    int32_t v[3];
    assert_int_equal(loom_read(ctx, y, v, sizeof v), LOOM_STATUS_OK);
    assert_int_equal(v[0] + v[1] + v[2], 18);
    assert_int_equal(loom_array_dim(y, 0), n);
    loom_ctx_destroy(ctx);
}

/* Writes bytes to a file of the temp folder; returns its path (static buffer). */
static const char *write_file(const char *name, const void *data, size_t n) {
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
    return path;
}

/* A version-1 file with this header text (padded) and n data bytes. */
static const char *npy_with_header(const char *name, const char *dict, size_t data_bytes) {
    unsigned char buf[512] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    size_t hl = strlen(dict);
    size_t total = (10 + hl + 1 + 63) / 64 * 64;
    memcpy(buf + 10, dict, hl);
    memset(buf + 10 + hl, ' ', total - 10 - hl - 1);
    buf[total - 1] = '\n';
    buf[8] = (unsigned char)((total - 10) & 0xff);
    buf[9] = (unsigned char)((total - 10) >> 8);
    return write_file(name, buf, total + data_bytes);
}

static void expect_load_error(loom_ctx_t *ctx, const char *path, loom_status_t st,
                              const char *phrase) {
    loom_array_t *a = loom_npy_load(ctx, path);
    assert_true(loom_array_is_nil(a));
    assert_int_equal(loom_ctx_status(ctx), st);
    const char *msg = loom_ctx_message(ctx);
    if (!strstr(msg, path) || !strstr(msg, phrase))
        fail_msg("message \"%s\" lacks the path or \"%s\"", msg, phrase);
    loom_ctx_clear_error(ctx);
}

static void test_npy_corrupt_files(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    char missing[128];
    snprintf(missing, sizeof missing, "%s/no_such.npy", tmpdir);
    expect_load_error(ctx, missing, LOOM_STATUS_IO_ERROR, "No such file");
    expect_load_error(ctx, tmpdir, LOOM_STATUS_IO_ERROR, "not a regular file");
    expect_load_error(ctx, write_file("empty.npy", "", 0), LOOM_STATUS_IO_ERROR, "too short");
    expect_load_error(ctx, write_file("text.npy", "hello, world, not npy", 21),
                      LOOM_STATUS_IO_ERROR, "magic");
    expect_load_error(ctx, write_file("v9.npy", "\x93NUMPY\x09\x00\x10\x00{}", 12),
                      LOOM_STATUS_IO_ERROR, "version 9.0");
    expect_load_error(ctx, write_file("short_header.npy", "\x93NUMPY\x01\x00\x76\x00{'descr'", 18),
                      LOOM_STATUS_IO_ERROR, "truncated");
    const char *good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    expect_load_error(ctx, npy_with_header("short_data.npy", good, 20), LOOM_STATUS_IO_ERROR,
                      "24 data bytes expected, 20 present");
    expect_load_error(
        ctx,
        npy_with_header("c32.npy", "{'descr': '<c32', 'fortran_order': False, 'shape': (2,), }", 64),
        LOOM_STATUS_DTYPE_ERROR, "'<c32' is not supported");
    expect_load_error(
        ctx,
        npy_with_header("struct.npy",
                        "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8),
        LOOM_STATUS_IO_ERROR, "structured");
    expect_load_error(ctx, npy_with_header("nokey.npy", "{'descr': '<f4', 'shape': (2,), }", 8),
                      LOOM_STATUS_IO_ERROR, "lacks");
    expect_load_error(
        ctx,
        npy_with_header("extra.npy",
                        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8),
        LOOM_STATUS_IO_ERROR, "unknown key");
    expect_load_error(ctx,
                      npy_with_header("garbage.npy",
                                      "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }",
                                      8),
                      LOOM_STATUS_IO_ERROR, "corrupt header");
    expect_load_error(
        ctx,
        npy_with_header("ndim9.npy",
                        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }",
                        4),
        LOOM_STATUS_IO_ERROR, "more axes");
    /* The sticky error: a failed load leaves later calls failing until cleared. */
    assert_true(loom_array_is_nil(loom_npy_load(ctx, missing)));
    assert_true(loom_array_is_nil(loom_npy_load(ctx, LOOM_TEST_NPY_DIR "/float32_c.npy")));
    loom_ctx_clear_error(ctx);
    assert_false(loom_array_is_nil(loom_npy_load(ctx, LOOM_TEST_NPY_DIR "/float32_c.npy")));
    loom_ctx_destroy(ctx);
}

static void test_npy_save_errors(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 3;
    loom_array_t *a = loom_ones(ctx, LOOM_DTYPE_F32, 1, &n);
    char path[160];
    snprintf(path, sizeof path, "%s/no_such_dir/x.npy", tmpdir);
    assert_int_equal(loom_npy_save(ctx, a, path), LOOM_STATUS_IO_ERROR);
    assert_non_null(strstr(loom_ctx_message(ctx), path));
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_npy_save(ctx, NULL, path), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_npy_save(ctx, a, NULL), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_true(loom_array_is_nil(loom_npy_load(NULL, path)));
    loom_ctx_destroy(ctx);
}

/* ---- what is at the target ---- */

/* The whole content of a file (at most cap bytes) and its length; -1 if it cannot be read. */
static long slurp(const char *path, unsigned char *buf, size_t cap) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return (long)n;
}

/* Fails the test if the temp folder holds a leftover temp file (a name starting with '.'). */
static void expect_no_temp_files(void) {
    DIR *d = opendir(tmpdir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            fail_msg("temp file %s/%s left behind", tmpdir, e->d_name);
    closedir(d);
}

static mode_t kind_of(const char *path) {
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    return st.st_mode & S_IFMT;
}

static void test_npy_save_failure_keeps_old_file(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    char path[160];
    snprintf(path, sizeof path, "%s/keep.npy", tmpdir);
    int64_t three = 3, big = 1 << 16;
    assert_int_equal(loom_npy_save(ctx, loom_ones(ctx, LOOM_DTYPE_F32, 1, &three), path),
                     LOOM_STATUS_OK);
    unsigned char before[256], after[256];
    long n_before = slurp(path, before, sizeof before);
    assert_true(n_before > 0);
    /* A file size limit makes the write fail with EFBIG, even for root. */
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 4096;
    void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    loom_status_t st = loom_npy_save(ctx, loom_ones(ctx, LOOM_DTYPE_F32, 1, &big), path);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, old_sig);
    assert_int_equal(st, LOOM_STATUS_IO_ERROR);
    const char *msg = loom_ctx_message(ctx);
    if (!strstr(msg, path) || !strstr(msg, strerror(EFBIG)))
        fail_msg("message \"%s\" lacks the path or \"%s\"", msg, strerror(EFBIG));
    loom_ctx_clear_error(ctx);
    assert_int_equal(slurp(path, after, sizeof after), n_before);
    assert_memory_equal(after, before, (size_t)n_before);
    expect_no_temp_files();
    loom_ctx_destroy(ctx);
}

/* Saving to path must fail with IO_ERROR, name the path and `what`, and leave the node. */
static void expect_save_refused(loom_ctx_t *ctx, loom_array_t *a, const char *path,
                                const char *what) {
    mode_t kind = kind_of(path);
    alarm(10); /* a save that opens a FIFO blocks for a reader: the alarm fails the test */
    loom_status_t st = loom_npy_save(ctx, a, path);
    alarm(0);
    assert_int_equal(st, LOOM_STATUS_IO_ERROR);
    const char *msg = loom_ctx_message(ctx);
    if (!strstr(msg, path) || !strstr(msg, what))
        fail_msg("message \"%s\" lacks the path or \"%s\"", msg, what);
    loom_ctx_clear_error(ctx);
    assert_int_equal(kind_of(path), kind);
}

static void test_npy_save_refuses_non_regular_targets(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t three = 3;
    loom_array_t *a = loom_ones(ctx, LOOM_DTYPE_F32, 1, &three);
    char path[160];
    snprintf(path, sizeof path, "%s/fifo.npy", tmpdir);
    assert_int_equal(mkfifo(path, 0600), 0);
    expect_save_refused(ctx, a, path, "is a FIFO");
    snprintf(path, sizeof path, "%s/dir.npy", tmpdir);
    assert_int_equal(mkdir(path, 0700), 0);
    expect_save_refused(ctx, a, path, "is a folder");
    /* refused before the array is evaluated: a lazy 8 TB array gives the refusal, not
     * OUT_OF_MEMORY from the buffer it would have been read into first */
    int64_t huge = INT64_C(1) << 40;
    expect_save_refused(ctx, loom_zeros(ctx, LOOM_DTYPE_F64, 1, &huge), path, "is a folder");
    snprintf(path, sizeof path, "%s/sock.npy", tmpdir);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    assert_true(strlen(path) < sizeof sa.sun_path);
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(s >= 0);
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    expect_save_refused(ctx, a, path, "is a socket");
    close(s);
    /* Device nodes of our own (root only): a block device is refused; character devices are
     * written as streams and never replaced or deleted, even when the write fails. */
    snprintf(path, sizeof path, "%s/blk.npy", tmpdir);
    if (mknod(path, S_IFBLK | 0600, makedev(240, 0)) == 0) {
        expect_save_refused(ctx, a, path, "is a block device");
        snprintf(path, sizeof path, "%s/null.npy", tmpdir);
        assert_int_equal(mknod(path, S_IFCHR | 0600, makedev(1, 3)), 0);
        assert_int_equal(loom_npy_save(ctx, a, path), LOOM_STATUS_OK);
        assert_int_equal(kind_of(path), S_IFCHR);
        snprintf(path, sizeof path, "%s/full.npy", tmpdir);
        assert_int_equal(mknod(path, S_IFCHR | 0600, makedev(1, 7)), 0);
        expect_save_refused(ctx, a, path, strerror(ENOSPC));
    } else {
        assert_int_equal(errno, EPERM);
    }
    expect_no_temp_files();
    loom_ctx_destroy(ctx);
}

/* A symbolic link at the target is refused and left, and its target untouched (replacing it
 * would undo what the user set up; following it lets a planted link aim the write), unless it
 * leads to a character device, which is written as a stream. */
static void test_npy_save_refuses_symlink_keeps_target(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    char victim[160], link[160], dangling[160];
    snprintf(victim, sizeof victim, "%s/victim", tmpdir);
    snprintf(link, sizeof link, "%s/link.npy", tmpdir);
    snprintf(dangling, sizeof dangling, "%s/dangling.npy", tmpdir);
    write_file("victim", "precious", 8);
    assert_int_equal(symlink(victim, link), 0);
    assert_int_equal(symlink("no_such_target", dangling), 0);
    int64_t three = 3;
    loom_array_t *a = loom_ones(ctx, LOOM_DTYPE_F32, 1, &three);
    expect_save_refused(ctx, a, link, "is a symbolic link");
    expect_save_refused(ctx, a, dangling, "is a symbolic link");
    unsigned char buf[64];
    assert_int_equal(slurp(victim, buf, sizeof buf), 8);
    assert_memory_equal(buf, "precious", 8);
    char dev[160], dev_link[160];
    snprintf(dev, sizeof dev, "%s/null_dev", tmpdir);
    snprintf(dev_link, sizeof dev_link, "%s/null_link.npy", tmpdir);
    if (mknod(dev, S_IFCHR | 0600, makedev(1, 3)) == 0) { /* root only */
        assert_int_equal(symlink(dev, dev_link), 0);
        assert_int_equal(loom_npy_save(ctx, a, dev_link), LOOM_STATUS_OK);
        assert_int_equal(kind_of(dev_link), S_IFLNK);
        assert_int_equal(kind_of(dev), S_IFCHR);
    }
    expect_no_temp_files();
    loom_ctx_destroy(ctx);
}

static void test_npy_load_fifo_fails_promptly(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    char path[160], link[160];
    snprintf(path, sizeof path, "%s/in_fifo.npy", tmpdir);
    snprintf(link, sizeof link, "%s/in_fifo_link.npy", tmpdir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(symlink(path, link), 0);
    alarm(10); /* opening a FIFO without a writer blocks: the alarm fails the test */
    expect_load_error(ctx, path, LOOM_STATUS_IO_ERROR, "not a regular file (a FIFO)");
    expect_load_error(ctx, link, LOOM_STATUS_IO_ERROR, "not a regular file (a FIFO)");
    alarm(0);
    /* A symbolic link to a regular file is followed: user-named inputs often are links. */
    snprintf(link, sizeof link, "%s/fixture_link.npy", tmpdir);
    assert_int_equal(symlink(LOOM_TEST_NPY_DIR "/float32_c.npy", link), 0);
    assert_false(loom_array_is_nil(loom_npy_load(ctx, link)));
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_npy_fixtures_every_dtype_and_layout),
        cmocka_unit_test(test_npy_fixtures_versions_and_shapes),
        cmocka_unit_test(test_npy_round_trip_every_dtype),
        cmocka_unit_test(test_npy_corrupt_files),
        cmocka_unit_test(test_npy_save_errors),
        cmocka_unit_test(test_npy_save_failure_keeps_old_file),
        cmocka_unit_test(test_npy_save_refuses_non_regular_targets),
        cmocka_unit_test(test_npy_save_refuses_symlink_keeps_target),
        cmocka_unit_test(test_npy_load_fifo_fails_promptly),
    };
    return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
