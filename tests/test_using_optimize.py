"""minimize, solve and critical through the real command, against SciPy given
hand-written derivatives and against SymPy; div, curl and laplacian against SymPy
at random points; bad input and divergence."""

from __future__ import annotations

import json

import numpy as np
import pytest

ROSENBROCK = "(1-x)**2 + 100*(y-x**2)**2"


def test_rosenbrock_from_the_classic_start_reaches_one_one(gradcli_json):
    shown = gradcli_json("minimize", ROSENBROCK, "--x", "-1.2", "--y", "1")
    assert abs(shown["point"]["x"] - 1) < 1e-8 and abs(shown["point"]["y"] - 1) < 1e-8
    assert shown["converged"] and shown["classification"] == "local minimum"
    # By hand: the Hessian at (1, 1) is [[802, -400], [-400, 200]].
    np.testing.assert_allclose(shown["eigenvalues"], np.linalg.eigvalsh([[802, -400], [-400, 200]]))


@pytest.mark.parametrize("method", ["trust-exact", "newton-cg", "bfgs", "l-bfgs-b"])
def test_minimize_agrees_with_scipy_given_hand_derivatives(gradcli_json, method):
    import scipy.optimize

    f = lambda v: np.exp(v[0] - 1) + np.exp(1 - v[1]) + (v[0] - v[1]) ** 2  # noqa: E731
    g = lambda v: np.array(  # noqa: E731
        [np.exp(v[0] - 1) + 2 * (v[0] - v[1]), -np.exp(1 - v[1]) - 2 * (v[0] - v[1])]
    )
    expected = scipy.optimize.minimize(f, [0.0, 0.0], jac=g, method="bfgs", tol=1e-12).x
    shown = gradcli_json(
        "minimize", "exp(x-1) + exp(1-y) + (x-y)**2", "--x", "0", "--y", "0", "--method", method
    )
    np.testing.assert_allclose([shown["point"]["x"], shown["point"]["y"]], expected, atol=1e-7)


def test_maximize_and_bounds(gradcli_json):
    shown = gradcli_json("minimize", "-(x-3)**2", "--x", "0", "--maximize")
    assert abs(shown["point"]["x"] - 3) < 1e-8 and shown["classification"] == "local maximum"
    shown = gradcli_json("minimize", "(x-3)**2", "--x", "0", "--bounds", "x=-1:2")
    assert shown["method"] == "l-bfgs-b" and abs(shown["point"]["x"] - 2) < 1e-8


def test_trace_lists_every_iteration(gradcli):
    result = gradcli(
        "minimize", ROSENBROCK, "--x", "-1.2", "--y", "1", "--trace", "--format", "json"
    )
    *trace, shown = [json.loads(line) for line in result.stdout.splitlines()]
    assert trace[0]["f"] == pytest.approx(24.2)  # (1+1.2)² + 100(1-1.44)²
    assert len(trace) == shown["iterations"] + 1


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["[x, x**2]", "--x", "1"], 2, "needs a scalar output"),
        (["x**2 + y", "--x", "1"], 2, "no value for y: bind it with --y VALUE"),
        (["x**3 - 3*x", "--x=-3"], 2, "minimize diverged from this start"),
        (["(1-x)**2 + 100*(y-x**2)**2", "--x", "-1.2", "--y", "1", "--max-iter", "2"], 1,
         "did not converge"),
    ],
)  # fmt: skip
def test_minimize_bad_input(gradcli, args, code, message):
    result = gradcli("minimize", *args, "--format", "plain")
    assert result.exit_code == code, result.output
    # The note naming the inputs varied (x and y) aside.
    said = "".join(line for line in result.stderr.splitlines(True) if not line.startswith("note:"))
    assert said.startswith("error: ") and message in said
    # One line, then the source line and its caret when there is a position.
    assert len(said.strip().splitlines()) in (1, 3)
    if code == 1:
        assert "point.x" in result.stdout  # the last iterate


def test_solve_a_cubic_against_sympy(gradcli_json):
    import sympy

    x = sympy.symbols("x", real=True)
    (root,) = [r for r in sympy.solve(x**3 - 2 * x - 5, x) if r.is_real]
    shown = gradcli_json("solve", "x**3 - 2*x - 5", "--x", "2")
    assert shown["point"]["x"] == pytest.approx(float(sympy.N(root, 30)), rel=1e-14)


