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
table of any size at once. Each repeat runs gradcli then PyTorch; the fastest
run of each is shown. It is a benchmark, not a test: pytest never collects it.
"""

from __future__ import annotations

import argparse
import io
import json
import time

import numpy as np

from gradcli import api
from gradcli.render import Format, render

TARGET_SECONDS = {"plain": 1.0, "json": 1.0, "table": 0.1}


def fastest(run, repeats):
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10**5 numbers, one repeat")
    options = parser.parse_args()
    n = 10**5 if options.quick else 10**6
    repeats = 1 if options.quick else 3

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
    print(f"{n:,} float64 numbers, fastest of {repeats}")
    print(f"{'format':<8}{'gradcli s':>12}{'torch s':>12}{'ratio':>8}{'target s':>10}  met")
    for fmt, reference in references.items():
        ours = fastest(gradcli_format(fmt), repeats)
        theirs = fastest(reference, repeats)
        met = "yes" if ours <= TARGET_SECONDS[fmt] else "NO"
        print(
            f"{fmt:<8}{ours:>12.3f}{theirs:>12.3f}{ours / theirs:>8.2f}"
            f"{TARGET_SECONDS[fmt]:>10.1f}  {met}"
        )


if __name__ == "__main__":
    main()
