/* test_runtime.c — the runtime on a real GPU: pool reuse and OOM, staged copies of odd sizes
 * from unaligned host memory, a hand-written vector add, memset/d2d, events, trim.
 * Exits 77 (skipped) when there is no driver or no device. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/rt.h"

#include "../support/tmpdir.h"

typedef struct fx {
    base_alloc_t al;
    base_error_t err;
    rt_device_t *d;
    char dir[64];
} fx_t;

static loom_status_t open_dev(fx_t *f) {
    rt_options_t o = {0};
    snprintf(f->dir, sizeof f->dir, "/tmp/loom-gpu-XXXXXX");
    if (!mkdtemp(f->dir)) return LOOM_STATUS_IO_ERROR;
    o.cache_dir = f->dir;
    f->al.fail_after = -1;
    return rt_device_create(&f->al, &f->err, NULL, &o, &f->d);
}

static int setup(void **state) {
    fx_t *f = calloc(1, sizeof *f);
    *state = f;
    return open_dev(f) == LOOM_STATUS_OK ? 0 : -1;
}

static int teardown(void **state) {
    fx_t *f = *state;
    rt_device_destroy(f->d);
    tmpdir_remove(f->dir);
    assert_int_equal(f->al.n_live, 0);
    free(f);
    return 0;
}

static rt_stats_t stats_of(rt_device_t *d) {
    rt_stats_t s;
    rt_device_stats(d, &s);
    return s;
}

static void test_gpu_device_facts(void **state) {
    fx_t *f = *state;
    print_message("device: %s, %d SMs\n", rt_device_name(f->d), rt_device_sm_count(f->d));
    assert_true(rt_device_sm_count(f->d) > 0);
    assert_non_null(strstr(rt_device_name(f->d), rt_device_arch(f->d)));
    assert_non_null(rt_device_stream(f->d));
    assert_non_null(rt_device_context(f->d));
}

/* LOOM_POOL=0 (the compute-sanitizer runs): blocks go back to the driver at once. */
static bool pool_off(void) {
    const char *pool = getenv("LOOM_POOL");
    return pool && !strcmp(pool, "0");
}

static void test_gpu_pool_reuse(void **state) {
    fx_t *f = *state;
    uint64_t a, b;
    if (pool_off()) { /* no reuse */
        assert_int_equal(rt_alloc(f->d, 1 << 20, &a), LOOM_STATUS_OK);
        rt_free(f->d, a);
        assert_int_equal(stats_of(f->d).pool_held, 0);
        return;
    }
    assert_int_equal(rt_alloc(f->d, 1 << 20, &a), LOOM_STATUS_OK);
    assert_int_equal(a % 256, 0);
    rt_free(f->d, a);
    uint64_t allocs = stats_of(f->d).pool_driver_allocs;
    assert_int_equal(rt_alloc(f->d, 1 << 20, &b), LOOM_STATUS_OK);
    assert_int_equal(b, a);
    rt_stats_t s = stats_of(f->d);
    assert_int_equal(s.pool_driver_allocs, allocs);
    assert_int_equal(s.pool_reuses, 1);
    assert_int_equal(s.pool_in_use, 1 << 20);
    assert_int_equal(s.pool_held, 1 << 20);
    assert_int_equal(s.pool_peak, 1 << 20);
    rt_free(f->d, b);
}

static void test_gpu_out_of_memory(void **state) {
    fx_t *f = *state;
    uint64_t a, big;
    assert_int_equal(rt_alloc(f->d, 4096, &a), LOOM_STATUS_OK);
    rt_free(f->d, a); /* something cached, to exercise the release-and-retry path */
    assert_int_equal(rt_alloc(f->d, (size_t)1 << 50, &big), LOOM_STATUS_OUT_OF_MEMORY);
    assert_int_equal(big, 0);
    print_message("OOM message: %s\n", f->err.message);
    assert_non_null(strstr(f->err.message, "1125899906842624 bytes"));
    assert_non_null(strstr(f->err.message, "in use"));
    assert_non_null(strstr(f->err.message, "held"));
    assert_int_equal(stats_of(f->d).pool_held, 0); /* the retry gave the cache back */
    base_error_clear(&f->err);
    assert_int_equal(rt_alloc(f->d, 4096, &a), LOOM_STATUS_OK); /* still usable */
    rt_free(f->d, a);
}