def test_solve_a_system_against_scipy_given_the_hand_jacobian(gradcli_json):
    import scipy.optimize

    def system(v):
        x, y = v
        return [x**2 + y**2 - 4, np.exp(x) - y], [[2 * x, 2 * y], [np.exp(x), -1]]

    expected = scipy.optimize.root(system, [1.0, 1.0], jac=True).x
    shown = gradcli_json("solve", "[x**2 + y**2 - 4, exp(x) - y]", "--x", "1", "--y", "1")
    np.testing.assert_allclose([shown["point"]["x"], shown["point"]["y"]], expected, rtol=1e-10)


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["[x, y, x+y]", "--x", "1", "--y", "2"], 2, "3 equations (entries of its value) in 2"),
        (["x**2", "--x", "0"], 2, "the Jacobian is singular at the start"),
        (["x**2 + 1", "--x", "1"], 1, "solve did not converge"),
    ],
)
def test_solve_bad_input(gradcli, args, code, message):
    result = gradcli("solve", *args, "--format", "plain")
    assert result.exit_code == code, result.output
    last = result.stderr.strip().splitlines()[-1 if code == 1 else 0]
    assert last.startswith("error: ") and message in last


def test_critical_points_of_the_issue(gradcli_json):
    shown = gradcli_json("critical", "x**3 - 3*x + y**2", "--over", "x=-2:2", "--over", "y=-2:2")
    found = [(round(p["x"], 9), round(p["y"], 9), p["classification"]) for p in shown["points"]]
    # By hand: grad = (3x² - 3, 2y) vanishes at (±1, 0); H = diag(6x, 2).
    assert found == [(-1, 0, "saddle point"), (1, 0, "minimum")]


def test_critical_points_against_sympy(gradcli_json):
    import sympy

    x, y = sympy.symbols("x y", real=True)
    f = x**4 - 2 * x**2 + y**2 - 2 * y
    roots = sympy.solve([sympy.diff(f, x), sympy.diff(f, y)], [x, y], dict=True)
    expected = sorted((float(r[x]), float(r[y])) for r in roots)
    shown = gradcli_json("critical", "x**4 - 2*x**2 + y**2 - 2*y", "--over", "x=-2:2",
                         "--over", "y=-2:3")  # fmt: skip
    got = sorted((p["x"], p["y"]) for p in shown["points"])
    np.testing.assert_allclose(got, expected, atol=1e-9)
    kinds = {round(p["x"]): p["classification"] for p in shown["points"]}
    assert kinds == {-1: "minimum", 0: "saddle point", 1: "minimum"}


FIELDS = ["[x*y*z, sin(y)*z, exp(x)*y]", "[x**2*y, y*z**3, cos(x*z)]"]


@pytest.mark.parametrize("field", FIELDS)
def test_div_and_curl_against_sympy_at_random_points(gradcli_json, field):
    import sympy

    x, y, z = sympy.symbols("x y z")
    F = sympy.sympify(field.replace("[", "(").replace("]", ")").replace("**", "**"))
    div = sum(sympy.diff(F[i], v) for i, v in enumerate((x, y, z)))
    curl = (
        sympy.diff(F[2], y) - sympy.diff(F[1], z),
        sympy.diff(F[0], z) - sympy.diff(F[2], x),
        sympy.diff(F[1], x) - sympy.diff(F[0], y),
    )
    rng = np.random.default_rng(7)
    for point in rng.uniform(-2, 2, (3, 3)):
        at = dict(zip((x, y, z), point))
        args = [f"--{n}={v!r}" for n, v in zip("xyz", point.tolist())]
        assert gradcli_json("div", field, *args)["div"] == pytest.approx(float(div.subs(at)))
        got = gradcli_json("curl", field, *args)["curl"]
        np.testing.assert_allclose(got, [float(c.subs(at)) for c in curl], rtol=1e-12)


def test_laplacian_against_sympy_at_random_points(gradcli_json):
    import sympy

    x, y, z = sympy.symbols("x y z")
    f = sympy.exp(x) * sympy.sin(y) + x**2 * z**3
    lap = sum(sympy.diff(f, v, 2) for v in (x, y, z))
    for point in np.random.default_rng(3).uniform(-2, 2, (3, 3)):
        args = [f"--{n}={v!r}" for n, v in zip("xyz", point.tolist())]
        shown = gradcli_json("laplacian", "exp(x)*sin(y) + x**2*z**3", *args)
        assert shown["laplacian"] == pytest.approx(float(lap.subs(dict(zip((x, y, z), point)))))


def test_the_coordinates_are_the_inputs_every_command_takes_in_alphabetical_order(gradcli_json):
    # --e 3 makes e an input of this run, as its note says and as every command takes it:
    # a coordinate too. By hand: y**3 + e*x**2 has second derivatives 0 (e), 2e (x) and
    # 6y (y): at e = 3, y = 2 the Laplacian is 18.
    shown = gradcli_json("laplacian", "y**3 + e*x**2", "--y", "2", "--e", "3", "--x", "1")
    assert shown["coordinates"] == ["e", "x", "y"]
    assert shown["laplacian"] == 18


