"""Many-point evaluation in one process: ``api.points`` against hand-written NumPy and
PyTorch 2.13 (CPU).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_points.py
    python bench/bench_points.py --quick     # 10**5 points

The value and the gradient of ``sin(x)*exp(-y**2) + x*y**3`` at 10**6 points
(float64), computed by
  gradcli  ``api.points("grad", ...)``: parse, evaluate at every point, reverse pass;
  numpy    the value and both partial derivatives written out by hand: the floor
           for any engine on NumPy;
  torch    eager over the whole batch (``backward`` of the sum), and
           ``torch.func.vmap(grad)``;
  jax      ``jit(vmap(value_and_grad))``, when JAX is installed.
Each repeat runs every competitor in turn; the table shows the fastest and the
median run of each, in wall time and in the process's CPU time (steadier on a
busy machine), and its ratio to NumPy taken repeat by repeat, fastest and
median; then the load average through the repeats and the target (gradcli at
most 1.5 times NumPy on the median CPU ratio) as met or MISSED. It is a
benchmark, not a test: pytest never collects it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from gradcli import api

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import load_average, load_range, low_mid, print_table, ratios, target_note  # noqa: E402
from bench_batch import JAX_F, has_module, namespace  # noqa: E402

SOURCE = "sin(x)*exp(-y**2) + x*y**3"
TARGET = 1.5


def by_hand(x, y):
    s, e = np.sin(x), np.exp(-(y**2))
    y2 = y * y
    y3 = y2 * y
    return s * e + x * y3, np.cos(x) * e + y3, -2 * y * s * e + 3 * x * y2


def with_gradcli(x, y):
    arrays = api.points("grad", SOURCE, batch={"x": x, "y": y}).arrays
    return arrays["value"], arrays["grad.x"], arrays["grad.y"]


def torch_competitors():
    try:
        import torch
    except ImportError:
        return {}

    def f(x, y):
        return torch.sin(x) * torch.exp(-(y**2)) + x * y**3

    def eager(x, y):
        tx = torch.tensor(x, requires_grad=True)
        ty = torch.tensor(y, requires_grad=True)
        value = f(tx, ty)
        value.sum().backward()
        return value.detach().numpy(), tx.grad.numpy(), ty.grad.numpy()

    per_point = torch.func.vmap(torch.func.grad_and_value(f, argnums=(0, 1)))

    def vmapped(x, y):
        (gx, gy), value = per_point(torch.from_numpy(x), torch.from_numpy(y))
        return value.numpy(), gx.numpy(), gy.numpy()

    return {"torch eager": eager, "torch vmap(grad)": vmapped}


def jax_competitors():
    if not has_module("jax"):
        return {}
    jitted = namespace(JAX_F)["jitted"]
    return {"jax jit(vmap)": lambda x, y: tuple(map(np.asarray, jitted(x, y)))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10**5 points, 3 repeats")
    options = parser.parse_args()
    n, repeats = (10**5, 3) if options.quick else (10**6, 9)
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)
    competitors = {
        "numpy": by_hand,
        "gradcli": with_gradcli,
        **torch_competitors(),
        **jax_competitors(),
    }
    expected = by_hand(x, y)
    for name, run in competitors.items():  # also the warm-up (and JAX's compilation)
        for got, want in zip(run(x, y), expected):
            assert np.allclose(got, want, rtol=1e-12, atol=1e-12), name
    wall = {name: [] for name in competitors}
    cpu = {name: [] for name in competitors}
    loads = [load_average()]
    for _ in range(repeats):
        for name, run in competitors.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            run(x, y)
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
        loads.append(load_average())
    print(
        f"value and gradient of {SOURCE} at {n:,} points, {repeats} rounds, "
        f"load average {load_range(loads)} on {os.cpu_count()} cores"
    )
    if "torch eager" not in competitors:
        print("  (PyTorch is not installed: no comparison with it)")
    rows = []
    for name in competitors:
        row = [name]
        for times in (wall, cpu):
            row += ["{:.1f} / {:.1f}".format(*(t * 1e3 for t in low_mid(times[name])))]
            row += ["{:.2f} / {:.2f}".format(*low_mid(ratios(times[name], times["numpy"])))]
        rows.append(row)
    print_table(["min / median", "wall ms", "/ numpy", "cpu ms", "/ numpy"], rows)
    ratio = low_mid(ratios(cpu["gradcli"], cpu["numpy"]))[1]
    print(f"  gradcli / numpy, CPU: {target_note(ratio, TARGET)}")


if __name__ == "__main__":
    main()
