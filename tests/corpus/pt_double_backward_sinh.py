# follows: PyTorch tutorials, "Double Backward with Custom Functions", sections "Saving
#   Intermediate Results" and "When Backward is not Tracked",
#   https://pytorch.org/tutorials/intermediate/custom_function_double_backward_tutorial.html
"""sinh as a Function that returns its intermediate exponentials as outputs so that they
can be saved, and a cube whose backward calls another Function."""

import torch


class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        return (expx - expnegx) / 2, expx, expnegx

    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input


def sinh(x):
    return Sinh.apply(x)[0]


class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        dx = 3 * x**2
        return x**3, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        return grad_output * dx + grad_dx * 6 * x


def my_cube(x):
    result, dx = MyCube.apply(x)
    return result


torch.manual_seed(1)
x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(sinh, x))
print(torch.autograd.gradgradcheck(sinh, x))
print(torch.autograd.gradcheck(my_cube, x))
print(torch.autograd.gradgradcheck(my_cube, x))
v = torch.tensor([0.0, 1.0], dtype=torch.double, requires_grad=True)
out = sinh(v)
print(out, torch.autograd.grad(out.sum(), v)[0], torch.cosh(v))
