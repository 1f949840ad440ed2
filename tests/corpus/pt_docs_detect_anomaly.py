# follows: PyTorch docs, torch.autograd.detect_anomaly (its example of a backward that
#   returns nan), https://pytorch.org/docs/stable/autograd.html#anomaly-detection
"""A custom Function whose backward divides by zero: without anomaly mode the nan passes
into the gradient; with it, the reverse pass stops and names the node."""

import torch
from torch import autograd


class MyFunc(autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return inp.clone()

    @staticmethod
    def backward(ctx, gO):
        # Error during the backward pass
        return gO / 0 * 0


def run_fn(a):
    out = MyFunc.apply(a)
    return out.sum()


inp = torch.rand(10, 10, requires_grad=True)
out = run_fn(inp)
out.backward()
print(torch.isnan(inp.grad).all().item())

with autograd.detect_anomaly():
    inp = torch.rand(10, 10, requires_grad=True)
    out = run_fn(inp)
    try:
        out.backward()
    except RuntimeError as error:
        print(error)
print(torch.is_anomaly_enabled())
