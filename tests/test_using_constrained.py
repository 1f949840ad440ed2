"""minimize --subject-to: constrained minima, their multipliers (grad f + sum lambda_i
grad c_i = 0, c = LHS - RHS, or RHS - LHS for >=) and the KKT verdict, against hand
derivations and against SciPy's SLSQP given hand-written derivatives; bad constraints."""

from __future__ import annotations

import math

import numpy as np
import pytest

CIRCLE = ["x + y", "--x", "1", "--y", "0"]


@pytest.mark.parametrize("method", ["trust-constr", "slsqp"])
def test_a_linear_function_on_the_unit_circle(gradcli_json, method):
    # grad f = (1, 1), grad c = (2x, 2y): x = y = -1/sqrt(2) and 1 - lambda*sqrt(2) = 0.
    shown = gradcli_json("minimize", *CIRCLE, "--subject-to", "x**2 + y**2 == 1",
                         "--method", method)  # fmt: skip
    s = 1 / math.sqrt(2)
    assert shown["point"]["x"] == pytest.approx(-s, abs=1e-8)
    assert shown["point"]["y"] == pytest.approx(-s, abs=1e-8)
    assert shown["value"] == pytest.approx(-math.sqrt(2), abs=1e-10)
    assert shown["multipliers"] == pytest.approx([s], abs=1e-8)
    assert shown["converged"] and shown["classification"] == "local minimum"
    # The Hessian of the Lagrangian is 2*lambda*I, on the circle's tangent: sqrt(2).
    assert shown["reduced_eigenvalues"] == pytest.approx([math.sqrt(2)], abs=1e-7)
    kkt = shown["kkt"]
    assert all(kkt[key] <= kkt["tolerance"] for key in ("stationarity", "feasibility"))


def test_an_active_inequality_has_a_positive_multiplier(gradcli_json):
    shown = gradcli_json("minimize", *CIRCLE, "--subject-to", "x**2 + y**2 <= 1")
    (constraint,) = shown["constraints"]
    assert constraint["active"] and constraint["kind"] == "inequality"
    assert constraint["multiplier"] == pytest.approx(1 / math.sqrt(2), abs=1e-8)
    assert shown["point"]["x"] == pytest.approx(-1 / math.sqrt(2), abs=1e-8)


def test_an_inactive_inequality_has_multiplier_zero(gradcli_json):
    shown = gradcli_json("minimize", "(x-0.5)**2 + (y-0.2)**2", "--x", "0", "--y", "0",
                         "--subject-to", "x**2 + y**2 <= 1")  # fmt: skip
    (constraint,) = shown["constraints"]
    assert not constraint["active"] and constraint["multiplier"] == 0
    assert constraint["value"] == pytest.approx(0.25 + 0.04 - 1)
    assert [shown["point"]["x"], shown["point"]["y"]] == pytest.approx([0.5, 0.2], abs=1e-8)
    assert shown["converged"] and shown["classification"] == "local minimum"


def test_greater_or_equal_is_rhs_minus_lhs_at_most_zero(gradcli_json):
    # c = 1 - x - y <= 0; grad f = (2x, 2y) = (1, 1) at (1/2, 1/2) = -lambda grad c = lambda.
    shown = gradcli_json("minimize", "x**2 + y**2", "--x", "0", "--y", "0",
                         "--subject-to", "x + y >= 1")  # fmt: skip
    assert [shown["point"]["x"], shown["point"]["y"]] == pytest.approx([0.5, 0.5], abs=1e-8)
    assert shown["multipliers"] == pytest.approx([1.0], abs=1e-8)


