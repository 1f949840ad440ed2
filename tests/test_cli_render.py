"""Output formats: golden tables at 80 columns without colour, plain lines for
``read``/``awk``, strict JSON; and the renderers alone, on hand-built results."""

from __future__ import annotations

import io
import json
import re
from types import MappingProxyType

import numpy as np
import pytest

from gradcli.api import Result
from gradcli.render import Format, leaves, render
from gradcli.render.numbers import format_array, format_number


def table(result):
    """The table's lines without the padding Rich adds after the title."""
    assert result.exit_code == 0, result.output
    return "\n".join(line.rstrip() for line in result.stdout.splitlines()) + "\n"


# ----- golden tables -----


def test_table_is_the_default_on_a_terminal(gradcli):
    assert (
        table(gradcli("grad", "(x+2)**2+3", "--x", "2", tty=True))
        == """\
(x+2)**2+3
╭───────┬───────┬───────╮
│       │ shape │ value │
├───────┼───────┼───────┤
│ f     │ ()    │ 19    │
├───────┼───────┼───────┤
│ ∂f/∂x │ ()    │ 8     │
╰───────┴───────┴───────╯
"""
    )


def test_plain_is_the_default_elsewhere(gradcli):
    assert gradcli("grad", "(x+2)**2+3", "--x", "2").stdout == "value 19\ngrad.x 8\n"


def test_table_of_a_jacobian_is_a_grid(gradcli):
    out = table(gradcli("jacobian", "x**2 + 2*x + 1", "--x", "[2, 3]", "--format", "table"))
    assert (
        out
        == """\
x**2 + 2*x + 1
╭───────┬────────┬─────────╮
│       │ shape  │ value   │
├───────┼────────┼─────────┤
│ f     │ (2,)   │ [ 9 16] │
├───────┼────────┼─────────┤
│ ∂f/∂x │ (2, 2) │ [[6 0]  │
│       │        │  [0 8]] │
╰───────┴────────┴─────────╯
"""
    )


def test_table_of_a_hessian(gradcli):
    out = table(gradcli("hessian", "x**3 * y", "--x", "2", "--y", "3", "--format", "table"))
    assert (
        out
        == """\
x**3 * y
╭──────────┬───────┬───────╮
│          │ shape │ value │
├──────────┼───────┼───────┤
│ f        │ ()    │ 24    │
├──────────┼───────┼───────┤
│ ∂f/∂x    │ ()    │ 36    │
│ ∂f/∂y    │ ()    │ 8     │
├──────────┼───────┼───────┤
│ ∂²f/∂x∂x │ ()    │ 36    │
│ ∂²f/∂x∂y │ ()    │ 12    │
│ ∂²f/∂y∂x │ ()    │ 12    │
│ ∂²f/∂y∂y │ ()    │ 0     │
╰──────────┴───────┴───────╯
"""
    )


def test_table_of_vjp_and_jvp(gradcli):
    vjp = table(
        gradcli("vjp", "x * [1, 2]", "--x", "3", "--grad-output", "[1, 1]", "--format", "table")
    )
    assert "│ vᵀ·∂f/∂x │ ()    │ 3     │" in vjp
    jvp = table(gradcli("jvp", "x * [1, 2]", "--x", "3", "--tangent", "2", "--format", "table"))
    assert "│ ∂f·t │ (2,)  │ [2 4] │" in jvp


def test_table_summarises_large_arrays_within_the_width(gradcli):
    out = table(gradcli("eval", "reshape(arange(2000), 40, 50) / 8", "--format", "table"))
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "│ f │ (40, 50) │ [[      0   0.125    0.25 ...   5.875       6   6.125]  │" in lines
    assert any(line.startswith("│   │          │  ...") for line in lines)
    assert lines[-2].endswith("[ 243.75 243.875     244 ... 249.625  249.75 249.875]] │")


def test_table_precision(gradcli):
    out = table(gradcli("eval", "[pi, 1/3]", "--format", "table", "--precision", "3"))
    assert "│ f │ (2,)  │ [ 3.14 0.333] │" in out


def test_table_default_precision_is_six_digits(gradcli):
    out = table(gradcli("eval", "pi", "--format", "table"))
    assert "│ f │ ()    │ 3.14159 │" in out


def test_table_has_no_colour_under_no_color(monkeypatch):
    from gradcli.render import table as table_module

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    cyan = re.compile(r"\x1b\[[0-9;]*36[;m]")  # SGR 36: the labels' colour
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("NO_COLOR", "1")
    plain = Terminal()
    table_module.render(_result("grad", 19.0, grad={"x": 8.0}), plain)
    assert not cyan.search(plain.getvalue())
    monkeypatch.delenv("NO_COLOR")
    coloured = Terminal()
    table_module.render(_result("grad", 19.0, grad={"x": 8.0}), coloured)
    assert cyan.search(coloured.getvalue())


# ----- plain -----


def test_plain_lines(gradcli):
    out = gradcli("hessian", "sum(a) * b", "--a", "[1, 2]", "--b", "3").stdout
    assert out == (
        "value 9\n"
        "grad.a 3 3\n"
        "grad.b 3\n"
        "hessian.a.a 0 0 0 0\n"
        "hessian.a.b 1 1\n"
        "hessian.b.a 1 1\n"
        "hessian.b.b 0\n"
    )


def test_plain_flattens_row_major_and_keeps_all_digits(gradcli):
    out = gradcli("eval", "[[1/3, 2], [3, 4e-7]]", "--format", "plain").stdout
    assert out == "value 0.3333333333333333 2 3 4e-07\n"
    assert [float(x) for x in out.split()[1:]] == [1 / 3, 2, 3, 4e-7]


