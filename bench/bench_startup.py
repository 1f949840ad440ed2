"""Start-up of a one-shot gradcli call against ``python -c "import numpy"``.

A one-shot call is the whole use of gradcli, so its start-up is its speed.
Each round runs the baseline and every gradcli command once, as whole
processes, in a shuffled order; the ratio of each round's pair is taken and the
median over rounds reported. The targets: ``--format json`` at most 1.3 times
the baseline, ``--format table`` at most 1.4 times.

    python bench/bench_startup.py            # 20 rounds
    python bench/bench_startup.py --rounds 50
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

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
    return [sys.executable, "-c", "from gradcli.cli import main; main()"]


def wall_time(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


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

    times: dict[str, list[float]] = {"numpy": [], **{fmt: [] for fmt in commands}}
    ratios: dict[str, list[float]] = {fmt: [] for fmt in commands}
    for _ in range(rounds):
        order = ["numpy", *commands]
        random.shuffle(order)
        this_round = {}
        for name in order:
            this_round[name] = wall_time(baseline if name == "numpy" else commands[name], env)
            times[name].append(this_round[name])
        for fmt in commands:
            ratios[fmt].append(this_round[fmt] / this_round["numpy"])

    print(f"{rounds} paired rounds, median wall time of whole processes")
    label = 'python -c "import numpy"'
    print(f"  {label:<58} {statistics.median(times['numpy']) * 1e3:6.1f} ms")
    for fmt in commands:
        shown = " ".join(["gradcli", *EXPRESSION[:1], repr(EXPRESSION[1]), *EXPRESSION[2:]])
        ratio = statistics.median(ratios[fmt])
        verdict = "ok" if ratio <= TARGETS[fmt] else "OVER"
        print(
            f"  {shown + ' --format ' + fmt:<58} {statistics.median(times[fmt]) * 1e3:6.1f} ms"
            f"   ratio {ratio:.2f} (target {TARGETS[fmt]:.1f}: {verdict})"
        )


if __name__ == "__main__":
    main()