def test_an_equality_and_inequalities_against_scipy_slsqp(gradcli_json):
    import scipy.optimize

    f = lambda v: (v[0] - 2) ** 2 + (v[1] - 1) ** 2 + v[0] * v[1]  # noqa: E731
    grad = lambda v: np.array([2 * (v[0] - 2) + v[1], 2 * (v[1] - 1) + v[0]])  # noqa: E731
    constraints = [
        {"type": "eq", "fun": lambda v: v[0] - 2 * v[1] + 1, "jac": lambda v: np.array([1, -2])},
        # SciPy's inequalities are g >= 0: 1 - x²/4 - y² >= 0.
        {"type": "ineq", "fun": lambda v: 1 - v[0] ** 2 / 4 - v[1] ** 2,
         "jac": lambda v: np.array([-v[0] / 2, -2 * v[1]])},
    ]  # fmt: skip
    expected = scipy.optimize.minimize(
        f, [0.5, 0.5], jac=grad, method="slsqp", constraints=constraints, tol=1e-12
    )
    shown = gradcli_json("minimize", "(x-2)**2 + (y-1)**2 + x*y", "--x", "0.5", "--y", "0.5",
                         "--subject-to", "x - 2*y + 1 == 0",
                         "--subject-to", "x**2/4 + y**2 <= 1")  # fmt: skip
    np.testing.assert_allclose([shown["point"]["x"], shown["point"]["y"]], expected.x, atol=1e-8)
    # SciPy: grad f = mu_eq grad c_eq + mu_ineq grad g, g = -c: lambda = (-mu_eq, mu_ineq).
    mu = expected.multipliers
    np.testing.assert_allclose(shown["multipliers"], [-mu[0], mu[1]], atol=1e-7)
    assert shown["converged"]


def test_a_kkt_point_that_is_a_constrained_maximum_says_so(gradcli):
    result = gradcli("minimize", "x + y", "--x", "0.5", "--y", "0.5",
                     "--subject-to", "x**2 + y**2 == 1", "--format", "plain")  # fmt: skip
    assert result.exit_code == 0
    assert "classification local maximum" in result.stdout.splitlines()
    assert "point.x 0.7071067811865" in result.stdout
    assert "warning: the end point is a KKT point but not a local minimum" in result.stderr


def test_maximize_minimises_minus_f(gradcli_json):
    shown = gradcli_json("minimize", *CIRCLE, "--subject-to", "x**2 + y**2 == 1", "--maximize")
    assert shown["point"]["x"] == pytest.approx(1 / math.sqrt(2), abs=1e-8)
    # grad(-f) = (-1, -1) and grad c = (sqrt 2, sqrt 2): lambda = 1/sqrt(2).
    assert shown["multipliers"] == pytest.approx([1 / math.sqrt(2)], abs=1e-8)
    assert shown["classification"] == "local maximum"


def test_a_run_stopped_short_fails_the_kkt_check_with_exit_1(gradcli):
    result = gradcli("minimize", *CIRCLE, "--subject-to", "x**2 + y**2 == 1",
                     "--max-iter", "1", "--format", "plain")  # fmt: skip
    assert result.exit_code == 1
    assert "converged false" in result.stdout.splitlines()
    assert "the KKT conditions do not hold (stationarity" in result.stderr


def test_consts_bound_or_not_reach_the_constraints(gradcli_json, tmp_path):
    program = tmp_path / "radius.grad"
    program.write_text("const r = 2\nx + y\n")
    for extra, r in (((), 2.0), (("--r", "3"), 3.0)):
        shown = gradcli_json("minimize", program, "--x", "1", "--y", "0", *extra,
                             "--subject-to", "x**2 + y**2 == r**2")  # fmt: skip
        # x = y = -r/sqrt(2), and 1 + lambda*2x = 0: lambda = 1/(r*sqrt(2)).
        assert shown["point"]["x"] == pytest.approx(-r / math.sqrt(2), abs=1e-8)
        assert shown["multipliers"] == pytest.approx([1 / (r * math.sqrt(2))], abs=1e-8)


