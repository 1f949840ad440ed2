# follows: PyTorch tutorials, "Double Backward with Custom Functions", sections "Saving the
#   Inputs" and "Saving the Outputs",
#   https://pytorch.org/tutorials/intermediate/custom_function_double_backward_tutorial.html
"""Custom Functions whose backward is written in differentiable operations, so that a
second derivative flows through them: checked with gradcheck and gradgradcheck."""

import torch


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)  # an input: saved as it is
        return x**2

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 2 * x


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.save_for_backward(result)  # an output, also fine for double backward
        return result

    @staticmethod
    def backward(ctx, grad_out):
        (result,) = ctx.saved_tensors
        return result * grad_out


torch.manual_seed(0)
x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Square.apply, x))
print(torch.autograd.gradgradcheck(Square.apply, x))
print(torch.autograd.gradcheck(Exp.apply, x))
print(torch.autograd.gradgradcheck(Exp.apply, x))

y = torch.tensor([1.5, -2.0], dtype=torch.double, requires_grad=True)
(g,) = torch.autograd.grad(Square.apply(y).sum(), y, create_graph=True)
print(g, g.grad_fn)
(h,) = torch.autograd.grad(g.sum(), y)
print(h)
e = Exp.apply(y)
(ge,) = torch.autograd.grad(e.sum(), y, create_graph=True)
print(ge, torch.autograd.grad(ge.sum(), y)[0])
