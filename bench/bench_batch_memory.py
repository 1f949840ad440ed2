"""Peak memory of a many-point run as the input grows: a streamed run holds a few
chunks, whatever the file's length.

Writes CSV files of x,y with 10^4, 10^6 and 10^7 rows (by default), runs as a
whole process

    gradcli grad "sin(x)*exp(-y**2) + x*y**3" --points FILE --format csv > /dev/null

on each, once, and reports the peak resident memory (``ru_maxrss`` of the child;
memory, unlike time, varies little from run to run): the growth from 10^6 to 10^7
rows (bounded memory: at most 8 MiB), and the working set of a chunk beside what
its input and output columns take (2 inputs + value + 2 gradients, float64; the
target: at most 2 times), each target met or MISSED; and beside PyTorch 2.13 CPU
doing the same run eagerly on the whole file (read with pyarrow, gradient by
autograd, written with pyarrow), when installed.
The 10^4-row run's peak is the floor: the interpreter, NumPy, pyarrow and gradcli.

    python bench/bench_batch_memory.py
    python bench/bench_batch_memory.py --rows 1000000 --chunk-size 50000
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import load_note, verdict  # noqa: E402

EXPRESSION = "sin(x)*exp(-y**2) + x*y**3"
SMALL_ROWS = 10_000  # less than a chunk: the floor of imports and buffers
MIDDLE_ROWS = 1_000_000
CHUNKS_TARGET = 2.0  # a chunk's working set, in its input and output arrays
GROWTH_TARGET = 8.0  # MiB more at the largest file than at 10^6 rows: bounded memory

TORCH_SCRIPT = """
import sys, numpy as np, torch, pyarrow as pa
from pyarrow import csv
table = csv.read_csv(sys.argv[1])
x = torch.tensor(table.column("x").to_numpy(), requires_grad=True)
y = torch.tensor(table.column("y").to_numpy(), requires_grad=True)
del table
f = torch.sin(x) * torch.exp(-y**2) + x * y**3
gx, gy = torch.autograd.grad(f.sum(), [x, y])
out = pa.table({"x": x.detach().numpy(), "y": y.detach().numpy(), "value": f.detach().numpy(),
                "grad.x": gx.numpy(), "grad.y": gy.numpy()})
csv.write_csv(out, sys.argv[2])
"""


def gradcli_command() -> list[str]:
    beside = os.path.join(os.path.dirname(sys.executable), "gradcli")
    if os.path.exists(beside):
        return [beside]
    return [sys.executable, "-m", "gradcli"]


def write_points(path: str, rows: int) -> None:
    """``rows`` random points, written a million at a time."""
    import pyarrow
    from pyarrow import csv

    rng = np.random.default_rng(0)
    with open(path, "wb") as sink:
        sink.write(b"x,y\n")
        for start in range(0, rows, 1_000_000):
            n = min(1_000_000, rows - start)
            part = pyarrow.table({"x": rng.uniform(-2, 2, n), "y": rng.uniform(-2, 2, n)})
            csv.write_csv(part, sink, csv.WriteOptions(include_header=False))


def run_alone(command: list[str]) -> tuple[float, float]:
    """Seconds and peak RSS in MiB of ``command`` (its output to /dev/null), run from
    a fresh process, whose children's peak is then this command's alone."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
        "print(time.perf_counter() - t, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, *command], check=True, capture_output=True, text=True
    ).stdout
    seconds, peak = map(float, out.split())
    return seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--chunk-size", type=int, default=None)
    parser.add_argument("--no-torch", action="store_true")
    args = parser.parse_args()
    chunk = [] if args.chunk_size is None else ["--chunk-size", str(args.chunk_size)]
    from gradcli.core.point_files.readers import DEFAULT_CHUNK_SIZE

    chunk_rows = args.chunk_size or DEFAULT_CHUNK_SIZE
    one_chunk = chunk_rows * 5 * 8 / 2**20
    sizes = (
        [SMALL_ROWS, MIDDLE_ROWS, args.rows] if args.rows > MIDDLE_ROWS else [SMALL_ROWS, args.rows]
    )
    peaks = {}
    print(load_note("before"))
    with tempfile.TemporaryDirectory() as directory:
        for rows in sizes:
            path = os.path.join(directory, f"points-{rows}.csv")
            write_points(path, rows)
            size = os.path.getsize(path) / 2**20
            command = [*gradcli_command(), "grad", EXPRESSION, "--points", path, *chunk]
            command += ["--format", "csv"]
            seconds, peaks[rows] = run_alone(command)
            print(
                f"gradcli  {rows:>11,} rows ({size:7.1f} MiB of CSV): {seconds:7.2f} s, "
                f"peak RSS {peaks[rows]:7.1f} MiB"
            )
            if not args.no_torch and rows == args.rows:
                try:
                    import torch  # noqa: F401
                except ImportError:
                    print("PyTorch is not installed: no comparison")
                    continue
                out = os.path.join(directory, "torch.csv")
                seconds, torch_peak = run_alone([sys.executable, "-c", TORCH_SCRIPT, path, out])
                print(
                    f"PyTorch  {rows:>11,} rows, eager on the whole file: {seconds:7.2f} s, "
                    f"peak RSS {torch_peak:7.1f} MiB ({torch_peak / peaks[rows]:.1f}x gradcli's)"
                )
            os.remove(path)
    # The working set is read from the run of the middle file (a whole number of chunks
    # well past the floor's); the growth only when a larger file ran too.
    middle = sizes[1]
    floor, full = peaks[SMALL_ROWS], peaks[middle]
    chunks = (full - floor) / one_chunk
    print(f"one chunk of {chunk_rows:,} rows: inputs + outputs {one_chunk:.1f} MiB")
    if len(sizes) == 3:
        growth = peaks[sizes[2]] - full
        print(
            f"growth from {middle:,} to {sizes[2]:,} rows: {growth:+.1f} MiB"
            f" (bounded memory, at most {GROWTH_TARGET:g} MiB: {verdict(growth, GROWTH_TARGET)})"
        )
    print(
        f"working set of a chunk (the {middle:,}-row run less the {SMALL_ROWS:,}-row floor):"
        f" {full - floor:.1f} MiB, {chunks:.1f}x one chunk's arrays"
        f" (at most {CHUNKS_TARGET:g}x: {verdict(chunks, CHUNKS_TARGET)})"
    )
    print(load_note("after"))


if __name__ == "__main__":
    main()
