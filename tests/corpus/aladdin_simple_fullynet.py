# follows: Aladdin Persson, Machine-Learning-Collection, "pytorch_simple_fullynet.py" (a
#   fully connected network as an nn.Module subclass, CrossEntropyLoss, Adam, check_accuracy),
#   https://github.com/aladdinpersson/Machine-Learning-Collection/blob/master/ML/Pytorch/Basics/pytorch_simple_fullynet.py
"""The walkthrough's NN (fc1 to 50 units, F.relu, fc2), CrossEntropyLoss and Adam(lr=0.001),
data reshaped to (batch, input_size) in the loop, then check_accuracy under torch.no_grad
with scores.max(1), model.eval() and model.train() around it. MNIST is replaced by
synthetic 8x8 "images" (each class a noisy template), the shuffling DataLoader by batches
taken in order, the progress bar left out; a seed is set."""

import torch
import torch.nn.functional as F
from torch import nn, optim

torch.manual_seed(0)


class NN(nn.Module):
    def __init__(self, input_size, num_classes):
        super(NN, self).__init__()  # noqa: UP008  (the walkthrough's)
        self.fc1 = nn.Linear(input_size, 50)
        self.fc2 = nn.Linear(50, num_classes)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return x


device = (
    "mps" if torch.backends.mps.is_available() else "cuda" if torch.cuda.is_available() else "cpu"
)

# Hyperparameters
input_size = 64
num_classes = 10
learning_rate = 0.001
batch_size = 64
num_epochs = 3

# Synthetic data set in place of MNIST: ten templates plus noise.
templates = torch.rand(num_classes, 1, 8, 8)
train_y = torch.randint(0, num_classes, (640,))
train_x = templates[train_y] + 0.5 * torch.randn(640, 1, 8, 8)
test_y = torch.randint(0, num_classes, (192,))
test_x = templates[test_y] + 0.5 * torch.randn(192, 1, 8, 8)
train_loader = list(zip(train_x.split(batch_size), train_y.split(batch_size)))
test_loader = list(zip(test_x.split(batch_size), test_y.split(batch_size)))

# Initialize network
model = NN(input_size=input_size, num_classes=num_classes).to(device)
print(model)

# Loss and optimizer
criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=learning_rate)

# Train Network
for epoch in range(num_epochs):
    for batch_idx, (data, targets) in enumerate(train_loader):  # noqa: B007  (the example's)
        data = data.to(device=device)
        targets = targets.to(device=device)

        # Get to correct shape
        data = data.reshape(data.shape[0], -1)

        # Forward
        scores = model(data)
        loss = criterion(scores, targets)

        # Backward
        optimizer.zero_grad()
        loss.backward()

        # Gradient descent or adam step
        optimizer.step()
    print(f"epoch {epoch}: last batch {batch_idx}, loss {loss.item():.4f}")


def check_accuracy(loader, model):
    num_correct = 0
    num_samples = 0
    model.eval()

    with torch.no_grad():
        for x, y in loader:
            x = x.to(device=device)
            y = y.to(device=device)
            x = x.reshape(x.shape[0], -1)

            scores = model(x)
            _, predictions = scores.max(1)
            num_correct += (predictions == y).sum()
            num_samples += predictions.size(0)

    model.train()
    return num_correct / num_samples


print(f"Accuracy on training set: {check_accuracy(train_loader, model) * 100:.2f}")
print(f"Accuracy on test set: {check_accuracy(test_loader, model) * 100:.2f}")
print(model.training, check_accuracy(test_loader, model))