def test_plain_never_summarises(gradcli):
    out = gradcli("eval", "arange(5000)", "--format", "plain").stdout
    assert out.split()[1:] == [str(i) for i in range(5000)]


def test_plain_has_no_escape_codes_or_boxes(gradcli):
    out = gradcli("grad", "x**2", "--x", "3", "--format", "plain", tty=True).stdout
    assert out == "value 9\ngrad.x 6\n"


def test_plain_unicode_names(gradcli):
    assert gradcli("grad", "θ**2", "--var", "θ=3").stdout == "value 9\ngrad.θ 6\n"


# ----- json -----


@pytest.mark.parametrize(
    "args, expected",
    [
        (["eval", "x", "--x", "2"], '{"value": 2}'),
        (["grad", "x*y", "--x", "2", "--y", "3"], '{"value": 6, "grad": {"x": 3, "y": 2}}'),
        (
            ["jacobian", "x*2", "--x", "[1, 2]"],
            '{"value": [2, 4], "jacobian": {"x": [[2, 0], [0, 2]]}}',
        ),
        (
            ["hessian", "x**2", "--x", "1"],
            '{"value": 1, "grad": {"x": 2}, "hessian": {"x": {"x": 2}}}',
        ),
        (
            ["vjp", "x*[1, 2]", "--x", "1", "--grad-output", "[1, 1]"],
            '{"value": [1, 2], "vjp": {"x": 3}}',
        ),
        (["jvp", "x*[1, 2]", "--x", "1", "--tangent", "x=1"], '{"value": [1, 2], "jvp": [1, 2]}'),
    ],
)
def test_json_shape_of_every_command(gradcli, args, expected):
    result = gradcli(*args, "--format", "json")
    assert result.stdout == expected + "\n"


def test_json_scalars_are_numbers_and_arrays_nested_lists(gradcli_json):
    out = gradcli_json("eval", "reshape(arange(8), 2, 2, 2) / 2")
    assert out == {"value": [[[0, 0.5], [1, 1.5]], [[2, 2.5], [3, 3.5]]]}


def test_json_round_trips_float64(gradcli_json):
    values = np.array([1 / 3, np.pi, 1e-300, 1.7976931348623157e308, -2.5e-7])
    out = gradcli_json("eval", "x", "--x", json.dumps(values.tolist()))
    assert np.array_equal(out["value"], values)


def test_json_empty_array(gradcli_json):
    assert gradcli_json("eval", "zeros(0)") == {"value": []}


# ----- the renderers alone: they lay out what the result holds -----


def _result(command, value, **sections):
    def frozen(x):
        if isinstance(x, dict):
            return MappingProxyType({k: frozen(v) for k, v in x.items()})
        return np.asarray(x)

    return Result(
        command=command,
        source="f",
        filename="<expr>",
        value=np.asarray(value),
        inputs=tuple(sections.get("grad", {})),
        point=MappingProxyType({}),
        **{key: frozen(section) for key, section in sections.items()},
    )


def _rendered(result, fmt, precision=None):
    stream = io.StringIO()
    render(result, Format(fmt), stream, precision)
    return stream.getvalue()


def test_renderers_take_any_result():
    result = _result(
        "hessian", 1.5, grad={"a": [1.0, np.nan]}, hessian={"a": {"a": [[1.0, 0.0], [0.0, np.inf]]}}
    )
    assert _rendered(result, "plain") == ("value 1.5\ngrad.a 1 nan\nhessian.a.a 1 0 0 inf\n")
    assert _rendered(result, "json") == (
        '{"value": 1.5, "grad": {"a": [1, "nan"]}, "hessian": {"a": {"a": [[1, 0], [0, "inf"]]}}}\n'
    )
    assert "│ ∂²f/∂a∂a │ (2, 2) │ [[  1   0]" in _rendered(result, "table")


def test_json_keys_are_escaped():
    result = _result("grad", 1.0, grad={'we"ird\\': 2.0})
    assert json.loads(_rendered(result, "json")) == {"value": 1, "grad": {'we"ird\\': 2}}


def test_json_booleans_and_integers():
    assert _rendered(_result("eval", [True, False]), "json") == '{"value": [true, false]}\n'
    assert _rendered(_result("eval", np.int64(7)), "json") == '{"value": 7}\n'


def test_leaves_in_order():
    tree = {"value": 1, "hessian": {"x": {"y": 2, "x": 3}}}
    assert list(leaves(tree)) == [
        (("value",), 1),
        (("hessian", "x", "y"), 2),
        (("hessian", "x", "x"), 3),
    ]


@pytest.mark.parametrize(
    "x, precision, text",
    [
        (19.0, None, "19"),
        (0.1, None, "0.1"),
        (np.float32(0.1), None, "0.1"),
        (1 / 3, None, "0.3333333333333333"),
        (1 / 3, 4, "0.3333"),
        (-0.0, None, "-0"),
        (1e-20, None, "1e-20"),
        (1.5e20, None, "1.5e+20"),
        (123456.0, 3, "1.23e+05"),
        (123.0, 3, "123"),
        (2.5e-5, None, "2.5e-05"),
        (np.nan, None, "nan"),
        (-np.inf, None, "-inf"),
        (np.int64(-3), None, "-3"),
        (np.bool_(True), None, "True"),
    ],
)
def test_format_number(x, precision, text):
    assert format_number(x, precision) == text


def test_format_array_aligns_columns():
    assert format_array(np.array([[1.0, -22.5], [333.0, 4.0]])) == (
        "[[    1 -22.5]\n [  333     4]]"
    )


def test_format_array_summarises_like_numpy():
    text = format_array(np.arange(2000.0))
    assert text == "[   0    1    2 ... 1997 1998 1999]"
    assert format_array(np.arange(2000.0), summarize=False).count(" ") > 1999
