"""gradcli.core.bindings: the command line's binding forms and the @FILE loaders."""

import json

import numpy as np
import pytest

from gradcli.core.bindings import extract, split_assignment
from gradcli.core.values import load_file
from gradcli.errors import GradcliError

TAKES_VALUE = {"--format", "--seed", "-f", "--file", "--var", "--wrt"}
FLAGS = {"--strict", "--debug", "--help"}


def rewrite(*args):
    return extract(list(args), TAKES_VALUE, FLAGS)


# ----- --name VALUE, --name=VALUE, --var name=VALUE -----


@pytest.mark.parametrize(
    "args, expected",
    [
        (["e", "--x", "2"], ["e", "--var", "x=2"]),
        (["e", "--x=2"], ["e", "--var", "x=2"]),
        (["--x", "2", "e"], ["--var", "x=2", "e"]),
        (["e", "--x", "-1.5e3"], ["e", "--var", "x=-1.5e3"]),
        (["e", "--x", "-inf"], ["e", "--var", "x=-inf"]),
        (["e", "--x", "--y"], ["e", "--var", "x=--y"]),
        (["e", "--θ", "pi/4"], ["e", "--var", "θ=pi/4"]),
        (["e", "--x=a=b"], ["e", "--var", "x=a=b"]),
        (["e", "--var", "x=2"], ["e", "--var", "x=2"]),
        (["e", "--format", "json", "--x", "1"], ["e", "--format", "json", "--var", "x=1"]),
        # an option's value is never taken for a binding
        (["e", "--wrt", "--x"], ["e", "--wrt", "--x"]),
        (["e", "-f", "--x"], ["e", "-f", "--x"]),
        (["e", "--format=json", "--strict"], ["e", "--format=json", "--strict"]),
        (["e", "--", "--x", "2"], ["e", "--", "--x", "2"]),
        # not a name: left for Click to report as an unknown option
        (["e", "--no-such", "2"], ["e", "--no-such", "2"]),
        (["-"], ["-"]),
    ],
)
def test_extract(args, expected):
    assert rewrite(*args) == expected


def test_binding_without_value():
    with pytest.raises(GradcliError, match="--x needs a value"):
        rewrite("e", "--x")


@pytest.mark.parametrize(
    "text, expected",
    [("x=2", ("x", "2")), ("x=[1, 2]", ("x", "[1, 2]")), (" y =a==b", ("y", "a==b"))],
)
def test_split_assignment(text, expected):
    assert split_assignment(text) == expected


@pytest.mark.parametrize("text", ["x", "=2", "1x=2", "a-b=3"])
def test_split_assignment_rejects(text):
    with pytest.raises(GradcliError, match="--var"):
        split_assignment(text)


# ----- @FILE -----


def test_npy(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(load_file(str(path)), [[0, 1, 2], [3, 4, 5]])


def test_npy_never_unpickles(tmp_path):
    path = tmp_path / "objects.npy"
    np.save(path, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    with pytest.raises(GradcliError, match="never unpickles"):
        load_file(str(path))


def test_npy_corrupt(tmp_path):
    path = tmp_path / "bad.npy"
    path.write_bytes(b"not numpy at all")
    with pytest.raises(GradcliError, match="not a .npy file"):
        load_file(str(path))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1, 2, 3\n", [1, 2, 3]),
        ("1 2 3\n4 5 6\n", [[1, 2, 3], [4, 5, 6]]),
        ("# header\n1,2\n\n3,\t4\n", [[1, 2], [3, 4]]),
        ("1\n2\n3\n", [1, 2, 3]),
        ("2.5\n", [2.5]),
        ("1e-3, nan, -inf\n", [1e-3, np.nan, -np.inf]),
        ("\ufeff1,2\r\n3,4\r\n", [[1, 2], [3, 4]]),  # a byte-order mark, Windows lines
        ("1,2,\n3,4,\n", [[1, 2], [3, 4]]),  # a trailing comma ends a row
    ],
)
@pytest.mark.parametrize("suffix", [".csv", ".txt"])
def test_text_tables(tmp_path, text, expected, suffix):
    path = tmp_path / f"data{suffix}"
    path.write_text(text)
    np.testing.assert_array_equal(load_file(str(path)), np.array(expected, dtype=float))


@pytest.mark.parametrize(
    "text, message",
    [
        ("1, 2\n3\n", "line 2 has 1 number, but the first row has 2 numbers"),
        ("1,,2\n", "line 1: an empty field"),
        (",1\n", "line 1: an empty field"),
        ("1, two\n", "line 1: 'two' is not a number"),
        ("# nothing\n", "holds no numbers"),
    ],
)
def test_text_table_errors(tmp_path, text, message):
    path = tmp_path / "data.csv"
    path.write_text(text)
    with pytest.raises(GradcliError, match=message):
        load_file(str(path))


