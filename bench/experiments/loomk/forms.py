#!/usr/bin/env python3
"""Session 8: loom's re-read layernorm kernel (layernorm_8192_l2b.cu) against torch.compile's
own kernels (torch_ln_<R0_BLOCK>.ptx, the three configs inductor autotuned, from the Triton
cache of bench/experiments/torch_ln_dump.py) in one harness, and variants of loom's kernel with
each of the forms torch's uses: L1::evict_last on the kept reads, the last read L1::evict_first
with an L2 evict_first policy, plain stores, approximate division (diagnostic only: loom's
division is IEEE). Other sets, by argument (RESULTS.md, "Session 8", calls 3-12):
  hybrid   the row in registers from the first read to the second pass (torch's R0_BLOCK 8192
           form: one re-read from L2), the exact division by a row value of mdiv.h (call 3)
  row      float32 mean/variance divisions, torch's forms all at once (call 4)
  welford  butterfly reductions; hand-written one-pass Welford rows of welford.inc (5, 10)
  hoist    the last pass's loads issued before its math (call 7)
  addr     row pointers, fixed trip counts (call 9)
  loads    ld.global.nc, L2::256B, L1::no_allocate (call 12)
Run from the repository root:
python3 bench/experiments/loomk/forms.py [SET] > fm.cu && nvcc -O3 -arch=sm_90 -o fm fm.cu -lcuda && ./fm"""
import os
import re
import sys

import reset as rs

EXTRA = r"""
template <typename V> static __device__ __forceinline__ V tk_ld(const V *p, lm_u64 pol) {
    uint4 u;
    asm volatile("ld.global.L1::evict_last.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p), "l"(pol));
    return *(const V *)&u;
}
template <typename V> static __device__ __forceinline__ V tk_ldef(const V *p, lm_u64 pol) {
    uint4 u;
    asm volatile("ld.global.L1::evict_first.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p), "l"(pol));
    return *(const V *)&u;
}
template <typename V> static __device__ __forceinline__ V tk_ldnc(const V *p, lm_u64 pol) {
    uint4 u;
    asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p), "l"(pol));
    return *(const V *)&u;
}
template <typename V> static __device__ __forceinline__ V tk_ld256(const V *p, lm_u64 pol) {
    uint4 u;
    asm volatile("ld.global.L2::cache_hint.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p), "l"(pol));
    return *(const V *)&u;
}
template <typename V> static __device__ __forceinline__ V tk_ldna(const V *p) {
    uint4 u;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(p));
    return *(const V *)&u;
}
static __device__ __forceinline__ float tk_div(float a, float b) {
    float r;
    asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
"""
EXTRA += open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mdiv.h")).read()
X = "(const lm_vec<lm_f32, 4> *)(in0 + k0 + t * 4)"


def base(k):
    return rs.fixed_trip(rs.no_stats(rs.no_reset(k)))


def plain_st(k):
    return k.replace("lmr_stcs((lm_vec<lm_f32, 4> *)(out2 + kx + t * 4), w2)",
                     "*(lm_vec<lm_f32, 4> *)(out2 + kx + t * 4) = w2")


def l1_last(k):
    return k.replace(f"lmr_ldkeep({X}, lm_keep)", f"tk_ld({X}, lm_keep)")


def last_ef(k):
    k = k.replace(f"lmr_ldcs({X})", f"tk_ldef({X}, lm_first)")
    return k.replace("    (void)lm_keep;\n", "    (void)lm_keep;\n    lm_u64 lm_first;\n"
                     "    asm volatile(\"createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\""
                     " : \"=l\"(lm_first));\n", 1)


def approx_div(k):
    return k.replace("lm_true_divide_f32(v6, v14)", "tk_div(v6, v14)")


def torch_forms(k):
    return plain_st(l1_last(last_ef(k)))


