# follows: PyTorch tutorials, "Forward-mode Automatic Differentiation (Beta)", section "Basic
#   Usage", https://pytorch.org/tutorials/intermediate/forward_ad_usage.html
"""Dual tensors: a primal and a tangent made into one input, a function of it and a
plain tensor, and the Jacobian-vector product unpacked from the output."""

import torch
import torch.autograd.forward_ad as fwAD

torch.manual_seed(0)
primal = torch.randn(4, 4, dtype=torch.float64)
tangent = torch.randn(4, 4, dtype=torch.float64)


def fn(x, y):
    return x**2 + y**2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    print(fwAD.unpack_dual(dual_input).tangent is tangent)
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    print(fwAD.unpack_dual(dual_input_alt).tangent is tangent.T)
    plain_tensor = torch.randn(4, 4, dtype=torch.float64)
    dual_output = fn(dual_input, plain_tensor)
    jvp = fwAD.unpack_dual(dual_output).tangent

print(fwAD.unpack_dual(dual_output).tangent)
print(torch.allclose(jvp, 2 * primal * tangent))
print(jvp)

with fwAD.dual_level():
    point = torch.tensor([0.5, 2.0], dtype=torch.float64)
    x = fwAD.make_dual(point, torch.tensor([1.0, 0.0], dtype=torch.float64))
    y = torch.sin(x) * torch.exp(x)
    p, t = fwAD.unpack_dual(y)
    print(p, t)
