# follows: PyTorch docs, "Extending PyTorch", section "Extending torch.autograd" (MulConstant
#   with a non-Tensor argument, mark_non_differentiable, once_differentiable),
#   https://pytorch.org/docs/stable/notes/extending.html
"""A Function of a tensor and a number, a Function with an output that has no gradient,
and a backward that cannot itself be differentiated."""

import torch
from torch.autograd.function import once_differentiable


class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        grad_x = torch.zeros_like(grad_values)
        grad_x[indices] = grad_values
        return grad_x


x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
y = MulConstant.apply(x, 5.0)
y.sum().backward()
print(y, x.grad)

x.grad = None
values, indices = SortWithIndices.apply(x)
print(values, indices, indices.requires_grad)
(values * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(x.grad)

x.grad = None
values, _ = SortWithIndices.apply(x)
(g,) = torch.autograd.grad(values.pow(2).sum(), x, create_graph=True)
print(g)
try:
    g.sum().backward()
except RuntimeError as error:
    print(error)