def hybrid(minb):  # registers from the first read to the second pass; the third re-reads
    def f(k):
        k = k.replace("        const LM_I tb = 0, te = nvec;\n",
                      "        const LM_I tb = 0, te = nvec;\n        lm_vec<lm_f32, 4> hc[4];\n")
        ld = f"const lm_vec<lm_f32, 4> l0 = lmr_ldkeep({X}, lm_keep);"
        assert k.count(ld) == 2
        k = k.replace(ld, ld + " hc[it] = l0;", 1)
        i = k.index(ld, k.index("hc[it] = l0;"))
        k = k[:i] + "const lm_vec<lm_f32, 4> l0 = hc[it];" + k[i + len(ld):]
        return k.replace("__launch_bounds__(512, 4)", f"__launch_bounds__(512, {minb})")
    return f


def f32_row(k):  # the row's mean and variance divided in float32 (exact for n <= 2^24)
    k = k.replace("const lm_f64 v2 = lm_cast_f32_f64(v1);", "")
    k = k.replace("const lm_f64 v4 = lm_true_divide_f64(v2, v3);", "")
    k = k.replace("const lm_f32 v5 = lm_cast_f64_f32(v4);", "const lm_f32 v5 = v1 / (lm_f32)v3;")
    k = k.replace("const lm_f64 v9 = lm_cast_f32_f64(v8);", "")
    k = k.replace("const lm_f64 v10 = lm_true_divide_f64(v9, v3);", "")
    assert "const lm_f32 v11 = lm_cast_f64_f32(v10);" in k
    return k.replace("const lm_f32 v11 = lm_cast_f64_f32(v10);", "const lm_f32 v11 = v8 / (lm_f32)v3;")


def xor_red(k):  # butterfly reductions: every lane ends with the sum, no broadcast
    for a in ("a1", "a8"):
        k = k.replace(f"""        for (int m = 16; m > 0; m >>= 1) {{
            const auto ov = lmr_down({a}, m, 32);
            {a} = lm_add_f32({a}, ov);
        }}
        if""", f"""        for (int m = 16; m > 0; m >>= 1) {{
            const auto ov = lmr_xor({a}, m, 32);
            {a} = lm_add_f32({a}, ov);
        }}
        if""")
        s_ = "s1" if a == "a1" else "s8"
        old = f"""        {a} = (threadIdx.x & 31) < 16 ? {s_}[threadIdx.x & 31] : (lm_f32)0;
        for (int m = 16; m > 0; m >>= 1) {{
            const auto ov = lmr_down({a}, m, 32);
            {a} = lm_add_f32({a}, ov);
        }}
        {a} = lmr_first({a}, 32);
"""
        assert old in k, a
        k = k.replace(old, f"""        {a} = {s_}[threadIdx.x & 15];
        for (int m = 8; m > 0; m >>= 1) {{
            const auto ov = lmr_xor({a}, m, 16);
            {a} = lm_add_f32({a}, ov);
        }}
""")
    return k


def hoist(passes, g=4):  # the loads of an unrolled group of g first, then their math
    hd = "#pragma unroll 4\n        for (LM_I t = tb + lane; t < te; t += 512) {\n"
    ldre = re.compile(r"            const lm_vec<lm_f32, 4> l0 = (.*);\n")

    def f(k):
        out, i, q = "", 0, 0
        while (j := k.find(hd, i)) >= 0:
            e = k.index("\n        }\n", j + len(hd))
            body = k[j + len(hd):e + 1]
            out += k[i:j]
            if q in passes:
                m = ldre.search(body)
                body = body.replace(m.group(0), "            const lm_vec<lm_f32, 4> l0 = lb0[u];\n")
                out += (f"#pragma unroll {4 // g}\n        for (LM_I t0 = tb + lane; t0 < te; t0 += {512 * g}) {{\n"
                        f"        lm_vec<lm_f32, 4> lb0[{g}];\n"
                        f"#pragma unroll\n        for (int u = 0; u < {g}; u++) {{\n"
                        "            const LM_I t = t0 + u * 512;\n"
                        f"            if (t < te) lb0[u] = {m.group(1)};\n        }}\n"
                        f"#pragma unroll\n        for (int u = 0; u < {g}; u++) {{\n"
                        "        const LM_I t = t0 + u * 512;\n        if (t < te) {\n"
                        + body + "        }}}\n")
            else:
                out += hd + body + "        }\n"
            i = e + len("\n        }\n")
            q += 1
        return out + k[i:]
    return f


