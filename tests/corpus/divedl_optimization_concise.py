# follows: Dive-into-DL-PyTorch (ShusenTang), chapter 7 "优化算法", the concise
#   implementations of sections 7.3 "小批量随机梯度下降", 7.4 "动量法", 7.5 "AdaGrad算法",
#   7.6 "RMSProp算法", 7.7 "AdaDelta算法" and 7.8 "Adam算法",
#   https://github.com/ShusenTang/Dive-into-DL-PyTorch/blob/master/docs/chapter07_optimization/7.3_minibatch-sgd.md
#   and https://github.com/ShusenTang/Dive-into-DL-PyTorch/blob/master/docs/chapter07_optimization/7.7_adadelta.md
"""The book's train_pytorch_ch7 (a Linear model, MSELoss halved, the whole data set's loss
recorded every 100 examples) run with each optimiser and the hyperparameters of its
section: SGD (lr 0.05), SGD with momentum, Adagrad, RMSprop (alpha 0.9), Adadelta
(rho 0.9) and Adam. get_data_ch7's airfoil data (1500 standardised rows of 5 features)
are replaced by random rows with a linear target, standardised the same way; the
minibatches come from a torch.randperm shuffle in place of its DataLoader; the timing
and the plot are left out, the recorded losses printed every 5th."""

import numpy as np
import torch
from torch import nn, optim

torch.manual_seed(0)


def get_data_ch7():
    rng = np.random.default_rng(0)
    inputs = rng.normal(size=(1500, 5))
    target = inputs @ np.array([1.0, -2.0, 0.5, 3.0, -1.0]) + rng.normal(size=1500)
    data = np.column_stack([inputs, target])
    data = (data - data.mean(axis=0)) / data.std(axis=0)
    return torch.tensor(data[:1500, :-1], dtype=torch.float32), torch.tensor(
        data[:1500, -1], dtype=torch.float32
    )


features, labels = get_data_ch7()
print(features.shape)


def train_pytorch_ch7(optimizer_fn, optimizer_hyperparams, features, labels, batch_size=10,
                      num_epochs=2):  # fmt: skip
    net = nn.Sequential(nn.Linear(features.shape[-1], 1))
    loss = nn.MSELoss()
    optimizer = optimizer_fn(net.parameters(), **optimizer_hyperparams)

    def eval_loss():
        return loss(net(features).view(-1), labels).item() / 2

    ls = [eval_loss()]
    for _ in range(num_epochs):
        order = torch.randperm(len(features))
        for batch_i in range(len(features) // batch_size):
            index = order[batch_i * batch_size : (batch_i + 1) * batch_size]
            X, y = features[index], labels[index]
            l = loss(net(X).view(-1), y) / 2
            optimizer.zero_grad()
            l.backward()
            optimizer.step()
            if (batch_i + 1) * batch_size % 100 == 0:
                ls.append(eval_loss())
    print("loss: %f" % ls[-1])
    print(" ".join("%.4f" % value for value in ls[::5]))


train_pytorch_ch7(optim.SGD, {"lr": 0.05}, features, labels, 10)
train_pytorch_ch7(torch.optim.SGD, {"lr": 0.004, "momentum": 0.9}, features, labels)
train_pytorch_ch7(torch.optim.Adagrad, {"lr": 0.1}, features, labels)
train_pytorch_ch7(torch.optim.RMSprop, {"lr": 0.01, "alpha": 0.9}, features, labels)
train_pytorch_ch7(torch.optim.Adadelta, {"rho": 0.9}, features, labels)
train_pytorch_ch7(torch.optim.Adam, {"lr": 0.01}, features, labels)
