# follows: PyTorch docs, Autograd mechanics, Locally disabling gradient computation:
#   Inference Mode, and torch.inference_mode's examples,
#   https://pytorch.org/docs/stable/notes/autograd.html#inference-mode
"""Tensors made in inference mode: what they allow inside and what they refuse outside,
each refusal printed as a tutorial prints it (type(e).__name__ and the first sentence)."""

import torch


def attempt(what, f):
    try:
        result = f()
        print(what, "ok", result)
    except RuntimeError as e:
        print(what, type(e).__name__, str(e).split(".")[0])


x = torch.ones(1, 2, 3, requires_grad=True)
with torch.inference_mode():
    y = x * x
print(y.requires_grad, y.is_inference(), x.is_inference())


@torch.inference_mode()
def func(x):
    return x * x


out = func(x)
print(out.requires_grad, out.is_inference())

w = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.inference_mode():
    t = w * 3
    t.add_(1)
    print(torch.is_inference_mode_enabled(), t)
print(torch.is_inference_mode_enabled())
attempt("add_", lambda: t.add_(1))
print(t)
attempt("clone().add_", lambda: t.clone().add_(1))
attempt("view().mul_", lambda: t.view(2).mul_(2))
attempt("requires_grad_", lambda: t.requires_grad_())
attempt("t * w", lambda: (t * w).sum())
attempt("t + w", lambda: (t + w).sum().backward())
print(w.grad)
attempt("t * 2", lambda: t * 2)
with torch.inference_mode(mode=False):
    u = w * 2
print(u, u.is_inference())
a = torch.tensor(1.0, requires_grad=True)
b = a.exp()
b.backward()
try:
    b.backward()
except Exception as e:
    print(type(e).__name__)
