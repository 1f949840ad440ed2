"""Large float64 arrays are written through Arrow's formatter, rewritten into the notation
of Python's repr: every number's text must be repr's, byte for byte, less the ``.0`` of
whole numbers."""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("pyarrow", reason="the bulk path formats numbers with pyarrow")

from gradcli import api  # noqa: E402
from gradcli.render import Format, many_numbers, render  # noqa: E402


def _numbers(n=250_000):
    """Numbers of every band, edge and kind: random bit patterns (every exponent,
    subnormals, nan), the neighbours of each power of ten, few-digit decimals, whole
    numbers, signed zeros and the non-finite ones."""
    rng = np.random.default_rng(36)
    bits = rng.integers(0, 2**64, n // 4, dtype=np.uint64).view(np.float64)
    with np.errstate(over="ignore"):
        tens = 10.0 ** np.arange(-325, 309)
    tens = tens[tens > 0]
    edges = np.concatenate([tens, np.nextafter(tens, 0), np.nextafter(tens, np.inf)])
    decimals = rng.integers(1, 10**6, n // 4) * 10.0 ** rng.integers(-22, 22, n // 4)
    spread = rng.standard_normal(n // 4) * 10.0 ** rng.integers(-12, 18, n // 4)
    special = [0.0, -0.0, 1.0, -19.0, 1e16, 1e15, 1e-4, 1e-5, np.nan, np.inf, -np.inf]
    whole = rng.integers(-(10**7), 10**7, n // 8).astype(float)
    values = np.concatenate([bits, edges, -edges, decimals, -spread, special * 50, whole])
    return np.resize(rng.permutation(values), n)


def _repr_texts(values):
    return [t[:-2] if t.endswith(".0") else t for t in map(repr, values.tolist())]


def test_each_number_is_reprs_text():
    values = _numbers()
    assert values.size >= many_numbers.BULK_SIZE
    assert many_numbers.joined(values, " ").split(" ") == _repr_texts(values)


@pytest.mark.parametrize("shape", [(-1,), (500, -1), (10, -1, 5), (1, -1, 1)])
def test_nested_lists_are_reprs(shape):
    values = _numbers().reshape(shape)
    expected = repr(values.tolist()).replace(".0,", ",").replace(".0]", "]")
    assert many_numbers.nested(values) == expected
    assert many_numbers.nested(np.asfortranarray(values)) == expected


def test_small_arrays_and_other_dtypes_take_the_other_path():
    assert many_numbers.joined(np.ones(10), " ") is None
    assert many_numbers.nested(np.ones(many_numbers.BULK_SIZE, np.float32)) is None


@pytest.mark.parametrize("fmt", [Format.JSON, Format.PLAIN])
def test_output_is_the_same_by_either_path(fmt, monkeypatch):
    result = api.evaluate("x", {"x": _numbers().reshape(1000, -1)})
    bulk = io.StringIO()
    render(result, fmt, bulk)
    monkeypatch.setattr(many_numbers, "BULK_SIZE", 10**9)
    one_by_one = io.StringIO()
    render(result, fmt, one_by_one)
    assert bulk.getvalue() == one_by_one.getvalue()
    if fmt is Format.JSON:
        assert '"nan"' in bulk.getvalue() and '"-inf"' in bulk.getvalue()


def test_arrow_texts_that_differ_from_repr_are_not_used(monkeypatch):
    monkeypatch.setattr(many_numbers, "_checked", None)
    monkeypatch.setattr(many_numbers, "_probe", lambda: np.array([1.5e-7, 1e12]))
    monkeypatch.setattr(many_numbers, "_BANDS", [])  # Arrow's own notation: 1.5e-7
    assert many_numbers.joined(_numbers(), " ") is None
    assert many_numbers._checked is False


def test_the_bulk_path_does_not_import_pandas():
    # pyarrow's own conversions import pandas when it is installed: 0.2 s and 40 MB.
    import subprocess
    import sys

    pytest.importorskip("pandas", reason="pandas is not installed to be imported")
    script = (
        "import io, sys, numpy as np\n"
        "from gradcli.render import many_numbers\n"
        "values = np.linspace(-1e-7, 1e12, many_numbers.BULK_SIZE)\n"
        "assert many_numbers.nested(values.reshape(2, -1)) is not None\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