def mdiv(k):
    k = k.replace("        const lm_f32 v14 = lm_sqrt_f32(v13);\n",
                  "        const lm_f32 v14 = lm_sqrt_f32(v13);\n        const lm_f32 v14r = __frcp_rn(v14);\n")
    return k.replace("lm_true_divide_f32(v6, v14)", "mdiv_f32(v6, v14, v14r)")


T = [("loom as generated", lambda k: k),
     ("no reset", rs.no_reset),
     ("B = no reset, no stats, fixed trip", base),
     ("B + f32 row math", lambda k: f32_row(base(k))),
     ("no reset + f32 row math", lambda k: f32_row(rs.no_reset(k))),
     ("B + f32 row math + div.full", lambda k: approx_div(f32_row(base(k)))),
     ("hybrid 3 + torch forms + f32 row + div.full", lambda k: approx_div(f32_row(torch_forms(hybrid(3)(base(k))))))]
def rowptr(k):  # a vector pointer per row and input, computed once; loads and stores index it
    k = k.replace("        (void)k0;\n", "        (void)k0;\n"
                  "        const lm_vec<lm_f32, 4> *const xr0 = (const lm_vec<lm_f32, 4> *)(in0 + k0);\n", 1)
    k = k.replace("        (void)kx;\n", "        (void)kx;\n"
                  "        lm_vec<lm_f32, 4> *const yr2 = (lm_vec<lm_f32, 4> *)(out2 + kx);\n", 1)
    k = k.replace(X, "(xr0 + t)")
    return k.replace("(lm_vec<lm_f32, 4> *)(out2 + kx + t * 4)", "(yr2 + t)")


def now(k):  # what the codegen emits since 4e6a149 (no reset, no per-row stats)
    return rs.no_stats(rs.no_reset(k))


def bounds(n):
    return lambda k: k.replace("__launch_bounds__(512, 4)", f"__launch_bounds__(512, {n})")


P = [("loom as generated", lambda k: k),
     ("no reset (HEAD)", rs.no_reset),
     ("HEAD + last pass 4 loads first (spills)", lambda k: hoist((2,))(rs.no_reset(k))),
     ("HEAD + last pass 2 loads first", lambda k: hoist((2,), 2)(rs.no_reset(k))),
     ("HEAD + last pass 2 loads first, no stats", lambda k: rs.no_stats(hoist((2,), 2)(rs.no_reset(k)))),
     ("HEAD + last pass 4 loads first, 512 x 3", lambda k: bounds(3)(hoist((2,))(rs.no_reset(k)))),
     ("B = no reset, no stats, fixed trip", base),
     ("B + div.full", lambda k: approx_div(base(k))),
     ("HEAD + last loads first + div.full", lambda k: approx_div(hoist((2,))(rs.no_reset(k))))]
W = [("HEAD 4e6a149 (no reset, no stats)", lambda k: rs.no_stats(rs.no_reset(k))),
     ("B = no reset, no stats, fixed trip", base),
     ("B + butterfly reductions", lambda k: xor_red(base(k))),
     ("B + butterfly + f32 row + div.full", lambda k: approx_div(f32_row(xor_red(base(k)))))]
