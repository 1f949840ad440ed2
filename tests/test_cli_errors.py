"""Exit codes and messages: 0 success, 2 any bad input with one ``error:`` message
(the source line and a caret where there is a position), 3 a non-finite result
under ``--strict``; never a traceback unless ``--debug``."""

from __future__ import annotations

import json

import pytest


def failed(result, code=2):
    """The error message of a run that exited ``code`` and printed nothing on stdout."""
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.stderr
    return result.stderr


# ----- usage -----


@pytest.mark.parametrize(
    "args, message",
    [
        (["eval"], "error: missing SOURCE: an expression, a program file, or - for standard"),
        (["eval", "1", "--no-such", "2"], "error: no such option '--no-such'"),
        (["eval", "1", "--format", "xml"], "error: invalid value for '--format'"),
        (["eval", "1", "--dtype", "float16"], "error: invalid value for '--dtype'"),
        (["eval", "1", "--precision", "0"], "error: invalid value for '--precision'"),
        (["eval", "1", "--seed", "one"], "error: invalid value for '--seed'"),
        (["eval", "1", "-f", "x.grad"], "error: give SOURCE or -f FILE, not both"),
        (["eval", "1", "-f"], "error: option '-f' requires an argument"),
        (["integrate", "x"], "error: no such command 'integrate'"),
    ],
)
def test_usage_errors(gradcli, args, message):
    assert failed(gradcli(*args)).startswith(message)


def test_usage_error_points_to_help(gradcli):
    assert "(see 'gradcli eval --help')" in failed(gradcli("eval"))


# ----- the program -----


def test_syntax_error_shows_the_line_and_a_caret(gradcli):
    lines = failed(gradcli("eval", "sin(x", "--x", "1")).splitlines()
    assert lines[0].startswith("error: ") and lines[0].endswith(" at 1:4")
    assert lines[1:] == ["  sin(x", "     ^"]


def test_error_in_a_program_file_points_into_the_file(gradcli, tmp_path):
    path = tmp_path / "broken.grad"
    path.write_text("x = 2\ny = x +* 3\ny\n")
    lines = failed(gradcli("grad", path)).splitlines()
    assert lines[0].endswith(f" at {path}:2:8")  # the file named: it was read
    assert lines[1:] == ["  y = x +* 3", "         ^"]


def test_unknown_function_suggests_a_name(gradcli):
    message = failed(gradcli("eval", "sinn(x)", "--x", "1"))
    assert "unknown function 'sinn' (did you mean 'sin'?) at 1:1" in message


def test_shape_error_names_both_shapes(gradcli):
    message = failed(gradcli("eval", "[1, 2] + [1, 2, 3]"))
    assert "(2,)" in message and "(3,)" in message
    assert message.splitlines()[1:] == ["  [1, 2] + [1, 2, 3]", "         ^"]


def test_grad_of_a_vector_output_says_what_to_use(gradcli):
    message = failed(gradcli("grad", "[x, 2*x]", "--x", "1"))
    assert "grad needs a scalar output, but the output has shape (2,)" in message
    assert "gradcli jacobian" in message and "gradcli vjp --grad-output V" in message


def test_hessian_of_a_vector_output_is_an_error(gradcli):
    assert "hessian needs a scalar output" in failed(gradcli("hessian", "x*[1, 2]", "--x", "1"))


# ----- names and bindings -----


def test_binding_an_unknown_name_suggests_one(gradcli):
    # A free name next to a binding that fits nothing: the caret shows the name.
    message = failed(gradcli("eval", "xx + 1", "--x", "1"))
    assert message == (
        "error: no value for xx: --x binds no input (did you mean --xx?) at 1:1\n  xx + 1\n  ^~\n"
    )
    message = failed(gradcli("eval", "a * b", "--a", "1", "--c", "2"))
    assert message == (
        "error: eval has no option --c, and the program has no input named 'c'; "
        "its inputs are a, b\n(see 'gradcli eval --help')\n"
    )


def test_binding_a_computed_name_is_an_error(gradcli):
    message = failed(gradcli("eval", "y = 2*x; y", "--x", "1", "--y", "2"))
    assert "no input named 'y'" in message


def test_missing_binding_says_how_to_bind(gradcli):
    assert failed(gradcli("eval", "x + y", "--x", "1")) == (
        "error: no value for y: bind it with --y VALUE at 1:5\n  x + y\n      ^\n"
    )
    assert "bind them with --x VALUE --y VALUE" in failed(gradcli("eval", "x + y"))


