// Session 9: how much of layernorm 8192^2 float32's time depends on what the previous call left
// in L2. Each kernel evict_last-reads x (loom: its first pass; torch.compile: its first read),
// so the rows a call reads last can still be in L2 when the next call starts.
//   same x            every call on one input, rows in order (what same_stream.py times)
//   x1 / x2           calls alternate between two inputs: nothing of a call's input left by
//                     the call before
//   serpentine        (loom only) every other call takes the rows in reverse order (negative
//                     row strides, the same kernel), so each call starts on the rows the call
//                     before read last
// loom's kernel: layernorm_8192_head.inc (28b01bd); torch.compile's: torch_ln_8192.ptx.
// CUDA events, ~0.4 s warm-up, median of 9 batches of 10; 5 sweeps in turn.
// nvcc -O3 -arch=sm_90 -o alt bench/experiments/loomk/alternate.cu -lcuda && ./alt
#include "l2_harness.inc"
int main() {
  setvbuf(stdout, NULL, _IONBF, 0);
  const size_t bytes = (size_t)R * C * 4;
  float *X1, *X2, *Y;
  CK(cudaMalloc(&X1, bytes)); CK(cudaMalloc(&X2, bytes)); CK(cudaMalloc(&Y, bytes));
  std::vector<float> h((size_t)R * C); unsigned s = 1;
  for (auto &v : h) { s = s * 1664525u + 1013904223u; v = (s >> 8) * (1.f / 16777216.f) * 4.f - 2.f; }
  CK(cudaMemcpy(X1, h.data(), bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(X2, h.data(), bytes, cudaMemcpyHostToDevice));
  CUmodule m; CUfunction tk;
  CK(cuModuleLoad(&m, "bench/experiments/loomk/torch_ln_8192.ptx"));
  CK(cuModuleGetFunction(&tk, m, "triton_red_fused_add_div_mean_pow_sqrt_sub_0"));
  LP pf1 = params(X1, Y, false), pf2 = params(X2, Y, false), pr1 = params(X1, Y, true);
  // the reverse-order call gives the same output
  std::vector<float> a((size_t)R * C), b((size_t)R * C);
  loom_rd_1c2c71b620caf35e<<<R, 512>>>(pf1); CK(cudaMemcpy(a.data(), Y, bytes, cudaMemcpyDeviceToHost));
  CK(cudaMemset(Y, 0, bytes));
  loom_rd_1c2c71b620caf35e<<<R, 512>>>(pr1); CK(cudaMemcpy(b.data(), Y, bytes, cudaMemcpyDeviceToHost));
  printf("reverse order: %s\n", memcmp(a.data(), b.data(), bytes) ? "DIFFERENT output" : "the same output bits");
  for (int i = 0; i < 3000; i++) loom_rd_1c2c71b620caf35e<<<R, 512>>>(pf1);
  CK(cudaDeviceSynchronize());
  int xn = R, rn = C; CUdeviceptr z = 0, d1 = (CUdeviceptr)X1, d2 = (CUdeviceptr)X2, dy = (CUdeviceptr)Y;
  void *t1[] = {&d1, &dy, &xn, &rn, &z, &z}, *t2[] = {&d2, &dy, &xn, &rn, &z, &z};
  const char *lab[] = {"loom, same x", "loom, x1 / x2", "loom, serpentine", "torch.compile, same x",
                       "torch.compile, x1 / x2", "copy, same x", "copy, x1 / x2"};
  std::vector<std::vector<float>> t(7);
  for (int sweep = 0; sweep < 5; sweep++) {
    t[0].push_back(med9([&](int) { loom_rd_1c2c71b620caf35e<<<R, 512>>>(pf1); }));
    t[1].push_back(med9([&](int i) { loom_rd_1c2c71b620caf35e<<<R, 512>>>(i & 1 ? pf2 : pf1); }));
    t[2].push_back(med9([&](int i) { loom_rd_1c2c71b620caf35e<<<R, 512>>>(i & 1 ? pr1 : pf1); }));
    t[3].push_back(med9([&](int) { cuLaunchKernel(tk, R, 1, 1, 512, 1, 1, 64, 0, t1, 0); }));
    t[4].push_back(med9([&](int i) { cuLaunchKernel(tk, R, 1, 1, 512, 1, 1, 64, 0, i & 1 ? t2 : t1, 0); }));
    t[5].push_back(med9([&](int) { cudaMemcpyAsync(Y, X1, bytes, cudaMemcpyDeviceToDevice); }));
    t[6].push_back(med9([&](int i) { cudaMemcpyAsync(Y, i & 1 ? X2 : X1, bytes, cudaMemcpyDeviceToDevice); }));
    printf("sweep %d:", sweep);
    for (int k = 0; k < 7; k++) printf(" %.1f", t[k].back());
    printf("  %s\n", cudaGetErrorString(cudaGetLastError()));
  }
  printf("\n%-26s median of 5 sweeps (min-max), us\n", "");
  for (int k = 0; k < 7; k++) {
    std::vector<float> v = t[k]; std::sort(v.begin(), v.end());
    printf("%-26s %7.1f (%.1f-%.1f)\n", lab[k], v[2], v[0], v[4]);
  }
  return 0;
}
