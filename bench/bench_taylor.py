"""``taylor`` and ``jvp --order`` as whole processes, beside ``python -c "import numpy"``
and a one-shot ``gradcli eval`` of the same expression (the start-up they share).

Taylor arithmetic (``gradcli/engine/jet.py``) propagates truncated power series
through the program; nested reverse passes took 7.4 s for the three-variable case
at order 10 and stopped at order 12. Each round runs every command once, in a
shuffled order; the report gives each one's minimum and median wall and CPU time
(user + system, the child's own accounting) over the rounds. The targets: each
Taylor case under 0.5 s.

    python bench/bench_taylor.py              # 10 rounds
    python bench/bench_taylor.py --rounds 20
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

sys.path.insert(0, os.path.dirname(__file__))
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
    for _ in range(rounds):
        names = list(commands)
        random.shuffle(names)
        for name in names:
            times[name].append(timed(commands[name], env))
    load = os.getloadavg()[0]
    print(f"{rounds} shuffled rounds, load average {load:.2f} on {os.cpu_count()} cores")
    print(f"  {'':34} {'wall min':>9} {'median':>8} {'cpu min':>9} {'median':>8}")
    for name, runs in times.items():
        wall, cpu = zip(*runs)
        mark = ""
        if name.startswith(("taylor", "jvp")):
            mark = (
                f"  target < {TARGET} s: {'met' if statistics.median(wall) < TARGET else 'NOT met'}"
            )
        print(
            f"  {name:34} {min(wall):9.3f} {statistics.median(wall):8.3f} "
            f"{min(cpu):9.3f} {statistics.median(cpu):8.3f}{mark}"
        )


if __name__ == "__main__":
    main()