@pytest.mark.parametrize(
    "args, message",
    [
        (["--x"], "error: --x needs a value: --x VALUE"),
        (["--var", "x"], "error: --var expects NAME=VALUE, got 'x'"),
        (["--var", "1x=2"], "error: --var: '1x' is not a valid name"),
        (["--x", "1", "--x", "2"], "error: --x is given twice"),
        (["--x", "1", "--var", "x=2"], "error: --x is given twice"),
        (["--x", ""], "error: --x has an empty value"),
        (["--x", "@values.pkl"], "error: cannot read --x from @values.pkl: files ending in"),
        (["--x", "@absent.npy"], "error: cannot read --x from @absent.npy: no such file"),
    ],
)
def test_binding_errors(gradcli, args, message):
    assert failed(gradcli("eval", "x", *args)).startswith(message)


def test_a_bad_value_points_into_the_value(gradcli):
    lines = failed(gradcli("eval", "x", "--x", "[1, 2")).splitlines()
    assert lines[0].startswith("error: in the value of --x: ")
    assert lines[1:] == ["  [1, 2", "  ^"]


def test_a_value_must_be_constant(gradcli):
    message = failed(gradcli("eval", "x", "--x", "y + 1"))
    assert message.startswith("error: in the value of --x: ")


@pytest.mark.parametrize(
    "args, message",
    [
        (["grad", "x", "--x", "1", "--wrt", "z"], "error: --wrt z: the program has no input"),
        (["grad", "const c = 2; c*x", "--x", "1", "--wrt", "c"], "c is declared const"),
        (["vjp", "[x, x]", "--x", "1"], "vjp needs --grad-output V of the output's shape (2,)"),
        (
            ["vjp", "[x, x]", "--x", "1", "--grad-output", "[1, 2, 3]"],
            "--grad-output has shape (3,), but the output has shape (2,)",
        ),
        (["jvp", "x", "--x", "1"], "jvp needs a direction: --tangent NAME=V"),
        (
            ["jvp", "x*y", "--x", "1", "--y", "2", "--tangent", "1"],
            "--tangent V names no input, but the program has 2 inputs",
        ),
        (
            ["jvp", "x", "--x", "[1, 2]", "--tangent", "x=1"],
            "the tangent of x has shape (), but x has shape (2,)",
        ),
        (["jvp", "x", "--x", "1", "--tangent", "y=1"], "--tangent y: the program has no input"),
        (
            ["jvp", "x", "--x", "1", "--tangent", "x=1", "--tangent", "x=2"],
            "--tangent x is given twice",
        ),
        # NAME=TEXT options read by one helper (core.bindings.named_texts).
        (["check", "x**2", "--x", "1", "--grad", "x=2*x", "--grad", "x=2"], "--grad x is given"),
        (["propagate", "x", "--x", "1", "--sigma", "x=1", "--sigma", "x=2"], "--sigma x is given"),
        (
            ["fit", "b1*x", "--points", "samples/misra1a.csv", "--params", "b1=5,b1=1"],
            "--params b1 is given twice",
        ),
        (
            ["fit", "b1*x", "--points", "samples/misra1a.csv", "--params", "b1="],
            "--params b1= needs a starting value",
        ),
    ],
)
def test_option_errors(gradcli, args, message):
    assert message in failed(gradcli(*args))


# ----- files -----


def test_missing_program_file(gradcli, tmp_path):
    assert failed(gradcli("eval", "-f", tmp_path / "nope.grad")) == (
        f"error: cannot read {tmp_path / 'nope.grad'}: no such file\n"
    )


def test_program_file_that_is_a_directory(gradcli, tmp_path):
    assert "it is a directory" in failed(gradcli("eval", "-f", tmp_path))


def test_program_file_not_utf8(gradcli, tmp_path):
    path = tmp_path / "latin1.grad"
    path.write_bytes(b"x = 2 # \xe9\nx\n")
    assert "not UTF-8 text" in failed(gradcli("eval", "-f", path))


# ----- non-finite results -----


