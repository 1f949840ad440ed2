"""Property tests: printing the IR back and re-parsing it is the identity, and random
expressions evaluate on gradcli as NumPy evaluates them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradcli
from gradcli.language import compile_source, ir, parse, parser
from gradcli.language.operators import COMPARE_OPS
from gradcli.language.printing import to_source

pytestmark = [
    pytest.mark.usefixtures("float64"),
    # The NumPy oracle meets inf and nan as often as gradcli does; they are values, not warnings.
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:Generating overly large repr"),
]

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------
# Random IR, printed and parsed back
# ----------------------------------------------------------------------------

names = st.sampled_from(["x", "y", "θ", "α_1", "pi", "W"])
numbers = st.one_of(
    st.integers(0, 10**6).map(float),
    st.floats(0, 1e30, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.5, 1e-3, 6.02e23, 1e-300, float("inf")]),  # inf: a literal like 1e400
)
leaves = st.one_of(numbers.map(ir.Num), names.map(ir.Name))


def _torch_remainder(a, b):
    # PyTorch's kernel: fmod(a, b), moved into b's sign where it is not 0 (a zero keeps a's
    # sign, where NumPy's remainder gives it b's: 2 % -2 is 0.0, and 2 / (2 % -2) is inf).
    m = np.fmod(a, b)
    return np.where((m != 0) & ((m < 0) != (b < 0)), m + b, m)


def _chain(level_ops):
    def build(children):
        return st.builds(
            lambda first, pairs: ir.Chain(
                first, tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
            ),
            children,
            st.lists(st.tuples(st.sampled_from(level_ops), children), min_size=1, max_size=3),
        )

    return build


def _extend(children):
    keywords = st.lists(
        st.builds(ir.Keyword, st.sampled_from(["dim", "axis", "keepdim"]), children),
        max_size=2,
        unique_by=lambda k: k.name,
    ).map(tuple)
    args = st.lists(children, max_size=3).map(tuple)
    maybe = st.one_of(st.none(), children)
    subscript = st.one_of(children, st.builds(ir.Slice, maybe, maybe, maybe))
    return st.one_of(
        st.builds(ir.UnaryOp, st.sampled_from(["neg", "positive"]), children),
        st.builds(ir.BinOp, st.just("pow"), children, children),
        _chain(["add", "sub"])(children),
        _chain(["mul", "div", "floor_divide", "remainder", "matmul"])(children),
        st.builds(
            lambda first, pairs: ir.Compare(
                first, tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
            ),
            children,
            st.lists(st.tuples(st.sampled_from(COMPARE_OPS), children), min_size=1, max_size=2),
        ),
        st.builds(ir.Call, st.sampled_from(["sin", "sum", "f", "atan2"]), args, keywords),
        st.builds(ir.Method, children, st.sampled_from(["sum", "view", "exp"]), args, keywords),
        st.builds(ir.Attr, children, st.just("T")),
        st.builds(ir.Index, children, st.lists(subscript, min_size=1, max_size=3).map(tuple)),
        st.builds(parser.list_literal, st.lists(children, max_size=3).map(tuple)),
    )


expressions = st.recursive(leaves, _extend, max_leaves=12)

statements = st.one_of(
    expressions,
    st.builds(ir.Assign, names.filter(lambda n: n != "pi"), expressions),
    st.builds(
        ir.IndexAssign,
        st.just("k"),
        st.lists(expressions, min_size=1, max_size=2).map(tuple),
        expressions,
    ),
    st.builds(
        ir.FuncDef,
        st.just("g"),
        st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=3).map(tuple),
        expressions,
    ),
    st.builds(ir.ConstDecl, st.just("c"), expressions),
)


@SETTINGS
@given(expressions)
def test_printed_ir_parses_back_to_the_same_ir(tree):
    text = to_source(tree)
    assert parse(text) == ir.Program((tree,)), text


@SETTINGS
@given(st.lists(statements, min_size=1, max_size=4))
def test_printed_programs_parse_back(statements_):
    program = ir.Program(tuple(statements_))
    assert parse(to_source(program)) == program


# ----------------------------------------------------------------------------
# Random source text: parse, print, parse; and evaluate against NumPy
# ----------------------------------------------------------------------------

X = np.array([0.7, -1.3, 2.1])
Y = np.float64(-0.4)
ENV = {"x": X, "y": Y}


@st.composite
def spaced(draw, left, op, right):
    gap = draw(st.sampled_from(["", " ", "  "]))
    return f"{left}{gap}{op}{gap}{right}"


@st.composite
def source(draw, depth=0):
    """(text, value computed by NumPy): a random expression over x (shape (3,)) and y."""
    if depth >= 4 or draw(st.integers(0, 3)) == 0:
        kind = draw(st.sampled_from(["number", "x", "y", "pi", "index"]))
        if kind == "number":
            text = draw(st.sampled_from(["2", "0.5", ".25", "3", "1e-1", "1.5E0", "10"]))
            return text, np.float64(float(text))
        if kind == "pi":
            return "pi", np.float64(np.pi)
        if kind == "index":
            i = draw(st.integers(-3, 2))
            return f"x[{i}]", X[i]
        return kind, ENV[kind]
    a, va = draw(source(depth + 1))
    kind = draw(
        st.sampled_from(
            [
                "add",
                "sub",
                "mul",
                "div",
                "mod",
                "floordiv",
                "pow",
                "neg",
                "fn",
                "reduce",
                "cmp",
                "list",
                "paren",
                "max",
                "where",
                "reverse",
            ]
        )
    )
    if kind in ("add", "sub", "mul", "div", "mod", "floordiv"):
        b, vb = draw(source(depth + 1))
        op = {"add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%", "floordiv": "//"}[kind]
        value = {
            "add": np.add,
            "sub": np.subtract,
            "mul": np.multiply,
            "div": np.divide,
            "mod": _torch_remainder,
            "floordiv": np.floor_divide,
        }[kind](va, vb)
        return draw(spaced(f"({a})", op, f"({b})")), value
    if kind == "pow":
        k = draw(st.sampled_from([2, 3]))
        op = draw(st.sampled_from(["**", "^"]))
        return draw(spaced(f"({a})", op, str(k))), np.power(va, k)
    if kind == "neg":
        return f"-({a})", np.negative(va)
    if kind == "fn":
        name = draw(st.sampled_from(["sin", "cos", "tanh", "abs", "exp", "sigmoid"]))
        numpy_fn = {
            "sin": np.sin,
            "cos": np.cos,
            "tanh": np.tanh,
            "abs": np.abs,
            "exp": lambda v: np.exp(np.clip(v, -50, 50)),
            "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
        }[name]
        if name == "exp":
            return f"exp(clamp({a}, -50, 50))", numpy_fn(va)
        return f"{name}({a})", numpy_fn(va)
    if kind == "reduce":
        name = draw(st.sampled_from(["sum", "mean", "max"]))
        numpy_fn = {"sum": np.sum, "mean": np.mean, "max": np.max}[name]
        if draw(st.booleans()):
            return f"({a}).{name}()", numpy_fn(va)
        return f"{name}({a})", numpy_fn(va)
    if kind == "cmp":
        b, vb = draw(source(depth + 1))
        op = draw(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
        numpy_fn = {
            "<": np.less,
            "<=": np.less_equal,
            ">": np.greater,
            ">=": np.greater_equal,
            "==": np.equal,
            "!=": np.not_equal,
        }[op]
        return draw(spaced(f"({a})", op, f"({b})")), numpy_fn(va, vb).astype(float)
    if kind == "list":
        if np.ndim(va) != 0:
            return f"({a}).sum()", np.sum(va)
        b, vb = draw(source(depth + 1))
        if np.ndim(vb) != 0:
            b, vb = f"({b}).mean()", np.mean(vb)
        return f"[{a}, {b}, 1]", np.array([va, vb, 1.0])
    if kind == "max":
        b, vb = draw(source(depth + 1))
        return f"maximum({a}, {b})", np.maximum(va, vb)
    if kind == "where":
        b, vb = draw(source(depth + 1))
        return f"where(({a}) > ({b}), {a}, {b})", np.where(va > vb, va, vb)
    if kind == "reverse":
        if np.ndim(va) == 0:
            return f"[{a}][0]", va
        return f"flip({a}, 0)", va[::-1]
    return f"(({a}))", va


@SETTINGS
@given(source())
def test_random_text_round_trips(case):
    text, _ = case
    tree = parse(text)
    printed = to_source(tree)
    assert parse(printed) == tree, (text, printed)


@SETTINGS
@given(source())
def test_random_expressions_match_numpy(case):
    text, expected = case
    program = compile_source(text)
    bindings = {name: gradcli.tensor(ENV[name]) for name in program.inputs}
    result = program.run(bindings).numpy()
    assert result.shape == np.shape(expected), text
    np.testing.assert_allclose(
        result, expected, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=text
    )


@SETTINGS
@given(source())
def test_random_expressions_differentiate_like_central_differences(case):
    text, _ = case
    program = compile_source(text)
    if "x" not in program.inputs:
        return
    x = gradcli.tensor(X, requires_grad=True)
    bindings = {"x": x, "y": gradcli.tensor(Y)}
    result = program.run({k: v for k, v in bindings.items() if k in program.inputs})
    if not result.requires_grad:
        return
    with np.errstate(all="ignore"):  # nan and inf are legitimate values here
        result.sum().backward()
    h = 1e-6
    numeric = np.zeros(3)
    for i in range(3):
        step = np.zeros(3)
        step[i] = h

        def at(point):
            values = {"x": gradcli.tensor(point), "y": gradcli.tensor(Y)}
            return program.run({k: v for k, v in values.items() if k in program.inputs}).numpy()

        with np.errstate(all="ignore"):
            numeric[i] = (np.sum(at(X + step)) - np.sum(at(X - step))) / (2 * h)
    analytic = x.grad.numpy()
    if not (np.all(np.isfinite(numeric)) and np.all(np.isfinite(analytic))):
        return
    # Kinks (abs, max, comparisons, where) and the jumps of % and // are where the two
    # may honestly differ.
    if np.allclose(analytic, numeric, rtol=1e-4, atol=1e-4):
        return
    kinked = any(k in text for k in ("abs", "max", "where", "<", ">", "=", "clamp", "%", "//"))
    assert kinked, (text, analytic, numeric)
