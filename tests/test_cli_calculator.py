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


# ----------------------------------------------------------------------------
# % and //, x.shape, len(x), numel(x)
# ----------------------------------------------------------------------------

REMAINDER_CASES = [
    # (source, x, y): the value and gradient are torch.remainder's.
    ("x % y", 7.5, -2.0),
    ("x % y", -7.5, 2.0),
    ("x % y", 7.25, 0.5),
    ("x % 3", -1.25, None),
    ("2 % y", None, -0.75),
    ("x ** 2 % 5 * y", 3.0, 2.0),  # % binds as * does: ((x**2) % 5) * y
    ("-x % y", 2.5, 3.0),
]


@pytest.mark.parametrize("source, x, y", REMAINDER_CASES)
def test_remainder_has_the_values_and_gradients_of_torch(gradcli, source, x, y):
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle")
    bound = {n: v for n, v in (("x", x), ("y", y)) if v is not None}
    leaves = {n: torch.tensor(v, dtype=torch.float64, requires_grad=True) for n, v in bound.items()}
    env = {**leaves, "torch": torch}
    expected = eval(source.replace("2 % y", "torch.tensor(2.0, dtype=torch.float64) % y"), env)
    expected.backward()
    args = [a for n, v in bound.items() for a in (f"--{n}", repr(v))]
    out = plain(gradcli("grad", source, *args, "--format", "plain"))
    assert out["value"] == [pytest.approx(expected.item(), abs=1e-15)]
    for name, leaf in leaves.items():
        assert out[f"grad.{name}"] == [pytest.approx(leaf.grad.item(), abs=1e-15)]


@pytest.mark.parametrize(
    "x, y", [(7.5, -2.0), (-7.5, 2.0), (-7.0, 2.0), (1.0, 0.1), (0.0, 3.0), (5.0, 0.0)]
)
def test_floor_division_has_torchs_values_and_gradient_zero(gradcli, x, y):
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle")
    expected = torch.floor_divide(
        torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)
    )
    out = plain(gradcli("grad", "x // y", "--x", repr(x), "--y", repr(y), "--format", "plain"))
    assert out["value"] == [pytest.approx(expected.item())] or (
        expected.isinf() and out["value"] == [expected.item()]
    )
    # floor(x / y) is piecewise constant: its derivative is 0 wherever it exists.
    assert out["grad.x"] == [0.0] and out["grad.y"] == [0.0]


def test_floor_division_and_remainder_by_hand(gradcli):
    # -7 // 2 = -4 and -7 % 2 = 1 (the sign of the divisor), 7 % -2 = -1, 1 // 0.1 = 9.
    out = plain(gradcli("eval", "[-7 // 2, -7 % 2, 7 % -2, 1 // 0.1]", "--format", "plain"))
    assert out == {"value": [-4.0, 1.0, -1.0, 9.0]}
    # x - y * (x // y) is x % y: 7.5 - 2 * 3 = 1.5, elementwise.
    out = plain(
        gradcli("eval", "x - 2 * (x // 2) - x % 2", "--x", "[7.5, -3]", "--format", "plain")
    )
    assert out == {"value": [0.0, 0.0]}


@pytest.mark.parametrize(
    "source, value",
    [
        ("x.shape", [2.0, 3.0]),
        ("len(x)", [2.0]),
        ("numel(x)", [6.0]),
        ("x.T.shape", [3.0, 2.0]),
        ("zeros(x.shape) + 1", [1.0] * 6),
        ("x[len(x) - 1, 0]", [4.0]),
    ],
)
def test_shape_len_and_numel_are_constants(gradcli, source, value):
    args = ("eval", source, "--x", "[[1, 2, 3], [4, 5, 6]]", "--format", "plain")
    assert plain(gradcli(*args)) == {"value": value}


