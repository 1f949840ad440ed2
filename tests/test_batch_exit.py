"""A ``--points`` run ends as its output does: 300 real processes in a row, every one
exits 0 with nothing on standard error. pyarrow's reader threads used to drop their
last reference to a Python object while the interpreter exited, which aborted about
one run in 200 (exit 134, "terminate called without an active exception") after
correct output.

The runs are forked from one interpreter that has imported gradcli and pyarrow, before
pyarrow's reader threads start (the threads of numpy's BLAS and of pyarrow's allocator are
made for fork): each child runs the command line as the ``gradcli`` script does and ends
as an interpreter ends (its pyarrow threads alive as it exits), without paying the start-up
and the imports again (0.4 s of CPU each, two minutes of the suite for 300 runs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow
import pyarrow.parquet
import pytest

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
# A fixed terminal (no colour, 80 columns), as the in-process runs have it.
ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80", "TERM": "dumb"}
RUNS = 300
AT_ONCE = 3  # processes at a time


def _expected_rows():
    # f = x²y: grad.x = 2xy, grad.y = x², at the rows of samples/points.csv.
    x = np.array([0, 0.5, 1, 2])
    y = np.array([0, 1, -1, 0.5])
    return x, y, np.stack([x, y, x**2 * y, 2 * x * y, x**2], axis=1)


def _check_csv(text):
    lines = text.splitlines()
    assert lines[0] == "x,y,value,grad.x,grad.y"
    rows = np.array([[float(f) for f in line.split(",")] for line in lines[1:]])
    np.testing.assert_array_equal(rows, _expected_rows()[2])


def _check_jsonl(text):
    objects = [json.loads(line) for line in text.splitlines()]
    rows = np.array([[o[k] for k in ("x", "y", "value", "grad.x", "grad.y")] for o in objects])
    np.testing.assert_array_equal(rows, _expected_rows()[2])


def _check_table(text):
    assert "│ row │   x │   y │ value │ grad.x │ grad.y │" in text
    assert "│   4 │   2 │ 0.5 │     2 │      2 │      4 │" in text


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """samples/points.csv, and the same points as Parquet and npz."""
    folder = tmp_path_factory.mktemp("points")
    x, y, _ = _expected_rows()
    pyarrow.parquet.write_table(pyarrow.table({"x": x, "y": y}), folder / "points.parquet")
    np.savez(folder / "points.npz", x=x, y=y)
    return {
        "csv": str(SAMPLES / "points.csv"),
        "parquet": str(folder / "points.parquet"),
        "npz": str(folder / "points.npz"),
    }


#: Run by one interpreter as ``python -c RUN_EACH FOLDER RUNS AT_ONCE COMMAND...``, where each
#: COMMAND is one run's arguments as a JSON list: imports what a run imports, then forks a child
#: per run (``AT_ONCE`` at a time), whose standard output and error
#: are the files ``FOLDER/N.out`` and ``FOLDER/N.err``; the child calls gradcli's ``main`` as the
#: script does and its interpreter ends. Prints each run's exit status, in order, as JSON.
RUN_EACH = """
import json, os, sys

import numpy, pyarrow.csv, pyarrow.parquet  # noqa: F401
import gradcli.cli.point_runs, gradcli.core.point_files.run  # noqa: F401
from gradcli.cli import main

folder, at_once = sys.argv[1], int(sys.argv[2])
waiting, running, status = list(enumerate(sys.argv[3:])), {}, {}
while waiting or running:
    if waiting and len(running) < at_once:
        number, args = waiting.pop(0)
        child = os.fork()
        if child == 0:
            break
        running[child] = number
        continue
    child, ended = os.wait()
    status[running.pop(child)] = os.waitstatus_to_exitcode(ended)
else:
    print(json.dumps([status[n] for n in sorted(status)]))
    sys.exit()
for fd, ending in ((1, "out"), (2, "err")):
    os.dup2(os.open(os.path.join(folder, f"{number}.{ending}"), os.O_WRONLY | os.O_CREAT), fd)
sys.argv = ["gradcli", *json.loads(args)]
main()
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks its runs")
def test_300_points_runs_in_a_row_all_exit_0(inputs, tmp_path):
    kinds = [
        ("csv", "csv", _check_csv),
        ("csv", "json", _check_jsonl),
        ("csv", "table", _check_table),
        ("parquet", "csv", _check_csv),
        ("npz", "json", _check_jsonl),
    ]
    runs = [kinds[number % len(kinds)] for number in range(RUNS)]
    commands = [
        json.dumps(["grad", "x**2*y", "--points", inputs[source], "--format", fmt])
        for source, fmt, _ in runs
    ]
    start = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-c", RUN_EACH, tmp_path, str(AT_ONCE), *commands],
            capture_output=True,
            text=True,
            env=ENV,
            timeout=600,
        )
    except subprocess.TimeoutExpired:  # a run that hangs fails as one that aborts
        pytest.fail(f"the {RUNS} runs were still running at 600 s")
    seconds = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    said = [
        ((tmp_path / f"{n}.out").read_text(), (tmp_path / f"{n}.err").read_text())
        for n in range(RUNS)
    ]
    failed = [
        (source, fmt, status, stderr)
        for (source, fmt, _), status, (_, stderr) in zip(runs, json.loads(done.stdout), said)
        if status != 0 or stderr
    ]
    assert failed == [], f"{len(failed)} of {RUNS} runs failed in {seconds:.0f} s"
    for (_, _, check), (stdout, _) in zip(runs, said):
        check(stdout)
