# follows: MorvanZhou/PyTorch-Tutorial, "306_optimizer.py" (one Net per optimiser: SGD,
#   Momentum, RMSprop and Adam trained on the same minibatches),
#   https://github.com/MorvanZhou/PyTorch-Tutorial/blob/master/tutorial-contents/306_optimizer.py
"""The tutorial's four nets and four optimisers (SGD; SGD with momentum=0.8; RMSprop with
alpha=0.9; Adam with betas=(0.9, 0.99)) trained on noisy x^2 with MSELoss; minibatches of
32 are cut from a torch.randperm shuffle in place of its DataLoader, on 200 points and 4
epochs in place of 1000 and 12, and the loss history it plots is printed as each
optimiser's mean loss per epoch."""

import torch
import torch.nn.functional as F

torch.manual_seed(1)

LR = 0.01
BATCH_SIZE = 32
EPOCH = 4

x = torch.unsqueeze(torch.linspace(-1, 1, 200), dim=1)
y = x.pow(2) + 0.1 * torch.normal(torch.zeros(*x.size()))


def loader():
    order = torch.randperm(len(x))
    for i in range(0, len(x), BATCH_SIZE):
        index = order[i : i + BATCH_SIZE]
        yield x[index], y[index]


class Net(torch.nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.hidden = torch.nn.Linear(1, 20)
        self.predict = torch.nn.Linear(20, 1)

    def forward(self, x):
        x = F.relu(self.hidden(x))
        x = self.predict(x)
        return x


net_SGD = Net()
net_Momentum = Net()
net_RMSprop = Net()
net_Adam = Net()
nets = [net_SGD, net_Momentum, net_RMSprop, net_Adam]

opt_SGD = torch.optim.SGD(net_SGD.parameters(), lr=LR)
opt_Momentum = torch.optim.SGD(net_Momentum.parameters(), lr=LR, momentum=0.8)
opt_RMSprop = torch.optim.RMSprop(net_RMSprop.parameters(), lr=LR, alpha=0.9)
opt_Adam = torch.optim.Adam(net_Adam.parameters(), lr=LR, betas=(0.9, 0.99))
optimizers = [opt_SGD, opt_Momentum, opt_RMSprop, opt_Adam]

loss_func = torch.nn.MSELoss()
losses_his = [[], [], [], []]

for epoch in range(EPOCH):
    print("Epoch: ", epoch)
    for b_x, b_y in loader():
        for net, opt, l_his in zip(nets, optimizers, losses_his):
            output = net(b_x)
            loss = loss_func(output, b_y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            l_his.append(loss.data.numpy())
    for label, l_his in zip(["SGD", "Momentum", "RMSprop", "Adam"], losses_his):
        steps = len(l_his) // (epoch + 1)
        print("%-8s mean loss %.4f" % (label, sum(l_his[-steps:]) / steps))

print(len(losses_his[0]), type(losses_his[0][0]).__name__, losses_his[0][0].dtype)
print(opt_Momentum)
print(opt_Adam.state_dict()["param_groups"][0]["betas"])
print(sorted(opt_RMSprop.state[net_RMSprop.predict.weight].keys()))
