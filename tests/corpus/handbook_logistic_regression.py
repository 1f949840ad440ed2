# follows: pytorch-handbook (zergtant), chapter 3 "3.1 logistic回归实战" (the German
#   credit data standardised, an LR module of nn.Linear(24, 2) and sigmoid, trained with
#   CrossEntropyLoss and Adam, tested every 100 epochs),
#   https://github.com/zergtant/pytorch-handbook/blob/master/chapter3/3.1-logistic-regression.ipynb
"""The chapter's code on 1000 random rows of 24 numeric features and a label of 1 or 2
(a noisy linear rule) in place of german.data-numeric read by np.loadtxt: each column
standardised, the rows shuffled by np.random.shuffle (seeded), 900 for training; its LR
module, test function, training loop in train() and evaluation in eval(), for 500
epochs in place of 1000."""

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)

features = np.random.randn(1000, 24) * np.random.uniform(0.5, 3.0, 24) + np.random.randn(24)
rule = features @ np.random.randn(24) / 10 + np.random.randn(1000)
data = np.column_stack([features, 1 + (rule > 0)])

n, l = data.shape
for j in range(l - 1):
    meanVal = np.mean(data[:, j])
    stdVal = np.std(data[:, j])
    data[:, j] = (data[:, j] - meanVal) / stdVal

np.random.shuffle(data)

train_data = data[:900, : l - 1]
train_lab = data[:900, l - 1] - 1
test_data = data[900:, : l - 1]
test_lab = data[900:, l - 1] - 1


class LR(nn.Module):
    def __init__(self):
        super(LR, self).__init__()
        self.fc = nn.Linear(24, 2)

    def forward(self, x):
        out = self.fc(x)
        out = torch.sigmoid(out)
        return out


def test(pred, lab):
    t = pred.max(-1)[1] == lab
    return torch.mean(t.float())


net = LR()
criterion = nn.CrossEntropyLoss()
optm = torch.optim.Adam(net.parameters())
epochs = 500

for i in range(epochs):
    net.train()
    x = torch.from_numpy(train_data).float()
    y = torch.from_numpy(train_lab).long()
    y_hat = net(x)
    loss = criterion(y_hat, y)
    optm.zero_grad()
    loss.backward()
    optm.step()
    if (i + 1) % 100 == 0:
        net.eval()
        test_in = torch.from_numpy(test_data).float()
        test_l = torch.from_numpy(test_lab).long()
        test_out = net(test_in)
        accu = test(test_out, test_l)
        print("Epoch:{},Loss:{:.4f},Accuracy：{:.2f}".format(i + 1, loss.item(), accu))
print(net)
print(optm.state_dict()["state"][1]["step"])
