"""api.points: a command at many points at once, each point as the single-point call.

The expected values come from hand derivations and from the single-point API
called row by row (which does not use the batching rules).
"""

from __future__ import annotations

import numpy as np
import pytest

from gradcli import api
from gradcli.errors import GradcliError

SOURCE = "sin(x)*exp(-y**2) + x*y**3"


def test_value_and_gradient_at_many_points_by_hand():
    x = np.linspace(-2, 2, 7)
    y = np.linspace(1, -1, 7)
    r = api.points("grad", SOURCE, batch={"x": x, "y": y})
    e = np.exp(-(y**2))
    np.testing.assert_allclose(r.arrays["value"], np.sin(x) * e + x * y**3, rtol=1e-13)
    np.testing.assert_allclose(r.arrays["grad.x"], np.cos(x) * e + y**3, rtol=1e-13)
    dy = -2 * y * np.sin(x) * e + 3 * x * y**2
    np.testing.assert_allclose(r.arrays["grad.y"], dy, rtol=1e-13, atol=1e-15)
    assert r.size == 7 and r.varying == ("x", "y") and r.inputs == ("x", "y")
    assert set(r.arrays) == {"value", "grad.x", "grad.y"}
    assert not r.nonfinite.any()


def test_an_input_bound_once_is_the_same_at_every_point_and_has_each_points_gradient():
    x = np.array([0.5, 1.0, 2.0])
    r = api.points("grad", "x * y**2", {"y": 3}, {"x": x})
    np.testing.assert_allclose(r.arrays["grad.x"], [9.0, 9.0, 9.0])
    np.testing.assert_allclose(r.arrays["grad.y"], 6 * x)  # d/dy at each point, not summed


def test_the_arrays_have_the_single_point_keys_and_shapes():
    batch = {"v": np.arange(12.0).reshape(4, 3)}
    for command, kw in [("eval", {}), ("jacobian", {}), ("vjp", {"grad_output": [1, 2, 3]})]:
        r = api.points(command, "v * v", batch=batch, **kw)
        one = {"eval": api.evaluate, "jacobian": api.jacobian, "vjp": api.vjp}[command](
            "v * v", {"v": batch["v"][2]}, **kw
        )
        assert set(r.arrays) == set(one.arrays())
        for key, array in one.arrays().items():
            np.testing.assert_allclose(r.arrays[key][2], array, rtol=1e-13)


def test_no_points_is_an_empty_result():
    r = api.points("grad", "sum(v**2)", batch={"v": np.zeros((0, 3))})
    assert r.size == 0
    assert r.arrays["value"].shape == (0,) and r.arrays["grad.v"].shape == (0, 3)


def test_a_name_both_bound_and_in_batch_is_an_error():
    with pytest.raises(GradcliError, match="both bound and in batch"):
        api.points("eval", "x + 1", {"x": 1}, {"x": [1, 2]})


def test_inputs_of_different_lengths_are_an_error():
    with pytest.raises(GradcliError, match="3 points"):
        api.points("eval", "x + y", batch={"x": [1, 2], "y": [1, 2, 3]})


def _point_by_point(command, source, bindings, batch, **kw):
    single = {"eval": api.evaluate, "grad": api.gradient, "jvp": api.jvp, "hessian": api.hessian}
    size = len(next(iter(batch.values())))
    r = api.points(command, source, bindings, batch, **kw)
    for i in range(size):
        at = {**bindings, **{name: rows[i] for name, rows in batch.items()}}
        one = single[command](source, at, **kw).arrays()
        assert list(one) == list(r.arrays)
        for key, expected in one.items():
            assert r.arrays[key].dtype == expected.dtype, key
            np.testing.assert_allclose(r.arrays[key][i], expected, rtol=1e-6, err_msg=key)
    return r


def test_float32_points_are_float32_and_equal_the_single_point_results():
    batch = {"x": np.array([0.5, 1.5, -2.0]), "y": np.array([1.0, 2.0, 3.0])}
    r = _point_by_point("hessian", SOURCE, {}, batch, dtype="float32")
    assert r.arrays["hessian.x.y"].dtype == np.float32


def test_a_const_may_vary_and_is_never_differentiated():
    r = _point_by_point("grad", "const c = 2; c * x**2", {}, {"c": [1.0, 2.0, 3.0], "x": [1, 1, 2]})
    np.testing.assert_allclose(r.arrays["grad.x"], [2.0, 4.0, 12.0])
    assert r.inputs == ("x",)


def test_wrt_chooses_the_inputs_and_a_mask_may_vary():
    batch = {"m": np.array([[True, False], [False, True]]), "v": np.array([[1.0, 2], [3, 4]])}
    r = _point_by_point("grad", "sum(where(m, v * w, 0))", {"w": 3}, batch, wrt=["w"])
    np.testing.assert_allclose(r.arrays["grad.w"], [1.0, 4.0])
    assert set(r.arrays) == {"value", "grad.w"}


def test_jvp_moves_an_input_that_is_the_same_at_every_point():
    batch = {"x": np.array([0.5, 1.0, 2.0])}
    r = _point_by_point("jvp", "f(a) = a**3\nx * y**2 + f(x)", {"y": 3}, batch, tangents={"y": 1})
    np.testing.assert_allclose(r.arrays["jvp"], 6 * batch["x"])


def test_a_nan_at_one_point_is_flagged_and_warned_once():
    r = api.points("grad", "sqrt(x)", batch={"x": [4.0, -1.0, 9.0]})
    np.testing.assert_array_equal(r.nonfinite, [False, True, False])
    assert len(r.warnings) == 2  # the value and grad.x
    assert "at 1 point (the first: point 1)" in r.warnings[0]


def test_jacobian_of_a_matrix_product_at_many_points_by_hand():
    # d/dx (A @ tanh(x)) = A * (1 - tanh(x)**2) along its columns, at every point; the
    # identity's rows reach the product repeated at every point, computed once.
    rng = np.random.default_rng(7)
    a, xs = rng.standard_normal((4, 3)), rng.standard_normal((6, 3))
    found = api.points("jacobian", "A @ tanh(x)", {"A": a}, {"x": xs}, wrt=["x"]).arrays
    np.testing.assert_allclose(
        found["jacobian.x"], a[None] * (1 - np.tanh(xs) ** 2)[:, None, :], rtol=1e-14
    )
    np.testing.assert_allclose(found["value"], np.tanh(xs) @ a.T, rtol=1e-13, atol=1e-15)


def test_stacked_product_of_repeated_operands_is_numpys_product():
    from gradcli.engine.ops.products import _matmul

    rng = np.random.default_rng(8)
    a = rng.standard_normal((5, 5))
    repeated = np.broadcast_to(rng.standard_normal((3, 1, 5, 2)), (3, 4, 5, 2))
    for x, y in ((a, repeated), (np.swapaxes(repeated, -1, -2), a)):
        product = _matmul(x, y)
        assert product.shape == np.matmul(x, y).shape
        np.testing.assert_array_equal(product, np.matmul(x.copy(), y.copy()))
