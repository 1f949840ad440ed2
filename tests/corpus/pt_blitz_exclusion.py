# follows: PyTorch tutorials, "A Gentle Introduction to torch.autograd", section "Exclusion from
#   the DAG",
#   https://pytorch.org/tutorials/beginner/blitz/autograd_tutorial.html
"""Which results require grad, and a frozen feature extractor with a trainable head,
written with plain tensors instead of a pretrained network."""

import torch

x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)
a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")

torch.manual_seed(0)
features = torch.randn(8, 4, requires_grad=True)  # the "pretrained" part
head = torch.randn(4, 3, requires_grad=True)  # the new classifier
features.requires_grad_(False)  # frozen: no gradient is computed for it
images = torch.randn(2, 8)
scores = (images @ features) @ head
scores.sum().backward()
print("frozen grad:", features.grad)
print("head grad:", head.grad)
print(scores.grad_fn.name(), scores.grad_fn.next_functions[0][0])
