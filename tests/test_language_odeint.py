"""``odeint(f, y0, t)``: values, first and second derivatives against closed forms (exponential
decay, the harmonic oscillator, a stiff linear problem), SciPy's solve_ivp at tight tolerances
(and central differences of it), mpmath.odefun; a stiff problem; many points; errors."""

from __future__ import annotations

import json
import math
import time

import mpmath
import numpy as np
import pytest

import gradcli
from gradcli import autograd
from gradcli.language import compile_source, ode

pytestmark = pytest.mark.usefixtures("float64")

METHODS = ["dopri5", "radau"]


def run(source: str, **values):
    """The program's value, its gradient and Hessian with respect to ``values`` (scalars)."""
    program = compile_source(source)
    leaves = {k: gradcli.tensor(float(v), requires_grad=True) for k, v in values.items()}
    out = program.run(leaves)
    value = np.asarray(out.detach().numpy())
    inputs = list(leaves.values())
    grads = autograd.grad(out, inputs, create_graph=True, allow_unused=True)
    hessian = np.zeros((len(inputs), len(inputs)))
    for i, g in enumerate(grads):
        if g is not None and g.requires_grad:
            rows = autograd.grad(g, inputs, retain_graph=True, allow_unused=True)
            hessian[i] = [0.0 if r is None else float(r.detach().numpy()) for r in rows]
    gradient = np.array([0.0 if g is None else float(g.detach().numpy()) for g in grads])
    return value, gradient, hessian


def solve_ivp(f, y0, times, **kwargs):
    """SciPy's solution at ``times`` at tight tolerances, in float64."""
    from scipy.integrate import solve_ivp

    options = {"method": "DOP853", "rtol": 1e-13, "atol": 1e-14, **kwargs}
    solved = solve_ivp(f, (times[0], times[-1]), np.atleast_1d(y0), t_eval=times, **options)
    assert solved.success
    return solved.y.T


# ----------------------------------------------------------------------------
# Closed forms
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_exponential_decay_and_its_derivatives_to_second_order(method):
    # y = y0 exp(-k t): dy/dk = -t y, dy/dy0 = exp(-k t), dy/dt = -k y; second derivatives
    # by hand.
    source = f'odeint((y, s) -> -k*y, y0, [0, t], method="{method}")[1]'
    k, y0, t = 0.7, 2.0, 1.5
    value, grad, hessian = run(source, k=k, y0=y0, t=t)
    e = math.exp(-k * t)
    assert value == pytest.approx(y0 * e, rel=1e-10)
    np.testing.assert_allclose(grad, [-t * y0 * e, e, -k * y0 * e], rtol=1e-9)
    expected = [
        [t * t * y0 * e, -t * e, (k * t - 1) * y0 * e],
        [-t * e, 0, -k * e],
        [(k * t - 1) * y0 * e, -k * e, k * k * y0 * e],
    ]
    np.testing.assert_allclose(hessian, expected, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_the_harmonic_oscillator_in_its_frequency(method):
    # y'' = -w^2 y, y(0) = 1, y'(0) = 0: y = cos(w t), y' = -w sin(w t).
    source = f'odeint((y, s) -> [y[1], -w**2*y[0]], [1, 0], [0, 1, 2, 5], method="{method}")'
    program = compile_source(source)
    w = gradcli.tensor(1.3, requires_grad=True)
    out = program.run({"w": w})
    assert tuple(out.shape) == (4, 2)
    times = np.array([0.0, 1, 2, 5])
    expected = np.stack([np.cos(1.3 * times), -1.3 * np.sin(1.3 * times)], axis=1)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-9, atol=1e-10)
    (first,) = autograd.grad(out[3, 0], w, create_graph=True)
    (second,) = autograd.grad(first, w)
    assert float(first) == pytest.approx(-5 * math.sin(6.5), rel=1e-8)
    assert float(second) == pytest.approx(-25 * math.cos(6.5), rel=1e-8)


