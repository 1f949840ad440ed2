"""``gradcli.autograd.functional`` against hand-derived values and ``torch.autograd.functional``.

Each function is written once for both libraries (``m`` is ``gradcli`` or
``torch``); results must match PyTorch's in float64 to rtol 1e-10, with the
same nesting of tuples, the same shapes and the same ``requires_grad``.
"""

from __future__ import annotations

import numpy as np
import pytest

import gradcli
from gradcli.autograd import functional as F

# ----- hand-derived values: no PyTorch needed -----


def _f64(values):
    return gradcli.tensor(values, dtype=gradcli.float64)


def test_jacobian_of_the_tutorial_vector_function():
    # k(x) = [x0^2 + 3 x1, 2 x0 + x1^2]: J = [[2 x0, 3], [2, 2 x1]] = [[4, 3], [2, 6]] at (2, 3).
    def k(x):
        return gradcli.stack([x[0] ** 2 + 3 * x[1], 2 * x[0] + x[1] ** 2])

    jac = F.jacobian(k, _f64([2.0, 3.0]))
    np.testing.assert_array_equal(jac.numpy(), [[4.0, 3.0], [2.0, 6.0]])
    assert not jac.requires_grad


def test_hessian_of_rosenbrock_at_its_minimum():
    # f = (1 - x)^2 + 100 (y - x^2)^2: H = [[2 - 400 (y - 3 x^2), -400 x], [-400 x, 200]].
    def rosenbrock(p):
        return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2

    hess = F.hessian(rosenbrock, _f64([1.0, 1.0]))
    np.testing.assert_array_equal(hess.numpy(), [[802.0, -400.0], [-400.0, 200.0]])


def test_products_by_hand():
    # f(x) = sum(x^3): gradient 3 x^2, Hessian diag(6 x).
    x = _f64([1.0, 2.0])
    v = _f64([1.0, -1.0])
    value, vjp = F.vjp(lambda x: x**3, x, v)
    np.testing.assert_array_equal(value.numpy(), [1.0, 8.0])
    np.testing.assert_array_equal(vjp.numpy(), [3.0, -12.0])
    _, jvp = F.jvp(lambda x: x**3, x, v)
    np.testing.assert_array_equal(jvp.numpy(), [3.0, -12.0])
    for product in (F.hvp, F.vhp):
        value, hv = product(lambda x: (x**3).sum(), x, v)
        assert value.item() == 9.0
        np.testing.assert_array_equal(hv.numpy(), [6.0, -12.0])


def test_tuple_structure_by_hand():
    x, y = _f64([1.0, 2.0]), _f64(3.0)
    jac = F.jacobian(lambda x, y: (x * y, y * y), (x, y))
    assert isinstance(jac, tuple) and all(isinstance(row, tuple) and len(row) == 2 for row in jac)
    assert [tuple(j.shape) for row in jac for j in row] == [(2, 2), (2,), (2,), ()]
    np.testing.assert_array_equal(jac[0][0].numpy(), [[3.0, 0.0], [0.0, 3.0]])
    np.testing.assert_array_equal(jac[0][1].numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(jac[1][0].numpy(), [0.0, 0.0])  # independent: zeros
    assert jac[1][1].item() == 6.0


def test_inputs_are_left_alone():
    x = gradcli.tensor([1.0, 2.0], dtype=gradcli.float64, requires_grad=True)
    jac = F.jacobian(lambda x: x * x, x)
    assert x.grad is None and x.requires_grad
    assert not jac.requires_grad


def test_jacobian_in_chunks_equals_one_pass(monkeypatch):
    rng = np.random.default_rng(0)
    a = _f64(rng.standard_normal((7, 5)))
    x = _f64(rng.standard_normal(5))

    def f(x):
        return gradcli.tanh(a @ gradcli.sin(x))

    def jacobian_and_its_gradient(x):
        x = x.detach().requires_grad_(True)
        jac = F.jacobian(f, x, create_graph=True)
        return jac.detach().numpy(), gradcli.autograd.grad((jac * jac).sum(), x)[0].numpy()

    whole = F.jacobian(f, x).numpy()
    differentiable = jacobian_and_its_gradient(x)
    monkeypatch.setattr(F, "CHUNK_BYTES", 3 * 8 * 7)  # 3 rows per pass
    np.testing.assert_allclose(F.jacobian(f, x).numpy(), whole, rtol=1e-14)
    for got, want in zip(jacobian_and_its_gradient(x), differentiable):
        np.testing.assert_allclose(got, want, rtol=1e-14)
    hess = F.hessian(lambda x: f(x).sum(), x).numpy()
    monkeypatch.undo()
    np.testing.assert_allclose(F.hessian(lambda x: f(x).sum(), x).numpy(), hess, rtol=1e-14)


def test_jacobian_is_one_batched_pass_not_one_per_row(monkeypatch):
    from gradcli.engine import backward

    calls = []
    real = backward.run_backward

    def counting(*args, **kwargs):
        calls.append(kwargs.get("batch_dims", 0))
        return real(*args, **kwargs)

    monkeypatch.setattr(F, "run_backward", counting)
    F.jacobian(lambda x: gradcli.exp(x), _f64(np.ones(50)))
    assert calls == [1]
    calls.clear()
    # A Hessian: one gradient pass (autograd.grad, not counted here), one batched pass.
    F.hessian(lambda x: (gradcli.exp(x) * x).sum(), _f64(np.ones(50)))
    assert calls == [1]


def test_errors():
    x = _f64([1.0, 2.0])
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        F.jacobian(lambda x: x, [1.0, 2.0])
    with pytest.raises(TypeError, match="outputs of the user-provided function"):
        F.jacobian(lambda x: 3.0, x)
    with pytest.raises(RuntimeError, match="can only be None"):
        F.vjp(lambda x: x, x)
    with pytest.raises(RuntimeError, match="should contain a single element"):
        F.hessian(lambda x: x, x)
    with pytest.raises(RuntimeError, match="independent of input 1"):
        F.jacobian(lambda x, y: x * 2, (x, _f64(1.0)), strict=True)


# ----- against torch.autograd.functional -----


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason="PyTorch is the oracle for these tests")


