"""gradcli's engine against PyTorch (CPU) in one process, and against hand-written NumPy.

Run it with OpenBLAS left to pick its own kernel (on this machine
``OPENBLAS_CORETYPE`` may be set to an older core type, which slows NumPy's
BLAS calls but not PyTorch's):

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_engine.py
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_engine.py --quick

The cases (float64 throughout):
  (a) a deep scalar chain, 100,000 times ``x = sin(x) * 1.0001 + 0.1 * x``,
      forward and backward (PyTorch: the same code on a 0-d tensor), and the
      memory per graph node of building it (tracemalloc peak / nodes, 4 per step);
  (b) the tutorial's ``mean(y1 - x1 @ W)`` scaled to x1: n x n, y1 and W: n x 1,
      n = 4000, forward and backward to all three, also written by hand in
      NumPy (forward and the three gradients): the floor for any engine on NumPy;
  (c) ``functional.jacobian`` of ``A @ tanh(x)``, n = 300;
  (d) ``functional.hessian`` of ``log(1 + exp(B @ x)).sum()``, n = 200;
  (e) ``sum(x1 @ W)`` with x1: n x n and W: n x 1, n = 4000, backward to both:
      sum's gradient is a broadcast (stride-0) view, which NumPy's matmul cannot
      hand to BLAS (the product copies it first), against the NumPy floor;
  (f) a 4th derivative by repeated ``grad(create_graph=True)`` of
      ``sum(exp(sin(x)) * tanh(x) + x**3 / (1 + x*x))``, x of 10 entries;
  (g) (f) with each library alone in a process of its own (``engine_alone.py``),
      the processes in turn: in (f) gradcli's objects share the collector with
      the 150,000 PyTorch's import makes, which slows its pure-Python work;
  (h) a training step of a 784-256-10 MLP in float32 (``linear``, ``relu``,
      ``linear``, ``cross_entropy`` over a batch of 64, backward, then
      ``p -= 0.1 * p.grad`` under ``no_grad``), and (i) the same in float64;
  (j) ``vmap(grad(f))`` of ``f(p) = sin(p[0]) * exp(-p[1]**2) + p[0] * p[1]**3``
      at 10^4 points (``torch.func`` beside ``gradcli.func``);
  (k) a 4th derivative of a 0-d input through 12 steps of (a)'s chain, by
      repeated ``grad(create_graph=True)``.
Each case runs in a process of its own, the cases one after the other
(``--one-process`` runs them all in this one, where a case is timed on what the
cases before it left: (k) after (h) took 1.16 times PyTorch where alone 0.87).
Each repeat runs gradcli, then PyTorch (then NumPy), alternating; the table
shows each one's fastest run and the ratios of the fastest and of the median
runs. BLAS and PyTorch run one thread each (``--threads``; a user's own
``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` is kept). It is a benchmark, not a
test: pytest never collects it.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc


def _threads_from_argv():
    """``--threads N`` (default 1), read before NumPy starts its BLAS's threads."""
    argv = sys.argv
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--threads="):
            return arg.split("=", 1)[1]
    return "1"


for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, _threads_from_argv())

import numpy as np  # noqa: E402  (after the thread counts are set)
from _report import load_average, verdict  # noqa: E402  (this script's folder is on sys.path)
from _report import load_note as plain_load_note  # noqa: E402
from engine_alone import fourth_derivative  # noqa: E402

import gradcli  # noqa: E402
from gradcli.autograd import functional as gradcli_functional  # noqa: E402

# For each case: what gradcli's time is divided by, and the largest ratio that meets the target.
TARGETS = {
    "a": ("torch", 0.8),
    "b": ("numpy", 1.15),
    "c": ("torch", 1.0),
    "d": ("torch", 1.0),
    "e": ("numpy", 1.0),
    "f": ("torch", 1.0),
    "g": ("torch", 1.0),
    "h": ("torch", 1.0),
    "i": ("torch", 1.0),
    "j": ("torch", 1.0),
    "k": ("torch", 1.0),
}
MEMORY_TARGET = 1024.0  # bytes per graph node of (a)


def timed(runner):
    """One run's time (garbage of earlier runs collected first).

    ``runner`` is a function, or ``(setup, run)``: ``run(*setup())`` is timed, not ``setup``.
    """
    setup, run = runner if isinstance(runner, tuple) else (tuple, runner)
    args = setup()
    gc.collect()
    start = time.perf_counter()
    run(*args)
    return time.perf_counter() - start


