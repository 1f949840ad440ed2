# follows: PyTorch documentation, notes "Modules" (A Simple Custom Module, Modules as
#   Building Blocks, Neural Network Training with Modules, Module State, Module
#   Initialization, Module Hooks), https://pytorch.org/docs/stable/notes/modules.html
"""MyLinear with its own Parameters; modules composed, in a ModuleList and a ModuleDict;
a training loop with SGD; buffers of a RunningMean module in the state_dict; train and
eval; apply for initialisation; forward and forward pre-hooks."""

import torch
from torch import nn


class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, input):
        return (input @ self.weight) + self.bias


torch.manual_seed(0)
m = MyLinear(4, 3)
sample_input = torch.randn(4)
print(m(sample_input))
for parameter in m.named_parameters():
    print(parameter)

net = nn.Sequential(MyLinear(4, 3), nn.ReLU(), MyLinear(3, 1))
print(net(torch.randn(4)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l0 = MyLinear(4, 3)
        self.l1 = MyLinear(3, 1)

    def forward(self, x):
        x = self.l0(x)
        x = nn.functional.relu(x)
        x = self.l1(x)
        return x


net = Net()
for child in net.named_children():
    print(child)


class BigNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = MyLinear(5, 4)
        self.net = Net()

    def forward(self, x):
        return self.net(self.l1(x))


big_net = BigNet()
for module in big_net.named_modules():
    print(module)


class DynamicNet(nn.Module):
    def __init__(self, num_layers):
        super().__init__()
        self.linears = nn.ModuleList([MyLinear(4, 4) for _ in range(num_layers)])
        self.activations = nn.ModuleDict({"relu": nn.ReLU(), "lrelu": nn.LeakyReLU()})
        self.final = MyLinear(4, 1)

    def forward(self, x, act):
        for linear in self.linears:
            x = linear(x)
        x = self.activations[act](x)
        x = self.final(x)
        return x


dynamic_net = DynamicNet(3)
sample_input = torch.randn(4)
output = dynamic_net(sample_input, "relu")
for parameter in dynamic_net.named_parameters():
    print(parameter[0], tuple(parameter[1].shape))
print(dynamic_net)

net = nn.Sequential(
    nn.Linear(4, 2, dtype=torch.float64), nn.Sigmoid(), nn.Linear(2, 1, dtype=torch.float64)
)
optimizer = torch.optim.SGD(net.parameters(), lr=1e-4, weight_decay=1e-2, momentum=0.9)
for _ in range(10000 // 100):
    input = torch.randn(4, dtype=torch.float64)
    output = net(input)
    loss = torch.abs(output)
    net.zero_grad()
    loss.backward()
    optimizer.step()
print(net[0].weight)
print(net.training)
net.eval()
print(net[0].training)
net.train()


class RunningMean(nn.Module):
    def __init__(self, num_features, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", torch.zeros(num_features))

    def forward(self, x):
        self.mean = self.momentum * self.mean + (1.0 - self.momentum) * x
        return self.mean


m = RunningMean(4)
for _ in range(10):
    input = torch.randn(4)
    m(input)
print(m)
print(m.state_dict())
m_loaded = RunningMean(4)
print(m_loaded.load_state_dict(m.state_dict()))
print(torch.equal(m_loaded.mean, m.mean))


class ModuleWithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buffer1", torch.randn(2))
        self.register_buffer("buffer2", torch.randn(2), persistent=False)
        self.register_buffer("buffer3", torch.randn(2))


m = ModuleWithBuffers()
print(list(m.named_buffers()))
print(m.state_dict())


def my_init(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        m.bias.data.fill_(0.0)


net = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))
net.apply(my_init)
print(net[0].weight, net[2].bias)


def forward_pre_hook(m, inputs):
    input = inputs[0]
    return input + 1.0


def forward_hook(m, inputs, output):
    return output + inputs[0]


m = nn.Linear(3, 3)
x = torch.ones(3)
print(m(x))
handle = m.register_forward_pre_hook(forward_pre_hook)
print(m(x))
forward_hook_handle = m.register_forward_hook(forward_hook)
print(m(x))
handle.remove()
forward_hook_handle.remove()
print(m(x))
