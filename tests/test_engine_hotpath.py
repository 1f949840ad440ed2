"""The engine's hot path: what its speed relies on, and what it must not give up for it.

- A recorded op leaves one object for Python's cycle collector (its ``Node``):
  each extra tracked object per op made deep graphs of scalar ops slower than
  the ops themselves (``bench/bench_engine.py``, case a).
- A leaf's ``.grad`` owns its memory: an unshared gradient is taken without a
  copy, a shared one is copied, so no two gradients alias.
- Deep graphs run without recursion.
"""

from __future__ import annotations

import gc

import numpy as np

import gradcli
from gradcli.engine.graph import Node


def _chain(x, steps):
    for _ in range(steps):
        x = gradcli.sin(x) * 1.0001 + 0.1 * x
    return x


def test_one_tracked_object_per_recorded_op():
    x = gradcli.tensor(0.5, dtype=gradcli.float64, requires_grad=True)
    gc.collect()
    before = len(gc.get_objects())
    y = _chain(x, 1000)
    gc.collect()
    grown = len(gc.get_objects()) - before
    assert grown <= 4 * 1000 + 50, grown  # 4 ops per step, one Node each
    del y


def test_node_parents():
    x = gradcli.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y + x
    assert z.grad_fn.parents == (y.grad_fn, x)
    assert (x * 3).grad_fn.parents == (x,) + (None,)
    w = gradcli.stack([x, y, z])
    assert w.grad_fn.parents == (x, y.grad_fn, z.grad_fn)
    assert gradcli.exp(x).grad_fn.parents == (x,)


def test_deep_chain_backward_matches_the_recurrence():
    # 60,000 nodes, far past the recursion limit; factors near 1 keep the product finite.
    x = gradcli.tensor(0.5, dtype=gradcli.float64, requires_grad=True)
    y = x
    for _ in range(20_000):
        y = gradcli.sin(y) * 0.001 + y
    y.backward()
    value, derivative = 0.5, 1.0
    for _ in range(20_000):
        derivative *= np.cos(value) * 0.001 + 1
        value = np.sin(value) * 0.001 + value
    np.testing.assert_allclose(x.grad.item(), derivative, rtol=1e-11)


def test_leaf_gradients_never_alias():
    x = gradcli.tensor([1.0, 2.0], requires_grad=True)
    y = gradcli.tensor([3.0, 4.0], requires_grad=True)
    (x + y).sum().backward()  # the add rule hands both leaves the same array
    assert not np.shares_memory(x.grad.numpy(), y.grad.numpy())
    x.grad.zero_()
    assert y.grad.tolist() == [1.0, 1.0]


def test_a_given_gradient_is_not_taken():
    x = gradcli.tensor([1.0, 2.0], dtype=gradcli.float64, requires_grad=True)
    g = np.array([5.0, 6.0])
    (x + 0).backward(g)
    assert not np.shares_memory(x.grad.numpy(), g)
    x.grad.zero_()
    assert g.tolist() == [5.0, 6.0]
    t = gradcli.tensor([1.0, 1.0], dtype=gradcli.float64)
    x.grad = None
    x.backward(t)
    assert not np.shares_memory(x.grad.numpy(), t.numpy())


def test_an_unshared_gradient_is_taken_without_a_copy():
    x1 = gradcli.tensor(np.ones((50, 40)), dtype=gradcli.float64, requires_grad=True)
    w = gradcli.tensor(np.ones((40, 1)), dtype=gradcli.float64, requires_grad=True)
    gradcli.mean(x1 @ w).backward()
    assert x1.grad.numpy().base is None and x1.grad.numpy().flags.writeable
    np.testing.assert_allclose(x1.grad.numpy(), np.full((50, 40), 1.0 / 50))


def test_gradients_accumulate_without_aliasing():
    x = gradcli.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.sum().backward(retain_graph=True)
    first = x.grad
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 8.0]
    assert first.tolist() == [2.0, 4.0]  # the earlier grad tensor is not changed in place


def test_nodes_are_node_instances_of_a_class_named_by_their_grad_fn():
    x = gradcli.tensor([1.0], requires_grad=True)
    node = (x * 2).grad_fn
    assert isinstance(node, Node) and type(node).__name__ == "MulBackward0"
    assert type((x * 3).grad_fn) is type(node)  # one class per grad_fn name


