# follows: PyTorch documentation, "torch.nn.init" (the example of each function:
#   calculate_gain, uniform_, normal_, constant_, ones_, zeros_, eye_, xavier_uniform_,
#   xavier_normal_, kaiming_uniform_, kaiming_normal_),
#   https://pytorch.org/docs/stable/nn.init.html
"""Each initialisation of the page on the page's tensor, from one seed: PyTorch's draws,
so the same numbers to the last printed digit."""

import torch
from torch import nn

torch.manual_seed(0)
gain = nn.init.calculate_gain("leaky_relu", 0.2)
print(gain)
w = torch.empty(3, 5)
print(nn.init.uniform_(w))
print(nn.init.normal_(w))
print(nn.init.constant_(w, 0.3))
print(nn.init.ones_(w))
print(nn.init.zeros_(w))
print(nn.init.eye_(w))
print(nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("relu")))
print(nn.init.xavier_normal_(w))
print(nn.init.kaiming_uniform_(w, mode="fan_in", nonlinearity="relu"))
print(nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"))
w64 = torch.empty(4, 6, dtype=torch.float64)
print(nn.init.uniform_(w64, -0.25, 0.75))
print(nn.init.kaiming_uniform_(w64, a=5**0.5))
for name in ["linear", "conv2d", "sigmoid", "tanh", "relu", "selu"]:
    print(name, nn.init.calculate_gain(name))
