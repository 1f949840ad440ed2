# follows: PyTorch tutorials, Per-sample-gradients (torch.func: vmap over grad),
#   https://pytorch.org/tutorials/intermediate/per_sample_grads.html
"""Per-sample gradients of a small relu model written with tensors: vmap(grad(loss)) over
the samples, with in_dims=(None, 0, 0); a sample where the relu is off gives -0."""

import torch
from torch.func import grad, vmap

torch.manual_seed(0)
data = torch.tensor([[1.0, -2.0], [-3.0, 0.5], [2.0, 1.0], [0.5, -0.5]])
targets = torch.tensor([1.0, 0.0, 2.0, -1.0])
w = torch.tensor([0.5, 1.0])


def predict(w, x):
    return torch.relu(w @ x)


def loss(w, x, y):
    return (predict(w, x) - y) ** 2


print(vmap(grad(predict), in_dims=(None, 0))(w, data))
per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(w, data, targets)
print(per_sample)
print(per_sample.mean(0))

weights = w.clone().requires_grad_()
g = vmap(grad(predict), in_dims=(None, 0))(weights, data)
print(g)
g.sum().backward()
print(weights.grad)
