/* gemm.c — the generated kernels of matrix-product steps: a gather (a strided view, optionally
 * times a scalar, into C order) and the generic tiled GEMM for what cuBLASLt does not take (ints,
 * bool, k == 0), which reads any strides, accumulates as the CPU reference does (ints wrap in
 * uint64, bool is or-of-ands, 16-bit floats in float32) and applies the epilogue nodes exactly
 * as the unfused graph would (the prelude's op functions, in each node's dtype). Each kernel's
 * structure is a small signature struct: its key is the hash of the struct, its name carries
 * the key, and its parameters travel as one struct (cg_gather_params_t, cg_gemm_params_t). */
#include <stdio.h>

#include "emit.h"

static base_hash128_t key_of(const void *words, size_t n) {
    return (base_hash128_t){base_hash64(words, n, 0x6c6f6f6d67656d6dull),
                            base_hash64(words, n, 0x6b65797332303234ull)};
}

/* The kernel's text: KNAME defined as its name, the body, the prelude functions it calls. */
static void source(base_hash128_t key, const char *prefix, void (*body)(const void *, base_str_t *),
                   const void *sig, base_str_t *out, char *name) {
    snprintf(name, 48, "%s_%016llx", prefix, (unsigned long long)key.lo);
    base_str_t b;
    base_str_init(&b, out->al);
    base_str_printf(&b, "#define KNAME %s\n", name);
    body(sig, &b);
    cg__emit_finish(out, &b);
}

/* The bits of a CONST as an expression of the dtype's storage type. */
static void const_expr(base_str_t *o, loom_dtype_t d, const char *word) {
    if (d == LOOM_DTYPE_F32)
        base_str_printf(o, "__int_as_float((int)(unsigned)%s)", word);
    else if (d == LOOM_DTYPE_F64)
        base_str_printf(o, "__longlong_as_double((long long)%s)", word);
    else
        base_str_printf(o, "((%s)%s)", ir_dtypes[d].ctype, word);
}

/* ---- The gather kernel ---- */

static void gather_body(const void *sig, base_str_t *o) {
    const cg_gather_sig_t *s = sig;
    loom_dtype_t d = (loom_dtype_t)s->dtype;
    const char *t = ir_dtypes[d].ctype;
    base_str_printf(o,
                    "struct P { long long size, ndim, shape[%d], strides[%d];\n"
                    "  unsigned long long src, dst, scale; };\n"
                    "extern \"C\" __global__ void KNAME(const P p) {\n"
                    "  const %s *x = (const %s *)p.src; %s *y = (%s *)p.dst;\n"
                    "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
                    "       i < p.size; i += (long long)gridDim.x * blockDim.x) {\n"
                    "    long long r = i, off = 0;\n"
                    "    for (int ax = (int)p.ndim - 1; ax >= 0; ax--) {\n"
                    "      off += (r %% p.shape[ax]) * p.strides[ax]; r /= p.shape[ax]; }\n",
                    LOOM_MAX_DIMS, LOOM_MAX_DIMS, t, t, t, t);
    if (s->scaled) {
        base_str_printf(o, "    y[i] = lm_multiply_%s(x[off], ", ir_dtypes[d].sfx);
        const_expr(o, d, "p.scale");
        base_str_cat(o, ");\n");
    } else {
        base_str_cat(o, "    y[i] = x[off];\n");
    }
    base_str_cat(o, "  }\n}\n");
}

base_hash128_t cg_gather_key(const cg_gather_sig_t *s) { return key_of(s, sizeof *s); }

void cg_gather_source(const cg_gather_sig_t *s, base_str_t *out, char *name) {
    source(cg_gather_key(s), "loom_gather", gather_body, s, out, name);
}

void cg_gather_launch_shape(int64_t size, int sm_count, uint32_t *grid, uint32_t *block) {
    *grid = cg__grid_stride_blocks(size, 256, sm_count, 0);
    *block = 256;
}

/* ---- The generic GEMM kernel ---- */

static void operand_expr(base_str_t *o, const cg_gemm_sig_t *s, uint32_t ref) {
    if (ref == 0) {
        base_str_cat(o, "v0");
    } else if (ref < 0x100) {
        base_str_printf(o, "v%u", ref);
    } else if (ref < 0x200) {
        char w[32];
        snprintf(w, sizeof w, "p.cst[%u]", ref - 0x100);
        const_expr(o, (loom_dtype_t)s->dtype, w);
    } else {
        base_str_printf(o, "((const %s *)p.ein[%u])[j * p.estr[%u]]", ir_dtypes[s->dtype].ctype,
                        ref - 0x200, ref - 0x200);
    }
}

