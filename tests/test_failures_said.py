"""Failures of the surroundings said in one line with exit 2, by real processes: a
closed standard stream, a file of bad rows under --skip-bad-rows, and the like."""

from __future__ import annotations

import os
import subprocess

import pytest


def _run(script, args, *, redirect="", input=None, cwd=None, timeout=60):
    """``gradcli ARGS`` with the shell's ``redirect`` (``>&-``: standard output closed)."""
    return subprocess.run(
        ["sh", "-c", f'exec "$@" {redirect}', "sh", *script, *args],
        input=input,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=timeout,
    )


@pytest.fixture
def run(gradcli_script):
    return lambda args, **kwargs: _run(gradcli_script, args, **kwargs)


# ----------------------------------------------------------------------------
# A closed standard stream
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["grad", "x**2", "--x", "3"],
        ["grad", "x**2", "--x", "3", "--get", "grad.x"],
        ["eval", "x", "--points", "POINTS"],
        ["eval", "x", "--points", "POINTS", "--format", "json"],
    ],
)
def test_closed_standard_output_is_said(run, tmp_path, args):
    points = tmp_path / "p.csv"
    points.write_text("x\n1\n2\n")
    args = [str(points) if a == "POINTS" else a for a in args]
    result = run(args, redirect=">&-")
    assert (result.returncode, result.stderr) == (
        2,
        "error: cannot write standard output: it is closed\n",
    )


def test_closed_standard_output_with_output_file_still_writes_the_file(run, tmp_path):
    points, output = tmp_path / "p.csv", tmp_path / "o.csv"
    points.write_text("x\n1\n2\n")
    result = run(["eval", "x", "--points", str(points), "--output", str(output)], redirect=">&-")
    # The file is whole; the line that says so cannot be written, and that is said.
    assert output.read_text() == "x,value\n1,1\n2,2\n"
    assert (result.returncode, result.stderr) == (
        2,
        "error: cannot write standard output: it is closed\n",
    )


@pytest.mark.parametrize(
    "args",
    [["eval", "x", "--points", "-"], ["eval", "-"], ["repl"]],
)
def test_closed_standard_input_is_said(run, args):
    result = run(args, redirect="<&-")
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        "error: cannot read standard input: it is closed\n",
    )


def test_closed_standard_error_keeps_the_exit_status(run):
    result = run(["eval", "x", "--x", "abc"], redirect="2>&-")
    assert result.returncode == 2
    result = run(["eval", "x", "--x", "2"], redirect="2>&-")
    assert (result.returncode, result.stdout) == (0, "value 2\n")