def test_the_derivatives_with_respect_to_the_times():
    # y(t_k) = y0 exp(-k (t_k - t_0)): d/dt_k = f(y(t_k)), d/dt_0 = k y(t_k), and the output
    # at t_1 does not depend on t_2.
    program = compile_source("odeint((y, s) -> -k*y, 2, t)")
    t = gradcli.tensor(np.array([0.5, 1.0, 2.0]), requires_grad=True)
    out = program.run({"k": gradcli.tensor(0.7), "t": t})
    y = 2 * np.exp(-0.7 * (np.array([1.0, 2.0]) - 0.5))
    (d1,) = autograd.grad(out[1], t, retain_graph=True)
    (d2,) = autograd.grad(out[2], t)
    np.testing.assert_allclose(d1.numpy(), [0.7 * y[0], -0.7 * y[0], 0], rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(d2.numpy(), [0.7 * y[1], 0, -0.7 * y[1]], rtol=1e-9, atol=1e-10)


def test_a_non_autonomous_equation_reads_its_time():
    # y' = cos(s) y: y = y0 exp(sin(t) - sin(t0)).
    value, grad, _ = run("odeint((y, s) -> cos(s)*y, y0, [0.2, t])[1]", y0=1.5, t=2.0)
    expected = 1.5 * math.exp(math.sin(2.0) - math.sin(0.2))
    assert value == pytest.approx(expected, rel=1e-10)
    assert grad[1] == pytest.approx(math.cos(2.0) * expected, rel=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_a_solution_at_rest_still_has_its_sensitivities(method):
    # y' = p y (1 - y) from the equilibrium y0 = 1: the solution never moves, but its
    # derivatives do: y = 1/(1 + (1/y0 - 1) exp(-p t)), dy/dy0 = exp(-p t) there.
    import sympy

    source = f'odeint((y, s) -> p*y*(1 - y), y0, [0, 2], method="{method}")[1]'
    value, grad, hessian = run(source, p=1.0, y0=1.0)
    p, y0 = sympy.symbols("p y0")
    y = 1 / (1 + (1 / y0 - 1) * sympy.exp(-2 * p))
    at = {p: 1, y0: 1}
    assert value == pytest.approx(1.0, rel=1e-12)
    assert grad[1] == pytest.approx(float(y.diff(y0).subs(at)), rel=1e-8)
    assert hessian[1, 1] == pytest.approx(float(y.diff(y0, 2).subs(at)), rel=1e-7)
    assert hessian[0, 1] == pytest.approx(float(y.diff(y0, p).subs(at)), rel=1e-7)


# ----------------------------------------------------------------------------
# SciPy and mpmath
# ----------------------------------------------------------------------------

LOTKA = "odeint((y, s) -> [a*y[0] - y[0]*y[1], y[0]*y[1] - c*y[1]], [2, 1], [0, 1, 3, 6])"


def _lotka(a, c):
    return solve_ivp(lambda t, y: [a * y[0] - y[0] * y[1], y[0] * y[1] - c * y[1]], [2, 1],
                     np.array([0.0, 1, 3, 6]))  # fmt: skip


@pytest.mark.parametrize("method", ["auto", "radau"])
def test_lotka_volterra_and_its_sensitivity_agree_with_solve_ivp(method):
    program = compile_source(LOTKA[:-1] + f', method="{method}")')
    a = gradcli.tensor(1.1, requires_grad=True)
    out = program.run({"a": a, "c": gradcli.tensor(0.8)})
    np.testing.assert_allclose(out.detach().numpy(), _lotka(1.1, 0.8), rtol=1e-9)
    (grad,) = autograd.grad(out[3, 1], a)
    h = 1e-5  # central differences of solve_ivp: about 1e-9 relative
    expected = (_lotka(1.1 + h, 0.8)[3, 1] - _lotka(1.1 - h, 0.8)[3, 1]) / (2 * h)
    assert float(grad) == pytest.approx(expected, rel=1e-7)


def test_a_nonlinear_equation_agrees_with_mpmath_odefun():
    # y' = sin(s) - p y^2, y(0) = 1, with its sensitivity q = dy/dp: q' = -y^2 - 2 p y q,
    # q(0) = 0, by mpmath's Taylor series solver at 20 digits.
    value, grad, _ = run("odeint((y, s) -> sin(s) - p*y**2, 1, [0, 1.5])[1]", p=0.8)
    with mpmath.workdps(20):
        p = mpmath.mpf("0.8")
        solution = mpmath.odefun(
            lambda s, v: [mpmath.sin(s) - p * v[0] ** 2, -(v[0] ** 2) - 2 * p * v[0] * v[1]],
            0,
            [1, 0],
        )(mpmath.mpf("1.5"))
    assert value == pytest.approx(float(solution[0]), rel=1e-10)
    assert grad[0] == pytest.approx(float(solution[1]), rel=1e-9)


# ----------------------------------------------------------------------------
# Stiff problems
# ----------------------------------------------------------------------------

ROBERTSON = (
    "odeint((y, s) -> [-a*y[0] + b*y[1]*y[2], a*y[0] - b*y[1]*y[2] - c*y[1]**2, c*y[1]**2],"
    " [1, 0, 0], [0, 1, 10, 40]{})"
)


def _robertson(a):
    def f(t, y):
        return [-a * y[0] + 1e4 * y[1] * y[2], a * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] ** 2,
                3e7 * y[1] ** 2]  # fmt: skip

    return solve_ivp(f, [1, 0, 0], np.array([0.0, 1, 10, 40]), method="Radau", atol=1e-16)


def test_robertsons_kinetics_are_solved_fast_and_right():
    started = time.perf_counter()
    program = compile_source(ROBERTSON.format(""))
    a = gradcli.tensor(0.04, requires_grad=True)
    out = program.run({"a": a, "b": gradcli.tensor(1e4), "c": gradcli.tensor(3e7)})
    (grad,) = autograd.grad(out[3, 0], a)
    assert time.perf_counter() - started < 60
    expected = _robertson(0.04)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-8, atol=1e-13)
    h = 1e-6
    derivative = (_robertson(0.04 + h)[3, 0] - _robertson(0.04 - h)[3, 0]) / (2 * h)
    assert float(grad) == pytest.approx(derivative, rel=1e-6)


