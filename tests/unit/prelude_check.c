/* prelude_check.c - evaluates requests from prelude_check.py through the reference kernels
 * (ir_ref_elem, ir_ref_cast), so that the script can compare every op, dtype and cast with
 * NumPy. Reads lines "E <op> <dtype> <a bits> [<b bits>]" or "C <from> <to> <bits>" (bits in
 * hex) and prints the result's bits in hex, one line each. */
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"

static int op_from_name(const char *name) {
    for (int op = 0; op < IR_OP_COUNT; op++)
        if (strcmp(ir_ops[op].name, name) == 0) return op;
    return -1;
}

int main(void) {
    char kind[8], s1[32], s2[32];
    unsigned long long a, b;
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        uint64_t out = 0;
        if (sscanf(line, "%7s %31s %31s %llx %llx", kind, s1, s2, &a, &b) < 4) continue;
        if (kind[0] == 'C') {
            ir_ref_cast[loom_dtype_from_name(s1)][loom_dtype_from_name(s2)](1, &out, &a, 0, NULL, 0,
                                                                            NULL, 0);
        } else {
            int op = op_from_name(s1), d = loom_dtype_from_name(s2);
            ir_ref_fn fn = op < 0 || d < 0 ? NULL : ir_ref_elem[op][d];
            if (!fn) {
                printf("none\n");
                continue;
            }
            fn(1, &out, &a, 0, &b, 0, NULL, 0);
        }
        printf("%llx\n", (unsigned long long)out);
    }
    return 0;
}
