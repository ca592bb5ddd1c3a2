#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/fuzz_api.c: a few small programs that together call
every opcode, with valid arguments first and bad ones after. Opcode numbers and expression
tokens are read from fuzz_api.c itself (its OP(...) table and token_text), so the seeds follow
the target when opcodes are added. The corpus also keeps, as regress_*.bin, inputs that once
found a bug; this script leaves them alone. Run from anywhere: python3 tools/gen_fuzz_api_corpus.py
"""
import os
import re

ROOT = os.path.join(os.path.dirname(__file__), "..")
SRC = os.path.join(ROOT, "tests", "fuzz", "fuzz_api.c")
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus", "fuzz_api")

text = open(SRC).read()
OPS = re.findall(r"OP\((\w+)\)", text[text.index("static const op_t ops[]"):])
TOKENS = "".join(re.findall(r'"([^"]*)"', re.search(r"token_text\[\] =(.*?);\n", text, re.S)[1]))
TOKENS = TOKENS.split("#")
DT = {d: i for i, d in enumerate("bool i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64".split())}
REALS = [0, 1, -1, 0.5, 2.5, "-0", "nan", "inf", "-inf", 1e308, 5e-324, 300, 65504, 3.5e38, -7.25]


def op(name):
    return [OPS.index(name)]


def extent(e):  # 0..5 as themselves, up to 31 as 0xA0 | e, -1..-8 as 0xC0 | (-e - 1)
    return e if 0 <= e < 6 else 0xA0 | e if 0 < e < 32 else 0xC0 | (-e - 1)


def shape(*ext):
    return [len(ext)] + [extent(e) for e in ext]


def bound(v):  # a slice bound -6..6 (fuzz_api.c: 0x40 and up, (b % 13) - 6)
    return 0x40 + (v + 6 - 0x40 % 13) % 13


def axes(*ax):
    return [len(ax)] + [a + 4 for a in ax]


def real(v):
    return [REALS.index(v)]


def integer(v):  # -10..10
    return [v + 10]


def expr(names, program):  # raw text, at most 16 bytes; the first byte says 0x80 and len % 5
    b = 0x80 + (len(names) - 0x80) % 5
    return op("expr") + [b] + names + [len(program)] + list(program.encode())


def tokens(names, *toks):
    return op("expr") + [len(names)] + names + [len(toks)] + [TOKENS.index(t) for t in toks]


SEEDS = {
    # pool: 0 zeros f32 (2,3), 1 ones i8 (3,), 2 weak 7, then results
    "elementwise": op("fill") + [0, DT["f32"]] + shape(2, 3)
    + op("fill") + [1, DT["i8"]] + shape(3)
    + op("weak") + [0] + integer(7)
    + op("binary") + [0, 0, 2, 1]                     # add(pool0, pool1)
    + op("binary") + [6, 1, 1] + integer(-2)          # power_i(pool1, -2): refused
    + op("clear")
    + op("unary") + [4, 3]                            # sqrt(add)
    + op("where_clip") + [1, 1, 0, 2] + op("where_clip") + [0, 0, 2, 1]
    + op("astype") + [3, DT["f16"]]
    + op("eval") + [3, 5, 6, 7] + op("read") + [0, 8] + op("read") + [3, 3],
    "constructors": op("range") + [0, DT["f32"]] + real(0) + real(2.5) + real(0.5)
    + op("range") + [1, DT["i8"]] + integer(-10) + integer(10) + integer(3)
    + op("range") + [2, DT["f64"]] + real(-1) + real(1) + [extent(5), 1]
    + op("range") + [3, DT["u8"]] + [extent(3), extent(4)] + integer(1)
    + op("fill") + [2, DT["bf16"]] + shape(4) + real(2.5)
    + op("fill") + [3, DT["i64"]] + shape(2, 2) + integer(-3)
    + op("fill") + [4, DT["f32"]] + shape(3, 3) + [0] * 7 + [42] + real(0) + real(1)
    + op("fill") + [5, DT["f16"]] + shape(8) + [0] * 8 + real(0) + real(1)
    + op("host") + [0, DT["i16"]] + shape(2, 2) + [4, 1, 0, 0xFF, 0x7F]
    + op("host") + [1, DT["u32"]] + shape(3) + [0]
    + op("weak") + [1] + integer(5) + op("weak") + [2] + real("nan") + op("weak") + [3, 1]
    + op("read_many") + [3, 0, 0, 0, 1, 0, 2] + op("read_many") + [2, 3, 8, 0, 9],
    "reductions": op("fill") + [4, DT["f32"]] + shape(3, 4) + [0] * 8 + real(-1) + real(1)
    + op("reduce") + [0, 0] + axes(1) + [1]            # sum over axis 1, keepdims
    + op("reduce") + [2, 0] + axes(0, -1) + [0]        # mean over both
    + op("reduce") + [9, 0] + axes(0) + [0] + real(1)  # var, ddof 1
    + op("reduce") + [10, 0] + [0xE0] + [0] + real(0)  # std, naxes -1: all axes
    + op("reduce") + [7, 0] + axes(0, 1) + [0]         # argmax of two axes: refused
    + op("clear") + op("reduce") + [3, 0] + axes(4) + [0]  # max, axis 4: refused
    + op("clear") + op("scan") + [0, 0, 1 + 4] + op("scan") + [3, 0]
    + op("eval") + [4, 1, 2, 3, 4] + op("view_check") + [0, 1],
    "views": op("range") + [1, DT["i32"]] + integer(0) + integer(10) + integer(1)
    + op("reshape") + [0, 0] + shape(2, -1)            # (2, 5)
    + op("axes") + [0, 1] + axes(1, 0) + op("axes") + [1, 1] + axes(0)
    + op("axes") + [2, 3] + axes(0) + op("axes") + [3, 2] + axes(-1)
    + op("axes") + [4, 1] + axes(0) + [5, 0]          # moveaxis 0 -> 1
    + op("slice") + [0, 1, 3] + [bound(1), 0] + [bound(-1), 0] + [bound(1), bound(-2)]
    + op("reshape") + [1, 1] + shape(3, 2, 5)          # broadcast_to
    + op("view_check") + [1, 6] + op("view_check") + [2, 2] + op("view_check") + [3, 4]
    + op("view_check") + [4, 5] + op("read") + [0, 7],
    "joins": op("host") + [0, DT["f32"]] + shape(2, 3) + [4, 0, 0, 0x80, 0x3F]
    + op("fill") + [1, DT["f64"]] + shape(3, 2)
    + op("join") + [2, 0, 0] + [4 + 0]                 # concatenate((p0, p0), 0)
    + op("join") + [12, 0, 0] + [4 + 2]                # stack((p0, p0), 2)
    + op("product") + [0, 0, 1] + op("product") + [1, 1, 0] + op("product") + [2, 0, 1, 2]
    + op("transparent") + [0, 3, 1] + op("eval") + [3, 2, 3, 4] + op("read") + [1, 5],
    "expr": op("fill") + [1, DT["f32"]] + shape(2, 3) + op("range") + [1, DT["i8"]]
    + integer(0) + integer(3) + integer(1)
    + expr([0, 1], "a * 2 + b") + expr([0], "a.sum(axis=0)") + expr([1], "a")
    + tokens([0, 1], "sqrt(", "a", ")", "+", "b", ".astype('float16')")
    + tokens([0], "where(", "a", "<", "0.5", ",", "a", ",", "-1", ")")
    + op("eval") + [4, 2, 3, 4, 5] + op("read") + [0, 6],
    "files": op("fill") + [2, DT["f16"]] + shape(2, 2) + real(-7.25)
    + op("npy") + [0, 0] + op("npy") + [0x80, 0] + op("npy") + [7, 0] + op("clear")
    + op("npy") + [0x85, 0] + op("clear")
    + op("wrap") + [0, DT["i32"]] + shape(3, 2) + [4 + 2, 4 - 3] + [8]  # strides (2, -3)
    + op("export") + [0, 0] + op("export") + [4, 2] + op("export") + [1, 2]
    + op("export") + [3] + op("read") + [0, 2],
    "errors": op("scope") + [1] + op("fill") + [0, DT["u16"]] + shape(4)
    + op("refcount") + [1, 0] + op("scope") + [0] + op("scope") + [0] + op("clear")
    + op("refcount") + [0, 0]
    + op("fill") + [0, DT["f32"]] + [1, 0xC3] + op("clear")         # negative extent
    + op("fill") + [0, DT["f32"]] + [2, 0xE6, 0xE6] + op("clear")   # 2**40 x 2**40
    + op("fill") + [1, DT["f32"]] + [1, 0xE6]                       # 2**40: built, lazy
    + op("read") + [3, 1] + op("read") + [4, 1] + op("clear")
    + op("facts") + [0, 3, 11, 1, 0] + op("facts") + [0x84, 3, 9, 2, 0, 0, 0, 2]  # dump_ir
    + op("facts") + [3, 1, 1, 0, 0]                                # NULL ctx
    + op("facts") + [0x40, 1, 1, 0, 0, 9]                          # host_alloc
    + op("facts") + [4, 1, 1, 0, 0] + op("facts") + [0x22, 1, 1, 0, 0]  # host_free twice
    + op("clear") + op("fail_alloc") + [3] + op("unary") + [0, 1] + op("clear")
    + op("fail_alloc") + [0] + op("eval") + [1, 0],
}

os.makedirs(OUT, exist_ok=True)
for name, program in SEEDS.items():
    with open(os.path.join(OUT, name + ".bin"), "wb") as f:
        f.write(bytes(program))
print(f"{len(SEEDS)} seeds in {OUT}")
