"""``autograd.Function`` under the ``func`` transforms against PyTorch 2.13: the
``vmap`` staticmethod (``info``, in_dims, the out_dims it returns), ``generate_vmap_rule``,
``setup_context`` style, and PyTorch's errors for a Function that lacks what a
transform needs, as programs run once with each (``test_engine_programs.run``).
"""

from __future__ import annotations

import re

import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

FUNCTIONS = """
    import torch
    from torch.func import grad, jacfwd, jacrev, hessian, jvp, vjp, vmap

    class Old(torch.autograd.Function):  # forward takes ctx: no transform takes it
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos()

    SEEN = set()  # the shapes backward saw

    class Sin(torch.autograd.Function):  # setup_context, no batching rule
        @staticmethod
        def forward(x):
            return x.sin()
        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            SEEN.add(tuple(x.shape))  # a set: gradcli's generated rule calls it per point
            return g * x.cos()
        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return t * x.cos()

    class Generated(Sin):
        generate_vmap_rule = True

    class Scale(torch.autograd.Function):  # its own vmap rule
        @staticmethod
        def forward(x, k):
            return x * k
        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]
        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None
        @staticmethod
        def vmap(info, in_dims, x, k):
            print("vmap rule", info.batch_size, info.randomness, in_dims, tuple(x.shape))
            return Scale.apply(x, k), in_dims[0]

    class Both(Generated):
        @staticmethod
        def vmap(info, in_dims, x):
            return Sin.apply(x), 0

    class Returns(Sin):  # a vmap rule returning what RETURNED says
        RETURNED = None
        @staticmethod
        def vmap(info, in_dims, x):
            return Returns.RETURNED(x)

    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    X = torch.tensor([[0.5, -1.0], [2.0, 0.25], [1.5, -0.5]], dtype=torch.float64)
"""

PROGRAMS = {}


def program(source):
    name = re.search(r"#\s*(\w+)", source).group(1)
    PROGRAMS[name] = FUNCTIONS + source


program(
    """
    # needs_setup_context: any transform refuses a Function whose forward takes ctx
    for transform in (lambda: vmap(Old.apply)(x), lambda: grad(lambda a: Old.apply(a).sum())(x),
                      lambda: jacrev(Old.apply)(x), lambda: jvp(Old.apply, (x,), (x,)),
                      lambda: vmap(grad(Old.apply))(x)):
        attempt(transform)
    print(Old.apply(x).tolist())  # outside the transforms it runs
    """
)

program(
    """
    # needs_a_vmap_rule: vmap, jacfwd and hessian need one; grad, jacrev, vjp, jvp do not
    attempt(lambda: vmap(Sin.apply)(x))
    attempt(lambda: vmap(grad(Sin.apply))(x))
    attempt(lambda: jacfwd(Sin.apply)(x))
    attempt(lambda: hessian(lambda a: Sin.apply(a).sum())(x))
    attempt(lambda: vmap(Both.apply)(x))
    print(grad(lambda a: Sin.apply(a).sum())(x).tolist())
    print(jacrev(Sin.apply)(x).tolist())
    print(vjp(Sin.apply, x)[1](x)[0].tolist())
    print([t.tolist() for t in jvp(Sin.apply, (x,), (x,))])
    attempt(lambda: Sin.vmap(None, (0,), x))
    print(sorted(SEEN))
    """
)

program(
    """
    # generate_vmap_rule: each point's forward and backward, as PyTorch's generated rule
    print(vmap(Generated.apply)(X).tolist())
    print(vmap(Generated.apply, in_dims=1)(X).tolist())
    print(vmap(grad(lambda a: Generated.apply(a).sum()))(X).tolist())
    print(jacfwd(Generated.apply)(x).tolist())
    print(hessian(lambda a: Generated.apply(a).sum())(x).tolist())
    print(sorted(SEEN))
    """
)

program(
    """
    # vmap_staticmethod: info, in_dims and the out_dims the rule returns
    print(vmap(Scale.apply, in_dims=(0, None))(X, 3.0).tolist())
    print(vmap(Scale.apply, in_dims=(0, None), randomness="same")(X, 2.0).tolist())
    print(vmap(Scale.apply, in_dims=(0, None), out_dims=1)(X, 2.0).tolist())
    print(vmap(vmap(Scale.apply, in_dims=(0, None)), in_dims=(0, None))(X, 2.0).tolist())
    print(vmap(grad(lambda a: Scale.apply(a, 3.0).sum()))(X).tolist())
    W = X.clone().requires_grad_()
    vmap(Scale.apply, in_dims=(0, None))(W, 5.0).sum().backward()
    print(W.grad.tolist())
    """
)

program(
    """
    # vmap_rule_returns: PyTorch's errors for what a vmap rule returns
    for returned in (lambda a: Sin.apply(a), lambda a: (Sin.apply(a), (0,)),
                     lambda a: ((Sin.apply(a),), (0, 0)), lambda a: (Sin.apply(a), 5)):
        Returns.RETURNED = returned
        attempt(lambda: vmap(Returns.apply)(x).tolist())
    Returns.RETURNED = lambda a: ((Sin.apply(a), a * 2), (0, None))
    attempt(lambda: [t.tolist() for t in vmap(Returns.apply)(x)])
    """
)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    assert run(PROGRAMS[name], gradcli) == run(PROGRAMS[name], torch)
