# follows: Dive into Deep Learning (d2l.ai), section 5.2 "Implementation of Multilayer
#   Perceptrons" (Initializing Model Parameters, Activation Function, Model, Training),
#   https://d2l.ai/chapter_multilayer-perceptrons/mlp-implementation.html
"""A one-hidden-layer perceptron from parameters made with nn.Parameter, relu written with
torch.max, the cross-entropy of torch.nn.functional, and SGD steps by hand."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
num_inputs, num_outputs, num_hiddens = 16, 3, 32
sigma = 0.1
W1 = nn.Parameter(torch.randn(num_inputs, num_hiddens, dtype=torch.float64) * sigma)
b1 = nn.Parameter(torch.zeros(num_hiddens, dtype=torch.float64))
W2 = nn.Parameter(torch.randn(num_hiddens, num_outputs, dtype=torch.float64) * sigma)
b2 = nn.Parameter(torch.zeros(num_outputs, dtype=torch.float64))
params = [W1, b1, W2, b2]
print(b2)


def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)


print(relu(torch.tensor([-1.0, 0.0, 2.5])))


def net(X):
    X = X.reshape((-1, num_inputs))
    H = relu(torch.matmul(X, W1) + b1)
    return torch.matmul(H, W2) + b2


n = 60
labels = torch.randint(0, num_outputs, (n,))
features = torch.randn(n, num_inputs, dtype=torch.float64) + labels[:, None] * 0.7
lr = 0.5
for epoch in range(6):
    loss = F.cross_entropy(net(features), labels)
    for p in params:
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
    accuracy = (net(features).argmax(1) == labels).double().mean()
    print(f"epoch {epoch + 1}: loss {loss.item():.6f}, train acc {accuracy.item():.3f}")
print(isinstance(W1, nn.Parameter), W1.grad.shape, W1.is_leaf)
