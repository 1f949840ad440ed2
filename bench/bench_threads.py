"""BLAS threads and the work: whole processes under gradcli's policy (``engine/threads.py``),
under the pools' default and on one thread, run in turn; and the product size from
which more threads pay.

    python bench/bench_threads.py               # 5 rounds
    python bench/bench_threads.py --rounds 10
    python bench/bench_threads.py --products    # only the sizes of products

The processes:
  ``gradcli minimize`` of Rosenbrock in 100 dimensions (trust-exact, from
      (-1.2, 1, ...)), the whole command;
  a training step of a 784-256-10 network (64 rows, tanh, cross-entropy, float64)
      on gradcli's PyTorch API, 50 steps in one process: as a Python program that
      imports gradcli (NumPy's pools start at their default), and as a program
      ``gradcli run`` runs (the command's pools start at one thread); and the
      Python program's steps alone, timed inside it (every thread's CPU) once the
      threads its NumPy made have gone to sleep.
Each runs three ways: gradcli's policy (no variable set); the pools' default, a
thread per core (``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS`` and
``MKL_NUM_THREADS`` set to the cores: a user's choice, which gradcli leaves
alone, so this is the run before the policy); one thread (the three set to 1).
Each round runs them in a shuffled order; the table gives each one's minimum and
median wall and CPU time (user + system of the child, every thread's) and the
medians' ratios to one thread. The target: the policy's CPU within 1.2 times one
thread's, for ``minimize``, the steps under ``gradcli run`` and the Python program's
steps alone. A Python program imports NumPy before gradcli, and NumPy makes its
pools' threads as it loads, each spinning about a tenth of a second before it
sleeps, whatever the program then does: its whole process is printed without a
target.

The products: ``A @ B`` of shapes (m, k) x (k, n), NumPy on one thread and on the
pools' default, interleaved; the table gives the medians and their ratio, and the
smallest product (in multiply-adds) from which the default's wall time was at most
0.8 times one thread's, at that size and every larger one, at the load printed:
where ``LARGE_PRODUCT`` should stand.
On a loaded machine there is none; gradcli gives more threads only when the load
average leaves cores idle.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import load_average, load_range, verdict  # noqa: E402
from bench_startup import gradcli_command  # noqa: E402

TARGET = 1.2
#: The processes with the target (a Python program's whole process has none: above).
TARGETED = ("minimize Rosenbrock-100", "MLP steps alone, timed inside",
            "MLP step x 50, gradcli run")  # fmt: skip
#: Seconds the Python program waits after its imports, before the steps it times:
#: OpenBLAS's threads spin for 2^28 cycles (0.1 s at 2.7 GHz) after they start.
SETTLE = 0.5
VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
ROSENBROCK = "sum(100*(x[1:] - x[:-1]**2)**2 + (1 - x[:-1])**2)"
START = "[" + ", ".join(["-1.2, 1"] * 50) + "]"
SHAPES = [(64, 64, 64), (128, 128, 128), (64, 784, 256), (256, 256, 256), (256, 784, 256),
          (406, 406, 406), (512, 512, 512), (768, 768, 768), (1024, 1024, 1024)]  # fmt: skip


def mlp_steps(count: int, settle: float = 0.0) -> None:
    """``count`` training steps of the 784-256-10 network, in this process. With
    ``settle``, the steps alone are timed after waiting that long, and their seconds,
    wall and CPU (every thread's), printed."""
    import numpy as np

    import gradcli as torch
    import gradcli.nn.functional as F

    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((64, 784)))
    y = torch.tensor(rng.integers(0, 10, 64))
    w1 = torch.tensor(rng.standard_normal((784, 256)) * 0.05, requires_grad=True)
    b1 = torch.zeros(256, dtype=torch.float64, requires_grad=True)
    w2 = torch.tensor(rng.standard_normal((256, 10)) * 0.05, requires_grad=True)
    b2 = torch.zeros(10, dtype=torch.float64, requires_grad=True)
    time.sleep(settle)
    cpu, wall = _cpu(), time.perf_counter()
    for _ in range(count):
        loss = F.cross_entropy(torch.tanh(x @ w1 + b1) @ w2 + b2, y)
        loss.backward()
        with torch.no_grad():
            for p in (w1, b1, w2, b2):
                p -= 0.01 * p.grad
                p.grad = None
    if settle:
        print(time.perf_counter() - wall, _cpu() - cpu)


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)  # the process's, every thread's
    return used.ru_utime + used.ru_stime


