// Standalone layernorm 8192x8192 float32 (not part of loom, not built by meson): rows not kept
// in registers but read three times (mean, variance, output), the second and third reads from
// L2 as Inductor's kernel does, with small blocks at full occupancy; and a 1024-thread block row
// keeping 8 floats per thread. Against the 512-thread block row loom generates. Session 7.
// nvcc -O3 -arch=sm_90 -o ll bench/experiments/layernorm_l2.cu && ./ll
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
#define R 8192
#define C 8192
struct f4 { float v[4]; };
template <int NW> __device__ __forceinline__ float bsum(float a, float *s) {
  for (int m = 16; m; m >>= 1) a += __shfl_down_sync(~0u, a, m);
  if (NW == 1) return __shfl_sync(~0u, a, 0);
  if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = a;
  __syncthreads();
  a = (threadIdx.x & 31) < NW ? s[threadIdx.x & 31] : 0.f;
  for (int m = 16; m; m >>= 1) a += __shfl_down_sync(~0u, a, m);
  return __shfl_sync(~0u, a, 0);
}
template <int B, int MINB>
__global__ void __launch_bounds__(B, MINB) regk(const float *__restrict__ x, float *__restrict__ y, double n, float eps) {
  constexpr int IT = C / 4 / B;
  __shared__ float s1[32], s2[32];
  const f4 *xr = (const f4 *)(x + (long)blockIdx.x * C);
  f4 c[IT];
  float a = 0;
#pragma unroll
  for (int i = 0; i < IT; i++) {
    *(float4 *)&c[i] = __ldcs((const float4 *)&xr[threadIdx.x + i * B]);
#pragma unroll
    for (int e = 0; e < 4; e++) a = __fadd_rn(a, c[i].v[e]);
  }
  a = bsum<B / 32>(a, s1);
  const float mean = (float)((double)a / n);
  float b = 0;
#pragma unroll
  for (int i = 0; i < IT; i++)
#pragma unroll
    for (int e = 0; e < 4; e++) { float d = c[i].v[e] - mean; b = __fadd_rn(b, __fmul_rn(d, d)); }
  b = bsum<B / 32>(b, s2);
  const float den = sqrtf((float)((double)b / n) + eps);
  f4 *yr = (f4 *)(y + (long)blockIdx.x * C);
#pragma unroll
  for (int i = 0; i < IT; i++) {
    f4 w;
#pragma unroll
    for (int e = 0; e < 4; e++) w.v[e] = (c[i].v[e] - mean) / den;
    __stcs((float4 *)&yr[threadIdx.x + i * B], *(float4 *)&w);
  }
}
__device__ __forceinline__ float4 ld_hint(const float4 *p, uint64_t pol) {
  float4 v;
  asm volatile("ld.global.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
  return v;
}
// three reads of the row: H = 0 plain, 1 evict_last for the first two and evict-first (__ldcs)
// for the third, 2 the third with an L2::evict_first cache policy instead, 3 as 1 and then the
// lines' priority back to normal (applypriority), so that none stay evict_last after the kernel
template <int B, int MINB, int H>
__global__ void __launch_bounds__(B, MINB) l2k(const float *__restrict__ x, float *__restrict__ y, double n, float eps) {
  constexpr int IT = C / 4 / B;
  __shared__ float s1[32], s2[32];
  uint64_t keep = 0;
  uint64_t last = 0;
  if (H) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(keep));
  if (H == 2) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(last));
  const float4 *xr = (const float4 *)(x + (long)blockIdx.x * C);
  float a = 0;
#pragma unroll 4
  for (int i = 0; i < IT; i++) {
    float4 v = H ? ld_hint(&xr[threadIdx.x + i * B], keep) : xr[threadIdx.x + i * B];
    a = __fadd_rn(__fadd_rn(__fadd_rn(__fadd_rn(a, v.x), v.y), v.z), v.w);
  }
  a = bsum<B / 32>(a, s1);
  const float mean = (float)((double)a / n);
  float b = 0;
#pragma unroll 4
  for (int i = 0; i < IT; i++) {
    float4 v = H ? ld_hint(&xr[threadIdx.x + i * B], keep) : xr[threadIdx.x + i * B];
    float d0 = v.x - mean, d1 = v.y - mean, d2 = v.z - mean, d3 = v.w - mean;
    b = __fadd_rn(b, __fmul_rn(d0, d0)); b = __fadd_rn(b, __fmul_rn(d1, d1));
    b = __fadd_rn(b, __fmul_rn(d2, d2)); b = __fadd_rn(b, __fmul_rn(d3, d3));
  }
  b = bsum<B / 32>(b, s2);
  const float den = sqrtf((float)((double)b / n) + eps);
  float4 *yr = (float4 *)(y + (long)blockIdx.x * C);
