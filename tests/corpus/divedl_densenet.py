# follows: Dive-into-DL-PyTorch (ShusenTang), section 5.12 "稠密连接网络（DenseNet）"
#   (稠密块, 过渡层, DenseNet模型, 获取数据并训练模型),
#   https://github.com/ShusenTang/Dive-into-DL-PyTorch/blob/master/docs/chapter05_CNN/5.12_densenet.md
"""The book's conv_block (BatchNorm2d, ReLU, 3x3 convolution), DenseBlock (a ModuleList of
them, each output concatenated to its input on the channel axis, out_channels counted),
transition_block (1x1 convolution and AvgPool2d), the DenseNet put together by
add_module with GlobalAvgPool2d and FlattenLayer, the output shapes, and its train_ch5
loop with Adam (evaluate_accuracy in eval mode). Shrunk to 8 channels, a growth rate of
4 and two blocks of two convolutions, on random 12x12 images of 4 classes in place of
Fashion-MNIST resized to 96, 3 epochs, without the timings."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


def conv_block(in_channels, out_channels):
    blk = nn.Sequential(
        nn.BatchNorm2d(in_channels),
        nn.ReLU(),
        nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1),
    )
    return blk


class DenseBlock(nn.Module):
    def __init__(self, num_convs, in_channels, out_channels):
        super(DenseBlock, self).__init__()
        net = []
        for i in range(num_convs):
            in_c = in_channels + i * out_channels
            net.append(conv_block(in_c, out_channels))
        self.net = nn.ModuleList(net)
        self.out_channels = in_channels + num_convs * out_channels

    def forward(self, X):
        for blk in self.net:
            Y = blk(X)
            X = torch.cat((X, Y), dim=1)
        return X


blk = DenseBlock(2, 3, 10)
X = torch.rand(4, 3, 8, 8)
Y = blk(X)
print(Y.shape)


def transition_block(in_channels, out_channels):
    blk = nn.Sequential(
        nn.BatchNorm2d(in_channels),
        nn.ReLU(),
        nn.Conv2d(in_channels, out_channels, kernel_size=1),
        nn.AvgPool2d(kernel_size=2, stride=2),
    )
    return blk


blk = transition_block(23, 10)
print(blk(Y).shape)


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
    nn.Conv2d(1, 8, kernel_size=3, stride=1, padding=1),
    nn.BatchNorm2d(8),
    nn.ReLU(),
    nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
)
num_channels, growth_rate = 8, 4
num_convs_in_dense_blocks = [2, 2]
for i, num_convs in enumerate(num_convs_in_dense_blocks):
    DB = DenseBlock(num_convs, num_channels, growth_rate)
    net.add_module("DenseBlosk_%d" % i, DB)
    num_channels = DB.out_channels
    if i != len(num_convs_in_dense_blocks) - 1:
        net.add_module("transition_block_%d" % i, transition_block(num_channels, num_channels // 2))
        num_channels = num_channels // 2
net.add_module("BN", nn.BatchNorm2d(num_channels))
net.add_module("relu", nn.ReLU())
net.add_module("global_avg_pool", GlobalAvgPool2d())
net.add_module("fc", nn.Sequential(FlattenLayer(), nn.Linear(num_channels, 4)))

X = torch.rand((1, 1, 12, 12))
for name, layer in net.named_children():
    X = layer(X)
    print(name, " output shape:\t", X.shape)

templates = torch.rand(4, 1, 12, 12)
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
lr, num_epochs = 0.001, 3
optimizer = torch.optim.Adam(net.parameters(), lr=lr)
train_ch5(net, batch_size, optimizer, num_epochs)
print(net.DenseBlosk_1.net[1])