def test_the_mean_by_numel_has_the_gradient_of_a_constant_divisor(gradcli):
    # sum(x) / numel(x) is the mean: d/dx_i = 1/3, numel contributing nothing.
    out = plain(gradcli("grad", "sum(x) / numel(x)", "--x", "[1, 2, 6]", "--format", "plain"))
    assert out == {"value": [3.0], "grad.x": [pytest.approx(1 / 3)] * 3}


def test_the_shape_of_a_scalar_is_empty_and_its_len_an_error(gradcli):
    assert plain(gradcli("eval", "numel(x)", "--x", "2", "--format", "plain")) == {"value": [1.0]}
    assert error(gradcli("eval", "len(x)", "--x", "2")).startswith("error: len() of a 0-d tensor")
    assert "write .shape without brackets" in error(gradcli("eval", "x.shape()", "--x", "2"))


# ----------------------------------------------------------------------------
# Values typed naturally
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1,2,3", [1.0, 2.0, 3.0]),
        ("1, -2.5, 3e-1,", [1.0, -2.5, 0.3]),
        ("[1 2 3]", [1.0, 2.0, 3.0]),
        ("[ 1. -2.]", [1.0, -2.0]),  # NumPy's own print of [1., -2.]: the sign is the number's
        ("[[1 2] [3 4]]", [[1.0, 2.0], [3.0, 4.0]]),
        ("[[1]\n [2]]", [[1.0], [2.0]]),
        ("[inf   1]", [float("inf"), 1.0]),  # as the table shows it
        ("[ 1.5e+00 -2.0e-01]", [1.5, -0.2]),
        # Not NumPy's form: the language reads these.
        ("[1 - 2]", [-1.0]),
        ("[2]", [2.0]),
        ("[1, 2]", [1.0, 2.0]),
    ],
)
def test_a_binding_takes_comma_lists_and_numpys_printed_form(gradcli_json, text, expected):
    value = gradcli_json("eval", "x", "--x", text)["value"]
    assert value == [v if v != float("inf") else "inf" for v in expected] or value == expected


def test_what_the_table_shows_can_be_pasted_back(gradcli, gradcli_json):
    import numpy as np

    matrix = [[1.5, -2.0, 3.0], [0.25, 4.0, -6.5]]
    table = gradcli("eval", "x", "--x", str(matrix), tty=True).stdout
    shown = "[[ 1.5  -2     3   ]\n [ 0.25  4    -6.5 ]]"  # the table's value cell
    assert all(line.strip() in table for line in shown.splitlines())
    assert gradcli_json("eval", "x", "--x", shown)["value"] == matrix
    assert gradcli_json("eval", "x", "--x", str(np.array(matrix)))["value"] == matrix


@pytest.mark.parametrize(
    "text, message",
    [
        ("[1 2", "NumPy's printed form '[1 2' leaves a bracket open"),
        ("[[1 2] [3]]", "has rows of different lengths"),
        ("[1 2]]", "closes more brackets than it opens"),
    ],
)
def test_a_broken_numpy_form_says_what_is_wrong(gradcli, text, message):
    assert message in error(gradcli("eval", "x", "--x", text))


def test_binding_a_constants_name_makes_it_an_input_with_a_note(gradcli):
    # e * x with e = 3 at x = 2: 6, d/de = x = 2, d/dx = e = 3.
    result = gradcli("grad", "e * x", "--e", "3", "--x", "2", "--format", "plain")
    assert plain(result) == {"value": [6.0], "grad.e": [2.0], "grad.x": [3.0]}
    assert result.stderr == (
        "note: --e makes e an input of this run, not the constant e = 2.718281828459045\n"
    )
    # Without --e, e is Euler's number and no input.
    out = plain(gradcli("grad", "e * x", "--x", "2", "--format", "plain"))
    assert out == {
        "value": [pytest.approx(2 * 2.718281828459045)],
        "grad.x": [pytest.approx(2.718281828459045)],
    }


def test_binding_a_constant_the_program_does_not_use_is_an_error(gradcli):
    assert "has no input named 'e'" in error(gradcli("eval", "x", "--e", "3", "--x", "1"))


