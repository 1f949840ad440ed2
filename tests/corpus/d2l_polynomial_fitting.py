# follows: Dive into Deep Learning (d2l.ai, 0.17), section 4.4 "Model Selection,
#   Underfitting, and Overfitting", Polynomial Regression,
#   https://d2l.ai/chapter_multilayer-perceptrons/underfit-overfit.html
"""Features x^i / i! of a cubic with noise; nn.Sequential(nn.Linear(n, 1, bias=False))
trained with MSELoss(reduction="none") and SGD(lr=0.01) on the normal third-order fit,
an underfitting linear one and an overfitting one of degree 20 with 100 examples;
train and test losses and the learned weights. Fewer epochs, in float64."""

import math

import numpy as np
import torch
from torch import nn

torch.set_default_dtype(torch.float64)
max_degree = 20
n_train, n_test = 100, 100
true_w = np.zeros(max_degree)
true_w[0:4] = np.array([5, 1.2, -3.4, 5.6])
np.random.seed(0)
features = np.random.normal(size=(n_train + n_test, 1))
np.random.shuffle(features)
poly_features = np.power(features, np.arange(max_degree).reshape(1, -1))
for i in range(max_degree):
    poly_features[:, i] /= math.gamma(i + 1)  # `gamma(n)` = (n-1)!
labels = np.dot(poly_features, true_w)
labels += np.random.normal(scale=0.1, size=labels.shape)
true_w, features, poly_features, labels = [
    torch.tensor(x, dtype=torch.float64) for x in [true_w, features, poly_features, labels]
]
print(features[:2], poly_features[:2, :4], labels[:2], sep="\n")


def evaluate_loss(net, features, labels, loss):
    with torch.no_grad():
        out = net(features)
        return (loss(out, labels.reshape(out.shape)).sum() / labels.numel()).item()


def train(train_features, test_features, train_labels, test_labels, num_epochs=200):
    loss = nn.MSELoss(reduction="none")
    input_shape = train_features.shape[-1]
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(input_shape, 1, bias=False))
    batch_size = min(10, train_labels.shape[0])
    trainer = torch.optim.SGD(net.parameters(), lr=0.01)
    for epoch in range(num_epochs):
        for i in range(0, len(train_features), batch_size):
            X, y = train_features[i : i + batch_size], train_labels[i : i + batch_size]
            trainer.zero_grad()
            l = loss(net(X), y.reshape(-1, 1))
            l.mean().backward()
            trainer.step()
        if epoch == 0 or (epoch + 1) % 50 == 0:
            print(
                epoch + 1,
                f"{evaluate_loss(net, train_features, train_labels, loss):.6f}",
                f"{evaluate_loss(net, test_features, test_labels, loss):.6f}",
            )
    print("weight:", net[0].weight.data.numpy().round(4))


# Third-order polynomial function fitting (normal)
train(poly_features[:n_train, :4], poly_features[n_train:, :4], labels[:n_train], labels[n_train:])
# Linear function fitting (underfitting)
train(poly_features[:n_train, :2], poly_features[n_train:, :2], labels[:n_train], labels[n_train:])
# Higher-order polynomial function fitting (overfitting)
train(poly_features[:n_train, :], poly_features[n_train:, :], labels[:n_train], labels[n_train:])
