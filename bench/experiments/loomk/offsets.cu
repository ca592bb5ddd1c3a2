// Session 9: does the placement of the output relative to the input change the time of a
// layernorm 8192^2 float32 kernel at the DRAM floor? One 516 MB allocation: x at its start, y at
// x + 256 MB + delta. For each delta: loom's kernel (layernorm_8192_head.inc, dumped by
// `loom eval ... --device nvrtc --dump` from the tree of 28b01bd), torch.compile's kernel
// (torch_ln_8192.ptx, JIT-compiled by the driver) and cudaMemcpyAsync of the same bytes.
// CUDA events, ~0.4 s warm-up, median of 9 batches of 10; 3 sweeps over the deltas in turn.
// nvcc -O3 -arch=sm_90 -o off bench/experiments/loomk/offsets.cu -lcuda && ./off
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda.h>
#include <cuda_runtime.h>
#include "layernorm_8192_head.inc"
#define R 8192
#define C 8192
template <class F> static float med9(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 20; i++) f();
  std::vector<float> t;
  for (int r = 0; r < 9; r++) {
    cudaEventRecord(a); for (int i = 0; i < 10; i++) f(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 100.f);
  }
  cudaEventDestroy(a); cudaEventDestroy(b);
  std::sort(t.begin(), t.end()); return t[4];
}
#define CK(x) do { int e_ = (int)(x); if (e_) { printf("%s:%d: %s: error %d\n", __FILE__, __LINE__, #x, e_); return 1; } } while (0)
int main() {
  setvbuf(stdout, NULL, _IONBF, 0);
  printf("start\n");
  const size_t bytes = (size_t)R * C * 4, span = 2 * bytes + (4u << 20);
  char *base; CK(cudaMalloc(&base, span));
  float *X = (float *)base;
  std::vector<float> h((size_t)R * C); unsigned s = 1;
  for (auto &v : h) { s = s * 1664525u + 1013904223u; v = (s >> 8) * (1.f / 16777216.f) * 4.f - 2.f; }
  CK(cudaMemcpy(X, h.data(), bytes, cudaMemcpyHostToDevice));
  printf("x uploaded\n");
  CUmodule m; CUfunction tk;
  CK(cuModuleLoad(&m, "bench/experiments/loomk/torch_ln_8192.ptx"));
  CK(cuModuleGetFunction(&tk, m, "triton_red_fused_add_div_mean_pow_sqrt_sub_0"));
  printf("torch kernel loaded\n");
  const long deltas[] = {0, 512, 2048, 8192, 16384, 32768, 65536, 1 << 20, -(32768L)};
  const int nd = sizeof deltas / sizeof deltas[0];
  std::vector<std::vector<float>> tl(nd), tt(nd), tc(nd);
  double n = C; float eps = 1e-5f;
  for (int sweep = 0; sweep < 3; sweep++)
    for (int d = 0; d < nd; d++) {
      float *Y = (float *)(base + bytes + (2u << 20) + deltas[d]);
      lm_params_loom_rd_1c2c71b620caf35e p = {};
      unsigned long long w[14] = {R, C, C, 1, R, C, C, 1, (unsigned long long)X, C, 1, 0, 0, (unsigned long long)Y};
      memcpy(&w[11], &n, 8); memcpy(&w[12], &eps, 4); memcpy(p.w, w, sizeof w);
      int xn = R, rn = C; CUdeviceptr z = 0, dx = (CUdeviceptr)X, dy = (CUdeviceptr)Y;
      void *targs[] = {&dx, &dy, &xn, &rn, &z, &z};
      if (sweep == 0 && d == 0) {
        for (int i = 0; i < 3000; i++) loom_rd_1c2c71b620caf35e<<<R, 512>>>(p);
        CK(cudaDeviceSynchronize());
        printf("warmed up\n");
      }
      tl[d].push_back(med9([&] { loom_rd_1c2c71b620caf35e<<<R, 512>>>(p); }));
      tt[d].push_back(med9([&] { cuLaunchKernel(tk, R, 1, 1, 512, 1, 1, 64, 0, targs, 0); }));
      tc[d].push_back(med9([&] { cudaMemcpyAsync(Y, X, bytes, cudaMemcpyDeviceToDevice); }));
      printf("sweep %d delta %9ld: loom %6.1f  torch.compile %6.1f  copy %6.1f  %s\n", sweep, deltas[d], tl[d].back(),
             tt[d].back(), tc[d].back(), cudaGetErrorString(cudaGetLastError()));
    }
  printf("\ndelta (bytes past x + 256 MB + 2 MB)   loom   torch.compile   copy   (median of 3 sweeps)\n");
  for (int d = 0; d < nd; d++) {
    auto md = [](std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
    printf("%12ld  %7.1f  %7.1f  %7.1f\n", deltas[d], md(tl[d]), md(tt[d]), md(tc[d]));
  }
  return 0;
}
