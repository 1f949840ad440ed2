# follows: PyTorch docs, torch.autograd.grad and torch.autograd.backward,
#   https://pytorch.org/docs/stable/generated/torch.autograd.grad.html
"""Gradients returned instead of accumulated: grad_outputs for a vector output,
create_graph for a second derivative, allow_unused, retain_graph, and backward of
several outputs at once."""

import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = torch.tensor([0.5, -1.0], requires_grad=True)
out = x.pow(2)
(g,) = torch.autograd.grad(out, x, grad_outputs=torch.ones_like(out))
print(g, x.grad)

f = (x**3).sum()
(df,) = torch.autograd.grad(f, x, create_graph=True)
print(df, df.requires_grad)
(d2f,) = torch.autograd.grad(df.sum(), x)
print(d2f)

gx, gy = torch.autograd.grad((x * 2).sum(), (x, y), allow_unused=True)
print(gx, gy)
gx, gy = torch.autograd.grad((x * 2).sum(), (x, y), allow_unused=True, materialize_grads=True)
print(gy)

s = (x * x).sum()
first = torch.autograd.grad(s, x, retain_graph=True)
second = torch.autograd.grad(s, x)
print(first, second)

a = x.sum() * 2
b = (y**2).sum()
torch.autograd.backward([a, b])
print(x.grad, y.grad)
torch.autograd.backward(x * 3, grad_tensors=torch.tensor([1.0, 0.0, -1.0]))
print(x.grad)
try:
    torch.autograd.grad(x.sum(), y)
except RuntimeError as error:
    print(str(error).split(".")[0])
