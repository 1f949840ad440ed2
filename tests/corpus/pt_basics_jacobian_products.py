# follows: PyTorch tutorials, Learn the Basics, "Automatic Differentiation with torch.autograd",
#   section "Optional Reading: Tensor Gradients and Jacobian Products",
#   https://pytorch.org/tutorials/beginner/basics/autogradqs_tutorial.html
"""backward of a matrix output with a gradient of ones: the vector-Jacobian product,
accumulated over two calls, and reset."""

import torch

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
print(out.shape, out.grad_fn)
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

# Any other vector gives another combination of the Jacobian's rows.
v = torch.arange(20.0).reshape(5, 4) / 10
inp.grad = None
out.backward(v)
print(inp.grad)
