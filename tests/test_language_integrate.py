"""Anonymous functions (``t -> ...``) and ``integrate(f, a, b)``: values against mpmath.quad and
closed forms, first and second derivatives against hand derivations, at many points."""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest

import gradcli
from gradcli import autograd
from gradcli.errors import GradcliError
from gradcli.language import compile_source, ir
from gradcli.language.parser import parse
from gradcli.language.printing import to_source

pytestmark = pytest.mark.usefixtures("float64")


def run(source: str, **values):
    """The program's value, its gradient and Hessian with respect to ``values`` (scalars)."""
    program = compile_source(source)
    leaves = {k: gradcli.tensor(float(v), requires_grad=True) for k, v in values.items()}
    out = program.run(leaves)
    value = np.asarray(out.detach().numpy())
    if not leaves:
        return value, None, None
    inputs = list(leaves.values())
    grads = autograd.grad(out, inputs, create_graph=True)
    hessian = np.zeros((len(inputs), len(inputs)))
    for i, g in enumerate(grads):
        if g.requires_grad:
            rows = autograd.grad(g, inputs, retain_graph=True, allow_unused=True)
            hessian[i] = [0.0 if r is None else float(r.detach().numpy()) for r in rows]
    return value, np.array([float(g.detach().numpy()) for g in grads]), hessian


# ----------------------------------------------------------------------------
# Anonymous functions
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("integrate(t -> exp(-t**2), 0, 1)", "integrate(t -> exp(-t ** 2), 0, 1)"),
        ("root((x) -> x**2 - 2, 1)", "root(x -> x ** 2 - 2, 1)"),
        ("f((y, t) -> -k*y)", "f((y, t) -> -k * y)"),
        ("integrate(t -> t -> t, 0, 1)", "integrate(t -> t -> t, 0, 1)"),
        ("(t -> t) + 1", "(t -> t) + 1"),
    ],
)
def test_an_anonymous_function_parses_and_prints_back(text, printed):
    program = parse(text)
    assert to_source(program) == printed
    assert parse(printed) == program


def test_a_lambda_node_holds_its_parameters_and_body():
    [call] = parse("integrate((y, t) -> y*t, 0, 1)").statements
    assert call.args[0] == ir.Lambda(("y", "t"), ir.Chain(ir.Name("y"), ("mul",), (ir.Name("t"),)))


def test_a_name_given_an_anonymous_function_is_a_function():
    assert parse("g = t -> t**2 + a") == parse("g(t) = t**2 + a")
    value, grad, _ = run("g = (u, v) -> u*v + a; g(3, 4)", a=2.0)
    assert value == 14.0 and grad.tolist() == [1.0]


def test_brackets_around_a_parenthesised_name_still_parse():
    assert run("x = 3; (x) + 1")[0] == 4.0


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("t -> t", "an anonymous function is only an argument of integrate"),
        ("x = 2; (t -> t) * x", "an anonymous function is only an argument of integrate"),
        ("sum(t -> t)", "an anonymous function is only an argument of integrate"),
        ("integrate((a, b) -> a, 0, 1)", "integrate calls its function with 1 argument, but it"),
        ("g = (t, t) -> t", "parameter 't' appears twice"),
        ("integrate(pi -> pi, 0, 1)", "the constant 'pi' cannot be a parameter"),
        ("integrate(exp, 0, 1)", "'exp' is not a function of the program: pass an anonymous"),
        ("integrate(3, 0, 1)", "integrate takes a function as its first argument"),
        ("integrate(f, 0, 1); f(t) = t", "function 'f' is used before it is defined"),
        ("(x + 1) -> 2", "an anonymous function's parameters must be names"),
        ("integrate(t -> t, 0)", "wrong number of arguments: integrate takes 3 arguments"),
        ("integrate(t -> t, 0, 1, tol=2)", "integrate does not take the keyword 'tol'"),
        ("integrate(t -> t, 0, 1) + lambda x: x", "write an anonymous function as x -> x**2"),
        ("integrate(t, a, b) = t", "cannot redefine the built-in function 'integrate'"),
    ],
)
def test_mistakes_with_functions_are_named(source, message):
    with pytest.raises(GradcliError) as info:
        compile_source(source)
    assert message in info.value.message


