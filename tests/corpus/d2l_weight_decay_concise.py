# follows: Dive into Deep Learning (d2l.ai), section 3.7 "Weight Decay", Concise
#   Implementation, https://d2l.ai/chapter_linear-regression/weight-decay.html
"""High-dimensional linear regression with few samples, trained by SGD whose weight decay
is set on the weight's parameter group alone (the bias's group has none), without and
with decay, and the L2 norm of the weights it leaves."""

import torch
from torch import nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
n_train, n_test, num_inputs = 20, 100, 200
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05
X = torch.randn(n_train + n_test, num_inputs)
y = X @ true_w + true_b + 0.01 * torch.randn(n_train + n_test, 1)
train_x, train_y, test_x, test_y = X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def train_concise(wd):
    net = nn.Sequential(nn.Linear(num_inputs, 1))
    for param in net.parameters():
        param.data.normal_()
    loss = nn.MSELoss(reduction="none")
    num_epochs, lr = 100, 0.003
    trainer = torch.optim.SGD(
        [{"params": net[0].weight, "weight_decay": wd}, {"params": net[0].bias}], lr=lr
    )
    for epoch in range(num_epochs):
        for i in range(0, n_train, 5):
            trainer.zero_grad()
            l = loss(net(train_x[i : i + 5]), train_y[i : i + 5])
            l.mean().backward()
            trainer.step()
        if (epoch + 1) % 25 == 0:
            with torch.no_grad():
                print(
                    epoch + 1,
                    f"{loss(net(train_x), train_y).mean():.4f}",
                    f"{loss(net(test_x), test_y).mean():.4f}",
                )
    print("L2 norm of w:", f"{net[0].weight.norm().item():.6f}")
    print([group["weight_decay"] for group in trainer.param_groups])


train_concise(0)
train_concise(3)
