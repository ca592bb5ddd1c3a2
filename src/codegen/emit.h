/* emit.h — text and key helpers shared by the code generators (elementwise.c, reduce_emit.c,
 * scan.c, gemm.c), and the launch-shape policy they share. */
#ifndef LOOM_CG_EMIT_H
#define LOOM_CG_EMIT_H

#include "cg.h"

/* Appends the prelude's declarations and the prelude functions `gen` names (identifiers
 * starting lm_), with what they call, in prelude order. Sets o->failed on out of memory. */
void cg__emit_prelude(const char *gen, base_str_t *o, base_alloc_t *al);

/* The start of a kernel's text: the banner, the index type LM_I (int, or long long when
 * idx64) and the parameter struct lm_params_<name> of n_params 64-bit words. */
void cg__emit_kernel_open(base_str_t *o, const char *name, bool idx64, uint32_t n_params);
/* Appends to out the prelude functions body calls, then body; releases body. A body that
 * calls lm_raise or lm_raise_index (a node that raises, see cg__emit_elem) gets the module's
 * status word lm_status (RT_STATUS_WORD, RT_STATUS_BYTES) and the functions it calls. */
void cg__emit_finish(base_str_t *out, base_str_t *body);

/* The launch-shape policy every generated kernel shares: cg__sms is the multiprocessor count
 * (132, an H200's, where it is unknown); a resident wave is sm_count x blocks_per_sm blocks
 * (8 per multiprocessor where the occupancy is unknown); a grid-stride
 * kernel gets a block per `block` units of work, at most one wave (at least one block). */
int cg__sms(int sm_count);
int64_t cg__wave(int sm_count, int blocks_per_sm);
uint32_t cg__grid_stride_blocks(int64_t work, uint32_t block, int sm_count, int blocks_per_sm);

/* A structural key built from 32-bit words, hashed in blocks so any length hashes whole. */
typedef struct cg__key {
    uint32_t words[1024];
    uint32_t n;
    uint64_t acc;
} cg__key_t;

void cg__key_init(cg__key_t *k, uint32_t format);
void cg__key_put(cg__key_t *k, uint32_t w);
base_hash128_t cg__key_done(cg__key_t *k);

/* Generator leaves (ARANGE, LINSPACE, EYE, RAND_*): the parameter words each takes before its
 * strides, those words, their declarations q<j>_* (from P.w[*w], advancing *w), and the
 * generated value of element `index` (a C expression of the leaf's own flat index). */
uint32_t cg__leaf_n_words(const ir_node_t *n);
uint32_t cg__leaf_words(const ir_node_t *n, uint64_t *w);
void cg__emit_leaf_decls(base_str_t *o, const ir_node_t *n, uint32_t j, uint32_t *w);
void cg__emit_leaf_value(base_str_t *o, const ir_node_t *n, uint32_t j, const char *index);

/* The right-hand side of elementwise node n (CAST, WHERE or an LM_ELEM_OPS op) whose
 * operands are the variables v<pa>, v<pb>, v<pc>. A node that raises checks its operands,
 * calling lm_raise(IR_RAISE_*) where NumPy would raise. */
void cg__emit_elem(base_str_t *o, const ir_graph_t *g, const ir_node_t *n, uint32_t pa, uint32_t pb,
                   uint32_t pc);

#endif