def interleaved(runners, repeats):
    """Every run's time of each runner, running them in turn ``repeats`` times."""
    times = {name: [] for name in runners}
    for _ in range(repeats):
        for name, runner in runners.items():
            times[name].append(timed(runner))
    return times


# ----- (a) a deep scalar chain -----


def chain(m, x, steps):
    for _ in range(steps):
        x = m.sin(x) * 1.0001 + 0.1 * x
    return x


def case_a(torch, steps, repeats):
    def run(m):
        x = m.tensor(0.5, dtype=m.float64, requires_grad=True)
        chain(m, x, steps).backward()
        return x.grad

    g, t = run(gradcli).item(), run(torch).item()
    assert g == t or abs(g - t) <= 1e-12 * max(abs(g), abs(t)) or max(abs(g), abs(t)) < 1e-300
    return interleaved({"gradcli": lambda: run(gradcli), "torch": lambda: run(torch)}, repeats)


def memory_per_node(steps):
    x = gradcli.tensor(0.5, dtype=gradcli.float64, requires_grad=True)
    gc.collect()
    tracemalloc.start()
    y = chain(gradcli, x, steps)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del y
    return peak / (4 * steps)


# ----- (b) the tutorial's matrix example, scaled up -----


def case_b(torch, n, repeats):
    rng = np.random.default_rng(0)
    arrays = rng.standard_normal((n, n)), rng.standard_normal((n, 1)), rng.standard_normal((n, 1))

    def leaves(m):  # new leaves for each run, made outside the timed part
        return tuple(m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays)

    def run(m, x1, y1, w):
        loss = m.mean(y1 - m.matmul(x1, w))
        loss.backward()
        return x1.grad, y1.grad, w.grad

    def by_hand():
        x1, y1, w = arrays
        loss = np.mean(y1 - x1 @ w)
        g_y1 = np.full(y1.shape, 1.0 / y1.size)  # d loss / d y1
        g_p = -g_y1  # d loss / d (x1 @ w)
        return loss, g_p * w.T, g_y1, x1.T @ g_p  # loss, d/dx1 (an outer product), d/dy1, d/dW

    expected = by_hand()[1:]
    for m in (gradcli, torch):
        for got, want in zip(run(m, *leaves(m)), expected):
            np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-9, atol=1e-15)
    return interleaved(
        {
            "gradcli": (lambda: leaves(gradcli), lambda *xs: run(gradcli, *xs)),
            "torch": (lambda: leaves(torch), lambda *xs: run(torch, *xs)),
            "numpy": by_hand,
        },
        repeats,
    )


# ----- (c) and (d): functional.jacobian and functional.hessian -----


def case_c(torch, n, repeats):
    a = np.random.default_rng(1).standard_normal((n, n))
    x = np.random.default_rng(2).standard_normal(n)

    def data(m):  # made outside the timed part
        return m.tensor(a, dtype=m.float64), m.tensor(x, dtype=m.float64)

    def run(m, functional, a_m, x_m):
        return functional.jacobian(lambda x: a_m @ m.tanh(x), x_m)

    return _functional_case(torch, data, run, repeats, rtol=1e-10, atol=0.0)


def _functional_case(torch, data, run, repeats, rtol, atol):
    """Check gradcli against PyTorch once, then time both, interleaved."""
    ours = run(gradcli, gradcli_functional, *data(gradcli))
    theirs = run(torch, torch.autograd.functional, *data(torch))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=atol)
    return interleaved(
        {
            "gradcli": (lambda: data(gradcli), lambda *d: run(gradcli, gradcli_functional, *d)),
            "torch": (lambda: data(torch), lambda *d: run(torch, torch.autograd.functional, *d)),
        },
        repeats,
    )


def case_d(torch, n, repeats):
    b = np.random.default_rng(3).standard_normal((n, n)) / np.sqrt(n)
    x = np.random.default_rng(4).standard_normal(n)

    def data(m):
        return m.tensor(b, dtype=m.float64), m.tensor(x, dtype=m.float64)

    def run(m, functional, b_m, x_m):
        return functional.hessian(lambda x: m.log(1 + m.exp(b_m @ x)).sum(), x_m)

    return _functional_case(torch, data, run, repeats, rtol=1e-9, atol=1e-14)


