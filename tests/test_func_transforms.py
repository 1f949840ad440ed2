"""``torch.func``'s transforms composed, against PyTorch 2.13, to the last bit.

Each program runs once with PyTorch and once with gradcli in its place (the
``run`` of ``test_engine_programs.py``) and must print the same. ``show`` prints
a pytree of tensors exactly: its structure, and each tensor's shape, dtype,
whether it requires grad and its values as Python floats (whose repr keeps
every digit and the sign of a zero). Errors print as the builtin type PyTorch
raises and the first line of its message.

The functions transformed are made of arithmetic both libraries round alike:
``+ - *``, division (in reverse mode only: PyTorch's forward-mode formula for a
quotient is its own), integer powers, ``abs``, ``relu`` and sums of at most three
terms. Elsewhere the last bit says nothing of the transforms: PyTorch's
transcendental kernels (SLEEF) and NumPy's differ in it, longer sums and BLAS
products add in other orders, and gradcli derives each op's tangent from its
reverse rule. Those are compared at a tolerance at the end.
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
        grad = " grad" if tree.requires_grad else ""
        return f"T{tuple(tree.shape)} {tree.dtype}{grad} {tree.detach().tolist()}"
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in tree.items()) + "}"
    if isinstance(tree, tuple):
        return "(" + ", ".join(show(v) for v in tree) + ",)"
    if isinstance(tree, list):
        return "[" + ", ".join(show(v) for v in tree) + "]"
    return repr(tree)


def soft(x):  # smooth; for reverse mode (a quotient)
    return x / (1 + x * x)


def poly(x):  # for both modes
    return x * x * x / 3 - x * x / 2 + x


rng = np.random.default_rng(0)
X = torch.tensor(rng.normal(size=(3, 2)))
Y = torch.tensor(rng.normal(size=(3, 2)))
w = torch.tensor(rng.normal(size=2))
"""

PROGRAMS = {}


def program(source):
    name = re.search(r"#\s*(\w+)", source).group(1)
    PROGRAMS[name] = source


def both(name):
    source = SHOW + textwrap.dedent(PROGRAMS[name])
    return run(source, torch), run(source, gradcli)


# ----- vmap over the other transforms -----

program("""
    # vmap_of_jacfwd_jacrev_hessian: per-point Jacobians and Hessians, each in_dims
    from torch.func import vmap, jacfwd, jacrev, hessian, grad
    f = lambda x: poly(x) * x.sum()
    g = lambda w, x: poly(w * x).sum() * (w * w - 1)
    for name, t in [("jacfwd", jacfwd), ("jacrev", jacrev)]:
        print(name, show(vmap(t(f))(X)))
        print(name, show(vmap(t(g), in_dims=(None, 0))(w, X)))
        print(name, show(vmap(t(g, argnums=(0, 1)), in_dims=(0, None))(X, w)))
    print(show(vmap(hessian(lambda x: (poly(x) * x).sum()))(X)))
    print(show(vmap(hessian(lambda w, x: poly(w * x).sum()), in_dims=(None, 0))(w, X)))
    print(show(vmap(grad(lambda w, x: (w * x).sum() ** 2), in_dims=(None, 0))(w, X)))
    print(show(vmap(grad(lambda w, x: soft(w * x).sum()), in_dims=(None, 0))(w, X)))
    print(show(vmap(jacrev(lambda x: soft(x) * x.sum()))(X)))
    print(show(vmap(jacrev(jacrev(lambda x: x * x * x[0])))(X)))
""")

program("""
    # reverse_over_forward: grad of forward-mode results, which keep their graph
    # (jacrev(jacfwd(f)) is compared at the end: its zeros' signs are the tangent rules')
    from torch.func import vmap, jacfwd, jacrev, grad, jvp
    ones = torch.ones(2, dtype=torch.float64)
    print(show(grad(lambda x: jvp(poly, (x,), (ones,))[1].sum())(X[1])))
    y = X[2].clone().requires_grad_()
    print(show(jacfwd(lambda a: a * y)(X[0])), show(jvp(poly, (y,), (ones,))))
    print(show(jacfwd(poly)(X[0])), show(jvp(poly, (X[0],), (ones,))))
""")

