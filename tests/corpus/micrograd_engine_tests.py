# follows: karpathy/micrograd, test/test_engine.py (test_sanity_check and test_more_ops: the
#   same expressions in PyTorch), https://github.com/karpathy/micrograd/blob/master/test/test_engine.py
"""The expressions micrograd's tests evaluate in PyTorch to check its engine: relu, powers,
division and the sums of a small graph, with the gradients of its leaves."""

import torch

x = torch.Tensor([-4.0]).double()
x.requires_grad = True
z = 2 * x + 2 + x
q = z.relu() + z * x
h = (z * z).relu()
y = h + q + q * x
y.backward()
xpt, ypt = x, y
print(ypt.data.item(), xpt.grad.item())

a = torch.Tensor([-4.0]).double()
b = torch.Tensor([2.0]).double()
a.requires_grad = True
b.requires_grad = True
c = a + b
d = a * b + b**3
c = c + c + 1
c = c + 1 + c + (-a)
d = d + d * 2 + (b + a).relu()
d = d + 3 * d + (b - a).relu()
e = c - d
f = e**2
g = f / 2.0
g = g + 10.0 / f
g.backward()
apt, bpt, gpt = a, b, g
tol = 1e-6
print(f"{gpt.data.item():.6f}", f"{apt.grad.item():.6f}", f"{bpt.grad.item():.6f}")
print(abs(gpt.data.item() - 24.70408163265306) < tol)
print(abs(apt.grad.item() - 138.83381924198252) < tol)
print(g.grad_fn, e.grad_fn.next_functions)
