"""Language errors through the command line: one ``error:`` block (the message with its
place, the source line, a caret under the column), exit status 2, no traceback."""

from __future__ import annotations

import pytest


def error_block(result) -> list[str]:
    """The three lines of the error a run printed, after checking how it ended."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.rstrip("\n").split("\n")
    assert len(lines) == 3, result.stderr
    return lines


def caret_column(lines: list[str]) -> int:
    return lines[2].index("^") - 1  # the source line is indented by two spaces


@pytest.mark.parametrize(
    "args, message, column",
    [
        (["eval", "(x+2))**2", "--x", "2"], "unexpected ')'", 6),
        (["eval", "(x+2", "--x", "2"], "'(' is never closed", 1),
        (["eval", "x *", "--x", "2"], "unexpected end of input after '*'", 4),
        (["eval", "x $ 2", "--x", "2"], "unknown character '$'", 3),
        (["eval", "x² + 1", "--x", "2"], "unknown character '²': write x**2", 2),
        (["eval", "2x", "--x", "2"], "implicit multiplication: write 2*x", 2),
        (["eval", "sinn(x)", "--x", "2"], "unknown function 'sinn' (did you mean 'sin'?)", 1),
        (
            ["grad", "atan2(x)", "--x", "2"],
            "wrong number of arguments: atan2 takes 2 arguments but 1 was given",
            1,
        ),
        (["eval", "sum(x, foo=1)", "--x", "2"], "sum does not take the keyword 'foo'", 8),
        (
            ["eval", "[[1,2],[3]]"],
            "ragged list: an entry of shape (1,) among entries of shape (2,)",
            8,
        ),
        (
            ["eval", "x[5]", "--x", "[1,2]"],
            "getitem: index 5 is out of bounds for dimension 0 with size 2",
            3,
        ),
        (
            ["eval", "sum(x, dim=3)", "--x", "[1,2]"],
            "sum: Dimension out of range (expected to be in range of [-1, 0], but got 3)",
            12,
        ),
        (["grad", "f(x) = f(x)"], "function 'f' calls itself: recursion is not supported", 8),
        (["eval", "const c = 3; c = 4"], "cannot assign to 'c': it is declared const", 14),
        (["eval", "y = x + 1; x = 2"], "'x' is used before it is assigned", 5),
        (["eval", "x.__class__", "--x", "1"], "attribute '__class__' is not accessible", 3),
        (["eval", "max(x, dim=2.5)", "--x", "[1]"], "dim must be an integer, not 2.5", 12),
        (["eval", "max(x, dim=5)", "--x", "[1]"], "Dimension out of range", 12),
        (["eval", "max(x, dim=7)", "--x", "1"], "Dimension out of range", 12),
        (["eval", "min(x, y, dim=0)", "--x", "1", "--y", "2"], "min(a, b) is elementwise", 15),
        (["eval", "zeros(1e15)"], "zeros: the result would hold 1,000,000,000,000,000 numbers", 1),
        (["eval", "zeros(1e15)", "--max-elements", str(10**16)], "zeros: out of memory", 1),
    ],
)
def test_language_errors(gradcli, args, message, column):
    lines = error_block(gradcli(*args))
    assert lines[0].startswith(f"error: {message}")
    assert lines[0].endswith(f" at 1:{column}")
    assert lines[1] == "  " + args[1]
    assert caret_column(lines) == column


def test_a_shape_mismatch_names_both_shapes_with_the_caret_on_the_operator(gradcli):
    lines = error_block(gradcli("eval", "x * 2 + y", "--x", "[1,2]", "--y", "[1,2,3]"))
    assert "(2,)" in lines[0] and "(3,)" in lines[0]
    assert caret_column(lines) == 7


def test_empty_input(gradcli):
    assert error_block(gradcli("eval", "  # nothing"))[0] == "error: empty input at 1:1"


def test_an_error_on_line_three_of_a_program_file(gradcli, tmp_path):
    path = tmp_path / "model.grad"
    path.write_text("W = [[1, 2], [3, 4]]\nb = [1, 2, 3]\nh = W @ [1, 1] + b\nh.sum()\n")
    lines = error_block(gradcli("grad", path))
    assert lines[0].endswith("model.grad:3:16") and "(2,)" in lines[0] and "(3,)" in lines[0]
    assert lines[1:] == ["  h = W @ [1, 1] + b", "                 ^"]


def test_nesting_past_the_limit(gradcli):
    depth = 1000
    lines = error_block(gradcli("grad", "sin(" * depth + "x" + ")" * depth, "--x", "1"))
    assert lines[0] == "error: expression nested too deeply (limit 500) at 1:2001"
    # A source starting with '-' is read from standard input (as an argument it is an option).
    lines = error_block(gradcli("eval", "-", "--x", "1", input="-" * 1000 + "x"))
    assert lines[0] == "error: expression nested too deeply (limit 500) at 1:501"
    chain = "\n".join(["f0(a) = a"] + [f"f{i}(a) = f{i - 1}(a)" for i in range(1, 1000)])
    lines = error_block(gradcli("eval", "-", "--x", "1", input=chain + "\nf999(x)\n"))
    assert lines[0].startswith("error: expression nested too deeply (limit 500): calling 'f499'")


def test_long_and_deep_programs_work(gradcli_json):
    n = 10_000
    out = gradcli_json("grad", "+".join(["x"] * n), "--x", "1.5")
    assert out["value"] == 1.5 * n and out["grad"]["x"] == n
    depth = 200
    out = gradcli_json("grad", "(" * depth + "x" + " * 1.01)" * depth, "--x", "2")
    assert out["value"] == pytest.approx(2 * 1.01**depth, rel=1e-12)
    assert out["grad"]["x"] == pytest.approx(1.01**depth, rel=1e-12)
