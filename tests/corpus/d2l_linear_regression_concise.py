# follows: Dive into Deep Learning (d2l.ai), section 3.5 "Concise Implementation of
#   Linear Regression" (Defining the Model, Defining the Loss Function, Defining the
#   Optimization Algorithm, Training),
#   https://d2l.ai/chapter_linear-regression/linear-regression-concise.html
"""Synthetic data y = Xw + b + noise, an nn.Linear initialised with normal_ and fill_,
MSELoss and SGD over shuffled minibatches, and the errors in estimating w and b."""

import torch
from torch import nn

torch.manual_seed(0)
true_w = torch.tensor([2, -3.4])
true_b = 4.2
X = torch.normal(0, 1, (1000, len(true_w)))
y = torch.matmul(X, true_w) + true_b
y += torch.normal(0, 0.01, y.shape)
y = y.reshape((-1, 1))


def data_iter(batch_size, features, labels):
    indices = torch.randperm(len(features))
    for i in range(0, len(features), batch_size):
        batch = indices[i : i + batch_size]
        yield features[batch], labels[batch]


net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)

num_epochs = 3
for epoch in range(num_epochs):
    for Xb, yb in data_iter(10, X, y):
        l = loss(net(Xb), yb)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(X), y)
    print(f"epoch {epoch + 1}, loss {l:.6f}")

w = net[0].weight.data
print("error in estimating w:", (true_w - w.reshape(true_w.shape)).abs().max() < 0.01)
b = net[0].bias.data
print("error in estimating b:", abs(true_b - b.item()) < 0.01)
print(net[0].weight.grad.shape, net[0].bias.grad.shape)