program("""
    # vmap_of_grad_keeps_negative_zero: the sign of a zero gradient, point by point
    from torch.func import vmap, grad
    Z = torch.tensor([[0.0, -0.0], [1.0, -2.0], [-0.0, 3.0]], dtype=torch.float64)
    print(show(vmap(grad(lambda x: (x * -0.0).sum()))(Z)))
    print(show(vmap(grad(lambda x: -(x.abs()).sum()))(Z)))
    print(show(vmap(grad(lambda x: (x.relu() * -1.0).sum()))(Z)))
    print(show(vmap(grad(lambda x: (x * 0.0).sum() * -1.0))(Z)))
    c = torch.tensor(-0.0, dtype=torch.float64)
    print(show(vmap(grad(lambda x, c: (x * c).sum()), in_dims=(0, None))(Z, c)))
    print(show(vmap(grad(lambda x: x.sum() * 0.0))(-Z)))
    print(show(vmap(grad(lambda x, y: (y * y).sum()))(Z, -Z)))  # x unused: zeros, not x * 0
""")

program("""
    # vmap_over_autograd_grad: batched grad_outputs, is_grads_batched, and grad inside vmap
    from torch.func import vmap
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    y = soft(x) * x
    V = torch.eye(3, dtype=torch.float64)
    print(show(vmap(lambda v: torch.autograd.grad(y, x, v, retain_graph=True))(V)))
    print(show(torch.autograd.grad(y, x, V, retain_graph=True, is_grads_batched=True)))
    W = torch.stack([V, 2 * V])
    grads = lambda v, **kw: torch.autograd.grad(y, x, v, retain_graph=True, **kw)
    print(show(vmap(lambda v: grads(v, is_grads_batched=True))(W)))
    print(show(vmap(lambda v: grads(v, create_graph=True)[0].sum())(V)))
    z = (x ** 2).sum()
    (g,) = torch.autograd.grad(z, x, create_graph=True)
    print(show(vmap(lambda v: torch.autograd.grad(g, x, v, retain_graph=True))(V)))
    two = (poly(x), x ** 3)
    print(show(vmap(lambda a, b: torch.autograd.grad(two, x, (a, b), retain_graph=True))(V, -V)))
    attempt(lambda: grads(torch.ones(2, 4, dtype=torch.float64), is_grads_batched=True))
    attempt(lambda: grads(torch.ones(3, dtype=torch.float64), is_grads_batched=True))
""")

# ----- nested vmap, in_dims and out_dims -----

program("""
    # nested_vmap: two and three levels, inner and outer dims, values from outer levels
    from torch.func import vmap
    A = torch.tensor(np.arange(24.0).reshape(2, 3, 4))
    print(show(vmap(vmap(lambda a: a * 2 + a.sum()))(A)))
    print(show(vmap(vmap(lambda a, b: a * b, in_dims=(0, None)), in_dims=(1, None))(X, w)))
    print(show(vmap(lambda x: vmap(lambda y: (x * y).sum())(Y))(X)))
    print(show(vmap(lambda x: vmap(lambda y: x)(Y))(X)))
    print(show(vmap(lambda x: vmap(lambda y: w)(Y))(X)))
    print(show(vmap(vmap(vmap(lambda a: soft(a) - a)))(A)))
    print(show(vmap(vmap(lambda a: a.sum(), in_dims=1), in_dims=2)(A)))
    print(show(vmap(vmap(lambda a: a.cumsum(0), out_dims=1), out_dims=-1)(A)))
    print(show(vmap(lambda x: vmap(lambda y: torch.outer(x, y))(Y), out_dims=1)(X)))
    print(show(vmap(vmap(torch.dot))(torch.ones(2, 3, 4, dtype=torch.float64), A)))
    print(show(vmap(lambda x: vmap(lambda y: (x * y).sum(), in_dims=1)(A[0]))(A[1, :, :3])))
""")

