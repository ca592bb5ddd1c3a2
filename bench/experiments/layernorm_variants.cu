// Standalone layernorm 8192x8192 float32 kernels (not part of loom, not built by meson): which
// kernel structure gets closest to copy bandwidth. Session 6, call 2 (bench/RESULTS.md).
// nvcc -O3 -arch=sm_90 -o ln bench/experiments/layernorm_variants.cu && ./ln
// CUDA events, warm-up, median of 9 x 10 launches.
#include <cstdio>
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
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
__global__ void copyk(const float4 *x, float4 *y, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) y[i] = x[i];
}
template <int B, int MINB, bool MULN, bool CS>
__global__ void __launch_bounds__(B, MINB) regk(const float *__restrict__ x, float *__restrict__ y, double n, double rn, float eps) {
  constexpr int IT = C / 4 / B;
  __shared__ float s1[32], s2[32];
  const int row = blockIdx.x;
  const f4 *xr = (const f4 *)(x + (long)row * C);
  f4 c[IT];
  float a = 0;
#pragma unroll
  for (int i = 0; i < IT; i++) {
    if (CS) *(float4 *)&c[i] = __ldcs((const float4 *)&xr[threadIdx.x + i * B]);
    else c[i] = xr[threadIdx.x + i * B];
#pragma unroll
    for (int e = 0; e < 4; e++) a += c[i].v[e];
  }
  a = bsum(a, s1, B / 32);
  const float mean = MULN ? (float)((double)a * rn) : (float)((double)a / n);
  float b = 0;
#pragma unroll
  for (int i = 0; i < IT; i++)
#pragma unroll
    for (int e = 0; e < 4; e++) { float d = c[i].v[e] - mean; b += d * d; }
  b = bsum(b, s2, B / 32);
  const float var = MULN ? (float)((double)b * rn) : (float)((double)b / n);
  const float den = sqrtf(var + eps);
  f4 *yr = (f4 *)(y + (long)row * C);
#pragma unroll
  for (int i = 0; i < IT; i++) {
    f4 w;
#pragma unroll
    for (int e = 0; e < 4; e++) w.v[e] = (c[i].v[e] - mean) / den;
    if (CS) __stcs((float4 *)&yr[threadIdx.x + i * B], *(float4 *)&w);
    else yr[threadIdx.x + i * B] = w;
  }
}
// persistent, rows prefetched into shared memory with cp.async (double buffer);
// TICK: rows by atomic ticket (counter zeroed before each launch), else static stride.
template <int B, int MINB, bool TICK>
__global__ void __launch_bounds__(B, MINB) pipek(const float *__restrict__ x, float *__restrict__ y, double n, float eps, unsigned *ctr) {
  constexpr int IT = C / 4 / B;
  extern __shared__ float4 buf[]; // 2 x C/4
  __shared__ float s1[32], s2[32];
  __shared__ int tk[2];
  int row, nrow;
  if (TICK) { if (threadIdx.x == 0) tk[0] = atomicAdd(ctr, 1); __syncthreads(); row = tk[0]; }
  else row = blockIdx.x;
  int slot = 0;
  if (row < R) {
    const float4 *xr = (const float4 *)(x + (long)row * C);
#pragma unroll
    for (int i = 0; i < IT; i++) __pipeline_memcpy_async(&buf[threadIdx.x + i * B], &xr[threadIdx.x + i * B], 16);
  }
  __pipeline_commit();
  int it = 0;
  while (row < R) {
    if (TICK) { if (threadIdx.x == 0) tk[(it + 1) & 1] = atomicAdd(ctr, 1); __syncthreads(); nrow = tk[(it + 1) & 1]; }
    else nrow = row + gridDim.x;
    if (nrow < R) {
      const float4 *xr = (const float4 *)(x + (long)nrow * C);
      float4 *d = buf + (slot ^ 1) * (C / 4);
#pragma unroll
      for (int i = 0; i < IT; i++) __pipeline_memcpy_async(&d[threadIdx.x + i * B], &xr[threadIdx.x + i * B], 16);
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);
    const f4 *cb = (const f4 *)(buf + slot * (C / 4));
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
    f4 *yr = (f4 *)(y + (long)row * C);
#pragma unroll
    for (int i = 0; i < IT; i++) {
      f4 w;
#pragma unroll
      for (int e = 0; e < 4; e++) w.v[e] = (c[i].v[e] - mean) / den;
      yr[threadIdx.x + i * B] = w;
    }
    row = nrow; slot ^= 1; it++;
  }
}
static float *X, *Y; static unsigned *CTR; static int SMS;
template <class F> static void timeit(const char *name, F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 20; i++) f();
  std::vector<float> t;
  for (int r = 0; r < 9; r++) { cudaEventRecord(a); for (int i = 0; i < 10; i++) f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 100.f); }
  std::sort(t.begin(), t.end());
  cudaError_t e = cudaGetLastError();
  printf("%-34s %7.1f us  %s\n", name, t[4], e ? cudaGetErrorString(e) : "");
}
int main(int argc, char **argv) {
  cudaDeviceGetAttribute(&SMS, cudaDevAttrMultiProcessorCount, 0);
  size_t bytes = (size_t)R * C * 4;
  cudaMalloc(&X, bytes); cudaMalloc(&Y, bytes); cudaMalloc(&CTR, 4);
  std::vector<float> h((size_t)R * C); unsigned s = 1; for (auto &v : h) { s = s * 1664525u + 1013904223u; v = (s >> 8) * (1.f / 16777216.f) * 4.f - 2.f; }
  cudaMemcpy(X, h.data(), bytes, cudaMemcpyHostToDevice);
  double n = C, rn = 1.0 / C; float eps = 1e-5f;
  for (int rep = 0; rep < 2; rep++) {
  timeit("copy", [&] { copyk<<<SMS * 8, 256>>>((const float4 *)X, (float4 *)Y, (long)R * C / 4); });
  timeit("reg512x2 (loom now)", [&] { regk<512, 2, false, false><<<R, 512>>>(X, Y, n, rn, eps); });
  timeit("reg512x3", [&] { regk<512, 3, false, false><<<R, 512>>>(X, Y, n, rn, eps); });
  timeit("reg256x4", [&] { regk<256, 4, false, false><<<R, 256>>>(X, Y, n, rn, eps); });
  timeit("reg256x4 mul-n", [&] { regk<256, 4, true, false><<<R, 256>>>(X, Y, n, rn, eps); });
  timeit("reg256x5 mul-n", [&] { regk<256, 5, true, false><<<R, 256>>>(X, Y, n, rn, eps); });
  timeit("reg512x3 mul-n", [&] { regk<512, 3, true, false><<<R, 512>>>(X, Y, n, rn, eps); });
  timeit("reg256x4 cs", [&] { regk<256, 4, false, true><<<R, 256>>>(X, Y, n, rn, eps); });
  timeit("reg512x3 cs", [&] { regk<512, 3, false, true><<<R, 512>>>(X, Y, n, rn, eps); });
  timeit("reg1024x2", [&] { regk<1024, 1, false, false><<<R, 1024>>>(X, Y, n, rn, eps); });
  size_t sm = 2 * C * 4;
  for (int bps : {2, 3}) {
    cudaFuncSetAttribute(pipek<256, 3, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
    cudaFuncSetAttribute(pipek<256, 3, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
    cudaFuncSetAttribute(pipek<512, 3, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
    cudaFuncSetAttribute(pipek<512, 3, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
    char nm[64];
    snprintf(nm, 64, "pipe256 static %dx", bps); timeit(nm, [&] { pipek<256, 3, false><<<SMS * bps, 256, sm>>>(X, Y, n, eps, CTR); });
    snprintf(nm, 64, "pipe256 ticket %dx", bps); timeit(nm, [&] { cudaMemsetAsync(CTR, 0, 4); pipek<256, 3, true><<<SMS * bps, 256, sm>>>(X, Y, n, eps, CTR); });
    snprintf(nm, 64, "pipe512 static %dx", bps); timeit(nm, [&] { pipek<512, 3, false><<<SMS * bps, 512, sm>>>(X, Y, n, eps, CTR); });
    snprintf(nm, 64, "pipe512 ticket %dx", bps); timeit(nm, [&] { cudaMemsetAsync(CTR, 0, 4); pipek<512, 3, true><<<SMS * bps, 512, sm>>>(X, Y, n, eps, CTR); });
  }
  }
  // check: pipe ticket result equals reg result bitwise
  std::vector<float> a((size_t)R * C), b((size_t)R * C);
  regk<256, 4, false, false><<<R, 256>>>(X, Y, n, rn, eps); cudaMemcpy(a.data(), Y, bytes, cudaMemcpyDeviceToHost);
  cudaMemset(CTR, 0, 4); pipek<512, 3, true><<<SMS * 3, 512, 2 * C * 4>>>(X, Y, n, eps, CTR); cudaMemcpy(b.data(), Y, bytes, cudaMemcpyDeviceToHost);
  long diff = 0; for (size_t i = 0; i < a.size(); i++) diff += fabsf(a[i] - b[i]) > 1e-5f;
  printf("differences reg256 vs pipe512: %ld (sum order differs), y[0]=%g %g\n", diff, a[0], b[0]);
  return 0;
}
