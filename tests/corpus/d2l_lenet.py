# follows: Dive into Deep Learning (d2l.ai), chapter 7.6 "Convolutional Neural Networks
#   (LeNet)", the PyTorch version: 7.6.1 LeNet and its layer-by-layer output shapes,
#   https://d2l.ai/chapter_convolutional-neural-networks/lenet.html
"""LeNet-5 as d2l builds it with nn.Sequential (sigmoid activations, average pooling,
padding 2 on the first convolution), each layer's output shape for a 28x28 image, and a
few steps of SGD with cross-entropy on a seeded random batch (Fashion-MNIST left out)."""

import torch
from torch import nn

torch.manual_seed(42)
net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5, padding=2),
    nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=5),
    nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Flatten(),
    nn.Linear(16 * 5 * 5, 120),
    nn.Sigmoid(),
    nn.Linear(120, 84),
    nn.Sigmoid(),
    nn.Linear(84, 10),
)
print(net)

X = torch.rand(size=(1, 1, 28, 28), dtype=torch.float32)
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, "output shape: \t", X.shape)


def init_weights(m):
    if type(m) == nn.Linear or type(m) == nn.Conv2d:  # noqa: E721  (d2l's own test)
        nn.init.xavier_uniform_(m.weight)


net.apply(init_weights)
X = torch.rand(8, 1, 28, 28)
y = torch.randint(0, 10, (8,))
optimizer = torch.optim.SGD(net.parameters(), lr=0.9)
loss = nn.CrossEntropyLoss()
for epoch in range(4):
    optimizer.zero_grad()
    y_hat = net(X)
    l = loss(y_hat, y)
    l.backward()
    optimizer.step()
    print(f"epoch {epoch + 1}, loss {l.item():.4f}")
with torch.no_grad():
    acc = (net(X).argmax(dim=1) == y).float().mean()
print(f"train acc {acc:.3f}")