def test_auto_switches_a_stiff_problem_to_radau(monkeypatch):
    # y' = -lam (y - cos s), y(0) = y0: y = A cos s + B sin s + (y0 - A) exp(-lam s), with
    # A = lam^2/(lam^2 + 1), B = lam/(lam^2 + 1). Derivatives by SymPy.
    import sympy

    taken = []
    monkeypatch.setattr(ode._Radau, "step", _counting(ode._Radau.step, taken))
    source = "odeint((y, s) -> -lam*(y - cos(s)), y0, [0, 0.01, 2])"
    value, grad, hessian = run(source + "[1] + " + source + "[2]", lam=1000, y0=0.0)
    assert taken, "method=auto did not switch to radau"
    lam, y0, s = sympy.symbols("lam y0 s")
    a, b = lam**2 / (lam**2 + 1), lam / (lam**2 + 1)
    y = a * sympy.cos(s) + b * sympy.sin(s) + (y0 - a) * sympy.exp(-lam * s)
    total = y.subs(s, sympy.Rational(1, 100)) + y.subs(s, 2)
    at = {lam: 1000, y0: 0}
    assert value == pytest.approx(float(total.subs(at)), rel=1e-9)
    assert grad[0] == pytest.approx(float(sympy.diff(total, lam).subs(at)), rel=1e-7)
    assert grad[1] == pytest.approx(float(sympy.diff(total, y0).subs(at)), rel=1e-7)
    second = float(sympy.diff(total, lam, 2).subs(at))
    assert hessian[0, 0] == pytest.approx(second, rel=1e-6)
    assert hessian[0, 1] == pytest.approx(float(sympy.diff(total, lam, y0).subs(at)), rel=1e-7)


