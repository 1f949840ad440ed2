"""Every mistake is one GradcliError with a span: its message and the caret's column."""

from __future__ import annotations

import numpy as np
import pytest

import gradcli
from gradcli.errors import GradcliError, GradcliIndexError, ShapeError
from gradcli.language import NESTING_LIMIT, compile_source, evaluate_constant, ir, parse

pytestmark = pytest.mark.usefixtures("float64")


def error_of(text, **bindings) -> GradcliError:
    """The error compiling and running ``text`` raises."""
    with pytest.raises(GradcliError) as info:
        program = compile_source(text)
        values = {k: np.asarray(v, float) for k, v in bindings.items() if k in program.inputs}
        program.run({k: gradcli.tensor(v) for k, v in values.items()})
    return info.value


def caret_column(err: GradcliError) -> int:
    """The 1-based column of the caret in the rendered message (checked against the span)."""
    lines = err.render().splitlines()
    assert len(lines) == 3, err.render()
    shown, caret = lines[1][2:], lines[2][2:]
    # A long line is shown as a window with "…" at the cuts: find where it starts.
    window = shown.removeprefix("…").removesuffix("…")
    source_line = err.source.splitlines()[err.span.line - 1]
    first = source_line.find(window) if shown.startswith("…") else 0
    lead = len(shown) - len(shown.removeprefix("…"))
    column = first + caret.index("^") - lead + 1
    assert column == err.span.column
    assert lines[0].endswith(f"at {err.span.line}:{err.span.column}")
    return column


def check(err, message, column, line=1):
    assert err.message == message
    assert err.span.line == line
    assert caret_column(err) == column
    assert err.source is not None


def test_the_issue_example_renders_exactly():
    err = error_of("(x+2))**2")
    assert err.render() == "error: unexpected ')' at 1:6\n  (x+2))**2\n       ^"


# ----------------------------------------------------------------------------
# Syntax
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, message, column",
    [
        # unbalanced brackets
        ("(x+2))**2", "unexpected ')'", 6),
        ("(x+2", "'(' is never closed", 1),
        ("sin(x + [1, 2]", "'(' is never closed", 4),
        ("[1, [2, 3]", "'[' is never closed", 1),
        ("(x+2]", "unexpected ']': '(' at 1:1 is not closed", 5),
        ("x]", "unexpected ']'", 2),
        # a dangling operator
        ("x+", "unexpected end of input after '+'", 3),
        ("x **", "unexpected end of input after '**'", 5),
        ("x * * y", "unexpected '*' after '*'", 5),
        ("* x", "unexpected '*'", 1),
        ("x = ", "unexpected end of input after '='", 4),
        ("f(x,", "'(' is never closed", 2),
        # unknown characters
        ("x $ 2", "unknown character '$'", 3),
        ("x ! y", "unknown character '!'", 3),
        ("x = {1}", "unknown character '{'", 5),
        ("a ? b", "unknown character '?'", 3),
        # implicit multiplication
        ("2x", "implicit multiplication: write 2*x", 2),
        ("3 + 2x", "implicit multiplication: write 2*x", 6),
        ("2(x+1)", "implicit multiplication: write 2*(...)", 2),
        ("(x+1)(x-1)", "implicit multiplication: write (...)*(...)", 6),
        ("x y", "implicit multiplication: write x*y", 3),
        # a number run into a name that cannot be a product
        ("1_000", "invalid number '1_000': write it without '_'", 1),
        ("2 * 0x1F", "invalid number '0x1F': numbers are decimal", 5),
        ("1e3e3 + 1", "invalid number '1e3e3'", 1),
        ("2e", "implicit multiplication: write 2*e", 2),  # 2e can only be 2 times e
        # names are Python identifiers: ², ₁ and ½ are not letters
        ("x² + 1", "unknown character '²': write x**2", 2),
        ("1 + θ³", "unknown character '³': write θ**3", 6),
        ("x¹⁰", "unknown character '¹': write x**10", 2),
        ("x₁ * 2", "unknown character '₁': write x_1", 2),
        ("x½", "unknown character '½'", 2),
        ("² + 1", "unknown character '²'", 1),  # ² and ½ pass the lexer's \w as name starts
        ("x + ½", "unknown character '½'", 5),
        ("x + ²y", "unknown character '²'", 5),
        ("f(a²) = a", "unknown character '²': write a**2", 4),
        # other syntax
        ("1.5.3", "unexpected number '.3'", 4),
        ("x = = 2", "unexpected '=' after '='", 5),
        ("[1; 2]", "unexpected ';'", 3),
        ("f(a=1, 2)", "positional argument after a keyword argument", 8),
        (
            "x.T = 1",
            "cannot assign to this: assign to a name (x = ...), an element (x[0] = ...)"
            " or define a function (f(x) = ...)",
            1,
        ),
        ("f(x + 1) = 2", "a function definition's parameters must be plain names", 3),
        ("k[0][1] = 2", "cannot assign to a nested index: write name[i, j] = ...", 1),
    ],
)
def test_syntax_errors(text, message, column):
    check(error_of(text), message, column)


