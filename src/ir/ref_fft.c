/* ref_fft.c — the reference device's discrete Fourier transform: any length, in double, for
 * numpy.fft's functions and fftconvolve on the CPU device (the CUDA device calls cuFFT).
 *
 * Lengths whose prime factors are all at most MAX_RADIX run a mixed-radix decimation in time
 * (radix 4 first, then 2, 3, 5, ... as kissfft orders them), each stage a generic butterfly over
 * the length's own twiddle table, which is computed in long double from exact angles (k / n
 * reduced first). Other lengths run Bluestein's algorithm: the chirp z transform as a cyclic
 * convolution of a power-of-two length m >= 2n - 1, itself mixed radix. Accuracy is what a
 * double FFT gives: errors of a few ulps times log2(n) relative to the largest element, which
 * the unit test checks against a direct transform in long double. */
#include <math.h>
#include <string.h>

#include "ir.h"

#define MAX_RADIX   13 /* larger prime factors go through Bluestein */
#define MAX_FACTORS 64

struct ir_fft_plan {
    int64_t n;
    int n_factors;
    int64_t factors[2 * MAX_FACTORS]; /* (radix p, remaining length m) pairs */
    double *tw;                       /* n twiddles exp(-2 pi i k / n), interleaved */
    /* Bluestein (n has a prime factor past MAX_RADIX) */
    int64_t m;
    struct ir_fft_plan *sub; /* length m, mixed radix */
    double *chirp;           /* n values exp(-pi i k^2 / n) */
    double *bfft;            /* m values: the forward transform of the chirp's conjugate */
    base_alloc_t *al;
};

/* exp(-2 pi i num / den) for 0 <= num < den, in long double. */
static void unit_root(int64_t num, int64_t den, double *re, double *im) {
    long double a =
        -2.0L * 3.141592653589793238462643383279502884L * (long double)num / (long double)den;
    *re = (double)cosl(a);
    *im = (double)sinl(a);
}

static bool factorise(ir_fft_plan_t *p, int64_t n) {
    int k = 0;
    int64_t r = n;
    while (r > 1) {
        int64_t f = r % 4 == 0 ? 4 : r % 2 == 0 ? 2 : 0;
        for (int64_t q = 3; !f && q <= MAX_RADIX; q += 2)
            if (r % q == 0) f = q;
        if (!f || k == MAX_FACTORS) return false;
        r /= f;
        p->factors[2 * k] = f;
        p->factors[2 * k + 1] = r;
        k++;
    }
    p->n_factors = k;
    return true;
}

void ir_fft_plan_free(ir_fft_plan_t *p) {
    if (!p) return;
    ir_fft_plan_free(p->sub);
    base_free(p->al, p->tw);
    base_free(p->al, p->chirp);
    base_free(p->al, p->bfft);
    base_free(p->al, p);
}

size_t ir_fft_scratch_doubles(const ir_fft_plan_t *p) {
    /* mixed radix: the butterfly's p values and an output copy of n; Bluestein: two of m */
    int64_t len = p->sub ? 2 * p->m + (int64_t)ir_fft_scratch_doubles(p->sub) : 2 * p->n;
    return (size_t)(len + 2 * MAX_RADIX + 2);
}

/* out[k * m + j] over the stage: kissfft's kf_work as a loop of generic butterflies. */
static void work(const ir_fft_plan_t *p, double *out, const double *in, int64_t fstride,
                 int64_t in_stride, const int64_t *f, int sign, double *sc) {
    int64_t radix = f[0], m = f[1];
    if (m == 1) {
        for (int64_t k = 0; k < radix; k++) {
            out[2 * k] = in[2 * k * fstride * in_stride];
            out[2 * k + 1] = in[2 * k * fstride * in_stride + 1];
        }
    } else {
        for (int64_t k = 0; k < radix; k++)
            work(p, out + 2 * k * m, in + 2 * k * fstride * in_stride, fstride * radix, in_stride,
                 f + 2, sign, sc);
    }
    /* the butterflies of this stage: radix values m apart, twiddled */
    int64_t n = p->n;
    for (int64_t u = 0; u < m; u++) {
        for (int64_t q = 0; q < radix; q++) {
            sc[2 * q] = out[2 * (u + q * m)];
            sc[2 * q + 1] = out[2 * (u + q * m) + 1];
        }
        for (int64_t q1 = 0; q1 < radix; q1++) {
            int64_t k = u + q1 * m;
            double re = sc[0], im = sc[1];
            int64_t step = fstride * k % n, at = 0;
            for (int64_t q = 1; q < radix; q++) {
                at += step;
                if (at >= n) at -= n;
                double wr = p->tw[2 * at], wi = -sign * p->tw[2 * at + 1];
                re += sc[2 * q] * wr - sc[2 * q + 1] * wi;
                im += sc[2 * q] * wi + sc[2 * q + 1] * wr;
            }
            out[2 * k] = re;
            out[2 * k + 1] = im;
        }
    }
}

