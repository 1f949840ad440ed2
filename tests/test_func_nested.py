"""Nested forward mode and has_aux through ``torch.func``, against PyTorch 2.13.

Each program runs once with PyTorch and once with gradcli in its place (the
``run`` of ``test_engine_programs.py``) and must print the same: every tensor's
shape, dtype, whether it requires grad, is a leaf, its grad_fn's name and its
values to 12 decimals (the sign of a zero kept); errors as the builtin type
PyTorch raises and the first line of its message. The functions are polynomials
(the reverse rules a nested pass runs through round their products in their own
order: the last bit says nothing of the transforms); transcendental functions
are compared at a tolerance at the end.
"""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

SHOW = """
def show(tree):
    if isinstance(tree, torch.Tensor):
        fn = type(tree.grad_fn).__name__ if tree.grad_fn is not None else None
        flags = f"grad={tree.requires_grad} leaf={tree.is_leaf} fn={fn}"
        values = np.round(tree.detach().numpy(), 12).tolist()
        return f"T{tuple(tree.shape)} {tree.dtype} {flags} {values}"
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in tree.items()) + "}"
    if isinstance(tree, (tuple, list)):
        return "(" + ", ".join(show(v) for v in tree) + ",)"
    return repr(tree)


def poly(x):
    return x * x * x / 3 - x * x / 2 + x


F = torch.func
fwAD = torch.autograd.forward_ad
x = torch.tensor([0.3, -0.7], dtype=torch.float64)
y = torch.tensor([1.5, 2.0], dtype=torch.float64, requires_grad=True)
X = torch.tensor([[0.3, -0.7], [1.25, 0.5], [-2.0, 0.75]], dtype=torch.float64)
"""

PROGRAMS = {}


def program(source):
    name = re.search(r"#\s*(\w+)", source).group(1)
    PROGRAMS[name] = source


program("""
    # nested_forward_transforms: jacfwd of jacfwd, of jacrev, and jvp of jvp and of jacfwd
    f = lambda a: poly(a) * a.sum()
    e = lambda a: poly(a).sum()
    ones = torch.ones(2, dtype=torch.float64)
    print(show(F.jacfwd(F.jacfwd(f))(x)))
    print(show(F.jacfwd(F.jacrev(f))(x)))
    print(show(F.jacrev(F.jacfwd(f))(x)))
    print(show(F.jacfwd(F.jacfwd(e))(x)))
    print(show(F.jacfwd(F.jacfwd(F.jacfwd(e)))(x)))
    print(show(F.jacfwd(F.jacfwd(lambda a, b: poly(a * b).sum(), argnums=1), argnums=0)(x, -x)))
    print(show(F.jvp(lambda a: F.jvp(f, (a,), (ones,))[1], (x,), (x,))))
    print(show(F.jacfwd(lambda a: F.jvp(f, (a,), (a,))[1])(x)))
    print(show(F.jvp(lambda a: F.jacfwd(f)(a), (x,), (x,))))
    print(show(F.jacfwd(lambda a: F.jacfwd(lambda b: a * b * b)(a * a))(x)))
    print(show(F.jacfwd(lambda a: F.jvp(lambda b: b * a, (a,), (ones,)))(x)))

    def assigned(a):  # in-place writes outside a graph carry every level's tangent
        b = a.clone()
        b[1:] = a[:1] ** 2
        b.mul_(a)
        return poly(b).sum()
    print(show(F.jacfwd(F.jacfwd(assigned))(x)), show(F.hessian(assigned)(x)))
""")

program("""
    # nested_forward_with_graphs: results stay connected to a tensor that requires grad
    r = F.jacfwd(F.jacfwd(lambda a: poly(a * y).sum()))(x)
    print(show(r))
    print(show(torch.autograd.grad(r.sum(), y)))
    print(show(F.jacfwd(F.jacfwd(lambda a: poly(a).sum()))(y)))
    print(show(F.grad(lambda a: F.jacfwd(F.jacfwd(lambda b: poly(b).sum()))(a).sum())(x)))
    print(show(F.vmap(F.jacfwd(F.jacfwd(lambda a: poly(a).sum())))(X)))
    print(show(F.jacfwd(F.vmap(F.jacfwd(lambda a: poly(a).sum())))(X)))
""")

