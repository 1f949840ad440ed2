"""The grammar and the IR: what each construct parses to, printing back, the generated parser."""

from __future__ import annotations

import hashlib
import importlib.util
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradcli.language import ir
from gradcli.language.ir import (
    Assign,
    Attr,
    BinOp,
    Call,
    Chain,
    Compare,
    ConstDecl,
    FuncDef,
    Index,
    IndexAssign,
    Keyword,
    ListLit,
    Method,
    Name,
    Num,
    Numbers,
    Slice,
    UnaryOp,
)
from gradcli.language.parser import parse
from gradcli.language.printing import to_source

ROOT = Path(__file__).resolve().parent.parent


def expr(text):
    (statement,) = parse(text).statements
    return statement


x, y, z = Name("x"), Name("y"), Name("z")


def n(value):
    return Num(float(value))


# ----------------------------------------------------------------------------
# Numbers and names
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("2", 2.0),
        ("2.5", 2.5),
        (".5", 0.5),
        ("1e-3", 0.001),
        ("6.02E23", 6.02e23),
        ("2.", 2.0),
        ("1E+2", 100.0),
        ("0.000", 0.0),
    ],
)
def test_numbers(text, value):
    assert expr(text) == Num(value, float_zero=text == "0.000")


@pytest.mark.parametrize("name", ["x", "θ", "α_1", "_tmp", "x2", "Δt", "pi", "e", "inf", "nan"])
def test_names_include_unicode_letters(name):
    assert expr(name) == Name(name)


# ----------------------------------------------------------------------------
# Operators: precedence and associativity as in Python
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, tree",
    [
        ("-x**2", UnaryOp("neg", BinOp("pow", x, n(2)))),
        ("2**2**3", BinOp("pow", n(2), BinOp("pow", n(2), n(3)))),
        ("2^3", BinOp("pow", n(2), n(3))),
        ("x^y^z", BinOp("pow", x, BinOp("pow", y, z))),
        ("2**-1", BinOp("pow", n(2), UnaryOp("neg", n(1)))),
        ("(-x)**2", BinOp("pow", UnaryOp("neg", x), n(2))),
        ("+-x", UnaryOp("positive", UnaryOp("neg", x))),
        ("x - y + z", Chain(x, ("sub", "add"), (y, z))),
        ("x - (y + z)", Chain(x, ("sub",), (Chain(y, ("add",), (z,)),))),
        ("(x - y) + z", Chain(Chain(x, ("sub",), (y,)), ("add",), (z,))),
        ("x * y / z @ x", Chain(x, ("mul", "div", "matmul"), (y, z, x))),
        ("x + y * z", Chain(x, ("add",), (Chain(y, ("mul",), (z,)),))),
        ("x * -y", Chain(x, ("mul",), (UnaryOp("neg", y),))),
        ("-x * y", Chain(UnaryOp("neg", x), ("mul",), (y,))),
        ("x < y", Compare(x, ("lt",), (y,))),
        (
            "x + 1 <= y * 2",
            Compare(Chain(x, ("add",), (n(1),)), ("le",), (Chain(y, ("mul",), (n(2),)),)),
        ),
        ("x < y >= z == x != y > z", Compare(x, ("lt", "ge", "eq", "ne", "gt"), (y, z, x, y, z))),
        ("x ** y[0]", BinOp("pow", x, Index(y, (n(0),)))),
        ("-x.T", UnaryOp("neg", Attr(x, "T"))),
    ],
)
def test_precedence_and_associativity(text, tree):
    assert expr(text) == tree


def test_brackets_that_only_group_make_no_node():
    assert expr("((((x))))") == x
    assert expr("((x + y))") == Chain(x, ("add",), (y,))


