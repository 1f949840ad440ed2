# follows: pytorch-handbook (zergtant), chapter 2.1.2 "PyTorch 基础: 自动求导" (简单的自动求导,
#   复杂的自动求导), https://github.com/zergtant/pytorch-handbook/blob/master/chapter2/2.1.2-pytorch-basics-autograd.ipynb
"""Two random matrices, the gradient of the sum of their sum, a non-scalar result with a
gradient of ones, and the derivatives 2x and 3y**2 it gives."""

import torch

torch.manual_seed(0)
x = torch.rand(5, 5, requires_grad=True)
y = torch.rand(5, 5, requires_grad=True)
z = torch.sum(x + y)
print(z)
z.backward()
print(x.grad, y.grad)

x = torch.rand(5, 5, requires_grad=True)
y = torch.rand(5, 5, requires_grad=True)
z = x**2 + y**3
print(z)
z.backward(torch.ones_like(x))
print(x.grad)
print(torch.allclose(x.grad, 2 * x), torch.allclose(y.grad, 3 * y**2))
with torch.no_grad():
    print((x + y).requires_grad)
print(z.grad_fn, z.grad_fn.next_functions)
