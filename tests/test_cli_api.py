"""The library API under the command line: frozen results holding NumPy arrays."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import gradcli
from gradcli import api
from gradcli.errors import GradcliError


def test_gradient_result():
    r = api.gradient("(x+2)**2+3", {"x": 2})
    assert r.command == "grad"
    assert float(r.value) == 19 and float(r.grad["x"]) == 8
    assert r.inputs == ("x",)
    assert dict(r.shapes) == {"x": ()}
    assert float(r.point["x"]) == 2
    assert r.warnings == () and r.finite
    assert r.value.dtype == np.float64


def test_results_are_frozen():
    r = api.hessian("sum(x**3)", {"x": [1.0, 2.0]})
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.value = np.zeros(())
    with pytest.raises(TypeError):
        r.grad["x"] = np.zeros(2)
    with pytest.raises(ValueError):
        r.grad["x"][0] = 5
    with pytest.raises(ValueError):
        r.hessian["x"]["x"][0, 0] = 5
    with pytest.raises(ValueError):
        r.point["x"][0] = 5


def test_bindings_may_be_arrays_numbers_or_text():
    a = api.gradient("sum(w * x)", {"w": np.array([1.0, 2.0]), "x": "[3, 4]"})
    b = api.gradient("sum(w * x)", {"w": [1, 2], "x": "linspace(3, 4, 2)"})
    for r in (a, b):
        np.testing.assert_array_equal(r.grad["w"], [3, 4])
        np.testing.assert_array_equal(r.grad["x"], [1, 2])


def test_integer_bindings_become_floating_point():
    r = api.gradient("sum(x**2)", {"x": np.array([1, 2])})
    assert r.point["x"].dtype == np.float64
    np.testing.assert_array_equal(r.grad["x"], [2, 4])


def test_dtype_float32_and_the_default_dtype_is_restored():
    before = gradcli.get_default_dtype()
    r = api.jacobian("x * 3", {"x": [1, 2]}, dtype="float32")
    assert r.value.dtype == np.float32 and r.jacobian["x"].dtype == np.float32
    assert gradcli.get_default_dtype() == before


def test_unknown_dtype():
    with pytest.raises(GradcliError, match="unknown dtype 'float16'"):
        api.evaluate("1", dtype="float16")


def test_as_tree_orders_every_section():
    r = api.hessian("x*y", {"x": 1, "y": 2}, wrt=["y", "x"])
    tree = r.as_tree()
    assert list(tree) == ["value", "grad", "hessian"]
    assert list(tree["grad"]) == ["y", "x"]
    assert list(tree["hessian"]["y"]) == ["y", "x"]


def test_vjp_and_jvp_keep_their_vectors():
    r = api.vjp("x * [1, 2]", {"x": 1}, grad_output="[3, 4]")
    np.testing.assert_array_equal(r.grad_output, [3, 4])
    assert float(r.vjp["x"]) == 11
    t = api.jvp("x * [1, 2]", {"x": 1}, tangents={"x": 2})
    assert float(t.tangents["x"]) == 2
    np.testing.assert_array_equal(t.jvp, [2, 4])


def test_warnings_for_nonfinite_results():
    r = api.evaluate("log(x)", {"x": -1})
    assert not r.finite
    assert r.warnings[0].startswith("warning: the value contains nan; the first came from log")


def test_random_values_in_the_body_agree_across_passes():
    # The Hessian evaluates the program several times: each pass sees the same noise.
    r = api.hessian("noise = randn(3); sum(x**2 * noise)", {"x": [1.0, 2.0, 3.0]})
    noise = r.grad["x"] / (2 * np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(r.hessian["x"]["x"], np.diag(2 * noise), rtol=1e-12)
    np.testing.assert_allclose(float(r.value), np.sum(np.array([1, 4, 9]) * noise), rtol=1e-12)


def test_title():
    assert api.evaluate("1 + 1").title == "1 + 1"
    long = " + ".join(["1"] * 40)
    assert api.evaluate(long, filename="sum.grad").title == "sum.grad"
    assert api.evaluate(long).title == long


def test_errors_are_gradcli_errors():
    with pytest.raises(GradcliError, match="no input named 'y'"):
        api.evaluate("x", {"x": 1, "y": 2})
    with pytest.raises(GradcliError, match="grad needs a scalar output"):
        api.gradient("[x, x]", {"x": 1})


@pytest.mark.parametrize(
    "name, options",
    [
        ("evaluate", {}),
        ("gradient", {"wrt": ["x"], "steps": False}),
        ("jacobian", {"wrt": ["x"], "announce": None, "holomorphic": False}),
        ("hessian", {"wrt": ["x"], "announce": None}),
        ("vjp", {"wrt": ["x"], "grad_output": 1.0, "steps": False}),
        ("graph", {"wrt": ["x"], "grad_output": 1.0}),
        ("jvp", {"tangents": {"x": 1.0}, "unit": False, "order": 1}),
    ],
)
def test_each_command_takes_the_shared_keywords_and_refuses_others(name, options):
    import inspect

    command = getattr(api, name)
    shared = {"dtype": "float32", "seed": 1, "filename": "f.grad", "max_elements": 10}
    params = inspect.signature(command).parameters
    assert list(params)[:2] == ["source", "bindings"]
    assert set(shared) | set(options) == set(list(params)[2:])
    # x**3 at x = 2: value 8, d/dx = 3 x**2 = 12.
    r = command(source="x**3", bindings={"x": 2}, **options, **shared)
    if name != "graph":
        assert r.value.dtype == np.float32 and float(r.value) == 8
    if name in ("gradient", "hessian"):
        assert float(r.grad["x"]) == 12
    with pytest.raises(TypeError):
        command("x**3", {"x": 2}, "float32")  # the settings are keywords only
    with pytest.raises(TypeError):
        command("x**3", {"x": 2}, max_element=10)
