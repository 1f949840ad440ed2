# follows: Dive into Deep Learning (d2l.ai), section 6.2 "Parameter Management"
#   (Parameter Access, Targeted Parameters, All Parameters at Once, Tied Parameters),
#   https://d2l.ai/chapter_builders-guide/parameters.html
"""A layer's state_dict, a parameter's type, data and grad, every parameter by name,
and a layer shared by two places of a network (the same tensor, one gradient)."""

import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
X = torch.rand(size=(2, 4))
print(net(X).shape)
print(net[2].state_dict())
print(isinstance(net[2].bias, nn.Parameter), net[2].bias.data)
print(net[2].weight.grad is None)
print([(name, param.shape) for name, param in net.named_parameters()])
print(net.state_dict()["2.bias"].data)

shared = nn.Linear(8, 8)
net = nn.Sequential(
    nn.Linear(4, 8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.Linear(8, 1)
)
net(X)
print(net[2].weight.data[0] == net[4].weight.data[0])
net[2].weight.data[0, 0] = 100
print(net[2].weight.data[0] == net[4].weight.data[0])
print(len(list(net.parameters())), [name for name, _ in net.named_parameters()])
print(net)


def block1():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4), nn.ReLU())


def block2():
    net = nn.Sequential()
    for i in range(4):
        net.add_module(f"block {i}", block1())
    return net


rgnet = nn.Sequential(block2(), nn.Linear(4, 1))
print(rgnet(X))
print(rgnet)
print(rgnet[0][1][0].bias.data)