def timed(command, env):
    """(wall, cpu) seconds of one whole process, or, for a run with ``--settle``, of the
    steps it timed itself (what it printed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(
        command, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if "--settle" in command:
        wall, cpu = map(float, out.stdout.split())
        return wall, cpu
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def processes(rounds: int) -> None:
    cores = len(os.sched_getaffinity(0))
    base = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    base["COLUMNS"] = "80"
    ways = {
        "gradcli's policy": base,
        f"default ({cores} threads)": {**base, **dict.fromkeys(VARIABLES, str(cores))},
        "one thread": {**base, **dict.fromkeys(VARIABLES, "1")},
    }
    work = {
        "minimize Rosenbrock-100": [*gradcli_command(), "minimize", ROSENBROCK, "--x", START,
                                    "--format", "json"],
        "MLP step x 50": [sys.executable, __file__, "--mlp-steps", "50"],
        "MLP steps alone, timed inside": [sys.executable, __file__, "--mlp-steps", "50",
                                          "--settle", str(SETTLE)],
        # The same steps as a program the command runs: its pools start at one thread.
        "MLP step x 50, gradcli run": [*gradcli_command(), "run", __file__, "--mlp-steps", "50"],
    }  # fmt: skip
    runs = [(w, way) for w in work for way in ways]
    for w, way in runs:  # warm the caches (.pyc, disk)
        timed(work[w], ways[way])
    times = {run: [] for run in runs}
    loads = [load_average()]
    for _ in range(rounds):
        random.shuffle(runs)
        for w, way in runs:
            times[w, way].append(timed(work[w], ways[way]))
        loads.append(load_average())
    print(f"{rounds} shuffled rounds, load average {load_range(loads)} "
          f"on {cores} cores; seconds")  # fmt: skip
    print(f"  {'':50} {'wall min':>8} {'median':>7} {'cpu min':>8} {'median':>7}"
          f"  {'cpu / one thread':>16}")  # fmt: skip
    for w in work:
        one = statistics.median(cpu for _, cpu in times[w, "one thread"])
        for way in ways:
            wall, cpu = zip(*times[w, way])
            ratio = statistics.median(cpu) / one
            mark = ""
            if way == "gradcli's policy" and w in TARGETED:
                mark = f"  target <= {TARGET}: {verdict(ratio, TARGET)}"
            figures = f"{min(wall):8.3f} {statistics.median(wall):7.3f} {min(cpu):8.3f} "
            figures += f"{statistics.median(cpu):7.3f}  {ratio:16.2f}{mark}"
            print(f"  {w + ', ' + way:50} {figures}")


def products(rounds: int) -> None:
    import numpy as np
    from threadpoolctl import ThreadpoolController

    from gradcli.engine import threads

    controller = ThreadpoolController()
    default = max(lib.num_threads for lib in controller.lib_controllers)
    rng = np.random.default_rng(0)
    loads = [load_average()]
    print(f"products, 1 thread against the default {default}, medians of {rounds} x 5 runs")
    print(f"  {'m x k x n':>18} {'multiply-adds':>13} {'1: wall ms':>10} {'cpu':>8} "
          f"{default}: {'wall ms':>8} {'cpu':>8}  {'wall ratio':>10}")  # fmt: skip
    crossover = None
    for m, k, n in SHAPES:
        a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
        found = {1: [], default: []}
        for _ in range(rounds):
            for count in found:
                with controller.limit(limits=count, user_api="blas"):
                    a @ b
                    for _ in range(5):
                        cpu, wall = time.process_time(), time.perf_counter()
                        a @ b
                        found[count].append((time.perf_counter() - wall, time.process_time() - cpu))
        loads.append(load_average())
        (w1, c1), (wd, cd) = (
            (statistics.median(w for w, _ in found[c]), statistics.median(c for _, c in found[c]))
            for c in (1, default)
        )
        ratio = wd / w1
        if ratio > 0.8:
            crossover = None
        elif crossover is None:
            crossover = m * k * n
        shape = f"{m} x {k} x {n}"
        pad = " " * (len(str(default)) + 1)
        print(f"  {shape:>18} {m * k * n:13.3g} {w1 * 1e3:10.3f} {c1 * 1e3:8.3f} "
              f"{pad} {wd * 1e3:8.3f} {cd * 1e3:8.3f}  {ratio:10.2f}")  # fmt: skip
    paid = "no size" if crossover is None else f"{crossover:.3g} multiply-adds"
    large = threads.LARGE_PRODUCT
    print(f"  load average {load_range(loads)}; more threads paid (wall <= 0.8x) "
          f"at every size from {paid}; gradcli's LARGE_PRODUCT is {large:.3g}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--products", action="store_true", help="only the sizes of products")
    parser.add_argument("--mlp-steps", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--settle", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mlp_steps is not None:
        mlp_steps(args.mlp_steps, args.settle)
        return
    if not args.products:
        processes(args.rounds)
    products(args.rounds)


if __name__ == "__main__":
    main()