static void test_gpu_copies_round_trip(void **state) {
    fx_t *f = *state;
    const size_t mib = (size_t)1 << 20;
    size_t sizes[] = {1,           2,       3,           255,          4097,
                      4 * mib - 1, 4 * mib, 4 * mib + 1, 13 * mib + 5, 64 * mib + 3};
    for (size_t t = 0; t < BASE_ARRAY_LEN(sizes); t++) {
        size_t n = sizes[t], shift = 1 + t % 3;
        unsigned char *src = malloc(n + 4), *keep = malloc(n), *back = malloc(n + 4);
        for (size_t i = 0; i < n; i++)
            keep[i] = (unsigned char)(i * 2654435761u >> 13) ^ (unsigned char)t;
        memcpy(src + shift, keep, n);
        uint64_t dev;
        assert_int_equal(rt_alloc(f->d, n, &dev), LOOM_STATUS_OK);
        assert_int_equal(rt_memset(f->d, dev, 0, n), LOOM_STATUS_OK);
        assert_int_equal(rt_h2d(f->d, dev, src + shift, n), LOOM_STATUS_OK);
        memset(src, 0x5A, n + 4); /* rt_h2d returned: the source is free to reuse */
        memset(back, 0xA5, n + 4);
        assert_int_equal(rt_d2h(f->d, back + shift, dev, n), LOOM_STATUS_OK);
        assert_memory_equal(back + shift, keep, n);
        assert_int_equal(back[shift - 1], 0xA5);
        assert_int_equal(back[shift + n], 0xA5);
        rt_free(f->d, dev);
        free(src);
        free(keep);
        free(back);
    }
    /* copies count DMA operations: one per staging buffer a pageable copy passes through */
    rt_stats_t s = stats_of(f->d);
    size_t total = 0;
    for (size_t t = 0; t < BASE_ARRAY_LEN(sizes); t++) total += sizes[t];
    assert_true(s.h2d_copies >= BASE_ARRAY_LEN(sizes));
    assert_true(s.d2h_copies >= BASE_ARRAY_LEN(sizes));
    assert_int_equal(s.h2d_bytes, total);
    assert_int_equal(s.d2h_bytes, total);
}

static void test_gpu_copy_bandwidth(void **state) {
    fx_t *f = *state;
    size_t n = (size_t)512 << 20;
    unsigned char *h = malloc(n);
    memset(h, 1, n);
    uint64_t dev;
    assert_int_equal(rt_alloc(f->d, n, &dev), LOOM_STATUS_OK);
    assert_int_equal(rt_h2d(f->d, dev, h, n), LOOM_STATUS_OK); /* warm up */
    assert_int_equal(rt_sync(f->d), LOOM_STATUS_OK);
    double t0 = base_now_ms();
    for (int r = 0; r < 3; r++) assert_int_equal(rt_h2d(f->d, dev, h, n), LOOM_STATUS_OK);
    assert_int_equal(rt_sync(f->d), LOOM_STATUS_OK);
    double h2d = 3.0 * (double)n / ((base_now_ms() - t0) * 1e6);
    t0 = base_now_ms();
    for (int r = 0; r < 3; r++) assert_int_equal(rt_d2h(f->d, h, dev, n), LOOM_STATUS_OK);
    double d2h = 3.0 * (double)n / ((base_now_ms() - t0) * 1e6);
    print_message("pageable copies of 512 MiB: h2d %.1f GB/s (staged), d2h %.1f GB/s\n", h2d, d2h);
    void *pin = NULL;
    assert_int_equal(rt_host_alloc(f->d, n, &pin), LOOM_STATUS_OK);
    memset(pin, 3, n);
    t0 = base_now_ms();
    for (int r = 0; r < 3; r++) assert_int_equal(rt_h2d(f->d, dev, pin, n), LOOM_STATUS_OK);
    assert_int_equal(rt_sync(f->d), LOOM_STATUS_OK);
    h2d = 3.0 * (double)n / ((base_now_ms() - t0) * 1e6);
    t0 = base_now_ms();
    for (int r = 0; r < 3; r++) assert_int_equal(rt_d2h(f->d, h, dev, n), LOOM_STATUS_OK);
    d2h = 3.0 * (double)n / ((base_now_ms() - t0) * 1e6);
    t0 = base_now_ms();
    for (int r = 0; r < 3; r++) assert_int_equal(rt_d2h(f->d, pin, dev, n), LOOM_STATUS_OK);
    double d2p = 3.0 * (double)n / ((base_now_ms() - t0) * 1e6);
    print_message("from pinned: h2d %.1f GB/s; d2h to pageable %.1f GB/s, to pinned %.1f GB/s\n",
                  h2d, d2h, d2p);
    assert_int_equal(((unsigned char *)h)[n - 1], 3);
    assert_true(h2d > 20); /* direct DMA, not staged (~53 GB/s on an H200) */
    rt_host_free(f->d, pin);
    rt_free(f->d, dev);
    free(h);
}

