# follows: PyTorch docs, torch.Tensor.register_hook (its example) and Autograd mechanics,
#   Backward Hooks execution, https://pytorch.org/docs/stable/generated/torch.Tensor.register_hook.html
"""Hooks on a tensor's gradient: one that returns a new gradient, and ones that write the
gradient they are given in place, which reaches what the node gave its other inputs."""

import torch

v = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)  # double the gradient
v.backward(torch.tensor([1.0, 2.0, 3.0]))
print(v.grad)
h.remove()

a = torch.tensor(1.0, requires_grad=True)
d = torch.tensor(2.0, requires_grad=True)
d.register_hook(lambda g: g.mul_(100))
(a * 3 + d).backward()
print(a.grad, d.grad)

a = torch.tensor(1.0, requires_grad=True)
d = torch.tensor(2.0, requires_grad=True)
d.register_hook(lambda g: g.mul_(100))
(a + d).backward()
print(a.grad, d.grad)

x = torch.tensor([1.0, -1.0], requires_grad=True)
w = torch.tensor([0.5, 2.0], requires_grad=True)
w.register_hook(lambda g: print("w's gradient", g))
x.register_hook(lambda g: g.zero_())
((x * w).sum() + x.sum() * 2).backward()
print(x.grad, w.grad)

t = torch.tensor(1.0, requires_grad=True).sin()
t.cos_()
t.register_hook(lambda g: print("after cos_", g))
t.backward()
t = torch.tensor(1.0, requires_grad=True).sin()
t.register_hook(lambda g: print("before cos_", g))
t.cos_()
t.backward()
