# follows: PyTorch docs, "Autograd mechanics", section "Backward Hooks execution" (Whether a
#   particular hook will be fired, The order in which the different hooks are fired),
#   https://pytorch.org/docs/stable/notes/autograd.html
"""Tensor hooks, node hooks and pre-hooks, post-accumulate-grad hooks: which of them
fire, in what order, and what a hook that returns a value changes."""

import torch

calls = []
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 3
c = b.exp()
b.register_hook(lambda grad: calls.append(("tensor hook of b", grad)))
b.grad_fn.register_prehook(lambda grad_outputs: calls.append(("prehook of MulBackward0",)))
b.grad_fn.register_hook(
    lambda grad_inputs, grad_outputs: calls.append(("hook of MulBackward0", grad_inputs))
)
a.register_hook(lambda grad: calls.append(("tensor hook of a", grad)))
a.register_post_accumulate_grad_hook(lambda t: calls.append(("post accumulate", t.grad)))
c.sum().backward()
for call in calls:
    print(*call)

# A tensor hook that returns a tensor replaces the gradient.
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
y.register_hook(lambda grad: grad * 10)
y.sum().backward()
print(x.grad)

# Hooks of a tensor that is not used by the pass do not fire.
fired = []
u = torch.tensor([1.0], requires_grad=True)
v = u * 2
w = u * 3
v.register_hook(lambda grad: fired.append("v"))
w.sum().backward()
print(fired, u.grad)

# A hook on a tensor modified in place sees the gradient of the new value.
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
y.register_hook(lambda grad: print("hook of the old y", grad))
y.mul_(4)
y.register_hook(lambda grad: print("hook of the new y", grad))
y.sum().backward()
print(x.grad)
