"""The whole Hessian and Jacobian over all inputs, and the second derivative test.

Expected matrices are derived by hand; eigenvalues of those come from NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gradcli import api

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "source, point, hessian, verdict",
    [
        ("x**2 + 3*y**2", {"x": 0, "y": 0}, [[2, 0], [0, 6]], "local minimum"),
        ("-(x**2) - y**2 + x*y", {"x": 0, "y": 0}, [[-2, 1], [1, -2]], "local maximum"),
        ("x**2 - y**2", {"x": 0, "y": 0}, [[2, 0], [0, -2]], "saddle point"),
        # A ridge: f is constant along x = y, so one eigenvalue is 0.
        ("(x - y)**2", {"x": 1, "y": 1}, [[2, -2], [-2, 2]], "degenerate"),
        # Rosenbrock at its minimum (1, 1): [[2 + 8b x² - 4b(y - x²), -4b x], [-4b x, 2b]].
        ("samples/rosenbrock.grad", {"x": 1, "y": 1}, [[802, -400], [-400, 200]], "local minimum"),
        # The classic start (-1.2, 1) is no critical point.
        ("samples/rosenbrock.grad", {}, [[1330, 480], [480, 200]], "not a critical point"),
        # A zero eigenvalue among eigenvalues of both signs is still a saddle.
        (
            "x**2 - y**2 + 0*z",
            {"x": 0, "y": 0, "z": 0},
            [[2, 0, 0], [0, -2, 0], [0, 0, 0]],
            "saddle point",
        ),
    ],
)
def test_classification(source, point, hessian, verdict):
    text = (ROOT / source).read_text() if source.endswith(".grad") else source
    result = api.hessian(text, point)
    whole = result.assembled
    np.testing.assert_allclose(whole.matrix, hessian, atol=1e-10)
    np.testing.assert_allclose(whole.eigenvalues, np.linalg.eigvalsh(np.array(hessian, float)))
    assert whole.classification == verdict


def test_labels_of_flattened_inputs(gradcli_json):
    out = gradcli_json("hessian", "sum(w**2) * s", "--w", "[1, 2]", "--s", "3")
    # d²/dw² = 2s I, d²/dw ds = 2w, d²/ds² = 0.
    assert out["assembled"]["rows"] == ["w[0]", "w[1]", "s"]
    assert out["assembled"]["columns"] == out["assembled"]["rows"]
    assert out["assembled"]["matrix"] == [[6, 0, 2], [0, 6, 4], [2, 4, 0]]
    np.testing.assert_allclose(
        out["eigenvalues"], np.linalg.eigvalsh(np.array([[6, 0, 2], [0, 6, 4], [2, 4, 0]], float))
    )
    assert out["classification"] == "not a critical point"
    assert out["tolerance"]["gradient"] == pytest.approx(np.sqrt(np.finfo(float).eps) * 15)


def test_no_eigenvalues_past_the_limit(gradcli_json):
    """Past 1000 inputs the O(n³) eigenvalue call is skipped, and the verdict says so."""
    out = gradcli_json("hessian", "sum(x**2)", "--x", "zeros(1001)")
    assert out["eigenvalues"] is None
    assert out["classification"].startswith("not classified: more than 1000 inputs")
    assert np.array_equal(np.diag(out["assembled"]["matrix"]), np.full(1001, 2.0))


@pytest.mark.parametrize(
    "source, x, verdict",
    [
        ("x**2", "0", "local minimum"),  # f' = 0, f'' = 2
        ("cos(x)", "0", "local maximum"),  # f' = 0, f'' = -1
        ("x**3", "0", "degenerate"),  # f' = f'' = 0
        ("x**3", "2", "not a critical point"),  # f' = 12
    ],
)
def test_one_scalar_input_gets_the_second_derivative_test(
    gradcli_json, gradcli, source, x, verdict
):
    out = gradcli_json("hessian", source, "--x", x)
    assert out["classification"] == verdict
    plain = gradcli("hessian", source, "--x", x).stdout.splitlines()
    assert f"classification {verdict}" in plain
    table = gradcli("hessian", source, "--x", x, tty=True).stdout
    assert f"classification: {verdict}" in table and "whole Hessian" not in table


def test_no_eigenvalue_is_minus_zero(gradcli_json, gradcli):
    # The Hessian of x**4 - y**4 at 0 is diag(12x², -12y²) = 0, its -0.0 from the minus.
    out = gradcli_json("hessian", "x**4 - y**4", "--x", "0", "--y", "0")
    assert out["eigenvalues"] == [0, 0] and not np.signbit(out["eigenvalues"]).any()
    plain = gradcli("hessian", "x**4 - y**4", "--x", "0", "--y", "0").stdout.splitlines()
    assert "eigenvalues 0 0" in plain


def test_matrix_input_labels(gradcli_json):
    out = gradcli_json("hessian", "sum(W**2)", "--W", "[[1, 2], [3, 4]]")
    assert out["assembled"]["rows"] == ["W[0,0]", "W[0,1]", "W[1,0]", "W[1,1]"]
    assert out["assembled"]["matrix"] == (2 * np.eye(4)).tolist()


def test_jacobian_assembled_and_determinant(gradcli_json):
    # Polar to Cartesian at r = 2, θ = π/6: columns (cos θ, sin θ) and (-r sin θ, r cos θ).
    out = gradcli_json("jacobian", "samples/polar_to_cartesian.grad")
    r, t = 2, np.pi / 6
    assert out["assembled"]["rows"] == ["f[0]", "f[1]"]
    assert out["assembled"]["columns"] == ["r", "θ"]
    np.testing.assert_allclose(
        out["assembled"]["matrix"], [[np.cos(t), -r * np.sin(t)], [np.sin(t), r * np.cos(t)]]
    )
    assert out["determinant"] == pytest.approx(r)


def test_jacobian_not_square_has_no_determinant(gradcli_json):
    out = gradcli_json("jacobian", "x * y", "--x", "[1, 2, 3]", "--y", "2")
    assert out["assembled"]["matrix"] == [[2, 0, 0, 1], [0, 2, 0, 2], [0, 0, 2, 3]]
    assert "determinant" not in out


def test_table_shows_the_verdict(gradcli):
    result = gradcli("hessian", "x**2 - y**2", "--x", "0", "--y", "0", tty=True)
    assert result.exit_code == 0
    assert "whole Hessian" in result.stdout
    assert "classification: saddle point" in result.stdout
    assert "eigenvalues: [-2  2]" in result.stdout


def test_plain_lines(gradcli):
    result = gradcli("hessian", "x**2 + y**2", "--x", "0", "--y", "0", "--format", "plain")
    lines = result.stdout.splitlines()
    assert "assembled.matrix 2 0 0 2" in lines
    assert "classification local minimum" in lines
