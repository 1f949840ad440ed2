# follows: Dive into Deep Learning (d2l.ai), section 12.9 "Adadelta", Concise
#   Implementation, https://d2l.ai/chapter_optimization/adadelta.html
"""train_concise_ch11 with torch.optim.Adadelta ({"rho": 0.9}, no learning rate given):
nn.Linear(5, 1), initialised by normal_(std=0.01), trained on minibatches of 10 with
MSELoss(reduction="none") / 2, printed every 50 minibatches; then the optimiser and the
two running averages it keeps per parameter. The chapter's airfoil data (a download) is
replaced by 1500 synthetic rows of 5 standardised features with a linear target and
noise; float64."""

import torch
from torch import nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
features = torch.randn(1500, 5)
true_w = torch.tensor([[0.6], [-1.2], [0.3], [0.8], [-0.5]])
labels = features @ true_w + 0.1 * torch.randn(1500, 1)
labels = (labels - labels.mean()) / labels.std()


def data_iter(batch_size):
    for i in range(0, len(features), batch_size):
        yield features[i : i + batch_size], labels[i : i + batch_size]


def evaluate_loss(net, loss):
    with torch.no_grad():
        return (loss(net(features), labels).mean() / 2).item()


def train_concise_ch11(trainer_fn, hyperparams, num_epochs=2):
    net = nn.Sequential(nn.Linear(5, 1))

    def init_weights(module):
        if type(module) is nn.Linear:
            torch.nn.init.normal_(module.weight, std=0.01)

    net.apply(init_weights)
    optimizer = trainer_fn(net.parameters(), **hyperparams)
    loss = nn.MSELoss(reduction="none")
    n = 0
    for _ in range(num_epochs):
        for X, y in data_iter(10):
            optimizer.zero_grad()
            out = net(X)
            y = y.reshape(out.shape)
            l = loss(out, y)
            l.mean().backward()
            optimizer.step()
            n += X.shape[0]
            if n % 500 == 0:
                print(f"epoch {n / len(features):.3f}, loss {evaluate_loss(net, loss):.6f}")
    print(f"loss: {evaluate_loss(net, loss):.6f}")
    print(net[0].weight.data.round(decimals=6), net[0].bias.data.round(decimals=6))
    return optimizer


trainer = torch.optim.Adadelta
optimizer = train_concise_ch11(trainer, {"rho": 0.9})
print(optimizer)
state = optimizer.state[optimizer.param_groups[0]["params"][0]]
print(sorted(state), state["step"])
print(state["square_avg"].round(decimals=8), state["acc_delta"].round(decimals=8))
