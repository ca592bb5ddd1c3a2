// Standalone layernorm 8192x8192 float32 (not part of loom, not built by meson): one row split
// over a cluster of CL blocks that exchange their partial sums through distributed shared
// memory, so each block holds 1/CL of the row and lives 1/CL as long; against the one-block
// row loom generates, and copies of the same granularity. Session 7.
// nvcc -O3 -arch=sm_90 -o lc bench/experiments/layernorm_cluster.cu && ./lc
#include <cstdio>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <vector>
#include <algorithm>
namespace cg = cooperative_groups;
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
// CL blocks of B threads per row; CL == 1 is loom's kernel now
template <int B, int MINB, int CL>
__global__ void __launch_bounds__(B, MINB) clk(const float *__restrict__ x, float *__restrict__ y, double n, float eps) {
  constexpr int W = C / CL, IT = W / 4 / B;
  __shared__ float s1[32], s2[32], part[2];
  cg::cluster_group cl = cg::this_cluster();
  const int rank = CL > 1 ? (int)cl.block_rank() : 0;
  const long row = blockIdx.x / CL;
  const f4 *xr = (const f4 *)(x + row * C + rank * W);
  f4 c[IT];
  float a = 0;
#pragma unroll
  for (int i = 0; i < IT; i++) {
    *(float4 *)&c[i] = __ldcs((const float4 *)&xr[threadIdx.x + i * B]);
#pragma unroll
    for (int e = 0; e < 4; e++) a += c[i].v[e];
  }
  a = bsum(a, s1, B / 32);
  if (CL > 1) {
    if (threadIdx.x == 0) part[0] = a;
    cl.sync();
    a = 0;
#pragma unroll
    for (int r = 0; r < CL; r++) a += *cl.map_shared_rank(&part[0], r);
  }
  const float mean = (float)((double)a / n);
  float b = 0;
#pragma unroll
  for (int i = 0; i < IT; i++)
#pragma unroll
    for (int e = 0; e < 4; e++) { float d = c[i].v[e] - mean; b += d * d; }
  b = bsum(b, s2, B / 32);
  if (CL > 1) {
    if (threadIdx.x == 0) part[1] = b;
    cl.sync();
    b = 0;
#pragma unroll
    for (int r = 0; r < CL; r++) b += *cl.map_shared_rank(&part[1], r);
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); // done reading the others
  }
  const float var = (float)((double)b / n);
  const float den = sqrtf(var + eps);
  f4 *yr = (f4 *)(y + row * C + rank * W);
#pragma unroll
  for (int i = 0; i < IT; i++) {
    f4 w;
#pragma unroll
    for (int e = 0; e < 4; e++) w.v[e] = (c[i].v[e] - mean) / den;
    __stcs((float4 *)&yr[threadIdx.x + i * B], *(float4 *)&w);
  }
  if (CL > 1) asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); // before exiting
}
// copy of K float4 per thread, one block per B * K float4
template <int B, int K>
__global__ void __launch_bounds__(B) copyk(const float4 *__restrict__ x, float4 *__restrict__ y) {
  const long base = (long)blockIdx.x * B * K;
  float4 v[K];
#pragma unroll
  for (int i = 0; i < K; i++) v[i] = __ldcs(&x[base + threadIdx.x + i * B]);
#pragma unroll
  for (int i = 0; i < K; i++) __stcs(&y[base + threadIdx.x + i * B], v[i]);
}
static float *X, *Y;
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
template <int B, int MINB, int CL> static void launch(double n, float eps) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(R * CL); cfg.blockDim = dim3(B);
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = CL; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cfg.attrs = at; cfg.numAttrs = 1;
  cudaLaunchKernelEx(&cfg, clk<B, MINB, CL>, (const float *)X, Y, n, eps);
}
#define CLV(B, MINB, CL) timeit("cluster " #CL " x " #B " thr, minb " #MINB, [&] { launch<B, MINB, CL>(n, eps); })
#define CPV(B, K) timeit("copy " #B " thr x " #K " float4 per block", [&] { copyk<B, K><<<R * C / 4 / (B * K), B>>>((const float4 *)X, (float4 *)Y); })
int main() {
  size_t bytes = (size_t)R * C * 4;
  cudaMalloc(&X, bytes); cudaMalloc(&Y, bytes);
  std::vector<float> h((size_t)R * C); unsigned s = 1; for (auto &v : h) { s = s * 1664525u + 1013904223u; v = (s >> 8) * (1.f / 16777216.f) * 4.f - 2.f; }
  cudaMemcpy(X, h.data(), bytes, cudaMemcpyHostToDevice);
  double n = C; float eps = 1e-5f;
  for (int i = 0; i < 3000; i++) launch<512, 3, 1>(n, eps); // about 0.4 s of warm-up
  cudaDeviceSynchronize();
  for (int rep = 0; rep < 2; rep++) {
    timeit("cudaMemcpy D2D", [&] { cudaMemcpyAsync(Y, X, bytes, cudaMemcpyDeviceToDevice); });
    CPV(512, 4); CPV(256, 4); CPV(128, 4); CPV(512, 2); CPV(256, 8); CPV(1024, 4);
    CLV(512, 3, 1);
    CLV(256, 6, 2); CLV(256, 5, 2); CLV(512, 3, 2); CLV(512, 4, 2);
    CLV(256, 8, 4); CLV(256, 6, 4); CLV(128, 8, 4);
  }
  std::vector<float> a((size_t)R * C), b((size_t)R * C);
  launch<512, 3, 1>(n, eps); cudaMemcpy(a.data(), Y, bytes, cudaMemcpyDeviceToHost);
  cudaMemset(Y, 0, bytes); launch<256, 6, 2>(n, eps); cudaMemcpy(b.data(), Y, bytes, cudaMemcpyDeviceToHost);
  long diff = 0; double md = 0;
  for (size_t i = 0; i < a.size(); i++) { double d = fabs(a[i] - b[i]); md = d > md ? d : md; diff += d > 1e-5; }
  printf("check cluster 2 x 256 against one block: %ld elements differ by > 1e-5 (max %.3g)  %s\n", diff, md, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