program("""
    # vmap_in_dims_out_dims: tuples, None, negative dims and pytrees of both
    from torch.func import vmap
    print(show(vmap(lambda a: a.sum(0), in_dims=-1, out_dims=-1)(X)))
    print(show(vmap(lambda a, b: a - b, in_dims=(1, 0))(X.T, Y)))
    tree = {'a': X, 'b': [Y.T]}
    print(show(vmap(lambda d: d['a'] + d['b'][0], in_dims=({'a': 0, 'b': [1]},))(tree)))
    print(show(vmap(lambda d: d['a'] * d['c'], in_dims=({'a': 0, 'c': None},))({'a': X, 'c': w})))
    print(show(vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(X)))
    print(show(vmap(lambda a: {'x': a, 'y': [a * 2, poly(a)]}, out_dims={'x': 1, 'y': [0, -1]})(X)))
    print(show(vmap(lambda a: (a, w), out_dims=(0, None))(X)))
    print(show(vmap(lambda a, k=1.0: a * k)(X, k=w)))
    print(show(vmap(lambda a: a.sum())(torch.ones(0, 2, dtype=torch.float64))))
    print(show(vmap(lambda a: [a, (a,)])(X)))
    print(show(vmap(lambda a, b: a * b, in_dims=(0, None))(X, 3.0)))
    print(show(vmap(torch.sqrt, in_dims=1)(X.abs())))
    print(show(vmap(lambda a: X)(X)))
    for call in [
        lambda: vmap(lambda a, b: a, in_dims=(0,))(X, X),
        lambda: vmap(lambda a: a, in_dims=2)(X),
        lambda: vmap(lambda a: a, in_dims=-3)(X),
        lambda: vmap(lambda a: a, in_dims=None)(X),
        lambda: vmap(lambda a: a, in_dims=[0])(X),
        lambda: vmap(lambda a: a, in_dims=(1.5,))(X),
        lambda: vmap(lambda a: a, out_dims=2)(X),
        lambda: vmap(lambda a: a, out_dims=None)(X),
        lambda: vmap(lambda a: a, out_dims="x")(X),
        lambda: vmap(lambda a: (a, a), out_dims=(0,))(X),
        lambda: vmap(lambda a: 3.0)(X),
        lambda: vmap(lambda a: None)(X),
        lambda: vmap(lambda a, b: a, in_dims=(0, 0))(X, 3.0),
        lambda: vmap(lambda a: a)(),
        lambda: vmap(lambda a: a)(torch.tensor(1.0)),
        lambda: vmap(lambda a: a, in_dims=({'a': 0},))({'a': X, 'b': X}),
        lambda: vmap(lambda a: a, in_dims=(None,))(X),
        lambda: vmap(lambda a, b: a + b)(X, torch.ones(4, 2)),
        lambda: vmap(vmap(lambda a: a, out_dims=None))(X),
        lambda: vmap(lambda a: a, chunk_size=0)(X),
        lambda: vmap(lambda a: a, randomness="bad")(X),
        lambda: vmap(lambda a: a.sum().item())(X),
    ]:
        attempt(call)
""")

program("""
    # vmap_chunk_size: chunks of every size give the unchunked result, outputs joined on out_dims
    from torch.func import vmap, grad
    A = torch.tensor(np.arange(14.0).reshape(7, 2)) / 7
    f = lambda a, b: (soft(a * b), {'s': (a - b).sum()})
    for chunk in (None, 1, 2, 3, 7, 10):
        mapped = vmap(f, in_dims=(0, None), out_dims=(1, {'s': 0}), chunk_size=chunk)
        print(chunk, show(mapped(A, A[0])))
    print(show(vmap(grad(lambda x: (x ** 3).sum()), chunk_size=3)(A)))
""")

program("""
    # vmap_randomness: 'error' refuses a draw, 'same' draws once, 'different' once per point
    from torch.func import vmap
    Z = torch.zeros(4, 3, dtype=torch.float64)
    draws = [
        ("randn", lambda x: x + torch.randn(3, dtype=torch.float64)),
        ("rand", lambda x: x + torch.rand(3, dtype=torch.float64)),
        ("randn_size", lambda x: x + torch.randn(size=(3,), dtype=torch.float64)),
        ("rand_like", lambda x: torch.rand_like(x)),
        ("randn_like", lambda x: torch.randn_like(x)),
        ("dropout", lambda x: torch.nn.functional.dropout(x + 1, 0.5)),
        ("bernoulli", lambda x: torch.bernoulli(x + 0.5)),
        ("normal_", lambda x: torch.zeros(3, dtype=torch.float64).normal_() + x),
        ("unbatched", lambda x: torch.randn(3, dtype=torch.float64)),
        ("normal", lambda x: x + torch.normal(0.0, 2.0, size=(3,), dtype=torch.float64)),
        ("randint", lambda x: x + torch.randint(0, 10, (3,))),
    ]
    for mode in ["error", "same", "different"]:
        for name, f in draws:
            torch.manual_seed(0)
            attempt(lambda: (mode, name, show(vmap(f, randomness=mode)(Z))))
    for mode in ["same", "different"]:
        torch.manual_seed(0)
        draw = lambda x: x + torch.randn(3, dtype=torch.float64)
        print(mode, show(vmap(draw, randomness=mode, chunk_size=3)(Z)))
        torch.manual_seed(0)
        inner = vmap(lambda x: x + torch.rand(()), randomness=mode)
        print(mode, show(vmap(inner, randomness=mode)(Z)))
""")

