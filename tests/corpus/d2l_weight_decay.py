# follows: Dive into Deep Learning (d2l.ai), section 3.7 "Weight Decay" (High-Dimensional
#   Linear Regression, Implementation from Scratch),
#   https://d2l.ai/chapter_linear-regression/weight-decay.html
"""Few samples of many features, a squared-norm penalty added to the loss, and the norm of
the weights it leaves after training without and with it."""

import torch

torch.manual_seed(0)
n_train, num_inputs = 20, 200
true_w, true_b = torch.ones((num_inputs, 1), dtype=torch.float64) * 0.01, 0.05
X = torch.randn(n_train, num_inputs, dtype=torch.float64)
y = X @ true_w + true_b + 0.01 * torch.randn(n_train, 1, dtype=torch.float64)


def init_params():
    w = torch.normal(0, 1, size=(num_inputs, 1), dtype=torch.float64, requires_grad=True)
    b = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    return [w, b]


def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2


def train(lambd):
    torch.manual_seed(1)
    w, b = init_params()
    lr = 0.003
    for _ in range(100):
        for i in range(0, n_train, 5):
            Xb, yb = X[i : i + 5], y[i : i + 5]
            loss = ((Xb @ w + b - yb) ** 2 / 2).sum() + lambd * l2_penalty(w)
            loss.backward()
            with torch.no_grad():
                w -= lr * w.grad / 5
                b -= lr * b.grad / 5
                w.grad.zero_()
                b.grad.zero_()
    print(f"lambda {lambd}: L2 norm of w {torch.norm(w).item():.6f}")


train(lambd=0)
train(lambd=3)
