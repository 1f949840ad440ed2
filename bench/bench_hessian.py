"""``gradcli.func.hessian`` against ``torch.func.hessian`` in one process, one BLAS thread each.

    python bench/bench_hessian.py
    python bench/bench_hessian.py --quick

The function is ``f(w) = sum(log(1 + exp(A @ w)))``, A an n x n matrix (float64),
n = 200 and n = 1000. Both libraries compute ``jacfwd(jacrev(f))``: the standard
basis of tangents pushed through one batched (vmap) pass of the gradient. Every
BLAS and OpenMP pool is held to one thread (set before NumPy and PyTorch load,
and ``torch.set_num_threads(1)``), so neither library is timed on threads the
other lacks on this shared machine. The Hessians are checked against each other
once, then each repeat runs gradcli, then PyTorch, alternating; the table shows
each one's fastest and median run and the ratio gradcli / PyTorch of both, and
the target (median ratio at most 1.5) as met or missed. It is a benchmark, not
a test: pytest never collects it.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy and PyTorch load their BLAS

import argparse  # noqa: E402
import gc  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from _report import load_note, low_mid, verdict  # noqa: E402  (this script's folder is on sys.path)

import gradcli  # noqa: E402

TARGET = 1.5  # gradcli / torch.func, median runs


def problem(n):
    a = np.random.default_rng(3).standard_normal((n, n)) / np.sqrt(n)
    w = np.random.default_rng(4).standard_normal(n)
    return a, w


def hessian_runner(m, a, w):
    """A function that computes the Hessian with library ``m``, its data made outside it."""
    a_m, w_m = m.tensor(a, dtype=m.float64), m.tensor(w, dtype=m.float64)

    def f(x):
        return m.log(1 + m.exp(a_m @ x)).sum()

    return lambda: m.func.hessian(f)(w_m)


def timed(run):
    gc.collect()
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument("--repeats", type=int, default=None, help="runs of each (default 15)")
    parser.add_argument("--sizes", default=None, help="comma-separated n (default 200,1000)")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else None
    sizes = sizes or ([40, 100] if args.quick else [200, 1000])
    repeats = args.repeats or (3 if args.quick else 15)
    print(
        f"gradcli {gradcli.__version__}, torch {torch.__version__} "
        f"({torch.get_num_threads()} thread), numpy {np.__version__}, "
        f"OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}"
    )
    print(load_note())
    print(f"{repeats} interleaved runs of each: fastest and median, seconds\n")
    head = (
        f"{'n':>6} {'gradcli min':>12} {'median':>9} {'torch min':>10} {'median':>9} "
        f"{'ratio min':>10} {'median':>7}  target (median)"
    )
    print(head)
    print("-" * len(head))
    for n in sizes:
        a, w = problem(n)
        ours, theirs = hessian_runner(gradcli, a, w), hessian_runner(torch, a, w)
        np.testing.assert_allclose(ours().numpy(), theirs().numpy(), rtol=1e-9, atol=1e-14)
        times = {"gradcli": [], "torch": []}
        for _ in range(repeats):
            times["gradcli"].append(timed(ours))
            times["torch"].append(timed(theirs))
        low, mid = ({k: low_mid(v)[i] for k, v in times.items()} for i in (0, 1))
        ratio = mid["gradcli"] / mid["torch"]
        print(
            f"{n:>6} {low['gradcli']:12.4f} {mid['gradcli']:9.4f} {low['torch']:10.4f} "
            f"{mid['torch']:9.4f} {low['gradcli'] / low['torch']:10.2f} {ratio:7.2f}  "
            f"gradcli/torch <= {TARGET}: {verdict(ratio, TARGET)}"
        )
    print(load_note())
    if args.quick:
        print("(--quick: a smoke run; the target is for n = 200 and 1000)")


if __name__ == "__main__":
    main()