def test_a_closure_reads_the_parameters_of_the_function_it_is_written_in():
    # h(q) = integral of exp(-q*t) over [0, 1] = (1 - exp(-q))/q.
    value, grad, hess = run("h(q) = integrate(t -> exp(-q*t), 0, 1); h(2*s)", s=1.0)
    q = 2.0
    assert value == pytest.approx((1 - math.exp(-q)) / q, rel=1e-14)
    # d/dq = (exp(-q)(1 + q) - 1)/q^2, times dq/ds = 2.
    assert grad[0] == pytest.approx(2 * (math.exp(-q) * (1 + q) - 1) / q**2, rel=1e-13)
    # d2/dq2 of (1 - e^-q)/q: integral of t^2 e^(-qt) over [0, 1], times 4.
    second = float(mpmath.quad(lambda t: t**2 * mpmath.exp(-q * t), [0, 1]))
    assert hess[0, 0] == pytest.approx(4 * second, rel=1e-12)


def test_inputs_read_only_inside_a_function_are_inputs():
    program = compile_source("f(t) = t * w; integrate(f, 0, 1) + integrate(t -> t * p, 0, 1)")
    assert program.inputs == ("w", "p")


# ----------------------------------------------------------------------------
# integrate: values
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "values", "oracle"),
    [
        ("integrate(t -> exp(-p*t**2), -inf, inf)", {"p": 2.0}, math.sqrt(math.pi / 2)),
        (
            "integrate(t -> sin(q*t)/(1 + t**2), a, b)",
            {"q": 1.5, "a": -0.3, "b": 2.2},
            mpmath.quad(lambda t: mpmath.sin(1.5 * t) / (1 + t**2), [-0.3, 2.2]),
        ),
        ("integrate(t -> exp(-k*t), 1, inf)", {"k": 0.5}, 2 * math.exp(-0.5)),
        ("integrate(t -> exp(k*t), -inf, 1)", {"k": 0.5}, 2 * math.exp(0.5)),
        ("integrate(t -> exp(-k*t), inf, 1)", {"k": 0.5}, -2 * math.exp(-0.5)),
        ("integrate(t -> 1/(1 + t**2), inf, -inf)", {}, -math.pi),
        ("integrate(t -> 1/sqrt(t), 0, 1)", {}, 2.0),
        ("integrate(t -> log(t)*w, 0, 1)", {"w": 1.0}, -1.0),
        ("integrate(t -> t**2 * w, 2, 2)", {"w": 1.0}, 0.0),
        ("integrate(t -> t**2, 1, 0)", {}, -1 / 3),
        (
            "integrate(t -> abs(t - c), -1, 2)",
            {"c": 0.4},
            mpmath.quad(lambda t: abs(t - 0.4), [-1, 0.4, 2]),
        ),
    ],
)
def test_values_agree_with_mpmath_and_closed_forms(source, values, oracle):
    value, _, _ = run(source, **values)
    assert float(value) == pytest.approx(float(oracle), rel=1e-12, abs=1e-14)


def test_a_vector_valued_integrand_is_integrated_entry_by_entry():
    value, _, _ = run("integrate(t -> [t, t**2, exp(t)], 0, 1)")
    np.testing.assert_allclose(value, [0.5, 1 / 3, math.e - 1], rtol=1e-14)


def test_rtol_loosens_the_tolerance_and_atol_is_taken():
    value, _, _ = run("integrate(t -> exp(-t**2), 0, 3, rtol=1e-6, atol=1e-9)")
    exact = math.sqrt(math.pi) / 2 * math.erf(3)
    assert float(value) == pytest.approx(exact, rel=1e-6)


# ----------------------------------------------------------------------------
# integrate: derivatives
# ----------------------------------------------------------------------------


def test_the_gaussian_integral_differentiates_in_its_parameter_to_second_order():
    # I(p) = sqrt(pi/p): I' = -sqrt(pi)/2 p^(-3/2), I'' = 3 sqrt(pi)/4 p^(-5/2).
    for p in (0.5, 2.0, 7.0):
        value, grad, hess = run("integrate(t -> exp(-p*t**2), -inf, inf)", p=p)
        assert float(value) == pytest.approx(math.sqrt(math.pi / p), rel=1e-13)
        assert grad[0] == pytest.approx(-math.sqrt(math.pi) / 2 * p**-1.5, rel=1e-12)
        assert hess[0, 0] == pytest.approx(3 * math.sqrt(math.pi) / 4 * p**-2.5, rel=1e-11)


