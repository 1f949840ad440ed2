# follows: PyTorch tutorials, "What is torch.nn really?", sections "Neural net from scratch
#   (without torch.nn)" and "Using torch.nn.functional",
#   https://pytorch.org/tutorials/beginner/nn_tutorial.html
"""Logistic regression written by hand: weights with requires_grad_, log_softmax and the
negative log-likelihood as functions, a minibatch loop with updates under no_grad, then
the same loss from torch.nn.functional. Random data stands in for MNIST."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
n, features, classes = 64, 20, 5
centers = torch.randn(classes, features, dtype=torch.float64) * 2
y_train = torch.randint(0, classes, (n,))
x_train = centers[y_train] + torch.randn(n, features, dtype=torch.float64)

weights = torch.randn(features, classes, dtype=torch.float64) / math.sqrt(features)
weights.requires_grad_()
bias = torch.zeros(classes, dtype=torch.float64, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


bs = 16
xb, yb = x_train[0:bs], y_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)
loss_func = nll
print(f"{loss_func(preds, yb).item():.6f}", accuracy(preds, yb))

lr = 0.5
epochs = 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
    print(epoch, f"{loss_func(model(xb), yb).item():.6f}", accuracy(model(xb), yb))

loss_func = F.cross_entropy


def model2(xb):
    return xb @ weights + bias


print(f"{loss_func(model2(xb), yb).item():.6f}", f"{nll(model(xb), yb).item():.6f}")
