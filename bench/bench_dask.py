"""Many points on Dask against one process: a worker's throughput, the cost of each
chunk, and the CPU of a whole ``--dask`` run.

    python bench/bench_dask.py                 # 10**6 rows, 3 paired repeats
    python bench/bench_dask.py --quick         # 10**5 rows, 2 repeats

``gradcli grad "sin(x)*exp(-y**2) + x*y**3" --points P.csv --output OUT.csv`` as
whole processes, beside the same with ``--scheduler`` on a cluster of one worker of
one thread (a ``LocalCluster`` started once, before the timed runs):

- throughput: the rows a second of the run's own loop (the ``N rows in S s`` it
  prints: reading, computing and writing, not the start), the worker's against one
  process's; the target is at least 0.7;
- the cost of a chunk on Dask: the runs again with chunks ten times smaller, the
  extra seconds of the Dask run less those of the one process, per extra chunk,
  in wall time and in CPU time (the worker's and the client's; steadier on a busy
  machine);
- the CPU of a whole ``--dask`` run (its own cluster of this machine's cores,
  started and stopped) against one process's, the command's and its children's.

Each repeat runs one process, then Dask (A, B, A, B, ...); the table gives the
minimum and the median of each figure and of its ratio, pair by pair, and the load
average before and after. It is a benchmark, not a test: pytest never collects it.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import resource
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import load_note, low_mid, verdict  # noqa: E402

SOURCE = "sin(x)*exp(-y**2) + x*y**3"
THROUGHPUT_TARGET = 0.7  # the worker's rows a second over one process's, at least
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_points(path: str, rows: int) -> None:
    rng = np.random.default_rng(0)
    table = rng.standard_normal((rows, 2))
    np.savetxt(path, table, delimiter=",", header="x,y", comments="", fmt="%.17g")


class Worker:
    """The CPU seconds the cluster's workers have used, read through a client."""

    def __init__(self, client):
        self.client = client

    def cpu(self) -> float:
        def used():
            import resource

            usage = resource.getrusage(resource.RUSAGE_SELF)
            return usage.ru_utime + usage.ru_stime

        return sum(self.client.run(used).values())


def run(args, worker=None) -> dict:
    """One whole process of gradcli: its loop's seconds, its CPU (and its children's),
    and the workers' CPU in the meantime."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    worker_before = worker.cpu() if worker else 0.0
    env = {**os.environ, "PYTHONPATH": ROOT}
    done = subprocess.run(
        [sys.executable, "-m", "gradcli", "grad", SOURCE, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"gradcli failed: {done.stderr.strip()}")
    found = re.search(r"(\d+) rows in ([0-9.]+) s", done.stdout)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "loop": float(found.group(2)),
        "cpu": cpu,
        "worker": (worker.cpu() - worker_before) if worker else 0.0,
    }


def summary(values) -> str:
    return "{:7.3f} {:7.3f}".format(*low_mid(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=None, help="points (default 10**6)")
    parser.add_argument("--repeats", type=int, default=None, help="paired runs (default 3)")
    parser.add_argument("--quick", action="store_true", help="10**5 rows, 2 repeats")
    args = parser.parse_args()
    rows = args.rows or (10**5 if args.quick else 10**6)
    repeats = args.repeats or (2 if args.quick else 3)
    chunk = max(rows // 10, 1)

    from distributed import Client, LocalCluster

    print(load_note("before"))
    print(f"{rows:,} rows, chunks of {chunk:,} and {chunk // 10:,}, {repeats} paired repeats")
    with tempfile.TemporaryDirectory() as tmp:
        points = os.path.join(tmp, "p.csv")
        write_points(points, rows)
        with (
            LocalCluster(
                n_workers=1,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
                silence_logs=logging.CRITICAL,
            ) as cluster,
            Client(cluster) as client,
        ):
            worker = Worker(client)
            address = cluster.scheduler_address
            figures = {key: [] for key in ("alone", "dask", "alone small", "dask small")}
            for _ in range(repeats):
                for size, suffix in ((chunk, ""), (chunk // 10, " small")):
                    common = ["--points", points, "--chunk-size", str(size)]
                    out = ["--output", os.path.join(tmp, "out.csv")]
                    figures["alone" + suffix].append(run(common + out))
                    on_dask = common + out + ["--scheduler", address]
                    figures["dask" + suffix].append(run(on_dask, worker))
        whole = {"alone": [], "dask": []}
        for _ in range(max(1, repeats - 1)):
            out = ["--points", points, "--output", os.path.join(tmp, "out.csv")]
            whole["alone"].append(run(out))
            whole["dask"].append(run(out + ["--dask"]))

    n_big, n_small = -(-rows // chunk), -(-rows // (chunk // 10))
    throughput = [a["loop"] / d["loop"] for a, d in zip(figures["alone"], figures["dask"])]
    per_chunk = [
        ((ds["loop"] - d["loop"]) - (a_s["loop"] - a["loop"])) / (n_small - n_big) * 1e3
        for a, d, a_s, ds in zip(
            figures["alone"], figures["dask"], figures["alone small"], figures["dask small"]
        )
    ]
    per_chunk_cpu = [  # the worker's and the client's CPU, against one process's
        ((ds["worker"] + ds["cpu"] - d["worker"] - d["cpu"]) - (a_s["cpu"] - a["cpu"]))
        / (n_small - n_big)
        * 1e3
        for a, d, a_s, ds in zip(
            figures["alone"], figures["dask"], figures["alone small"], figures["dask small"]
        )
    ]
    worker_cpu = [d["worker"] for d in figures["dask"]]
    cpu_ratio = [d["cpu"] / a["cpu"] for a, d in zip(whole["alone"], whole["dask"])]
    print(f"\n{'figure':64} {'min':>7} {'median':>7}")
    print(f"{'one process: loop seconds':64} {summary([a['loop'] for a in figures['alone']])}")
    print(f"{'one worker (--scheduler): loop seconds':64} "
          f"{summary([d['loop'] for d in figures['dask']])}")  # fmt: skip
    print(f"{'one worker: its CPU seconds':64} {summary(worker_cpu)}")
    print(f"{'one process: whole CPU seconds':64} {summary([a['cpu'] for a in figures['alone']])}")
    print(f"{'the worker throughput / one process (higher is better)':64} "
          f"{summary(throughput)}  >= {THROUGHPUT_TARGET}: "
          f"{verdict(low_mid(throughput)[1], THROUGHPUT_TARGET, at_least=True)}")  # fmt: skip
    print(f"{'Dask cost per chunk, ms (chunks of ' + format(chunk // 10, ',') + ' rows)':64} "
          f"{summary(per_chunk)}")  # fmt: skip
    print(f"{'Dask cost per chunk, CPU ms (worker and client)':64} {summary(per_chunk_cpu)}")
    print(f"{'--dask (own cluster) CPU / one process CPU, whole processes':64} "
          f"{summary(cpu_ratio)}")  # fmt: skip
    print(f"{'--dask: whole CPU seconds':64} {summary([d['cpu'] for d in whole['dask']])}")
    print(load_note("after"))


if __name__ == "__main__":
    main()
