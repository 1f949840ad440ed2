"""minimize and solve at many points (--over, --points): a row each with its own
verdict, the start from the bindings and the parameters from the columns; exit
status 1 naming the rows that did not converge."""

from __future__ import annotations

import json

import numpy as np
import pytest


def test_solve_over_a_parameter_gives_its_square_root_per_row(gradcli):
    result = gradcli("solve", "x**2 - a", "--x", "1", "--over", "a=1:4:4", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [row["a"] for row in rows] == [1, 2, 3, 4]
    np.testing.assert_allclose([row["point.x"] for row in rows], np.sqrt([1, 2, 3, 4]), rtol=1e-14)
    assert all(row["converged"] for row in rows)
    # The Jacobian's determinant at the root is 2 sqrt(a), by hand.
    np.testing.assert_allclose([r["determinant"] for r in rows], 2 * np.sqrt([1, 2, 3, 4]))


def test_a_row_that_does_not_converge_exits_1_and_says_which(gradcli):
    # x² + 1 has no real root: Newton and SciPy stop short at a = -1.
    result = gradcli("solve", "x**2 - a", "--x", "1", "--over", "a=-1:2:4", "--format", "csv")
    assert result.exit_code == 1
    header, *rows = result.stdout.splitlines()
    converged = header.split(",").index("converged")
    assert [row.split(",")[converged] for row in rows] == ["false", "true", "true", "true"]
    assert result.stderr.splitlines() == [
        "error: solve did not converge at 1 of 4 points (converged false): row 1 (a = -1)"
    ]


def test_a_column_of_an_unknown_named_by_wrt_gives_its_start(gradcli):
    # From -1 Newton goes to -sqrt(2), from 1 to +sqrt(2).
    result = gradcli("solve", "x**2 - 2", "--wrt", "x", "--over", "x=[-1, 1]", "--format", "csv")
    assert result.exit_code == 0, result.output
    header, *rows = result.stdout.splitlines()
    roots = [float(row.split(",")[header.split(",").index("point.x")]) for row in rows]
    np.testing.assert_allclose(roots, [-np.sqrt(2), np.sqrt(2)], rtol=1e-14)


def test_a_system_per_target_from_a_file(gradcli, tmp_path):
    # Two-link arm of unit links: the angles that reach each target (px, py).
    points = tmp_path / "targets.csv"
    points.write_text("id,px,py\nt1,1.2,0.8\nt2,0.5,1.5\n")
    source = "[cos(a) + cos(a + b) - px, sin(a) + sin(a + b) - py]"
    result = gradcli("solve", source, "--a", "0.3", "--b", "1", "--points", points,
                     "--format", "csv")  # fmt: skip
    assert result.exit_code == 0, result.output
    header, *rows = [line.split(",") for line in result.stdout.splitlines()]
    assert header[:3] == ["id", "px", "py"]
    for row in rows:
        a, b = (float(row[header.index(f"point.{n}")]) for n in "ab")
        px, py = float(row[1]), float(row[2])
        # Forward kinematics of the angles found, by hand.
        reach = [np.cos(a) + np.cos(a + b), np.sin(a) + np.sin(a + b)]
        np.testing.assert_allclose(reach, [px, py], atol=1e-12)


def test_minimize_over_a_parameter(gradcli):
    # The minimum of (x - a)² + x⁴/4 is where 2(x - a) + x³ = 0 (numpy's roots).
    result = gradcli("minimize", "(x - a)**2 + x**4/4", "--x", "0", "--over", "a=[0.5, 2]",
                     "--format", "csv")  # fmt: skip
    assert result.exit_code == 0, result.output
    header, *rows = [line.split(",") for line in result.stdout.splitlines()]
    assert "converged" in header and "classification" in header
    for row in rows:
        a = float(row[0])
        real = [r.real for r in np.roots([1, 0, 2, -2 * a]) if abs(r.imag) < 1e-12]
        assert float(row[header.index("point.x")]) == pytest.approx(real[0], rel=1e-9)
        assert row[header.index("classification")] == "local minimum"


def test_minimize_refuses_trace_at_many_points(gradcli):
    result = gradcli("minimize", "(x - a)**2", "--x", "0", "--over", "a=1:2:2", "--trace")
    assert result.exit_code == 2
    assert "--trace follows one run" in result.stderr


def test_solve_at_one_point_writes_one_csv_row(gradcli):
    # The row a many-point run writes for that point: sqrt(2), converged.
    result = gradcli("solve", "x**2 - 2", "--x", "1", "--format", "csv")
    assert result.exit_code == 0, result.output
    header, row = result.stdout.splitlines()
    fields = dict(zip(header.split(","), row.split(",")))
    assert float(fields["point.x"]) == pytest.approx(2**0.5, rel=1e-15)
    assert fields["converged"] == "true"


def test_critical_at_many_points_counts_each_kind(gradcli, tmp_path):
    points = tmp_path / "a.csv"
    points.write_text("a\n0.1\n1\n")
    result = gradcli("critical", "x**4/4 - a*x**2/2 + x/10", "--over", "x=-2:2",
                     "--points", points, "--format", "csv")  # fmt: skip
    assert result.exit_code == 0, result.output
    header, *rows = [line.split(",") for line in result.stdout.splitlines()]
    assert header == ["a", "count", "minima", "maxima", "saddle_points", "lowest.x",
                      "lowest.value"]  # fmt: skip
    for row in rows:
        a = float(row[0])
        # f' = x³ - a x + 1/10: its real roots by NumPy, each a minimum where f'' = 3x² - a > 0.
        roots = [r.real for r in np.roots([1, 0, -a, 0.1]) if abs(r.imag) < 1e-12]
        f = lambda x: x**4 / 4 - a * x**2 / 2 + x / 10  # noqa: E731, B023
        minima = sum(3 * r * r - a > 0 for r in roots)
        assert [int(v) for v in row[1:5]] == [len(roots), minima, len(roots) - minima, 0]
        lowest = min(roots, key=f)
        assert float(row[5]) == pytest.approx(lowest, rel=1e-9)
        assert float(row[6]) == pytest.approx(f(lowest), rel=1e-9)


def test_critical_takes_no_many_point_over(gradcli):
    # Its --over is the box: x and y both varied, a bound.
    result = gradcli("critical", "(x - a)**2 + y**2", "--over", "x=-2:2", "--over", "y=-2:2",
                     "--a", "1", "--format", "json")  # fmt: skip
    assert result.exit_code == 0
    assert json.loads(result.stdout)["points"][0]["x"] == pytest.approx(1)
