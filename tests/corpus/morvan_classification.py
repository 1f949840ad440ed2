# follows: MorvanZhou/PyTorch-Tutorial, "302_classification.py" (two clusters of points
#   told apart by a Net trained with SGD and CrossEntropyLoss),
#   https://github.com/MorvanZhou/PyTorch-Tutorial/blob/master/tutorial-contents/302_classification.py
"""The tutorial's fake data (torch.normal around 2 and -2, cat, type(FloatTensor) and
type(LongTensor)), its Net with F.relu, and the accuracy it draws on its plot every 2
steps printed instead (from torch.max(out, 1)[1] through numpy, as the tutorial
computes it), with a seed in place of none and the loss printed at 4 decimals."""

import torch
import torch.nn.functional as F

torch.manual_seed(1)

n_data = torch.ones(100, 2)
x0 = torch.normal(2 * n_data, 1)
y0 = torch.zeros(100)
x1 = torch.normal(-2 * n_data, 1)
y1 = torch.ones(100)
x = torch.cat((x0, x1), 0).type(torch.FloatTensor)
y = torch.cat((y0, y1)).type(torch.LongTensor)
print(x.shape, x.dtype, y.shape, y.dtype)


class Net(torch.nn.Module):
    def __init__(self, n_feature, n_hidden, n_output):
        super(Net, self).__init__()
        self.hidden = torch.nn.Linear(n_feature, n_hidden)
        self.out = torch.nn.Linear(n_hidden, n_output)

    def forward(self, x):
        x = F.relu(self.hidden(x))
        x = self.out(x)
        return x


net = Net(n_feature=2, n_hidden=10, n_output=2)
print(net)

optimizer = torch.optim.SGD(net.parameters(), lr=0.02)
loss_func = torch.nn.CrossEntropyLoss()

for t in range(100):
    out = net(x)
    loss = loss_func(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if t % 10 == 0:
        prediction = torch.max(out, 1)[1]
        pred_y = prediction.data.numpy()
        target_y = y.data.numpy()
        accuracy = float((pred_y == target_y).astype(int).sum()) / float(target_y.size)
        print("step %d Loss=%.4f Accuracy=%.2f" % (t, loss.data.numpy(), accuracy))

print(F.softmax(net(x[:3]), dim=1).detach())
print(torch.max(net(x[-3:]), 1))
