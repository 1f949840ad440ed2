"""Many points in one run: gradcli beside PyTorch 2.13 (CPU), JAX and hand-written NumPy.

    python bench/bench_batch.py                 # the sizes of issue 10, 5 runs of each
    python bench/bench_batch.py --quick         # a smoke run at small sizes
    python bench/bench_batch.py --only npz,jac  # some of the workloads

The workloads (float64 throughout, f = sin(x)*exp(-y**2) + x*y**3):
  npz   value and gradient of f at 10^6 points read from a ``.npz`` (arrays x, y)
        and written to a ``.npz``, as whole processes: each competitor starts,
        loads, computes and saves (gradcli: ``grad F --points in.npz --output
        out.npz``); the reference is the hand-written NumPy script;
  csv   the same from a 10^6-row CSV, written as CSV, beside the read/write floor
        of each CSV library (numpy.loadtxt/savetxt, pandas, pyarrow) with the
        NumPy arithmetic; the reference is the fastest of them;
  mem   the peak memory (max RSS) of every process above; gradcli's above the same
        command's at 10^4 points (a chunk's working set: what a run holds at any
        size, its imports and its allocators' arenas, left out), in the input plus
        output arrays of one chunk (the target), and above the interpreter with
        gradcli and NumPy imported (for scale);
  grad  in one process: ``api.points("grad", F, ...)`` on the same 10^6 points
        against the NumPy arithmetic alone (the floor), PyTorch eager over the
        whole batch, ``torch.func.vmap(grad_and_value)`` and JAX
        ``jit(vmap(value_and_grad))``;
  jac   in one process: the Jacobian of ``A @ tanh(x)``, n = 50, at 10^4 points.
PyTorch eager differentiates ``f(X).sum()`` (the points are independent, so its
gradient is every point's gradient) and builds the Jacobian from n backward
passes over the whole batch. JAX is skipped when it is not installed (it is not
a gradcli dependency). gradcli is skipped when this gradcli has no batch runs.

Runs are interleaved (each round runs every competitor once) and the table shows
the median of each, its ratio to the workload's reference and the target. Every
competitor's output is checked against the hand-written NumPy result first. It is
a benchmark, not a test: pytest never collects it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import load_note, low_mid, verdict  # noqa: E402

EXPRESSION = "sin(x)*exp(-y**2) + x*y**3"
OUTPUTS = ("x", "y", "value", "grad.x", "grad.y")
TARGETS = {"npz": 1.5, "csv": 1.5, "grad": 1.5, "mem": 2.0}

# ----------------------------------------------------------------------------
# The competitors as whole processes: python -c SCRIPT INPUT OUTPUT
# ----------------------------------------------------------------------------

# The hand-written derivatives of f, shared by every script that does the arithmetic in NumPy.
NUMPY_F = """
def f_and_grad(x, y):
    y2 = y * y
    e = np.exp(-y2)
    s = np.sin(x)
    value = s * e + x * y2 * y
    return value, np.cos(x) * e + y2 * y, -2.0 * y * s * e + 3.0 * x * y2
"""

TORCH_F = """
def f(x, y):
    return torch.sin(x) * torch.exp(-y**2) + x * y**3

def eager(x, y):
    x = torch.from_numpy(x).requires_grad_()
    y = torch.from_numpy(y).requires_grad_()
    value = f(x, y)
    value.sum().backward()
    return value.detach().numpy(), x.grad.numpy(), y.grad.numpy()

def vmapped(x, y):
    grads, value = torch.func.vmap(torch.func.grad_and_value(f, argnums=(0, 1)))(
        torch.from_numpy(x), torch.from_numpy(y))
    return value.numpy(), grads[0].numpy(), grads[1].numpy()
"""

JAX_F = """
import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp

def f(x, y):
    return jnp.sin(x) * jnp.exp(-y**2) + x * y**3

_value_and_grad = jax.jit(jax.vmap(jax.value_and_grad(f, argnums=(0, 1))))

def jitted(x, y):
    value, (gx, gy) = _value_and_grad(x, y)
    return np.asarray(value), np.asarray(gx), np.asarray(gy)
"""

NPZ_IO = """
def read(path):
    arrays = np.load(path)
    return arrays["x"], arrays["y"]

def write(path, x, y, value, gx, gy):
    np.savez(path, **{"x": x, "y": y, "value": value, "grad.x": gx, "grad.y": gy})