def test_nan_is_printed_with_a_warning_naming_the_operation(gradcli):
    result = gradcli("eval", "2*log(x) + 1", "--x", "-1")
    assert result.exit_code == 0
    assert result.stdout == "value nan\n"
    lines = result.stderr.splitlines()
    assert lines[0].startswith("warning: the value contains nan; the first came from log")
    assert lines[0].endswith(" at 1:3")
    assert lines[1:] == ["  2*log(x) + 1", "    ^~~"]


def test_a_nan_is_blamed_on_the_operation_that_made_it_not_on_an_inf_before_it(gradcli):
    # At 0, 1/x is inf and sin(inf) is nan: sin made the nan, of div's inf.
    result = gradcli("grad", "x*sin(1/x)", "--x", "0", "--format", "plain")
    assert result.exit_code == 0
    assert result.stdout == "value nan\ngrad.x nan\n"
    assert result.stderr.splitlines()[:3] == [
        "warning: the value contains nan; the first came from sin of inf "
        "(the inf from div at 1:8) at 1:3",
        "  x*sin(1/x)",
        "    ^~~",
    ]


def test_an_inf_carried_through_other_operations_is_traced_to_its_maker(gradcli):
    # log(0) is -inf, 2 * -inf still -inf, and 0 * -inf nan.
    result = gradcli("eval", "0 * (2 * log(x))", "--x", "0")
    assert result.stdout == "value nan\n"
    assert result.stderr.splitlines()[0] == (
        "warning: the value contains nan; the first came from mul of -inf "
        "(the -inf from log at 1:10) at 1:3"
    )


def test_an_inf_alone_is_still_blamed_on_the_operation_that_made_it(gradcli):
    result = gradcli("eval", "exp(x) * 2", "--x", "1000")
    assert result.stdout == "value inf\n"
    assert result.stderr.splitlines()[0] == (
        "warning: the value contains inf; the first came from exp at 1:1"
    )


def test_strict_turns_a_nonfinite_result_into_exit_3(gradcli):
    result = gradcli("eval", "log(x)", "--x", "0", "--strict")
    assert result.exit_code == 3
    assert result.stdout == "value -inf\n"
    assert result.stderr.startswith("warning: the value contains -inf")


def test_strict_passes_finite_results(gradcli):
    assert gradcli("eval", "log(x)", "--x", "1", "--strict").exit_code == 0


def test_infinite_derivative_at_a_finite_value(gradcli):
    result = gradcli("grad", "sqrt(x)", "--x", "0", "--strict")
    assert result.exit_code == 3
    assert result.stdout == "value 0\ngrad.x inf\n"
    assert result.stderr == (
        "note: sqrt is evaluated at 0, where it has no derivative "
        "(convention: derivative inf at 0) at 1:1\n  sqrt(x)\n  ^~~~\n"
        "warning: grad.x contains inf at a point where the value is finite; "
        "the first came from the derivative of sqrt at 1:1\n  sqrt(x)\n  ^~~~\n"
    )


def test_a_nan_gradient_of_an_infinite_derivative_times_0_says_so(gradcli):
    # At the origin d sqrt(u)/du = 1/(2 sqrt u) is inf, and du/dx = 2x is 0: the chain
    # rule's inf * 0 is nan (PyTorch's gradient there is nan too), not the note's inf.
    result = gradcli("grad", "sqrt(x**2+y**2)", "--x", "0", "--y", "0", "--format", "plain")
    assert result.exit_code == 0
    assert result.stdout == "value 0\ngrad.x nan\ngrad.y nan\n"
    lines = result.stderr.splitlines()
    assert lines[0].startswith("note: sqrt is evaluated at 0, where it has no derivative")
    assert lines[3:6] == [
        "warning: grad.x contains nan at a point where the value is finite; the first came "
        "from the derivative of sqrt, infinite there, times the derivative of pow at 1:7, "
        "0 there (inf * 0 is nan) at 1:1",
        "  sqrt(x**2+y**2)",
        "  ^~~~",
    ]


def test_nonfinite_json_is_strict_json(gradcli):
    result = gradcli("eval", "[log(x), -log(x), log(x - 1)]", "--x", "0", "--format", "json")

    def no_constants(name):
        raise AssertionError(f"non-standard JSON constant {name}")

    out = json.loads(result.stdout, parse_constant=no_constants)
    assert out["value"] == ["-inf", "inf", "nan"]
    assert [w["kind"] for w in out["warnings"]] == ["warning"]
    assert result.stderr.startswith("warning:")


