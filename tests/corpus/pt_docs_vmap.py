# follows: PyTorch docs, torch.func.vmap (its examples: a batched dot product, in_dims,
#   per-example gradients), https://pytorch.org/docs/stable/generated/torch.func.vmap.html
"""A function of one example applied to a batch: a batched dot product, arguments that
are not mapped, and the gradient of each example's loss."""

import torch
from torch.func import grad, vmap

torch.manual_seed(0)
batched_dot = vmap(torch.dot)
x, y = torch.randn(2, 5), torch.randn(2, 5)
print(torch.allclose(batched_dot(x, y), (x * y).sum(1)))

batch_size, feature_size = 3, 5
weights = torch.randn(feature_size, requires_grad=True)


def model(feature_vec):
    # Very simple linear model with activation
    return feature_vec.dot(weights).relu()


examples = torch.randn(batch_size, feature_size)
result = vmap(model)(examples)
print(result)

x = torch.randn(3, 2)
print(vmap(torch.mul, in_dims=(0, None))(x, torch.tensor(10.0)))
print(vmap(lambda a, b: a.sum() * b, in_dims=(0, None))(x, torch.tensor(2.0)))


def loss(w, example, target):
    return ((example @ w - target) ** 2).mean()


targets = torch.randn(batch_size)
per_example = vmap(grad(loss), in_dims=(None, 0, 0))(weights.detach(), examples, targets)
print(per_example.shape)
print(torch.allclose(per_example[1], grad(loss)(weights.detach(), examples[1], targets[1])))
