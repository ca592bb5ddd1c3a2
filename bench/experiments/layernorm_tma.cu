// Standalone layernorm 8192x8192 float32 (not part of loom, not built by meson): rows staged in
// shared memory by the tensor memory accelerator (cp.async.bulk + mbarrier), several rows in
// flight per SM, against the register-resident block row loom generates. Session 7.
// nvcc -O3 -arch=sm_90 -o lt bench/experiments/layernorm_tma.cu && ./lt
// CUDA events, warm-up, median of 9 x 10 launches.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
#define R 8192
#define C 8192
struct f4 { float v[4]; };
__device__ __forceinline__ float bsum(float a, float *s, int nw) {
  for (int m = 16; m; m >>= 1) a += __shfl_down_sync(~0u, a, m);
  if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = a;
  __syncthreads();
  a = (threadIdx.x & 31) < nw ? s[threadIdx.x & 31] : 0.f;
  for (int m = 16; m; m >>= 1) a += __shfl_down_sync(~0u, a, m);
  return __shfl_sync(~0u, a, 0);
}
// the register kernel loom generates now (512 threads, 3 blocks, evict-first)
template <int B, int MINB>
__global__ void __launch_bounds__(B, MINB) regk(const float *__restrict__ x, float *__restrict__ y, double n, float eps) {
  constexpr int IT = C / 4 / B;
  __shared__ float s1[32], s2[32];
  const int row = blockIdx.x;
  const f4 *xr = (const f4 *)(x + (long)row * C);
  f4 c[IT];
  float a = 0;
#pragma unroll
  for (int i = 0; i < IT; i++) {
    *(float4 *)&c[i] = __ldcs((const float4 *)&xr[threadIdx.x + i * B]);
#pragma unroll
    for (int e = 0; e < 4; e++) a += c[i].v[e];
  }
  a = bsum(a, s1, B / 32);
  const float mean = (float)((double)a / n);
  float b = 0;
#pragma unroll
  for (int i = 0; i < IT; i++)
#pragma unroll
    for (int e = 0; e < 4; e++) { float d = c[i].v[e] - mean; b += d * d; }
  b = bsum(b, s2, B / 32);
  const float var = (float)((double)b / n);
  const float den = sqrtf(var + eps);
  f4 *yr = (f4 *)(y + (long)row * C);
#pragma unroll
  for (int i = 0; i < IT; i++) {
    f4 w;
#pragma unroll
    for (int e = 0; e < 4; e++) w.v[e] = (c[i].v[e] - mean) / den;
    __stcs((float4 *)&yr[threadIdx.x + i * B], *(float4 *)&w);
  }
}
__device__ __forceinline__ unsigned sptr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bulk_row(void *dst, const void *src, unsigned bytes, uint64_t *bar, uint64_t pol, bool hint) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sptr(bar)), "r"(bytes) : "memory");
  if (hint)
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
                 ::"r"(sptr(dst)), "l"(src), "r"(bytes), "r"(sptr(bar)), "l"(pol) : "memory");
  else
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(sptr(dst)), "l"(src), "r"(bytes), "r"(sptr(bar)) : "memory");
}
__device__ __forceinline__ void bar_wait(uint64_t *bar, unsigned phase) {
  unsigned ok = 0;
  do {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(sptr(bar)), "r"(phase) : "memory");
  } while (!ok);
}
// persistent: each block keeps S rows in flight in shared memory; row j of the block is
// blockIdx.x + j * gridDim.x. REG: copy the row to registers once (else read shared twice).
template <int B, int MINB, int S, bool HINT, bool REG>
__global__ void __launch_bounds__(B, MINB) tmak(const float *__restrict__ x, float *__restrict__ y, double n, float eps) {
  constexpr int IT = C / 4 / B;
  extern __shared__ __align__(128) float4 buf[]; // S x C/4
  __shared__ uint64_t full[S];
  __shared__ float s1[32], s2[32];
  uint64_t pol = 0;
  if (HINT) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; s++) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sptr(&full[s])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int s = 0; s < S; s++) {
      const long row = blockIdx.x + (long)s * gridDim.x;
      if (row < R) bulk_row(buf + s * (C / 4), x + row * C, C * 4, &full[s], pol, HINT);
    }
  int j = 0;
  for (long row = blockIdx.x; row < R; row += gridDim.x, j++) {
    const int s = j % S;
    bar_wait(&full[s], (j / S) & 1);
    const f4 *cb = (const f4 *)(buf + s * (C / 4));
    f4 c[REG ? IT : 1];
    float a = 0;
#pragma unroll
    for (int i = 0; i < IT; i++) {
      f4 v = cb[threadIdx.x + i * B];
      if (REG) c[i] = v;
#pragma unroll
      for (int e = 0; e < 4; e++) a += v.v[e];
    }
    a = bsum(a, s1, B / 32);
    const float mean = (float)((double)a / n);
    float b = 0;
#pragma unroll
    for (int i = 0; i < IT; i++) {
      f4 v = REG ? c[i] : cb[threadIdx.x + i * B];
#pragma unroll
      for (int e = 0; e < 4; e++) { float d = v.v[e] - mean; b += d * d; }
    }
    b = bsum(b, s2, B / 32);
    const float var = (float)((double)b / n);
    const float den = sqrtf(var + eps);
    f4 *yr = (f4 *)(y + row * C);
#pragma unroll
    for (int i = 0; i < IT; i++) {
      f4 v = REG ? c[i] : cb[threadIdx.x + i * B], w;
#pragma unroll
      for (int e = 0; e < 4; e++) w.v[e] = (v.v[e] - mean) / den;
      __stcs((float4 *)&yr[threadIdx.x + i * B], *(float4 *)&w);
    }
    __syncthreads(); // every thread is done with stage s
    const long nrow = row + (long)S * gridDim.x;
    if (threadIdx.x == 0 && nrow < R) bulk_row(buf + s * (C / 4), x + nrow * C, C * 4, &full[s], pol, HINT);
  }
}

