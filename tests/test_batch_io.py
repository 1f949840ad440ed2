"""The batch package's parts that need no computing: flat columns and input arrays,
the readers of every --points format, the --over grid, the writers, and the chunk
loop with a task whose results are known by hand."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from gradcli.core.bindings import parse_over
from gradcli.core.point_files import run as run_module
from gradcli.core.point_files.columns import columns_from_arrays, inputs_from_columns, parse_column
from gradcli.core.point_files.grid import GridReader
from gradcli.core.point_files.progress import Progress
from gradcli.core.point_files.readers import open_points
from gradcli.errors import GradcliError
from gradcli.render.formats import open_writer
from gradcli.render.point_writers import TABLE_EDGE_ROWS

# ----------------------------------------------------------------------------
# Columns
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, expected",
    [
        ("x", ("x", ())),
        ("v[0]", ("v", (0,))),
        (" W[1, 0] ", ("W", (1, 0))),
        ("grad.v[2]", ("grad.v", (2,))),
        ("jacobian.x[1,0]", ("jacobian.x", (1, 0))),
    ],
)
def test_parse_column(name, expected):
    assert parse_column(name) == expected


@pytest.mark.parametrize("name", ["1x", "v[", "v[-1]", "v[a]", "x y", ""])
def test_parse_column_refuses_what_names_no_input(name):
    with pytest.raises(GradcliError, match="is not an input's name"):
        parse_column(name)


def test_inputs_from_columns_assembles_vectors_and_matrices():
    columns = {
        "t": np.array([1.0, 2.0]),
        "v[1]": np.array([11.0, 21.0]),
        "v[0]": np.array([10.0, 20.0]),
        "W[0,0]": np.array([1.0, 5.0]),
        "W[0,1]": np.array([2.0, 6.0]),
        "W[1,0]": np.array([3.0, 7.0]),
        "W[1,1]": np.array([4.0, 8.0]),
    }
    inputs = inputs_from_columns(columns)
    assert list(inputs) == ["t", "v", "W"]
    assert inputs["v"].tolist() == [[10, 11], [20, 21]]
    assert inputs["W"].tolist() == [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]


def test_columns_from_arrays_names_elements_row_major():
    arrays = {
        "value": np.array([1.0, 2.0]),
        "grad.v": np.array([[1.0, 2.0], [3.0, 4.0]]),
        "jacobian.x": np.arange(12.0).reshape(2, 3, 2),
    }
    columns = columns_from_arrays(arrays)
    assert list(columns) == [
        "value",
        "grad.v[0]",
        "grad.v[1]",
        *(f"jacobian.x[{i},{j}]" for i in range(3) for j in range(2)),
    ]
    assert columns["jacobian.x[2,1]"].tolist() == [5.0, 11.0]
    assert columns["grad.v[1]"].tolist() == [2.0, 4.0]
    back = inputs_from_columns(columns)
    assert all(np.array_equal(back[k], arrays[k]) for k in arrays)


@pytest.mark.parametrize(
    "names, message",
    [
        (["v[0]", "v[2]"], "no column v[1]"),
        (["x", "x[0]"], "input x is given twice: by x, x[0]"),
        (["v[0]", "v[0,1]"], "disagree on its dimensions"),
    ],
)
def test_inputs_from_columns_errors(names, message):
    columns = {name: np.zeros(2) for name in names}
    with pytest.raises(GradcliError, match=message.replace("[", r"\[").replace("]", r"\]")):
        inputs_from_columns(columns)


# ----------------------------------------------------------------------------
# Readers
# ----------------------------------------------------------------------------


def _read_all(reader, size=2):
    with reader:
        chunks = list(reader.chunks(size))
    return chunks, {n: np.concatenate([c.columns[n] for c in chunks]) for n in reader.names}


def test_csv_reader_streams_in_chunks_with_line_numbers(tmp_path):
    path = tmp_path / "p.csv"
    rows = [(i * 0.5, -i, 1e-300 * i) for i in range(7)]
    path.write_text('x, v[0], "v[1]"\n' + "".join(f"{a!r},{b},{c!r}\n" for a, b, c in rows))
    chunks, columns = _read_all(open_points(str(path)), size=2)
    assert len(chunks) >= 3  # several chunks, whole rows each
    assert [c.start for c in chunks] == list(np.cumsum([0, *map(len, chunks[:-1])]))
    assert columns["x"].tolist() == [r[0] for r in rows]
    assert columns["v[1]"].tolist() == [r[2] for r in rows]  # every digit kept
    assert np.concatenate([c.lines for c in chunks]).tolist() == list(range(2, 9))


def test_csv_reader_reads_nan_and_inf_and_skips_blank_lines(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x,y\n1,nan\n\n-inf, 2e3 \n")
    chunks, columns = _read_all(open_points(str(path)), size=100)
    assert np.isnan(columns["y"][0]) and columns["x"][1] == -np.inf and columns["y"][1] == 2000
    assert chunks[0].lines.tolist() == [2, 4]


def test_csv_parsed_in_pieces_fills_chunks_across_them(tmp_path, monkeypatch):
    from gradcli.core.point_files import text_readers

    monkeypatch.setattr(text_readers, "PARSE_ROWS", 3)  # pieces of 3 rows, chunks of 5
    path = tmp_path / "p.csv"
    lines = ["x,label"] + [f"{i},r{i}" for i in range(1, 8)] + ["", "1+2j,c"]
    lines += [f"{i},r{i}" for i in range(9, 13)] + ["oops,bad", "13,r13"]
    path.write_text("\n".join(lines) + "\n")
    reader = open_points(str(path), skip_bad_rows=True)
    reader.select(["x"], kept=["label"])
    chunks, columns = _read_all(reader, size=5)
    assert [len(c) for c in chunks] == [5, 5, 3]
    assert [c.start for c in chunks] == [0, 5, 10]
    expected = [1, 2, 3, 4, 5, 6, 7, 1 + 2j, 9, 10, 11, 12, 13]
    assert columns["x"].tolist() == expected  # complex from the piece it is met in
    assert np.concatenate([c.lines for c in chunks]).tolist() == [*range(2, 9), *range(10, 15), 16]
    labels = np.concatenate([c.kept["label"] for c in chunks]).tolist()
    assert labels == [f"r{i}" for i in range(1, 8)] + ["c"] + [f"r{i}" for i in range(9, 14)]
    assert [line for line, _ in reader.skipped] == [15]


def test_csv_bad_row_in_a_later_piece_names_its_line(tmp_path, monkeypatch):
    from gradcli.core.point_files import text_readers

    monkeypatch.setattr(text_readers, "PARSE_ROWS", 4)
    path = tmp_path / "bad.csv"
    path.write_text("x,y\n" + "1,2\n" * 9 + "3,abc\n" + "1,2\n" * 3)
    with pytest.raises(GradcliError) as caught:
        _read_all(open_points(str(path)), size=6)
    assert caught.value.message.startswith(f"{path} line 11: 'abc' in column y is not a number")


@pytest.mark.parametrize(
    "text, line, why",
    [
        ("x,y\n1,2\n3,abc\n", 3, "'abc' in column y is not a number"),
        ("x,y\n1,2\n3,4\n5\n", 4, "1 fields, but the header names 2 columns"),
        ("x,y\n1,2\n3,4,5\n", 3, "3 fields, but the header names 2 columns"),
        ("x,y\n1,2\n3,\n", 3, "'' in column y is not a number"),
        ("x,y\n1,2\n1_000,2\n", 3, "'1_000' in column x is not a number"),
    ],
)
def test_csv_bad_row_names_file_and_line(tmp_path, text, line, why):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(GradcliError) as caught:
        _read_all(open_points(str(path)), size=100)
    assert caught.value.message.startswith(f"{path} line {line}: {why}")


def test_csv_skip_bad_rows_keeps_the_rest_and_lists_the_skipped(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("x,y\n1,2\n3,abc\n4,5\n6\n7,8\n")
    reader = open_points(str(path), skip_bad_rows=True)
    chunks, columns = _read_all(reader, size=100)
    assert columns["x"].tolist() == [1, 4, 7]
    assert np.concatenate([c.lines for c in chunks]).tolist() == [2, 4, 6]
    assert [line for line, _ in reader.skipped] == [3, 5]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "is empty"),
        ("x,x\n1,2\n", "column x is named twice"),
    ],
)
def test_csv_header_errors(tmp_path, text, message):
    path = tmp_path / "p.csv"
    path.write_text(text)
    with pytest.raises(GradcliError, match=message):
        open_points(str(path))


def test_csv_columns_that_name_no_input_are_read_as_text_when_kept(tmp_path):
    # pandas' unnamed index, a name no input has, text with the delimiter in quotes.
    path = tmp_path / "p.csv"
    path.write_text(',x,2y,id\n0,1.5,007,"a, b"\n1,2,x,\n')
    reader = open_points(str(path))
    assert reader.header == ["", "x", "2y", "id"]
    reader.select(["x"], ["", "2y", "id"])
    with reader:
        (chunk,) = list(reader.chunks(10))
    assert chunk.columns["x"].tolist() == [1.5, 2]
    assert {n: c.tolist() for n, c in chunk.kept.items()} == {
        "": ["0", "1"], "2y": ["007", "x"], "id": ["a, b", ""]
    }  # fmt: skip


@pytest.mark.parametrize("delimiter", [";", "\t", "|"])
def test_csv_delimiter_is_that_of_the_header(tmp_path, delimiter):
    path = tmp_path / "p.csv"
    path.write_text(delimiter.join(["x", "y"]) + "\n" + delimiter.join(["1", "-2.5"]) + "\n")
    _, columns = _read_all(open_points(str(path)))
    assert columns["x"].tolist() == [1] and columns["y"].tolist() == [-2.5]


def test_csv_a_decimal_comma_is_named(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x;y\n1,5;2\n")
    with pytest.raises(GradcliError, match=r"'1,5' in column x is not a number \(decimals are"):
        _read_all(open_points(str(path)))


def test_csv_from_standard_input(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"x\n1\n2\n")))
    reader = open_points("-")
    assert reader.path == "standard input"
    _, columns = _read_all(reader)
    assert columns["x"].tolist() == [1, 2]


def test_jsonl_reader_takes_numbers_and_nested_lists(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"x": 1, "v": [1, 2]}\n{"x": 2.5, "v": [3, 4]}\n\n{"x": -1, "v": [5, 6]}\n')
    chunks, columns = _read_all(open_points(str(path)), size=2)
    assert columns["x"].tolist() == [1, 2.5, -1]
    assert columns["v"].tolist() == [[1, 2], [3, 4], [5, 6]]
    assert np.concatenate([c.lines for c in chunks]).tolist() == [1, 2, 4]


@pytest.mark.parametrize(
    "second, why",
    [
        ('{"x": 1, "v": [1]}', "v: shape (1,), but line 1 gave shape (2,)"),
        ('{"x": "a", "v": [1, 2]}', 'x: "a" is not a number'),
        ('{"x": 1}', "its keys x are not those of line 1: x, v"),
        ("[1, 2]", "not a JSON object"),
        ("{x: 1}", "not JSON"),
    ],
)
def test_jsonl_bad_rows(tmp_path, second, why):
    path = tmp_path / "p.jsonl"
    path.write_text('{"x": 0, "v": [0, 0]}\n' + second + "\n")
    with pytest.raises(GradcliError) as caught:
        _read_all(open_points(str(path)))
    assert caught.value.message.startswith(f"{path} line 2: {why}")


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed], ids=["stored", "compressed"])
def test_npz_reader(tmp_path, save):
    # Stored arrays are read a chunk of rows at a time from their place in the file.
    path = tmp_path / "p.npz"
    arrays = {
        "x": np.arange(5.0),
        "v": np.arange(10.0).reshape(5, 2),
        "n": np.arange(5, dtype=">i4"),
        "m": np.array([True, False, True, True, False]),
    }
    save(path, **arrays)
    reader = open_points(str(path))
    assert reader.total == 5
    chunks, columns = _read_all(reader, size=2)
    assert [len(c) for c in chunks] == [2, 2, 1]
    for name, array in arrays.items():
        assert chunks[0].columns[name].dtype == array.dtype
        assert columns[name].tolist() == array.tolist()
    assert [c.columns["v"].shape for c in chunks] == [(2, 2), (2, 2), (1, 2)]
    assert reader.empty_chunk().columns["v"].shape == (0, 2)


def test_npz_errors(tmp_path):
    path = tmp_path / "p.npz"
    np.savez(path, x=np.arange(5.0), y=np.arange(4.0))
    with pytest.raises(GradcliError, match="disagree on the number of rows"):
        open_points(str(path))
    np.savez(path, x=np.array(1.0))
    with pytest.raises(GradcliError, match="x is one number"):
        open_points(str(path))
    np.savez(path, x=np.arange(5.0))
    data = path.read_bytes()
    at = data.index(np.arange(5.0).tobytes())  # cut inside the array: a file that ends early
    path.write_bytes(data[: at + 16])
    with pytest.raises(GradcliError, match="cannot read|ends before its 5 rows"):
        _read_all(open_points(str(path)))


def test_npy_reader_with_columns(tmp_path):
    path = tmp_path / "p.npy"
    np.save(path, np.arange(12.0).reshape(6, 2))
    _, columns = _read_all(open_points(str(path), columns="x, y"), size=4)
    assert columns["y"].tolist() == [1, 3, 5, 7, 9, 11]
    with pytest.raises(GradcliError, match="name its columns with --columns"):
        open_points(str(path))
    with pytest.raises(GradcliError, match="has 2 columns but --columns names 3"):
        open_points(str(path), columns="x,y,z")


def test_parquet_reader(tmp_path):
    import pyarrow
    import pyarrow.parquet

    path = tmp_path / "p.parquet"
    table = pyarrow.table({"x": np.arange(5.0), "v[0]": np.arange(5), "v[1]": -np.arange(5.0)})
    pyarrow.parquet.write_table(table, path, row_group_size=2)
    reader = open_points(str(path))
    assert reader.total == 5
    _, columns = _read_all(reader, size=2)
    assert columns["v[0]"].tolist() == [0, 1, 2, 3, 4]
    assert columns["v[1]"].tolist() == [0, -1, -2, -3, -4]


def test_reader_errors(tmp_path):
    with pytest.raises(GradcliError, match="unknown kind of file"):
        open_points(str(tmp_path / "p.xlsx"))
    with pytest.raises(GradcliError, match="no such file"):
        open_points(str(tmp_path / "p.csv"))
    (tmp_path / "p.npz").write_bytes(b"")
    with pytest.raises(GradcliError, match="--delimiter separates the fields of a CSV file"):
        open_points(str(tmp_path / "p.npz"), delimiter=";")


# ----------------------------------------------------------------------------
# The --over grid
# ----------------------------------------------------------------------------


def test_grid_is_every_combination_first_over_slowest():
    reader = GridReader([parse_over("x=0:1:3"), parse_over("y=[10, 20]")])
    assert reader.total == 6
    chunks, columns = _read_all(reader, size=4)
    assert [len(c) for c in chunks] == [4, 2]
    assert columns["x"].tolist() == [0, 0, 0.5, 0.5, 1, 1]
    assert columns["y"].tolist() == [10, 20, 10, 20, 10, 20]
    assert reader.where(chunks[1], 1) == "point 6 of the grid (x=1, y=20)"


def test_grid_default_count_and_linspace():
    assert GridReader([parse_over("x=-2:2")]).total == 201
    _, columns = _read_all(GridReader([parse_over("x=linspace(-2, 2, 101)")]), size=1000)
    assert columns["x"][1] == pytest.approx(-2 + 4 / 100)


def test_grid_refuses_a_name_twice():
    with pytest.raises(GradcliError, match="--over x is given twice"):
        GridReader([parse_over("x=0:1"), parse_over("x=[1, 2]")])


# ----------------------------------------------------------------------------
# Writers
# ----------------------------------------------------------------------------

COLUMNS = {
    "x": np.array([0.1, 2.0, -3.0]),
    "value": np.array([1.0, np.nan, 1e300]),
    "jacobian.x[1,0]": np.array([np.inf, -0.0, 5e-324]),
}


def test_csv_writer_round_trips_every_digit(tmp_path, capsysbinary):
    with open_writer(None, "csv") as writer:
        writer.write({k: v[:2] for k, v in COLUMNS.items()})
        writer.write({k: v[2:] for k, v in COLUMNS.items()})
        writer.close()
    text = capsysbinary.readouterr().out.decode()
    lines = text.splitlines()
    assert lines[0] == 'x,value,"jacobian.x[1,0]"'
    assert lines[1] == "0.1,1,inf"
    path = tmp_path / "back.csv"
    path.write_text(text)
    _, back = _read_all(open_points(str(path)))
    for name, column in COLUMNS.items():
        np.testing.assert_array_equal(back[name], column)


def test_json_lines_writer(capsys):
    with open_writer(None, "json") as writer:
        writer.write(COLUMNS)
        writer.close()
    lines = capsys.readouterr().out.splitlines()
    assert json.loads(lines[1]) == {"x": 2, "value": "nan", "jacobian.x[1,0]": -0.0}
    assert json.loads(lines[0])["jacobian.x[1,0]"] == "inf"
    assert json.loads(lines[2]) == {"x": -3, "value": 1e300, "jacobian.x[1,0]": 5e-324}


def test_table_writer_shows_first_and_last_rows_and_the_count(capsys):
    rows = 3 * TABLE_EDGE_ROWS
    with open_writer(None, "table") as writer:
        for start in range(0, rows, 4):
            part = np.arange(start, min(start + 4, rows), dtype=float)
            writer.write({"x": part, "value": part**2})
        writer.close()
    out = capsys.readouterr().out
    cells = [line.split("│")[1].strip() for line in out.splitlines() if line.count("│") == 4]
    shown = [int(cell) for cell in cells if cell.isdigit()]
    assert shown == [*range(1, TABLE_EDGE_ROWS + 1), *range(rows - TABLE_EDGE_ROWS + 1, rows + 1)]
    assert "…" in out and f"{rows} rows" in out
    assert f"│ {rows:>3} │ {rows - 1:>2} │ {(rows - 1) ** 2:>5} │" in out


def test_table_writer_with_few_rows_shows_each_once(capsys):
    with open_writer(None, "table") as writer:
        writer.write({"x": np.arange(7.0)})
        writer.close()
    out = capsys.readouterr().out
    assert [line.split("│")[1].strip() for line in out.splitlines() if "│" in line][1:] == [
        str(i) for i in range(1, 8)
    ]
    assert "…" not in out and "7 rows" in out


@pytest.mark.parametrize("rows", [None, 4], ids=["rows unknown", "rows known"])
def test_npz_writer_writes_arrays_batch_axis_first(tmp_path, rows):
    path = tmp_path / "out.npz"
    with open_writer(str(path), None, rows=rows) as writer:
        for start in (0, 2):
            writer.write(
                {
                    "x": np.arange(start, start + 2.0),
                    "grad.v[0]": np.arange(start, start + 2.0),
                    "grad.v[1]": -np.arange(start, start + 2.0),
                }
            )
        writer.close()
    assert zipfile.ZipFile(path).namelist() == ["x.npy", "grad.v.npy"]
    with np.load(path) as saved:
        assert saved["x"].tolist() == [0, 1, 2, 3]
        assert saved["grad.v"].tolist() == [[0, 0], [1, -1], [2, -2], [3, -3]]
    assert [p.name for p in tmp_path.iterdir()] == ["out.npz"]  # no part files left
    assert zipfile.ZipFile(path).testzip() is None  # every CRC right


def test_npz_writer_refuses_rows_other_than_announced(tmp_path):
    path = tmp_path / "out.npz"
    chunk = {"x": np.arange(3.0)}
    for announced, message in ((7, "fewer than the 7 rows"), (5, "more than the 5 rows")):
        with (
            pytest.raises(GradcliError, match=message),
            open_writer(str(path), None, rows=announced) as writer,
        ):
            writer.write(chunk)
            writer.write(chunk)
            writer.close()
        assert not path.exists()
    with (
        pytest.raises(GradcliError, match="array x differs"),
        open_writer(str(path), None, rows=6) as writer,
    ):
        writer.write(chunk)
        writer.write({"x": np.arange(3)})


def test_parquet_and_csv_output_files(tmp_path):
    for name in ("out.parquet", "out.csv"):
        path = tmp_path / name
        with open_writer(str(path), None) as writer:
            writer.write({k: v[:1] for k, v in COLUMNS.items()})
            writer.write({k: v[1:] for k, v in COLUMNS.items()})
            writer.close()
        _, back = _read_all(open_points(str(path)))
        assert list(back) == list(COLUMNS)
        for key, column in COLUMNS.items():
            np.testing.assert_array_equal(back[key], column)


def test_writer_errors(tmp_path):
    with pytest.raises(GradcliError, match="written to .csv, .jsonl, .ndjson, .npz, .parquet"):
        open_writer(str(tmp_path / "out.txt"), None)
    with pytest.raises(GradcliError, match="--format plain: many points are written as csv"):
        open_writer(None, "plain")
    with pytest.raises(GradcliError, match="cannot write"):
        open_writer(str(tmp_path / "no" / "out.npz"), None)


# ----------------------------------------------------------------------------
# The chunk loop, with a task known by hand: value = x * y
# ----------------------------------------------------------------------------


def product(chunk):
    with np.errstate(invalid="ignore"):  # inf * 0
        return {**chunk, "value": chunk["x"] * chunk["y"]}


class Recorder:
    """An executor that computes in order and remembers how many chunks it saw."""

    def __init__(self):
        self.chunks = 0

    def map(self, task, chunks):
        for chunk in chunks:
            self.chunks += 1
            yield task(chunk)


def test_run_streams_every_chunk_in_order(tmp_path, capsysbinary):
    path = tmp_path / "p.csv"
    path.write_text("x,y\n" + "".join(f"{i},{i % 3}\n" for i in range(50)))
    executor = Recorder()
    warnings = []
    with open_points(str(path)) as reader, open_writer(None, "csv") as writer:
        summary = run_module.run(
            reader, product, writer, chunk_size=7, executor=executor, warn=warnings.append
        )
    assert executor.chunks >= 5
    lines = capsysbinary.readouterr().out.decode().splitlines()
    assert lines[0] == "x,y,value"
    assert lines[1:] == [f"{i},{i % 3},{i * (i % 3)}" for i in range(50)]
    assert summary.rows == 50 and summary.nonfinite == 0 and not warnings


def _points_file(path, x, y):
    """``x`` and ``y`` as a file of the kind ``path`` names, and its ``--columns``."""
    kind = path.suffix
    if kind == ".csv":
        path.write_text("x,y\n" + "".join(f"{a!r},{b!r}\n" for a, b in zip(x.tolist(), y.tolist())))
    elif kind == ".npz":
        np.savez(path, x=x, y=y)
    elif kind == ".npy":
        np.save(path, np.column_stack([x, y]))
        return "x,y"
    else:
        import pyarrow
        import pyarrow.parquet

        pyarrow.parquet.write_table(pyarrow.table({"x": x, "y": y}), path, row_group_size=7)
    return None


@pytest.mark.parametrize("kind", ["csv", "npz", "npy", "parquet"])
def test_run_lets_go_of_a_chunk_once_it_is_written(tmp_path, capsysbinary, kind):
    # Memory holds one chunk's arrays: while a chunk is read and computed, the one written
    # before it (its columns as read, its results) is held by nothing.
    import gc
    import weakref

    path = tmp_path / f"p.{kind}"
    columns = _points_file(path, np.arange(30.0), np.arange(30.0) % 3)
    earlier = []

    def watched(chunk):
        gc.collect()  # a cycle is not what would hold it
        assert all(ref() is None for ref in earlier)
        result = {**chunk, "value": chunk["x"] * chunk["y"]}
        earlier[:] = [weakref.ref(a) for a in result.values()]
        return result

    with open_points(str(path), columns) as reader, open_writer(None, "csv") as writer:
        summary = run_module.run(reader, watched, writer, chunk_size=7)
    assert summary.rows == 30 and len(earlier) == 3


def test_a_run_keeps_the_pages_chunks_free_unless_malloc_is_tuned(monkeypatch):
    import ctypes
    import os
    import sys

    from gradcli.core.point_files.budget import keep_freed_pages

    calls = []

    class Libc:
        def __init__(self, name):
            def mallopt(parameter, value):
                calls.append((parameter, value))

            self.mallopt = mallopt

    monkeypatch.setattr(ctypes, "CDLL", Libc)
    monkeypatch.setattr(sys, "platform", "linux")
    for name in os.environ:
        if name.startswith("MALLOC_") or name == "GLIBC_TUNABLES":
            monkeypatch.delenv(name)
    keep_freed_pages()
    # glibc's malloc.h: M_MMAP_THRESHOLD is -3, M_TRIM_THRESHOLD is -1.
    assert sorted(calls) == [(-3, 16 * 2**20), (-1, 32 * 2**20)]
    for name in ("MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES"):
        calls.clear()
        with monkeypatch.context() as patched:
            patched.setenv(name, "glibc.malloc.trim_threshold=0" if "TUN" in name else "0")
            keep_freed_pages()
        assert calls == []


def test_run_warns_of_nonfinite_rows_by_line(tmp_path, capsysbinary):
    path = tmp_path / "p.csv"
    path.write_text("x,y\n1,2\n\ninf,0\n3,nan\n")
    warnings = []
    with open_points(str(path)) as reader, open_writer(None, "csv") as writer:
        summary = run_module.run(reader, product, writer, warn=warnings.append)
    assert summary.nonfinite == 2
    assert warnings == [
        f"warning: row 2, line 4 of {path}: value = nan",
        f"warning: row 3, line 5 of {path}: value = nan",
    ]


def test_run_counts_warnings_beyond_the_first_few(capsysbinary):
    def quotient(chunk):
        with np.errstate(divide="ignore"):
            return {**chunk, "value": chunk["y"] / chunk["x"]}

    reader = GridReader([parse_over("x=[0]"), parse_over("y=linspace(1, 2, 25)")])
    warnings = []
    with open_writer(None, "csv") as writer:
        summary = run_module.run(reader, quotient, writer, chunk_size=4, warn=warnings.append)
    assert summary.nonfinite == 25
    assert len(warnings) == run_module.SHOWN_WARNINGS + 1
    assert warnings[0] == "warning: point 1 of the grid (x=0, y=1): value = inf"
    assert warnings[-1] == "warning: 25 rows in all have a nan or infinite result"


def test_run_names_the_row_of_an_error_of_one_row(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x,y\n" + "".join(f"{i},1\n" for i in range(10)))

    def failing(chunk):
        if chunk["x"][0] >= 4:
            error = GradcliError("the matrix is singular at point 1")
            error.row = 1
            raise error
        return product(chunk)

    out = tmp_path / "out.npz"
    with open_points(str(path)) as reader, open_writer(str(out), None) as writer:
        with pytest.raises(GradcliError) as caught:
            run_module.run(reader, failing, writer, chunk_size=4)
    assert caught.value.message == f"the matrix is singular at row 6, line 7 of {path}"
    assert not out.exists()  # a failed run leaves no half-written file


def test_run_of_no_rows_still_writes_the_header(tmp_path, capsysbinary):
    path = tmp_path / "p.csv"
    path.write_text("x,y\n")
    with open_points(str(path)) as reader, open_writer(None, "csv") as writer:
        summary = run_module.run(reader, product, writer)
    assert summary.rows == 0
    assert capsysbinary.readouterr().out.decode() == "x,y,value\n"


# ----------------------------------------------------------------------------
# Progress
# ----------------------------------------------------------------------------


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_absent_off_a_terminal():
    stream = io.StringIO()
    progress = Progress(100, stream=stream, delay=0)
    progress.update(50, 50)
    progress.close()
    assert not progress.enabled and stream.getvalue() == ""


def test_progress_shows_on_a_terminal_after_the_delay():
    stream = FakeTerminal()
    progress = Progress(100, stream=stream, delay=0)
    progress.update(50, 50)
    progress.close()
    assert "50 rows" in stream.getvalue() and "rows/s" in stream.getvalue()
    quiet = FakeTerminal()
    progress = Progress(100, stream=quiet, delay=3600)  # a short run: no bar
    progress.update(50, 50)
    progress.close()
    assert quiet.getvalue() == ""


def test_the_command_line_default_chunk_size_is_the_package_s():
    from gradcli.cli import cli
    from gradcli.core.point_files.source import DEFAULT_CHUNK_SIZE

    option = next(p for p in cli.commands["grad"].params if p.name == "chunk_size")
    assert option.default == DEFAULT_CHUNK_SIZE


def test_csv_header_of_many_columns_is_checked_for_repeats_in_linear_time(tmp_path):
    # 10^5 columns: a check against every earlier name would make 5 * 10^9 comparisons.
    names = [f"x{i}" for i in range(100_000)]
    path = tmp_path / "wide.csv"
    path.write_text(",".join([*names, "x99999"]) + "\n" + ",".join(["1"] * 100_001) + "\n")
    with pytest.raises(GradcliError, match="column x99999 is named twice"):
        open_points(str(path))


# ----- a file that cannot be read says what is wrong with it -----


def _not_a_file(tmp_path, kind):
    """A path at which no regular file stands, for ``--points`` and ``@``."""
    import os

    path = tmp_path / f"p-{kind}.csv"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        os.symlink("/dev/zero", path)
    elif kind == "loop":
        os.symlink(path, path)
    elif kind == "dangling":
        os.symlink(tmp_path / "gone.csv", path)
    return path


@pytest.mark.parametrize(
    "kind, why",
    [
        ("fifo", "it is a FIFO (a named pipe), not a regular file; give a file, or - to read"),
        ("device", "it is a device, not a regular file"),
        ("loop", "a loop of symbolic links"),
        ("dangling", "a symbolic link to a file that does not exist"),
    ],
)
def test_points_that_are_no_regular_file_are_refused_before_opening(tmp_path, kind, why):
    path = _not_a_file(tmp_path, kind)
    with pytest.raises(GradcliError) as caught:
        open_points(str(path))  # a FIFO with no writer would block here if opened
    assert caught.value.message.startswith(f"cannot read {path}: {why}")


PICKLE = "it holds Python objects (a pickle), and gradcli never unpickles files"


def _broken(tmp_path, kind):
    import pickle

    good = tmp_path / "good.npy"
    np.save(good, np.ones((4, 2)))
    path = tmp_path / {"parquet": "p.parquet", "npz": "p.npz"}.get(kind, "p.npy")
    if kind == "objects":
        np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    elif kind == "pickle":
        path.write_bytes(pickle.dumps({"a": 1}))
    elif kind == "text":
        path.write_text("1 2\n3 4\n")
    elif kind == "truncated":
        path.write_bytes(good.read_bytes()[:-10])
    elif kind == "npz":
        path.write_text("not a zip, in fact")
    else:
        path.write_text("not parquet" * 100)
    return path


@pytest.mark.parametrize(
    "kind, why",
    [
        ("objects", PICKLE),
        ("pickle", PICKLE),
        ("text", "not a .npy file (it does not start with NumPy's magic string)"),
        ("truncated", "the file is shorter than its header says"),
        ("npz", "not a .npz file (no zip archive, or one cut short)"),
        ("parquet", "not a Parquet file (its end is no Parquet footer)"),
    ],
)
def test_a_broken_points_file_is_told_in_gradclis_words(tmp_path, kind, why):
    path = _broken(tmp_path, kind)
    with pytest.raises(GradcliError) as caught:
        open_points(str(path), columns="x,y" if path.suffix == ".npy" else None)
    assert caught.value.message == f"cannot read {path}: {why}"
    assert "allow_pickle" not in caught.value.message and "pickle.load" not in why


def test_a_line_longer_than_a_block_is_read_and_a_long_bad_field_named_for_its_length(tmp_path):
    import csv

    path = tmp_path / "long.csv"
    # Longer than pyarrow's block of 1 MiB: read, not "not UTF-8 CSV text".
    path.write_text("x\n1\n" + "1" * 2**21 + "\n")
    _, columns = _read_all(open_points(str(path)))
    assert columns["x"].tolist() == [1, float("inf")]  # what float() makes of 2**21 digits
    path.write_text("x\n1\n" + "a" * 2**21 + "\n")
    with pytest.raises(GradcliError) as caught:
        _read_all(open_points(str(path)))
    assert caught.value.message.startswith(
        f"{path} line 3: a field longer than {csv.field_size_limit():,} characters"
    )
    path.write_text("x" * (csv.field_size_limit() + 10) + "\n1\n")  # in the header
    with pytest.raises(GradcliError, match="line 1: a field longer than"):
        open_points(str(path))
