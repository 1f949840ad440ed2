"""Chunks computed by Dask on a LocalCluster of two worker processes.

One cluster serves the whole module (starting one takes seconds). What the
workers give is checked against what this process gives alone, and against
NumPy's own reading of the same files.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from gradcli.errors import GradcliError

pytest.importorskip(
    "distributed", reason="the dask extra is not installed: pip install 'gradcli[dask]'"
)
pytest.importorskip(
    "pyarrow", reason="the dask extra is not installed: pip install 'gradcli[dask]'"
)

from gradcli.batch import distributed  # noqa: E402


@pytest.fixture(scope="module")
def executor():
    with distributed.dask_executor(workers=2) as running:
        yield running


def write_csv(path, table, header="x,y"):
    np.savetxt(path, table, delimiter=",", header=header, comments="", fmt="%.17g")


@pytest.fixture
def three_csv_files(tmp_path):
    table = np.random.default_rng(0).standard_normal((30, 2))
    for i in range(3):
        write_csv(tmp_path / f"part{i}.csv", table[10 * i : 10 * (i + 1)])
    return tmp_path, table


def test_chunks_come_back_in_order(executor):
    chunks = [{"x": np.arange(i, i + 3.0)} for i in range(7)]
    results = list(executor.map(dict, chunks))
    assert [r["x"].tolist() for r in results] == [c["x"].tolist() for c in chunks]


def test_a_glob_of_csv_files_is_read_by_the_workers_in_file_order(executor, three_csv_files):
    directory, table = three_csv_files
    parts = list(executor.map_files(dict, str(directory / "part*.csv")))
    assert [p.path for p in parts] == [str(directory / f"part{i}.csv") for i in range(3)]
    assert [p.rows for p in parts] == [10, 10, 10]
    got = np.column_stack([np.concatenate([p.columns[n] for p in parts]) for n in "xy"])
    assert np.array_equal(got, table)  # 17 digits read back exactly


def test_a_directory_reads_its_files(executor, three_csv_files):
    directory, table = three_csv_files
    parts = list(executor.map_files(dict, str(directory)))
    assert sum(p.rows for p in parts) == len(table)


def test_parquet_input_and_part_files(executor, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = np.random.default_rng(1).standard_normal((12, 2))
    pq.write_table(pa.table({"x": table[:6, 0], "y": table[:6, 1]}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"x": table[6:, 0], "y": table[6:, 1]}), tmp_path / "b.parquet")
    out = tmp_path / "out"
    out.mkdir()
    parts = list(executor.map_files(dict, str(tmp_path / "*.parquet"), part_directory=str(out)))
    assert [p.rows for p in parts] == [6, 6] and all(p.columns is None for p in parts)
    written = pq.read_table(out).to_pandas()
    assert np.array_equal(written[["x", "y"]].to_numpy(), table)


def test_a_field_that_is_not_a_number_names_the_file_and_line(executor, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("x,y\n1,2\n3,abc\n")
    with pytest.raises(GradcliError, match=r"bad\.csv, line 3: y is not a number: 'abc'"):
        list(executor.map_files(dict, str(path)))


def test_a_row_with_too_many_fields_names_the_file_and_line(executor, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("x,y\n" + "".join(f"{i},{i}\n" for i in range(50)) + "1,2,3\n")
    with pytest.raises(GradcliError, match=r"line 52: 3 fields where the header has 2"):
        list(executor.map_files(dict, str(path)))


def test_no_file_matches(tmp_path):
    with pytest.raises(GradcliError, match="no such file"):
        distributed.source_files(str(tmp_path / "*.csv"))


def test_without_dask_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    with pytest.raises(GradcliError, match=r"--dask needs Dask.*pip install 'gradcli\[dask\]'"):
        distributed.require_dask()