def _counting(step, taken):
    def counted(self, *args):
        taken.append(1)
        return step(self, *args)

    return counted


# ----------------------------------------------------------------------------
# Many points, the command line, errors
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_many_points_agree_with_the_closed_form(gradcli, method):
    result = gradcli(
        "hessian", f'odeint((y, s) -> -k*y, y0, [0, t], method="{method}")[1]',
        "--over", "k=0.5:2:4", "--over", "t=1:2:2", "--y0", "2", "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 8
    for row in rows:
        k, t = float(row["k"]), float(row["t"])
        y = 2 * math.exp(-k * t)
        assert row["value"] == pytest.approx(y, rel=1e-10)
        assert row["grad.k"] == pytest.approx(-t * y, rel=1e-9)
        assert row["grad.t"] == pytest.approx(-k * y, rel=1e-9)
        assert row["hessian.k.k"] == pytest.approx(t * t * y, rel=1e-8)
        assert row["hessian.k.t"] == pytest.approx((k * t - 1) * y, rel=1e-8)


def test_many_starting_values_of_a_vector_problem(gradcli):
    result = gradcli(
        "grad", "odeint((y, s) -> [y[1], -w**2*y[0]], [u, 0], [0, 2])[1, 0]",
        "--over", "u=1:3:3", "--w", "1.3", "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for row in map(json.loads, result.stdout.splitlines()):
        u = float(row["u"])
        assert row["value"] == pytest.approx(u * math.cos(2.6), rel=1e-9)
        assert row["grad.w"] == pytest.approx(-2 * u * math.sin(2.6), rel=1e-8)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("odeint((y, s) -> -y, 1, [1, 0])", "odeint's t must be increasing"),
        ("odeint((y, s) -> -y, 1, 2)", "odeint's t must be a vector of times"),
        ("odeint((y, s) -> -y, 1, [0, 1], rtol=-1)", "odeint's rtol must be a number >= 0"),
        ('odeint((y, s) -> -y, 1, [0, 1], method="euler")', "odeint's method must be one of"),
        ("odeint((y, s) -> [y, y], 1, [0, 1])", "odeint: the anonymous function gives a value"),
        ("odeint(y -> -y, 1, [0, 1])", "odeint calls its function with 2 arguments"),
        ("odeint((y, s) -> -y, nan, [0, 1])", "odeint's y0 is not finite at 1:1"),
        ("odeint((y, s) -> -y, 1, [0, 1], method=3)", "odeint's method must be one of 'auto',"),
        ("odeint((y, s) -> -y, 1, [0, 1], rtol=0, atol=0)", "odeint's rtol and atol cannot"),
        ("odeint((y, s) -> y**2, 1, [0, 2])", "odeint: "),
    ],
)
def test_mistakes_are_errors_with_exit_status_2(gradcli, source, message):
    result = gradcli("eval", source)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {message}"), result.stderr
    assert "Traceback" not in result.stderr


def test_a_blow_up_names_the_time_it_reached(gradcli):
    # y' = y^2, y(0) = 1: y = 1/(1 - s) blows up at s = 1.
    result = gradcli("eval", "odeint((y, s) -> y**2, 1, [0, 2])")
    first = result.stderr.splitlines()[0]
    assert result.exit_code == 2
    reached = float(first.split("at t = ")[1].split()[0])
    assert 0.99 < reached <= 1.0, first


def test_the_step_limit_is_an_error_naming_the_time_reached(gradcli, monkeypatch):
    monkeypatch.setattr(ode, "LIMIT", 50)
    result = gradcli("eval", 'odeint((y, s) -> [y[1], -y[0]], [1, 0], [0, 100], method="dopri5")')
    assert result.exit_code == 2
    first = result.stderr.splitlines()[0]
    assert first.startswith("error: odeint reached its step limit (50 steps) at t = ")
    assert "(solving toward t[1] = 100)" in first