def test_a_newline_after_an_operator_points_at_the_end_of_the_line():
    check(error_of("y = x +\nx"), "unexpected end of line after '+'", 8)


def test_errors_on_later_lines():
    check(error_of("x = 1\ny = (x\nz = 2"), "'(' is never closed", 5, line=2)
    check(error_of("a = 1\n\n  b = a $ 2"), "unknown character '$'", 9, line=3)


@pytest.mark.parametrize("text", ["", "   ", "\n\n", "# only a comment", "; ;\n;"])
def test_empty_input(text):
    err = error_of(text)
    assert err.message == "empty input"
    assert (err.span.line, err.span.column) == (1, 1)


# ----------------------------------------------------------------------------
# Names, functions, arguments (the checker: before anything is computed)
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, bindings, message, column",
    [
        ("x = 2\nxx + 1", {}, "unknown name 'xx' (did you mean 'x'?)", 1),
        ("xx + 1", {"x": 1}, "unknown name 'xx': it has no value", 1),
        ("sinn + x", {"x": 1}, "unknown name 'sinn' (did you mean 'sin'?)", 1),
        ("y * 2", {}, "unknown name 'y': it has no value", 1),
        ("1 + sin", {}, "'sin' is a function: call it as sin(...)", 5),
    ],
)
def test_unknown_names(text, bindings, message, column):
    err = error_of(text, **bindings)
    check(err, message, column, line=text.count("\n") + 1)


@pytest.mark.parametrize(
    "text, message, column",
    [
        ("sinn(x)", "unknown function 'sinn' (did you mean 'sin'?)", 1),
        ("1 + expp(x)", "unknown function 'expp' (did you mean 'exp'?)", 5),
        ("frobnicate(x)", "unknown function 'frobnicate'", 1),
        ("g(a) = a; gg(2)", "unknown function 'gg' (did you mean 'g'?)", 11),
        ("x = 1; x(2)", "'x' is not a function: to multiply, write x*(...)", 8),
        ("g(x) = f(x); f(x) = x; g(1)", "function 'f' is used before it is defined", 8),
        # wrong number of arguments
        (
            "atan2(y)",
            "wrong number of arguments: atan2 takes 2 arguments but 1 was given:"
            " atan2(input, other)",
            1,
        ),
        (
            "sin(x, y)",
            "wrong number of arguments: sin takes 1 argument but 2 were given: sin(input)",
            1,
        ),
        (
            "sum(x, 0, 1, 2)",
            "wrong number of arguments: sum takes 1 to 3 arguments but 4 were given:"
            " sum(input, dim=None, keepdim=False)",
            1,
        ),
        (
            "eye()",
            "wrong number of arguments: eye takes 1 to 2 arguments but 0 were given:"
            " eye(n, m=None)",
            1,
        ),
        (
            "softmax(x, 0, 1)",
            "wrong number of arguments: softmax takes 1 to 2 arguments but 3 were given:"
            " softmax(input, dim=-1)",
            1,
        ),
        (
            "f(a, b) = a*b; f(1)",
            "wrong number of arguments: f takes 2 arguments but 1 was given: f(a, b)",
            16,
        ),
        (
            "x.atan2()",
            "wrong number of arguments: atan2 takes 2 arguments but 1 was given:"
            " atan2(input, other)",
            3,
        ),
        # keywords
        ("sin(x, dim=0)", "sin does not take the keyword 'dim': sin(input)", 8),
        (
            "sum(x, axes=0)",
            "sum does not take the keyword 'axes' (did you mean 'axis'?):"
            " sum(input, dim=None, keepdim=False)",
            8,
        ),
        ("sum(x, dim=0, axis=1)", "sum got two values for 'dim'", 15),
        ("sum(x, 0, dim=1)", "sum got two values for 'dim'", 11),
        ("f(a) = a; f(b=1)", "f does not take the keyword 'b': f(a)", 13),
        # methods and attributes
        ("x.__class__", "attribute '__class__' is not accessible", 3),
        ("x.__class__()", "attribute '__class__' is not accessible", 3),
        ("x.sum.__globals__", "attribute '__globals__' is not accessible", 7),
        ("x.sum + 1", "'sum' is a method: write .sum()", 3),
        ("x.foo()", "unknown method 'foo' (did you mean 'floor'?)", 3),
        ("x.reshap", "unknown method 'reshap' (did you mean 'reshape'?)", 3),
        ("x.T()", "'T' is not a method: write .T without brackets", 3),
        ("x.zeros(2)", "unknown method 'zeros' (did you mean 'zeros_like'?)", 3),
    ],
)
def test_calls(text, message, column):
    check(error_of(text, x=1, y=1), message, column)