RNG = np.random.default_rng(20240531)
MAT = RNG.standard_normal((4, 3))
SQUARE = RNG.standard_normal((3, 3))


def _const(m, array):
    return m.tensor(array, dtype=m.float64)


# name -> (function of (m, *inputs), input shapes); every input is float64.
FUNCTIONS = {
    "elementwise": (lambda m, x: m.sin(x) * m.exp(x) + x**2 - m.tanh(x) / (1 + x * x), [(3,)]),
    "matmul": (lambda m, x: _const(m, MAT) @ m.tanh(x), [(3,)]),
    "matrix_input": (lambda m, x: x @ _const(m, SQUARE) @ x.T, [(2, 3)]),
    "sum_dim": (lambda m, x: (x**2).sum(dim=0), [(3, 2)]),
    "mean": (lambda m, x: m.mean(m.exp(x)), [(2, 3)]),
    "softmax": (lambda m, x: m.softmax(x, dim=-1), [(2, 4)]),
    "log_softmax": (lambda m, x: m.log_softmax(x * 2, dim=0), [(3, 2)]),
    "logsumexp": (lambda m, x: m.logsumexp(x, dim=1), [(2, 3)]),
    "scalar": (lambda m, x: (x**3).sum() + m.sigmoid(x).prod(), [(4,)]),
    "zero_dim": (lambda m, x: m.cos(x) * x, [()]),
    "two_inputs": (lambda m, x, y: x * y + m.sin(x) * y.sum(), [(3,), (3,)]),
    "two_outputs": (lambda m, x: (x**2, m.exp(x).sum()), [(3,)]),
    "two_by_two": (lambda m, x, w: (w @ x, (x * x).sum() * w), [(3,), (2, 3)]),
    "unused_input": (lambda m, x, y: m.exp(x), [(2,), (3,)]),
    "broadcast": (lambda m, x, y: x * y + y, [(2, 3), (3,)]),
}

# Scalar functions for hessian, vhp and hvp.
SCALAR_FUNCTIONS = {
    "softplus_sum": (lambda m, x: m.log(1 + m.exp(_const(m, MAT) @ x)).sum(), [(3,)]),
    "rosenbrock": (
        lambda m, x: ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum(),
        [(4,)],
    ),
    "matrix": (lambda m, x: (m.tanh(x @ _const(m, SQUARE)) ** 2).mean(), [(2, 3)]),
    "softmax_entropy": (
        lambda m, x: -(m.softmax(x, dim=0) * m.log_softmax(x, dim=0)).sum(),
        [(4,)],
    ),
    "two_inputs": (lambda m, x, y: (x * x * y).sum() + m.exp(y).sum() * x.sum(), [(2,), (2,)]),
    "linear_in_y": (lambda m, x, y: (m.sin(x) * y).sum(), [(3,), (3,)]),
    "zero_dim": (lambda m, x: m.exp(x) * x * x, [()]),
}