# ----- (e) a broadcast gradient into BLAS -----


def case_e(torch, n, repeats):
    rng = np.random.default_rng(5)
    arrays = rng.standard_normal((n, n)), rng.standard_normal((n, 1))

    def leaves(m):
        return tuple(m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays)

    def run(m, x1, w):
        m.sum(m.matmul(x1, w)).backward()
        return x1.grad, w.grad

    def by_hand():
        x1, w = arrays
        loss = np.sum(x1 @ w)
        g = np.ones((n, 1))  # d loss / d (x1 @ w), made contiguous: BLAS takes it
        return loss, g @ w.T, x1.T @ g

    expected = by_hand()[1:]
    for m in (gradcli, torch):
        for got, want in zip(run(m, *leaves(m)), expected):
            np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-9, atol=1e-9)
    return interleaved(
        {
            "gradcli": (lambda: leaves(gradcli), lambda *xs: run(gradcli, *xs)),
            "torch": (lambda: leaves(torch), lambda *xs: run(torch, *xs)),
            "numpy": by_hand,
        },
        repeats,
    )


# ----- (f) a 4th derivative by repeated grad (the function is engine_alone.py's) -----


def case_f(torch, n, repeats):
    xs = np.linspace(-1.0, 1.0, n)

    def run(m):
        return fourth_derivative(m, m.tensor(xs, dtype=m.float64, requires_grad=True)).item()

    g, t = run(gradcli), run(torch)
    assert abs(g - t) <= 1e-10 * abs(t), (g, t)
    return interleaved({"gradcli": lambda: run(gradcli), "torch": lambda: run(torch)}, repeats)


