# follows: PyTorch tutorials, Forward-mode Automatic Differentiation (Beta), Basic Usage
#   (make_dual, unpack_dual), https://pytorch.org/tutorials/intermediate/forward_ad_usage.html
"""Dual tensors printed: the tangent after the primal, on a line of its own when the line
would be too long, a 0-d tangent as its number."""

import torch
import torch.autograd.forward_ad as fwAD

primal = torch.tensor([1.2413, -0.7137, 0.1698], dtype=torch.float64)
tangent = torch.tensor([0.4284, 0.2899, -0.1992], dtype=torch.float64)


def fn(x, y):
    return x**2 + y**2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    print(dual_input)
    plain_tensor = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    dual_output = fn(dual_input, plain_tensor)
    print(dual_output)
    print(dual_output * 1e6)
    jvp = fwAD.unpack_dual(dual_output).tangent
    print(jvp)
    s = fwAD.make_dual(torch.tensor(2.0), torch.tensor(0.5))
    print(s, s * 3)
    m = fwAD.make_dual(torch.arange(6.0).reshape(2, 3), torch.ones(2, 3))
    print(m)
