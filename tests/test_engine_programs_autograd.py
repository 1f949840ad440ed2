"""Programs of the kind the autograd tutorials write beyond the basics, run twice.

Custom ops (``torch.autograd.Function``), forward-mode AD (``forward_ad``),
function transforms (``torch.func``) and the structure of the recorded graph
(``grad_fn.next_functions``): each program runs once with PyTorch 2.13 and
once with gradcli in its place, and must print the same, as the programs of
``test_engine_programs.py``. Here the programs also import as tutorials do
(``from torch.autograd import Function``): an ``import`` of ``torch`` or of a
module under it gives gradcli's module of the same path in the gradcli run.
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
    name = re.search(r"#\s*(\w+)", source).group(1)
    PROGRAMS[name] = source


# ----- torch.autograd.Function -----

program("""
    # function_exp: a custom exp that saves its output, beside the built-in one
    import torch
    from torch.autograd import Function

    class MyExp(Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    x = torch.tensor([0.0, 0.5, 1.0], requires_grad=True)
    y = MyExp.apply(x)
    print(y)
    print(y.grad_fn.name(), type(y.grad_fn).__name__, y.requires_grad, y.is_leaf)
    print(y.grad_fn)
    print(y.grad_fn.next_functions)
    print(y.grad_fn.saved_tensors)
    loss = (y * torch.tensor([1.0, 2.0, 3.0])).sum()
    loss.backward()
    print(f"loss = {loss.item():.4f}")
    print("custom:", x.grad)
    x2 = x.detach().clone().requires_grad_()
    (x2.exp() * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    print("builtin:", x2.grad, torch.allclose(x.grad, x2.grad))
    attempt(lambda: y.grad_fn.saved_tensors)
    with torch.no_grad():
        z = MyExp.apply(x)
    print(z, z.requires_grad, z.grad_fn)
    print(MyExp.apply(torch.tensor([2.0])).grad_fn)
""")

program("""
    # function_linear: the tutorials' LinearFunction with needs_input_grad, trained a few steps
    import torch

    class LinearFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if verbose:
                print("needs_input_grad:", ctx.needs_input_grad)
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    verbose = True
    rng = np.random.default_rng(7)
    X = torch.tensor(rng.normal(size=(6, 3)))
    Y = torch.tensor(rng.normal(size=(6, 2)))
    W = torch.tensor(rng.normal(size=(2, 3)), requires_grad=True)
    b = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    linear = LinearFunction.apply
    for step in range(3):
        loss = ((linear(X, W, b) - Y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            W -= 0.1 * W.grad
            b -= 0.1 * b.grad
        print(f"step {step}: loss {loss.item():.6f}")
        W.grad = None
        b.grad = None
    out = linear(X, W)
    print(out.grad_fn.next_functions)
    out.sum().backward()
    print(W.grad)
    verbose = False  # gradcheck calls backward as often as it needs
    inputs = (X.clone().requires_grad_(), W.detach().clone().requires_grad_(), b.detach().clone())
    print(torch.autograd.gradcheck(linear, inputs, eps=1e-6, atol=1e-4))
""")

program("""
    # function_relu_and_argmax: backward that edits a copy; an output marked non-differentiable
    import torch

    class MyReLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[input < 0] = 0
            return grad_input

    class MaxWithIndex(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            index = x.argmax()
            ctx.mark_non_differentiable(index)
            ctx.save_for_backward(x, index)
            return x.max(), index

        @staticmethod
        def backward(ctx, grad_value, grad_index):
            x, index = ctx.saved_tensors
            print("grad of the index:", grad_index)
            grad = torch.zeros_like(x)
            grad[index] = grad_value
            return grad

    x = torch.tensor([-2.0, -0.5, 0.5, 3.0], requires_grad=True)
    relu = MyReLU.apply
    y = relu(x) * x
    y.sum().backward()
    print(y, x.grad, sep="\\n")
    value, index = MaxWithIndex.apply(x * 2)
    print(value, index, index.requires_grad, index.grad_fn, value.grad_fn.name())
    x.grad = None
    (value * 3).backward()
    print(x.grad)
""")

program("""
    # function_setup_context: the newer style, constants on ctx, None for a number's gradient
    import torch

    class MulConstant(torch.autograd.Function):
        @staticmethod
        def forward(tensor, constant):
            return tensor * constant

        @staticmethod
        def setup_context(ctx, inputs, output):
            tensor, constant = inputs
            ctx.constant = constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(x, factor=2.0):
            return x * factor

        @staticmethod
        def setup_context(ctx, inputs, output):
            print("inputs:", len(inputs), inputs[1])
            ctx.factor = inputs[1]
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, grad_output):
            (output,) = ctx.saved_tensors
            print("needs:", ctx.needs_input_grad, "output:", output)
            return grad_output * ctx.factor, None

    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = MulConstant.apply(a, 5.0)
    print(b, b.grad_fn.constant)
    b.backward(torch.tensor([1.0, 0.1, 0.01]))
    print(a.grad)
    c = Scale.apply(a)
    c.sum().backward()
    print(c, a.grad)
    d = Scale.apply(a, factor=-1.0)
    print(d)
""")

program("""
    # function_double_backward: a backward in differentiable ops has its own derivative
    import torch
    from torch.autograd.function import Function, once_differentiable

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x ** 2

    class CubeOnce(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            print("grad mode inside:", torch.is_grad_enabled())
            return grad_output * 3 * x ** 2

    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (first,) = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), x, create_graph=True)
    (third,) = torch.autograd.grad(second.sum(), x)
    print(first, second, third, sep="\\n")
    print("6x:", 6 * x.detach(), "third is 6:", third)
    print(torch.autograd.gradgradcheck(Cube.apply, (x,)))
    (g,) = torch.autograd.grad(CubeOnce.apply(x).sum(), x, create_graph=True)
    print(g, type(g.grad_fn).__name__)
    attempt(lambda: torch.autograd.grad(g.sum(), x))
    H = torch.autograd.functional.hessian(lambda t: Cube.apply(t).sum(), x)
    print(H)
""")

program("""
    # function_errors: what PyTorch says when a custom backward is wrong
    import torch
    from torch.autograd import Function

    class TooMany(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, g):
            return g.expand(3)

    class NotATensor(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, g):
            return 1.0

    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    class GradForANumber(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    class AddOneInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    attempt(lambda: TooMany.apply(x).sum().backward())
    attempt(lambda: WrongShape.apply(x).backward())
    attempt(lambda: NotATensor.apply(x).backward())
    attempt(lambda: NoBackward.apply(x).sum().backward())
    attempt(lambda: GradForANumber.apply(x, 3.0).sum().backward())
    attempt(lambda: Function.apply(x))
    attempt(lambda: AddOneInPlace.apply(x))
    y = x * 1
    z = AddOneInPlace.apply(y)
    print(z is y, y, y.grad_fn.name())
    z.sum().backward()
    print(x.grad)
""")

program("""
    # function_two_outputs: one backward for both outputs; gradients not materialized
    import torch

    class SinCos(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, grad_sin, grad_cos):
            (x,) = ctx.saved_tensors
            print("backward got", grad_sin, grad_cos)
            return grad_sin * x.cos() - grad_cos * x.sin()

    class Pair(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g2, g3):
            print("g2 is None:", g2 is None, "g3 is None:", g3 is None)
            total = 0
            if g2 is not None:
                total = total + 2 * g2
            if g3 is not None:
                total = total + 3 * g3
            return total

    x = torch.tensor([0.0, 1.0], requires_grad=True)
    s, c = SinCos.apply(x)
    print(s, c, sep="\\n")
    r = s * s + c * c
    print(r.grad_fn.next_functions[0][0].next_functions)
    r.sum().backward()
    print("d(sin^2 + cos^2)/dx:", x.grad)
    x.grad = None
    s, c = SinCos.apply(x)
    c.sum().backward()
    print(x.grad)
    x.grad = None
    a, b = Pair.apply(x)
    b.sum().backward()
    print(x.grad)
""")

# ----- forward-mode AD -----

program("""
    # forward_ad_basics: dual numbers, their printing, and PyTorch's errors
    import torch
    import torch.autograd.forward_ad as fwAD

    primal = torch.tensor([1.0, 2.0, 3.0])
    tangent = torch.tensor([1.0, 0.0, 0.0])
    attempt(lambda: fwAD.make_dual(primal, tangent))
    with fwAD.dual_level() as level:
        print("level", level)
        dual = fwAD.make_dual(primal, tangent)
        print(dual)
        out = dual ** 3 + 2 * dual
        print(out)
        unpacked = fwAD.unpack_dual(out)
        print(type(unpacked).__name__, unpacked.primal, unpacked.tangent)
        p, t = unpacked
        print(f"d/dx0 (x^3 + 2x) at x0 = 1: {t[0].item():.1f}", p.requires_grad)
        print(fwAD.unpack_dual(primal).tangent, fwAD.unpack_dual(dual.detach()).tangent)
        print(fwAD.unpack_dual(dual > 1.5).tangent, fwAD.unpack_dual(dual.sum()))
        attempt(lambda: fwAD.make_dual(primal, torch.ones(2)))
        attempt(lambda: fwAD.make_dual(torch.tensor([1, 2]), torch.tensor([1, 2])))
        attempt(lambda: fwAD.dual_level().__enter__())
        attempt(lambda: dual // 2)
    print(out, fwAD.unpack_dual(out).tangent)
""")

program("""
    # forward_ad_directional: directional derivatives, Jacobian columns, a Function's jvp
    import torch
    import torch.autograd.forward_ad as fwAD

    def f(x):
        return torch.stack([x[0] * x[1].exp(), x[0].sin() + x[1] ** 2, (x * x).sum().sqrt()])

    x = torch.tensor([0.5, -1.0], dtype=torch.float64)
    columns = []
    with fwAD.dual_level():
        for direction in torch.eye(2, dtype=torch.float64):
            columns.append(fwAD.unpack_dual(f(fwAD.make_dual(x, direction))).tangent)
        v = torch.tensor([3.0, 4.0], dtype=torch.float64) / 5
        along_v = fwAD.unpack_dual(f(fwAD.make_dual(x, v))).tangent
    J = torch.stack(columns, dim=1)
    print(J)
    print(torch.allclose(J, torch.autograd.functional.jacobian(f, x)))
    print(along_v, torch.allclose(along_v, J @ v))

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.x = x
            return x * x

        @staticmethod
        def backward(ctx, g):
            return 2 * ctx.x * g

        @staticmethod
        def jvp(ctx, t):
            return 2 * ctx.x * t

    with fwAD.dual_level():
        y = Square.apply(fwAD.make_dual(x, torch.ones(2, dtype=torch.float64)))
        print(fwAD.unpack_dual(y))
        m = torch.zeros(3, dtype=torch.float64)
        m[1:] = fwAD.make_dual(x, torch.tensor([1.0, -1.0], dtype=torch.float64))
        m.mul_(2)
        print(fwAD.unpack_dual(m).tangent)
""")

# ----- torch.func -----

program("""
    # func_grad: grad as a function, argnums, has_aux, grad_and_value, derivatives of derivatives
    import torch
    from torch.func import grad, grad_and_value

    def loss(w, x, y):
        return ((x @ w - y) ** 2).mean()

    rng = np.random.default_rng(3)
    x = torch.tensor(rng.normal(size=(5, 2)))
    y = torch.tensor(rng.normal(size=5))
    w = torch.zeros(2, dtype=torch.float64)
    for step in range(3):
        g, value = grad_and_value(loss)(w, x, y)
        print(f"step {step}: loss {value.item():.6f}", g)
        w = w - 0.5 * g
    print(grad(loss, argnums=(0, 2))(w, x, y))
    print(grad(lambda w: (loss(w, x, y), w.norm()), has_aux=True)(w))
    t = torch.tensor(0.5)
    d1 = grad(torch.sin)
    d2 = grad(grad(torch.sin))
    d3 = grad(grad(grad(torch.sin)))
    print(d1(t), d2(t), d3(t), -torch.cos(t))
    cube = lambda t: t ** 3
    print(grad(cube)(torch.tensor(2.0)), grad(grad(cube))(torch.tensor(2.0)))
    attempt(lambda: grad(lambda t: t ** 2)(torch.tensor([1.0, 2.0])))
    attempt(lambda: grad(lambda t: 3.0)(t))
    attempt(lambda: grad(loss, argnums=3)(w, x, y))
    scale = torch.tensor(2.0, requires_grad=True)
    g = grad(lambda t: scale * t ** 2)(torch.tensor(3.0))
    print(g.requires_grad)
    g.backward()
    print(scale.grad)
""")

program("""
    # func_jacobians: jacrev, jacfwd, hessian, vjp and jvp beside autograd.functional
    import torch
    from torch.func import hessian, jacfwd, jacrev, jvp, vjp

    def rosenbrock(p):
        return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2

    p = torch.tensor([-1.2, 1.0], dtype=torch.float64)
    print(jacrev(rosenbrock)(p))
    print(hessian(rosenbrock)(p))
    print(jacfwd(jacrev(rosenbrock))(p))
    print(torch.autograd.functional.hessian(rosenbrock, p))

    def polar(r, theta):
        return torch.stack([r * theta.cos(), r * theta.sin()])

    r, theta = torch.tensor(2.0), torch.tensor(0.5)
    Jr, Jtheta = jacrev(polar, argnums=(0, 1))(r, theta)
    print(Jr, Jtheta)
    print(jacfwd(polar, argnums=1)(r, theta))
    out, vjp_fn = vjp(polar, r, theta)
    print(out, vjp_fn(torch.tensor([1.0, 0.0])))
    print(jvp(polar, (r, theta), (torch.tensor(0.0), torch.tensor(1.0))))
    print(jacrev(lambda x: (x.exp(), x.sum()))(torch.tensor([0.0, 1.0])))
""")

program("""
    # func_vmap: a function of one point over a batch, and per-sample gradients
    import torch
    from torch.func import grad, vmap

    rng = np.random.default_rng(11)
    X = torch.tensor(rng.normal(size=(4, 3)))
    Y = torch.tensor(rng.normal(size=4))
    w = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)

    def predict(w, x):
        return torch.tanh(torch.dot(w, x))

    def loss(w, x, y):
        return (predict(w, x) - y) ** 2

    print(vmap(predict, in_dims=(None, 0))(w, X))
    print(vmap(lambda x: x.norm())(X), vmap(torch.outer)(X[:2], X[:2]).shape)
    per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(w, X, Y)
    print(per_sample)
    print(per_sample.mean(0))
    print(grad(lambda w: vmap(loss, in_dims=(None, 0, 0))(w, X, Y).mean())(w))
    print(torch.vmap(lambda x: x * 2 + x.sum())(torch.arange(6.0).reshape(3, 2)))
    attempt(lambda: vmap(lambda a, b: a + b)(X, torch.ones(5, 3)))
""")


# ----- graph structure -----

program("""
    # graph_walk: next_functions in PyTorch's operand order, walked from the loss
    import torch

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    for name, make in [("2 * x", lambda: 2 * x), ("x * 2", lambda: x * 2),
                       ("1 - x", lambda: 1 - x), ("x - 1", lambda: x - 1),
                       ("x / 2", lambda: x / 2), ("2 / x", lambda: 2 / x),
                       ("x ** 2", lambda: x ** 2), ("2 ** x", lambda: 2 ** x),
                       ("1 + x", lambda: 1 + x), ("x % 2", lambda: x % 2),
                       ("x.clamp(0, 1)", lambda: x.clamp(0, 1)),
                       ("torch.rsub(x, 1)", lambda: torch.rsub(x, 1))]:
        node = make().grad_fn
        print(f"{name:18} {type(node).__name__:16}",
              [(type(f).__name__ if f is not None else None, i) for f, i in node.next_functions])

    def walk(fn, depth=0):
        print("  " * depth + type(fn).__name__)
        for child, _ in fn.next_functions:
            if child is not None:
                walk(child, depth + 1)

    loss = ((w * x).sum() - 3) ** 2 + (1 - x).exp().mean()
    walk(loss.grad_fn)
    node = loss.grad_fn
    for _ in range(4):  # AddBackward0 -> PowBackward0 -> SubBackward0 -> SumBackward0 -> Mul
        node = node.next_functions[0][0]
    print(node.name(), node.next_functions[0][0].variable is w)
    print(node.next_functions[1][0].variable is x, node.next_functions[1][0].variable)
""")

program("""
    # functional_create_graph: jvp, vjp and hvp that can be differentiated again
    import torch
    F = torch.autograd.functional

    x = torch.tensor([0.5, 1.0], requires_grad=True)
    v = torch.tensor([1.0, 2.0])
    out, tangent = F.jvp(lambda t: t.sin() * t, x, v, create_graph=True)
    print(out, tangent, sep="\\n")
    print(out.grad_fn, tangent.grad_fn)
    tangent.sum().backward()
    print(x.grad)
    out, cotangent = F.vjp(lambda t: t ** 2, x, v, create_graph=True)
    print(cotangent, cotangent.grad_fn.name())
    value, hv = F.hvp(lambda t: (t ** 3).sum(), x, v, create_graph=True)
    print(value, hv, hv.grad_fn)
    J = F.jacobian(lambda t: t ** 3, x, create_graph=True)
    print(J, J.grad_fn.name())
    x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
    v = torch.tensor([1.0, 2.0, -1.0])
    for name, f in [("t ** 2", lambda t: t ** 2), ("t.exp().sum()", lambda t: t.exp().sum()),
                    ("t.mean()", lambda t: t.mean()), ("1 / t", lambda t: 1 / t),
                    ("t.log()", lambda t: t.log()), ("outer", lambda t: torch.outer(t, t)),
                    ("t.cumsum(0)", lambda t: t.cumsum(0)), ("t[1:] * 2", lambda t: t[1:] * 2),
                    ("stack", lambda t: torch.stack([t, t * 2])), ("t.sqrt()", lambda t: t.sqrt()),
                    ("ones @ t", lambda t: torch.ones(2, 3) @ t), ("t.norm()", lambda t: t.norm()),
                    ("t.max()", lambda t: t.max()), ("t.tanh()", lambda t: t.tanh()),
                    ("t.sigmoid()", lambda t: t.sigmoid()), ("t.relu()", lambda t: t.relu()),
                    ("softmax", lambda t: torch.softmax(t, 0)),
                    ("log_softmax", lambda t: torch.log_softmax(t, 0))]:
        out, tangent = F.jvp(f, x, v, create_graph=True)
        print(f"{name:14} {type(out.grad_fn).__name__:14} {type(tangent.grad_fn).__name__}")
""")


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    theirs = run(PROGRAMS[name], torch)
    ours = run(PROGRAMS[name], gradcli)
    assert ours == theirs