# ----- pytrees through the transforms -----

program("""
    # pytrees_of_grad_and_vjp: dicts, tuples and lists as inputs and outputs
    from torch.func import grad, grad_and_value, vjp
    params = {'w': w, 'b': torch.tensor(0.5, dtype=torch.float64), 'rest': [X, (Y,)]}
    def loss(p, x):
        first, second = p['rest'][0][0].sum(), p['rest'][1][0][1].mean()
        return (soft((x * p['w']).sum() + p['b']) * first - second).pow(2)
    print(show(grad(loss)(params, X[0])))
    print(show(grad(loss, argnums=(0, 1))(params, X[0])))
    print(show(grad_and_value(loss)(params, X[0])))
    print(show(grad(lambda p: (poly(p['w']).sum(), {'aux': p['w'] * 2}), has_aux=True)(params)))
    out, fn = vjp(lambda a, b: {'y': a * b['k'], 'z': [poly(a), (b['k'].sum(),)]}, w, {'k': X})
    print(show(out))
    print(show(fn({'y': Y, 'z': [w, (torch.tensor(2.0, dtype=torch.float64),)]})))
    out, fn, aux = vjp(lambda a: (soft(a), poly(a)), w, has_aux=True)
    print(show(out), show(aux), show(fn(w * 3)))
    attempt(lambda: fn({'y': Y}))
    out, fn = vjp(lambda a: {'y': a, 'z': [a * 2]}, w)
    attempt(lambda: fn({'y': w}))
    attempt(lambda: grad(lambda d: d['a'].sum())({'a': w, 'b': 3.0}))
    attempt(lambda: grad(lambda d: d)(3.0))
    attempt(lambda: vjp(lambda a: 3.0, w))
    attempt(lambda: vjp(lambda a: None, w))
    attempt(lambda: grad(lambda a: a.sum(), argnums=2)(w))
    attempt(lambda: grad(lambda a: a.sum(), argnums=(0, 0))(w))
    attempt(lambda: grad(lambda a: a.sum(), argnums=())(w))
    attempt(lambda: grad(lambda a: a)(w))
    attempt(lambda: grad(lambda a: a.sum())(torch.tensor([1, 2])))
""")

program("""
    # pytrees_of_jacobians: jacrev, jacfwd and hessian of trees, argnums int and tuple
    from torch.func import jacrev, jacfwd, hessian
    def f(p, x):
        return {'out': poly(p['a'] * x), 'pair': (p['a'].sum() * x, [p['b'] ** 2])}
    p = {'a': w, 'b': torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64)}
    x = torch.tensor([0.3, -0.7], dtype=torch.float64)
    for t in (jacrev, jacfwd):
        print(t.__name__, show(t(f)(p, x)))
        print(t.__name__, show(t(f, argnums=(0, 1))(p, x)))
        print(t.__name__, show(t(f, argnums=1)(p, x)))
        print(t.__name__, show(t(lambda a: (poly(a), a.sum()), has_aux=False)(x)))
        print(t.__name__, show(t(lambda a: (poly(a), {'aux': a}), has_aux=True)(x)))
    energy = lambda p: (poly(p['a']).sum() * poly(p['b']).sum())
    print(show(hessian(energy)(p)))
    print(show(hessian(lambda a, b: (a * b).sum() ** 2, argnums=(0, 1))(x, -x)))
    attempt(lambda: jacrev(lambda a: a, chunk_size=0))
    attempt(lambda: jacrev(lambda a: 3.0)(x))
    attempt(lambda: jacfwd(lambda a: 3.0)(x))
    attempt(lambda: jacrev(lambda a: a, argnums=1.0)(x))
    attempt(lambda: jacrev(lambda a: a, argnums=(1.0,))(x))
    attempt(lambda: jacfwd(lambda a: a)(torch.tensor([1, 2])))
    print(show(jacrev(lambda a: a.sum(), chunk_size=1)(x)))
""")