def test_the_limits_differentiate_to_the_integrand_and_its_derivative():
    # d/db = f(b), d/da = -f(a), d2/db2 = f'(b), d2/da2 = -f'(a), d2/da db = 0,
    # d2/dq db = df/dq at b, with f(t) = sin(q t)/(1 + t^2).
    q, a, b = 1.5, -0.3, 2.2
    value, grad, hess = run("integrate(t -> sin(q*t)/(1 + t**2), a, b)", q=q, a=a, b=b)

    def f(t):
        return math.sin(q * t) / (1 + t * t)

    def df_dt(t):
        return q * math.cos(q * t) / (1 + t * t) - 2 * t * math.sin(q * t) / (1 + t * t) ** 2

    def df_dq(t):
        return t * math.cos(q * t) / (1 + t * t)

    dq = float(mpmath.quad(lambda t: t * mpmath.cos(q * t) / (1 + t**2), [a, b]))
    dqq = float(mpmath.quad(lambda t: -(t**2) * mpmath.sin(q * t) / (1 + t**2), [a, b]))
    np.testing.assert_allclose(grad, [dq, -f(a), f(b)], rtol=1e-12)
    expected = [
        [dqq, -df_dq(a), df_dq(b)],
        [-df_dq(a), -df_dt(a), 0.0],
        [df_dq(b), 0.0, df_dt(b)],
    ]
    np.testing.assert_allclose(hess, expected, rtol=1e-11, atol=1e-14)


def test_a_semi_infinite_integral_differentiates_in_its_finite_limit():
    # integral of exp(-k t) over [a, inf) = exp(-k a)/k.
    k, a = 0.7, 0.4
    value, grad, hess = run("integrate(t -> exp(-k*t), a, inf)", k=k, a=a)
    assert float(value) == pytest.approx(math.exp(-k * a) / k, rel=1e-13)
    e = math.exp(-k * a)
    np.testing.assert_allclose(grad, [-e * (1 + k * a) / k**2, -e], rtol=1e-12)
    dkk = e * (2 + 2 * k * a + (k * a) ** 2) / k**3
    np.testing.assert_allclose(hess, [[dkk, a * e], [a * e, k * e]], rtol=1e-11)


def test_a_limit_that_is_a_computed_value_chains():
    # integral of 2t over [0, s**2] = s**4: d/ds = 4 s^3, d2/ds2 = 12 s^2.
    value, grad, hess = run("integrate(t -> 2*t, 0, s**2)", s=1.3)
    assert float(value) == pytest.approx(1.3**4, rel=1e-14)
    assert grad[0] == pytest.approx(4 * 1.3**3, rel=1e-14)
    assert hess[0, 0] == pytest.approx(12 * 1.3**2, rel=1e-13)


# ----------------------------------------------------------------------------
# integrate: errors, and through the commands
# ----------------------------------------------------------------------------


def test_an_integral_that_does_not_converge_is_an_error_with_the_estimate(gradcli):
    result = gradcli("eval", "integrate(t -> 1/t, 0, 1)")
    assert result.exit_code == 2
    first = result.stderr.splitlines()[0]
    assert first.startswith("error: integrate did not converge: the error estimate ")
    assert "stays above the tolerance" in first and "after 500 subintervals" in first
    assert "integrate(t -> 1/t, 0, 1)" in result.stderr  # the source, under the caret


def test_an_integrand_that_is_not_finite_at_a_node_is_an_error(gradcli):
    result = gradcli("eval", "integrate(t -> 1/t, -1, 1)")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "error: integrate: the anonymous function is not finite at t = 0"
    )


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("integrate(t -> t, 0, [1, 2])", "integrate's limit b must be one number"),
        ("integrate(t -> t, 0, 1, rtol=-1)", "integrate's rtol must be a number >= 0"),
        ("integrate(t -> t, nan, 1)", "integrate's limit a is nan"),
    ],
)
def test_bad_limits_and_tolerances_are_errors(gradcli, source, message):
    result = gradcli("eval", source)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {message}")


