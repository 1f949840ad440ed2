"""PyTorch programs of the kind people write when learning autograd, run twice.

Each program is the text of a script that says ``torch``. It runs in-process
once with ``torch`` bound to PyTorch and once bound to gradcli, and what it
prints must be the same, character for character, reprs included (object
addresses aside). An exception is printed by ``attempt`` as the builtin type
PyTorch raises and its message. Seeded data comes in through NumPy, so both
libraries see the same numbers; the programs avoid what differs on purpose
(random generators, the last bits of NumPy's float32 transcendental functions).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import re
import textwrap

import numpy as np
import pytest

import gradcli
from gradcli.torch import torch_import

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

# PyTorch warns on some of what the programs do (.grad of a non-leaf, float() of a
# tensor that requires grad); the warnings go to stderr, not into the compared output.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def attempt(fn):
    """Call fn; print its result, or the builtin type of what it raised and the message."""
    try:
        print("ok", fn())
    except Exception as err:  # noqa: BLE001  (what a user sees)
        builtin = next(c for c in type(err).__mro__ if c.__module__ == "builtins")
        print(builtin.__name__, "|", str(err).splitlines()[0] if str(err) else "")


def _importer(lib):
    """``__import__`` for a program: ``torch`` and its modules are ``lib``'s."""
    return builtins.__import__ if lib is torch else torch_import


def run(source, lib):
    out = io.StringIO()
    namespace = {
        "torch": lib,
        "np": np,
        "attempt": attempt,
        "__builtins__": dict(vars(builtins), __import__=_importer(lib)),
    }
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(textwrap.dedent(source), "<program>", "exec"), namespace)
    finally:
        lib.set_printoptions(profile="default")
    return re.sub(r" at 0x[0-9a-f]+>", " at 0x...>", out.getvalue())


PROGRAMS = {}


def program(source):
    name = re.search(r"#\s*(\w+)", source).group(1)
    PROGRAMS[name] = source


program("""
    # linear_regression: the loop of every first tutorial, in float64
    rng = np.random.default_rng(0)
    X = torch.tensor(rng.normal(size=(20, 3)))
    y = X @ torch.tensor([[1.0], [-2.0], [0.5]], dtype=torch.float64) + 0.1
    w = torch.tensor(rng.normal(size=(3, 1)), requires_grad=True)
    b = torch.zeros(1, requires_grad=True, dtype=torch.float64)
    for step in range(5):
        pred = X @ w + b
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
            b -= 0.1 * b.grad
        print(step, loss, round(loss.item(), 10))
        w.grad.zero_()
        b.grad.zero_()
    print(w, b, w.grad, b.grad, sep="\\n")
    print(loss.grad_fn.name(), pred.grad_fn.name(), loss.grad_fn)
    print(w.is_leaf, pred.is_leaf, loss.requires_grad, w.grad.requires_grad)
""")

program("""
    # linear_regression_float32: the default dtype, sub_ and grad.zero_() under no_grad
    rng = np.random.default_rng(1)
    X = torch.tensor(rng.normal(size=(10, 2)).astype(np.float32))
    y = torch.tensor(rng.normal(size=(10,)).astype(np.float32))
    w = torch.tensor(rng.normal(size=(2,)).astype(np.float32), requires_grad=True)
    for i in range(3):
        loss = ((X @ w - y) ** 2).sum() / len(y)
        loss.backward()
        with torch.no_grad():
            w.sub_(0.05 * w.grad)
            w.grad.zero_()
        print(f"{loss.item():.4f}", w)
    print(X.dtype, w.dtype, loss.dtype, X.shape, w.grad.shape)
""")