// one row per block (no persistence): the row arrives in shared memory by one bulk copy, so the
// number of rows in flight per SM is set by shared memory (6 x 32 KB), not by registers.
template <int B, int MINB>
__global__ void __launch_bounds__(B, MINB) tma1k(const float *__restrict__ x, float *__restrict__ y, double n, float eps) {
  constexpr int IT = C / 4 / B;
  extern __shared__ __align__(128) float4 buf[];
  __shared__ uint64_t full;
  __shared__ float s1[32], s2[32];
  const long row = blockIdx.x;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sptr(&full)));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    bulk_row(buf, x + row * C, C * 4, &full, 0, false);
  }
  __syncthreads();
  bar_wait(&full, 0);
  const f4 *cb = (const f4 *)buf;
  float a = 0;
#pragma unroll
  for (int i = 0; i < IT; i++) {
    f4 v = cb[threadIdx.x + i * B];
#pragma unroll
    for (int e = 0; e < 4; e++) a += v.v[e];
  }
  a = bsum(a, s1, B / 32);
  const float mean = (float)((double)a / n);
  float b = 0;
#pragma unroll
  for (int i = 0; i < IT; i++) {
    f4 v = cb[threadIdx.x + i * B];
#pragma unroll
    for (int e = 0; e < 4; e++) { float d = v.v[e] - mean; b += d * d; }
  }
  b = bsum(b, s2, B / 32);
  const float var = (float)((double)b / n);
  const float den = sqrtf(var + eps);
  f4 *yr = (f4 *)(y + row * C);
#pragma unroll
  for (int i = 0; i < IT; i++) {
    f4 v = cb[threadIdx.x + i * B], w;
#pragma unroll
    for (int e = 0; e < 4; e++) w.v[e] = (v.v[e] - mean) / den;
    __stcs((float4 *)&yr[threadIdx.x + i * B], *(float4 *)&w);
  }
}
// persistent with S rows in flight per block, rows handed out by an atomic ticket (counter zeroed
// before each launch): faster SMs take more rows.
template <int B, int MINB, int S>
__global__ void __launch_bounds__(B, MINB) tmatk(const float *__restrict__ x, float *__restrict__ y, double n, float eps, unsigned *ctr) {
  constexpr int IT = C / 4 / B;
  extern __shared__ __align__(128) float4 buf[];
  __shared__ uint64_t full[S];
  __shared__ int rowof[S];
  __shared__ float s1[32], s2[32];
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; s++) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sptr(&full[s])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (int s = 0; s < S; s++) {
      const int row = atomicAdd(ctr, 1);
      rowof[s] = row;
      if (row < R) bulk_row(buf + s * (C / 4), x + (long)row * C, C * 4, &full[s], 0, false);
      else asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(sptr(&full[s])) : "memory");
    }
  }
  __syncthreads();
  for (int j = 0;; j++) {
    const int s = j % S;
    bar_wait(&full[s], (j / S) & 1);
    const long row = rowof[s];
    if (row >= R) break;
    const f4 *cb = (const f4 *)(buf + s * (C / 4));
    f4 c[IT];
    float a = 0;
#pragma unroll
    for (int i = 0; i < IT; i++) {
      c[i] = cb[threadIdx.x + i * B];
#pragma unroll
      for (int e = 0; e < 4; e++) a += c[i].v[e];
    }
    a = bsum(a, s1, B / 32);
    const float mean = (float)((double)a / n);
    float b = 0;
#pragma unroll
    for (int i = 0; i < IT; i++)
#pragma unroll
      for (int e = 0; e < 4; e++) { float d = c[i].v[e] - mean; b += d * d; }
    b = bsum(b, s2, B / 32);
    const float var = (float)((double)b / n);
    const float den = sqrtf(var + eps);
    f4 *yr = (f4 *)(y + row * C);
#pragma unroll
    for (int i = 0; i < IT; i++) {
      f4 w;
#pragma unroll
      for (int e = 0; e < 4; e++) w.v[e] = (c[i].v[e] - mean) / den;
      __stcs((float4 *)&yr[threadIdx.x + i * B], *(float4 *)&w);
    }
    __syncthreads(); // every thread is done with stage s and has read rowof[s]
    if (threadIdx.x == 0) {
      const int nrow = atomicAdd(ctr, 1);
      rowof[s] = nrow;
      if (nrow < R) bulk_row(buf + s * (C / 4), x + (long)nrow * C, C * 4, &full[s], 0, false);
      else asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(sptr(&full[s])) : "memory");
    }
  }
}
static float *X, *Y; static unsigned *CTR; static int SMS;
template <class F> static float timeit(const char *name, F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 20; i++) f();
  std::vector<float> t;
  for (int r = 0; r < 9; r++) { cudaEventRecord(a); for (int i = 0; i < 10; i++) f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 100.f); }
  std::sort(t.begin(), t.end());
  cudaError_t e = cudaGetLastError();
  printf("%-34s %7.1f us  (min %.1f max %.1f) %s\n", name, t[4], t[0], t[8], e ? cudaGetErrorString(e) : "");
  return t[4];
}
__global__ void copyk(const float4 *x, float4 *y, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) __stcs(&y[i], __ldcs(&x[i]));
}
#define TMA(B, MINB, S, H, REG, G)                                                                   \
  do {                                                                                             \
    size_t sm = (size_t)S * C * 4;                                                                 \
    cudaFuncSetAttribute(tmak<B, MINB, S, H, REG>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm); \
    char nm[80];                                                                                   \
    snprintf(nm, 80, "tma %d thr %d blk/SM %d stages%s%s", B, G, S, H ? " hint" : "", REG ? " reg" : ""); \
    timeit(nm, [&] { tmak<B, MINB, S, H, REG><<<SMS * G, B, sm>>>(X, Y, n, eps); });             \
  } while (0)
