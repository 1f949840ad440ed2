# follows: PyTorch docs, torch.Tensor.register_hook, torch.Tensor.retain_grad and
#   torch.Tensor.is_leaf (their examples),
#   https://pytorch.org/docs/stable/generated/torch.Tensor.register_hook.html
"""A hook that doubles a gradient and is then removed, the gradient of a non-leaf kept
with retain_grad, and which tensors are leaves."""

import torch

v = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)  # double the gradient
v.backward(torch.tensor([1.0, 2.0, 3.0]))
print(v.grad)
h.remove()  # removes the hook
v.backward(torch.tensor([1.0, 2.0, 3.0]))
print(v.grad)

x = torch.tensor([2.0, 3.0], requires_grad=True)
y = x**2
y.retain_grad()
z = (y * 3).sum()
z.backward()
print(y.grad, x.grad, y.retains_grad, x.retains_grad)

torch.manual_seed(0)
a = torch.rand(10, requires_grad=True)
print(a.is_leaf)
b = torch.rand(10, requires_grad=True) + 2
print(b.is_leaf)
c = torch.rand(10)
print(c.is_leaf, c.requires_grad)
d = torch.rand(10, requires_grad=True).double()
print(d.is_leaf)
e = torch.rand(10).requires_grad_()
print(e.is_leaf)
f = torch.rand(10, requires_grad=True).detach()
print(f.is_leaf, f.requires_grad)