program("""
    # logistic_regression: sigmoid, log, mean; grads reset with None
    rng = np.random.default_rng(2)
    X = torch.tensor(rng.normal(size=(8, 2)))
    y = torch.tensor((rng.random(8) > 0.5).astype(np.float64))
    w = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    for i in range(3):
        p = torch.sigmoid(X @ w + b)
        loss = -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
        loss.backward()
        print(loss, w.grad, b.grad)
        with torch.no_grad():
            w -= 0.5 * w.grad
            b -= 0.5 * b.grad
        w.grad = None
        b.grad = None
    print(p, (p > 0.5).float(), ((p > 0.5).float() == y).float().mean(), sep="\\n")
""")

program("""
    # cross_entropy_by_hand: log_softmax, an integer target, fancy indexing and gather
    rng = np.random.default_rng(3)
    logits = torch.tensor(rng.normal(size=(4, 3)), requires_grad=True)
    target = torch.tensor([0, 2, 1, 2])
    lp = torch.log_softmax(logits, dim=1)
    loss = -lp[torch.arange(4), target].mean()
    loss.backward()
    print(lp, loss, logits.grad, target, target.dtype, sep="\\n")
    nll = -logits.log_softmax(dim=-1).gather(1, target.unsqueeze(1)).squeeze(1)
    print(nll)
    print(torch.softmax(logits, dim=1).sum(dim=1))
    print(logits.index_select(0, torch.tensor([3, 0])), logits.argmax(dim=1) == target)
""")

program("""
    # mlp: two layers, relu, matmul, bias broadcasting, parameters in a list
    rng = np.random.default_rng(4)
    X = torch.tensor(rng.normal(size=(5, 3)).astype(np.float32))
    Y = torch.tensor(rng.normal(size=(5, 1)).astype(np.float32))
    W1 = torch.tensor(rng.normal(size=(3, 4)).astype(np.float32), requires_grad=True)
    b1 = torch.zeros(4, requires_grad=True)
    W2 = torch.tensor(rng.normal(size=(4, 1)).astype(np.float32), requires_grad=True)
    b2 = torch.zeros(1, requires_grad=True)
    params = [W1, b1, W2, b2]
    for epoch in range(3):
        h = torch.relu(X @ W1 + b1)
        out = h.matmul(W2) + b2
        loss = torch.mean((out - Y) ** 2)
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= 0.01 * p.grad
        print(epoch, round(loss.item(), 4))
    print(b1.grad, h.shape, out.shape, [p.grad.shape for p in params])
    print(h.clamp(min=0).max(), h.relu().sum(1), h.grad_fn.name())
""")

program("""
    # accumulation: .grad adds up over backward calls; a freed graph cannot run twice
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    print(x.grad)
    y.backward()
    print(x.grad)
    attempt(lambda: y.backward())
    (x ** 3).sum().backward()
    print(x.grad, x.grad is None, torch.ones(2, requires_grad=True).grad is None)
""")

program("""
    # retain_grad_and_hooks: gradients of intermediates, hooks that look and hooks that change
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = y ** 2
    z.sum().backward()
    print(y.grad, x.grad, z.grad, y.retains_grad, z.retains_grad, x.retains_grad)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 10)
    print(torch.autograd.grad((x * x).sum(), x))
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g + 1)
    z = x * 3
    z.register_hook(lambda g: print("z hook", g))
    (y.sum() + y.sum() + z.sum()).backward()
    print(y.grad, x.grad)
    handle.remove()
    x.grad = None
    (x * 1).sum().backward()
    print(x.grad, type(handle).__name__)
    attempt(lambda: torch.ones(2).register_hook(print))
""")

