# follows: Dive-into-DL-PyTorch (ShusenTang), section 5.8 "网络中的网络（NiN）" (NiN块,
#   NiN模型, 获取数据和训练模型),
#   https://github.com/ShusenTang/Dive-into-DL-PyTorch/blob/master/docs/chapter05_CNN/5.8_nin.md
"""The book's nin_block (a convolution then two 1x1 convolutions, each with ReLU),
its NiN of three blocks with max pooling, Dropout(0.5), a last block of one channel per
class, GlobalAvgPool2d (F.avg_pool2d over the whole image) and FlattenLayer; the output
shape of each layer, then its train_ch5 loop with Adam. Shrunk to 16 and 32
channels and 3x3 kernels, on random 12x12 images of 4 classes in place of Fashion-MNIST
resized to 224, lr 0.01 and 5 epochs, without the timings."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(4)


def nin_block(in_channels, out_channels, kernel_size, stride, padding):
    blk = nn.Sequential(
        nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding),
        nn.ReLU(),
        nn.Conv2d(out_channels, out_channels, kernel_size=1),
        nn.ReLU(),
        nn.Conv2d(out_channels, out_channels, kernel_size=1),
        nn.ReLU(),
    )
    return blk


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


net = nn.Sequential(
    nin_block(1, 16, kernel_size=3, stride=1, padding=1),
    nn.MaxPool2d(kernel_size=3, stride=2),
    nin_block(16, 32, kernel_size=3, stride=1, padding=1),
    nn.MaxPool2d(kernel_size=3, stride=2),
    nn.Dropout(0.5),
    nin_block(32, 4, kernel_size=3, stride=1, padding=1),
    GlobalAvgPool2d(),
    FlattenLayer(),
)

X = torch.rand(1, 1, 12, 12)
for name, blk in net.named_children():
    X = blk(X)
    print(name, "output shape: ", X.shape)

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
print(net[0][2])
