# follows: PyTorch tutorials, "A Gentle Introduction to torch.autograd", section "Differentiation
#   in Autograd",
#   https://pytorch.org/tutorials/beginner/blitz/autograd_tutorial.html
"""Two parameter tensors, a scalar function of each entry, and the gradient handed to
backward for a vector output, checked against the derivatives worked out by hand."""

import torch

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a**3 - b**2
print("Q =", Q)
print("grad_fn of Q:", Q.grad_fn)

# Q is a vector: backward needs the gradient of some scalar with respect to Q.
upstream = torch.tensor([1.0, 1.0])
Q.backward(gradient=upstream)
print("dQ/da =", a.grad, "which is 9 a**2:", 9 * a**2 == a.grad)
print("dQ/db =", b.grad, "which is -2 b:", -2 * b == b.grad)

# The same through a scalar: summing Q first gives the same gradients.
a.grad = None
b.grad = None
(3 * a**3 - b**2).sum().backward()
print(a.grad, b.grad)
print(a.is_leaf, Q.is_leaf, Q.requires_grad)