program("""
    # pytrees_of_jvp_and_linearize: jvp of trees, linearize's jvp_fn, their errors
    from torch.func import jvp, linearize
    f = lambda d, c: {'s': poly(d['a'] * c), 't': [poly(d['a']) * d['b']]}
    d = {'a': w, 'b': X}
    t = {'a': torch.ones(2, dtype=torch.float64), 'b': Y}
    print(show(jvp(f, (d, w), (t, -w))))
    print(show(jvp(lambda a: (poly(a), a.sum() * 2, w), (w,), (X[0],))))
    out, jvp_fn = linearize(f, d, w)
    print(show(out))
    print(show(jvp_fn(t, -w)))
    print(show(jvp_fn(d, w)))
    out, jvp_fn = linearize(lambda a: poly(a) * a.sum(), w)
    print(show(jvp_fn(X[1])))
    attempt(lambda: jvp_fn(w, w))
    attempt(lambda: jvp_fn(torch.ones(3, dtype=torch.float64)))
    attempt(lambda: jvp_fn(torch.ones(2)))
    attempt(lambda: jvp(lambda a: a, (w,), (w, w)))
    attempt(lambda: jvp(lambda a: a, ({'a': w},), ({'b': w},)))
    attempt(lambda: jvp(lambda a: a, (w,), (torch.ones(3, dtype=torch.float64),)))
    attempt(lambda: jvp(lambda a: 3.0, (w,), (w,)))
    attempt(lambda: jvp(lambda a: X, (w,), (w,), strict=True))
    attempt(lambda: jvp(lambda a: a, (3.0,), (w,)))
    attempt(lambda: jvp(lambda a: a, [w], [w]))
    attempt(lambda: jvp(lambda a: a, (), ()))
""")


# ----- autograd.functional with create_graph: the nodes of the results -----

program("""
    # functional_jvp_nodes: the tangent's node is the one PyTorch's double-backward records
    F = torch.autograd.functional
    name = lambda t: type(t.grad_fn).__name__ if t.grad_fn is not None else None
    A = torch.tensor([[0.5, 1.0, 1.5], [2.0, -1.0, 0.25]], requires_grad=True)
    V = torch.tensor([[1.0, 2.0, -1.0], [0.5, 0.5, 3.0]])
    for label, f in [
        ("sum0", lambda t: t.sum(0)), ("sumkeep", lambda t: t.sum(1, keepdim=True)),
        ("mean0", lambda t: t.mean(0)), ("amax0", lambda t: t.amax(0)),
        ("prod1", lambda t: t.prod(1)), ("norm1", lambda t: t.norm(dim=1)),
        ("logsumexp", lambda t: t.logsumexp(1)), ("var", lambda t: t.var(1)),
        ("std", lambda t: t.std(0)), ("std_all", lambda t: t.std()),
        ("sum_dims", lambda t: t.sum((0, 1))),
        ("softmax", lambda t: t.softmax(1)), ("log_softmax", lambda t: t.log_softmax(0)),
        ("cumsum", lambda t: t.cumsum(1)), ("mm", lambda t: t @ t.T),
        ("unsqueeze", lambda t: (t.unsqueeze(1) ** 2)), ("select", lambda t: t[:, 1] ** 2),
    ]:
        out, tangent = F.jvp(f, A, V, create_graph=True)
        print(f"{label:12} {name(out)} {name(tangent)}")
""")


# ----- functional_call: on an nn.Module, and on a plain class holding tensors -----

