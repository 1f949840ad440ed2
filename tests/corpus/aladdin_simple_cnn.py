# follows: Aladdin Persson, Machine-Learning-Collection, "pytorch_simple_CNN.py" (two
#   Conv2d layers with MaxPool2d, a Linear classifier, CrossEntropyLoss, Adam, accuracy),
#   https://github.com/aladdinpersson/Machine-Learning-Collection/blob/master/ML/Pytorch/Basics/pytorch_simple_CNN.py
"""The example's CNN: Conv2d(1, 8, 3x3, padding 1), F.relu, MaxPool2d(2), Conv2d(8, 16),
F.relu, MaxPool2d(2), reshape and a Linear classifier; CrossEntropyLoss and
Adam(lr=0.001), then check_accuracy printing "Got n / m with accuracy". MNIST's 28x28
digits are replaced by synthetic 12x12 "images" (each class a noisy template, so the
classifier reads 16*3*3 features), the DataLoader by batches taken in order; four
epochs of batches of 32."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)


class CNN(nn.Module):
    def __init__(self, in_channels=1, num_classes=10):
        super(CNN, self).__init__()  # noqa: UP008  (the example's)
        self.conv1 = nn.Conv2d(
            in_channels=1, out_channels=8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)
        )
        self.pool = nn.MaxPool2d(kernel_size=(2, 2), stride=(2, 2))
        self.conv2 = nn.Conv2d(
            in_channels=8, out_channels=16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)
        )
        self.fc1 = nn.Linear(16 * 3 * 3, num_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = self.pool(x)
        x = F.relu(self.conv2(x))
        x = self.pool(x)
        x = x.reshape(x.shape[0], -1)
        x = self.fc1(x)

        return x


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# Hyperparameters
in_channel = 1
num_classes = 10
learning_rate = 0.001
batch_size = 32
num_epochs = 4

# Synthetic data set in place of MNIST: ten templates plus noise.
templates = torch.rand(num_classes, 1, 12, 12)
train_y = torch.randint(0, num_classes, (320,))
train_x = templates[train_y] + 0.4 * torch.randn(320, 1, 12, 12)
test_y = torch.randint(0, num_classes, (128,))
test_x = templates[test_y] + 0.4 * torch.randn(128, 1, 12, 12)
train_loader = list(zip(train_x.split(batch_size), train_y.split(batch_size)))
test_loader = list(zip(test_x.split(batch_size), test_y.split(batch_size)))

# Initialize network
model = CNN().to(device)
print(model)

# Loss and optimizer
criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=learning_rate)

# Train Network
for epoch in range(num_epochs):
    for batch_idx, (data, targets) in enumerate(train_loader):  # noqa: B007  (the example's)
        data = data.to(device=device)
        targets = targets.to(device=device)

        # forward
        scores = model(data)
        loss = criterion(scores, targets)

        # backward
        optimizer.zero_grad()
        loss.backward()

        # gradient descent or adam step
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")


def check_accuracy(loader, model, train):
    if train:
        print("Checking accuracy on training data")
    else:
        print("Checking accuracy on test data")

    num_correct = 0
    num_samples = 0
    model.eval()

    with torch.no_grad():
        for x, y in loader:
            x = x.to(device=device)
            y = y.to(device=device)

            scores = model(x)
            _, predictions = scores.max(1)
            num_correct += (predictions == y).sum()
            num_samples += predictions.size(0)

        print(
            f"Got {num_correct} / {num_samples} with accuracy "
            f"{float(num_correct) / float(num_samples) * 100:.2f}"
        )

    model.train()


check_accuracy(train_loader, model, train=True)
check_accuracy(test_loader, model, train=False)
