/* bench_fft — numpy.fft on the CUDA device (cuFFT between loom's kernels); bench/peers_fft.py
 * runs the same workloads with PyTorch and CuPy right after this program:
 *   fft_1d_16M     fft of one complex64 line of 2^24 points
 *   fft_rows       fft along the rows of 16384 x 1024 complex64
 *   fft_cols       fft along the columns of 1024 x 16384 complex64 (strided lines)
 *   power_rows     |fft(x * w)|^2 along the rows of 16384 x 1024 float32 x, w a 1024-point
 *                  window: the cast and window fuse into the kernel writing cuFFT's operand,
 *                  |.|^2 into the one reading its result.
 * The floor is the bytes the call itself must move at this card's copy rate, measured first
 * (bench_copy_tbps; FLOORS.md's 4.17 TB/s on the H200): 16 per element for complex64 in and
 * out; 8 for the power spectrum's float32 in and out (what a transform with fused loads and
 * stores would move). Timing as the other benches.
 *   fft_1d_64M     fft of one complex64 line of 2^26 points
 *   fft2_8192      fft2 of 8192 x 8192 complex64
 *   filter_128M    irfft(rfft(x) * h) of 2^27 float32 points, h the 2^26 + 1 complex64 gains
 *                  (floor: x in, the result out, h read once: 12 bytes a point)
 *   convolve_same  np.convolve(x, k, 'same') of 2^24 float32 points and 255 taps (floor: x in,
 *                  the result out; the 4.3 G multiply-adds are the real cost)
 *   conv_1M_K      the convolution of 2^20 float32 points with K (16 ... 4096) points, full
 *                  mode: direct (loom_convolve), through transforms (rfft, product, irfft of
 *                  the padded length), and loom_fftconvolve, with the form its cost rule picks. */
#include "bench_util.h"

static loom_ctx_t *ctx;

typedef struct work {
    loom_array_t *x, *w;
    int axis;
    bool power;
    int conv; /* 1 direct, 2 transforms, 3 loom_fftconvolve, 4 'same', 5 filter, 6 fft2 */
} work_t;

static void once(void *arg) {
    const work_t *k = arg;
    loom_scope_begin(ctx);
    loom_array_t *r;
    if (k->conv == 4) {
        r = loom_convolve(ctx, k->x, k->w, LOOM_CONV_SAME);
    } else if (k->conv == 5) {
        int64_t n = k->x->shape[0];
        r = loom_irfft(ctx,
                       loom_multiply(ctx, loom_rfft(ctx, k->x, LOOM_NONE, 0, LOOM_FFT_BACKWARD),
                                     k->w),
                       n, 0, LOOM_FFT_BACKWARD);
    } else if (k->conv == 6) {
        r = loom_fftn(ctx, k->x, 2, NULL, (int32_t[]){0, 1}, LOOM_FFT_BACKWARD);
    } else if (k->conv) {
        int64_t n = k->x->shape[0] + k->w->shape[0] - 1, m = 1;
        while (m < n) m *= 2;
        if (k->conv == 1)
            r = loom_convolve(ctx, k->x, k->w, LOOM_CONV_FULL);
        else if (k->conv == 3)
            r = loom_fftconvolve(ctx, k->x, k->w, LOOM_CONV_FULL);
        else
            r = loom_irfft(ctx,
                           loom_multiply(ctx, loom_rfft(ctx, k->x, m, 0, LOOM_FFT_BACKWARD),
                                         loom_rfft(ctx, k->w, m, 0, LOOM_FFT_BACKWARD)),
                           m, 0, LOOM_FFT_BACKWARD);
    } else if (k->power) {
        loom_array_t *f =
            loom_fft(ctx, loom_multiply(ctx, k->x, k->w), LOOM_NONE, k->axis, LOOM_FFT_BACKWARD);
        r = loom_real(ctx, loom_multiply(ctx, f, loom_conj(ctx, f)));
    } else {
        r = loom_fft(ctx, k->x, LOOM_NONE, k->axis, LOOM_FFT_BACKWARD);
    }
    loom_eval(ctx, 1, &r);
    loom_scope_end(ctx);
}

static double copy_tbps = 4.17; /* this card's, measured first (bench_copy_tbps) */

static void report(const char *name, double ms, double bytes) {
    double floor_us = bytes / (copy_tbps * 1e12) * 1e6;
    printf("%-14s %9.1f us   %.3f TB/s   floor %.1f us (%.2fx)\n", name, ms * 1e3,
           bytes / (ms * 1e-3) / 1e12, floor_us, ms * 1e3 / floor_us);
    fflush(stdout);
}

