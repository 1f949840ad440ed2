"""``gradcli fit`` against NIST's certified values (all 14 problems of tests/data/nist,
from both of NIST's starts) and against scipy.optimize.curve_fit on the same data."""

from __future__ import annotations

import json
from pathlib import Path

import nist
import numpy as np
import pytest

from gradcli.analysis.fitting import fit

ROOT = Path(__file__).resolve().parent.parent

#: NIST's yardstick: every certified parameter, standard deviation and the residual sum
#: of squares reproduced to at least this many significant digits.
REQUIRED_DIGITS = 6


def reached_digits(problem, shown) -> float:
    """The least number of digits agreeing, over parameters, standard errors, RSS and s
    (``shown``: fit's JSON object)."""
    fitted = shown["parameters"]
    found = [nist.digits(fitted[b]["value"], problem.certified[b]) for b in problem.params]
    found += [
        nist.digits(fitted[b]["standard_error"], problem.certified_sd[b]) for b in problem.params
    ]
    found.append(nist.digits(shown["rss"], problem.rss))
    found.append(nist.digits(shown["residual_sd"], problem.residual_sd))
    return min(found)


def test_all_fourteen_problems_are_here():
    assert len(nist.problems()) == 14


@pytest.mark.parametrize("start", [0, 1], ids=["start1", "start2"])
@pytest.mark.parametrize("name", nist.problems())
def test_nist_certified_values_to_six_digits(name, start, gradcli, tmp_path):
    problem = nist.read(name)
    data = tmp_path / "data.csv"
    rows = zip(problem.x.tolist(), problem.y.tolist())
    data.write_text("x,y\n" + "".join(f"{x!r},{y!r}\n" for x, y in rows))
    params = ",".join(f"{b}={v!r}" for b, v in problem.starts[start].items())
    result = gradcli("fit", problem.model, "--points", data, "--params", params, "--format", "json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["dof"] == problem.dof and shown["converged"]
    digits = reached_digits(problem, shown)
    print(f"{name} start {start + 1}: {digits:.2f} digits")
    assert digits >= REQUIRED_DIGITS, (name, start + 1, digits)


@pytest.mark.parametrize("name", ["Misra1a", "Chwirut2", "DanWood", "Kirby2", "Gauss1"])
def test_agrees_with_scipy_curve_fit(name):
    import scipy.optimize

    problem = nist.read(name)
    # The same model written in NumPy, its Jacobian left to curve_fit's finite differences.
    source = problem.model.replace("exp", "np.exp").replace("atan", "np.arctan")
    params = problem.params

    def model(x, *b):
        return eval(source, {"np": np, "x": x, **dict(zip(params, b))})

    start = [problem.starts[1][b] for b in params]
    values, covariance = scipy.optimize.curve_fit(
        model, problem.x, problem.y, p0=start, xtol=1e-15, ftol=1e-15, maxfev=100000
    )
    report = fit(problem.model, data={"x": problem.x, "y": problem.y}, params=problem.starts[1])
    ours = np.array([float(report.parameters[b]) for b in params])
    np.testing.assert_allclose(ours, values, rtol=1e-6)
    errors = np.sqrt(np.diag(covariance))
    np.testing.assert_allclose(
        [float(report.standard_errors[b]) for b in params], errors, rtol=1e-4
    )


def test_weighted_fit_by_sigma_matches_curve_fit(tmp_path):
    import scipy.optimize

    x = np.linspace(0, 4, 12)
    rng = np.random.default_rng(1)
    s = 0.05 + 0.1 * rng.random(12)
    y = 2.5 * np.exp(-0.7 * x) + s * rng.standard_normal(12)
    values, _ = scipy.optimize.curve_fit(
        lambda x, a, k: a * np.exp(-k * x), x, y, p0=[1, 1], sigma=s, xtol=1e-14, ftol=1e-14
    )
    data = {"x": x, "y": y, "s": s, "w": 1 / s**2}
    by_sigma = fit("a*exp(-k*x)", data=data, params={"a": 1, "k": 1}, sigma="s")
    by_weights = fit("a*exp(-k*x)", data=data, params={"a": 1, "k": 1}, weights="w")
    for report in (by_sigma, by_weights):
        np.testing.assert_allclose([report.parameters["a"], report.parameters["k"]], values, 1e-7)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--params", "b1=500"], "'b2' is neither a parameter"),
        (["--params", "b1=500,b2=1e-4,b3=1"], "no input named 'b3'"),
        (["--params", "b1=500,b2=1e-4", "--response", "z"], "has no column 'z'"),
        (["--params", "b1=500,b2=1e-4", "--weights", "w"], "has no column 'w'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(gradcli, args, message):
    result = gradcli("fit", "b1*(1-exp(-b2*x))", "--points", "samples/misra1a.csv", *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert "Traceback" not in result.output


def test_a_missing_column_of_the_model_is_named(gradcli):
    result = gradcli("fit", "b1*t", "--points", "samples/misra1a.csv", "--params", "b1=1")
    assert result.exit_code == 2
    assert "input 't' is neither a parameter (--params) nor a column" in result.stderr


def test_a_vector_model_is_refused(gradcli):
    result = gradcli("fit", "[b1*x, x]", "--points", "samples/misra1a.csv", "--params", "b1=1")
    assert result.exit_code == 2
    assert "one value per row" in result.stderr


def test_fit_draws_the_data_the_model_and_the_residuals(gradcli, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(ROOT)
    target = tmp_path / "fit.png"
    args = ["--points", "samples/misra1a.csv", "--params", "b1=500,b2=1e-4", "--output", target]
    result = gradcli("fit", "b1*(1-exp(-b2*x))", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size > 10000
    assert [p.name for p in tmp_path.iterdir()] == ["fit.png"]  # no temporary file left


def test_fit_refuses_a_picture_it_cannot_draw_before_fitting(gradcli, tmp_path):
    # The data file does not exist: the --output error comes first, before any reading.
    result = gradcli("fit", "b1*x", "--points", tmp_path / "missing.csv", "--params", "b1=1",
                     "--output", tmp_path / "fit.jpg")  # fmt: skip
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == f"error: --output {tmp_path / 'fit.jpg'}: the fit is drawn as .png or .svg"
    )


@pytest.mark.parametrize(
    "model, start, said",
    [
        # |x - c| has no derivative where x = c: x[0] = -1 = c at the start.
        ("abs(x - c) + k*x", {"c": -1.0, "k": 0.0}, "abs is evaluated at 0"),
        # pi bound to a value is an input of the run, not the constant.
        ("a*x + pi", {"a": 1.0}, "--pi makes pi an input"),
    ],
)
def test_the_first_rows_notes_are_kept(model, start, said):
    # fit skips the first row's own evaluation only where it could note nothing.
    x = np.linspace(-1.0, 2.0, 9)
    data = {"x": x, "y": np.abs(x - 0.3) + 0.1 * x}
    found = fit(model, {"pi": 3.0} if "pi" in model else None, data=data, params=start)
    assert any(said in str(w) for w in found.warnings), found.warnings
    quiet = fit("a*x + b", data=data, params={"a": 1.0, "b": 0.0})
    assert quiet.warnings == ()


def test_a_one_entry_vector_parameter_fits_as_a_number():
    # y = 2x + 1 exactly: the fit must land on a = 2, b = [1] (by hand), whether b is
    # given as a number or as a vector of one entry, whose rows are (rows, 1).
    x = np.arange(9.0)
    data = {"x": x, "y": 2 * x + 1}
    report = fit("a*x + b", data=data, params={"a": 0.5, "b": [0.0]})
    np.testing.assert_allclose(float(report.parameters["a"]), 2.0, rtol=1e-12)
    np.testing.assert_allclose(np.ravel(report.parameters["b"]), [1.0], rtol=1e-12)
