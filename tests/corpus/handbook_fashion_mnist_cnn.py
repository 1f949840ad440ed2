# follows: pytorch-handbook (zergtant), chapter 5 "5.3 Fashion MNIST数据集 分类简单实践"
#   (a CNN of three Conv2d-BatchNorm2d-ReLU layers and two MaxPool2d, trained with Adam and
#   CrossEntropyLoss, tested in eval mode, then trained again with a smaller rate),
#   https://github.com/zergtant/pytorch-handbook/blob/master/chapter5/5.3-Fashion-MNIST.ipynb
"""The chapter's CNN class (layer1, pool1, layer2, layer3, pool2, fc, out.view(out.size(0),
-1)) checked on one torch.rand image and printed; its training loop (zero_grad, loss,
backward, step, the losses kept in a list and printed every few iterations as
'Epoch : %d/%d, Iter : %d/%d,  Loss: %.4f'), its test in eval() printing the accuracy
from the integer count of correct predictions, and its second round of training with
lr=0.001. Random 12x12 images of 10 classes as float64 arrays (as its Dataset's
.astype(float)) made float() by the loop in place of the Fashion-MNIST CSV files,
channels 8, 16 and 16 in place of 16, 32 and 64, minibatches of 32 cut by hand in place
of its DataLoader, 2 epochs and 1 in place of 50 and 20, on the CPU."""

import numpy as np
import torch
import torch.nn as NN

torch.manual_seed(0)
rng = np.random.default_rng(0)
templates = rng.uniform(0, 255, (10, 1, 12, 12))
train_Y = rng.integers(0, 10, 320)
train_X = (0.6 * templates[train_Y] + rng.uniform(0, 100, (320, 1, 12, 12))).astype(float)
test_Y = rng.integers(0, 10, 96)
test_X = (0.6 * templates[test_Y] + rng.uniform(0, 100, (96, 1, 12, 12))).astype(float)
BATCH_SIZE = 32


def loader(X, Y):
    for i in range(0, len(X), BATCH_SIZE):
        yield torch.from_numpy(X[i : i + BATCH_SIZE]), torch.from_numpy(Y[i : i + BATCH_SIZE])


class CNN(NN.Module):
    def __init__(self):
        super(CNN, self).__init__()
        self.layer1 = NN.Sequential(
            NN.Conv2d(1, 8, kernel_size=5, padding=2), NN.BatchNorm2d(8), NN.ReLU()
        )
        self.pool1 = NN.MaxPool2d(2)
        self.layer2 = NN.Sequential(NN.Conv2d(8, 16, kernel_size=3), NN.BatchNorm2d(16), NN.ReLU())
        self.layer3 = NN.Sequential(NN.Conv2d(16, 16, kernel_size=3), NN.BatchNorm2d(16), NN.ReLU())
        self.pool2 = NN.MaxPool2d(2)
        self.fc = NN.Linear(1 * 1 * 16, 10)

    def forward(self, x):
        out = self.layer1(x)
        out = self.pool1(out)
        out = self.layer2(out)
        out = self.layer3(out)
        out = self.pool2(out)
        out = out.view(out.size(0), -1)
        out = self.fc(out)
        return out


cnn = CNN()
print(cnn(torch.rand(1, 1, 12, 12)).shape)
print(cnn)
DEVICE = torch.device("cpu")
cnn = cnn.to(DEVICE)
criterion = NN.CrossEntropyLoss().to(DEVICE)


def train(optimizer, TOTAL_EPOCHS):
    losses = []
    for epoch in range(TOTAL_EPOCHS):
        for i, (images, labels) in enumerate(loader(train_X, train_Y)):
            images = images.float().to(DEVICE)
            labels = labels.to(DEVICE)
            optimizer.zero_grad()
            outputs = cnn(images)
            loss = criterion(outputs, labels).cpu()
            loss.backward()
            optimizer.step()
            losses.append(loss.data.item())
            if (i + 1) % 5 == 0:
                print(
                    "Epoch : %d/%d, Iter : %d/%d,  Loss: %.4f"
                    % (epoch + 1, TOTAL_EPOCHS, i + 1, len(train_X) // BATCH_SIZE, loss.data.item())
                )
    return losses


def test():
    cnn.eval()
    correct = 0
    total = 0
    for images, labels in loader(test_X, test_Y):
        images = images.float().to(DEVICE)
        outputs = cnn(images).cpu()
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum()
    print("准确率: %.4f %%" % (100 * correct / total))


LEARNING_RATE = 0.01
optimizer = torch.optim.Adam(cnn.parameters(), lr=LEARNING_RATE)
losses = train(optimizer, 2)
print(len(losses))
test()

cnn.train()
LEARNING_RATE = LEARNING_RATE / 10
optimizer = torch.optim.Adam(cnn.parameters(), lr=0.001)
losses = train(optimizer, 1)
test()