def test_a_chained_inequality_is_two_constraints(gradcli_json):
    shown = gradcli_json("minimize", "x + y", "--x", "0", "--y", "0",
                         "--subject-to", "-1 <= x <= 0.5", "--subject-to", "y >= -2")  # fmt: skip
    assert [c["text"] for c in shown["constraints"]] == ["-1 <= x", "x <= 0.5", "y >= -2"]
    assert [shown["point"]["x"], shown["point"]["y"]] == pytest.approx([-1, -2], abs=1e-8)
    assert shown["multipliers"] == pytest.approx([1, 0, 1], abs=1e-8)


def test_the_table_shows_the_multipliers_and_the_kkt_conditions(gradcli):
    result = gradcli("minimize", *CIRCLE, "--subject-to", "x**2 + y**2 == 1", tty=True)
    assert result.exit_code == 0
    assert "│ x**2 + y**2 == 1 │" in result.stdout and "0.707107" in result.stdout
    assert "complementary slackness" in result.stdout
    assert "Lagrangian's Hessian says: local minimum" in result.stdout


@pytest.mark.parametrize(
    "constraint, message, caret",
    [
        ("x**2 + * y**2 == 1", "error: --subject-to: unexpected '*' after '+' at 1:8",
         "         ^"),
        ("x**2 + y**2", "error: --subject-to: needs an equation or inequality", "  ^~~~~~~~~~~"),
        ("x**2 + y**2 < 1", "error: --subject-to: a constraint is LHS == RHS, LHS <= RHS or "
         "LHS >= RHS: a strict inequality bounds no closed set at 1:13", "              ^"),
        ("x**2 + z**2 == 1", "error: --subject-to: 'z' is no input or const of the program",
         "         ^"),
        ("x == foo(1)", "error: --subject-to: unknown function 'foo'", "       ^~~"),
        ("x = 1", "error: --subject-to: an equation is written LHS == RHS: = assigns", "  ^"),
    ],
)  # fmt: skip
def test_a_bad_constraint_is_one_error_with_its_caret(gradcli, constraint, message, caret):
    result = gradcli("minimize", *CIRCLE, "--subject-to", constraint)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith(message)
    assert lines[1:] == ["  " + constraint, caret]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--subject-to", "[x, y] == 1"], "give one --subject-to per entry"),
        (["--wrt", "x", "--subject-to", "y == 1"], "it uses none of the inputs varied (x)"),
        (["--subject-to", "x == 0", "--bounds", "x=0:1"], "--bounds cannot go with --subject-to"),
        (["--subject-to", "x == 0", "--method", "bfgs"], "--method bfgs takes no constraints"),
        (["--subject-to", "x == 0", "--trace"], "--trace cannot go with --subject-to"),
    ],
)
def test_what_a_constrained_run_refuses(gradcli, extra, message):
    result = gradcli("minimize", *CIRCLE, *extra)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_sensitivity_of_a_projection_onto_the_circle(gradcli_json, tmp_path):
    # The nearest point of the unit circle to (2, c) is (2, c)/sqrt(4 + c²): by hand,
    # dx/dc = -2c/(4 + c²)^(3/2) and dy/dc = 4/(4 + c²)^(3/2).
    program = tmp_path / "nearest.grad"
    program.write_text("const c = 1\n(x-2)**2 + (y-c)**2\n")
    shown = gradcli_json("minimize", program, "--x", "1", "--y", "0",
                         "--subject-to", "x**2 + y**2 == 1", "--sensitivity")  # fmt: skip
    assert [shown["point"]["x"], shown["point"]["y"]] == pytest.approx(
        [2 / math.sqrt(5), 1 / math.sqrt(5)], abs=1e-10
    )
    assert shown["sensitivity"]["x"]["c"] == pytest.approx(-2 / 5**1.5, abs=1e-9)
    assert shown["sensitivity"]["y"]["c"] == pytest.approx(4 / 5**1.5, abs=1e-9)


