// a / b correctly rounded (IEEE binary32, round to nearest), given y = RN(1/b), for a divisor
// that stays the same over many elements: q = RN(a y) is within 1 ulp of a / b, and one FMA
// correction q + (a - b q) y, rounded once, is the correctly rounded quotient (Markstein's
// theorem), as long as nothing leaves the normal range: |a| in [2^-90, 2^90), |b| in
// [2^-32, 2^32) (so the quotient lies in (2^-122, 2^122) and a - b q is exact). Otherwise
// (zeros, subnormals, infinities, NaN, huge or tiny operands) the IEEE division itself.
static __device__ __forceinline__ float mdiv_f32(float a, float b, float y) {
    const unsigned ea = (__float_as_uint(a) >> 23) & 255u, eb = (__float_as_uint(b) >> 23) & 255u;
    if (ea - 37u < 180u && eb - 95u < 64u) {
        const float q = __fmul_rn(a, y);
        return __fmaf_rn(__fmaf_rn(-q, b, a), y, q);
    }
    return a / b;
}
