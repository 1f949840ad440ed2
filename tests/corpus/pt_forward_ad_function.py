# follows: PyTorch tutorials, "Forward-mode Automatic Differentiation (Beta)", section "Custom
#   autograd Function", https://pytorch.org/tutorials/intermediate/forward_ad_usage.html
"""A Function with a jvp as well as a backward, evaluated at a dual tensor."""

import torch
import torch.autograd.forward_ad as fwAD


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        # Saved for forward mode: the result, used by jvp below.
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


fn = Fn.apply
torch.manual_seed(2)
primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
tangent = torch.randn(10, 10, dtype=torch.double)

with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn(dual_input)
    jvp = fwAD.unpack_dual(dual_output).tangent

print(torch.allclose(jvp, torch.exp(primal.detach()) * tangent))
print(jvp[:2, :3])