"""

# Each writes what gradcli writes: a header, then 17 significant digits (round trip).
CSV_IO = {
    "numpy": """
def read(path):
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return table[:, 0].copy(), table[:, 1].copy()

def write(path, *columns):
    np.savetxt(path, np.column_stack(columns), delimiter=",", fmt="%.17g",
               header="x,y,value,grad.x,grad.y", comments="")
""",
    "pandas": """
import pandas as pd

def read(path):
    table = pd.read_csv(path)
    return table["x"].to_numpy(), table["y"].to_numpy()

def write(path, *columns):
    pd.DataFrame(dict(zip(["x", "y", "value", "grad.x", "grad.y"], columns))).to_csv(
        path, index=False)
""",
    "pyarrow": """
import pyarrow as pa
import pyarrow.csv as pa_csv

def read(path):
    table = pa_csv.read_csv(path)
    return table["x"].to_numpy(), table["y"].to_numpy()

def write(path, *columns):
    pa_csv.write_csv(pa.table(dict(zip(["x", "y", "value", "grad.x", "grad.y"], columns))), path)
""",
}

MAIN = """
x, y = read(sys.argv[1])
write(sys.argv[2], x, y, *{call}(x, y))
"""


def script(io: str, compute: str, call: str) -> list[str]:
    source = "import sys\nimport numpy as np\n" + io + compute + MAIN.format(call=call)
    return [sys.executable, "-c", source, "{in}", "{out}"]


def gradcli_command() -> list[str]:
    """This interpreter's gradcli (not the first on PATH, which may be another install's)."""
    return [sys.executable, "-m", "gradcli"]


def has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def gradcli_has_points() -> bool:
    shown = subprocess.run(
        [*gradcli_command(), "grad", "--help"], capture_output=True, text=True, check=True
    )
    return "--points" in shown.stdout


def gradcli_has_api_points() -> bool:
    from gradcli import api

    return hasattr(api, "points")


def without_pandas(workdir: str) -> list[str]:
    """A command's prefix that hides pandas, as an install without it (gradcli does not
    need it; pyarrow imports it when it is there)."""
    hidden = os.path.join(workdir, "no-pandas")
    os.makedirs(os.path.join(hidden, "pandas"), exist_ok=True)
    with open(os.path.join(hidden, "pandas", "__init__.py"), "w") as module:
        module.write("raise ImportError('pandas is hidden')\n")
    # Before the caller's own path (a checkout under test), not in its place.
    path = os.pathsep.join(p for p in (hidden, os.environ.get("PYTHONPATH")) if p)
    return ["/usr/bin/env", f"PYTHONPATH={path}"]


def process_competitors(workload: str, with_gradcli: bool, workdir: str) -> dict[str, list[str]]:
    """The command of each competitor of a whole-process workload ("npz" or "csv")."""
    if workload == "npz":
        runs = {"numpy": script(NPZ_IO, NUMPY_F, "f_and_grad")}
        io = NPZ_IO
    else:
        runs = {f"{lib} (floor)": script(CSV_IO[lib], NUMPY_F, "f_and_grad") for lib in CSV_IO}
        io = CSV_IO["pyarrow"]  # PyTorch and JAX read no CSV: give them the fastest reader
    runs["torch eager"] = script("import torch\n" + io, TORCH_F, "eager")
    runs["torch vmap(grad)"] = script("import torch\n" + io, TORCH_F, "vmapped")
    if has_module("jax"):
        runs["jax jit(vmap)"] = script(io, JAX_F, "jitted")
    if with_gradcli:
        runs["gradcli"] = [
            *gradcli_command(), "grad", EXPRESSION, "--points", "{in}", "--output", "{out}"
        ]  # fmt: skip
        if workload == "csv" and has_module("pandas"):
            runs["gradcli, pandas hidden"] = [*without_pandas(workdir), *runs["gradcli"]]
    return runs


# A small process that starts each competitor and reports its wall time and peak
# memory. Started from this one, a competitor's max RSS would count the pages of
# this process (the data, pyarrow) that it shares until it calls exec.
LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - start
print(os.waitstatus_to_exitcode(status), elapsed, usage.ru_maxrss, file=sys.stderr)
"""


