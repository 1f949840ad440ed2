# follows: MorvanZhou/PyTorch-Tutorial, "301_regression.py" (a Net of two Linear layers
#   fitted to noisy y = x^2 with SGD and MSELoss),
#   https://github.com/MorvanZhou/PyTorch-Tutorial/blob/master/tutorial-contents/301_regression.py
"""The tutorial's Net(n_feature, n_hidden, n_output) with F.relu, trained on
unsqueeze(linspace) inputs and x.pow(2) plus torch.rand noise; the loss it draws on its
plot every 5 steps is printed instead (as 'Loss=%.4f' % loss.data.numpy()), a seed in
place of none, and the trained line's predictions at a few points."""

import torch
import torch.nn.functional as F

torch.manual_seed(1)

x = torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1)
y = x.pow(2) + 0.2 * torch.rand(x.size())


class Net(torch.nn.Module):
    def __init__(self, n_feature, n_hidden, n_output):
        super(Net, self).__init__()
        self.hidden = torch.nn.Linear(n_feature, n_hidden)
        self.predict = torch.nn.Linear(n_hidden, n_output)

    def forward(self, x):
        x = F.relu(self.hidden(x))
        x = self.predict(x)
        return x


net = Net(n_feature=1, n_hidden=10, n_output=1)
print(net)

optimizer = torch.optim.SGD(net.parameters(), lr=0.2)
loss_func = torch.nn.MSELoss()

for t in range(200):
    prediction = net(x)
    loss = loss_func(prediction, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if t % 20 == 0:
        print(t, "Loss=%.4f" % loss.data.numpy())

print(x.shape, y.shape, prediction.shape)
print(net(torch.tensor([[-1.0], [0.0], [0.5], [1.0]])).detach())
