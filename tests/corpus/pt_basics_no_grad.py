# follows: PyTorch tutorials, Learn the Basics, "Automatic Differentiation with torch.autograd",
#   section "Disabling Gradient Tracking",
#   https://pytorch.org/tutorials/beginner/basics/autogradqs_tutorial.html
"""Stopping the tracking of computations: torch.no_grad() around a forward pass, and
detach() on its result."""

import torch

torch.manual_seed(1)
x = torch.ones(5)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)

z = torch.matmul(x, w) + b
print(z.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)

z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad)
print(z_det, z_det.grad_fn, z_det.is_leaf)

# A detached result shares its values: changing one changes the other.
z_det[0] = 100.0
print(z)
