"""torch.autograd.graph, version counters and the in-place check, against PyTorch 2.13.

Each program runs once on PyTorch and once on gradcli (``test_engine_programs.run``)
and must print the same: saved-tensor hooks, node hooks, ``grad_fn._saved_*``,
``Tensor._version`` and PyTorch's error, in its words, when a tensor saved for
backward was modified in place (for several ops, dtypes and shapes).
"""

from __future__ import annotations

import re

import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

PROGRAMS = {}


def program(source):
    PROGRAMS[re.search(r"#\s*(\w+)", source).group(1)] = source


program("""
    # modified_saved_output: the output an op saved, written in place
    for dtype, shape in ((torch.float64, (3,)), (torch.float32, (2, 3)), (torch.float32, ())):
        for op in ("exp", "sigmoid", "tanh", "sqrt", "relu", "reciprocal"):
            x = torch.full(shape, 0.5, dtype=dtype, requires_grad=True)
            y = getattr(x, op)()
            y.add_(1)
            print(op, y._version, x._version)
            attempt(lambda: y.sum().backward())
""")

program("""
    # modified_saved_input: an input an op saved, written in place in and out of the graph
    x = torch.ones(2, 2, dtype=torch.float64, requires_grad=True)
    for op in ("sin", "log", "cos", "abs", "atan"):
        a = x * 2
        b = getattr(a, op)()
        a.mul_(3)
        attempt(lambda: b.sum().backward())
    a = x * 2; b = a.pow(2); a[0] = 3; attempt(lambda: b.sum().backward())
    a = x.sum(); b = a ** 2; a.sub_(3); attempt(lambda: b.backward())
    a = x * 2; b = a @ x; a.add_(1); attempt(lambda: b.sum().backward())
    a = x * 2; b = a.exp(); a.add_(1); attempt(lambda: b.sum().backward())  # exp saved its output
    a = x * 2; b = a + 1; a.add_(1); attempt(lambda: b.sum().backward())  # add saves nothing
    a = x * 2; b = a.sin()
    with torch.no_grad():
        a.add_(1)
    attempt(lambda: b.sum().backward())
    w = torch.ones(2, 2); y = x * w; w.add_(1); attempt(lambda: y.sum().backward())
    w = torch.ones(2, 2); y = x * w; x2 = x * 1; attempt(lambda: (x2 * w).sum().backward())
    y = x.sin()
    with torch.no_grad():
        x.mul_(2)
    attempt(lambda: y.sum().backward())
    a = x * 2; a.exp_(); a.add_(1); attempt(lambda: a.sum().backward())
    a = x.exp(); b = a.detach(); b.add_(1); print(a._version, b._version)
    attempt(lambda: a.sum().backward())
""")

program("""
    # versions_in_a_training_loop: a step under no_grad between passes is no error
    x = torch.ones(3, requires_grad=True)
    print(x._version)
    for i in range(3):
        loss = (x * x).sum()
        loss.backward()
        with torch.no_grad():
            x -= 0.1 * x.grad
            x[0] = 1.0
        x.grad.zero_()
    print(x, x._version, x.detach()._version)  # .grad's own version: not compared
    i = torch.ones(3, dtype=torch.int64); i.add_(1); print(i._version)
    a = x.exp(); a.data.add_(1); print(a._version)
    opt_x = torch.ones(2, requires_grad=True)
    def step(p):
        with torch.no_grad():
            p.add_(-0.5 * p.grad)
            p.grad = None
    opt_x.register_post_accumulate_grad_hook(step)
    for i in range(2):
        (opt_x.exp() * opt_x).sum().backward()
        print(opt_x, opt_x._version)
""")

program("""
    # saved_names: grad_fn._saved_* as PyTorch names them
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([0.5, 0.25, 2.0])
    y = x ** 2; print(y.grad_fn._saved_self is x, y.grad_fn._saved_exponent)
    y = x.exp(); print(y.grad_fn._saved_result, y.grad_fn._saved_result.equal(y))
    y = x * w; print(y.grad_fn._saved_self, y.grad_fn._saved_other)
    a = x * 1; y = a * x; print(y.grad_fn._saved_self.grad_fn, y.grad_fn._saved_other is x)
    y = x / w; print(y.grad_fn._saved_self, y.grad_fn._saved_other)
    y = x.sin(); print(y.grad_fn._saved_self is x)
    y = x.softmax(0); print(y.grad_fn._saved_dim, y.grad_fn._saved_result)
    m = torch.ones(2, 3, requires_grad=True); v = torch.ones(3, 2, requires_grad=True)
    y = m @ v; print(y.grad_fn.name(), y.grad_fn._saved_self is m, y.grad_fn._saved_mat2 is v)
    y = x.exp(); y.sum().backward(); attempt(lambda: y.grad_fn._saved_result)
    attempt(lambda: x.sin().grad_fn._saved_nothing)
""")

program("""
    # node_hooks: register_prehook, register_hook, metadata, name, get_gradient_edge
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = (y * 3).sum()
    y.grad_fn.register_prehook(lambda go: print("pre", go))
    h = y.grad_fn.register_hook(lambda gi, go: print("post", gi, go))
    z.grad_fn.register_prehook(lambda go: (go[0] * 2,))
    y.grad_fn.metadata["tag"] = 1
    print(y.grad_fn.name(), y.grad_fn.metadata, type(y.grad_fn))
    print(torch.autograd.graph.__name__[-15:])
    z.backward(retain_graph=True)
    print(x.grad)
    h.remove()
    m = x * 2
    m.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, None))
    m.sum().backward()
    print(x.grad)
    edge = torch.autograd.graph.get_gradient_edge(y)
    print(edge.node is y.grad_fn, edge.output_nr, edge.ownership_token)
    print(torch.autograd.graph.get_gradient_edge(x).node.name())
    attempt(lambda: torch.autograd.graph.get_gradient_edge(torch.ones(2)))
    print(isinstance(y.grad_fn, torch.autograd.graph.Node))
""")

program("""
    # saved_tensors_hooks: pack at recording, unpack in the pass; save_on_cpu keeps them
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    packed = []
    def pack(t):
        packed.append(tuple(t.shape))
        return t * 1
    def unpack(t):
        print("unpack", t)
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x.exp()
        z = (y * x).sin()
    print(packed)
    z.sum().backward()
    print(x.grad)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach() * 0, lambda t: t):
        y = x.sin()
    x.grad = None
    y.sum().backward()
    print(x.grad)
    with torch.autograd.graph.save_on_cpu(pin_memory=False):
        y = x.tanh()
    x.grad = None
    y.sum().backward()
    print(x.grad)
    with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        attempt(lambda: torch.autograd.graph.saved_tensors_hooks(pack, unpack).__enter__())
""")

program("""
    # multi_grad_hook_and_mutation: register_multi_grad_hook, allow_mutation_on_saved_tensors
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    h = torch.autograd.graph.register_multi_grad_hook((a, b), lambda gs: print("all", gs))
    (a * 2).sum().backward()
    (a * b).sum().backward()
    h.remove()
    (a * b).sum().backward()
    h = torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: print("any", g), mode="any")
    (a * 3 + b).sum().backward()
    h.remove()
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        x = torch.ones(3, requires_grad=True)
        y = x.clone()
        z = y.sin()
        y.mul_(2)
        z.sum().backward()
        print(x.grad)
        w = torch.ones(3)
        x.grad = None
        v = (x * w).sum()
        with torch.no_grad():
            w.mul_(5)
        v.backward()
        print(x.grad)
""")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    source = PROGRAMS[name]
    assert run(source, gradcli) == run(source, torch)