def test_recorded_nodes_are_whole_and_plain_until_shown():
    # An op of one or two inputs records its node through graph.record1/record2, not the
    # class call: the node must be the one the class call makes.
    x = gradcli.tensor([1.0, 2.0], requires_grad=True)
    y = gradcli.tensor([3.0, 4.0], requires_grad=True)
    for t, parents in ((x.exp(), (x,)), (x * y, (x, y)), (x * 2, (x, None))):
        node = t._grad_fn
        fields = {name: getattr(node, name) for name in Node.__slots__ if name != "_metadata"}
        made = Node(node.op, parents, node.saved, node.ans, node.params, None)
        assert fields == {name: getattr(made, name) for name in fields}
        assert node.parents == parents and node.ans is t._data and node.wired is None
    # The graph's nodes are all of one class, Node, so that each of the reverse pass's
    # reads of a node's fields meets one class (the interpreter specialises it); a pass,
    # even a differentiable one, leaves them so. Shown to the user, a node takes its op's
    # class in place: the same object, its fields unchanged.
    z = (x * y).exp()
    (gx,) = gradcli.autograd.grad(z.sum(), x, create_graph=True)
    gx.sum().backward(retain_graph=True)
    exp_node = z._grad_fn
    mul_node = exp_node.p0
    assert type(exp_node) is Node and type(mul_node) is Node and type(gx._grad_fn) is Node
    assert z.grad_fn is exp_node and type(exp_node).__name__ == "ExpBackward0"
    assert type(mul_node) is Node  # showing one node leaves its parents plain
    ((shown_mul, _),) = exp_node.next_functions
    assert shown_mul is mul_node and type(mul_node).__name__ == "MulBackward0"
    assert mul_node._saved_self is x and mul_node.p0 is x and mul_node.p1 is y
    # d/dx sum(y exp(xy)) = y^2 exp(xy), d/dy = (1 + xy) exp(xy), by hand
    xs, ys = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_allclose(x.grad.numpy(), ys * ys * np.exp(xs * ys), rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), (1 + xs * ys) * np.exp(xs * ys), rtol=1e-6)


def test_the_count_of_threads_with_grad_mode_off_follows_every_switch():
    # An op records without looking up its thread's grad mode while no thread has it off
    # (state.GRAD_OFF, kept by state.switch_grad): the count must follow every switch.
    import threading

    from gradcli.engine import state

    x = gradcli.tensor([1.0, 2.0], requires_grad=True)
    assert state.GRAD_OFF[0] == 0
    with gradcli.no_grad():
        assert state.GRAD_OFF[0] == 1 and not (x * x).requires_grad
        with gradcli.enable_grad():
            assert state.GRAD_OFF[0] == 0 and (x * x).requires_grad
        with gradcli.no_grad():  # already off: counted once
            assert state.GRAD_OFF[0] == 1
    with gradcli.inference_mode():
        assert state.GRAD_OFF[0] == 1 and not x.exp().requires_grad
    gradcli.set_grad_enabled(False)  # a bare call switches for good
    assert state.GRAD_OFF[0] == 1 and not x.exp().requires_grad
    gradcli.set_grad_enabled(True)
    assert gradcli.no_grad()(lambda: (state.GRAD_OFF[0], (x * x).requires_grad))() == (1, False)
    assert state.GRAD_OFF[0] == 0
    off, done, seen = threading.Event(), threading.Event(), []

    def other_thread():
        with gradcli.no_grad():
            seen.append((x * x).requires_grad)
            off.set()
            done.wait(10)

    thread = threading.Thread(target=other_thread)
    thread.start()
    off.wait(10)
    try:  # another thread's mode is off, this one's on: it still records
        assert state.GRAD_OFF[0] == 1 and (x * x).requires_grad and x.exp().requires_grad
    finally:
        done.set()
        thread.join()
    assert seen == [False] and state.GRAD_OFF[0] == 0


