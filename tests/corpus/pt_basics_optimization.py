# follows: PyTorch tutorials, Learn the Basics, "Optimizing Model Parameters"
#   (Hyperparameters, Optimization Loop, Loss Function, Optimizer, Full Implementation),
#   https://pytorch.org/tutorials/beginner/basics/optimization_tutorial.html
"""The tutorial's train_loop and test_loop with CrossEntropyLoss and SGD, on a small
random data set of 16-pixel images in place of FashionMNIST, in float64, batches cut
by hand in place of a DataLoader."""

import torch
from torch import nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
classes, pixels = 4, 16
centers = torch.randn(classes, pixels)
train_y = torch.randint(0, classes, (256,))
train_x = centers[train_y] + 0.8 * torch.randn(256, pixels)
test_y = torch.randint(0, classes, (64,))
test_x = centers[test_y] + 0.8 * torch.randn(64, pixels)


def batches(x, y, size):
    for i in range(0, len(x), size):
        yield x[i : i + size], y[i : i + size]


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(pixels, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, classes)
        )

    def forward(self, x):
        return self.linear_relu_stack(self.flatten(x))


model = NeuralNetwork()
learning_rate = 1e-1
batch_size = 32
epochs = 4
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)


def train_loop(x, y, model, loss_fn, optimizer):
    size = len(x)
    model.train()
    for batch, (X, yb) in enumerate(batches(x, y, batch_size)):
        pred = model(X)
        loss = loss_fn(pred, yb)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 4 == 0:
            loss, current = loss.item(), batch * batch_size + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(x, y, model, loss_fn):
    model.eval()
    size, num_batches = len(x), 0
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, yb in batches(x, y, batch_size):
            pred = model(X)
            test_loss += loss_fn(pred, yb).item()
            correct += (pred.argmax(1) == yb).type(torch.float).sum().item()
            num_batches += 1
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


for t in range(epochs):
    print(f"Epoch {t + 1}\n-------------------------------")
    train_loop(train_x, train_y, model, loss_fn, optimizer)
    test_loop(test_x, test_y, model, loss_fn)
print("Done!")
