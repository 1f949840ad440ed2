"""autograd.grad and backward(inputs=...) run only the nodes that lead to their inputs.

PyTorch leaves the rest of the graph alone (not run, not freed), so a later
backward through it still works; each case is replayed in torch as the oracle.
"""

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)


def _replay(lib, steps):
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([0.5, 3.0], dtype=lib.float64, requires_grad=True)
    return [np.asarray(v.detach().numpy() if hasattr(v, "detach") else v) for v in steps(lib, x, w)]


def _other_branch_survives(lib, x, w):
    u, v = x.exp(), w.exp()
    (gx,) = lib.autograd.grad((u + v).sum(), x)
    v.sum().backward()  # v's node did not lead to x: it was neither run nor freed
    return gx, w.grad


def _nonleaf_input_is_not_run(lib, x, w):
    a = x * x
    (ga,) = lib.autograd.grad((a * w).sum(), a)
    (gx,) = lib.autograd.grad((a * 2).sum(), x)  # a's own node was not run by the first call
    return ga, gx


def _backward_inputs(lib, x, w):
    r = (x * w).sum() + x.sin().sum()
    r.backward(inputs=[w])
    assert x.grad is None
    return (w.grad,)


@pytest.mark.parametrize(
    "steps", [_other_branch_survives, _nonleaf_input_is_not_run, _backward_inputs]
)
def test_pruned_reverse_pass_matches_torch(steps):
    ours = _replay(gradcli, steps)
    theirs = _replay(torch, steps)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_unpruned_node_still_frees():
    x = gradcli.tensor(2.0, requires_grad=True)
    y = x**3
    gradcli.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
