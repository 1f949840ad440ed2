# follows: Dive-into-DL-PyTorch (ShusenTang), section 5.10 "批量归一化", 5.10.3 "简洁实现"
#   (LeNet with nn.BatchNorm2d after each convolution and nn.BatchNorm1d after each hidden
#   fully connected layer, trained with Adam),
#   https://github.com/ShusenTang/Dive-into-DL-PyTorch/blob/master/docs/chapter05_CNN/5.10_batch-norm.md
"""The book's concise LeNet with batch normalisation (Conv2d, BatchNorm2d, Sigmoid,
MaxPool2d twice; FlattenLayer; Linear, BatchNorm1d, Sigmoid twice; Linear), trained by
train_ch5 with Adam(lr=0.001) and evaluated in eval mode (the running statistics), then
the first BatchNorm2d's learned scale and shift. Random 20x20 images of 10 classes stand
in for Fashion-MNIST's 28x28 (so 16*2*2 features reach the first Linear in place of
16*4*4), batches of 32 cut by hand for its DataLoader, 3 epochs for 5, without the
timings."""

import torch
from torch import nn

torch.manual_seed(0)


class FlattenLayer(nn.Module):
    def __init__(self):
        super(FlattenLayer, self).__init__()

    def forward(self, x):
        return x.view(x.shape[0], -1)


net = nn.Sequential(
    nn.Conv2d(1, 6, 5),
    nn.BatchNorm2d(6),
    nn.Sigmoid(),
    nn.MaxPool2d(2, 2),
    nn.Conv2d(6, 16, 5),
    nn.BatchNorm2d(16),
    nn.Sigmoid(),
    nn.MaxPool2d(2, 2),
    FlattenLayer(),
    nn.Linear(16 * 2 * 2, 120),
    nn.BatchNorm1d(120),
    nn.Sigmoid(),
    nn.Linear(120, 84),
    nn.BatchNorm1d(84),
    nn.Sigmoid(),
    nn.Linear(84, 10),
)
print(net)

templates = torch.randn(10, 1, 20, 20)
train_labels = torch.randint(0, 10, (192,))
train_images = templates[train_labels] + torch.randn(192, 1, 20, 20)
test_labels = torch.randint(0, 10, (96,))
test_images = templates[test_labels] + torch.randn(96, 1, 20, 20)


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
print(net[1].weight.data, net[1].bias.data, sep="\n")
