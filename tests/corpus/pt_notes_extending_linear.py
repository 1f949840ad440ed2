# follows: PyTorch docs, "Extending PyTorch", section "Extending torch.autograd" (Example:
#   the Linear function), https://pytorch.org/docs/stable/notes/extending.html
"""A linear layer as a custom Function: forward, setup_context, a backward that computes
only the gradients needed, and gradcheck in double precision."""

import torch
from torch.autograd import gradcheck


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


linear = LinearFunction.apply
torch.manual_seed(0)
input = (
    torch.randn(20, 20, dtype=torch.double, requires_grad=True),
    torch.randn(30, 20, dtype=torch.double, requires_grad=True),
)
test = gradcheck(linear, input + (None,), eps=1e-6, atol=1e-4)
print(test)

x = torch.randn(4, 3, dtype=torch.double, requires_grad=True)
w = torch.randn(2, 3, dtype=torch.double)
b = torch.randn(2, dtype=torch.double, requires_grad=True)
out = linear(x, w, b)
out.sum().backward()
print(out.grad_fn.name(), x.grad.shape, w.grad, b.grad)
print(torch.allclose(out, torch.nn.functional.linear(x, w, b)))
