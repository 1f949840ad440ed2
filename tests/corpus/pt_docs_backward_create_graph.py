# follows: PyTorch docs, torch.Tensor.backward (create_graph: a graph of the derivative, for
#   higher order derivatives), https://pytorch.org/docs/stable/generated/torch.Tensor.backward.html
"""x.grad after backward(create_graph=True) is a tensor of a graph: its node, a second
derivative through it, and gradients added to it by a second call."""

import warnings

import torch

warnings.simplefilter("ignore")  # PyTorch's warning on the reference cycle

x = torch.tensor(2.0, requires_grad=True)
y = 2 * x * x * x
y.backward(create_graph=True)
print(x.grad)
first = x.grad
(x * x).backward(create_graph=True)
print(x.grad, first)

z = torch.tensor([1.0, 2.0], requires_grad=True)
(z**3).sum().backward(create_graph=True)
print(z.grad, type(z.grad.grad_fn).__name__)
g = z.grad
z.grad = None
g.sum().backward()
print(z.grad)

c = torch.tensor(3.0, requires_grad=True)
(c * 4).backward(create_graph=True)
print(c.grad)

p = torch.tensor(2.0, requires_grad=True)
q = p * 2
q.retain_grad()
(q * q).backward(create_graph=True)
print(q.grad, p.grad)
