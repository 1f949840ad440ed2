# follows: Dive into Deep Learning (d2l.ai), section 5.4 "Numerical Stability and
#   Initialization" (Vanishing Gradients, Exploding Gradients),
#   https://d2l.ai/chapter_multilayer-perceptrons/numerical-stability-and-init.html
"""The sigmoid's gradient vanishing away from 0, and a product of random matrices that
explodes; Xavier's scale keeps a product of many layers' outputs in range."""

import math

import torch

x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
y = torch.sigmoid(x)
y.backward(torch.ones_like(x))
print(x.grad[::10])
print(x.grad.max(), x.grad[0], x.grad[-1])

torch.manual_seed(0)
M = torch.normal(0, 1, size=(4, 4), dtype=torch.float64)
print("a single matrix \n", M)
for _ in range(100):
    M = M @ torch.normal(0, 1, size=(4, 4), dtype=torch.float64)
print("after multiplying 100 matrices\n", M)

n_in = n_out = 64
h = torch.randn(16, n_in, dtype=torch.float64)
for _ in range(20):
    scale = math.sqrt(2 / (n_in + n_out))
    h = torch.tanh(h @ torch.normal(0, scale, size=(n_in, n_out), dtype=torch.float64))
print(f"{h.std().item():.6f}")
