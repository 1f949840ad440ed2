# follows: Dive-into-DL-PyTorch (ShusenTang), section 3.3 "线性回归的简洁实现"
#   (生成数据集, 定义模型, 初始化模型参数, 定义损失函数, 定义优化算法, 训练模型),
#   https://github.com/ShusenTang/Dive-into-DL-PyTorch/blob/master/docs/chapter03_DL-basics/3.3_linear-regression-pytorch.md
"""The book's data set (np.random.normal features, true_w and true_b, noise), its LinearNet
class and the three ways to write the Sequential (positional, add_module, OrderedDict),
init.normal_ and init.constant_, nn.MSELoss, optim.SGD printed, two parameter groups
with their own learning rates, the learning rate scaled through param_groups, and the
training loop printing 'epoch %d, loss: %f'; minibatches of 10 from a torch.randperm
shuffle in place of its DataLoader, and a seeded NumPy generator."""

from collections import OrderedDict

import numpy as np
import torch
import torch.optim as optim
from torch import nn
from torch.nn import init

torch.manual_seed(1)
np.random.seed(1)
num_inputs = 2
num_examples = 1000
true_w = [2, -3.4]
true_b = 4.2
features = torch.tensor(np.random.normal(0, 1, (num_examples, num_inputs)), dtype=torch.float)
labels = true_w[0] * features[:, 0] + true_w[1] * features[:, 1] + true_b
labels += torch.tensor(np.random.normal(0, 0.01, size=labels.size()), dtype=torch.float)

batch_size = 10


def data_iter():
    order = torch.randperm(num_examples)
    for i in range(0, num_examples, batch_size):
        index = order[i : i + batch_size]
        yield features[index], labels[index]


for X, y in data_iter():
    print(X, y)
    break


class LinearNet(nn.Module):
    def __init__(self, n_feature):
        super(LinearNet, self).__init__()
        self.linear = nn.Linear(n_feature, 1)

    def forward(self, x):
        y = self.linear(x)
        return y


net = LinearNet(num_inputs)
print(net)

net = nn.Sequential(nn.Linear(num_inputs, 1))
net = nn.Sequential()
net.add_module("linear", nn.Linear(num_inputs, 1))
net = nn.Sequential(OrderedDict([("linear", nn.Linear(num_inputs, 1))]))
print(net)
print(net[0])
for param in net.parameters():
    print(param)

init.normal_(net[0].weight, mean=0, std=0.01)
init.constant_(net[0].bias, val=0)

loss = nn.MSELoss()

optimizer = optim.SGD(net.parameters(), lr=0.03)
print(optimizer)

grouped = optim.SGD(
    [{"params": net[0].weight}, {"params": net[0].bias, "lr": 0.01}],
    lr=0.03,
)
print([group["lr"] for group in grouped.param_groups])
for param_group in grouped.param_groups:
    param_group["lr"] *= 0.1
print([round(group["lr"], 6) for group in grouped.param_groups])

num_epochs = 3
for epoch in range(1, num_epochs + 1):
    for X, y in data_iter():
        output = net(X)
        l = loss(output, y.view(-1, 1))
        optimizer.zero_grad()
        l.backward()
        optimizer.step()
    print("epoch %d, loss: %f" % (epoch, l.item()))

dense = net[0]
print(true_w, dense.weight)
print(true_b, dense.bias)
