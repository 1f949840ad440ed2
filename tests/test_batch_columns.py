"""Files of points as they come: columns that bind no input (an ``id``, pandas' unnamed
index, a label) are copied to the output rows unchanged, ``--keep`` chooses which,
``--columns`` which bind inputs, the delimiter is found (or ``--delimiter``), and
``jsonl`` names JSON lines. Expected numbers are by hand: f = x**2 * y, df/dx = 2xy,
df/dy = x**2."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import numpy as np
import pytest

POINTS = 'id,x,y,label\n007,0.5,1,first\nb2,1,2,"with, comma"\nc3,2,-1,\n'
ROWS = [  # id, x, y, label, f, df/dx, df/dy
    ["007", "0.5", "1", "first", "0.25", "1", "0.25"],
    ["b2", "1", "2", "with, comma", "2", "4", "1"],
    ["c3", "2", "-1", "", "-4", "-4", "4"],
]


def ok(result):
    assert result.exit_code == 0, result.output
    return result


def failed(result, code=2):
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result.stderr


@pytest.fixture
def points(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(POINTS)
    return path


def test_other_columns_pass_through_unchanged_in_their_place(gradcli, points):
    out = ok(gradcli("grad", "x**2*y", "--points", points)).stdout
    assert out.splitlines()[0] == "id,x,y,label,value,grad.x,grad.y"
    assert list(csv.reader(io.StringIO(out)))[1:] == ROWS
    assert '"with, comma"' in out and "\nb2," in out  # quoted only where CSV needs it


def test_keep_chooses_the_columns_copied(gradcli, points):
    out = ok(gradcli("grad", "x**2*y", "--points", points, "--keep", "label")).stdout
    assert out.splitlines()[:2] == ["x,y,label,value,grad.x,grad.y", "0.5,1,first,0.25,1,0.25"]
    none = ok(gradcli("grad", "x**2*y", "--points", points, "--keep", "")).stdout
    assert none.splitlines()[:2] == ["x,y,value,grad.x,grad.y", "0.5,1,0.25,1,0.25"]


def test_kept_text_in_json_lines_parquet_and_a_table(gradcli, points, tmp_path):
    lines = ok(gradcli("grad", "x**2*y", "--points", points, "--format", "jsonl")).stdout
    rows = [json.loads(line) for line in lines.splitlines()]
    assert rows[0] == {"id": "007", "x": 0.5, "y": 1, "label": "first", "value": 0.25,
                       "grad.x": 1, "grad.y": 0.25}  # fmt: skip
    assert [r["label"] for r in rows] == ["first", "with, comma", ""]
    ok(gradcli("grad", "x**2*y", "--points", points, "--output", tmp_path / "o.jsonl"))
    assert (tmp_path / "o.jsonl").read_text() == lines
    pyarrow = pytest.importorskip("pyarrow.parquet")
    ok(gradcli("grad", "x**2*y", "--points", points, "--output", tmp_path / "o.parquet"))
    table = pyarrow.read_table(tmp_path / "o.parquet")
    assert table.column_names == ["id", "x", "y", "label", "value", "grad.x", "grad.y"]
    assert table.column("id").to_pylist() == ["007", "b2", "c3"]
    assert table.column("grad.x").to_pylist() == [1, 4, -4]
    shown = ok(gradcli("grad", "x**2*y", "--points", points, "--format", "table")).stdout
    assert "│ 007 │" in shown and "with, comma" in shown


def test_an_npz_output_keeps_numbers_only_and_says_so(gradcli, points, tmp_path):
    result = ok(gradcli("grad", "x**2*y", "--points", points, "--output", tmp_path / "o.npz"))
    assert "note: " in result.stderr and "columns id, label of" in result.stderr
    with np.load(tmp_path / "o.npz") as saved:
        assert sorted(saved.files) == ["grad.x", "grad.y", "value", "x", "y"]
        assert saved["grad.y"].tolist() == [0.25, 1, 4]
    message = failed(gradcli("grad", "x**2*y", "--points", points, "--keep", "id",
                             "--output", tmp_path / "o.npz"))  # fmt: skip
    assert "--keep: " in message and "holds arrays of numbers" in message


def test_columns_chooses_the_inputs_of_a_csv(gradcli, points):
    # y from the option: the file's y is neither an input nor copied (it is not the y used).
    out = ok(gradcli("grad", "x**2*y", "--points", points, "--columns", "x", "--y", "3")).stdout
    assert out.splitlines()[:2] == ["id,x,label,value,grad.x,grad.y", "007,0.5,first,0.75,3,0.25"]
    message = failed(gradcli("grad", "x**2*y", "--points", points, "--y", "3"))
    assert "y is both a column of" in message and "--columns picks those that do" in message


@pytest.mark.parametrize(
    "text, args",
    [
        ("id;x;y\n007;0.5;1\nb2;1;2\n", []),
        ("id\tx\ty\n007\t0.5\t1\nb2\t1\t2\n", []),
        ("id|x|y\n007|0.5|1\nb2|1|2\n", ["--delimiter", "|"]),
        ("id;x;y\n007;0.5;1\nb2;1;2\n", ["--delimiter", ";"]),
    ],
)
def test_the_delimiter_is_found_or_given(gradcli, tmp_path, text, args):
    path = tmp_path / "p.csv"
    path.write_text(text)
    out = ok(gradcli("grad", "x**2*y", "--points", path, *args)).stdout
    assert out.splitlines() == ["id,x,y,value,grad.x,grad.y", "007,0.5,1,0.25,1,0.25",
                                "b2,1,2,2,4,1"]  # fmt: skip


def test_a_tab_delimiter_by_name(gradcli, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x,y\n1,2\n")  # the header says comma; --delimiter says otherwise
    message = failed(gradcli("grad", "x**2*y", "--points", path, "--delimiter", "tab"))
    assert "no column of" in message and "its columns are x,y" in message


def test_a_typo_in_a_column_name_is_named(gradcli, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("xx,y\n1,2\n")
    message = failed(gradcli("grad", "x**2*y", "--points", path))
    assert f"no value for x: column xx of {path} binds no input (did you mean x?)" in message


def test_an_input_column_that_columns_leaves_out_is_named(gradcli, points):
    # Before: "column y of p.csv binds no input (did you mean y?)", y for y.
    message = failed(gradcli("grad", "x**2*y", "--points", points, "--columns", "x"))
    assert message == (
        f"error: no value for y: --columns x leaves out column y of {points}: "
        "add it (--columns x,y), or bind y with --y VALUE\n"
    )


def test_a_column_named_like_a_result_is_refused(gradcli, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x,value\n2,9\n")
    message = failed(gradcli("eval", "x**2", "--points", path))
    assert f"column value of {path} is named like a result" in message
    assert ok(gradcli("eval", "x**2", "--points", path, "--keep", "")).stdout == "x,value\n2,4\n"


def test_other_formats_keep_their_other_columns(gradcli, tmp_path):
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text('{"id": "a", "x": 2, "n": 7}\n{"id": "b", "x": 3, "n": null}\n')
    out = ok(gradcli("eval", "x**2", "--points", jsonl)).stdout
    assert out.splitlines() == ["id,x,n,value", "a,2,7,4", "b,3,null,9"]
    # JSON lines give JSON's own values back as they were: 7 and null, not "7" and "null".
    back = ok(gradcli("eval", "x**2", "--points", jsonl, "--format", "jsonl")).stdout
    assert [json.loads(line)["n"] for line in back.splitlines()] == [7, None]
    npz = tmp_path / "p.npz"
    np.savez(npz, x=np.array([2.0, 3.0]), run=np.array([10, 11]))
    assert ok(gradcli("eval", "x**2", "--points", npz)).stdout == "x,run,value\n2,10,4\n3,11,9\n"
    parquet = pytest.importorskip("pyarrow.parquet")
    table = pytest.importorskip("pyarrow").table(
        {"name": ["a", None], "x": [2.0, 3.0], "n": [12345678901234567, 8]}
    )
    parquet.write_table(table, tmp_path / "p.parquet")
    out = ok(gradcli("eval", "x**2", "--points", tmp_path / "p.parquet")).stdout
    assert out.splitlines() == ["name,x,n,value", "a,2,12345678901234567,4", ",3,8,9"]
    # A column with nulls in some row group is text in every chunk (one type throughout).
    nulls = pytest.importorskip("pyarrow").table({"n": [1.5, None], "x": [2.0, 3.0]})
    parquet.write_table(nulls, tmp_path / "q.parquet", row_group_size=1)
    ok(gradcli("eval", "x**2", "--points", tmp_path / "q.parquet", "--chunk-size", "1",
               "--output", tmp_path / "o.parquet"))  # fmt: skip
    assert parquet.read_table(tmp_path / "o.parquet").column("n").to_pylist() == ["1.5", None]


def test_kept_text_in_a_real_process_never_imports_pandas(tmp_path, points, gradcli_script):
    pytest.importorskip("pandas", reason="pyarrow imports pandas only when it is installed")
    probe = (
        "import sys\n"
        "from gradcli.cli import main\n"
        f"sys.argv = ['gradcli', 'grad', 'x**2*y', '--points', {str(points)!r},"
        f" '--output', {str(tmp_path / 'o.parquet')!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('pandas' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stderr.strip() == "False"
    done = subprocess.run([*gradcli_script, "grad", "x**2*y", "--points", str(points)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert list(csv.reader(io.StringIO(done.stdout)))[1:] == ROWS
