"""Where the program comes from (SOURCE, a file, -f, standard input) and every form
of binding on the command line: --x 2, --x=2, --var x=2 and @FILE values."""

from __future__ import annotations

import json

import numpy as np
import pytest

# ----- SOURCE -----


def test_source_is_an_expression(gradcli_json):
    assert gradcli_json("eval", "x + 1", "--x", 1) == {"value": 2}


def test_source_naming_a_file_reads_it(gradcli_json, tmp_path):
    path = tmp_path / "square.grad"
    path.write_text("# a comment\nx = 3\ny = x**2\ny\n")
    assert gradcli_json("grad", path) == {"value": 9, "grad": {"x": 6}}


def test_a_file_needs_no_grad_suffix(gradcli_json, tmp_path):
    path = tmp_path / "program.txt"
    path.write_text("x = 3\nx * 2\n")
    assert gradcli_json("eval", path) == {"value": 6}


def test_dash_f_forces_a_file(gradcli_json, gradcli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x").write_text("x = 5\nx + 1\n")
    assert gradcli_json("eval", "-f", "x") == {"value": 6}
    # An existing file wins over the expression of the same name; -f is explicit.
    assert gradcli_json("eval", "x") == {"value": 6}
    assert gradcli_json("eval", "--file", "x", "--x", "1") == {"value": 2}


def test_missing_file_name_is_an_expression(gradcli_json, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert gradcli_json("eval", "x", "--x", 4) == {"value": 4}


def test_dash_reads_standard_input(gradcli_json):
    program = "x = [2, 3]\nsum(x**2)\n"
    assert gradcli_json("grad", "-", input=program) == {"value": 13, "grad": {"x": [4, 6]}}
    assert gradcli_json("grad", "-f", "-", input=program) == {"value": 13, "grad": {"x": [4, 6]}}


def test_errors_from_standard_input_show_the_line(gradcli):
    result = gradcli("eval", "-", input="x = 1\nx +\n")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[1] == "  x +"


# ----- bindings -----


@pytest.mark.parametrize(
    "binding",
    [["--x", "2"], ["--x=2"], ["--var", "x=2"], ["--var=x=2"]],
)
def test_binding_forms(gradcli_json, binding):
    assert gradcli_json("grad", "(x+2)**2+3", *binding) == {"value": 19, "grad": {"x": 8}}


def test_bindings_may_come_before_source(gradcli_json):
    assert gradcli_json("grad", "--x", "2", "(x+2)**2+3") == {"value": 19, "grad": {"x": 8}}


@pytest.mark.parametrize(
    "value, expected",
    [
        ("-1.5e3", -1500),
        ("-inf", "-inf"),
        ("-pi/4", -np.pi / 4),
        ("2", 2),
        ("pi/4", np.pi / 4),
        ("[2, 3]", [2, 3]),
        ("[[1,2],[3,4]]", [[1, 2], [3, 4]]),
        ("linspace(0, 1, 5)", [0, 0.25, 0.5, 0.75, 1]),
        ("sqrt(2) * e", np.sqrt(2) * np.e),
    ],
)
def test_binding_values(gradcli_json, value, expected):
    out = gradcli_json("eval", "x", "--x", value)
    assert np.allclose(
        np.asarray(out["value"], dtype=float), np.asarray(expected, dtype=float), rtol=1e-15
    )


def test_random_binding_shape(gradcli_json):
    out = gradcli_json("eval", "x", "--x", "randn(10, 20)")
    assert np.asarray(out["value"]).shape == (10, 20)


def test_unicode_names(gradcli_json):
    assert gradcli_json("grad", "θ**2", "--var", "θ=3") == {"value": 9, "grad": {"θ": 6}}
    assert gradcli_json("grad", "θ**2", "--θ", "3") == {"value": 9, "grad": {"θ": 6}}


def test_names_that_clash_with_options_use_var(gradcli_json):
    out = gradcli_json("grad", "seed * format", "--var", "seed=2", "--var", "format=5")
    assert out == {"value": 10, "grad": {"seed": 5, "format": 2}}


def test_binding_overrides_the_program_value(gradcli_json):
    assert gradcli_json("grad", "x = 2; x**2", "--x", "5") == {"value": 25, "grad": {"x": 10}}


def test_dash_dash_ends_options(gradcli):
    assert gradcli("eval", "--x", "3", "--format", "json", "--", "-x").stdout == '{"value": -3}\n'


# ----- @FILE values -----


def test_npy_file(gradcli_json, tmp_path):
    path = tmp_path / "w.npy"
    np.save(path, np.array([[1.0, 2.0], [3.0, 4.0]]))
    out = gradcli_json("grad", "sum(w**2)", "--w", f"@{path}")
    assert out == {"value": 30, "grad": {"w": [[2, 4], [6, 8]]}}


@pytest.mark.parametrize(
    "name, text",
    [("v.csv", "1, 2, 3\n"), ("v.txt", "1 2 3\n"), ("v.txt", "1\n2\n3\n"), ("v.json", "[1, 2, 3]")],
)
def test_text_files(gradcli_json, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    assert gradcli_json("grad", "sum(v**2)", "--v", f"@{path}") == {
        "value": 14,
        "grad": {"v": [2, 4, 6]},
    }


def test_json_output_reads_back_as_a_binding(gradcli_json, tmp_path):
    out = gradcli_json("jacobian", "x**2", "--x", "[1, 2]")
    path = tmp_path / "jac.json"
    path.write_text(json.dumps(out["jacobian"]["x"]))
    assert gradcli_json("eval", "sum(J)", "--J", f"@{path}") == {"value": 6}


def test_pickled_npy_is_refused(gradcli, tmp_path):
    path = tmp_path / "evil.npy"
    np.save(path, np.array([object()], dtype=object), allow_pickle=True)
    result = gradcli("eval", "x", "--x", f"@{path}")
    assert result.exit_code == 2
    assert "never unpickles" in result.stderr


def test_file_values_for_grad_output_and_tangent(gradcli_json, tmp_path):
    path = tmp_path / "v.json"
    path.write_text("[1, 0]")
    program = "k = zeros_like(x); k[0] = x[0]**2 + 3*x[1]; k[1] = 2*x[0] + x[1]**2; k"
    out = gradcli_json("vjp", program, "--x", "[2, 3]", "--grad-output", f"@{path}")
    assert out["vjp"] == {"x": [4, 3]}
    out = gradcli_json("jvp", program, "--x", "[2, 3]", "--tangent", f"x=@{path}")
    assert out["jvp"] == [4, 2]


# ----- found by an audit -----


@pytest.mark.parametrize(
    "args",
    [
        ["grad", "-x**2", "--x", "3"],
        ["grad", "--x", "3", "-x**2"],
        ["grad", "--x=3", "-(x**2)"],
    ],
)
def test_an_expression_may_start_with_a_minus(gradcli_json, args):
    assert gradcli_json(*args) == {"value": -9, "grad": {"x": -6}}


def test_a_negative_option_value_is_not_taken_for_source(gradcli_json):
    out = gradcli_json("eval", "x", "--x", "-3", "--precision", "2")
    assert out == {"value": -3}


def test_a_program_file_with_a_byte_order_mark(gradcli_json, tmp_path):
    path = tmp_path / "bom.grad"
    path.write_bytes("\ufeffx = 2\r\nx**2\r\n".encode())
    assert gradcli_json("grad", path) == {"value": 4, "grad": {"x": 4}}


@pytest.fixture
def mask(tmp_path):
    path = tmp_path / "mask.npy"
    np.save(path, np.array([True, False, True]))
    return f"@{path}"


def test_a_boolean_input_is_a_mask_never_differentiated(gradcli_json, gradcli, mask):
    program = "sum(x[m]**2)"
    args = ["--x", "[1, 2, 3]", "--m", mask]
    assert gradcli_json("grad", program, *args) == {"value": 10, "grad": {"x": [2, 0, 6]}}
    assert gradcli_json("jacobian", program, *args) == {"value": 10, "jacobian": {"x": [2, 0, 6]}}
    assert gradcli_json("vjp", program, *args)["vjp"] == {"x": [2, 0, 6]}
    assert gradcli_json("hessian", program, *args)["hessian"] == {
        "x": {"x": [[2, 0, 0], [0, 0, 0], [0, 0, 2]]}
    }
    for command in (["grad", "--wrt", "m"], ["jvp", "--tangent", "m=[1, 1, 1]"]):
        result = gradcli(command[0], program, *args, *command[1:])
        assert result.exit_code == 2
        assert result.stderr == "error: cannot differentiate with respect to m: it is boolean\n"


def test_a_boolean_value_prints_as_numbers(gradcli, gradcli_json, mask):
    assert gradcli_json("eval", "m", "--m", mask) == {"value": [1, 0, 1]}
    assert gradcli("eval", "m", "--m", mask).stdout == "value 1 0 1\n"


@pytest.mark.parametrize(
    "args",
    [
        ["eval", "x", "--x", "1", "-v"],
        ["eval", "-f", "prog.grad", "-v"],
        ["eval", "--file=prog.grad", "-v"],
        ["eval", "-fprog.grad", "-v"],
    ],
)
def test_with_a_source_a_dash_word_is_an_unknown_option(gradcli, args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.grad").write_text("x = 1\nx\n")
    result = gradcli(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "error: eval has no option -v; the program's inputs are x (--NAME VALUE binds one)\n"
    )


# ----- a file named like an expression -----


def test_a_file_named_as_the_expression_is_read_and_said(
    gradcli, gradcli_json, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "y").write_text("y**2\n")
    # Before: the file, y**2 at 3 (9 and 6), silently.
    result = gradcli("grad", "y", "--y", "3", "--format", "json")
    assert json.loads(result.stdout) == {"value": 9, "grad": {"y": 6}}
    assert result.stderr == (
        "note: y is a file here: the program is read from it; for the expression y, write (y)\n"
    )
    # The expression, in brackets: y at 3, slope 1; -f names the file: nothing to say.
    assert gradcli_json("grad", "(y)", "--y", "3") == {"value": 3, "grad": {"y": 1}}
    forced = gradcli("grad", "-f", "y", "--y", "3", "--format", "json")
    assert forced.exit_code == 0 and forced.stderr == ""


def test_an_error_in_a_program_read_from_a_file_names_the_file(gradcli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x").write_text("hello world\n")
    result = gradcli("eval", "x")
    assert result.exit_code == 2
    # Before: "implicit multiplication: write hello*world at 1:7", with no word of a file.
    assert result.stderr.splitlines() == [
        "note: x is a file here: the program is read from it; for the expression x, write (x)",
        "error: implicit multiplication: write hello*world at x:1:7",
        "  hello world",
        "        ^~~~~",
    ]
    assert gradcli("eval", "-f", "x").stderr.startswith(
        "error: implicit multiplication: write hello*world at x:1:7\n"
    )
    # A value's error points into the value, not the file.
    (tmp_path / "p.grad").write_text("a + 1\n")
    value = gradcli("eval", "p.grad", "--a", "[1, 2").stderr
    assert value.startswith("error: in the value of --a: ") and "p.grad" not in value
    assert gradcli("eval", "p.grad", "--a", "2").stderr == ""  # no expression: nothing said