static const char *const vadd_src =
    "extern \"C\" __global__ void vadd(const float *a, const float *b, float *c, long n) {\n"
    "    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n"
    "    long s = (long)gridDim.x * blockDim.x;\n"
    "    for (; i < n; i += s) c[i] = a[i] + b[i];\n"
    "}\n";

static void test_gpu_vector_add(void **state) {
    fx_t *f = *state;
    long n = (1L << 20) + 7;
    size_t bytes = (size_t)n * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    for (long i = 0; i < n; i++) {
        a[i] = (float)i * 0.5f;
        b[i] = (float)(n - i) * 0.25f;
    }
    uint64_t da, db, dc;
    assert_int_equal(rt_alloc(f->d, bytes, &da), LOOM_STATUS_OK);
    assert_int_equal(rt_alloc(f->d, bytes, &db), LOOM_STATUS_OK);
    assert_int_equal(rt_alloc(f->d, bytes, &dc), LOOM_STATUS_OK);
    assert_int_equal(rt_h2d(f->d, da, a, bytes), LOOM_STATUS_OK);
    assert_int_equal(rt_h2d(f->d, db, b, bytes), LOOM_STATUS_OK);
    rt_kernel_t *k = NULL;
    base_hash128_t key = {0xadd, 0xadd};
    assert_null(rt_kernel_find(f->d, key));
    assert_int_equal(rt_kernel_build(f->d, key, "vadd", vadd_src, &k), LOOM_STATUS_OK);
    void *params[] = {&da, &db, &dc, &n};
    rt_event_t *e0, *e1;
    assert_int_equal(rt_event_create(f->d, &e0), LOOM_STATUS_OK);
    assert_int_equal(rt_event_create(f->d, &e1), LOOM_STATUS_OK);
    assert_int_equal(rt_event_record(f->d, e0), LOOM_STATUS_OK);
    assert_int_equal(rt_launch(f->d, k, (uint32_t)rt_device_sm_count(f->d) * 4, 256, params),
                     LOOM_STATUS_OK);
    assert_int_equal(rt_event_record(f->d, e1), LOOM_STATUS_OK);
    float ms = -1;
    assert_int_equal(rt_event_elapsed_ms(f->d, e0, e1, &ms), LOOM_STATUS_OK);
    assert_true(ms >= 0);
    rt_event_destroy(f->d, e0);
    rt_event_destroy(f->d, e1);
    assert_int_equal(rt_d2h(f->d, c, dc, bytes), LOOM_STATUS_OK);
    for (long i = 0; i < n; i++)
        if (c[i] != a[i] + b[i]) fail_msg("c[%ld] = %g, want %g", i, c[i], a[i] + b[i]);
    assert_ptr_equal(rt_kernel_find(f->d, key), k);
    rt_stats_t s = stats_of(f->d);
    assert_int_equal(s.launches, 1);
    assert_int_equal(s.kernel_compiles + s.kernel_disk_hits, 1);

    /* A bad launch (block too large) is a DEVICE_ERROR naming the kernel, not a crash. */
    assert_int_equal(rt_launch(f->d, k, 1, 4096, params), LOOM_STATUS_DEVICE_ERROR);
    assert_non_null(strstr(f->err.message, "vadd"));
    base_error_clear(&f->err);
    assert_int_equal(rt_sync(f->d), LOOM_STATUS_OK);

    /* d2d copy of the result, then check one region. */
    uint64_t dd;
    assert_int_equal(rt_alloc(f->d, bytes, &dd), LOOM_STATUS_OK);
    assert_int_equal(rt_d2d(f->d, dd, dc, bytes), LOOM_STATUS_OK);
    memset(c, 0, bytes);
    assert_int_equal(rt_d2h(f->d, c, dd, bytes), LOOM_STATUS_OK);
    assert_true(c[n - 1] == a[n - 1] + b[n - 1]);
    rt_free(f->d, da);
    rt_free(f->d, db);
    rt_free(f->d, dc);
    rt_free(f->d, dd);
    free(a);
    free(b);
    free(c);
}