def case_g(repeats):
    """(f) in processes of their own: ``repeats`` rounds, each a process per library."""
    import json
    import subprocess
    import sys

    alone = os.path.join(os.path.dirname(os.path.abspath(__file__)), "engine_alone.py")
    times, values = {"gradcli": [], "torch": []}, {}
    for _ in range(max(1, repeats // 10)):
        for name in times:
            out = subprocess.run(
                [sys.executable, alone, name, "40"], capture_output=True, text=True, check=True
            )
            result = json.loads(out.stdout)
            values[name] = result["value"]
            times[name].extend(result["times"])
    g, t = values["gradcli"], values["torch"]
    assert abs(g - t) <= 1e-10 * abs(t), (g, t)
    return times


# ----- (h), (i) a training step of an MLP -----


def case_mlp(torch, dtype, repeats, batch=64):
    rng = np.random.default_rng(6)
    x, labels = rng.standard_normal((batch, 784)), rng.integers(0, 10, batch)
    params = (rng.standard_normal((256, 784)) / 28, rng.standard_normal(256) / 10,
              rng.standard_normal((10, 256)) / 16, rng.standard_normal(10) / 10)  # fmt: skip

    def model(m):  # made outside the timed part
        kind = getattr(m, dtype)
        ps = [m.tensor(p, dtype=kind, requires_grad=True) for p in params]
        return m.tensor(x, dtype=kind), m.tensor(labels), ps

    def run(m, xs, ys, ps):
        functional = m.nn.functional
        hidden = functional.relu(functional.linear(xs, ps[0], ps[1]))
        loss = functional.cross_entropy(functional.linear(hidden, ps[2], ps[3]), ys)
        loss.backward()
        with m.no_grad():
            for p in ps:
                p -= 0.1 * p.grad
        return loss

    ours, theirs = (run(m, *model(m)).item() for m in (gradcli, torch))
    assert abs(ours - theirs) <= 1e-5 * abs(theirs), (ours, theirs)
    return interleaved(
        {
            "gradcli": (lambda: model(gradcli), lambda *a: run(gradcli, *a)),
            "torch": (lambda: model(torch), lambda *a: run(torch, *a)),
        },
        repeats,
    )


# ----- (j) vmap(grad(f)) at many points -----


def case_j(torch, n, repeats):
    points = np.random.default_rng(7).standard_normal((n, 2))

    def f(m):
        return lambda p: m.sin(p[0]) * m.exp(-(p[1] ** 2)) + p[0] * p[1] ** 3

    def data(m):
        return (m.tensor(points, dtype=m.float64),)

    def run(m, func, xs):
        return func.vmap(func.grad(f(m)))(xs)

    import torch.func as torch_func

    import gradcli.func as gradcli_func

    ours, theirs = run(gradcli, gradcli_func, *data(gradcli)), run(torch, torch_func, *data(torch))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-14)
    return interleaved(
        {
            "gradcli": (lambda: data(gradcli), lambda *d: run(gradcli, gradcli_func, *d)),
            "torch": (lambda: data(torch), lambda *d: run(torch, torch_func, *d)),
        },
        repeats,
    )


# ----- (k) a 4th derivative through a short scalar chain -----


def case_k(torch, repeats, steps=12):
    def run(m):
        x = m.tensor(0.3, dtype=m.float64, requires_grad=True)
        y = chain(m, x, steps)
        for _ in range(4):
            (y,) = m.autograd.grad(y, x, create_graph=True)
        return y.item()

    g, t = run(gradcli), run(torch)
    assert abs(g - t) <= 1e-10 * abs(t), (g, t)
    return interleaved({"gradcli": lambda: run(gradcli), "torch": lambda: run(torch)}, repeats)


# ----- the report -----


def blas_note():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "BLAS: threadpoolctl not installed (pip install threadpoolctl to show the kernel)"
    infos = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    return "; ".join(
        f"BLAS: {i.get('internal_api')} {i.get('version')}, kernel "
        f"{i.get('architecture')}, {i.get('num_threads')} threads"
        for i in infos
    )


def load_note():
    # Multi-threaded BLAS calls stall for whole scheduler time slices when other
    # processes hold the cores: (c) and (d) are then far slower than on an idle machine.
    busy = load_average() > 0.5 * (os.cpu_count() or 1)
    return plain_load_note() + ("  (busy: BLAS-heavy timings are unreliable)" if busy else "")


def row(key, name, times):
    """One line of the table: the fastest times, gradcli's ratios (fastest runs, and
    median runs in brackets), and the target's verdict on the median."""
    low = {k: min(v) for k, v in times.items()}
    mid = {k: float(np.median(v)) for k, v in times.items()}
    g, t, n = low["gradcli"], low["torch"], low.get("numpy")
    numpy_time = f"{n:10.4f}" if n is not None else f"{'':10}"
    floor = f"{g / n:.2f} [{mid['gradcli'] / mid['numpy']:.2f}]" if n is not None else ""
    baseline, limit = TARGETS[key]
    ratio = mid["gradcli"] / mid[baseline]
    vs_torch = f"{g / t:.2f} [{mid['gradcli'] / mid['torch']:.2f}]"
    return (
        f"{name:36} {g:10.4f} {t:10.4f} {numpy_time} {vs_torch:>12} {floor:>12}  "
        f"gradcli/{baseline} <= {limit}: {verdict(ratio, limit)}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="runs of each (default 5; 20 for the short cases c, d and f)",
    )
    parser.add_argument(
        "--cases", default="abcdefghijk", help="which cases to run, e.g. --cases ab"
    )
    parser.add_argument(
        "--threads", default="1", help="BLAS and PyTorch threads (default 1, for both)"
    )
    parser.add_argument(
        "--one-process",
        action="store_true",
        help="every case in this process (each case's figures then depend on the cases before)",
    )
    parser.add_argument("--rows", action="store_true", help=argparse.SUPPRESS)  # lines alone
    args = parser.parse_args()
    import torch

    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))

    selected = [key for key in "abcdefghijk" if key in args.cases]
    if len(selected) > 1 and not args.one_process and not args.rows:
        return each_in_its_process(args, selected)
    if args.rows:
        return print_rows(run_cases(args, torch, selected))
    print(
        f"gradcli {gradcli.__version__}, torch {torch.__version__} "
        f"({torch.get_num_threads()} threads), numpy {np.__version__}"
    )
    print(blas_note())
    print(load_note())
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if var in os.environ:
            print(
                f"warning: {var}={os.environ[var]} is set: run under `env -u {var}` "
                "(see this script's docstring)"
            )
    print(repeats_note(args))
    print_head()
    print_rows(run_cases(args, torch, selected))
    print(load_note())
    if args.quick:
        print("(--quick: a smoke run; the targets are for the full sizes)")