def test_diff_refuses_odeint_by_name(gradcli):
    result = gradcli("diff", "odeint((y, s) -> -k*y, 1, [0, 1])[1]", "--k", "1")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: odeint(...), the solution of an ODE by steps, has no")


def test_functions_lists_odeint(gradcli_json):
    [entry] = gradcli_json("functions", "odeint")["functions"]
    assert entry["signature"] == '(f, y0, t, rtol=1e-10, atol=1e-12, method="auto")'
    assert "diff: refused by name" in entry["doc"]


def test_an_input_read_only_inside_the_function_is_differentiated():
    from gradcli.language.parser import parse
    from gradcli.language.program import inputs_read

    statements = parse("g(y, s) = -k*y; odeint(g, y0, [0, 1])").statements
    assert inputs_read(("k", "y0", "q"), statements) == ("k", "y0")


# ----------------------------------------------------------------------------
# The sample: an ODE fitted to data
# ----------------------------------------------------------------------------

SAMPLE = "samples/ode_fit.grad"
DATA = "samples/logistic.csv"


def _logistic(t, r, capacity):
    """The closed form of y' = r y (1 - y/K), y(0) = 0.5."""
    return capacity / (1 + (capacity / 0.5 - 1) * np.exp(-r * t))


def test_fit_of_the_sample_agrees_with_curve_fit_on_the_closed_form(gradcli_json):
    from scipy.optimize import curve_fit

    data = np.loadtxt(DATA, delimiter=",", skiprows=1)
    best, covariance = curve_fit(_logistic, data[:, 0], data[:, 1], p0=[1, 8], xtol=1e-14)
    out = gradcli_json("fit", SAMPLE, "--points", DATA, "--params", "r=1,K=8")
    fitted = out["parameters"]
    assert fitted["r"]["value"] == pytest.approx(best[0], rel=1e-8)
    assert fitted["K"]["value"] == pytest.approx(best[1], rel=1e-8)
    errors = np.sqrt(np.diag(covariance))
    assert fitted["r"]["standard_error"] == pytest.approx(errors[0], rel=1e-5)
    assert fitted["K"]["standard_error"] == pytest.approx(errors[1], rel=1e-5)
    assert fitted["r"]["value"] == pytest.approx(0.8, abs=3 * errors[0])  # the rate used


def test_fit_recovers_the_rate_of_noiseless_data(gradcli_json, tmp_path):
    times = np.arange(1, 9) * 0.75
    rows = ["t,y"] + [
        f"{t!r},{y!r}" for t, y in zip(times.tolist(), _logistic(times, 0.8, 10).tolist())
    ]
    data = tmp_path / "exact.csv"
    data.write_text("\n".join(rows) + "\n")
    out = gradcli_json("fit", SAMPLE, "--points", str(data), "--params", "r=1,K=8")
    assert out["parameters"]["r"]["value"] == pytest.approx(0.8, rel=1e-9)
    assert out["parameters"]["K"]["value"] == pytest.approx(10, rel=1e-9)


def test_the_sample_differentiates_as_the_closed_form(gradcli_json):
    import sympy

    r, capacity, t = sympy.symbols("r K t")
    y = capacity / (1 + (capacity / sympy.Rational(1, 2) - 1) * sympy.exp(-r * t))
    at = {r: sympy.Rational(8, 10), capacity: 10, t: 2}
    out = gradcli_json("hessian", SAMPLE)
    assert out["value"] == pytest.approx(float(y.subs(at)), rel=1e-10)
    for name, symbol in (("r", r), ("K", capacity), ("t", t)):
        assert out["grad"][name] == pytest.approx(float(y.diff(symbol).subs(at)), rel=1e-9)
    assert out["hessian"]["r"]["r"] == pytest.approx(float(y.diff(r, 2).subs(at)), rel=1e-8)