@pytest.mark.parametrize(
    "text, message, column, line",
    [
        ("const c = 3\nc = 4", "cannot assign to 'c': it is declared const", 1, 2),
        ("const c = 3; c[0] = 4", "cannot assign to 'c': it is declared const", 14, 1),
        ("pi = 3", "cannot assign to the built-in constant 'pi'", 1, 1),
        ("const e = 3", "'e' is a built-in constant already", 7, 1),
        ("x = 1; const x = 2", "'x' is already assigned: it cannot become const", 14, 1),
        ("const c = 1; const c = 2", "'c' is already declared const", 20, 1),
        ("const c = x", "const 'c' must not depend on 'x', which is not a constant", 11, 1),
        (
            "a = 1; f(t) = a*t; const c = f(2)",
            "const 'c' must not depend on 'a', which is not a constant",
            30,
            1,
        ),
        # use before assignment
        ("y = x + 1\nx = 2", "'x' is used before it is assigned", 5, 1),
        ("x = x + 1", "'x' is used before it is assigned", 5, 1),
        ("k[0] = 1; k = zeros(2)", "'k' is used before it is assigned", 1, 1),
        ("f(t) = a*t; a = 2; f(3)", "'a' is used before it is assigned", 8, 1),
        # functions
        ("f(n) = n * f(n - 1)", "function 'f' calls itself: recursion is not supported", 12, 1),
        ("f(x, x) = x", "parameter 'x' appears twice", 6, 1),
        ("f(pi) = pi", "the constant 'pi' cannot be a parameter", 3, 1),
        ("sin(x) = x", "cannot redefine the built-in function 'sin'", 1, 1),
        ("f(x) = x**2", "the program only defines functions: add an expression to compute", 1, 1),
    ],
)
def test_program_checks(text, message, column, line):
    check(error_of(text), message, column, line)


# ----------------------------------------------------------------------------
# Values: shapes, indices, axes, ragged lists (found while evaluating)
# ----------------------------------------------------------------------------


def test_shape_mismatch_names_both_shapes_with_the_caret_on_the_operator():
    err = error_of("x + y", x=[1, 2], y=[1, 2, 3])
    assert isinstance(err, ShapeError)
    assert "(2,)" in err.message and "(3,)" in err.message
    assert caret_column(err) == 3
    err = error_of("a = [[1, 2], [3, 4]]\nb = [1, 2, 3]\n1 + a @ b")
    assert isinstance(err, ShapeError)
    assert "2x2" in err.message and "3" in err.message
    assert (err.span.line, caret_column(err)) == (3, 7)
    err = error_of("x * 2 - y", x=[1, 2], y=[1, 2, 3])
    assert "(2,)" in err.message and "(3,)" in err.message
    assert caret_column(err) == 7