#pragma unroll 4
  for (int i = 0; i < IT; i++) {
    float4 v = H == 2 ? ld_hint(&xr[threadIdx.x + i * B], last) : H ? __ldcs(&xr[threadIdx.x + i * B]) : xr[threadIdx.x + i * B];
    if (H == 3 && (threadIdx.x & 7) == 0) asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(&xr[threadIdx.x + i * B]) : "memory");
    __stcs(&yr[threadIdx.x + i * B], make_float4((v.x - mean) / den, (v.y - mean) / den, (v.z - mean) / den, (v.w - mean) / den));
  }
}
template <class F> static float timeit(const char *name, F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 20; i++) f();
  std::vector<float> t;
  for (int r = 0; r < 9; r++) { cudaEventRecord(a); for (int i = 0; i < 10; i++) f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 100.f); }
  std::sort(t.begin(), t.end());
  cudaError_t e = cudaGetLastError();
  printf("%-40s %7.1f us  (min %.1f max %.1f) %s\n", name, t[4], t[0], t[8], e ? cudaGetErrorString(e) : "");
  return t[4];
}
int main() {
  size_t bytes = (size_t)R * C * 4;
  float *X, *Y; cudaMalloc(&X, bytes); cudaMalloc(&Y, bytes);
  std::vector<float> h((size_t)R * C); unsigned s = 1; for (auto &v : h) { s = s * 1664525u + 1013904223u; v = (s >> 8) * (1.f / 16777216.f) * 4.f - 2.f; }
  cudaMemcpy(X, h.data(), bytes, cudaMemcpyHostToDevice);
  float *X2; cudaMalloc(&X2, bytes); cudaMemcpy(X2, h.data(), bytes, cudaMemcpyHostToDevice);
  double n = C; float eps = 1e-5f;
  for (int i = 0; i < 3000; i++) regk<512, 3><<<R, 512>>>(X, Y, n, eps);
  cudaDeviceSynchronize();
#define RG(B, M) timeit("registers " #B " thr minb " #M, [&] { regk<B, M><<<R, B>>>(X, Y, n, eps); })
#define L2(B, M, H) timeit("L2 re-reads " #B " thr minb " #M " hints " #H, [&] { l2k<B, M, H><<<R, B>>>(X, Y, n, eps); })
  // what a kernel leaves in L2 costs the next one: a plain-load layernorm (the victim) timed
  // after each variant, as (variant + victim) - variant, against the victim alone
  for (int rep = 0; rep < 2; rep++) {
    float v0 = timeit("victim alone (L2 re-reads, no hints)", [&] { l2k<512, 4, 0><<<R, 512>>>(X2, Y, n, eps); });
#define VIC(H) do { float a = timeit("  hints " #H " alone", [&] { l2k<512, 4, H><<<R, 512>>>(X, Y, n, eps); }); \
      float b = timeit("  hints " #H " + victim", [&] { l2k<512, 4, H><<<R, 512>>>(X, Y, n, eps); l2k<512, 4, 0><<<R, 512>>>(X2, Y, n, eps); }); \
      printf("victim after hints %d: %.1f us (alone %.1f)\n", H, b - a, v0); } while (0)
    VIC(0); VIC(1); VIC(2); VIC(3);
    float a = timeit("  registers alone", [&] { regk<512, 3><<<R, 512>>>(X, Y, n, eps); });
    float b = timeit("  registers + victim", [&] { regk<512, 3><<<R, 512>>>(X, Y, n, eps); l2k<512, 4, 0><<<R, 512>>>(X2, Y, n, eps); });
    printf("victim after registers: %.1f us (alone %.1f)\n", b - a, v0);
  }
  for (int rep = 0; rep < 2; rep++) {
    timeit("cudaMemcpyAsync D2D", [&] { cudaMemcpyAsync(Y, X, bytes, cudaMemcpyDeviceToDevice); });
    RG(512, 3); RG(1024, 2); RG(1024, 1); RG(256, 4);
    L2(256, 8, 1); L2(512, 4, 0); L2(512, 4, 1); L2(512, 4, 2); L2(512, 4, 3); L2(512, 3, 1); L2(1024, 2, 1); L2(256, 6, 1);
    // a fresh input every call (two buffers alternating): nothing of x can stay in L2 from the call before
    int k = 0;
    timeit("registers 512 thr minb 3, 2 inputs", [&] { regk<512, 3><<<R, 512>>>(k++ & 1 ? X2 : X, Y, n, eps); });
    timeit("L2 re-reads 512 thr minb 4 hints 1, 2 inputs", [&] { l2k<512, 4, 1><<<R, 512>>>(k++ & 1 ? X2 : X, Y, n, eps); });
    timeit("L2 re-reads 512 thr minb 4 hints 2, 2 inputs", [&] { l2k<512, 4, 2><<<R, 512>>>(k++ & 1 ? X2 : X, Y, n, eps); });
  }
  std::vector<float> a((size_t)R * C), b((size_t)R * C);
  regk<512, 3><<<R, 512>>>(X, Y, n, eps); cudaMemcpy(a.data(), Y, bytes, cudaMemcpyDeviceToHost);
  for (int v = 0; v < 2; v++) {
    cudaMemset(Y, 0, bytes);
    if (v) l2k<256, 8, 1><<<R, 256>>>(X, Y, n, eps); else regk<1024, 2><<<R, 1024>>>(X, Y, n, eps);
    cudaMemcpy(b.data(), Y, bytes, cudaMemcpyDeviceToHost);
    long diff = 0; double md = 0;
    for (size_t i = 0; i < a.size(); i++) { double d = fabs(a[i] - b[i]); md = d > md ? d : md; diff += d > 1e-5; }
    printf("check %s: %ld elements differ by > 1e-5 from registers 512 (max %.3g)  %s\n", v ? "L2 256" : "registers 1024", diff, md, cudaGetErrorString(cudaGetLastError()));
  }
  return 0;
}