int main() {
  cudaDeviceGetAttribute(&SMS, cudaDevAttrMultiProcessorCount, 0);
  size_t bytes = (size_t)R * C * 4;
  cudaMalloc(&X, bytes); cudaMalloc(&Y, bytes);
  std::vector<float> h((size_t)R * C); unsigned s = 1; for (auto &v : h) { s = s * 1664525u + 1013904223u; v = (s >> 8) * (1.f / 16777216.f) * 4.f - 2.f; }
  cudaMemcpy(X, h.data(), bytes, cudaMemcpyHostToDevice);
  double n = C; float eps = 1e-5f;
  cudaMalloc(&CTR, 4);
  for (int rep = 0; rep < 2; rep++) {
    timeit("copy (cs)", [&] { copyk<<<SMS * 8, 256>>>((const float4 *)X, (float4 *)Y, (long)R * C / 4); });
    timeit("copy (cs) 1 block per 32 KB", [&] { copyk<<<R, 512>>>((const float4 *)X, (float4 *)Y, (long)R * C / 4); });
    timeit("reg512x3 cs (loom now)", [&] { regk<512, 3><<<R, 512>>>(X, Y, n, eps); });
    TMA(256, 3, 2, false, true, 3);
#define T1(B, MINB) do { cudaFuncSetAttribute(tma1k<B, MINB>, cudaFuncAttributeMaxDynamicSharedMemorySize, C * 4); \
      timeit("tma1 " #B " thr minb " #MINB, [&] { tma1k<B, MINB><<<R, B, C * 4>>>(X, Y, n, eps); }); } while (0)
    T1(256, 6); T1(512, 3); T1(512, 4); T1(1024, 2); T1(128, 6);
#define TT(B, MINB, S, G) do { size_t sm = (size_t)S * C * 4; cudaFuncSetAttribute(tmatk<B, MINB, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm); \
      timeit("tma ticket " #B " thr " #G " blk/SM " #S " stages", [&] { cudaMemsetAsync(CTR, 0, 4); tmatk<B, MINB, S><<<SMS * G, B, sm>>>(X, Y, n, eps, CTR); }); } while (0)
    TT(256, 3, 2, 3); TT(512, 2, 3, 2); TT(512, 1, 6, 1); TT(256, 2, 3, 2);
  }
  std::vector<float> a((size_t)R * C), b((size_t)R * C);
  regk<512, 3><<<R, 512>>>(X, Y, n, eps); cudaMemcpy(a.data(), Y, bytes, cudaMemcpyDeviceToHost);
  for (int v = 0; v < 2; v++) {
    cudaMemset(Y, 0, bytes);
    if (v == 0) tma1k<256, 6><<<R, 256, C * 4>>>(X, Y, n, eps);
    else { cudaMemset(CTR, 0, 4); tmatk<512, 2, 3><<<SMS * 2, 512, 3 * C * 4>>>(X, Y, n, eps, CTR); }
    cudaMemcpy(b.data(), Y, bytes, cudaMemcpyDeviceToHost);
    long diff = 0; double md = 0;
    for (size_t i = 0; i < a.size(); i++) { double d = fabs(a[i] - b[i]); md = d > md ? d : md; diff += d > 1e-5; }
    printf("check %d: %ld elements differ by > 1e-5 from reg512 (max %.3g), y[0]=%g %g  %s\n", v, diff, md, a[0], b[0], cudaGetErrorString(cudaGetLastError()));
  }
  return 0;
}
