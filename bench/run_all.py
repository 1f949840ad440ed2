"""Every benchmark, one after the other, each with the command docs/benchmarks.md
gives for its figures, and a summary of what they printed: each script's load
averages and every target it printed as met or MISSED.

    python bench/run_all.py --out /tmp/bench-run            # all of them (about an hour)
    python bench/run_all.py --out /tmp/bench-run --only optimise,render

Each script's whole output goes to ``OUT/NAME.txt`` as it runs (the directory is
made if missing; a file of the same name there is replaced); the summary is
printed at the end and written to ``OUT/summary.txt``. The scripts run in turn,
never side by side: each one's figures are ratios of runs taken in turn inside
it, and a second benchmark beside it would only add to the load it reports. The
scripts measure the checkout they are in (it leads their ``PYTHONPATH``). It is a
benchmark, not a test: pytest never collects it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: OpenBLAS picks its own kernel for the engine's cases (see bench_engine.py).
OWN_KERNEL = ("env", "-u", "OPENBLAS_CORETYPE", "-u", "OPENBLAS_L2_SIZE")

#: name -> the command docs/benchmarks.md gives (run from the repository's root).
COMMANDS: dict[str, tuple[str, ...]] = {
    "startup": ("bench/bench_startup.py",),
    "repl": ("bench/bench_repl.py", "--rounds", "20"),
    "taylor": ("bench/bench_taylor.py", "--rounds", "10"),
    "engine": (*OWN_KERNEL, "bench/bench_engine.py"),
    "hessian": ("bench/bench_hessian.py",),
    "optimise": ("bench/bench_optimise.py",),
    "threads": ("bench/bench_threads.py", "--rounds", "5"),
    "points": (*OWN_KERNEL, "bench/bench_points.py"),
    "render": ("bench/bench_render.py", "--repeats", "7"),
    "batch": ("bench/bench_batch.py",),
    "batch_csv": ("bench/bench_batch_csv.py", "--rounds", "5"),
    "batch_memory": ("bench/bench_batch_memory.py", "--no-torch"),
    "jacobian_npz": ("bench/bench_jacobian_npz.py", "--rounds", "9"),
    "dask": ("bench/bench_dask.py",),
}

#: The lines worth a summary: a target's verdict, or the load through a run.
SUMMARY_LINE = re.compile(r"\b(met|MISSED)\b|load average")


def command_line(parts: tuple[str, ...]) -> list[str]:
    """``parts`` with the script run by this interpreter (after any ``env`` prefix)."""
    at = next(i for i, p in enumerate(parts) if p.endswith(".py"))
    return [*parts[:at], sys.executable, *parts[at:]]


def shown(parts: tuple[str, ...]) -> str:
    at = next(i for i, p in enumerate(parts) if p.endswith(".py"))
    return " ".join((*parts[:at], "python", *parts[at:]))


def run(name: str, parts: tuple[str, ...], out: Path) -> list[str]:
    """Run one script from the repository's root, its output teed to ``out/NAME.txt``;
    the summary's lines of it."""
    print(f"== {name}: {shown(parts)}", flush=True)
    started = time.monotonic()
    lines = []
    target = out / f"{name}.txt"
    partial = target.with_suffix(".txt.part")
    with open(partial, "w", encoding="utf-8") as log:
        log.write(f"$ {shown(parts)}\n")
        # The checkout the scripts are in, not whichever gradcli is installed.
        path = os.pathsep.join(p for p in (str(HERE.parent), os.environ.get("PYTHONPATH")) if p)
        process = subprocess.Popen(
            command_line(parts), cwd=HERE.parent, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONPATH": path},
        )  # fmt: skip
        for line in process.stdout:
            sys.stdout.write(line)
            log.write(line)
            if SUMMARY_LINE.search(line):
                lines.append(line.rstrip())
        status = process.wait()
    os.replace(partial, target)
    took = time.monotonic() - started
    lines.append(f"(exit status {status}, {took:.0f} s)")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="directory for the outputs")
    parser.add_argument(
        "--only", default=None, help="names, comma-separated: " + ", ".join(COMMANDS)
    )
    args = parser.parse_args()
    names = list(COMMANDS) if args.only is None else args.only.split(",")
    unknown = [n for n in names if n not in COMMANDS]
    if unknown:
        parser.error(f"no benchmark named {', '.join(unknown)}: use {', '.join(COMMANDS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    summary = []
    for name in names:
        summary.append(f"{name}: {shown(COMMANDS[name])}")
        summary += [f"  {line.strip()}" for line in run(name, COMMANDS[name], args.out)]
    text = "\n".join(summary) + "\n"
    print("\n" + text, end="")
    partial = args.out / "summary.txt.part"
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, args.out / "summary.txt")


if __name__ == "__main__":
    main()
