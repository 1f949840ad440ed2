"""Start-up of a one-shot gradcli call against ``python -c "import numpy"``.

A one-shot call is the whole use of gradcli, so its start-up is its speed.
Each round runs the baseline and every gradcli command once, as whole
processes, in a shuffled order; the ratio of each round's pair is taken, in wall
time and in CPU time (user + system, steadier on a busy machine), and the minimum
and median over rounds reported, with the load average before and after. The
targets, on the median wall ratio: ``--format json`` at most 1.3 times the
baseline, ``--format table`` at most 1.4 times.

    python bench/bench_startup.py            # 20 rounds
    python bench/bench_startup.py --rounds 50
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import load_note, low_mid, verdict  # noqa: E402

EXPRESSION = ["grad", "(x+2)**2+3", "--x", "2"]
TARGETS = {"json": 1.3, "table": 1.4}


def gradcli_command() -> list[str]:
    """The installed console script of this interpreter, or what it runs.

    Not the first ``gradcli`` on PATH: that may be a wrapper (a pyenv shim starts a
    shell and another process first) or belong to another environment.
    """
    beside = os.path.join(os.path.dirname(sys.executable), "gradcli")
    script = beside if os.path.exists(beside) else shutil.which("gradcli")
    if script:
        return [script]
    return [sys.executable, "-m", "gradcli"]


def wall_time(command: list[str], env: dict[str, str]) -> float:
    return timed(command, env)[0]


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """The wall time and the CPU time (user + system) of a whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds

    env = dict(os.environ, COLUMNS="80")
    # An installed package has its bytecode compiled (pip does it); let the warm-up
    # runs write it here too, instead of compiling every module on every run.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    baseline = [sys.executable, "-c", "import numpy"]
    commands = {fmt: [*gradcli_command(), *EXPRESSION, "--format", fmt] for fmt in TARGETS}
    for command in [baseline, *commands.values()]:  # warm the caches (.pyc, disk)
        wall_time(command, env)

    print(load_note("before"))
    times: dict[str, list[float]] = {"numpy": [], **{fmt: [] for fmt in commands}}
    ratios: dict[str, list[float]] = {fmt: [] for fmt in commands}
    cpu_ratios: dict[str, list[float]] = {fmt: [] for fmt in commands}
    for _ in range(rounds):
        order = ["numpy", *commands]
        random.shuffle(order)
        this_round = {}
        for name in order:
            this_round[name] = timed(baseline if name == "numpy" else commands[name], env)
            times[name].append(this_round[name][0])
        for fmt in commands:
            ratios[fmt].append(this_round[fmt][0] / this_round["numpy"][0])
            cpu_ratios[fmt].append(this_round[fmt][1] / this_round["numpy"][1])

    print(f"{rounds} paired rounds of whole processes: min and median")
    label = 'python -c "import numpy"'
    print(f"  {label:<58} wall {_ms(times['numpy'])}")
    for fmt in commands:
        shown = " ".join(["gradcli", *EXPRESSION[:1], repr(EXPRESSION[1]), *EXPRESSION[2:]])
        ratio = statistics.median(ratios[fmt])
        print(f"  {shown + ' --format ' + fmt:<58} wall {_ms(times[fmt])}")
        print(
            f"  {'  ratio, wall':<58} {min(ratios[fmt]):.2f} {ratio:.2f}"
            f"   (median <= {TARGETS[fmt]:.1f}: {verdict(ratio, TARGETS[fmt])})"
        )
        print(
            f"  {'  ratio, CPU':<58} {min(cpu_ratios[fmt]):.2f} "
            f"{statistics.median(cpu_ratios[fmt]):.2f}"
        )
    print(load_note("after"))


def _ms(values: list[float]) -> str:
    low, mid = low_mid(values)
    return f"{low * 1e3:6.1f} ms {mid * 1e3:6.1f} ms"


if __name__ == "__main__":
    main()
