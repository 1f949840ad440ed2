"""solve --sensitivity and minimize --sensitivity: the derivative of the solution with
respect to the other inputs and the consts, against hand derivations and against
central finite differences of re-solving with SciPy in float64."""

from __future__ import annotations

import numpy as np
import pytest

ARM = """\
const l1 = 1
const l2 = 0.8
const px = 1.2
const py = 0.9
[l1*cos(t1) + l2*cos(t1 + t2) - px, l1*sin(t1) + l2*sin(t1 + t2) - py]
"""


def test_a_root_moves_with_its_coefficient_as_derived_by_hand(gradcli_json):
    # x**3 - a*x - 5 = 0: 3r² dr - r da - a dr = 0, so dr/da = r/(3r² - a).
    shown = gradcli_json("solve", "x**3 - a*x - 5", "--x", "2", "--a", "2", "--wrt", "x",
                         "--sensitivity")  # fmt: skip
    r = shown["point"]["x"]
    assert shown["sensitivity"]["x"]["a"] == pytest.approx(r / (3 * r**2 - 2), rel=1e-12)


def test_a_const_is_a_parameter_too_bound_or_not(gradcli_json, tmp_path):
    program = tmp_path / "cubic.grad"
    program.write_text("const a = 2\nx**3 - a*x - 5\n")
    for extra, a in (((), 2.0), (("--a", "3"), 3.0)):
        shown = gradcli_json("solve", program, "--x", "2", *extra, "--sensitivity")
        r = shown["point"]["x"]
        assert r**3 - a * r - 5 == pytest.approx(0, abs=1e-12)
        assert shown["sensitivity"]["x"]["a"] == pytest.approx(r / (3 * r**2 - a), rel=1e-12)


def _arm_root(l1, l2, px, py, start):
    import scipy.optimize

    def system(t):
        return [
            l1 * np.cos(t[0]) + l2 * np.cos(t[0] + t[1]) - px,
            l1 * np.sin(t[0]) + l2 * np.sin(t[0] + t[1]) - py,
        ]

    return scipy.optimize.fsolve(system, start, xtol=1e-12)


def test_the_inverse_kinematics_of_a_two_link_arm_against_re_solving(gradcli_json, tmp_path):
    program = tmp_path / "arm.grad"
    program.write_text(ARM)
    shown = gradcli_json("solve", program, "--t1", "0.3", "--t2", "1", "--sensitivity")
    root = np.array([shown["point"]["t1"], shown["point"]["t2"]])
    given = {"l1": 1.0, "l2": 0.8, "px": 1.2, "py": 0.9}
    np.testing.assert_allclose(_arm_root(*given.values(), root), root, atol=1e-12)
    h = 1e-6
    for name in given:
        up = _arm_root(**{**given, name: given[name] + h}, start=root)
        down = _arm_root(**{**given, name: given[name] - h}, start=root)
        expected = (up - down) / (2 * h)
        found = [shown["sensitivity"]["t1"][name], shown["sensitivity"]["t2"][name]]
        np.testing.assert_allclose(found, expected, rtol=1e-6, atol=1e-8)


def test_a_minimiser_moves_with_its_parameter_as_derived_by_hand(gradcli_json):
    # d/dx [(x-c)² + x⁴] = 2(x-c) + 4x³ = 0: (2 + 12x²) dx = 2 dc, so dx/dc = 1/(1 + 6x²).
    shown = gradcli_json("minimize", "(x-c)**2 + x**4", "--x", "1", "--c", "2", "--wrt", "x",
                         "--sensitivity")  # fmt: skip
    x = shown["point"]["x"]
    assert 2 * (x - 2) + 4 * x**3 == pytest.approx(0, abs=1e-10)
    assert shown["sensitivity"]["x"]["c"] == pytest.approx(1 / (1 + 6 * x**2), rel=1e-9)


def test_a_vector_minimiser_against_re_minimising(gradcli_json):
    import scipy.optimize

    def minimiser(a):
        # The gradient of (x-a)² + (y-ax)² + x⁴, by hand, is zero at the minimiser.
        gradient = lambda v: [  # noqa: E731
            2 * (v[0] - a) - 2 * a * (v[1] - a * v[0]) + 4 * v[0] ** 3,
            2 * (v[1] - a * v[0]),
        ]
        return scipy.optimize.fsolve(gradient, [0.7, 1.1], xtol=1e-12)

    shown = gradcli_json("minimize", "(x-a)**2 + (y-a*x)**2 + x**4", "--x", "0", "--y", "0",
                         "--a", "1.5", "--wrt", "x,y", "--sensitivity")  # fmt: skip
    h = 1e-6
    expected = (minimiser(1.5 + h) - minimiser(1.5 - h)) / (2 * h)
    found = [shown["sensitivity"]["x"]["a"], shown["sensitivity"]["y"]["a"]]
    np.testing.assert_allclose(found, expected, rtol=1e-7)


