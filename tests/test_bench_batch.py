"""The batch benchmark's harness, at a size that takes a fraction of a second.

Its timings are never asserted; this checks that its options parse and that its
hand-written NumPy competitor runs as a whole process and computes the right
derivatives (the reference every ratio of the benchmark is taken against).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_batch", ROOT / "bench" / "bench_batch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_options_parse():
    shown = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_batch.py"), "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--quick" in shown.stdout and "--only" in shown.stdout


@pytest.mark.parametrize("workload", ["npz", "csv"])
def test_the_numpy_script_runs_as_a_process_and_is_right(bench, tmp_path, workload):
    expected = bench.expected_outputs(*bench.write_inputs(str(tmp_path), 50))
    x, y = expected["x"], expected["y"]
    # d/dx and d/dy of sin(x)*exp(-y**2) + x*y**3, by hand
    assert np.allclose(expected["grad.x"], np.cos(x) * np.exp(-(y**2)) + y**3)
    assert np.allclose(expected["grad.y"], -2 * y * np.sin(x) * np.exp(-(y**2)) + 3 * x * y**2)
    name = "numpy" if workload == "npz" else "numpy (floor)"
    command = bench.process_competitors(workload, with_gradcli=False, workdir=str(tmp_path))[name]
    times, peaks = bench.interleaved_processes(
        {name: command}, str(tmp_path / f"in.{workload}"), str(tmp_path), 1, expected
    )
    assert len(times[name]) == 1 and times[name][0] > 0 and peaks[name] > 0