def _inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, shape) for shape in shapes]


def _args(m, arrays, requires_grad=False):
    tensors = tuple(m.tensor(a, dtype=m.float64, requires_grad=requires_grad) for a in arrays)
    return tensors if len(tensors) > 1 else tensors[0]


def _call(m, fn):
    return lambda *xs: fn(m, *xs)


def assert_like_torch(ours, theirs, torch):
    """Same nesting, shapes, requires_grad and values (rtol 1e-10)."""
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), (ours, theirs)
        for a, b in zip(ours, theirs):
            assert_like_torch(a, b, torch)
        return
    assert isinstance(theirs, torch.Tensor)
    assert isinstance(ours, gradcli.Tensor), type(ours)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.requires_grad == theirs.requires_grad
    np.testing.assert_allclose(
        ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jacobian_like_torch(torch, name, create_graph):
    fn, shapes = FUNCTIONS[name]
    arrays = _inputs(shapes, len(name))
    ours = F.jacobian(_call(gradcli, fn), _args(gradcli, arrays), create_graph=create_graph)
    theirs = torch.autograd.functional.jacobian(
        _call(torch, fn), _args(torch, arrays), create_graph=create_graph
    )
    assert_like_torch(ours, theirs, torch)


@pytest.mark.parametrize("name", sorted(SCALAR_FUNCTIONS))
def test_hessian_like_torch(torch, name):
    fn, shapes = SCALAR_FUNCTIONS[name]
    arrays = _inputs(shapes, len(name))
    ours = F.hessian(_call(gradcli, fn), _args(gradcli, arrays))
    theirs = torch.autograd.functional.hessian(_call(torch, fn), _args(torch, arrays))
    assert_like_torch(ours, theirs, torch)


@pytest.mark.parametrize("name", ["softplus_sum", "two_inputs", "matrix"])
def test_hessian_create_graph_is_differentiable(torch, name):
    # The sum of the Hessian, differentiated again: third derivatives through both engines.
    fn, shapes = SCALAR_FUNCTIONS[name]
    arrays = _inputs(shapes, 7)

    def third(m, functional, grad):
        xs = _args(m, arrays, requires_grad=True)
        hess = functional.hessian(_call(m, fn), xs, create_graph=True)
        flat = hess if isinstance(hess, tuple) else ((hess,),)
        total = sum(h.sum() for row in flat for h in row)
        return hess, grad(total, xs)

    ours = third(gradcli, F, gradcli.autograd.grad)
    theirs = third(torch, torch.autograd.functional, torch.autograd.grad)
    assert_like_torch(ours, theirs, torch)


def test_jacobian_create_graph_is_differentiable(torch):
    fn, shapes = FUNCTIONS["two_by_two"]
    arrays = _inputs(shapes, 3)

    def second(m, functional, grad):
        xs = _args(m, arrays, requires_grad=True)
        jac = functional.jacobian(_call(m, fn), xs, create_graph=True)
        total = sum((j * j).sum() for row in jac for j in row)
        return grad(total, xs)

    assert_like_torch(
        second(gradcli, F, gradcli.autograd.grad),
        second(torch, torch.autograd.functional, torch.autograd.grad),
        torch,
    )


def _vectors_like(m, value, seed):
    rng = np.random.default_rng(seed)
    if isinstance(value, tuple):
        return tuple(_vectors_like(m, v, seed + i) for i, v in enumerate(value))
    return m.tensor(rng.standard_normal(tuple(value.shape)), dtype=m.float64)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("product", ["vjp", "jvp"])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jacobian_products_like_torch(torch, name, product, create_graph):
    fn, shapes = FUNCTIONS[name]
    arrays = _inputs(shapes, len(name) + 1)
    # v has the outputs' shapes for vjp, the inputs' shapes for jvp.
    like = _args(torch, arrays)
    if product == "vjp":
        like = fn(torch, *(like if isinstance(like, tuple) else (like,)))
    v_torch = _vectors_like(torch, like, 5)
    v_ours = _vectors_like(gradcli, like, 5)
    ours = getattr(F, product)(
        _call(gradcli, fn), _args(gradcli, arrays), v_ours, create_graph=create_graph
    )
    theirs = getattr(torch.autograd.functional, product)(
        _call(torch, fn), _args(torch, arrays), v_torch, create_graph=create_graph
    )
    assert_like_torch(ours, theirs, torch)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("product", ["vhp", "hvp"])
@pytest.mark.parametrize("name", sorted(SCALAR_FUNCTIONS))
def test_hessian_products_like_torch(torch, name, product, create_graph):
    fn, shapes = SCALAR_FUNCTIONS[name]
    arrays = _inputs(shapes, len(name) + 2)
    like = _args(torch, arrays)
    ours = getattr(F, product)(
        _call(gradcli, fn),
        _args(gradcli, arrays),
        _vectors_like(gradcli, like, 9),
        create_graph=create_graph,
    )
    theirs = getattr(torch.autograd.functional, product)(
        _call(torch, fn),
        _args(torch, arrays),
        _vectors_like(torch, like, 9),
        create_graph=create_graph,
    )
    assert_like_torch(ours, theirs, torch)


def _error_of(call):
    try:
        call()
    except Exception as err:  # noqa: BLE001  (the point is to compare errors)
        return err
    return None


STRICT_CASES = {
    "jacobian_independent_input": lambda m, F: F.jacobian(
        lambda x, y: x * 2, (_const(m, [1.0, 2.0]), _const(m, 1.0)), strict=True
    ),
    "jacobian_output_without_grad": lambda m, F: F.jacobian(
        lambda x: _const(m, [1.0]), _const(m, [1.0, 2.0]), strict=True
    ),
    "jacobian_strict_vectorize": lambda m, F: F.jacobian(
        lambda x: x * x, _const(m, [1.0]), strict=True, vectorize=True
    ),
    "hessian_linear": lambda m, F: F.hessian(
        lambda x: (x * 3).sum(), _const(m, [1.0, 2.0]), strict=True
    ),
    "hessian_tuple_output": lambda m, F: F.hessian(
        lambda x: (x.sum(), x.sum()), _const(m, [1.0, 2.0])
    ),
    "hessian_vector_output": lambda m, F: F.hessian(lambda x: x * x, _const(m, [1.0, 2.0])),
    "vjp_independent": lambda m, F: F.vjp(
        lambda x, y: x * x, (_const(m, [1.0]), _const(m, [2.0])), _const(m, [1.0]), strict=True
    ),
    "vjp_v_none": lambda m, F: F.vjp(lambda x: x * x, _const(m, [1.0, 2.0])),
    "vjp_v_wrong_size": lambda m, F: F.vjp(
        lambda x: x * x, _const(m, [1.0, 2.0]), _const(m, [1.0, 2.0, 3.0])
    ),
    "vjp_v_wrong_length": lambda m, F: F.vjp(
        lambda x: (x, x), _const(m, [1.0, 2.0]), (_const(m, [1.0, 2.0]),)
    ),
    "jvp_independent": lambda m, F: F.jvp(
        lambda x, y: x * x,
        (_const(m, [1.0]), _const(m, [2.0])),
        (_const(m, [1.0]), _const(m, [1.0])),
        strict=True,
    ),
    "vhp_linear": lambda m, F: F.vhp(
        lambda x: (x * 3).sum(), _const(m, [1.0, 2.0]), _const(m, [1.0, 1.0]), strict=True
    ),
    "hvp_v_none": lambda m, F: F.hvp(lambda x: (x * x).sum(), _const(m, [1.0, 2.0])),
    "not_a_tensor": lambda m, F: F.jacobian(lambda x: x, (_const(m, [1.0]), 2.0)),
}


@pytest.mark.parametrize("name", sorted(STRICT_CASES))
def test_errors_like_torch(torch, name):
    ours = _error_of(lambda: STRICT_CASES[name](gradcli, F))
    theirs = _error_of(lambda: STRICT_CASES[name](torch, torch.autograd.functional))
    assert theirs is not None and ours is not None, (ours, theirs)
    assert isinstance(ours, type(theirs)), (ours, theirs)
    assert str(ours).replace("torch.autograd.functional.", "") == str(theirs).replace(
        "torch.autograd.functional.", ""
    ), (str(ours), str(theirs))


@pytest.mark.parametrize("name", ["jacobian", "hessian"])
def test_strict_off_gives_zeros_like_torch(torch, name):
    def fn(m, x, y):
        return (x * x).sum() if name == "hessian" else x * 2

    arrays = _inputs([(2,), (3,)], 11)
    ours = getattr(F, name)(_call(gradcli, fn), _args(gradcli, arrays))
    theirs = getattr(torch.autograd.functional, name)(_call(torch, fn), _args(torch, arrays))
    assert_like_torch(ours, theirs, torch)
