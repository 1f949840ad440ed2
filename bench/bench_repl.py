"""Start-up of the interactive session against a one-shot ``gradcli eval``.

Each round, on a pseudo-terminal, in a shuffled order: the time from starting
``gradcli`` (no arguments) until its prompt appears, and the whole run of
``gradcli eval "(x+2)**2+3" --x 2`` (a table, as on a terminal). The fastest and
median of each, and of each round's ratio, are reported with the load average
through the rounds; the target (the median ratio at most 1.5) is printed as met
or MISSED. For scale, the same rounds time ``python -c "import torch"`` (PyTorch
2.13 CPU), when it is installed.

    python bench/bench_repl.py             # 20 rounds
    python bench/bench_repl.py --rounds 50

Needs pexpect and prompt_toolkit (``pip install -e '.[test]'``).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import tempfile
import time

import pexpect

sys.path.insert(0, os.path.dirname(__file__))
from _report import load_average, load_range, low_mid, print_table, ratios, target_note  # noqa: E402
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
        loads = [load_average()]
        for _ in range(rounds):
            order = list(runs)
            random.shuffle(order)
            for name in order:
                times[name].append(runs[name]())
            loads.append(load_average())

    print(
        f"{rounds} shuffled rounds on a pseudo-terminal, load average {load_range(loads)} "
        f"on {os.cpu_count()} cores; wall ms, min / median"
    )
    labels = {
        "eval": f"gradcli {' '.join(ONE_SHOT[:1])} {ONE_SHOT[1]!r} {' '.join(ONE_SHOT[2:])}",
        "repl": "gradcli (until the prompt shows)",
        "torch": 'python -c "import torch" (PyTorch 2.13 CPU, for scale)',
    }
    rows = []
    for name in runs:
        shown = "{:.1f} / {:.1f}".format(*(t * 1e3 for t in low_mid(times[name])))
        paired = "{:.2f} / {:.2f}".format(*low_mid(ratios(times["repl"], times[name])))
        rows.append([labels[name], shown, "" if name == "repl" else paired])
    print_table(["", "wall ms", "prompt / this"], rows)
    ratio = low_mid(ratios(times["repl"], times["eval"]))[1]
    print(f"  prompt / one-shot eval: {target_note(ratio, TARGET)}")


if __name__ == "__main__":
    main()
