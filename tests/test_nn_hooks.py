"""A module's backward hooks against PyTorch 2.13: ``register_full_backward_hook`` and
``register_full_backward_pre_hook`` see and replace the same gradients, in the same order,
with None where PyTorch gives None; the wrapped outputs print PyTorch's
``BackwardHookFunctionBackward``; the legacy ``register_backward_hook`` sees the last
node's gradients."""

from __future__ import annotations

import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

HOOKS = """
import warnings
nn = torch.nn
torch.manual_seed(0)
lin = nn.Linear(3, 2).double()
seen = []
def shown(grads):
    return [None if g is None else g.tolist() for g in grads]
def hook(m, gi, go):
    seen.append(("full", type(m).__name__, shown(gi), shown(go)))
def pre(m, go):
    seen.append(("pre", shown(go)))
    return (go[0] * 2,)
h1 = lin.register_full_backward_hook(hook)
h2 = lin.register_full_backward_pre_hook(pre)
x = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).requires_grad_()
y = lin(x)
print(y.grad_fn, type(y.grad_fn).__name__, y.grad_fn.name(), y.grad_fn.next_functions)
print(y)
y.sum().backward()
print(seen); seen.clear()
print(x.grad)
h3 = lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
x.grad = None
lin(x).sum().backward()
print(x.grad, len(seen)); seen.clear()
(gx,) = torch.autograd.grad(lin(x).pow(2).sum(), x, create_graph=True)
print(gx.grad_fn is not None, seen[-1][0]); seen.clear()
h1.remove(); h2.remove(); h3.remove()
x.grad = None
out = lin(x)
print(out.grad_fn)
out.sum().backward()
print(x.grad, seen)
h = lin.register_full_backward_hook(hook)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    lin(torch.ones(1, 3, dtype=torch.float64)).sum().backward()
print([str(w.message)[:50] for w in caught])
print(seen); seen.clear(); h.remove()

class Two(nn.Module):
    def forward(self, a, k, b):
        return a * b * k, b + 1

two = Two()
two.register_full_backward_hook(hook)
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.])
p, q = two(a, 3, b)
print(p.grad_fn, q.grad_fn, q.requires_grad)
p.sum().backward()
print(seen, a.grad); seen.clear()
b.requires_grad_()
p, q = two(a, 3, b)
print(p.grad_fn, q.grad_fn)
(p.sum() + q.sum()).backward()
print(seen); seen.clear()
p, q = two(a, 3, b)
p.sum().backward()
print(seen, b.grad); seen.clear()
try:
    two.register_backward_hook(hook)
except RuntimeError as error:
    print("RuntimeError:", error)

seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
seq.register_full_backward_hook(lambda m, gi, go: print("seq", gi, go[0].shape))
seq[0].register_full_backward_hook(lambda m, gi, go: print("lin", gi, go[0].shape))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    seq(torch.ones(1, 2)).sum().backward()
lin2 = nn.Linear(2, 2)
lin2.register_backward_hook(
    lambda m, gi, go: print("legacy", [None if g is None else tuple(g.shape) for g in gi],
                            [tuple(g.shape) for g in go]))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    r = lin2(torch.ones(3, 2, requires_grad=True))
print(r.grad_fn)
r.sum().backward()
"""


def test_module_backward_hooks_see_and_replace_pytorchs_gradients():
    assert run(HOOKS, gradcli) == run(HOOKS, torch)


FUNCTION = """
class BackwardHookFunction(torch.autograd.Function):
    # PyTorch's own (torch/nn/modules/_functions.py): the inputs returned as they are
    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args

x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([3., 4.])
a, b = BackwardHookFunction.apply(x, y)
print(a, b, b.grad_fn, b.requires_grad, a.grad_fn.name())
(a * 3).sum().backward()
print(x.grad)
"""


def test_an_input_returned_and_marked_non_differentiable_is_off_the_graph():
    assert run(FUNCTION, gradcli) == run(FUNCTION, torch)
