# follows: Andrej Karpathy, "The spelled-out intro to neural networks and backpropagation:
#   building micrograd" (the neuron checked with PyTorch),
#   https://github.com/karpathy/nn-zero-to-hero/blob/master/lectures/micrograd/micrograd_lecture_first_half_roughly.ipynb
"""A neuron of two inputs, tanh of its weighted sum, and the gradients of every leaf from
backward, in double precision as the lecture checks them."""

import torch

x1 = torch.Tensor([2.0]).double()
x1.requires_grad = True
x2 = torch.Tensor([0.0]).double()
x2.requires_grad = True
w1 = torch.Tensor([-3.0]).double()
w1.requires_grad = True
w2 = torch.Tensor([1.0]).double()
w2.requires_grad = True
b = torch.Tensor([6.8813735870195432]).double()
b.requires_grad = True
n = x1 * w1 + x2 * w2 + b
o = torch.tanh(n)

print(o.data.item())
o.backward()

print("---")
print("x2", x2.grad.item())
print("w2", w2.grad.item())
print("x1", x1.grad.item())
print("w1", w1.grad.item())
print(n.grad_fn, o.grad_fn, x1.is_leaf, n.is_leaf)

# tanh spelled out with exp, as the lecture breaks it down: the same value and gradients.
for leaf in (x1, x2, w1, w2, b):
    leaf.grad = None
n = x1 * w1 + x2 * w2 + b
e = torch.exp(2 * n)
o2 = (e - 1) / (e + 1)
o2.backward()
print(f"{o2.item():.12f}", f"{x1.grad.item():.12f}", f"{w1.grad.item():.12f}")