program("""
    # higher_order: autograd.grad with create_graph, a Hessian row by row, a gradient penalty
    x = torch.tensor(2.0, requires_grad=True)
    (g1,) = torch.autograd.grad(x ** 4, x, create_graph=True)
    (g2,) = torch.autograd.grad(g1, x, create_graph=True)
    (g3,) = torch.autograd.grad(g2, x)
    print(g1, g2, g3, g3.requires_grad)
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = torch.autograd.grad(x.sin().sum(), x, create_graph=True)
    print(torch.stack([torch.autograd.grad(g[i], x, retain_graph=True)[0] for i in range(3)]))
    rng = np.random.default_rng(5)
    W = torch.tensor(rng.normal(size=(3, 1)), requires_grad=True)
    x = torch.tensor(rng.normal(size=(4, 3)), requires_grad=True)
    (g,) = torch.autograd.grad(torch.tanh(x @ W).sum(), x, create_graph=True)
    penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
    penalty.backward()
    print(g, penalty, W.grad, x.grad, sep="\\n")
""")

program("""
    # grad_modes: detach, requires_grad_, no_grad as a context and a decorator
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    z = y.detach()
    print(z, z.requires_grad, z.grad_fn)
    (y * z).sum().backward()
    print(x.grad)
    a = torch.ones(2, 2)
    print(a.requires_grad, a.requires_grad_(), a.requires_grad)
    attempt(lambda: (a * 2).requires_grad_(False))
    attempt(lambda: torch.tensor([1, 2]).requires_grad_())

    @torch.no_grad()
    def double(t):
        return t * 2

    @torch.no_grad
    def triple(t):
        return t * 3

    print(double(x), double(x).requires_grad, triple(x))
    with torch.no_grad():
        print((x * 2).requires_grad, torch.is_grad_enabled())
        with torch.enable_grad():
            print((x * 2).requires_grad)
    with torch.set_grad_enabled(False):
        print(torch.is_grad_enabled())
    print(torch.is_grad_enabled())
""")

program("""
    # in_place_in_a_graph: the tensor itself changes and records the op, as in PyTorch
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.mul_(2)
    print(y)
    y.add_(1)
    z = y
    z += x
    print(y, z is y)
    y.sum().backward()
    print(x.grad)
    for name, change in [("zero_", lambda t: t.zero_()), ("fill_", lambda t: t.fill_(2.0)),
                         ("copy_", lambda t: t.copy_(x * 5)), ("exp_", lambda t: t.exp_()),
                         ("clamp_", lambda t: t.clamp_(min=1.5)), ("pow_", lambda t: t.pow_(2)),
                         ("relu_", lambda t: t.relu_()), ("sigmoid_", lambda t: t.sigmoid_())]:
        x.grad = None
        y = x * 1
        change(y)
        y.sum().backward()
        print(name, y, x.grad)
    c = torch.ones(2)
    c += x
    print(c, c.is_leaf)
    attempt(lambda: torch.tensor([1, 2]).add_(1.5))
""")

program("""
    # in_place_outside_a_graph: optimizer steps, .data, views that see the change
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.no_grad():
        x.add_(1)
        x.mul_(2)
        x[0] = 0.0
    print(x)
    x.data *= 2
    print(x)
    x.data = torch.tensor([9.0, 8.0, 7.0])
    print(x, x.data)
    y = x.data
    y[1] = -1
    d = x.detach()
    d.zero_()
    print(x)
    attempt(lambda: x.add_(1))
    attempt(lambda: x.zero_())
    a = torch.tensor([5, 6])
    a += 1
    a *= 2
    print(a, a.dtype)
""")

program("""
    # leaf_assignment_messages: a part of a leaf is a view, the whole leaf is not
    for index in ["0", "0:1", "1:", ":, 0", "None", "-2:", "0:2", ":", "...", "x > 0", "[0, 1]"]:
        x = torch.ones(2, 2, requires_grad=True)
        def assign():
            exec(f"x[{index}] = 5", {"x": x})
        print(index, end=" -> ")
        attempt(assign)
""")

