"""gradcheck and gradgradcheck: they pass correct rules and catch each kind of wrong one.

Wrong rules are planted by swapping an op's rules for the duration of a test.
"""

from __future__ import annotations

import numpy as np
import pytest

import gradcli
from gradcli.autograd import GradcheckError, gradcheck, gradgradcheck
from gradcli.engine import ops
from gradcli.errors import GradcliError


def _x(*values):
    return gradcli.tensor(values, dtype=gradcli.float64, requires_grad=True)


@pytest.fixture
def wrong_rule(monkeypatch):
    """Replace the rules of an op (and the variants sharing its name) for one test."""

    def plant(name, *rules):
        for overload in ops.OPS[name].overloads:
            monkeypatch.setattr(overload, "rules", rules)

    return plant


def test_defaults_are_pytorchs():
    import inspect

    for check in (gradcheck, gradgradcheck):
        params = inspect.signature(check).parameters
        assert (params["eps"].default, params["atol"].default, params["rtol"].default) == (
            1e-6,
            1e-5,
            1e-3,
        )
        assert params["raise_exception"].default is True


def test_passes_correct_functions_of_several_inputs_and_outputs():
    x, y = _x(0.5, 1.5, 2.0), _x(-1.0, 0.3, 0.7)

    def f(a, scale, b):
        return (a * b).sin() * scale, (a / b.exp()).sum(), (a > 1)  # the mask is not checked

    assert gradcheck(f, (x, 2.0, y)) is True
    assert gradgradcheck(f, (x, 2.0, y)) is True
    assert gradcheck(lambda a: a.log(), x, check_batched_grad=True)  # a bare tensor as inputs


def test_a_wrong_first_derivative_is_reported_with_both_jacobians(wrong_rule):
    wrong_rule("sin", lambda g, ans, x: g * ops.sin(x))  # should be cos
    x = _x(0.1, 0.2)
    with pytest.raises(GradcheckError) as err:
        gradcheck(lambda a, b: a * b.sin(), (x, _x(0.3, 1.2)))
    message = str(err.value)
    assert "with respect to input 1" in message
    # The worst entry is d out[1] / d b[1]: analytical 0.2 sin(1.2), numerical 0.2 cos(1.2).
    assert "d output[1] / d input[1]" in message
    assert "analytical 0.18640" in message  # 0.2 sin(1.2) = 0.186408...
    assert "numerical 0.07247" in message  # 0.2 cos(1.2) = 0.072471...
    assert "numerical:\n[[" in message and "analytical:\n[[" in message
    assert isinstance(err.value, RuntimeError) and isinstance(err.value, GradcliError)


def test_large_jacobians_are_not_printed(wrong_rule):
    wrong_rule("exp", lambda g, ans, x: g * 2 * ans)
    with pytest.raises(GradcheckError, match="Jacobians of 1600 entries not shown"):
        gradcheck(lambda a: a.exp(), (_x(*np.linspace(0, 1, 40)),))


def test_raise_exception_false_returns_false(wrong_rule):
    wrong_rule("exp", lambda g, ans, x: g * 2 * ans)
    assert gradcheck(lambda a: a.exp(), (_x(0.5),), raise_exception=False) is False


def test_a_wrong_second_derivative_passes_gradcheck_but_not_gradgradcheck(wrong_rule):
    # The first derivative is right, but its own derivative is cut off by detach.
    wrong_rule("sin", lambda g, ans, x: g * ops.cos(ops.detach(x)))
    x = _x(0.3, 1.1)
    assert gradcheck(lambda a: a.sin(), (x,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(lambda a: a.sin(), (x,))


def test_check_batched_grad_catches_a_rule_that_ignores_batch_dimensions(wrong_rule):
    # Positive axes pick the batch dimension when the gradient carries one.
    wrong_rule("transpose", lambda g, ans, x, d0, d1: ops.transpose(g, d0, d1))
    x = gradcli.tensor(np.arange(6.0).reshape(2, 3), dtype=gradcli.float64, requires_grad=True)
    assert gradcheck(lambda a: a.transpose(0, 1) * 1.0, (x,))
    with pytest.raises(GradcheckError, match="[Bb]atched gradient"):
        gradcheck(lambda a: a.transpose(0, 1) * 1.0, (x,), check_batched_grad=True)


def test_float32_inputs_warn_as_pytorch_does():
    x = gradcli.tensor([0.5, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
        gradcheck(lambda a: a * 2.0, (x,), raise_exception=False)


def test_no_input_that_requires_grad_is_an_error():
    with pytest.raises(TypeError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (gradcli.tensor([1.0], dtype=gradcli.float64),))


def test_an_output_cut_from_the_graph_must_have_zero_numerical_gradient():
    x = _x(1.0, 2.0)
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda a: (a * 2).detach(), (x,))
    assert gradcheck(lambda a: (a * 0).detach() + 1.0, (x,))


def test_perturbed_inputs_are_restored():
    x = _x(0.25, 0.5)
    gradcheck(lambda a: a.exp(), (x,))
    assert x.tolist() == [0.25, 0.5] and x.grad is None


def test_gradgradcheck_with_given_grad_outputs():
    x = _x(0.2, 0.4, 0.6)
    v = gradcli.tensor([1.0, -2.0, 0.5], dtype=gradcli.float64, requires_grad=True)
    assert gradgradcheck(lambda a: a.tanh() * a, (x,), (v,))
    assert gradgradcheck(lambda a: a.tanh() * a, (x,), v, check_batched_grad=True)


def test_gradcheck_agrees_with_torch_on_the_verdict():
    torch = pytest.importorskip(
        "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
    )
    values = [0.3, -0.7, 1.2]
    for m, check in ((gradcli, gradcheck), (torch, torch.autograd.gradcheck)):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        assert check(lambda a: a.sin() * a.exp(), (x,))
        # relu at its kink: the central difference gives 1/2, the subgradient 0.
        y = m.tensor([0.0, 1.0], dtype=m.float64, requires_grad=True)
        assert check(lambda a: a.relu(), (y,), raise_exception=False) is False
