"""Printing large results: gradcli's renderers against PyTorch's own ways to print.

    python bench/bench_render.py            # 10**6 numbers
    python bench/bench_render.py --quick    # 10**5

A result of n random float64 numbers (a 1000 x n/1000 matrix, magnitudes from
1e-8 to 1e8) is rendered by each format into memory, beside what PyTorch
offers for the same tensor:
  plain   ``" ".join(map(repr, t.flatten().tolist()))``, the shortest text of
          each number, which is what plain output writes;
  json    ``json.dumps(t.tolist())``, JSON at full precision;
  table   ``str(t)``, PyTorch's summarised print (gradcli's table summarises
          the same way, at NumPy's threshold of 1000 numbers).
The targets: plain and JSON output of 10**6 numbers in at most 1 s each, and a
table of any size in at most 0.1 s (on the median run). Each repeat runs gradcli
then PyTorch; the report gives the fastest and the median run of each, gradcli's
ratio to PyTorch repeat by repeat, the load average through the repeats, and
each target as met or MISSED. It is a benchmark, not a test: pytest never
collects it.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time

import numpy as np

from gradcli import api
from gradcli.render import Format, render

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import load_average, load_range, low_mid, print_table, ratios, verdict  # noqa: E402

TARGET_SECONDS = {"plain": 1.0, "json": 1.0, "table": 0.1}


def seconds(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10**5 numbers, one repeat")
    parser.add_argument("--repeats", type=int, default=None, help="runs of each (default 5)")
    options = parser.parse_args()
    n = 10**5 if options.quick else 10**6
    repeats = options.repeats or (1 if options.quick else 5)

    import torch

    rng = np.random.default_rng(0)
    data = rng.standard_normal((1000, n // 1000)) * 10.0 ** rng.integers(-8, 9, (1000, n // 1000))
    result = api.evaluate("x", {"x": data})
    tensor = torch.tensor(data, dtype=torch.float64)

    def gradcli_format(fmt):
        def run():
            if fmt == "table":
                from rich.console import Console

                stream = io.StringIO()
                console = Console(file=stream, width=100, highlight=False)
                from gradcli.render import table

                table.render(result, stream, None, console)
            else:
                render(result, Format(fmt), io.StringIO())

        return run

    references = {
        "plain": lambda: " ".join(map(repr, tensor.flatten().tolist())),
        "json": lambda: json.dumps(tensor.tolist()),
        "table": lambda: str(tensor),
    }
    times = {(fmt, side): [] for fmt in references for side in ("gradcli", "torch")}
    loads = [load_average()]
    for _ in range(repeats):
        for fmt, reference in references.items():
            times[fmt, "gradcli"].append(seconds(gradcli_format(fmt)))
            times[fmt, "torch"].append(seconds(reference))
        loads.append(load_average())
    print(
        f"{n:,} float64 numbers, {repeats} rounds (gradcli, then PyTorch "
        f"{torch.__version__}), load average {load_range(loads)} on {os.cpu_count()} cores"
    )
    rows = []
    for fmt in references:
        ours, theirs = times[fmt, "gradcli"], times[fmt, "torch"]
        median = low_mid(ours)[1]
        rows.append([
            fmt,
            "{:.3f} / {:.3f}".format(*low_mid(ours)),
            "{:.3f} / {:.3f}".format(*low_mid(theirs)),
            "{:.2f} / {:.2f}".format(*low_mid(ratios(ours, theirs))),
            f"<= {TARGET_SECONDS[fmt]:g} s: {verdict(median, TARGET_SECONDS[fmt])}",
        ])  # fmt: skip
    head = ["format", "gradcli s min / median", "torch s", "gradcli / torch", "target (median)"]
    print_table(head, rows)


if __name__ == "__main__":
    main()
