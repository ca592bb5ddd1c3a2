// Session 9: a producer, then layernorm over what it wrote. The producer (y = x * 2 + 1 over
// 8192^2 float32, float4 per thread, blocks in order, plain stores) leaves the lines it wrote
// last in L2; loom's layernorm kernel (layernorm_8192_head.inc, 28b01bd) then reads y forward
// (rows in order: it starts where the producer started) or in reverse (negative row strides:
// it starts on the producer's last lines). Timed: the pair, and the producer alone; the
// layernorm's share is the difference. CUDA events, ~0.4 s warm-up, median of 9 batches of 10
// pairs; 5 sweeps in turn.
// nvcc -O3 -arch=sm_90 -o prod bench/experiments/loomk/producer.cu -lcuda && ./prod
#include "l2_harness.inc"
__global__ void __launch_bounds__(256) produce(const float4 *__restrict__ x, float4 *__restrict__ y, long n4) {
  for (long i = blockIdx.x * 256L + threadIdx.x; i < n4; i += (long)gridDim.x * 256) {
    const float4 v = x[i];
    y[i] = make_float4(v.x * 2.f + 1.f, v.y * 2.f + 1.f, v.z * 2.f + 1.f, v.w * 2.f + 1.f);
  }
}
int main() {
  setvbuf(stdout, NULL, _IONBF, 0);
  const size_t bytes = (size_t)R * C * 4;
  const long n4 = (long)R * C / 4;
  float *X, *Y, *Z;
  CK(cudaMalloc(&X, bytes)); CK(cudaMalloc(&Y, bytes)); CK(cudaMalloc(&Z, bytes));
  std::vector<float> h((size_t)R * C); unsigned s = 1;
  for (auto &v : h) { s = s * 1664525u + 1013904223u; v = (s >> 8) * (1.f / 16777216.f) * 4.f - 2.f; }
  CK(cudaMemcpy(X, h.data(), bytes, cudaMemcpyHostToDevice));
  LP pf = params(Y, Z, false), pr = params(Y, Z, true);
  const int pg = 132 * 8; // resident blocks of 256, striding
  auto prod = [&] { produce<<<pg, 256>>>((const float4 *)X, (float4 *)Y, n4); };
  for (int i = 0; i < 1500; i++) { prod(); loom_rd_1c2c71b620caf35e<<<R, 512>>>(pf); }
  CK(cudaDeviceSynchronize());
  const char *lab[] = {"producer alone", "producer + layernorm forward", "producer + layernorm reverse"};
  std::vector<std::vector<float>> t(3);
  for (int sweep = 0; sweep < 5; sweep++) {
    t[0].push_back(med9([&](int) { prod(); }));
    t[1].push_back(med9([&](int) { prod(); loom_rd_1c2c71b620caf35e<<<R, 512>>>(pf); }));
    t[2].push_back(med9([&](int) { prod(); loom_rd_1c2c71b620caf35e<<<R, 512>>>(pr); }));
    printf("sweep %d: %.1f %.1f %.1f  %s\n", sweep, t[0].back(), t[1].back(), t[2].back(), cudaGetErrorString(cudaGetLastError()));
  }
  printf("\n%-32s median of 5 sweeps (min-max), us\n", "");
  float m[3];
  for (int k = 0; k < 3; k++) {
    std::vector<float> v = t[k]; std::sort(v.begin(), v.end()); m[k] = v[2];
    printf("%-32s %7.1f (%.1f-%.1f)\n", lab[k], v[2], v[0], v[4]);
  }
  printf("layernorm's share: forward %.1f us, reverse %.1f us\n", m[1] - m[0], m[2] - m[0]);
  return 0;
}
