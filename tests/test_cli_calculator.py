"""The language as people type it, through the real command: calculator meanings,
values typed naturally, output for scripts. Expected numbers are derived by hand
(each case says how) or come from PyTorch."""

from __future__ import annotations

import pytest


def plain(result) -> dict[str, list[float]]:
    """``{"value": [...], "grad.x": [...]}`` from a successful ``--format plain`` run."""
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = [line.split() for line in result.stdout.splitlines()]
    return {line[0]: [float(n) for n in line[1:]] for line in lines}


def error(result) -> str:
    """The first line of the error of a run that ended with exit status 2."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    return result.stderr.splitlines()[0]


# ----------------------------------------------------------------------------
# max and min: two operands are elementwise, a reduction names its dimension
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, x, value, grad",
    [
        # max(x, 0) is ReLU: at x = -2 the 0 wins, value 0, slope 0.
        ("max(x, 0)", "-2", [0.0], [0.0]),
        ("max(x, 0)", "3", [3.0], [1.0]),
        # min(x, 1) at x = -2 is x itself: value -2, slope 1; at 4 it is the constant 1.
        ("min(x, 1)", "-2", [-2.0], [1.0]),
        ("min(x, 1)", "4", [1.0], [0.0]),
        ("x.max(0)", "-2", [0.0], [0.0]),
        # Broadcast against a vector: sum(max([1, 5], x)) at x = 3 is 3 + 5, slope 1.
        ("sum(max([1, 5], x))", "3", [8.0], [1.0]),
        ("max(x)", "[1, 4, 2]", [4.0], [0.0, 1.0, 0.0]),
        # The values along dim 0 of [[1, 5], [3, 2]]: [3, 5], each from one entry.
        ("sum(max(x, dim=0))", "[[1, 5], [3, 2]]", [8.0], [0.0, 1.0, 1.0, 0.0]),
        ("sum(min(x, axis=1))", "[[1, 5], [3, 2]]", [3.0], [1.0, 0.0, 0.0, 1.0]),
    ],
)
def test_max_and_min_mean_what_a_calculator_means(gradcli, source, x, value, grad):
    out = plain(gradcli("grad", source, "--x", x, "--format", "plain"))
    assert out == {"value": value, "grad.x": grad}


@pytest.mark.parametrize("source", ["max(x, 7)", "max(x, dim=7)", "min(x, dim=-2)"])
def test_a_dimension_out_of_range_is_an_error_even_on_a_scalar(gradcli, source):
    if source == "max(x, 7)":  # the elementwise max with 7
        assert plain(gradcli("eval", source, "--x", "2", "--format", "plain")) == {"value": [7.0]}
        return
    assert "Dimension out of range" in error(gradcli("eval", source, "--x", "2"))


def test_the_listing_of_max_says_what_the_language_means(gradcli):
    out = gradcli("functions", "max", "--format", "plain")
    assert out.exit_code == 0
    assert out.stdout.startswith("max(input, other=None, *, dim=None, keepdim=False)")
    assert "max(a, b): the larger, elementwise" in out.stdout


# ----------------------------------------------------------------------------
# The table: no text from numbers or from the user is read as Rich markup
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, shown",
    [
        (["eval", "x", "--x", "[inf, 1]"], "[inf   1]"),
        (["eval", "x", "--x", "[-inf, 1]"], "[-inf    1]"),
        (["eval", "x", "--x", "[nan, 1]"], "[nan   1]"),
        # d/dx sum(log(x)) = 1/x: [inf, 1] at [0, 1].
        (["grad", "sum(log(x))", "--x", "[0, 1]"], "[inf   1]"),
        (["eval", "x", "--x", "[[inf, 1], [2, 3]]"], "[[inf   1]"),
        # The title is the source, comment and all.
        (["eval", "x  # [bold]kept[/bold] [red]", "--x", "1"], "x  # [bold]kept[/bold] [red]"),
        # Bindings may change shapes: the shape cell.
        (["eval", "zeros(2, 3)"], "(2, 3)"),
    ],
)
def test_table_cells_and_titles_show_their_text_as_it_is(gradcli, args, shown):
    result = gradcli(*args, tty=True)
    assert result.exit_code == 0, result.stderr
    assert shown in result.stdout
    for line in result.stdout.splitlines():
        if line.startswith("│ f ") or line.startswith("│ ∂f"):
            assert line.split("│")[-2].strip(), line  # never a blank value cell


def test_table_headers_are_text(gradcli):
    lines = gradcli("eval", "x", "--x", "[inf, 1]", tty=True).stdout.splitlines()
    header = next(line for line in lines if "shape" in line)
    assert [cell.strip() for cell in header.split("│")[1:-1]] == ["", "shape", "value"]


def test_warnings_and_errors_show_the_source_as_it_is(gradcli):
    # log(0) at [0] makes -inf: the warning repeats the source line with its brackets.
    result = gradcli("eval", "log(x) # [bold]a[/bold]", "--x", "[0]", tty=True)
    assert "  log(x) # [bold]a[/bold]" in result.stderr
    result = gradcli("eval", "sin(x) + [red]", "--x", "1", tty=True)
    assert result.exit_code == 2
    assert "[red]" in result.stderr


def test_the_listing_of_functions_shows_brackets_as_text(gradcli):
    result = gradcli("functions", "clamp", tty=True)
    assert result.exit_code == 0
    assert "[min, max]" in result.stdout


# ----------------------------------------------------------------------------
# A const given on the command line is used by everything defined from it
# ----------------------------------------------------------------------------


def test_an_input_defined_from_a_given_const_uses_the_given_value(gradcli):
    # c = 5, so b = 15 and b * x at x = 1 is 15; d/dx = b = 15, d/db = x = 1.
    args = ("grad", "const c = 2; b = c * 3; b * x", "--c", "5", "--x", "1", "--format", "plain")
    assert plain(gradcli(*args)) == {"value": [15.0], "grad.b": [1.0], "grad.x": [15.0]}
    # Without --c the program's own c = 2: b = 6.
    args = ("grad", "const c = 2; b = c * 3; b * x", "--x", "1", "--format", "plain")
    assert plain(gradcli(*args)) == {"value": [6.0], "grad.b": [1.0], "grad.x": [6.0]}


def test_a_given_const_reaches_inputs_through_functions_and_other_consts(gradcli):
    # c = 1 gives d = 2, b = f(d) = 4; b * x at x = 2 is 8.
    source = "const c = 3; const d = 2 * c; f(t) = t**2; b = f(d); b * x"
    out = plain(gradcli("eval", source, "--c", "1", "--x", "2", "--format", "plain"))
    assert out == {"value": [8.0]}
