"""``--max-memory``: one budget for a many-point run, from which its chunks are sized by
the measured cost of the first rows. Each case runs the real command in a process of its
own, most under a limit on its address space (``ulimit -v``), and measures its peak
resident memory (``peak_memory``) against what the same run took before the budget:
gigabytes for rows whose evaluation is wide, 200 bytes per row ``--skip-bad-rows``
passed over, a Dask worker reading a whole row group or a whole CSV file at once, or a
line of gigabytes to its end."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import peak_memory
import pytest

MiB = 2**20
GiB = 2**30
WIDE = "sum(ones(10000)*x)"  # 80 kB of intermediates a point, 8 bytes of result


def _column(path, values, name="x"):
    np.savetxt(path, np.asarray(values)[:, None], header=name, comments="", fmt="%.17g")


@pytest.mark.parametrize(
    "text, size",
    [
        ("2GiB", 2 * 2**30),
        ("2G", 2 * 2**30),
        ("1.5g", 3 * 2**29),
        ("500MB", 500 * 10**6),
        ("64KiB", 64 * 1024),
        ("1024", 1024),
        (" 3 TB ", 3 * 10**12),
    ],
)
def test_a_size_is_read_in_binary_and_decimal_units(text, size):
    from gradcli.core.point_files.budget import parse_size

    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["2XB", "lots", "-1G", "0", "1.5.2G", ""])
def test_a_size_that_is_not_one_is_a_one_line_error(gradcli, text):
    result = gradcli("eval", "x", "--over", "x=1:2:3", "--max-memory", text)
    assert result.exit_code == 2
    assert result.output.startswith("error: --max-memory: ") and result.output.count("\n") == 1


def test_the_default_is_half_the_limit_on_the_address_space():
    space = 3 * GiB
    code = (
        f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({space}, {space}));"
        "from gradcli.core.point_files.budget import default_max_memory, resident;"
        "print(default_max_memory() - resident())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    # Half the limit beyond what the process holds (the machine here has more than 3 GiB).
    assert abs(int(done.stdout) - space // 2) < 16 * MiB


def test_the_default_is_at_most_2_gib_on_a_large_machine():
    done = subprocess.run(
        [sys.executable, "-c", "from gradcli.core.point_files.budget import default_max_memory,"
         " resident; print(default_max_memory() - resident())"], capture_output=True, text=True,
    )  # fmt: skip
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert abs(int(done.stdout) - min(physical // 2, 2 * GiB)) < 16 * MiB


def test_wide_rows_are_computed_a_few_at_a_time_within_the_budget(tmp_path):
    # 20,000 rows of 10,000 numbers each: one chunk of them all is 1.6 GB at once.
    points, out = tmp_path / "p.csv", tmp_path / "o.npz"
    xs = np.arange(20_000) / 7
    _column(points, xs)
    args = ["eval", WIDE, "--points", str(points), "--output", str(out)]
    code, stdout, err, peak = peak_memory.run([*args, "--max-memory", "300MiB"], address_space=GiB)
    assert (code, err) == (0, ""), err
    assert stdout.startswith("20000 rows in ")
    assert peak < 300 * MiB, peak
    with np.load(out) as written:
        np.testing.assert_allclose(written["value"], 10_000 * xs, rtol=1e-12)


def test_the_default_budget_follows_ulimit_v(tmp_path):
    # No --max-memory: half of the 1 GiB the process may map, not one chunk of 1.6 GB.
    points, out = tmp_path / "p.csv", tmp_path / "o.npz"
    _column(points, np.ones(20_000))
    args = ["eval", WIDE, "--points", str(points), "--output", str(out)]
    code, stdout, err, peak = peak_memory.run(args, address_space=GiB)
    assert (code, err) == (0, ""), err
    assert peak < GiB // 2, peak


def test_a_point_that_cannot_fit_is_refused_before_its_chunk_naming_its_row(tmp_path):
    points = tmp_path / "p.csv"
    _column(points, [1.0, 2.0, 3.0])
    args = ["eval", "sum(ones(10**7)*x)", "--points", str(points), "--max-memory", "100MiB"]
    code, stdout, err, peak = peak_memory.run(args, address_space=GiB)
    assert code == 2 and stdout == ""
    assert err.startswith(f"error: row 1, line 2 of {points}: ") and "--max-memory" in err, err
    assert err.count("\n") == 0
    assert peak < 100 * MiB, peak  # 80 MB of ones and as much of their product: never made


def test_skipped_rows_are_counted_not_kept(tmp_path):
    from gradcli.core.point_files.readers import open_points

    path = tmp_path / "bad.csv"
    path.write_bytes(b"x\n" + b"1\nabc\n" * 40_000)
    with open_points(str(path), skip_bad_rows=True) as reader:  # its modules loaded first
        next(iter(reader.chunks(1)))
    tracemalloc.start()
    try:
        with open_points(str(path), skip_bad_rows=True) as reader:
            rows = sum(len(chunk) for chunk in reader.chunks(10_000))
            held = tracemalloc.get_traced_memory()[0]
            listed = list(reader.skipped)
            count = getattr(reader, "skipped_count", len(listed))
    finally:
        tracemalloc.stop()
    assert held < MiB, held  # not 200 bytes for each of 40,000 rows
    assert rows == 40_000 and count == 40_000
    assert [line for line, _ in listed] == list(range(3, 23, 2))  # the first ten


def test_skipped_rows_are_said_as_the_first_ten_and_a_count(tmp_path):
    path, out = tmp_path / "bad.csv", tmp_path / "o.npz"
    path.write_bytes(b"x\n" + b"1\nabc\n" * 20_000)
    code, stdout, err, _ = peak_memory.run(
        ["eval", "x", "--points", str(path), "--skip-bad-rows", "--output", str(out)]
    )
    assert code == 0, err
    lines = err.splitlines()
    assert lines[0] == "warning: skipped 20000 bad rows:"
    assert lines[1] == "  line 3: 'abc' in column x is not a number"
    assert lines[11:] == ["  and 19990 more"]


dask = pytest.mark.skipif(
    not all(__import__("importlib").util.find_spec(m) for m in ("distributed", "dask", "pandas")),
    reason="the dask extra is not installed: pip install 'gradcli[dask]'",
)


@dask
def test_a_row_group_too_large_for_a_dask_worker_is_refused_naming_it(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "zeros.parquet"  # 80 MB of zeros in one row group, a few kB on disk
    pq.write_table(pa.table({"x": np.zeros(10_000_000)}), path, row_group_size=10_000_000)
    args = ["eval", "x", "--points", str(path), "--dask", "--max-memory", "1GiB"]
    code, stdout, err, peak = peak_memory.run([*args, "--output", str(tmp_path / "o.npz")])
    assert code == 2, err
    assert err.startswith(f"error: {path}: row group 1 (rows 1 to 10,000,000) holds 10,000,000")
    assert err.count("\n") == 0


@dask
def test_dask_workers_read_and_compute_within_the_budget(tmp_path):
    # The workers read the file themselves: 10,000 wide rows are one partition, 800 MB
    # in one worker, unless the budget sizes the partitions.
    points, out = tmp_path / "p.csv", tmp_path / "o.npz"
    xs = np.arange(10_000) / 3
    _column(points, xs)
    args = ["eval", WIDE, "--points", str(points), "--dask", "--max-memory", "1GiB"]
    code, stdout, err, peak = peak_memory.run([*args, "--output", str(out)])
    assert code == 0, err
    assert err == (  # 10,000 rows: fewer than Dask pays for, and said
        "note: --dask: starting its cluster took longer than its workers could save on these "
        "10000 rows: a run this small is faster in one process, without Dask"
    )
    assert peak < GiB // 2, peak  # of the largest process: the client or a worker
    with np.load(out) as written:
        np.testing.assert_allclose(written["value"], 10_000 * xs, rtol=1e-12)


def _sparse_line(path, size: int) -> None:
    """A CSV file of ``size`` bytes: a row, then one line of NUL bytes to the end, a
    sparse file (they take no disk)."""
    with open(path, "wb") as file:
        file.write(b"x\n1\n")
        file.seek(size)
        file.write(b"2\n")


@dask
def test_a_line_longer_than_a_dask_worker_may_hold_is_refused_as_without_dask(tmp_path):
    # A line of 3 GB: Dask's reader read on to its end (in this process as it sampled
    # the file, then in a worker), and had said nothing after 120 s.
    path = tmp_path / "long.csv"
    _sparse_line(path, 3 * GiB)
    args = ["eval", "x", "--points", str(path), "--max-memory", "1GiB"]
    said = re.escape(f"error: {path} line 3: a line longer than ") + r"(\d+) MiB"
    said += re.escape(" (is it a file of text?)")
    code, _, err, _ = peak_memory.run(args, address_space=2 * GiB)
    alone = re.fullmatch(said, err)
    assert code == 2 and alone, err
    started = time.monotonic()
    code, stdout, err, peak = peak_memory.run([*args, "--dask"], address_space=2 * GiB)
    seconds = time.monotonic() - started
    assert (code, stdout) == (2, "")
    found = re.fullmatch(said, err)
    assert found, err
    # The cap is the budget's share of a partition, of four computed at once (two
    # workers of one thread, two in flight each): less than this process's own.
    assert int(found[1]) < int(alone[1]) <= 64
    assert seconds < 60, seconds  # a cluster of this machine takes 3 to 12 s to start
    assert peak < 512 * MiB, peak
