"""The Jacobian of ``A @ tanh(x)`` (n = 50) at 10^4 points, ``.npz`` in and out, as
whole processes: ``gradcli jacobian ... --points in.npz --output out.npz`` beside the
hand-written NumPy script that loads, computes and saves the same arrays.

Each round runs both, in turn; the report gives the minimum and median of each
one's wall, user and CPU (user + system) seconds and peak memory (max RSS), and
of the ratios round by round, the load average through the rounds, and the targets
(on the median ratio) as met or MISSED: CPU and peak at most 1.3 times the script's.
The outputs are compared after the runs.

    python bench/bench_jacobian_npz.py              # 7 rounds
    python bench/bench_jacobian_npz.py --rounds 15
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _report import load_average, load_range, low_mid, print_table, ratios, target_note  # noqa: E402
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
        loads = [load_average()]
        for _ in range(rounds):
            times["gradcli"].append(run(ours))
            times["numpy"].append(run(script))
            loads.append(load_average())
        # Checked after the runs: a child's peak counts its parent's at the fork.
        with np.load(f"{work}/ours.npz") as got, np.load(f"{work}/theirs.npz") as want:
            for key in want.files:  # (the value's sums are in another order)
                np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-12)
    print(f"{rounds} rounds (gradcli, then the script), load average {load_range(loads)} "
          f"on {os.cpu_count()} cores; min / median")  # fmt: skip
    labels = ("wall s", "user s", "cpu s", "peak MiB")
    rows = [
        [name, *("{:.3g} / {:.3g}".format(*low_mid(col)) for col in zip(*runs))]
        for name, runs in times.items()
    ]
    columns = [list(zip(*times[name])) for name in ("gradcli", "numpy")]
    paired = ("{:.2f} / {:.2f}".format(*low_mid(ratios(g, n))) for g, n in zip(*columns))
    rows.append(["gradcli / numpy", *paired])
    print_table(["", *labels], rows)
    for i, label in enumerate(labels):
        if label in ("cpu s", "peak MiB"):
            ratio = low_mid(ratios(columns[0][i], columns[1][i]))[1]
            print(f"  gradcli / numpy, {label}: {target_note(ratio, TARGET)}")


if __name__ == "__main__":
    main()