@pytest.mark.parametrize(
    "args",
    [
        ("eval",),
        ("jacobian",),
        ("check",),
        ("jvp", "--tangent", "r=1"),
        ("taylor", "--order", "2"),
        ("propagate", "--sigma", "r=0.01"),
    ],
)
def test_the_sample_runs_under_the_other_commands(gradcli, args):
    result = gradcli(args[0], SAMPLE, *args[1:], "--format", "json")
    assert result.exit_code == 0, result.output


def test_solve_and_minimize_through_an_ode(gradcli_json):
    # y' = r y, y(0) = 1: y(1) = 2 at r = log 2; (y(1) - 1/2)^2 with y' = -k y is least
    # at k = log 2.
    out = gradcli_json("solve", "odeint((y, s) -> r*y, 1, [0, 1])[1] - 2", "--r", "1")
    assert out["point"]["r"] == pytest.approx(math.log(2), rel=1e-9)
    out = gradcli_json("minimize", "(odeint((y, s) -> -k*y, 1, [0, 1])[1] - 0.5)**2", "--k", "1")
    assert out["point"]["k"] == pytest.approx(math.log(2), rel=1e-7)


def test_a_point_whose_times_are_not_increasing_is_named(gradcli):
    result = gradcli("eval", "odeint((y, s) -> -y, 1, [0, t])[1]", "--over", "t=1:-1:3")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: odeint's t must be increasing at point 1: t[0] <")


def test_plot_draws_the_sample_over_its_time(gradcli, tmp_path):
    out = tmp_path / "plot.png"
    result = gradcli("plot", SAMPLE, "--over", "t=0.5:8", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0


def test_an_integral_of_an_ode_solution_over_its_time():
    # The integral of y(t) = exp(-k t) over [0.1, 1]: (exp(-0.1 k) - exp(-k))/k, and its
    # derivative, minus the integral of t exp(-k t): 2 exp(-1) - 1.1 exp(-0.1) at k = 1.
    source = "integrate(t -> odeint((y, s) -> -k*y, 1, [0, t], rtol=1e-12)[1], 0.1, 1)"
    value, grad, _ = run(source, k=1.0)
    assert value == pytest.approx(math.exp(-0.1) - math.exp(-1), rel=1e-11)
    assert grad[0] == pytest.approx(2 * math.exp(-1) - 1.1 * math.exp(-0.1), rel=1e-10)


@pytest.mark.parametrize("method", METHODS)
def test_the_solution_is_in_the_programs_dtype(method):
    old = gradcli.get_default_dtype()
    gradcli.set_default_dtype(gradcli.float32)
    try:
        program = compile_source(f'odeint((y, s) -> -k*y, [1, 2], [0, 1], method="{method}")')
        k = gradcli.tensor(0.5, requires_grad=True)
        out = program.run({"k": k})
        (grad,) = autograd.grad(out.sum(), k)
    finally:
        gradcli.set_default_dtype(old)
    assert out.dtype == gradcli.float32
    np.testing.assert_allclose(
        out.detach().numpy()[1], [math.exp(-0.5), 2 * math.exp(-0.5)], rtol=1e-6
    )
    assert float(grad) == pytest.approx(-3 * math.exp(-0.5), rel=1e-6)


@pytest.mark.parametrize("method", METHODS)
def test_the_third_derivative_of_exponential_decay(method):
    # d3/dk3 of y0 exp(-k t) = -t^3 y0 exp(-k t).
    program = compile_source(f'odeint((y, s) -> -k*y, 2, [0, 1.5], method="{method}")[1]')
    k = gradcli.tensor(0.7, requires_grad=True)
    out = program.run({"k": k})
    (first,) = autograd.grad(out, k, create_graph=True)
    (second,) = autograd.grad(first, k, create_graph=True)
    (third,) = autograd.grad(second, k)
    assert float(third) == pytest.approx(-(1.5**3) * 2 * math.exp(-1.05), rel=1e-8)