@pytest.mark.parametrize(
    "data, expected",
    [
        (3, 3.0),
        ([1, 2], [1, 2]),
        ([[1, 2], [3, 4.5]], [[1, 2], [3, 4.5]]),
        (["nan", "inf", "-inf", 1], [np.nan, np.inf, -np.inf, 1]),
    ],
)
def test_json(tmp_path, data, expected):
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data))
    np.testing.assert_array_equal(load_file(str(path)), np.array(expected, dtype=float))


@pytest.mark.parametrize(
    "text, message",
    [
        ("[[1, 2], [3]]", "ragged"),
        ('{"a": 1}', "found dict"),
        ('["a"]', "found the string 'a'"),
        ("[true]", "found bool"),
        ("[null]", "found null"),
        ("[1, ", "invalid JSON at line 1"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("[" * 70 + "1" + "]" * 70, "more dimensions than NumPy's 64"),
    ],
)
def test_json_errors(tmp_path, text, message):
    path = tmp_path / "data.json"
    path.write_text(text)
    with pytest.raises(GradcliError, match=message):
        load_file(str(path))


def test_at_without_a_file_name():
    with pytest.raises(GradcliError, match="@ needs a file name"):
        load_file("", name="--x")


def test_json_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "data.json"
    path.write_text("\ufeff[1, 2]", encoding="utf-8")
    np.testing.assert_array_equal(load_file(str(path)), [1.0, 2.0])


def test_a_tilde_is_the_home_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "v.json").write_text("[1, 2]")
    np.testing.assert_array_equal(load_file("~/v.json"), [1.0, 2.0])


def test_unknown_suffix(tmp_path):
    path = tmp_path / "data.pkl"
    path.write_bytes(b"\x80\x04")
    with pytest.raises(GradcliError, match="'.pkl' are not supported; use .npy, .npz, .csv"):
        load_file(str(path))


def test_missing_file(tmp_path):
    with pytest.raises(GradcliError, match="no such file"):
        load_file(str(tmp_path / "absent.npy"), name="x")


def test_directory(tmp_path):
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(GradcliError, match="it is a directory"):
        load_file(str(tmp_path / "dir.csv"))


@pytest.mark.parametrize("text", ["2", "-1.5e3", "+.5", "2.", "1E-7", "0", "-0", "123456789012"])
def test_plain_numbers_mean_what_the_language_says(text):
    import gradcli
    from gradcli.core.values import parse_value
    from gradcli.language import evaluate_constant

    before = gradcli.get_default_dtype()
    gradcli.set_default_dtype(gradcli.float64)
    try:
        expected = evaluate_constant(text)
    finally:
        gradcli.set_default_dtype(before)
    value = parse_value(text, name="--x")
    assert value.shape == np.shape(expected)
    assert float(value) == float(expected)
    assert np.signbit(value) == np.signbit(expected)


def test_at_a_fifo_or_a_device_is_refused_without_blocking(tmp_path):
    import os

    fifo = tmp_path / "pipe.npy"
    os.mkfifo(fifo)  # no writer: opening it would wait forever
    with pytest.raises(GradcliError) as caught:
        load_file(str(fifo), name="--x")
    assert caught.value.message.startswith(
        f"cannot read --x from @{fifo}: it is a FIFO (a named pipe), not a regular file"
    )
    device = tmp_path / "zero.csv"
    os.symlink("/dev/zero", device)
    with pytest.raises(GradcliError, match="it is a device, not a regular file"):
        load_file(str(device))
    loop = tmp_path / "loop.npy"
    os.symlink(loop, loop)
    with pytest.raises(GradcliError, match="a loop of symbolic links"):
        load_file(str(loop))


def test_a_pickle_or_a_truncated_npy_says_what_the_file_is(tmp_path):
    import pickle

    path = tmp_path / "raw.npy"
    path.write_bytes(pickle.dumps([1, 2]))
    with pytest.raises(GradcliError) as caught:
        load_file(str(path))
    assert caught.value.message.endswith(
        "it holds Python objects (a pickle), and gradcli never unpickles files"
    )
    np.save(path, np.arange(10.0))
    path.write_bytes(path.read_bytes()[:-16])
    with pytest.raises(GradcliError, match="the file is shorter than its header says$"):
        load_file(str(path))