def test_curl_needs_three_by_three(gradcli):
    result = gradcli("curl", "[x, y]", "--x", "1", "--y", "2")
    assert result.exit_code == 2 and "three entries in three coordinates" in result.stderr


def test_a_one_entry_objective_and_its_table(gradcli):
    result = gradcli("minimize", "(x-[1])**2", "--x", "0", "--format", "table")
    assert result.exit_code == 0, result.output
    assert "local minimum" in result.stdout and "converged" in result.stdout


@pytest.mark.parametrize(
    "source, start", [("x**3", ["--x", "1"]), ("x**3 + y**2", ["--x", "1", "--y", "1"])]
)
def test_an_inflection_reached_slowly_is_not_called_a_minimum(gradcli, source, start):
    # By hand: d/dx x³ = 3x² vanishes only at 0, where d²/dx² = 0 and d³/dx³ = 6: an
    # inflection. trust-exact stops near it with a small positive second derivative.
    result = gradcli("minimize", source, *start, "--method", "trust-exact", "--format", "json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert abs(shown["point"]["x"]) < 1e-4 and shown["classification"] == "degenerate"
    assert "Newton steps" in result.stderr and "degenerate" in result.stderr


def test_a_strict_minimum_keeps_its_verdict_after_the_check(gradcli_json):
    # By hand: H = [[2, 1], [1, 4]] everywhere, eigenvalues 3 ± sqrt(2) > 0.
    shown = gradcli_json("minimize", "x**2 + x*y + 2*y**2 + x", "--x", "3", "--y", "-2")
    assert shown["classification"] == "local minimum"
    np.testing.assert_allclose(shown["eigenvalues"], [3 - np.sqrt(2), 3 + np.sqrt(2)])


def test_jvp_unit_is_the_directional_derivative_against_sympy(gradcli_json, gradcli):
    import sympy

    x, y, w = sympy.symbols("x y w")
    f = sympy.sin(x * y) + w**2 * x
    rng = np.random.default_rng(11)
    for point, tangent in zip(rng.uniform(-2, 2, (3, 3)), rng.uniform(-2, 2, (3, 3))):
        at = dict(zip((x, y, w), point))
        u = tangent / np.linalg.norm(tangent)  # one unit vector over all three inputs
        expected = sum(float(sympy.diff(f, v).subs(at)) * c for v, c in zip((x, y, w), u))
        args = [f"--{n}={v!r}" for n, v in zip("xyw", point.tolist())]
        args += [f"--tangent={n}={v!r}" for n, v in zip("xyw", tangent.tolist())]
        shown = gradcli_json("jvp", "sin(x*y) + w**2*x", *args, "--unit")
        assert shown["jvp"] == pytest.approx(expected, rel=1e-12)
    # Many points: the same unit tangent at each. By hand: d/du (x y) = (3y + 4x)/5.
    result = gradcli("jvp", "x*y", "--over", "x=0:1:3", "--y", "2", "--tangent", "x=3",
                     "--tangent", "y=4", "--unit", "--format", "csv")  # fmt: skip
    assert result.stdout.splitlines()[1:] == ["0,0,1.2", "0.5,1,1.6", "1,2,2"]


def test_jvp_unit_of_a_zero_tangent_is_an_error(gradcli):
    result = gradcli("jvp", "x*y", "--x", "1", "--y", "2", "--tangent", "x=0",
                     "--tangent", "y=0", "--unit")  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: jvp --unit: the tangent has norm 0, so it has no direction: give a tangent "
        "that is finite and not zero"
    )


def test_many_inputs_get_hessian_vector_products(gradcli_json, monkeypatch):
    from gradcli.analysis import optimize

    formed = []
    monkeypatch.setattr(optimize._Objective, "hessian", lambda self, x: formed.append(x))
    # By hand: d/dw_i sum(exp(w) - c w) = exp(w_i) - c_i vanishes at w = log(c).
    shown = gradcli_json("minimize", "sum(exp(w) - c*w)", "--w", "zeros(300)",
                         "--c", "linspace(1, 3, 300)", "--wrt", "w")  # fmt: skip
    assert shown["method"] == "newton-cg" and shown["converged"] and not formed
    np.testing.assert_allclose(shown["point"]["w"], np.log(np.linspace(1, 3, 300)), atol=1e-7)
    assert shown["classification"] == "local minimum"


