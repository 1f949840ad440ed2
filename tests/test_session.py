"""The interactive session as a library, without a terminal: statements carried from
line to line, results, errors with their carets, the commands, completion.

Expected numbers are derived by hand in the comments."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from gradcli import api
from gradcli.cli.session import COMMANDS, Message, Problem, Session, Shown


def run(session: Session, text: str) -> list:
    return list(session.run(text))


def shown(session: Session, text: str):
    """The one result of ``text``, which must succeed."""
    outputs = run(session, text)
    results = [o.result for o in outputs if isinstance(o, Shown)]
    assert len(results) == 1, outputs
    return results[0]


def problem(session: Session, text: str) -> str:
    outputs = run(session, text)
    assert len(outputs) == 1 and isinstance(outputs[0], Problem), outputs
    return outputs[0].text


def messages(session: Session, text: str) -> str:
    outputs = run(session, text)
    assert all(isinstance(o, Message) for o in outputs), outputs
    return "\n".join(o.text for o in outputs)


# ----------------------------------------------------------------------------
# Statements
# ----------------------------------------------------------------------------


def test_definitions_are_carried_from_line_to_line():
    s = Session()
    assert run(s, "x = 2") == []
    assert run(s, "f(a) = a**3") == []
    assert run(s, "const c = 5") == []
    r = shown(s, "f(x) + c*x")
    # 2**3 + 5*2 = 18; d/dx = 3x**2 + 5 = 17
    assert r.command == "grad"
    assert float(r.value) == 18
    assert r.inputs == ("x",)
    assert float(r.grad["x"]) == 17


def test_a_vector_output_shows_its_jacobian():
    s = Session()
    run(s, "x = [2, 3]")
    r = shown(s, "x**2 + 1")
    assert r.command == "jacobian"
    np.testing.assert_array_equal(r.value, [5, 10])
    np.testing.assert_array_equal(r.jacobian["x"], [[4, 0], [0, 6]])


def test_an_expression_without_inputs_shows_its_value():
    r = shown(Session(), "2**10")
    assert r.command == "eval"
    assert float(r.value) == 1024


def test_derivatives_are_taken_with_respect_to_the_inputs_the_expression_reads():
    s = Session()
    run(s, "x = 2; y = 3; W = [[1, 2], [3, 4]]")
    run(s, "h(a) = a * y")
    assert shown(s, "x**2").inputs == ("x",)
    r = shown(s, "h(x)")  # through the function's body: y too
    assert r.inputs == ("x", "y")
    assert (float(r.grad["x"]), float(r.grad["y"])) == (3, 2)
    run(s, "z = x * sum(W)")  # through an assignment: d/dW of x*sum(W) is x everywhere
    r = shown(s, "z + 1")
    assert r.inputs == ("x", "W")
    np.testing.assert_array_equal(r.grad["W"], np.full((2, 2), 2.0))


def test_a_new_constant_value_rebinds_an_input_for_every_line():
    s = Session()
    run(s, "x = 2")
    run(s, "f = (x + 2)**2")
    run(s, "x = 3")
    r = shown(s, "f")
    # (3+2)**2 = 25; d/dx = 2(x+2) = 10
    assert (float(r.value), float(r.grad["x"])) == (25, 10)
    assert [st.text for st in s.statements] == ["x = 3", "f = (x + 2)**2"]


def test_a_computed_reassignment_comes_after():
    s = Session()
    run(s, "x = 2")
    run(s, "x = x * 10")
    r = shown(s, "x + 1")
    # x is the input 2, then 10x: the line is 10x + 1 = 21, d/dx = 10
    assert (float(r.value), float(r.grad["x"])) == (21, 10)


def test_a_const_can_be_given_a_new_value():
    s = Session()
    run(s, "const c = 2")
    run(s, "const c = 7")
    assert float(shown(s, "c + 1").value) == 8


def test_a_pasted_program_runs_statement_by_statement():
    s = Session()
    outputs = run(
        s,
        "x = [2, 3]\nk = zeros_like(x)\nk[0] = x[0]**2 + 3*x[1]\n"
        "k[1] = 2*x[0] + x[1]**2\nk\nsum(k)",
    )
    results = [o.result for o in outputs if isinstance(o, Shown)]
    # k = [4 + 9, 4 + 9]; J = [[2*x0, 3], [2, 2*x1]] = [[4, 3], [2, 6]]
    np.testing.assert_array_equal(results[0].jacobian["x"], [[4, 3], [2, 6]])
    np.testing.assert_array_equal(results[1].grad["x"], [6, 9])


def test_a_statement_may_span_lines():
    s = Session()
    assert s.needs_more("W = [[1, 2],")
    assert s.needs_more("y = 2 + \\")
    assert not s.needs_more("W = [[1, 2], [3, 4]]")
    assert not s.needs_more(":help")
    run(s, "W = [[1, 2],\n     [3, 4]]")
    assert float(shown(s, "sum(W)").value) == 10


def test_comments_and_blank_lines_show_nothing():
    s = Session()
    assert run(s, "# nothing") == []
    assert run(s, "   ") == []


# ----------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------


def test_an_error_has_the_one_shot_message_and_caret(gradcli):
    text = problem(Session(), "(x+2))**2")
    one_shot = gradcli("eval", "(x+2))**2", "--x", "1")
    assert one_shot.exit_code == 2
    assert text == one_shot.stderr.rstrip("\n")
    assert text == "error: unexpected ')' at 1:6\n  (x+2))**2\n       ^"


def test_an_unknown_name_points_at_the_line_as_typed():
    s = Session()
    run(s, "x = 2")
    run(s, "y = [1,\n 2]")
    assert problem(s, "  xx + 1") == (
        "error: unknown name 'xx' (did you mean 'x'?) at 1:3\n    xx + 1\n    ^~"
    )


def test_an_error_in_the_second_statement_of_a_line_points_into_it():
    s = Session()
    outputs = run(s, "x = 2; y = x @ 3")
    assert len(outputs) == 1
    message = outputs[0].text
    assert message.startswith("error: ")
    assert message.endswith("at 1:14\n  x = 2; y = x @ 3\n               ^")
    # The statement before it took effect; the wrong one did not.
    assert [st.text for st in s.statements] == ["x = 2"]


def test_an_error_leaves_the_session_as_it_was():
    s = Session()
    run(s, "x = [1, 2]")
    assert problem(s, "x = [1, 2, 3] + [1, 2]").startswith("error: add: ")
    assert problem(s, "const x = 1").startswith("error: 'x' is already assigned")
    np.testing.assert_array_equal(shown(s, "x").value, [1, 2])


def test_recursion_and_unknown_functions_are_errors():
    s = Session()
    assert "recursion is not supported" in problem(s, "f(n) = n * f(n - 1)")
    assert problem(s, "sinn(2)").startswith("error: unknown function 'sinn' (did you mean 'sin'?)")


def test_a_nonfinite_value_warns():
    s = Session()
    run(s, "x = 0")
    outputs = run(s, "log(x)")
    assert isinstance(outputs[0], Shown)
    assert outputs[1].text.startswith("warning: the value contains -inf; the first came from log")


# ----------------------------------------------------------------------------
# Commands
# ----------------------------------------------------------------------------


def test_grad_jacobian_hessian_commands():
    s = Session()
    run(s, "x = 2; y = 3")
    r = shown(s, ":hessian x**3 * y")
    # f = x**3 y: grad (3x**2 y, x**3) = (36, 8); H = [[6xy, 3x**2], [3x**2, 0]]
    assert r.command == "hessian"
    assert (float(r.grad["x"]), float(r.grad["y"])) == (36, 8)
    assert float(r.hessian["x"]["x"]) == 36 and float(r.hessian["x"]["y"]) == 12
    assert float(r.hessian["y"]["y"]) == 0
    r = shown(s, ":jacobian [x, x*y]")
    np.testing.assert_array_equal(r.jacobian["x"], [1, 3])
    shown(s, "x * y")
    r = shown(s, ":hessian")  # of the last expression
    assert r.source == "x * y"
    assert float(r.hessian["x"]["y"]) == 1
    assert problem(s, ":grad x = 1") == "error: :grad takes one expression at 1:1\n  x = 1\n  ^"


def test_grad_alone_needs_an_expression_first():
    assert problem(Session(), ":grad") == "error: :grad needs an expression: :grad EXPR"


def test_wrt_chooses_the_inputs():
    s = Session()
    run(s, "x = 2; y = 3")
    assert messages(s, ":wrt y") == "derivatives with respect to y"
    r = shown(s, "x * y")
    assert r.inputs == ("y",) and float(r.grad["y"]) == 2
    assert problem(s, ":wrt z").startswith("error: :wrt z: no input is named z")
    run(s, ":wrt")
    assert shown(s, "x * y").inputs == ("x", "y")


def test_format_precision_dtype():
    s = Session()
    assert messages(s, ":format json") == "format json"
    assert s.format == "json"
    assert problem(s, ":format html") == "error: :format takes one of table, plain, json"
    assert messages(s, ":precision 3") == "precision 3"
    assert s.precision == 3
    assert problem(s, ":precision many").startswith("error: :precision takes")
    run(s, ":dtype float32")
    r = shown(s, "1/3")
    assert r.value.dtype == np.float32
    assert problem(s, ":dtype int8") == "error: :dtype takes one of float64, float32"


def test_inputs_lists_what_is_bound():
    s = Session()
    assert messages(s, ":inputs") == "no inputs: bind one with NAME = VALUE"
    run(s, "x = 2; W = [[1, 2], [3, 4]]; const c = 1")
    assert messages(s, ":inputs") == "x = 2\nW (2, 2) =\n[[1 2]\n [3 4]]"


def test_clear_forgets_everything():
    s = Session()
    run(s, "x = 2")
    run(s, ":clear")
    assert problem(s, "x + 1").startswith("error: unknown name 'x'")


def test_graph_shows_each_node_with_its_gradient_and_its_place_as_typed():
    s = Session()
    run(s, "x = 2; y = 3")
    g = shown(s, ":graph x*y + x")
    # d(xy + x)/dx = y + 1 = 4, d/dy = x = 2; the product node receives 1
    assert [(n.name, n.text) for n in g.nodes] == [
        ("AddBackward0", "x*y + x"),
        ("MulBackward0", "x*y"),
        ("AccumulateGrad", None),
        ("AccumulateGrad", None),
    ]
    assert [float(n.grad) for n in g.nodes] == [1, 1, 4, 2]
    assert (g.nodes[1].span.line, g.nodes[1].span.column) == (1, 1)
    assert g.title == "x*y + x"


def test_steps_shows_the_reverse_pass():
    s = Session()
    run(s, "x = 2")
    r = shown(s, ":steps (x+2)**2 + 3")
    # (x+2)**2 + 3: the power's rule sends 2*(x+2) = 8 to x+2, which sends 8 to x
    assert float(r.grad["x"]) == 8
    assert [r.graph.nodes[step.node].name for step in r.graph.steps] == [
        "AddBackward0",
        "PowBackward0",
        "AddBackward0",
    ]


def test_notes_and_warnings_point_into_the_line_as_typed(gradcli):
    s = Session()
    run(s, "x = 2; y = [1, 2]")
    outputs = run(s, "  abs(x - 2)")
    one_shot = gradcli("grad", "  abs(x - 2)", "--x", "2", "--format", "plain")
    assert outputs[1].text == one_shot.stderr.rstrip("\n")
    assert outputs[1].text.startswith("note: abs is evaluated at 0")
    assert outputs[1].text.endswith("at 1:3\n    abs(x - 2)\n    ^~~")


def test_an_unknown_command_suggests_the_closest():
    assert problem(Session(), ":hesian x") == (
        "error: unknown command :hesian (did you mean 'hessian'?): :help lists the commands"
    )


def test_help_lists_every_command():
    text = messages(Session(), ":help")
    for command in COMMANDS.values():
        assert command.usage in text


def test_a_command_without_arguments_takes_none():
    s = Session()
    run(s, "x = 1")
    assert problem(s, ":clear x") == "error: :clear takes nothing after it"
    assert s.inputs() == ("x",)


def test_quit():
    s = Session()
    run(s, ":quit")
    assert s.finished


def test_save_writes_a_program_the_one_shot_command_runs(tmp_path, gradcli_script):
    s = Session()
    run(s, "x = 2\nf(a) = a**3\ny = f(x) + x")
    r = shown(s, "y * 2")
    path = tmp_path / "session.grad"
    assert messages(s, f":save {path}") == f"saved 4 lines to {path}"
    done = subprocess.run(
        [*gradcli_script, "grad", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    # 2*(x**3 + x) at 2 = 20; d/dx = 2*(3x**2 + 1) = 26
    assert json.loads(done.stdout) == {"value": 20, "grad": {"x": 26}}
    assert (float(r.value), float(r.grad["x"])) == (20, 26)


def test_load_runs_a_program_file(tmp_path):
    path = tmp_path / "p.grad"
    path.write_text("# a comment\nx = 3\ng(t) = t**2\ng(x)\n")
    s = Session()
    outputs = run(s, f":load {path}")
    (result,) = [o.result for o in outputs if isinstance(o, Shown)]
    assert (float(result.value), float(result.grad["x"])) == (9, 6)
    assert float(shown(s, "g(x) + 1").value) == 10


def test_load_and_save_errors(tmp_path):
    s = Session()
    missing = tmp_path / "missing.grad"
    assert problem(s, f":load {missing}") == f"error: cannot read {missing}: no such file"
    assert problem(s, ":save") == "error: :save needs a file name: :save FILE.grad"
    assert problem(s, f":save {tmp_path / 'a.py'}").endswith("a program file's name ends in .grad")
    assert problem(s, f":save {tmp_path / 's.grad'}").startswith("error: nothing to save")
    bad = tmp_path / "bad.grad"
    bad.write_text("x = 1\nx +\n")
    assert (
        problem(s, f":load {bad}")
        == "error: unexpected end of line after '+' at 2:4\n  x +\n     ^"
    )


# ----------------------------------------------------------------------------
# Completion
# ----------------------------------------------------------------------------


def test_completion_of_every_function_of_the_op_table():
    s = Session()
    names = [f.name for f in api.functions()]
    for name in names:
        words, length = s.completions(f"1 + {name[:-1]}")
        assert name in words and length == len(name) - 1


def test_completion_of_names_commands_and_choices():
    s = Session()
    run(s, "weight = 2; square(t) = t**2")
    assert s.completions("wei") == (["weight"], 3)
    assert "square" in s.completions("squ")[0]
    assert s.completions(":he") == ([":hessian", ":help"], 3)
    assert s.completions(":format j") == (["json"], 1)
    assert s.completions(":wrt ") == (["weight"], 0)
    words, _ = s.completions("weight.su")
    assert words == ["sum"]


# ----------------------------------------------------------------------------
# :minimize, :solve, :fit
# ----------------------------------------------------------------------------


def test_minimize_and_solve_start_from_the_inputs_values():
    s = Session()
    run(s, "x = -1.2; y = 1")
    r = shown(s, ":minimize (1-x)**2 + 100*(y-x**2)**2")
    # By hand: Rosenbrock's gradient vanishes at (1, 1) only, where H = [[802, -400], [-400, 200]].
    assert r.command == "minimize" and r.source == "(1-x)**2 + 100*(y-x**2)**2"
    assert abs(r.point["x"] - 1) < 1e-8 and abs(r.point["y"] - 1) < 1e-8
    assert r.classification == "local minimum"
    run(s, "x = 2")
    shown(s, "x**3 - 2*x - 5")
    r = shown(s, ":solve")  # the last expression
    # Cardano: x³ - 2x - 5 has the one real root cbrt(5/2 + q) + cbrt(5/2 - q), q² = 643/108.
    q = np.sqrt(643 / 108)
    assert float(r.point["x"]) == pytest.approx(np.cbrt(2.5 + q) + np.cbrt(2.5 - q), rel=1e-14)
    assert s.inputs() == ("x", "y")  # the session's values stay as they were
    assert float(shown(s, "x").value) == 2


def test_a_solver_that_stops_short_shows_its_last_iterate_and_says_so():
    s = Session()
    run(s, "x = 1")
    outputs = run(s, ":solve x**2 + 1")
    assert isinstance(outputs[0], Shown) and not outputs[0].result.converged
    assert outputs[-1].text.startswith("error: solve did not converge (")


def test_fit_fits_the_inputs_with_values_and_reads_the_rest_from_the_file(tmp_path):
    import scipy.optimize

    x = np.linspace(0, 3, 20)
    y = 4 * np.exp(-0.7 * x) + 0.02 * np.cos(5 * x)
    data = tmp_path / "decay.csv"
    data.write_text(
        "t,counts\n" + "".join(f"{a!r},{b!r}\n" for a, b in zip(x.tolist(), y.tolist()))
    )
    expected, _ = scipy.optimize.curve_fit(
        lambda t, a, k: a * np.exp(-k * t), x, y, p0=[1, 1],
        jac=lambda t, a, k: np.stack([np.exp(-k * t), -a * t * np.exp(-k * t)], -1),
    )  # fmt: skip
    s = Session()
    run(s, "a = 1; k = 1")
    r = shown(s, f":fit {data} --response counts a*exp(-k*t)")
    assert r.command == "fit" and r.observations == 20
    got = [float(r.parameters["a"]), float(r.parameters["k"])]
    np.testing.assert_allclose(got, expected, rtol=1e-9)
    assert problem(s, f":fit {data} a*exp(-k*t)").startswith(
        f"error: --response y: {data} has no column 'y'; its columns are t, counts"
    )
    assert problem(Session(), f":fit {data} --response counts a*t").startswith(
        "error: :fit needs the parameters with their starting values"
    )


def test_the_repl_draws_a_report_as_its_command_does(capsys):
    from gradcli.cli import repl

    s = Session(fmt="plain")
    run(s, "x = 0")
    s.precision = 10
    said = []
    assert not repl._show(s, ":minimize (x-3)**2 + 1", said.append, False)
    out = capsys.readouterr().out
    # By hand: (x-3)² + 1 is least, 1, at x = 3, where its second derivative is 2.
    assert "point.x 3\n" in out and "value 1\n" in out and "classification local minimum" in out
    s.format = s.format.__class__("table")
    assert not repl._show(s, ":minimize (x-3)**2 + 1", said.append, False)
    assert "local minimum at" in capsys.readouterr().out and not said


def test_out_of_memory_without_numpys_text_says_why(monkeypatch):
    s = Session()

    def no_memory(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(s, "_block", no_memory)
    [problem] = list(s.run("x = 1"))
    assert isinstance(problem, Problem)
    assert problem.text == "error: out of memory (the input asks for more memory than is free)"


def test_a_pasted_program_is_compiled_once_not_once_a_line(monkeypatch):
    from gradcli.cli import session as session_module

    compiled = []
    original = session_module.compiled
    monkeypatch.setattr(
        session_module, "compiled", lambda s: compiled.append(len(s)) or original(s)
    )
    s = Session()
    text = "a0 = 1.5\n" + "".join(f"a{i} = a{i - 1} * 2 + {i}\n" for i in range(1, 200))
    assert list(s.run(text)) == []
    assert len(s.statements) == 200
    assert len(compiled) == 1  # one by one, it was 200 compilations of up to 200 lines
    [result] = list(s.run("a199"))
    expected = 1.5
    for i in range(1, 200):
        expected = expected * 2 + i  # by hand, in float64
    assert result.result.value == pytest.approx(expected, rel=1e-12)


def test_a_pasted_program_with_an_error_keeps_the_lines_before_it():
    s = Session()
    [problem] = list(s.run("a = [1, 2]\nb = [1, 2, 3]\nc = a + b\nd = 1"))
    assert problem.text.startswith("error: add: The size of tensor a (2) must match")
    assert " at 3:7\n" in problem.text
    assert [st.text for st in s.statements] == ["a = [1, 2]", "b = [1, 2, 3]"]


def test_a_line_after_a_loop_or_a_branch_sees_what_its_body_assigned():
    # Each line runs the statements it needs: a loop or an if whose body assigns a name
    # the line reads is one of them (by hand: 0+1+2+3 = 6; [0, 1, 4]; 10).
    s = Session()
    assert run(s, "s = 0") == []
    assert run(s, "for i in range(4):\n    s = s + i\n") == []
    assert float(shown(s, "s").value) == 6
    assert run(s, "A = zeros(3)") == []
    assert run(s, "for k in range(3): A[k] = k*k\n") == []
    assert shown(s, "A").value.tolist() == [0, 1, 4]
    assert run(s, "x = 2") == []
    assert run(s, "if x > 1:\n    y = 10\nelse:\n    y = 20\n") == []
    assert float(shown(s, "y").value) == 10
    # A name defined from an input, then changed by a loop: 2*2 + 1 + 1 = 6.
    assert run(s, "u = x * 2") == []
    assert run(s, "for i in range(2):\n    u = u + 1\n") == []
    assert float(shown(s, "u").value) == 6
