# follows: PyTorch docs, "Autograd mechanics", section "Locally disabling gradient
#   computation" (Setting requires_grad, Grad Modes, No-grad Mode, Inference Mode),
#   https://pytorch.org/docs/stable/notes/autograd.html
"""requires_grad on leaves and what it does to results, the three grad modes, and
which of them records a graph."""

import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
frozen = torch.tensor([3.0, 4.0])
print((x * frozen).requires_grad, (frozen * 2).requires_grad)
print(x.requires_grad_(False).requires_grad, (x * frozen).requires_grad)
x.requires_grad_()

with torch.no_grad():
    y = x * 2
print(y.requires_grad, y.grad_fn, torch.is_grad_enabled())

with torch.inference_mode():
    z = x * 2
    print(torch.is_inference_mode_enabled(), torch.is_grad_enabled())
print(z.requires_grad, torch.is_inference_mode_enabled())

with torch.no_grad():
    with torch.enable_grad():
        w = x * 2
print(w.requires_grad, w.grad_fn)

is_train = False
with torch.set_grad_enabled(is_train):
    v = x * 2
print(v.requires_grad)
torch.set_grad_enabled(True)
v = x * 2
print(v.requires_grad)

# An update of a leaf in place, as an optimizer does, inside no_grad.
x.sum().backward()
with torch.no_grad():
    x -= 0.5 * x.grad
print(x, x.grad, x.is_leaf)
