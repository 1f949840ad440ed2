# follows: PyTorch docs, "Autograd mechanics", sections "In-place operations with autograd"
#   and "In-place correctness checks", https://pytorch.org/docs/stable/notes/autograd.html
"""In-place operations inside a graph: allowed where the overwritten value is not needed,
an error naming the op where it is, and the version counter that tells them apart."""

import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 2
print(b._version)
b.add_(1)  # AddBackward0 needs no value of b: fine
print(b._version, b.grad_fn)
b.sum().backward()
print(a.grad)

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
e = a.exp()  # ExpBackward0 saves its result
e.mul_(2)
print(e._version)
try:
    e.sum().backward()
except RuntimeError as error:
    print(str(error).split(" Hint")[0])

a = torch.tensor([0.5, 1.5], requires_grad=True)
s = a.sigmoid()
t = s * 1
t.zero_()
print(t, t.grad_fn)
s.sum().backward()
print(a.grad)

leaf = torch.zeros(3, requires_grad=True)
try:
    leaf.add_(1)
except RuntimeError as error:
    print(error)
with torch.no_grad():
    leaf.add_(1)
print(leaf, leaf._version)
