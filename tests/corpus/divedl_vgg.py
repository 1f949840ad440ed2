# follows: Dive-into-DL-PyTorch (ShusenTang), section 5.7 "使用重复元素的网络（VGG）"
#   (VGG块, VGG网络, 获取数据和训练模型),
#   https://github.com/ShusenTang/Dive-into-DL-PyTorch/blob/master/docs/chapter05_CNN/5.7_vgg.md
"""The book's vgg_block (3x3 convolutions with ReLU, then 2x2 max pooling) and vgg(conv_arch,
fc_features, fc_hidden_units) built by add_module with its fully connected part
(FlattenLayer, Linear, ReLU, Dropout(0.5), twice, then Linear), the output shape of each
block, the narrower network made with ratio = 8 and printed, and its train_ch5 loop with
Adam (evaluate_accuracy in eval mode). Three blocks in place of five on random 12x12
images of 4 classes in place of Fashion-MNIST resized to 224, 128 hidden units in place
of 4096, lr 0.002 and 3 epochs, without the timings."""

import torch
from torch import nn

torch.manual_seed(0)


def vgg_block(num_convs, in_channels, out_channels):
    blk = []
    for i in range(num_convs):
        if i == 0:
            blk.append(nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1))
        else:
            blk.append(nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1))
        blk.append(nn.ReLU())
    blk.append(nn.MaxPool2d(kernel_size=2, stride=2))
    return nn.Sequential(*blk)


class FlattenLayer(nn.Module):
    def __init__(self):
        super(FlattenLayer, self).__init__()

    def forward(self, x):
        return x.view(x.shape[0], -1)


conv_arch = ((1, 1, 64), (1, 64, 128), (2, 128, 256))
fc_features = 256 * 1 * 1
fc_hidden_units = 128


def vgg(conv_arch, fc_features, fc_hidden_units=4096):
    net = nn.Sequential()
    for i, (num_convs, in_channels, out_channels) in enumerate(conv_arch):
        net.add_module("vgg_block_" + str(i + 1), vgg_block(num_convs, in_channels, out_channels))
    net.add_module(
        "fc",
        nn.Sequential(
            FlattenLayer(),
            nn.Linear(fc_features, fc_hidden_units),
            nn.ReLU(),
            nn.Dropout(0.5),
            nn.Linear(fc_hidden_units, fc_hidden_units),
            nn.ReLU(),
            nn.Dropout(0.5),
            nn.Linear(fc_hidden_units, 4),
        ),
    )
    return net


ratio = 8
small_conv_arch = [
    (1, 1, 64 // ratio),
    (1, 64 // ratio, 128 // ratio),
    (2, 128 // ratio, 256 // ratio),
]
net = vgg(small_conv_arch, fc_features // ratio, fc_hidden_units)
X = torch.rand(1, 1, 12, 12)
for name, blk in net.named_children():
    X = blk(X)
    print(name, "output shape: ", X.shape)
print(net)

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
lr, num_epochs = 0.002, 3
optimizer = torch.optim.Adam(net.parameters(), lr=lr)
train_ch5(net, batch_size, optimizer, num_epochs)
