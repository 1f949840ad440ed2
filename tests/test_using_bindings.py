"""Every command that puts the derivative to work honours a binding of a const, as
eval and grad do: the program's default is only the default. Expected numbers are
derived by hand."""

from __future__ import annotations

import numpy as np
import pytest

SHIFTED = "const c = 3\nx = 0\n(x - c)**2\n"


@pytest.fixture
def program(tmp_path):
    def write(text: str, name: str = "p.grad") -> str:
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


def test_minimize_uses_the_bound_const(gradcli_json, program):
    # (x - 7)^2 is least at x = 7; the default c = 3 would give 3.
    shown = gradcli_json("minimize", program(SHIFTED), "--c", "7")
    assert shown["point"]["x"] == pytest.approx(7, abs=1e-9)


def test_critical_uses_the_bound_const(gradcli_json, program):
    shown = gradcli_json("critical", program(SHIFTED), "--c", "7", "--over", "x=-10:10")
    assert [p["x"] for p in shown["points"]] == pytest.approx([7], abs=1e-9)


def test_solve_uses_the_bound_const(gradcli_json, program):
    # c x - 6 = 0 at x = 6 / c: 3 for c = 2 (the default c = 3 gives 2).
    shown = gradcli_json("solve", program("const c = 3\nx = 1\nc*x - 6\n"), "--c", "2")
    assert shown["point"]["x"] == pytest.approx(3, abs=1e-12)


def test_solve_gives_a_different_root_for_each_bound_const(gradcli_json, program):
    # x^2 = p: the root from 1 is sqrt(p), one for each binding of p.
    source = program("const p = 4\nx = 1\nx**2 - p\n")
    roots = [gradcli_json("solve", source, "--p", p)["point"]["x"] for p in ("5", "10")]
    assert roots == pytest.approx([np.sqrt(5), np.sqrt(10)], abs=1e-12)


def test_fit_uses_the_bound_const(gradcli_json, program, tmp_path):
    # y = 2x + 5 exactly: with c bound to 5 the slope is 2 (c = 100 would give another).
    data = tmp_path / "d.csv"
    data.write_text("x,y\n" + "".join(f"{x},{2 * x + 5}\n" for x in range(6)))
    source = program("const c = 100\na = 1\na*x + c\n")
    shown = gradcli_json("fit", source, "--points", str(data), "--params", "a=1", "--c", "5")
    assert shown["parameters"]["a"]["value"] == pytest.approx(2, abs=1e-10)
    assert shown["rss"] == pytest.approx(0, abs=1e-18)


def test_a_const_vector_bound_from_a_file(gradcli_json, program, tmp_path):
    # The least squares mean of the data bound from the file: its mean, 10 (the
    # default data would give 2).
    (tmp_path / "y.csv").write_text("y\n8\n10\n12\n")
    source = program("const y = [1, 2, 3]\nm = 0\nsum((y - m)**2)\n")
    shown = gradcli_json("minimize", source, "--y", f"@{tmp_path / 'y.csv'}")
    assert shown["point"]["m"] == pytest.approx(10, abs=1e-9)


def test_an_implied_volatility_grid_agrees_with_brentq(gradcli, tmp_path):
    # Each row's sigma against SciPy's bracketing root finder on a Black-Scholes
    # price written with scipy.stats' normal CDF.
    import csv
    import io
    from pathlib import Path

    import scipy.optimize
    from scipy.stats import norm

    samples = Path(__file__).resolve().parent.parent / "samples"
    result = gradcli(
        "solve", str(samples / "implied_volatility.grad"), "--wrt", "sigma",
        "--points", str(samples / "option_quotes.csv"), "--format", "csv",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 5

    def call(sigma, strike, s=100.0, r=0.05, t=0.5):
        d1 = (np.log(s / strike) + (r + sigma**2 / 2) * t) / (sigma * np.sqrt(t))
        return s * norm.cdf(d1) - strike * np.exp(-r * t) * norm.cdf(d1 - sigma * np.sqrt(t))

    for row in rows:
        strike, price = float(row["K"]), float(row["price"])
        expected = scipy.optimize.brentq(
            lambda v, k=strike, p=price: call(v, k) - p, 0.01, 2, xtol=1e-15
        )
        assert float(row["point.sigma"]) == pytest.approx(expected, rel=1e-12)
        assert row["converged"] == "true"
