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
           ``torch.func.vmap(grad)``.
Each repeat runs every competitor in turn; the table shows the fastest run of
each, in wall time and in the process's CPU time (steadier on a busy machine),
and its ratio to NumPy (the target: gradcli at most 1.5 times). It is a
benchmark, not a test: pytest never collects it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gradcli import api

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10**5 points, 3 repeats")
    options = parser.parse_args()
    n, repeats = (10**5, 3) if options.quick else (10**6, 9)
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)
    competitors = {"numpy": by_hand, "gradcli": with_gradcli, **torch_competitors()}
    expected = by_hand(x, y)
    for name, run in competitors.items():  # also the warm-up
        for got, want in zip(run(x, y), expected):
            assert np.allclose(got, want, rtol=1e-12, atol=1e-12), name
    wall = dict.fromkeys(competitors, float("inf"))
    cpu = dict.fromkeys(competitors, float("inf"))
    for _ in range(repeats):
        for name, run in competitors.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            run(x, y)
            wall[name] = min(wall[name], time.perf_counter() - start)
            cpu[name] = min(cpu[name], time.process_time() - start_cpu)
    print(f"value and gradient of {SOURCE} at {n:,} points (fastest of {repeats})")
    print(f"  {'':18} {'wall':>9}  {'ratio':>5}  {'cpu':>9}  {'ratio':>5}")
    for name in competitors:
        print(
            f"  {name:18} {wall[name] * 1e3:6.1f} ms  {wall[name] / wall['numpy']:5.2f}"
            f"  {cpu[name] * 1e3:6.1f} ms  {cpu[name] / cpu['numpy']:5.2f}"
        )
    ratio, ratio_cpu = wall["gradcli"] / wall["numpy"], cpu["gradcli"] / cpu["numpy"]
    print(f"gradcli / numpy = {ratio:.2f} wall, {ratio_cpu:.2f} cpu (target <= {TARGET})")


if __name__ == "__main__":
    main()