program("""
    # second_derivatives_of_pads: plain results, as PyTorch's (the reflection pad's
    # gradient op records its input, with derivative 0: no tensor outside)
    x4 = torch.tensor([0.3, -0.7, 1.1, 0.4], dtype=torch.float64)
    for mode in ["reflect", "replicate", "circular"]:
        f = lambda a: poly(torch.nn.functional.pad(a.reshape(1, 1, 4), (2, 1), mode=mode)).sum()
        for t in [F.hessian, lambda g: F.jacfwd(F.jacfwd(g)), lambda g: F.jacrev(F.jacfwd(g))]:
            print(mode, show(t(f)(x4)))
""")

program("""
    # nested_dual_levels: forward_ad's levels nest neither in each other nor in a transform
    def twice():
        with fwAD.dual_level():
            with fwAD.dual_level():
                pass
    attempt(twice)
    def transform_inside():
        with fwAD.dual_level():
            d = fwAD.make_dual(x, torch.ones_like(x))
            return F.jacfwd(lambda a: a * a)(d)
    attempt(transform_inside)
    def jvp_inside():
        with fwAD.dual_level():
            return F.jvp(lambda a: a * a, (x,), (x,))
    attempt(jvp_inside)
    def level_inside(a):
        with fwAD.dual_level():
            d = fwAD.make_dual(a, torch.ones_like(a))
            return fwAD.unpack_dual(d * d).tangent
    attempt(lambda: F.jacfwd(level_inside)(x))
    attempt(lambda: F.jvp(level_inside, (x,), (x,)))
    attempt(lambda: F.jacfwd(lambda a: F.linearize(lambda b: b * b, a)[1](a))(x))
    attempt(lambda: F.jvp(lambda a: F.linearize(lambda b: b * b, a)[0], (x,), (x,)))
    with fwAD.dual_level():  # a level after the refusals is a level again
        d = fwAD.make_dual(x, torch.ones_like(x))
        print(show(fwAD.unpack_dual(poly(d)).tangent))
    e = lambda a: poly(a).sum()
    print(show(F.hessian(e)(x)), show(F.jacfwd(F.jacfwd(e))(x)))
""")

program("""
    # jacfwd_randomness: 'error' refuses a draw, 'same' draws once, 'different' as vmap's
    x3 = torch.tensor([0.3, -0.7, 1.2], dtype=torch.float64)
    draws = [
        ("randn", lambda a: a * torch.randn(3, dtype=torch.float64)),
        ("randn_big", lambda a: a * torch.randn(20, 3, dtype=torch.float64).sum(0)),
        ("rand_like", lambda a: a * torch.rand_like(a)),
        ("dropout", lambda a: torch.nn.functional.dropout(a, 0.5)),
        ("bernoulli", lambda a: torch.bernoulli(a * 0 + 0.5) * a),
        ("normal_", lambda a: a * torch.zeros(3, dtype=torch.float64).normal_()),
        ("unused", lambda a: a + 0 * torch.randn(2, dtype=torch.float64).sum()),
        ("method", lambda a: a * torch.ones(3, dtype=torch.float64).uniform_()),
    ]
    for mode in ["error", "same", "different"]:
        for name, f in draws:
            torch.manual_seed(0)
            attempt(lambda: (mode, name, show(F.jacfwd(f, randomness=mode)(x3)), torch.rand(2)))
        torch.manual_seed(0)
        aux = lambda a: (a * 2, torch.randn(2, dtype=torch.float64))
        attempt(lambda: (mode, show(F.jacfwd(aux, randomness=mode, has_aux=True)(x3))))
        torch.manual_seed(0)
        two = lambda a, b: a * b * torch.randn(3, dtype=torch.float64)
        attempt(lambda: (mode, show(F.jacfwd(two, argnums=(0, 1), randomness=mode)(x3, x3[1]))))
        torch.manual_seed(0)
        inner = F.jacfwd(lambda a: (a * a * torch.randn(3, dtype=torch.float64)).sum(),
                         randomness=mode)
        attempt(lambda: (mode, show(F.jacfwd(inner, randomness=mode)(x3))))
        torch.manual_seed(0)
        points = X[:, :1].expand(3, 3).contiguous()
        attempt(lambda: (mode, show(F.vmap(F.jacfwd(draws[0][1]), randomness=mode)(points))))
        torch.manual_seed(0)
        mapped = F.vmap(lambda a: a * torch.rand(()), randomness="same")
        attempt(lambda: (mode, show(F.jacfwd(mapped, randomness=mode)(X))))
    attempt(lambda: F.jacfwd(lambda a: a, randomness="bad")(x))
    torch.manual_seed(0)
    attempt(lambda: F.hessian(lambda a: (a * a * torch.randn(3, dtype=torch.float64)).sum())(x3))
""")