@pytest.mark.parametrize(
    "stdin, expected",
    [
        ("1 2 3\n", [1.0, 2.0, 3.0]),
        ("1,2\n3,4\n", [[1.0, 2.0], [3.0, 4.0]]),
        ("[[1 2] [3 4]]\n", [[1.0, 2.0], [3.0, 4.0]]),
        ("[1, 2.5]", [1.0, 2.5]),
        ("x,y\n1,2\n3,4\n", [[1.0, 2.0], [3.0, 4.0]]),
    ],
)
def test_at_dash_reads_a_value_from_standard_input(gradcli_json, stdin, expected):
    assert gradcli_json("eval", "x", "--x", "@-", input=stdin)["value"] == expected


def test_at_dash_through_a_pipe(gradcli_script):
    import subprocess

    # sum(x**2) at [1, 2, 3] is 14, its gradient 2x.
    done = subprocess.run(
        [*gradcli_script, "grad", "sum(x**2)", "--x", "@-", "--format", "plain"],
        input="1\n2\n3\n",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "value 14\ngrad.x 2 4 6\n"


def test_an_empty_standard_input_is_an_error(gradcli):
    assert "it is empty" in error(gradcli("eval", "x", "--x", "@-", input=""))


def test_at_npz_reads_an_array_written_with_output(gradcli, gradcli_json, tmp_path):
    saved = tmp_path / "r.npz"
    # d/dW sum(W * W) = 2W.
    assert gradcli("grad", "sum(W * W)", "--W", "[[1, 2], [3, 4]]", "-o", saved).exit_code == 0
    got = gradcli_json("eval", "W", "--W", f"@{saved}:grad.W")["value"]
    assert got == [[2.0, 4.0], [6.0, 8.0]]
    assert gradcli_json("eval", "W", "--W", f"@{saved}:value")["value"] == 30.0
    message = error(gradcli("eval", "W", "--W", f"@{saved}"))
    assert "it holds 2 arrays: name one" in message and "value, grad.W" in message
    assert "it has no array 'grad.x'" in error(gradcli("eval", "W", "--W", f"@{saved}:grad.x"))


def test_at_npz_of_one_array_needs_no_name(gradcli_json, tmp_path):
    import numpy as np

    np.savez(tmp_path / "one.npz", a=np.array([1.0, 2.0]))
    assert gradcli_json("eval", "x", "--x", f"@{tmp_path / 'one.npz'}")["value"] == [1.0, 2.0]


def test_at_npz_never_unpickles(gradcli, tmp_path):
    import numpy as np

    np.savez(tmp_path / "obj.npz", a=np.array([{"a": 1}], dtype=object))
    message = error(gradcli("eval", "x", "--x", f"@{tmp_path / 'obj.npz'}"))
    assert "never unpickles" in message
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    assert "not a .npz file" in error(gradcli("eval", "x", "--x", f"@{tmp_path / 'bad.npz'}"))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x,y\n1,2\n3,4\n", [[1.0, 2.0], [3.0, 4.0]]),
        ('"time", "speed"\n0, 1.5\n1, 2.5\n', [[0.0, 1.5], [1.0, 2.5]]),
        ("t\n1\n2\n3\n", [1.0, 2.0, 3.0]),
    ],
)
def test_a_csv_header_of_names_is_skipped(gradcli_json, tmp_path, text, expected):
    path = tmp_path / "data.csv"
    path.write_text(text)
    assert gradcli_json("eval", "x", "--x", f"@{path}")["value"] == expected


