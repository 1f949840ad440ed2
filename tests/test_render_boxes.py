"""The one-shot table drawn without Rich (``render.boxes``) is Rich's, character for
character and escape for escape: the expected output is Rich's own, drawn from the
same layout by ``rich.table.Table`` on a ``rich.console.Console``, and the stream as
``boxes.terminal`` reads it is what Rich's console reads of it."""

from __future__ import annotations

import io
import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from gradcli import api
from gradcli.render import boxes, table

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NAMES = ["x", "θ", "é", "w_long_name", "αβ"]
NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.floats(-1e3, 1e3).map(lambda v: round(v, 2)),
    st.integers(-50, 50).map(float),
)


@st.composite
def results(draw):
    name = draw(st.sampled_from(NAMES))
    shape = draw(st.sampled_from([(), (1,), (3,), (12,), (2, 3), (4, 2), (40,), (3, 7)]))
    values = np.array(draw(st.lists(NUMBERS, min_size=1, max_size=1)) * int(np.prod(shape)))
    with np.errstate(over="ignore"):
        values = values.reshape(shape) * draw(st.sampled_from([1.0, 1e-7, 1e9]))
    values = values + np.arange(values.size).reshape(shape)  # not all the same
    command = draw(st.sampled_from(["eval", "grad", "jacobian", "jacobian of scalars"]))
    bindings = {name: values}
    if command == "eval":
        return api.evaluate(f"{name} * 1", bindings)
    if command == "grad":
        return api.gradient(f"sum({name} ** 3) * y", {**bindings, "y": 2.0})
    if command == "jacobian":
        return api.jacobian(f"{name} * y", {**bindings, "y": 0.5}, wrt=[name])
    return api.jacobian(f"[{name} * y, {name} + y]", {name: values.flat[0], "y": 3.0})


def rich_drawn(layout, width, styled, no_color) -> str:
    """What Rich writes for ``layout``, on a console of these settings."""
    stream = io.StringIO()
    console = Console(
        file=stream,
        highlight=False,
        width=width,
        force_terminal=styled,
        color_system="truecolor" if styled else None,
        no_color=no_color,
    )
    console.print(Text(layout.title, style="bold"))
    console.print(table._rich_table(layout, "utf-8"))
    return stream.getvalue()


def drawn(layout, width, styled, no_color):
    stream = io.StringIO()
    shown = boxes.draw(layout, stream, boxes.Terminal(width, "utf-8", styled, no_color))
    return shown, stream.getvalue()


@SETTINGS
@given(result=results(), width=st.integers(20, 130), styled=st.booleans(), no_color=st.booleans())
def test_the_table_is_rich_s_wherever_it_is_drawn(result, width, styled, no_color):
    layout = table._layout(result, width, "utf-8", 6)
    shown, text = drawn(layout, width, styled, no_color)
    if shown:
        assert text == rich_drawn(layout, width, styled, no_color)
    else:
        assert text == ""  # left to Rich, nothing written


@pytest.mark.parametrize("styled", [False, True])
@pytest.mark.parametrize(
    "source, bindings, width",
    [
        ("(x+2)**2+3", {"x": 2.0}, 80),
        ("(x+2)**2+3", {"x": 2.0}, 25),
        ("sum(x**2) * y", {"x": np.arange(30.0) * 1000.5, "y": 2.0}, 24),  # shapes under names
        ("sum(x**2) * y", {"x": np.arange(30.0) * 1000.5, "y": 2.0}, 100),
        ("sum(θ**2)", {"θ": np.linspace(0, 1, 12).reshape(3, 4)}, 80),
    ],
)
def test_the_common_tables_are_drawn_without_rich(source, bindings, width, styled):
    result = api.gradient(source, bindings)
    layout = table._layout(result, width, "utf-8", 6)
    shown, text = drawn(layout, width, styled, False)
    assert shown
    assert text == rich_drawn(layout, width, styled, False)
    assert ("\x1b[1;36m" in text) == styled  # the names bold cyan on a terminal


def test_a_table_rich_would_narrow_is_left_to_rich():
    result = api.gradient("sum(x**2)", {"x": np.arange(3.0)})
    layout = table._layout(result, 80, "utf-8", 6)
    wide = layout._replace(rows=[(*row[:2], "1" * 90, row[3]) for row in layout.rows])
    assert drawn(wide, 80, False, False) == (False, "")


def test_text_rich_measures_with_its_tables_is_left_to_rich():
    result = api.gradient("sum(x**2)", {"x": np.arange(3.0)})
    layout = table._layout(result, 80, "utf-8", 6)
    for odd in ("界", "x\u0301", "\ufffd"):  # wide, combining, replacement
        assert drawn(layout._replace(title=odd), 80, False, False) == (False, "")


class Stream(io.StringIO):
    def __init__(self, tty, encoding):
        super().__init__()
        self.tty, self._encoding = tty, encoding

    @property
    def encoding(self):
        return self._encoding

    def isatty(self):
        if self.tty is None:
            raise ValueError("I/O operation on closed file")
        return self.tty


ENVIRONMENT = {
    "COLUMNS": st.sampled_from([None, "0", "5", "37", "120", "abc", ""]),
    "LINES": st.sampled_from([None, "10", "x"]),
    "TERM": st.sampled_from([None, "dumb", "Unknown", "xterm-256color", "xterm", ""]),
    "NO_COLOR": st.sampled_from([None, "", "1"]),
    "FORCE_COLOR": st.sampled_from([None, "", "1", "0"]),
    "TTY_COMPATIBLE": st.sampled_from([None, "0", "1", "2"]),
    "COLORTERM": st.sampled_from([None, "truecolor"]),
}


@SETTINGS
@given(
    environment=st.fixed_dictionaries(ENVIRONMENT),
    tty=st.sampled_from([True, False, None]),
    encoding=st.sampled_from(["utf-8", "UTF-8", "utf8", None, "latin-1", "ascii"]),
)
def test_the_stream_is_read_as_rich_reads_it(environment, tty, encoding):
    given = {name: value for name, value in environment.items() if value is not None}
    names = [*ENVIRONMENT, "JUPYTER_COLUMNS"]
    kept = {name: value for name, value in os.environ.items() if name not in names}
    with mock.patch.dict(os.environ, {**kept, **given}, clear=True):
        stream = Stream(tty, encoding)
        seen = boxes.terminal(stream)
        console = Console(file=stream, highlight=False)
        if not console.encoding.startswith("utf"):
            assert seen is None
            return
        assert seen == (
            console.width,
            console.encoding,
            console.color_system is not None,
            console.no_color,
        )
