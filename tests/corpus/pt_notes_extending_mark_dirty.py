# follows: PyTorch docs, torch.autograd.function.FunctionCtx.mark_dirty (its example),
#   https://pytorch.org/docs/stable/generated/torch.autograd.function.FunctionCtx.mark_dirty.html
"""A Function that changes its input in place and says so with mark_dirty: the node it
records, and the error the engine gives for a tensor saved before the change."""

import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable


class Inplace(Function):
    @staticmethod
    def forward(ctx, x):
        x_npy = x.numpy()  # x_npy shares storage with x
        x_npy += 1
        ctx.mark_dirty(x)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        return grad_output


a = torch.tensor(1.0, requires_grad=True, dtype=torch.double).clone()
b = a * a
c = Inplace.apply(a)
print(c, a is c, a._version)
try:
    b.backward()
except RuntimeError as e:
    print(type(e).__name__, str(e).split(":")[0])


class TimesTwo(Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


p = torch.tensor([1.0, 2.0], requires_grad=True)
out = TimesTwo.apply(p.clone())
print(out, type(out.grad_fn).__name__)
out.sum().backward()
print(p.grad)
try:
    TimesTwo.apply(torch.ones(2, requires_grad=True))
except RuntimeError as e:
    print(type(e).__name__, e)
