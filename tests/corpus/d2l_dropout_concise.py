# follows: Dive into Deep Learning (d2l.ai), section 5.6 "Dropout", Concise
#   Implementation, https://d2l.ai/chapter_multilayer-perceptrons/dropout.html
"""nn.Dropout after each hidden layer of an nn.Sequential: active in train(), the
identity in eval(); trained with SGD on random data, in float64."""

import torch
from torch import nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
dropout1, dropout2 = 0.2, 0.5
net = nn.Sequential(
    nn.Flatten(),
    nn.Linear(20, 32),
    nn.ReLU(),
    nn.Dropout(dropout1),
    nn.Linear(32, 16),
    nn.ReLU(),
    nn.Dropout(dropout2),
    nn.Linear(16, 3),
)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
print(net)
X = torch.randn(120, 20)
y = (X[:, 0] > 0).long() + (X[:, 1] > 0.5).long()
loss = nn.CrossEntropyLoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
for epoch in range(10):
    net.train()
    for i in range(0, 120, 20):
        l = loss(net(X[i : i + 20]), y[i : i + 20])
        trainer.zero_grad()
        l.backward()
        trainer.step()
    net.eval()
    with torch.no_grad():
        print(epoch + 1, f"{loss(net(X), y).item():.5f}", (net(X).argmax(1) == y).sum().item())
net.train()
a, b = net(X[:2]), net(X[:2])
print(torch.equal(a, b), net[3].training)
net.eval()
print(torch.equal(net(X[:2]), net(X[:2])), net[3].training)
