# follows: Dive into Deep Learning (d2l.ai), section 12.3 "Gradient Descent" (One-Dimensional
#   Gradient Descent, Learning Rate, Local Minima, Newton's Method),
#   https://d2l.ai/chapter_optimization/gd.html
"""Gradient descent on x**2 with a step that is right, too small and too large, one that
stops in a local minimum of x cos(cx), and Newton's method with the second derivative
from autograd."""

import math

import torch


def f(x):  # Objective function
    return x**2


def f_grad(x):  # Gradient (derivative) of the objective function
    x = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(f(x), x)
    return g.item()


def gd(eta, f_grad):
    x = 10.0
    results = [x]
    for _ in range(10):
        x -= eta * f_grad(x)
        results.append(float(x))
    print(f"epoch 10, x: {x:f}")
    return results


results = gd(0.2, f_grad)
gd(0.05, f_grad)
gd(1.1, f_grad)

c = 0.15 * math.pi


def f2(x):
    return x * torch.cos(c * x)


x = torch.tensor(10.0, dtype=torch.float64, requires_grad=True)
for _ in range(10):
    (g,) = torch.autograd.grad(f2(x), x)
    with torch.no_grad():
        x -= 2 * g
print(f"epoch 10, x: {x.item():f}")


def f3(x):
    return torch.cosh(c * x)


x = torch.tensor(10.0, dtype=torch.float64, requires_grad=True)
for _ in range(10):
    (g,) = torch.autograd.grad(f3(x), x, create_graph=True)
    (h,) = torch.autograd.grad(g, x)
    with torch.no_grad():
        x -= g / h
print(f"epoch 10, x: {x.item():f}")