static loom_array_t *cplx(uint64_t seed, int nd, const int64_t *shape) {
    loom_array_t *c =
        loom_complex(ctx, loom_random_uniform(ctx, seed, LOOM_DTYPE_F32, nd, shape, -1, 1),
                     loom_random_uniform(ctx, seed + 1, LOOM_DTYPE_F32, nd, shape, -1, 1));
    loom_array_retain(c);
    loom_eval(ctx, 1, &c);
    return c;
}

int main(void) {
    if (!(ctx = bench_cuda_ctx())) return 77;
    copy_tbps = bench_copy_tbps(ctx);
    printf("floor: bytes moved at %.2f TB/s, this card's copy rate\n", copy_tbps);
    const double n = 16777216.0;
    int64_t line[1] = {1 << 24}, rows[2] = {16384, 1024}, cols[2] = {1024, 16384}, win[1] = {1024};
    work_t a = {cplx(1, 1, line), NULL, 0, false, 0};
    report("fft_1d_16M", bench_time_ms(ctx, once, &a, 9, 10, NULL), 16 * n);
    loom_array_release(a.x);
    work_t b = {cplx(3, 2, rows), NULL, 1, false, 0};
    report("fft_rows", bench_time_ms(ctx, once, &b, 9, 10, NULL), 16 * n);
    loom_array_release(b.x);
    work_t c = {cplx(5, 2, cols), NULL, 0, false, 0};
    report("fft_cols", bench_time_ms(ctx, once, &c, 9, 10, NULL), 16 * n);
    loom_array_release(c.x);
    work_t d = {bench_rand(ctx, 7, LOOM_DTYPE_F32, 2, rows, -1, 1),
                bench_rand(ctx, 8, LOOM_DTYPE_F32, 1, win, 0, 1), 1, true, 0};
    report("power_rows", bench_time_ms(ctx, once, &d, 9, 10, NULL), 8 * n);
    loom_array_release(d.x);
    loom_array_release(d.w);
    int64_t line64[1] = {1 << 26}, sq[2] = {8192, 8192}, n27[1] = {1 << 27},
            half[1] = {(1 << 26) + 1}, n24[1] = {1 << 24}, taps[1] = {255};
    work_t f = {cplx(11, 1, line64), NULL, 0, false, 0};
    report("fft_1d_64M", bench_time_ms(ctx, once, &f, 9, 5, NULL), 16 * 4 * n);
    loom_array_release(f.x);
    work_t g = {cplx(13, 2, sq), NULL, 0, false, 6};
    report("fft2_8192", bench_time_ms(ctx, once, &g, 9, 5, NULL), 16 * 4 * n);
    loom_array_release(g.x);
    work_t h = {bench_rand(ctx, 15, LOOM_DTYPE_F32, 1, n27, -1, 1), cplx(16, 1, half), 0, false,
                5};
    report("filter_128M", bench_time_ms(ctx, once, &h, 9, 3, NULL), 12 * 8 * n);
    loom_array_release(h.x);
    loom_array_release(h.w);
    work_t q = {bench_rand(ctx, 17, LOOM_DTYPE_F32, 1, n24, -1, 1),
                bench_rand(ctx, 18, LOOM_DTYPE_F32, 1, taps, -1, 1), 0, false, 4};
    report("convolve_same", bench_time_ms(ctx, once, &q, 9, 5, NULL), 8 * n);
    loom_array_release(q.x);
    loom_array_release(q.w);
    int64_t big = 1 << 20;
    work_t e = {bench_rand(ctx, 9, LOOM_DTYPE_F32, 1, &big, -1, 1), NULL, 0, false, 0};
    for (int64_t k = 16; k <= 4096; k *= 4) {
        e.w = bench_rand(ctx, 10, LOOM_DTYPE_F32, 1, &k, -1, 1);
        double t[3];
        for (int form = 0; form < 3; form++) {
            e.conv = form + 1;
            t[form] = bench_time_ms(ctx, once, &e, 9, 3, NULL) * 1e3;
        }
        printf("conv_1M_%-6lld direct %9.1f us   transforms %9.1f us   fftconvolve %9.1f us "
               "(rule: %s)\n",
               (long long)k, t[0], t[1], t[2], fe_fftconvolve_uses_fft(big, k) ? "fft" : "direct");
        fflush(stdout);
        loom_array_release(e.w);
    }
    loom_array_release(e.x);
    loom_ctx_destroy(ctx);
    return 0;
}
