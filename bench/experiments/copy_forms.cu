// Which device-to-device copy form reaches cudaMemcpy's rate on the H200 (512 MiB moved:
// 256 MiB read, 256 MiB written, the bytes of layernorm 8192^2). Not part of loom, not built by
// meson. Session 7. nvcc -O3 -arch=sm_90 -o cf bench/experiments/copy_forms.cu && ./cf
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
#define N (8192L * 8192 / 4) // float4s
// one block per B * K float4, evict-first loads and stores (CS) or plain
template <int B, int K, bool CS>
__global__ void __launch_bounds__(B) blk(const float4 *__restrict__ x, float4 *__restrict__ y) {
  const long base = (long)blockIdx.x * B * K;
  float4 v[K];
#pragma unroll
  for (int i = 0; i < K; i++) v[i] = CS ? __ldcs(&x[base + threadIdx.x + i * B]) : x[base + threadIdx.x + i * B];
#pragma unroll
  for (int i = 0; i < K; i++) if (CS) __stcs(&y[base + threadIdx.x + i * B], v[i]); else y[base + threadIdx.x + i * B] = v[i];
}
// resident grid striding over chunks of B * K float4
template <int B, int K>
__global__ void __launch_bounds__(B) grid(const float4 *__restrict__ x, float4 *__restrict__ y) {
  for (long base = (long)blockIdx.x * B * K; base < N; base += (long)gridDim.x * B * K) {
    float4 v[K];
#pragma unroll
    for (int i = 0; i < K; i++) v[i] = __ldcs(&x[base + threadIdx.x + i * B]);
#pragma unroll
    for (int i = 0; i < K; i++) __stcs(&y[base + threadIdx.x + i * B], v[i]);
  }
}
// each warp copies its own contiguous span of K * 32 float4 per step (a warp-chunked layout)
template <int B, int K>
__global__ void __launch_bounds__(B) warpk(const float4 *__restrict__ x, float4 *__restrict__ y) {
  const long w = ((long)blockIdx.x * B + threadIdx.x) / 32, l = threadIdx.x & 31;
  const long base = w * 32 * K;
  float4 v[K];
#pragma unroll
  for (int i = 0; i < K; i++) v[i] = __ldcs(&x[base + l + i * 32]);
#pragma unroll
  for (int i = 0; i < K; i++) __stcs(&y[base + l + i * 32], v[i]);
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
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float4 *X, *Y; cudaMalloc(&X, N * 16); cudaMalloc(&Y, N * 16); cudaMemset(X, 1, N * 16);
  for (int i = 0; i < 3000; i++) blk<512, 2, true><<<N / 1024, 512>>>(X, Y);
  cudaDeviceSynchronize();
#define BLK(B, K, CS) timeit("block " #B " x " #K " float4" #CS, [&] { blk<B, K, CS><<<N / (B * K), B>>>(X, Y); })
#define GRD(B, K, G) timeit("grid " #G "/SM, " #B " x " #K " float4", [&] { grid<B, K><<<sms * G, B>>>(X, Y); })
#define WRP(B, K) timeit("warp spans " #B " thr x " #K " float4", [&] { warpk<B, K><<<N / (B * K), B>>>(X, Y); })
  for (int rep = 0; rep < 2; rep++) {
    timeit("cudaMemcpyAsync D2D", [&] { cudaMemcpyAsync(Y, X, N * 16, cudaMemcpyDeviceToDevice); });
    BLK(512, 2, true); BLK(512, 2, false); BLK(512, 1, true); BLK(256, 1, true); BLK(256, 2, true);
    BLK(1024, 1, true); BLK(1024, 2, true); BLK(128, 2, true); BLK(512, 4, true); BLK(512, 4, false);
    GRD(512, 2, 4); GRD(512, 4, 3); GRD(256, 4, 8); GRD(1024, 1, 2); GRD(512, 8, 2);
    WRP(256, 4); WRP(256, 8); WRP(512, 2); WRP(128, 16);
  }
  return 0;
}
