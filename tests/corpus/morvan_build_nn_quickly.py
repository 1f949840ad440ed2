# follows: MorvanZhou/PyTorch-Tutorial, "303_build_nn_quickly.py" (the same network as a
#   Module subclass and as a torch.nn.Sequential),
#   https://github.com/MorvanZhou/PyTorch-Tutorial/blob/master/tutorial-contents/303_build_nn_quickly.py
"""The tutorial's net1 (a Net class with F.relu) and net2 (Sequential of Linear, ReLU,
Linear) printed; then, to show they are one network, net2 takes net1's parameters and
both are trained side by side with SGD on the regression data of 301_regression, their
losses printed as the tutorial series prints them (4 decimals)."""

import torch
import torch.nn.functional as F

torch.manual_seed(1)


class Net(torch.nn.Module):
    def __init__(self, n_feature, n_hidden, n_output):
        super(Net, self).__init__()
        self.hidden = torch.nn.Linear(n_feature, n_hidden)
        self.predict = torch.nn.Linear(n_hidden, n_output)

    def forward(self, x):
        x = F.relu(self.hidden(x))
        x = self.predict(x)
        return x


net1 = Net(1, 10, 1)

net2 = torch.nn.Sequential(torch.nn.Linear(1, 10), torch.nn.ReLU(), torch.nn.Linear(10, 1))

print(net1)
print(net2)
print([name for name, _ in net1.named_parameters()])
print(list(net2.state_dict().keys()))

with torch.no_grad():
    for p1, p2 in zip(net1.parameters(), net2.parameters()):
        p2.copy_(p1)

x = torch.unsqueeze(torch.linspace(-1, 1, 50), dim=1)
y = x.pow(2) + 0.2 * torch.rand(x.size())
opt1 = torch.optim.SGD(net1.parameters(), lr=0.3)
opt2 = torch.optim.SGD(net2.parameters(), lr=0.3)
loss_func = torch.nn.MSELoss()
for t in range(60):
    losses = []
    for net, opt in ((net1, opt1), (net2, opt2)):
        loss = loss_func(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss)
    if t % 10 == 0:
        print("step %d net1 Loss=%.4f net2 Loss=%.4f" % (t, losses[0].item(), losses[1].item()))
print(torch.equal(net1.predict.weight, net2[2].weight))
print(net2[0].bias)
