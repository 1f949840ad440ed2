# follows: Dive into Deep Learning (d2l.ai), section 5.6 "Dropout" (Implementation from
#   Scratch), https://d2l.ai/chapter_multilayer-perceptrons/dropout.html
"""Dropout written with a random mask and a rescale, tried at 0, 0.5 and 1, and the same
with torch.nn.functional.dropout, whose numbers come from the same seed."""

import torch
import torch.nn.functional as F


def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)


torch.manual_seed(0)
X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print("dropout_p = 0:", dropout_layer(X, 0))
print("dropout_p = 0.5:", dropout_layer(X, 0.5))
print("dropout_p = 1:", dropout_layer(X, 1))

torch.manual_seed(0)
print(F.dropout(X, 0.5))
W = torch.ones(8, 3, requires_grad=True)
H = F.dropout(X @ W, p=0.5, training=True)
H.sum().backward()
print(H, W.grad, sep="\n")
print(F.dropout(X, 0.5, training=False) is X)