def test_no_numpy_runtime_warnings(gradcli):
    result = gradcli("eval", "log(x) / 0", "--x", "-1")
    assert "RuntimeWarning" not in result.stderr


# ----- tracebacks -----


def test_debug_shows_the_traceback(gradcli):
    result = gradcli("eval", "sin(x", "--x", "1", "--debug")
    assert result.exit_code == 2
    assert "Traceback" in result.stderr
    assert result.stderr.rstrip().endswith("^")


def test_internal_error_exits_1_without_traceback(gradcli, monkeypatch):
    from gradcli import api

    def broken(*args, **kwargs):
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(api, "evaluate", broken)
    result = gradcli("eval", "1")
    assert result.exit_code == 1
    assert result.stderr == (
        "error: internal error (ZeroDivisionError: simulated bug); "
        "rerun with --debug for a traceback\n"
    )
    with pytest.raises(ZeroDivisionError):
        gradcli("eval", "1", "--debug")


def test_nothing_reaches_python_eval(gradcli, tmp_path):
    marker = tmp_path / "pwned"
    code = f"__import__('os').mkdir({str(marker)!r})"
    assert gradcli("eval", code).exit_code == 2
    assert gradcli("eval", "x", "--x", code).exit_code == 2
    assert not marker.exists()


def test_missing_binding_named_like_an_option_says_var(gradcli):
    assert failed(gradcli("eval", "seed * x", "--x", "1")).startswith(
        "error: no value for seed: bind it with --var seed=VALUE at 1:1\n"
    )


# ----- found by an audit: every kind of bad input exits 2 with one message -----


def test_bare_gradcli_shows_the_help_not_an_error(gradcli):
    result = gradcli()
    assert result.exit_code == 2
    assert result.stderr.startswith("Usage: gradcli [OPTIONS] COMMAND")
    assert "error:" not in result.stderr and "(see " not in result.stderr


@pytest.mark.parametrize(
    "error, message",
    [
        (MemoryError("Unable to allocate 7.28 TiB"), "error: out of memory (Unable to allocate"),
        # A MemoryError without a text: never empty brackets.
        (MemoryError(), "error: out of memory (the input asks for more memory than is free)\n"),
        (RecursionError("maximum recursion depth"), "error: the input is nested too deeply"),
    ],
)
def test_resource_errors_are_bad_input(gradcli, monkeypatch, error, message):
    from gradcli import api

    def too_big(*args, **kwargs):
        raise error

    monkeypatch.setattr(api, "evaluate", too_big)
    assert failed(gradcli("eval", "1")).startswith(message)


def test_a_value_too_large_for_memory(gradcli):
    # Over the limit on a result's size: refused before NumPy is asked for the memory.
    refused = failed(gradcli("eval", "x", "--x", "zeros(1e12)"))
    assert "the result would hold 1,000,000,000,000 numbers" in refused
    # Under a raised limit, NumPy's own refusal is the message.
    raised = ("eval", "x", "--x", "zeros(1e12)", "--max-elements", str(10**13))
    assert "out of memory" in failed(gradcli(*raised))


def test_seed_must_not_be_negative(gradcli):
    # not an error about randn, wherever the program draws its numbers
    message = failed(gradcli("eval", "randn(2)", "--seed", "-1"))
    assert message.startswith("error: invalid value for '--seed': -1 is not in the range x>=0")


def test_library_seed_must_not_be_negative():
    from gradcli import GradcliError, api

    with pytest.raises(GradcliError, match="non-negative integer"):
        api.evaluate("randn(2)", seed=-1)


@pytest.mark.parametrize("wrt", [",", " , "])
def test_wrt_without_names(gradcli, wrt):
    assert failed(gradcli("grad", "x*y", "--x", "1", "--y", "2", "--wrt", wrt)) == (
        "error: --wrt needs the names of inputs: --wrt x or --wrt x,y\n"
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["jvp", "x", "--x", "1", "--tangent", "1", "--wrt", "x"], "jvp has no option --wrt"),
        (["eval", "x", "--x", "1", "--tangent=1"], "eval has no option --tangent"),
        (["grad", "x", "--x", "1", "--tangent", "1"], "grad has no option --tangent"),
    ],
)
def test_options_of_other_commands_are_not_bindings(gradcli, args, message):
    text = failed(gradcli(*args))
    assert text.startswith(f"error: {message}")
    assert "--var" in text


