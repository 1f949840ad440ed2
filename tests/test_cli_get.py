"""``--get NAME`` fetches every line of ``--format plain``, on every command that has
it: each plain line's key, given to ``--get``, prints that line's numbers or text."""

from __future__ import annotations

import pytest

from tests.command_runs import RUNS


def test_every_command_with_get_is_run_here():
    from gradcli.cli import commands

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
