# follows: Dive-into-DL-PyTorch (ShusenTang), section 5.9 "含并行连结的网络（GoogLeNet）"
#   (Inception 块, GoogLeNet模型, 获取数据和训练模型),
#   https://github.com/ShusenTang/Dive-into-DL-PyTorch/blob/master/docs/chapter05_CNN/5.9_googlenet.md
"""The book's Inception block (four paths: a 1x1 convolution; 1x1 then 3x3; 1x1 then 5x5;
3x3 max pooling then 1x1; concatenated on the channel axis), the GoogLeNet stages as
Sequentials ending in GlobalAvgPool2d (F.avg_pool2d over the whole image) and
FlattenLayer, the output shape of each stage, and its train_ch5 loop with Adam
(evaluate_accuracy in eval mode). Shrunk to four stages (b1, b2, then one or two
Inception blocks in each of the last two) with a few channels each, on random 12x12
images of 4 classes in place of Fashion-MNIST resized to 96, 5 epochs, without the
timings."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class Inception(nn.Module):
    def __init__(self, in_c, c1, c2, c3, c4):
        super(Inception, self).__init__()
        self.p1_1 = nn.Conv2d(in_c, c1, kernel_size=1)
        self.p2_1 = nn.Conv2d(in_c, c2[0], kernel_size=1)
        self.p2_2 = nn.Conv2d(c2[0], c2[1], kernel_size=3, padding=1)
        self.p3_1 = nn.Conv2d(in_c, c3[0], kernel_size=1)
        self.p3_2 = nn.Conv2d(c3[0], c3[1], kernel_size=5, padding=2)
        self.p4_1 = nn.MaxPool2d(kernel_size=3, stride=1, padding=1)
        self.p4_2 = nn.Conv2d(in_c, c4, kernel_size=1)

    def forward(self, x):
        p1 = F.relu(self.p1_1(x))
        p2 = F.relu(self.p2_2(F.relu(self.p2_1(x))))
        p3 = F.relu(self.p3_2(F.relu(self.p3_1(x))))
        p4 = F.relu(self.p4_2(self.p4_1(x)))
        return torch.cat((p1, p2, p3, p4), dim=1)


class GlobalAvgPool2d(nn.Module):
    def __init__(self):
        super(GlobalAvgPool2d, self).__init__()

    def forward(self, x):
        return F.avg_pool2d(x, kernel_size=x.size()[2:])


class FlattenLayer(nn.Module):
    def __init__(self):
        super(FlattenLayer, self).__init__()

    def forward(self, x):
        return x.view(x.shape[0], -1)


b1 = nn.Sequential(
    nn.Conv2d(1, 8, kernel_size=3, stride=1, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
)
b2 = nn.Sequential(
    nn.Conv2d(8, 8, kernel_size=1),
    nn.Conv2d(8, 16, kernel_size=3, padding=1),
    nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
)
b3 = nn.Sequential(
    Inception(16, 4, (4, 8), (2, 2), 2),
    Inception(16, 8, (4, 8), (2, 4), 4),
    nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
)
b4 = nn.Sequential(Inception(24, 8, (4, 8), (2, 4), 4), GlobalAvgPool2d())
net = nn.Sequential(b1, b2, b3, b4, FlattenLayer(), nn.Linear(24, 4))

X = torch.rand(1, 1, 12, 12)
for blk in net.children():
    X = blk(X)
    print("output shape: ", X.shape)

templates = 2 * torch.randn(4, 1, 12, 12)
train_labels = torch.randint(0, 4, (160,))
train_images = templates[train_labels] + 0.3 * torch.randn(160, 1, 12, 12)
test_labels = torch.randint(0, 4, (80,))
test_images = templates[test_labels] + 0.3 * torch.randn(80, 1, 12, 12)


def batches(images, labels, batch_size):
    for i in range(0, len(images), batch_size):
        yield images[i : i + batch_size], labels[i : i + batch_size]


def evaluate_accuracy(data_iter, net):
    acc_sum, n = 0.0, 0
    with torch.no_grad():
        for X, y in data_iter:
            net.eval()
            acc_sum += (net(X).argmax(dim=1) == y).float().sum().item()
            net.train()
            n += y.shape[0]
    return acc_sum / n


def train_ch5(net, batch_size, optimizer, num_epochs):
    loss = torch.nn.CrossEntropyLoss()
    for epoch in range(num_epochs):
        train_l_sum, train_acc_sum, n, batch_count = 0.0, 0.0, 0, 0
        for X, y in batches(train_images, train_labels, batch_size):
            y_hat = net(X)
            l = loss(y_hat, y)
            optimizer.zero_grad()
            l.backward()
            optimizer.step()
            train_l_sum += l.item()
            train_acc_sum += (y_hat.argmax(dim=1) == y).sum().item()
            n += y.shape[0]
            batch_count += 1
        test_acc = evaluate_accuracy(batches(test_images, test_labels, batch_size), net)
        print(
            "epoch %d, loss %.4f, train acc %.3f, test acc %.3f"
            % (epoch + 1, train_l_sum / batch_count, train_acc_sum / n, test_acc)
        )


batch_size = 32
lr, num_epochs = 0.01, 5
optimizer = torch.optim.Adam(net.parameters(), lr=lr)
train_ch5(net, batch_size, optimizer, num_epochs)
print(b3[1])