static void test_gpu_second_device_object_hits_disk(void **state) {
    fx_t *f = *state;
    rt_kernel_t *k = NULL;
    base_hash128_t key = {0xadd, 0xadd};
    assert_int_equal(rt_kernel_build(f->d, key, "vadd", vadd_src, &k), LOOM_STATUS_OK);
    rt_options_t o = {0};
    o.cache_dir = f->dir;
    rt_device_t *d2 = NULL;
    assert_int_equal(rt_device_create(&f->al, &f->err, NULL, &o, &d2), LOOM_STATUS_OK);
    assert_int_equal(rt_kernel_build(d2, key, "vadd", vadd_src, &k), LOOM_STATUS_OK);
    rt_stats_t s = stats_of(d2);
    assert_int_equal(s.kernel_compiles, 0);
    assert_int_equal(s.kernel_disk_hits, 1);
    rt_device_destroy(d2); /* releases its primary-context reference; f->d still works */
    uint64_t p;
    assert_int_equal(rt_alloc(f->d, 64, &p), LOOM_STATUS_OK);
    assert_int_equal(rt_memset(f->d, p, 7, 64), LOOM_STATUS_OK);
    unsigned char back[64];
    assert_int_equal(rt_d2h(f->d, back, p, 64), LOOM_STATUS_OK);
    assert_int_equal(back[63], 7);
    rt_free(f->d, p);
}

static void test_gpu_trim(void **state) {
    fx_t *f = *state;
    uint64_t p[8];
    for (int i = 0; i < 8; i++)
        assert_int_equal(rt_alloc(f->d, (size_t)(i + 1) << 20, &p[i]), LOOM_STATUS_OK);
    for (int i = 0; i < 8; i++) rt_free(f->d, p[i]);
    rt_stats_t s = stats_of(f->d);
    assert_int_equal(s.pool_in_use, 0);
    assert_true(pool_off() ? s.pool_held == 0 : s.pool_held > 0);
    rt_trim(f->d);
    s = stats_of(f->d);
    assert_int_equal(s.pool_held, 0);
    assert_true(s.pool_peak >= (size_t)36 << 20);
    assert_int_equal(f->err.status, LOOM_STATUS_OK);
}

int main(void) {
    fx_t probe = {0};
    loom_status_t st = open_dev(&probe);
    if (st == LOOM_STATUS_NO_DRIVER || st == LOOM_STATUS_NO_DEVICE) {
        printf("skipped: %s\n", probe.err.message);
        rmdir(probe.dir);
        return 77;
    }
    rt_device_destroy(probe.d);
    rmdir(probe.dir);
    if (st != LOOM_STATUS_OK) {
        printf("rt_device_create: %s\n", probe.err.message);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_gpu_device_facts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gpu_pool_reuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gpu_out_of_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gpu_copies_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gpu_copy_bandwidth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gpu_vector_add, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gpu_second_device_object_hits_disk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gpu_trim, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
