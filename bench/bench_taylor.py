"""``taylor`` and ``jvp --order`` as whole processes, beside ``python -c "import numpy"``
and a one-shot ``gradcli eval`` of the same expression (the start-up they share).

Taylor arithmetic (``gradcli/engine/jet.py``) propagates truncated power series
through the program; nested reverse passes took 7.4 s for the three-variable case
at order 10 and stopped at order 12. Each round runs every command once, in a
shuffled order; the report gives each one's minimum and median wall and CPU time
(user + system, the child's own accounting) over the rounds, the load average
through the rounds, and the targets (each Taylor case's median wall time at
most 0.5 s) as met or MISSED.

    python bench/bench_taylor.py              # 10 rounds
    python bench/bench_taylor.py --rounds 20
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from _report import load_average, load_range, low_mid, print_table, verdict  # noqa: E402
from bench_startup import gradcli_command  # noqa: E402

TARGET = 0.5
F = "exp(sin(x))*cos(y)*x*y"
CASES = {
    "taylor, 1 variable, order 40": ["taylor", F, "--x", "0.5", "--y", "0.3", "--wrt", "x",
                                     "--order", "40"],
    "taylor, 3 variables, order 10": ["taylor", F + "/(1 + z*z)", "--x", "0.5", "--y", "0.3",
                                      "--z", "0.2", "--order", "10"],
    "jvp --order 8, 3 inputs": ["jvp", F + "/(1 + z*z)", "--x", "0.5", "--y", "0.3", "--z",
                                "0.2", "--tangent", "x=1", "--tangent", "y=1", "--tangent",
                                "z=1", "--order", "8"],
    "eval (the start-up)": ["eval", F, "--x", "0.5", "--y", "0.3"],
}  # fmt: skip


def timed(command, env):
    """(wall, cpu) seconds of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    rounds = parser.parse_args().rounds
    env = dict(os.environ, COLUMNS="80")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    commands = {
        name: [*gradcli_command(), *args, "--format", "json"] for name, args in CASES.items()
    }
    commands['python -c "import numpy"'] = [sys.executable, "-c", "import numpy"]
    for command in commands.values():  # warm the caches (.pyc, disk)
        timed(command, env)
    times = {name: [] for name in commands}
    loads = [load_average()]
    for _ in range(rounds):
        names = list(commands)
        random.shuffle(names)
        for name in names:
            times[name].append(timed(commands[name], env))
        loads.append(load_average())
    print(
        f"{rounds} shuffled rounds, load average {load_range(loads)} on {os.cpu_count()} "
        "cores; seconds of whole processes"
    )
    rows = []
    for name, runs in times.items():
        wall, cpu = zip(*runs)
        mark = ""
        if name.startswith(("taylor", "jvp")):
            mark = verdict(low_mid(wall)[1], TARGET)
        rows.append([name, *(f"{t:.3f}" for t in (*low_mid(wall), *low_mid(cpu))), mark])
    print_table(["", "wall min", "median", "cpu min", "median", f"median <= {TARGET} s"], rows)


if __name__ == "__main__":
    main()