# (--over is grad's own option too: many points.)
@pytest.mark.parametrize("name", ["eps", "atol", "rtol", "sigma", "cov", "order", "grad"])
def test_options_of_the_analyses_bind_inputs_elsewhere(gradcli, name):
    """A physicist's eps or sigma is a variable in grad, though check and propagate
    have options of those names."""
    result = gradcli("grad", f"x * {name}", "--x", "2", f"--{name}", "3", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"value": 6, "grad": {"x": 3, name: 2}}


def test_unknown_name_suggests_another_case(gradcli):
    assert "--X binds no input (did you mean --x?)" in failed(gradcli("eval", "x", "--X", "1"))


def test_tangent_without_a_name_for_a_program_without_inputs(gradcli):
    assert failed(gradcli("jvp", "2", "--tangent", "1")) == (
        "error: --tangent V names no input, but the program has no inputs: write --tangent NAME=V\n"
    )


# ----- the program's file -----


@pytest.mark.parametrize("name", ["missing.grad", "samples/rosenbrok.grad"])
def test_a_missing_grad_file_is_not_taken_for_an_expression(gradcli, name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert failed(gradcli("grad", name)) == f"error: cannot read {name}: no such file\n"


def test_a_directory_named_like_a_program(gradcli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.grad").mkdir()
    assert failed(gradcli("grad", "d.grad")) == "error: cannot read d.grad: it is a directory\n"


def test_a_fifo_or_a_symlink_loop_named_like_a_program(gradcli, tmp_path, monkeypatch):
    import os

    monkeypatch.chdir(tmp_path)
    os.mkfifo("p.grad")
    os.symlink("q.grad", "q.grad")
    assert failed(gradcli("grad", "p.grad")).startswith(
        "error: cannot read p.grad: it is a FIFO (a named pipe), not a regular file"
    )
    assert (
        failed(gradcli("grad", "q.grad")) == "error: cannot read q.grad: a loop of symbolic links\n"
    )


def test_empty_file_name(gradcli):
    assert failed(gradcli("eval", "-f", "")) == "error: cannot read '': no such file\n"


def test_binary_standard_input(gradcli):
    result = gradcli("eval", "-", input=b"\xff\xfe\x00x")
    assert failed(result) == "error: cannot read standard input: not UTF-8 text\n"


def test_a_program_that_is_too_large(gradcli, monkeypatch, tmp_path):
    from gradcli.core import bindings

    monkeypatch.setattr(bindings, "MAX_PROGRAM_BYTES", 2**20)
    big = tmp_path / "big.grad"
    big.write_text("1 +\\\n" * 300_000 + "1\n")
    assert "larger than 1 MiB" in failed(gradcli("eval", str(big)))
    assert "larger than 1 MiB" in failed(gradcli("eval", "-", input=big.read_text()))


def test_control_characters_never_reach_the_terminal(gradcli):
    lines = failed(gradcli("eval", "x\x1b[31m + 1", "--x", "1")).splitlines()
    assert "\x1b" not in "".join(lines)
    assert lines[1:] == ["  x\\x1b[31m + 1", "   ^~~~"]  # the escape under the caret


# ----- the output -----


def test_output_file_that_cannot_be_written(gradcli, tmp_path):
    path = tmp_path / "no" / "such" / "dir.npz"
    message = failed(gradcli("grad", "x**2", "--x", "1", "--output", str(path)))
    assert message == f"error: cannot write {path}: No such file or directory\n"


def test_output_file_that_is_a_directory(gradcli, tmp_path):
    (tmp_path / "d.npz").mkdir()
    assert "cannot write" in failed(gradcli("eval", "1", "-o", str(tmp_path / "d.npz")))


def test_a_full_standard_output_is_an_error_not_a_traceback(gradcli, monkeypatch):
    from gradcli import render

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(render, "render", full)
    result = gradcli("eval", "1")
    assert result.exit_code == 2  # the user's disk, not a bug of gradcli
    assert result.stderr == "error: cannot write standard output: No space left on device\n"


def test_warnings_list_every_kind(gradcli):
    result = gradcli("eval", "[nan, inf, -inf]")
    assert result.stderr == "warning: the value contains nan, inf and -inf\n"


def test_a_reader_that_goes_away_is_no_error(gradcli, monkeypatch):
    from gradcli import render

    def closed(*args, **kwargs):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(render, "render", closed)
    result = gradcli("eval", "1")
    assert (result.exit_code, result.stderr) == (141, "")


def test_a_nonfinite_input_is_named_in_the_warning(gradcli):
    result = gradcli("grad", "sum(x) * 2", "--x", "[1, inf, nan]")
    assert result.exit_code == 0
    assert result.stdout == "value nan\ngrad.x 2 2 2\n"
    assert result.stderr == "warning: the value contains nan; the input x holds nan and inf\n"


def test_interrupted(gradcli, monkeypatch):
    from gradcli import api

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "evaluate", interrupted)
    result = gradcli("eval", "1")
    assert result.exit_code == 130
    assert result.stderr.strip() == "error: interrupted"


def test_infinite_derivative_names_the_operation_whose_derivative_made_it(gradcli):
    result = gradcli(
        "grad", "x**2 + sqrt(x - 1) * 0 + y", "--x", "1", "--y", "2", "--format", "plain"
    )
    assert result.exit_code == 0
    # d/dx sqrt(x - 1) = 1 / (2 sqrt(x - 1)) is inf at x = 1, and inf * 0 is nan.
    assert result.stdout == "value 3\ngrad.x nan\ngrad.y 1\n"
    # sqrt at 0 is a kink, which a note names first.
    assert result.stderr.splitlines()[3:] == [
        "warning: grad.x contains nan at a point where the value is finite; "
        "the first came from the derivative of sqrt at 1:8",
        "  x**2 + sqrt(x - 1) * 0 + y",
        "         ^~~~",
    ]


# ----- options that are neither options nor inputs -----


@pytest.mark.parametrize(
    "args, message",
    [
        # Before: "--quiet needs a value: --quiet VALUE", a binding of an input quiet.
        (
            ["grad", "x**2", "--x", "1", "--quiet"],
            "error: grad has no option --quiet, and the program has no input named 'quiet'; "
            "its inputs are x",
        ),
        # Before: "--normalize: the program has no input named 'normalize'".
        (
            ["jvp", "x**2", "--x", "1", "--tangent", "1", "--normalize", "1"],
            "error: jvp has no option --normalize, and the program has no input named "
            "'normalize'; its inputs are x",
        ),
        # Before: "no such option '-q'".
        (
            ["grad", "x**2 + y", "--x", "1", "--y", "2", "-q"],
            "error: grad has no option -q; the program's inputs are x, y (--NAME VALUE binds one)",
        ),
        (["grad", "x**2", "-x", "1"], "error: grad has no option -x: to bind the input x, "
         "write --x VALUE"),
        (
            ["grad", "x**2", "--x", "1", "--formt", "json"],
            "error: grad has no option --formt (did you mean --format?), and the program has no "
            "input named 'formt'; its inputs are x",
        ),
        (
            ["grad", "x**2", "--x", "1", "--json"],
            "error: grad has no option --json (did you mean --format json?), and the program has "
            "no input named 'json'; its inputs are x",
        ),
        (
            ["grad", "x**2", "--x", "1", "--wtr", "x"],
            "error: grad has no option --wtr (did you mean --wrt?), and the program has no input "
            "named 'wtr'; its inputs are x",
        ),
        # An input of that name: the binding lacks its value.
        (["grad", "x**2 + quiet", "--x", "1", "--quiet"], "error: --quiet needs a value: "
         "--quiet VALUE"),
    ],
)  # fmt: skip
def test_an_unknown_option_is_told_apart_from_an_input(gradcli, args, message):
    assert failed(gradcli(*args)) == f"{message}\n(see 'gradcli {args[0]} --help')\n"


def test_an_unknown_option_lists_the_inputs_of_a_program_file(gradcli, tmp_path):
    path = tmp_path / "p.grad"
    path.write_text("const c = 2\nw = [1, 2]\nc * sum(w * x)\n")
    message = failed(gradcli("grad", path, "--x", "1", "--verbose"))
    assert message.startswith(
        "error: grad has no option --verbose, and the program has no input named 'verbose'; "
        "its inputs are w, x, c\n"
    )


def test_var_binds_a_name_and_keeps_its_message(gradcli):
    # --var NAME=VALUE is no option: the name is the program's to know.
    message = failed(gradcli("grad", "x**2", "--x", "1", "--var", "quiet=1"))
    assert message == "error: --quiet: the program has no input named 'quiet'; its inputs are x\n"
