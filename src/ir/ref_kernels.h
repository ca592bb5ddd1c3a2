/* ref_kernels.h - the CPU reference interpreter's kernels: one strided loop per op and dtype,
 * each calling the prelude's function (src/ir/prelude.h), so the CPU and the generated
 * CUDA code compute the same thing. */
#ifndef LOOM_IR_REF_KERNELS_H
#define LOOM_IR_REF_KERNELS_H

#include "ir.h"

/* out[i] = f(a[i * sa], b[i * sb], c[i * sc]) for i < n; strides in elements, out contiguous.
 * Unused operands and strides are ignored (pass NULL and 0). */
typedef void (*ir_ref_fn)(int64_t n, void *out, const void *a, int64_t sa, const void *b,
                          int64_t sb, const void *c, int64_t sc);

/* [op][compute dtype = operand dtype]; NULL where the op has no loop for that dtype. For WHERE:
 * [IR_OP_WHERE][result dtype], with a the bool condition and b, c the two choices. */
extern const ir_ref_fn ir_ref_elem[IR_OP_COUNT][LOOM_DTYPE_COUNT];
/* [from][to]: NumPy's astype (unsafe casting); a only. [d][d] is a copy. */
extern const ir_ref_fn ir_ref_cast[LOOM_DTYPE_COUNT][LOOM_DTYPE_COUNT];
/* Fills the node's whole C-contiguous output for CONST, ARANGE, LINSPACE, EYE (2-D: 1 where
 * col - row == p.k), RAND_UNIFORM and RAND_NORMAL (non-float dtypes: the float64 stream
 * cast to the dtype). Other ops: nothing is written (a broken invariant; asserts). */
void ir_ref_leaf(const ir_node_t *node, void *out);

/* ---- shape_ref.c: views, concatenation, reductions and scans (issue 4) ----
 * Operands are read through element strides (any sign, zero for broadcast axes); outputs are
 * C-contiguous buffers of the node's shape. */

/* The strides (and element offset from the operand's base) of VIEW node n read over operand o
 * whose view has strides ost. False for a RESHAPE that strides cannot express (the caller
 * copies the operand to a contiguous buffer and retries with its strides). */
bool ir_ref_view(const ir_node_t *n, const ir_node_t *o, const int64_t *ost, int64_t *offset,
                 int64_t *strides);
/* CONCAT node n of operands a and b (their views at pa/sa and pb/sb) into out. */
void ir_ref_concat(const ir_node_t *n, const ir_node_t *a, const char *pa, const int64_t *sa,
                   const ir_node_t *b, const char *pb, const int64_t *sb, void *out);
/* REDUCE node n of operand o (view at p, strides s) into out; false if scratch memory through
 * al runs out. Empty MAX/MIN/ARGMAX/ARGMIN write nothing (the frontend refuses them). */
bool ir_ref_reduce(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                   void *out, base_alloc_t *al);
/* SCAN node n of operand o (same dtype) into out. */
void ir_ref_scan(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                 void *out);

#endif