def run_process(command: list[str], source: str = "", target: str = "") -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one whole process."""
    command = [{"{in}": source, "{out}": target}.get(word, word) for word in command]
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *command], capture_output=True, text=True, check=True
    )
    *errors, last = done.stderr.splitlines() or [""]
    code, elapsed, peak = last.split()
    if code != "0":
        raise SystemExit(f"{' '.join(command[:3])}... failed:\n" + "\n".join(errors))
    return float(elapsed), int(peak) / 1024  # ru_maxrss is in KiB on Linux


def read_output(path: str) -> dict[str, np.ndarray]:
    if path.endswith(".npz"):
        with np.load(path) as arrays:
            return {name: arrays[name] for name in arrays.files}
    import pyarrow.csv as pa_csv

    table = pa_csv.read_csv(path)
    return {name: table[name].to_numpy() for name in table.column_names}


def check_output(name: str, got: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> None:
    for key in OUTPUTS:
        if key not in got:
            raise SystemExit(f"{name}: no column {key!r} in its output (it has {sorted(got)})")
        np.testing.assert_allclose(got[key], expected[key], rtol=1e-12, atol=1e-13, err_msg=name)


def interleaved_processes(runs, source, workdir, rounds, expected):
    """Every wall time and the largest max RSS of each command, running them in turn."""
    times = {name: [] for name in runs}
    peaks = dict.fromkeys(runs, 0.0)
    suffix = os.path.splitext(source)[1]
    for name, command in runs.items():  # warm-up round, checking each output
        target = os.path.join(workdir, f"out{suffix}")
        run_process(command, source, target)
        check_output(name, read_output(target), expected)
    for _ in range(rounds):
        for name, command in runs.items():
            elapsed, peak = run_process(command, source, os.path.join(workdir, f"out{suffix}"))
            times[name].append(elapsed)
            peaks[name] = max(peaks[name], peak)
    return times, peaks


# ----------------------------------------------------------------------------
# In one process
# ----------------------------------------------------------------------------


def namespace(*sources: str) -> dict:
    scope = {"np": np}
    for source in sources:
        exec(source, scope)  # the competitors' own code above, never user text
    return scope


def interleaved_calls(calls, rounds):
    times = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return times


def grad_in_process(x, y, rounds, with_gradcli):
    numpy_f = namespace(NUMPY_F)["f_and_grad"]
    torch_f = namespace("import torch\n", TORCH_F)
    calls = {
        "numpy (floor)": lambda: numpy_f(x, y),
        "torch eager": lambda: torch_f["eager"](x, y),
        "torch vmap(grad)": lambda: torch_f["vmapped"](x, y),
    }
    if has_module("jax"):
        jitted = namespace(JAX_F)["jitted"]
        calls["jax jit(vmap)"] = lambda: jitted(x, y)
    if with_gradcli:
        from gradcli import api

        def gradcli_points():
            arrays = api.points("grad", EXPRESSION, batch={"x": x, "y": y}).arrays
            return arrays["value"], arrays["grad.x"], arrays["grad.y"]

        calls["gradcli"] = gradcli_points
    expected = numpy_f(x, y)
    for name, call in calls.items():  # also compiles JAX's function before the timed runs
        for got, want in zip(call(), expected):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13, err_msg=name)
    return interleaved_calls(calls, rounds)


def jacobian_in_process(a, xs, rounds, with_gradcli):
    import torch

    n = a.shape[0]

    def by_hand():
        t = np.tanh(xs)
        return t @ a.T, a[None, :, :] * (1.0 - t * t)[:, None, :]

    a_t = torch.from_numpy(a)

    def torch_eager():
        x = torch.from_numpy(xs).requires_grad_()
        value = torch.tanh(x) @ a_t.T
        rows = [
            torch.autograd.grad(value[:, i].sum(), x, retain_graph=i < n - 1)[0] for i in range(n)
        ]
        return value.detach().numpy(), torch.stack(rows, dim=1).numpy()

    def f_torch(x):
        value = a_t @ torch.tanh(x)
        return value, value

    jac_vmap = torch.func.vmap(torch.func.jacrev(f_torch, has_aux=True))

    def torch_vmap():
        jac, value = jac_vmap(torch.from_numpy(xs))
        return value.numpy(), jac.numpy()

    calls = {"numpy (floor)": by_hand, "torch eager": torch_eager, "torch vmap(jacrev)": torch_vmap}
    if has_module("jax"):
        jitted = namespace(JAX_F, JAX_JACOBIAN)["jacobian_of"](a)
        calls["jax jit(vmap(jacrev))"] = lambda: tuple(map(np.asarray, jitted(xs)))[::-1]
    if with_gradcli:
        from gradcli import api

        def gradcli_points():
            arrays = api.points(
                "jacobian", "A @ tanh(x)", {"A": a}, batch={"x": xs}, wrt=["x"]
            ).arrays
            return arrays["value"], arrays["jacobian.x"]

        calls["gradcli"] = gradcli_points
    value, jac = by_hand()
    for name, call in calls.items():
        got_value, got_jac = call()
        np.testing.assert_allclose(got_value, value, rtol=1e-12, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(got_jac, jac, rtol=1e-12, atol=1e-12, err_msg=name)
    return interleaved_calls(calls, rounds)


JAX_JACOBIAN = """
def jacobian_of(a):
    def f(x):
        value = a @ jnp.tanh(x)
        return value, value
    return jax.jit(jax.vmap(jax.jacrev(f, has_aux=True)))
