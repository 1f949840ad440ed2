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


def _roots_on_one_path(lib, x, w):
    # one root is a parent of the other, and w (not an input) is a leaf: the walk that
    # counts the edges also decides, parents first, which nodes lead to x
    a = (x * x).sin()
    b = a * w.exp()
    return lib.autograd.grad([b.sum(), a.sum()], x)


def _fourth_derivative(lib, x, w):
    y = (x.exp() * x.tanh() * w).sum()
    for _ in range(4):
        (y,) = lib.autograd.grad(y, x, create_graph=True)
        y = y.sum()
    return (y,)


@pytest.mark.parametrize("steps", [_roots_on_one_path, _fourth_derivative])
def test_pass_to_some_leaves_matches_torch(steps):
    ours, theirs = _replay(gradcli, steps), _replay(torch, steps)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_no_pruning_when_every_leaf_is_an_input():
    from gradcli.engine.schedule import schedule

    x = gradcli.tensor([1.0, 2.0], requires_grad=True)
    w = gradcli.tensor([3.0, 4.0], requires_grad=True)
    y = ((x * w).sin() * x).sum()
    pending, ready, pruning, _ = schedule({y.grad_fn: None}, (x, w))
    assert pruning is None  # the plain count: nothing to mark
    assert ready == [y.grad_fn] and pending[y.grad_fn.p0] == 1
    # w is not an input, but every node has x on a path: still nothing pruned
    assert schedule({y.grad_fn: None}, (x,))[2] is None
    assert schedule({y.grad_fn: None}, (x, w))[0] == schedule({y.grad_fn: None}, None)[0]
    z = (x.sin() * w.exp()).sum()
    needed = schedule({z.grad_fn: None}, (x,))[2].needed
    mul = z.grad_fn.p0
    assert mul in needed and mul.p0 in needed and mul.p1 not in needed  # exp(w) is not run


def test_higher_passes_reuse_the_wrapped_saved_inputs():
    x = gradcli.tensor([0.5, 1.5], requires_grad=True)
    y = (x.sin() * x).sum()
    mul = y.grad_fn.p0
    (g,) = gradcli.autograd.grad(y, x, create_graph=True)
    first = mul.wired
    assert first is not None and first[0].grad_fn is mul.p0  # sin(x), on the graph
    gradcli.autograd.grad(g.sum(), x, create_graph=True)
    assert mul.wired is first  # the second pass reran the node on the same tensors


def test_differentiable_passes_leave_no_reference_cycles():
    import gc

    def run():
        x = gradcli.tensor([0.5, 1.5], requires_grad=True)
        y = (x.exp() * x.sin()).sum()
        for _ in range(3):
            (y,) = gradcli.autograd.grad(y, x, create_graph=True)
            y = y.sum()

    gc.collect()
    gc.disable()
    try:
        run()
        assert gc.collect() == 0  # everything freed by reference counts alone
    finally:
        gc.enable()


def test_a_differentiable_pass_wraps_only_the_results_a_rule_reads(monkeypatch):
    # y = sum(exp(x) * sin(x)): of the four nodes only exp's rule reads its result. The
    # pass wraps, as tensors on the graph, the results the nodes' saved inputs are (mul's
    # for sum, exp's and sin's for mul: 3) and the result of a node whose rule reads it,
    # once (exp's, already wrapped): 3 in all, where wrapping every node's result made 4.
    from gradcli.engine import backward

    x = gradcli.tensor([0.5, 1.5], dtype=gradcli.float64, requires_grad=True)
    y = (x.exp() * x.sin()).sum()
    wrapped = []
    make = backward._on_graph  # the pass's one maker of a tensor on a node

    def counting(data, grad_fn):
        wrapped.append(grad_fn.name())
        return make(data, grad_fn)

    monkeypatch.setattr(backward, "_on_graph", counting)
    (g,) = gradcli.autograd.grad(y, x, create_graph=True)
    assert sorted(wrapped) == ["ExpBackward0", "MulBackward0", "SinBackward0"]
    monkeypatch.undo()
    (h,) = gradcli.autograd.grad(g.sum(), x)
    xs = np.array([0.5, 1.5])
    # d2/dx2 exp(x) sin(x) = 2 exp(x) cos(x), by hand
    np.testing.assert_allclose(h.numpy(), 2 * np.exp(xs) * np.cos(xs), rtol=1e-12)
    assert [x.exp().grad_fn.op.reads_result, (x * x).grad_fn.op.reads_result] == [True, False]


def test_whether_a_rule_reads_the_result_is_read_from_its_code():
    from gradcli.engine.optable import reads_result

    assert not reads_result(lambda g, ans, x: g * x)
    assert reads_result(lambda g, ans, x: g * ans)
    assert reads_result(lambda g, ans, x: (lambda: ans)())  # in a closure
    assert reads_result(lambda g, ans, x: locals()["ans"])  # by name
    assert reads_result(lambda g, *rest: rest[0])  # ans not a parameter of its own
    assert reads_result(lambda g, ans, x: _reads(ans))
    assert reads_result(type("Rule", (), {"__call__": lambda self, g, ans: g})())  # not plain


def _reads(value):
    return value
