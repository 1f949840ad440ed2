"""Start-up of the interactive session against a one-shot ``gradcli eval``.

Each round, on a pseudo-terminal, in a shuffled order: the time from starting
``gradcli`` (no arguments) until its prompt appears, and the whole run of
``gradcli eval "(x+2)**2+3" --x 2`` (a table, as on a terminal). The median of
each round's ratio is reported; the target is at most 1.5. For scale, the same
rounds time ``python -c "import torch"`` (PyTorch 2.13 CPU), when it is installed.

    python bench/bench_repl.py             # 20 rounds
    python bench/bench_repl.py --rounds 50

Needs pexpect and prompt_toolkit (``pip install -e '.[test]'``).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import tempfile
import time

import pexpect

sys.path.insert(0, os.path.dirname(__file__))
from bench_startup import gradcli_command  # noqa: E402

PROMPT = ">>>"
ONE_SHOT = ["eval", "(x+2)**2+3", "--x", "2"]
TARGET = 1.5


def until_prompt(command: list[str], env: dict[str, str]) -> float:
    """Seconds from the start of ``command`` until the prompt shows; then leave with Ctrl-D."""
    start = time.perf_counter()
    child = pexpect.spawn(command[0], command[1:], env=env, encoding="utf-8", timeout=60)
    child.expect_exact(PROMPT)
    elapsed = time.perf_counter() - start
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    return elapsed


def whole_run(command: list[str], env: dict[str, str]) -> float:
    """Seconds from the start of ``command`` until it has exited."""
    start = time.perf_counter()
    child = pexpect.spawn(command[0], command[1:], env=env, encoding="utf-8", timeout=60)
    child.expect(pexpect.EOF)
    elapsed = time.perf_counter() - start
    child.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds

    with tempfile.TemporaryDirectory() as data:
        env = dict(os.environ, COLUMNS="80", XDG_DATA_HOME=data, PROMPT_TOOLKIT_NO_CPR="1")
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: bytecode compiled once
        gradcli = gradcli_command()
        runs = {
            "repl": lambda: until_prompt(gradcli, env),
            "eval": lambda: whole_run([*gradcli, *ONE_SHOT], env),
        }
        if importlib.util.find_spec("torch") is not None:
            runs["torch"] = lambda: whole_run([sys.executable, "-c", "import torch"], env)
        for run in runs.values():  # warm the caches (.pyc, disk)
            run()
        times: dict[str, list[float]] = {name: [] for name in runs}
        ratios: list[float] = []
        for _ in range(rounds):
            order = list(runs)
            random.shuffle(order)
            this_round = {name: runs[name]() for name in order}
            for name, seconds in this_round.items():
                times[name].append(seconds)
            ratios.append(this_round["repl"] / this_round["eval"])

    ratio = statistics.median(ratios)
    print(f"{rounds} paired rounds on a pseudo-terminal, median wall time")
    labels = {
        "eval": f"gradcli {' '.join(ONE_SHOT[:1])} {ONE_SHOT[1]!r} {' '.join(ONE_SHOT[2:])}",
        "repl": "gradcli (until the prompt shows)",
        "torch": 'python -c "import torch" (PyTorch 2.13 CPU, for scale)',
    }
    for name in runs:
        print(f"  {labels[name]:<58} {statistics.median(times[name]) * 1e3:6.1f} ms")
    verdict = "ok" if ratio <= TARGET else "OVER"
    print(f"  prompt / one-shot eval: ratio {ratio:.2f} (target {TARGET:.1f}: {verdict})")
    if "torch" in runs:
        torch_ratio = statistics.median(r / t for r, t in zip(times["repl"], times["torch"]))
        print(f"  prompt / import torch: ratio {torch_ratio:.2f}")


if __name__ == "__main__":
    main()
