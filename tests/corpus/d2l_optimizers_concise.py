# follows: Dive into Deep Learning (d2l.ai), chapter 12 "Optimization Algorithms", the
#   concise implementations of sections 12.6 Momentum, 12.7 Adagrad, 12.8 RMSProp and
#   12.10 Adam (train_concise_ch11 with torch.optim),
#   https://d2l.ai/chapter_optimization/adam.html
"""The chapter's train_concise_ch11: nn.Linear(5, 1) initialised with normal_(std=0.01),
MSELoss(reduction='none') halved, trained with SGD with momentum, Adagrad, RMSprop and
Adam on a synthetic regression set standing in for the airfoil data, in float64."""

import torch
from torch import nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
features = torch.randn(500, 5)
labels = features @ torch.tensor([0.5, -1.0, 0.25, 2.0, -0.3]) + 0.1 * torch.randn(500)


def train_concise_ch11(trainer_fn, hyperparams, num_epochs=4, batch_size=10):
    torch.manual_seed(1)
    net = nn.Sequential(nn.Linear(5, 1))

    def init_weights(module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, std=0.01)

    net.apply(init_weights)
    optimizer = trainer_fn(net.parameters(), **hyperparams)
    loss = nn.MSELoss(reduction="none")
    for epoch in range(num_epochs):
        order = torch.randperm(len(features))
        for i in range(0, len(features), batch_size):
            batch = order[i : i + batch_size]
            X, y = features[batch], labels[batch]
            optimizer.zero_grad()
            out = net(X)
            y = y.reshape(out.shape)
            l = loss(out, y)
            l.mean().backward()
            optimizer.step()
        with torch.no_grad():
            full = (loss(net(features), labels.reshape(-1, 1)) / 2).mean()
        print(f"  epoch {epoch + 1}, loss: {full:.6f}")
    print(f"  w: {net[0].weight.data}")
    return net


for name, trainer, hyperparams in [
    ("momentum", torch.optim.SGD, {"lr": 0.005, "momentum": 0.9}),
    ("adagrad", torch.optim.Adagrad, {"lr": 0.1}),
    ("rmsprop", torch.optim.RMSprop, {"lr": 0.01, "alpha": 0.9}),
    ("adam", torch.optim.Adam, {"lr": 0.01}),
    ("adamw", torch.optim.AdamW, {"lr": 0.01, "weight_decay": 0.1}),
]:
    print(name)
    train_concise_ch11(trainer, hyperparams)