def test_hessian_vector_products_against_the_hand_hessian():
    from gradcli import api
    from gradcli.analysis.flat import Flat
    from gradcli.analysis.optimize import _Objective

    source = "x**2*y + sin(y)*z**3"
    first = api.gradient(source, {"x": 1.5, "y": -0.5, "z": 2.0})
    flat = Flat.of(first)
    objective = _Objective(source, flat, 1.0, {"wrt": flat.names, "dtype": "float64",
                                               "seed": 0, "filename": "<expr>"})  # fmt: skip
    x, y, z = flat.start
    hand = np.array([
        [2 * y, 2 * x, 0],
        [2 * x, -np.sin(y) * z**3, 3 * np.cos(y) * z**2],
        [0, 3 * np.cos(y) * z**2, 6 * np.sin(y) * z],
    ])  # fmt: skip
    p = np.array([0.3, -1.1, 0.7])
    np.testing.assert_allclose(objective.hessp(flat.start, p), hand @ p, rtol=1e-13)


def test_trace_is_csv_when_piped_and_json_lines_with_format_json(gradcli):
    result = gradcli("minimize", "(x-1)**2", "--x", "0", "--trace", "--format", "plain")
    lines = result.stdout.splitlines()
    # By hand: trust-exact takes the one Newton step 0 -> 1, f from 1 to 0, f' from -2 to 0.
    assert lines[0] == "iteration,x,f,gradient_norm" and lines[1] == "0,0,1,2"
    assert lines[2].startswith("1,") and lines[3] == ""
    result = gradcli("minimize", "(x-1)**2", "--x", "0", "--trace", "--format", "json")
    objects = [json.loads(line) for line in result.stdout.splitlines()]
    assert objects[0] == {"iteration": 0, "x": 0, "f": 1, "gradient_norm": 2}
    assert objects[-1]["converged"] and len(objects) == objects[-1]["iterations"] + 2


def test_a_long_run_shows_its_progress_on_a_terminal_only(gradcli, monkeypatch):
    from gradcli.cli import declared as cli_declared

    monkeypatch.setattr(cli_declared._Progress, "DELAY", 0.0)
    monkeypatch.setattr(cli_declared._Progress, "EVERY", 0.0)
    args = ("minimize", ROSENBROCK, "--x", "-1.2", "--y", "1", "--wrt", "x,y", "--format", "plain")
    assert "iteration" not in gradcli(*args).stderr  # not a terminal
    monkeypatch.setattr(cli_declared, "_stderr_is_terminal", lambda: True)
    result = gradcli(*args)
    assert "\rminimize: iteration 1, f = " in result.stderr and result.stderr.endswith("\r")
    assert result.stdout.startswith("point.x 1")


@pytest.mark.parametrize(
    "source, over",
    [
        # By hand: grad = (3x² - 3y², -6xy) vanishes only at 0, where H = 0.
        ("x**3 - 3*x*y**2", ["x=-1:1", "y=-1:1"]),
        # grad = (4x³, 4y³): only 0, where H = 0.
        ("x**4 + y**4", ["x=-1:1", "y=-1:1"]),
        # 3x² = 0 only at 0, where f'' = 0.
        ("x**3", ["x=-1:1"]),
    ],
)
def test_critical_merges_the_runs_ending_near_a_degenerate_point(gradcli_json, source, over):
    args = [a for o in over for a in ("--over", o)]
    shown = gradcli_json("critical", source, *args)
    assert shown["count"] == 1, shown["points"]
    (point,) = shown["points"]
    assert point["classification"] == "degenerate"
    assert all(abs(point[o[0]]) <= 1e-3 for o in over)


def test_critical_says_degenerate_once_where_no_start_is_the_point(gradcli):
    # x = -1, -1/3, 1/3, 1: no start at 0, the runs stop on either side of it.
    result = gradcli("critical", "x**3", "--over", "x=-1:1:4", "--format", "plain")
    assert result.exit_code == 0, result.output
    assert "count 1" in result.stdout.splitlines()
    assert "points.0.classification degenerate" in result.stdout.splitlines()
    assert result.stderr.count("degenerate") == 1


def test_critical_keeps_a_lattice_of_critical_points_apart(gradcli_json):
    # By hand: sin(3x)cos(3y) is critical where cos(3x) = sin(3y) = 0 (4 x 3 points
    # in the box) or sin(3x) = cos(3y) = 0 (3 x 4), all nondegenerate.
    shown = gradcli_json("critical", "sin(3*x)*cos(3*y)", "--over", "x=-2:2:15", "--over",
                         "y=-2:2:15")  # fmt: skip
    assert shown["count"] == 24
    assert {p["classification"] for p in shown["points"]} <= {"minimum", "maximum", "saddle point"}
