"""``root(f, x0)`` and ``minimizer(f, x0)``: values against mpmath.findroot, derivatives
against the implicit function theorem worked out by SymPy (first, second and third
order), at many points, and through the commands."""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

import gradcli
from gradcli import autograd
from gradcli.errors import GradcliError
from gradcli.language import compile_source

pytestmark = pytest.mark.usefixtures("float64")


def derivatives(source: str, order: int = 2, **values):
    """The program's value and its derivatives with respect to ``values`` (scalars):
    the gradient, the Hessian, and with ``order=3`` the third derivatives."""
    program = compile_source(source)
    leaves = {k: gradcli.tensor(float(v), requires_grad=True) for k, v in values.items()}
    inputs = list(leaves.values())
    out = program.run(leaves)
    grads = autograd.grad(out, inputs, create_graph=True)
    n = len(inputs)
    hessian, third = np.zeros((n, n)), np.zeros((n, n, n))
    for i, g in enumerate(grads):
        rows = autograd.grad(g, inputs, create_graph=True, allow_unused=True)
        for j, h in enumerate(rows):
            if h is None:
                continue
            hessian[i, j] = float(h.detach().numpy())
            if order >= 3 and h.requires_grad:
                cubes = autograd.grad(h, inputs, retain_graph=True, allow_unused=True)
                third[i, j] = [0.0 if c is None else float(c.detach().numpy()) for c in cubes]
    value = np.asarray(out.detach().numpy())
    return value, np.array([float(g.detach().numpy()) for g in grads]), hessian, third


def implicit(equation, x, params, point, solution):
    """The derivatives of x(params) defined by ``equation(x, params) = 0`` (one equation, x
    a SymPy symbol), up to third order, at ``point`` where x = ``solution``: SymPy
    differentiates the equation with x a function of the parameters, and each derivative
    of the equation is linear in the highest derivative of x, solved for it in turn."""
    X = sp.Function("X")(*params)
    eq = equation.subs(x, X)
    at = dict(zip(params, point))
    known = {(): solution}  # sorted parameter names -> the derivative of x, a number
    unknown = sp.Symbol("unknown")

    def key(derivative):
        return tuple(sorted(str(v) for v, n in derivative.variable_count for _ in range(n)))

    def derivative(*wrt):
        expr = sp.diff(eq, *wrt)
        target = tuple(sorted(map(str, wrt)))
        for d in sorted(expr.atoms(sp.Derivative), key=lambda d: -d.derivative_count):
            expr = expr.subs(d, unknown if key(d) == target else known[key(d)])
        expr = expr.subs(X, solution).subs(at)
        known[target] = float(sp.solve(expr, unknown)[0])
        return known[target]

    n = len(params)
    grad = np.array([derivative(p) for p in params])
    hessian, third = np.zeros((n, n)), np.zeros((n, n, n))
    for i in range(n):
        for j in range(n):
            hessian[i, j] = derivative(params[i], params[j])
    for i in range(n):
        for j in range(n):
            for k in range(n):
                third[i, j, k] = derivative(params[i], params[j], params[k])
    return grad, hessian, third


# ----------------------------------------------------------------------------
# root
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("a", [0.0, 1.0, 2.5])
def test_the_root_of_a_cubic_and_its_derivatives_are_the_implicit_functions(a):
    # g(x) = x^3 - a x - 5: d root/da = r/(3r^2 - a) (the example).
    value, grad, hessian, third = derivatives("g(x) = x**3 - a*x - 5; root(g, 2)", order=3, a=a)
    r = float(mpmath.findroot(lambda x: x**3 - a * x - 5, 2))
    assert float(value) == pytest.approx(r, rel=1e-15)
    assert grad[0] == pytest.approx(r / (3 * r**2 - a), rel=1e-13)
    x, A = sp.symbols("x a")
    g, h, t = implicit(x**3 - A * x - 5, x, [A], [a], r)
    assert grad == pytest.approx(g, rel=1e-13)
    assert hessian[0, 0] == pytest.approx(h[0, 0], rel=1e-11)
    assert third[0, 0, 0] == pytest.approx(t[0, 0, 0], rel=1e-9)


