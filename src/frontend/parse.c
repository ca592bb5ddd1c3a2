/* parse.c — loom_parse: NumPy expressions as text, evaluated through the public builders.
 *
 *   text ──► tokens (whole program) ──► AST (Python's precedence) ──► values (arrays, or
 *            Python numbers folded with Python's own arithmetic) ──► the requested outputs
 *
 * Python numbers stay Python numbers until they meet an array (then they become NEP 50 weak
 * scalars), so `-2**2` is -4 and `x + 2**3` adds a weak 8, exactly as NumPy sees them. Every
 * error names the line and puts a caret under the column; the builders' own errors (shapes,
 * dtypes) get the same caret appended. Functions come from one table: a function the library
 * cannot evaluate yet is a LATER entry with the issue that brings it.
 *
 * Neither the parser nor the evaluator recurses along a chain (x+x+...+x, -(-(-x)), a**b**c,
 * x[0][0]..., x.T.T, x.sum().sum()): both loop, so a chain may be as long as the program.
 * Recursion is left to nesting (parentheses, brackets, calls, subscripts), which is refused
 * past MAX_NESTING levels so that a program cannot exhaust the stack. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/prelude.h"
#include "fe.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;
#define I128_MAX ((i128)(((u128)1 << 127) - 1))

/* ---- Tokens ---------------------------------------------------------------------------- */

/* X(ENUM, text): longer operators before their prefixes. */
#define OP_LIST(X)                                                                                 \
    X(ELLIPSIS, "...")                                                                             \
    X(POW, "**") X(FLOORDIV, "//") X(LSHIFT, "<<") X(RSHIFT, ">>") X(LE, "<=") X(GE, ">=")         \
        X(EQ, "==") X(NE, "!=") X(PLUS, "+") X(MINUS, "-") X(STAR, "*") X(SLASH, "/")              \
            X(PERCENT, "%") X(AT, "@") X(AMP, "&") X(PIPE, "|") X(CARET, "^") X(TILDE, "~")        \
                X(LT, "<") X(GT, ">") X(LPAR, "(") X(RPAR, ")") X(LBRK, "[") X(RBRK, "]")          \
                    X(COMMA, ",") X(COLON, ":") X(DOT, ".") X(ASSIGN, "=") X(SEMI, ";")

enum {
#define OP_ENUM(e, s) OP_##e,
    OP_LIST(OP_ENUM)
#undef OP_ENUM
        OP_COUNT
};
static const char *const op_text[] = {
#define OP_TEXT(e, s) s,
    OP_LIST(OP_TEXT)
#undef OP_TEXT
};

typedef enum tok_kind { T_END, T_NEWLINE, T_INT, T_FLOAT, T_IMAG, T_NAME, T_STR, T_OP } tok_kind_t;

typedef struct tok {
    tok_kind_t kind;
    int op;
    int32_t pos, len;
} tok_t;

/* ---- AST ------------------------------------------------------------------------------- */

typedef enum nkind {
    N_INT,
    N_FLOAT,
    N_IMAG, /* an imaginary literal (2.5j): fval */
    N_BOOL,
    N_NONE,
    N_ELLIPSIS,
    N_STR,
    N_NAME,
    N_UNARY,
    N_BINARY,
    N_CALL,
    N_ATTR,
    N_INDEX,
    N_SLICE,
    N_TUPLE,
    N_KWARG,
    N_VALUE /* made by the evaluator: a value already computed (pv), e.g. one index array of
             * a mask of several axes; ival: that mask's extent along the axis, or -1 */
} nkind_t;

typedef struct node {
    nkind_t kind;
    int op;             /* N_UNARY, N_BINARY: OP_* */
    int32_t pos;        /* caret column: the operator, name or first token */
    int32_t tpos, tlen; /* N_NAME, N_STR, N_ATTR, N_KWARG: the text */
    bool np;            /* N_NAME written as np.NAME: never a variable */
    bool linalg;        /* N_NAME written as linalg.NAME (numpy.linalg's own semantics) */
    bool random;        /* N_NAME written as random.NAME: a Generator method (random.c) */
    int32_t sym;        /* N_NAME not written np.NAME: the name's number (symtab_t) */
    const struct func *fn; /* N_NAME, N_ATTR called (parse_call): find_func of the text */
    int32_t n;
    struct node **kids; /* N_CALL: callee, args; N_INDEX: object, items; N_SLICE: 3 (or NULL) */
    i128 ival;
    double fval;
    const struct value *pv; /* N_VALUE */
} node_t;

#define MAX_UNPACK 8
typedef struct stmt {
    int32_t tpos, tlen; /* assigned name, tlen 0 for an expression statement */
    int32_t sym;        /* that name's number (symtab_t) */
    int32_t n_unpack;   /* a, b = expr: the names (a tuple of as many values) */
    int32_t upos[MAX_UNPACK], ulen[MAX_UNPACK], usym[MAX_UNPACK];
    node_t *expr;
    node_t *target; /* NAME[index] = expr: the subscript (the name is rebound to a copy
                       with those elements replaced) */
    int at_op;      /* np.add.at(NAME, index, values) (minimum, maximum): 1 + the
                       loom_at_op_t; NAME is rebound to the combined copy */
} stmt_t;

/* ---- Values ---------------------------------------------------------------------------- */

typedef enum vkind {
    V_ARRAY,
    V_INT,
    V_FLOAT,
    V_COMPLEX, /* a Python complex: f + fi j */
    V_BOOL,
    V_NONE,
    V_STR,
    V_DTYPE,
    V_TUPLE,
    V_ELLIPSIS,
    V_INFO, /* np.finfo / np.iinfo of dtype (its attributes: apply_attr) */
    V_SLICE /* Python's slice(start, stop, step): items, 3 ints or None (insert, delete) */
} vkind_t;

typedef struct value {
    vkind_t kind;
    loom_array_t *a;
    i128 i; /* V_INT; V_BOOL 0 or 1 */
    double f, fi;
    int dtype;           /* V_DTYPE */
    bool pytype;         /* V_DTYPE written as Python's int, float or bool */
    int32_t tpos, tlen;  /* V_STR */
    struct value *items; /* V_TUPLE */
    int32_t n;
} value_t;

/* The program's distinct names (variables, and the inputs it mentions), numbered in order of
 * first appearance while parsing; a variable is then found by number, not by comparing text.
 * An open-addressing hash of the text gives a name's number. */
typedef struct sym {
    int32_t tpos, tlen; /* the text of the first occurrence */
} sym_t;

typedef struct symtab {
    sym_t *at;
    int32_t n, cap;
    int32_t *slots;  /* 1 + a name's number, or 0 for an empty slot */
    int32_t n_slots; /* 4 * cap, a power of two */
} symtab_t;

/* One name's value while the program runs (P->vars, indexed by name number). */
typedef struct var {
    int32_t tpos;  /* where it was first assigned, or -1 while unassigned */
    int32_t input; /* the index of the bound array of that name, or -1 */
    value_t v;
} var_t;

/* A step waiting for an operand's value (eval_node): the node, and for a binary operator the
 * value of its left operand once it is in. */
typedef struct frame {
    const struct node *x;
    bool has_left;
    value_t left;
} frame_t;

typedef struct parser {
    loom_ctx_t *ctx;
    const char *src;
    int32_t len;
    base_arena_t arena;
    tok_t *toks;
    int32_t n_toks, cap_toks, at;
    int32_t n_names;
    const char *const *names;
    loom_array_t *const *arrays;
    symtab_t syms;
    var_t *vars;    /* one per name of syms */
    int32_t *order; /* the numbers of the assigned names, in order of first assignment */
    int32_t n_assigned;
    int32_t depth;   /* nesting of the construct being parsed (MAX_NESTING) */
    frame_t *frames; /* eval_node's pending steps, innermost last */
    int32_t n_frames, cap_frames;
    struct bound *free_bounds; /* call_func's argument slots, for reuse */
    uint64_t n_draws;          /* random.NAME calls evaluated so far: the default stream */
} parser_t;

/* ---- Errors ---------------------------------------------------------------------------- */

/* Appends the line holding pos, and a caret under pos, to buf. */
static void caret_lines(const parser_t *P, int32_t pos, char *buf, size_t cap) {
    int32_t ls = pos, le = pos, line = 1;
    while (ls > 0 && P->src[ls - 1] != '\n') ls--;
    while (le < P->len && P->src[le] != '\n') le++;
    for (int32_t i = 0; i < ls; i++) line += P->src[i] == '\n';
    int32_t from = ls, to = le;
    if (pos - from > 80) from = pos - 60; /* long lines: a window around the column */
    if (to - from > 120) to = from + 120;
    size_t n = strlen(buf);
    bool multi = memchr(P->src, '\n', (size_t)P->len) != NULL;
    if (multi && n < cap) n += (size_t)snprintf(buf + n, cap - n, " (line %d)", (int)line);
    if (n < cap)
        n += (size_t)snprintf(buf + n, cap - n, "\n  %s%.*s%s\n  %s", from > ls ? "..." : "",
                              (int)(to - from), P->src + from, to < le ? "..." : "",
                              from > ls ? "   " : "");
    for (int32_t i = from; i < pos && n + 1 < cap; i++) {
        unsigned char c = (unsigned char)P->src[i];
        if ((c & 0xC0) == 0x80) continue; /* UTF-8 continuation: one column per code point */
        buf[n++] = c == '\t' ? '\t' : ' ';
    }
    if (n + 1 < cap) buf[n++] = '^';
    buf[n < cap ? n : cap - 1] = '\0';
}

static bool perr(parser_t *P, int32_t pos, loom_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records a parser error at pos (unless an error is already recorded); returns false. */
static bool perr(parser_t *P, int32_t pos, loom_status_t st, const char *fmt, ...) {
    if (P->ctx->err.status) return false;
    char msg[sizeof P->ctx->err.message];
    int k = snprintf(msg, sizeof msg, "loom: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + k, sizeof msg - (size_t)k, fmt, ap);
    va_end(ap);
    caret_lines(P, pos, msg, sizeof msg);
    fe_error(P->ctx, st, "%s", msg);
    return false;
}

/* A builder failed: its message (shapes, dtypes) gets the caret at pos. Returns false. */
static bool lib_fail(parser_t *P, int32_t pos) {
    if (!P->ctx->err.status) {
        fe_error(P->ctx, LOOM_STATUS_INTERNAL, "loom: a builder returned nil without an error");
        return false;
    }
    caret_lines(P, pos, P->ctx->err.message, sizeof P->ctx->err.message);
    return false;
}

/* ---- Tokenizer ------------------------------------------------------------------------- */

static bool is_ident_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident(char c) { return is_ident_start(c) || is_digit(c); }

static bool push_tok(parser_t *P, tok_kind_t kind, int op, int32_t pos, int32_t len) {
    if (P->n_toks == P->cap_toks) {
        int32_t cap = P->cap_toks ? P->cap_toks * 2 : 64;
        tok_t *t = base_arena_alloc(&P->arena, (size_t)cap, sizeof *t);
        if (!t) return perr(P, pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        if (P->n_toks) memcpy(t, P->toks, (size_t)P->n_toks * sizeof *t);
        P->toks = t;
        P->cap_toks = cap;
    }
    P->toks[P->n_toks++] = (tok_t){kind, op, pos, len};
    return true;
}

/* Scans a number at i: ints (decimal, 0x, 0o, 0b, with '_'), floats with exponents. */
static bool scan_number(parser_t *P, int32_t i, int32_t *end, bool *is_float) {
    const char *s = P->src;
    int32_t j = i;
    *is_float = false;
    if (s[j] == '0' && (s[j + 1] == 'x' || s[j + 1] == 'X' || s[j + 1] == 'o' || s[j + 1] == 'O' ||
                        s[j + 1] == 'b' || s[j + 1] == 'B')) {
        j += 2;
        while (is_ident(s[j])) j++;
        *end = j;
        return true;
    }
    while (is_digit(s[j]) || s[j] == '_') j++;
    if (s[j] == '.' && !(s[j + 1] == '.' && s[j + 2] == '.')) {
        *is_float = true;
        j++;
        while (is_digit(s[j]) || s[j] == '_') j++;
    }
    if (s[j] == 'e' || s[j] == 'E') {
        int32_t k = j + 1;
        if (s[k] == '+' || s[k] == '-') k++;
        if (!is_digit(s[k]))
            return perr(P, j, LOOM_STATUS_INVALID_ARGUMENT, "syntax error: malformed exponent");
        *is_float = true;
        j = k;
        while (is_digit(s[j]) || s[j] == '_') j++;
    }
    if (s[j] == 'j' || s[j] == 'J') { /* an imaginary literal: T_IMAG */
        *is_float = true;
        *end = ++j;
        if (is_ident(s[j]))
            return perr(P, j, LOOM_STATUS_INVALID_ARGUMENT, "syntax error: invalid number literal");
        return true;
    }
    if (is_ident_start(s[j]))
        return perr(P, j, LOOM_STATUS_INVALID_ARGUMENT, "syntax error: invalid number literal");
    *end = j;
    return true;
}

static bool tokenize(parser_t *P) {
    const char *s = P->src;
    int32_t i = 0, depth = 0;
    while (i < P->len) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\r') {
            i++;
        } else if (c == '#') {
            while (i < P->len && s[i] != '\n') i++;
        } else if (c == '\\' && s[i + 1] == '\n') {
            i += 2;
        } else if (c == '\n') {
            if (depth == 0 && !push_tok(P, T_NEWLINE, 0, i, 1)) return false;
            i++;
        } else if (is_digit(c) || (c == '.' && is_digit(s[i + 1]))) {
            int32_t end = i;
            bool fl = false;
            if (!scan_number(P, i, &end, &fl)) return false;
            tok_kind_t k = s[end - 1] == 'j' || s[end - 1] == 'J' ? T_IMAG : fl ? T_FLOAT : T_INT;
            if (!push_tok(P, k, 0, i, end - i)) return false;
            i = end;
        } else if (is_ident_start(c)) {
            int32_t j = i;
            while (is_ident(s[j])) j++;
            if (!push_tok(P, T_NAME, 0, i, j - i)) return false;
            i = j;
        } else if (c == '\'' || c == '"') {
            int32_t j = i + 1;
            while (j < P->len && s[j] != c && s[j] != '\n' && s[j] != '\\') j++;
            if (s[j] == '\\')
                return perr(P, j, LOOM_STATUS_INVALID_ARGUMENT,
                            "syntax error: escapes in strings are not supported");
            if (s[j] != c)
                return perr(P, i, LOOM_STATUS_INVALID_ARGUMENT,
                            "syntax error: unterminated string");
            if (!push_tok(P, T_STR, 0, i + 1, j - i - 1)) return false;
            i = j + 1;
        } else {
            int op = -1;
            for (int k = 0; k < OP_COUNT && op < 0; k++) {
                size_t n = strlen(op_text[k]);
                if (!strncmp(s + i, op_text[k], n)) op = k;
            }
            if (op < 0) {
                unsigned char u = (unsigned char)c;
                return perr(P, i, LOOM_STATUS_INVALID_ARGUMENT,
                            u < 0x20 || u >= 0x7f ? "syntax error: unexpected character 0x%02x"
                                                  : "syntax error: unexpected character '%c'",
                            u);
            }
            int32_t n = (int32_t)strlen(op_text[op]);
            if (s[i + n] == '=' && op != OP_ASSIGN && op != OP_EQ && op != OP_LE && op != OP_GE &&
                op != OP_NE && op != OP_LT && op != OP_GT && op < OP_TILDE)
                return perr(P, i, LOOM_STATUS_INVALID_ARGUMENT,
                            "augmented assignment '%s=' is not supported; write a = a %s ...",
                            op_text[op], op_text[op]);
            if (op == OP_LPAR || op == OP_LBRK) depth++;
            if ((op == OP_RPAR || op == OP_RBRK) && depth > 0) depth--;
            if (!push_tok(P, T_OP, op, i, n)) return false;
            i += n;
        }
    }
    return push_tok(P, T_END, 0, P->len, 0);
}

/* ---- Parser ---------------------------------------------------------------------------- */

/* How deep parentheses, brackets, calls and subscripts may nest. Each level costs the parser
 * and the evaluator a few recursive frames: measured, at most 1.3 KiB of stack per level (a
 * call) in an ASan debug build and 0.8 KiB optimised, so 256 levels need under 400 KiB even
 * there, and a thread with a small stack can parse any program. Python's own parser stops at
 * 200 parentheses. */
#define MAX_NESTING 256

static const tok_t *peek(const parser_t *P) { return &P->toks[P->at]; }
static const tok_t *peek2(const parser_t *P) {
    return &P->toks[P->at + 1 < P->n_toks ? P->at + 1 : P->at];
}
static bool is_op(const tok_t *t, int op) { return t->kind == T_OP && t->op == op; }
static bool accept(parser_t *P, int op) {
    if (!is_op(peek(P), op)) return false;
    P->at++;
    return true;
}
static bool tok_is(const parser_t *P, const tok_t *t, const char *word) {
    return t->kind == T_NAME && (size_t)t->len == strlen(word) &&
           !strncmp(P->src + t->pos, word, (size_t)t->len);
}

static const char *const py_keywords[] = {"and", "or", "not",   "if",  "else",   "lambda", "for",
                                          "in",  "is", "while", "def", "return", "import"};

static bool unexpected(parser_t *P, const tok_t *t) {
    for (size_t k = 0; k < BASE_ARRAY_LEN(py_keywords); k++)
        if (tok_is(P, t, py_keywords[k])) {
            if (k <= 2)
                return perr(P, t->pos, LOOM_STATUS_INVALID_ARGUMENT,
                            "'%s' is not supported: use %s", py_keywords[k],
                            k == 0   ? "& or logical_and(a, b)"
                            : k == 1 ? "| or logical_or(a, b)"
                                     : "~ or logical_not(a)");
            return perr(P, t->pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "syntax error: Python's '%s' is not part of the expression language",
                        py_keywords[k]);
        }
    switch (t->kind) {
        case T_END:
            return perr(P, t->pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "syntax error: unexpected end of input");
        case T_NEWLINE:
            return perr(P, t->pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "syntax error: unexpected end of line");
        default:
            return perr(P, t->pos, LOOM_STATUS_INVALID_ARGUMENT, "syntax error: unexpected '%.*s'",
                        (int)(t->len > 40 ? 40 : t->len), P->src + t->pos);
    }
}

static bool expect(parser_t *P, int op) {
    if (accept(P, op)) return true;
    const tok_t *t = peek(P);
    if (t->kind == T_END || t->kind == T_NEWLINE)
        return perr(P, t->pos, LOOM_STATUS_INVALID_ARGUMENT, "syntax error: expected '%s'",
                    op_text[op]);
    return perr(P, t->pos, LOOM_STATUS_INVALID_ARGUMENT,
                "syntax error: expected '%s' before '%.*s'", op_text[op],
                (int)(t->len > 40 ? 40 : t->len), P->src + t->pos);
}

/* Enters one more level of nesting at the bracket t; false past MAX_NESTING. The caller
 * leaves it (P->depth--) once the bracket is closed. */
static bool nest(parser_t *P, const tok_t *t) {
    if (++P->depth <= MAX_NESTING) return true;
    return perr(P, t->pos, LOOM_STATUS_INVALID_ARGUMENT,
                "expression nests deeper than %d levels (parentheses, brackets, calls, "
                "subscripts)",
                MAX_NESTING);
}

static node_t *new_node(parser_t *P, nkind_t kind, int32_t pos, int32_t n) {
    node_t *x = base_arena_alloc(&P->arena, 1, sizeof *x);
    if (x && n) x->kids = base_arena_alloc(&P->arena, (size_t)n, sizeof *x->kids);
    if (!x || (n && !x->kids)) {
        perr(P, pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    x->kind = kind;
    x->pos = pos;
    x->n = n;
    return x;
}

/* A growable list of nodes in the arena. */
typedef struct nlist {
    node_t **p;
    int32_t n, cap;
} nlist_t;

static bool nlist_push(parser_t *P, nlist_t *l, node_t *x) {
    if (l->n == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 8;
        node_t **p = base_arena_alloc(&P->arena, (size_t)cap, sizeof *p);
        if (!p) return perr(P, x ? x->pos : 0, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        if (l->n) memcpy(p, l->p, (size_t)l->n * sizeof *p);
        l->p = p;
        l->cap = cap;
    }
    l->p[l->n++] = x;
    return true;
}

static node_t *from_list(parser_t *P, nkind_t kind, int32_t pos, node_t *first, const nlist_t *l) {
    node_t *x = new_node(P, kind, pos, l->n + (first ? 1 : 0));
    if (!x) return NULL;
    int32_t k = 0;
    if (first) x->kids[k++] = first;
    for (int32_t i = 0; i < l->n; i++) x->kids[k++] = l->p[i];
    return x;
}

/* ---- Names ---------------------------------------------------------------------------- */

static uint32_t name_hash(const char *s, int32_t n) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (int32_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* The number of the name s[0..n) in t (whose texts are in src), or -1. */
static int32_t sym_find(const symtab_t *t, const char *src, const char *s, int32_t n) {
    if (!t->n_slots) return -1;
    uint32_t mask = (uint32_t)t->n_slots - 1;
    for (uint32_t k = name_hash(s, n) & mask;; k = (k + 1) & mask) {
        int32_t e = t->slots[k] - 1;
        if (e < 0) return -1;
        if (t->at[e].tlen == n && !memcmp(src + t->at[e].tpos, s, (size_t)n)) return e;
    }
}

static void sym_insert(symtab_t *t, const char *src, int32_t e) {
    uint32_t mask = (uint32_t)t->n_slots - 1;
    uint32_t k = name_hash(src + t->at[e].tpos, t->at[e].tlen) & mask;
    while (t->slots[k]) k = (k + 1) & mask;
    t->slots[k] = e + 1;
}

/* The number of the name src[tpos..tpos+tlen), numbered now if it is new; -1 (with the
 * error) when out of memory. */
static int32_t sym_add(parser_t *P, int32_t tpos, int32_t tlen) {
    symtab_t *t = &P->syms;
    int32_t e = sym_find(t, P->src, P->src + tpos, tlen);
    if (e >= 0) return e;
    if (t->n == t->cap) { /* grow, and rehash into 4 slots per name */
        int32_t cap = t->cap ? t->cap * 2 : 16;
        sym_t *at = base_arena_alloc_raw(&P->arena, (size_t)cap, sizeof *at);
        int32_t *slots = base_arena_alloc(&P->arena, (size_t)cap * 4, sizeof *slots);
        if (!at || !slots) {
            perr(P, tpos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
            return -1;
        }
        if (t->n) memcpy(at, t->at, (size_t)t->n * sizeof *at);
        *t = (symtab_t){.at = at, .n = t->n, .cap = cap, .slots = slots, .n_slots = cap * 4};
        for (int32_t i = 0; i < t->n; i++) sym_insert(t, P->src, i);
    }
    t->at[t->n] = (sym_t){tpos, tlen};
    sym_insert(t, P->src, t->n);
    return t->n++;
}

static node_t *parse_expr(parser_t *P);

/* An int literal as a Python int (arbitrary size; beyond 2**127 is an error). */
__attribute__((noinline)) static node_t *int_literal(parser_t *P, const tok_t *t) {
    const char *s = P->src + t->pos;
    unsigned base = 10;
    int32_t i = 0;
    if (t->len > 1 && s[0] == '0' && strchr("xXoObB", s[1])) {
        base = s[1] == 'x' || s[1] == 'X' ? 16 : s[1] == 'o' || s[1] == 'O' ? 8 : 2;
        i = 2;
    } else if (t->len > 1 && s[0] == '0') {
        for (int32_t k = 0; k < t->len; k++)
            if (s[k] != '0' && s[k] != '_') {
                perr(P, t->pos, LOOM_STATUS_INVALID_ARGUMENT,
                     "syntax error: leading zeros in an integer literal (use 0o for octal)");
                return NULL;
            }
    }
    u128 v = 0;
    int digits = 0;
    for (; i < t->len; i++) {
        char c = s[i];
        if (c == '_') continue;
        unsigned d = is_digit(c)                              ? (unsigned)(c - '0')
                     : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (unsigned)((c | 0x20) - 'a' + 10)
                                                              : 99;
        if (d >= base) {
            perr(P, t->pos + i, LOOM_STATUS_INVALID_ARGUMENT,
                 "syntax error: invalid digit '%c' in a base-%u literal", c, base);
            return NULL;
        }
        if (v > ((u128)I128_MAX - d) / base) {
            perr(P, t->pos, LOOM_STATUS_OVERFLOW,
                 "integer literal %.*s is too large (loom's parser holds integers below 2**127)",
                 (int)(t->len > 60 ? 60 : t->len), s);
            return NULL;
        }
        v = v * base + d;
        digits++;
    }
    if (!digits) {
        perr(P, t->pos, LOOM_STATUS_INVALID_ARGUMENT, "syntax error: invalid number literal");
        return NULL;
    }
    node_t *x = new_node(P, N_INT, t->pos, 0);
    if (x) x->ival = (i128)v;
    return x;
}

__attribute__((noinline)) static node_t *float_literal(parser_t *P, const tok_t *t) {
    char buf[128];
    int32_t n = 0;
    for (int32_t i = 0; i < t->len && n < (int32_t)sizeof buf - 1; i++)
        if (P->src[t->pos + i] != '_') buf[n++] = P->src[t->pos + i];
    buf[n] = '\0';
    double v = strtod(buf, NULL);
    if (isinf(v)) {
        perr(P, t->pos, LOOM_STATUS_OVERFLOW, "float literal %s is out of range", buf);
        return NULL;
    }
    node_t *x = new_node(P, N_FLOAT, t->pos, 0);
    if (x) x->fval = v;
    return x;
}

static const struct func *find_func(const char *s, int32_t n);
static const struct func *find_random(const char *s, int32_t n);

/* Call arguments after '(': positional expressions and NAME=expr keywords; the callee's
 * function is looked up here, once, rather than at every run. */
static node_t *parse_call(parser_t *P, node_t *callee, int32_t pos) {
    nlist_t args = {0};
    bool kw_seen = false;
    if (callee->kind == N_NAME && callee->random)
        callee->fn = find_random(P->src + callee->tpos, callee->tlen);
    else if (callee->kind == N_NAME || callee->kind == N_ATTR)
        callee->fn = find_func(P->src + callee->tpos, callee->tlen);
    while (!is_op(peek(P), OP_RPAR)) {
        const tok_t *t = peek(P);
        node_t *a;
        if (t->kind == T_NAME && is_op(peek2(P), OP_ASSIGN)) {
            P->at += 2;
            a = new_node(P, N_KWARG, t->pos, 1);
            if (!a) return NULL;
            a->tpos = t->pos;
            a->tlen = t->len;
            if (!(a->kids[0] = parse_expr(P))) return NULL;
            kw_seen = true;
        } else {
            if (is_op(t, OP_STAR) || is_op(t, OP_POW)) {
                perr(P, t->pos, LOOM_STATUS_INVALID_ARGUMENT,
                     "syntax error: argument unpacking is not supported");
                return NULL;
            }
            if (!(a = parse_expr(P))) return NULL;
            if (kw_seen) {
                perr(P, a->pos, LOOM_STATUS_INVALID_ARGUMENT,
                     "syntax error: positional argument follows keyword argument");
                return NULL;
            }
        }
        if (!nlist_push(P, &args, a)) return NULL;
        if (!accept(P, OP_COMMA)) break;
    }
    if (!expect(P, OP_RPAR)) return NULL;
    return from_list(P, N_CALL, pos, callee, &args);
}

/* One subscript item: expr, or a slice [lo]:[hi][:[step]]. */
static node_t *parse_subscript(parser_t *P) {
    const tok_t *t = peek(P);
    node_t *lo = NULL;
    if (!is_op(t, OP_COLON) && !(lo = parse_expr(P))) return NULL;
    if (!is_op(peek(P), OP_COLON)) return lo;
    node_t *s = new_node(P, N_SLICE, t->pos, 3);
    if (!s) return NULL;
    s->kids[0] = lo;
    for (int k = 1; k < 3 && accept(P, OP_COLON); k++) {
        const tok_t *u = peek(P);
        if (is_op(u, OP_COLON) || is_op(u, OP_COMMA) || is_op(u, OP_RBRK)) continue;
        if (!(s->kids[k] = parse_expr(P))) return NULL;
    }
    return s;
}

/* ( expr ) or a tuple: (), (a,), (a, b). */
static node_t *parse_paren(parser_t *P, const tok_t *open, int close) {
    nlist_t items = {0};
    bool comma = false;
    while (!is_op(peek(P), close)) {
        node_t *x = parse_expr(P);
        if (!x || !nlist_push(P, &items, x)) return NULL;
        if (!accept(P, OP_COMMA)) break;
        comma = true;
    }
    if (!expect(P, close)) return NULL;
    if (close == OP_RPAR && items.n == 1 && !comma) return items.p[0];
    return from_list(P, N_TUPLE, open->pos, NULL, &items);
}

static node_t *parse_atom(parser_t *P) {
    const tok_t *t = peek(P);
    P->at++;
    switch (t->kind) {
        case T_INT:
            return int_literal(P, t);
        case T_FLOAT:
            return float_literal(P, t);
        case T_IMAG: {
            tok_t r = *t;
            r.len--; /* the digits before j */
            node_t *x = float_literal(P, &r);
            if (x) x->kind = N_IMAG;
            return x;
        }
        case T_STR: {
            node_t *x = new_node(P, N_STR, t->pos - 1, 0);
            if (x) {
                x->tpos = t->pos;
                x->tlen = t->len;
            }
            return x;
        }
        case T_NAME: {
            if (tok_is(P, t, "True") || tok_is(P, t, "False")) {
                node_t *x = new_node(P, N_BOOL, t->pos, 0);
                if (x) x->ival = tok_is(P, t, "True");
                return x;
            }
            if (tok_is(P, t, "None")) return new_node(P, N_NONE, t->pos, 0);
            for (size_t k = 0; k < BASE_ARRAY_LEN(py_keywords); k++)
                if (tok_is(P, t, py_keywords[k])) {
                    P->at--;
                    unexpected(P, t);
                    return NULL;
                }
            node_t *x = new_node(P, N_NAME, t->pos, 0);
            if (!x) return NULL;
            x->tpos = t->pos;
            x->tlen = t->len;
            if ((tok_is(P, t, "np") || tok_is(P, t, "numpy")) && is_op(peek(P), OP_DOT) &&
                peek2(P)->kind == T_NAME) {
                P->at++;
                const tok_t *u = peek(P);
                P->at++;
                x->tpos = u->pos;
                x->tlen = u->len;
                x->np = true;
            }
            /* linalg.NAME and fft.NAME (also after np.): numpy.linalg's and numpy.fft's
             * functions by their names */
            if (((x->tlen == 6 && !memcmp(P->src + x->tpos, "linalg", 6)) ||
                 (x->tlen == 3 && !memcmp(P->src + x->tpos, "fft", 3))) &&
                is_op(peek(P), OP_DOT) && peek2(P)->kind == T_NAME) {
                x->linalg = x->tlen == 6;
                P->at++;
                const tok_t *u = peek(P);
                P->at++;
                x->tpos = u->pos;
                x->tlen = u->len;
                x->np = true;
            }
            /* random.NAME (also after np.) for numpy.random's Generator methods; a variable
             * named random keeps its other attributes */
            if (x->tlen == 6 && !memcmp(P->src + x->tpos, "random", 6) && is_op(peek(P), OP_DOT) &&
                peek2(P)->kind == T_NAME && find_random(P->src + peek2(P)->pos, peek2(P)->len)) {
                P->at++;
                const tok_t *u = peek(P);
                P->at++;
                x->tpos = u->pos;
                x->tlen = u->len;
                x->np = x->random = true;
            }
            if (!x->np && (x->sym = sym_add(P, x->tpos, x->tlen)) < 0) return NULL;
            return x;
        }
        case T_OP:
            if (t->op == OP_LPAR || t->op == OP_LBRK) {
                if (!nest(P, t)) return NULL;
                node_t *x = parse_paren(P, t, t->op == OP_LPAR ? OP_RPAR : OP_RBRK);
                P->depth--;
                return x;
            }
            if (t->op == OP_ELLIPSIS) return new_node(P, N_ELLIPSIS, t->pos, 0);
            break;
        default:
            break;
    }
    P->at--;
    unexpected(P, t);
    return NULL;
}

/* atom, then calls, subscripts and attributes: a chain, parsed with a loop (the arguments and
 * subscripts nest). */
static node_t *parse_primary(parser_t *P) {
    node_t *x = parse_atom(P);
    while (x) {
        const tok_t *t = peek(P);
        if (accept(P, OP_LPAR)) {
            if (!nest(P, t)) return NULL;
            x = parse_call(P, x, x->kind == N_ATTR ? x->tpos : x->pos);
            P->depth--;
        } else if (accept(P, OP_LBRK)) {
            if (!nest(P, t)) return NULL;
            nlist_t items = {0};
            while (!is_op(peek(P), OP_RBRK)) {
                node_t *it = parse_subscript(P);
                if (!it || !nlist_push(P, &items, it)) return NULL;
                if (!accept(P, OP_COMMA)) break;
            }
            if (!expect(P, OP_RBRK)) return NULL;
            P->depth--;
            if (items.n == 0) {
                perr(P, t->pos + 1, LOOM_STATUS_INVALID_ARGUMENT, "syntax error: empty subscript");
                return NULL;
            }
            x = from_list(P, N_INDEX, t->pos, x, &items);
        } else if (accept(P, OP_DOT)) {
            const tok_t *u = peek(P);
            if (u->kind != T_NAME) {
                unexpected(P, u);
                return NULL;
            }
            P->at++;
            node_t *a = new_node(P, N_ATTR, u->pos, 1);
            if (!a) return NULL;
            a->kids[0] = x;
            a->tpos = u->pos;
            a->tlen = u->len;
            x = a;
        } else {
            break;
        }
    }
    return x;
}

/* unary: a run of prefix - + ~, then power: primary ['**' unary]. `**` is right-associative,
 * and tighter than a unary minus on its left (-2**2 == -4) but not on its right (2**-1 ==
 * 0.5). Runs of signs and chains of `**` may be as long as the program, so they are parsed
 * with a loop: each prefix operator and each `primary **` waits in `open` for the operand
 * that completes it (its last kid), innermost last. */
static node_t *parse_unary(parser_t *P) {
    nlist_t open = {0};
    node_t *x;
    for (;;) {
        const tok_t *t = peek(P);
        if (is_op(t, OP_MINUS) || is_op(t, OP_PLUS) || is_op(t, OP_TILDE)) {
            P->at++;
            node_t *u = new_node(P, N_UNARY, t->pos, 1);
            if (!u || !nlist_push(P, &open, u)) return NULL;
            u->op = t->op;
            continue;
        }
        if (!(x = parse_primary(P))) return NULL;
        t = peek(P);
        if (!is_op(t, OP_POW)) break;
        P->at++;
        node_t *b = new_node(P, N_BINARY, t->pos, 2);
        if (!b || !nlist_push(P, &open, b)) return NULL;
        b->op = OP_POW;
        b->kids[0] = x;
    }
    for (int32_t i = open.n - 1; i >= 0; i--) {
        open.p[i]->kids[open.p[i]->n - 1] = x;
        x = open.p[i];
    }
    return x;
}

/* Binary precedence of an operator (Python's), 0 if it is not one. */
static int op_prec(int op) {
    switch (op) {
        case OP_LT:
        case OP_LE:
        case OP_GT:
        case OP_GE:
        case OP_EQ:
        case OP_NE:
            return 1;
        case OP_PIPE:
            return 2;
        case OP_CARET:
            return 3;
        case OP_AMP:
            return 4;
        case OP_LSHIFT:
        case OP_RSHIFT:
            return 5;
        case OP_PLUS:
        case OP_MINUS:
            return 6;
        case OP_STAR:
        case OP_SLASH:
        case OP_FLOORDIV:
        case OP_PERCENT:
        case OP_AT:
            return 7;
        default:
            return 0;
    }
}

/* The left-associative binary levels, with an explicit stack: `open` holds the operators
 * still waiting for their right operand, looser ones first; an operator closes those of its
 * own or tighter precedence on its left. Chains of any length, at any mix of levels, cost no
 * recursion. Comparisons do not chain: a Python chain `a < b < c` means `a < b and b < c`,
 * which arrays cannot do. */
static node_t *parse_expr(parser_t *P) {
    nlist_t open = {0};
    bool compared = false;
    node_t *x = parse_unary(P);
    for (;;) {
        if (!x) return NULL;
        const tok_t *t = peek(P);
        int prec = t->kind == T_OP ? op_prec(t->op) : 0;
        while (open.n && op_prec(open.p[open.n - 1]->op) >= (prec ? prec : 1)) {
            node_t *b = open.p[--open.n];
            b->kids[1] = x;
            x = b;
        }
        if (prec == 0) return x;
        if (prec == 1 && compared) {
            perr(P, t->pos, LOOM_STATUS_INVALID_ARGUMENT,
                 "chained comparisons are not supported: write (a < b) & (b < c)");
            return NULL;
        }
        compared = compared || prec == 1;
        P->at++;
        node_t *b = new_node(P, N_BINARY, t->pos, 2);
        if (!b || !nlist_push(P, &open, b)) return NULL;
        b->op = t->op;
        b->kids[0] = x;
        x = parse_unary(P);
    }
}

static bool name_eq(const char *a, int32_t an, const char *b);

/* np.add.at(x, idx, v), np.minimum.at, np.maximum.at as a statement: NumPy's in-place
 * unbuffered combination, here a new array bound to x (as x[idx] = v does). False (with the
 * error) for another ufunc's .at or a first argument that is not a name. */
static bool at_statement(parser_t *P, stmt_t *s) {
    const node_t *x = s->expr;
    if (x->kind != N_CALL || x->kids[0]->kind != N_ATTR) return true;
    const node_t *a = x->kids[0], *u = a->kids[0];
    if (!name_eq(P->src + a->tpos, a->tlen, "at") || u->kind != N_NAME) return true;
    static const char *const ufuncs[] = {"add", "minimum", "maximum"};
    static const loom_at_op_t ops[] = {LOOM_AT_ADD, LOOM_AT_MIN, LOOM_AT_MAX};
    int k = -1;
    for (int i = 0; i < 3; i++)
        if (name_eq(P->src + u->tpos, u->tlen, ufuncs[i])) k = i;
    if (k < 0)
        return perr(P, u->tpos, LOOM_STATUS_NOT_AVAILABLE,
                    "'%.*s.at' is not supported: add.at, minimum.at and maximum.at are (and "
                    "x[idx] = v)",
                    (int)(u->tlen > 40 ? 40 : u->tlen), P->src + u->tpos);
    if (x->n != 4 || x->kids[1]->kind != N_NAME || x->kids[1]->np)
        return perr(P, x->pos, LOOM_STATUS_INVALID_ARGUMENT,
                    "%s.at takes a variable, the indices and the values (positional): it "
                    "rebinds the variable",
                    ufuncs[k]);
    for (int i = 2; i < 4; i++)
        if (x->kids[i]->kind == N_KWARG)
            return perr(P, x->kids[i]->pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "%s.at takes its arguments by position", ufuncs[k]);
    s->at_op = 1 + (int)ops[k];
    s->tpos = x->kids[1]->tpos;
    s->tlen = x->kids[1]->tlen;
    return true;
}

/* program: statements separated by ';' or newlines; NAME = expr or expr. */
static bool parse_program(parser_t *P, stmt_t **out, int32_t *n_out) {
    int32_t n = 0, cap = 0;
    stmt_t *st = NULL;
    for (;;) {
        while (is_op(peek(P), OP_SEMI) || peek(P)->kind == T_NEWLINE) P->at++;
        if (peek(P)->kind == T_END) break;
        stmt_t s = {0};
        const tok_t *t = peek(P);
        if (t->kind == T_NAME && is_op(peek2(P), OP_ASSIGN)) {
            s.tpos = t->pos;
            s.tlen = t->len;
            P->at += 2;
        } else if (t->kind == T_NAME && is_op(peek2(P), OP_COMMA)) { /* a, b = expr? */
            int32_t at = P->at, k = 0;
            while (P->toks[at].kind == T_NAME && k < MAX_UNPACK) {
                s.upos[k] = P->toks[at].pos;
                s.ulen[k++] = P->toks[at].len;
                if (!is_op(&P->toks[at + 1], OP_COMMA)) break;
                at += 2;
            }
            if (P->toks[at].kind == T_NAME && is_op(&P->toks[at + 1], OP_ASSIGN) && k > 1) {
                s.n_unpack = k;
                P->at = at + 2;
            }
        }
        if (!(s.expr = parse_expr(P))) return false;
        const tok_t *e = peek(P);
        if (is_op(e, OP_ASSIGN) && !s.tlen && s.expr->kind == N_INDEX &&
            s.expr->kids[0]->kind == N_NAME && !s.expr->kids[0]->np) { /* x[idx] = v */
            s.target = s.expr;
            s.tpos = s.expr->kids[0]->tpos;
            s.tlen = s.expr->kids[0]->tlen;
            P->at++;
            if (!(s.expr = parse_expr(P))) return false;
            e = peek(P);
        }
        if (!s.tlen && !s.n_unpack && !s.target && !at_statement(P, &s)) return false;
        if (is_op(e, OP_ASSIGN))
            return perr(P, e->pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "syntax error: only a name or a subscript of a name can be assigned to");
        if (!(is_op(e, OP_SEMI) || e->kind == T_NEWLINE || e->kind == T_END))
            return unexpected(P, e);
        if (s.tlen && (s.sym = sym_add(P, s.tpos, s.tlen)) < 0) return false;
        for (int32_t k = 0; k < s.n_unpack; k++)
            if ((s.usym[k] = sym_add(P, s.upos[k], s.ulen[k])) < 0) return false;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            stmt_t *ns = base_arena_alloc(&P->arena, (size_t)cap, sizeof *ns);
            if (!ns) return perr(P, e->pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
            if (n) memcpy(ns, st, (size_t)n * sizeof *ns);
            st = ns;
        }
        st[n++] = s;
    }
    if (n == 0) return perr(P, 0, LOOM_STATUS_INVALID_ARGUMENT, "the program is empty");
    *out = st;
    *n_out = n;
    return true;
}

/* ---- Python numbers -------------------------------------------------------------------- */

static void i128_text(i128 v, char *buf, size_t cap) {
    char tmp[48];
    int n = 0;
    bool neg = v < 0;
    u128 u = neg ? (u128)0 - (u128)v : (u128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    size_t k = 0;
    if (neg && k + 1 < cap) buf[k++] = '-';
    while (n && k + 1 < cap) buf[k++] = tmp[--n];
    buf[k] = '\0';
}

static bool is_num(const value_t *v) {
    return v->kind == V_INT || v->kind == V_FLOAT || v->kind == V_BOOL;
}
static double num_f(const value_t *v) { return v->kind == V_FLOAT ? v->f : (double)v->i; }

static value_t mk_int(i128 i) { return (value_t){.kind = V_INT, .i = i}; }
static value_t mk_bool(bool b) { return (value_t){.kind = V_BOOL, .i = b}; }
static value_t mk_float(double f) { return (value_t){.kind = V_FLOAT, .f = f}; }
static value_t mk_complex(double re, double im) {
    return (value_t){.kind = V_COMPLEX, .f = re, .fi = im};
}

static const char *kind_text(const value_t *v) {
    switch (v->kind) {
        case V_ARRAY:
            return "an array";
        case V_INT:
            return "an int";
        case V_FLOAT:
            return "a float";
        case V_COMPLEX:
            return "a complex";
        case V_BOOL:
            return "a bool";
        case V_NONE:
            return "None";
        case V_STR:
            return "a string";
        case V_DTYPE:
            return "a dtype";
        case V_TUPLE:
            return "a tuple";
        case V_ELLIPSIS:
            return "Ellipsis";
        case V_INFO:
            return "a finfo or iinfo";
        case V_SLICE:
            return "a slice";
    }
    return "?";
}

/* Python's float floor division and modulo (CPython's float_divmod). */
static void py_fdivmod(double vx, double wx, double *div_out, double *mod_out) {
    double mod = fmod(vx, wx);
    double div = (vx - mod) / wx;
    if (mod != 0) {
        if ((wx < 0) != (mod < 0)) {
            mod += wx;
            div -= 1.0;
        }
    } else {
        mod = copysign(0.0, wx);
    }
    double floordiv;
    if (div != 0) {
        floordiv = floor(div);
        if (div - floordiv > 0.5) floordiv += 1.0;
    } else {
        floordiv = copysign(0.0, vx / wx);
    }
    *div_out = floordiv;
    *mod_out = mod;
}

/* a OP b on two Python numbers, with Python's rules (exact ints, ZeroDivisionError, ...). */
__attribute__((noinline)) static bool py_binary(parser_t *P, int op, int32_t pos, const value_t *a,
                                                const value_t *b, value_t *out) {
    const char *o = op_text[op];
    bool fl = a->kind == V_FLOAT || b->kind == V_FLOAT;
    switch (op) {
        case OP_LT:
            *out = mk_bool(fl ? num_f(a) < num_f(b) : a->i < b->i);
            return true;
        case OP_LE:
            *out = mk_bool(fl ? num_f(a) <= num_f(b) : a->i <= b->i);
            return true;
        case OP_GT:
            *out = mk_bool(fl ? num_f(a) > num_f(b) : a->i > b->i);
            return true;
        case OP_GE:
            *out = mk_bool(fl ? num_f(a) >= num_f(b) : a->i >= b->i);
            return true;
        case OP_EQ:
            *out = mk_bool(fl ? num_f(a) == num_f(b) : a->i == b->i);
            return true;
        case OP_NE:
            *out = mk_bool(fl ? num_f(a) != num_f(b) : a->i != b->i);
            return true;
        case OP_AT:
            return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT, "'@' needs arrays, not numbers");
        default:
            break;
    }
    if (op == OP_SLASH) {
        if (num_f(b) == 0)
            return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT, "division by zero (Python numbers)");
        *out = mk_float(num_f(a) / num_f(b));
        return true;
    }
    if (fl) {
        double x = num_f(a), y = num_f(b), r, d, m;
        switch (op) {
            case OP_PLUS:
                r = x + y;
                break;
            case OP_MINUS:
                r = x - y;
                break;
            case OP_STAR:
                r = x * y;
                break;
            case OP_FLOORDIV:
            case OP_PERCENT:
                if (y == 0)
                    return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                                "division by zero (Python numbers)");
                py_fdivmod(x, y, &d, &m);
                r = op == OP_FLOORDIV ? d : m;
                break;
            case OP_POW:
                if (x == 0 && y < 0)
                    return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                                "0.0 cannot be raised to a negative power (Python numbers)");
                if (x < 0 && y != floor(y) && isfinite(y))
                    return perr(
                        P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "a negative number to a fractional power is complex (Python numbers)");
                r = pow(x, y);
                if (isinf(r) && isfinite(x) && isfinite(y))
                    return perr(P, pos, LOOM_STATUS_OVERFLOW,
                                "float power overflows (Python numbers)");
                break;
            default:
                return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                            "unsupported operand types for %s: %s and %s", o, kind_text(a),
                            kind_text(b));
        }
        *out = mk_float(r);
        return true;
    }
    i128 x = a->i, y = b->i, r = 0;
    bool both_bool = a->kind == V_BOOL && b->kind == V_BOOL, ovf = false;
    switch (op) {
        case OP_PLUS:
            ovf = __builtin_add_overflow(x, y, &r);
            break;
        case OP_MINUS:
            ovf = __builtin_sub_overflow(x, y, &r);
            break;
        case OP_STAR:
            ovf = __builtin_mul_overflow(x, y, &r);
            break;
        case OP_FLOORDIV:
        case OP_PERCENT:
            if (y == 0)
                return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                            "division by zero (Python numbers)");
            if (y == -1 && x == -I128_MAX - 1) {
                ovf = op == OP_FLOORDIV;
                break;
            }
            {
                i128 q = x / y, m = x % y;
                if (m != 0 && ((m < 0) != (y < 0))) {
                    q -= 1;
                    m += y;
                }
                r = op == OP_FLOORDIV ? q : m;
            }
            break;
        case OP_POW:
            if (y < 0) {
                if (x == 0)
                    return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                                "0 cannot be raised to a negative power (Python numbers)");
                *out = mk_float(pow((double)x, (double)y));
                return true;
            }
            r = 1;
            for (i128 base = x, e = y; e > 0 && !ovf; e >>= 1) {
                if (e & 1) ovf = __builtin_mul_overflow(r, base, &r);
                if (e > 1 && !ovf) ovf = __builtin_mul_overflow(base, base, &base);
            }
            break;
        case OP_AMP:
            r = x & y;
            break;
        case OP_PIPE:
            r = x | y;
            break;
        case OP_CARET:
            r = x ^ y;
            break;
        case OP_LSHIFT:
        case OP_RSHIFT:
            if (y < 0) return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT, "negative shift count");
            if (op == OP_RSHIFT) {
                r = y >= 127 ? (x < 0 ? -1 : 0) : x >> (int)y;
            } else if (x != 0) {
                ovf = y >= 126 || ((x < 0 ? ~x : x) >> (126 - (int)y)) != 0;
                if (!ovf) r = (i128)((u128)x << (int)y);
            }
            break;
        default:
            return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT, "unsupported operand types for %s",
                        o);
    }
    if (ovf)
        return perr(P, pos, LOOM_STATUS_OVERFLOW,
                    "integer result too large (loom's parser holds integers below 2**127)");
    *out = both_bool && (op == OP_AMP || op == OP_PIPE || op == OP_CARET) ? mk_bool(r != 0)
                                                                          : mk_int(r);
    return true;
}

/* ---- Values to arrays ------------------------------------------------------------------ */

/* A number as a NEP 50 weak scalar; other values are an error at pos. */
/* Whether v is a rectangular nested list of numbers of shape (nd, shape) from `depth` down;
 * kind: the widest element (V_BOOL < V_INT < V_FLOAT). */
static bool list_check(const value_t *v, int depth, int32_t nd, const int64_t *shape,
                       vkind_t *kind) {
    if (v->kind != V_TUPLE) {
        if (depth != nd || (v->kind != V_BOOL && v->kind != V_INT && v->kind != V_FLOAT &&
                            v->kind != V_COMPLEX))
            return false;
        /* the highest kind: complex, float, int, bool */
        if (v->kind == V_COMPLEX || (v->kind == V_FLOAT && *kind != V_COMPLEX) ||
            (v->kind == V_INT && *kind != V_FLOAT && *kind != V_COMPLEX) ||
            (v->kind == V_BOOL && *kind == V_NONE))
            *kind = v->kind;
        return true;
    }
    if (depth >= nd || v->n != shape[depth]) return false;
    for (int32_t i = 0; i < v->n; i++)
        if (!list_check(&v->items[i], depth + 1, nd, shape, kind)) return false;
    return true;
}

/* The shape of a nested list of numbers (read along its first elements, then checked). */
static bool list_shape(const value_t *v, int32_t *nd, int64_t *shape, vkind_t *kind) {
    *nd = 0;
    for (const value_t *w = v; w->kind == V_TUPLE; w = &w->items[0]) {
        if (*nd == LOOM_MAX_DIMS) return false;
        shape[(*nd)++] = w->n;
        if (!w->n) break;
    }
    return list_check(v, 0, *nd, shape, kind);
}

/* Writes the numbers of a nested list in C order as dtype d; false on an int out of int64. */
static bool list_fill(const value_t *v, loom_dtype_t d, char *out, int64_t *at) {
    if (v->kind == V_TUPLE) {
        for (int32_t i = 0; i < v->n; i++)
            if (!list_fill(&v->items[i], d, out, at)) return false;
        return true;
    }
    if (d == LOOM_DTYPE_C128) {
        double f[2] = {v->kind == V_FLOAT || v->kind == V_COMPLEX ? v->f : (double)v->i,
                       v->kind == V_COMPLEX ? v->fi : 0.0};
        memcpy(out + 16 * (*at)++, f, 16);
    } else if (d == LOOM_DTYPE_F64) {
        double f = v->kind == V_FLOAT ? v->f : (double)v->i;
        memcpy(out + 8 * (*at)++, &f, 8);
    } else if (d == LOOM_DTYPE_I64) {
        if (v->i < INT64_MIN || v->i > INT64_MAX) return false;
        int64_t i = (int64_t)v->i;
        memcpy(out + 8 * (*at)++, &i, 8);
    } else {
        out[(*at)++] = (char)(v->i != 0);
    }
    return true;
}

/* A list (or tuple) of numbers as an array, as np.asarray makes it: bool, int64 or float64
 * (an empty one: float64, or int64 as an index, as NumPy indexes with it). NULL (no error)
 * when v is not one. */
static loom_array_t *list_array_as(parser_t *P, const value_t *v, int32_t pos, bool index) {
    int32_t nd = 0;
    int64_t shape[LOOM_MAX_DIMS];
    vkind_t kind = V_NONE;
    if (v->kind != V_TUPLE || !list_shape(v, &nd, shape, &kind)) return NULL;
    loom_dtype_t d = kind == V_COMPLEX ? LOOM_DTYPE_C128
                     : kind == V_FLOAT ? LOOM_DTYPE_F64
                     : kind == V_BOOL ? LOOM_DTYPE_BOOL
                     : kind == V_INT || index ? LOOM_DTYPE_I64
                                               : LOOM_DTYPE_F64; /* [] is float64 */
    int64_t n = 1;
    for (int32_t i = 0; i < nd; i++) n *= shape[i];
    char *buf = base_arena_alloc(&P->arena, (size_t)(n ? n : 1), ir_dtypes[d].size);
    int64_t at = 0;
    if (!buf) return perr(P, pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory"), &P->ctx->nil;
    if (!list_fill(v, d, buf, &at)) {
        perr(P, pos, LOOM_STATUS_OVERFLOW, "a Python integer in the list is out of bounds for int64");
        return &P->ctx->nil;
    }
    return loom_from_host(P->ctx, d, nd, shape, buf);
}

static loom_array_t *list_array(parser_t *P, const value_t *v, int32_t pos) {
    return list_array_as(P, v, pos, false);
}

static loom_array_t *as_output(parser_t *P, const value_t *v, int32_t pos);

/* A list holding arrays (np.array([x, y]), [x.sum(), 1.0]): its items, each made an array as
 * np.array makes a list's items (numbers strong; lists in turn), stacked on a new first axis;
 * NULL (no error) when an item is none of those. */
static loom_array_t *list_of_arrays(parser_t *P, const value_t *v, int32_t pos) {
    if (v->kind != V_TUPLE || v->n < 1) return NULL;
    loom_array_t **xs = base_arena_alloc(&P->arena, (size_t)v->n, sizeof *xs);
    if (!xs) return perr(P, pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory"), &P->ctx->nil;
    for (int32_t i = 0; i < v->n; i++) {
        const value_t *it = &v->items[i];
        if (it->kind == V_TUPLE) {
            xs[i] = list_array(P, it, pos);
            if (!xs[i]) xs[i] = list_of_arrays(P, it, pos);
            if (!xs[i]) return NULL;
        } else if (it->kind == V_ARRAY || is_num(it)) {
            xs[i] = as_output(P, it, pos);
        } else {
            return NULL;
        }
        if (loom_array_is_nil(xs[i])) return xs[i];
        bool same = loom_array_ndim(xs[i]) == loom_array_ndim(xs[0]);
        for (int32_t k = 0; same && k < loom_array_ndim(xs[0]); k++)
            same = loom_array_dim(xs[i], k) == loom_array_dim(xs[0], k);
        if (!same) {
            perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                 "setting an array element with a sequence: the list has an inhomogeneous "
                 "shape (item %d differs from item 0)",
                 (int)i);
            return &P->ctx->nil;
        }
    }
    if (loom_array_ndim(xs[0]) >= LOOM_MAX_DIMS) {
        perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
             "a list of arrays of %d dimensions would make an array of %d, more than %d",
             (int)loom_array_ndim(xs[0]), (int)loom_array_ndim(xs[0]) + 1, LOOM_MAX_DIMS);
        return &P->ctx->nil;
    }
    loom_array_t *r = loom_stack(P->ctx, v->n, xs, 0);
    if (loom_array_is_nil(r)) lib_fail(P, pos);
    return r;
}

static loom_array_t *as_array(parser_t *P, const value_t *v, int32_t pos, const char *what) {
    loom_ctx_t *ctx = P->ctx;
    switch (v->kind) {
        case V_ARRAY:
            return v->a;
        case V_TUPLE: {
            loom_array_t *a = list_array(P, v, pos);
            if (!a) a = list_of_arrays(P, v, pos);
            if (a) return a;
            perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s must be an array or a number, not a tuple (only a rectangular list of "
                 "numbers or of arrays becomes an array)",
                 what);
            return &ctx->nil;
        }
        case V_BOOL:
            return loom_weak_bool(ctx, (int)v->i);
        case V_FLOAT:
            return loom_weak_float(ctx, v->f);
        case V_COMPLEX:
            return loom_weak_complex(ctx, v->f, v->fi);
        case V_INT:
            if (v->i >= INT64_MIN && v->i <= INT64_MAX) return loom_weak_int(ctx, (int64_t)v->i);
            if (v->i > 0 && v->i <= (i128)UINT64_MAX) return loom_weak_uint(ctx, (uint64_t)v->i);
            {
                char t[48];
                i128_text(v->i, t, sizeof t);
                perr(P, pos, LOOM_STATUS_OVERFLOW,
                     "Python integer %s out of bounds for int64 and uint64", t);
            }
            return &ctx->nil;
        default:
            perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT, "%s must be an array or a number, not %s",
                 what, kind_text(v));
            return &ctx->nil;
    }
}

/* A value as an output array: numbers become strong 0-d arrays (np.asarray's dtype). */
static loom_array_t *as_output(parser_t *P, const value_t *v, int32_t pos) {
    loom_array_t *a = as_array(P, v, pos, "the result");
    if (loom_array_is_nil(a)) return a;
    if (v->kind == V_COMPLEX) return loom_astype(P->ctx, a, LOOM_DTYPE_C128);
    if (!is_num(v)) return a;
    loom_dtype_t d = v->kind == V_BOOL    ? LOOM_DTYPE_BOOL
                     : v->kind == V_FLOAT ? LOOM_DTYPE_F64
                     : v->i > INT64_MAX   ? LOOM_DTYPE_U64
                                          : LOOM_DTYPE_I64;
    return loom_astype(P->ctx, a, d);
}

/* ---- Functions ------------------------------------------------------------------------- */

typedef loom_array_t *(*unary_fn)(loom_ctx_t *, loom_array_t *);
typedef loom_array_t *(*binary_fn)(loom_ctx_t *, loom_array_t *, loom_array_t *);
typedef loom_array_t *(*reduce_fn)(loom_ctx_t *, loom_array_t *, int32_t, const int32_t *, int);
typedef loom_array_t *(*moments_fn)(loom_ctx_t *, loom_array_t *, int32_t, const int32_t *, int,
                                    double);
typedef loom_array_t *(*scan_fn)(loom_ctx_t *, loom_array_t *, int32_t);
typedef loom_array_t *(*shape_fn)(loom_ctx_t *, loom_array_t *, int32_t, const int64_t *);
typedef loom_array_t *(*axes_fn)(loom_ctx_t *, loom_array_t *, int32_t, const int32_t *);
typedef loom_array_t *(*join_fn)(loom_ctx_t *, int32_t, loom_array_t *const *, int32_t);

typedef enum fkind {
    F_ARRAY,
    F_COPY,
    F_UNARY,
    F_BINARY,
    F_WHERE,
    F_CLIP,
    F_ASTYPE,
    F_ZEROS,
    F_ONES,
    F_FULL,
    F_ARANGE,
    F_LINSPACE,
    F_EYE,
    F_REDUCE,  /* sum, prod, mean, max, min, any, all: axis None|int|tuple, keepdims */
    F_ARGRED,  /* argmax, argmin: axis None|int */
    F_MOMENTS, /* var, std: as F_REDUCE plus ddof */
    F_SCAN,    /* cumsum, cumprod: axis None|int */
    F_SHAPE,   /* reshape, broadcast_to: a shape */
    F_AXES,    /* transpose, expand_dims, squeeze, flip: axis None|int|tuple */
    F_MOVEAXIS,
    F_RAVEL,
    F_MANIP, /* manip.c's functions, told apart by name */
    F_JOIN, /* concatenate, stack: a tuple of arrays and an axis */
    F_ARRANGE, /* arrange.c's functions (hstack, block, insert, ...), told apart by name */
    F_TAKE,
    F_TAKE_ALONG,
    F_COUNT_NZ, /* count_nonzero */
    F_MASK1,    /* flatnonzero, argwhere */
    F_NONZERO,  /* a tuple of arrays */
    F_COMPRESS,
    F_EXTRACT,
    F_SORT, /* sort, argsort */
    F_SEARCHSORTED,
    F_UNIQUE,     /* NumPy's unique: an array or a tuple */
    F_UNIQUE_API, /* the Array API's unique_values/counts/inverse/all */
    F_ISIN,
    F_SET2, /* intersect1d, union1d, setdiff1d */
    F_BINCOUNT,
    F_HISTOGRAM, /* a tuple (hist, bin_edges) */
    F_LEXSORT,
    F_PARTITION, /* partition, argpartition */
    F_TOP_K,     /* a tuple (values, indices) */
    F_CHOOSE,
    F_RANDOM, /* random.NAME: the Generator methods; seed= and stream= pick the key */
    F_INDEX_HELP, /* unravel_index, tril_indices, ix_, ...: tuples, or one array */
    F_UPDATE,     /* put, place, putmask, copyto, ...: the updated array (a value) */
    F_HISTDD,     /* histogram2d, histogramdd: a tuple (hist, edges...) */
    F_LATER
} fkind_t;

/* One callable name. params: Python-style signature ("a,axis?,keepdims?": '?' = optional),
 * bound before the call. method: also callable as x.name(...) with x as the first argument.
 * LATER: parsed and bound, then refused with `later` (the issue that brings it). */
typedef struct func {
    const char *name;
    fkind_t kind;
    const char *params;
    unary_fn u;
    binary_fn b;
    reduce_fn r;
    moments_fn m;
    scan_fn s;
    shape_fn sh;
    axes_fn ax;
    join_fn j;
    bool method;
    const char *later;
} func_t;

#define RED_DT "a,axis?,dtype?,out?,keepdims?" /* sum, prod, mean */
#define RED    "a,axis?,out?,keepdims?"

static const func_t funcs[] = {
#define FN_UNARY(nm) {.name = #nm, .kind = F_UNARY, .params = "x", .u = loom_##nm},
    LOOM_UNARY_LIST(FN_UNARY)
#undef FN_UNARY
#define FN_BINARY(nm) {.name = #nm, .kind = F_BINARY, .params = "x1,x2", .b = loom_##nm},
        LOOM_BINARY_LIST(FN_BINARY)
#undef FN_BINARY
    /* NumPy's other names for the same ufuncs. */
    {.name = "absolute", .kind = F_UNARY, .params = "x", .u = loom_abs},
    {.name = "bitwise_not", .kind = F_UNARY, .params = "x", .u = loom_invert},
    {.name = "bitwise_invert", .kind = F_UNARY, .params = "x", .u = loom_invert},
    {.name = "acos", .kind = F_UNARY, .params = "x", .u = loom_arccos},
    {.name = "asin", .kind = F_UNARY, .params = "x", .u = loom_arcsin},
    {.name = "atan", .kind = F_UNARY, .params = "x", .u = loom_arctan},
    {.name = "acosh", .kind = F_UNARY, .params = "x", .u = loom_arccosh},
    {.name = "asinh", .kind = F_UNARY, .params = "x", .u = loom_arcsinh},
    {.name = "atanh", .kind = F_UNARY, .params = "x", .u = loom_arctanh},
    {.name = "radians", .kind = F_UNARY, .params = "x", .u = loom_deg2rad},
    {.name = "degrees", .kind = F_UNARY, .params = "x", .u = loom_rad2deg},
    {.name = "fix", .kind = F_UNARY, .params = "x", .u = loom_fix},
    {.name = "isposinf", .kind = F_UNARY, .params = "x", .u = loom_isposinf},
    {.name = "isneginf", .kind = F_UNARY, .params = "x", .u = loom_isneginf},
    {.name = "ldexp", .kind = F_BINARY, .params = "x1,x2", .b = loom_ldexp},
    {.name = "real", .kind = F_UNARY, .params = "val", .u = loom_real},
    {.name = "imag", .kind = F_UNARY, .params = "val", .u = loom_imag},
    {.name = "conj", .kind = F_UNARY, .params = "x", .u = loom_conj, .method = true},
    {.name = "conjugate", .kind = F_UNARY, .params = "x", .u = loom_conj, .method = true},
    {.name = "angle", .kind = F_MANIP, .params = "z,deg?"},
    {.name = "iscomplex", .kind = F_UNARY, .params = "x", .u = loom_iscomplex},
    {.name = "isreal", .kind = F_UNARY, .params = "x", .u = loom_isreal},
    {.name = "iscomplexobj", .kind = F_MANIP, .params = "x"},
    {.name = "isrealobj", .kind = F_MANIP, .params = "x"},
    {.name = "float_power", .kind = F_BINARY, .params = "x1,x2", .b = loom_float_power},
    {.name = "nanargmax", .kind = F_ARGRED, .params = RED, .r = loom_nanargmax},
    {.name = "nanargmin", .kind = F_ARGRED, .params = RED, .r = loom_nanargmin},
    {.name = "round", .kind = F_MANIP, .params = "a,decimals?,out?", .method = true},
    {.name = "around", .kind = F_MANIP, .params = "a,decimals?,out?"},
    {.name = "frexp", .kind = F_MANIP, .params = "x"},
    {.name = "modf", .kind = F_MANIP, .params = "x"},
    {.name = "divmod", .kind = F_MANIP, .params = "x1,x2"},
    {.name = "unstack", .kind = F_MANIP, .params = "x,axis?"},
    {.name = "matrix_transpose", .kind = F_UNARY, .params = "x", .u = loom_matrix_transpose},
    /* numpy.linalg (also as linalg.NAME and np.linalg.NAME) */
    {.name = "norm", .kind = F_MANIP, .params = "x,ord?,axis?,keepdims?"},
    {.name = "vector_norm", .kind = F_MANIP, .params = "x,axis?,keepdims?,ord?"},
    {.name = "matrix_norm", .kind = F_MANIP, .params = "x,keepdims?,ord?"},
    {.name = "cross", .kind = F_MANIP, .params = "a,b,axisa?,axisb?,axisc?,axis?"},
    {.name = "multi_dot", .kind = F_MANIP, .params = "arrays,out?"},
    {.name = "matrix_power", .kind = F_MANIP, .params = "a,n"},
    {.name = "solve", .kind = F_BINARY, .params = "a,b", .b = loom_solve},
    {.name = "inv", .kind = F_UNARY, .params = "a", .u = loom_inv},
    {.name = "det", .kind = F_UNARY, .params = "a", .u = loom_det},
    {.name = "svdvals", .kind = F_UNARY, .params = "x", .u = loom_svdvals},
    {.name = "cholesky", .kind = F_MANIP, .params = "a,upper?"},
    {.name = "slogdet", .kind = F_MANIP, .params = "a"},
    {.name = "eigh", .kind = F_MANIP, .params = "a,UPLO?"},
    {.name = "eigvalsh", .kind = F_MANIP, .params = "a,UPLO?"},
    {.name = "eig", .kind = F_MANIP, .params = "a"},
    {.name = "eigvals", .kind = F_MANIP, .params = "a"},
    {.name = "svd", .kind = F_MANIP, .params = "a,full_matrices?,compute_uv?,hermitian?"},
    {.name = "qr", .kind = F_MANIP, .params = "a,mode?"},
    {.name = "lstsq", .kind = F_MANIP, .params = "a,b,rcond?"},
    {.name = "pinv", .kind = F_MANIP, .params = "a,rcond?,hermitian?,rtol?"},
    {.name = "matrix_rank", .kind = F_MANIP, .params = "A,tol?,hermitian?,rtol?"},
    {.name = "cond", .kind = F_MANIP, .params = "x,p?"},
    {.name = "tensorinv", .kind = F_MANIP, .params = "a,ind?"},
    {.name = "tensorsolve", .kind = F_MANIP, .params = "a,b,axes?"},
    {.name = "interp", .kind = F_MANIP, .params = "x,xp,fp,left?,right?,period?"},
    {.name = "digitize", .kind = F_MANIP, .params = "x,bins,right?"},
    {.name = "trapezoid", .kind = F_MANIP, .params = "y,x?,dx?,axis?"},
    {.name = "polyval", .kind = F_MANIP, .params = "p,x"},
    {.name = "vander", .kind = F_MANIP, .params = "x,N?,increasing?"},
    {.name = "polyder", .kind = F_MANIP, .params = "p,m?"},
    {.name = "polyint", .kind = F_MANIP, .params = "p,m?,k?"},
    {.name = "polyadd", .kind = F_MANIP, .params = "a1,a2"},
    {.name = "polysub", .kind = F_MANIP, .params = "a1,a2"},
    {.name = "polymul", .kind = F_MANIP, .params = "a1,a2"},
    {.name = "polydiv", .kind = F_MANIP, .params = "u,v"},
    {.name = "polyfit", .kind = F_MANIP, .params = "x,y,deg,rcond?,full?,w?,cov?"},
    {.name = "roots", .kind = F_MANIP, .params = "p"},
    {.name = "poly", .kind = F_MANIP, .params = "seq_of_zeros"},
    {.name = "gradient", .kind = F_MANIP, .params = "f,varargs*,axis?,edge_order?"},
    {.name = "unwrap", .kind = F_MANIP, .params = "p,discont?,axis?,period?"},
    {.name = "bartlett", .kind = F_MANIP, .params = "M"},
    {.name = "blackman", .kind = F_MANIP, .params = "M"},
    {.name = "hamming", .kind = F_MANIP, .params = "M"},
    {.name = "hanning", .kind = F_MANIP, .params = "M"},
    {.name = "kaiser", .kind = F_MANIP, .params = "M,beta"},
    {.name = "select", .kind = F_MANIP, .params = "condlist,choicelist,default?"},
    {.name = "vdot", .kind = F_MANIP, .params = "a,b"},
    /* numpy.fft's helpers (also as fft.NAME), convolution */
    {.name = "fft", .kind = F_MANIP, .params = "a,n?,axis?,norm?"},
    {.name = "ifft", .kind = F_MANIP, .params = "a,n?,axis?,norm?"},
    {.name = "rfft", .kind = F_MANIP, .params = "a,n?,axis?,norm?"},
    {.name = "irfft", .kind = F_MANIP, .params = "a,n?,axis?,norm?"},
    {.name = "hfft", .kind = F_MANIP, .params = "a,n?,axis?,norm?"},
    {.name = "ihfft", .kind = F_MANIP, .params = "a,n?,axis?,norm?"},
    {.name = "fft2", .kind = F_MANIP, .params = "a,s?,axes?,norm?"},
    {.name = "ifft2", .kind = F_MANIP, .params = "a,s?,axes?,norm?"},
    {.name = "rfft2", .kind = F_MANIP, .params = "a,s?,axes?,norm?"},
    {.name = "irfft2", .kind = F_MANIP, .params = "a,s?,axes?,norm?"},
    {.name = "fftn", .kind = F_MANIP, .params = "a,s?,axes?,norm?"},
    {.name = "ifftn", .kind = F_MANIP, .params = "a,s?,axes?,norm?"},
    {.name = "rfftn", .kind = F_MANIP, .params = "a,s?,axes?,norm?"},
    {.name = "irfftn", .kind = F_MANIP, .params = "a,s?,axes?,norm?"},
    {.name = "fftfreq", .kind = F_MANIP, .params = "n,d?"},
    {.name = "rfftfreq", .kind = F_MANIP, .params = "n,d?"},
    {.name = "fftshift", .kind = F_MANIP, .params = "x,axes?"},
    {.name = "ifftshift", .kind = F_MANIP, .params = "x,axes?"},
    {.name = "convolve", .kind = F_MANIP, .params = "a,v,mode?"},
    {.name = "correlate", .kind = F_MANIP, .params = "a,v,mode?"},
    {.name = "fftconvolve", .kind = F_MANIP, .params = "in1,in2,mode?"},
    {.name = "tensordot", .kind = F_MANIP, .params = "a,b,axes?"},
    {.name = "einsum",
     .kind = F_MANIP,
     .params = "subscripts,o1?,o2?,o3?,o4?,o5?,o6?,optimize?"},
    {.name = "divide", .kind = F_BINARY, .params = "x1,x2", .b = loom_true_divide},
    {.name = "mod", .kind = F_BINARY, .params = "x1,x2", .b = loom_remainder},
    {.name = "pow", .kind = F_BINARY, .params = "x1,x2", .b = loom_power},
    {.name = "atan2", .kind = F_BINARY, .params = "x1,x2", .b = loom_arctan2},
    {.name = "bitwise_left_shift", .kind = F_BINARY, .params = "x1,x2", .b = loom_left_shift},
    {.name = "bitwise_right_shift", .kind = F_BINARY, .params = "x1,x2", .b = loom_right_shift},
    {.name = "matmul", .kind = F_BINARY, .params = "x1,x2", .b = loom_matmul},
    {.name = "dot", .kind = F_BINARY, .params = "a,b", .b = loom_dot, .method = true},
    {.name = "where", .kind = F_WHERE, .params = "condition,x?,y?"},
    {.name = "clip", .kind = F_CLIP, .params = "a,a_min?,a_max?,min?,max?", .method = true},
    {.name = "astype", .kind = F_ASTYPE, .params = "x,dtype", .method = true},
    {.name = "array", .kind = F_ARRAY, .params = "object,dtype?"},
    {.name = "asarray", .kind = F_ARRAY, .params = "a,dtype?"},
    {.name = "copy", .kind = F_COPY, .params = "a,order?", .method = true},
    {.name = "zeros", .kind = F_ZEROS, .params = "shape,dtype?"},
    {.name = "empty", .kind = F_ZEROS, .params = "shape,dtype?"}, /* zeros, as empty_like */
    {.name = "ones", .kind = F_ONES, .params = "shape,dtype?"},
    {.name = "full", .kind = F_FULL, .params = "shape,fill_value,dtype?"},
    {.name = "arange", .kind = F_ARANGE, .params = "start,stop?,step?,dtype?"},
    {.name = "linspace", .kind = F_LINSPACE, .params = "start,stop,num?,endpoint?,dtype?"},
    {.name = "eye", .kind = F_EYE, .params = "N,M?,k?,dtype?"},
    /* numpy.random's Generator methods, as random.NAME (random.c). Each call draws under
     * loom_random_key(seed, stream); seed defaults to 0 and stream to the number of random
     * calls the program evaluated before it, so that two calls differ. */
    {.name = "random.random", .kind = F_RANDOM, .params = "size?,dtype?,seed?,stream?"},
    {.name = "random.uniform", .kind = F_RANDOM, .params = "low?,high?,size?,dtype?,seed?,stream?"},
    {.name = "random.normal", .kind = F_RANDOM, .params = "loc?,scale?,size?,dtype?,seed?,stream?"},
    {.name = "random.standard_normal", .kind = F_RANDOM, .params = "size?,dtype?,seed?,stream?"},
    {.name = "random.exponential", .kind = F_RANDOM, .params = "scale?,size?,dtype?,seed?,stream?"},
    {.name = "random.integers",
     .kind = F_RANDOM,
     .params = "low,high?,size?,dtype?,endpoint?,seed?,stream?"},
    {.name = "random.permutation", .kind = F_RANDOM, .params = "x,axis?,seed?,stream?"},
    {.name = "random.shuffle", .kind = F_RANDOM, .params = "x,axis?,seed?,stream?"},
    {.name = "random.choice",
     .kind = F_RANDOM,
     .params = "a,size?,replace?,p?,axis?,shuffle?,seed?,stream?"},
    /* Reductions and scans: NumPy's signatures; dtype= and out= are bound, then refused
     * unless None. */
    {.name = "sum", .kind = F_REDUCE, .params = RED_DT, .r = loom_sum, .method = true},
    {.name = "prod", .kind = F_REDUCE, .params = RED_DT, .r = loom_prod, .method = true},
    {.name = "mean", .kind = F_REDUCE, .params = RED_DT, .r = loom_mean, .method = true},
    {.name = "max", .kind = F_REDUCE, .params = RED, .r = loom_max, .method = true},
    {.name = "min", .kind = F_REDUCE, .params = RED, .r = loom_min, .method = true},
    {.name = "any", .kind = F_REDUCE, .params = RED, .r = loom_any, .method = true},
    {.name = "all", .kind = F_REDUCE, .params = RED, .r = loom_all, .method = true},
    {.name = "amax", .kind = F_REDUCE, .params = RED, .r = loom_max},
    {.name = "amin", .kind = F_REDUCE, .params = RED, .r = loom_min},
    {.name = "nansum", .kind = F_REDUCE, .params = RED_DT, .r = loom_nansum},
    {.name = "nanprod", .kind = F_REDUCE, .params = RED_DT, .r = loom_nanprod},
    {.name = "nanmean", .kind = F_REDUCE, .params = RED_DT, .r = loom_nanmean},
    {.name = "nanmax", .kind = F_REDUCE, .params = RED, .r = loom_nanmax},
    {.name = "nanmin", .kind = F_REDUCE, .params = RED, .r = loom_nanmin},
    {.name = "ptp", .kind = F_REDUCE, .params = RED, .r = loom_ptp},
    {.name = "nanvar", .kind = F_MOMENTS, .params = "a,axis?,dtype?,out?,ddof?,keepdims?,correction?",
     .m = loom_nanvar},
    {.name = "nanstd", .kind = F_MOMENTS, .params = "a,axis?,dtype?,out?,ddof?,keepdims?,correction?",
     .m = loom_nanstd},
    {.name = "argmax", .kind = F_ARGRED, .params = RED, .r = loom_argmax, .method = true},
    {.name = "argmin", .kind = F_ARGRED, .params = RED, .r = loom_argmin, .method = true},
    {.name = "var",
     .kind = F_MOMENTS,
     .params = "a,axis?,dtype?,out?,ddof?,keepdims?,correction?",
     .m = loom_var,
     .method = true},
    {.name = "std",
     .kind = F_MOMENTS,
     .params = "a,axis?,dtype?,out?,ddof?,keepdims?,correction?",
     .m = loom_std,
     .method = true},
    {.name = "cumsum",
     .kind = F_SCAN,
     .params = "a,axis?,dtype?,out?",
     .s = loom_cumsum,
     .method = true},
    {.name = "cumprod",
     .kind = F_SCAN,
     .params = "a,axis?,dtype?,out?",
     .s = loom_cumprod,
     .method = true},
    /* Views and joins. x.reshape(2, 3) and x.transpose(1, 0) take their shape or axes as
     * separate arguments too (eval_call packs them into a tuple). */
    {.name = "reshape", .kind = F_SHAPE, .params = "a,shape", .sh = loom_reshape, .method = true},
    {.name = "broadcast_to", .kind = F_SHAPE, .params = "array,shape", .sh = loom_broadcast_to},
    {.name = "transpose",
     .kind = F_AXES,
     .params = "a,axes?",
     .ax = loom_transpose,
     .method = true},
    {.name = "permute_dims", .kind = F_AXES, .params = "a,axes?", .ax = loom_transpose},
    {.name = "expand_dims", .kind = F_AXES, .params = "a,axis", .ax = loom_expand_dims},
    {.name = "squeeze", .kind = F_AXES, .params = "a,axis?", .ax = loom_squeeze, .method = true},
    {.name = "flip", .kind = F_AXES, .params = "m,axis?", .ax = loom_flip},
    {.name = "moveaxis", .kind = F_MOVEAXIS, .params = "a,source,destination"},
    {.name = "ravel", .kind = F_RAVEL, .params = "a", .method = true},
    {.name = "swapaxes", .kind = F_MANIP, .params = "a,axis1,axis2", .method = true},
    {.name = "median", .kind = F_MANIP, .params = "a,axis?,out?,overwrite_input?,keepdims?"},
    {.name = "average", .kind = F_MANIP, .params = "a,axis?,weights?,returned?,keepdims?"},
    {.name = "cov",
     .kind = F_MANIP,
     .params = "m,y?,rowvar?,bias?,ddof?,fweights?,aweights?,dtype?"},
    {.name = "corrcoef", .kind = F_MANIP, .params = "x,y?,rowvar?,bias?,ddof?,dtype?"},
    {.name = "can_cast", .kind = F_MANIP, .params = "from_,to,casting?"},
    {.name = "isdtype", .kind = F_MANIP, .params = "dtype,kind"},
    {.name = "finfo", .kind = F_MANIP, .params = "dtype"},
    {.name = "iinfo", .kind = F_MANIP, .params = "int_type"},
    {.name = "result_type", .kind = F_MANIP, .params = "a1,a2?,a3?,a4?"},
    {.name = "pad",
     .kind = F_MANIP,
     .params = "array,pad_width,mode?,constant_values?,end_values?,stat_length?,reflect_type?"},
    {.name = "ediff1d", .kind = F_MANIP, .params = "ary,to_end?,to_begin?"},
    {.name = "tri", .kind = F_MANIP, .params = "N,M?,k?,dtype?"},
    {.name = "indices", .kind = F_MANIP, .params = "dimensions,dtype?,sparse?"},
    {.name = "broadcast_arrays", .kind = F_MANIP, .params = "arrays*"},
    {.name = "zeros_like", .kind = F_MANIP, .params = "a,dtype?"},
    {.name = "ones_like", .kind = F_MANIP, .params = "a,dtype?"},
    {.name = "empty_like", .kind = F_MANIP, .params = "a,dtype?"},
    {.name = "full_like", .kind = F_MANIP, .params = "a,fill_value,dtype?"},
    {.name = "outer", .kind = F_MANIP, .params = "a,b"},
    {.name = "inner", .kind = F_MANIP, .params = "a,b"},
    {.name = "vecdot", .kind = F_MANIP, .params = "x1,x2,axis?"},
    {.name = "kron", .kind = F_MANIP, .params = "a,b"},
    {.name = "meshgrid", .kind = F_MANIP, .params = "xi*,indexing?"},
    {.name = "split", .kind = F_MANIP, .params = "ary,indices_or_sections,axis?"},
    {.name = "array_split", .kind = F_MANIP, .params = "ary,indices_or_sections,axis?"},
    {.name = "isclose", .kind = F_MANIP, .params = "a,b,rtol?,atol?,equal_nan?"},
    {.name = "nan_to_num", .kind = F_MANIP, .params = "x,copy?,nan?,posinf?,neginf?"},
    {.name = "allclose", .kind = F_MANIP, .params = "a,b,rtol?,atol?,equal_nan?"},
    {.name = "array_equal", .kind = F_MANIP, .params = "a1,a2,equal_nan?"},
    {.name = "array_equiv", .kind = F_MANIP, .params = "a1,a2"},
    {.name = "logspace", .kind = F_MANIP, .params = "start,stop,num?,endpoint?,base?,dtype?,axis?"},
    {.name = "geomspace", .kind = F_MANIP, .params = "start,stop,num?,endpoint?,dtype?,axis?"},
    {.name = "matvec", .kind = F_MANIP, .params = "x1,x2"},
    {.name = "vecmat", .kind = F_MANIP, .params = "x1,x2"},
    {.name = "sort_complex", .kind = F_MANIP, .params = "a"},
    {.name = "packbits", .kind = F_MANIP, .params = "a,axis?,bitorder?"},
    {.name = "unpackbits", .kind = F_MANIP, .params = "a,axis?,count?,bitorder?"},
    {.name = "cumulative_sum", .kind = F_MANIP, .params = "x,axis?,dtype?,out?,include_initial?"},
    {.name = "cumulative_prod", .kind = F_MANIP, .params = "x,axis?,dtype?,out?,include_initial?"},
    {.name = "nancumsum", .kind = F_MANIP, .params = "a,axis?,dtype?,out?"},
    {.name = "nancumprod", .kind = F_MANIP, .params = "a,axis?,dtype?,out?"},
    {.name = "nanmedian", .kind = F_MANIP, .params = "a,axis?,out?,overwrite_input?,keepdims?"},
    {.name = "nanquantile",
     .kind = F_MANIP,
     .params = "a,q,axis?,out?,overwrite_input?,method?,keepdims?,weights?,interpolation?"},
    {.name = "nanpercentile",
     .kind = F_MANIP,
     .params = "a,q,axis?,out?,overwrite_input?,method?,keepdims?,weights?,interpolation?"},
    {.name = "quantile",
     .kind = F_MANIP,
     .params = "a,q,axis?,out?,overwrite_input?,method?,keepdims?,weights?,interpolation?"},
    {.name = "percentile",
     .kind = F_MANIP,
     .params = "a,q,axis?,out?,overwrite_input?,method?,keepdims?,weights?,interpolation?"},
    {.name = "atleast_1d", .kind = F_MANIP, .params = "a"},
    {.name = "atleast_2d", .kind = F_MANIP, .params = "a"},
    {.name = "atleast_3d", .kind = F_MANIP, .params = "a"},
    {.name = "tril", .kind = F_MANIP, .params = "m,k?"},
    {.name = "triu", .kind = F_MANIP, .params = "m,k?"},
    {.name = "diagonal", .kind = F_MANIP, .params = "a,offset?,axis1?,axis2?", .method = true},
    {.name = "trace", .kind = F_MANIP, .params = "a,offset?,axis1?,axis2?,dtype?,out?",
     .method = true},
    {.name = "diag", .kind = F_MANIP, .params = "v,k?"},
    {.name = "roll", .kind = F_MANIP, .params = "a,shift,axis?"},
    {.name = "repeat", .kind = F_MANIP, .params = "a,repeats,axis?", .method = true},
    {.name = "tile", .kind = F_MANIP, .params = "A,reps"},
    {.name = "diff", .kind = F_MANIP, .params = "a,n?,axis?,prepend?,append?"},
    {.name = "rot90", .kind = F_MANIP, .params = "m,k?,axes?"},
    {.name = "concatenate", .kind = F_JOIN, .params = "arrays,axis?", .j = loom_concatenate},
    {.name = "concat", .kind = F_JOIN, .params = "arrays,axis?", .j = loom_concatenate},
    {.name = "stack", .kind = F_JOIN, .params = "arrays,axis?", .j = loom_stack},
    {.name = "hstack", .kind = F_ARRANGE, .params = "tup,dtype?,casting?"},
    {.name = "vstack", .kind = F_ARRANGE, .params = "tup,dtype?,casting?"},
    {.name = "dstack", .kind = F_ARRANGE, .params = "tup"},
    {.name = "column_stack", .kind = F_ARRANGE, .params = "tup"},
    {.name = "block", .kind = F_ARRANGE, .params = "arrays"},
    {.name = "hsplit", .kind = F_ARRANGE, .params = "ary,indices_or_sections"},
    {.name = "vsplit", .kind = F_ARRANGE, .params = "ary,indices_or_sections"},
    {.name = "dsplit", .kind = F_ARRANGE, .params = "ary,indices_or_sections"},
    {.name = "fliplr", .kind = F_ARRANGE, .params = "m"},
    {.name = "flipud", .kind = F_ARRANGE, .params = "m"},
    {.name = "rollaxis", .kind = F_ARRANGE, .params = "a,axis,start?"},
    {.name = "append", .kind = F_ARRANGE, .params = "arr,values,axis?"},
    {.name = "insert", .kind = F_ARRANGE, .params = "arr,obj,values,axis?"},
    {.name = "delete", .kind = F_ARRANGE, .params = "arr,obj,axis?"},
    {.name = "resize", .kind = F_ARRANGE, .params = "a,new_shape"},
    {.name = "trim_zeros", .kind = F_ARRANGE, .params = "filt,trim?,axis?"},
    {.name = "diagflat", .kind = F_ARRANGE, .params = "v,k?"},
    {.name = "identity", .kind = F_ARRANGE, .params = "n,dtype?"},
    {.name = "slice", .kind = F_ARRANGE, .params = "start,stop?,step?"},
    /* Gathers */
    {.name = "take", .kind = F_TAKE, .params = "a,indices,axis?,out?,mode?", .method = true},
    {.name = "take_along_axis", .kind = F_TAKE_ALONG, .params = "arr,indices,axis?"},
    /* Masks: data-dependent shapes (the count is evaluated when the call is read) */
    {.name = "count_nonzero", .kind = F_COUNT_NZ, .params = "a,axis?,keepdims?"},
    {.name = "flatnonzero", .kind = F_MASK1, .params = "a"},
    {.name = "argwhere", .kind = F_MASK1, .params = "a"},
    {.name = "nonzero", .kind = F_NONZERO, .params = "a", .method = true},
    {.name = "compress", .kind = F_COMPRESS, .params = "condition,a,axis?,out?"},
    {.name = "extract", .kind = F_EXTRACT, .params = "condition,arr"},
    /* Sorting: stable always (kind= and stable= are accepted and change nothing) */
    {.name = "sort", .kind = F_SORT, .params = "a,axis?,kind?,order?,stable?,descending?"},
    {.name = "argsort", .kind = F_SORT, .params = "a,axis?,kind?,order?,stable?,descending?",
     .method = true},
    {.name = "searchsorted", .kind = F_SEARCHSORTED, .params = "a,v,side?,sorter?"},
    {.name = "unique",
     .kind = F_UNIQUE,
     .params = "ar,return_index?,return_inverse?,return_counts?,axis?,equal_nan?"},
    {.name = "unique_values", .kind = F_UNIQUE_API, .params = "x"},
    {.name = "unique_counts", .kind = F_UNIQUE_API, .params = "x"},
    {.name = "unique_inverse", .kind = F_UNIQUE_API, .params = "x"},
    {.name = "unique_all", .kind = F_UNIQUE_API, .params = "x"},
    {.name = "isin",
     .kind = F_ISIN,
     .params = "element,test_elements,assume_unique?,invert?,kind?"},
    {.name = "intersect1d", .kind = F_SET2, .params = "ar1,ar2,assume_unique?,return_indices?"},
    {.name = "union1d", .kind = F_SET2, .params = "ar1,ar2"},
    {.name = "setdiff1d", .kind = F_SET2, .params = "ar1,ar2,assume_unique?"},
    {.name = "bincount", .kind = F_BINCOUNT, .params = "x,weights?,minlength?"},
    {.name = "histogram", .kind = F_HISTOGRAM, .params = "a,bins?,range?,density?,weights?"},
    {.name = "lexsort", .kind = F_LEXSORT, .params = "keys,axis?"},
    {.name = "partition", .kind = F_PARTITION, .params = "a,kth,axis?,kind?,order?"},
    {.name = "argpartition", .kind = F_PARTITION, .params = "a,kth,axis?,kind?,order?"},
    {.name = "top_k", .kind = F_TOP_K, .params = "x,k,axis?"},
    {.name = "choose", .kind = F_CHOOSE, .params = "a,choices,out?,mode?"},
    /* Index helpers */
    {.name = "unravel_index", .kind = F_INDEX_HELP, .params = "indices,shape,order?"},
    {.name = "ravel_multi_index", .kind = F_INDEX_HELP, .params = "multi_index,dims,mode?,order?"},
    {.name = "tril_indices", .kind = F_INDEX_HELP, .params = "n,k?,m?"},
    {.name = "triu_indices", .kind = F_INDEX_HELP, .params = "n,k?,m?"},
    {.name = "tril_indices_from", .kind = F_INDEX_HELP, .params = "arr,k?"},
    {.name = "triu_indices_from", .kind = F_INDEX_HELP, .params = "arr,k?"},
    {.name = "diag_indices", .kind = F_INDEX_HELP, .params = "n,ndim?"},
    {.name = "diag_indices_from", .kind = F_INDEX_HELP, .params = "arr"},
    {.name = "ix_", .kind = F_INDEX_HELP, .params = "args*"},
    /* NumPy's in-place updates, as values: each returns the updated array */
    {.name = "put", .kind = F_UPDATE, .params = "a,ind,v,mode?"},
    {.name = "put_along_axis", .kind = F_UPDATE, .params = "arr,indices,values,axis"},
    {.name = "place", .kind = F_UPDATE, .params = "arr,mask,vals"},
    {.name = "putmask", .kind = F_UPDATE, .params = "a,mask,values"},
    {.name = "copyto", .kind = F_UPDATE, .params = "dst,src,casting?,where?"},
    {.name = "fill_diagonal", .kind = F_UPDATE, .params = "a,val,wrap?"},
    {.name = "histogram_bin_edges", .kind = F_HISTOGRAM, .params = "a,bins?,range?,weights?"},
    {.name = "histogram2d", .kind = F_HISTDD, .params = "x,y,bins?,range?,density?,weights?"},
    {.name = "histogramdd", .kind = F_HISTDD, .params = "sample,bins?,range?,density?,weights?"},
    {.name = "setxor1d", .kind = F_SET2, .params = "ar1,ar2,assume_unique?"},
};

/* nonzero(a) as a tuple of one int64 array per axis; n arrays as a tuple. */
static bool nonzero_tuple(parser_t *P, loom_array_t *a, int32_t pos, value_t *out);
static bool array_tuple(parser_t *P, int32_t n, loom_array_t *const *arrays, int32_t pos,
                        value_t *out);

/* NumPy methods loom does not have yet: refused before binding. */
static const char *const later_methods[] = {"flatten", "view"};

static const func_t *find_func(const char *s, int32_t n) {
    if (n <= 0) return NULL;
    for (size_t i = 0; i < BASE_ARRAY_LEN(funcs); i++) /* (the first letter first: fast) */
        if (funcs[i].name[0] == s[0] && !strncmp(funcs[i].name, s, (size_t)n) &&
            funcs[i].name[n] == '\0')
            return &funcs[i];
    return NULL;
}

/* random.NAME's entry (its name without the prefix is s[0..n)), or NULL. */
static const func_t *find_random(const char *s, int32_t n) {
    if (n <= 0) return NULL;
    for (size_t i = 0; i < BASE_ARRAY_LEN(funcs); i++)
        if (funcs[i].kind == F_RANDOM && !strncmp(funcs[i].name + 7, s, (size_t)n) &&
            funcs[i].name[7 + n] == '\0')
            return &funcs[i];
    return NULL;
}

/* Binds call arguments to slots by the signature; at most 8 parameters. */
#define MAX_PARAMS 8
typedef struct bound {
    value_t v[MAX_PARAMS];
    int32_t pos[MAX_PARAMS];
    bool given[MAX_PARAMS];
    char names[MAX_PARAMS][24];
    int n;
    bool linalg;            /* called as linalg.NAME */
    const int32_t *var_pos; /* the variadic parameter's items' positions (NULL: none) */
    struct bound *next;     /* on P->free_bounds */
} bound_t;

/* A bound_t for one call. Calls nest, each holding its bound_t while its arguments (more
 * calls) are evaluated, so they come from the arena through a LIFO free list rather than the
 * stack: nesting then costs little stack, and a chain of calls reuses one. NULL (with an
 * error) when out of memory. */
static bound_t *bound_get(parser_t *P, int32_t pos) {
    bound_t *b = P->free_bounds;
    if (b) {
        P->free_bounds = b->next;
        b->linalg = false;
        return b;
    }
    if (!(b = base_arena_alloc_raw(&P->arena, 1, sizeof *b))) /* (bind clears it) */
        perr(P, pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
    else
        b->linalg = false;
    return b;
}

static void bound_put(parser_t *P, bound_t *b) {
    b->next = P->free_bounds;
    P->free_bounds = b;
}

static bool eval_node(parser_t *P, const node_t *x, value_t *out);

static int param_index(const bound_t *b, const char *s, int32_t n) {
    for (int i = 0; i < b->n; i++)
        if (strlen(b->names[i]) == (size_t)n && !strncmp(b->names[i], s, (size_t)n)) return i;
    return -1;
}

static bool bind(parser_t *P, const func_t *f, const node_t *call, const value_t *self,
                 bound_t *b) {
    memset(b, 0, sizeof *b);
    bool optional[MAX_PARAMS] = {false}, variadic[MAX_PARAMS] = {false};
    for (const char *p = f->params; *p && b->n < MAX_PARAMS;) {
        size_t k = strcspn(p, ",?*");
        memcpy(b->names[b->n], p, k < sizeof b->names[0] ? k : sizeof b->names[0] - 1);
        p += k;
        if (*p == '?' || *p == '*') { /* "xs*": the rest of the positional arguments, a tuple */
            optional[b->n] = true;
            variadic[b->n] = *p == '*';
            p++;
        }
        b->n++;
        if (*p == ',') p++;
    }
    int next = 0;
    if (self) {
        b->v[0] = *self;
        b->pos[0] = call->pos;
        b->given[0] = true;
        next = 1;
    }
    for (int32_t i = 1; i < call->n; i++) {
        const node_t *a = call->kids[i];
        int slot;
        if (a->kind == N_KWARG) {
            slot = param_index(b, P->src + a->tpos, a->tlen);
            if (slot < 0 || variadic[slot]) /* (a variadic one is positional only) */
                return perr(P, a->pos, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s() got an unexpected keyword argument '%.*s'", f->name, (int)a->tlen,
                            P->src + a->tpos);
            if (b->given[slot])
                return perr(P, a->pos, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s() got multiple values for argument '%s'", f->name, b->names[slot]);
            a = a->kids[0];
        } else if (next < b->n && variadic[next]) {
            int32_t m = 0; /* this and the positional arguments after it */
            while (i + m < call->n && call->kids[i + m]->kind != N_KWARG) m++;
            value_t *items = base_arena_alloc(&P->arena, (size_t)m, sizeof *items);
            int32_t *at = base_arena_alloc(&P->arena, (size_t)m, sizeof *at);
            if (!items || !at) return perr(P, a->pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
            for (int32_t k = 0; k < m; k++) {
                if (!eval_node(P, call->kids[i + k], &items[k])) return false;
                at[k] = call->kids[i + k]->pos;
            }
            b->var_pos = at;
            b->v[next] = (value_t){.kind = V_TUPLE, .items = items, .n = m};
            b->pos[next] = a->pos;
            b->given[next++] = true;
            i += m - 1;
            continue;
        } else {
            if (next >= b->n)
                return perr(P, a->pos, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s() takes at most %d positional argument%s", f->name, b->n,
                            b->n == 1 ? "" : "s");
            slot = next++;
        }
        if (!eval_node(P, a, &b->v[slot])) return false;
        b->pos[slot] = a->pos;
        b->given[slot] = true;
    }
    for (int i = 0; i < b->n; i++)
        if (!b->given[i] && !optional[i])
            return perr(P, call->pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "%s() is missing the argument '%s'", f->name, b->names[i]);
    return true;
}

/* dtype names NumPy accepts as strings, beyond loom_dtype_from_name. */
static const struct {
    const char *name;
    loom_dtype_t d;
} dtype_aliases[] = {
    {"bool_", LOOM_DTYPE_BOOL}, {"?", LOOM_DTYPE_BOOL},     {"b1", LOOM_DTYPE_BOOL},
    {"i1", LOOM_DTYPE_I8},      {"i2", LOOM_DTYPE_I16},     {"i4", LOOM_DTYPE_I32},
    {"i8", LOOM_DTYPE_I64},     {"u1", LOOM_DTYPE_U8},      {"u2", LOOM_DTYPE_U16},
    {"u4", LOOM_DTYPE_U32},     {"u8", LOOM_DTYPE_U64},     {"f2", LOOM_DTYPE_F16},
    {"f4", LOOM_DTYPE_F32},     {"f8", LOOM_DTYPE_F64},     {"half", LOOM_DTYPE_F16},
    {"single", LOOM_DTYPE_F32}, {"double", LOOM_DTYPE_F64}, {"float", LOOM_DTYPE_F64},
    {"int", LOOM_DTYPE_I64},    {"uint", LOOM_DTYPE_U64},   {"c8", LOOM_DTYPE_C64},
    {"c16", LOOM_DTYPE_C128},   {"csingle", LOOM_DTYPE_C64}, {"cdouble", LOOM_DTYPE_C128},
    {"complex", LOOM_DTYPE_C128},
};

static int dtype_by_name(const char *s, int32_t n) {
    char buf[32];
    if (n <= 0 || n >= (int32_t)sizeof buf) return -1;
    memcpy(buf, s, (size_t)n);
    buf[n] = '\0';
    int d = loom_dtype_from_name(buf);
    if (d >= 0) return d;
    for (size_t i = 0; i < BASE_ARRAY_LEN(dtype_aliases); i++)
        if (!strcmp(buf, dtype_aliases[i].name)) return (int)dtype_aliases[i].d;
    return -1;
}

/* A dtype argument: a dtype name (float32, np.int8, float) or a string ('float32', 'f4'). */
static bool get_dtype(parser_t *P, const bound_t *b, int slot, int dflt, loom_dtype_t *out) {
    if (!b->given[slot] || b->v[slot].kind == V_NONE) {
        *out = (loom_dtype_t)dflt;
        return true;
    }
    const value_t *v = &b->v[slot];
    int d = v->kind == V_DTYPE ? v->dtype
            : v->kind == V_STR ? dtype_by_name(P->src + v->tpos, v->tlen)
                               : -2;
    if (d == -2)
        return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                    "dtype must be a dtype name or a string, not %s", kind_text(v));
    if (d < 0)
        return perr(P, b->pos[slot], LOOM_STATUS_DTYPE_ERROR,
                    "data type '%.*s' not understood (loom has bool, int8..int64, uint8..uint64, "
                    "float16, bfloat16, float32, float64, complex64, complex128)",
                    (int)(v->tlen > 40 ? 40 : v->tlen), P->src + v->tpos);
    *out = (loom_dtype_t)d;
    return true;
}

static bool get_int(parser_t *P, const bound_t *b, int slot, int64_t dflt, int64_t *out) {
    if (!b->given[slot] || b->v[slot].kind == V_NONE) {
        *out = dflt;
        return true;
    }
    const value_t *v = &b->v[slot];
    if (v->kind != V_INT && v->kind != V_BOOL)
        return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                    "'%s' must be an integer, not %s", b->names[slot], kind_text(v));
    if (v->i < INT64_MIN || v->i > INT64_MAX)
        return perr(P, b->pos[slot], LOOM_STATUS_OVERFLOW, "'%s' is out of range", b->names[slot]);
    *out = (int64_t)v->i;
    return true;
}

static bool get_shape(parser_t *P, const bound_t *b, int slot, int32_t *ndim, int64_t *shape) {
    const value_t *v = &b->v[slot];
    if (v->kind == V_INT || v->kind == V_BOOL) {
        *ndim = 1;
        return get_int(P, b, slot, 0, &shape[0]);
    }
    if (v->kind != V_TUPLE)
        return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                    "a shape must be an integer or a tuple of integers, not %s", kind_text(v));
    if (v->n > LOOM_MAX_DIMS)
        return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                    "a shape of %d axes (loom allows at most %d)", (int)v->n, LOOM_MAX_DIMS);
    for (int32_t i = 0; i < v->n; i++) {
        const value_t *e = &v->items[i];
        if (e->kind != V_INT || e->i < INT64_MIN || e->i > INT64_MAX)
            return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                        "a shape must hold integers; item %d is %s", (int)i, kind_text(e));
        shape[i] = (int64_t)e->i;
    }
    *ndim = v->n;
    return true;
}

static bool get_number(parser_t *P, const bound_t *b, int slot, double dflt, double *out) {
    if (!b->given[slot] || b->v[slot].kind == V_NONE) {
        *out = dflt;
        return true;
    }
    if (!is_num(&b->v[slot]))
        return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT, "'%s' must be a number, not %s",
                    b->names[slot], kind_text(&b->v[slot]));
    *out = num_f(&b->v[slot]);
    return true;
}

/* Whether a Python int fits integer dtype d (np.full refuses what does not). */
static bool int_fits(i128 v, loom_dtype_t d) {
    size_t bits = 8 * loom_dtype_size(d);
    if (d == LOOM_DTYPE_BOOL) return true;
    if (d >= LOOM_DTYPE_U8 && d <= LOOM_DTYPE_U64) return v >= 0 && v < ((i128)1 << bits);
    return v >= -((i128)1 << (bits - 1)) && v < ((i128)1 << (bits - 1));
}

/* The slot of parameter name in b, or -1 when f's signature has none. */
static int slot_of(const bound_t *b, const char *name) {
    return param_index(b, name, (int32_t)strlen(name));
}

/* dtype= of a reduction or scan: *d the dtype NumPy accumulates in and returns (-1: not
 * given), x cast to it first (any cast, as NumPy's reductions take: sum(x, dtype='int32') of
 * floats truncates each element). */
static bool reduce_dtype(parser_t *P, const bound_t *b, loom_array_t **x, int *d) {
    int k = slot_of(b, "dtype");
    *d = -1;
    if (k < 0 || !b->given[k] || b->v[k].kind == V_NONE) return true;
    loom_dtype_t to;
    if (!get_dtype(P, b, k, 0, &to)) return false;
    *x = loom_astype(P->ctx, *x, to);
    *d = (int)to;
    return !loom_array_is_nil(*x) || lib_fail(P, b->pos[k]);
}

/* An argument NumPy accepts but loom does not evaluate yet (dtype=, out=): only None passes. */
static bool refuse_given(parser_t *P, const func_t *f, const bound_t *b, const char *name) {
    int k = slot_of(b, name);
    if (k < 0 || !b->given[k] || b->v[k].kind == V_NONE) return true;
    return perr(P, b->pos[k], LOOM_STATUS_NOT_AVAILABLE, "%s(): '%s=' is not supported yet",
                f->name, name);
}

/* The array an argument stands for: numbers become strong 0-d arrays, as np.asarray makes. */
static loom_array_t *arg_array(parser_t *P, const value_t *v, int32_t pos) {
    if (v->kind == V_TUPLE) { /* a rectangular list of numbers, as np.asarray takes it */
        loom_array_t *a = list_array(P, v, pos);
        if (a) return a;
    }
    if (v->kind != V_ARRAY && v->kind != V_COMPLEX && !is_num(v)) {
        perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
             "the argument must be an array or a number, "
             "not %s",
             kind_text(v));
        return &P->ctx->nil;
    }
    return as_output(P, v, pos);
}

/* One axis: a Python int (bool is refused, as NumPy does). */
static bool axis_value(parser_t *P, const value_t *v, int32_t pos, const char *what, int32_t *out) {
    if (v->kind != V_INT)
        return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT, "'%s' must hold integers, not %s", what,
                    kind_text(v));
    if (v->i < INT32_MIN + 1 || v->i > INT32_MAX) {
        char t[48];
        i128_text(v->i, t, sizeof t);
        return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT, "axis %s is out of bounds", t);
    }
    *out = (int32_t)v->i;
    return true;
}

/* An axis argument: None or absent (*naxes -1: all axes), an int, or (tuple_ok) a tuple of
 * ints. */
static bool get_axes(parser_t *P, const bound_t *b, int slot, bool tuple_ok, int32_t *naxes,
                     int32_t *axes) {
    *naxes = -1;
    if (slot < 0 || !b->given[slot] || b->v[slot].kind == V_NONE) return true;
    const value_t *v = &b->v[slot];
    if (v->kind == V_TUPLE && tuple_ok) {
        if (v->n > LOOM_MAX_DIMS)
            return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                        "'%s' holds %d axes (loom allows at most %d)", b->names[slot], (int)v->n,
                        LOOM_MAX_DIMS);
        for (int32_t i = 0; i < v->n; i++)
            if (!axis_value(P, &v->items[i], b->pos[slot], b->names[slot], &axes[i])) return false;
        *naxes = v->n;
        return true;
    }
    if (v->kind != V_INT)
        return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                    "'%s' must be None, an integer%s, not %s", b->names[slot],
                    tuple_ok ? " or a tuple of integers" : "", kind_text(v));
    *naxes = 1;
    return axis_value(P, v, b->pos[slot], b->names[slot], &axes[0]);
}

/* A string argument naming one of n choices (mode=, method=, casting=...): its index, dflt
 * when absent or None, -1 for anything else (the caller says which choices there are). */
static int choice_arg(parser_t *P, const bound_t *b, int slot, const char *const *names, int n,
                      int dflt) {
    if (slot < 0 || !b->given[slot] || b->v[slot].kind == V_NONE) return dflt;
    const value_t *v = &b->v[slot];
    for (int i = 0; v->kind == V_STR && i < n; i++)
        if ((size_t)v->tlen == strlen(names[i]) &&
            !strncmp(P->src + v->tpos, names[i], (size_t)v->tlen))
            return i;
    return -1;
}

/* numpy.fft's transforms: 0-5 the 1-D ones, 6-9 the n-D ones (fft2 and the like are those
 * over (-2, -1)), or -1. */
static int fft_kind(const char *n) {
    static const struct {
        const char *name;
        int kind;
    } names[] = {{"fft", 0},   {"ifft", 1},  {"rfft", 2},  {"irfft", 3},   {"hfft", 4},
                 {"ihfft", 5}, {"fftn", 6},  {"ifftn", 7}, {"rfftn", 8},   {"irfftn", 9},
                 {"fft2", 6},  {"ifft2", 7}, {"rfft2", 8},  {"irfft2", 9}};
    for (size_t i = 0; i < BASE_ARRAY_LEN(names); i++)
        if (!strcmp(n, names[i].name)) return names[i].kind;
    return -1;
}

/* np.fft.NAME(a, n, axis, norm) or NAME(a, s, axes, norm). */
static bool fft_call(parser_t *P, const bound_t *b, const char *n, loom_array_t *a,
                     loom_array_t **r) {
    typedef loom_array_t *(*fft1_fn)(loom_ctx_t *, loom_array_t *, int64_t, int32_t,
                                     loom_fft_norm_t);
    typedef loom_array_t *(*fftn_fn)(loom_ctx_t *, loom_array_t *, int32_t, const int64_t *,
                                     const int32_t *, loom_fft_norm_t);
    static const fft1_fn one[] = {loom_fft, loom_ifft, loom_rfft, loom_irfft, loom_hfft, loom_ihfft};
    static const fftn_fn many[] = {loom_fftn, loom_ifftn, loom_rfftn, loom_irfftn};
    static const char *const norms[] = {"backward", "ortho", "forward"};
    int kind = fft_kind(n);
    int nm = choice_arg(P, b, 3, norms, 3, LOOM_FFT_BACKWARD);
    if (nm < 0)
        return perr(P, b->pos[3], LOOM_STATUS_INVALID_ARGUMENT,
                    "%s: Invalid norm value; should be \"backward\", \"ortho\" or \"forward\".",
                    n);
    if (kind < 6) {
        int64_t pts = LOOM_NONE, ax = -1;
        if (!get_int(P, b, 1, LOOM_NONE, &pts) || !get_int(P, b, 2, -1, &ax)) return false;
        *r = one[kind](P->ctx, a, pts, ax > INT32_MAX || ax < -INT32_MAX ? INT32_MAX : (int32_t)ax,
                       (loom_fft_norm_t)nm);
        return true;
    }
    int32_t nd = 0, naxes, axes[LOOM_MAX_DIMS];
    int64_t s[LOOM_MAX_DIMS];
    bool has_s = b->given[1] && b->v[1].kind != V_NONE;
    if (has_s && !get_shape(P, b, 1, &nd, s)) return false;
    if (!get_axes(P, b, 2, true, &naxes, axes)) return false;
    if (naxes < 0 && n[strlen(n) - 1] == '2') { /* fft2 and the like */
        naxes = 2;
        axes[0] = -2, axes[1] = -1;
    }
    if (naxes >= 0 && has_s && nd != naxes)
        return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                    "%s: Shape and axes have different lengths.", n);
    int32_t m = naxes >= 0 ? naxes : has_s ? nd : 0;
    *r = many[kind - 6](P->ctx, a, m, has_s ? s : NULL, naxes >= 0 ? axes : NULL,
                        (loom_fft_norm_t)nm);
    return true;
}

/* A norm's order argument (norm's ord=, cond's p=): absent or None leaves *kind and *p; a
 * number is LOOM_NORM_ORD; 'fro'/'f' and 'nuc' only where matrices are normed. */
static bool norm_order(parser_t *P, const bound_t *b, int slot, const char *fn, bool matrices,
                       loom_norm_t *kind, double *p) {
    const value_t *o = &b->v[slot];
    if (!b->given[slot] || o->kind == V_NONE) return true;
    if (o->kind == V_STR) {
        static const char *const names[] = {"fro", "f", "nuc"};
        int c = choice_arg(P, b, slot, names, 3, 0);
        if (c < 0 || !matrices)
            return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: Invalid norm order for %s", fn, matrices ? "matrices" : "vectors");
        *kind = c == 2 ? LOOM_NORM_NUC : LOOM_NORM_FRO;
        return true;
    }
    if (!is_num(o))
        return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                    "%s: ord must be a number, inf, 'fro' or 'nuc'", fn);
    *kind = LOOM_NORM_ORD;
    *p = num_f(o);
    return true;
}

/* take's and choose's mode=, in loom_take_mode_t order. */
static const char *const take_modes[] = {"raise", "wrap", "clip"};

/* keepdims: a Python bool or int (absent: False). */
static bool get_flag(parser_t *P, const bound_t *b, int slot, int *out) {
    int64_t k = 0;
    if (slot >= 0 && !get_int(P, b, slot, 0, &k)) return false;
    *out = k != 0;
    return true;
}

/* The dtype a data-type function's argument names: a dtype, its name, or an array's. */
static bool dtype_arg(parser_t *P, const bound_t *b, int slot, loom_dtype_t *d) {
    if (b->v[slot].kind == V_ARRAY) {
        *d = loom_array_dtype(b->v[slot].a);
        return true;
    }
    return get_dtype(P, b, slot, LOOM_DTYPE_F64, d);
}

/* can_cast, isdtype, finfo, iinfo, result_type: values about dtypes, not arrays (*r NULL). */
static bool dtype_call(parser_t *P, const func_t *f, const bound_t *b, loom_array_t **r,
                       value_t *out) {
    const char *n = f->name;
    loom_dtype_t d, e;
    *r = NULL;
    if (!strcmp(n, "result_type")) { /* NEP 50 over arrays, dtypes and Python numbers */
        loom_array_t *ops[4];
        int32_t m = 0;
        for (; m < 4 && b->given[m]; m++) {
            const value_t *v = &b->v[m];
            if (v->kind == V_DTYPE || v->kind == V_STR) {
                if (!get_dtype(P, b, m, LOOM_DTYPE_F64, &d)) return false;
                ops[m] = loom_zeros(P->ctx, d, 0, NULL);
            } else {
                ops[m] = as_array(P, v, b->pos[m], "an argument");
            }
            if (loom_array_is_nil(ops[m])) return false;
        }
        int rt = fe_result_type(P->ctx, "result_type", m, ops);
        if (rt < 0) return lib_fail(P, b->pos[0]);
        *out = (value_t){.kind = V_DTYPE, .dtype = rt};
        return true;
    }
    if (strcmp(n, "can_cast") && b->v[0].kind == V_ARRAY) /* NumPy 2 takes only dtypes here */
        return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                    "%s: the argument must be a dtype, not an array (use x.dtype)", n);
    if (!dtype_arg(P, b, 0, &d)) return false;
    if (!strcmp(n, "finfo") || !strcmp(n, "iinfo")) {
        loom_finfo_t fi;
        loom_iinfo_t ii;
        if (n[0] == 'f' ? loom_finfo(d, &fi) != 0 : loom_iinfo(d, &ii) != 0)
            return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT, "%s: %s is not %s dtype", n,
                        loom_dtype_name(d), n[0] == 'f' ? "a float" : "an integer");
        /* np.finfo(complex64) describes float32, and its values are float32 */
        *out = (value_t){.kind = V_INFO, .dtype = (int)ir_real_dtype(d)};
        return true;
    }
    if (!strcmp(n, "isdtype")) {
        const value_t *k = &b->v[1];
        int32_t nk = k->kind == V_TUPLE ? k->n : 1;
        bool any = false;
        for (int32_t i = 0; i < nk; i++) {
            const value_t *ki = k->kind == V_TUPLE ? &k->items[i] : k;
            if (ki->kind == V_DTYPE) { /* a dtype in the tuple: equality */
                any = any || ki->dtype == (int)d;
                continue;
            }
            char name[32];
            if (ki->kind != V_STR || ki->tlen >= (int32_t)sizeof name)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "isdtype: kind must be a kind name, a dtype or a tuple of them");
            memcpy(name, P->src + ki->tpos, (size_t)ki->tlen);
            name[ki->tlen] = '\0';
            int yes = loom_isdtype(d, name);
            if (yes < 0)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "isdtype: kind argument must be 'bool', 'signed integer', 'unsigned "
                            "integer', 'integral', 'real floating', 'complex floating' or "
                            "'numeric', not '%s'",
                            name);
            any = any || yes;
        }
        *out = mk_bool(any);
        return true;
    }
    /* can_cast */
    if (b->v[0].kind != V_ARRAY && b->v[0].kind != V_DTYPE && b->v[0].kind != V_STR)
        return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                    "can_cast: from_ must be an array or a dtype, not %s (NumPy 2)",
                    kind_text(&b->v[0]));
    if (!dtype_arg(P, b, 1, &e)) return false;
    static const char *const castings[] = {"no", "equiv", "safe", "same_kind", "unsafe"};
    int c = choice_arg(P, b, 2, castings, 5, LOOM_CASTING_SAFE);
    if (c < 0)
        return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                    "can_cast: casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                    "'unsafe'");
    *out = mk_bool(loom_can_cast(d, e, (loom_casting_t)c) == 1);
    return true;
}

/* The functions of manip.c (F_MANIP), by name: the arguments bound in b, the result in *r. */
/* A tolerance given as an array or a list (pinv's rcond and rtol, matrix_rank's tol and rtol):
 * *t that array, or NULL when argument k is absent, None or a number. */
static bool tol_array(parser_t *P, const bound_t *b, int k, loom_array_t **t) {
    *t = NULL;
    if (!b->given[k] || (b->v[k].kind != V_ARRAY && b->v[k].kind != V_TUPLE)) return true;
    *t = as_array(P, &b->v[k], b->pos[k], b->names[k]);
    return !loom_array_is_nil(*t);
}

/* A real number argument NumPy takes through float() (the window functions' M and beta): a
 * Python number, or a real 0-d array, read back (one sync). */
static bool get_real(parser_t *P, const bound_t *b, int slot, const char *fn, double *out) {
    const value_t *v = &b->v[slot];
    if (v->kind == V_ARRAY && loom_array_ndim(v->a) == 0 &&
        !ir_is_complex(loom_array_dtype(v->a))) {
        loom_array_t *d = loom_astype(P->ctx, v->a, LOOM_DTYPE_F64);
        if (loom_read(P->ctx, d, out, sizeof *out) != LOOM_STATUS_OK)
            return lib_fail(P, b->pos[slot]);
        return true;
    }
    if (!is_num(v))
        return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                    "%s: %s must be a real number, not %s", fn, b->names[slot], kind_text(v));
    return get_number(P, b, slot, 0, out);
}

/* np.pad's _as_pairs: a number, (both,), (before, after), ((before, after),) or one pair for
 * each of nd axes (tuples, lists or an array: NumPy's broadcast to (nd, 2)) into out[2 nd];
 * as_index: rounded to integers, none negative (stat_length). */
static bool pad_pairs(parser_t *P, const bound_t *b, int slot, int32_t nd, bool as_index,
                      double *out) {
    const value_t *v = &b->v[slot];
    double x[2 * LOOM_MAX_DIMS];
    int32_t rows = 0, cols = 0, dims = 0;
    if (v->kind == V_ARRAY) {
        loom_array_t *a = v->a;
        dims = loom_array_ndim(a);
        rows = dims == 2 ? (int32_t)loom_array_dim(a, 0) : 1;
        cols = dims == 0 ? 1 : (int32_t)loom_array_dim(a, dims - 1);
        if (dims > 2 || ir_is_complex(loom_array_dtype(a)) || rows * cols > 2 * LOOM_MAX_DIMS ||
            rows * cols < 1)
            goto bad;
        if (loom_read(P->ctx, loom_astype(P->ctx, a, LOOM_DTYPE_F64), x,
                      sizeof *x * (size_t)(rows * cols)) != LOOM_STATUS_OK)
            return lib_fail(P, b->pos[slot]);
    } else if (is_num(v)) {
        rows = cols = 1;
        x[0] = num_f(v);
    } else if (v->kind == V_TUPLE && v->n >= 1 && v->n <= 2 * LOOM_MAX_DIMS) {
        bool nested = v->items[0].kind == V_TUPLE;
        dims = nested ? 2 : 1;
        rows = nested ? v->n : 1;
        cols = nested ? v->items[0].n : v->n;
        if (cols < 1 || rows * cols > 2 * LOOM_MAX_DIMS) goto bad;
        for (int32_t r = 0; r < rows; r++) {
            const value_t *row = nested ? &v->items[r] : v;
            if (row->kind != V_TUPLE || row->n != cols) goto bad;
            for (int32_t c = 0; c < cols; c++) {
                if (!is_num(&row->items[c])) goto bad;
                x[r * cols + c] = num_f(&row->items[c]);
            }
        }
    } else {
        goto bad;
    }
    int32_t size = rows * cols;
    for (int32_t k = 0; k < size; k++) {
        if (as_index) x[k] = nearbyint(x[k]);
        if (as_index && x[k] < 0)
            return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                        "pad: index can't contain negative values");
    }
    bool flat = size == 1 || (size == 2 && !(rows == 2 && cols == 1));
    if (!flat && ((rows != 1 && rows != nd) || (cols != 1 && cols != 2)))
        return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                    "pad: %s of shape (%d, %d) does not broadcast to (%d, 2)", b->names[slot],
                    (int)rows, (int)cols, (int)nd);
    for (int32_t ax = 0; ax < nd; ax++)
        for (int32_t e = 0; e < 2; e++)
            out[2 * ax + e] =
                flat ? x[size == 1 ? 0 : e] : x[(rows == 1 ? 0 : ax) * cols + (cols == 1 ? 0 : e)];
    return true;
bad:
    return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                "pad: %s must be a number or (before, after) pairs of numbers, one for each axis",
                b->names[slot]);
}

static bool manip_call(parser_t *P, const func_t *f, const bound_t *b, loom_array_t **r,
                       value_t *out) {
    loom_ctx_t *ctx = P->ctx;
    const char *n = f->name;
#define AX32(v) ((v) > INT32_MAX || (v) < -INT32_MAX ? INT32_MAX : (int32_t)(v)) /* fe_axis refuses */
    if (!strcmp(n, "can_cast") || !strcmp(n, "isdtype") || !strcmp(n, "finfo") ||
        !strcmp(n, "iinfo") || !strcmp(n, "result_type"))
        return dtype_call(P, f, b, r, out);
    if (!strcmp(n, "iscomplexobj") || !strcmp(n, "isrealobj")) { /* of the dtype alone */
        const value_t *v = &b->v[0];
        bool c = v->kind == V_COMPLEX ||
                 (v->kind == V_ARRAY && ir_is_complex(loom_array_dtype(v->a)));
        *r = NULL;
        *out = mk_bool(c == (n[2] == 'c'));
        return true;
    }
    if (!strcmp(n, "select")) {
        const value_t *cl = &b->v[0], *ch = &b->v[1];
        if (cl->kind != V_TUPLE || ch->kind != V_TUPLE || cl->n != ch->n || cl->n < 1 || cl->n > 64)
            return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                        "select: condlist and choicelist must be lists of the same length (1 to 64)");
        loom_array_t *cs[64], *vs[64], *d = NULL;
        for (int32_t i = 0; i < cl->n; i++)
            if (loom_array_is_nil(cs[i] = arg_array(P, &cl->items[i], b->pos[0])) ||
                loom_array_is_nil(vs[i] = as_array(P, &ch->items[i], b->pos[1], "a choice")))
                return false;
        if (b->given[2] && loom_array_is_nil(d = as_array(P, &b->v[2], b->pos[2], "default")))
            return false;
        *r = loom_select(ctx, cl->n, cs, vs, d);
        if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
        return true;
    }
    if (!strcmp(n, "multi_dot")) {
        const value_t *v = &b->v[0];
        if (v->kind != V_TUPLE || v->n < 2 || v->n > 64)
            return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                        "multi_dot: arrays must be a list or tuple of 2 to 64 arrays");
        loom_array_t *xs[64];
        for (int32_t i = 0; i < v->n; i++)
            if (loom_array_is_nil(xs[i] = arg_array(P, &v->items[i], b->pos[0]))) return false;
        if (!refuse_given(P, f, b, "out")) return false;
        *r = loom_multi_dot(ctx, v->n, xs);
        if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
        return true;
    }
    if (!strcmp(n, "einsum")) {
        if (b->v[0].kind != V_STR || b->v[0].tlen > 255)
            return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                        "einsum: the subscripts must be a string (of at most 255 characters)");
        char subs[256];
        memcpy(subs, P->src + b->v[0].tpos, (size_t)b->v[0].tlen);
        subs[b->v[0].tlen] = 0;
        loom_array_t *ops[6];
        int32_t m = 0;
        for (; m < 6 && b->given[1 + m] && b->v[1 + m].kind != V_NONE; m++)
            if (loom_array_is_nil(ops[m] = as_array(P, &b->v[1 + m], b->pos[1 + m], "an operand")))
                return false;
        int opt = 0;
        if (b->given[7] && b->v[7].kind == V_STR)
            opt = 1; /* 'greedy' and 'optimal' both take the greedy order */
        else if (!get_flag(P, b, 7, &opt))
            return false;
        *r = loom_einsum(ctx, subs, m, ops, opt);
        if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
        return true;
    }
    if (!strcmp(n, "fftfreq") || !strcmp(n, "rfftfreq")) { /* a length, not an array */
        int64_t len;
        double d;
        if (b->v[0].kind != V_INT)
            return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT, "%s: n must be an integer", n);
        if (!get_int(P, b, 0, 0, &len) || !get_number(P, b, 1, 1.0, &d)) return false;
        *r = n[0] == 'f' ? loom_fftfreq(ctx, len, d) : loom_rfftfreq(ctx, len, d);
        if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
        return true;
    }
    if (!strcmp(n, "logspace") || !strcmp(n, "geomspace")) { /* numbers, not arrays */
        bool lg = n[0] == 'l';
        double start, stop, base = 10.0;
        int64_t num, endpoint, axis;
        loom_dtype_t d;
        int dslot = lg ? 5 : 4;
        if (!get_number(P, b, 0, 0, &start) || !get_number(P, b, 1, 0, &stop) ||
            !get_int(P, b, 2, 50, &num) || !get_int(P, b, 3, 1, &endpoint) ||
            (lg && !get_number(P, b, 4, 10.0, &base)) ||
            !get_dtype(P, b, dslot, LOOM_DTYPE_F64, &d) || !get_int(P, b, dslot + 1, 0, &axis))
            return false;
        if (num < 0)
            return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: number of samples, %lld, must be non-negative", n, (long long)num);
        if (axis != 0 && axis != -1) /* scalar ends: one axis */
            return perr(P, b->pos[dslot + 1], LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: axis %lld is out of bounds for array of dimension 1", n,
                        (long long)axis);
        *r = lg ? loom_logspace(ctx, start, stop, num, endpoint != 0, base, d)
                : loom_geomspace(ctx, start, stop, num, endpoint != 0, d);
        if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
        return true;
    }
    if (!strcmp(n, "tri") || !strcmp(n, "indices")) { /* shapes, not arrays */
        loom_dtype_t d;
        if (n[0] == 't') {
            int64_t rows, cols, kk;
            if (!get_int(P, b, 0, 0, &rows) || !get_int(P, b, 1, -1, &cols) ||
                !get_int(P, b, 2, 0, &kk) || !get_dtype(P, b, 3, LOOM_DTYPE_F64, &d))
                return false;
            if (!b->given[1] || b->v[1].kind == V_NONE) cols = rows;
            *r = loom_tri(ctx, rows, cols, kk, d);
        } else {
            int32_t nd;
            int64_t dims[LOOM_MAX_DIMS];
            if (!get_shape(P, b, 0, &nd, dims) || !get_dtype(P, b, 1, LOOM_DTYPE_I64, &d))
                return false;
            if (!refuse_given(P, f, b, "sparse")) return false;
            *r = loom_indices(ctx, nd, dims, d);
        }
        if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
        return true;
    }
    if (!strcmp(n, "broadcast_arrays") || !strcmp(n, "meshgrid")) { /* (*arrays) */
        const value_t *v = &b->v[0];
        int32_t m = b->given[0] ? v->n : 0;
        loom_array_t **xs = base_arena_alloc(&P->arena, (size_t)(2 * m + 1), sizeof *xs);
        if (!xs) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        for (int32_t i = 0; i < m; i++)
            if (loom_array_is_nil(xs[i] = as_array(P, &v->items[i], b->var_pos[i], "an argument")))
                return false;
        loom_status_t st;
        if (n[0] == 'b') {
            st = loom_broadcast_arrays(ctx, m, xs, xs + m);
        } else {
            static const char *const indexing[] = {"xy", "ij"};
            int ij = choice_arg(P, b, 1, indexing, 2, 0);
            if (ij < 0)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "meshgrid: valid values for `indexing` are 'xy' and 'ij'");
            st = loom_meshgrid(ctx, m, xs, ij, xs + m);
        }
        if (st != LOOM_STATUS_OK) return lib_fail(P, b->pos[0]);
        *r = NULL;
        return array_tuple(P, m, xs + m, b->pos[0], out);
    }
    loom_array_t *a = arg_array(P, &b->v[0], b->pos[0]);
    if (loom_array_is_nil(a)) return false;
    int64_t k = 0, i1 = 0, i2 = 1;
    int32_t naxes, axes[LOOM_MAX_DIMS];
    if (!strcmp(n, "ediff1d")) {
        loom_array_t *ends[2] = {NULL, NULL}; /* to_end, to_begin */
        for (int i = 0; i < 2; i++)
            if (b->given[1 + i] && b->v[1 + i].kind != V_NONE &&
                loom_array_is_nil(ends[i] = as_array(P, &b->v[1 + i], b->pos[1 + i], "an end")))
                return false;
        *r = loom_ediff1d(ctx, a, ends[1], ends[0]);
    } else if (!strcmp(n, "pad")) {
        /* pad_width: w, (w,), (before, after), or one of those per axis */
        int32_t nd = loom_array_ndim(a);
        int64_t widths[2 * LOOM_MAX_DIMS];
        const value_t *pw = &b->v[1];
        bool per_axis = pw->kind == V_TUPLE && pw->n > 0 && pw->items[0].kind == V_TUPLE;
        /* (a 0-d array's widths are checked too, as NumPy's: one axis's worth) */
        for (int32_t ax = 0, want = nd ? nd : 1; ax < want; ax++) {
            const value_t *w = per_axis ? (pw->n == want ? &pw->items[ax]
                                           : pw->n == 1  ? &pw->items[0]
                                                         : NULL)
                                        : pw;
            if (!w)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "pad: %d pad widths for an array of %d dimensions", (int)pw->n, (int)nd);
            const value_t *lo = w, *hi = w;
            if (w->kind == V_TUPLE) {
                if (w->n < 1 || w->n > 2)
                    return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                                "pad: a pad width is (before, after), (both,) or a number");
                lo = &w->items[0];
                hi = &w->items[w->n - 1];
            }
            if (lo->kind != V_INT || hi->kind != V_INT || lo->i < 0 || hi->i < 0 ||
                lo->i > INT64_MAX / 8 || hi->i > INT64_MAX / 8)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "pad: pad widths must be non-negative integers");
            if (ax == nd) break;
            widths[2 * ax] = (int64_t)lo->i;
            widths[2 * ax + 1] = (int64_t)hi->i;
        }
        static const char *const modes[] = {"constant", "edge",        "reflect", "symmetric",
                                            "wrap",     "maximum",     "minimum", "mean",
                                            "median",   "linear_ramp", "empty"};
        int m = choice_arg(P, b, 2, modes, 11, LOOM_PAD_CONSTANT);
        if (m < 0)
            return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                        "pad: mode '%.*s' is not supported",
                        b->v[2].kind == V_STR ? (int)(b->v[2].tlen > 40 ? 40 : b->v[2].tlen) : 0,
                        P->src + (b->v[2].kind == V_STR ? b->v[2].tpos : 0));
        /* NumPy's keywords of each mode: constant_values, end_values, stat_length,
         * reflect_type (slots 3 to 6); another one given is an error */
        bool stat = m >= LOOM_PAD_MAXIMUM && m <= LOOM_PAD_MEDIAN;
        bool allowed[4] = {m == LOOM_PAD_CONSTANT, m == LOOM_PAD_LINEAR_RAMP, stat,
                           m == LOOM_PAD_REFLECT || m == LOOM_PAD_SYMMETRIC};
        for (int s = 0; s < 4; s++)
            if (b->given[3 + s] && !allowed[s])
                return perr(P, b->pos[3 + s], LOOM_STATUS_INVALID_ARGUMENT,
                            "pad: unsupported keyword arguments for mode '%s': {'%s'}", modes[m],
                            b->names[3 + s]);
        double vals[2 * LOOM_MAX_DIMS] = {0}, lens[2 * LOOM_MAX_DIMS];
        int64_t stat_len[2 * LOOM_MAX_DIMS];
        int vslot = m == LOOM_PAD_LINEAR_RAMP ? 4 : 3;
        if (b->given[vslot] && !pad_pairs(P, b, vslot, nd, false, vals)) return false;
        bool has_len = b->given[5] && b->v[5].kind != V_NONE;
        if (has_len) {
            if (!pad_pairs(P, b, 5, nd, true, lens)) return false;
            for (int32_t q = 0; q < 2 * nd; q++) stat_len[q] = (int64_t)lens[q];
        }
        int odd = 0;
        if (b->given[6]) {
            static const char *const types[] = {"even", "odd"};
            odd = choice_arg(P, b, 6, types, 2, 0);
            if (odd < 0)
                return perr(P, b->pos[6], LOOM_STATUS_INVALID_ARGUMENT,
                            "pad: reflect_type must be 'even' or 'odd'");
        }
        *r = loom_pad_ex(ctx, a, widths, (loom_pad_mode_t)m, vals, has_len ? stat_len : NULL, odd);
    } else if (strlen(n) > 5 && !strcmp(n + strlen(n) - 5, "_like")) {
        int slot = n[0] == 'f' ? 2 : 1;
        double v = n[0] == 'o' ? 1 : 0;
        int d = -1;
        if (b->given[slot] && b->v[slot].kind != V_NONE) {
            loom_dtype_t dd;
            if (!get_dtype(P, b, slot, LOOM_DTYPE_F64, &dd)) return false;
            d = (int)dd;
        }
        if (n[0] == 'f' && b->v[1].kind == V_COMPLEX) { /* a real dtype takes the real part */
            loom_dtype_t t = d >= 0 ? (loom_dtype_t)d : loom_array_dtype(a);
            int32_t nd = loom_array_ndim(a);
            int64_t shape[LOOM_MAX_DIMS];
            for (int32_t i = 0; i < nd; i++) shape[i] = loom_array_dim(a, i);
            /* (into bool: whether either part is nonzero, as NumPy's cast) */
            const value_t *c = &b->v[1];
            *r = ir_is_complex(t)       ? loom_full_complex(ctx, t, nd, shape, c->f, c->fi)
                 : t == LOOM_DTYPE_BOOL ? loom_full(ctx, t, nd, shape, c->f || c->fi)
                                        : loom_full(ctx, t, nd, shape, c->f);
            return true;
        }
        if (n[0] == 'f') {
            if (!is_num(&b->v[1]))
                return perr(P, b->pos[1], LOOM_STATUS_NOT_AVAILABLE,
                            "full_like: fill_value must be a number");
            const value_t *fill = &b->v[1];
            loom_dtype_t t = d >= 0 ? (loom_dtype_t)d : loom_array_dtype(a);
            if (fill->kind == V_INT && ir_is_int(t)) {
                /* an integer exactly (not through a double), refused where it does not fit,
                 * as NumPy's full_like does */
                if (!int_fits(fill->i, t)) {
                    char txt[48];
                    i128_text(fill->i, txt, sizeof txt);
                    return perr(P, b->pos[1], LOOM_STATUS_OVERFLOW,
                                "Python integer %s out of bounds for %s", txt, loom_dtype_name(t));
                }
                int32_t nd = loom_array_ndim(a);
                int64_t shape[LOOM_MAX_DIMS];
                for (int32_t i = 0; i < nd; i++) shape[i] = loom_array_dim(a, i);
                *r = loom_full_int(ctx, t, nd, shape, (int64_t)(uint64_t)fill->i);
                return true;
            }
            if (!get_number(P, b, 1, 0, &v)) return false;
        }
        *r = loom_full_like(ctx, a, v, d);
    } else if (!strcmp(n, "outer") || !strcmp(n, "inner") || !strcmp(n, "kron") ||
               !strcmp(n, "vecdot")) {
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], "the second operand");
        if (loom_array_is_nil(c) || (n[0] == 'v' && !get_int(P, b, 2, -1, &k))) return false;
        *r = n[0] == 'o'   ? loom_outer(ctx, a, c)
             : n[0] == 'i' ? loom_inner(ctx, a, c)
             : n[0] == 'k' ? loom_kron(ctx, a, c)
                           : loom_vecdot(ctx, a, c, AX32(k));
    } else if ((!strcmp(n, "split") || !strcmp(n, "array_split")) && b->v[1].kind == V_TUPLE) {
        const value_t *v = &b->v[1]; /* split points */
        if (v->n > 4095)
            return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT, "%s: at most 4095 split points", n);
        int64_t *at = base_arena_alloc(&P->arena, (size_t)(v->n ? v->n : 1), sizeof *at);
        loom_array_t **outs = base_arena_alloc(&P->arena, (size_t)v->n + 1, sizeof *outs);
        if (!at || !outs) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        for (int32_t i = 0; i < v->n; i++) {
            if (v->items[i].kind != V_INT)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT, "%s: split points must be integers", n);
            at[i] = (int64_t)v->items[i].i;
        }
        if (!get_int(P, b, 2, 0, &i1)) return false;
        if (loom_split_at(ctx, a, v->n, at, AX32(i1), outs) != LOOM_STATUS_OK) return lib_fail(P, b->pos[0]);
        *r = NULL;
        return array_tuple(P, v->n + 1, outs, b->pos[0], out);
    } else if (!strcmp(n, "split") || !strcmp(n, "array_split")) {
        if (b->v[1].kind != V_INT)
            return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: indices_or_sections must be a number of sections or a list of split points", n);
        if (!get_int(P, b, 1, 1, &k) || !get_int(P, b, 2, 0, &i1)) return false;
        if (k <= 0 || k > 4096)
            return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: number sections must be in 1..4096 (%lld)", n, (long long)k);
        loom_array_t **outs = base_arena_alloc(&P->arena, (size_t)k, sizeof *outs);
        if (!outs) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        if (loom_array_split(ctx, a, k, AX32(i1), n[0] == 's', outs) != LOOM_STATUS_OK)
            return lib_fail(P, b->pos[0]);
        *r = NULL;
        return array_tuple(P, (int32_t)k, outs, b->pos[0], out);
    } else if (!strcmp(n, "cov") || !strcmp(n, "corrcoef")) {
        loom_array_t *y = NULL;
        int64_t rowvar = 1, bias = 0;
        double ddof = NAN;
        if (b->given[1] && b->v[1].kind != V_NONE &&
            loom_array_is_nil(y = as_array(P, &b->v[1], b->pos[1], "y")))
            return false;
        if (!get_int(P, b, 2, 1, &rowvar) || !refuse_given(P, f, b, "dtype")) return false;
        if (n[2] == 'v') { /* cov */
            if (!get_int(P, b, 3, 0, &bias) || !refuse_given(P, f, b, "fweights") ||
                !refuse_given(P, f, b, "aweights"))
                return false;
            if (b->given[4] && b->v[4].kind != V_NONE && !get_number(P, b, 4, 1, &ddof))
                return false;
            *r = loom_cov(ctx, a, y, rowvar != 0, bias != 0, ddof);
        } else {
            *r = loom_corrcoef(ctx, a, y, rowvar != 0);
        }
    } else if (!strcmp(n, "average")) {
        int keep, ret;
        loom_array_t *w = NULL, *sw = NULL;
        if (!get_axes(P, b, 1, false, &naxes, axes) || !get_flag(P, b, 3, &ret) ||
            !get_flag(P, b, 4, &keep))
            return false;
        if (b->given[2] && b->v[2].kind != V_NONE &&
            loom_array_is_nil(w = as_array(P, &b->v[2], b->pos[2], "the weights")))
            return false;
        *r = loom_average(ctx, a, naxes < 0 ? LOOM_AXIS_NONE : axes[0], w, keep, ret ? &sw : NULL);
        if (ret && !loom_array_is_nil(*r)) { /* returned=True: (average, sum of weights) */
            loom_array_t *pair[2] = {*r, sw};
            *r = NULL;
            return array_tuple(P, 2, pair, b->pos[0], out);
        }
    } else if (!strcmp(n, "norm") || !strcmp(n, "vector_norm") || !strcmp(n, "matrix_norm")) {
        int oslot = n[0] == 'n' ? 1 : n[0] == 'v' ? 3 : 2, keep;
        int kslot = n[0] == 'n' ? 3 : n[0] == 'v' ? 2 : 1;
        loom_norm_t kind = n[0] == 'n' ? LOOM_NORM_DEFAULT : n[0] == 'v' ? LOOM_NORM_ORD : LOOM_NORM_FRO;
        double p = 2;
        if (!norm_order(P, b, oslot, n, n[0] != 'v', &kind, &p)) return false;
        if (!get_flag(P, b, kslot, &keep)) return false;
        if (n[0] == 'm') {
            *r = loom_matrix_norm(ctx, a, keep, kind, p);
        } else {
            if (!get_axes(P, b, n[0] == 'n' ? 2 : 1, true, &naxes, axes)) return false;
            *r = n[0] == 'n' ? loom_norm(ctx, a, kind, p, naxes, naxes < 0 ? NULL : axes, keep)
                             : loom_vector_norm(ctx, a, naxes, naxes < 0 ? NULL : axes, keep, p);
        }
    } else if (!strcmp(n, "cross")) {
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], "b");
        if (loom_array_is_nil(c)) return false;
        for (int s = 2; s < 5; s++) /* axisa, axisb, axisc: only their default */
            if (b->given[s] && (b->v[s].kind != V_INT || b->v[s].i != -1))
                return perr(P, b->pos[s], LOOM_STATUS_NOT_AVAILABLE,
                            "cross: axisa, axisb and axisc are not supported (use axis=)");
        if (!get_int(P, b, 5, -1, &k)) return false;
        *r = loom_cross(ctx, a, c, AX32(k));
    } else if (!strcmp(n, "cholesky")) {
        int up;
        if (!get_flag(P, b, 1, &up)) return false;
        *r = loom_cholesky(ctx, a, up);
    } else if (!strcmp(n, "eigh") || !strcmp(n, "eigvalsh")) {
        static const char *const uplo[] = {"L", "U"};
        int u = choice_arg(P, b, 1, uplo, 2, 0);
        if (u < 0)
            return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT, "%s: UPLO must be 'L' or 'U'", n);
        if (n[3] == 'v') {
            *r = loom_eigvalsh(ctx, a, u);
        } else {
            loom_array_t *pair[2];
            if (loom_eigh(ctx, a, u, &pair[0], &pair[1]) != LOOM_STATUS_OK) return lib_fail(P, b->pos[0]);
            *r = NULL;
            return array_tuple(P, 2, pair, b->pos[0], out);
        }
    } else if (!strcmp(n, "eigvals")) {
        *r = loom_eigvals(ctx, a);
    } else if (!strcmp(n, "eig")) {
        loom_array_t *pair[2];
        if (loom_eig(ctx, a, &pair[0], &pair[1]) != LOOM_STATUS_OK) return lib_fail(P, b->pos[0]);
        *r = NULL;
        return array_tuple(P, 2, pair, b->pos[0], out);
    } else if (!strcmp(n, "slogdet")) {
        loom_array_t *pair[2];
        if (loom_slogdet(ctx, a, &pair[0], &pair[1]) != LOOM_STATUS_OK) return lib_fail(P, b->pos[0]);
        *r = NULL;
        return array_tuple(P, 2, pair, b->pos[0], out);
    } else if (!strcmp(n, "svd")) {
        int64_t full, uv;
        if (!get_int(P, b, 1, 1, &full) || !get_int(P, b, 2, 1, &uv)) return false;
        if (!uv) { /* hermitian= changes the method, not the values: the general SVD serves */
            *r = loom_svdvals(ctx, a);
        } else {
            loom_array_t *three[3];
            if (loom_svd(ctx, a, full != 0, &three[0], &three[1], &three[2]) != LOOM_STATUS_OK)
                return lib_fail(P, b->pos[0]);
            *r = NULL;
            return array_tuple(P, 3, three, b->pos[0], out);
        }
    } else if (!strcmp(n, "qr")) {
        static const char *const modes[] = {"reduced", "complete", "r"};
        int m = choice_arg(P, b, 1, modes, 3, 0);
        if (m < 0)
            return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                        "qr: mode must be 'reduced', 'complete' or 'r' ('raw' is not supported)");
        loom_array_t *pair[2] = {NULL, NULL};
        if (loom_qr(ctx, a, (loom_qr_mode_t)m, &pair[0], &pair[1]) != LOOM_STATUS_OK)
            return lib_fail(P, b->pos[0]);
        if (m == LOOM_QR_R) {
            *r = pair[1];
        } else {
            *r = NULL;
            return array_tuple(P, 2, pair, b->pos[0], out);
        }
    } else if (!strcmp(n, "lstsq")) {
        double rc;
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], "b"), *four[4];
        if (loom_array_is_nil(c) || !get_number(P, b, 2, NAN, &rc)) return false;
        if (loom_lstsq(ctx, a, c, rc, &four[0], &four[1], &four[2], &four[3]) != LOOM_STATUS_OK)
            return lib_fail(P, b->pos[0]);
        *r = NULL;
        return array_tuple(P, 4, four, b->pos[0], out);
    } else if (!strcmp(n, "pinv")) {
        if (b->given[1] && b->v[1].kind != V_NONE && b->given[3]) /* (NumPy: rtol=None too) */
            return perr(P, b->pos[3], LOOM_STATUS_INVALID_ARGUMENT,
                        "pinv: `rtol` and `rcond` can't be both set.");
        loom_array_t *t; /* rtol, else rcond, as an array */
        if (!tol_array(P, b, b->given[3] && b->v[3].kind != V_NONE ? 3 : 1, &t)) return false;
        if (t) {
            *r = loom_pinv_tol(ctx, a, t);
            if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
            return true;
        }
        double rc, rt;
        if (!get_number(P, b, 1, 1e-15, &rc) || !get_number(P, b, 3, NAN, &rt)) return false;
        if (b->given[3] && b->v[3].kind == V_NONE) { /* rtol=None: the Array API's default */
            int64_t m = a->ndim >= 2 ? a->shape[a->ndim - 2] : 0;
            int64_t nc = a->ndim >= 2 ? a->shape[a->ndim - 1] : 0;
            loom_finfo_t fi = {0};
            loom_dtype_t ad = loom_array_dtype(a); /* the eps of the factorised precision */
            loom_finfo(ad == LOOM_DTYPE_F32 || ad == LOOM_DTYPE_C64 ? LOOM_DTYPE_F32
                                                                    : LOOM_DTYPE_F64,
                       &fi);
            rt = fi.eps * (double)(m > nc ? m : nc);
        }
        *r = loom_pinv(ctx, a, isnan(rt) ? rc : rt);
    } else if (!strcmp(n, "matrix_rank")) {
        bool has_rtol = b->given[3] && b->v[3].kind != V_NONE;
        if (b->given[1] && b->v[1].kind != V_NONE && has_rtol)
            return perr(P, b->pos[3], LOOM_STATUS_INVALID_ARGUMENT,
                        "matrix_rank: `tol` and `rtol` can't be both set.");
        loom_array_t *t; /* rtol, else tol, as an array */
        if (!tol_array(P, b, has_rtol ? 3 : 1, &t)) return false;
        if (t) {
            *r = loom_matrix_rank_tol(ctx, a, has_rtol ? NULL : t, has_rtol ? t : NULL);
            if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
            return true;
        }
        double tol, rtol;
        if (!get_number(P, b, 1, NAN, &tol) || !get_number(P, b, 3, NAN, &rtol)) return false;
        *r = loom_matrix_rank(ctx, a, tol, rtol);
    } else if (!strcmp(n, "cond")) {
        loom_norm_t kind = LOOM_NORM_DEFAULT;
        double p = 0;
        if (!norm_order(P, b, 1, n, true, &kind, &p)) return false;
        *r = loom_cond(ctx, a, kind, p);
    } else if (!strcmp(n, "tensorinv")) {
        if (!get_int(P, b, 1, 2, &k)) return false;
        *r = loom_tensorinv(ctx, a, AX32(k));
    } else if (!strcmp(n, "tensorsolve")) {
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], "b");
        if (loom_array_is_nil(c) || !refuse_given(P, f, b, "axes")) return false;
        *r = loom_tensorsolve(ctx, a, c);
    } else if (!strcmp(n, "matrix_power")) {
        if (b->v[1].kind != V_INT)
            return perr(P, b->pos[1], LOOM_STATUS_DTYPE_ERROR, "matrix_power: exponent must be an integer");
        if (!get_int(P, b, 1, 1, &k)) return false;
        *r = loom_matrix_power(ctx, a, k);
    } else if (fft_kind(n) >= 0) {
        if (!fft_call(P, b, n, a, r)) return false;
    } else if (!strcmp(n, "fftshift") || !strcmp(n, "ifftshift")) {
        if (!get_axes(P, b, 1, true, &naxes, axes)) return false;
        *r = (n[0] == 'f' ? loom_fftshift : loom_ifftshift)(ctx, a, naxes, naxes < 0 ? NULL : axes);
    } else if (!strcmp(n, "convolve") || !strcmp(n, "correlate") || !strcmp(n, "fftconvolve")) {
        static const char *const modes[] = {"valid", "same", "full"};
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], n[0] == 'f' ? "in2" : "v");
        if (loom_array_is_nil(c)) return false;
        int m = choice_arg(P, b, 2, modes, 3, n[2] == 'r' ? LOOM_CONV_VALID : LOOM_CONV_FULL);
        if (m < 0)
            return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: mode must be 'valid', 'same' or 'full'", n);
        *r = (n[0] == 'f'   ? loom_fftconvolve
              : n[2] == 'n' ? loom_convolve
                            : loom_correlate)(ctx, a, c, (loom_conv_mode_t)m);
    } else if (!strcmp(n, "interp")) {
        loom_array_t *xp = as_array(P, &b->v[1], b->pos[1], "xp"), *fp = NULL, *lr[2] = {NULL, NULL};
        if (loom_array_is_nil(xp) || loom_array_is_nil(fp = as_array(P, &b->v[2], b->pos[2], "fp")))
            return false;
        for (int s = 0; s < 2; s++)
            if (b->given[3 + s] && b->v[3 + s].kind != V_NONE &&
                loom_array_is_nil(lr[s] = as_array(P, &b->v[3 + s], b->pos[3 + s], s ? "right" : "left")))
                return false;
        double period = NAN;
        if (b->given[5] && b->v[5].kind != V_NONE && !get_number(P, b, 5, NAN, &period)) return false;
        *r = loom_interp(ctx, a, xp, fp, lr[0], lr[1], period);
    } else if (!strcmp(n, "digitize") || !strcmp(n, "polyval") || !strcmp(n, "vdot")) {
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], n[0] == 'd' ? "bins" : n[1] == 'o' ? "x" : "b");
        int rt = 0;
        if (loom_array_is_nil(c) || (n[0] == 'd' && !get_flag(P, b, 2, &rt))) return false;
        *r = n[0] == 'd' ? loom_digitize(ctx, a, c, rt) : n[1] == 'o' ? loom_polyval(ctx, a, c) : loom_vdot(ctx, a, c);
    } else if (!strcmp(n, "trapezoid")) {
        loom_array_t *x = NULL;
        double dx;
        if (b->given[1] && b->v[1].kind != V_NONE && loom_array_is_nil(x = as_array(P, &b->v[1], b->pos[1], "x")))
            return false;
        if (!get_number(P, b, 2, 1.0, &dx) || !get_int(P, b, 3, -1, &k)) return false;
        *r = loom_trapezoid(ctx, a, x, dx, AX32(k));
    } else if (!strcmp(n, "vander")) {
        int inc;
        if (!get_int(P, b, 1, -1, &k) || !get_flag(P, b, 2, &inc)) return false;
        if (b->given[1] && b->v[1].kind != V_NONE && k < 0)
            return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT, "vander: N must be non-negative");
        *r = loom_vander(ctx, a, k, inc);
    } else if (!strcmp(n, "polyder") || !strcmp(n, "polyint")) {
        loom_array_t *kk = NULL;
        if (!get_int(P, b, 1, 1, &k)) return false;
        if (n[4] == 'i' && b->given[2] && b->v[2].kind != V_NONE &&
            loom_array_is_nil(kk = as_array(P, &b->v[2], b->pos[2], "k")))
            return false;
        *r = n[4] == 'd' ? loom_polyder(ctx, a, k) : loom_polyint(ctx, a, k, kk);
    } else if (!strcmp(n, "polyadd") || !strcmp(n, "polysub") || !strcmp(n, "polymul")) {
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], "a2");
        if (loom_array_is_nil(c)) return false;
        *r = n[4] == 'a'   ? loom_polyadd(ctx, a, c)
             : n[4] == 's' ? loom_polysub(ctx, a, c)
                           : loom_polymul(ctx, a, c);
    } else if (!strcmp(n, "polydiv")) {
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], "v"), *pair[2];
        if (loom_array_is_nil(c)) return false;
        if (loom_polydiv(ctx, a, c, &pair[0], &pair[1]) != LOOM_STATUS_OK)
            return lib_fail(P, b->pos[0]);
        *r = NULL;
        return array_tuple(P, 2, pair, b->pos[0], out);
    } else if (!strcmp(n, "polyfit")) {
        loom_array_t *y = as_array(P, &b->v[1], b->pos[1], "y"), *w = NULL, *res[5];
        double rc;
        int full;
        if (loom_array_is_nil(y) || !get_int(P, b, 2, 0, &k) || !get_number(P, b, 3, NAN, &rc) ||
            !get_flag(P, b, 4, &full))
            return false;
        if (b->given[5] && b->v[5].kind != V_NONE &&
            loom_array_is_nil(w = as_array(P, &b->v[5], b->pos[5], "w")))
            return false;
        static const char *const unscaled[] = {"unscaled"};
        int cov = 0, un = 0;
        if (b->given[6] && b->v[6].kind == V_STR) { /* NumPy: any other string is truthy */
            un = choice_arg(P, b, 6, unscaled, 1, -1) == 0;
            cov = b->v[6].tlen > 0;
        } else if (!get_flag(P, b, 6, &cov)) {
            return false;
        }
        loom_status_t st = LOOM_STATUS_OK;
        int32_t m = 0;
        if (full)
            st = loom_polyfit_full(ctx, a, y, k, rc, w, res), m = 5;
        else if (cov || un)
            st = loom_polyfit_cov(ctx, a, y, k, rc, w, un, &res[0], &res[1]), m = 2;
        else
            *r = loom_polyfit(ctx, a, y, k, rc, w);
        if (st != LOOM_STATUS_OK) return lib_fail(P, b->pos[0]);
        if (m) {
            *r = NULL;
            return array_tuple(P, m, res, b->pos[0], out);
        }
    } else if (!strcmp(n, "roots") || !strcmp(n, "poly")) {
        *r = n[1] == 'o' && n[2] == 'o' ? loom_roots(ctx, a) : loom_poly(ctx, a);
    } else if (!strcmp(n, "gradient")) {
        const value_t *v = &b->v[1];
        int32_t ns = b->given[1] ? v->n : 0, nd = loom_array_ndim(a);
        loom_array_t **sp = base_arena_alloc(&P->arena, (size_t)(ns ? ns : 1), sizeof *sp);
        loom_array_t *outs[LOOM_MAX_DIMS];
        if (!sp) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        for (int32_t i = 0; i < ns; i++)
            if (loom_array_is_nil(sp[i] = as_array(P, &v->items[i], b->var_pos[i], "a spacing")))
                return false;
        if (!get_axes(P, b, 2, true, &naxes, axes) || !get_int(P, b, 3, 1, &k)) return false;
        int32_t m = naxes < 0 ? nd : naxes, order = k > 2 ? 3 : k < -1 ? -1 : (int32_t)k;
        if (loom_gradient(ctx, a, ns, sp, naxes, axes, order, outs) != LOOM_STATUS_OK)
            return lib_fail(P, b->pos[0]);
        if (m == 1) { /* NumPy: one axis gives its array, several a tuple */
            *r = outs[0];
        } else {
            *r = NULL;
            return array_tuple(P, m, outs, b->pos[0], out);
        }
    } else if (!strcmp(n, "unwrap")) {
        loom_array_t *ar[2] = {NULL, NULL}; /* discont, period */
        for (int s = 0; s < 2; s++)
            if (b->given[1 + 2 * s] && b->v[1 + 2 * s].kind != V_NONE &&
                loom_array_is_nil(ar[s] = as_array(P, &b->v[1 + 2 * s], b->pos[1 + 2 * s],
                                                   s ? "period" : "discont")))
                return false;
        if (!get_int(P, b, 2, -1, &k)) return false;
        *r = loom_unwrap(ctx, a, ar[0], AX32(k), ar[1]);
    } else if (!strcmp(n, "bartlett") || !strcmp(n, "blackman") || !strcmp(n, "hamming") ||
               !strcmp(n, "hanning") || !strcmp(n, "kaiser")) {
        double m, beta = 0;
        if (!get_real(P, b, 0, n, &m) || (n[0] == 'k' && !get_real(P, b, 1, n, &beta)))
            return false;
        *r = n[0] == 'k'              ? loom_kaiser(ctx, m, beta)
             : !strcmp(n, "bartlett") ? loom_bartlett(ctx, m)
             : n[0] == 'b'            ? loom_blackman(ctx, m)
             : n[2] == 'm'            ? loom_hamming(ctx, m)
                                      : loom_hanning(ctx, m);
    } else if (!strcmp(n, "tensordot")) {
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], "b");
        if (loom_array_is_nil(c)) return false;
        if (b->given[2] && b->v[2].kind == V_TUPLE) { /* (axes of a, axes of b) */
            const value_t *v = &b->v[2];
            int32_t xa[LOOM_MAX_DIMS], xb[LOOM_MAX_DIMS], m = -1;
            bool ok = v->n == 2;
            for (int s = 0; ok && s < 2; s++) {
                const value_t *w = &v->items[s];
                int32_t cnt = w->kind == V_TUPLE ? w->n : 1;
                ok = cnt <= LOOM_MAX_DIMS && (m < 0 || m == cnt);
                m = cnt;
                for (int32_t i = 0; ok && i < cnt; i++) {
                    const value_t *e = w->kind == V_TUPLE ? &w->items[i] : w;
                    ok = e->kind == V_INT;
                    if (ok) (s ? xb : xa)[i] = AX32(e->i);
                }
            }
            if (!ok)
                return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                            "tensordot: axes must be a number or two equally long lists of axes");
            *r = loom_tensordot_axes(ctx, a, c, m, xa, xb);
            if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
            return true;
        }
        if (b->given[2] && b->v[2].kind != V_INT)
            return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                        "tensordot: axes must be a number or two lists of axes");
        if (!get_int(P, b, 2, 2, &k)) return false;
        if (k < 0 || k > LOOM_MAX_DIMS)
            return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                        "tensordot: axes must be in 0..%d (%lld)", LOOM_MAX_DIMS, (long long)k);
        *r = loom_tensordot(ctx, a, c, (int32_t)k);
    } else if (!strcmp(n, "angle")) {
        int deg;
        if (!get_flag(P, b, 1, &deg)) return false;
        *r = loom_angle(ctx, a, deg);
    } else if (!strcmp(n, "round") || !strcmp(n, "around")) {
        if (!get_int(P, b, 1, 0, &k) || !refuse_given(P, f, b, "out")) return false;
        *r = loom_round(ctx, a, k > INT32_MAX ? INT32_MAX : k < INT32_MIN ? INT32_MIN : (int32_t)k);
    } else if (!strcmp(n, "frexp") || !strcmp(n, "modf") || !strcmp(n, "divmod")) {
        loom_array_t *pair[2], *c = NULL;
        if (n[0] == 'd' && loom_array_is_nil(c = as_array(P, &b->v[1], b->pos[1], "x2")))
            return false;
        loom_status_t st = n[0] == 'f'   ? loom_frexp(ctx, a, &pair[0], &pair[1])
                           : n[0] == 'm' ? loom_modf(ctx, a, &pair[0], &pair[1])
                                         : loom_divmod(ctx, a, c, &pair[0], &pair[1]);
        if (st != LOOM_STATUS_OK) return lib_fail(P, b->pos[0]);
        *r = NULL;
        return array_tuple(P, 2, pair, b->pos[0], out);
    } else if (!strcmp(n, "unstack")) {
        if (!get_int(P, b, 1, 0, &k)) return false;
        int32_t ax = AX32(k), nd = a->ndim;
        int64_t m = nd > 0 && ax >= -nd && ax < nd ? a->shape[ax < 0 ? ax + nd : ax] : 0;
        if (m > 4096)
            return perr(P, b->pos[0], LOOM_STATUS_NOT_AVAILABLE,
                        "unstack: at most 4096 results (the axis has %lld)", (long long)m);
        loom_array_t **outs = base_arena_alloc(&P->arena, (size_t)(m ? m : 1), sizeof *outs);
        if (!outs) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        if (loom_unstack(ctx, a, ax, outs) != LOOM_STATUS_OK) return lib_fail(P, b->pos[0]);
        *r = NULL;
        return array_tuple(P, (int32_t)m, outs, b->pos[0], out);
    } else if (!strcmp(n, "isclose")) {
        double rtol, atol;
        int eq;
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], "b");
        if (loom_array_is_nil(c) || !get_number(P, b, 2, 1e-5, &rtol) ||
            !get_number(P, b, 3, 1e-8, &atol) || !get_flag(P, b, 4, &eq))
            return false;
        *r = loom_isclose(ctx, a, c, rtol, atol, eq);
    } else if (!strcmp(n, "allclose")) {
        double rtol, atol;
        int eq;
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], "b");
        if (loom_array_is_nil(c) || !get_number(P, b, 2, 1e-5, &rtol) ||
            !get_number(P, b, 3, 1e-8, &atol) || !get_flag(P, b, 4, &eq))
            return false;
        *r = loom_allclose(ctx, a, c, rtol, atol, eq);
    } else if (!strcmp(n, "array_equal") || !strcmp(n, "array_equiv")) {
        int eq = 0;
        bool equal = !strcmp(n, "array_equal");
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], "a2");
        if (loom_array_is_nil(c) || (equal && !get_flag(P, b, 2, &eq))) return false;
        *r = equal ? loom_array_equal(ctx, a, c, eq) : loom_array_equiv(ctx, a, c);
    } else if (!strcmp(n, "matvec") || !strcmp(n, "vecmat")) {
        loom_array_t *c = as_array(P, &b->v[1], b->pos[1], "x2");
        if (loom_array_is_nil(c)) return false;
        *r = n[0] == 'm' ? loom_matvec(ctx, a, c) : loom_vecmat(ctx, a, c);
    } else if (!strcmp(n, "sort_complex")) {
        *r = loom_sort_complex(ctx, a);
    } else if (!strcmp(n, "packbits") || !strcmp(n, "unpackbits")) {
        bool pack = n[0] == 'p';
        int64_t count = LOOM_NONE;
        static const char *const orders[] = {"big", "little"};
        int oslot = slot_of(b, "bitorder");
        int little = choice_arg(P, b, oslot, orders, 2, 0);
        if (little < 0)
            return perr(P, b->pos[oslot], LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: 'order' must be either 'little' or 'big'", n);
        if (!get_axes(P, b, 1, false, &naxes, axes)) return false;
        if (!pack && b->given[2] && b->v[2].kind != V_NONE && !get_int(P, b, 2, 0, &count))
            return false;
        int32_t ax = naxes < 0 ? LOOM_AXIS_NONE : axes[0];
        *r = pack ? loom_packbits(ctx, a, ax, little) : loom_unpackbits(ctx, a, ax, count, little);
    } else if (!strcmp(n, "nan_to_num")) {
        double nv, pv, mv;
        if (!get_number(P, b, 2, 0, &nv) || !get_number(P, b, 3, NAN, &pv) ||
            !get_number(P, b, 4, NAN, &mv))
            return false;
        *r = loom_nan_to_num(ctx, a, nv, pv, mv);
    } else if (!strncmp(n, "cumulative_", 11)) {
        int init, rd;
        if (!refuse_given(P, f, b, "out") || !get_axes(P, b, 1, false, &naxes, axes) ||
            !get_flag(P, b, 4, &init) || !reduce_dtype(P, b, &a, &rd))
            return false;
        *r = (n[11] == 's' ? loom_cumulative_sum : loom_cumulative_prod)(
            ctx, a, naxes < 0 ? LOOM_AXIS_NONE : axes[0], init);
        if (rd >= 0) *r = loom_astype(ctx, *r, (loom_dtype_t)rd);
    } else if (!strncmp(n, "nancum", 6)) {
        int rd;
        if (!refuse_given(P, f, b, "out") || !get_axes(P, b, 1, false, &naxes, axes) ||
            !reduce_dtype(P, b, &a, &rd))
            return false;
        *r = (n[6] == 's' ? loom_nancumsum : loom_nancumprod)(ctx, a,
                                                               naxes < 0 ? LOOM_AXIS_NONE : axes[0]);
        if (rd >= 0) *r = loom_astype(ctx, *r, (loom_dtype_t)rd);
    } else if (!strcmp(n, "median") || !strcmp(n, "quantile") || !strcmp(n, "percentile") ||
               !strcmp(n, "nanmedian") || !strcmp(n, "nanquantile") || !strcmp(n, "nanpercentile")) {
        bool nan = n[0] == 'n';
        if (nan) n += 3; /* the same arguments */
        int q_at = n[0] == 'm' ? 0 : 1, keep; /* median has no q */
        if (!refuse_given(P, f, b, "out") || !refuse_given(P, f, b, "weights") ||
            !refuse_given(P, f, b, "interpolation") ||
            !get_axes(P, b, 1 + q_at, true, &naxes, axes) ||
            !get_flag(P, b, slot_of(b, "keepdims"), &keep))
            return false;
        int32_t axis = naxes < 0 ? LOOM_AXIS_NONE : axes[0];
        /* a tuple of axes: those axes merged into one last axis, and keepdims' shape kept */
        int64_t keep_shape[LOOM_MAX_DIMS];
        int32_t keep_nd = loom_array_ndim(a), merged = naxes >= 0 && naxes != 1;
        if (merged) {
            a = fe_merge_axes(ctx, n, a, naxes, axes, keep ? keep_shape : NULL);
            if (loom_array_is_nil(a)) return lib_fail(P, b->pos[1 + q_at]);
            axis = -1;
        }
        int out_keep = keep && !merged;
        if (!q_at) {
            *r = (nan ? loom_nanmedian : loom_median)(ctx, a, axis, out_keep);
        } else if (ir_is_complex((loom_dtype_t)loom_array_dtype(a))) {
            return perr(P, b->pos[0], LOOM_STATUS_DTYPE_ERROR,
                        "%s: a must be an array of real numbers",
                        n); /* (NumPy's median takes it) */
        } else {
            /* q: a number, a tuple of numbers, or an array of at most one axis (its values read
             * now: one sync); several give the results stacked on a new first axis, NumPy's */
            enum { MAX_Q = 4096 };
            const value_t *qv = &b->v[1];
            double *qs = NULL;
            int64_t nq = 1;
            bool q_int = qv->kind == V_INT, one = is_num(qv);
            int qd = -1; /* q's dtype when it is no Python number (which stays weak) */
            if (one) {
                qs = base_arena_alloc(&P->arena, 1, sizeof *qs);
                if (!qs) return perr(P, b->pos[1], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
                if (!get_number(P, b, 1, 0, &qs[0])) return false;
            } else if (qv->kind == V_TUPLE && qv->n <= MAX_Q) {
                nq = qv->n;
                q_int = true;
                qs = base_arena_alloc(&P->arena, (size_t)(nq ? nq : 1), sizeof *qs);
                if (!qs) return perr(P, b->pos[1], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
                for (int64_t i = 0; i < nq; i++) {
                    const value_t *it = &qv->items[i];
                    if (it->kind != V_INT && it->kind != V_FLOAT && it->kind != V_BOOL)
                        return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                                    "%s: q must be numbers", n);
                    qs[i] = it->kind == V_FLOAT ? it->f : (double)it->i;
                    q_int = q_int && it->kind != V_FLOAT;
                }
                qd = q_int ? LOOM_DTYPE_I64 : LOOM_DTYPE_F64;
            } else if (qv->kind == V_ARRAY && loom_array_ndim(qv->a) <= 1 &&
                       loom_array_dtype(qv->a) != LOOM_DTYPE_BOOL &&
                       !ir_is_complex((loom_dtype_t)loom_array_dtype(qv->a))) {
                loom_array_t *qa = qv->a;
                one = loom_array_ndim(qa) == 0;
                nq = one ? 1 : loom_array_dim(qa, 0);
                if (nq > MAX_Q)
                    return perr(P, b->pos[1], LOOM_STATUS_NOT_AVAILABLE,
                                "%s: at most %d values of q at a time (%lld)", n, (int)MAX_Q,
                                (long long)nq);
                qd = loom_array_dtype(qa);
                q_int = ir_is_int((loom_dtype_t)qd);
                qs = base_arena_alloc(&P->arena, (size_t)(nq ? nq : 1), sizeof *qs);
                if (!qs) return perr(P, b->pos[1], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
                if (nq && loom_read(ctx, loom_astype(ctx, qa, LOOM_DTYPE_F64), qs,
                                    (size_t)nq * sizeof *qs) != LOOM_STATUS_OK)
                    return lib_fail(P, b->pos[1]);
            } else {
                return perr(P, b->pos[1], LOOM_STATUS_NOT_AVAILABLE,
                            "%s: q must be a number, a tuple of numbers or an array of at most "
                            "one axis",
                            n);
            }
            for (int64_t i = 0; i < nq; i++) {
                if (n[0] == 'p') {
                    if (!(qs[i] >= 0 && qs[i] <= 100))
                        return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                                    "percentile: percentiles must be in the range [0, 100] (%g)",
                                    qs[i]);
                    qs[i] /= 100;
                }
            }
            static const char *const methods[] = {
                "linear",   "inverted_cdf",    "averaged_inverted_cdf", "closest_observation",
                "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
                "normal_unbiased", "lower", "higher", "midpoint", "nearest"};
            int slot = slot_of(b, "method");
            int m = choice_arg(P, b, slot, methods, 13, LOOM_QUANTILE_LINEAR);
            if (m < 0)
                return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: not a valid method (linear, lower, higher, midpoint, nearest, "
                            "inverted_cdf, averaged_inverted_cdf, closest_observation, "
                            "interpolated_inverted_cdf, hazen, weibull, median_unbiased, "
                            "normal_unbiased)",
                            n);
            /* NumPy: an integer q (0 or 1) makes linear's index an integer: the element
             * itself, in a's dtype */
            if (n[0] == 'q' && m == 0 && q_int) m = LOOM_QUANTILE_LOWER;
            /* NumPy: the methods that interpolate give result_type(a's, q's) for a q array
             * (percentile's q / 100 a float); the others keep a's dtype */
            bool discrete = m == LOOM_QUANTILE_INVERTED_CDF ||
                            m == LOOM_QUANTILE_CLOSEST_OBSERVATION || m == LOOM_QUANTILE_LOWER ||
                            m == LOOM_QUANTILE_HIGHER || m == LOOM_QUANTILE_NEAREST;
            if (qd >= 0 && n[0] == 'p' && !ir_is_float((loom_dtype_t)qd)) qd = LOOM_DTYPE_F64;
            /* float data interpolate in the promoted dtype itself, as NumPy's lerp with q's
             * weights does (float32 data and q = [0.25, 0.75]: in float64, not cast after) */
            loom_dtype_t ad = (loom_dtype_t)loom_array_dtype(a);
            if (qd >= 0 && !discrete && ir_is_float(ad)) {
                int to = loom_dtype_promote(ad, (loom_dtype_t)qd);
                if (to >= 0 && to != (int)ad) a = loom_astype(ctx, a, (loom_dtype_t)to);
            }
            loom_array_t **rs = base_arena_alloc(&P->arena, (size_t)(nq ? nq : 1), sizeof *rs);
            if (!rs) return perr(P, b->pos[1], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
            bool q_ok = true; /* (else the function reports the bad q) */
            for (int64_t i = 0; i < nq; i++) q_ok = q_ok && qs[i] >= 0 && qs[i] <= 1;
            if (nan && q_ok && loom_array_size(a) == 0) { /* NumPy: the nanmean, whatever q */
                one = true, nq = 1, qd = -1, qs[0] = 0.5;
            }
            for (int64_t i = 0; i < nq; i++)
                if (loom_array_is_nil(
                        rs[i] = (nan ? loom_nanquantile : loom_quantile)(
                            ctx, a, qs[i], axis, (loom_quantile_method_t)m, out_keep)))
                    return lib_fail(P, b->pos[0]);
            if (one) {
                *r = rs[0];
            } else if (nq) {
                *r = loom_stack(ctx, (int32_t)nq, rs, 0);
            } else { /* no q: the shape of one result, after an empty first axis */
                loom_array_t *one_r = (nan ? loom_nanquantile : loom_quantile)(
                    ctx, a, 0.5, axis, (loom_quantile_method_t)m, out_keep);
                if (loom_array_is_nil(one_r)) return lib_fail(P, b->pos[0]);
                *r = fe_slice_axis(ctx, loom_expand_dims(ctx, one_r, 1, (int32_t[]){0}), 0, 0, 0,
                                   1);
            }
            if (qd >= 0 && !discrete && !loom_array_is_nil(*r)) {
                /* (a's own dtype: NumPy interpolates integers with q's dtype, so int8 data
                 * and a float32 q give float32, uint8 and an int64 q int64) */
                int rd = fe_promote(ctx, n, (loom_dtype_t)loom_array_dtype(a), (loom_dtype_t)qd);
                /* (these methods' interpolation weight is a float even for integer q) */
                if (rd >= 0 && !ir_is_float((loom_dtype_t)rd) && !ir_is_complex((loom_dtype_t)rd) &&
                    (m == LOOM_QUANTILE_HAZEN || m == LOOM_QUANTILE_MEDIAN_UNBIASED ||
                     m == LOOM_QUANTILE_NORMAL_UNBIASED || m == LOOM_QUANTILE_MIDPOINT))
                    rd = LOOM_DTYPE_F64;
                if (rd < 0) return lib_fail(P, b->pos[1]);
                *r = loom_astype(ctx, *r, (loom_dtype_t)rd);
            }
        }
        if (merged && keep && !loom_array_is_nil(*r)) {
            /* the leading axes of several q, then a's shape with the merged axes kept */
            int32_t lead = loom_array_ndim(*r) - (loom_array_ndim(a) - 1);
            int64_t shape[LOOM_MAX_DIMS + 1];
            for (int32_t i = 0; i < lead; i++) shape[i] = loom_array_dim(*r, i);
            memcpy(shape + lead, keep_shape, (size_t)keep_nd * sizeof *shape);
            *r = loom_reshape(ctx, *r, lead + keep_nd, shape);
        }
    } else if (!strcmp(n, "swapaxes")) {
        if (!get_int(P, b, 1, 0, &i1) || !get_int(P, b, 2, 0, &i2)) return false;
        *r = loom_swapaxes(ctx, a, AX32(i1), AX32(i2));
    } else if (!strncmp(n, "atleast_", 8)) {
        *r = loom_atleast_nd(ctx, a, n[8] - '0');
    } else if (!strcmp(n, "tril") || !strcmp(n, "triu")) {
        if (!get_int(P, b, 1, 0, &k)) return false;
        *r = (n[3] == 'l' ? loom_tril : loom_triu)(ctx, a, k);
    } else if (!strcmp(n, "diagonal") || !strcmp(n, "trace")) {
        /* numpy.linalg's (the Array API's) work on the last two axes, np.diagonal's and
         * np.trace's on the first two */
        if (!get_int(P, b, 1, 0, &k) || !get_int(P, b, 2, b->linalg ? -2 : 0, &i1) ||
            !get_int(P, b, 3, b->linalg ? -1 : 1, &i2))
            return false;
        int rd = -1; /* trace's dtype=: the elements cast to it, and the sum kept in it */
        if (n[0] == 't' && (!refuse_given(P, f, b, "out") || !reduce_dtype(P, b, &a, &rd)))
            return false;
        *r = (n[0] == 'd' ? loom_diagonal : loom_trace)(ctx, a, k, AX32(i1), AX32(i2));
        if (rd >= 0) *r = loom_astype(ctx, *r, (loom_dtype_t)rd);
    } else if (!strcmp(n, "diag")) {
        if (!get_int(P, b, 1, 0, &k)) return false;
        *r = loom_diag(ctx, a, k);
    } else if (!strcmp(n, "roll")) {
        if (b->v[1].kind == V_TUPLE || (b->given[2] && b->v[2].kind == V_TUPLE)) {
            /* NumPy broadcasts the shifts against the axes: one roll per pair */
            const value_t *sv = &b->v[1];
            int32_t ns = sv->kind == V_TUPLE ? sv->n : 1;
            if (!get_axes(P, b, 2, true, &naxes, axes)) return false;
            if (naxes < 0)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "roll: a tuple of shifts needs a tuple of axes");
            if (ns != naxes && ns != 1 && naxes != 1)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "roll: shape mismatch: the shifts (%d) and axes (%d) do not broadcast",
                            (int)ns, (int)naxes);
            int32_t m = ns > naxes ? ns : naxes;
            *r = a;
            for (int32_t i = 0; i < m; i++) {
                const value_t *si = sv->kind == V_TUPLE ? &sv->items[ns == 1 ? 0 : i] : sv;
                if (si->kind != V_INT)
                    return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT, "roll: shifts must be integers");
                *r = loom_roll(ctx, *r, (int64_t)si->i, axes[naxes == 1 ? 0 : i]);
            }
        } else {
            if (!get_int(P, b, 1, 0, &k) || !get_axes(P, b, 2, false, &naxes, axes)) return false;
            *r = loom_roll(ctx, a, k, naxes < 0 ? LOOM_AXIS_NONE : axes[0]);
        }
    } else if (!strcmp(n, "repeat")) {
        loom_array_t *rep = as_output(P, &b->v[1], b->pos[1]);
        if (loom_array_is_nil(rep) || !get_axes(P, b, 2, false, &naxes, axes)) return false;
        *r = loom_repeat(ctx, a, rep, naxes < 0 ? LOOM_AXIS_NONE : axes[0]);
    } else if (!strcmp(n, "tile")) {
        int32_t nd;
        int64_t reps[LOOM_MAX_DIMS];
        if (!get_shape(P, b, 1, &nd, reps)) return false;
        *r = loom_tile(ctx, a, nd, reps);
    } else if (!strcmp(n, "diff")) {
        if (!get_int(P, b, 1, 1, &k) || !get_int(P, b, 2, -1, &i1)) return false;
        if (k < 0 || k > INT32_MAX)
            return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                        "diff: order must be non-negative but got %lld", (long long)k);
        /* prepend and append: joined to a along axis first (a number or 0-d array as one
         * slice of a's shape), as NumPy's */
        int64_t ax = i1 < 0 ? i1 + a->ndim : i1;
        loom_array_t *parts[3];
        int32_t np_ = 0;
        for (int e = 3; e <= 4 && k > 0 && ax >= 0 && ax < a->ndim; e++) { /* (n=0: a) */
            if (e == 4) parts[np_++] = a;
            if (!b->given[e] || b->v[e].kind == V_NONE) continue;
            loom_array_t *x = as_array(P, &b->v[e], b->pos[e], e == 3 ? "prepend" : "append");
            if (loom_array_is_nil(x)) return false;
            if (loom_array_ndim(x) == 0) {
                int64_t sh[LOOM_MAX_DIMS];
                for (int32_t d = 0; d < a->ndim; d++) sh[d] = d == ax ? 1 : a->shape[d];
                x = loom_broadcast_to(ctx, x, a->ndim, sh);
            }
            parts[np_++] = x;
        }
        if (np_ > 1) a = loom_concatenate(ctx, np_, parts, (int32_t)ax);
        *r = loom_diff(ctx, a, (int32_t)k, AX32(i1));
    } else { /* rot90 */
        if (!get_int(P, b, 1, 1, &k) || !get_axes(P, b, 2, true, &naxes, axes)) return false;
        if (naxes >= 0 && naxes != 2)
            return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                        "rot90: len(axes) must be 2");
        *r = loom_rot90(ctx, a, k, naxes < 0 ? 0 : axes[0], naxes < 0 ? 1 : axes[1]);
    }
    if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
    return true;
#undef AX32
}

/* concatenate / stack: a tuple or list of arrays (numbers become 0-d arrays). */
static bool join_call(parser_t *P, const func_t *f, const bound_t *b, loom_array_t **r) {
    const value_t *v = &b->v[0];
    if (v->kind == V_ARRAY && loom_array_ndim(v->a) > 0) {
        /* NumPy iterates an array given as the sequence: its entries along the first axis */
        enum { MAX_ROWS = 4096 };
        int64_t n = loom_array_dim(v->a, 0);
        if (n > MAX_ROWS)
            return perr(P, b->pos[0], LOOM_STATUS_NOT_AVAILABLE,
                        "%s: an array as the sequence of at most %d arrays (it has %lld)",
                        f->name, (int)MAX_ROWS, (long long)n);
        value_t *items = base_arena_alloc(&P->arena, (size_t)(n ? n : 1), sizeof *items);
        loom_array_t **rows = base_arena_alloc(&P->arena, (size_t)(n ? n : 1), sizeof *rows);
        if (!items || !rows) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        if (loom_unstack(P->ctx, v->a, 0, rows) != LOOM_STATUS_OK) return lib_fail(P, b->pos[0]);
        for (int64_t i = 0; i < n; i++) items[i] = (value_t){.kind = V_ARRAY, .a = rows[i]};
        bound_t *nb = base_arena_alloc(&P->arena, 1, sizeof *nb);
        if (!nb) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        *nb = *b;
        nb->v[0] = (value_t){.kind = V_TUPLE, .items = items, .n = (int32_t)n};
        return join_call(P, f, nb, r);
    }
    if (v->kind != V_TUPLE) /* (NumPy: a TypeError, the value not being iterable) */
        return perr(P, b->pos[0], LOOM_STATUS_DTYPE_ERROR,
                    "%s: arrays must be a tuple or list of arrays, or an array of at least one "
                    "axis",
                    f->name);
    if (v->n == 0)
        return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT, "need at least one array to %s",
                    f->j == loom_stack ? "stack" : "concatenate");
    loom_array_t **xs = base_arena_alloc(&P->arena, (size_t)v->n, sizeof *xs);
    if (!xs) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
    for (int32_t i = 0; i < v->n; i++) { /* concatenate keeps numbers weak (NEP 50), stack not */
        const value_t *it = &v->items[i];
        xs[i] = f->j == loom_concatenate && is_num(it) ? as_array(P, it, b->pos[0], "arrays")
                                                       : arg_array(P, it, b->pos[0]);
        if (loom_array_is_nil(xs[i])) return false;
    }
    int32_t axis = 0;
    if (b->given[1] && b->v[1].kind == V_NONE && f->j == loom_concatenate)
        axis = LOOM_AXIS_NONE;
    else if (b->given[1] && !axis_value(P, &b->v[1], b->pos[1], "axis", &axis))
        return false;
    *r = f->j(P->ctx, v->n, xs, axis);
    return true;
}

/* A seed or stream: a Python int in [0, 2**64). */
static bool get_u64(parser_t *P, const bound_t *b, int slot, uint64_t dflt, uint64_t *out) {
    if (!b->given[slot] || b->v[slot].kind == V_NONE) {
        *out = dflt;
        return true;
    }
    const value_t *v = &b->v[slot];
    if (v->kind != V_INT)
        return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                    "'%s' must be an integer, not %s", b->names[slot], kind_text(v));
    if (v->i < 0 || v->i > (i128)UINT64_MAX)
        return perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT,
                    "'%s' must be an integer in [0, 2**64)", b->names[slot]);
    *out = (uint64_t)v->i;
    return true;
}

/* random.NAME(...): the Generator method on its (seed, stream), both the last parameters. */
__attribute__((noinline)) static bool random_call(parser_t *P, const func_t *f, const bound_t *b,
                                                  loom_array_t **r) {
    loom_ctx_t *ctx = P->ctx;
    const char *n = f->name + 7;
    uint64_t seed, stream;
    int32_t ndim = 0;
    int64_t shape[LOOM_MAX_DIMS];
    int ks = slot_of(b, "size"), kd = slot_of(b, "dtype");
    if (!get_u64(P, b, b->n - 2, 0, &seed) || !get_u64(P, b, b->n - 1, P->n_draws, &stream))
        return false;
    P->n_draws++;
    if (ks >= 0 && b->given[ks] && b->v[ks].kind != V_NONE && !get_shape(P, b, ks, &ndim, shape))
        return false;
    if (!strcmp(n, "permutation") || !strcmp(n, "shuffle")) {
        int64_t len;
        int32_t axis = 0;
        loom_array_t *x;
        if (b->v[0].kind == V_INT && n[0] == 'p') { /* permutation(n): of arange(n) */
            if (!get_int(P, b, 0, 0, &len)) return false;
            x = loom_arange_int(ctx, 0, len, 1, LOOM_DTYPE_I64);
        } else {
            x = as_array(P, &b->v[0], b->pos[0], "x");
        }
        if (loom_array_is_nil(x) ||
            (b->given[1] && !axis_value(P, &b->v[1], b->pos[1], "axis", &axis)))
            return false;
        *r = loom_rng_permutation(ctx, seed, stream, x, axis);
        return true;
    }
    if (!strcmp(n, "choice")) {
        int replace = 1;
        int32_t axis = 0;
        loom_array_t *a, *p = NULL;
        if (b->v[0].kind == V_INT) { /* choice(n): from arange(n) */
            int64_t len;
            if (!get_int(P, b, 0, 0, &len)) return false;
            int64_t k = 1;
            for (int32_t i = 0; i < ndim; i++) k *= shape[i] < 0 ? 0 : shape[i];
            if (len < 0 || (len == 0 && k > 0))
                return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                            "choice: a must be a positive integer unless no samples are taken");
            a = loom_arange_int(ctx, 0, len, 1, LOOM_DTYPE_I64);
        } else {
            a = as_array(P, &b->v[0], b->pos[0], "a");
        }
        if (loom_array_is_nil(a) || (b->given[2] && !get_flag(P, b, 2, &replace)) ||
            (b->given[4] && !axis_value(P, &b->v[4], b->pos[4], "axis", &axis)))
            return false;
        if (b->given[3] && b->v[3].kind != V_NONE) {
            p = as_array(P, &b->v[3], b->pos[3], "p");
            if (loom_array_is_nil(p)) return false;
        }
        /* (shuffle= changes nothing: a sample without replacement is in random order) */
        *r = loom_rng_choice(ctx, seed, stream, a, ndim, shape, replace, p, axis);
        return true;
    }
    if (!strcmp(n, "integers")) {
        int64_t low, high;
        int endpoint;
        loom_dtype_t d;
        if (!get_int(P, b, 0, 0, &low) || !get_int(P, b, 1, 0, &high) ||
            !get_dtype(P, b, kd, LOOM_DTYPE_I64, &d) || !get_flag(P, b, 4, &endpoint))
            return false;
        if (!b->given[1] || b->v[1].kind == V_NONE) { /* integers(high): from 0 */
            high = low;
            low = 0;
            if (endpoint ? high < 0 : high <= 0)
                return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT, "integers: %s",
                            endpoint ? "high < 0" : "high <= 0");
        }
        *r = loom_rng_integers(ctx, seed, stream, low, high, endpoint, d, ndim, shape);
        return true;
    }
    loom_dtype_t d;
    double p0 = 0, p1 = 1;
    if (!get_dtype(P, b, kd, LOOM_DTYPE_F64, &d)) return false;
    if (!strcmp(n, "uniform") || !strcmp(n, "normal")) {
        if (!get_number(P, b, 0, 0, &p0) || !get_number(P, b, 1, 1, &p1)) return false;
    } else if (!strcmp(n, "exponential")) {
        if (!get_number(P, b, 0, 1, &p1)) return false;
    }
    if (n[0] == 'e')
        *r = loom_rng_exponential(ctx, seed, stream, p1, d, ndim, shape);
    else if (n[0] == 'u' || n[0] == 'r')
        *r = loom_rng_uniform(ctx, seed, stream, p0, p1, d, ndim, shape);
    else /* normal, standard_normal */
        *r = loom_rng_normal(ctx, seed, stream, p0, p1, d, ndim, shape);
    return true;
}

/* The nested lists of np.block: their depth (that of the first item, checked against the
 * others with NumPy's message), the lengths in pre-order and the arrays at the leaves. */
typedef struct block_args {
    int32_t depth, nlists, n, cap_lists, cap_arrays;
    int32_t *lens;
    loom_array_t **arrays;
    int32_t path[LOOM_MAX_DIMS + 1];
} block_args_t;

static void block_where(const block_args_t *k, int32_t level, char *out, size_t cap) {
    size_t at = (size_t)snprintf(out, cap, "arrays");
    for (int32_t i = 0; i < level && at < cap; i++)
        at += (size_t)snprintf(out + at, cap - at, "[%d]", (int)k->path[i]);
}

static bool block_collect(parser_t *P, block_args_t *k, const value_t *v, int32_t level,
                          int32_t pos) {
    if (v->kind != V_TUPLE) { /* an array at this depth */
        if (k->depth < 0) k->depth = level;
        if (level != k->depth) {
            char where[160];
            block_where(k, level, where, sizeof where);
            return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "block: List depths are mismatched. First element was at depth %d, but "
                        "there is an element at depth %d (%s)",
                        (int)k->depth, (int)level, where);
        }
        if (k->n == k->cap_arrays) {
            k->cap_arrays = 2 * k->cap_arrays + 8;
            loom_array_t **a = base_arena_alloc(&P->arena, (size_t)k->cap_arrays, sizeof *a);
            if (!a) return perr(P, pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
            if (k->n) memcpy(a, k->arrays, (size_t)k->n * sizeof *a);
            k->arrays = a;
        }
        loom_array_t *a = arg_array(P, v, pos);
        if (loom_array_is_nil(a)) return false;
        k->arrays[k->n++] = a;
        return true;
    }
    if (level >= LOOM_MAX_DIMS)
        return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                    "block: lists nested %d deep (loom allows at most %d)", (int)level + 1,
                    LOOM_MAX_DIMS);
    if (v->n == 0) { /* NumPy names the empty list before looking deeper */
        char where[160];
        block_where(k, level, where, sizeof where);
        return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT, "block: List at %s cannot be empty",
                    where);
    }
    if (k->depth >= 0 && level >= k->depth) {
        char where[160];
        k->path[level] = 0;
        block_where(k, level + 1, where, sizeof where);
        return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                    "block: List depths are mismatched. First element was at depth %d, but "
                    "there is an element at depth %d (%s)",
                    (int)k->depth, (int)level + 1, where);
    }
    if (k->nlists == k->cap_lists) {
        k->cap_lists = 2 * k->cap_lists + 8;
        int32_t *l = base_arena_alloc(&P->arena, (size_t)k->cap_lists, sizeof *l);
        if (!l) return perr(P, pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        if (k->nlists) memcpy(l, k->lens, (size_t)k->nlists * sizeof *l);
        k->lens = l;
    }
    k->lens[k->nlists++] = v->n;
    for (int32_t i = 0; i < v->n; i++) {
        k->path[level] = i;
        if (!block_collect(P, k, &v->items[i], level + 1, pos)) return false;
    }
    return true;
}

/* A slice argument's bound: None (LOOM_NONE) or an int. */
static bool slice_arg_bound(parser_t *P, const value_t *v, int32_t pos, int64_t *out) {
    if (v->kind == V_NONE) {
        *out = LOOM_NONE;
        return true;
    }
    if (v->kind != V_INT && v->kind != V_BOOL)
        return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                    "slice indices must be integers or None, not %s", kind_text(v));
    *out = v->i > INT64_MAX ? INT64_MAX : v->i <= INT64_MIN ? INT64_MIN + 1 : (int64_t)v->i;
    return true;
}

/* The functions of arrange.c (F_ARRANGE), by name: the result in *r, or a tuple or a slice in
 * *out with *r NULL. */
static bool arrange_call(parser_t *P, const func_t *f, const bound_t *b, loom_array_t **r,
                         value_t *out) {
    loom_ctx_t *ctx = P->ctx;
    const char *n = f->name;
    *r = NULL;
    if (!strcmp(n, "slice")) { /* slice(stop) or slice(start, stop[, step]) */
        value_t *items = base_arena_alloc(&P->arena, 3, sizeof *items);
        if (!items) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        int64_t dummy;
        for (int i = 0; i < 3; i++) {
            items[i] = b->given[i] ? b->v[i] : (value_t){.kind = V_NONE};
            if (!slice_arg_bound(P, &items[i], b->pos[i], &dummy)) return false;
        }
        if (!b->given[1]) { /* one argument: the stop */
            items[1] = items[0];
            items[0] = (value_t){.kind = V_NONE};
        }
        *out = (value_t){.kind = V_SLICE, .items = items, .n = 3};
        return true;
    }
    if (!strcmp(n, "identity")) {
        int64_t m;
        loom_dtype_t d;
        if (!get_int(P, b, 0, 0, &m) || !get_dtype(P, b, 1, LOOM_DTYPE_F64, &d)) return false;
        *r = loom_identity(ctx, m, d);
        if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
        return true;
    }
    if (!strcmp(n, "block")) {
        block_args_t k = {.depth = -1};
        if (!block_collect(P, &k, &b->v[0], 0, b->pos[0])) return false;
        *r = loom_block(ctx, k.depth, k.nlists, k.lens, k.n, k.arrays);
        if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
        return true;
    }
    if (strstr(n, "stack")) { /* hstack, vstack, dstack, column_stack: a tuple of arrays */
        const value_t *v = &b->v[0];
        value_t rows; /* an array: NumPy iterates over its first axis */
        if (v->kind == V_ARRAY) {
            int32_t nd = loom_array_ndim(v->a);
            int64_t m = nd ? loom_array_dim(v->a, 0) : 0;
            if (nd == 0 || m > 4096)
                return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT, "%s: %s", n,
                            nd ? "at most 4096 arrays" : "iteration over a 0-d array");
            loom_array_t **outs = base_arena_alloc(&P->arena, (size_t)(m ? m : 1), sizeof *outs);
            if (!outs) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
            if (loom_unstack(ctx, v->a, 0, outs) != LOOM_STATUS_OK) return lib_fail(P, b->pos[0]);
            if (!array_tuple(P, (int32_t)m, outs, b->pos[0], &rows)) return false;
            v = &rows;
        }
        if (v->kind != V_TUPLE)
            return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: arrays must be a tuple or list of arrays, not %s", n, kind_text(v));
        if (v->n == 0)
            return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                        "need at least one array to concatenate");
        loom_array_t **xs = base_arena_alloc(&P->arena, (size_t)v->n, sizeof *xs);
        if (!xs) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        /* NumPy 2's dtype= and casting= of hstack and vstack: each array cast first */
        static const char *const castings[] = {"no", "equiv", "safe", "same_kind", "unsafe"};
        int dt = -1, casting = LOOM_CASTING_SAME_KIND;
        if (n[0] == 'h' || n[0] == 'v') {
            loom_dtype_t d;
            if (b->given[1] && b->v[1].kind != V_NONE) {
                if (!get_dtype(P, b, 1, 0, &d)) return false;
                dt = (int)d;
            }
            casting = choice_arg(P, b, 2, castings, 5, LOOM_CASTING_SAME_KIND);
            if (casting < 0)
                return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                            "'unsafe'",
                            n);
        }
        for (int32_t i = 0; i < v->n; i++)
            if (loom_array_is_nil(xs[i] = arg_array(P, &v->items[i], b->pos[0]))) return false;
        /* each array cast into dtype=, or (casting= alone) checked against the common dtype */
        int to = dt;
        if (dt < 0 && b->given[2]) {
            to = loom_array_dtype(xs[0]);
            for (int32_t i = 1; i < v->n && to >= 0; i++)
                to = loom_dtype_promote((loom_dtype_t)to, loom_array_dtype(xs[i]));
        }
        for (int32_t i = 0; i < v->n && to >= 0; i++) {
            loom_dtype_t from = loom_array_dtype(xs[i]);
            if (loom_can_cast(from, (loom_dtype_t)to, (loom_casting_t)casting) != 1)
                return perr(P, b->pos[dt >= 0 ? 1 : 2], LOOM_STATUS_DTYPE_ERROR,
                            "%s: Cannot cast array data from dtype('%s') to dtype('%s') according "
                            "to the rule '%s'",
                            n, loom_dtype_name(from), loom_dtype_name((loom_dtype_t)to),
                            castings[casting]);
            if (dt >= 0) xs[i] = loom_astype(ctx, xs[i], (loom_dtype_t)dt);
        }
        *r = (n[0] == 'h'   ? loom_hstack
              : n[0] == 'v' ? loom_vstack
              : n[0] == 'd' ? loom_dstack
                            : loom_column_stack)(ctx, v->n, xs);
        if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
        return true;
    }
    loom_array_t *a = arg_array(P, &b->v[0], b->pos[0]);
    if (loom_array_is_nil(a)) return false;
    int64_t k = 0;
    int32_t naxes, axes[LOOM_MAX_DIMS];
    if (strstr(n, "split")) {
        const value_t *v = &b->v[1];
        int32_t m;
        int64_t *at = NULL;
        loom_status_t (*split)(loom_ctx_t *, loom_array_t *, int32_t, const int64_t *,
                               loom_array_t **) = n[0] == 'h'   ? loom_hsplit
                                                  : n[0] == 'v' ? loom_vsplit
                                                                : loom_dsplit;
        if (v->kind == V_TUPLE) { /* split points */
            if (v->n > 4095)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: at most 4095 split points", n);
            at = base_arena_alloc(&P->arena, (size_t)(v->n ? v->n : 1), sizeof *at);
            if (!at) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
            for (int32_t i = 0; i < v->n; i++) {
                if (v->items[i].kind != V_INT || v->items[i].i < INT64_MIN ||
                    v->items[i].i > INT64_MAX)
                    return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                                "%s: split points must be integers", n);
                at[i] = (int64_t)v->items[i].i;
            }
            m = v->n;
        } else {
            if (v->kind != V_INT)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: indices_or_sections must be a number of sections or a list of "
                            "split points",
                            n);
            if (!get_int(P, b, 1, 1, &k)) return false;
            if (k <= 0 || k > 4096)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: number sections must be in 1..4096 (%lld)", n, (long long)k);
            m = (int32_t)k;
        }
        int32_t nout = at ? m + 1 : m;
        loom_array_t **outs = base_arena_alloc(&P->arena, (size_t)nout, sizeof *outs);
        if (!outs) return perr(P, b->pos[0], LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        if (split(ctx, a, m, at, outs) != LOOM_STATUS_OK) return lib_fail(P, b->pos[0]);
        return array_tuple(P, nout, outs, b->pos[0], out);
    }
    if (!strcmp(n, "fliplr") || !strcmp(n, "flipud")) {
        *r = (n[4] == 'l' ? loom_fliplr : loom_flipud)(ctx, a);
    } else if (!strcmp(n, "rollaxis")) {
        int32_t ax, start = 0;
        if (!axis_value(P, &b->v[1], b->pos[1], "axis", &ax) ||
            (b->given[2] && !axis_value(P, &b->v[2], b->pos[2], "start", &start)))
            return false;
        *r = loom_rollaxis(ctx, a, ax, start);
    } else if (!strcmp(n, "append") || !strcmp(n, "insert") || !strcmp(n, "delete")) {
        int vslot = n[0] == 'd' ? -1 : n[0] == 'a' ? 1 : 2, aslot = n[0] == 'i' ? 3 : 2;
        loom_array_t *vals = NULL;
        if (vslot >= 0 && loom_array_is_nil(vals = arg_array(P, &b->v[vslot], b->pos[vslot])))
            return false;
        if (!get_axes(P, b, aslot, false, &naxes, axes)) return false;
        int32_t axis = naxes < 0 ? LOOM_AXIS_NONE : axes[0];
        if (n[0] == 'a') {
            *r = loom_append(ctx, a, vals, axis);
        } else if (b->v[1].kind == V_SLICE) {
            int64_t s[3];
            for (int i = 0; i < 3; i++)
                if (!slice_arg_bound(P, &b->v[1].items[i], b->pos[1], &s[i])) return false;
            if (s[2] == 0)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "slice step cannot be zero");
            *r = n[0] == 'i' ? loom_insert_slice(ctx, a, s[0], s[1], s[2], vals, axis)
                             : loom_delete_slice(ctx, a, s[0], s[1], s[2], axis);
        } else if (b->v[1].kind == V_INT) { /* one index: no sync (bool: an array, as NumPy) */
            if (!get_int(P, b, 1, 0, &k)) return false;
            *r = n[0] == 'i' ? loom_insert_index(ctx, a, k, vals, axis)
                             : loom_delete_index(ctx, a, k, axis);
        } else if (b->v[1].kind == V_FLOAT) {
            return perr(P, b->pos[1], LOOM_STATUS_INDEX_ERROR,
                        "%s: arrays used as indices must be of integer (or boolean) type", n);
        } else {
            /* a list: NumPy's np.array(obj) (an empty one as intp) */
            const value_t *o = &b->v[1];
            loom_array_t *obj = o->kind == V_TUPLE && o->n == 0
                                    ? loom_zeros(ctx, LOOM_DTYPE_I64, 1, (int64_t[1]){0})
                                    : arg_array(P, o, b->pos[1]);
            if (loom_array_is_nil(obj)) return false;
            *r =
                n[0] == 'i' ? loom_insert(ctx, a, obj, vals, axis) : loom_delete(ctx, a, obj, axis);
        }
    } else if (!strcmp(n, "resize")) {
        int32_t nd;
        int64_t shape[LOOM_MAX_DIMS];
        if (!get_shape(P, b, 1, &nd, shape)) return false;
        *r = loom_resize(ctx, a, nd, shape);
    } else if (!strcmp(n, "trim_zeros")) {
        int trim = LOOM_TRIM_FRONT | LOOM_TRIM_BACK;
        if (b->given[1]) {
            const value_t *t = &b->v[1];
            trim = 0;
            for (int32_t i = 0; t->kind == V_STR && i < t->tlen && trim >= 0; i++) {
                char c = P->src[t->tpos + i];
                trim |= c == 'f' || c == 'F'   ? LOOM_TRIM_FRONT
                        : c == 'b' || c == 'B' ? LOOM_TRIM_BACK
                                               : -64;
            }
            /* NumPy accepts exactly 'fb', 'bf', 'f' and 'b' (any case) */
            if (t->kind != V_STR || trim <= 0 || t->tlen > 2 ||
                (t->tlen == 2 && trim != (LOOM_TRIM_FRONT | LOOM_TRIM_BACK)))
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "trim_zeros: unexpected character(s) in `trim`: '%.*s'",
                            t->kind == V_STR ? (int)(t->tlen > 40 ? 40 : t->tlen) : 0,
                            P->src + (t->kind == V_STR ? t->tpos : 0));
        }
        if (!get_axes(P, b, 2, true, &naxes, axes)) return false;
        *r = loom_trim_zeros(ctx, a, trim, naxes < 0 ? 0 : naxes, naxes < 0 ? NULL : axes);
    } else { /* diagflat */
        if (!get_int(P, b, 1, 0, &k)) return false;
        *r = loom_diagflat(ctx, a, k);
    }
    if (loom_array_is_nil(*r)) return lib_fail(P, b->pos[0]);
    return true;
}

/* order='C' or 'F' of unravel_index and ravel_multi_index: 1 for F, -1 (recorded) otherwise. */
static int order_arg(parser_t *P, const bound_t *b, int slot) {
    static const char *const orders[] = {"C", "F"};
    int o = choice_arg(P, b, slot, orders, 2, 0);
    if (o < 0)
        perr(P, b->pos[slot], LOOM_STATUS_INVALID_ARGUMENT, "only 'C' or 'F' order is permitted");
    return o;
}

/* The index helpers: unravel_index, ravel_multi_index, tril/triu_indices(_from),
 * diag_indices(_from) and ix_; a tuple of arrays in *out (ravel_multi_index: *r). */
static bool index_help_call(parser_t *P, const func_t *f, const bound_t *b, int32_t fpos,
                            loom_array_t **r, value_t *out) {
    loom_ctx_t *ctx = P->ctx;
    const char *n = f->name;
    loom_array_t *outs[64];
    int32_t nd = 0;
    int64_t dims[LOOM_MAX_DIMS];
    loom_status_t st;
    *r = NULL;
    if (!strcmp(n, "unravel_index") || !strcmp(n, "ravel_multi_index")) {
        if (!get_shape(P, b, 1, &nd, dims)) return false;
        int order_f = order_arg(P, b, n[0] == 'u' ? 2 : 3);
        if (order_f < 0) return false;
        if (n[0] == 'u') {
            loom_array_t *x = as_array(P, &b->v[0], b->pos[0], "the indices");
            if (loom_array_is_nil(x)) return false;
            if (loom_unravel_index(ctx, x, nd, dims, order_f, outs) != LOOM_STATUS_OK)
                return lib_fail(P, fpos);
            return array_tuple(P, nd, outs, fpos, out);
        }
        const value_t *mi = &b->v[0];
        int32_t m = 0;
        if (mi->kind == V_TUPLE) {
            for (int32_t i = 0; i < mi->n && i < LOOM_MAX_DIMS; i++)
                if (loom_array_is_nil(
                        outs[m++] = as_array(P, &mi->items[i], b->pos[0], "a coordinate array")))
                    return false;
            if (mi->n > LOOM_MAX_DIMS) m = mi->n;
        } else { /* an array: its rows */
            loom_array_t *all = as_array(P, mi, b->pos[0], "multi_index");
            if (loom_array_is_nil(all)) return false;
            m = loom_array_ndim(all) ? (int32_t)loom_array_dim(all, 0) : 0;
            for (int32_t i = 0; i < m && i < LOOM_MAX_DIMS; i++) {
                int64_t s0 = i, s1 = i + 1;
                outs[i] =
                    loom_squeeze(ctx, loom_slice(ctx, all, 1, &s0, &s1, NULL), 1, (int32_t[]){0});
            }
        }
        if (m != nd)
            return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                        "parameter multi_index must be a sequence of length %d", (int)nd);
        loom_take_mode_t modes[LOOM_MAX_DIMS];
        const value_t *mv = &b->v[2];
        bool per_axis = b->given[2] && mv->kind == V_TUPLE;
        if (per_axis && mv->n != nd)
            return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                        "list of clipmodes has wrong length (%d instead of %d)", (int)mv->n,
                        (int)nd);
        for (int32_t i = 0; i < nd; i++) {
            int k = LOOM_TAKE_RAISE;
            if (per_axis) {
                const value_t *e = &mv->items[i];
                k = -1;
                for (int c = 0; e->kind == V_STR && c < 3; c++)
                    if ((size_t)e->tlen == strlen(take_modes[c]) &&
                        !strncmp(P->src + e->tpos, take_modes[c], (size_t)e->tlen))
                        k = c;
            } else {
                k = choice_arg(P, b, 2, take_modes, 3, LOOM_TAKE_RAISE);
            }
            if (k < 0)
                return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                            "clipmode must be one of 'clip', 'raise', or 'wrap'");
            modes[i] = (loom_take_mode_t)k;
        }
        *r = loom_ravel_multi_index(ctx, nd, outs, dims, modes, order_f);
        return !loom_array_is_nil(*r) || lib_fail(P, fpos);
    }
    if (!strncmp(n, "tril_indices", 12) || !strncmp(n, "triu_indices", 12)) {
        int64_t rows, k, cols = LOOM_NONE;
        if (n[12] == '_') { /* _from(arr, k): arr's shape */
            loom_array_t *a = as_array(P, &b->v[0], b->pos[0], "arr");
            if (loom_array_is_nil(a)) return false;
            if (loom_array_ndim(a) != 2)
                return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: input array must be 2-d", n);
            rows = loom_array_dim(a, 0), cols = loom_array_dim(a, 1);
            if (!get_int(P, b, 1, 0, &k)) return false;
        } else if (!get_int(P, b, 0, 0, &rows) || !get_int(P, b, 1, 0, &k) ||
                   !get_int(P, b, 2, LOOM_NONE, &cols)) {
            return false;
        }
        st = (n[3] == 'l' ? loom_tril_indices : loom_triu_indices)(ctx, rows, k, cols, outs);
        if (st != LOOM_STATUS_OK) return lib_fail(P, fpos);
        return array_tuple(P, 2, outs, fpos, out);
    }
    if (!strcmp(n, "diag_indices") || !strcmp(n, "diag_indices_from")) {
        int64_t len, ndim = 2;
        if (n[12] == '_') {
            loom_array_t *a = as_array(P, &b->v[0], b->pos[0], "arr");
            if (loom_array_is_nil(a)) return false;
            ndim = loom_array_ndim(a);
            if (ndim < 2)
                return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: input array must be at least 2-d", n);
            len = loom_array_dim(a, 0);
            for (int32_t i = 1; i < ndim; i++)
                if (loom_array_dim(a, i) != len)
                    return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                                "%s: All dimensions of input must be of equal length", n);
        } else if (!get_int(P, b, 0, 0, &len) || !get_int(P, b, 1, 2, &ndim)) {
            return false;
        }
        if (ndim < 0 || ndim > 16)
            return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: ndim %lld (loom returns at most 16 arrays)", n, (long long)ndim);
        if (loom_diag_indices(ctx, len, (int32_t)ndim, outs) != LOOM_STATUS_OK)
            return lib_fail(P, fpos);
        return array_tuple(P, (int32_t)ndim, outs, fpos, out);
    }
    /* ix_(*args) */
    const value_t *v = &b->v[0];
    int32_t m = b->given[0] ? v->n : 0;
    if (m > LOOM_MAX_DIMS)
        return perr(P, fpos, LOOM_STATUS_INVALID_ARGUMENT, "ix_: %d arrays (loom allows %d)",
                    (int)m, LOOM_MAX_DIMS);
    loom_array_t *xs[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < m; i++)
        if (loom_array_is_nil(xs[i] = as_array(P, &v->items[i], b->var_pos[i], "an argument")))
            return false;
    if (loom_ix(ctx, m, xs, outs) != LOOM_STATUS_OK) return lib_fail(P, fpos);
    return array_tuple(P, m, outs, fpos, out);
}

/* put, put_along_axis, place, putmask, copyto, fill_diagonal: the updated first argument. */
static bool update_call(parser_t *P, const func_t *f, const bound_t *b, loom_array_t **r) {
    loom_ctx_t *ctx = P->ctx;
    const char *n = f->name;
    loom_array_t *x[3] = {NULL, NULL, NULL};
    int given = !strcmp(n, "fill_diagonal") ? 2 : !strcmp(n, "copyto") ? 2 : 3;
    for (int i = 0; i < given; i++) {
        x[i] = i == 0 ? arg_array(P, &b->v[i], b->pos[i])
                      : as_array(P, &b->v[i], b->pos[i], b->names[i]);
        if (loom_array_is_nil(x[i])) return false;
    }
    if (!strncmp(n, "put", 3) && strcmp(n, "putmask") && loom_array_size(x[1]) == 0)
        x[1] = loom_astype(ctx, x[1], LOOM_DTYPE_I64); /* (indices []: NumPy's intp) */
    if (!strcmp(n, "put")) {
        int k = choice_arg(P, b, 3, take_modes, 3, LOOM_TAKE_RAISE);
        if (k < 0)
            return perr(P, b->pos[3], LOOM_STATUS_INVALID_ARGUMENT,
                        "clipmode must be one of 'clip', 'raise', or 'wrap'");
        *r = loom_put(ctx, x[0], x[1], x[2], (loom_take_mode_t)k);
    } else if (!strcmp(n, "put_along_axis")) {
        int32_t naxes, axis = 0;
        if (!get_axes(P, b, 3, false, &naxes, &axis)) return false;
        *r = loom_put_along_axis(ctx, x[0], x[1], x[2], naxes < 0 ? LOOM_AXIS_NONE : axis);
    } else if (!strcmp(n, "place")) {
        *r = loom_place(ctx, x[0], x[1], x[2]);
    } else if (!strcmp(n, "putmask")) {
        *r = loom_putmask(ctx, x[0], x[1], x[2]);
    } else if (!strcmp(n, "copyto")) {
        static const char *const rules[] = {"no", "equiv", "safe", "same_kind", "unsafe"};
        int c = choice_arg(P, b, 2, rules, 5, LOOM_CASTING_SAME_KIND);
        if (c < 0)
            return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                        "casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe'");
        const value_t *w = &b->v[3];
        if (b->given[3] && !(w->kind == V_BOOL && w->i)) { /* (where=True: everywhere) */
            x[2] = as_array(P, w, b->pos[3], "where");
            if (loom_array_is_nil(x[2])) return false;
        }
        *r = loom_copyto(ctx, x[0], x[1], (loom_casting_t)c, x[2]);
    } else { /* fill_diagonal */
        int wrap;
        if (!get_flag(P, b, 2, &wrap)) return false;
        *r = loom_fill_diagonal(ctx, x[0], x[1], wrap);
    }
    return true;
}

/* histogram's bins=: a count, edges, or (est, NUL-terminated) the name of one of NumPy's
 * estimators. */
static bool hist_bins(parser_t *P, const bound_t *b, int slot, int64_t *bins, loom_array_t **edges,
                      char est[16]) {
    const value_t *v = &b->v[slot];
    *edges = NULL;
    est[0] = '\0';
    if (b->given[slot] && (v->kind == V_ARRAY || v->kind == V_TUPLE)) {
        *edges = as_array(P, v, b->pos[slot], "bins");
        return !loom_array_is_nil(*edges);
    }
    if (b->given[slot] && v->kind == V_STR) { /* (loom_histogram_bin_count checks the name) */
        snprintf(est, 16, "%.*s", (int)(v->tlen < 15 ? v->tlen : 15), P->src + v->tpos);
        if (v->tlen > 15) est[0] = '?';
        return true;
    }
    return get_int(P, b, slot, 10, bins);
}

static bool hist_range(parser_t *P, const value_t *rg, int32_t pos, double *lo, double *hi) {
    *lo = *hi = NAN;
    if (rg->kind == V_NONE) return true;
    if (rg->kind != V_TUPLE || rg->n != 2 || !is_num(&rg->items[0]) || !is_num(&rg->items[1]))
        return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                    "histogram: range must be a pair of numbers (min, max)");
    *lo = num_f(&rg->items[0]);
    *hi = num_f(&rg->items[1]);
    return true;
}

/* histogram2d(x, y, ...) and histogramdd(sample, ...): (hist, edges of each axis), flat. */
static bool histdd_call(parser_t *P, const func_t *f, const bound_t *b, int32_t fpos,
                        value_t *out) {
    loom_ctx_t *ctx = P->ctx;
    bool two = f->name[9] == '2';
    int sb = two ? 2 : 1; /* the slot of bins; range, density and weights follow */
    int64_t minus1 = -1;
    loom_array_t *sample;
    if (two) {
        loom_array_t *xy[2];
        for (int i = 0; i < 2; i++)
            if (loom_array_is_nil(xy[i] = as_array(P, &b->v[i], b->pos[i], b->names[i])))
                return false;
        if (loom_array_size(xy[0]) != loom_array_size(xy[1]))
            return perr(P, fpos, LOOM_STATUS_INVALID_ARGUMENT,
                        "x and y must have the same length.");
        for (int i = 0; i < 2; i++) xy[i] = loom_reshape(ctx, xy[i], 1, &minus1);
        sample = loom_stack(ctx, 2, xy, 1);
    } else if (b->v[0].kind == V_TUPLE && b->v[0].n > 0 && b->v[0].items[0].kind != V_INT &&
               b->v[0].items[0].kind != V_FLOAT && b->v[0].items[0].kind != V_BOOL &&
               b->v[0].items[0].kind != V_TUPLE) { /* a sequence of coordinate arrays */
        loom_array_t *cs[LOOM_MAX_DIMS];
        if (b->v[0].n > LOOM_MAX_DIMS)
            return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                        "histogramdd: %d dimensions (loom allows %d)", (int)b->v[0].n,
                        LOOM_MAX_DIMS);
        for (int32_t i = 0; i < b->v[0].n; i++)
            if (loom_array_is_nil(cs[i] = as_array(P, &b->v[0].items[i], b->pos[0], "sample")))
                return false;
        sample = loom_stack(ctx, b->v[0].n, cs, 1);
    } else {
        sample = as_array(P, &b->v[0], b->pos[0], "sample");
        if (!loom_array_is_nil(sample) && loom_array_ndim(sample) < 2) {
            int64_t col[2] = {-1, 1};
            sample = loom_reshape(ctx, sample, 2, col);
        }
    }
    if (loom_array_is_nil(sample)) return lib_fail(P, b->pos[0]);
    if (loom_array_ndim(sample) != 2)
        return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                    "histogramdd: sample must be (N, D), not %d-d", (int)loom_array_ndim(sample));
    int32_t d = (int32_t)loom_array_dim(sample, 1);
    if (d < 1 || d > LOOM_MAX_DIMS)
        return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                    "histogramdd: %d dimensions (loom allows 1 to %d)", (int)d, LOOM_MAX_DIMS);
    int64_t bins[LOOM_MAX_DIMS];
    loom_array_t *edges[LOOM_MAX_DIMS] = {NULL};
    double lo[LOOM_MAX_DIMS], hi[LOOM_MAX_DIMS];
    const value_t *bv = &b->v[sb];
    /* bins: one count for all axes; a sequence of one count or edges per axis; or (2-d, as
     * NumPy's histogram2d) one array of edges for both */
    bool per_axis = b->given[sb] && bv->kind == V_TUPLE && (!two || bv->n == 2);
    if (per_axis && bv->n != d)
        return perr(P, b->pos[sb], LOOM_STATUS_INVALID_ARGUMENT,
                    "The dimension of bins must be equal to the dimension of the sample x.");
    for (int32_t i = 0; i < d; i++) {
        const value_t *e = per_axis ? &bv->items[i] : bv;
        bins[i] = 10;
        if (!b->given[sb] || e->kind == V_NONE) continue;
        if (e->kind == V_INT || e->kind == V_BOOL) {
            bins[i] = (int64_t)e->i;
        } else if (e->kind == V_ARRAY || e->kind == V_TUPLE) {
            if (!two && !per_axis)
                return perr(P, b->pos[sb], LOOM_STATUS_INVALID_ARGUMENT,
                            "The dimension of bins must be equal to the dimension of the "
                            "sample x.");
            edges[i] = as_array(P, e, b->pos[sb], "bins");
            if (loom_array_is_nil(edges[i])) return false;
        } else {
            return perr(P, b->pos[sb], LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: bins must be integers or arrays of edges, not %s", f->name,
                        kind_text(e));
        }
    }
    const value_t *rv = &b->v[sb + 1];
    bool has_range = b->given[sb + 1] && rv->kind != V_NONE;
    if (has_range && (rv->kind != V_TUPLE || rv->n != d))
        return perr(P, b->pos[sb + 1], LOOM_STATUS_INVALID_ARGUMENT,
                    "%s: range must hold one (min, max) pair or None per dimension", f->name);
    for (int32_t i = 0; i < d; i++) {
        lo[i] = hi[i] = NAN;
        if (has_range && !hist_range(P, &rv->items[i], b->pos[sb + 1], &lo[i], &hi[i]))
            return false;
    }
    int dens = 0;
    loom_array_t *w = NULL;
    if (!get_flag(P, b, sb + 2, &dens)) return false;
    if (b->given[sb + 3] && b->v[sb + 3].kind != V_NONE) {
        w = as_array(P, &b->v[sb + 3], b->pos[sb + 3], "the weights");
        if (loom_array_is_nil(w)) return false;
        w = loom_reshape(ctx, w, 1, &minus1);
    }
    loom_array_t *res[1 + LOOM_MAX_DIMS];
    if (loom_histogramdd(ctx, sample, d, bins, edges, lo, hi, w, dens, &res[0], res + 1) !=
        LOOM_STATUS_OK)
        return lib_fail(P, fpos);
    return array_tuple(P, 1 + d, res, fpos, out);
}

/* f on its bound arguments; fpos is the call's caret. Not inlined into call_func: its locals
 * would then be on the stack while bind evaluates arguments, once per level of nesting. */
__attribute__((noinline)) static bool apply_func(parser_t *P, const func_t *f, int32_t fpos,
                                                 const bound_t *b, value_t *out) {
    loom_ctx_t *ctx = P->ctx;
    loom_array_t *r = NULL;
    loom_array_t *x[3];
    switch (f->kind) {
        case F_LATER:
            return perr(P, fpos, LOOM_STATUS_NOT_AVAILABLE, "'%s' is not supported yet (%s)",
                        f->name, f->later);
        case F_REDUCE:
        case F_ARGRED:
        case F_MOMENTS: {
            int32_t naxes, axes[LOOM_MAX_DIMS];
            int keep;
            double ddof = 0;
            int rd;
            x[0] = arg_array(P, &b->v[0], b->pos[0]);
            if (loom_array_is_nil(x[0]) || !refuse_given(P, f, b, "out") ||
                !get_axes(P, b, 1, f->kind != F_ARGRED, &naxes, axes) ||
                !get_flag(P, b, slot_of(b, "keepdims"), &keep) ||
                !reduce_dtype(P, b, &x[0], &rd))
                return false;
            /* a 0-d array takes axis 0 or -1 (loom_sum & co.), but not inside a tuple */
            if (loom_array_ndim(x[0]) == 0 && b->v[1].kind == V_TUPLE && naxes > 0)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: axis %d is out of bounds for array of dimension 0", f->name,
                            (int)axes[0]);
            if (f->kind == F_MOMENTS) {
                /* NumPy 2's correction= (the Array API's name) or ddof=, not both */
                int kd = slot_of(b, "ddof"), kc = slot_of(b, "correction");
                bool has_c = b->given[kc] && b->v[kc].kind != V_NONE;
                if (has_c && b->given[kd] && b->v[kd].kind != V_NONE)
                    return perr(P, b->pos[kc], LOOM_STATUS_INVALID_ARGUMENT,
                                "%s: ddof and correction can't be provided simultaneously",
                                f->name);
                if (!get_number(P, b, has_c ? kc : kd, 0, &ddof)) return false;
                r = f->m(ctx, x[0], naxes, axes, keep, ddof);
            } else {
                r = f->r(ctx, x[0], naxes, axes, keep);
            }
            if (rd >= 0) r = loom_astype(ctx, r, (loom_dtype_t)rd); /* (sum of bools: dtype) */
            break;
        }
        case F_SCAN: {
            int32_t naxes, axis;
            int rd;
            x[0] = arg_array(P, &b->v[0], b->pos[0]);
            if (loom_array_is_nil(x[0]) || !refuse_given(P, f, b, "out") ||
                !get_axes(P, b, 1, false, &naxes, &axis) || !reduce_dtype(P, b, &x[0], &rd))
                return false;
            r = f->s(ctx, x[0], naxes < 0 ? LOOM_AXIS_NONE : axis);
            if (rd >= 0) r = loom_astype(ctx, r, (loom_dtype_t)rd);
            break;
        }
        case F_SHAPE: {
            int32_t nd;
            int64_t shape[LOOM_MAX_DIMS];
            x[0] = arg_array(P, &b->v[0], b->pos[0]);
            if (loom_array_is_nil(x[0]) || !get_shape(P, b, 1, &nd, shape)) return false;
            r = f->sh(ctx, x[0], nd, shape);
            break;
        }
        case F_AXES: {
            int32_t naxes, axes[LOOM_MAX_DIMS];
            x[0] = arg_array(P, &b->v[0], b->pos[0]);
            if (loom_array_is_nil(x[0]) || !get_axes(P, b, 1, true, &naxes, axes)) return false;
            if (naxes < 0 && f->ax == loom_expand_dims)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "expand_dims: 'axis' must be an integer or a tuple of integers");
            r = f->ax(ctx, x[0], naxes < 0 ? 0 : naxes, naxes < 0 ? NULL : axes);
            break;
        }
        case F_MOVEAXIS: {
            int32_t ns, nd, src[LOOM_MAX_DIMS], dst[LOOM_MAX_DIMS];
            x[0] = arg_array(P, &b->v[0], b->pos[0]);
            if (loom_array_is_nil(x[0]) || !get_axes(P, b, 1, true, &ns, src) ||
                !get_axes(P, b, 2, true, &nd, dst))
                return false;
            if (ns < 0 || nd < 0 || ns != nd)
                return perr(P, fpos, LOOM_STATUS_INVALID_ARGUMENT,
                            "moveaxis: `source` and `destination` arguments must have the same "
                            "number of elements");
            r = loom_moveaxis(ctx, x[0], ns, src, dst);
            break;
        }
        case F_RAVEL: {
            int64_t all = -1;
            x[0] = arg_array(P, &b->v[0], b->pos[0]);
            if (loom_array_is_nil(x[0])) return false;
            r = loom_reshape(ctx, x[0], 1, &all);
            break;
        }
        case F_RANDOM:
            if (!random_call(P, f, b, &r)) return false;
            break;
        case F_MANIP:
            if (!manip_call(P, f, b, &r, out)) return false;
            if (!r) return true; /* a tuple or another value, in *out */
            break;
        case F_JOIN:
            if (!join_call(P, f, b, &r)) return false;
            break;
        case F_ARRANGE:
            if (!arrange_call(P, f, b, &r, out)) return false;
            if (!r) return true; /* a tuple or a slice, in *out */
            break;
        case F_COUNT_NZ: {
            int32_t naxes, axes[LOOM_MAX_DIMS];
            int keep;
            x[0] = as_array(P, &b->v[0], b->pos[0], "the argument");
            if (loom_array_is_nil(x[0]) || !get_axes(P, b, 1, true, &naxes, axes) ||
                !get_flag(P, b, 2, &keep))
                return false;
            r = loom_count_nonzero(ctx, x[0], naxes, naxes < 0 ? NULL : axes, keep);
            break;
        }
        case F_MASK1:
            x[0] = as_array(P, &b->v[0], b->pos[0], "the argument");
            if (loom_array_is_nil(x[0])) return false;
            r = f->name[0] == 'f' ? loom_flatnonzero(ctx, x[0]) : loom_argwhere(ctx, x[0]);
            break;
        case F_NONZERO:
            x[0] = as_array(P, &b->v[0], b->pos[0], "the argument");
            if (loom_array_is_nil(x[0])) return false;
            return nonzero_tuple(P, x[0], fpos, out);
        case F_COMPRESS:
        case F_EXTRACT: {
            int32_t naxes = -1, axis;
            for (int i = 0; i < 2; i++) {
                x[i] = as_array(P, &b->v[i], b->pos[i], "an argument");
                if (loom_array_is_nil(x[i])) return false;
            }
            if (f->kind == F_EXTRACT) {
                r = loom_extract(ctx, x[0], x[1]);
                break;
            }
            if (!refuse_given(P, f, b, "out") || !get_axes(P, b, 2, false, &naxes, &axis))
                return false;
            r = loom_compress(ctx, x[0], x[1], naxes < 0 ? LOOM_AXIS_NONE : axis);
            break;
        }
        case F_SORT: {
            int32_t naxes, axis = -1;
            x[0] = as_array(P, &b->v[0], b->pos[0], "the argument");
            if (loom_array_is_nil(x[0]) || !refuse_given(P, f, b, "order")) return false;
            if (b->given[1] && !get_axes(P, b, 1, false, &naxes, &axis)) return false;
            if (b->given[1] && naxes < 0) axis = LOOM_AXIS_NONE;
            int desc = 0; /* the Array API's descending=: stable, equal elements in order */
            if (!get_flag(P, b, 5, &desc)) return false;
            bool values = f->name[0] == 's';
            if (!desc) {
                r = (values ? loom_sort : loom_argsort)(ctx, x[0], axis);
                break;
            }
            if (axis == LOOM_AXIS_NONE) {
                int64_t flat = -1;
                x[0] = loom_reshape(ctx, x[0], 1, &flat);
                axis = 0;
            }
            /* the ascending sort of the reversed line, reversed: equal elements keep their
             * order; argsort's positions then count from the other end */
            int32_t ax = axis;
            loom_array_t *s = loom_flip(ctx, (values ? loom_sort : loom_argsort)(
                                                 ctx, loom_flip(ctx, x[0], 1, &ax), axis),
                                        1, &ax);
            if (!values && !loom_array_is_nil(s)) {
                int32_t nd = loom_array_ndim(x[0]);
                int64_t last = loom_array_dim(x[0], ax < 0 ? ax + nd : ax) - 1;
                s = loom_subtract(ctx, loom_weak_int(ctx, last), s);
            }
            r = s;
            break;
        }
        case F_SEARCHSORTED: {
            int right = 0;
            loom_array_t *sorter = NULL;
            for (int i = 0; i < 2; i++) {
                x[i] = as_array(P, &b->v[i], b->pos[i], "an argument");
                if (loom_array_is_nil(x[i])) return false;
            }
            if (b->given[2] && b->v[2].kind != V_NONE) {
                const value_t *m = &b->v[2];
                bool l = m->kind == V_STR && m->tlen == 4 && !strncmp(P->src + m->tpos, "left", 4);
                right = m->kind == V_STR && m->tlen == 5 && !strncmp(P->src + m->tpos, "right", 5);
                if (!l && !right)
                    return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                                "searchsorted: side must be 'left' or 'right'");
            }
            if (b->given[3] && b->v[3].kind != V_NONE) {
                sorter = as_array(P, &b->v[3], b->pos[3], "the sorter");
                if (loom_array_is_nil(sorter)) return false;
            }
            r = loom_searchsorted(ctx, x[0], x[1], right, sorter);
            break;
        }
        case F_UNIQUE:
        case F_UNIQUE_API: {
            int want[3] = {0, 0, 0}, eqnan = 1; /* index, inverse, counts */
            int32_t uaxis = LOOM_AXIS_NONE;
            x[0] = as_array(P, &b->v[0], b->pos[0], "the argument");
            if (loom_array_is_nil(x[0])) return false;
            if (f->kind == F_UNIQUE) {
                for (int i = 0; i < 3; i++)
                    if (!get_flag(P, b, 1 + i, &want[i])) return false;
                int64_t e = 1;
                int32_t naxes;
                if (b->given[4] && !get_axes(P, b, 4, false, &naxes, &uaxis)) return false;
                if (b->given[4] && naxes < 0) uaxis = LOOM_AXIS_NONE;
                if (!get_int(P, b, 5, 1, &e)) return false;
                eqnan = e != 0;
            } else { /* unique_values, unique_counts, unique_inverse, unique_all: the Array
                      * API's, whose NaNs are all distinct (NumPy's equal_nan=False), sorted */
                eqnan = false;
                char w = f->name[7];
                want[0] = w == 'a';
                want[1] = w == 'a' || w == 'i';
                want[2] = w == 'a' || w == 'c';
            }
            loom_array_t *res[4] = {NULL, NULL, NULL, NULL};
            if (loom_unique_axis(ctx, x[0], uaxis, eqnan, &res[0], want[0] ? &res[1] : NULL,
                                 want[1] ? &res[2] : NULL,
                                 want[2] ? &res[3] : NULL) != LOOM_STATUS_OK)
                return lib_fail(P, fpos);
            int nr = 0;
            loom_array_t *list[4];
            for (int i = 0; i < 4; i++)
                if (res[i]) list[nr++] = res[i];
            if (nr == 1) {
                r = list[0];
                break;
            }
            return array_tuple(P, nr, list, fpos, out);
        }
        case F_ISIN: {
            int inv;
            for (int i = 0; i < 2; i++) {
                x[i] = as_array(P, &b->v[i], b->pos[i], "an argument");
                if (loom_array_is_nil(x[i])) return false;
            }
            if (!get_flag(P, b, 3, &inv)) return false;
            r = loom_isin(ctx, x[0], x[1], inv);
            break;
        }
        case F_SET2:
            for (int i = 0; i < 2; i++) {
                x[i] = as_array(P, &b->v[i], b->pos[i], "an argument");
                if (loom_array_is_nil(x[i])) return false;
            }
            if (!refuse_given(P, f, b, "return_indices")) return false;
            if (!strcmp(f->name, "setxor1d")) {
                int assume;
                if (!get_flag(P, b, 2, &assume)) return false;
                r = loom_setxor1d(ctx, x[0], x[1], assume);
                break;
            }
            r = f->name[0] == 'i'   ? loom_intersect1d(ctx, x[0], x[1])
                : f->name[0] == 'u' ? loom_union1d(ctx, x[0], x[1])
                                    : loom_setdiff1d(ctx, x[0], x[1]);
            break;
        case F_BINCOUNT: {
            int64_t minlength = 0;
            loom_array_t *w = NULL;
            x[0] = as_array(P, &b->v[0], b->pos[0], "the argument");
            if (loom_array_is_nil(x[0]) || !get_int(P, b, 2, 0, &minlength)) return false;
            if (b->given[1] && b->v[1].kind != V_NONE) {
                w = as_array(P, &b->v[1], b->pos[1], "the weights");
                if (loom_array_is_nil(w)) return false;
            }
            r = loom_bincount(ctx, x[0], w, minlength);
            break;
        }
        case F_HISTOGRAM: {
            int64_t bins = 10;
            double lo = NAN, hi = NAN;
            loom_array_t *edges = NULL, *w = NULL, *res[2] = {NULL, NULL};
            bool only_edges = f->name[9] == '_'; /* histogram_bin_edges: no density= */
            int sw = only_edges ? 3 : 4;
            char est[16];
            x[0] = as_array(P, &b->v[0], b->pos[0], "the argument");
            if (loom_array_is_nil(x[0]) || !hist_bins(P, b, 1, &bins, &edges, est)) return false;
            if (b->given[2] && !hist_range(P, &b->v[2], b->pos[2], &lo, &hi)) return false;
            int dens = 0;
            if (!only_edges && !get_flag(P, b, 3, &dens)) return false;
            if (b->given[sw] && b->v[sw].kind != V_NONE) {
                w = as_array(P, &b->v[sw], b->pos[sw], "the weights");
                if (loom_array_is_nil(w)) return false;
            }
            if (est[0] && w)
                return perr(P, b->pos[sw], LOOM_STATUS_DTYPE_ERROR,
                            "Automated estimation of the number of bins is not supported for "
                            "weighted data");
            bool ranged = lo == lo || hi == hi;
            if (est[0] && loom_histogram_bin_count(ctx, x[0], est, &lo, &hi, &bins))
                return lib_fail(P, b->pos[1]);
            loom_dtype_t xd = loom_array_dtype(x[0]);
            if (est[0] && !ranged && (xd == LOOM_DTYPE_F16 || xd == LOOM_DTYPE_F32))
                lo = hi = NAN; /* the data's edges in its arithmetic, as NumPy (another sync) */
            if (loom_histogram(ctx, x[0], bins, edges, lo, hi, w, &res[0], &res[1]) !=
                LOOM_STATUS_OK)
                return lib_fail(P, fpos);
            if (only_edges) {
                r = res[1];
                break;
            }
            if (dens) res[0] = loom_histogram_density(ctx, res[0], res[1]);
            return array_tuple(P, 2, res, fpos, out);
        }
        case F_HISTDD:
            return histdd_call(P, f, b, fpos, out);
        case F_INDEX_HELP:
            if (!index_help_call(P, f, b, fpos, &r, out)) return false;
            if (!r) return true; /* a tuple, in *out */
            break;
        case F_UPDATE:
            if (!update_call(P, f, b, &r)) return false;
            break;
        case F_LEXSORT:
        case F_CHOOSE: {
            const value_t *kv = &b->v[f->kind == F_LEXSORT ? 0 : 1];
            loom_array_t *list[LOOM_MAX_DIMS * 4];
            int32_t nk = 0, axis = -1, naxes;
            if (kv->kind == V_TUPLE) {
                if (kv->n > (int32_t)(sizeof list / sizeof *list))
                    return perr(P, fpos, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d arrays is too many",
                                f->name, (int)kv->n);
                for (int32_t i = 0; i < kv->n; i++) {
                    list[nk] = as_array(P, &kv->items[i], fpos, "an array");
                    if (loom_array_is_nil(list[nk++])) return false;
                }
            } else { /* an array: its rows */
                loom_array_t *all = as_array(P, kv, fpos, "the keys");
                if (loom_array_is_nil(all)) return false;
                int64_t rows = loom_array_ndim(all) ? loom_array_dim(all, 0) : 0;
                if (rows > (int64_t)(sizeof list / sizeof *list) || loom_array_ndim(all) < 1)
                    return perr(P, fpos, LOOM_STATUS_INVALID_ARGUMENT,
                                "%s: give the arrays as a tuple or the rows of an array", f->name);
                for (int64_t i = 0; i < rows; i++) {
                    int64_t st = i, sp = i + 1;
                    list[nk++] = loom_squeeze(
                        ctx, loom_slice(ctx, all, 1, &st, &sp, NULL), 1, (int32_t[]){0});
                }
            }
            if (f->kind == F_LEXSORT) {
                if (b->given[1] && !get_axes(P, b, 1, false, &naxes, &axis)) return false;
                r = loom_lexsort(ctx, nk, list, axis);
                break;
            }
            loom_take_mode_t mode = LOOM_TAKE_RAISE;
            x[0] = as_array(P, &b->v[0], b->pos[0], "the argument");
            if (loom_array_is_nil(x[0]) || !refuse_given(P, f, b, "out")) return false;
            if (b->given[3] && b->v[3].kind == V_STR) /* unknown: -1, loom_choose says so */
                mode = (loom_take_mode_t)choice_arg(P, b, 3, take_modes, 3, LOOM_TAKE_RAISE);
            r = loom_choose(ctx, x[0], nk, list, mode);
            break;
        }
        case F_PARTITION: {
            int64_t kth;
            int32_t naxes, axis = -1;
            x[0] = as_array(P, &b->v[0], b->pos[0], "the argument");
            if (loom_array_is_nil(x[0]) || !get_int(P, b, 1, 0, &kth) ||
                !refuse_given(P, f, b, "order"))
                return false;
            if (b->given[2] && !get_axes(P, b, 2, false, &naxes, &axis)) return false;
            if (b->given[2] && naxes < 0) axis = LOOM_AXIS_NONE;
            r = (f->name[0] == 'p' ? loom_partition : loom_argpartition)(ctx, x[0], kth, axis);
            break;
        }
        case F_TOP_K: {
            int64_t k;
            int32_t naxes, axis = -1;
            loom_array_t *res[2] = {NULL, NULL};
            x[0] = as_array(P, &b->v[0], b->pos[0], "the argument");
            if (loom_array_is_nil(x[0]) || !get_int(P, b, 1, 0, &k)) return false;
            if (b->given[2] && !get_axes(P, b, 2, false, &naxes, &axis)) return false;
            if (loom_top_k(ctx, x[0], k, axis, &res[0], &res[1]) != LOOM_STATUS_OK)
                return lib_fail(P, fpos);
            return array_tuple(P, 2, res, fpos, out);
        }
        case F_TAKE:
        case F_TAKE_ALONG: {
            int32_t naxes, axis;
            loom_take_mode_t mode = LOOM_TAKE_RAISE;
            x[0] = arg_array(P, &b->v[0], b->pos[0]);
            if (loom_array_is_nil(x[0])) return false;
            x[1] = as_array(P, &b->v[1], b->pos[1], "the indices");
            if (loom_array_is_nil(x[1]) || !get_axes(P, b, 2, false, &naxes, &axis)) return false;
            if (f->kind == F_TAKE_ALONG) { /* axis: -1 when not given (NumPy 2.3) */
                r = loom_take_along_axis(ctx, x[0], x[1],
                                         !b->given[2] ? -1
                                         : naxes < 0  ? LOOM_AXIS_NONE
                                                      : axis);
                break;
            }
            if (!refuse_given(P, f, b, "out")) return false;
            int k = choice_arg(P, b, 4, take_modes, 3, (int)mode);
            if (k < 0)
                return perr(P, b->pos[4], LOOM_STATUS_INVALID_ARGUMENT,
                            "take: mode must be 'raise', 'wrap' or 'clip'");
            mode = (loom_take_mode_t)k;
            r = loom_take(ctx, x[0], x[1], naxes < 0 ? LOOM_AXIS_NONE : axis, mode);
            break;
        }
        case F_UNARY:
            x[0] = as_array(P, &b->v[0], b->pos[0], "the argument");
            if (loom_array_is_nil(x[0])) return false;
            r = f->u(ctx, x[0]);
            break;
        case F_WHERE:
            if (!b->given[1] && !b->given[2]) { /* where(condition): nonzero(condition) */
                x[0] = as_array(P, &b->v[0], b->pos[0], "the condition");
                if (loom_array_is_nil(x[0])) return false;
                return nonzero_tuple(P, x[0], fpos, out);
            }
            if (!b->given[1] || !b->given[2])
                return perr(P, fpos, LOOM_STATUS_INVALID_ARGUMENT,
                            "where: either both or neither of x and y should be given");
            /* fall through */
        case F_BINARY:
            for (int i = 0; i < (f->kind == F_WHERE ? 3 : 2); i++) {
                x[i] = as_array(P, &b->v[i], b->pos[i], "an argument");
                if (loom_array_is_nil(x[i])) return false;
            }
            r = f->kind == F_WHERE ? loom_where(ctx, x[0], x[1], x[2]) : f->b(ctx, x[0], x[1]);
            break;
        case F_CLIP: {
            int lo = b->given[3] ? 3 : 1, hi = b->given[4] ? 4 : 2;
            if ((b->given[3] && b->given[1]) || (b->given[4] && b->given[2]))
                return perr(P, fpos, LOOM_STATUS_INVALID_ARGUMENT,
                            "clip: give a_min or min (a_max or max), not both");
            bool has_lo = b->given[lo] && b->v[lo].kind != V_NONE;
            bool has_hi = b->given[hi] && b->v[hi].kind != V_NONE;
            /* neither bound: the array as it is (NumPy 2.1's np.clip(x), the Array API's; a
             * number becomes a strong array, as np.clip(3) is int64) */
            r = has_lo || has_hi ? as_array(P, &b->v[0], b->pos[0], "the argument")
                                 : as_output(P, &b->v[0], b->pos[0]);
            if (loom_array_is_nil(r)) return false;
            /* NumPy 2 clips an integer array by a Python int beyond its dtype's range without
             * an overflow error: such a bound on the side it cannot bind is dropped. */
            loom_dtype_t ad = loom_array_dtype(r);
            bool int_arr = b->v[0].kind == V_ARRAY && ad != LOOM_DTYPE_BOOL && ad < LOOM_DTYPE_F16;
            if (int_arr && has_lo && b->v[lo].kind == V_INT && !int_fits(b->v[lo].i, ad) &&
                b->v[lo].i < 0)
                has_lo = false;
            if (int_arr && has_hi && b->v[hi].kind == V_INT && !int_fits(b->v[hi].i, ad) &&
                b->v[hi].i > 0)
                has_hi = false;
            /* One bound is np.maximum or np.minimum; both, np.clip's own loop (signed zeros). */
            loom_array_t *l = has_lo ? as_array(P, &b->v[lo], b->pos[lo], "a_min") : NULL;
            loom_array_t *h = has_hi ? as_array(P, &b->v[hi], b->pos[hi], "a_max") : NULL;
            if ((l && loom_array_is_nil(l)) || (h && loom_array_is_nil(h))) return false;
            if (l || h)
                r = l && h ? loom_clip(ctx, r, l, h)
                    : l    ? loom_maximum(ctx, r, l)
                           : loom_minimum(ctx, r, h);
            break;
        }
        case F_ASTYPE: {
            loom_dtype_t d;
            if (b->v[0].kind != V_ARRAY)
                return perr(P, b->pos[0], LOOM_STATUS_INVALID_ARGUMENT,
                            "astype needs an array, not %s (Python numbers have no astype; write "
                            "float32(x) for a 0-d array)",
                            kind_text(&b->v[0]));
            x[0] = as_array(P, &b->v[0], b->pos[0], "the argument");
            if (loom_array_is_nil(x[0]) || !get_dtype(P, b, 1, 0, &d)) return false;
            r = loom_astype(ctx, x[0], d);
            break;
        }
        case F_ARRAY: { /* np.asarray: numbers and lists become strong arrays */
            x[0] = as_output(P, &b->v[0], b->pos[0]);
            if (loom_array_is_nil(x[0])) return false;
            loom_dtype_t d;
            if (!get_dtype(P, b, 1, (int)loom_array_dtype(x[0]), &d)) return false;
            /* NumPy refuses complex Python numbers into a real dtype (arrays cast) */
            if (b->v[0].kind != V_ARRAY && ir_is_complex(loom_array_dtype(x[0])) &&
                !ir_is_complex(d))
                return perr(P, b->pos[0], LOOM_STATUS_DTYPE_ERROR,
                            "array: complex numbers cannot become %s (take np.real first)",
                            loom_dtype_name(d));
            r = loom_astype(ctx, x[0], d);
            break;
        }
        case F_COPY: { /* arrays are values: a copy is the array itself (x[k] = v on it
                        * rebinds the copy's name alone); numbers and lists become arrays */
            static const char *const orders[] = {"K", "A", "C", "F"};
            if (choice_arg(P, b, 1, orders, 4, 0) < 0)
                return perr(P, b->pos[1], LOOM_STATUS_INVALID_ARGUMENT,
                            "copy: order must be one of 'K', 'A', 'C' or 'F'");
            r = as_output(P, &b->v[0], b->pos[0]);
            if (loom_array_is_nil(r)) return false;
            break;
        }
        case F_ZEROS:
        case F_ONES:
        case F_FULL: {
            int32_t nd;
            int64_t shape[LOOM_MAX_DIMS];
            loom_dtype_t d;
            int dslot = f->kind == F_FULL ? 2 : 1;
            if (!get_shape(P, b, 0, &nd, shape)) return false;
            if (f->kind != F_FULL) {
                if (!get_dtype(P, b, dslot, LOOM_DTYPE_F64, &d)) return false;
                r = f->kind == F_ZEROS ? loom_zeros(ctx, d, nd, shape)
                                       : loom_ones(ctx, d, nd, shape);
                break;
            }
            const value_t *fill = &b->v[1];
            if (fill->kind == V_COMPLEX) { /* complex128 unless a dtype is given */
                if (!get_dtype(P, b, dslot, LOOM_DTYPE_C128, &d)) return false;
                r = ir_is_complex(d)       ? loom_full_complex(ctx, d, nd, shape, fill->f, fill->fi)
                    : d == LOOM_DTYPE_BOOL ? loom_full(ctx, d, nd, shape, fill->f || fill->fi)
                                           : loom_full(ctx, d, nd, shape, fill->f);
                break;
            }
            if (!is_num(fill))
                return perr(
                    P, b->pos[1], LOOM_STATUS_NOT_AVAILABLE,
                    "full: fill_value must be a number (array fill values are not supported)");
            int dflt = fill->kind == V_BOOL    ? LOOM_DTYPE_BOOL
                       : fill->kind == V_FLOAT ? LOOM_DTYPE_F64
                       : fill->i > INT64_MAX   ? LOOM_DTYPE_U64
                                               : LOOM_DTYPE_I64;
            if (!get_dtype(P, b, dslot, dflt, &d)) return false;
            if (fill->kind == V_FLOAT) {
                r = loom_full(ctx, d, nd, shape, fill->f);
            } else if (loom_dtype_size(d) && d != LOOM_DTYPE_BOOL && d < LOOM_DTYPE_F16 &&
                       !int_fits(fill->i, d)) {
                char t[48];
                i128_text(fill->i, t, sizeof t);
                return perr(P, b->pos[1], LOOM_STATUS_OVERFLOW,
                            "Python integer %s out of bounds for %s", t, loom_dtype_name(d));
            } else if ((fill->i >= INT64_MIN && fill->i <= INT64_MAX) || ir_is_int(d)) {
                /* (past int64 into uint64: its bits) */
                r = loom_full_int(ctx, d, nd, shape, (int64_t)(uint64_t)fill->i);
            } else {
                r = loom_full(ctx, d, nd, shape, (double)fill->i);
            }
            break;
        }
        case F_ARANGE: {
            double start, stop, step;
            bool any_float = false;
            for (int i = 0; i < 3; i++)
                any_float = any_float || (b->given[i] && b->v[i].kind == V_FLOAT);
            if (!get_number(P, b, 0, 0, &start) || !get_number(P, b, 1, NAN, &stop) ||
                !get_number(P, b, 2, 1, &step))
                return false;
            if (isnan(stop) && !(b->given[1] && b->v[1].kind != V_NONE)) {
                stop = start;
                start = 0;
            }
            if (step == 0)
                return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT, "arange: step is zero");
            loom_dtype_t d;
            if (!get_dtype(P, b, 3, any_float ? LOOM_DTYPE_F64 : LOOM_DTYPE_I64, &d)) return false;
            /* Python ints (within int64) keep their exact values past 2**53. */
            i128 iv[3] = {0, 0, 1};
            bool ints = !any_float;
            for (int i = 0; i < 3 && ints; i++)
                if (b->given[i] && b->v[i].kind != V_NONE) {
                    iv[i] = b->v[i].i;
                    ints = iv[i] >= INT64_MIN && iv[i] <= INT64_MAX;
                }
            if (ints && !(b->given[1] && b->v[1].kind != V_NONE)) { /* arange(stop) */
                iv[1] = iv[0];
                iv[0] = 0;
            }
            r = ints ? loom_arange_int(ctx, (int64_t)iv[0], (int64_t)iv[1], (int64_t)iv[2], d)
                     : loom_arange(ctx, start, stop, step, d);
            break;
        }
        case F_LINSPACE: {
            double start = 0, stop = 0;
            int64_t num, endpoint;
            loom_dtype_t d;
            if (!get_number(P, b, 0, 0, &start) || !get_number(P, b, 1, 0, &stop) ||
                !get_int(P, b, 2, 50, &num) || !get_int(P, b, 3, 1, &endpoint) ||
                !get_dtype(P, b, 4, LOOM_DTYPE_F64, &d))
                return false;
            if (num < 0)
                return perr(P, b->pos[2], LOOM_STATUS_INVALID_ARGUMENT,
                            "linspace: number of samples, %lld, must be non-negative",
                            (long long)num);
            r = loom_linspace(ctx, start, stop, num, endpoint != 0, d);
            break;
        }
        case F_EYE: {
            int64_t n, m, k;
            loom_dtype_t d;
            if (!get_int(P, b, 0, 0, &n) || !get_int(P, b, 1, n, &m) || !get_int(P, b, 2, 0, &k) ||
                !get_dtype(P, b, 3, LOOM_DTYPE_F64, &d))
                return false;
            r = loom_eye(ctx, n, m, k, d);
            break;
        }
    }
    if (loom_array_is_nil(r)) return lib_fail(P, fpos);
    *out = (value_t){.kind = V_ARRAY, .a = r};
    return true;
}

static bool array_tuple(parser_t *P, int32_t n, loom_array_t *const *arrays, int32_t pos,
                        value_t *out) {
    value_t *items = base_arena_alloc(&P->arena, (size_t)(n ? n : 1), sizeof *items);
    if (!items) return perr(P, pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
    for (int32_t i = 0; i < n; i++) items[i] = (value_t){.kind = V_ARRAY, .a = arrays[i]};
    *out = (value_t){.kind = V_TUPLE, .items = items, .n = n};
    return true;
}

static bool nonzero_tuple(parser_t *P, loom_array_t *a, int32_t pos, value_t *out) {
    loom_array_t *outs[LOOM_MAX_DIMS];
    if (loom_nonzero(P->ctx, a, loom_array_ndim(a), outs) != LOOM_STATUS_OK)
        return lib_fail(P, pos);
    return array_tuple(P, loom_array_ndim(a), outs, pos, out);
}

static bool call_func(parser_t *P, const func_t *f, const node_t *call, const value_t *self,
                      value_t *out) {
    bound_t *b = bound_get(P, call->pos);
    bool ok = b && bind(P, f, call, self, b);
    if (ok) b->linalg = call->kids[0]->kind == N_NAME && call->kids[0]->linalg;
    ok = ok && apply_func(P, f, call->pos, b, out);
    if (b) bound_put(P, b);
    return ok;
}

/* ---- Names ----------------------------------------------------------------------------- */

static bool name_eq(const char *a, int32_t an, const char *b) {
    return strlen(b) == (size_t)an && !strncmp(a, b, (size_t)an);
}

/* The variable s[0..n) when it is assigned, or NULL. */
static var_t *find_var(parser_t *P, const char *s, int32_t n) {
    int32_t e = sym_find(&P->syms, P->src, s, n);
    return e >= 0 && P->vars[e].tpos >= 0 ? &P->vars[e] : NULL;
}

/* The index of the bound array named s[0..n), or -1 (also for one the program never names). */
static int32_t find_input(const parser_t *P, const char *s, int32_t n) {
    for (int32_t i = 0; i < P->n_names; i++)
        if (name_eq(s, n, P->names[i])) return i;
    return -1;
}

/* P->vars for the program's names: none assigned, and each bound array at its name's. False
 * (with the error) when out of memory. */
static bool vars_init(parser_t *P) {
    int32_t n = P->syms.n;
    if (!n) return true;
    P->vars = base_arena_alloc_raw(&P->arena, (size_t)n, sizeof *P->vars);
    P->order = base_arena_alloc_raw(&P->arena, (size_t)n, sizeof *P->order);
    if (!P->vars || !P->order) return perr(P, 0, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
    for (int32_t e = 0; e < n; e++) {
        P->vars[e].tpos = -1;
        P->vars[e].input = -1;
    }
    for (int32_t i = 0; i < P->n_names; i++) {
        int32_t e = sym_find(&P->syms, P->src, P->names[i], (int32_t)strlen(P->names[i]));
        if (e >= 0) P->vars[e].input = i;
    }
    return true;
}

/* "x, y, z" (at most about 300 characters) for messages. */
static void bound_list(const parser_t *P, char *buf, size_t cap) {
    size_t k = 0;
    buf[0] = '\0';
    for (int32_t i = 0; i < P->n_names && k + 1 < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%s", i ? ", " : "", P->names[i]);
    for (int32_t i = 0; i < P->n_assigned && k + 1 < cap; i++) {
        const sym_t *y = &P->syms.at[P->order[i]];
        k += (size_t)snprintf(buf + k, cap - k, "%s%.*s", k ? ", " : "", (int)y->tlen,
                              P->src + y->tpos);
    }
}

__attribute__((noinline)) static bool eval_name(parser_t *P, const node_t *x, value_t *out) {
    const char *s = P->src + x->tpos;
    int32_t n = x->tlen;
    if (!x->np) {
        const var_t *v = &P->vars[x->sym];
        if (v->tpos >= 0) {
            *out = v->v;
            return true;
        }
        if (v->input >= 0) {
            *out = (value_t){.kind = V_ARRAY, .a = P->arrays[v->input]};
            return true;
        }
    }
    if (name_eq(s, n, "inf"))
        *out = mk_float(INFINITY);
    else if (name_eq(s, n, "nan"))
        *out = mk_float(NAN);
    else if (name_eq(s, n, "pi"))
        *out = mk_float(3.141592653589793);
    else if (name_eq(s, n, "e"))
        *out = mk_float(2.718281828459045);
    else if (name_eq(s, n, "newaxis"))
        *out = (value_t){.kind = V_NONE};
    else {
        int d = dtype_by_name(s, n);
        if (d >= 0 && n > 2) {
            bool py = name_eq(s, n, "int") || name_eq(s, n, "float") || name_eq(s, n, "bool");
            *out = (value_t){.kind = V_DTYPE, .dtype = d, .pytype = py && !x->np};
            return true;
        }
        if (x->random || find_func(s, n))
            return perr(P, x->pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "'%s%.*s' is a function: call it, as in %s%.*s(x)",
                        x->random ? "random." : "", (int)n, s, x->random ? "random." : "", (int)n,
                        s);
        char list[400];
        bound_list(P, list, sizeof list);
        return perr(P, x->pos, LOOM_STATUS_INVALID_ARGUMENT, "unknown name '%.*s' (%s%s)",
                    (int)(n > 60 ? 60 : n), s, list[0] ? "bound names: " : "no names are bound",
                    list);
    }
    return true;
}

/* ---- Evaluation ------------------------------------------------------------------------ */

static binary_fn array_binop(int op) {
    switch (op) {
        case OP_PLUS:
            return loom_add;
        case OP_MINUS:
            return loom_subtract;
        case OP_STAR:
            return loom_multiply;
        case OP_SLASH:
            return loom_true_divide;
        case OP_FLOORDIV:
            return loom_floor_divide;
        case OP_PERCENT:
            return loom_remainder;
        case OP_POW:
            return loom_power;
        case OP_AMP:
            return loom_bitwise_and;
        case OP_PIPE:
            return loom_bitwise_or;
        case OP_CARET:
            return loom_bitwise_xor;
        case OP_LSHIFT:
            return loom_left_shift;
        case OP_RSHIFT:
            return loom_right_shift;
        case OP_LT:
            return loom_less;
        case OP_LE:
            return loom_less_equal;
        case OP_GT:
            return loom_greater;
        case OP_GE:
            return loom_greater_equal;
        case OP_EQ:
            return loom_equal;
        case OP_NE:
            return loom_not_equal;
        case OP_AT:
            return loom_matmul;
        default:
            return NULL;
    }
}

/* NumPy's `**` on a float array and a Python number (array_power's fast_scalar_power, not
 * np.power): exponent int 2 is np.square, int -1 np.reciprocal, float 0.5 np.sqrt. NULL where
 * the general power applies. */
static loom_array_t *fast_power(loom_ctx_t *ctx, loom_array_t *base, const value_t *e) {
    loom_dtype_t d = loom_array_dtype(base);
    if (d != LOOM_DTYPE_F16 && d != LOOM_DTYPE_F32 && d != LOOM_DTYPE_F64 &&
        d != LOOM_DTYPE_C64 && d != LOOM_DTYPE_C128)
        return NULL;
    if (e->kind == V_INT && e->i == 2) return loom_square(ctx, base);
    if (e->kind == V_INT && e->i == -1) return loom_reciprocal(ctx, base);
    if (e->kind == V_FLOAT && e->f == 0.5) return loom_sqrt(ctx, base);
    return NULL;
}

/* a OP b where a or b is a Python complex and the other a number: Python's complex arithmetic
 * (division and powers through loom's own complex128 functions, as NumPy computes them). */
static bool py_complex_binary(parser_t *P, int op, int32_t pos, const value_t *a,
                              const value_t *b, value_t *out) {
    double ar = a->kind == V_COMPLEX ? a->f : num_f(a), ai = a->kind == V_COMPLEX ? a->fi : 0;
    double br = b->kind == V_COMPLEX ? b->f : num_f(b), bi = b->kind == V_COMPLEX ? b->fi : 0;
    lm_c128 x = {ar, ai}, y = {br, bi}, r;
    switch (op) {
        case OP_PLUS:
            r = lm_add_c128(x, y);
            break;
        case OP_MINUS:
            r = lm_subtract_c128(x, y);
            break;
        case OP_STAR:
            r = lm_multiply_c128(x, y);
            break;
        case OP_SLASH:
            if (br == 0 && bi == 0)
                return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                            "complex division by zero (Python numbers)");
            r = lm_true_divide_c128(x, y);
            break;
        case OP_POW:
            if (ar == 0 && ai == 0 && (bi != 0 || br < 0))
                return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                            "0.0 to a negative or complex power (Python numbers)");
            r = lm_power_c128(x, y);
            break;
        case OP_EQ:
        case OP_NE:
            *out = mk_bool((ar == br && ai == bi) == (op == OP_EQ));
            return true;
        default:
            return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "unsupported operand types for %s: %s and %s", op_text[op], kind_text(a),
                        kind_text(b));
    }
    *out = mk_complex(r.re, r.im);
    return true;
}

/* a OP b, the operands' values given. */
__attribute__((noinline)) static bool apply_binary(parser_t *P, const node_t *x, const value_t *pa,
                                                   const value_t *pb, value_t *out) {
    value_t a = *pa, b = *pb;
    bool ca = a.kind == V_COMPLEX, cb = b.kind == V_COMPLEX;
    if ((ca || is_num(&a)) && (cb || is_num(&b)) && (ca || cb))
        return py_complex_binary(P, x->op, x->pos, &a, &b, out);
    if (is_num(&a) && is_num(&b)) return py_binary(P, x->op, x->pos, &a, &b, out);
    /* a list next to an array is an array (NumPy); lists alone are Python's (repetition,
     * concatenation), which the language does not have */
    if ((a.kind == V_TUPLE || b.kind == V_TUPLE) && a.kind != V_ARRAY && b.kind != V_ARRAY)
        return perr(P, x->pos, LOOM_STATUS_NOT_AVAILABLE,
                    "operators on lists or tuples alone (Python's repetition and "
                    "concatenation) are not supported; make one of them an array");
    loom_array_t *l = as_array(P, &a, x->kids[0]->pos, "an operand");
    if (loom_array_is_nil(l)) return false;
    loom_array_t *res = x->op == OP_POW && !is_num(&a) ? fast_power(P->ctx, l, &b) : NULL;
    if (res) {
        if (loom_array_is_nil(res)) return lib_fail(P, x->pos);
        *out = (value_t){.kind = V_ARRAY, .a = res};
        return true;
    }
    loom_array_t *r = as_array(P, &b, x->kids[1]->pos, "an operand");
    if (loom_array_is_nil(r)) return false;
    res = array_binop(x->op)(P->ctx, l, r);
    if (loom_array_is_nil(res)) return lib_fail(P, x->pos);
    *out = (value_t){.kind = V_ARRAY, .a = res};
    return true;
}

/* OP a, the operand's value given. */
__attribute__((noinline)) static bool apply_unary(parser_t *P, const node_t *x, const value_t *pa,
                                                  value_t *out) {
    value_t a = *pa;
    if (a.kind == V_COMPLEX) {
        if (x->op == OP_TILDE)
            return perr(P, x->pos, LOOM_STATUS_INVALID_ARGUMENT, "bad operand type for ~: a complex");
        *out = x->op == OP_MINUS ? mk_complex(-a.f, -a.fi) : a;
        return true;
    }
    if (is_num(&a)) {
        if (a.kind == V_FLOAT && x->op == OP_TILDE)
            return perr(P, x->pos, LOOM_STATUS_INVALID_ARGUMENT, "bad operand type for ~: a float");
        if (a.kind == V_FLOAT)
            *out = mk_float(x->op == OP_MINUS ? -a.f : a.f);
        else if (x->op == OP_MINUS) {
            if (a.i == -I128_MAX - 1)
                return perr(P, x->pos, LOOM_STATUS_OVERFLOW, "integer result too large");
            *out = mk_int(-a.i);
        } else
            *out = mk_int(x->op == OP_TILDE ? ~a.i : a.i);
        return true;
    }
    if (a.kind == V_TUPLE)
        return perr(P, x->pos, LOOM_STATUS_INVALID_ARGUMENT, "bad operand type for a unary "
                                                             "operator: a list or tuple");
    loom_array_t *v = as_array(P, &a, x->kids[0]->pos, "the operand");
    if (loom_array_is_nil(v)) return false;
    loom_array_t *r = x->op == OP_MINUS  ? loom_negative(P->ctx, v)
                      : x->op == OP_PLUS ? loom_positive(P->ctx, v)
                                         : loom_invert(P->ctx, v);
    if (loom_array_is_nil(r)) return lib_fail(P, x->pos);
    *out = (value_t){.kind = V_ARRAY, .a = r};
    return true;
}

/* Python's int(), float(), bool() of a number. */
__attribute__((noinline)) static bool py_convert(parser_t *P, const node_t *call, loom_dtype_t d,
                                                 value_t *out) {
    if (call->n != 2 || call->kids[1]->kind == N_KWARG)
        return perr(P, call->pos, LOOM_STATUS_INVALID_ARGUMENT, "%s() takes one argument",
                    d == LOOM_DTYPE_BOOL  ? "bool"
                    : d == LOOM_DTYPE_F64 ? "float"
                                          : "int");
    value_t v;
    if (!eval_node(P, call->kids[1], &v)) return false;
    if (!is_num(&v))
        return perr(P, call->kids[1]->pos, LOOM_STATUS_NOT_AVAILABLE,
                    "Python's int(), float() and bool() take a number here, not %s; use "
                    "astype(x, dtype) for arrays",
                    kind_text(&v));
    if (d == LOOM_DTYPE_BOOL)
        *out = mk_bool(num_f(&v) != 0);
    else if (d == LOOM_DTYPE_F64)
        *out = mk_float(num_f(&v));
    else if (v.kind != V_FLOAT)
        *out = mk_int(v.i);
    else if (!isfinite(v.f) || fabs(v.f) >= 1.7e38)
        return perr(P, call->kids[1]->pos, LOOM_STATUS_OVERFLOW, "cannot convert %g to an integer",
                    v.f);
    else
        *out = mk_int((i128)trunc(v.f));
    return true;
}

/* Python's complex(re=0, im=0): a Python complex of numbers; of arrays, re + 1j * im
 * (loom_complex). */
__attribute__((noinline)) static bool py_complex(parser_t *P, const node_t *call, value_t *out) {
    if (call->n > 3)
        return perr(P, call->pos, LOOM_STATUS_INVALID_ARGUMENT,
                    "complex() takes at most 2 arguments (%d given)", (int)call->n - 1);
    value_t v[2] = {mk_float(0.0), mk_float(0.0)};
    for (int32_t k = 1; k < call->n; k++) {
        if (call->kids[k]->kind == N_KWARG)
            return perr(P, call->kids[k]->pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "complex() takes its parts by position");
        if (!eval_node(P, call->kids[k], &v[k - 1])) return false;
    }
    if ((is_num(&v[0]) || v[0].kind == V_COMPLEX) && (is_num(&v[1]) || v[1].kind == V_COMPLEX)) {
        /* Python's: re + im * 1j, each part possibly complex itself */
        double r0 = v[0].kind == V_COMPLEX ? v[0].f : num_f(&v[0]);
        double i0 = v[0].kind == V_COMPLEX ? v[0].fi : 0.0;
        double r1 = v[1].kind == V_COMPLEX ? v[1].f : num_f(&v[1]);
        double i1 = v[1].kind == V_COMPLEX ? v[1].fi : 0.0;
        *out = mk_complex(r0 - i1, i0 + r1);
        return true;
    }
    loom_array_t *re = as_array(P, &v[0], call->pos, "complex's real part");
    if (loom_array_is_nil(re)) return false;
    loom_array_t *im = as_array(P, &v[1], call->pos, "complex's imaginary part");
    if (loom_array_is_nil(im)) return false;
    loom_array_t *r = loom_complex(P->ctx, re, im);
    if (loom_array_is_nil(r)) return lib_fail(P, call->pos);
    *out = (value_t){.kind = V_ARRAY, .a = r};
    return true;
}

/* The method x calls (x.name(...)), or NULL when x is not a method call or names no method
 * loom has (eval_call then says which). */
static const func_t *method_of(const parser_t *P, const node_t *x) {
    const node_t *callee = x->kids[0];
    if (callee->kind != N_ATTR) return NULL;
    const func_t *f = callee->fn;
    if (!f || !f->method) return NULL;
    for (size_t i = 0; i < BASE_ARRAY_LEN(later_methods); i++)
        if (name_eq(P->src + callee->tpos, callee->tlen, later_methods[i])) return NULL;
    return f;
}

/* The method call x of f (method_of) on self, the receiver's value. */
static bool apply_method(parser_t *P, const node_t *x, const func_t *f, const value_t *self,
                         value_t *out) {
    const node_t *callee = x->kids[0];
    if (self->kind != V_ARRAY)
        return perr(P, callee->tpos, LOOM_STATUS_INVALID_ARGUMENT,
                    "%s has no method '%s' (only arrays do)", kind_text(self), f->name);
    /* x.reshape(2, 3), x.transpose(1, 0): the positional arguments are the tuple. */
    bool pack = (f->kind == F_SHAPE || f->kind == F_AXES) && x->n > 2;
    for (int32_t i = 1; i < x->n && pack; i++) pack = x->kids[i]->kind != N_KWARG;
    if (pack) {
        node_t *t = new_node(P, N_TUPLE, x->kids[1]->pos, x->n - 1);
        node_t *c = new_node(P, N_CALL, x->pos, 2);
        if (!t || !c) return false;
        memcpy(t->kids, x->kids + 1, (size_t)(x->n - 1) * sizeof *t->kids);
        c->kids[0] = x->kids[0];
        c->kids[1] = t;
        return call_func(P, f, c, self, out);
    }
    return call_func(P, f, x, self, out);
}

/* A call of a function by name; a method call only reaches here when it names no method
 * (eval_node runs the others through apply_method). */
static bool eval_call(parser_t *P, const node_t *x, value_t *out) {
    const node_t *callee = x->kids[0];
    if (callee->kind == N_ATTR) {
        const char *s = P->src + callee->tpos;
        int32_t n = callee->tlen;
        for (size_t i = 0; i < BASE_ARRAY_LEN(later_methods); i++)
            if (name_eq(s, n, later_methods[i]))
                return perr(P, callee->tpos, LOOM_STATUS_NOT_AVAILABLE,
                            "'.%s()' is not supported yet", later_methods[i]);
        return perr(P, callee->tpos, LOOM_STATUS_INVALID_ARGUMENT,
                    "arrays have no method '%.*s' here", (int)(n > 60 ? 60 : n), s);
    }
    if (callee->kind != N_NAME)
        return perr(P, x->pos, LOOM_STATUS_INVALID_ARGUMENT, "only named functions can be called");
    const char *s = P->src + callee->tpos;
    int32_t n = callee->tlen;
    if (!callee->np && (P->vars[callee->sym].tpos >= 0 || P->vars[callee->sym].input >= 0))
        return perr(P, x->pos, LOOM_STATUS_INVALID_ARGUMENT, "'%.*s' is an array, not a function",
                    (int)n, s);
    const func_t *f = callee->fn;
    if (f) return call_func(P, f, x, NULL, out);
    int d = dtype_by_name(s, n);
    if (d >= 0 && n > 2) {
        if (!callee->np &&
            (name_eq(s, n, "int") || name_eq(s, n, "float") || name_eq(s, n, "bool")))
            return py_convert(P, x, (loom_dtype_t)d, out);
        if (!callee->np && name_eq(s, n, "complex")) return py_complex(P, x, out);
        /* np.float32(x): x.astype(float32), a strong result. */
        static const func_t as = {.name = "dtype", .kind = F_ASTYPE, .params = "x"};
        bound_t *b = bound_get(P, x->pos);
        bool ok = b && bind(P, &as, x, NULL, b);
        if (ok && b->v[0].kind == V_INT && d != LOOM_DTYPE_BOOL && d < LOOM_DTYPE_F16 &&
            !int_fits(b->v[0].i, (loom_dtype_t)d)) { /* np.int8(300) raises OverflowError */
            char t[48];
            i128_text(b->v[0].i, t, sizeof t);
            perr(P, b->pos[0], LOOM_STATUS_OVERFLOW, "Python integer %s out of bounds for %s", t,
                 loom_dtype_name((loom_dtype_t)d));
            ok = false;
        }
        loom_array_t *a = ok ? as_array(P, &b->v[0], b->pos[0], "the argument") : NULL;
        if (b) bound_put(P, b);
        if (!ok || loom_array_is_nil(a)) return false;
        loom_array_t *r = loom_astype(P->ctx, a, (loom_dtype_t)d);
        if (loom_array_is_nil(r)) return lib_fail(P, x->pos);
        *out = (value_t){.kind = V_ARRAY, .a = r};
        return true;
    }
    if (name_eq(s, n, "abs")) return call_func(P, find_func("absolute", 8), x, NULL, out);
    return perr(P, x->pos, LOOM_STATUS_INVALID_ARGUMENT, "unknown function '%.*s'",
                (int)(n > 60 ? 60 : n), s);
}

/* x.T (all axes reversed) and x.mT (the last two swapped), the object's value given. */
/* An attribute of np.finfo(d) (bits, eps, max, min, smallest_normal, tiny, resolution, dtype:
 * the floats as strong 0-d arrays of d, as NumPy's scalars) or np.iinfo(d) (bits, min, max:
 * Python ints). */
static bool info_attr(parser_t *P, const node_t *x, const value_t *obj, value_t *out) {
    const char *s = P->src + x->tpos;
    int32_t n = x->tlen;
    loom_dtype_t d = (loom_dtype_t)obj->dtype;
    if (name_eq(s, n, "dtype")) {
        *out = (value_t){.kind = V_DTYPE, .dtype = (int)d};
        return true;
    }
    loom_finfo_t f;
    loom_iinfo_t ii;
    if (loom_finfo(d, &f) == 0) {
        if (name_eq(s, n, "bits")) {
            *out = mk_int(f.bits);
            return true;
        }
        const char *const names[] = {"eps", "max", "min", "smallest_normal", "tiny", "resolution"};
        const double vals[] = {f.eps, f.max, f.min, f.smallest_normal, f.smallest_normal,
                               f.resolution};
        for (int i = 0; i < 6; i++)
            if (name_eq(s, n, names[i])) {
                loom_array_t *a = loom_astype(P->ctx, loom_full(P->ctx, LOOM_DTYPE_F64, 0, NULL, vals[i]), d);
                if (loom_array_is_nil(a)) return lib_fail(P, x->tpos);
                *out = (value_t){.kind = V_ARRAY, .a = a};
                return true;
            }
    } else if (loom_iinfo(d, &ii) == 0) {
        if (name_eq(s, n, "bits")) *out = mk_int(ii.bits);
        if (name_eq(s, n, "min")) *out = mk_int(ii.min);
        if (name_eq(s, n, "max")) *out = mk_int((i128)ii.max);
        if (name_eq(s, n, "bits") || name_eq(s, n, "min") || name_eq(s, n, "max")) return true;
    }
    return perr(P, x->tpos, LOOM_STATUS_INVALID_ARGUMENT, "%s of %s has no attribute '%.*s'",
                loom_finfo(d, &f) == 0 ? "finfo" : "iinfo", loom_dtype_name(d),
                (int)(n > 60 ? 60 : n), s);
}

__attribute__((noinline)) static bool apply_attr(parser_t *P, const node_t *x, const value_t *pobj,
                                                 value_t *out) {
    value_t obj = *pobj;
    const char *s = P->src + x->tpos;
    if (obj.kind == V_INFO) return info_attr(P, x, &obj, out);
    if (obj.kind == V_ARRAY && name_eq(s, x->tlen, "dtype")) {
        *out = (value_t){.kind = V_DTYPE, .dtype = (int)loom_array_dtype(obj.a)};
        return true;
    }
    bool t = name_eq(s, x->tlen, "T"), mt = name_eq(s, x->tlen, "mT");
    bool re = name_eq(s, x->tlen, "real"), im = name_eq(s, x->tlen, "imag");
    if (re || im) { /* x.real, x.imag (of a Python number too) */
        if (obj.kind == V_COMPLEX || obj.kind == V_FLOAT || obj.kind == V_INT ||
            obj.kind == V_BOOL) {
            double v = obj.kind == V_COMPLEX ? (re ? obj.f : obj.fi) : re ? num_f(&obj) : 0.0;
            *out = obj.kind == V_COMPLEX || obj.kind == V_FLOAT ? mk_float(v)
                                                               : mk_int(re ? obj.i : 0);
            return true;
        }
        if (obj.kind != V_ARRAY)
            return perr(P, x->tpos, LOOM_STATUS_INVALID_ARGUMENT, "%s has no attribute '%.*s'",
                        kind_text(&obj), (int)x->tlen, s);
        loom_array_t *r = (re ? loom_real : loom_imag)(P->ctx, obj.a);
        if (loom_array_is_nil(r)) return lib_fail(P, x->tpos);
        *out = (value_t){.kind = V_ARRAY, .a = r};
        return true;
    }
    if (!t && !mt)
        return perr(P, x->tpos, LOOM_STATUS_INVALID_ARGUMENT,
                    "attribute '%.*s' is not supported (only .T, .mT, .real, .imag and methods "
                    "such as .astype())",
                    (int)(x->tlen > 60 ? 60 : x->tlen), s);
    if (obj.kind != V_ARRAY)
        return perr(P, x->tpos, LOOM_STATUS_INVALID_ARGUMENT, "%s has no attribute '%.*s'",
                    kind_text(&obj), (int)x->tlen, s);
    loom_array_t *r;
    int32_t nd = loom_array_ndim(obj.a);
    if (t) {
        r = loom_transpose(P->ctx, obj.a, nd, NULL);
    } else {
        if (nd < 2)
            return perr(P, x->tpos, LOOM_STATUS_INVALID_ARGUMENT,
                        "matrix transpose with ndim < 2 is undefined");
        int32_t perm[LOOM_MAX_DIMS];
        for (int32_t i = 0; i < nd; i++) perm[i] = i;
        perm[nd - 2] = nd - 1;
        perm[nd - 1] = nd - 2;
        r = loom_transpose(P->ctx, obj.a, nd, perm);
    }
    if (loom_array_is_nil(r)) return lib_fail(P, x->tpos);
    *out = (value_t){.kind = V_ARRAY, .a = r};
    return true;
}

/* What an index item is (apply_index). */
/* I_NEWAXIS_ADV: a Python bool or 0-d mask among other indices, NumPy's: a new axis (as None)
 * that an advanced index of its count (1 or 0) picks from, with the others' placement. */
enum { I_INT, I_SLICE, I_NONE, I_ELLIPSIS, I_NEWAXIS_ADV };

static bool index_view(parser_t *P, const node_t *x, loom_array_t *arr, const node_t *const *items,
                       int32_t n, const int *kind, const value_t *vals, const int64_t *bounds,
                       int32_t extra, value_t *out);

/* A slice bound: None (LOOM_NONE) or a Python int, clipped to int64 as Python clips. */
static bool slice_bound(parser_t *P, const node_t *k, int64_t *out) {
    *out = LOOM_NONE;
    if (!k) return true;
    value_t v;
    if (!eval_node(P, k, &v)) return false;
    if (v.kind == V_NONE) return true;
    if (v.kind != V_INT && v.kind != V_BOOL)
        return perr(P, k->pos, LOOM_STATUS_INVALID_ARGUMENT,
                    "slice indices must be integers or None, not %s", kind_text(&v));
    *out = v.i > INT64_MAX ? INT64_MAX : v.i < -INT64_MAX ? -INT64_MAX : (int64_t)v.i;
    return true;
}

/* The items of an index of several items, evaluated (N_VALUE nodes; slices as they are),
 * with a boolean mask of k >= 2 axes replaced by its k index arrays (NumPy: m is nonzero(m)
 * there; one sync for the count), each carrying the mask's extent along its axis. */
static bool expand_masks(parser_t *P, const node_t *const **items, int32_t *n) {
    const node_t *const *in = *items;
    node_t **out = base_arena_alloc(&P->arena, (size_t)*n * LOOM_MAX_DIMS, sizeof *out);
    if (!out) return perr(P, in[0]->pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
    int32_t m = 0;
    for (int32_t i = 0; i < *n; i++) {
        if (in[i]->kind == N_SLICE || in[i]->kind == N_VALUE) {
            out[m++] = (node_t *)in[i];
            continue;
        }
        value_t *v = base_arena_alloc(&P->arena, 1, sizeof *v);
        if (!v) return perr(P, in[i]->pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        if (!eval_node(P, in[i], v)) return false;
        int32_t k = v->kind == V_ARRAY && loom_array_dtype(v->a) == LOOM_DTYPE_BOOL
                        ? loom_array_ndim(v->a)
                        : 0;
        loom_array_t *nz[LOOM_MAX_DIMS];
        if (k >= 2) {
            if (m + k + (*n - i - 1) > *n * LOOM_MAX_DIMS || k > LOOM_MAX_DIMS)
                return perr(P, in[i]->pos, LOOM_STATUS_INDEX_ERROR, "too many indices");
            if (loom_nonzero(P->ctx, v->a, k, nz) != LOOM_STATUS_OK) return lib_fail(P, in[i]->pos);
        }
        for (int32_t j = 0; j < (k >= 2 ? k : 1); j++) {
            node_t *c = base_arena_alloc(&P->arena, 1, sizeof *c);
            value_t *cv = k >= 2 ? base_arena_alloc(&P->arena, 1, sizeof *cv) : v;
            if (!c || !cv) return perr(P, in[i]->pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
            if (k >= 2) *cv = (value_t){.kind = V_ARRAY, .a = nz[j]};
            *c = (node_t){.kind = N_VALUE, .pos = in[i]->pos, .pv = cv,
                          .ival = k >= 2 ? loom_array_dim(v->a, j) : -1};
            out[m++] = c;
        }
    }
    *items = (const node_t *const *)out;
    *n = m;
    return true;
}

/* Basic indexing: x[i, a:b:c, None, ...]. The whole index becomes one loom_slice (an integer
 * is a slice of length 1), then loom_squeeze drops the integer-indexed axes and
 * loom_expand_dims inserts the None axes. Boolean and integer-array indexing are refused.
 * The object's value is given; the items are evaluated here. */
static bool apply_index(parser_t *P, const node_t *x, const value_t *pobj, value_t *out) {
    value_t obj = *pobj;
    const node_t *const *items = (const node_t *const *)x->kids + 1;
    int32_t n = x->n - 1;
    if (obj.kind == V_TUPLE) { /* nonzero(m)[0]: Python's tuple indexing */
        value_t k;
        if (n != 1 || items[0]->kind == N_SLICE)
            return perr(P, x->pos, LOOM_STATUS_INVALID_ARGUMENT, "a tuple takes one integer index");
        if (!eval_node(P, items[0], &k)) return false;
        if (k.kind != V_INT || k.i < -(i128)obj.n || k.i >= (i128)obj.n)
            return perr(P, items[0]->pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "tuple index out of range (a tuple of %d)", (int)obj.n);
        *out = obj.items[k.i < 0 ? (int64_t)k.i + obj.n : (int64_t)k.i];
        return true;
    }
    if (obj.kind != V_ARRAY)
        return perr(P, x->pos, LOOM_STATUS_INVALID_ARGUMENT, "%s cannot be indexed",
                    kind_text(&obj));
    if (n == 1 && items[0]->kind == N_TUPLE && P->src[items[0]->pos] == '(') { /* x[(0, 1)] */
        items = (const node_t *const *)items[0]->kids;
        n = x->kids[1]->n;
    }
    value_t whole = {0};
    bool have_whole = false;
    if (n == 1 && items[0]->kind != N_SLICE) { /* x[mask], x[nonzero(m)]: the whole index */
        if (!eval_node(P, items[0], &whole)) return false;
        have_whole = true;
        loom_array_t *l = list_array_as(P, &whole, items[0]->pos, true); /* x[[0, 2]] */
        if (l && loom_array_is_nil(l)) return lib_fail(P, items[0]->pos);
        if (l) whole = (value_t){.kind = V_ARRAY, .a = l};
        loom_array_t *r = NULL;
        if (whole.kind == V_ARRAY && loom_array_dtype(whole.a) == LOOM_DTYPE_BOOL) {
            r = loom_boolean_index(P->ctx, obj.a, whole.a, 0);
        } else if (whole.kind == V_TUPLE && whole.n > 0 && whole.n <= LOOM_MAX_DIMS) {
            loom_array_t *arrs[LOOM_MAX_DIMS];
            int32_t axes[LOOM_MAX_DIMS];
            for (int32_t i = 0; i < whole.n; i++) {
                if (whole.items[i].kind != V_ARRAY)
                    return perr(P, items[0]->pos, LOOM_STATUS_INVALID_ARGUMENT,
                                "an index list must be a rectangular list of integers or bools, "
                                "or a tuple of index arrays");
                arrs[i] = whole.items[i].a;
                axes[i] = i;
            }
            r = loom_gather(P->ctx, obj.a, whole.n, axes, arrs, 0);
        }
        if (r) {
            if (loom_array_is_nil(r)) return lib_fail(P, items[0]->pos);
            *out = (value_t){.kind = V_ARRAY, .a = r};
            return true;
        }
    }
    if (n > 1 && !expand_masks(P, &items, &n)) return false;
    int *kind = n ? base_arena_alloc(&P->arena, (size_t)n, sizeof *kind) : NULL;
    value_t *vals = n ? base_arena_alloc(&P->arena, (size_t)n, sizeof *vals) : NULL;
    int64_t *bounds = n ? base_arena_alloc(&P->arena, 3 * (size_t)n, sizeof *bounds) : NULL;
    if (n && (!kind || !vals || !bounds))
        return perr(P, x->pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
    int32_t nd = loom_array_ndim(obj.a), used = 0, ellipsis = -1, fancy[LOOM_MAX_DIMS], n_fancy = 0;
    int64_t mask_len[LOOM_MAX_DIMS]; /* per index array: a 1-D mask's length, else -1 */
    for (int32_t i = 0; i < LOOM_MAX_DIMS; i++) mask_len[i] = -2;
    for (int32_t i = 0; i < n; i++) {
        const node_t *it = items[i];
        if (it->kind == N_SLICE) {
            kind[i] = I_SLICE;
            used++;
            for (int k = 0; k < 3; k++)
                if (!slice_bound(P, it->kids[k], &bounds[3 * i + k])) return false;
            continue;
        }
        if (i == 0 && have_whole)
            vals[0] = whole;
        else if (!eval_node(P, it, &vals[i]))
            return false;
        loom_array_t *l = list_array_as(P, &vals[i], it->pos, true); /* x[:, [0, 2]] */
        if (l && loom_array_is_nil(l)) return lib_fail(P, it->pos);
        if (l) vals[i] = (value_t){.kind = V_ARRAY, .a = l};
        const value_t *v = &vals[i];
        if (v->kind == V_ARRAY && loom_array_dtype(v->a) == LOOM_DTYPE_BOOL &&
            loom_array_ndim(v->a) == 1 && n_fancy < LOOM_MAX_DIMS) {
            /* a 1-D mask among other indices: its positions (its length is checked below) */
            mask_len[n_fancy] = loom_array_dim(v->a, 0);
            vals[i].a = loom_flatnonzero(P->ctx, v->a);
            if (loom_array_is_nil(vals[i].a)) return lib_fail(P, it->pos);
        }
        if (v->kind == V_INT) {
            kind[i] = I_INT;
            used++;
        } else if (v->kind == V_NONE) {
            kind[i] = I_NONE;
        } else if (v->kind == V_ELLIPSIS) {
            if (ellipsis >= 0)
                return perr(P, it->pos, LOOM_STATUS_INVALID_ARGUMENT,
                            "an index can only have a single ellipsis ('...')");
            kind[i] = I_ELLIPSIS;
            ellipsis = i;
        } else if (v->kind == V_BOOL ||
                   (v->kind == V_ARRAY && loom_array_dtype(v->a) == LOOM_DTYPE_BOOL)) {
            /* a 0-d mask: its value now (one sync), as a new axis kept 1 or 0 times */
            uint8_t b = v->kind == V_BOOL ? (uint8_t)(v->i != 0) : 0;
            if (v->kind == V_ARRAY && loom_read(P->ctx, v->a, &b, 1) != LOOM_STATUS_OK)
                return lib_fail(P, it->pos);
            if (n_fancy == LOOM_MAX_DIMS)
                return perr(P, it->pos, LOOM_STATUS_INDEX_ERROR, "too many indices");
            int64_t count = b != 0;
            vals[i] = (value_t){.kind = V_ARRAY, .a = loom_zeros(P->ctx, LOOM_DTYPE_I64, 1, &count)};
            kind[i] = I_NEWAXIS_ADV;
            mask_len[n_fancy] = -1;
            fancy[n_fancy++] = i;
        } else if (v->kind == V_ARRAY) {
            kind[i] = I_SLICE; /* the whole axis here; loom_gather picks from it below */
            bounds[3 * i] = bounds[3 * i + 1] = bounds[3 * i + 2] = LOOM_NONE;
            if (n_fancy == LOOM_MAX_DIMS) /* more would be too many indices anyway */
                return perr(P, it->pos, LOOM_STATUS_INDEX_ERROR, "too many indices");
            if (it->kind == N_VALUE && it->ival >= 0) /* one axis of a mask of several */
                mask_len[n_fancy] = (int64_t)it->ival;
            if (mask_len[n_fancy] == -2) mask_len[n_fancy] = -1; /* not a mask */
            fancy[n_fancy++] = i;
            used++;
        } else if (v->kind == V_SLICE) { /* x[slice(1, 3)]: x[1:3] */
            kind[i] = I_SLICE;
            used++;
            for (int k = 0; k < 3; k++)
                if (!slice_arg_bound(P, &v->items[k], it->pos, &bounds[3 * i + k])) return false;
        } else if (v->kind == V_TUPLE) {
            return perr(P, it->pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "an index list must be a rectangular list of integers or bools");
        } else {
            return perr(P, it->pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "only integers, slices (`:`), ellipsis (`...`) and None are valid "
                        "indices, not %s",
                        kind_text(v));
        }
    }
    if (used > nd)
        return perr(P, x->pos, LOOM_STATUS_INDEX_ERROR,
                    "too many indices for array: array is %d-dimensional, but %d were indexed",
                    (int)nd, (int)used);
    if (!index_view(P, x, obj.a, items, n, kind, vals, bounds, nd - used, out)) return false;
    if (n_fancy == 0) return true;
    /* Integer arrays: NumPy's advanced indexing, with the integers as 0-d index arrays. The
     * index axes stand where the first advanced item's axis was when the advanced items (the
     * arrays and the integers) are adjacent, else whole. */
    int32_t at = 0, oat = 0, first = -1, last = -1, n_adv = 0, f = 0, axes[LOOM_MAX_DIMS];
    int32_t oaxes[LOOM_MAX_DIMS]; /* the axis of obj each index array stands for */
    loom_array_t *idx[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < n; i++) {
        if (f < n_fancy && i == fancy[f]) {
            axes[f] = at;
            oaxes[f] = oat;
            idx[f++] = vals[i].a;
        }
        at += kind[i] == I_SLICE || kind[i] == I_NONE || kind[i] == I_NEWAXIS_ADV ? 1
              : kind[i] == I_ELLIPSIS                                           ? nd - used
                                                                                : 0;
        oat += kind[i] == I_SLICE || kind[i] == I_INT ? 1 : kind[i] == I_ELLIPSIS ? nd - used : 0;
        bool adv = kind[i] == I_INT || (f > 0 && i == fancy[f - 1]);
        if (adv) {
            if (first < 0) first = i;
            last = i;
            n_adv++;
        }
    }
    for (int32_t t = 0; t < n_fancy; t++) {
        int64_t e = loom_array_dim(out->a, axes[t]);
        if (mask_len[t] > 0 && mask_len[t] != e) /* (an empty mask matches any extent) */
            return perr(P, items[fancy[t]]->pos, LOOM_STATUS_INDEX_ERROR,
                        "boolean index did not match indexed array along axis %d; size of axis "
                        "is %lld but size of corresponding boolean axis is %lld",
                        (int)oaxes[t], (long long)e, (long long)mask_len[t]);
    }
    int32_t dest = last - first + 1 == n_adv ? axes[0] : 0;
    loom_array_t *r = loom_gather(P->ctx, out->a, n_fancy, axes, idx, dest);
    if (loom_array_is_nil(r)) return lib_fail(P, items[fancy[0]]->pos);
    out->a = r;
    return true;
}

/* The view of arr that the evaluated index items select (apply_index): kind and vals per
 * item, the three bounds of each slice; `extra` axes taken by an ellipsis. Not inlined: its
 * arrays would be on the stack while apply_index evaluates items, once per nesting level. */
__attribute__((noinline)) static bool index_view(parser_t *P, const node_t *x, loom_array_t *arr,
                                                 const node_t *const *items, int32_t n,
                                                 const int *kind, const value_t *vals,
                                                 const int64_t *bounds, int32_t extra,
                                                 value_t *out) {
    int32_t nd = loom_array_ndim(arr);
    int64_t starts[LOOM_MAX_DIMS], stops[LOOM_MAX_DIMS], steps[LOOM_MAX_DIMS];
    int32_t drop[LOOM_MAX_DIMS], add[2 * LOOM_MAX_DIMS + 1];
    int32_t n_drop = 0, n_add = 0, ia = 0, ra = 0; /* input axis, result axis */
    for (int32_t a = 0; a < nd; a++) starts[a] = stops[a] = steps[a] = LOOM_NONE;
    for (int32_t i = 0; i < n; i++) {
        const node_t *it = items[i];
        switch (kind[i]) {
            case I_ELLIPSIS:
                ia += extra;
                ra += extra;
                break;
            case I_NONE:
            case I_NEWAXIS_ADV:
                if (n_add == (int32_t)BASE_ARRAY_LEN(add) || ra >= LOOM_MAX_DIMS)
                    return perr(P, it->pos, LOOM_STATUS_INVALID_ARGUMENT,
                                "too many None axes (loom allows at most %d axes)", LOOM_MAX_DIMS);
                add[n_add++] = ra++;
                break;
            case I_SLICE:
                starts[ia] = bounds[3 * i];
                stops[ia] = bounds[3 * i + 1];
                steps[ia] = bounds[3 * i + 2];
                if (steps[ia] == 0)
                    return perr(P, it->kids[2]->pos, LOOM_STATUS_INVALID_ARGUMENT,
                                "slice step cannot be zero");
                ia++;
                ra++;
                break;
            default: { /* I_INT */
                int64_t d = loom_array_dim(arr, ia);
                i128 k = vals[i].i;
                if (k < -(i128)d || k >= (i128)d) {
                    char t[48];
                    i128_text(k, t, sizeof t);
                    return perr(P, it->pos, LOOM_STATUS_INDEX_ERROR,
                                "index %s is out of bounds for axis %d with size %lld", t, (int)ia,
                                (long long)d);
                }
                starts[ia] = (int64_t)(k < 0 ? k + d : k);
                stops[ia] = starts[ia] + 1;
                steps[ia] = 1;
                drop[n_drop++] = ia++;
                break;
            }
        }
    }
    loom_array_t *r = arr;
    if (nd > 0) r = loom_slice(P->ctx, r, nd, starts, stops, steps);
    if (n_drop && !loom_array_is_nil(r)) r = loom_squeeze(P->ctx, r, n_drop, drop);
    if (n_add && !loom_array_is_nil(r)) r = loom_expand_dims(P->ctx, r, n_add, add);
    if (loom_array_is_nil(r)) return lib_fail(P, x->pos);
    *out = (value_t){.kind = V_ARRAY, .a = r};
    return true;
}

/* A node that starts no chain (first_kid is NULL): literals, names, calls by name, tuples. */
static bool eval_leaf(parser_t *P, const node_t *x, value_t *out) {
    switch (x->kind) {
        case N_INT:
            *out = mk_int(x->ival);
            return true;
        case N_FLOAT:
            *out = mk_float(x->fval);
            return true;
        case N_IMAG:
            *out = mk_complex(0.0, x->fval);
            return true;
        case N_BOOL:
            *out = mk_bool(x->ival != 0);
            return true;
        case N_NONE:
            *out = (value_t){.kind = V_NONE};
            return true;
        case N_ELLIPSIS:
            *out = (value_t){.kind = V_ELLIPSIS};
            return true;
        case N_STR:
            *out = (value_t){.kind = V_STR, .tpos = x->tpos, .tlen = x->tlen};
            return true;
        case N_NAME:
            return eval_name(P, x, out);
        case N_VALUE:
            *out = *x->pv;
            return true;
        case N_CALL:
            return eval_call(P, x, out);
        case N_TUPLE: {
            value_t *items = x->n ? base_arena_alloc(&P->arena, (size_t)x->n, sizeof *items) : NULL;
            if (x->n && !items) return perr(P, x->pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
            for (int32_t i = 0; i < x->n; i++)
                if (!eval_node(P, x->kids[i], &items[i])) return false;
            *out = (value_t){.kind = V_TUPLE, .items = items, .n = x->n};
            return true;
        }
        default:
            break;
    }
    return perr(P, x->pos, LOOM_STATUS_INTERNAL, "loom: unexpected syntax node %d", (int)x->kind);
}

/* The operand x evaluates first, when x is a step of a chain: the left operand of a binary
 * operator, the operand of a unary one, the object of an attribute, an index or a method
 * call. NULL for other nodes. */
static const node_t *first_kid(const parser_t *P, const node_t *x) {
    switch (x->kind) {
        case N_UNARY:
        case N_ATTR:
        case N_INDEX:
        case N_BINARY:
            return x->kids[0];
        case N_CALL:
            return method_of(P, x) ? x->kids[0]->kids[0] : NULL;
        default:
            return NULL;
    }
}

/* Step f->x, given the value v of its first_kid (of its right operand for a binary operator,
 * whose left one is f->left). */
static bool eval_step(parser_t *P, const frame_t *f, const value_t *v, value_t *out) {
    const node_t *x = f->x;
    switch (x->kind) {
        case N_UNARY:
            return apply_unary(P, x, v, out);
        case N_ATTR:
            return apply_attr(P, x, v, out);
        case N_INDEX:
            return apply_index(P, x, v, out);
        case N_CALL:
            return apply_method(P, x, method_of(P, x), v, out);
        default: /* N_BINARY */
            return apply_binary(P, x, &f->left, v, out);
    }
}

static bool push_frame(parser_t *P, const node_t *x) {
    if (P->n_frames == P->cap_frames) {
        int32_t cap = P->cap_frames ? P->cap_frames * 2 : 16;
        frame_t *fr = base_arena_alloc_raw(&P->arena, (size_t)cap, sizeof *fr);
        if (!fr) return perr(P, x->pos, LOOM_STATUS_OUT_OF_MEMORY, "out of memory");
        if (P->n_frames) memcpy(fr, P->frames, (size_t)P->n_frames * sizeof *fr);
        P->frames = fr;
        P->cap_frames = cap;
    }
    P->frames[P->n_frames++] = (frame_t){.x = x};
    return true;
}

/* Evaluates x in Python's order. Operators and postfix chains (x+x+...+x, -(-x), a**b**c,
 * x[0][0], x.T.T, x.sum().sum()) may be as long as the program, so they are walked with an
 * explicit stack of pending steps (P->frames) instead of recursion: down first_kid to a node
 * that starts no chain, then up, applying steps; a binary operator whose left value is in
 * sends the walk down its right operand first. eval_node recurses only into what nests:
 * arguments, subscripts and tuple items, at most MAX_NESTING deep. */
static bool eval_node(parser_t *P, const node_t *x, value_t *out) {
    int32_t base = P->n_frames;
    value_t v;
    for (;;) {
        for (const node_t *c; (c = first_kid(P, x)); x = c)
            if (!push_frame(P, x)) goto fail;
        if (!eval_leaf(P, x, &v)) goto fail;
        for (;;) {
            if (P->n_frames == base) {
                *out = v;
                return true;
            }
            frame_t *f = &P->frames[P->n_frames - 1];
            if (f->x->kind == N_BINARY && !f->has_left) {
                f->left = v;
                f->has_left = true;
                x = f->x->kids[1];
                break;
            }
            frame_t step = *f;
            value_t r;
            P->n_frames--;
            if (!eval_step(P, &step, &v, &r)) goto fail;
            v = r;
        }
    }
fail:
    P->n_frames = base;
    return false;
}

/* Assigns v to the name numbered sym (at tpos in the text). */
static void set_var(parser_t *P, int32_t sym, int32_t tpos, const value_t *v) {
    var_t *x = &P->vars[sym];
    if (x->tpos < 0) {
        x->tpos = tpos;
        P->order[P->n_assigned++] = sym;
    }
    x->v = *v;
}

/* x[idx] = v: the positions x[idx] selects (the same indexing, applied to x's flat positions)
 * get v (broadcast, cast to x's dtype; a repeated position keeps the last value); *v becomes
 * the new x. */
static bool assign_subscript(parser_t *P, const node_t *target, value_t *v) {
    value_t obj, pos;
    if (!eval_node(P, target->kids[0], &obj)) return false;
    if (obj.kind != V_ARRAY)
        return perr(P, target->pos, LOOM_STATUS_INVALID_ARGUMENT,
                    "only arrays take subscript assignment, not %s", kind_text(&obj));
    loom_array_t *x = obj.a;
    value_t flat = {.kind = V_ARRAY, .a = fe_positions(P->ctx, x)};
    if (loom_array_is_nil(flat.a)) return lib_fail(P, target->pos);
    if (!apply_index(P, target, &flat, &pos)) return false;
    loom_dtype_t xd = loom_array_dtype(x);
    if (v->kind == V_INT && xd < LOOM_DTYPE_F16 && !int_fits(v->i, xd)) { /* NumPy raises */
        char t[48];
        i128_text(v->i, t, sizeof t);
        return perr(P, target->pos, LOOM_STATUS_OVERFLOW, "Python integer %s out of bounds for %s",
                    t, loom_dtype_name(xd));
    }
    loom_array_t *val = as_array(P, v, target->pos, "the assigned value");
    if (loom_array_is_nil(val)) return false;
    loom_array_t *r = fe_scatter(P->ctx, "assignment", x, pos.a, val, LOOM_AT_SET);
    if (loom_array_is_nil(r)) return lib_fail(P, target->pos);
    *v = (value_t){.kind = V_ARRAY, .a = r};
    return true;
}

/* The statement np.<ufunc>.at(x, idx, v) (at_statement): x combined at x[idx] with v, in C
 * order of the positions (every duplicate), into *out. */
static bool apply_at(parser_t *P, const node_t *call, loom_at_op_t op, value_t *out) {
    value_t obj, pos, val;
    if (!eval_node(P, call->kids[1], &obj)) return false;
    if (obj.kind != V_ARRAY)
        return perr(P, call->kids[1]->pos, LOOM_STATUS_INVALID_ARGUMENT,
                    "ufunc.at changes an array, not %s", kind_text(&obj));
    node_t *idx = new_node(P, N_INDEX, call->kids[2]->pos, 2); /* x[indices] */
    if (!idx) return false;
    idx->kids[0] = call->kids[1];
    idx->kids[1] = call->kids[2];
    value_t flat = {.kind = V_ARRAY, .a = fe_positions(P->ctx, obj.a)};
    if (loom_array_is_nil(flat.a)) return lib_fail(P, call->pos);
    if (!apply_index(P, idx, &flat, &pos) || !eval_node(P, call->kids[3], &val)) return false;
    loom_array_t *v = as_array(P, &val, call->kids[3]->pos, "the values");
    if (loom_array_is_nil(v)) return false;
    loom_array_t *r = fe_scatter(P->ctx, "ufunc.at", obj.a, pos.a, v, op);
    if (loom_array_is_nil(r)) return lib_fail(P, call->pos);
    *out = (value_t){.kind = V_ARRAY, .a = r};
    return true;
}

static bool valid_name(const char *s) {
    if (!s || !is_ident_start(s[0])) return false;
    for (const char *p = s; *p; p++)
        if (!is_ident(*p)) return false;
    return true;
}

/* v as one of the program's results at *out (pos: where its error points). */
static bool program_output(parser_t *P, const value_t *v, int32_t pos, loom_array_t **out) {
    *out = as_output(P, v, pos);
    if (loom_array_is_nil(*out)) return P->ctx->err.status ? false : lib_fail(P, pos);
    for (int32_t i = 0; i < P->n_names; i++)
        if (*out == P->arrays[i]) { /* a bound array: the scope holds the result too */
            *out = fe_scope_adopt(P->ctx, *out);
            return !loom_array_is_nil(*out);
        }
    return true;
}

/* Checks the bound names and arrays. */
static bool check_names(parser_t *P) {
    loom_ctx_t *ctx = P->ctx;
    for (int32_t i = 0; i < P->n_names; i++) {
        if (!valid_name(P->names[i]))
            return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                            "loom_parse: name %d (\"%.60s\") is not an identifier", (int)i,
                            P->names[i] ? P->names[i] : "(null)"),
                   false;
        for (int32_t j = 0; j < i; j++)
            if (!strcmp(P->names[i], P->names[j]))
                return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                                "loom_parse: the name '%.60s' is bound twice", P->names[i]),
                       false;
        if (!fe_check_arg(ctx, "loom_parse", P->arrays[i])) {
            if (!ctx->err.status)
                fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                         "loom_parse: the array bound to '%.60s' is nil", P->names[i]);
            return false;
        }
    }
    return true;
}

/* Runs the parsed statements st[0..n_st); then outs[k] gets variable out_names[k] (or the last
 * value), or, when items is not NULL, the last value as items: an array or number is one item,
 * a tuple its entries (at most cap; *is_tuple says which). */
static bool exec_program(parser_t *P, const stmt_t *st, int32_t n_st, int32_t n_outs,
                         const char *const *out_names, loom_array_t **outs, int32_t *items,
                         int *is_tuple) {
    loom_ctx_t *ctx = P->ctx;
    value_t last = {0};
    for (int32_t i = 0; i < n_st; i++) {
        if (st[i].at_op) {
            if (!apply_at(P, st[i].expr, (loom_at_op_t)(st[i].at_op - 1), &last)) return false;
        } else if (!eval_node(P, st[i].expr, &last)) {
            return false;
        }
        if (st[i].target && !assign_subscript(P, st[i].target, &last)) return false;
        if (st[i].n_unpack) {
            if (last.kind != V_TUPLE || last.n != st[i].n_unpack)
                return perr(P, st[i].upos[0], LOOM_STATUS_INVALID_ARGUMENT,
                            "cannot unpack %s into %d names", kind_text(&last),
                            (int)st[i].n_unpack);
            for (int32_t k = 0; k < st[i].n_unpack; k++)
                set_var(P, st[i].usym[k], st[i].upos[k], &last.items[k]);
        }
        if (st[i].tlen) set_var(P, st[i].sym, st[i].tpos, &last);
    }
    if (items) {
        int32_t pos = st[n_st - 1].expr->pos, n = last.kind == V_TUPLE ? last.n : 1;
        *is_tuple = last.kind == V_TUPLE;
        if (n > n_outs)
            return perr(P, pos, LOOM_STATUS_INVALID_ARGUMENT,
                        "a tuple of %d values, room for %d", (int)n, (int)n_outs);
        for (int32_t k = 0; k < n; k++)
            if (!program_output(P, *is_tuple ? &last.items[k] : &last, pos, &outs[k]))
                return false;
        *items = n;
        return true;
    }
    for (int32_t k = 0; k < n_outs; k++) {
        const char *name = out_names ? out_names[k] : NULL;
        value_t v = last;
        int32_t pos = st[n_st - 1].expr->pos;
        if (name) {
            var_t *var = find_var(P, name, (int32_t)strlen(name));
            int32_t in = find_input(P, name, (int32_t)strlen(name));
            if (var) {
                v = var->v;
                pos = var->tpos;
            } else if (in >= 0) {
                v = (value_t){.kind = V_ARRAY, .a = P->arrays[in]};
            } else {
                char list[400];
                bound_list(P, list, sizeof list);
                return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                                "loom_parse: no output named '%.60s' (%s%s)", name,
                                list[0] ? "names: " : "the program names nothing", list),
                       false;
            }
        }
        if (!program_output(P, &v, pos, &outs[k])) return false;
    }
    return true;
}

/* A prepared program (loom_program_create): its text, tokens and statements, kept. */
struct loom_program {
    loom_ctx_t *ctx;
    base_arena_t arena; /* the text, tokens and statements */
    char *text;
    int32_t len;
    tok_t *toks;
    int32_t n_toks;
    stmt_t *st;
    int32_t n_st;
    symtab_t syms;        /* the names of st */
    fe_replay_t **replay; /* loom_program_eval's last run, kept to replay (eval.c) */
};

/* Parses and runs the program, or runs the prepared one's statements (exec_program's
 * outputs). */
static bool run(parser_t *P, const loom_program_t *prep, int32_t n_outs,
                const char *const *out_names, loom_array_t **outs, int32_t *items,
                int *is_tuple) {
    if (!check_names(P)) return false;
    if (prep) {
        P->syms = prep->syms;
        return vars_init(P) &&
               exec_program(P, prep->st, prep->n_st, n_outs, out_names, outs, items, is_tuple);
    }
    stmt_t *st = NULL;
    int32_t n_st = 0;
    if (!tokenize(P) || !parse_program(P, &st, &n_st) || !vars_init(P)) return false;
    return exec_program(P, st, n_st, n_outs, out_names, outs, items, is_tuple);
}

/* loom_parse and its forms: program is the text, or prep (not NULL) a prepared program. */
static loom_status_t parse_into(loom_ctx_t *ctx, const char *program, const loom_program_t *prep,
                                int32_t n_names, const char *const *names,
                                loom_array_t *const *arrays, int32_t n_outs,
                                const char *const *out_names, loom_array_t **outs,
                                int32_t *items, int *is_tuple) {
    if (n_outs < 0 || (n_outs > 0 && !outs))
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "loom_parse: %d outputs at %p",
                        (int)n_outs, (void *)outs);
    for (int32_t k = 0; k < n_outs; k++) outs[k] = &ctx->nil;
    if (ctx->err.status) return ctx->err.status;
    if (!program || n_names < 0 || (n_names > 0 && (!names || !arrays)))
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                        "loom_parse: program %p, %d names at %p, arrays at %p",
                        (const void *)program, (int)n_names, (const void *)names,
                        (const void *)arrays);
    size_t len = prep ? (size_t)prep->len : strlen(program);
    if (len > (size_t)INT32_MAX / 2)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "loom_parse: program of %zu bytes", len);
    parser_t P = {.ctx = ctx,
                  .src = program,
                  .len = (int32_t)len,
                  .toks = prep ? prep->toks : NULL,
                  .n_toks = prep ? prep->n_toks : 0,
                  .n_names = n_names,
                  .names = names,
                  .arrays = arrays};
    _Alignas(16) unsigned char first[8192]; /* a short program's run allocates nothing */
    base_arena_init_buf(&P.arena, &ctx->al, first, sizeof first);
    if (!run(&P, prep, n_outs, out_names, outs, items, is_tuple)) {
        if (!ctx->err.status) fe_error(ctx, LOOM_STATUS_INTERNAL, "loom_parse: failed silently");
        for (int32_t k = 0; k < n_outs; k++) outs[k] = &ctx->nil;
        if (items) *items = 0;
    }
    base_arena_fini(&P.arena);
    return ctx->err.status;
}

LOOM_API loom_status_t loom_parse(loom_ctx_t *ctx, const char *program, int32_t n_names,
                                  const char *const *names, loom_array_t *const *arrays,
                                  int32_t n_outs, const char *const *out_names,
                                  loom_array_t **outs) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    return parse_into(ctx, program, NULL, n_names, names, arrays, n_outs, out_names, outs, NULL,
                      NULL);
}

LOOM_API loom_status_t loom_parse_items(loom_ctx_t *ctx, const char *program, int32_t n_names,
                                        const char *const *names, loom_array_t *const *arrays,
                                        int32_t cap, loom_array_t **outs, int32_t *n_items,
                                        int *is_tuple) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    int tuple = 0;
    int32_t n = 0;
    loom_status_t st = LOOM_STATUS_INVALID_ARGUMENT;
    if (cap < 1 || !n_items)
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "loom_parse_items: room for %d items, count at %p",
                 (int)cap, (void *)n_items);
    else
        st = parse_into(ctx, program, NULL, n_names, names, arrays, cap, NULL, outs, &n, &tuple);
    if (n_items) *n_items = st ? 0 : n;
    if (is_tuple) *is_tuple = st ? 0 : tuple;
    return ctx->err.status;
}

LOOM_API const char *loom_expr_function(int32_t i, const char **params, int *method) {
    if (i < 0 || (size_t)i >= BASE_ARRAY_LEN(funcs)) return NULL;
    if (params) *params = funcs[i].params;
    if (method) *method = funcs[i].method;
    return funcs[i].name;
}

LOOM_API loom_builder_fn loom_expr_builder(int32_t i, int *arity) {
    if (arity) *arity = 0;
    if (i < 0 || (size_t)i >= BASE_ARRAY_LEN(funcs)) return NULL;
    if (funcs[i].kind == F_UNARY && funcs[i].u) {
        if (arity) *arity = 1;
        return (loom_builder_fn)funcs[i].u;
    }
    if (funcs[i].kind == F_BINARY && funcs[i].b) {
        if (arity) *arity = 2;
        return (loom_builder_fn)funcs[i].b;
    }
    return NULL;
}

LOOM_API loom_array_t *loom_expr(loom_ctx_t *ctx, const char *expr, int32_t n_names,
                                 const char *const *names, loom_array_t *const *arrays) {
    if (!ctx) return NULL;
    loom_array_t *out = &ctx->nil;
    loom_parse(ctx, expr, n_names, names, arrays, 1, NULL, &out);
    return out;
}

/* ---- Prepared programs ---------------------------------------------------------------- */

LOOM_API loom_status_t loom_program_create(loom_ctx_t *ctx, const char *program,
                                           loom_program_t **out) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (out) *out = NULL;
    if (ctx->err.status) return ctx->err.status;
    if (!program || !out)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "loom_program_create: program %p, out %p",
                        (const void *)program, (void *)out);
    size_t len = strlen(program);
    if (len > (size_t)INT32_MAX / 2)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "loom_program_create: %zu bytes", len);
    loom_program_t *p = base_calloc(&ctx->al, 1, sizeof *p);
    if (!p) return fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_program_create: out of memory");
    p->ctx = ctx;
    base_arena_init(&p->arena, &ctx->al);
    p->text = base_arena_alloc(&p->arena, len + 1, 1);
    if (!p->text) {
        loom_program_destroy(p);
        return fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_program_create: out of memory");
    }
    memcpy(p->text, program, len + 1);
    p->len = (int32_t)len;
    /* the parse allocates into the program's arena, which then keeps what it made */
    parser_t P = {.ctx = ctx, .src = p->text, .len = p->len, .arena = p->arena};
    bool ok = tokenize(&P) && parse_program(&P, &p->st, &p->n_st);
    p->arena = P.arena;
    p->toks = P.toks;
    p->n_toks = P.n_toks;
    p->syms = P.syms;
    p->replay = base_calloc(&ctx->al, 1, sizeof *p->replay);
    if (ok && !p->replay) {
        loom_program_destroy(p);
        return fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_program_create: out of memory");
    }
    if (!ok) {
        if (!ctx->err.status) fe_error(ctx, LOOM_STATUS_INTERNAL, "loom_program_create: failed");
        loom_program_destroy(p);
        return ctx->err.status;
    }
    *out = p;
    return LOOM_STATUS_OK;
}

LOOM_API loom_status_t loom_program_run(loom_ctx_t *ctx, const loom_program_t *program,
                                        int32_t n_names, const char *const *names,
                                        loom_array_t *const *arrays, int32_t cap,
                                        loom_array_t **outs, int32_t *n_items, int *is_tuple) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (n_items) *n_items = 0;
    if (outs)
        for (int32_t k = 0; k < cap; k++) outs[k] = &ctx->nil;
    if (ctx->err.status) return ctx->err.status;
    if (!program || program->ctx != ctx || cap < 1 || !outs || !n_items || n_names < 0 ||
        (n_names > 0 && (!names || !arrays)))
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                        "loom_program_run: program %p (%s), room for %d items at %p, count at "
                        "%p, %d names at %p",
                        (const void *)program,
                        program && program->ctx != ctx ? "of another context" : "this context's",
                        (int)cap, (void *)outs, (void *)n_items, (int)n_names,
                        (const void *)names);
    int tuple = 0;
    loom_status_t st = parse_into(ctx, program->text, program, n_names, names, arrays, cap, NULL,
                                  outs, n_items, &tuple);
    if (is_tuple) *is_tuple = tuple;
    return st;
}

/* A run then the eval of its items; the run's graph kept when it can be replayed, and a
 * later run with matching arrays replayed from it (eval.c, "Replays"). */
LOOM_API loom_status_t loom_program_eval(loom_ctx_t *ctx, const loom_program_t *program,
                                         int32_t n_names, const char *const *names,
                                         loom_array_t *const *arrays, int32_t cap,
                                         loom_array_t **outs, int32_t *n_items, int *is_tuple) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (program && program->ctx == ctx && n_names >= 0 &&
        fe_replay(ctx, *program->replay, n_names, names, arrays, cap, outs, n_items, is_tuple))
        return ctx->err.status;
    int tuple = 0;
    uint64_t calls = ctx->eval_calls;
    loom_status_t st =
        loom_program_run(ctx, program, n_names, names, arrays, cap, outs, n_items, &tuple);
    if (is_tuple) *is_tuple = tuple;
    if (st) return st;
    fe_replay_free(ctx, *program->replay);
    *program->replay = NULL;
    if (ctx->eval_calls != calls) /* the run read values (a count, a mask): not replayable */
        return loom_eval(ctx, *n_items, outs);
    fe_record_t rec = {*n_items, outs, tuple, n_names, names, arrays, program->replay};
    return fe_eval_record(ctx, &rec);
}

LOOM_API void loom_program_destroy(loom_program_t *program) {
    if (!program) return;
    base_alloc_t *al = &program->ctx->al;
    if (program->replay) fe_replay_free(program->ctx, *program->replay);
    base_free(al, program->replay);
    base_arena_fini(&program->arena);
    base_free(al, program);
}
