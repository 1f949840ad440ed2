# follows: PyTorch tutorials, Introduction to PyTorch on YouTube, "The Fundamentals of Autograd",
#   section "A Simple Example",
#   https://pytorch.org/tutorials/beginner/introyt/autogradyt_tutorial.html
"""sin over a grid, a chain of operations after it, the graph walked back through
next_functions, and the gradient compared with 2 cos(a)."""

import math

import torch

a = torch.linspace(0.0, 2.0 * math.pi, steps=25, requires_grad=True)
print(a)
b = torch.sin(a)
print(b)
c = 2 * b
print(c)
d = c + 1
print(d)
out = d.sum()
print(out)

print("d:")
print(d.grad_fn)
print(d.grad_fn.next_functions)
print(d.grad_fn.next_functions[0][0].next_functions)
print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions)
print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].next_functions)
print("\nc:")
print(c.grad_fn)
print("\nb:")
print(b.grad_fn)
print("\na:")
print(a.grad_fn)

out.backward()
print(a.grad)
print(torch.allclose(a.grad, 2 * torch.cos(a.detach()), atol=1e-6))