def test_index_out_of_range_points_at_the_index():
    err = error_of("x[5]", x=[1, 2, 3])
    assert isinstance(err, GradcliIndexError)
    assert "5" in err.message and "size 3" in err.message
    assert caret_column(err) == 3
    # the caret goes on the subscript that is out of range, not on the first one
    err = error_of("m = [[1, 2], [3, 4]]; m[0, 7] + 1")
    assert isinstance(err, IndexError)
    assert "index 7" in err.message and "dimension 1" in err.message
    assert caret_column(err) == 28
    err = error_of("k = zeros(2); k[3] = 1; k")
    assert isinstance(err, IndexError)
    assert caret_column(err) == 17


def test_axis_out_of_range_points_at_the_axis():
    err = error_of("sum(x, axis=3)", x=[1, 2])
    assert isinstance(err, GradcliIndexError)
    assert "out of range" in err.message.lower()
    assert caret_column(err) == 13
    err = error_of("x.mean(2)", x=[1, 2])
    assert isinstance(err, IndexError)
    assert caret_column(err) == 8


@pytest.mark.parametrize(
    "text, column",
    [
        ("transpose(m, 0, 2)", 17),  # the caret on the axis that is out of range ...
        ("transpose(m, 2, 0)", 14),
        ("permute(m, 1, 5)", 15),
        ("m.transpose(-3, 0)", 13),
        ("m.sum([0, 3])", 7),  # ... or on the list that holds it
        ("softmax(m, dim=-3)", 16),
    ],
)
def test_the_caret_is_on_the_axis_out_of_range(text, column):
    err = error_of(text, m=[[1, 2], [3, 4]])
    assert isinstance(err, GradcliIndexError)
    assert "Dimension out of range" in err.message
    assert caret_column(err) == column


@pytest.mark.parametrize(
    "text, column",
    [
        ("m[0, 7]", 6),
        ("m[7, 0]", 3),
        ("m[:, -3]", 6),
        ("m[1][0, 0]", 9),  # too many indices: the caret on the first one too many
        ("m[m > 1, 0]", 10),  # a mask takes as many axes as it has
        ("m[[0, 1], 2]", 11),
        ("k = zeros(2, 2); k[1, 5] = 1", 23),
        ("k = zeros(2, 2); k[5] = 1", 20),
    ],
)
def test_the_caret_is_on_the_subscript_out_of_range(text, column):
    err = error_of(text, m=[[1, 2], [3, 4]])
    assert isinstance(err, GradcliIndexError)
    assert caret_column(err) == column


def test_assigning_a_value_of_the_wrong_shape_names_both_shapes():
    err = error_of("k = zeros(2); k[0:2] = [1, 2, 3]")
    assert isinstance(err, ShapeError)
    assert err.message == "cannot assign a value of shape (3,) to k[0:2], of shape (2,)"
    assert caret_column(err) == 17
    err = error_of("k = zeros(2, 2)\nk[0] = [[1, 2], [3, 4]]")
    assert err.message == "cannot assign a value of shape (2, 2) to k[0], of shape (2,)"
    assert (err.span.line, caret_column(err)) == (2, 3)


def test_out_of_memory_is_an_error_at_the_call():
    from gradcli.engine import limits

    err = error_of("1 + zeros(1e15)")  # 8 petabytes: over the limit on a result's size
    assert err.message.startswith("zeros: the result would hold 1,000,000,000,000,000 numbers")
    assert caret_column(err) == 5
    with limits.max_elements(10**16):  # under the limit: NumPy's refusal
        err = error_of("1 + zeros(1e15)")
    assert err.message.startswith("zeros: out of memory")
    assert caret_column(err) == 5


def test_ragged_literal():
    err = error_of("[[1, 2], [3]]")
    assert err.message == "ragged list: an entry of shape (1,) among entries of shape (2,)"
    assert caret_column(err) == 10
    err = error_of("[x, [1, 2]]", x=1)
    assert err.message == "ragged list: an entry of shape (2,) among entries of shape ()"
    assert caret_column(err) == 5


