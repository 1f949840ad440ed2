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
determinant: 48
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
whole Hessian
╭───┬────┬────╮
│   │ x  │ y  │
├───┼────┼────┤
│ x │ 36 │ 12 │
│ y │ 12 │ 0  │
╰───┴────┴────╯
eigenvalues: [-3.63331 39.6333 ]
classification: not a critical point (max |∇f| = 36, zero up to 3.58e-07; |λ| <=
5.91e-07 counts as zero)
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
    # As NumPy prints it: the decimal points line up.
    assert "│ f │ (40, 50) │ [[  0       0.125   0.25  ...   5.875   6       6.125]  │" in lines
    assert any(line.startswith("│   │          │  ...") for line in lines)
    assert lines[-2].endswith("[243.75  243.875 244     ... 249.625 249.75  249.875]] │")


def test_table_precision(gradcli):
    out = table(gradcli("eval", "[pi, 1/3]", "--format", "table", "--precision", "3"))
    assert "│ f │ (2,)  │ [3.14  0.333] │" in out


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
    lines = out.splitlines()
    assert lines[:8] == [
        "value 9",
        "grad.a 3 3",
        "grad.b 3",
        "hessian.a.a 0 0 0 0",
        "hessian.a.b 1 1",
        "hessian.b.a 1 1",
        "hessian.b.b 0",
        "assembled.matrix 0 0 1 0 0 1 1 1 0",
    ]
    # The eigenvalues of [[0, 0, 1], [0, 0, 1], [1, 1, 0]] are -sqrt(2), 0, sqrt(2).
    name, *eigenvalues = lines[8].split()
    assert name == "eigenvalues"
    np.testing.assert_allclose([float(v) for v in eigenvalues], [-(2**0.5), 0, 2**0.5], atol=1e-12)
    assert lines[9] == "classification not a critical point"


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
            '{"value": [2, 4], "jacobian": {"x": [[2, 0], [0, 2]]}, "assembled": {"rows": '
            '["f[0]", "f[1]"], "columns": ["x[0]", "x[1]"], "matrix": [[2, 0], [0, 2]]}, '
            '"determinant": 4}',
        ),
        (
            ["hessian", "x**2", "--x", "1"],
            '{"value": 1, "grad": {"x": 2}, "hessian": {"x": {"x": 2}}, '
            '"assembled": {"rows": ["x"], "columns": ["x"], "matrix": [[2]]}, '
            '"eigenvalues": [2], "classification": "not a critical point", '
            '"tolerance": {"gradient": 1.4901161193847656e-08, '
            '"eigenvalue": 2.9802322387695312e-08}}',
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


def test_format_array_aligns_decimal_points():
    assert format_array(np.array([[1.0, -22.5], [333.0, 4.0]])) == (
        "[[  1   -22.5]\n [333     4  ]]"
    )
    assert format_array(np.array([[1.5, -0.25], [100.0, 2.0]])) == (
        "[[  1.5   -0.25]\n [100      2   ]]"
    )


def test_format_array_one_notation_for_the_whole_array():
    # One number needs an exponent: every number gets one, with as many digits.
    assert format_array(np.array([1e-5, 123.25, 2.0])) == "[1.0000e-05 1.2325e+02 2.0000e+00]"
    assert format_array(np.array([1e20, 1.0])) == "[1e+20 1e+00]"
    assert format_array(np.array([1e-5, 123.25, 2.0]), 3) == "[1.00e-05 1.23e+02 2.00e+00]"


def test_format_array_non_finite_and_negative_zero():
    assert format_array(np.array([np.nan, 1.5, 100.0])) == "[  nan   1.5 100  ]"
    assert format_array(np.array([1e20, np.nan, -np.inf])) == "[1e+20   nan  -inf]"
    assert format_array(np.array([[-0.0, 1.0], [2.0, -0.0]])) == "[[0 1]\n [2 0]]"
    assert format_array(np.array(-0.0)) == "0"


def test_format_array_summarises_like_numpy():
    text = format_array(np.arange(2000.0))
    assert text == "[   0    1    2 ... 1997 1998 1999]"
    assert format_array(np.arange(2000.0), summarize=False).count(" ") > 1999


# ----- found by an audit -----


def test_table_never_shows_negative_zero(gradcli):
    # d(x**2)/dx off the diagonal is 2*x*0, which is -0 where x < 0
    out = table(gradcli("jacobian", "x**2", "--x", "[-1, -2]", "--format", "table"))
    assert "-0" not in out
    assert "│ ∂f/∂x │ (2, 2) │ [[-2  0]" in out
    # plain and json keep every number exactly as computed
    assert "jacobian.x -2 -0 -0 -4\n" in gradcli("jacobian", "x**2", "--x", "[-1, -2]").stdout


def test_table_of_a_3d_array(gradcli):
    out = table(gradcli("eval", "arange(8).reshape(2, 2, 2) / 2", "--format", "table"))
    assert out.splitlines()[4:9] == [
        "│ f │ (2, 2, 2) │ [[[0   0.5]   │",
        "│   │           │   [1   1.5]]  │",
        "│   │           │               │",
        "│   │           │  [[2   2.5]   │",
        "│   │           │   [3   3.5]]] │",
    ]


def test_narrow_terminal_keeps_names_and_shapes_whole(gradcli):
    args = ["grad", "sum(x*y)", "--x", "[1.5, -2.25, 3]", "--y", "[0.5, 4, -1]"]
    for columns in (40, 30, 24):
        out = table(gradcli(*args, "--format", "table", env={"COLUMNS": str(columns)}))
        assert all(len(line) <= columns for line in out.splitlines()), out
        assert "∂f/∂x" in out and "∂f/∂y" in out and "(3,)" in out and "…" not in out
    # Where a column of shapes leaves no room for the numbers, shapes go under names.
    assert out.splitlines()[1:] == [
        "╭───────┬──────────╮",
        "│       │ value    │",
        "├───────┼──────────┤",
        "│ f     │ -11.25   │",
        "│ ()    │          │",
        "├───────┼──────────┤",
        "│ ∂f/∂x │ [ 0.5  4 │",
        "│ (3,)  │  -1  ]   │",
        "│ ∂f/∂y │ [ 1.5    │",
        "│ (3,)  │  -2.25   │",
        "│       │   3   ]  │",
        "╰───────┴──────────╯",
    ]


def test_json_escapes_names_beyond_ascii(gradcli):
    out = gradcli("grad", "θ**2 + x", "--var", "θ=3", "--x", "1", "--format", "json").stdout
    assert out == '{"value": 10, "grad": {"\\u03b8": 6, "x": 1}}\n'
    assert json.loads(out)["grad"] == {"θ": 6, "x": 1}


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_terminal_without_unicode(gradcli_script, tmp_path, encoding):
    import os
    import subprocess

    env = {**os.environ, "PYTHONIOENCODING": encoding, "NO_COLOR": "1", "COLUMNS": "80"}
    run = lambda fmt: subprocess.run(  # noqa: E731
        [*gradcli_script, "hessian", "x*θ", "--x", "1", "--var", "θ=2", "--format", fmt],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        encoding=encoding,
        env=env,
        timeout=60,
    )
    result = run("table")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "x*\\u03b8"
    assert any(line.startswith("| d2f/dxd\\u03b8 ") for line in lines), lines
    first = lines[1 : lines.index("whole Hessian") if "whole Hessian" in lines else None]
    assert len({len(line) for line in first}) == 1  # the borders line up
    assert "| \\u03b8 | 1 | 0      |" in lines  # the whole Hessian's row of θ
    plain = run("plain")
    assert plain.returncode == 0, plain.stderr
    assert "grad.\\u03b8 1" in plain.stdout.splitlines()


@pytest.mark.parametrize("fmt", ["plain", "json", "table"])
def test_precision_beyond_float64_is_every_digit(gradcli, fmt):
    result = gradcli("eval", "pi", "--precision", "100000", "--format", fmt)
    assert result.exit_code == 0, result.output
    assert "3.141592653589793" in result.stdout


@pytest.mark.parametrize("columns", ["0", "-5", "abc"])
def test_an_unknown_terminal_width_still_prints_the_table(gradcli, columns):
    out = table(
        gradcli("grad", "(x+2)**2+3", "--x", "2", "--format", "table", env={"COLUMNS": columns})
    )
    assert "│ ∂f/∂x │ ()    │ 8     │" in out


def test_a_tiny_terminal_gets_the_narrow_table(gradcli):
    out = table(
        gradcli(
            "jacobian", "x*y", "--x", "[1,2]", "--y", "3", "--format", "table", env={"COLUMNS": "5"}
        )
    )
    assert "│ ∂f/∂x  │ [[3 0]  │" in out
    assert "│ (2, 2) │  [0 3]] │" in out


def test_a_whole_jacobian_too_wide_for_the_terminal_is_stacked(gradcli_script):
    """At 50 columns a 3-by-12 Jacobian is no table of cut cells (W…): each row is
    printed with its entries named, every number whole."""
    import os
    import re

    pexpect = pytest.importorskip("pexpect", reason="runs gradcli in a pseudo-terminal")
    env = {**os.environ, "COLUMNS": "50", "LINES": "40", "TERM": "xterm", "NO_COLOR": "1"}
    args = ["jacobian", "W@v", "--W", "[[1, 2, 3], [4, 5, 6], [7, 8, 9.5]]", "--v", "[1, -1, 2]"]
    child = pexpect.spawn(gradcli_script[0], [*gradcli_script[1:], *args], env=env,
                          encoding="utf-8", dimensions=(40, 50), timeout=60)  # fmt: skip
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = re.sub(r"\x1b\[[0-9;]*m", "", child.before).replace("\r\n", "\n")
    lines = text.splitlines()
    assert "…" not in text and all(len(line) <= 50 for line in lines)
    at = lines.index("whole Jacobian (rows: outputs), a row at a time")
    assert lines[at + 1] == "f[0]"
    # d(W@v)[i]/dW[i,j] = v[j] and d(W@v)/dv = W: read back from the named entries.
    entries = dict(re.findall(r"(\S+\[[\d,]+\]) (\S+)", " ".join(lines[at + 2 : at + 5])))
    assert entries["W[0,0]"] == "1" and entries["W[0,1]"] == "-1" and entries["W[0,2]"] == "2"
    assert [entries[f"v[{j}]"] for j in range(3)] == ["1", "2", "3"]
    assert "f[2]" in lines and "v[2] 9.5" in text


def test_an_expression_over_several_lines_is_titled_on_one(gradcli):
    result = gradcli("grad", "a = 2\na*x**2", "--x", "3", tty=True)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "a = 2; a*x**2" and "\ufffd" not in result.stdout
    assert "│ ∂f/∂x │ ()    │ 12    │" in lines  # d(2x²)/dx = 4x = 12 at 3


def test_the_whole_matrix_shows_no_negative_zeros(gradcli):
    """A sign on nothing is noise in a table, as in the blocks and eigenvalues above it:
    0 * -1 = -0 is written 0 in the whole Hessian and Jacobian, tabled or stacked."""
    # -x**2*y at (0, 1): H = [[-2y, -2x], [-2x, 0]] = [[-2, 0], [0, 0]], by hand.
    import re

    negative_zero = re.compile(r"(?<![\w.])-0(?![\w.])")  # not the -08 of 1.49e-08
    result = gradcli("hessian", "-x**2*y", "--x", "0", "--y", "1", tty=True)
    lines = result.stdout.splitlines()
    assert result.exit_code == 0 and not negative_zero.search(result.stdout)
    at = lines.index("whole Hessian")
    assert lines[at + 4 : at + 6] == ["│ x │ -2 │ 0 │", "│ y │ 0  │ 0 │"]
    # d(A@x)[i]/dA[j,k] = (i == j) * x[k], x = [-1, 2]: the other row's -1 * 0 is 0.
    args = ["jacobian", "A@x", "--A", "[[1, 2], [3, 4]]", "--x", "[-1, 2]"]
    for columns, layout in (("80", "whole Jacobian (rows: outputs)"), ("50", "a row at a time")):
        result = gradcli(*args, tty=True, env={"COLUMNS": columns})
        assert result.exit_code == 0 and layout in result.stdout
        assert not negative_zero.search(result.stdout) and "-1" in result.stdout


def test_a_many_point_table_too_wide_for_the_terminal_is_stacked(gradcli):
    """At 50 columns the rows of taylor's coefficients were cut (1.64…, coeffic…):
    each row is printed with its entries named, every number whole."""
    import re

    args = ["taylor", "exp(x)", "--over", "x=0:1:3", "--order", "3", "--format", "table"]
    result = gradcli(*args, env={"COLUMNS": "50"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "…" not in result.stdout and all(len(line) <= 50 for line in lines)
    assert [line for line in lines if line.startswith("row")] == ["row 1", "row 2", "row 3"]
    at = lines.index("row 2")
    entries = dict(re.findall(r"(\S+) (\S+)", " ".join(lines[at + 1 : lines.index("row 3")])))
    # At x = 0.5 the k-th coefficient of exp is e**0.5 / k!: 1.64872, 1.64872, 0.824361, 0.274787.
    assert entries["x"] == "0.5" and entries["value"] == "1.64872"
    assert [entries[f"coefficients[{k}]"] for k in range(4)] == [
        "1.64872", "1.64872", "0.824361", "0.274787"
    ]  # fmt: skip
    assert lines[-1] == "3 rows"
    # A table that fits stays a table.
    narrow = gradcli("grad", "x**2*y", "--over", "x=0:1:3", "--y", "1", "--format", "table")
    assert narrow.stdout.startswith("╭") and "row 1" not in narrow.stdout
