# follows: PyTorch docs, torch.func.grad and torch.func.grad_and_value (their examples),
#   https://pytorch.org/docs/stable/generated/torch.func.grad.html
"""Gradients as functions: of sin, of itself (the second derivative), with argnums,
with has_aux, and the value returned beside the gradient."""

import torch
from torch.func import grad, grad_and_value

torch.manual_seed(0)
x = torch.randn([])
cos_x = grad(lambda x: torch.sin(x))(x)
print(torch.allclose(cos_x, x.cos()))
neg_sin_x = grad(grad(lambda x: torch.sin(x)))(x)
print(torch.allclose(neg_sin_x, -x.sin()))


def my_loss_func(y, y_pred):
    loss_per_sample = (0.5 * y_pred - y) ** 2
    loss = loss_per_sample.mean()
    return loss, (y_pred, loss_per_sample)


fn = grad(my_loss_func, argnums=(0, 1), has_aux=True)
y_true = torch.rand(4)
y_preds = torch.rand(4, requires_grad=True)
(gy, gp), (pred, per_sample) = fn(y_true, y_preds)
print(gy, gp)
print(per_sample.detach())


def f(x, y):
    return (x * y).sum() + x.pow(2).sum()


g, value = grad_and_value(f)(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
print(g, value)
g = grad(f, argnums=1)(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
print(g)