@pytest.mark.parametrize(
    "text, message, column",
    [
        ("x[1.5]", "index must be an integer, not 1.5", 3),
        ("zeros(2.5)", "size must be an integer, not 2.5", 7),
        ("sum(x, dim=0.5)", "dim must be an integer, not 0.5", 12),
        ("sum(x, dim=[[0]])", "dim must be an integer or a list of integers, not shape (1, 1)", 12),
        ("x[1e20]", "index 1e+20 is out of range", 3),
        ("sum(x, 0, x)", "keepdim must be True or False, not a value of shape (2,)", 11),
        ("x.std(keepdim=[])", "keepdim must be True or False, not a value of shape (0,)", 15),
        ("x[::0]", "slice step cannot be zero", 5),
        ("x[1::0.5]", "index must be an integer, not 0.5", 6),
    ],
)
def test_arguments_that_must_be_integers(text, message, column):
    err = error_of(text, x=[1, 2])
    check(err, message, column)


# ----------------------------------------------------------------------------
# Nesting
# ----------------------------------------------------------------------------


def test_nesting_deeper_than_the_limit_is_a_clean_error():
    depth = NESTING_LIMIT + 100
    text = "sin(" * depth + "x" + ")" * depth
    err = error_of(text, x=1)
    assert err.message == f"expression nested too deeply (limit {NESTING_LIMIT})"
    # The first call nested beyond the limit (the program is level 0, the statement level 1).
    assert err.span.column == 4 * NESTING_LIMIT + 1
    for text in (
        "-" * 5000 + "x",
        "2**" * 5000 + "x",
        "[" * 3000 + "x" + "]" * 3000,
        "x" + "[0]" * 3000,
    ):
        with pytest.raises(GradcliError, match="nested too deeply"):
            parse(text)


def test_nesting_counts_through_user_functions():
    """Each f_i calls f_(i-1) inside a product: two levels per function, so 249 functions
    reach level 500 and a 250th would pass the limit; never a RecursionError."""

    def chain(n):
        lines = ["f0(a) = a + 1"] + [f"f{i}(a) = f{i - 1}(a) * 2" for i in range(1, n)]
        return "\n".join(lines) + f"\nf{n - 1}(x)"

    program = compile_source(chain(249))
    x = gradcli.tensor(1.0, requires_grad=True)
    result = program.run({"x": x})
    result.backward()
    assert result.item() == 2.0**248 * 2 and x.grad.item() == 2.0**248
    err = error_of(chain(250), x=1)
    assert err.message == (
        f"expression nested too deeply (limit {NESTING_LIMIT}): calling 'f249' here nests 501"
        " levels"
    )
    check(err, err.message, 1, line=251)
    # a definition that could never be called is the error, even when it is not called
    err = error_of(chain(1000), x=1)
    assert err.span.line == 251 and caret_column(err) == 11
    body = "sin(" * 300 + "a" + ")" * 300
    err = error_of(f"g(a) = {body}\n" + "sin(" * 199 + "g(x)" + ")" * 199, x=1)
    assert "calling 'g' here nests 501 levels" in err.message
    assert (err.span.line, caret_column(err)) == (2, 4 * 199 + 1)


def test_errors_never_leak_other_exception_types():
    for text in [
        "(",
        ")",
        "[",
        "]",
        ",",
        ".",
        "=",
        "x.",
        "x..T",
        "1e",
        "x[",
        "x[:",
        "f(,)",
        "const",
        "const x",
        "x = 1 = 2",
        "@x",
        "x @",
        "\\",
        "x\\y",
        "'a'",
        '"a"',
        "x.1",
        "[,]",
        "f(x)(y)",
        "2.T",
        "x[::]::",
        "3 = x",
    ]:
        with pytest.raises(GradcliError) as info:
            compile_source(text).run({"x": gradcli.tensor(1.0)})
        assert info.value.span is not None
        assert "Traceback" not in info.value.render()


