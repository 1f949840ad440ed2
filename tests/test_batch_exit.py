"""A ``--points`` run ends as its output does: 300 real processes in a row, every one
exits 0 with nothing on standard error. pyarrow's reader threads used to drop their
last reference to a Python object while the interpreter exited, which aborted about
one run in 200 (exit 134, "terminate called without an active exception") after
correct output."""

from __future__ import annotations

import json
import os
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
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


def test_300_points_runs_in_a_row_all_exit_0(gradcli_script, inputs):
    kinds = [
        ("csv", "csv", _check_csv),
        ("csv", "json", _check_jsonl),
        ("csv", "table", _check_table),
        ("parquet", "csv", _check_csv),
        ("npz", "json", _check_jsonl),
    ]

    def run(number):
        source, fmt, check = kinds[number % len(kinds)]
        command = [*gradcli_script, "grad", "x**2*y", "--points", inputs[source], "--format", fmt]
        try:
            done = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=120)
        except subprocess.TimeoutExpired:  # a run that hangs fails as one that aborts
            done = subprocess.CompletedProcess(command, "timeout", "", "still running at 120 s")
        return source, fmt, check, done

    start = time.monotonic()
    with ThreadPoolExecutor(AT_ONCE) as pool:
        results = list(pool.map(run, range(RUNS)))
    seconds = time.monotonic() - start
    failed = [
        (source, fmt, done.returncode, done.stderr)
        for source, fmt, _, done in results
        if done.returncode != 0 or done.stderr
    ]
    assert failed == [], f"{len(failed)} of {RUNS} runs failed in {seconds:.0f} s"
    for _, _, check, done in results:
        check(done.stdout)