def test_a_root_with_two_parameters_has_the_mixed_derivatives():
    # x + b sin(x) = c: one root for |b| < 1.
    value, grad, hessian, _ = derivatives("root(x -> x + b*sin(x) - c, 0)", b=0.4, c=1.2)
    r = float(mpmath.findroot(lambda x: x + 0.4 * mpmath.sin(x) - 1.2, 0))
    assert float(value) == pytest.approx(r, rel=1e-15)
    x, b, c = sp.symbols("x b c")
    g, h, _ = implicit(x + b * sp.sin(x) - c, x, [b, c], [0.4, 1.2], r)
    np.testing.assert_allclose(grad, g, rtol=1e-13)
    np.testing.assert_allclose(hessian, h, rtol=1e-11)


def test_a_vector_root_has_the_derivatives_of_its_closed_form():
    # x0^2 + x1^2 = r^2 and x0 = c x1: x1 = r/sqrt(1 + c^2), x0 = c x1,
    # so the sum is r (1 + c)/sqrt(1 + c^2).
    source = "sum(root(x -> [x[0]**2 + x[1]**2 - r**2, x[0] - c*x[1]], [1, 1]))"
    value, grad, hessian, _ = derivatives(source, r=2.0, c=0.5)
    R, C = sp.symbols("r c")
    total = R * (1 + C) / sp.sqrt(1 + C**2)
    at = {R: 2.0, C: 0.5}
    assert float(value) == pytest.approx(float(total.subs(at)), rel=1e-14)
    expected_grad = [float(sp.diff(total, v).subs(at)) for v in (R, C)]
    expected_hessian = [[float(sp.diff(total, u, v).subs(at)) for v in (R, C)] for u in (R, C)]
    np.testing.assert_allclose(grad, expected_grad, rtol=1e-13)
    np.testing.assert_allclose(hessian, expected_hessian, rtol=1e-11, atol=1e-14)


def test_a_root_in_a_user_function_reads_its_parameters():
    value, grad, _, _ = derivatives("h(a) = root(x -> x**3 - a*x - 5, 2); h(2*s)", s=0.5)
    r = float(mpmath.findroot(lambda x: x**3 - x - 5, 2))
    assert float(value) == pytest.approx(r, rel=1e-15)
    assert grad[0] == pytest.approx(2 * r / (3 * r**2 - 1), rel=1e-13)


def test_a_root_as_an_input_s_default_value():
    # x = root(...) reads no input: x is an input whose value the program computes.
    program = compile_source("x = root(t -> t**2 - 2, 1); x * 3")
    assert program.inputs == ("x",)
    assert float(program.defaults()["x"]) == pytest.approx(2**0.5, rel=1e-15)


# ----------------------------------------------------------------------------
# minimizer
# ----------------------------------------------------------------------------


def test_a_minimizer_and_its_derivatives_are_the_implicit_functions():
    # f = (x - c)^2 + s x^4: the minimum is where 2(x - c) + 4 s x^3 = 0.
    value, grad, hessian, third = derivatives(
        "minimizer(x -> (x - c)**2 + s*x**4, 1)", order=3, c=1.0, s=0.5
    )
    m = float(mpmath.findroot(lambda x: 2 * (x - 1) + 2 * x**3, 1))
    assert float(value) == pytest.approx(m, rel=1e-15)
    x, c, s = sp.symbols("x c s")
    g, h, t = implicit(2 * (x - c) + 4 * s * x**3, x, [c, s], [1.0, 0.5], m)
    np.testing.assert_allclose(grad, g, rtol=1e-13)
    np.testing.assert_allclose(hessian, h, rtol=1e-11)
    np.testing.assert_allclose(third, t, rtol=1e-9)


