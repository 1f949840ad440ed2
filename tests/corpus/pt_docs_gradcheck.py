# follows: PyTorch docs, "Numerical gradient checking" (torch.autograd.gradcheck and
#   gradgradcheck), https://pytorch.org/docs/stable/autograd.html#numerical-gradient-checking
"""gradcheck and gradgradcheck of functions of several double inputs, and what a wrong
backward does to them."""

import torch
from torch.autograd import gradcheck, gradgradcheck

torch.manual_seed(0)
x = torch.randn(3, 4, dtype=torch.double, requires_grad=True)
y = torch.randn(4, 2, dtype=torch.double, requires_grad=True)
print(gradcheck(lambda a, b: torch.tanh(a @ b), (x, y)))
print(gradgradcheck(lambda a, b: torch.tanh(a @ b), (x, y)))
print(gradcheck(lambda a: (a.sin() * a.exp()).sum(dim=1), (x,)))


class WrongSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x  # should be 2 * x


v = torch.tensor([1.0, 2.0], dtype=torch.double, requires_grad=True)
print(gradcheck(WrongSquare.apply, (v,), raise_exception=False))
try:
    gradcheck(WrongSquare.apply, (v,))
except RuntimeError as error:
    print(str(error).splitlines()[0])