def test_a_csv_with_a_word_among_numbers_is_still_an_error(gradcli, tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("1,2\n3,four\n")
    assert "'four' is not a number" in error(gradcli("eval", "x", "--x", f"@{path}"))


# ----------------------------------------------------------------------------
# For scripts: --get NAME; the Jacobian matrix of scalar inputs
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, stdout",
    [
        # sum(x**2) at [1, 2]: 5, gradient 2x.
        (["grad", "sum(x**2)", "--x", "[1, 2]", "--get", "grad.x"], "2 4\n"),
        (["grad", "sum(x**2)", "--x", "[1, 2]", "--get", "value"], "5\n"),
        # x**3 * y at (2, 3): d2/dxdy = 3x**2 = 12, d2/dx2 = 6xy = 36.
        (["hessian", "x**3 * y", "--x", "2", "--y", "3", "--get", "hessian.x.y"], "12\n"),
        (["hessian", "x**3 * y", "--x", "2", "--y", "3", "--get", "hessian.x.x"], "36\n"),
        # The Jacobian of [x*y, x] at (2, 3) w.r.t. x: [y, 1].
        (["jacobian", "[x*y, x]", "--x", "2", "--y", "3", "--get", "jacobian.x"], "3 1\n"),
        (["eval", "[[1, 2], [3, 4]]", "--get", "value"], "1 2 3 4\n"),
        (["jvp", "x**2", "--x", "3", "--tangent", "1", "--get", "jvp"], "6\n"),
        (["eval", "1/3", "--get", "value", "--precision", "3"], "0.333\n"),
    ],
)
def test_get_prints_only_the_numbers(gradcli, args, stdout):
    result = gradcli(*args)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == stdout
    assert result.stderr == ""


def test_get_unknown_name_lists_the_results(gradcli):
    message = error(gradcli("grad", "x * y", "--x", "1", "--y", "2", "--get", "grad.z"))
    assert message == "error: --get grad.z: no such result; the results are value, grad.x, grad.y"


def test_get_in_a_shell_substitution(gradcli_script):
    import subprocess

    script = (
        f'g=$("{gradcli_script[-1]}" grad "sum(x**2)" --x "[1, 2]" --get grad.x) && '
        f'"{gradcli_script[-1]}" eval "sum(x)" --x "[$(echo $g | tr " " ,)]" --get value'
    )
    if len(gradcli_script) != 1:
        pytest.skip("needs the gradcli console script")
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "6\n"  # 2 + 4


def test_the_jacobian_of_scalar_inputs_is_one_matrix(gradcli):
    # Polar to Cartesian at r = 2, t = 0: d(r cos t, r sin t, r)/d(r, t) is
    # [[cos t, -r sin t], [sin t, r cos t], [1, 0]] = [[1, 0], [0, 2], [1, 0]].
    table = gradcli("jacobian", "[r*cos(t), r*sin(t), r]", "--r", "2", "--t", "0", tty=True)
    lines = table.stdout.splitlines()
    row = next(i for i, line in enumerate(lines) if "∂f/∂(r, t)" in line)
    assert "(3, 2)" in lines[row]
    cells = [line.split("│")[-2].strip() for line in lines[row : row + 3]]
    assert cells == ["[[1 0]", "[0 2]", "[1 0]]"]
    # Plain output keeps one line per input, its numbers in output order.
    out = plain(
        gradcli("jacobian", "[r*cos(t), r*sin(t), r]", "--r", "2", "--t", "0", "--format", "plain")
    )
    assert out["jacobian.r"] == [1.0, 0.0, 1.0] and out["jacobian.t"] == [0.0, 2.0, 0.0]


def test_a_jacobian_with_a_vector_input_keeps_one_row_per_input(gradcli):
    lines = gradcli("jacobian", "x * y", "--x", "[1, 2]", "--y", "3", tty=True).stdout
    assert "∂f/∂x" in lines and "∂f/∂y" in lines and "∂f/∂(" not in lines


# ----------------------------------------------------------------------------
# Errors that guide: one error with its caret, exit status 2
# ----------------------------------------------------------------------------


NO_PREFIX = "gradcli's functions and constants take no module prefix: "


def caret(result) -> tuple[str, int, int]:
    """The error's first line, and the first and last column its caret marks."""
    lines = result.stderr.rstrip("\n").split("\n")
    assert result.exit_code == 2 and len(lines) == 3, result.stderr
    marks = lines[2][2:]
    start = marks.index("^")
    return lines[0], start + 1, start + len(marks[start:].rstrip())