program("""
    # nested_vmap_randomness: a draw passes every level around it, each as its randomness says
    Z = torch.zeros(3, 2, dtype=torch.float64)
    for outer in ["error", "same", "different"]:
        for inner in ["error", "same", "different"]:
            for draw in (lambda a: a + torch.rand((), dtype=torch.float64),
                         lambda a: a + torch.randn(4, dtype=torch.float64).sum()):
                torch.manual_seed(0)
                f = F.vmap(F.vmap(draw, randomness=inner), randomness=outer)
                attempt(lambda: (outer, inner, show(f(Z)), torch.rand(1)))
""")

program("""
    # aux_of_reverse_transforms: the aux as grad, grad_and_value, vjp and jacrev give it back
    def f(a):
        return (a * a).sum(), {"a": a, "sq": a * a, "y": y, "ay": a * y, "c": torch.ones(2)}
    def g(a):
        return a * a, {"a": a, "sq": a * a, "y": y, "ay": a * y}
    for inp in (x, y):
        print(show(F.grad(f, has_aux=True)(inp)))
        print(show(F.grad_and_value(f, has_aux=True)(inp)))
        out, fn, aux = F.vjp(g, inp, has_aux=True)
        print(show((out, aux, fn(torch.ones(2, dtype=torch.float64)))))
        print(show(F.jacrev(g, has_aux=True)(inp)))
    print(F.grad(lambda b: ((b * b).sum(), b), has_aux=True)(x)[1] is x)
    print(F.grad(lambda b: ((b * b).sum(), b), has_aux=True)(y)[1] is y)
    print(show(F.grad(lambda a: F.grad(f, has_aux=True)(a)[1]["sq"].sum())(x)))
    print(show(F.grad(lambda a: F.grad(f, has_aux=True)(a)[0].sum())(x)))
    print(show(F.jacrev(lambda a: F.jacrev(g, has_aux=True)(a), has_aux=True)(x)))
""")

program("""
    # aux_of_forward_transforms: the aux as jvp and jacfwd give it back, nested too
    def f(a):
        return (a * a).sum(), {"a": a, "sq": a * a, "y": y, "ay": a * y}
    def g(a):
        return a * a, {"a": a, "sq": a * a, "y": y, "ay": a * y}
    for inp in (x, y):
        print(show(F.jvp(g, (inp,), (x,), has_aux=True)))
        print(show(F.jacfwd(g, has_aux=True)(inp)))
    print(show(F.jacfwd(lambda a: F.grad(f, has_aux=True)(a), has_aux=True)(x)))
    print(show(F.jacrev(lambda a: F.jacfwd(g, has_aux=True)(a), has_aux=True)(x)))
    print(show(F.jacfwd(F.jacfwd(g, has_aux=True), has_aux=True)(x)))
    print(show(F.vmap(F.jacfwd(g, has_aux=True))(X)))
""")

program("""
    # aux_errors: not a pair, or an aux with a leaf that is not a tensor
    sq = lambda a: (a * a).sum()
    for call in [
        lambda: F.grad(sq, has_aux=True)(x),
        lambda: F.grad(lambda a: (sq(a),), has_aux=True)(x),
        lambda: F.grad(lambda a: (sq(a), 3.0), has_aux=True)(x),
        lambda: F.grad(lambda a: (sq(a), [a, "s"]), has_aux=True)(x),
        lambda: F.grad_and_value(lambda a: [sq(a), a], has_aux=True)(x),
        lambda: F.jacrev(lambda a: a * a, has_aux=True)(x),
        lambda: F.jacrev(lambda a: (a * a, 3.0), has_aux=True)(x),
        lambda: F.jacfwd(lambda a: a * a, has_aux=True)(x),
        lambda: F.jacfwd(lambda a: (a * a, 3.0), has_aux=True)(x),
        lambda: F.jacfwd(lambda a: (a * a, [a, None]), has_aux=True)(x),
        lambda: F.vjp(lambda a: a * a, x, has_aux=True),
        lambda: F.vjp(lambda a: (a * a, 3.0), x, has_aux=True),
        lambda: F.jvp(lambda a: a * a, (x,), (x,), has_aux=True),
        lambda: F.jvp(lambda a: (a * a, 3.0), (x,), (x,), has_aux=True),
    ]:
        attempt(call)
""")


