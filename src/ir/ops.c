/* ops.c - the op table (from IR_OP_LIST) and NumPy's choice of loop for each op and dtype. */
#include "ir.h"

const ir_op_info_t ir_ops[IR_OP_COUNT] = {
#define OP_INFO(e, name, kind, arity, loops, out)                                                  \
    [IR_OP_##e] = {name, IR_KIND_##kind, arity, IR_LOOPS_##loops, IR_OUT_##out},
    IR_OP_LIST(OP_INFO)
#undef OP_INFO
};

bool ir_op_has_loop(ir_op_t op, loom_dtype_t d) {
    ir_dkind_t k = ir_dtypes[d].kind;
    bool c = k == IR_DKIND_COMPLEX;
    switch (ir_ops[op].loops) {
        case IR_LOOPS_ANY:
            return true;
        case IR_LOOPS_ALL:
            return !c;
        case IR_LOOPS_NUM:
            return k != IR_DKIND_BOOL && !c;
        case IR_LOOPS_FLT:
            return k == IR_DKIND_FLOAT;
        case IR_LOOPS_INT:
            return k != IR_DKIND_FLOAT && !c;
        case IR_LOOPS_INTNB:
            return k == IR_DKIND_INT || k == IR_DKIND_UINT;
        case IR_LOOPS_ALLC:
            return true;
        case IR_LOOPS_NUMC:
            return k != IR_DKIND_BOOL;
        case IR_LOOPS_FLTC:
            return k == IR_DKIND_FLOAT || c;
        case IR_LOOPS_CPLX:
            return c;
    }
    return false;
}

const loom_dtype_t ir_loop_order[LOOM_DTYPE_COUNT] = {
    LOOM_DTYPE_BOOL, LOOM_DTYPE_I8,  LOOM_DTYPE_U8,  LOOM_DTYPE_I16, LOOM_DTYPE_U16,
    LOOM_DTYPE_I32,  LOOM_DTYPE_U32, LOOM_DTYPE_I64, LOOM_DTYPE_U64, LOOM_DTYPE_F16,
    LOOM_DTYPE_BF16, LOOM_DTYPE_F32, LOOM_DTYPE_F64, LOOM_DTYPE_C64, LOOM_DTYPE_C128};

int ir_op_loop_dtype(ir_op_t op, loom_dtype_t common) {
    const loom_dtype_t *order = ir_loop_order;
    if ((int)common < 0 || common >= LOOM_DTYPE_COUNT || op >= IR_OP_COUNT) return -1;
    if (common == LOOM_DTYPE_BOOL) {
        /* NumPy refuses these on bool rather than taking the int8 loop. */
        if (op == IR_OP_NEGATIVE || op == IR_OP_POSITIVE || op == IR_OP_SUBTRACT ||
            op == IR_OP_SIGN)
            return -1;
    }
    /* true_divide's integer loops (bb->d ... QQ->d) compute in float64. */
    if (op == IR_OP_TRUE_DIVIDE && ir_is_int(common)) return LOOM_DTYPE_F64;
    for (size_t i = 0; i < LOOM_DTYPE_COUNT; i++)
        if (ir_op_has_loop(op, order[i]) && ir_can_cast_safe(common, order[i]))
            return (int)order[i];
    return -1;
}

bool ir_node_raises(const ir_graph_t *g, const ir_node_t *n) {
    return n->op == IR_OP_INDEX ||
           (n->op == IR_OP_POWER && ir_dtypes[g->nodes[n->src[0]].dtype].kind == IR_DKIND_INT);
}

loom_status_t ir_index_error(base_error_t *err, int64_t index, int64_t axis, int64_t size) {
    return base_error_set(err, LOOM_STATUS_INDEX_ERROR, IR_INDEX_MESSAGE, (long long)index,
                          (long long)axis, (long long)size);
}

loom_status_t ir_raise_status(uint32_t bits) {
    return (bits & IR_RAISE_NEG_POWER) || !(bits & IR_RAISE_INDEX) ? LOOM_STATUS_INVALID_ARGUMENT
                                                                   : LOOM_STATUS_INDEX_ERROR;
}

const char *ir_raise_message(uint32_t bits) {
    if (bits & IR_RAISE_NEG_POWER) return "power: integers to negative integer powers are not allowed";
    if (bits & IR_RAISE_INDEX) return "an index is out of bounds for its axis";
    return "a kernel reported an unknown error";
}