@pytest.mark.parametrize(
    "source, message, first, last",
    [
        ("sin x", "'sin' is a function: write sin(x)", 1, 5),
        ("2 * exp 1", "'exp' is a function: write exp(1)", 5, 9),
        (
            "30deg",
            "'30deg': units are not supported; write deg2rad(30) or 30*pi/180 (radians)",
            1,
            5,
        ),
        (
            "sin(30°)",
            "'30°': units are not supported; write deg2rad(30) or 30*pi/180 (radians)",
            7,
            7,
        ),
        (
            "x if [1, 2] > 0 else 0",
            "the condition of the 'if ... else' at line 1 has 2 values (shape (2,)), not one"
            " truth value: to choose entry by entry write where(",
            6,
            15,
        ),
        ("for i in x: i", "a for loop runs over range(n), range(start, stop) or range(", 10, 10),
        (
            "lambda t: t**2",
            "'lambda': gradcli's language is not Python; write an anonymous function as "
            "x -> x**2, or define one as f(x) = x**2",
            1,
            6,
        ),
        (
            "import numpy",
            "'import': gradcli's language is not Python; there is nothing to import",
            1,
            6,
        ),
        ("x and 1", "'and': gradcli's language is not Python; conditions are 0 or 1", 3, 5),
        (
            "np.sin(x)",
            f"'np.sin': {NO_PREFIX}drop 'np.'; write sin(...)",
            1,
            6,
        ),
        (
            "math.sin(x)",
            f"'math.sin': {NO_PREFIX}drop 'math.'; write sin(...)",
            1,
            8,
        ),
        ("torch.sin(x)", "drop 'torch.'; write sin(...)", 1, 9),
        (
            "F.softmax(x, dim=0)",
            f"'F.softmax': {NO_PREFIX}drop 'F.'; write softmax(...)",
            1,
            9,
        ),
        ("torch.nn.functional.relu(x)", "drop 'torch.nn.functional.'; write relu(...)", 1, 24),
        ("math.pi * x", "drop 'math.'; write pi", 1, 7),
        (
            "np.arctan(x)",
            "drop 'np.'; gradcli has no function 'arctan' (did you mean 'atan'?)",
            1,
            9,
        ),
        ("arctan(x)", "unknown function 'arctan' (did you mean 'atan'?)", 1, 6),
        ("gammaln(x)", "unknown function 'gammaln' (did you mean 'lgamma'?)", 1, 7),
        ("mod(x, 2)", "unknown function 'mod' (write a % b)", 1, 3),
        ("Exp(x)", "unknown function 'Exp' (did you mean 'exp'?)", 1, 3),
        (
            "softmax(x, 0, 1)",
            "wrong number of arguments: softmax takes 1 to 2 arguments but 3 were given:"
            " softmax(input, dim=-1)",
            1,
            7,
        ),
        (
            "max(x, 0, 1)",
            "wrong number of arguments: max takes 1 to 2 arguments but 3 were given:"
            " max(input, other=None, *, dim=None, keepdim=False)",
            1,
            3,
        ),
        ("f(a, b) = a * b; f(x)", "f takes 2 arguments but 1 was given: f(a, b)", 18, 18),
    ],
)
def test_errors_that_guide(gradcli, source, message, first, last):
    head, start, end = caret(gradcli("eval", source, "--x", "[1, 2]"))
    assert head.startswith("error: ") and message in head
    assert (start, end) == (first, last)


def test_a_keyword_of_python_is_still_a_name_where_it_parses(gradcli):
    # lambda as a regularization weight: 0.5 * 4 = 2.
    assert plain(gradcli("eval", "lambda * x", "--lambda", "0.5", "--x", "4")) == {"value": [2.0]}


