# follows: Dive into Deep Learning (d2l.ai), section 6.3 "Parameter Initialization"
#   (Built-in Initialization, Custom Initialization),
#   https://d2l.ai/chapter_builders-guide/init-param.html
"""nn.init applied through net.apply: normal_, zeros_, constant_, xavier_uniform_ on one
layer and constant_(42) on another, then a custom initialisation that draws uniform
weights in [-10, 10) and keeps those at least 5 in size, and direct edits of .data."""

import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
X = torch.rand(size=(2, 4))
net(X)


def init_normal(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, mean=0, std=0.01)
        nn.init.zeros_(module.bias)


net.apply(init_normal)
print(net[0].weight.data[0], net[0].bias.data[0])


def init_constant(module):
    if isinstance(module, nn.Linear):
        nn.init.constant_(module.weight, 1)
        nn.init.zeros_(module.bias)


net.apply(init_constant)
print(net[0].weight.data[0], net[0].bias.data[0])


def init_xavier(module):
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)


def init_42(module):
    if isinstance(module, nn.Linear):
        nn.init.constant_(module.weight, 42)


net[0].apply(init_xavier)
net[2].apply(init_42)
print(net[0].weight.data[0])
print(net[2].weight.data)


def my_init(module):
    if isinstance(module, nn.Linear):
        print("Init", *[(name, param.shape) for name, param in module.named_parameters()][0])
        nn.init.uniform_(module.weight, -10, 10)
        module.weight.data *= module.weight.data.abs() >= 5


net.apply(my_init)
print(net[0].weight[:2])
net[0].weight.data[:] += 1
net[0].weight.data[0, 0] = 42
print(net[0].weight.data[0])
nn.init.kaiming_uniform_(net[0].weight, nonlinearity="relu")
nn.init.kaiming_normal_(net[2].weight, mode="fan_out")
print(net[0].weight.data[1], net[2].weight.data)
print(nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh"))