# ----------------------------------------------------------------------------
# Calls, methods, attributes, lists, indexing
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, tree",
    [
        ("sin(x)", Call("sin", (x,))),
        ("atan2(y, x)", Call("atan2", (y, x))),
        ("sum(x, axis=0)", Call("sum", (x,), (Keyword("axis", n(0)),))),
        (
            "sum(x, dim=1, keepdim=1)",
            Call("sum", (x,), (Keyword("dim", n(1)), Keyword("keepdim", n(1)))),
        ),
        ("zeros(2, 3)", Call("zeros", (n(2), n(3)))),
        ("randn()", Call("randn", ())),
        ("f(x,)", Call("f", (x,))),
        ("x.sum()", Method(x, "sum")),
        ("x.view(4)", Method(x, "view", (n(4),))),
        ("x.sum(dim=0).T", Attr(Method(x, "sum", (), (Keyword("dim", n(0)),)), "T")),
        ("x.T", Attr(x, "T")),
        ("(x + y).T", Attr(Chain(x, ("add",), (y,)), "T")),
        ("[2, 3]", Numbers((2.0, 3.0))),  # numbers alone: one node
        ("[-2, +3.5e1,\n 4.,]", Numbers((-2.0, 35.0, 4.0))),
        ("[2, x]", ListLit((n(2), x))),
        ("[2, --3]", ListLit((n(2), UnaryOp("neg", UnaryOp("neg", n(3)))))),
        ("[]", ListLit(())),
        ("[x,]", ListLit((x,))),
        ("[[1, 2], [3, 4]]", ListLit((Numbers((1.0, 2.0)), Numbers((3.0, 4.0))))),
        (
            "[x[0]**2 + 3*x[1]]",
            ListLit(
                (
                    Chain(
                        BinOp("pow", Index(x, (n(0),)), n(2)),
                        ("add",),
                        (Chain(n(3), ("mul",), (Index(x, (n(1),)),)),),
                    ),
                )
            ),
        ),
        ("x[0]", Index(x, (n(0),))),
        ("x[-1]", Index(x, (UnaryOp("neg", n(1)),))),
        ("x[1:3]", Index(x, (Slice(n(1), n(3)),))),
        ("x[::2]", Index(x, (Slice(None, None, n(2)),))),
        ("x[:]", Index(x, (Slice(),))),
        ("x[1:]", Index(x, (Slice(n(1)),))),
        ("x[:-1]", Index(x, (Slice(None, UnaryOp("neg", n(1))),))),
        ("x[1::2]", Index(x, (Slice(n(1), None, n(2)),))),
        ("x[:, 0]", Index(x, (Slice(), n(0)))),
        ("x[0, 1]", Index(x, (n(0), n(1)))),
        ("x[0][1]", Index(Index(x, (n(0),)), (n(1),))),
        ("x[y > 0]", Index(x, (Compare(y, ("gt",), (n(0),)),))),
    ],
)
def test_postfix_forms_and_literals(text, tree):
    assert expr(text) == tree


# ----------------------------------------------------------------------------
# Programs
# ----------------------------------------------------------------------------


def test_statements_assignments_definitions():
    program = parse("x = 2; k[0] = x\nf(a, b) = a + b\nconst c = 3\nf(x, c)")
    assert program.statements == (
        Assign("x", n(2)),
        IndexAssign("k", (n(0),), x),
        FuncDef("f", ("a", "b"), Chain(Name("a"), ("add",), (Name("b"),))),
        ConstDecl("c", n(3)),
        Call("f", (x, Name("c"))),
    )


def test_separators_comments_blank_lines_and_continuations():
    text = (
        "# header\n\n  x = 1  # one\n;; \n\n"
        "y = [1,\n     2]   # a list may span lines\n"
        "z = x + \\\n  y\n"
    )
    assert parse(text).statements == (
        Assign("x", n(1)),
        Assign("y", Numbers((1.0, 2.0))),
        Assign("z", Chain(x, ("add",), (y,))),
    )


def test_windows_line_endings():
    assert parse("x = 1\r\ny = 2\r\n").statements == (Assign("x", n(1)), Assign("y", n(2)))