program("""
    # indexing: slices, masks, integer tensors, index assignment inside a graph
    x = torch.arange(12.0).reshape(3, 4).requires_grad_()
    y = x[1:, ::2]
    z = x[x > 5]
    w = x[:, 1]
    print(x, y, z, w, x[0], x[-1, -1], x[..., 0], x[None, 0].shape, sep="\\n")
    (y.sum() + z.sum() * 2 + w.sum() * 3).backward()
    print(x.grad)
    v = x[torch.tensor([0, 2, 0])]
    v.sum().backward()
    print(v, x.grad, sep="\\n")
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y[1] = 0.0
    y.sum().backward()
    print(y, x.grad)
    a = torch.zeros(3)
    b = torch.tensor(5.0, requires_grad=True)
    a[0] = b
    a[2] = b * 2
    a.sum().backward()
    print(a, b.grad)
    m = torch.zeros(2, 3)
    m[:, 1] = torch.tensor([1.0, 2.0])
    m[m > 1] = -1
    print(m)
""")

program("""
    # shapes: stack, cat, view, T, permute, contiguous, Size
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    s = torch.stack([a, b])
    print(s, torch.cat([a, b]), torch.stack([a, b], dim=1), torch.cat([s, s], dim=1), sep="\\n")
    print(s.view(-1), s.T, s.t(), s.view(4, 1).shape, s.reshape(1, 4), s.flatten())
    print(s.unsqueeze(0).shape, s.squeeze(), s.permute(1, 0), s.transpose(0, 1))
    print(s.contiguous(), s.T.is_contiguous(), s.is_contiguous(), s.T.contiguous())
    (s.T @ s).sum().backward()
    print(a.grad, b.grad)
    size = torch.ones(2, 3, 4).shape
    print(size, size == (2, 3, 4), size[1:], size[0], len(size), size.numel(), size + (5,))
    print(torch.ones(2, 3).size(), torch.ones(2, 3).size(-1), torch.Size([2, 3]), list(size))
""")

program("""
    # views: view needs compatible strides, reshape copies when it must; contiguity as PyTorch's
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    attempt(lambda: x.T.view(-1))
    attempt(lambda: x[:, :2].view(-1))
    attempt(lambda: x.view(4))
    print(x.T.reshape(-1), x.t().contiguous().view(-1), x.view(2, -1).shape)
    print(x[0].view(3, 1), x[:, 0].view(2, 1), x.T[0].view(2), x.reshape(3, 2))
    t = torch.ones(2, 3).t()
    print(t.is_contiguous(), t.clone().is_contiguous(), t.contiguous().is_contiguous())
    print(t.flip(0).is_contiguous(), t[:, 0].is_contiguous(), t.unsqueeze(0).is_contiguous())
""")

program("""
    # reductions: sum and mean by dim, max and min with their indices, clamp, where, norm
    x = torch.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]], requires_grad=True)
    print(x.sum(dim=1, keepdim=True), x.sum(0), x.sum(), x.mean(1), x.prod(1))
    v, i = x.max(dim=0)
    print(v, i)
    r = x.max(dim=1)
    print(r)
    print(r.values, r.indices, x.min(1, keepdim=True), sep="\\n")
    print(x.max(), x.argmax(), x.argmax(dim=1), x.argmin(0))
    print(x.clamp(min=2), x.clamp(max=3), x.clamp(2, 4))
    print(torch.where(x > 3, x, torch.zeros_like(x)), torch.where(x > 3, x, 0.0))
    print(x.norm(), x.norm(dim=1), x.norm(p=1), x.std(), x.var(dim=0), x.abs())
    print(x.mean().item(), float(x.sum()), x.tolist(), x.sum().tolist(), int(x[0, 1]))
    print((x > 2).all(), (x > 2).any(dim=1), torch.all(x > 0), torch.any(x > 5))
""")

