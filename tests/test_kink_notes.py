"""Notes at kinks: an evaluation exactly on a point where a convention decides the
derivative gets a ``note:`` naming the function, with a caret under the call; a
hair away there is none, and the notes never change a result."""

from __future__ import annotations

import json

import pytest

HAIR = "1e-9"

# (program, bindings on the kink, bindings a hair away, function, column, end)
KINKS = [
    ("1 + abs(x)", {"x": "0"}, {"x": HAIR}, "abs", 5, 7),
    ("2*relu(x)", {"x": "0"}, {"x": HAIR}, "relu", 3, 6),
    ("x + sign(x)", {"x": "0"}, {"x": HAIR}, "sign", 5, 8),
    ("x + sqrt(x)", {"x": "0"}, {"x": HAIR}, "sqrt", 5, 8),
    ("x * floor(x)", {"x": "2"}, {"x": "2.000001"}, "floor", 5, 9),
    ("x * ceil(x)", {"x": "-3"}, {"x": "-2.999999"}, "ceil", 5, 8),
    ("x + round(x)", {"x": "2.5"}, {"x": "2.500001"}, "round", 5, 9),
    ("clamp(x, min=0, max=1)", {"x": "1"}, {"x": "0.999999"}, "clamp", 1, 5),
    ("x.clamp(min=0)", {"x": "0"}, {"x": HAIR}, "clamp", 3, 7),
    ("max(x, y)", {"x": "1", "y": "1"}, {"x": "1", "y": "1.000001"}, "max", 1, 3),
    ("maximum(x, y)", {"x": "1", "y": "1"}, {"x": "1", "y": "1.000001"}, "maximum", 1, 7),
    ("y * minimum(x, y)", {"x": "2", "y": "2"}, {"x": "2", "y": "2.000001"}, "minimum", 5, 11),
    ("max(v)", {"v": "[1, 3, 3]"}, {"v": "[1, 3, 3.000001]"}, "max", 1, 3),
    (
        "sum(min(m, dim=0))",
        {"m": "[[1, 2], [1, 3]]"},
        {"m": "[[1, 2], [1.000001, 3]]"},
        "min",
        5,
        7,
    ),
    ("max(x, 0)", {"x": "0"}, {"x": HAIR}, "max", 1, 3),
    ("amax(v)", {"v": "[2, 2]"}, {"v": "[2, 1.999999]"}, "amax", 1, 4),
    ("v.amin()", {"v": "[2, 2]"}, {"v": "[2, 1.999999]"}, "amin", 3, 6),
    ("norm(v)", {"v": "[0, 0]"}, {"v": f"[0, {HAIR}]"}, "norm", 1, 4),
    ("x**0.5 + 1", {"x": "0"}, {"x": HAIR}, "pow", 2, 3),
    ("pow(x, 1.5)", {"x": "0"}, {"x": HAIR}, "pow", 1, 3),
]


def _args(program, bindings):
    return [program, *(f"--{name}={value}" for name, value in bindings.items())]


@pytest.mark.parametrize(
    "program, at, away, function, column, end", KINKS, ids=[k[0] for k in KINKS]
)
def test_a_note_at_the_kink_and_none_a_hair_away(gradcli, program, at, away, function, column, end):
    command = "grad" if "v" not in at and "m" not in at else "jacobian"
    result = gradcli(command, *_args(program, at), "--format", "json")
    assert result.exit_code == 0, result.output
    notes = json.loads(result.stdout)["notes"]
    assert len(notes) == 1
    note = notes[0]
    assert note["kind"] == "note"
    assert note["message"].startswith(f"{function} is evaluated ")
    assert "where it has no derivative (convention: " in note["message"]
    assert (note["line"], note["column"], note["end"]) == (1, column, end)
    # On standard error: the source line, and a caret under the call.
    head, line, caret = result.stderr.splitlines()[:3]
    assert head.startswith(f"note: {function} is evaluated ") and head.endswith(f" at 1:{column}")
    assert line == f"  {program}"
    assert caret == "  " + " " * (column - 1) + "^" + "~" * (end - column)

    away_result = gradcli(command, *_args(program, away), "--format", "json")
    assert away_result.exit_code == 0
    assert "notes" not in json.loads(away_result.stdout)
    assert away_result.stderr == ""


def test_a_number_raised_to_a_power_is_smooth_in_the_exponent(gradcli):
    result = gradcli("grad", "0**p", "--p", "0.5", "--format", "plain")
    assert result.exit_code == 0 and result.stderr == ""


def test_the_convention_comes_from_the_op_table(gradcli):
    from gradcli.engine.ops import FUNCTIONS

    result = gradcli("grad", "abs(x)", "--x", "0", "--format", "plain")
    assert f"(convention: {FUNCTIONS['abs'].kink})" in result.stderr
    assert result.stdout == "value 0\ngrad.x 0\n"


def test_notes_on_every_command(gradcli):
    for command, extra in [
        ("eval", []),
        ("grad", []),
        ("jacobian", []),
        ("hessian", []),
        ("vjp", []),
        ("jvp", ["--tangent", "1"]),
        ("graph", []),
    ]:
        result = gradcli(command, "relu(x) + x", "--x", "0", *extra, "--format", "plain")
        assert result.exit_code == 0, (command, result.output)
        # Once, though a Hessian evaluates the program several times.
        assert result.stderr.count("note: relu is evaluated at 0") == 1, command


def test_notes_never_change_results(gradcli_json):
    # relu'(0) = 0 and |x|' = 0 at 0 (PyTorch's conventions), with the note or without.
    out = gradcli_json("grad", "relu(x) + abs(y) + x*y", "--x", "0", "--y", "0")
    assert out["grad"] == {"x": 0, "y": 0}
    assert [n["message"].split(" ")[0] for n in out["notes"]] == ["relu", "abs"]


def test_notes_count_the_entries_on_the_kink(gradcli_json):
    out = gradcli_json("jacobian", "abs(x)", "--x", "[0, 1, 0]")
    assert out["notes"][0]["message"].startswith("abs is evaluated at 0 in 2 of 3 entries")


def test_a_note_inside_a_program_file_points_at_its_line(gradcli, tmp_path):
    program = tmp_path / "p.grad"
    program.write_text("y = x * 2\nz = abs(y - 2)\nz + 1\n")
    result = gradcli("grad", program, "--x", "1", "--format", "json")
    note = json.loads(result.stdout)["notes"][0]
    assert (note["line"], note["column"], note["end"]) == (2, 5, 7)
    assert result.stderr.splitlines()[1:3] == ["  z = abs(y - 2)", "      ^~~"]


def test_warnings_in_json_have_the_same_structure(gradcli):
    result = gradcli("grad", "log(x)", "--x", "0", "--format", "json")
    out = json.loads(result.stdout)
    assert out["warnings"][0] == {
        "kind": "warning",
        "message": "the value contains -inf; the first came from log",
        "line": 1,
        "column": 1,
        "end": 3,
    }
    assert out["warnings"][1]["message"] == "grad.x contains inf"
    assert out["warnings"][1]["line"] is None
