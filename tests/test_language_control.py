"""Loops and conditions: for, while, if/elif/else, break, continue and a if c else b.

Values, gradients and Hessians come from the same programs written with Python's
control flow on PyTorch (torch.autograd.grad with create_graph=True); the errors are
checked word for word, with their carets.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_language_properties import _extend, leaves

from gradcli import api
from gradcli.errors import GradcliError
from gradcli.language import compile_source, control, ir, parse
from gradcli.language.printing import to_source

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests")

pytestmark = pytest.mark.usefixtures("float64")


def error_of(text, **bindings):
    with pytest.raises(GradcliError) as caught:
        api.evaluate(text, bindings)
    return caught.value


# ----------------------------------------------------------------------------
# Parsing and printing
# ----------------------------------------------------------------------------

PROGRAMS = [
    "s = x\nfor k in range(1, 6):\n    s = s + sin(k * s) / k\ns",
    "y = x\nn = 0\nwhile y < 10:\n    y = y * x + 1\n    n = n + 1\ny + n",
    "for i in range(0, 10, 3):\n    if i == 3:\n        continue\n    elif i > 6:\n"
    "        break\n    else:\n        x = x * 2\nx",
    "x**3 if x > y else x * y**2",
    "v = zeros(3)\nfor i in range(3):\n    v[i] = x**(i + 1) * y\nsum(v * v)",
    "f(t) = t if t > 0 else -t\nif x < 0: x = -x\nf(x - 2)",
]


if_exps = st.recursive(
    leaves,
    lambda inner: st.one_of(_extend(inner), st.builds(ir.IfExp, inner, inner, inner)),
    max_leaves=5,
)


def _blocks(body):
    bodies = st.lists(body, min_size=1, max_size=2).map(tuple)
    return st.one_of(
        st.builds(
            ir.For, st.just("i"), st.lists(if_exps, min_size=1, max_size=3).map(tuple), bodies
        ),
        st.builds(ir.While, if_exps, bodies),
        st.builds(ir.If, if_exps, bodies, st.one_of(st.just(()), bodies)),
    )


blocks = st.recursive(
    st.one_of(
        st.builds(ir.Assign, st.sampled_from(["s", "t"]), if_exps),
        st.builds(ir.Break),
        st.builds(ir.Continue),
        if_exps,
    ),
    _blocks,
    max_leaves=6,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(blocks, min_size=1, max_size=3))
def test_random_blocks_and_conditional_expressions_print_and_parse_back(statements):
    program = ir.Program(tuple(statements))
    assert parse(to_source(program)) == program, to_source(program)


@pytest.mark.parametrize("text", PROGRAMS)
def test_printed_blocks_parse_back_to_the_same_ir(text):
    tree = parse(text)
    assert parse(to_source(tree)) == tree


def test_elif_is_an_if_alone_in_else_and_prints_back_as_elif():
    text = "if x > 1:\n    y = 1\nelif x > 0:\n    y = 2\nelse:\n    y = 3\ny"
    first = parse(text).statements[0]
    (inner,) = first.orelse
    assert to_source(inner.orelse[0]) == "y = 3"
    assert to_source(parse(text)) == text


def test_a_conditional_expression_is_the_loosest_and_right_associative():
    tree = parse("a if c else b if d else e + 1").statements[0]
    assert to_source(tree.orelse) == "b if d else e + 1"
    assert to_source(parse("(a if c else b) * 2")) == "(a if c else b) * 2"


def test_lines_outside_bodies_may_still_be_indented_freely():
    assert float(api.evaluate("  x = 1\ny = x + 1\n    y * 3").value) == 6


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ("for i in range(2):\n    x = 1\n      y = 2\nx", "unexpected indent", 3, 7),
        ("if x > 0:\ny = 1\ny", "expected an indented body after the line ending in ':'", 2, 1),
        (
            "if x > 0:\n    y = 1\n  z = 2\nz",
            "this line's indentation matches no line before it: indent a body's lines alike",
            3,
            3,
        ),
        (
            "if x > 0: y = 1; z = 2\nz",
            "a body on the line of its 'for', 'while' or 'if' holds one statement: write the"
            " statements on indented lines below it",
            1,
            16,
        ),
        (
            "for i in [1, 2]:\n    x = i\nx",
            "a for loop runs over range(n), range(start, stop) or range(start, stop, step)",
            1,
            10,
        ),
        ("x = 1\nbreak\nx", "'break' outside a loop", 2, 1),
        (
            "x = 1\nfor i in range(3):\n    x = x + i",
            "the program ends with a loop or an if, which has no value: add the expression"
            " to compute after it",
            2,
            1,
        ),
        (
            "for i in range(3):\n    const c = 2\n1",
            "a const is declared at the top level, not in the body of a for, while or if",
            2,
            11,
        ),
    ],
)
def test_mistakes_in_blocks_are_one_line_errors_with_a_caret(text, message, line, column):
    err = error_of(text, x=1)
    assert err.message.startswith(message), err.message
    assert (err.span.line, err.span.column) == (line, column)


def test_an_assignment_in_a_body_is_no_input_and_a_loop_variable_is_a_name():
    program = compile_source("x = 1\nfor i in range(2):\n    y = x * i\n    z = 0\ny + z + i")
    assert program.inputs == ("x",)
    assert float(api.evaluate(program.source).value) == 1 + 0 + 1


def test_a_name_assigned_only_in_a_branch_not_taken_has_no_value():
    err = error_of("if x > 0:\n    y = 1\ny", x=-1)
    assert err.message.startswith("unknown name 'y'")


# ----------------------------------------------------------------------------
# Values and derivatives against PyTorch
# ----------------------------------------------------------------------------


def t_series(x, y):
    s = x
    for k in range(1, 6):
        s = s + torch.sin(k * s) / k
    return s * y


def t_while(x, y):
    y2, n = x, 0
    while y2 < 10:
        y2 = y2 * (1 + x * x) + y
        n = n + 1
    return y2 + n


def t_jumps(x, y):
    s = x
    for i in range(0, 10, 3):
        if i == 3:
            continue
        elif i > 6:
            break
        else:
            s = s * y + i
    return s


def t_conditional(x, y):
    return x**3 if x > y else x * y**2


def t_element(x, y):
    v = torch.zeros(3, dtype=torch.float64)
    for i in range(3):
        v = v.clone()
        v[i] = x ** (i + 1) * y
    return torch.sum(v * v)


CASES = [
    ("s = x\nfor k in range(1, 6):\n    s = s + sin(k * s) / k\ns * y", t_series),
    (
        "y2 = x\nn = 0\nwhile y2 < 10:\n    y2 = y2 * (1 + x * x) + y\n    n = n + 1\ny2 + n",
        t_while,
    ),
    (
        "s = x\nfor i in range(0, 10, 3):\n    if i == 3:\n        continue\n    elif i > 6:\n"
        "        break\n    else:\n        s = s * y + i\ns",
        t_jumps,
    ),
    ("x**3 if x > y else x * y**2", t_conditional),
    ("v = zeros(3)\nfor i in range(3):\n    v[i] = x**(i + 1) * y\nsum(v * v)", t_element),
]
POINTS = [(1.5, 0.7), (0.6, 1.2), (2.0, -0.5)]


def torch_derivatives(f, x, y):
    """The value, gradient and Hessian of f at (x, y) by torch.autograd."""
    xs = torch.tensor([x, y], dtype=torch.float64, requires_grad=True)
    out = f(xs[0], xs[1])
    (grad,) = torch.autograd.grad(out, xs, create_graph=True)
    rows = [torch.autograd.grad(grad[i], xs, retain_graph=True)[0] for i in range(2)]
    return float(out.detach()), grad.detach().numpy(), torch.stack(rows).numpy()


@pytest.mark.parametrize(("text", "f"), CASES, ids=[f.__name__ for _, f in CASES])
@pytest.mark.parametrize("point", POINTS)
def test_values_gradients_and_hessians_match_pytorch(text, f, point):
    x, y = point
    value, grad, hess = torch_derivatives(f, x, y)
    r = api.hessian(text, {"x": x, "y": y}, wrt=["x", "y"])
    np.testing.assert_allclose(float(r.value), value, rtol=1e-13)
    np.testing.assert_allclose([r.grad["x"], r.grad["y"]], grad, rtol=1e-12, atol=1e-14)
    ours = [[r.hessian[a][b] for b in "xy"] for a in "xy"]
    np.testing.assert_allclose(np.array(ours, dtype=float), hess, rtol=1e-11, atol=1e-13)


def test_only_the_branch_taken_is_evaluated():
    # log(x) at x = -1 would be nan and its gradient nan: the branch is not taken.
    r = api.gradient("x**2 if x < 0 else log(x)", {"x": -1.0})
    assert (float(r.value), float(r.grad["x"])) == (1.0, -2.0)


def test_a_vector_condition_is_an_error_that_points_to_where():
    err = error_of("x = [1, -2]\ny = 0\nif x > 0:\n    y = 1\ny")
    assert err.message == (
        "the condition of the 'if' at line 3 has 2 values (shape (2,)), not one truth value:"
        " to choose entry by entry write where(condition, a, b)"
    )
    assert (err.span.line, err.span.column, err.span.end_column) == (3, 4, 8)


def test_a_loop_past_the_step_limit_is_an_error_naming_it(monkeypatch, gradcli):
    monkeypatch.setattr(control, "MAX_LOOP_STEPS", 10)
    err = error_of("y = x\nwhile y > 0:\n    y = y + 1\ny", x=1)
    assert err.message.startswith("the 'while' loop at line 2 takes more than 10 steps")
    assert api.evaluate("s = 0\nfor i in range(10):\n    s = s + i\ns").value == 45
    err = error_of("s = 0\nfor i in range(11):\n    s = s + i\ns")
    assert err.message.startswith("the 'for' loop at line 2 takes more than 10 steps")
    result = gradcli("eval", "y = 1\nwhile y > 0:\n    y = y + 1\ny")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: the 'while' loop at line 2 takes more than 10 steps")


def test_range_takes_whole_numbers_and_no_zero_step():
    assert error_of("for i in range(1.5):\n    y = i\ny").message.startswith("range's argument")
    err = error_of("for i in range(0, 3, 0):\n    y = i\ny")
    assert err.message == "range's step cannot be zero"


# ----------------------------------------------------------------------------
# Many points
# ----------------------------------------------------------------------------


def test_at_many_points_a_condition_the_same_at_every_point_is_taken():
    text = "y = 0\nif a > 0:\n    y = x**3\nelse:\n    y = -x\ny"
    x = np.array([-1.0, 0.5, 2.0])
    r = api.points("grad", text, {"a": 1.0}, {"x": x})
    np.testing.assert_allclose(r.arrays["value"], x**3)
    np.testing.assert_allclose(r.arrays["grad.x"], 3 * x**2)
    r = api.points("grad", "x**3 if x > 0 else -x", batch={"x": np.array([0.5, 1.0, 3.0])})
    np.testing.assert_allclose(r.arrays["grad.x"], [0.75, 3.0, 27.0])


def test_at_many_points_the_points_on_other_paths_are_evaluated_one_at_a_time():
    # Each point as at one point (by hand): x**3 and -x; x if x > 0 else -x; the sum of
    # range(n).
    text = "y = 0\nif x > 0:\n    y = x**3\nelse:\n    y = -x\ny"
    r = api.points("grad", text, batch={"x": np.array([0.5, -1.0, 2.0])})
    np.testing.assert_allclose(r.arrays["value"], [0.125, 1.0, 8.0])
    np.testing.assert_allclose(r.arrays["grad.x"], [0.75, -1.0, 12.0])
    r = api.points("grad", "x if x > 0 else -x", batch={"x": np.array([-0.5, 1.0])})
    np.testing.assert_allclose(r.arrays["grad.x"], [-1.0, 1.0])
    r = api.points("eval", "s = 0\nfor i in range(n):\n    s = s + i\ns", batch={"n": [2, 3, 5]})
    np.testing.assert_allclose(r.arrays["value"], [1.0, 3.0, 10.0])


def test_at_many_points_an_error_on_one_path_names_its_point():
    # Point 1 takes the branch with an error of its own (a shape mismatch there alone).
    text = "y = 0\nif x > 0:\n    y = x\nelse:\n    y = [1, 2] @ [1, 2, 3]\ny"
    with pytest.raises(GradcliError):
        api.points("eval", text, batch={"x": np.array([0.5, -1.0])})


def test_over_on_the_command_line_follows_each_points_branch(gradcli):
    text = "x**2 if x > 0 else -x"
    result = gradcli("grad", text, "--over", "x=1:3:3", "--format", "csv")
    assert result.output.splitlines()[1:] == ["1,1,2", "2,4,4", "3,9,6"]
    result = gradcli("grad", text, "--over", "x=-1:1:3", "--format", "csv")
    assert result.exit_code == 0, result.output
    # -x at 0 is -0.0, as at one point (and in PyTorch).
    assert result.output.splitlines()[1:] == ["-1,1,-1", "0,-0,-1", "1,1,2"]


# ----------------------------------------------------------------------------
# diff: a loop unrolls, an if on the inputs is a Piecewise
# ----------------------------------------------------------------------------


def test_diff_unrolls_a_loop():
    pytest.importorskip("sympy")
    from gradcli.analysis.symbolic import derivative

    r = derivative("s = 0*x\nfor k in range(1, 4):\n    s = s + x**k / k\ns", {"x": 0.5})
    (d,) = r.derivatives
    assert d.formula == "x**2 + x + 1"
    assert d.agrees


def test_diff_of_an_if_on_an_input_is_a_piecewise_and_a_while_on_one_is_refused():
    pytest.importorskip("sympy")
    from gradcli.analysis.symbolic import derivative

    r = derivative("y = 0*x\nif x > 1:\n    y = x**2\nelse:\n    y = -x\ny", {"x": 2})
    (d,) = r.derivatives
    assert d.formula == "Piecewise((2*x, x > 1), (-1, True))"
    assert float(d.value) == 4 and d.agrees
    with pytest.raises(GradcliError) as caught:
        derivative("y = x\nwhile y < 5:\n    y = 2*y\ny", {"x": 1})
    assert caught.value.message == (
        "a while loop whose condition depends on the inputs has no symbolic form:"
        " gradcli diff cannot take it"
    )


# ----------------------------------------------------------------------------
# Samples
# ----------------------------------------------------------------------------


def test_newton_sample_differentiates_to_the_implicit_function_theorem():
    from pathlib import Path

    source = (Path(__file__).resolve().parent.parent / "samples" / "newton.grad").read_text()
    for a in (2.0, 3.0, 0.5):
        roots = np.roots([1, 0, -a, -5])
        r_true = float(max(roots[abs(roots.imag) < 1e-12].real))
        result = api.gradient(source, {"a": a})
        assert math.isclose(float(result.value), r_true, rel_tol=1e-14)
        assert math.isclose(float(result.grad["a"]), r_true / (3 * r_true**2 - a), rel_tol=1e-12)
        assert abs(float(result.grad["x0"])) < 1e-15
        # By hand, differentiating r' = r/(3r^2 - a) once more in a.
        slope = r_true / (3 * r_true**2 - a)
        curvature = (slope * (3 * r_true**2 - a) - r_true * (6 * r_true * slope - 1)) / (
            3 * r_true**2 - a
        ) ** 2
        hessian = api.hessian(source, {"a": a}, wrt=["a"]).hessian["a"]["a"]
        assert math.isclose(float(hessian), curvature, rel_tol=1e-10)


def dh_position(q):
    """PUMA 560 forward kinematics (standard DH), on NumPy alone."""
    d = [0, 0, 0.15005, 0.4318, 0, 0]
    a = [0, 0.4318, 0.0203, 0, 0, 0]
    alpha = [math.pi / 2, 0, -math.pi / 2, math.pi / 2, -math.pi / 2, 0]
    t = np.eye(4)
    for i in range(6):
        ct, st, ca, sa = np.cos(q[i]), np.sin(q[i]), np.cos(alpha[i]), np.sin(alpha[i])
        t = t @ np.array(
            [
                [ct, -st * ca, st * sa, a[i] * ct],
                [st, ct * ca, -ct * sa, a[i] * st],
                [0, sa, ca, d[i]],
                [0, 0, 0, 1],
            ]
        )
    return t[:3, 3]


def test_dh_arm_sample_matches_forward_kinematics_and_its_jacobian_central_differences():
    from pathlib import Path

    source = (Path(__file__).resolve().parent.parent / "samples" / "dh_arm.grad").read_text()
    for q in ([0, math.pi / 4, -math.pi / 4, 0, math.pi / 6, 0], [0.3, -0.2, 0.9, 1.1, -0.7, 2.0]):
        r = api.jacobian(source, {"q": q})
        np.testing.assert_allclose(r.value, dh_position(np.array(q)), rtol=1e-13, atol=1e-15)
        h = 1e-6
        expected = np.empty((3, 6))
        for j in range(6):
            step = np.zeros(6)
            step[j] = h
            expected[:, j] = (dh_position(q + step) - dh_position(q - step)) / (2 * h)
        np.testing.assert_allclose(r.jacobian["q"], expected, rtol=1e-7, atol=1e-9)
    # The arm at rest (PUMA 560's zero pose): x = a2 + a3, y = -d3, z = d4.
    rest = api.evaluate(source, {"q": [0] * 6}).value
    np.testing.assert_allclose(rest, [0.4318 + 0.0203, -0.15005, 0.4318], atol=1e-15)


# ----------------------------------------------------------------------------
# The editor's statements and the prompt
# ----------------------------------------------------------------------------


def test_a_loop_or_an_if_is_one_statement_for_the_editor():
    from gradcli.language.parser import statement_bounds

    text = (
        "x = 1\nfor i in range(3):\n    x = x + i\n    if x > 2:\n        x = 0\n    else:\n"
        "        x = 1\ny = x\nif x: y = 2\nelse: y = 3\ny"
    )
    assert [text[a:b] for a, b in statement_bounds(text)] == [
        "x = 1",
        "for i in range(3):\n    x = x + i\n    if x > 2:\n        x = 0\n    else:\n        x = 1",
        "y = x",
        "if x: y = 2\nelse: y = 3",
        "y",
    ]


def test_the_prompt_takes_a_loop_until_an_empty_line(gradcli):
    typed = "x = 2\ns = 0 * x\nfor i in range(3):\n    s = s + x**i\n\ns\n"
    result = gradcli("repl", input=typed)
    assert result.exit_code == 0, result.output
    # 1 + x + x**2 and its derivative 1 + 2x at x = 2.
    assert result.stdout.split() == ["value", "7", "grad.x", "5"]


def test_the_prompt_highlights_the_keywords_of_loops_and_conditions():
    from prompt_toolkit.document import Document

    from gradcli.cli.repl import _highlighter
    from gradcli.cli.session import Session

    line = _highlighter(Session()).lex_document(Document("for i in range(2): y = 1 if i else 2"))
    keywords = [text.strip() for style, text in line(0) if style == "class:keyword"]
    assert keywords == ["for", "in", "if", "else"]


def test_a_header_without_its_colon_says_so():
    err = error_of("if x > 0\n    y = 1\ny", x=1)
    assert err.message == "expected ':' at the end of the line of a for, while or if"
    assert (err.span.line, err.span.column) == (1, 9)


def test_dh_manipulability_sample_against_mpmath():
    """Yoshikawa's manipulability sqrt(det(J J^T)) of the PUMA 560's position, J taken
    inside the program by jacobian(p, q) through the loop over the joints, and its
    gradient: against the same kinematics in mpmath at 40 digits, J and the gradient
    by central differences there (errors far below float64's)."""
    from pathlib import Path

    import mpmath

    from gradcli import api

    path = Path(__file__).resolve().parent.parent / "samples" / "dh_manipulability.grad"
    result = api.gradient(path.read_text(), filename="samples/dh_manipulability.grad")
    mp = mpmath.mp.clone()
    mp.dps = 40
    pi = mp.pi
    d = [0, 0, mp.mpf("0.15005"), mp.mpf("0.4318"), 0, 0]
    a = [0, mp.mpf("0.4318"), mp.mpf("0.0203"), 0, 0, 0]
    alpha = [pi / 2, 0, -pi / 2, pi / 2, -pi / 2, 0]

    def position(q):
        t = mp.eye(4)
        for i in range(6):
            c, s, ca, sa = mp.cos(q[i]), mp.sin(q[i]), mp.cos(alpha[i]), mp.sin(alpha[i])
            t = t * mp.matrix(
                [[c, -s * ca, s * sa, a[i] * c], [s, c * ca, -c * sa, a[i] * s],
                 [0, sa, ca, d[i]], [0, 0, 0, 1]]
            )  # fmt: skip
        return mp.matrix([t[0, 3], t[1, 3], t[2, 3]])

    def manipulability(q):
        h = mp.mpf("1e-15")
        columns = []
        for j in range(6):
            up, down = list(q), list(q)
            up[j] += h
            down[j] -= h
            columns.append((position(up) - position(down)) / (2 * h))
        jac = mp.matrix(3, 6)
        for j, column in enumerate(columns):
            for i in range(3):
                jac[i, j] = column[i]
        return mp.sqrt(mp.det(jac * jac.T))

    q = [0, pi / 4, -pi / 4, 0, pi / 6, 0]
    assert float(result.value) == pytest.approx(float(manipulability(q)), rel=1e-13)
    h = mp.mpf("1e-12")
    gradient = []
    for j in range(6):
        up, down = list(q), list(q)
        up[j] += h
        down[j] -= h
        gradient.append(float((manipulability(up) - manipulability(down)) / (2 * h)))
    np.testing.assert_allclose(result.grad["q"], gradient, rtol=1e-10, atol=1e-14)


def test_every_loop_step_counts_against_the_operation_limit():
    # 1000 x 1000 steps of a bare assignment are 10^6 operations, past the default
    # 200,000: refused at the inner loop; 100 x 100 are well within it.
    inner = "for i in range({n}):\n    for j in range({n}):\n        k = j\nx"
    with pytest.raises(GradcliError) as caught:
        api.evaluate(inner.format(n=1000), {"x": 1.0})
    assert "does more than 200,000 operations" in caught.value.message
    assert "loop step" in caught.value.message
    assert float(api.evaluate(inner.format(n=100), {"x": 1.0}).value) == 1.0
