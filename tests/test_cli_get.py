"""``--get NAME`` fetches every line of ``--format plain``, on every command that has
it: each plain line's key, given to ``--get``, prints that line's numbers or text."""

from __future__ import annotations

import pytest

from tests.conftest import SAMPLES

# One run of each command that takes --get, and the option that --get replaces.
RUNS = {
    "eval": ["x**2", "--x", "3"],
    "grad": ["(x+2)**2 + y", "--x", "2", "--y", "1"],
    "jacobian": ["[r*cos(t), r*sin(t)]", "--r", "2", "--t", "0.5"],
    "hessian": ["x**2+y**2", "--x", "1", "--y", "1"],
    "vjp": ["[x[0]**2, x[1]]", "--x", "[2, 3]", "--grad-output", "[1, 0]"],
    "jvp": ["x**2 + y", "--x", "[1, 2]", "--y", "3", "--tangent", "x=[1, 1]"],
    "check": ["x**2*y", "--x", "1", "--y", "2"],
    "diff": ["x**3*y", "--x", "2", "--y", "1"],
    "propagate": ["x*y", "--x", "1", "--y", "2", "--sigma", "x=0.1"],
    "taylor": ["exp(x)", "--x", "0"],
    "plot": ["abs(x)", "--over", "x=-1:1:5"],
    "minimize": ["(x-1)**2 + y**2", "--x", "0", "--y", "1"],
    "solve": ["[x**2 + y**2 - 4, x - y]", "--x", "1", "--y", "2"],
    "critical": ["x**3 - 3*x + y**2", "--over", "x=-2:2", "--over", "y=-2:2"],
    "fit": [
        "b1*(1-exp(-b2*x))",
        "--points",
        str(SAMPLES / "misra1a.csv"),
        "--params",
        "b1=500,b2=1e-4",
    ],  # fmt: skip
    "div": ["[x*y, y*z, z*x]", "--x", "1", "--y", "2", "--z", "3"],
    "curl": ["[x*y, y*z, z*x]", "--x", "1", "--y", "2", "--z", "3"],
    "laplacian": ["x**2*y + z**3", "--x", "1", "--y", "2", "--z", "3"],
}


def test_every_command_with_get_is_run_here():
    from gradcli.cli import commands

    commands.cli.load_more()
    with_get = {
        name
        for name, command in commands.cli.commands.items()
        if any(p.name == "get" for p in command.params)
    }
    assert with_get == set(RUNS)


@pytest.mark.parametrize("command", sorted(RUNS))
def test_every_plain_line_can_be_fetched(gradcli, command):
    plain = gradcli(command, *RUNS[command], "--format", "plain")
    assert plain.exit_code == 0, plain.output
    lines = plain.stdout.splitlines()
    assert lines
    for line in lines:
        key, _, rest = line.partition(" ")
        fetched = gradcli(command, *RUNS[command], "--get", key)
        assert fetched.exit_code == 0, (line, fetched.output)
        assert fetched.stdout.strip() == rest.strip(), line


def test_the_classification_of_the_issue(gradcli):
    result = gradcli("hessian", "x**2+y**2", "--x", "1", "--y", "1", "--get", "classification")
    assert result.exit_code == 0, result.output
    # By hand: grad = (2, 2) at (1, 1), not zero.
    assert result.stdout == "not a critical point\n"
