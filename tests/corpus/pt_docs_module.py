# follows: PyTorch documentation, "Module" (the examples of apply, buffers, children,
#   modules, named_modules, named_parameters, parameters, register_buffer, state_dict,
#   to, zero_grad), https://pytorch.org/docs/stable/generated/torch.nn.Module.html
"""The page's examples: init_weights applied to a Sequential of one Linear twice, a
module listed once by modules() and named_modules() though held twice, buffers and
parameters by name, state_dict's keys, to(torch.double) on a Linear."""

import torch
from torch import nn

torch.manual_seed(0)


@torch.no_grad()
def init_weights(m):
    print(m)
    if type(m) is nn.Linear:
        m.weight.fill_(1.0)
        print(m.weight)


net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
print(net.apply(init_weights))

l = nn.Linear(2, 2)
net = nn.Sequential(l, l)
for idx, m in enumerate(net.modules()):
    print(idx, "->", m)
for idx, m in enumerate(net.named_modules()):
    print(idx, "->", m)
print(len(list(net.parameters())), [name for name, _ in net.named_parameters()])


class WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(3))
        self.register_buffer("running_var", torch.ones(3))
        self.lin = nn.Linear(3, 1)


module = WithBuffers()
for buf in module.buffers():
    print(isinstance(buf, torch.Tensor), buf.size())
for name, buf in module.named_buffers():
    if name in ["running_var"]:
        print(buf.size())
for param in module.parameters():
    print(isinstance(param, nn.Parameter), param.size())
for name, param in module.named_parameters():
    if name in ["lin.bias"]:
        print(param.size())
print(module.state_dict().keys())
print([name for name, _ in module.named_children()], list(module.children()))

linear = nn.Linear(2, 2)
print(linear.weight)
linear.to(torch.double)
print(linear)
print(linear.weight)
print(linear.weight.dtype, linear(torch.ones(1, 2, dtype=torch.double)))
linear(torch.ones(3, 2, dtype=torch.double)).sum().backward()
print(linear.weight.grad)
linear.zero_grad()
print(linear.weight.grad)
