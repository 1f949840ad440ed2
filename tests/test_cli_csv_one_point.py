"""``--format csv`` at one point: the header and the one row that a many-point run
writes for that point, on every command whose many-point runs give CSV."""

from __future__ import annotations

import pytest

# command, SOURCE, the options of the point (y bound), and x's value there.
CASES = [
    ("eval", "x*y", ["--y", "2"], "1"),
    ("grad", "x*y", ["--y", "2"], "1"),
    ("jacobian", "[x*y, x]", ["--y", "2"], "1"),
    ("hessian", "x**2*y", ["--y", "2"], "1.5"),
    ("vjp", "[x**2, x*y]", ["--y", "2", "--grad-output", "[1, 1]"], "3"),
    ("jvp", "[x**2, x*y]", ["--y", "2", "--tangent", "x=1"], "3"),
    ("propagate", "x*y", ["--y", "2", "--sigma", "x=0.1"], "1"),
    ("taylor", "exp(x)*y", ["--y", "2"], "0"),
    ("check", "x**2*y", ["--y", "2"], "1"),
]


def _csv(result):
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


@pytest.mark.parametrize("command, source, options, x", CASES, ids=[c[0] for c in CASES])
def test_one_point_is_the_row_of_many(gradcli, command, source, options, x):
    one = _csv(gradcli(command, source, "--x", x, *options, "--format", "csv"))
    many = _csv(gradcli(command, source, "--over", f"x=[{x}]", *options, "--format", "csv"))
    assert len(one) == 2  # a header and a row
    # The many-point run's first column is the input varied.
    assert [line.split(",", 1)[1] for line in many] == one
    assert many[1].split(",", 1)[0] == x


def test_the_numbers(gradcli):
    # By hand: x*y at (1, 2) is 2, its gradient (y, x) = (2, 1).
    assert _csv(gradcli("grad", "x*y", "--x", "1", "--y", "2", "--format", "csv")) == [
        "value,grad.x,grad.y",
        "2,2,1",
    ]
    # [x*y, x]: the Jacobian's columns by input, each of the two outputs.
    assert _csv(gradcli("jacobian", "[x*y, x]", "--x", "1", "--y", "2", "--format", "csv")) == [
        "value[0],value[1],jacobian.x[0],jacobian.x[1],jacobian.y[0],jacobian.y[1]",
        "2,1,2,1,1,0",
    ]
