"""Every command of the command line, through CliRunner, against numbers derived by
hand or computed with NumPy and finite differences (never by gradcli itself)."""

from __future__ import annotations

import numpy as np
import pytest


def close(actual, expected, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(np.asarray(actual, dtype=float), expected, rtol=rtol, atol=atol)


def finite_difference_jacobian(f, x, eps=1e-6):
    """J[i..., j...] = d f_i / d x_j by central differences."""
    x = np.asarray(x, dtype=float)
    out = np.asarray(f(x))
    jac = np.zeros(out.shape + x.shape)
    for j in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[j] = eps
        jac[(...,) + j] = (f(x + step) - f(x - step)) / (2 * eps)
    return jac


# ----- eval -----


def test_eval(gradcli_json):
    assert gradcli_json("eval", "(x+2)**2+3", "--x", "2") == {"value": 19}


def test_eval_without_inputs(gradcli_json):
    assert gradcli_json("eval", "2**10 - 24") == {"value": 1000}


def test_eval_array(gradcli_json):
    out = gradcli_json("eval", "linspace(0, 1, 5)**2")
    close(out["value"], np.linspace(0, 1, 5) ** 2)


# ----- grad -----


def test_grad_of_the_tutorial_example(gradcli_json):
    # d/dx (x+2)^2 + 3 = 2 (x + 2) = 8 at x = 2
    assert gradcli_json("grad", "(x+2)**2+3", "--x", "2") == {"value": 19, "grad": {"x": 8}}


def test_grad_with_respect_to_every_input(gradcli_json):
    x, y = 0.5, 2.0
    out = gradcli_json("grad", "x*y + sin(x)", "--x", x, "--y", y)
    close(out["value"], x * y + np.sin(x))
    assert list(out["grad"]) == ["x", "y"]
    close(out["grad"]["x"], y + np.cos(x))
    close(out["grad"]["y"], x)


@pytest.mark.parametrize("wrt", [["--wrt", "y"], ["--wrt=y"]])
def test_grad_wrt(gradcli_json, wrt):
    out = gradcli_json("grad", "x*y + sin(x)", "--x", "0.5", "--y", "2", *wrt)
    assert list(out["grad"]) == ["y"]
    close(out["grad"]["y"], 0.5)


def test_grad_wrt_order_and_repetition(gradcli_json):
    out = gradcli_json("grad", "x*y*z", "--x", 1, "--y", 2, "--z", 3, "--wrt", "z,x", "--wrt", "y")
    assert out["grad"] == {"z": 2, "x": 6, "y": 3}


def test_grad_of_a_vector_input(gradcli_json):
    x = np.array([1.0, -2.0, 0.5])
    out = gradcli_json("grad", "sum(x**2) / 2 + prod(x)", "--x", "[1, -2, 0.5]")
    close(out["value"], (x**2).sum() / 2 + x.prod())
    close(out["grad"]["x"], x + x.prod() / x)


def test_grad_of_a_matrix_input(gradcli_json):
    # d/dA (u^T A v) = u v^T
    out = gradcli_json(
        "grad",
        "u @ A @ v",
        "--A",
        "[[1, 2], [3, 4]]",
        "--u",
        "[1, -1]",
        "--v",
        "[2, 5]",
        "--wrt",
        "A",
    )
    close(out["grad"]["A"], np.outer([1, -1], [2, 5]))


def test_grad_of_an_input_the_output_ignores_is_zero(gradcli_json):
    out = gradcli_json("grad", "x**2 + 0*sum(y)", "--x", 3, "--y", "[1, 2]")
    assert out["grad"] == {"x": 6, "y": [0, 0]}


def test_grad_of_a_constant_program(gradcli_json):
    assert gradcli_json("grad", "2 + 3") == {"value": 5, "grad": {}}


def test_grad_never_differentiates_const(gradcli_json):
    out = gradcli_json("grad", "const c = 3; c * x", "--x", 2)
    assert out == {"value": 6, "grad": {"x": 3}}


def test_const_takes_a_bound_value(gradcli_json):
    out = gradcli_json("grad", "const c = 3; c * x", "--x", 2, "--c", 10)
    assert out == {"value": 20, "grad": {"x": 10}}


# ----- jacobian -----


def test_jacobian_of_an_elementwise_function_is_diagonal(gradcli_json):
    out = gradcli_json("jacobian", "x**2 + 2*x + 1", "--x", "[2, 3]")
    assert out["value"] == [9, 16] and out["jacobian"] == {"x": [[6, 0], [0, 8]]}
    assert out["determinant"] == 48  # square: by hand 6 * 8, exactly


def test_jacobian_shapes_are_output_then_input(gradcli_json):
    a = np.array([[1.0, 2, 3], [4, 5, 6]])
    v = np.array([1.0, -1, 2])
    out = gradcli_json("jacobian", "A @ v", "--A", "[[1, 2, 3], [4, 5, 6]]", "--v", "[1, -1, 2]")
    close(out["value"], a @ v)
    close(out["jacobian"]["v"], a)
    expected = np.einsum("ik,l->ikl", np.eye(2), v)  # d(Av)_i / dA_kl = delta_ik v_l
    close(out["jacobian"]["A"], expected)


def test_jacobian_against_finite_differences(gradcli_json):
    w = np.array([[0.3, -0.2, 0.1], [0.5, 0.4, -0.6]])
    x = np.array([0.7, -1.1, 0.4])
    out = gradcli_json(
        "jacobian",
        "tanh(W @ x) * exp(-x[0])",
        "--W",
        w.tolist(),
        "--x",
        x.tolist(),
        "--wrt",
        "x",
    )
    expected = finite_difference_jacobian(lambda x_: np.tanh(w @ x_) * np.exp(-x_[0]), x)
    close(out["jacobian"]["x"], expected, rtol=1e-7, atol=1e-9)


def test_jacobian_of_a_scalar_output(gradcli_json):
    out = gradcli_json("jacobian", "sum(x**3)", "--x", "[1, 2]")
    assert out["jacobian"] == {"x": [3, 12]}


# ----- hessian -----


def test_hessian_blocks(gradcli_json):
    # f = x^3 y: f_x = 3x^2 y, f_y = x^3, f_xx = 6xy, f_xy = 3x^2, f_yy = 0
    out = gradcli_json("hessian", "x**3 * y", "--x", 2, "--y", 3)
    assert out.pop("assembled")["matrix"] == [[36, 12], [12, 0]]
    assert out.pop("classification") == "not a critical point"
    out.pop("eigenvalues"), out.pop("tolerance")
    assert out == {
        "value": 24,
        "grad": {"x": 36, "y": 8},
        "hessian": {"x": {"x": 36, "y": 12}, "y": {"x": 12, "y": 0}},
    }


def test_hessian_of_a_vector_input(gradcli_json):
    out = gradcli_json("hessian", "sum(x**3) + x[0]*x[1]", "--x", "[1, 2]")
    close(out["grad"]["x"], [3 * 1 + 2, 3 * 4 + 1])
    close(out["hessian"]["x"]["x"], [[6, 1], [1, 12]])


def test_hessian_mixed_block_shapes(gradcli_json):
    # f = sum(a) * sum(b**2): H[a][b] = 2 b for every a_i, shape a.shape + b.shape
    out = gradcli_json("hessian", "sum(a) * sum(b**2)", "--a", "[1, 2, 3]", "--b", "[1, -2]")
    close(out["hessian"]["a"]["b"], np.tile([2, -4], (3, 1)))
    close(out["hessian"]["b"]["a"], np.tile([[2], [-4]], (1, 3)))
    close(out["hessian"]["b"]["b"], 2 * 6 * np.eye(2))
    close(out["hessian"]["a"]["a"], np.zeros((3, 3)))


def test_hessian_wrt(gradcli_json):
    out = gradcli_json("hessian", "x**3 * y", "--x", 2, "--y", 3, "--wrt", "y")
    assert {key: out[key] for key in ("value", "grad", "hessian")} == {
        "value": 24, "grad": {"y": 8}, "hessian": {"y": {"y": 0}}
    }  # fmt: skip
    assert out["classification"] == "not a critical point"  # df/dy = x**3 = 8


# ----- vjp -----

VECTOR_PROGRAM = "k = zeros_like(x); k[0] = x[0]**2 + 3*x[1]; k[1] = 2*x[0] + x[1]**2; k"


@pytest.mark.parametrize(
    "v, expected", [("[1, 0]", [4, 3]), ("[0, 1]", [2, 6]), ("[1, 1]", [6, 9])]
)
def test_vjp_is_backward_of_the_vector(gradcli_json, v, expected):
    # J = [[2 x0, 3], [2, 2 x1]] = [[4, 3], [2, 6]] at (2, 3); v^T J
    out = gradcli_json("vjp", VECTOR_PROGRAM, "--x", "[2, 3]", "--grad-output", v)
    assert out == {"value": [13, 13], "vjp": {"x": expected}}


def test_vjp_of_a_scalar_output_defaults_to_one(gradcli_json):
    out = gradcli_json("vjp", "(x+2)**2+3", "--x", 2)
    assert out == {"value": 19, "vjp": {"x": 8}}


def test_vjp_of_a_matrix_output(gradcli_json):
    a = np.array([[1.0, 2], [3, 4]])
    v = np.array([[1.0, 0], [0, 2]])
    out = gradcli_json("vjp", "A @ A", "--A", a.tolist(), "--grad-output", v.tolist())
    # d <V, A A> / dA = V A^T + A^T V
    close(out["vjp"]["A"], v @ a.T + a.T @ v)


# ----- jvp -----


def test_jvp(gradcli_json):
    out = gradcli_json("jvp", "x**2 + y", "--x", "[1, 2]", "--y", 3, "--tangent", "x=[1, 1]")
    assert out == {"value": [4, 7], "jvp": [2, 4]}


def test_jvp_along_several_inputs(gradcli_json):
    # d(x*y) = y dx + x dy
    out = gradcli_json("jvp", "x*y", "--x", 2, "--y", 5, "--tangent", "x=1", "--tangent", "y=-1")
    assert out == {"value": 10, "jvp": 3}


def test_jvp_single_input_needs_no_name(gradcli_json):
    out = gradcli_json("jvp", VECTOR_PROGRAM, "--x", "[2, 3]", "--tangent", "[1, 0]")
    assert out["jvp"] == [4, 2]  # J [1, 0]^T: the first column


def test_jvp_equals_the_jacobian_times_the_tangent(gradcli_json):
    t = np.array([0.5, -1.0, 2.0])
    x = np.array([0.2, 0.4, -0.3])
    jac = gradcli_json("jacobian", "cumsum_like = x * sum(x); sin(cumsum_like)", "--x", x.tolist())[
        "jacobian"
    ]["x"]
    out = gradcli_json(
        "jvp",
        "cumsum_like = x * sum(x); sin(cumsum_like)",
        "--x",
        x.tolist(),
        "--tangent",
        f"x={t.tolist()}",
    )
    close(out["jvp"], np.asarray(jac) @ t)
    expected = finite_difference_jacobian(lambda x_: np.sin(x_ * x_.sum()), x) @ t
    close(out["jvp"], expected, rtol=1e-7, atol=1e-9)


# ----- options shared by every command -----


def test_dtype_float32(gradcli_json):
    assert gradcli_json("eval", "1/3", "--dtype", "float32") == {"value": 0.33333334}
    assert gradcli_json("eval", "1/3") == {"value": 0.3333333333333333}


def test_float32_gradient(gradcli_json):
    out = gradcli_json("grad", "x**2", "--x", "0.1", "--dtype", "float32")
    assert out == {"value": float(str(np.float32(0.1) ** 2)), "grad": {"x": 0.2}}


def test_precision(gradcli_json):
    assert gradcli_json("eval", "pi", "--precision", "3") == {"value": 3.14}
    out = gradcli_json("grad", "x/3", "--x", "1", "--precision", "4")
    assert out == {"value": 0.3333, "grad": {"x": 0.3333}}


def test_output_npz(gradcli, tmp_path):
    path = tmp_path / "out.npz"
    result = gradcli("hessian", "x**3 * y", "--x", 2, "--y", 3, "--output", path)
    assert result.exit_code == 0, result.output
    with np.load(path) as saved:
        assert sorted(saved.files) == sorted(
            [
                "value",
                "grad.x",
                "grad.y",
                "hessian.x.x",
                "hessian.x.y",
                "hessian.y.x",
                "hessian.y.y",
            ]
        )
        assert saved["value"] == 24
        assert saved["hessian.x.y"] == 12


def test_output_must_be_npz(gradcli, tmp_path):
    result = gradcli("eval", "1", "-o", tmp_path / "out.txt")
    assert result.exit_code == 2
    assert "must end in .npz" in result.stderr


def test_seed_fixes_random_values(gradcli_json):
    first = gradcli_json("eval", "x", "--x", "randn(3)")
    again = gradcli_json("eval", "x", "--x", "randn(3)")
    other = gradcli_json("eval", "x", "--x", "randn(3)", "--seed", "1")
    assert first == again
    assert first != other


def test_each_random_binding_draws_its_own_numbers(gradcli_json):
    out = gradcli_json("eval", "[x, y]", "--x", "randn(2)", "--y", "randn(2)")
    x, y = out["value"]
    assert x != y


def test_random_program_values_follow_the_seed(gradcli_json):
    a = gradcli_json("eval", "W = randn(2, 2); sum(W)")
    b = gradcli_json("eval", "W = randn(2, 2); sum(W)", "--seed", "0")
    c = gradcli_json("eval", "W = randn(2, 2); sum(W)", "--seed", "5")
    assert a == b != c
