"""The Jacobian of ``A @ tanh(x)`` (n = 50) at 10^4 points, ``.npz`` in and out, as
whole processes: ``gradcli jacobian ... --points in.npz --output out.npz`` beside the
hand-written NumPy script that loads, computes and saves the same arrays.

Each round runs both, in turn; the report gives the minimum and median of each
one's wall, user and CPU (user + system) seconds and peak memory (max RSS), and
of the ratios round by round. The targets: CPU and peak at most 1.3 times the
script's. The outputs are compared first.

    python bench/bench_jacobian_npz.py              # 7 rounds
    python bench/bench_jacobian_npz.py --rounds 15
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_startup import gradcli_command  # noqa: E402

TARGET = 1.3
NUMPY_SCRIPT = """
import sys
import numpy as np
a = np.load(sys.argv[1]); x = np.load(sys.argv[2])["x"]
t = np.tanh(x)
np.savez(sys.argv[3], x=x, value=t @ a.T, **{"jacobian.x": a[None] * (1 - t * t)[:, None, :]})
"""


# An installed package has its bytecode compiled (pip does it); the warm-up runs write
# it here too, instead of every run compiling every module.
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def run(command):
    """(wall, user, cpu, peak MiB) of one whole process: its own accounting."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status:
        raise SystemExit(f"failed: {command}")
    return wall, usage.ru_utime, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="gradcli-bench-") as work:
        rng = np.random.default_rng(1)
        a, x = rng.standard_normal((50, 50)), rng.standard_normal((10_000, 50))
        np.save(os.path.join(work, "A.npy"), a)
        np.savez(os.path.join(work, "in.npz"), x=x)
        ours = [*gradcli_command(), "jacobian", "A @ tanh(x)", "--wrt", "x",
                "--A", f"@{work}/A.npy", "--points", f"{work}/in.npz",
                "--output", f"{work}/ours.npz"]  # fmt: skip
        script = [sys.executable, "-c", NUMPY_SCRIPT, f"{work}/A.npy", f"{work}/in.npz",
                  f"{work}/theirs.npz"]  # fmt: skip
        run(ours), run(script)  # warm the caches
        times = {"gradcli": [], "numpy": []}
        for _ in range(rounds):
            times["gradcli"].append(run(ours))
            times["numpy"].append(run(script))
        # Checked after the runs: a child's peak counts its parent's at the fork.
        with np.load(f"{work}/ours.npz") as got, np.load(f"{work}/theirs.npz") as want:
            for key in want.files:  # (the value's sums are in another order)
                np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-12)
    print(f"{rounds} rounds, load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    labels = ("wall s", "user s", "cpu s", "peak MiB")
    for name, runs in times.items():
        cells = "  ".join(
            f"{label} {min(col):.3f} / {statistics.median(col):.3f}"
            for label, col in zip(labels, zip(*runs))
        )
        print(f"  {name:8} (min / median)  {cells}")
    for i, label in enumerate(labels):
        ratios = [g[i] / n[i] for g, n in zip(times["gradcli"], times["numpy"])]
        mark = ""
        if label in ("cpu s", "peak MiB"):
            met = statistics.median(ratios) <= TARGET
            mark = f"  target <= {TARGET}: {'met' if met else 'NOT met'}"
        low, mid = min(ratios), statistics.median(ratios)
        print(f"  gradcli/numpy {label:9} min {low:.2f}  median {mid:.2f}{mark}")


if __name__ == "__main__":
    main()
