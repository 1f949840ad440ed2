# follows: PyTorch docs, "Autograd mechanics", section "Saved tensors",
#   https://pytorch.org/docs/stable/notes/autograd.html
"""What pow and exp save for their gradients: an input is saved as it is (equal, not the
same object), a result likewise; and the error after the saved values were freed."""

import torch

x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self))
print(x is y.grad_fn._saved_self)

y = x.exp()
print(y.equal(y.grad_fn._saved_result))
print(y is y.grad_fn._saved_result)

z = x.pow(3)
print(z.grad_fn._saved_exponent)
z.sum().backward()
try:
    print(z.grad_fn._saved_self)
except RuntimeError as error:
    print(str(error).split(".")[0])
