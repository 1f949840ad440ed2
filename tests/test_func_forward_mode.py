"""Forward mode against PyTorch 2.13: ``gradcheck(check_forward_ad=True)`` and
``ctx.save_for_forward``, as programs run once with each (``test_engine_programs.run``).

The checks' verdicts, their messages' first lines and the tangents of custom
Functions (printed as Python floats, every digit) must be PyTorch's.
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

FUNCTIONS = """
    import torch
    from torch.autograd import Function
    import torch.autograd.forward_ad as fwAD

    class MyExp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            ctx.save_for_forward(y)
            return y
        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y
        @staticmethod
        def jvp(ctx, t):
            (y,) = ctx.saved_tensors
            return t * y

    class Scaled(Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_forward(x, None)
            ctx.k = k
            return x * k
        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None
        @staticmethod
        def jvp(ctx, t, tk):
            x, none = ctx.saved_tensors
            print("jvp sees", tuple(x.shape), none, tk)
            return t * ctx.k

    class BackwardOnly(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g * 2
        @staticmethod
        def jvp(ctx, t):
            print("jvp sees", len(ctx.saved_tensors), "tensors")
            return t * 2

    class Product(Function):
        generate_vmap_rule = True  # PyTorch's jacfwd maps jvp over the basis

        @staticmethod
        def forward(x, y):
            return x * y
        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y = inputs
            ctx.save_for_forward(x, y)
            ctx.save_for_backward(x, y)
        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x
        @staticmethod
        def jvp(ctx, tx, ty):
            x, y = ctx.saved_tensors
            return tx * y + x * ty

    class WrongJvp(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * x
        @staticmethod
        def jvp(ctx, t):
            return t  # should be 2 x t

    class SavesANumber(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(3.0)
            return x * 1
        @staticmethod
        def backward(ctx, g):
            return g
        @staticmethod
        def jvp(ctx, t):
            return t

    x = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([2.0, 0.25], dtype=torch.float64, requires_grad=True)
    v = torch.tensor([1.0, 2.0], dtype=torch.float64)
"""

PROGRAMS = {}


def program(source):
    """A program after FUNCTIONS, named by its first comment."""
    name = re.search(r"#\s*(\w+)", source).group(1)
    PROGRAMS[name] = FUNCTIONS + source


program(
    """
    # save_for_forward: jvp reads what forward saved for it, backward what it saved for backward
    with fwAD.dual_level():
        for f in (MyExp, BackwardOnly):
            p, t = fwAD.unpack_dual(f.apply(fwAD.make_dual(x, v)))
            print(f.__name__, p.tolist(), t.tolist())
        p, t = fwAD.unpack_dual(Scaled.apply(fwAD.make_dual(x, v), 3.0))
        print(p.tolist(), t.tolist())
        p, t = fwAD.unpack_dual(Product.apply(fwAD.make_dual(x, v), fwAD.make_dual(y, v * 3)))
        print(p.tolist(), t.tolist())
        attempt(lambda: SavesANumber.apply(fwAD.make_dual(x, v)))
    MyExp.apply(x).sum().backward()
    print(x.grad.tolist())
    print(torch.func.jvp(Product.apply, (x, y), (v, -v))[1].tolist())
    print(torch.func.jacfwd(Product.apply, argnums=(0, 1))(x, y))
    print(torch.func.vmap(Product.apply)(torch.stack([x, y]), torch.stack([y, v])).tolist())
"""
)

program(
    """
    # gradcheck_forward_ad: forward-mode Jacobians against finite differences
    gradcheck, gradgradcheck = torch.autograd.gradcheck, torch.autograd.gradgradcheck
    A = torch.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=torch.float64, requires_grad=True)
    for name, f, inputs in [
        ("sin", torch.sin, (x,)),
        ("mul", lambda a, b: a * b, (x, y)),
        ("mm", lambda a: a @ a.T, (A,)),
        ("softmax", lambda a: a.softmax(1), (A,)),
        ("tuple", lambda a, b: (a.exp(), (a * b).sum()), (x, y)),
        ("MyExp", MyExp.apply, (x,)),
        ("Product", Product.apply, (x, y)),
        ("constant", lambda a: torch.ones(2, dtype=torch.float64), (x,)),
    ]:
        print(name, gradcheck(f, inputs, check_forward_ad=True),
              gradcheck(f, inputs, check_forward_ad=True, check_backward_ad=False),
              gradcheck(f, inputs, check_forward_ad=True, check_batched_forward_grad=True))
    attempt(lambda: gradcheck(WrongJvp.apply, (x,), check_forward_ad=True))
    print(gradcheck(WrongJvp.apply, (x,), check_forward_ad=True, raise_exception=False))
    print(gradcheck(WrongJvp.apply, (x,)))
    attempt(lambda: gradcheck(lambda a: a // 2, (x,), check_forward_ad=True))
    print(gradgradcheck(lambda a: (a ** 3).sum() * a, (x,), check_fwd_over_rev=True))
    print(gradgradcheck(lambda a, b: (a * b).exp(), (x, y), check_fwd_over_rev=True))
"""
)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    assert run(PROGRAMS[name], gradcli) == run(PROGRAMS[name], torch)
