# follows: PyTorch docs, torch.no_grad, torch.enable_grad, torch.set_grad_enabled and
#   torch.inference_mode (their examples), https://pytorch.org/docs/stable/generated/torch.no_grad.html
"""The grad mode context managers and decorators as their reference pages show them."""

import torch

x = torch.tensor([1.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad)


@torch.no_grad()
def doubler(x):
    return x * 2


z = doubler(x)
print(z.requires_grad)


@torch.no_grad
def tripler(x):
    return x * 3


z = tripler(x)
print(z.requires_grad)
with torch.no_grad():
    a = torch.nn.Parameter(torch.rand(10))
print(a.requires_grad)

with torch.no_grad():
    with torch.enable_grad():
        y = x * 2
print(y.requires_grad)
y.backward()
print(x.grad)


@torch.enable_grad()
def enabled_doubler(x):
    return x * 2


with torch.no_grad():
    z = enabled_doubler(x)
print(z.requires_grad)

is_train = False
with torch.set_grad_enabled(is_train):
    y = x * 2
print(y.requires_grad)
_ = torch.set_grad_enabled(True)
y = x * 2
print(y.requires_grad)
_ = torch.set_grad_enabled(False)
y = x * 2
print(y.requires_grad)
torch.set_grad_enabled(True)

x = torch.ones(1, 2, 3, requires_grad=True)
with torch.inference_mode():
    y = x * x
print(y.requires_grad)


@torch.inference_mode()
def func(x):
    return x * x


out = func(x)
print(out.requires_grad)


@torch.inference_mode
def func2(x):
    return x * x


print(func2(x).requires_grad)
