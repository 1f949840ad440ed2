"""propagate, taylor and check at many points (--over, --points FILE): a row of the
report at each point, written as the computing commands write theirs. Expected
numbers are by hand: σ of x**2 is |2x| σ_x, the Taylor coefficients of exp at a
are exp(a)/k!, d/dx x**2 y is 2xy."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest


def rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_propagate_gives_a_row_of_sigma_at_each_point(gradcli):
    result = gradcli("propagate", "x**2", "--over", "x=-1:2:4", "--sigma", "x=0.1")
    assert result.exit_code == 0, result.output
    found = rows(result.stdout)
    assert list(found[0]) == ["x", "value", "sigma", "inputs.x.sigma", "shares.x"]
    for row in found:
        x = float(row["x"])
        assert float(row["sigma"]) == pytest.approx(abs(2 * x) * 0.1, rel=1e-15)
        assert float(row["value"]) == x**2
    # x = 0 is a stationary point: first order's σ is 0 there, and the run says so.
    assert "warning: at 1 of 4 points σ is 0 to first order" in result.stderr
    assert "--monte-carlo 100000" in result.stderr


def test_propagate_rows_of_a_file_with_relative_sigmas_and_an_id(gradcli, tmp_path):
    # 10% of L: σ_f/f = sqrt(0.1² + (2·0.02/2)²) for f = L/T², T = 2 ± 0.02.
    points = tmp_path / "p.csv"
    points.write_text("id,L\nshort,0.5\nlong,2\n")
    result = gradcli("propagate", "L/T**2", "--points", points, "--sigma", "L=10%",
                     "--T", "2±0.02", "--format", "jsonl")  # fmt: skip
    assert result.exit_code == 0, result.output
    found = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["id"] for r in found] == ["short", "long"]
    for row, length in zip(found, (0.5, 2)):
        f = length / 4
        assert row["sigma"] == pytest.approx(f * math.hypot(0.1, 0.02), rel=1e-13)
        assert row["inputs.L.sigma"] == pytest.approx(0.1 * length, rel=1e-15)


def test_propagate_rows_with_monte_carlo(gradcli):
    result = gradcli("propagate", "x**2", "--over", "x=0,3", "--sigma", "x=0.1",
                     "--monte-carlo", "100000", "--format", "jsonl")  # fmt: skip
    assert result.exit_code == 0, result.output
    at_zero, at_three = (json.loads(line) for line in result.stdout.splitlines())
    # x² at x ~ N(0, 0.01): σ 0.01·√2; at 3, about first order's 0.6.
    assert at_zero["monte_carlo.sigma"] == pytest.approx(0.01 * math.sqrt(2), rel=0.03)
    assert at_three["monte_carlo.sigma"] == pytest.approx(0.6, rel=0.01)
    assert "--monte-carlo 100000" not in result.stderr  # given already


def test_taylor_gives_the_coefficients_at_each_point(gradcli):
    result = gradcli("taylor", "exp(x)", "--over", "x=0:1:3", "--order", "3")
    assert result.exit_code == 0, result.output
    found = rows(result.stdout)
    assert list(found[0]) == ["x", "value", *(f"coefficients[{k}]" for k in range(4))]
    for row in found:
        a = float(row["x"])
        for k in range(4):
            expected = math.exp(a) / math.factorial(k)
            assert float(row[f"coefficients[{k}]"]) == pytest.approx(expected, rel=1e-14)
    assert "note: coefficients[0] to [3] are those of 1, x, x**2, x**3" in result.stderr


def test_taylor_of_two_variables_names_its_terms(gradcli, tmp_path):
    # x*y about (a, b): ab + b (x-a) + a (y-b) + (x-a)(y-b).
    points = tmp_path / "p.csv"
    points.write_text("x,y\n2,3\n-1,0.5\n")
    result = gradcli("taylor", "x*y", "--points", points, "--format", "jsonl")
    assert result.exit_code == 0, result.output
    assert "those of 1, x, y, x**2, x*y, y**2" in result.stderr
    for line, (a, b) in zip(result.stdout.splitlines(), [(2, 3), (-1, 0.5)]):
        row = json.loads(line)
        assert [row[f"coefficients[{k}]"] for k in range(6)] == [a * b, b, a, 0, 1, 0]


def test_check_gives_a_row_at_each_point_and_exit_1_when_one_disagrees(gradcli):
    right = gradcli("check", "x**2*y", "--over", "x=-1:1:5", "--y", "2", "--grad", "x=2*x*y")
    assert right.exit_code == 0, right.output
    found = rows(right.stdout)
    assert [r["passed"] for r in found] == ["true"] * 5
    assert [float(r["checks.grad.x.expected"]) for r in found] == [-4, -2, 0, 2, 4]
    # Wrong where x != 0: 2*x is not 2*x*y at y = 2.
    wrong = gradcli("check", "x**2*y", "--over", "x=-1:1:5", "--y", "2", "--grad", "x=2*x")
    assert wrong.exit_code == 1
    assert [r["passed"] for r in rows(wrong.stdout)] == ["false", "false", "true", "false",
                                                          "false"]  # fmt: skip
    assert "warning: 4 of 5 points disagree" in wrong.stderr


def test_check_against_finite_differences_at_each_point(gradcli):
    result = gradcli("check", "sin(x)*y", "--over", "x=0:3:4", "--over", "y=1,2", "--order", "2")
    assert result.exit_code == 0, result.output
    found = rows(result.stdout)
    assert len(found) == 8
    assert {"checks.hessian.x.y.max_abs_error", "checks.grad.y.passed"} <= set(found[0])
    assert all(r["passed"] == "true" for r in found)


def test_an_error_at_a_row_names_the_row(gradcli, tmp_path):
    points = tmp_path / "p.csv"
    points.write_text("x\n1\n2\n")
    result = gradcli("check", "x", "--points", points, "--grad", "x=[1, 2]")
    assert result.exit_code == 2
    assert "--grad x: the formula has shape (2,)" in result.stderr
    assert f"(at row 1, line 2 of {points})" in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["propagate", "x", "--x", "1±0.1", "--output", "o.csv"],
         "--output writes the rows of many points"),
        (["check", "x", "--x", "1", "--keep", "id"], "--keep is for many points"),
        (["taylor", "x", "--over", "x=0:1:2", "--format", "plain"], "--format plain is for one"),
    ],
)  # fmt: skip
def test_the_options_of_many_points_on_the_analyses(gradcli, args, message):
    result = gradcli(*args)
    assert result.exit_code == 2
    assert message in result.stderr