program("""
    # more_ops: cumsum, flip, roll, tril, repeat, masked_fill, sort, topk, split, device
    rng = np.random.default_rng(6)
    x = torch.tensor(rng.normal(size=(3, 4)), requires_grad=True)
    outs = [x.cumsum(1), x.flip(0), x.roll(1, 0), x.tril(), x.triu(1), x.repeat(2, 1),
            x.masked_fill(x > 0, 0.0), x.sort(1).values, x.topk(2).values, x.unbind(0)[1],
            x.split(2, 1)[1], x.chunk(2)[1], x.abs().rsqrt(), x.square(), x.trunc(),
            torch.hstack([x, x]), torch.vstack([x[0], x[1]]), x.mv(x[0].detach())]
    sum(o.sum() for o in outs).backward()
    print(*outs, x.grad, sep="\\n")
    print(x.sort(1), x.topk(2, dim=0, largest=False), x.argsort(1), (x > 0).nonzero(), sep="\\n")
    print(torch.allclose(x, x + 1e-9), torch.isclose(x, x.round()), torch.equal(x, x))
    print(x.device, torch.device("cpu"), torch.cuda.is_available(), x.to("cpu") is x)
""")

program("""
    # printing: dtypes, shapes and the many forms of numbers
    print(torch.zeros(2, 3, dtype=torch.float64))
    print(torch.arange(5), torch.arange(1, 10, 2), torch.arange(0, 1, 0.25))
    print(torch.arange(5) > 2, torch.tensor([1.0, 2.0]) == torch.tensor([1.0, 3.0]))
    print(torch.tensor(3.0).dtype, torch.tensor(3).dtype, torch.tensor(True).dtype)
    print(torch.tensor([1, 2.5]).dtype, torch.float, torch.double, torch.long)
    print(torch.tensor(3.0), torch.tensor(3), torch.tensor(True), torch.tensor(-0.5))
    print(torch.eye(3), torch.full((2, 2), 7.0), torch.full((2,), 3), torch.linspace(0, 1, 5))
    print(torch.linspace(-1, 1, 11), torch.linspace(0, 10, 7, dtype=torch.int64))
    print(torch.tensor([[1e-5, 1.0], [100.0, 1e5]]), torch.tensor([1e10, 1.0]))
    print(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0]))
    print(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1.5], dtype=torch.float16))
    print(torch.zeros(0), torch.zeros(2, 0), torch.ones(1, 1, 1), torch.tensor([]))
    print(torch.arange(1000.0), torch.arange(24).reshape(2, 3, 4))
    torch.set_printoptions(precision=2)
    print(torch.tensor([1.23456, 2.5]))
    for row in torch.tensor([[1, 2], [3, 4]]):
        print(row)
    for v in torch.tensor([1.5, 2.5]):
        print(v, v.item())
    print(torch.ones(2).type(), torch.tensor([1]).type(), torch.ones(2).is_floating_point())
""")

program("""
    # type_promotion: integers meet floats as in PyTorch, not as in NumPy
    a = torch.tensor([1, 2, 3])
    b = torch.tensor([True, False, True])
    print(a * 2, a * 2.5, a / 2, a // 2, a % 2, a + 0.5, a ** 2, 2 ** a, a ** 0.5)
    print(a.sum(), a.prod(), a.max(), (a > 1).sum(), b.sum(), b * 2.5, b + 1)
    print(a.float(), a.double(), a.long(), a.to(torch.float32), torch.tensor([1.7, -1.7]).int())
    print(torch.tensor(2.0) * a, a * torch.tensor([2.5]), a.exp(), a.sqrt(), torch.sigmoid(a))
    print(torch.where(b, a, 2.5), torch.maximum(a, torch.tensor([1.5])), a.clamp(0.5))
    print(torch.arange(4) * 0.5, torch.arange(4) / 4, -a, abs(-a), a.abs())
    print((a * 2.5).dtype, (a + torch.tensor(1.0)).dtype, (b * 2).dtype, (a / a).dtype)
""")

