"""Many points computed by Dask on a LocalCluster of two worker processes.

One cluster serves the whole module (starting one takes seconds): the command
line reaches it with ``--scheduler ADDRESS``; one test starts its own with
``--dask``. Every result is compared with the run of the same points in this
process alone, which must be equal to the last bit: the workers run the same
library on the same numbers.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from gradcli.errors import GradcliError

INSTALL = "the dask extra is not installed: pip install 'gradcli[dask]'"
pytest.importorskip("distributed", reason=INSTALL)
pytest.importorskip("dask.dataframe", reason=INSTALL)

from gradcli.core.point_files import distributed  # noqa: E402
from gradcli.core.point_files.task import PointsTask  # noqa: E402

F = "sin(x)*exp(-y**2) + x*y**3"


@pytest.fixture(scope="module")
def executor():
    with distributed.dask_executor(workers=2) as running:
        yield running


@pytest.fixture(scope="module")
def scheduler(executor):
    return executor.client.scheduler.address


def write_csv(path, table, header="x,y"):
    np.savetxt(path, table, delimiter=",", header=header, comments="", fmt="%.17g")


def table_of(seed, rows):
    return np.random.default_rng(seed).standard_normal((rows, 2))


def read_csv(path):
    import pyarrow.csv

    table = pyarrow.csv.read_csv(path)
    return {name: table[name].to_numpy() for name in table.column_names}


def assert_same_columns(got, expected):
    assert list(got) == list(expected)
    for name in expected:
        assert np.array_equal(got[name], expected[name]), name


def test_points_task_in_the_workers_equals_this_process(executor):
    # randn draws from the computation's own generator: the seed decides, not the process.
    task = PointsTask("grad", "sum(randn(3)) * x**2 + y", seed=3)
    chunks = [{"x": t[:, 0], "y": t[:, 1]} for t in np.split(table_of(0, 60), 4)]
    remote = list(executor.map(task, chunks))
    assert len(remote) == 4
    for got, chunk in zip(remote, chunks):
        assert_same_columns(got, task(chunk))


def test_a_glob_of_csv_files_gives_the_single_process_rows(gradcli, scheduler, tmp_path):
    table = table_of(1, 30)
    for i in range(3):
        write_csv(tmp_path / f"part{i}.csv", table[10 * i : 10 * (i + 1)])
    write_csv(tmp_path / "whole.csv.txt", table)
    single = gradcli(
        "grad", F, "--points", tmp_path / "whole.csv.txt", "--output", tmp_path / "one.csv"
    )
    assert single.exit_code == 0, single.output
    glob = tmp_path / "part*.csv"
    run = gradcli(
        "grad", F, "--points", glob, "--scheduler", scheduler, "--output", tmp_path / "d.csv"
    )
    assert run.exit_code == 0, run.output
    assert "30 rows" in run.output
    assert (tmp_path / "d.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    got = read_csv(tmp_path / "d.csv")
    assert np.array_equal(got["x"], table[:, 0])  # in the order of the files


def test_parquet_in_and_a_directory_of_parquet_parts_out(gradcli, scheduler, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = table_of(2, 40)
    (tmp_path / "in").mkdir()
    for i in range(2):
        part = table[20 * i : 20 * (i + 1)]
        pq.write_table(
            pa.table({"x": part[:, 0], "y": part[:, 1]}), tmp_path / "in" / f"{i}.parquet"
        )
    np.savez(tmp_path / "in.npz", x=table[:, 0], y=table[:, 1])
    single = gradcli("grad", F, "--points", tmp_path / "in.npz", "--output", tmp_path / "one.npz")
    assert single.exit_code == 0, single.output
    out = tmp_path / "out.parquet"
    run = gradcli("grad", F, "--points", tmp_path / "in", "--scheduler", scheduler, "--output", out)
    assert run.exit_code == 0, run.output
    assert sorted(p.name for p in out.iterdir()) == ["part.000000.parquet", "part.000001.parquet"]
    written = pq.read_table(out)
    with np.load(tmp_path / "one.npz") as expected:
        assert written.column_names == list(expected.files)
        for name in expected.files:
            assert np.array_equal(written[name].to_numpy(), expected[name]), name


def test_chunks_of_an_npz_are_sent_to_the_workers(gradcli, scheduler, tmp_path):
    table = table_of(3, 25)
    np.savez(tmp_path / "in.npz", x=table[:, 0], y=table[:, 1])
    args = ["jacobian", "[x*y, sin(x)]", "--points", tmp_path / "in.npz", "--chunk-size", 7]
    single = gradcli(*args, "--output", tmp_path / "one.npz")
    run = gradcli(*args, "--scheduler", scheduler, "--output", tmp_path / "d.npz")
    assert single.exit_code == 0 and run.exit_code == 0, run.output
    with np.load(tmp_path / "one.npz") as one, np.load(tmp_path / "d.npz") as dask:
        assert one.files == dask.files
        for name in one.files:
            assert np.array_equal(one[name], dask[name]), name


def test_dask_starts_a_cluster_of_this_machine(gradcli, tmp_path):
    args = ["grad", "x**2 * y", "--over", "x=-1:1:5", "--over", "y=0:2:3", "--format", "csv"]
    single = gradcli(*args)
    run = gradcli(*args, "--dask")
    assert run.exit_code == 0, run.output
    assert run.stdout == single.stdout
    assert len(run.stdout.splitlines()) == 1 + 15
    assert run.stderr == (  # 15 rows: fewer than Dask pays for
        "note: --dask: starting its cluster took longer than its workers could save on these "
        "15 rows: a run this small is faster in one process, without Dask\n"
    )
    # The notes of the workers' copies of the task are said here, as in one process.
    args = ["grad", "x * sum(one_hot(k, 3))", "--over", "x=0:1:3", "--k", "1", "--format", "json"]
    run = gradcli(*args, "--dask")
    assert run.exit_code == 0 and run.stdout == gradcli(*args).stdout
    assert run.stderr == LEFT_OUT_K + (
        "note: --dask: starting its cluster took longer than its workers could save on these "
        "3 rows: a run this small is faster in one process, without Dask\n"
    )


LEFT_OUT_K = (
    "note: k is left out: it is used only in one_hot, where it has no derivative "
    "(name it with --wrt to differentiate)\n"
)
TAYLOR_NOTE = (
    "note: coefficients[0] to [5] are those of 1, x, k, x**2, x*k, k**2 (powers of the "
    "distance from each point)\n"
)


@pytest.mark.parametrize(
    "command, source, note",
    [
        ("grad", "x * sum(one_hot(k, 3))", LEFT_OUT_K),  # d/dx = 1 by hand, k has none
        ("jacobian", "x * one_hot(k, 3)", LEFT_OUT_K),
        ("check", "x * sum(one_hot(k, 3))", LEFT_OUT_K),
        ("taylor", "sin(x) * k", TAYLOR_NOTE),  # two inputs, order 2: six coefficients
    ],
    ids=["grad", "jacobian", "check", "taylor"],
)
@pytest.mark.parametrize("where", ["--over", "--points"])
def test_the_workers_notes_are_said_as_in_one_process(
    gradcli, scheduler, tmp_path, command, source, note, where
):
    # Before, the notes were those of the workers' copies of the task, and none was said.
    if where == "--over":
        points = ["--over", "x=0:1:3", "--over", "k=0:2:3"]
    else:  # read by the workers (DaskFiles), in partitions of 1000 rows
        rows = tmp_path / "rows.csv"
        rows.write_text("x,k\n1,0\n2,2\n" + "3,1\n" * 2500)
        points = ["--points", rows, "--chunk-size", "1000"]
    for fmt in ("csv", "json"):
        args = [command, source, *points, "--format", fmt]
        single = gradcli(*args)
        run = gradcli(*args, "--scheduler", scheduler)
        assert single.exit_code == run.exit_code == 0, run.output
        assert single.stderr == note
        assert run.stderr.startswith(note)  # then that the run was too small for Dask
        assert run.stderr.endswith("a run this small is faster in one process, without Dask\n")
        assert run.stdout == single.stdout


@pytest.mark.parametrize(
    "text, why",
    [
        ("x,y\n1,2\n3,abc\n", "line 3: 'abc' in column y is not a number"),
        ("x,y\n1,2\n3,4,5\n", "line 3: 3 fields, but the header names 2 columns"),
    ],
)
def test_a_bad_row_in_the_second_file_names_it_and_its_line(
    gradcli, scheduler, tmp_path, text, why
):
    write_csv(tmp_path / "a.csv", table_of(4, 5))
    (tmp_path / "b.csv").write_text(text)
    run = gradcli("grad", F, "--points", tmp_path / "*.csv", "--scheduler", scheduler)
    assert run.exit_code == 2
    assert run.stderr == f"error: {tmp_path / 'b.csv'} {why}\n"
    # The rows of a.csv were written as they came, as a run in one process writes them.
    assert run.stdout.count("\n") == 6, run.stdout


def test_a_csv_file_in_many_parts_gives_the_single_process_rows_and_lines(
    gradcli, scheduler, tmp_path
):
    # Parts of 64 KiB (for --chunk-size 100) of 840 kB: most start within a line.
    path = tmp_path / "p.csv"
    write_csv(path, table_of(7, 20_000))
    one, many = tmp_path / "one.csv", tmp_path / "many.csv"
    assert gradcli("grad", F, "--points", path, "--output", one).exit_code == 0
    run = gradcli(
        "grad", F, "--points", path, "--scheduler", scheduler, "--chunk-size", "100",
        "--output", many,
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    assert many.read_bytes() == one.read_bytes()
    lines = path.read_text().splitlines()
    lines.insert(9_000, "")  # line 9,001 blank: passed over, and counted
    lines[15_001] = "1,abc"
    path.write_text("\n".join(lines) + "\n")
    run = gradcli("grad", F, "--points", path, "--scheduler", scheduler, "--chunk-size", "100")
    assert run.exit_code == 2
    assert run.stderr == f"error: {path} line 15002: 'abc' in column y is not a number\n"


def test_an_error_of_a_row_names_its_file_and_line(gradcli, scheduler, tmp_path):
    table = table_of(5, 8)
    table[6] = [1.0, 1.0]  # [[1, 1], [1, 1]] is singular, at row 6 of b.csv: line 8
    write_csv(tmp_path / "a.csv", table_of(6, 4))
    write_csv(tmp_path / "b.csv", table)
    program = "sum(inverse([[x, 1], [1, y]]))"
    run = gradcli("eval", program, "--points", tmp_path / "*.csv", "--scheduler", scheduler)
    assert run.exit_code == 2
    assert f"line 8 of {tmp_path / 'b.csv'}" in run.output, run.output


def test_an_error_of_one_of_the_first_rows_is_said_as_without_dask(gradcli, scheduler, tmp_path):
    # The first rows are measured in this process before the workers read: an error
    # there was said "at point 2", of no file.
    path = tmp_path / "p.csv"
    path.write_text("x,y\n1,2\n3,4\n\n1,1\n5,6\n")
    program = "sum(inverse([[x, 1], [1, y]]))"
    alone = gradcli("eval", program, "--points", path)
    run = gradcli("eval", program, "--points", path, "--scheduler", scheduler)
    assert run.exit_code == alone.exit_code == 2
    assert run.stderr == alone.stderr
    assert f"at row 3, line 5 of {path} at 1:5" in run.stderr


def test_dask_is_for_many_points(gradcli):
    run = gradcli("grad", "x**2", "--x", "1", "--dask")
    assert run.exit_code == 2
    assert "error: --dask" in run.output


def test_without_dask_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    with pytest.raises(GradcliError, match=r"--dask needs Dask.*pip install 'gradcli\[dask\]'"):
        distributed.require_dask()


def test_no_file_matches(tmp_path):
    from gradcli.core.point_files.dask_files import source_files

    with pytest.raises(GradcliError, match="no such file"):
        source_files(str(tmp_path / "*.csv"))


# ----- what a cluster of this machine opens -----


def _listening(process):
    """``(pid, address, port)`` of every socket ``process`` and its children listen on."""
    import psutil

    found = []
    for each in [process, *process.children(recursive=True)]:
        try:
            connections = each.net_connections(kind="inet")
        except psutil.NoSuchProcess:
            continue
        found += [(each.pid, c.laddr.ip, c.laddr.port) for c in connections if c.status == "LISTEN"]
    return found


def _status(url):
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def test_the_local_cluster_listens_on_this_machine_alone_and_serves_no_pages(executor):
    import psutil

    listening = _listening(psutil.Process())
    workers = executor.client.scheduler_info()["workers"]
    # The scheduler, its HTTP server, a nanny per worker; each worker and its HTTP server.
    assert len(listening) >= 2 + 3 * len(workers), listening
    assert {address for _, address, _ in listening} == {"127.0.0.1"}, listening
    pages = executor.client.dashboard_link.rsplit("/", 1)[0]
    for page in ("/info/main/workers.html", "/info/call-stacks/x", "/eventstream", "/health"):
        assert _status(pages + page) == 404, page


def test_dashboard_opens_it_to_this_machine_and_says_where(gradcli_script, tmp_path):
    import os
    import re
    import signal
    import subprocess
    import threading

    import psutil

    long_run = ["eval", "x*y", "--over", "x=0:1:20000", "--over", "y=0:1:10000", "--format", "csv"]
    process = subprocess.Popen(
        [*gradcli_script, *long_run, "--dask", "--dashboard"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(process.stderr), daemon=True)
    reader.start()
    try:
        for _ in range(1200):
            if lines or process.poll() is not None:
                break
            threading.Event().wait(0.1)
        said = re.fullmatch(r"dashboard: (http://127\.0\.0\.1:(\d+)/\S+)( \(.*\))?\n", lines[0])
        assert said, lines
        listening = _listening(psutil.Process(process.pid))
        assert {address for _, address, _ in listening} == {"127.0.0.1"}, listening
        assert int(said.group(2)) in {port for _, _, port in listening}
        assert _status(said.group(1)) == 200
        process.send_signal(signal.SIGTERM)  # stopped as on Ctrl-C, the cluster with it
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    reader.join(10)
    assert process.returncode == 143
    assert lines[1:] == ["error: terminated\n"]


def test_dashboard_is_for_the_cluster_of_dask(gradcli):
    run = gradcli("eval", "x", "--over", "x=0:1:3", "--dashboard")
    assert (run.exit_code, run.stderr) == (
        2,
        "error: --dashboard opens the dashboard of --dask's cluster\n",
    )


# ----- part files -----


def test_a_failed_run_leaves_no_directory_of_parts(gradcli, scheduler, tmp_path):
    write_csv(tmp_path / "p.csv.txt", table_of(4, 30))
    with open(tmp_path / "p.csv.txt", "a") as points:
        points.write("1,oops\n")
    out = tmp_path / "out.parquet"
    args = ["eval", "x*y", "--points", tmp_path / "p.csv.txt", "--chunk-size", 10]
    run = gradcli(*args, "--scheduler", scheduler, "--output", out)
    assert run.exit_code == 2, run.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.csv.txt"]
    out.mkdir()
    (out / "keep.parquet").write_bytes(b"old")
    run = gradcli(*args[:-2], "--scheduler", scheduler, "--output", out)
    assert run.exit_code == 2 and "this one exists" in run.stderr
    assert [p.name for p in out.iterdir()] == ["keep.parquet"]


def test_part_files_appear_in_their_directory_only_when_complete(tmp_path):
    from gradcli.core.point_files.dask_files import PartFiles

    out = tmp_path / "out.parquet"
    writer = PartFiles(str(out))
    writer.write({"x": np.arange(3.0)})
    assert not out.exists()
    writer.close()
    assert [p.name for p in out.iterdir()] == ["part.000000.parquet"]
    assert [p.name for p in tmp_path.iterdir()] == ["out.parquet"]
    aborted = tmp_path / "aborted.parquet"
    writer = PartFiles(str(aborted))
    writer.write({"x": np.arange(3.0)})
    writer.abort()
    assert [p.name for p in tmp_path.iterdir()] == ["out.parquet"]


def test_dask_workers_read_inputs_only_and_say_so(gradcli, tmp_path, scheduler):
    # The workers read every column as numbers: a column of ids is refused, not dropped.
    path = tmp_path / "p.csv"
    path.write_text("id,x\na,1\nb,2\n")
    run = gradcli("eval", "x**2", "--points", path, "--scheduler", scheduler)
    assert run.exit_code == 2
    assert f"--dask: the workers read every column of {path} as an input's numbers" in run.stderr


@pytest.mark.parametrize(
    "options", [["--dask"], ["--dask", "--columns", "x"], ["--dask", "--keep", "id"]]
)
def test_the_columns_are_refused_before_a_cluster_starts(gradcli, tmp_path, monkeypatch, options):
    # Refused after the cluster had started, some 10 s later; now before it does.
    import distributed as dask_distributed

    def no_cluster(*args, **kwargs):
        raise AssertionError("a cluster was started to refuse the columns")

    monkeypatch.setattr(dask_distributed, "LocalCluster", no_cluster)
    monkeypatch.setattr(dask_distributed, "Client", no_cluster)
    path = tmp_path / "p.csv"
    path.write_text("id,x\na,1\nb,2\n")
    run = gradcli("grad", "x**2", "--points", path, *options)
    assert run.exit_code == 2, run.output
    assert f"--dask: the workers read every column of {path} as an input's numbers" in run.stderr


def test_the_columns_are_refused_before_dask_loads(gradcli, tmp_path, monkeypatch):
    # Importing dask.dataframe and distributed takes seconds on a busy machine: the
    # refusal, which needs only the header, does not wait for it.
    require = distributed.require_dask

    def found_only(option="--dask", *, load=True):
        assert not load, "Dask was loaded before the columns were checked"
        require(option, load=False)

    monkeypatch.setattr(distributed, "require_dask", found_only)
    path = tmp_path / "p.csv"
    path.write_text("id,x\na,1\nb,2\n")
    run = gradcli("grad", "x**2", "--points", path, "--dask")
    assert run.exit_code == 2, run.output
    assert f"--dask: the workers read every column of {path} as an input's numbers" in run.stderr


def test_without_its_packages_dask_is_refused_before_it_loads(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(
        GradcliError, match=r"--dask needs Dask, which is not installed \(distributed is missing\)"
    ):
        distributed.require_dask(load=False)


def test_a_run_too_small_for_dask_says_so(gradcli, tmp_path, scheduler):
    # Reaching the cluster takes milliseconds at least; one worker thread saves nothing on
    # a few rows, so the note is due whatever the machine's speed.
    path = tmp_path / "p.csv"
    path.write_text("x\n1\n2\n")
    run = gradcli("eval", "x**2", "--points", path, "--scheduler", scheduler)
    assert run.exit_code == 0, run.output
    assert run.stderr.endswith(
        "note: --scheduler: reaching the cluster took longer than its workers could save on "
        "these 2 rows: a run this small is faster in one process, without Dask\n"
    )