def test_plain_lines_get_and_the_table(gradcli):
    args = ["solve", "x**3 - a*x - 5", "--x", "2", "--a", "2", "--wrt", "x", "--sensitivity"]
    plain = gradcli(*args, "--format", "plain")
    assert plain.exit_code == 0
    assert plain.stdout.splitlines()[-1].startswith("sensitivity.x.a 0.18765964859")
    got = gradcli(*args, "--get", "sensitivity.x.a")
    assert got.exit_code == 0 and float(got.stdout) == pytest.approx(0.1876596486)
    table = gradcli(*args, tty=True)
    assert table.exit_code == 0
    assert "d(solution)/d(input)" in table.stdout
    assert "0.18766" in table.stdout.split("d(solution)/d(input)")[1]


def test_without_anything_else_to_depend_on_it_says_so(gradcli):
    result = gradcli("solve", "x**3 - 2*x - 5", "--x", "2", "--sensitivity")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --sensitivity: the solution depends on no other")


def test_a_singular_hessian_leaves_the_derivative_undefined_with_a_warning(gradcli):
    # Every point of the line x + y = c is a minimum: H = [[2, 2], [2, 2]] is singular.
    result = gradcli("minimize", "(x + y - c)**2", "--x", "0", "--y", "0", "--c", "1",
                     "--wrt", "x,y", "--sensitivity", "--format", "plain")  # fmt: skip
    assert "sensitivity.x.c nan" in result.stdout.splitlines()
    assert "warning: --sensitivity: the Hessian is singular at the end point" in result.stderr


def test_a_vector_input_gives_a_block_per_pair_of_inputs(gradcli_json):
    # The entries are apart: dw_i/dv_j = 1/(1 + 6 w_i²) when i = j, else 0.
    shown = gradcli_json("minimize", "sum((w - v)**2) + sum(w**4)", "--w", "[0, 0]",
                         "--v", "[1, 2]", "--wrt", "w", "--sensitivity")  # fmt: skip
    w = np.array(shown["point"]["w"])
    expected = np.diag(1 / (1 + 6 * w**2))
    np.testing.assert_allclose(shown["sensitivity"]["w"]["v"], expected, rtol=1e-9, atol=1e-15)


def test_a_const_no_derivative_reaches_is_no_parameter(gradcli_json, tmp_path):
    # n is a size. The gradient 2 sum(x - c t_i) + 4x³ = 6x - 3c + 4x³ over t = 0, 1/2, 1
    # is zero at the minimum: (6 + 12x²) dx = 3 dc.
    program = tmp_path / "sized.grad"
    program.write_text("const c = 2\nconst n = 3\nsum((x - c*linspace(0, 1, n))**2) + x**4\n")
    shown = gradcli_json("minimize", program, "--x", "1", "--sensitivity")
    x = shown["point"]["x"]
    assert list(shown["sensitivity"]["x"]) == ["c"]
    assert shown["sensitivity"]["x"]["c"] == pytest.approx(1 / (2 + 4 * x**2), rel=1e-9)


def test_bounds_are_refused_they_would_make_the_gradient_not_zero(gradcli):
    result = gradcli("minimize", "(x-c)**2", "--x", "0", "--c", "2", "--wrt", "x",
                     "--bounds", "x=0:1", "--sensitivity")  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --sensitivity cannot go with --bounds")


def test_sensitivity_at_many_points(gradcli):
    # A row each, with its own derivative: d sqrt(a)/da = 1/(2 sqrt(a)) for solve, and
    # dx/da = 1/(1 + 6x^2) at the minimiser of (x - a)^2 + x^4 (by hand).
    import csv
    import io

    result = gradcli(
        "solve", "x**2 - a", "--x", "1", "--over", "a=1:4:4", "--sensitivity", "--format", "csv"
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    got = [float(r["sensitivity.x.a"]) for r in rows]
    assert got == pytest.approx([1 / (2 * np.sqrt(a)) for a in (1, 2, 3, 4)], rel=1e-12)
    result = gradcli(
        "minimize", "(x-a)**2 + x**4", "--x", "1", "--over", "a=1:2:2", "--sensitivity",
        "--format", "csv",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for row in csv.DictReader(io.StringIO(result.stdout)):
        x = float(row["point.x"])
        assert float(row["sensitivity.x.a"]) == pytest.approx(1 / (1 + 6 * x**2), rel=1e-9)
