# follows: Dive-into-DL-PyTorch (ShusenTang), section 3.8 "多层感知机" (激活函数:
#   ReLU函数, sigmoid函数, tanh函数 and their derivatives),
#   https://github.com/ShusenTang/Dive-into-DL-PyTorch/blob/master/docs/chapter03_DL-basics/3.8_mlp.md
"""relu, sigmoid and tanh over a grid, each derivative from backward of the sum, the
gradient zeroed in between."""

import torch

x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
y = x.relu()
print(y[75:85])
y.sum().backward()
print(x.grad[75:85])

y = x.sigmoid()
x.grad.zero_()
y.sum().backward()
print(y[::20])
print(x.grad[::20])

y = x.tanh()
x.grad.zero_()
y.sum().backward()
print(y[::20])
print(x.grad[::20])
print(x.grad.max().item() == x.grad[80].item())
