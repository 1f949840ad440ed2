# follows: PyTorch tutorials, "What is torch.nn really?", sections "Refactor using
#   nn.Module", "Refactor using nn.Linear", "Refactor using torch.optim", "Add validation"
#   and "nn.Sequential", https://pytorch.org/tutorials/beginner/nn_tutorial.html
"""The tutorial's logistic regression refactored step by step: an nn.Module holding
Parameters, then nn.Linear, then optim.SGD, a fit() with validation loss, and an
nn.Sequential with a Lambda layer; random data in float64 stands in for MNIST."""

import math

import torch
import torch.nn.functional as F
from torch import nn, optim

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
n, features, classes = 128, 16, 4
centers = 2 * torch.randn(classes, features)
y_train = torch.randint(0, classes, (n,))
x_train = centers[y_train] + torch.randn(n, features)
y_valid = torch.randint(0, classes, (64,))
x_valid = centers[y_valid] + torch.randn(64, features)
loss_func = F.cross_entropy
bs, lr, epochs = 32, 0.5, 2


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(features, classes) / math.sqrt(features))
        self.bias = nn.Parameter(torch.zeros(classes))

    def forward(self, xb):
        return xb @ self.weights + self.bias


model = Mnist_Logistic()
xb, yb = x_train[:bs], y_train[:bs]
print(f"{loss_func(model(xb), yb).item():.6f}")


def fit():
    for _epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * lr
                model.zero_grad()


fit()
print(f"{loss_func(model(xb), yb).item():.6f}")


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(features, classes)

    def forward(self, xb):
        return self.lin(xb)


model = Mnist_Logistic()
print(f"{loss_func(model(xb), yb).item():.6f}")
fit()
print(f"{loss_func(model(xb), yb).item():.6f}")


def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=lr)


model, opt = get_model()
print(f"{loss_func(model(xb), yb).item():.6f}")
for _epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        xb, yb = x_train[i * bs : i * bs + bs], y_train[i * bs : i * bs + bs]
        loss = loss_func(model(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
print(f"{loss_func(model(xb), yb).item():.6f}", f"{accuracy(model(xb), yb).item():.4f}")


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt):
    for epoch in range(epochs):
        model.train()
        for i in range(0, n, bs):
            loss_batch(model, loss_func, x_train[i : i + bs], y_train[i : i + bs], opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(
                *[
                    loss_batch(model, loss_func, x_valid[i : i + 32], y_valid[i : i + 32])
                    for i in range(0, 64, 32)
                ]
            )
        val_loss = sum(l * k for l, k in zip(losses, nums)) / sum(nums)
        print(epoch, f"{val_loss:.6f}")


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


model = nn.Sequential(
    Lambda(lambda x: x.view(-1, 4, 4)),
    nn.Flatten(),
    nn.Linear(features, 32),
    nn.ReLU(),
    nn.Linear(32, classes),
)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
fit(3, model, loss_func, opt)
print(model)
