"""One library alone in this process: the times of bench_engine.py's case (f), as JSON.

    python bench/engine_alone.py gradcli 40
    python bench/engine_alone.py torch 40

bench_engine.py's case (g) runs this for each library in turn. A process that has
imported both libraries times gradcli's Python objects with PyTorch's 150,000 more
in the collector's generations, which a program using one of them never has.
"""

import gc
import importlib
import json
import sys
import time

import numpy as np


def fourth_derivative(m, x):
    y = (m.exp(m.sin(x)) * m.tanh(x) + x**3 / (1 + x * x)).sum()
    for _ in range(4):
        (y,) = m.autograd.grad(y, x, create_graph=True)
        y = y.sum()
    return y


def main():
    m = importlib.import_module(sys.argv[1])  # "gradcli" or "torch", never both
    runs = int(sys.argv[2])
    xs = np.linspace(-1.0, 1.0, 10)

    def run():
        return fourth_derivative(m, m.tensor(xs, dtype=m.float64, requires_grad=True)).item()

    value = run()
    for _ in range(10):  # warm-up: first recordings, caches
        run()
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    print(json.dumps({"value": value, "times": times}))


if __name__ == "__main__":
    main()
