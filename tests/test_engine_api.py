"""The engine without an oracle: hand-derived values, deep graphs, what backward records.

Expected numbers are derived by hand in the comments (PyTorch-replayed
versions of these checks live in test_engine_torch.py).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import gradcli
from gradcli.autograd import Variable
from gradcli.engine import graph


def test_a_100000_op_chain_runs_without_recursion():
    # y = x * 1.0 * 1.0 * ... (100,000 multiplications): dy/dx = 1.
    x = gradcli.tensor(1.0, dtype=gradcli.float64, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    assert sys.getrecursionlimit() < 100_000
    y.backward()
    assert x.grad.item() == 1.0


def test_a_deep_chain_with_create_graph():
    # y = x + n x^2 (n steps of y + x * x): dy/dx = 1 + 2 n x, d2y/dx2 = 2 n.
    n = 10_000
    x = gradcli.tensor(2.0, dtype=gradcli.float64, requires_grad=True)
    y = x
    for _ in range(n):
        y = y + x * x
    (g,) = gradcli.autograd.grad(y, x, create_graph=True)
    (h,) = gradcli.autograd.grad(g, x)
    assert (g.item(), h.item()) == (1 + 2 * n * 2.0, 2 * n)


@pytest.fixture
def count_nodes(monkeypatch):
    """Count the graph nodes the ops record from now on: each new node is handed to
    ``graph.on_record``, however it was made (a class call or a recorder)."""
    created = []
    monkeypatch.setattr(graph, "on_record", created.append)
    return created


def _graph():
    x = gradcli.tensor([1.0, 2.0, 3.0], dtype=gradcli.float64, requires_grad=True)
    w = gradcli.tensor([[0.5], [1.5], [2.0]], dtype=gradcli.float64, requires_grad=True)
    y = ((x @ w).sin() * x.exp().sum() / x.norm()).sum()
    return x, w, y


def test_backward_records_no_nodes_without_create_graph(count_nodes):
    x, w, y = _graph()
    forward_nodes = len(count_nodes)
    assert forward_nodes > 0
    y.backward()
    assert len(count_nodes) == forward_nodes
    for leaf in (x, w):
        assert leaf.grad.grad_fn is None
        assert leaf.grad.requires_grad is False
        assert leaf.grad.is_leaf


def test_autograd_grad_records_no_nodes_without_create_graph(count_nodes):
    x, w, y = _graph()
    forward_nodes = len(count_nodes)
    gx, gw = gradcli.autograd.grad(y, (x, w))
    assert len(count_nodes) == forward_nodes
    assert (gx.grad_fn, gx.requires_grad, gw.grad_fn, gw.requires_grad) == (
        None,
        False,
        None,
        False,
    )


def test_create_graph_records_the_backward_pass(count_nodes):
    # The counter itself works: a differentiable pass does record nodes.
    x, w, y = _graph()
    forward_nodes = len(count_nodes)
    (gx,) = gradcli.autograd.grad(y, x, create_graph=True)
    assert len(count_nodes) > forward_nodes
    assert gx.requires_grad and gx.grad_fn is not None


def test_no_grad_records_nothing(count_nodes):
    x = gradcli.ones(3, requires_grad=True)
    with gradcli.no_grad():
        y = (x * 2).exp().sum()
    assert count_nodes == []
    assert (y.requires_grad, y.grad_fn) == (False, None)


def test_leaf_grad_owns_its_memory():
    # d/dx sum(x) = 1; changing the gradient in place must not touch anything else.
    x = gradcli.tensor([1.0, 2.0], requires_grad=True)
    g = gradcli.tensor([1.0, 1.0])
    (x * 1.0).backward(g)
    x.grad.zero_()
    assert g.tolist() == [1.0, 1.0]


def test_gradients_never_alias_each_other_or_the_root_gradient():
    # d(x + y)/dx = d(x + y)/dy = 1: one array could serve both, but must not.
    x = gradcli.tensor([1.0, 2.0], requires_grad=True)
    y = gradcli.tensor([3.0, 4.0], requires_grad=True)
    (x + y).sum().backward()
    x.grad.add_(1)
    assert y.grad.tolist() == [1.0, 1.0]
    v = gradcli.tensor([1.0, 1.0])
    x = gradcli.tensor([1.0, 2.0], requires_grad=True)
    x.backward(v)  # a leaf as the root: its gradient is v's values, not v
    x.grad.zero_()
    (x + 0).backward(v)
    x.grad.zero_()
    (gx,) = gradcli.autograd.grad(x + 0, x, v)
    gx.zero_()
    h = x * 1
    h.retain_grad()
    (h + 0).backward(v)
    h.grad.zero_()
    assert v.tolist() == [1.0, 1.0]
    assert x.grad.tolist() == [1.0, 1.0]


def test_second_derivative_of_a_cube_is_6x():
    # d/dx x^3 = 3x^2, d2/dx2 = 6x.
    x = gradcli.tensor([-1.0, 0.5, 2.0], dtype=gradcli.float64, requires_grad=True)
    (g,) = gradcli.autograd.grad((x**3).sum(), x, create_graph=True)
    (h,) = gradcli.autograd.grad(g.sum(), x)
    assert g.tolist() == [3.0, 0.75, 12.0]
    assert h.tolist() == [-6.0, 3.0, 12.0]


def test_the_tutorial_scalar_derivatives():
    # y = (x + 2)^2 + 3 at x = 2: y = 19, dy/dx = 2 (x + 2) = 8.
    x = Variable(gradcli.Tensor([2]), requires_grad=True)
    y = (x + 2) ** 2 + 3
    y.backward()
    assert (y.item(), x.grad.item()) == (19.0, 8.0)
    # y = x^2 + 2x + 3 at x = 3: dy/dx = 2x + 2 = 8, twice with retain_graph = 16.
    x = Variable(gradcli.FloatTensor([3]), requires_grad=True)
    y = x**2 + x * 2 + 3
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 16.0


def test_broadcast_gradients_are_summed_to_each_input_shape():
    # f = sum_ij x_i y_j: df/dx_i = sum_j y_j = 10, df/dy_j = sum_i x_i = 6.
    x = gradcli.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
    y = gradcli.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    (x * y).sum().backward()
    assert x.grad.shape == (3, 1) and x.grad.tolist() == [[10.0], [10.0], [10.0]]
    assert y.grad.shape == (4,) and y.grad.tolist() == [6.0] * 4


def test_index_assignment_gradients_reach_the_assigned_expressions():
    # k = [x0^2 + 3 x1, 2 x0 + x1^2] at x = (2, 3): the Jacobian is [[4, 3], [2, 6]];
    # the zeros that were overwritten get nothing.
    x = gradcli.tensor([2.0, 3.0], requires_grad=True)
    base = gradcli.zeros(2, requires_grad=True)
    k = base * 1
    k[0] = x[0] ** 2 + 3 * x[1]
    k[1] = 2 * x[0] + x[1] ** 2
    rows = [
        gradcli.autograd.grad(k, x, gradcli.tensor(v), retain_graph=True)[0].tolist()
        for v in ([1.0, 0.0], [0.0, 1.0])
    ]
    assert rows == [[4.0, 3.0], [2.0, 6.0]]
    k.sum().backward()
    assert base.grad.tolist() == [0.0, 0.0]
    assert k.grad_fn.name() == "torch::autograd::CopySlices"
    assert "grad_fn=<CopySlices>" in repr(k)


def test_a_view_shares_memory_with_its_base():
    a = gradcli.zeros(2, 3)
    b = a.view(6)
    b[4] = 5.0
    assert a[1, 1].item() == 5.0
    a.add_(1)
    assert b.tolist() == [1.0, 1.0, 1.0, 1.0, 6.0, 1.0]
    assert np.shares_memory(a.numpy(), a.reshape(3, 2).numpy())


def test_dtypes():
    assert gradcli.tensor([1.0]).dtype == gradcli.float32
    assert gradcli.tensor([1.0], dtype=gradcli.float64).dtype == gradcli.float64
    assert gradcli.tensor([1, 2]).dtype == gradcli.int64
    assert gradcli.tensor([True]).dtype == gradcli.bool
    assert gradcli.DoubleTensor([1]).dtype == gradcli.double
    assert gradcli.FloatTensor([1]).dtype == gradcli.float
    gradcli.set_default_dtype(gradcli.float64)
    try:
        assert gradcli.tensor([1.0]).dtype == gradcli.float64
        assert gradcli.get_default_dtype() == gradcli.float64
    finally:
        gradcli.set_default_dtype(gradcli.float32)


def test_manual_seed_repeats_random_tensors():
    gradcli.manual_seed(7)
    a = gradcli.randn(3, 2)
    b = gradcli.rand(4)
    gradcli.manual_seed(7)
    assert a.tolist() == gradcli.randn(3, 2).tolist()
    assert b.tolist() == gradcli.rand(4).tolist()
    assert a.dtype == gradcli.float32


def test_integer_and_bool_tensors_index_and_mask():
    x = gradcli.tensor([10.0, 20.0, 30.0], requires_grad=True)
    picked = x[gradcli.tensor([2, 0, 2])]
    masked = x[gradcli.tensor([True, False, True])]
    (picked.sum() + masked.sum()).backward()
    # index 2 is picked twice and masked once, index 0 once and once.
    assert x.grad.tolist() == [2.0, 0.0, 3.0]


def test_non_finite_results_are_silent_as_in_pytorch():
    import subprocess
    import sys

    program = (
        "import gradcli\n"
        "x = gradcli.tensor([0.0, 1.0], requires_grad=True)\n"
        "gradcli.log(x).sum().backward()\n"
        "print(x.grad, gradcli.sqrt(gradcli.tensor(-1.0)))\n"
        "import numpy; numpy.log(numpy.zeros(1))\n"  # the user's own NumPy call still warns
    )
    done = subprocess.run(
        [sys.executable, "-W", "default", "-c", program], capture_output=True, text=True
    )
    assert done.stdout.strip() == "tensor([inf, 1.]) tensor(nan)"
    assert done.stderr.count("RuntimeWarning") == 1
    assert "divide by zero encountered in log" in done.stderr
