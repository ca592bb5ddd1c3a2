/* nvrtc_check.c - compiles src/ir/prelude.h with NVRTC, together with a kernel that calls
 * every function the prelude generates (all ops x loop dtypes, all casts, where, leaves,
 * random), so that a prelude that gcc accepts but NVRTC does not is caught without a GPU.
 *
 *   gcc -std=gnu11 -Isrc -I/usr/local/cuda/include tools/nvrtc_check.c \
 *       -L/usr/local/cuda/lib64 -lnvrtc -o /tmp/nvrtc_check && /tmp/nvrtc_check [sm_90]
 *
 * Exit status 0 when it compiles; otherwise the NVRTC log is printed. */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read_file.h"

#include "ir/prelude.h"

#define STR2(x) #x
#define STR(x)  STR2(x)

/* One statement per generated function; the sum keeps every call alive. */
#define CALL_1(name, s, T)                          "acc += chk(lm_" #name "_" #s "(in<" #T ">(x[i])));\n"
#define CALL_2(name, s, T)                          "acc += chk(lm_" #name "_" #s "(in<" #T ">(x[i]), in<" #T ">(x[i + 1])));\n"
#define CALL_OP(E, name, ar, o, TAG, C, s, T, W, N) CALL_##ar(name, s, T)
#define CALL_OPS(E, name, ar, loops, o)             LM_LOOPS_##loops(CALL_OP, E, name, ar, o)
#define CALL_CAST(TTAG, ts, TT, tc, FTAG, fs, FT, fc)                                              \
    "acc += chk(lm_cast_" #fs "_" #ts "(in<" #FT ">(x[i])));\n"
#define CALL_CASTS(FTAG, fs, FT, fc) LM_DTYPE_LIST2(CALL_CAST, FTAG, fs, FT, fc)
#define CALL_LEAF(TAG, s, T, c)                                                                    \
    "acc += chk(lm_where_" #s "((lm_b)(i & 1), in<" #T ">(x[i]), in<" #T ">(x[i + 1])));\n"        \
    "acc += chk(lm_arange_" #s "(x[0], x[1], i));\n"                                               \
    "acc += chk(lm_linspace_" #s "(x[0], x[1], x[2], 7, i));\n"
#define CALL_RANDOM(s)                                                                             \
    "acc += (double)lm_random_uniform_" #s "(seed, i, 0.0, 1.0);\n"                                \
    "acc += (double)lm_random_normal_" #s "(seed, i, 0.0, 1.0);\n"

/* in<T>: an operand of type T from a double; chk: a result of any type as a double. */
static const char kernel[] =
    "template <typename T> __device__ T in(double v) { return (T)v; }\n"
    "template <> __device__ lm_c64 in<lm_c64>(double v) { return lm__mk_c64((float)v, 0.5f); }\n"
    "template <> __device__ lm_c128 in<lm_c128>(double v) { return lm__mk_c128(v, 0.5); }\n"
    "__device__ double chk(double v) { return v; }\n"
    "__device__ double chk(lm_c64 z) { return z.re + z.im; }\n"
    "__device__ double chk(lm_c128 z) { return z.re + z.im; }\n"
    "extern \"C\" __global__ void lm_check(const double *x, double *y, long long n,\n"
    "                                      unsigned long long seed) {\n"
    "    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "    if (i + 1 >= n) return;\n"
    "    double acc = 0;\n"
    "    lm_u32 r[4];\n"
    "    lm_philox(seed, (lm_u64)i, r);\n"
    "    acc += r[0] + lm_f16_to_f32(lm_f32_to_f16((float)x[i])) + "
    "lm_f64_to_bf16(x[i]);\n" LM_ELEM_OPS(CALL_OPS) LM_DTYPE_LIST(CALL_CASTS)
        LM_DTYPE_LIST(CALL_LEAF) CALL_RANDOM(f16) CALL_RANDOM(bf16) CALL_RANDOM(f32)
            CALL_RANDOM(f64) "    y[i] = acc;\n"
                             "}\n";

int main(int argc, char **argv) {
    const char *arch = argc > 1 ? argv[1] : "sm_90";
    const char *path = argc > 2 ? argv[2] : "src/ir/prelude.h";
    char *prelude = read_file(path);
    if (!prelude) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    size_t n = strlen(prelude) + sizeof kernel + 1;
    char *src = malloc(n);
    snprintf(src, n, "%s\n%s", prelude, kernel);
    char archopt[64];
    snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
    const char *opts[] = {archopt, "--std=c++17", "--fmad=false", "-default-device"};
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, src, "prelude_check.cu", 0, NULL, NULL) != NVRTC_SUCCESS)
        return 1;
    nvrtcResult rc = nvrtcCompileProgram(prog, 4, opts);
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    char *log = malloc(log_size + 1);
    nvrtcGetProgramLog(prog, log);
    if (rc != NVRTC_SUCCESS || log_size > 1) fprintf(stderr, "%s\n", log);
    size_t cubin = 0;
    if (rc == NVRTC_SUCCESS) nvrtcGetCUBINSize(prog, &cubin);
    printf("%s: %s (%zu bytes of source, cubin %zu bytes)\n", arch,
           rc == NVRTC_SUCCESS ? "compiled" : nvrtcGetErrorString(rc), strlen(src), cubin);
    nvrtcDestroyProgram(&prog);
    free(log);
    free(src);
    free(prelude);
    return rc == NVRTC_SUCCESS ? 0 : 1;
}