"""

# ----------------------------------------------------------------------------
# The data and the report
# ----------------------------------------------------------------------------


def write_inputs(workdir: str, points: int, name: str = "in", seed: int = 0):
    """``NAME.npz`` and ``NAME.csv`` of the same random x and y; the x and y."""
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal(points), rng.standard_normal(points)
    np.savez(os.path.join(workdir, f"{name}.npz"), x=x, y=y)
    np.savetxt(
        os.path.join(workdir, f"{name}.csv"), np.column_stack([x, y]), delimiter=",",
        fmt="%.17g", header="x,y", comments="",
    )  # fmt: skip
    return x, y


def expected_outputs(x, y) -> dict[str, np.ndarray]:
    value, gx, gy = namespace(NUMPY_F)["f_and_grad"](x, y)
    return {"x": x, "y": y, "value": value, "grad.x": gx, "grad.y": gy}


def baseline_rss() -> float:
    """Max RSS (MB) of an interpreter that has imported gradcli's command line and NumPy."""
    return run_process([sys.executable, "-c", "import numpy, gradcli.cli"])[1]


def chunk_megabytes(inputs: int, outputs: int) -> tuple[int, float] | None:
    """The default chunk's rows and the MB of its input plus output arrays (float64)."""
    try:
        from gradcli.core.point_files.source import DEFAULT_CHUNK_SIZE
    except ImportError:
        return None
    return DEFAULT_CHUNK_SIZE, DEFAULT_CHUNK_SIZE * (inputs + outputs) * 8 / 2**20


def print_table(title, times, reference, target, peaks=None):
    """Each competitor's fastest and median run, and its ratio to ``reference`` taken run
    by run (the runs alternate), fastest and median; the target is on the median."""
    print(f"\n{title}")
    head = f"  {'competitor':26} {'min s':>9} {'median s':>9} {'ratio':>12}" + (
        f" {'max RSS MB':>11}" if peaks else ""
    )
    print(head)
    ratios = {}
    for name, seconds in times.items():
        ratios[name] = [t / r for t, r in zip(seconds, times[reference])]
        shown = "{:.2f} {:.2f}".format(*low_mid(ratios[name]))
        line = "  {:26} {:9.4f} {:9.4f} {:>12}".format(name, *low_mid(seconds), shown)
        print(line + (f" {peaks[name]:11.0f}" if peaks else ""))
    for name in (n for n in times if n.startswith("gradcli")):
        ratio = statistics.median(ratios[name])
        print(f"  {name} / {reference}, median = {ratio:.2f}, target <= {target}: "
              f"{verdict(ratio, target)}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one run of each")
    parser.add_argument("--rounds", type=int, default=None, help="runs of each (default 5)")
    parser.add_argument("--only", default="npz,csv,grad,jac", help="workloads, comma-separated")
    parser.add_argument("--no-gradcli", action="store_true", help="the competitors alone")
    args = parser.parse_args()
    only = set(args.only.split(","))
    rounds = args.rounds or (1 if args.quick else 5)
    points, jac_points = (2_000, 200) if args.quick else (1_000_000, 10_000)
    with_gradcli = not args.no_gradcli and gradcli_has_points()
    with_api = not args.no_gradcli and gradcli_has_api_points()
    print(f"numpy {np.__version__}; jax {'installed' if has_module('jax') else 'not installed'}")
    print(f"{points:,} points, {rounds} interleaved runs of each: fastest and median")
    print(load_note("before"))
    if not with_gradcli:
        print("gradcli: skipped in whole processes (this gradcli has no --points)")
    if not with_api:
        print("gradcli: skipped in one process (this gradcli has no api.points)")
    with tempfile.TemporaryDirectory(prefix="gradcli-bench-") as workdir:
        expected = expected_outputs(*write_inputs(workdir, points))
        peaks = {}
        for workload, reference in (("npz", "numpy"), ("csv", None)):
            if workload not in only:
                continue
            runs = process_competitors(workload, with_gradcli, workdir)
            source = os.path.join(workdir, f"in.{workload}")
            times, peak = interleaved_processes(runs, source, workdir, rounds, expected)
            if reference is None:  # the fastest CSV library
                floors = [n for n in times if n.endswith("(floor)")]
                reference = min(floors, key=lambda n: statistics.median(times[n]))
            title = f"{workload}: whole processes, {points:,} points, {workload} in and out"
            print_table(title, times, reference, TARGETS[workload], peak)
            peaks.update({f"{workload} {name}": mb for name, mb in peak.items()})
        if peaks:
            small = small_runs(workdir, {w for w in ("npz", "csv") if w in only}, with_gradcli)
            print_memory(peaks, points, small)
        if "grad" in only:
            x, y = expected["x"], expected["y"]
            times = grad_in_process(x, y, rounds, with_api)
            title = f"grad: in one process, {points:,} points"
            print_table(title, times, "numpy (floor)", TARGETS["grad"])
        if "jac" in only:
            rng = np.random.default_rng(1)
            a, xs = rng.standard_normal((50, 50)), rng.standard_normal((jac_points, 50))
            times = jacobian_in_process(a, xs, rounds, with_api)
            title = f"jac: A @ tanh(x), n = 50, {jac_points:,} points, in one process"
            print_table(title, times, "numpy (floor)", TARGETS["grad"])
    print("\n" + load_note("after"))
    if args.quick:
        print("(--quick: a smoke run; the targets are for the full sizes)")


