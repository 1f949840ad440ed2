"""With ``--format json`` an error is one JSON object on one line of standard error,
``{"error": ..., "exit": N}``, with the place in the source where it has one: a
script parses it instead of reading the text."""

from __future__ import annotations

import json

import pytest

from tests.command_runs import OTHERS, RUNS

WITH_FORMAT = {**RUNS, **{k: v for k, v in OTHERS.items() if k != "run"}}


def _error(result, code):
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    return json.loads(line)


@pytest.mark.parametrize("command", sorted(WITH_FORMAT))
def test_an_unknown_option_is_one_json_object(gradcli, command):
    result = gradcli(command, *WITH_FORMAT[command], "--bogus", "1", "--format", "json")
    shown = _error(result, 2)
    assert shown["exit"] == 2
    assert shown["error"].startswith(f"{command} has no option --bogus")
    assert shown["help"] == f"gradcli {command} --help"


@pytest.mark.parametrize("fmt", [["--format", "json"], ["--format=json"], ["--format", "jsonl"]])
def test_a_syntax_error_has_its_place(gradcli, fmt):
    shown = _error(gradcli("grad", "x +* 2", "--x", "1", *fmt), 2)
    # By hand: the '*' is the 4th character of line 1.
    assert shown == {
        "error": "unexpected '*' after '+'",
        "exit": 2,
        "line": 1,
        "column": 4,
        "end_line": 1,
        "end_column": 4,
    }


def test_an_error_in_a_program_file_names_the_file(gradcli, tmp_path):
    program = tmp_path / "p.grad"
    program.write_text("y = x * 2\nz = y +\n")
    shown = _error(gradcli("grad", str(program), "--x", "1", "--format", "json"), 2)
    assert shown["file"] == str(program) and shown["line"] == 2


def test_no_convergence_is_exit_1(gradcli):
    result = gradcli("solve", "x**2 + 1", "--x", "1", "--format", "json")
    assert result.exit_code == 1
    json.loads(result.stdout)  # the last iterate, as before
    shown = json.loads(result.stderr.splitlines()[-1])
    assert shown["exit"] == 1 and shown["error"].startswith("solve did not converge")


def test_without_json_the_error_is_text(gradcli):
    result = gradcli("grad", "x +* 2", "--x", "1", "--format", "plain")
    assert result.stderr.startswith("error: unexpected '*' after '+' at 1:4\n")


def test_an_unknown_option_just_before_format_json(gradcli):
    # --normalize took --format for its value, and json was an extra argument.
    result = gradcli("jvp", "x**2", "--x", "1", "--tangent", "1", "--normalize", "--format", "json")
    shown = _error(result, 2)
    assert shown["error"].startswith("jvp has no option --normalize")