static void mixed(const ir_fft_plan_t *p, double *data, int sign, double *sc) {
    if (p->n <= 1) return;
    double *out = sc, *bf = sc + 2 * p->n;
    work(p, out, data, 1, 1, p->factors, sign, bf);
    memcpy(data, out, (size_t)p->n * 2 * sizeof *data);
}

void ir_fft_exec(const ir_fft_plan_t *p, double *data, int sign, double *sc) {
    if (!p->sub) {
        mixed(p, data, sign, sc);
        return;
    }
    /* Bluestein: X_k = w_k sum_j (x_j w_j) conj(w_{k-j}), w_k = exp(-pi i k^2 / n) (forward;
     * conjugates backward), the sum a cyclic convolution of length m */
    int64_t n = p->n, m = p->m;
    double *a = sc, *rest = sc + 2 * m;
    memset(a, 0, (size_t)m * 2 * sizeof *a);
    for (int64_t k = 0; k < n; k++) {
        double wr = p->chirp[2 * k], wi = -sign * p->chirp[2 * k + 1];
        a[2 * k] = data[2 * k] * wr - data[2 * k + 1] * wi;
        a[2 * k + 1] = data[2 * k] * wi + data[2 * k + 1] * wr;
    }
    mixed(p->sub, a, -1, rest);
    for (int64_t k = 0; k < m; k++) { /* times the transform of conj(w) (of w backward) */
        double br = p->bfft[2 * k], bi = p->bfft[2 * k + 1];
        if (sign > 0) { /* conj(w) -> w: its transform is the conjugate at -k */
            int64_t mk = k ? m - k : 0;
            br = p->bfft[2 * mk];
            bi = -p->bfft[2 * mk + 1];
        }
        double re = a[2 * k] * br - a[2 * k + 1] * bi, im = a[2 * k] * bi + a[2 * k + 1] * br;
        a[2 * k] = re;
        a[2 * k + 1] = im;
    }
    mixed(p->sub, a, 1, rest);
    for (int64_t k = 0; k < n; k++) {
        double re = a[2 * k] / (double)m, im = a[2 * k + 1] / (double)m;
        double wr = p->chirp[2 * k], wi = -sign * p->chirp[2 * k + 1];
        data[2 * k] = re * wr - im * wi;
        data[2 * k + 1] = re * wi + im * wr;
    }
}

/* k^2 mod m (m <= 2^41), without overflow: shifts and adds. */
static int64_t sqmod(int64_t k, int64_t m) {
    uint64_t a = (uint64_t)(k % m), b = a, r = 0, um = (uint64_t)m;
    if (a < (1u << 31)) return (int64_t)(a * a % um);
    while (b) {
        if (b & 1) r = (r + a) % um;
        a = (a << 1) % um;
        b >>= 1;
    }
    return (int64_t)r;
}

ir_fft_plan_t *ir_fft_plan_new(int64_t n, base_alloc_t *al) {
    if (n < 0 || n > ((int64_t)1 << 40)) return NULL;
    ir_fft_plan_t *p = base_calloc(al, 1, sizeof *p);
    if (!p) return NULL;
    p->al = al;
    p->n = n;
    if (n <= 1 || factorise(p, n)) {
        p->tw = base_malloc(al, (size_t)(n ? n : 1), 2 * sizeof *p->tw);
        if (!p->tw) goto fail;
        for (int64_t k = 0; k < n; k++) unit_root(k, n, &p->tw[2 * k], &p->tw[2 * k + 1]);
        return p;
    }
    int64_t m = 1;
    while (m < 2 * n - 1) m *= 2;
    p->m = m;
    p->sub = ir_fft_plan_new(m, al);
    p->chirp = base_malloc(al, (size_t)n, 2 * sizeof *p->chirp);
    p->bfft = base_calloc(al, (size_t)m, 2 * sizeof *p->bfft);
    double *sc = p->sub ? base_malloc(al, ir_fft_scratch_doubles(p->sub), sizeof *sc) : NULL;
    if (!p->sub || !p->chirp || !p->bfft || !sc) {
        base_free(al, sc);
        goto fail;
    }
    for (int64_t k = 0; k < n; k++) /* exp(-pi i k^2 / n) = exp(-2 pi i (k^2 mod 2n) / 2n) */
        unit_root(sqmod(k, 2 * n), 2 * n, &p->chirp[2 * k], &p->chirp[2 * k + 1]);
    for (int64_t k = 0; k < n; k++) { /* conj(w) at k and at -k (cyclically) */
        p->bfft[2 * k] = p->chirp[2 * k];
        p->bfft[2 * k + 1] = -p->chirp[2 * k + 1];
        if (k) {
            p->bfft[2 * (m - k)] = p->chirp[2 * k];
            p->bfft[2 * (m - k) + 1] = -p->chirp[2 * k + 1];
        }
    }
    mixed(p->sub, p->bfft, -1, sc);
    base_free(al, sc);
    return p;
fail:
    ir_fft_plan_free(p);
    return NULL;
}

/* ---- FFT nodes ---- */