def test_spans_point_into_the_source():
    program = parse("a = 1\nb = a +  sin(a)")
    chain = program.statements[1].value
    assert (chain.span.line, chain.span.column) == (2, 5)
    assert (chain.op_spans[0].line, chain.op_spans[0].column) == (2, 7)
    call = chain.rest[0]
    assert (call.span.column, call.span.end_column) == (10, 15)


def test_spans_are_not_part_of_equality():
    assert parse("x+1") == parse("  x   +\\\n 1")


# ----------------------------------------------------------------------------
# Printing back
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "(x+2)**2+3",
        "-x**2",
        "(-x)**2",
        "2**2**3",
        "(2**2)**3",
        "x - (y - z)",
        "(x - y) - z",
        "x / (y * z)",
        "(x + y) * z",
        "-(x + y)",
        "--x",
        "x ** -y",
        "x < y < z",
        "(x < y) < z",
        "x.sum(dim=0).T",
        "(x + 1).T",
        "(2).T",
        "x[1:3, ::2, :, 0]",
        "[[1, 2], [3, 4]]",
        "f(x, y) = x**2 + y",
        "const c = 3",
        "k[0] = 1",
        "sum(x, axis=0, keepdim=1)",
        "1e-05 + 6.02e+23 + 0.5",
        "1e400 - 1e-400",
        "θ * α_1",
    ],
)
def test_printing_round_trips(text):
    program = parse(text)
    assert parse(to_source(program)) == program


def test_printer_uses_few_brackets():
    assert to_source(parse("((x+2))**(2)+(3)")) == "(x + 2) ** 2 + 3"
    assert to_source(parse("x*(y*z)")) == "x * (y * z)"
    assert to_source(parse("(-(x))**(-(2))")) == "(-x) ** -2"


# ----------------------------------------------------------------------------
# The generated standalone parser
# ----------------------------------------------------------------------------