def test_a_vector_minimizer_of_separable_terms():
    # Each x_i minimises (x_i - c_i)^2 + x_i^4/2: x_i^3 + x_i = c_i, so x = [1, 2] at c = [2, 10]
    # and d x_i/d c_i = 1/(3 x_i^2 + 1).
    program = compile_source("minimizer(x -> sum((x - c)**2) + sum(x**4)/2, [0, 0])")
    c = gradcli.tensor([2.0, 10.0], requires_grad=True)
    out = program.run({"c": c})
    np.testing.assert_allclose(out.detach().numpy(), [1.0, 2.0], rtol=1e-15)
    (g,) = autograd.grad(out.sum(), c, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [1 / 4, 1 / 13], rtol=1e-14)
    # d2 x_i/d c_i^2 = -6 x_i (dx_i/dc_i)^3.
    (h,) = autograd.grad(g.sum(), c)
    np.testing.assert_allclose(h.numpy(), [-6 / 64, -12 / 13**3], rtol=1e-12)


# ----------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "root(x -> x**2 + 1, 0.5)",
            "root did not converge after 100 iterations: the last iterate x = ",
        ),
        ("root(x -> x**2 + 1, 0.5, maxiter=3)", "root did not converge after 3 iterations"),
        ("minimizer(x -> -x**2, 0.5)", "minimizer did not converge after 200 iterations"),
        ("minimizer(x -> x**4, 1)", "minimizer did not converge after 200 iterations"),
        ("minimizer(x -> x[0]**2 - x[1]**2, [1, 0])", "minimizer: the point found, x = ["),
        ("root(x -> [x, x], 1)", "root: the anonymous function must give the shape of x0, ()"),
        ("minimizer(x -> x, [1, 2])", "minimizer: the anonymous function must give one number"),
        ("root(x -> x, [[1, 2]])", "root's x0 must be a number or a vector"),
        ("root(x -> x, 1, maxiter=0)", "root's maxiter must be a whole number >= 1"),
        ("root(x -> 1/x - 1/x, 1)", "root: the Jacobian of the anonymous function is singular"),
        ("root(x -> log(x), -1)", "root: the anonymous function or its derivative is not"),
    ],
)
def test_a_point_not_found_is_an_error(gradcli, source, message):
    result = gradcli("eval", source)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {message}"), result.stderr


def test_the_error_names_the_last_iterate_and_its_residual(gradcli):
    result = gradcli("eval", "root(x -> exp(x), 0.5)")
    first = result.stderr.splitlines()[0]
    assert "has residual |f(x)| " in first
    # exp has no root: each Newton step is x - 1. The residual named is that of the iterate
    # named, x = 0.5 - 100 (the one before had a residual e times larger).
    x = float(first.split("the last iterate x = ")[1].split(" ")[0])
    residual = float(first.split("has residual |f(x)| ")[1].split(" ")[0])
    assert x == pytest.approx(-99.5, rel=1e-12)
    assert residual == pytest.approx(math.exp(x), rel=1e-2)


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("minimizer(x -> x**4, 1)", "its Hessian is nearly singular there (lowest eigenvalue"),
        ("minimizer(x -> -x**2, 0.5)", "its Hessian there is not positive definite"),
    ],
)
def test_a_minimizer_not_found_says_why_its_hessian_fails(gradcli, source, why):
    result = gradcli("eval", source)
    assert result.exit_code == 2
    assert why in result.stderr.splitlines()[0]


def test_diff_refuses_root_and_minimizer_by_name(gradcli):
    for name in ("root", "minimizer"):
        result = gradcli("diff", f"{name}(x -> (x - a)**2 - 1, 2)", "--a", "1")
        assert result.exit_code == 2
        assert result.stderr.startswith(
            f"error: {name}(...), a point found by iteration, has no symbolic form"
        )


def test_compile_errors_name_the_transformation():
    with pytest.raises(GradcliError, match="root calls its function with 1 argument"):
        compile_source("root((x, y) -> x, 1)")


# ----------------------------------------------------------------------------
# Many points and the commands
# ----------------------------------------------------------------------------

CUBIC = "g(x) = x**3 - a*x - 5; root(g, 2)"


