"""``gradcli propagate`` at the ends of float64's range: J diag(σ) is formed and
summed scaled, so σ_f comes out whenever it is a float64 itself. Expected values are
worked by hand or in mpmath at 50 digits from the same float inputs."""

from __future__ import annotations

import json
import math
import subprocess

import mpmath
import numpy as np
import pytest

from gradcli.analysis import propagate
from gradcli.analysis.uncertainty import rounded


@pytest.mark.parametrize(
    "args, sigma, shares",
    [
        # d/dx x = 1: σ_f = σ_x; σ_x² = 1e-342 is below float64's smallest number.
        (["x", "--x", "1e-170±1e-171"], 1e-171, {"x": 1}),
        # d/dx x/1e10 = 1e-10: σ_f = 1e298 / 1e10; σ_x² = 1e596 is beyond its largest.
        (["x/1e10", "--x", "1e300±1e298"], 1e288, {"x": 1}),
        # J = [y, x]: σ_f = hypot(1e200·1e-202, 1e-200·1e198) = √2·1e-2.
        (
            ["x*y", "--x", "1e-200±1e-202", "--y", "1e200±1e198"],
            0.01414213562373095,  # √2/100 correctly rounded
            {"x": 0.5, "y": 0.5},
        ),
    ],
)
def test_the_command_at_extreme_scales(gradcli_script, args, sigma, shares):
    done = subprocess.run(
        [*gradcli_script, "propagate", *args, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")  # no RuntimeWarning either
    out = json.loads(done.stdout)
    assert out["sigma"] == sigma  # each is one correctly rounded product (or a hypot)
    assert out["shares"] == pytest.approx(shares, rel=1e-14)
    for option, text in zip(args[1::2], args[2::2]):  # σ as given, not √(σ²)
        assert out["inputs"][option[2:]]["sigma"] == float(text.split("±")[1])


def _mp_sigma(jacobian, covariance):
    """sqrt(J Σ Jᵀ) of one output row in mpmath, from the floats' exact values."""
    with mpmath.workdps(50):
        j = [mpmath.mpf(float(a)) for a in jacobian]
        c = [[mpmath.mpf(float(a)) for a in row] for row in covariance]
        n = len(j)
        return mpmath.sqrt(sum(j[a] * c[a][b] * j[b] for a in range(n) for b in range(n)))


def _write(tmp_path, covariance):
    path = tmp_path / "cov.json"
    path.write_text(json.dumps(np.asarray(covariance).tolist()))
    return str(path)


@pytest.mark.parametrize(
    "source, jacobian, sx, sy, rho",
    [
        # J Σ would be 1e310: σ_f ≈ 1e10·1e150·√(2·1e-6), cancelled by the correlation.
        ("1e10*(x - y)", [1e10, -1e10], 1e150, 1e150, 0.999999),
        # J Σ would be 1e-400: σ_f ≈ 1e-100·1e-150·√3.
        ("1e-100*(x + 2*y)", [1e-100, 2e-100], 1e-150, 2e-150, -0.5),
        # J_x Σ_xx would be 1e450: σ_f ≈ 1e300, to which y adds 1e-300.
        ("1e150*x + 1e-150*y", [1e150, 1e-150], 1e150, 1e-150, 0.3),
    ],
)
def test_a_covariance_at_extreme_scales(tmp_path, source, jacobian, sx, sy, rho):
    covariance = [[sx * sx, rho * sx * sy], [rho * sx * sy, sy * sy]]
    report = propagate(source, {"x": 1, "y": 2}, cov=_write(tmp_path, covariance))
    expected = _mp_sigma(jacobian, covariance)
    assert float(report.sigma) == pytest.approx(float(expected), rel=1e-9)
    assert float(report.sigmas["x"]) == pytest.approx(sx, rel=1e-15)
    with mpmath.workdps(50):
        own = [(mpmath.mpf(jacobian[i]) * mpmath.mpf(covariance[i][i]) ** 0.5) ** 2 / expected**2
               for i in range(2)]  # fmt: skip
    shares = [float(report.shares["x"]), float(report.shares["y"])]
    assert shares == pytest.approx([float(s) for s in own], rel=1e-6)
    assert sum(shares) + float(report.correlation_share) == pytest.approx(1, abs=1e-6)


def test_a_vector_output_whose_covariance_overflows_keeps_its_sigmas(tmp_path):
    # Row 1 as in the first case above (σ₁ ≈ 1.4e157, σ₁² beyond float64); row 2:
    # J = [1e-100, 2e-100], σ₂ = 1e-100·1e150·√(1 + 4·4 + 4·2·0.999999).
    sx, sy, rho = 1e150, 2e150, 0.999999
    covariance = [[sx * sx, rho * sx * sy], [rho * sx * sy, sy * sy]]
    report = propagate(
        "[1e10*(x - y), 1e-100*(x + 2*y)]", {"x": 1, "y": 2}, cov=_write(tmp_path, covariance)
    )
    expected = [_mp_sigma([1e10, -1e10], covariance), _mp_sigma([1e-100, 2e-100], covariance)]
    np.testing.assert_allclose(report.sigma, [float(e) for e in expected], rtol=1e-9)
    assert math.isinf(report.covariance[0, 0])
    with mpmath.workdps(50):
        cross = sum(mpmath.mpf(a) * mpmath.mpf(covariance[i][k]) * mpmath.mpf(b)
                    for i, a in enumerate([1e10, -1e10])
                    for k, b in enumerate([1e-100, 2e-100]))  # fmt: skip
    assert report.covariance[0, 1] == pytest.approx(float(cross), rel=1e-9)
    assert report.covariance[1, 1] == pytest.approx(float(expected[1] ** 2), rel=1e-9)
    assert any("beyond float64's range" in w for w in report.warnings)


def test_ordinary_scales_by_hand(tmp_path):
    # f = x - y, σ = (0.3, 0.4), ρ = 0.5: σ_f² = 0.09 + 0.16 - 2·0.5·0.12 = 0.13.
    covariance = [[0.09, 0.06], [0.06, 0.16]]
    report = propagate("x - y", {"x": 1, "y": 2}, cov=_write(tmp_path, covariance))
    assert float(report.sigma) == pytest.approx(math.sqrt(0.13), rel=1e-14)
    assert float(report.shares["x"]) == pytest.approx(0.09 / 0.13, rel=1e-14)
    assert float(report.shares["y"]) == pytest.approx(0.16 / 0.13, rel=1e-14)
    assert float(report.correlation_share) == pytest.approx(-0.12 / 0.13, rel=1e-14)
    # An exact input in a covariance file (a zero row) and an output of zero slope.
    covariance = [[0.0, 0.0], [0.0, 0.04]]
    report = propagate("[x + y, 0*x]", {"x": 1, "y": 2}, cov=_write(tmp_path, covariance))
    np.testing.assert_allclose(report.sigma, [0.2, 0.0], rtol=1e-15)
    np.testing.assert_allclose(report.covariance, [[0.04, 0], [0, 0]], rtol=1e-15)
    np.testing.assert_allclose(report.shares["y"], [1, 0])
    # f = x²y at (3, 2), σ = (0.1, 0.2): J = (2xy, x²) = (12, 9); σ_f = √(1.2² + 1.8²).
    report = propagate("x**2*y", {"x": "3±0.1", "y": "2±0.2"})
    assert float(report.sigma) == pytest.approx(math.hypot(1.2, 1.8), rel=1e-14)


@pytest.mark.parametrize(
    "value, sigma, text",
    [
        (1e-170, 1e-171, "(1.00 ± 0.10)e-170"),
        (1e290, 1e288, "(1.000 ± 0.010)e+290"),
        (1.0, 0.01414213562373095, "1.000 ± 0.014"),
        # Subnormal: 10.0**-324 is 0 in float64; 1e-320 is stored as 9.99989e-321.
        (1e-323, 5e-324, "(1.0 ± 0.5)e-323"),
        (1e-320, 1e-321, "(1.00 ± 0.10)e-320"),
        # 9.88 at the value's own scale rounds to 10: it is written 1.0e-23.
        (9.881312916824931e-24, 4.940656458412466e-24, "(1.0 ± 0.5)e-23"),
        (-4410688.650567021, 98220021.22855948, "(0.0 ± 1.0)e+08"),
    ],
)
def test_rounding_at_extreme_scales(value, sigma, text):
    assert rounded(value, sigma) == text
