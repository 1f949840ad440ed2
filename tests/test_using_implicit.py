"""implicit: the derivatives of solved-for inputs, against SymPy's idiff and the
implicit function theorem worked in SymPy; the equation syntax and its errors;
points off the curve and singular ∂F/∂y."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gradcli import api
from gradcli.errors import GradcliError


def test_the_worked_example_agrees_with_the_hand_derivation(gradcli_json):
    # F = x^2 + xy + y^2 - 7: y' = -(2x+y)/(x+2y) = -4/5 at (1, 2); differentiating
    # again, y'' = -(F_xx + 2 F_xy y' + F_yy y'^2)/F_y = -(2 - 1.6 + 1.28)/5 = -0.336.
    shown = gradcli_json("implicit", "x**2 + x*y + y**2 = 7", "--x", "1", "--y", "2",
                         "--solve-for", "y")  # fmt: skip
    assert shown["derivative"]["y"]["x"] == pytest.approx(-0.8, rel=1e-14)
    assert shown["second_derivative"]["y"]["x"]["x"] == pytest.approx(-0.336, rel=1e-14)
    assert shown["on_curve"] and shown["residual"] == 0 and shown["determinant"] == 5


@pytest.mark.parametrize(
    "equation, point",
    [
        ("x**2 + x*y + y**2 - 7", (1.0, 2.0)),
        ("sin(x*y) + exp(y) - 2", (0.3, None)),
        ("y**3 + x*y - x**2 - 1", (0.7, None)),
    ],
)
def test_first_and_second_derivative_agree_with_sympy_idiff(equation, point):
    import scipy.optimize
    import sympy

    x, y = sympy.symbols("x y")
    F = sympy.sympify(equation.replace("**", "^"), convert_xor=True)
    x0, y0 = point
    if y0 is None:  # a point on the curve, by SciPy
        f = sympy.lambdify(y, F.subs(x, x0))
        y0 = scipy.optimize.brentq(f, -3, 3, xtol=1e-15)
    first = sympy.idiff(F, y, x)
    second = sympy.idiff(F, y, x, 2)
    expected = [float(d.subs({x: x0, y: y0})) for d in (first, second)]
    report = api.implicit(equation, {"x": x0, "y": y0}, solve_for=["y"])
    shown = [float(report.derivative["y"]["x"]), float(report.second_derivative["y"]["x"]["x"])]
    np.testing.assert_allclose(shown, expected, rtol=1e-10)
    assert report.on_curve


def test_a_system_agrees_with_the_theorem_worked_in_sympy(gradcli_json):
    # The circle where the sphere x²+y²+z² = 3 meets the plane x+y+z = 3/2 + t.
    import sympy

    x, y, z, t = sympy.symbols("x y z t")
    F = sympy.Matrix([x**2 + y**2 + z**2 - 3, x + y + z - t])
    x0, y0, t0 = 1.2, 0.7, 2.5
    z0 = t0 - x0 - y0
    r2 = x0**2 + y0**2 + z0**2
    point = {x: x0, y: y0, z: z0, t: t0}
    unknowns, others = [y, z], [x, t]
    Fy, Fx = F.jacobian(unknowns), F.jacobian(others)
    Y = -Fy.inv() * Fx
    expected = np.array(Y.subs(point).evalf(), dtype=float)
    shown = gradcli_json(
        "implicit", f"[x**2 + y**2 + z**2 = {r2!r}, x + y + z = t]",
        "--x", x0, "--y", y0, "--z", z0, "--t", t0, "--solve-for", "y,z",
    )  # fmt: skip
    assert shown["on_curve"]
    got = np.array([[shown["derivative"][u][v] for v in ("x", "t")] for u in ("y", "z")])
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    # Second order: differentiate each entry of Y along the curve (the chain rule,
    # d/dv = ∂/∂v + Σ ∂/∂u dU/dv over the unknowns u), in SymPy.
    for i, u in enumerate(unknowns):
        for j, v in enumerate(others):
            for k, w in enumerate(others):
                entry = Y[i, j]
                total = sympy.diff(entry, w) + sum(
                    sympy.diff(entry, s) * Y[m, k] for m, s in enumerate(unknowns)
                )
                want = float(total.subs(point))
                got = shown["second_derivative"][str(u)][str(v)][str(w)]
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_an_expression_alone_means_it_equals_zero(gradcli_json):
    a = gradcli_json("implicit", "x**2 + y**2 - 25", "--x", 3, "--y", 4, "--solve-for", "y")
    b = gradcli_json("implicit", "x**2 = 25 - y**2", "--x", 3, "--y", 4, "--solve-for", "y")
    # y' = -x/y, y'' = -(x² + y²)/y³, by hand.
    for shown in (a, b):
        assert shown["derivative"]["y"]["x"] == pytest.approx(-0.75, rel=1e-14)
        assert shown["second_derivative"]["y"]["x"]["x"] == pytest.approx(-25 / 64, rel=1e-14)


def test_a_point_off_the_curve_is_warned_of_with_its_residual(gradcli):
    result = gradcli("implicit", "x**2 + y**2 = 1", "--x", "0.6", "--y", "0.81",
                     "--solve-for", "y", "--format", "json")  # fmt: skip
    assert result.exit_code == 0
    shown = json.loads(result.stdout)
    assert not shown["on_curve"]
    assert shown["residual"] == pytest.approx(0.6**2 + 0.81**2 - 1, rel=1e-12)
    assert "not on the curve" in result.stderr and "0.0161" in result.stderr
    # The level set x² + y² = c through the point: y' = -x/y.
    assert shown["derivative"]["y"]["x"] == pytest.approx(-0.6 / 0.81, rel=1e-14)


def test_a_vertical_tangent_is_an_error(gradcli):
    result = gradcli("implicit", "x**2 + y**2 = 1", "--x", "1", "--y", "0", "--solve-for", "y")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: y is not determined by the equation there: ∂F/∂y is 0 at x = 1, y = 0 "
        "(a vertical tangent, or a singular point of the curve)"
    ]


@pytest.mark.parametrize(
    "source, message, caret",
    [
        ("x**2 + y**2 = 1 = 2", "an equation has one '=': this is a second at 1:17", 16),
        ("x**2 + y**2 == 1", "'==' compares: write the equation with one '=' at 1:13", 12),
        ("= 1", "the equation has no left side of '=' at 1:1", 0),
        ("x + y = 1 +", "unexpected end of input after '+' at 1:12", 11),
        ("[x + y = 1, x*foo(y) = 2]", "unknown function 'foo'", 14),
    ],
)
def test_bad_equations_are_one_line_with_a_caret(gradcli, source, message, caret):
    result = gradcli("implicit", source, "--x", "0.6", "--y", "0.8", "--solve-for", "y")
    assert result.exit_code == 2
    first, shown, under = result.stderr.splitlines()
    assert first.startswith(f"error: {message}")
    assert shown == f"  {source}"
    assert under.index("^") - 2 == caret


@pytest.mark.parametrize(
    "args, message",
    [
        (["--solve-for", "w"], "--solve-for w: the program has no input named 'w'"),
        (["--solve-for", "x,y"], "every input is solved for (x, y)"),
    ],
)
def test_bad_solve_for(gradcli, args, message):
    result = gradcli("implicit", "x**2 + y**2 = 1", "--x", "0.6", "--y", "0.8", *args)
    assert result.exit_code == 2 and message in result.stderr


def test_equations_must_match_the_solved_for_entries():
    with pytest.raises(GradcliError, match="2 equations .* for 1 entry of y"):
        api.implicit("[x**2 + y**2 = 1, x = y]", {"x": 0.6, "y": 0.8}, solve_for=["y"])


def test_comparisons_and_keywords_inside_a_side_stay():
    # sum(..., dim=0) and <= are not the equation's '='.
    report = api.implicit("sum([x, y], dim=0) + (x <= 2) = 3", {"x": 1, "y": 1}, solve_for=["y"])
    assert float(report.derivative["y"]["x"]) == -1.0


def test_a_program_keeps_its_assignments():
    report = api.implicit("c = 25\nx**2 + y**2 - c", {"x": 3, "y": 4}, solve_for=["y"])
    assert float(report.derivative["y"]["x"]) == pytest.approx(-0.75, rel=1e-14)


def test_the_table(gradcli):
    result = gradcli("implicit", "x**2 + x*y + y**2 = 7", "--x", 1, "--y", 2, "--solve-for", "y",
                     tty=True)  # fmt: skip
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[1] == "y as a function of x at"
    assert any("dy/dx" in line and "-0.8" in line for line in lines)
    assert any("d²y/dx²" in line and "-0.336" in line for line in lines)
    assert "residual: 0 (on the curve)" in lines


def test_many_points_a_row_each_and_off_the_curve_warned(gradcli, tmp_path):
    points = tmp_path / "p.csv"
    points.write_text("x,y\n3,4\n0,5\n0.6,0.81\n")
    result = gradcli("implicit", "x**2 + y**2 = 25", "--points", points, "--solve-for", "y",
                     "--format", "csv")  # fmt: skip
    assert result.exit_code == 0
    rows = result.stdout.splitlines()
    assert rows[0].split(",")[:4] == ["x", "y", "derivative.y.x", "second_derivative.y.x.x"]
    assert rows[1].split(",")[2:4] == ["-0.75", "-0.390625"]  # -x/y, -25/y³ by hand
    assert rows[2].split(",")[2:4] == ["0", "-0.2"]
    assert "1 of 3 points are not on the curve" in result.stderr
    assert "row 3 (x = 0.6, y = 0.81)" in result.stderr