def test_many_points_each_have_their_root_and_derivative(gradcli):
    result = gradcli("grad", CUBIC, "--over", "a=0:3:4", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 4
    for row in rows:
        a = float(row["a"])
        r = float(mpmath.findroot(lambda x, a=a: x**3 - a * x - 5, 2))
        assert row["value"] == pytest.approx(r, rel=1e-15)
        assert row["grad.a"] == pytest.approx(r / (3 * r**2 - a), rel=1e-13)


def test_many_points_where_only_the_closed_over_inputs_vary(gradcli):
    result = gradcli(
        "hessian", "minimizer(x -> (x - c)**2 + s*x**4, 1)", "--over", "c=0.5:2:3",
        "--s", "0.5", "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    x, c, s = sp.symbols("x c s")
    for line in result.stdout.splitlines():
        row = json.loads(line)
        cv = float(row["c"])
        m = float(mpmath.findroot(lambda y, cv=cv: 2 * (y - cv) + 2 * y**3, 1))
        g, h, _ = implicit(2 * (x - c) + 4 * s * x**3, x, [c, s], [cv, 0.5], m)
        assert row["value"] == pytest.approx(m, rel=1e-14)
        assert row["hessian.c.c"] == pytest.approx(h[0, 0], rel=1e-10, abs=1e-13)
        assert row["hessian.c.s"] == pytest.approx(h[0, 1], rel=1e-10, abs=1e-13)


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (["jacobian", CUBIC, "--a", "1"], "jacobian"),
        (["jvp", CUBIC, "--a", "1", "--tangent", "a=1"], "jvp"),
        (["taylor", CUBIC, "--a", "1", "--order", "3"], "polynomial"),
        (["propagate", CUBIC, "--a", "1", "--sigma", "a=0.1"], "sigma"),
        (["check", CUBIC, "--a", "1"], "passed"),
    ],
)
def test_a_root_runs_under_the_commands(gradcli_json, args, key):
    out = gradcli_json(*args)
    r = float(mpmath.findroot(lambda x: x**3 - x - 5, 2))
    slope = r / (3 * r**2 - 1)
    if key == "jvp":
        assert out["jvp"] == pytest.approx(slope, rel=1e-13)
    elif key == "sigma":
        assert out["sigma"] == pytest.approx(0.1 * slope, rel=1e-13)
    elif key == "passed":
        assert out["passed"] is True
    else:
        assert key in out


def test_minimize_solve_and_fit_through_a_root(gradcli_json, tmp_path):
    # The root of x^3 - a x - 5 is 2 where a = 3/2.
    out = gradcli_json("solve", "root(x -> x**3 - a*x - 5, 2) - 2", "--a", "1")
    assert out["point"]["a"] == pytest.approx(1.5, rel=1e-13)
    # (root - 2)^2 is least at a = 3/2 too.
    out = gradcli_json("minimize", "(root(x -> x**3 - a*x - 5, 2) - 2)**2", "--a", "1")
    assert out["point"]["a"] == pytest.approx(1.5, rel=1e-7)
    # y = the real root of r^3 + k r = x, made with k = 0.8.
    xs = np.linspace(0.5, 4, 7)
    ys = [float(mpmath.findroot(lambda r, x=x: r**3 + 0.8 * r - x, 1)) for x in xs]
    data = tmp_path / "cubic.csv"
    data.write_text("x,y\n" + "".join(f"{x!r},{y!r}\n" for x, y in zip(xs.tolist(), ys)))
    out = gradcli_json(
        "fit", "root(r -> r**3 + k*r - x, 1)", "--points", str(data), "--params", "k=1"
    )
    assert out["parameters"]["k"]["value"] == pytest.approx(0.8, rel=1e-10)


def test_taylor_of_a_root_is_exact_through_order_fifteen(gradcli_json, gradcli):
    # Newton steps on the graph: orders 4 and 5 too (three chord steps gave 1.08e-4, not
    # 7.9e-5, for the fourth coefficient).
    out = gradcli_json("taylor", CUBIC, "--a", "1", "--order", "5")
    coefficients = [t["coefficient"] for t in out["terms"]]
    with mpmath.workdps(40):
        expected = mpmath.taylor(lambda a: mpmath.findroot(lambda x: x**3 - a * x - 5, 2), 1, 5)
    np.testing.assert_allclose(coefficients, [float(c) for c in expected], rtol=1e-10)
    result = gradcli("taylor", CUBIC, "--a", "1", "--order", "16")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --order 16: the derivatives of root are exact through order 15:"
        " choose --order 15 or lower\n"
    )
