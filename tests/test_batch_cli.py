"""Many points through the command line: --points in every format, --over grids,
every output format, streaming across chunks, the progress bar, and every error.

Expected numbers come from hand-derived formulas, or from one single-point call of
the library per row (``api.gradient`` and the like), never from the batch path.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from gradcli import api

F = "sin(x)*exp(-y**2) + x*y**3"


def f_and_grad(x, y):
    """F and its gradient, by hand."""
    e = np.exp(-(y**2))
    value = np.sin(x) * e + x * y**3
    return value, np.cos(x) * e + y**3, -2 * y * np.sin(x) * e + 3 * x * y**2


def read_csv(text: str) -> tuple[list[str], np.ndarray]:
    lines = text.strip().splitlines()
    import csv

    header = next(csv.reader([lines[0]]))
    return header, np.array([[float(v) for v in line.split(",")] for line in lines[1:]])


def random_points(n=23, seed=1):
    rng = np.random.default_rng(seed)
    return rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)


def write_csv(path, xs, ys):
    path.write_text("x,y\n" + "".join(f"{float(x)!r},{float(y)!r}\n" for x, y in zip(xs, ys)))


def ok(result):
    assert result.exit_code == 0, result.output
    return result


def failed(result, code=2):
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result.stderr


# ----------------------------------------------------------------------------
# Inputs: every format, several chunks, against one call per row
# ----------------------------------------------------------------------------


def test_csv_across_several_chunks_equals_one_call_per_row(gradcli, tmp_path):
    xs, ys = random_points(23)
    write_csv(tmp_path / "p.csv", xs, ys)
    out = ok(gradcli("grad", F, "--points", tmp_path / "p.csv", "--chunk-size", "5")).stdout
    header, rows = read_csv(out)
    assert header == ["x", "y", "value", "grad.x", "grad.y"]
    assert rows.shape == (23, 5)
    for (x, y), row in zip(zip(xs, ys), rows):
        single = api.gradient(F, {"x": x, "y": y})
        expected = [x, y, single.value, single.grad["x"], single.grad["y"]]
        np.testing.assert_allclose(row, expected, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(rows[:, 2:].T, f_and_grad(xs, ys), rtol=1e-12, atol=1e-14)


def _write_every_format(tmp_path, xs, ys):
    import pyarrow
    import pyarrow.parquet

    write_csv(tmp_path / "p.csv", xs, ys)
    (tmp_path / "p.jsonl").write_text(
        "".join(json.dumps({"x": x, "y": y}) + "\n" for x, y in zip(xs, ys))
    )
    np.savez(tmp_path / "p.npz", x=xs, y=ys)
    np.save(tmp_path / "p.npy", np.column_stack([xs, ys]))
    pyarrow.parquet.write_table(pyarrow.table({"x": xs, "y": ys}), tmp_path / "p.parquet")


@pytest.mark.parametrize(
    "name, extra",
    [
        ("p.csv", []),
        ("p.jsonl", []),
        ("p.npz", []),
        ("p.npy", ["--columns", "x,y"]),
        ("p.parquet", []),
    ],
)
def test_every_input_format(gradcli, tmp_path, name, extra):
    xs, ys = random_points(11)
    _write_every_format(tmp_path, xs, ys)
    args = ["grad", F, "--points", tmp_path / name, *extra, "--chunk-size", "4"]
    header, rows = read_csv(ok(gradcli(*args)).stdout)
    assert header == ["x", "y", "value", "grad.x", "grad.y"]
    np.testing.assert_array_equal(rows[:, :2], np.column_stack([xs, ys]))
    np.testing.assert_allclose(rows[:, 2:].T, f_and_grad(xs, ys), rtol=1e-12, atol=1e-14)


def test_csv_on_standard_input(gradcli):
    result = ok(gradcli("eval", "x**2 + y", "--points", "-", input="x,y\n1,2\n3,4\n"))
    assert result.stdout == "x,y,value\n1,2,3\n3,4,13\n"


def test_vector_and_matrix_columns_and_fixed_bindings(gradcli, tmp_path):
    # f = t * (v . (W v)): grad.v = t (W + W^T) v, grad.t = v . W v, W fixed by --W.
    W = np.array([[1.0, 2.0], [0.5, -1.0]])
    path = tmp_path / "p.csv"
    path.write_text("t, v[0], v[1]\n1,1,0\n2,0,1\n-1,3,4\n")
    args = ["grad", "t * sum(v * (W @ v))", "--points", path, "--W", "[[1, 2], [0.5, -1]]"]
    header, rows = read_csv(ok(gradcli(*args, "--wrt", "t,v")).stdout)
    assert header == ["t", "v[0]", "v[1]", "value", "grad.t", "grad.v[0]", "grad.v[1]"]
    for t, v0, v1, value, gt, gv0, gv1 in rows:
        v = np.array([v0, v1])
        assert value == pytest.approx(t * v @ W @ v)
        assert gt == pytest.approx(v @ W @ v)
        np.testing.assert_allclose([gv0, gv1], t * (W + W.T) @ v)


def test_matrix_input_from_columns_and_jacobian_names(gradcli, tmp_path):
    # jacobian of A @ x (x fixed) with respect to A: d(Ax)_i / dA_jk = delta_ij x_k.
    path = tmp_path / "A.csv"
    path.write_text('"A[0,0]","A[0,1]","A[1,0]","A[1,1]"\n1,2,3,4\n')
    out = ok(gradcli("jacobian", "A @ x", "--points", path, "--x", "[5, 7]", "--wrt", "A"))
    header, rows = read_csv(out.stdout)
    assert header[4:6] == ["value[0]", "value[1]"]
    assert rows[0, 4:6].tolist() == [1 * 5 + 2 * 7, 3 * 5 + 4 * 7]
    names = header[6:]
    assert names[:3] == ["jacobian.A[0,0,0]", "jacobian.A[0,0,1]", "jacobian.A[0,1,0]"]
    expected = {f"jacobian.A[{i},{j},{k}]": (i == j) * [5, 7][k] for i in range(2)
                for j in range(2) for k in range(2)}  # fmt: skip
    assert dict(zip(names, rows[0, 6:].tolist())) == expected


# ----------------------------------------------------------------------------
# --over grids, against formulas
# ----------------------------------------------------------------------------


def test_over_grid_of_two_inputs(gradcli):
    args = ["grad", "x**2 * y", "--over", "x=-1:1:3", "--over", "y=[2, 5]"]
    header, rows = read_csv(ok(gradcli(*args)).stdout)
    assert header == ["x", "y", "value", "grad.x", "grad.y"]
    expected = [[x, y, x * x * y, 2 * x * y, x * x] for x in (-1, 0, 1) for y in (2, 5)]
    np.testing.assert_allclose(rows, expected, atol=1e-15)


def test_over_linspace_and_default_count(gradcli):
    rows = read_csv(ok(gradcli("eval", "3*x", "--over", "x=linspace(-2, 2, 101)")).stdout)[1]
    assert rows.shape == (101, 2)
    np.testing.assert_allclose(rows[:, 1], 3 * np.linspace(-2, 2, 101), atol=1e-14)
    rows = read_csv(ok(gradcli("eval", "x", "--over", "x=-2:2")).stdout)[1]
    assert rows.shape == (201, 2) and rows[100, 0] == 0 and rows[-1, 0] == 2


def test_over_with_other_inputs_bound_and_defaults(gradcli):
    # f = a*x + b with the program's default b = 10: grad.x = a, grad.a = x.
    program = "b = 10\na*x + b"
    args = ["grad", program, "--over", "x=0:2:3", "--a", "3", "--wrt", "x,a"]
    header, rows = read_csv(ok(gradcli(*args)).stdout)
    assert header == ["x", "value", "grad.x", "grad.a"]
    assert rows.tolist() == [[0, 10, 3, 0], [1, 13, 3, 1], [2, 16, 3, 2]]


@pytest.mark.parametrize(
    "command, extra, expected",
    [
        # f = [x*y, x+y]: J_x = [y, 1], J_y = [x, 1].
        ("jacobian", [], lambda x, y: [x * y, x + y, y, 1, x, 1]),
        # v^T J with v = [2, 3]: vjp.x = 2y + 3, vjp.y = 2x + 3.
        ("vjp", ["--grad-output", "[2, 3]"], lambda x, y: [x * y, x + y, 2 * y + 3, 2 * x + 3]),
        # J t with t_x = 1 (y fixed): [y, 1].
        ("jvp", ["--tangent", "x=1"], lambda x, y: [x * y, x + y, y, 1]),
    ],
)
def test_over_every_derivative_command(gradcli, command, extra, expected):
    args = [command, "[x*y, x+y]", "--over", "x=[1, 2]", "--over", "y=[3, 4]", *extra]
    header, rows = read_csv(ok(gradcli(*args)).stdout)
    assert header[:2] == ["x", "y"]
    for row in rows:
        x, y = row[:2]
        np.testing.assert_allclose(row[2:], expected(x, y))


def test_over_hessian(gradcli):
    # f = x**3 * y: H = [[6xy, 3x^2], [3x^2, 0]].
    args = ["hessian", "x**3 * y", "--over", "x=[1, 2]", "--y", "3"]
    header, rows = read_csv(ok(gradcli(*args)).stdout)
    assert header == ["x", "value", "grad.x", "grad.y", "hessian.x.x", "hessian.x.y",
                      "hessian.y.x", "hessian.y.y"]  # fmt: skip
    assert rows.tolist() == [[1, 3, 9, 1, 18, 3, 3, 0], [2, 24, 36, 8, 36, 12, 12, 0]]


# ----------------------------------------------------------------------------
# Outputs
# ----------------------------------------------------------------------------


def test_json_lines_output(gradcli):
    out = ok(gradcli("grad", "x**2", "--over", "x=[0.5, -3]", "--format", "json")).stdout
    assert [json.loads(line) for line in out.splitlines()] == [
        {"x": 0.5, "value": 0.25, "grad.x": 1},
        {"x": -3, "value": 9, "grad.x": -6},
    ]


def test_json_lines_and_table_take_a_precision(gradcli):
    args = ["eval", "x / 3", "--over", "x=[1, 2]", "--precision", "3"]
    out = ok(gradcli(*args, "--format", "json")).stdout
    assert out == '{"x": 1, "value": 0.333}\n{"x": 2, "value": 0.667}\n'
    assert "│   2 │ 2 │  0.67 │" in ok(gradcli(*args[:-1], "2", "--format", "table")).stdout


def test_table_output_is_the_default_on_a_terminal(gradcli):
    out = ok(gradcli("eval", "x**2", "--over", "x=1:30:30", tty=True)).stdout
    lines = out.splitlines()
    assert lines[1].split("│")[1:3] == [" row ", "  x "]
    assert "│  30 │ 30 │   900 │" in out and "…" in out and out.endswith("30 rows\n")


@pytest.mark.parametrize("ending", [".npz", ".csv", ".parquet"])
def test_output_file_gets_the_rows_and_stdout_a_summary(gradcli, tmp_path, ending):
    path = tmp_path / f"out{ending}"
    result = ok(gradcli("eval", "t * 2", "--over", "t=[1, 2, 3]", "--output", path))
    assert result.stdout.startswith("3 rows in ") and result.stdout.endswith(f" s to {path}\n")
    assert path.stat().st_size > 0


def test_npz_output_holds_arrays_batch_axis_first(gradcli, tmp_path):
    path = tmp_path / "out.npz"
    args = ["grad", "t * sum(v**2)", "--over", "t=[1, 2, 3]", "--v", "[1, 2]", "--output", path]
    assert ok(gradcli(*args)).stdout.startswith("3 rows in ")
    with np.load(path) as saved:
        assert list(saved) == ["t", "value", "grad.t", "grad.v"]
        assert saved["value"].tolist() == [5, 10, 15]
        assert saved["grad.v"].tolist() == [[2, 4], [4, 8], [6, 12]]  # 2 t v


@pytest.mark.parametrize("ending", [".csv", ".parquet"])
def test_csv_and_parquet_output_files(gradcli, tmp_path, ending):
    from gradcli.core.point_files.readers import open_points

    path = tmp_path / f"out{ending}"
    args = ["grad", "t * sum(v**2)", "--over", "t=[1, 2, 3]", "--v", "[1, 2]", "--output", path]
    assert ok(gradcli(*args)).stdout.endswith(f" s to {path}\n")
    with open_points(str(path)) as reader:
        chunk = next(reader.chunks(10))
    assert list(chunk.columns) == ["t", "value", "grad.t", "grad.v[0]", "grad.v[1]"]
    assert chunk.columns["grad.v[1]"].tolist() == [4, 8, 12]


# ----------------------------------------------------------------------------
# Non-finite rows, bad rows
# ----------------------------------------------------------------------------


def test_nan_warns_with_the_row_and_strict_exits_3(gradcli, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x\n4\n-1\n9\n")
    result = ok(gradcli("grad", "sqrt(x)", "--points", path))
    assert f"warning: row 2, line 3 of {path}: value = nan, grad.x = nan" in result.stderr
    header, rows = read_csv(result.stdout)
    assert rows[0].tolist() == [4, 2, 0.25] and rows[2].tolist() == [9, 3, 1 / 6]
    assert failed(gradcli("grad", "sqrt(x)", "--points", path, "--strict"), code=3)


def test_bad_row_stops_with_file_and_line(gradcli, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x,y\n1,2\n3,oops\n4,5\n")
    message = failed(gradcli("eval", "x+y", "--points", path))
    assert message.startswith(f"error: {path} line 3: 'oops' in column y is not a number")
    path.write_text("x,y\n1,2\n3,4\n5\n")
    message = failed(gradcli("eval", "x+y", "--points", path))
    assert message.startswith(f"error: {path} line 4: 1 fields, but the header names 2 columns")


def test_skip_bad_rows_reports_which(gradcli, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x,y\n1,2\n3,oops\n4,5\n6,7,8\n")
    result = ok(gradcli("eval", "x+y", "--points", path, "--skip-bad-rows"))
    assert result.stdout == "x,y,value\n1,2,3\n4,5,9\n"
    assert result.stderr.splitlines() == [
        "warning: skipped 2 bad rows:",
        "  line 3: 'oops' in column y is not a number",
        "  line 5: 3 fields, but the header names 2 columns",
    ]


# ----------------------------------------------------------------------------
# Errors of the options
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["x+y", "--points", "{csv}", "--x", "1"],
         "x is both a column of {csv} and bound by --x: give one or the other"),
        (["x", "--over", "x=0:1", "--x", "1"], "x is both --over and bound by --x"),
        (["x+y", "--points", "{csv}", "--over", "x=0:1"], "give --points FILE or --over"),
        (["x", "--points", "{zcsv}", "--columns", "x,z"],
         "column z of {zcsv}: the program has no input named 'z'"),
        (["y", "--points", "{zcsv}"],
         "no column of {zcsv} names an input of the program: its columns are x, z; its inputs y"),
        (["x", "--points", "{csv}", "--keep", "z"], "--keep z: {csv} has no column 'z'"),
        (["x", "--points", "{csv}", "--columns", "x,q"], "--columns x,q: {csv} has no column 'q'"),
        (["x", "--points", "{csv}", "--delimiter", "ab"], "--delimiter is one character"),
        (["x", "--x", "1", "--keep", "id"], "--keep is for many points"),
        (["x", "--over", "x=0:1", "--keep", "id"], "--keep is for --points FILE"),
        (["x", "--over", "y=0:1", "--x", "1"], "--over y: the program has no input named 'y'"),
        (["x*y*w", "--points", "{csv}"], "no value for w"),
        (["x+y", "--points", "{csv}", "--format", "plain"], "--format plain is for one point"),
        (["x+y", "--points", "{csv}", "--get", "value"], "--get prints one point's numbers"),
        (["x+y", "--points", "{csv}", "--output", "o.txt"], "are written to .csv, .jsonl"),
        (["x+y", "--points", "{csv}", "--output", "o.csv", "--format", "json"],
         "--output writes the rows to a file: leave out --format json"),
        (["x", "--points", "{dir}/nothing.csv"], "cannot read {dir}/nothing.csv: no such file"),
        (["x", "--points", "{dir}/p.xls"], "unknown kind of file"),
        (["x", "--over", "x=3"], "the points must be a 1-D value"),
        (["x", "--x", "1", "--chunk-size", "5"], "--chunk-size is for many points"),
        (["x", "--x", "1", "--skip-bad-rows"], "--skip-bad-rows is for many points"),
        (["x", "--x", "1", "--format", "csv", "--precision", "3"],
         "--precision: --format csv writes every digit"),
        (["x", "--over", "x=0:1", "--skip-bad-rows"], "--skip-bad-rows is for --points FILE"),
        (["x", "--over", "x=0:1", "--format", "csv", "--precision", "3"],
         "--precision: --format csv writes every digit"),
        (["x", "--over", "x=0:1", "--output", "o.npz", "--precision", "3"],
         "--precision: --output o.npz keeps every digit"),
    ],
)  # fmt: skip
def test_option_errors(gradcli, tmp_path, args, message):
    csv = tmp_path / "p.csv"
    csv.write_text("x,y\n1,2\n")
    zcsv = tmp_path / "z.csv"
    zcsv.write_text("x,z\n1,2\n")
    names = {"csv": csv, "zcsv": zcsv, "dir": tmp_path}
    args = [a.format(**names) for a in args]
    text = failed(gradcli("eval", *args))
    # With --format json the error is a JSON object: {"error": "...", ...}.
    assert text.startswith(("error: ", '{"error": ')) and message.format(**names) in text, text


def test_steps_refused_with_many_points(gradcli):
    text = failed(gradcli("grad", "x", "--over", "x=0:1", "--steps"))
    assert text.startswith("error: --steps shows one point's reverse pass")


# ----------------------------------------------------------------------------
# Progress bar: on a terminal only
# ----------------------------------------------------------------------------

NO_DELAY = (
    "import sys, gradcli.core.point_files.progress as p; p.DELAY = 0\n"
    "from gradcli.cli import main; sys.argv = ['gradcli', *sys.argv[1:]]; main()"
)
RUN = ["grad", "x*y", "--over", "x=0:1:300", "--over", "y=0:1:10", "--chunk-size", "100"]


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", NO_DELAY, *RUN, "--output", tmp_path / "o.npz"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.startswith("3000 rows in ")


def test_progress_bar_on_a_terminal(tmp_path):
    import pty

    primary, secondary = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-c", NO_DELAY, *RUN, "--output", tmp_path / "o.npz"],
        stdout=subprocess.PIPE,
        stderr=secondary,
        env={**os.environ, "COLUMNS": "100", "TERM": "xterm"},
    )
    os.close(secondary)
    shown = b""
    while True:  # read as it comes: a full terminal buffer would block the bar
        try:
            data = os.read(primary, 65536)
        except OSError:  # the terminal's other end closed
            break
        if not data:
            break
        shown += data
    os.close(primary)
    assert process.wait(timeout=120) == 0
    process.stdout.close()
    text = shown.decode(errors="replace")
    assert "3,000 rows" in text and "rows/s" in text


def test_one_point_runs_load_no_batch_machinery():
    probe = (
        "import sys; already = set(sys.modules)\n"
        "from gradcli.cli import main; sys.argv = ['gradcli', 'grad', 'x**2', '--x', '2',"
        " '--format', 'json']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in set(sys.modules) - already"
        " if m.split('.')[0] in ('pyarrow', 'pandas') or m.startswith('gradcli.core.point_files')),"
        " file=sys.stderr)"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stderr.strip() == "[]"
    assert json.load(io.StringIO(result.stdout)) == {"value": 4, "grad": {"x": 4}}


def _modules_after_run(points, output):
    """Whether a ``--points`` run in a fresh process imported pyarrow and pandas."""
    probe = (
        "import sys\n"
        "from gradcli.cli import main\n"
        f"sys.argv = ['gradcli', 'grad', 'x*y**2', '--points', {str(points)!r},"
        f" '--output', {str(output)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('pyarrow' in sys.modules, 'pandas' in sys.modules, file=sys.stderr)"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    return result.stderr.strip()


@pytest.mark.parametrize("output", ["o.csv", "o.parquet", "o.npz"])
def test_csv_and_parquet_runs_never_import_pandas(tmp_path, output):
    pytest.importorskip("pandas", reason="pyarrow imports pandas only when it is installed")
    (tmp_path / "p.csv").write_text("x,y\n0.5,2\n-1,3\n")
    assert _modules_after_run(tmp_path / "p.csv", tmp_path / output) == "True False"
    if output == "o.parquet":  # and a Parquet file read
        pyarrow = pytest.importorskip("pyarrow.parquet")
        pyarrow.write_table(
            pyarrow.read_table(tmp_path / output).select(["x", "y"]), tmp_path / "p.parquet"
        )
        assert _modules_after_run(tmp_path / "p.parquet", tmp_path / "again.csv") == "True False"
        assert (tmp_path / "again.csv").read_text().splitlines()[1:] == [
            "0.5,2,2,4,2",
            "-1,3,-9,9,-6",
        ]


# ----------------------------------------------------------------------------
# The task of one chunk, as another process gets it
# ----------------------------------------------------------------------------


def test_points_task_pickles_and_reads_files_once(tmp_path):
    import pickle

    from gradcli.core.point_files.task import PointsTask

    np.save(tmp_path / "w.npy", np.array([1.0, -2.0]))
    task = PointsTask("grad", "sum(w * v) * t", {"w": f"@{tmp_path / 'w.npy'}"}, wrt=["t", "v"])
    assert isinstance(task.bindings["w"], np.ndarray)  # read here, not in each worker
    (tmp_path / "w.npy").unlink()
    again = pickle.loads(pickle.dumps(task))
    chunk = {"t": np.array([1.0, 3.0]), "v[0]": np.array([2.0, 0.5]), "v[1]": np.array([1.0, 4.0])}
    out = again(chunk)
    # f = t (v0 - 2 v1): grad.t = v0 - 2 v1, grad.v = t [1, -2].
    # Whole arrays, batch axis first: only the CSV and Parquet writers split them.
    assert list(out) == ["t", "v", "value", "grad.t", "grad.v"]
    assert out["value"].tolist() == [0.0, 3 * (0.5 - 8)]
    assert out["grad.t"].tolist() == [0.0, 0.5 - 8]
    assert out["grad.v"].tolist() == [[1, -2], [3, -6]]


def test_a_closed_pipe_ends_quietly(gradcli_script):
    script = f"{' '.join(gradcli_script)} eval x --over x=0:1:100000 --chunk-size 100 | head -2"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", script], capture_output=True, text=True)
    assert done.stdout == "x,value\n0,0\n"
    assert done.stderr == "" and done.returncode == 141


# ----- --scheduler: a bad address is told at once, without waiting for Dask -----


def _closed_port() -> int:
    import socket

    with socket.socket() as s:  # a port nothing listens on once it is closed
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    "address, why",
    [
        ("", "error: --scheduler needs an address, as in --scheduler tcp://host:8786"),
        ("  ", "error: --scheduler needs an address, as in --scheduler tcp://host:8786"),
        ("tcp://127.0.0.1:99999", "port 99999 is out of range (0 to 65535)"),
        ("127.0.0.1:http", "'http' is not a port number"),
        ("tcp://no-such-host.invalid:8786", "unknown host 'no-such-host.invalid'"),
        (
            "tcp://127.0.0.1:{port}",
            "connection refused: nothing listens on port {port} of 127.0.0.1",
        ),
    ],
)
def test_a_scheduler_that_cannot_be_reached_says_why(gradcli, tmp_path, monkeypatch, address, why):
    from gradcli.core.point_files import distributed

    def no_client(*args, **kwargs):  # the check comes before any Dask client waits
        raise AssertionError("Dask's client was asked to connect")

    monkeypatch.setattr(distributed, "require_dask", no_client)
    port = _closed_port()
    address, why = address.format(port=port), why.format(port=port)
    points = tmp_path / "p.csv"
    points.write_text("x\n1\n2\n")
    result = gradcli("eval", "x", "--points", points, "--scheduler", address)
    assert result.exit_code == 2
    expected = (
        why
        if why.startswith("error:")
        else f"error: cannot reach the Dask scheduler at {address}: {why}"
    )
    assert result.stderr == expected + "\n"
