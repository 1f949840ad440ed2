# follows: Dive-into-DL-PyTorch (ShusenTang), section 5.11 "残差网络（ResNet）" (残差块,
#   ResNet模型, 获取数据和训练模型),
#   https://github.com/ShusenTang/Dive-into-DL-PyTorch/blob/master/docs/chapter05_CNN/5.11_resnet.md
"""The book's Residual block (two 3x3 convolutions with BatchNorm2d, an optional 1x1
convolution on the shortcut), resnet_block, the layers added by add_module with the
book's GlobalAvgPool2d (F.avg_pool2d over the whole image) and FlattenLayer, the shape
of each layer's output, and its train_ch5 loop with Adam (evaluate_accuracy in eval
mode); shrunk to 8 and 16 channels and two blocks, on random 12x12 images of 4 classes
in place of Fashion-MNIST, 3 epochs, without the timings."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class Residual(nn.Module):
    def __init__(self, in_channels, out_channels, use_1x1conv=False, stride=1):
        super(Residual, self).__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, stride=stride)
        self.conv2 = nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1)
        if use_1x1conv:
            self.conv3 = nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=stride)
        else:
            self.conv3 = None
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.bn2 = nn.BatchNorm2d(out_channels)

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3:
            X = self.conv3(X)
        return F.relu(Y + X)


blk = Residual(3, 3)
X = torch.rand((4, 3, 6, 6))
print(blk(X).shape)
blk = Residual(3, 6, use_1x1conv=True, stride=2)
print(blk(X).shape)


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


def resnet_block(in_channels, out_channels, num_residuals, first_block=False):
    if first_block:
        assert in_channels == out_channels
    blk = []
    for i in range(num_residuals):
        if i == 0 and not first_block:
            blk.append(Residual(in_channels, out_channels, use_1x1conv=True, stride=2))
        else:
            blk.append(Residual(out_channels, out_channels))
    return nn.Sequential(*blk)


net = nn.Sequential(
    nn.Conv2d(1, 8, kernel_size=3, stride=1, padding=1),
    nn.BatchNorm2d(8),
    nn.ReLU(),
    nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
)
net.add_module("resnet_block1", resnet_block(8, 8, 1, first_block=True))
net.add_module("resnet_block2", resnet_block(8, 16, 1))
net.add_module("global_avg_pool", GlobalAvgPool2d())
net.add_module("fc", nn.Sequential(FlattenLayer(), nn.Linear(16, 4)))

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
print(net.resnet_block2[0].bn1.num_batches_tracked, net[1].running_var.shape)