def test_a_recorded_op_keeps_no_tuple_of_its_inputs():
    # Counted before any collection (which would untrack a tuple of arrays): a tuple of
    # saved inputs per node was one more object per op for the collector's young walks.
    x = gradcli.tensor(0.5, dtype=gradcli.float64, requires_grad=True)
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        y = _chain(x, 1000)
        grown = len(gc.get_objects()) - before
    finally:
        gc.enable()
    assert grown <= 4 * 1000 + 50, grown
    node = y.grad_fn  # add(mul(sin(.), 1.0001), mul(0.1, .)): both inputs saved, in slots
    assert not any(type(r) is tuple and r for r in gc.get_referents(node))  # params: ()
    assert [type(a) for a in node.saved] == [np.ndarray, np.ndarray]


def test_node_classes_have_no_getattr_hook():
    # A class with __getattr__ reads every attribute by the interpreter's slow generic path;
    # the reverse pass reads a node's fields a dozen times. _saved_<name> are properties.
    x = gradcli.tensor([1.0, 2.0], requires_grad=True)
    m = gradcli.tensor([[1.0, 0.0], [0.0, 1.0]], requires_grad=True)
    for y in (x * x, x.sin(), x.sum(), m @ x, x**3, x.exp()):
        assert not hasattr(type(y.grad_fn), "__getattr__"), type(y.grad_fn)
    y = x * m[0]
    assert y.grad_fn._saved_self is x and y.grad_fn._saved_other.grad_fn is not None


def test_a_transposed_weights_gradient_is_laid_out_as_the_weight():
    # PyTorch's AccumulateGrad hands a C-contiguous weight a C-contiguous gradient; one left
    # transposed makes the optimizer step walk memory across its rows.
    w = gradcli.tensor(np.arange(200 * 130.0).reshape(200, 130) / 1e4, requires_grad=True)
    x = gradcli.tensor(np.linspace(-1.0, 1.0, 7 * 130).reshape(7, 130))
    gradcli.nn.functional.linear(x, w).sum().backward()
    assert w.grad.numpy().flags.c_contiguous
    np.testing.assert_allclose(w.grad.numpy(), np.tile(x.numpy().sum(0), (200, 1)), rtol=1e-14)


def test_a_stored_by_columns_operands_gradient_is_computed_in_its_layout():
    # PyTorch's mm_mat2_backward and mm_mat1_backward: an operand stored by columns (a
    # weight's transpose) gets (g.T @ mat1).T, so the leaf's gradient comes out C-ordered
    # and is taken without a copy. The same product as NumPy's of the same operands.
    rng = np.random.default_rng(1)
    w_data = rng.standard_normal((200, 130)).astype(np.float32)
    x_data = rng.standard_normal((7, 130)).astype(np.float32)
    g = rng.standard_normal((7, 200)).astype(np.float32)
    w = gradcli.tensor(w_data, requires_grad=True)
    x_by_columns = gradcli.tensor(x_data.T.copy(), requires_grad=True)
    gradcli.nn.functional.linear(x_by_columns.t(), w).backward(gradcli.tensor(g))
    assert w.grad.numpy().base is None and w.grad.numpy().flags.c_contiguous
    np.testing.assert_array_equal(w.grad.numpy(), g.T @ x_data)
    np.testing.assert_array_equal(x_by_columns.grad.numpy(), (w_data.T @ g.T))
    w.grad = None
    gradcli.mm(gradcli.tensor(x_data), w.t()).backward(gradcli.tensor(g))
    np.testing.assert_array_equal(w.grad.numpy(), g.T @ x_data)
    np.testing.assert_allclose(w.grad.numpy(), (x_data.T @ g).T, rtol=1e-5, atol=1e-5)


def test_an_optimizer_step_writes_into_the_parameters_memory():
    w = gradcli.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    view = w.detach()[1]  # shares w's memory: it sees the step
    step = gradcli.tensor(np.full((3, 4), 0.5))
    with gradcli.no_grad():
        w -= step
        w += 2 * step
    np.testing.assert_array_equal(w.detach().numpy(), np.arange(12.0).reshape(3, 4) + 0.5)
    np.testing.assert_array_equal(view.numpy(), [4.5, 5.5, 6.5, 7.5])
    assert w._version == 2
