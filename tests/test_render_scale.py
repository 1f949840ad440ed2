"""Large outputs: plain and JSON write every number exactly as before, in bulk, and read
back to the same array; a table of any size is a summary."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from gradcli import api
from gradcli.render import Format, render
from gradcli.render.numbers import flat_text, format_number


def _awkward_numbers():
    """Every magnitude float64 has, the edges where notation switches, signed zeros,
    whole numbers, subnormals, and the non-finite ones."""
    rng = np.random.default_rng(7)
    with np.errstate(over="ignore"):  # some overflow to inf: more non-finite numbers
        spread = rng.standard_normal(20000) * 10.0 ** rng.integers(-320, 309, 20000)
    edges = np.array([1e-4, 1e16, 1e15, 1e-5, 2.0**53, 2.0**53 + 2, 5e-324, 1.7976931348623157e308])
    near_edges = np.concatenate([np.nextafter(edges, 0), np.nextafter(edges, np.inf)])
    special = np.array([0.0, -0.0, 0.1, 1 / 3, -19.0, 100.0, np.nan, np.inf, -np.inf])
    whole = rng.integers(-(10**6), 10**6, 2000).astype(float)
    return np.concatenate([spread, edges, near_edges, special, whole])


def _result(value):
    return api.evaluate("x", {"x": value})


def test_plain_numbers_are_each_numbers_text():
    values = _awkward_numbers()
    # format_number writes each number on its own, by NumPy's float formatting.
    assert flat_text(values).split(" ") == [format_number(v) for v in values]


def test_plain_output_reads_back_exactly():
    values = _awkward_numbers()[: 7 * 3000].reshape(-1, 7)
    stream = io.StringIO()
    render(_result(values), Format.PLAIN, stream)
    name, *numbers = stream.getvalue().rstrip("\n").split(" ")
    assert name == "value"
    back = np.array([float(t) for t in numbers]).reshape(values.shape)
    np.testing.assert_array_equal(back, values)  # nan where nan, and every bit the same
    assert np.array_equal(np.signbit(back), np.signbit(values))


@pytest.mark.parametrize("shape", [(-1,), (-1, 7), (7, -1, 3), (1, -1, 1)])
def test_json_output_reads_back_exactly(shape):
    values = _awkward_numbers()[: 7 * 3 * 1000].reshape(shape)
    stream = io.StringIO()
    render(_result(values), Format.JSON, stream)
    words = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf}

    def number(node):
        return words[node] if isinstance(node, str) else float(node)

    # parse_int=float: "-0" is the float -0.0, as plain and JSON write it.
    parsed = json.loads(stream.getvalue(), parse_int=float)["value"]
    back = np.vectorize(number, otypes=[float])(np.array(parsed, dtype=object))
    np.testing.assert_array_equal(back, values)
    assert np.array_equal(np.signbit(back), np.signbit(values))


def test_json_text_of_a_small_array_is_unchanged():
    stream = io.StringIO()
    render(_result(np.array([[1.0, -0.0, 2.5], [np.nan, np.inf, 1e-20]])), Format.JSON, stream)
    assert stream.getvalue().startswith('{"value": [[1, -0, 2.5], ["nan", "inf", 1e-20]]')


def test_json_of_empty_arrays():
    for shape, text in [((0,), "[]"), ((2, 0), "[[], []]"), ((0, 3), "[]")]:
        stream = io.StringIO()
        render(_result(np.zeros(shape)), Format.JSON, stream)
        assert json.loads(stream.getvalue())["value"] == json.loads(text)
        assert stream.getvalue().startswith(f'{{"value": {text}')


def test_a_large_table_is_a_summary():
    from rich.console import Console

    from gradcli.render import table

    values = np.arange(10**6, dtype=float).reshape(1000, 1000)
    stream = io.StringIO()
    table.render(_result(values), stream, None, Console(file=stream, width=100))
    lines = stream.getvalue().splitlines()
    assert len(lines) < 20
    assert any("..." in line for line in lines)
    assert "999999" in stream.getvalue() and "500000" not in stream.getvalue()