def test_sensitivity_where_the_active_constraints_fix_the_point(gradcli_json, tmp_path):
    # x + y >= a and x <= b both active: x = b and y = a - b.
    program = tmp_path / "corner.grad"
    program.write_text("const a = 1\nconst b = 0.2\nx**2 + y**2\n")
    shown = gradcli_json("minimize", program, "--x", "0", "--y", "0", "--subject-to",
                         "x + y >= a", "--subject-to", "x <= b", "--sensitivity")  # fmt: skip
    found = shown["sensitivity"]
    assert [found["x"]["a"], found["x"]["b"], found["y"]["a"], found["y"]["b"]] == pytest.approx(
        [0, 1, 1, -1], abs=1e-12
    )


def test_sensitivity_under_constraints_against_re_solving_with_scipy(gradcli_json, tmp_path):
    import scipy.optimize

    def minimiser(p):
        constraints = [{"type": "eq", "fun": lambda v: v[0] * v[1] - p,
                        "jac": lambda v: np.array([v[1], v[0]])}]  # fmt: skip
        return scipy.optimize.minimize(
            lambda v: (v[0] - 3) ** 2 + 2 * (v[1] - 1) ** 2,
            [1.5, 1.0],
            jac=lambda v: np.array([2 * (v[0] - 3), 4 * (v[1] - 1)]),
            method="slsqp",
            constraints=constraints,
            tol=1e-14,
        ).x

    program = tmp_path / "hyperbola.grad"
    program.write_text("const p = 2\n(x-3)**2 + 2*(y-1)**2\n")
    shown = gradcli_json("minimize", program, "--x", "1.5", "--y", "1",
                         "--subject-to", "x*y == p", "--sensitivity")  # fmt: skip
    np.testing.assert_allclose(
        [shown["point"]["x"], shown["point"]["y"]], minimiser(2.0), atol=1e-8
    )
    h = 1e-5
    expected = (minimiser(2 + h) - minimiser(2 - h)) / (2 * h)
    found = [shown["sensitivity"]["x"]["p"], shown["sensitivity"]["y"]["p"]]
    np.testing.assert_allclose(found, expected, rtol=1e-5)


def test_sensitivity_warns_of_an_active_constraint_with_multiplier_zero(gradcli, tmp_path):
    program = tmp_path / "corner.grad"
    program.write_text("const a = 1\nconst b = 0.2\nx**2 + y**2\n")
    result = gradcli("minimize", program, "--x", "0", "--y", "0", "--subject-to", "x + y >= a",
                     "--subject-to", "x <= 2.5*b", "--sensitivity")  # fmt: skip
    assert "warning: --sensitivity: x <= 2.5*b is active with multiplier 0" in result.stderr


def test_hock_schittkowski_71(gradcli_json):
    # The published solution of problem 71 (Hock and Schittkowski, 1981), and its
    # multipliers as Ipopt's example prints them: lambda = (-0.55229366, 0.16146856)
    # for a*b*c*d >= 25 and the sum of squares == 40 (with our c = 25 - a*b*c*d,
    # 0.55229366), and 1.0878712 for the lower bound of a.
    shown = gradcli_json(
        "minimize", "a*d*(a+b+c) + c", "--a", "1", "--b", "5", "--c", "5", "--d", "1",
        "--subject-to", "a*b*c*d >= 25", "--subject-to", "a**2 + b**2 + c**2 + d**2 == 40",
        *(option for name in "abcd" for option in ("--subject-to", f"1 <= {name} <= 5")),
    )  # fmt: skip
    point = [shown["point"][name] for name in "abcd"]
    np.testing.assert_allclose(point, [1, 4.7429994, 3.8211503, 1.3794082], atol=1e-6)
    assert shown["value"] == pytest.approx(17.0140173, abs=1e-6)
    multipliers = shown["multipliers"]
    np.testing.assert_allclose(multipliers[:3], [0.55229366, 0.16146856, 1.0878712], atol=1e-6)
    assert multipliers[3:] == [0] * 7
    assert shown["converged"] and shown["classification"] == "local minimum"