def _load_gen_parser():
    spec = importlib.util.spec_from_file_location("gen_parser", ROOT / "scripts" / "gen_parser.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


STANDALONE = ROOT / "gradcli" / "language" / "_standalone_parser.py"


def test_generated_parser_records_the_current_grammar():
    """Without Lark: the parser's header names the SHA-256 of the grammar it was made from."""
    header = STANDALONE.read_text(encoding="utf-8").splitlines()[:3]
    digest = hashlib.sha256(
        (ROOT / "grammar" / "gradcli.lark").read_bytes().replace(b"\r\n", b"\n")
    )
    assert f"# grammar sha256: {digest.hexdigest()}" in header, (
        "grammar/gradcli.lark changed: run `python scripts/gen_parser.py`"
    )
    assert _load_gen_parser().grammar_digest() == digest.hexdigest()


def test_generated_parser_is_current(tmp_path):
    """With the Lark that made it: regenerating gives the committed file, byte for byte."""
    lark = pytest.importorskip("lark")
    committed = STANDALONE.read_text(encoding="utf-8")
    made_by = re.search(r"generated by Lark v(\S+)", committed)[1]
    if lark.__version__ != made_by:
        pytest.skip(f"the parser was generated by Lark {made_by}, Lark {lark.__version__} is here")
    gen = _load_gen_parser()
    out = tmp_path / "parser.py"
    gen.main(["--out", str(out)])
    assert out.read_text(encoding="utf-8") == committed, (
        "grammar/gradcli.lark changed: run `python scripts/gen_parser.py`"
    )


def test_parsing_does_not_import_lark():
    code = (
        "import sys; from gradcli.language import parse; parse('(x+2)**2+3'); "
        "print('lark' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "False"


def test_ir_module_imports_neither_lark_nor_numpy():
    source = (ROOT / "gradcli" / "language" / "ir.py").read_text(encoding="utf-8")
    assert "import lark" not in source and "from lark" not in source
    assert "numpy" not in source


def test_no_eval_or_exec_in_the_language():
    for path in (ROOT / "gradcli" / "language").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\b(eval|exec)\s*\(", text), path


def test_walk_and_children_cover_every_node():
    program = parse("f(a) = a[0:1:2].sum(dim=0).T; k[1] = [f(x), -x ** 2 < 3]; const c = [1]")
    kinds = {type(node).__name__ for node in ir.walk(program)}
    assert kinds >= {
        "Program",
        "FuncDef",
        "Attr",
        "Method",
        "Index",
        "Slice",
        "Keyword",
        "IndexAssign",
        "ListLit",
        "Call",
        "UnaryOp",
        "BinOp",
        "Compare",
        "ConstDecl",
        "Num",
        "Name",
        "Numbers",
    }


# ----- size: a list of numbers is one node; a program's tokens are bounded -----


def test_a_literal_of_many_numbers_is_one_node_and_stays_small():
    import tracemalloc

    values = [(k * 7919 % 1000) / 8 - 60 for k in range(100_000)]
    text = "[" + ", ".join(repr(v) for v in values) + "]"
    tracemalloc.start()
    try:
        (node,) = parse(text).statements
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert node == Numbers(tuple(values))  # the floats Python reads from the same text
    # One token, one node: the text split once and the floats (10 MB), not a node and a
    # span per number (some 50 MB).
    assert peak < 20 * 2**20, peak


@pytest.mark.parametrize(
    "text, tree",
    [
        ("x [0]", Index(Name("x"), (Num(0.0),))),
        ("f(x)[1]", Index(Call("f", (Name("x"),)), (Num(1.0),))),
        ("[1, 2][0]", Index(Numbers((1.0, 2.0)), (Num(0.0),))),
        (
            "[[1], [2]][0][1]",
            Index(Index(ir.ListLit((Numbers((1.0,)), Numbers((2.0,)))), (Num(0.0),)), (Num(1.0),)),
        ),
    ],
)
def test_a_subscript_is_never_taken_for_a_list_of_numbers(text, tree):
    assert parse(text).statements == (tree,)


@pytest.mark.parametrize(
    "text, values",
    [
        ("[-(2)][0]", (-2.0,)),  # the printer writes it [-2][0]
        ("[- 2]", (-2.0,)),
        ("[(2)]", (2.0,)),
        ("[+ 2, -(3.5)]", (2.0, -3.5)),
        ("[(-1e400)]", (-float("inf"),)),
        ("[-(0)]", (0.0,)),  # the integer 0 has no sign, as in torch.tensor([-0])
        ("[-(0.0)]", (-0.0,)),
    ],
)
def test_a_list_of_signed_numbers_is_one_node_however_it_is_written(text, values):
    # [-2] is one token; the same numbers in brackets or spaced apart are the same IR, so
    # the printed program (the numbers without brackets) parses back to it.
    (node,) = parse(text).statements
    if text.endswith("[0]"):
        node = node.obj
    assert node == Numbers(values)
    assert [math.copysign(1, v) for v in node.values] == [math.copysign(1, v) for v in values]
    assert parse(to_source(parse(text))) == parse(text)


def test_a_near_miss_of_a_long_list_of_numbers_parses_token_by_token():
    text = "[" + "1, " * 20_000 + "x]"  # a name at the end: no backtracking over the numbers
    (node,) = parse(text).statements
    assert isinstance(node, ListLit) and len(node.items) == 20_001


def test_a_program_of_too_many_tokens_is_refused_where_it_goes_over(monkeypatch):
    from gradcli.errors import GradcliError
    from gradcli.language import parser

    monkeypatch.setattr(parser, "MAX_TOKENS", 100)
    parse("x = [" + "1, " * 10_000 + "2]\nx + " + " + ".join(["x"] * 40))  # 85 tokens
    with pytest.raises(GradcliError) as caught:
        parse("y = 1\n" + " + ".join(["y"] * 60))
    assert caught.value.message.startswith("the program has more than ")
    assert (caught.value.span.line, caught.value.span.column) == (
        2,
        1 + 4 * 48,
    )  # the 101st token: the 97th of line 2, its 49th y