def test_gamma_never_suggests_amax(gradcli):
    # gamma is a function; a near miss of it suggests it, not amax.
    assert gradcli("eval", "gamma(x)", "--x", "2", "--format", "plain").stdout == "value 1\n"
    head = error(gradcli("eval", "gama(x)", "--x", "2"))
    assert head.startswith("error: unknown function 'gama' (did you mean 'gamma'?)")


def test_an_alias_is_suggested_only_while_its_target_exists(monkeypatch):
    from gradcli.engine.ops import FUNCTIONS
    from gradcli.language.check import FUNCTION_ALIASES, suggest_function

    assert FUNCTION_ALIASES["tgamma"] == "gamma"
    if "gamma" not in FUNCTIONS:
        assert suggest_function("tgamma") == ""
        monkeypatch.setitem(FUNCTIONS, "gamma", FUNCTIONS["log"])
    assert suggest_function("tgamma") == " (did you mean 'gamma'?)"
    # Taken out and put back in its place: the table's order is what listings show.
    saved = dict(FUNCTIONS)
    try:
        del FUNCTIONS["gamma"]
        assert "'gamma'" not in suggest_function("tgamma")  # a near name (lgamma) may come
    finally:
        FUNCTIONS.clear()
        FUNCTIONS.update(saved)
    # Every alias names a function or is a near miss of nothing: no alias of itself.
    assert all(alias not in FUNCTIONS for alias in FUNCTION_ALIASES if alias != "len")


def test_a_missing_function_in_the_listing_gets_the_same_suggestion(gradcli):
    result = gradcli("functions", "arctan")
    assert result.exit_code == 2
    assert result.stderr == "error: unknown function 'arctan' (did you mean 'atan'?)\n"


def test_a_bare_word_names_a_program_file_beside_it(gradcli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "energy.grad").write_text("x**2\n")
    head = error(gradcli("grad", "energy"))
    assert head.startswith("error: no value for energy")
    assert "(did you mean the program file energy.grad?)" in head
    # With the file named, it runs: x**2 at 3 is 9, slope 6.
    out = plain(gradcli("grad", "energy.grad", "--x", "3", "--format", "plain"))
    assert out == {"value": [9.0], "grad.x": [6.0]}
    (tmp_path / "energy.grad").unlink()
    assert "program file" not in error(gradcli("grad", "energy"))


def test_the_file_hint_never_reads_the_file(gradcli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    secret = tmp_path / "energy.grad"
    secret.write_text("x**2\n")
    secret.chmod(0)
    try:
        assert "(did you mean the program file energy.grad?)" in error(gradcli("grad", "energy"))
    finally:
        secret.chmod(0o644)


def test_standard_input_serves_one_reader(gradcli):
    message = error(gradcli("grad", "-", "--x", "@-", input="x**2\n"))
    assert message == "error: --x @-: standard input holds the program; give the value otherwise"
    message = error(gradcli("grad", "x * y", "--x", "@-", "--y", "@-", input="1\n"))
    assert message == "error: --x and --y both read standard input (@-)"


def test_a_function_name_used_as_a_value_says_to_call_it(gradcli):
    head, start, end = caret(gradcli("eval", "exp -x", "--x", "1"))
    assert head == "error: 'exp' is a function: call it as exp(...) at 1:1"
    assert (start, end) == (1, 3)


def test_an_input_named_like_a_module_is_an_input(gradcli):
    # F = [1, 2] (a force): F.sum() is 3, and d/dF is [1, 1].
    out = plain(gradcli("grad", "F.sum()", "--F", "[1, 2]", "--format", "plain"))
    assert out == {"value": [3.0], "grad.F": [1.0, 1.0]}
    # Without a value for torch, torch.sum(x) is Python's: the message says so.
    head, start, end = caret(gradcli("eval", "torch.sum(x)", "--x", "1"))
    assert head.startswith(f"error: 'torch.sum': {NO_PREFIX}drop 'torch.'; write sum(...)")
    assert (start, end) == (1, 9)