def repeats_note(args) -> str:
    quick = args.quick
    repeats = args.repeats or (2 if quick else 5)
    short_repeats = args.repeats or (5 if quick else 20)
    many = args.repeats or (10 if quick else 100)
    return (
        f"{repeats} interleaved runs ({short_repeats} for c, d and f, {many} for h to k): "
        f"fastest [median]; BLAS threads {os.environ['OPENBLAS_NUM_THREADS']}"
        f"{' (--quick sizes)' if quick else ''}\n"
    )


def print_head():
    head = (
        f"{'case':36} {'gradcli s':>10} {'torch s':>10} {'numpy s':>10} "
        f"{'gc/torch':>12} {'gc/numpy':>12}  target (median)"
    )
    print(head)
    print("-" * len(head))


def each_in_its_process(args, selected):
    """Each case in a process of its own, one after the other: a case run after others in
    one process is timed on their leftovers (the MLP's large arrays in the allocators,
    the collector's generations), which moved (k) from 0.87 alone to 1.16 after (h)."""
    import subprocess

    import torch

    print(
        f"gradcli {gradcli.__version__}, torch {torch.__version__} "
        f"({torch.get_num_threads()} threads), numpy {np.__version__}"
    )
    print(blas_note())
    print(load_note())
    print("each case in a process of its own (--one-process: all in this one)")
    print(repeats_note(args))
    print_head()
    passed = ["--threads", args.threads, *(["--quick"] if args.quick else [])]
    passed += ["--repeats", str(args.repeats)] if args.repeats else []
    for key in selected:
        done = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--cases", key, "--rows", *passed],
            stdout=subprocess.PIPE, text=True, check=True,
        )  # fmt: skip
        print(done.stdout, end="", flush=True)
    print(load_note())
    if args.quick:
        print("(--quick: a smoke run; the targets are for the full sizes)")


def print_rows(found):
    rows, mem = found
    for key, name, times in rows:
        print(row(key, name, times))
    if mem is not None:
        print(
            f"{'(a) memory per graph node':36} {mem:10.0f} bytes{'':46}  "
            f"bytes per node <= {MEMORY_TARGET:.0f}: {verdict(mem, MEMORY_TARGET)}"
        )


def run_cases(args, torch, selected):
    """The rows of the cases ``selected``, run in this process, and (a)'s bytes a node."""
    quick = args.quick
    repeats = args.repeats or (2 if quick else 5)
    short_repeats = args.repeats or (5 if quick else 20)
    steps = 10_000 if quick else 100_000
    n_b, n_c, n_d = (500, 60, 40) if quick else (4000, 300, 200)
    many = args.repeats or (10 if quick else 100)  # (h) to (k): a millisecond or so a run
    n_j = 1000 if quick else 10_000
    cases = {
        "a": (f"(a) scalar chain, {steps:,} steps", lambda: case_a(torch, steps, repeats)),
        "b": (f"(b) mean(y1 - x1 @ W), n={n_b}", lambda: case_b(torch, n_b, repeats)),
        "c": (f"(c) jacobian A @ tanh(x), n={n_c}", lambda: case_c(torch, n_c, short_repeats)),
        "d": (f"(d) hessian softplus sum, n={n_d}", lambda: case_d(torch, n_d, short_repeats)),
        "e": (f"(e) sum(x1 @ W), W n x 1, n={n_b}", lambda: case_e(torch, n_b, repeats)),
        "f": ("(f) 4th derivative by repeated grad", lambda: case_f(torch, 10, short_repeats)),
        "g": ("(g) (f), each library alone", lambda: case_g(short_repeats)),
        "h": ("(h) MLP 784-256-10 step, float32", lambda: case_mlp(torch, "float32", many)),
        "i": ("(i) MLP 784-256-10 step, float64", lambda: case_mlp(torch, "float64", many)),
        "j": (f"(j) vmap(grad(f)), {n_j:,} points", lambda: case_j(torch, n_j, many)),
        "k": ("(k) 4th derivative, 12-step chain", lambda: case_k(torch, many)),
    }
    rows = []
    mem = None
    for key in selected:
        name, run = cases[key]
        rows.append((key, name, run()))
        if key == "a":
            mem = memory_per_node(steps)
    return rows, mem


if __name__ == "__main__":
    main()