program("""
    # jacfwd_through_vmap: jacfwd is one vmap over the basis, so what vmap does must be
    # PyTorch's: in-place ops on batched tensors, a plain tensor's methods and in-place
    # writes of duals, ops with no batching rule (run at each point)
    x4 = torch.tensor([0.3, -0.7, 1.2, 0.5], dtype=torch.float64)
    M = torch.tensor([[1.0, 2.0, -1.0, 0.5], [0.0, 1.5, 2.0, -1.0]], dtype=torch.float64)
    w = torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64)
    i3 = torch.tensor([2, 0, 1])
    def in_place(a):
        b = a.clone(); b.mul_(a); b += 1; b -= a; b *= w; b /= 3; b.exp_(); return b
    def written(a):
        z = torch.zeros(4, dtype=torch.float64)
        z[1:3] = a[:2] * a[2]
        z.add_(a * a)
        return z
    cases = [in_place, written, lambda a: M.matmul(a) * w.dot(a), lambda a: w.mul(a) - w.atan2(a),
             lambda a: torch.zeros(4, dtype=torch.float64).copy_(a * a),
             lambda a: torch.tril(a.reshape(2, 2) * a[0]), lambda a: torch.mv(M, a * a),
             lambda a: torch.gather(a * a, 0, i3), lambda a: torch.stack(torch.unbind(a * a)[1:]),
             lambda a: a.double() * a, lambda a: torch.hstack([a, a * a]).roll(1)]
    for f in cases:
        print(show(F.jacfwd(f)(x4)), show(F.hessian(lambda a: f(a).sum())(x4)))
    attempt(lambda: F.vmap(lambda a: torch.ones(4, dtype=torch.float64).mul_(a))(M))
    attempt(lambda: F.vmap(lambda a: F.vmap(lambda b: a.clone().mul_(b))(M))(M))
    print(show(F.vmap(in_place)(M.reshape(2, 4))))
""")


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    source = SHOW + textwrap.dedent(PROGRAMS[name])
    assert run(source, gradcli) == run(source, torch)


def _transcendental(m):
    F = m.func
    x = m.tensor([0.3, -0.7, 1.1], dtype=m.float64)
    h = lambda a: (a.sin() * a.exp()).sum() * a.cos().prod()  # noqa: E731
    f = lambda a: a.tanh() * a.exp().sum()  # noqa: E731
    return [
        F.jacfwd(F.jacfwd(h))(x),
        F.jacfwd(F.jacrev(h))(x),
        F.jacfwd(F.jacfwd(f))(x),
        F.jacfwd(F.jacfwd(F.jacfwd(h)))(x),
        F.jvp(lambda a: F.jvp(f, (a,), (a.cos(),))[1], (x,), (x.sin(),))[1],
    ]


def test_nested_forward_mode_of_transcendental_functions_agrees_to_a_few_ulps():
    for ours, theirs in zip(_transcendental(gradcli), _transcendental(torch), strict=True):
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-14)


def test_the_third_derivative_by_nested_jacfwd_is_sympys():
    import sympy

    s = sympy.symbols("s")
    expr = sympy.sin(s) * sympy.exp(s) * sympy.cos(s)
    third = float(sympy.diff(expr, s, 3).subs(s, 0.4))
    f = lambda a: (a.sin() * a.exp() * a.cos()).sum()  # noqa: E731
    at = gradcli.tensor([0.4], dtype=gradcli.float64)
    ours = gradcli.func.jacfwd(gradcli.func.jacfwd(gradcli.func.jacfwd(f)))(at)
    assert tuple(ours.shape) == (1, 1, 1)
    assert abs(float(ours.reshape(-1)[0]) - third) < 1e-12 * max(1.0, abs(third))
