// Session 8: mdiv_f32 (mdiv.h) against IEEE division, bit for bit, for every float a and 72
// divisors b (edge cases and random ones). nvcc -O3 -arch=sm_90 -o mc mdiv_check.cu && ./mc
#include <cstdio>
#include <cstring>
#include <vector>
#include "mdiv.h"
__global__ void check(float b, unsigned long long *bad, unsigned *first) {
    const float y = __frcp_rn(b);
    unsigned long long n = 0;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < (1ull << 32);
         i += (unsigned long long)gridDim.x * blockDim.x) {
        const float a = __uint_as_float((unsigned)i);
        const float u = mdiv_f32(a, b, y), v = a / b;
        const bool same = __float_as_uint(u) == __float_as_uint(v) || (u != u && v != v);
        if (!same) { n++; atomicMin(first, (unsigned)i); }
    }
    if (n) atomicAdd(bad, n);
}
int main() {
    std::vector<float> bs = {1.f, -1.f, 3.f, 0.1f, 1.99999988f, 1.00000012f, 0.5f, 1.5f, 7.f, 1e-5f, 3.1622776e-3f,
                             2.3283064e-10f /* 2^-32 */, 4.2949673e9f /* 2^32 */, 4.29e9f, 2.33e-10f, 0.0f, -0.0f,
                             1e-40f, 3e38f, 1.0f / 0.0f, -1.0f / 0.0f, 0.0f / 0.0f};
    unsigned s = 12345;
    while (bs.size() < 72) { s = s * 1664525u + 1013904223u; unsigned u = (s & 0x807fffffu) | ((95u + (s >> 23) % 64u) << 23); float f; memcpy(&f, &u, 4); bs.push_back(f); }
    unsigned long long *bad; unsigned *first;
    cudaMalloc(&bad, 8); cudaMalloc(&first, 4);
    unsigned long long tot = 0;
    for (float b : bs) {
        cudaMemset(bad, 0, 8); cudaMemset(first, 0xff, 4);
        check<<<132 * 16, 256>>>(b, bad, first);
        unsigned long long h; unsigned f;
        cudaMemcpy(&h, bad, 8, cudaMemcpyDeviceToHost); cudaMemcpy(&f, first, 4, cudaMemcpyDeviceToHost);
        tot += h;
        if (h) printf("b = %a: %llu mismatches, first a = 0x%08x\n", b, h, f);
    }
    printf("mdiv_f32 against a / b: %zu divisors x 2^32 dividends, %llu mismatches %s\n", bs.size(), tot,
           cudaGetErrorString(cudaGetLastError()));
    return tot != 0;
}