H = [("loom as generated", lambda k: k),
     ("B = no reset, no stats, fixed trip", base),
     ("B + div.full", lambda k: approx_div(base(k))),
     ("B + exact mdiv", lambda k: mdiv(base(k))),
     ("hybrid 512 x 3", lambda k: hybrid(3)(base(k))),
     ("hybrid 512 x 4", lambda k: hybrid(4)(base(k))),
     ("hybrid 512 x 3 + mdiv", lambda k: mdiv(hybrid(3)(base(k)))),
     ("hybrid 512 x 3 + torch forms", lambda k: torch_forms(hybrid(3)(base(k)))),
     ("hybrid 512 x 3 + torch forms + div.full", lambda k: approx_div(torch_forms(hybrid(3)(base(k)))))]
V = [("loom as generated", lambda k: k),
     ("no reset", rs.no_reset),
     ("B = no reset, no stats, fixed trip", base),
     ("B + plain stores", lambda k: plain_st(base(k))),
     ("B + L1::evict_last kept reads", lambda k: l1_last(base(k))),
     ("B + last read L1/L2 evict_first", lambda k: last_ef(base(k))),
     ("B + all three torch forms", lambda k: torch_forms(base(k))),
     ("B + torch forms + div.full", lambda k: approx_div(torch_forms(base(k)))),
     ("B + div.full", lambda k: approx_div(base(k)))]
rs.EXTRA = EXTRA
def nc_keep(k):
    return k.replace(f"lmr_ldkeep({X}, lm_keep)", f"tk_ldnc({X}, lm_keep)")


def first256(k):
    return k.replace(f"lmr_ldkeep({X}, lm_keep)", f"tk_ld256({X}, lm_keep)", 1)


def na_last(k):
    return k.replace(f"lmr_ldcs({X})", f"tk_ldna({X})")


L = [("HEAD 4e6a149 (no reset, no stats)", now),
     ("HEAD + .nc kept reads", lambda k: nc_keep(now(k))),
     ("HEAD + first read L2::256B", lambda k: first256(now(k))),
     ("HEAD + last read .nc.L1::no_allocate", lambda k: na_last(now(k))),
     ("HEAD + .nc kept + last no_allocate", lambda k: na_last(nc_keep(now(k))))]
A = [("HEAD 4e6a149 (no reset, no stats)", now),
     ("HEAD + row pointers", lambda k: rowptr(now(k))),
     ("HEAD + row pointers + fixed trip", lambda k: rowptr(rs.fixed_trip(now(k)))),
     ("HEAD + fixed trip", lambda k: rs.fixed_trip(now(k))),
     ("HEAD + row pointers + div.full", lambda k: approx_div(rowptr(now(k)))),
     ("HEAD + div.full", lambda k: approx_div(now(k)))]
if sys.argv[1:] == ["loads"]:
    rs.emit(L, ["bench/experiments/loomk/torch_ln_8192.ptx"], reps=9)
elif sys.argv[1:] == ["addr"]:
    rs.emit(A, ["bench/experiments/loomk/torch_ln_8192.ptx"], reps=9)
elif sys.argv[1:] == ["hoist"]:
    rs.emit(P, ["bench/experiments/loomk/torch_ln_8192.ptx"], reps=7)
elif sys.argv[1:] == ["welford"]:  # hand-written kernels of welford.inc too
    rs.EXTRA += (open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "welford.inc")).read()
                 .replace("LMP", "lm_params_" + rs.name))
    rs.emit(W + [("hand: welford, 2 passes, L2 re-read", None), ("hand: welford, registers, 512 x 3", None),
                 ("hand: welford, registers, 512 x 4", None), ("hand: welford, L2, unfused ops", None),
                 ("hand: welford, registers 512 x 4, unfused", None)],
            ["bench/experiments/loomk/torch_ln_8192.ptx"], reps=7)
elif sys.argv[1:] == ["row"]:
    rs.emit(T, ["bench/experiments/loomk/torch_ln_8192.ptx"], reps=7)
elif sys.argv[1:] == ["hybrid"]:
    rs.emit(H, ["bench/experiments/loomk/torch_ln_8192.ptx"])
else:
    rs.emit(V, [f"bench/experiments/loomk/torch_ln_{n}.ptx" for n in (2048, 4096, 8192)])