static void gemm_body(const void *sig, base_str_t *o) {
    const cg_gemm_sig_t *s = sig;
    loom_dtype_t d = (loom_dtype_t)s->dtype;
    const char *t = ir_dtypes[d].ctype, *acc, *ld, *st;
    switch (d) {
        case LOOM_DTYPE_F16: acc = "float", ld = "lm_cast_f16_f32", st = "lm_cast_f32_f16"; break;
        case LOOM_DTYPE_BF16: acc = "float", ld = "lm_cast_bf16_f32", st = "lm_cast_f32_bf16"; break;
        case LOOM_DTYPE_F32: acc = "float", ld = "", st = ""; break;
        case LOOM_DTYPE_F64: acc = "double", ld = "", st = ""; break;
        case LOOM_DTYPE_BOOL: acc = "unsigned long long", ld = "(unsigned long long)", st = "0 !="; break;
        default:
            acc = "unsigned long long";
            ld = ir_dtypes[d].kind == IR_DKIND_INT ? "(unsigned long long)(long long)"
                                                   : "(unsigned long long)";
            st = "";
    }
    base_str_printf(o,
        "#define TS 16\n"
        "struct P { long long m, n, k, sam, sak, sbk, sbn, scm, scn, nb, nbt;\n"
        "  long long be[%d], ba[%d], bb[%d], bc[%d], nk, nkt, ke[%d], ka[%d], kb[%d];\n"
        "  unsigned long long a, b, c, ein[%d]; long long estr[%d]; unsigned long long cst[%d]; };\n"
        "typedef %s A;\n"
        "extern \"C\" __global__ void __launch_bounds__(TS * TS) KNAME(const P p) {\n"
        "  __shared__ A as[TS][TS + 1], bs[TS][TS + 1];\n"
        "  const %s *a = (const %s *)p.a; const %s *b = (const %s *)p.b; %s *c = (%s *)p.c;\n"
        "  const int tx = threadIdx.x, ty = threadIdx.y;\n"
        "  const long long tm = (p.m + TS - 1) / TS, tn = (p.n + TS - 1) / TS;\n"
        "  for (long long z = blockIdx.z; z < p.nbt; z += gridDim.z) {\n"
        "    long long oa = 0, ob = 0, oc = 0, r = z;\n"
        "    for (int ax = (int)p.nb - 1; ax >= 0; ax--) {\n"
        "      const long long q = r %% p.be[ax]; r /= p.be[ax];\n"
        "      oa += q * p.ba[ax]; ob += q * p.bb[ax]; oc += q * p.bc[ax]; }\n"
        "    for (long long ti = blockIdx.y; ti < tm; ti += gridDim.y)\n"
        "    for (long long tj = blockIdx.x; tj < tn; tj += gridDim.x) {\n"
        "      const long long i = ti * TS + ty, j = tj * TS + tx;\n"
        "      A acc = 0;\n"
        "      for (long long ko = 0; ko < p.nkt; ko++) {\n"
        "        long long ka = oa, kb = ob, r2 = ko;\n"
        "        for (int ax = (int)p.nk - 1; ax >= 0; ax--) {\n"
        "          const long long q = r2 %% p.ke[ax]; r2 /= p.ke[ax];\n"
        "          ka += q * p.ka[ax]; kb += q * p.kb[ax]; }\n"
        "        for (long long p0 = 0; p0 < p.k; p0 += TS) {\n"
        "          as[ty][tx] = i < p.m && p0 + tx < p.k ? (A)%s(a[ka + i * p.sam + (p0 + tx) * p.sak]) : (A)0;\n"
        "          bs[ty][tx] = p0 + ty < p.k && j < p.n ? (A)%s(b[kb + (p0 + ty) * p.sbk + j * p.sbn]) : (A)0;\n"
        "          __syncthreads();\n"
        "          for (int q = 0; q < TS; q++) acc = acc + as[ty][q] * bs[q][tx];\n"
        "          __syncthreads();\n"
        "        }\n"
        "      }\n"
        "      if (i < p.m && j < p.n) {\n"
        "        const %s v0 = (%s)(%s(acc));\n",
        2 * LOOM_MAX_DIMS, 2 * LOOM_MAX_DIMS, 2 * LOOM_MAX_DIMS, 2 * LOOM_MAX_DIMS, LOOM_MAX_DIMS,
        LOOM_MAX_DIMS, LOOM_MAX_DIMS, CG_GEMM_MAX_IN, CG_GEMM_MAX_IN, CG_GEMM_MAX_CONST, acc, t, t, t, t, t, t,
        ld, ld, t, t, st);
    for (uint32_t e = 0; e < s->n_epi; e++) {
        loom_dtype_t ed = (loom_dtype_t)s->epi[e].dtype;
        int arity = ir_ops[s->epi[e].op].arity;
        base_str_printf(o, "        const %s v%u = lm_%s_%s(", ir_dtypes[ed].ctype, e + 1,
                        ir_ops[s->epi[e].op].name, ir_dtypes[ed].sfx);
        for (int k = 0; k < arity; k++) {
            if (k) base_str_cat(o, ", ");
            operand_expr(o, s, s->epi[e].src[k]);
        }
        base_str_cat(o, ");\n");
    }
    base_str_printf(o, "        c[oc + i * p.scm + j * p.scn] = v%u;\n      }\n    }\n  }\n}\n",
                    s->n_epi);
}

base_hash128_t cg_gemm_key(const cg_gemm_sig_t *s) { return key_of(s, sizeof *s); }

void cg_gemm_source(const cg_gemm_sig_t *s, base_str_t *out, char *name) {
    source(cg_gemm_key(s), "loom_gemm", gemm_body, s, out, name);
}

void cg_gemm_launch_shape(const cg_gemm_params_t *p, uint32_t grid[3], uint32_t block[3]) {
    int64_t tm = (p->m + 15) / 16, tn = (p->n + 15) / 16; /* 16 x 16 tiles, grid-stride */
    grid[0] = (uint32_t)(tn < 65535 ? tn : 65535);
    grid[1] = (uint32_t)(tm < 65535 ? tm : 65535);
    grid[2] = (uint32_t)(p->nbt < 65535 ? p->nbt : 65535);
    block[0] = block[1] = 16;
    block[2] = 1;
}