SAMPLE = "samples/gaussian_integral.grad"


def _sample_oracle():
    # I(p, b) = integral of exp(-p t^2) over (-inf, b] = sqrt(pi/p)/2 (1 + erf(sqrt(p) b)).
    p, b = 2.0, 0.5
    value = math.sqrt(math.pi / p) / 2 * (1 + math.erf(math.sqrt(p) * b))
    dp = -float(mpmath.quad(lambda t: t**2 * mpmath.exp(-p * t**2), [-mpmath.inf, b]))
    return value, dp, math.exp(-p * b * b)


def test_the_sample_under_eval_grad_and_hessian(gradcli_json):
    value, dp, db = _sample_oracle()
    out = gradcli_json("grad", SAMPLE)
    assert out["value"] == pytest.approx(value, rel=1e-13)
    assert [out["grad"]["p"], out["grad"]["b"]] == pytest.approx([dp, db], rel=1e-12)
    hessian = gradcli_json("hessian", SAMPLE)["hessian"]
    p, b = 2.0, 0.5
    dpp = float(mpmath.quad(lambda t: t**4 * mpmath.exp(-p * t**2), [-mpmath.inf, b]))
    expected = [[dpp, -b * b * db], [-b * b * db, -2 * p * b * db]]
    np.testing.assert_allclose(
        [[hessian["p"]["p"], hessian["p"]["b"]], [hessian["b"]["p"], hessian["b"]["b"]]],
        expected,
        rtol=1e-11,
    )


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (["jacobian", SAMPLE], "jacobian"),
        (["jvp", SAMPLE, "--tangent", "p=1"], "jvp"),
        (["taylor", SAMPLE, "--order", "2"], "polynomial"),
        (["propagate", SAMPLE, "--sigma", "p=0.1"], "sigma"),
        (["check", SAMPLE], "passed"),
    ],
)
def test_the_sample_runs_under_the_other_commands(gradcli_json, args, key):
    out = gradcli_json(*args)
    assert key in out
    if key == "jvp":
        assert out["jvp"] == pytest.approx(_sample_oracle()[1], rel=1e-12)
    if key == "sigma":
        assert out["sigma"] == pytest.approx(0.1 * abs(_sample_oracle()[1]), rel=1e-12)
    if key == "passed":
        assert out["passed"] is True


def test_minimize_and_solve_through_an_integral(gradcli_json):
    # integral of (t - m)^2 over [0, 1] is least at m = 1/2; it equals 1/12 + (m - 1/2)^2.
    out = gradcli_json("minimize", "integrate(t -> (t - m)**2, 0, 1)", "--m", "0")
    assert out["point"]["m"] == pytest.approx(0.5, abs=1e-12)
    assert out["value"] == pytest.approx(1 / 12, rel=1e-13)
    out = gradcli_json("solve", "integrate(t -> t**2, 0, b) - 9", "--b", "1")
    assert out["point"]["b"] == pytest.approx(3.0, rel=1e-13)


