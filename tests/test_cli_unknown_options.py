"""Every command refuses an option it does not have the same way: ``error: NAME has no
option --OPTION``, with the option nearest it when there is one, and exit status 2,
whether or not the rest of the command would have evaluated anything."""

from __future__ import annotations

import pytest

from tests.command_runs import OTHERS, RUNS

EVERY = {**RUNS, **OTHERS}


def test_every_command_is_run_here():
    from gradcli.cli import commands

    assert set(commands.cli.commands) == set(EVERY)


def _refused(result, command, option):
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    first, *rest = result.stderr.splitlines()
    assert first.startswith(f"error: {command} has no option {option}"), first
    assert rest == [f"(see 'gradcli {command} --help')"] or rest == [], rest
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    return first


@pytest.mark.parametrize("command", sorted(EVERY))
def test_an_unknown_option_is_refused(gradcli, command):
    if command == "run":  # after PROGRAM every argument is the program's
        args = ["--bogus", "1", *EVERY[command]]
    else:
        args = [*EVERY[command], "--bogus", "1"]
    _refused(gradcli(command, *args), command, "--bogus")


@pytest.mark.parametrize("command", sorted(EVERY))
def test_a_misspelt_option_is_named(gradcli, command):
    if command == "run":
        first = _refused(gradcli(command, "--hepl", *EVERY[command]), command, "--hepl")
        assert "(did you mean --help?)" in first
        return
    first = _refused(gradcli(command, *EVERY[command], "--formt", "json"), command, "--formt")
    assert "(did you mean --format?)" in first


@pytest.mark.parametrize(
    "args",
    [
        # Nothing bound: diff evaluates nothing, and took --order for a binding.
        ["diff", "x**3", "--order", "2"],
        ["diff", "x**3", "--order", "2", "--x", "2"],
        ["plot", "x**2", "--over", "x=-1:1", "--order", "2"],
        ["plot", "x**2", "y", "--over", "x=-1:1", "--order", "2"],
    ],
)
def test_the_cases_of_the_issue(gradcli, args):
    first = _refused(gradcli(*args), args[0], "--order")
    assert "the program has no input named 'order'" in first


def test_a_binding_close_to_an_input_is_named(gradcli):
    # diff without the point evaluates nothing: the binding is refused all the same.
    first = _refused(gradcli("diff", "x**3*y", "--X", "2"), "diff", "--X")
    assert "(did you mean --x?)" in first