program("""
    # numpy_bridge: from_numpy shares memory, tensor copies, as_tensor, new_*
    a = np.array([1.0, 2.0])
    t = torch.from_numpy(a)
    c = torch.tensor(a)
    a[0] = 5
    print(t, c, torch.as_tensor([1, 2]), torch.as_tensor(a))
    print(torch.empty(2, 3).shape, torch.zeros_like(t), t.new_ones(2), t.new_zeros((1, 2)))
    print(t.new_full((2,), 3.0), t.new_tensor([1, 2]), t.clone().detach(), t.numpy())
    x = torch.ones(2, requires_grad=True)
    attempt(lambda: x.numpy())
    print(x.detach().numpy(), type(x.detach().numpy()).__name__, x.tolist())
""")

program("""
    # no_derivative: // records NotImplemented and backward raises; % has a gradient
    x = torch.tensor([3.5, -1.5], requires_grad=True)
    print(x // 2, x % 2, 7.0 % x, torch.remainder(x, 2))
    attempt(lambda: (x // 2).sum().backward())
    attempt(lambda: (7.0 % x).sum().backward())
    (x % 2).sum().backward()
    print(x.grad)
    attempt(lambda: torch.tensor([3]) // 0)
""")

program("""
    # functional: jacobian, hessian and the products, on small functions
    f = lambda x: x ** 2 + 3 * x
    F = torch.autograd.functional
    print(F.jacobian(f, torch.tensor([1.0, 2.0])))
    print(F.hessian(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0])))
    pair = (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
    print(F.jacobian(lambda x, y: (x * y, x + y), pair))
    print(F.vjp(f, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0])))
    print(F.jvp(f, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0])))
    print(F.hvp(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0])))
    J = F.jacobian(lambda A: A @ A, torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    print(J.shape, J.sum(dim=(0, 1)))
    print(F.hessian(lambda x, y: (x * y ** 2).sum(), pair))
""")

program("""
    # gradcheck: passes for a right gradient, fails loudly for a wrong one
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    print(torch.autograd.gradcheck(lambda x: (x.sin() * x).sum(), (x,)))
    print(torch.autograd.gradgradcheck(lambda x: x.sin() * x, (x,)))
    print(torch.autograd.gradcheck(torch.tanh, (x,), eps=1e-6, atol=1e-4))
    bad = lambda x: x.detach() * x
    attempt(lambda: torch.autograd.gradcheck(bad, (x,)))
    print(torch.autograd.gradcheck(bad, (x,), raise_exception=False))
""")

program("""
    # errors: the exception type PyTorch raises and the gist of its message
    a, b = torch.ones(2, 3), torch.ones(3, 2)
    attempt(lambda: a.view(4))
    attempt(lambda: torch.cat([a, b]))
    attempt(lambda: torch.stack([a, b]))
    attempt(lambda: a.backward())
    attempt(lambda: (torch.ones(2, requires_grad=True) * 2).backward())
    attempt(lambda: torch.tensor([1, 2], requires_grad=True))
    attempt(lambda: torch.tensor([[1, 2], [3]]))
    attempt(lambda: torch.tensor(["a"]))
    attempt(lambda: torch.zeros(2, 3).expand(3, 3))
    attempt(lambda: a.max(dim=3))
    attempt(lambda: torch.arange(3).mean())
    attempt(lambda: torch.arange(3) ** -1)
    attempt(lambda: a.no_such_method)
    attempt(lambda: float(torch.ones(2)))
    attempt(lambda: torch.ones(2).item())
    attempt(lambda: bool(torch.ones(2) > 0))
    attempt(lambda: torch.ones(2).backward(torch.ones(3)))
    attempt(lambda: (torch.ones(2, requires_grad=True) * 2).backward([1.0, 1.0]))
    attempt(lambda: a.gather(1, torch.tensor([0, 1])))
    attempt(lambda: torch.randn(2, 3).view(3, 3))
""")


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    theirs = run(PROGRAMS[name], torch)
    ours = run(PROGRAMS[name], gradcli)
    assert ours == theirs
