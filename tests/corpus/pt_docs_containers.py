# follows: PyTorch documentation, the examples of the containers' pages (Sequential,
#   ModuleList, ModuleDict), https://pytorch.org/docs/stable/nn.html#containers
"""A Sequential of positional modules and one of an OrderedDict, appended to and sliced;
the page's MyModule with ten Linear layers in a ModuleList, and the one choosing its
layer and activation from ModuleDicts; printed and called."""

from collections import OrderedDict

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2), nn.ReLU())
model = nn.Sequential(
    OrderedDict([("fc1", nn.Linear(4, 8)), ("relu1", nn.ReLU()), ("fc2", nn.Linear(8, 2))])
)
print(model)
print(model.fc1, model[-1], len(model))
model.append(nn.Tanh())
print(model[1:], model(torch.ones(1, 4)))


class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.linears = nn.ModuleList([nn.Linear(10, 10) for i in range(10)])

    def forward(self, x):
        for i, l in enumerate(self.linears):
            x = self.linears[i // 2](x) + l(x)
        return x


m = MyModule()
print(m)
print(m(torch.ones(2, 10))[:, :3])
m.linears.append(nn.ReLU())
m.linears.extend([nn.Linear(10, 2), nn.Linear(10, 2)])
m.linears.insert(0, nn.Sigmoid())
print(m.linears)


class Chooser(nn.Module):
    def __init__(self):
        super().__init__()
        self.choices = nn.ModuleDict({"lin": nn.Linear(3, 4), "bil": nn.Linear(3, 4, bias=False)})
        self.activations = nn.ModuleDict([["lrelu", nn.LeakyReLU()], ["prelu", nn.ReLU()]])

    def forward(self, x, choice, act):
        x = self.choices[choice](x)
        x = self.activations[act](x)
        return x


c = Chooser()
print(c)
print(c(torch.ones(1, 3), "lin", "lrelu"), list(c.choices.keys()), "bil" in c.choices)
