"""``gradcli propagate``: σ_f² = J Σ Jᵀ, against the textbook pendulum worked by hand
and against Monte-Carlo sampling of the inputs."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from gradcli.analysis import propagate
from gradcli.analysis.uncertainty import rounded


def test_the_pendulum(gradcli_json):
    # g = 4π² L / T²: σ_g / g = sqrt((σ_L/L)² + (2 σ_T/T)²) = sqrt(0.01² + 0.02²).
    out = gradcli_json("propagate", "4*pi**2*L/T**2", "--L", "1.00±0.01", "--T", "2.00+-0.02")
    g = math.pi**2
    assert out["value"] == pytest.approx(g)
    assert out["sigma"] == pytest.approx(g * math.sqrt(0.01**2 + 0.02**2), rel=1e-12)
    assert out["rounded"] == "9.9 ± 0.2"
    assert out["shares"] == {"L": pytest.approx(0.2), "T": pytest.approx(0.8)}
    assert out["inputs"]["T"] == {"value": 2, "sigma": 0.02}


def test_sigma_options_equal_bindings_with_uncertainty(gradcli_json):
    a = gradcli_json("propagate", "4*pi**2*L/T**2", "--L", "1", "--T", "2",
                     "--sigma", "L=0.01", "--sigma", "T=0.02")  # fmt: skip
    b = gradcli_json("propagate", "4*pi**2*L/T**2", "--L", "1 ± 0.01", "--T", "2 +/- 0.02")
    assert a == b


def near_linear(x, y):
    return 3 * x - 2 * y + 0.01 * x * y


def test_monte_carlo_independent_inputs():
    report = propagate("3*x - 2*y + 0.01*x*y", {"x": 1.5, "y": -0.5}, sigmas={"x": 0.1, "y": 0.3})
    rng = np.random.default_rng(0)
    x = rng.normal(1.5, 0.1, 400_000)
    y = rng.normal(-0.5, 0.3, 400_000)
    assert float(report.sigma) == pytest.approx(np.std(near_linear(x, y)), rel=0.01)


def test_monte_carlo_correlated_inputs(tmp_path):
    covariance = np.array([[0.01, 0.012], [0.012, 0.09]])  # correlation 0.4
    path = tmp_path / "cov.csv"
    np.savetxt(path, covariance, delimiter=",")
    report = propagate("3*x - 2*y + 0.01*x*y", {"x": 1.5, "y": -0.5}, cov=str(path))
    samples = np.random.default_rng(1).multivariate_normal([1.5, -0.5], covariance, 400_000)
    assert float(report.sigma) == pytest.approx(np.std(near_linear(*samples.T)), rel=0.01)
    shares = {n: float(s) for n, s in report.shares.items()}
    assert sum(shares.values()) + float(report.correlation_share) == pytest.approx(1)
    assert float(report.correlation_share) < 0  # 3x and -2y: a positive correlation cancels


def test_vector_output_covariance(gradcli_json):
    # J = [[1, 1], [y, x]] = [[1, 1], [2, 1]], Σ = diag(0.01, 0.04).
    out = gradcli_json("propagate", "[x + y, x*y]", "--x", "1", "--y", "2",
                       "--sigma", "x=0.1", "--sigma", "y=0.2")  # fmt: skip
    np.testing.assert_allclose(out["covariance"], [[0.05, 0.06], [0.06, 0.08]])
    np.testing.assert_allclose(out["sigma"], np.sqrt([0.05, 0.08]))
    assert out["rounded"] == ["3.0 ± 0.2", "2.0 ± 0.3"]


def test_vector_input_with_one_sigma_per_entry():
    # f = sum(w * [1, 2]): σ² = (1·0.1)² + (2·0.3)².
    report = propagate("sum(w * [1, 2])", {"w": "[5, 6]"}, sigmas={"w": "[0.1, 0.3]"})
    assert float(report.sigma) == pytest.approx(math.sqrt(0.01 + 0.36))


@pytest.mark.parametrize(
    "value, sigma, text",
    [
        (9.8696, 0.2207, "9.9 ± 0.2"),
        (9.8696, 0.0149, "9.870 ± 0.015"),
        (123456.0, 789.0, "123500 ± 800"),
        (1.2345e-7, 3.4e-9, "(1.23 ± 0.03)e-07"),
        (-0.01, 0.5, "0.0 ± 0.5"),
        (5.0, 0.0, "5.0 ± 0"),
    ],
)
def test_rounding_as_a_lab_report(value, sigma, text):
    assert rounded(value, sigma) == text


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "propagate needs uncertainties"),
        (["--sigma", "z=1"], "--sigma z: the program has no input named 'z'"),
        (["--sigma", "x=-1"], "the σ of x must be finite and not negative"),
        (["--sigma", "x=[1, 2]"], "the σ of x has shape (2,), but x has shape ()"),
    ],
)
def test_bad_input(gradcli, args, message):
    result = gradcli("propagate", "x * y", "--x", "1", "--y", "2", *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_covariance_of_the_wrong_size(gradcli, tmp_path):
    path = tmp_path / "cov.json"
    path.write_text("[[1, 0], [0, 1]]")
    result = gradcli("propagate", "x * y * z", "--x", "1", "--y", "2", "--z", "3",
                     "--cov", str(path))  # fmt: skip
    assert result.exit_code == 2
    assert "the inputs have 3 entries (x, y, z): it must be 3 by 3" in result.stderr


@pytest.mark.parametrize("value", ["1.00±0.01", "1.00+-0.01"])
def test_other_commands_refuse_a_value_with_an_uncertainty(gradcli, value):
    result = gradcli("grad", "L**2", "--L", value)
    assert result.exit_code == 2
    assert "a value with an uncertainty is read only by gradcli propagate" in result.stderr


def test_table(gradcli):
    result = gradcli(
        "propagate", "4*pi**2*L/T**2", "--L", "1.00±0.01", "--T", "2.00±0.02", tty=True
    )
    assert "│ f │ 9.9 ± 0.2 │" in result.stdout
    assert "│ T     │ 2     │ 0.02 │ 0.8 " in result.stdout


def test_a_relative_sigma(gradcli_json):
    # 1% of L = 1 and of T = 2: σ_L = 0.01 and σ_T = 0.02, the pendulum above, by hand.
    out = gradcli_json("propagate", "4*pi**2*L/T**2", "--L", "1.00±1%", "--T", "2.00",
                       "--sigma", "T=1 %")  # fmt: skip
    g = math.pi**2
    assert out["sigma"] == pytest.approx(g * math.sqrt(0.01**2 + 0.02**2), rel=1e-12)
    assert out["inputs"]["L"]["sigma"] == pytest.approx(0.01, rel=1e-15)
    assert out["inputs"]["T"]["sigma"] == pytest.approx(0.02, rel=1e-15)


def test_a_relative_sigma_is_of_each_entrys_size(gradcli_json):
    # 50% of [2, -4] is [1, 2]: σ of their sum is sqrt(1 + 4).
    out = gradcli_json("propagate", "sum(w)", "--w", "[2, -4]", "--sigma", "w=50%")
    assert out["inputs"]["w"]["sigma"] == [1, 2]
    assert out["sigma"] == pytest.approx(math.sqrt(5), rel=1e-15)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--L", "1.00 m ± 0.01 m"], "--L: '1.00 m' reads as a number with a unit (m)"),
        (["--L", "1.00 ± 0.01 m"], "the σ of L: '0.01 m' reads as a number with a unit (m)"),
        (["--L", "9.81 m/s^2", "--sigma", "L=1%"], "a unit (m/s^2), and gradcli has no units"),
    ],
)
def test_a_value_with_a_unit_is_refused_plainly(gradcli, args, message):
    result = gradcli("propagate", "2*L", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "give the number alone" in result.stderr
    assert "write 1.00*m" not in result.stderr


@pytest.mark.parametrize(
    "value, message",
    [
        ("2.5mm", "'2.5mm' reads as a number with a unit (mm), and gradcli has no units"),
        ("20 °C", "'20 °C' reads as a number with a unit (°C)"),
        ("5%", "a percentage is read only by gradcli propagate, as a relative uncertainty"),
        # A constant after a number is a product, as the language says.
        ("2 pi", "implicit multiplication: write 2*pi"),
        ("0x1F", "numbers are decimal"),
    ],
)
def test_units_and_percentages_on_other_commands(gradcli, value, message):
    result = gradcli("grad", "x**2", "--x", value)
    assert result.exit_code == 2
    assert message in result.stderr


def test_a_stationary_point_is_said_and_monte_carlo_offered(gradcli):
    result = gradcli("propagate", "x**2", "--x", "0±0.1", "--format", "json")
    assert result.exit_code == 0, result.output
    assert '"sigma": 0' in result.stdout
    assert "warning: σ_f is 0 to first order" in result.stderr
    assert "a stationary point" in result.stderr
    assert "--monte-carlo 100000" in result.stderr
    # Away from it, first order sees the spread: no word.
    moved = gradcli("propagate", "x**2", "--x", "1±0.1", "--format", "json")
    assert moved.stderr == ""


def test_monte_carlo_at_a_stationary_point(gradcli_json):
    # x ~ N(0, s²): x² = s² χ²(1), of mean s² and standard deviation s² √2, by hand.
    out = gradcli_json("propagate", "x**2", "--x", "0±0.1", "--monte-carlo", "200000",
                       "--seed", "1")  # fmt: skip
    sampled = out["monte_carlo"]
    assert sampled["samples"] == 200000
    assert sampled["mean"] == pytest.approx(0.01, rel=0.02)
    assert sampled["sigma"] == pytest.approx(0.01 * math.sqrt(2), rel=0.02)


def test_monte_carlo_of_correlated_inputs_and_a_vector_output(gradcli_json, tmp_path):
    # Linear outputs: the sampled σ is first order's, sqrt(a Σ aᵀ), up to the sampling.
    covariance = np.array([[0.01, 0.012], [0.012, 0.09]])
    path = tmp_path / "cov.json"
    path.write_text(json.dumps(covariance.tolist()))
    out = gradcli_json("propagate", "[3*x - 2*y, x + y]", "--x", "1.5", "--y", "-0.5",
                       "--cov", path, "--monte-carlo", "200000")  # fmt: skip
    a = np.array([[3, -2], [1, 1]])
    expected = np.sqrt(np.einsum("ij,jk,ik->i", a, covariance, a))
    np.testing.assert_allclose(out["monte_carlo"]["sigma"], expected, rtol=0.01)
    np.testing.assert_allclose(out["monte_carlo"]["mean"], [5.5, 1.0], atol=0.005)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--monte-carlo", "1"], "1 is not in the range x>=2"),
        (["--monte-carlo", "1000", "--max-elements", "100"], "more than --max-elements 100"),
    ],
)
def test_monte_carlo_bad_input(gradcli, args, message):
    result = gradcli("propagate", "x**2", "--x", "0±0.1", *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_get_prints_one_entry_of_the_report(gradcli):
    # σ of x**2 at 1 ± 0.1 is 2 * 0.1, by hand; --get was ignored by the analyses.
    result = gradcli("propagate", "x**2", "--x", "1±0.1", "--get", "sigma")
    assert (result.exit_code, result.stdout) == (0, "0.2\n")
    assert gradcli("propagate", "x**2", "--x", "1±0.1", "--get", "rounded").stdout == "1.0 ± 0.2\n"
    assert gradcli("check", "x**2", "--x", "1", "--get", "passed").stdout == "true\n"
    missing = gradcli("propagate", "x**2", "--x", "1±0.1", "--get", "nope")
    assert missing.exit_code == 2
    assert "--get nope: no such entry; the entries are value, sigma, rounded" in missing.stderr