MODEL = """
    # functional_call: a model run with a dict of tensors in place of its own
    from torch.func import functional_call, grad, vmap
    class Net(Base):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float64))
            self.b = torch.nn.Parameter(torch.tensor(0.25, dtype=torch.float64))
        def __call__(self, x, scale=1.0):
            return soft(x * self.w + self.b) * scale
    class Outer(Base):
        def __init__(self):
            super().__init__()
            self.inner = Net()
            self.c = torch.nn.Parameter(torch.tensor(2.0, dtype=torch.float64))
        def __call__(self, x):
            return self.inner(x) * self.c
    net = Net()
    params = {'w': w.clone(), 'b': torch.tensor(-0.5, dtype=torch.float64)}
    print(show(functional_call(net, params, X[0])))
    print(show(functional_call(net, params, (X[0],), {'scale': 3.0})))
    print(show(functional_call(net, ({'w': w}, {'b': w[0]}), X[0])))
    print(show(functional_call(net, {'w': w}, args=(), kwargs={'x': X[1]})))
    print(show(net(X[0])), show(net.w), show(net.b))
    def loss(p, x, y):
        return ((functional_call(net, p, x) - y) ** 2).sum()
    print(show(grad(loss)(params, X[0], Y[0])))
    print(show(vmap(grad(loss), in_dims=(None, 0, 0))(params, X, Y)))
    outer = Outer()
    print(show(functional_call(outer, {'inner.w': w, 'c': w[1]}, X[2])))
    print(show(grad(lambda p: functional_call(outer, p, X[2]).sum())({'inner.b': w[0], 'c': w[1]})))
    attempt(lambda: functional_call(net, {'q': w}, X[0]))
    attempt(lambda: functional_call(net, {'q': w}, X[0], strict=True))
    attempt(lambda: functional_call(net, {}, X[0], strict=True))
    try:
        functional_call(net, {'q': w, 'b': w[0]}, X[0], strict=True)
    except RuntimeError as err:
        print(str(err))
    attempt(lambda: functional_call(net, ({'w': w}, {'w': w}), X[0]))
    attempt(lambda: functional_call(net, {'w': 3}, X[0]))
    attempt(lambda: functional_call(net, [{'w': w}, 3], X[0]))
    attempt(lambda: functional_call(net, 3, X[0]))
    print(show(net.w), hasattr(net, 'q'))
"""


def test_functional_call_runs_a_model_as_pytorch_runs_a_module():
    source = SHOW + textwrap.dedent(MODEL)
    theirs = run("Base = torch.nn.Module\n" + source, torch)
    ours = run("Base = object\n" + source, gradcli)
    assert ours == theirs
    assert run("Base = torch.nn.Module\n" + source, gradcli) == theirs


def test_stack_module_state_ensembles_models_as_pytorchs():
    source = """
    from torch.func import functional_call, stack_module_state, vmap
    torch.manual_seed(0)
    models = [torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
              for _ in range(4)]
    params, buffers = stack_module_state(models)
    print({k: (tuple(v.shape), v.requires_grad, v.is_leaf) for k, v in params.items()}, buffers)
    x = torch.randn(5, 3)
    call = lambda p, b, x: functional_call(models[0], (p, b), (x,))
    out = vmap(call, in_dims=(0, 0, None))(params, buffers, x)
    print(out.shape, torch.allclose(out[2], models[2](x)))
    out.sum().backward()
    print(params["0.bias"].grad.shape)
    """
    assert run(source, gradcli) == run(source, torch)


@pytest.mark.parametrize("name", list(PROGRAMS) or [None])
def test_program_prints_what_torch_prints(name):
    theirs, ours = both(name)
    assert ours == theirs


# ----- with transcendental functions: to a tolerance (see the module's docstring) -----


def _transcendental(m):
    F = m.func
    rng = np.random.default_rng(4)
    X, w = m.tensor(rng.normal(size=(4, 3))), m.tensor(rng.normal(size=3))
    f = lambda x: x.sin() * x.exp().sum()  # noqa: E731
    g = lambda w, x: (w * x).tanh().sum() * w.cos()  # noqa: E731
    h = lambda x: (x.sin() * x.exp()).sum()  # noqa: E731
    return [
        F.vmap(F.jacfwd(f))(X),
        F.vmap(F.jacrev(f))(X),
        F.vmap(F.jacrev(g), in_dims=(None, 0))(w, X),
        F.vmap(F.hessian(h))(X),
        F.vmap(F.vmap(lambda a: a.exp() * a.sin().sum()))(X.reshape(2, 2, 3)),
        F.vmap(F.grad(lambda w, x: (w * x).sin().sum()), in_dims=(None, 0))(w, X),
        F.jvp(lambda a: {"s": a.sin(), "e": [a.exp()]}, (w,), (X[0],))[1]["e"][0],
        F.linearize(lambda a: a.cos() * a.sum(), w)[1](X[1]),
        F.jacrev(F.jacfwd(h))(X[0]),
        F.vmap(F.jacrev(F.jacfwd(f)))(X),
        F.vmap(F.grad(lambda x: F.jvp(lambda a: a.sin() * a, (x,), (x,))[1].sum()))(X),
    ]


def test_the_transforms_of_transcendental_functions_agree_to_a_few_ulps():
    for ours, theirs in zip(_transcendental(gradcli), _transcendental(torch)):
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-13, atol=1e-15)
