# follows: PyTorch tutorials, "The Fundamentals of Autograd", sections "Turning Autograd Off and
#   On" and "Autograd and In-place Operations",
#   https://pytorch.org/tutorials/beginner/introyt/autogradyt_tutorial.html
"""requires_grad switched off on a leaf, no_grad blocks and decorators, detach, and an
in-place operation on a leaf that requires grad."""

import math

import torch

a = torch.ones(2, 3, requires_grad=True)
print(a)
b1 = 2 * a
print(b1)
a.requires_grad = False
b2 = 2 * a
print(b2)

a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3
c1 = a + b
print(c1)
with torch.no_grad():
    c2 = a + b
print(c2)
c3 = a * b
print(c3)


def add_tensors1(x, y):
    return x + y


@torch.no_grad()
def add_tensors2(x, y):
    return x + y


a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3
print(add_tensors1(a, b))
print(add_tensors2(a, b))

x = torch.rand(5, requires_grad=True)
y = x.detach()
print(x.requires_grad, y.requires_grad)

a = torch.linspace(0.0, 2.0 * math.pi, steps=25, requires_grad=True)
try:
    torch.sin_(a)
except RuntimeError as error:
    print("RuntimeError:", error)
