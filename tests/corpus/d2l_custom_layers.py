# follows: Dive into Deep Learning (d2l.ai), section 6.5 "Custom Layers" (Layers without
#   Parameters, Layers with Parameters),
#   https://d2l.ai/chapter_builders-guide/custom-layer.html
"""The chapter's CenteredLayer (X - X.mean(), no parameters) alone and after a Linear layer
(nn.Linear(64, 128) in place of nn.LazyLinear(128)), with the mean of its output; its
MyLinear (weight and bias as nn.Parameter, F.relu of the affine map) printed, called,
and stacked twice in an nn.Sequential. The chapter stops at the forward pass; here the
stack of MyLinear layers is then trained with SGD and MSELoss for a few steps on random
data in float64, to show the custom parameters are found by parameters() and updated
by the optimiser."""

import torch
from torch import nn
from torch.nn import functional as F

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)


class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, X):
        return X - X.mean()


layer = CenteredLayer()
print(layer(torch.tensor([1.0, 2, 3, 4, 5])))

net = nn.Sequential(nn.Linear(64, 128), CenteredLayer())
Y = net(torch.rand(4, 8 * 8))
print(abs(Y.mean()) < 1e-12)


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


linear = MyLinear(5, 3)
print(linear.weight)
print(linear(torch.rand(2, 5)))

net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1))
print(net(torch.rand(2, 64)))
print(net)
print([(name, tuple(p.shape)) for name, p in net.named_parameters()])


class MyTrainableLinear(MyLinear):
    # The chapter's forward reads .data, which keeps the parameters out of the graph;
    # training needs the parameters themselves.
    def forward(self, X):
        return F.relu(torch.matmul(X, self.weight) + self.bias)


net = nn.Sequential(MyTrainableLinear(64, 8), MyTrainableLinear(8, 1))
X = torch.rand(32, 64)
y = X[:, :4].sum(dim=1, keepdim=True)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.02)
for step in range(30):
    trainer.zero_grad()
    l = loss(net(X), y)
    l.backward()
    trainer.step()
    if step % 5 == 0:
        print(f"step {step}, loss {l.item():.6f}")
print(net[1].bias.data, net[1].weight.grad.norm())
