"""``fit`` and ``minimize`` against SciPy with analytic derivatives, side by side in one
process.

    python bench/bench_optimise.py                # 20 rounds
    python bench/bench_optimise.py --rounds 40

The cases:
  fit: NIST's Misra1a (samples/misra1a.csv, 14 rows, ``b1*(1-exp(-b2*x))``) from
      each of NIST's two starts, by ``gradcli.analysis.fitting.fit``, against
      ``scipy.optimize.least_squares`` (Levenberg-Marquardt, the same tolerances and
      ``x_scale="jac"``) with the Jacobian written by hand;
  minimize: Rosenbrock in 100 dimensions from (-1.2, 1, -1.2, 1, ...), by
      ``gradcli.analysis.optimize.minimize`` (trust-exact, the engine's gradient
      and Hessian), against ``scipy.optimize.minimize`` (trust-exact) with SciPy's
      own ``rosen_der`` and ``rosen_hess``.
Each round runs gradcli and SciPy in turn on every case, gradcli first in one round
and SciPy first in the next: the first call after another case finds colder caches
(a fit of 0.8 ms took 1.2 ms after the Rosenbrock runs), and neither side should
always be the one that pays for it. SciPy runs with one BLAS thread (gradcli sets
its own, ``engine/threads.py``). The table gives each one's minimum and median CPU
time (user + system of the whole process over the call, every thread's) and the
ratios gradcli/SciPy of the minima and of the medians; the target is at most 2.

A fit keeps the model it compiled for the data (``analysis/fit_residuals.py``), so
every fit the rounds time is of a model compiled already (by the untimed first
calls), as in a loop over starting points; the rows "first fit" time each fit
after that store is emptied, in a pass of their own, beside SciPy's fits timed
again in that pass (shown, with no target). Both
sides' results (parameters, minimum, iterations, evaluations) are printed, to show
they solve the same problem the same way. It is a benchmark, not a test: pytest
never collects it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import load_average, load_range, verdict  # noqa: E402

TARGET = 2.0
ROOT = Path(__file__).resolve().parent.parent
MISRA1A = "b1*(1-exp(-b2*x))"
STARTS = {"start 1": {"b1": 500.0, "b2": 1e-4}, "start 2": {"b1": 250.0, "b2": 5e-4}}
ROSENBROCK = "sum(100*(x[1:] - x[:-1]**2)**2 + (1 - x[:-1])**2)"
N = 100


def misra1a():
    data = np.loadtxt(ROOT / "samples" / "misra1a.csv", delimiter=",", skiprows=1)
    return {"x": data[:, 0], "y": data[:, 1]}


def gradcli_fit(data, start):
    from gradcli.analysis.fitting import fit

    report = fit(MISRA1A, data=data, params=start)
    b = [float(report.parameters[n]) for n in ("b1", "b2")]
    return b, report.rss, report.evaluations


def scipy_fit(data, start):
    import scipy.optimize

    x, y = data["x"], data["y"]

    def residuals(b):
        return b[0] * (1 - np.exp(-b[1] * x)) - y

    def jacobian(b):
        e = np.exp(-b[1] * x)
        return np.stack([1 - e, b[0] * x * e], 1)

    found = scipy.optimize.least_squares(
        residuals, [start["b1"], start["b2"]], jac=jacobian, method="lm", x_scale="jac",
        xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=10000,
    )  # fmt: skip
    return list(found.x), float(found.fun @ found.fun), found.nfev


def start_point():
    return np.tile([-1.2, 1.0], N // 2)


def gradcli_minimize():
    from gradcli.analysis.optimize import minimize

    report = minimize(ROSENBROCK, {"x": start_point()})
    return report.value, report.iterations, report.evaluations, report.method


def scipy_minimize():
    import scipy.optimize as so

    found = so.minimize(
        so.rosen, start_point(), jac=so.rosen_der, hess=so.rosen_hess, method="trust-exact",
        tol=1e-10, options={"maxiter": 1000},
    )  # fmt: skip
    return float(found.fun), found.nit, found.nfev, "trust-exact"


def timed(run):
    """(cpu, wall) seconds of one call, and what it returned."""
    cpu, wall = time.process_time(), time.perf_counter()
    found = run()
    return (time.process_time() - cpu, time.perf_counter() - wall), found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    from gradcli.analysis.fit_residuals import COMPILED

    data = misra1a()
    cases = {
        f"fit Misra1a, {name}": (
            lambda s=start: gradcli_fit(data, s),
            lambda s=start: scipy_fit(data, s),
        )
        for name, start in STARTS.items()
    }
    cases[f"minimize Rosenbrock, n = {N}"] = (gradcli_minimize, scipy_minimize)
    times = {}
    shown = {}
    loads = [load_average()]
    for case, (ours, theirs) in cases.items():  # warm: imports, caches
        shown[case] = (ours(), theirs())
    for turn in range(rounds):
        for case, (ours, theirs) in cases.items():
            _in_turn(times, case, ours, theirs, turn)
        loads.append(load_average())
    # The same fits, each after the store of compiled models is emptied: in a pass of
    # their own, with SciPy's fits again beside them.
    fits = [case for case in cases if case.startswith("fit")]
    for turn in range(rounds):
        for case in fits:
            _in_turn(times, f"{case}, first fit", *cases[case], turn, COMPILED.clear)
        loads.append(load_average())
    print(
        f"{rounds} rounds, load average {load_range(loads)} on {os.cpu_count()} "
        "cores; CPU time in ms (wall in brackets)"
    )
    print(f"  {'':40} {'gradcli min':>18} {'median':>18} {'SciPy min':>16} {'median':>16}"
          f"  {'ratio min':>9} {'median':>6}")  # fmt: skip
    for case in [*cases, *(f"{case}, first fit" for case in fits)]:
        ours, theirs = times[case, "gradcli"], times[case, "scipy"]
        figures = []
        for runs in (ours, theirs):
            cpu, wall = zip(*runs)
            figures += [(min(cpu), min(wall)), (statistics.median(cpu), statistics.median(wall))]
        ratio_min = figures[0][0] / figures[2][0]
        ratio_median = figures[1][0] / figures[3][0]
        cells = " ".join(f"{c * 1e3:8.2f} ({w * 1e3:7.2f})" for c, w in figures)
        said = (
            "no target"
            if case.endswith("first fit")
            else (f"target <= {TARGET:g}: {verdict(ratio_median, TARGET)}")
        )
        print(f"  {case:40} {cells}  {ratio_min:9.2f} {ratio_median:6.2f}  {said}")  # fmt: skip
    print("results (gradcli | SciPy):")
    for case, (ours, theirs) in shown.items():
        print(f"  {case}: {_shown(ours)} | {_shown(theirs)}")


def _in_turn(times, case, ours, theirs, turn, before_ours=lambda: None) -> None:
    """One round of a case: gradcli and SciPy timed in turn, gradcli first in even
    rounds; ``before_ours`` is called, untimed, just before gradcli's call."""
    from threadpoolctl import threadpool_limits

    sides = [("gradcli", ours), ("scipy", theirs)]
    for side, run in sides if turn % 2 == 0 else sides[::-1]:
        if side == "gradcli":
            before_ours()
        with threadpool_limits(1) if side == "scipy" else nullcontext():
            spent, _ = timed(run)
        times.setdefault((case, side), []).append(spent)


def _shown(found) -> str:
    return ", ".join(
        "[" + ", ".join(f"{v:.10g}" for v in x) + "]" if isinstance(x, list)
        else f"{x:.10g}" if isinstance(x, float) else str(x)
        for x in found
    )  # fmt: skip


if __name__ == "__main__":
    main()