#: The points of the small run whose peak is the floor of a chunk's working set.
SMALL_POINTS = 10_000


def small_runs(workdir: str, workloads: set[str], with_gradcli: bool) -> dict[str, float]:
    """The median peak (MB) of three runs of gradcli's command on ``SMALL_POINTS`` points
    of each workload's format: what a run holds at any size (its imports, its
    allocators' arenas), which the 10^6-point run's peak less it leaves out."""
    if not with_gradcli:
        return {}
    write_inputs(workdir, SMALL_POINTS, "small", seed=2)
    floors = {}
    for workload in sorted(workloads):
        command = process_competitors(workload, True, workdir)["gradcli"]
        source = os.path.join(workdir, f"small.{workload}")
        target = os.path.join(workdir, f"small-out.{workload}")
        floors[workload] = statistics.median(
            run_process(command, source, target)[1] for _ in range(3)
        )
    return floors


def print_memory(peaks, points, small):
    base = baseline_rss()
    arrow = run_process([sys.executable, "-c", "import numpy, gradcli.cli, pyarrow.csv"])[1]
    print(f"\nmem: max RSS; `python -c 'import numpy, gradcli.cli'` takes {base:.0f} MB")
    print(f"  (and {arrow:.0f} MB with pyarrow.csv, which CSV runs import)")
    chunk = chunk_megabytes(2, len(OUTPUTS))  # the output repeats the inputs
    whole = points * len(OUTPUTS) * 8 / 2**20
    print(f"  the whole file's input and output arrays: {whole:.0f} MB")
    if chunk is not None:
        rows, mb = chunk
        print(f"  one chunk ({rows:,} rows) of input and output arrays: {mb:.1f} MB")
    if small:
        print(f"  a chunk's working set: the peak less the same command's at {SMALL_POINTS:,} "
              "points (the target); above the imports alone, for scale")  # fmt: skip
    for name, peak in peaks.items():
        if "gradcli" in name:
            workload = name.split()[0]
            floor = arrow if workload == "csv" else base
            line = f"  {name:26} {peak:6.0f} MB, {peak - floor:6.0f} MB above the imports"
            if chunk is not None:
                line += f" ({(peak - floor) / chunk[1]:.1f} chunks)"
                if workload in small:
                    ratio = (peak - small[workload]) / chunk[1]
                    line += f"; {peak - small[workload]:5.1f} MB above {small[workload]:.0f} MB"
                    line += f" = {ratio:.1f} chunks, target <= {TARGETS['mem']}: "
                    line += verdict(ratio, TARGETS["mem"])
            print(line)


if __name__ == "__main__":
    main()
