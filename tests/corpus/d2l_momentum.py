# follows: Dive into Deep Learning (d2l.ai), section 12.6 "Momentum" (An Ill-conditioned
#   Problem, The Momentum Method), https://d2l.ai/chapter_optimization/momentum.html
"""f(x1, x2) = 0.1 x1**2 + 2 x2**2 minimised by gradient descent and by momentum, the
gradients from autograd, the trajectory's end printed."""

import torch


def f_2d(x1, x2):
    return 0.1 * x1**2 + 2 * x2**2


def grad_2d(x1, x2):
    p = torch.tensor([x1, x2], dtype=torch.float64, requires_grad=True)
    f_2d(p[0], p[1]).backward()
    return p.grad[0].item(), p.grad[1].item()


def train_2d(trainer, steps=20):
    x1, x2, s1, s2 = -5.0, -2.0, 0.0, 0.0
    for _ in range(steps):
        x1, x2, s1, s2 = trainer(x1, x2, s1, s2)
    print(f"epoch {steps}, x1: {x1:f}, x2: {x2:f}")


eta = 0.4


def gd_2d(x1, x2, s1, s2):
    g1, g2 = grad_2d(x1, x2)
    return (x1 - eta * g1, x2 - eta * g2, 0, 0)


train_2d(gd_2d)
eta = 0.6
train_2d(gd_2d)


def momentum_2d(x1, x2, v1, v2):
    g1, g2 = grad_2d(x1, x2)
    v1 = beta * v1 + g1
    v2 = beta * v2 + g2
    return x1 - eta * v1, x2 - eta * v2, v1, v2


eta, beta = 0.6, 0.5
train_2d(momentum_2d)
eta, beta = 0.6, 0.25
train_2d(momentum_2d)
