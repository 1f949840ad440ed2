"""A derivative over every input (no --wrt) of over 10^6 numbers gets a note naming the
input that makes it large and the --wrt that leaves it out: on a terminal before it is
computed, in JSON among the notes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

LOGISTIC = "sum(log(1 + exp(A @ w)))"


def test_a_large_jacobian_names_its_largest_input(gradcli):
    # 100 outputs by 100*100 + 100 input entries: 1,010,000 numbers; without A, 100*100.
    result = gradcli("jacobian", "A @ w", "--A", "randn(100, 100)", "--w", "randn(100)",
                     "--format", "json")  # fmt: skip
    assert result.exit_code == 0
    note = (
        "the Jacobian with respect to every input holds 1,010,000 numbers; the largest input "
        "is A (10,000 of the 10,100 entries): --wrt w would hold 10,000"
    )
    assert result.stderr == f"note: {note}\n"
    out = json.loads(result.stdout)
    assert [n["message"] for n in out["notes"]] == [note]
    assert len(out["assembled"]["matrix"]) == 100 and len(out["assembled"]["matrix"][0]) == 10100


def test_below_the_limit_or_with_wrt_nothing_is_said(gradcli):
    small = gradcli("jacobian", "A @ w", "--A", "randn(10, 10)", "--w", "randn(10)")
    assert small.exit_code == 0 and small.stderr == ""
    args = ["--A", "randn(100, 100)", "--w", "randn(100)", "--wrt", "A,w", "--get", "value"]
    asked = gradcli("jacobian", "A @ w", *args)
    assert asked.exit_code == 0 and asked.stderr == ""


def test_a_large_hessian_in_json_has_the_note(gradcli, monkeypatch):
    from gradcli.core import large_derivatives

    monkeypatch.setattr(large_derivatives, "LARGE_DERIVATIVE", 1000)  # 120 entries: 14,400 numbers
    args = [LOGISTIC, "--A", "randn(5, 20)", "--w", "randn(20)", "--format", "json"]
    result = gradcli("hessian", *args)
    note = (
        "the Hessian with respect to every input holds 14,400 numbers; the largest input is "
        "A (100 of the 120 entries): --wrt w would hold 400"
    )
    assert result.exit_code == 0 and result.stderr == f"note: {note}\n"
    assert [n["message"] for n in json.loads(result.stdout)["notes"]] == [note]
    # One input: there is nothing --wrt could leave out.
    alone = gradcli("hessian", "sum(w**4)", "--w", "randn(40)", "--get", "value")
    assert alone.exit_code == 0 and alone.stderr == ""


# Runs gradcli with a lower limit, and says when the Hessian starts being computed.
EARLY = """
import sys
from gradcli.autograd import functional
from gradcli.core import large_derivatives
large_derivatives.LARGE_DERIVATIVE = 1000
hessian = functional.hessian
def said_when_called(*args, **kwargs):
    print("computing the Hessian", file=sys.stderr, flush=True)
    return hessian(*args, **kwargs)
functional.hessian = said_when_called
from gradcli.cli import main
sys.argv = ["gradcli", *sys.argv[1:]]
main()
"""


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_on_a_terminal_the_note_comes_before_the_computation(tmp_path):
    leader, follower = os.openpty()
    args = ["hessian", LOGISTIC, "--A", "randn(5, 20)", "--w", "randn(20)", "--format", "json"]
    out = tmp_path / "out.json"  # a file: a full pipe would block the process
    with open(out, "w") as stdout:
        process = subprocess.Popen(
            [sys.executable, "-c", EARLY, *args],
            cwd=tmp_path,
            stdout=stdout,
            stderr=follower,
            env={**os.environ, "COLUMNS": "200", "TERM": "xterm"},
        )
    os.close(follower)
    shown = b""
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal's other end closed
            break
        if not data:
            break
        shown += data
    os.close(leader)
    assert process.wait(timeout=120) == 0
    lines = shown.decode().splitlines()
    assert lines == [
        "note: the Hessian with respect to every input holds 14,400 numbers; the largest input "
        "is A (100 of the 120 entries): --wrt w would hold 400",
        "computing the Hessian",
    ]  # said once, before
    assert "--wrt w would hold 400" in json.loads(out.read_text())["notes"][0]["message"]