def test_many_points_agree_with_the_closed_form(gradcli):
    result = gradcli(
        "grad", "integrate(t -> exp(-p*t**2), a, inf)", "--over", "p=0.5:2:4", "--a", "0.3",
        "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 4
    for row in rows:
        p, a = float(row["p"]), 0.3
        value = math.sqrt(math.pi / p) / 2 * math.erfc(math.sqrt(p) * a)
        dp = -float(mpmath.quad(lambda t, p=p: t**2 * mpmath.exp(-p * t**2), [a, mpmath.inf]))
        assert row["value"] == pytest.approx(value, rel=1e-12)
        assert row["grad.p"] == pytest.approx(dp, rel=1e-11)
        assert row["grad.a"] == pytest.approx(-math.exp(-p * a * a), rel=1e-13)


def test_fit_a_model_that_is_an_integral(gradcli_json, tmp_path):
    # y = integral of exp(-k t) over [0, x] = (1 - exp(-k x))/k, made with k = 0.7.
    x = np.linspace(0.2, 3, 8)
    rows = ["x,y"] + [f"{a!r},{(1 - math.exp(-0.7 * a)) / 0.7!r}" for a in x.tolist()]
    data = tmp_path / "decay.csv"
    data.write_text("\n".join(rows) + "\n")
    out = gradcli_json(
        "fit", "integrate(t -> exp(-k*t), 0, x)", "--points", str(data), "--params", "k=1"
    )
    assert out["parameters"]["k"]["value"] == pytest.approx(0.7, rel=1e-10)


def test_plot_draws_an_integral_over_its_limit(gradcli, tmp_path):
    out = tmp_path / "plot.png"
    result = gradcli("plot", SAMPLE, "--over", "b=-1:1", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0


def test_diff_gives_sympys_integral_and_its_derivatives(gradcli_json):
    out = gradcli_json("diff", "integrate(t -> exp(-p*t**2), 0, b)", "--p", "2", "--b", "1")
    assert out["function"] == "Integral(exp(-p*t**2), (t, 0, b))"
    assert out["derivatives"]["b"]["formula"] == "exp(-b**2*p)"
    assert out["derivatives"]["p"]["agrees"] is True
    expected = -float(mpmath.quad(lambda t: t**2 * mpmath.exp(-2 * t**2), [0, 1]))
    assert out["derivatives"]["p"]["value"] == pytest.approx(expected, rel=1e-12)


def test_the_inputs_a_function_passed_by_name_reads_are_read():
    from gradcli.language.program import inputs_read

    statements = parse("f(t) = t * w; integrate(f, 0, 1)").statements
    assert inputs_read(("w", "p"), statements) == ("w",)


def test_taylor_of_an_integral_in_its_limit_to_order_sixteen(gradcli_json):
    # The integral of exp(t) over [0, b] has the coefficients e/k! at b = 1 (k >= 1).
    out = gradcli_json("taylor", "integrate(t -> exp(t), 0, b)", "--b", "1", "--order", "16")
    coefficients = [t["coefficient"] for t in out["terms"]]
    expected = [math.e - 1] + [math.e / math.factorial(k) for k in range(1, 17)]
    np.testing.assert_allclose(coefficients, expected, rtol=1e-11)


def test_an_integral_of_a_root_nests():
    # The integral over t in [0, 1] of the root of x^3 + x = c t, and its derivative in c.
    value, grad, _ = run("integrate(t -> root(x -> x**3 + x - t*c, 0), 0, 1)", c=1.0)

    def inner(c):
        return mpmath.quad(lambda t: mpmath.findroot(lambda x: x**3 + x - t * c, 0), [0, 1])

    with mpmath.workdps(30):
        assert float(value) == pytest.approx(float(inner(1)), rel=1e-12)
        assert grad[0] == pytest.approx(float(mpmath.diff(inner, 1)), rel=1e-11)


def test_the_calculator_carries_an_anonymous_function_between_lines():
    from gradcli.cli.session import Session, Shown

    session = Session()
    for line in ("a = 2", "g = t -> t**2 + a"):
        assert list(session.run(line)) == []
    [shown] = [o for o in session.run("integrate(g, 0, 1)") if isinstance(o, Shown)]
    # The integral of t^2 + a over [0, 1] is 1/3 + a; d/da = 1.
    assert float(shown.result.value) == pytest.approx(1 / 3 + 2, rel=1e-15)
    assert float(shown.result.grad["a"]) == pytest.approx(1.0, rel=1e-15)


def test_a_transformations_own_steps_are_bounded_by_its_limits_each_call_by_the_budget():
    # A stiff ODE takes thousands of steps, each a few operations: its own limits bound
    # them, not --max-operations (y = cos(s) + sin(s)/1000 - ..., 0.5411432357 at s = 1,
    # by hand); a function that itself exceeds the budget is refused at its first call.
    from gradcli import api

    stiff = "odeint((y, s) -> -1000*(y - cos(s)), 0, [0, 1])[1]"
    assert float(api.evaluate(stiff).value) == pytest.approx(0.5411432357, rel=1e-9)
    doubling = ["f0(t) = t", *(f"f{i}(t) = f{i - 1}(t) + f{i - 1}(t)" for i in range(1, 41))]
    with pytest.raises(GradcliError) as caught:
        api.evaluate("\n".join([*doubling, "integrate(s -> f40(s), 0, 1)"]))
    assert "does more than 200,000 operations" in caught.value.message
