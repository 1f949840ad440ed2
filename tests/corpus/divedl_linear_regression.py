# follows: Dive-into-DL-PyTorch (ShusenTang), section 3.2 "线性回归的从零开始实现"
#   (生成数据集, 读取数据, 初始化模型参数, 定义模型, 定义损失函数, 定义优化算法, 训练模型),
#   https://github.com/ShusenTang/Dive-into-DL-PyTorch/blob/master/docs/chapter03_DL-basics/3.2_linear-regression-scratch.md
"""The book's linear regression with parameters whose gradients are zeroed through .data,
parameters updated through .data, and minibatches by index_select."""

import random

import numpy as np
import torch

num_inputs = 2
num_examples = 1000
true_w = [2, -3.4]
true_b = 4.2
rng = np.random.default_rng(0)
features = torch.tensor(rng.normal(0, 1, (num_examples, num_inputs)), dtype=torch.float64)
labels = true_w[0] * features[:, 0] + true_w[1] * features[:, 1] + true_b
labels += torch.tensor(rng.normal(0, 0.01, size=labels.size()), dtype=torch.float64)
print(features[0], labels[0])


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        j = torch.LongTensor(indices[i : min(i + batch_size, num_examples)])
        yield features.index_select(0, j), labels.index_select(0, j)


random.seed(1)
w = torch.tensor(rng.normal(0, 0.01, (num_inputs, 1)), dtype=torch.float64)
b = torch.zeros(1, dtype=torch.float64)
w.requires_grad_(requires_grad=True)
b.requires_grad_(requires_grad=True)


def linreg(X, w, b):
    return torch.mm(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.view(y_hat.size())) ** 2 / 2


def sgd(params, lr, batch_size):
    for param in params:
        param.data -= lr * param.grad / batch_size


lr = 0.03
num_epochs = 3
net = linreg
loss = squared_loss
batch_size = 10
for epoch in range(num_epochs):
    for X, y in data_iter(batch_size, features, labels):
        l = loss(net(X, w, b), y).sum()  # noqa: E741  (the book's name)
        l.backward()
        sgd([w, b], lr, batch_size)
        w.grad.data.zero_()
        b.grad.data.zero_()
    train_l = loss(net(features, w, b), labels)
    print("epoch %d, loss %f" % (epoch + 1, train_l.mean().item()))  # noqa: UP031  (the book's)
print(true_w, [round(v, 3) for v in w.view(-1).tolist()])
print(true_b, round(b.item(), 3))
