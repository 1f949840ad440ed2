"""Reading and writing a 10^6-row, 2-column CSV of float64: ``numpy.loadtxt``/
``savetxt``, pandas and pyarrow, side by side in one run, against gradcli's own
batch reader and writer (``gradcli.core.point_files``), which must be at most 1.5 times the
fastest library.

Each round runs every competitor once, in a shuffled order; the report gives each
one's fastest and median time over the rounds, gradcli's ratio to the fastest
library (the one with the lowest median) round by round, fastest and median, the
load average, and the target (on the median ratio) as met or MISSED.

    python bench/bench_batch_csv.py                # 10^6 rows, 5 rounds
    python bench/bench_batch_csv.py --rows 200000 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import load_average, load_range, low_mid, print_table, ratios, target_note  # noqa: E402

TARGET = 1.5


def numpy_read(path):
    return np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64)


def numpy_write(path, table):
    np.savetxt(path, table, delimiter=",", header="x,y", comments="", fmt="%.17g")


def pandas_read(path):
    import pandas

    return pandas.read_csv(path, dtype=np.float64).to_numpy()


def pandas_read_pyarrow_engine(path):
    import pandas

    return pandas.read_csv(path, dtype=np.float64, engine="pyarrow").to_numpy()


def pandas_write(path, table):
    import pandas

    pandas.DataFrame({"x": table[:, 0], "y": table[:, 1]}).to_csv(path, index=False)


def pyarrow_read(path):
    from pyarrow import csv

    table = csv.read_csv(path)
    return np.column_stack([table.column(i).to_numpy() for i in range(table.num_columns)])


def pyarrow_write(path, table):
    import pyarrow
    from pyarrow import csv

    csv.write_csv(pyarrow.table({"x": table[:, 0], "y": table[:, 1]}), path)


def gradcli_read(path):
    from gradcli.core.point_files.readers import open_points

    with open_points(path) as reader:
        chunks = list(reader.chunks(100_000))
    return np.column_stack([np.concatenate([c.columns[n] for c in chunks]) for n in ("x", "y")])


def gradcli_write(path, table):
    from gradcli.render.formats import open_writer

    with open_writer(path, None) as writer:
        for start in range(0, len(table), 100_000):
            part = table[start : start + 100_000]
            writer.write({"x": part[:, 0], "y": part[:, 1]})


READERS = {
    "numpy.loadtxt": numpy_read,
    "pandas.read_csv": pandas_read,
    "pandas.read_csv(engine=pyarrow)": pandas_read_pyarrow_engine,
    "pyarrow.csv.read_csv": pyarrow_read,
    "gradcli.core.point_files (read)": gradcli_read,
}
WRITERS = {
    "numpy.savetxt": numpy_write,
    "pandas.to_csv": pandas_write,
    "pyarrow.csv.write_csv": pyarrow_write,
    "gradcli.core.point_files (write)": gradcli_write,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    table = rng.standard_normal((args.rows, 2))
    times: dict[str, list[float]] = {name: [] for name in (*READERS, *WRITERS)}
    loads = [load_average()]
    with tempfile.TemporaryDirectory() as directory:
        source = os.path.join(directory, "points.csv")
        pyarrow_write(source, table)
        for name in READERS:  # every reader reads the same numbers back
            back = READERS[name](source)
            assert np.array_equal(back, table), name
        for _ in range(args.rounds):
            jobs = [("r", n) for n in READERS] + [("w", n) for n in WRITERS]
            random.shuffle(jobs)
            for kind, name in jobs:
                start = time.perf_counter()
                if kind == "r":
                    READERS[name](source)
                else:
                    WRITERS[name](os.path.join(directory, "out.csv"), table)
                times[name].append(time.perf_counter() - start)
            loads.append(load_average())
    print(
        f"{args.rows:,} rows x 2 columns, {args.rounds} shuffled rounds, "
        f"load average {load_range(loads)} on {os.cpu_count()} cores; seconds"
    )
    for title, group in (("read", READERS), ("write", WRITERS)):
        libraries = [n for n in group if not n.startswith("gradcli")]
        fastest = min(libraries, key=lambda n: statistics.median(times[n]))
        rows = []
        for name in group:
            low, mid = low_mid(ratios(times[name], times[fastest]))
            rows.append([name, *(f"{t:.3f}" for t in low_mid(times[name])), f"{low:.2f}",
                         f"{mid:.2f}"])  # fmt: skip
        print(f"{title} (ratio: to {fastest}, round by round)")
        print_table(["", "min s", "median s", "ratio min", "median"], rows)
        ours = next(n for n in group if n.startswith("gradcli"))
        ratio = low_mid(ratios(times[ours], times[fastest]))[1]
        print(f"  {ours} / {fastest}: {target_note(ratio, TARGET)}")


if __name__ == "__main__":
    main()
