# follows: Dive-into-DL-PyTorch (ShusenTang), section 3.10 "多层感知机的简洁实现"
#   (定义模型, 读取数据并训练模型),
#   https://github.com/ShusenTang/Dive-into-DL-PyTorch/blob/master/docs/chapter03_DL-basics/3.10_mlp-pytorch.md
"""The book's Sequential of FlattenLayer, Linear, ReLU and Linear with every parameter
(weights and biases) drawn by init.normal_(std=0.01), CrossEntropyLoss, SGD(lr=0.5) and
train_ch3 with the optimiser (the loss summed per batch, its total divided by the number
of examples, as the book prints it). Random 8x8 images of 10 classes stand in for
Fashion-MNIST's 28x28, 64 hidden units for 256, batches of 50 from a torch.randperm
shuffle for its DataLoader, 4 epochs for 5."""

import torch
from torch import nn
from torch.nn import init

torch.manual_seed(0)
batch_size = 50
num_inputs, num_outputs, num_hiddens = 64, 10, 64

templates = torch.randn(10, 1, 8, 8)
train_labels = torch.randint(0, 10, (600,))
train_images = templates[train_labels] + 3 * torch.randn(600, 1, 8, 8)
test_labels = torch.randint(0, 10, (200,))
test_images = templates[test_labels] + 3 * torch.randn(200, 1, 8, 8)


def load_data(batch_size):
    def batches(images, labels):
        order = torch.randperm(len(images))
        for i in range(0, len(images), batch_size):
            yield images[order[i : i + batch_size]], labels[order[i : i + batch_size]]

    return (lambda: batches(train_images, train_labels)), (
        lambda: batches(test_images, test_labels)
    )


def evaluate_accuracy(data_iter, net):
    acc_sum, n = 0.0, 0
    for X, y in data_iter:
        acc_sum += (net(X).argmax(dim=1) == y).float().sum().item()
        n += y.shape[0]
    return acc_sum / n


def train_ch3(net, train_iter, test_iter, loss, num_epochs, batch_size, params=None, lr=None,
              optimizer=None):  # fmt: skip
    for epoch in range(num_epochs):
        train_l_sum, train_acc_sum, n = 0.0, 0.0, 0
        for X, y in train_iter():
            y_hat = net(X)
            l = loss(y_hat, y).sum()
            if optimizer is not None:
                optimizer.zero_grad()
            elif params is not None and params[0].grad is not None:
                for param in params:
                    param.grad.data.zero_()
            l.backward()
            optimizer.step()
            train_l_sum += l.item()
            train_acc_sum += (y_hat.argmax(dim=1) == y).sum().item()
            n += y.shape[0]
        test_acc = evaluate_accuracy(test_iter(), net)
        print(
            "epoch %d, loss %.4f, train acc %.3f, test acc %.3f"
            % (epoch + 1, train_l_sum / n, train_acc_sum / n, test_acc)
        )


class FlattenLayer(nn.Module):
    def __init__(self):
        super(FlattenLayer, self).__init__()

    def forward(self, x):
        return x.view(x.shape[0], -1)


net = nn.Sequential(
    FlattenLayer(),
    nn.Linear(num_inputs, num_hiddens),
    nn.ReLU(),
    nn.Linear(num_hiddens, num_outputs),
)
for params in net.parameters():
    init.normal_(params, mean=0, std=0.01)
print(net)

train_iter, test_iter = load_data(batch_size)
loss = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
num_epochs = 4
train_ch3(net, train_iter, test_iter, loss, num_epochs, batch_size, None, None, optimizer)
