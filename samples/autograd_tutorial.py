# Adapted from PyTorch's tutorial "A Gentle Introduction to torch.autograd"
# (https://pytorch.org/tutorials/beginner/blitz/autograd_tutorial.html) and the
# in-place correctness check of "Autograd mechanics"
# (https://pytorch.org/docs/stable/notes/autograd.html). A PyTorch program, run
# unchanged on gradcli with: gradcli run samples/autograd_tutorial.py
import torch

# Differentiation in Autograd: Q = 3a^3 - b^2, so dQ/da = 9a^2 and dQ/db = -2b.
a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a**3 - b**2
external_grad = torch.tensor([1.0, 1.0])
Q.backward(gradient=external_grad)
print(9 * a**2 == a.grad)
print(-2 * b == b.grad)
print(Q.grad_fn.name(), Q.grad_fn.next_functions[0][0].name())

# What a node saved, and the version counter of a tensor written in place.
x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
y = x.exp()
print(y.grad_fn._saved_result.equal(y), x._version)
y.add_(1)
print(y._version)
try:
    y.sum().backward()
except RuntimeError as error:
    print(str(error).split(" Hint:")[0])