/* One pass of an FFT node: every line along axis ax of the source (data p, element strides s,
 * complex of `cdt`, or real of `rdt` when `real_in`), transformed with `sign` into out (C order,
 * extents oshape; complex, or real when `real_out`). A real input line is widened to complex;
 * the first oshape[ax] outputs of a line are kept (R2C: n / 2 + 1). A Hermitian half line
 * (`half`: C2R) is extended to its n points by X[n - k] = conj(X[k]) first, and the real parts
 * kept, which ignores the imaginary parts of X[0] and X[n / 2] as NumPy's irfft does. */
typedef struct fft_pass {
    const char *p;
    const int64_t *s;
    bool real_in, real_out, half, single;
    int64_t n; /* points transformed */
    int sign;
} fft_pass_t;

static void load(const fft_pass_t *f, int64_t e, double *z) {
    if (f->real_in) {
        z[0] = f->single ? (double)((const float *)(const void *)f->p)[e]
                         : ((const double *)(const void *)f->p)[e];
        z[1] = 0.0;
    } else if (f->single) { /* complex64 widens exactly to double */
        const float *c = (const float *)(const void *)f->p + 2 * e;
        z[0] = c[0], z[1] = c[1];
    } else {
        const double *c = (const double *)(const void *)f->p + 2 * e;
        z[0] = c[0], z[1] = c[1];
    }
}

static void store(const fft_pass_t *f, void *out, int64_t e, const double *z) {
    if (f->real_out) {
        if (f->single)
            ((float *)out)[e] = (float)z[0];
        else
            ((double *)out)[e] = z[0];
    } else if (f->single) { /* each part rounded once */
        float *c = (float *)out + 2 * e;
        c[0] = (float)z[0], c[1] = (float)z[1];
    } else {
        double *c = (double *)out + 2 * e;
        c[0] = z[0], c[1] = z[1];
    }
}

static bool fft_pass(const fft_pass_t *f, int ndim, const int64_t *oshape, int ax, void *out,
                     base_alloc_t *al) {
    int64_t total = 1, len = f->n, nin = f->half ? len / 2 + 1 : len, keep = oshape[ax];
    for (int d = 0; d < ndim; d++) total *= oshape[d];
    if (total == 0 || len == 0) return true;
    ir_fft_plan_t *plan = ir_fft_plan_new(len, al);
    double *line = plan ? base_malloc(al, (size_t)(2 * len), sizeof *line) : NULL;
    double *scratch = line ? base_malloc(al, ir_fft_scratch_doubles(plan) + 1, sizeof *scratch)
                           : NULL;
    if (!scratch) {
        if (line) base_free(al, line);
        if (plan) ir_fft_plan_free(plan);
        return false;
    }
    int64_t ost[LOOM_MAX_DIMS], idx[LOOM_MAX_DIMS] = {0};
    int64_t acc = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        ost[d] = acc;
        acc *= oshape[d];
    }
    for (int64_t done = 0; done < total / keep; done++) {
        int64_t in0 = 0, out0 = 0;
        for (int d = 0; d < ndim; d++) {
            in0 += idx[d] * f->s[d];
            out0 += idx[d] * ost[d];
        }
        for (int64_t j = 0; j < nin; j++) load(f, in0 + j * f->s[ax], line + 2 * j);
        for (int64_t j = nin; j < len; j++) { /* the Hermitian rest */
            line[2 * j] = line[2 * (len - j)];
            line[2 * j + 1] = -line[2 * (len - j) + 1];
        }
        ir_fft_exec(plan, line, f->sign, scratch);
        for (int64_t j = 0; j < keep; j++) store(f, out, out0 + j * ost[ax], line + 2 * j);
        for (int d = ndim - 1; d >= 0; d--) { /* the next line: every axis but ax */
            if (d == ax) continue;
            if (++idx[d] < oshape[d]) break;
            idx[d] = 0;
        }
    }
    base_free(al, scratch);
    base_free(al, line);
    ir_fft_plan_free(plan);
    return true;
}

bool ir_ref_fft(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s, void *out,
                base_alloc_t *al) {
    int last = (int)n->p.axis;
    int first = ir_fft_first_axis(n);
    bool r2c = n->p.k == IR_FFT_R2C, c2r = n->p.k == IR_FFT_C2R;
    bool single = n->dtype == LOOM_DTYPE_C64 || n->dtype == LOOM_DTYPE_F32;
    int sign = n->p.k == IR_FFT_FORWARD || r2c ? -1 : 1;
    /* the last axis from the operand, then the others in place in out (C order) */
    fft_pass_t f = {p, s, r2c, c2r, c2r, single, c2r ? n->shape[last] : o->shape[last], sign};
    if (!fft_pass(&f, n->ndim, n->shape, last, out, al)) return false;
    int64_t ost[LOOM_MAX_DIMS], acc = 1;
    for (int d = n->ndim - 1; d >= 0; d--) {
        ost[d] = acc;
        acc *= n->shape[d];
    }
    for (int ax = last - 1; ax >= first; ax--) {
        fft_pass_t g = {(const char *)out, ost, false, false, false, single, n->shape[ax], sign};
        if (!fft_pass(&g, n->ndim, n->shape, ax, out, al)) return false;
    }
    return true;
}