def test_attributes_never_reach_python_objects_even_without_the_checker():
    from gradcli.language.check import ATTRIBUTES
    from gradcli.language.evaluate import TENSOR_ATTRIBUTES, Evaluator

    assert set(TENSOR_ATTRIBUTES) == set(ATTRIBUTES)
    for name in ("__class__", "__dict__", "grad", "data", "_data", "numpy"):
        with pytest.raises(GradcliError, match=f"attribute '{name}' is not accessible"):
            Evaluator().evaluate(ir.Attr(ir.ListLit((ir.Num(1.0),)), name))


def test_evaluate_constant_rejects_names_and_statements():
    err = pytest.raises(GradcliError, evaluate_constant, "2 * x").value
    check(err, "a value cannot use the name 'x'", 5)
    err = pytest.raises(GradcliError, evaluate_constant, "y = 2").value
    check(err, "a value must be a single expression", 1)
    err = pytest.raises(GradcliError, evaluate_constant, "1; 2").value
    check(err, "a value must be a single expression", 4)


def test_a_missing_binding_suggests_a_bound_name():
    program = compile_source("xx + 1")
    with pytest.raises(GradcliError) as info:
        program.run({"x": gradcli.tensor(1.0)})
    check(info.value, "unknown name 'xx' (did you mean 'x'?)", 1)


def test_check_free_reports_the_first_unbound_name_with_its_caret():
    """What a caller that binds names itself (the command line) uses before running."""
    program = compile_source("y = 2\nz = yy * x\nz")
    with pytest.raises(GradcliError) as info:
        program.check_free({"x", "w"})
    check(info.value, "unknown name 'yy' (did you mean 'y'?)", 5, line=2)
    program.check_free({"x", "yy"})
    err = pytest.raises(GradcliError, compile_source("g(a) = a; g + 1").check_free, ()).value
    check(err, "'g' is a function: call it as g(...)", 11)


def test_bindings_for_names_the_program_does_not_have():
    program = compile_source("x + 1")
    with pytest.raises(GradcliError, match=r"'xx' is not an input of the program \(did you mean"):
        program.run({"x": gradcli.tensor(1.0), "xx": gradcli.tensor(2.0)})


# ----- characters beyond ASCII: digits, look-alike letters -----


@pytest.mark.parametrize(
    "text, message, column",
    [
        (
            "x+\u0661",
            "'\u0661' (U+0661 ARABIC-INDIC DIGIT ONE) is not an ASCII digit: write 0-9",
            3,
        ),
        ("x\u0661 + 1", "'\u0661' (U+0661 ARABIC-INDIC DIGIT ONE) is not an ASCII digit", 2),
        ("2*\uff11", "'\uff11' (U+FF11 FULLWIDTH DIGIT ONE) is not an ASCII digit", 3),
        (
            "x = 1\n\u0445 + 1",
            "name '\u0445' holds '\u0445' (U+0445 CYRILLIC SMALL LETTER HA), which looks like"
            " 'x': write 'x'",
            1,
        ),
        ("p\u0430rams * 2", "(U+0430 CYRILLIC SMALL LETTER A), which looks like 'a'", 2),
        ("\uff58 * 2", "(U+FF58 FULLWIDTH LATIN SMALL LETTER X), which looks like 'x'", 1),
        ("\u039f + 1", "(U+039F GREEK CAPITAL LETTER OMICRON), which looks like 'O'", 1),
    ],
)
def test_digits_and_letters_that_pass_for_ascii_are_refused(text, message, column):
    err = error_of(text)
    assert message in err.message
    assert err.span.column == column


def test_letters_of_math_stay_names():
    program = compile_source("\u03b1 * \u03b8 + \u03bd")  # α θ ν: written on purpose
    assert program.inputs == ("\u03b1", "\u03b8", "\u03bd")


def test_bidirectional_and_control_characters_are_shown_escaped_in_error_lines():
    err = error_of('x + "a\u202eb" + 1')  # a string where none may stand, holding U+202E
    rendered = err.render()
    assert "\u202e" not in rendered
    assert rendered.splitlines()[1:] == ['  x + "a\\u202eb" + 1', "      ^~~~~~~~~~"]
    err = error_of("x + \u2066 1")
    assert err.render().splitlines() == [
        "error: unknown character '\\u2066' at 1:5",
        "  x + \\u2066 1",
        "      ^~~~~~",
    ]
